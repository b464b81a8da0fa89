/* Two threads increment a plain int under two different mutexes: neither lock orders the
   other's section, so the increments race under SC too (GenMC 0.11 -sc: Non-atomic race). */
#include <pthread.h>

pthread_mutex_t m1, m2;
int c;

void *t1(void *a)
{
	pthread_mutex_lock(&m1);
	c++;
	pthread_mutex_unlock(&m1);
	return NULL;
}

void *t2(void *a)
{
	pthread_mutex_lock(&m2);
	c++;
	pthread_mutex_unlock(&m2);
	return NULL;
}

int main()
{
	pthread_t a, b;
	pthread_create(&a, NULL, t1, NULL);
	pthread_create(&b, NULL, t2, NULL);
	return 0;
}
