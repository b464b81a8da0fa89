/* A mutex reached through a pointer: the thread locks one and unlocks the one its argument
   points to, which it does not hold. GenMC 0.11: "Invalid unlock() operation", under both. */
#include <pthread.h>

pthread_mutex_t a, b;

void *worker(void *arg)
{
	pthread_mutex_t *u = (pthread_mutex_t *) arg;
	pthread_mutex_lock(&a);
	pthread_mutex_unlock(u);
	return NULL;
}

int main()
{
	pthread_t t;
	pthread_create(&t, NULL, worker, &b);
	return 0;
}
