/* Creates inside a branch of a constant loop (GenMC's lastzero), one through a handle
 * written `t + i`: the loop is unrolled, so each branch is decided per copy. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int a[3];

void *first(void *unused)
{
	atomic_store_explicit(&a[0], 1, memory_order_relaxed);
	return NULL;
}

void *next(void *arg)
{
	int i = (int)(long)arg;
	atomic_store_explicit(&a[i], atomic_load_explicit(&a[i - 1], memory_order_relaxed) + 1,
			      memory_order_relaxed);
	return NULL;
}

int main()
{
	pthread_t t[3];

	for (int i = 0; i < 3; i++) {
		if (i == 0)
			pthread_create(t + i, NULL, first, NULL);
		else
			pthread_create(&t[i], NULL, next, (void *)(long)i);
	}
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	assert(atomic_load_explicit(&a[2], memory_order_relaxed) != 3);
	return 0;
}
