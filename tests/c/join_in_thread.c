/* A thread joins another through a handle main published in memory (GenMC's W+JW): the
 * joined thread's write happens before what follows the join. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

_Atomic(pthread_t) pid;
atomic_int x;

void *writer(void *unused)
{
	atomic_store_explicit(&x, 42, memory_order_relaxed);
	return NULL;
}

void *joiner(void *unused)
{
	if (pthread_join(pid, NULL))
		abort();
	assert(atomic_load_explicit(&x, memory_order_relaxed) == 42);
	return NULL;
}

int main()
{
	pthread_t t1, t2;

	pthread_create(&t1, NULL, writer, NULL);
	atomic_store_explicit(&pid, t1, memory_order_relaxed);
	pthread_create(&t2, NULL, joiner, NULL);
	pthread_join(t2, NULL);
	return 0;
}
