/* Threads that start and join threads of their own: each of the two middle threads runs
 * its own copy of `middle`, so four threads in all. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;

void *leaf(void *arg)
{
	atomic_store_explicit(&x, (int)(long)arg, memory_order_relaxed);
	return NULL;
}

void *middle(void *arg)
{
	pthread_t t;

	pthread_create(&t, NULL, leaf, arg);
	pthread_join(t, NULL);
	assert(atomic_load_explicit(&x, memory_order_relaxed) != 0);
	return NULL;
}

int main()
{
	pthread_t a, b;

	pthread_create(&a, NULL, middle, (void *)1);
	pthread_create(&b, NULL, middle, (void *)2);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
