/* GenMC 0.11's -unroll=N ends a thread that comes back to a loop's test after N
 * iterations (its LoopUnrollPass calls __VERIFIER_kill_thread there), before that test
 * reads anything: the execution counts as complete. With -unroll=N GenMC counts N+1
 * executions here (one per number of reads of 0 before the read of 1, and the one where
 * the worker ends at the bound): 2, 3, 4 at -unroll=1, 2, 3 (GenMC 0.11). */
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;
atomic_int f;

void *worker(void *unused)
{
	while (atomic_load(&f) == 0)
		atomic_fetch_add(&x, 1);
	return NULL;
}

void *setter(void *unused)
{
	atomic_store(&f, 1);
	return NULL;
}

int main()
{
	pthread_t t, u;

	pthread_create(&t, NULL, worker, NULL);
	pthread_create(&u, NULL, setter, NULL);
	return 0;
}
