/* A plain counter incremented under a mutex by two threads: no update is lost. */
#include <assert.h>
#include <pthread.h>

pthread_mutex_t lock;
int counter;

void *increment(void *unused)
{
	pthread_mutex_lock(&lock);
	counter = counter + 1;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main()
{
	pthread_t a, b;

	pthread_mutex_init(&lock, NULL);
	pthread_create(&a, NULL, increment, NULL);
	pthread_create(&b, NULL, increment, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(counter == 2);
	return 0;
}
