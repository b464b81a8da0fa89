/* Two threads write a plain int with no lock (a data race under SC too), then lock one
   mutex, which only t2 unlocks: when t1 locks it first, t2 is blocked for good (a
   deadlock). `check --model sc` finds the race in a session of its own and the deadlock
   in the check's session; both are reported. */
#include <pthread.h>
int x;
pthread_mutex_t m;
void *t1(void *a)
{
	x = 1;
	pthread_mutex_lock(&m);
	return NULL;
}
void *t2(void *a)
{
	x = 2;
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	return NULL;
}
int main()
{
	pthread_t a, b;
	pthread_create(&a, NULL, t1, NULL);
	pthread_create(&b, NULL, t2, NULL);
	return 0;
}
