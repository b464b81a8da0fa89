// A loop of register arithmetic left by a `break` (no condition on a variable): under
// GenMC's -unroll=2 (`--unroll 2 --block-at-bound --end-threads-at-bound`) it is bounded as
// any loop, so the thread ends at the bound and no complete execution reaches the
// assertion (GenMC 0.11 -unroll=2: no error, 0 complete executions, 1 blocked). Without
// the bound flags it runs to its end and the assertion fails.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;

void *counter(void *arg)
{
	int i = 0;
	for (;;) {
		i++;
		if (i == 5)
			break;
	}
	x = i;
	return NULL;
}

int main()
{
	pthread_t p;
	pthread_create(&p, NULL, counter, NULL);
	pthread_join(p, NULL);
	assert(x != 5);
	return 0;
}
