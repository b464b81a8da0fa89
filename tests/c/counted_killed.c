/* A loop counted up to a value read, under GenMC 0.11's -unroll=N (nemos's
 * --end-threads-at-bound): GenMC stops the thread at the loop's head the N+1-th time, before the
 * condition is read, even when the count would end there. main joins the thread, so it
 * waits for good unless N is above 3: GenMC 0.11 counts 0 complete executions at
 * -unroll=3 and 1 at -unroll=4 (rc11 and sc). (A `for` whose bounds are both constants,
 * `i <= 3`, is unrolled whole by nemos's C front end, and not bounded by the option.) */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;
atomic_int n = 3;

void *writer(void *unused)
{
	for (int i = 1; i <= atomic_load(&n); i++)
		atomic_store(&x, i);
	return NULL;
}

int main()
{
	pthread_t t;

	pthread_create(&t, NULL, writer, NULL);
	pthread_join(t, NULL);
	assert(atomic_load(&x) == 3);
	return 0;
}
