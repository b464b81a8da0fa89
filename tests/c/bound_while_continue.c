/* A `while` condition with a side effect, at the bound: GenMC's -unroll=N ends the thread
 * at the loop's header, before the condition's code runs the (N+1)th time, so the
 * exchange-add runs N times and `main` reads at most N. GenMC 0.11 (28 November 2026),
 * -unroll=1: 2 executions, no error; -unroll=2: 3, no error; -unroll=3: the assertion
 * fails. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;
atomic_int y;

void *counter(void *arg)
{
	int r;
	while ((r = atomic_fetch_add(&x, 1)) < 5) {
		if (r == 0)
			continue;
		atomic_fetch_add(&y, 1);
	}
	return NULL;
}

int main()
{
	pthread_t t;
	pthread_create(&t, NULL, counter, NULL);
	assert(atomic_load(&x) <= 2 && atomic_load(&y) <= 1);
	return 0;
}
