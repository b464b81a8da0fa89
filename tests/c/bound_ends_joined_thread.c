/* A thread ended at the loop bound (GenMC 0.11's -unroll=N) never finishes: a join of it
 * waits forever, so the assertion after the join is never reached and there is no complete
 * execution (GenMC 0.11 at -unroll=1, 2, 3: 0 complete, 1 blocked, no error). */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;

void *worker(void *unused)
{
	while (1)
		atomic_fetch_add(&x, 1);
	return NULL;
}

int main()
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	assert(0);
	return 0;
}
