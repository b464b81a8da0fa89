/* Two threads increment a plain int under one mutex: its lock orders the sections,
   no race under any model (GenMC 0.11 -sc and rc11: no error, 2 executions). */
#include <pthread.h>

pthread_mutex_t m1;
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
	pthread_mutex_lock(&m1);
	c++;
	pthread_mutex_unlock(&m1);
	return NULL;
}

int main()
{
	pthread_t a, b;
	pthread_create(&a, NULL, t1, NULL);
	pthread_create(&b, NULL, t2, NULL);
	return 0;
}
