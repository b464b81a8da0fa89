/* A barrier whose count is 1 lets each thread through alone: it orders nothing, and the
 * reader may see the flag unset. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

pthread_barrier_t barrier;
atomic_int x;

void *writer(void *arg)
{
	x = 42;
	pthread_barrier_wait(&barrier);
	return NULL;
}

void *reader(void *arg)
{
	pthread_barrier_wait(&barrier);
	assert(x == 42);
	return NULL;
}

int main()
{
	pthread_t t1, t2;
	pthread_barrier_init(&barrier, NULL, COUNT);
	pthread_create(&t1, NULL, writer, NULL);
	pthread_create(&t2, NULL, reader, NULL);
	return 0;
}
