/* Creates and joins whose result is checked, as GenMC's barrier-transc writes them: the
 * calls succeed (their value is 0), so a failure branch (`printf(...); return -1;`) never
 * runs and does not keep the loop from being unrolled, and the branch of `== 0` always
 * runs. After both joins main reads the coherence-last write of x, which is never the
 * initial 0; either thread's write may be last, so `r == 2` can fail (2 executions). */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

atomic_int x;

void *f(void *arg)
{
	atomic_store_explicit(&x, (int)(long)arg, memory_order_relaxed);
	return NULL;
}

int main()
{
	pthread_t t[2];

	for (int i = 0; i < 2; i++) {
		if (pthread_create(&t[i], NULL, f, (void *)(long)(i + 1))) {
			printf("Could not create thread %d\n", i);
			return -1;
		}
	}
	if (!(pthread_join(t[0], NULL) == 0))
		abort();
	if (pthread_join(t[1], NULL) == 0) {
		int r = atomic_load_explicit(&x, memory_order_relaxed);
		assert(r != 0);
		assert(r == 2);
	}
	return 0;
}
