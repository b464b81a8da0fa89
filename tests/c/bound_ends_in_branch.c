/* A thread ended at the loop bound inside a branch stays ended after the branch: at
 * -unroll=1 the iteration that reads 0 ends the thread, so the assertion after the `if` is
 * reached only with k == 0 (GenMC 0.11: no error, 2 executions); at -unroll=2 the second
 * test may read 1 with k == 1, and the assertion fails (GenMC 0.11: safety violation). */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int f;
atomic_int g;

void *setter(void *unused)
{
	atomic_store(&f, 1);
	return NULL;
}

int main()
{
	pthread_t t;
	int k = 0;

	pthread_create(&t, NULL, setter, NULL);
	if (atomic_load(&g) == 0) {
		while (atomic_load(&f) == 0)
			k++;
	}
	assert(k < 1);
	return 0;
}
