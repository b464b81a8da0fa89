/* main publishes the handle only after starting the joiner, which may read the initial 0:
 * a join of a handle that names no thread started by the program (GenMC's invalid join)
 * fails as an assertion at the join. */
#include <pthread.h>
#include <stdatomic.h>

_Atomic(pthread_t) pid;

void *worker(void *unused)
{
	return NULL;
}

void *joiner(void *unused)
{
	pthread_join(pid, NULL);
	return NULL;
}

int main()
{
	pthread_t t1, t2;

	pthread_create(&t1, NULL, worker, NULL);
	pthread_create(&t2, NULL, joiner, NULL);
	atomic_store_explicit(&pid, t1, memory_order_relaxed);
	return 0;
}
