/* A loop left by `break` in its last iteration within the bound is not ended by GenMC
 * 0.11's -unroll=N: at -unroll=2 the second iteration reads 1, breaks, and the assertion
 * fails (GenMC 0.11: safety violation at -unroll=2; at -unroll=1 the thread ends before
 * the second iteration: no error, 2 executions). */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int f;

void *setter(void *unused)
{
	atomic_store(&f, 1);
	return NULL;
}

int main()
{
	pthread_t t;
	int n = 0;

	pthread_create(&t, NULL, setter, NULL);
	while (1) {
		n++;
		if (atomic_load(&f) == 1)
			break;
	}
	assert(n <= 1);
	return 0;
}
