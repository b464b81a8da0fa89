/* A thread whose create does not run never starts, and a join of a thread cut at the
 * unrolling bound waits there: nothing after either runs. GenMC 0.11, measured
 * 2026-11-28 under rc11 and sc (CASE 1 to 3 with -unroll=2, `main` ending at its loop's
 * bound before the second create):
 *   CASE 1: no error, 1 complete execution (nemos blocked it until 28 November 2026:
 *           0 executions);
 *   CASE 2: Safety violation (nemos said "no defect");
 *   CASE 3: no error, 0 complete executions, 1 blocked (the join waits for ever); with
 *           nemos's --block-at-bound alone (the thread cut, not ended) 1 execution left
 *           out (nemos counted 2: `main` went on past the join);
 *   CASE 4 (no -unroll): no error, 3 complete executions (nemos 2: the execution where
 *           `main` returns before the second create was blocked). */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int m;
atomic_int x;
int param[8];
pthread_t t1, t2;

void *writer(void *arg)
{
	atomic_store(&x, 1);
#if CASE == 2
	assert(atomic_load(&m) != 3);
#endif
	return NULL;
}

void *reader(void *arg)
{
	int r = atomic_load(&x);
	return NULL;
}

void *spin(void *arg)
{
	for (int j = 0; j < atomic_load(&m); j++)
		;
	return NULL;
}

int main()
{
	atomic_store(&m, 3);
	pthread_create(&t2, NULL, writer, NULL);
#if CASE == 3
	pthread_create(&t1, NULL, spin, NULL);
	pthread_join(t1, NULL);
	int r = atomic_load(&x);
#elif CASE == 4
	if (atomic_load(&x) == 1)
		return 0;
	pthread_create(&t1, NULL, reader, NULL);
#else
	for (int j = 0; j < atomic_load(&m); j++)
		param[j] = j;
	pthread_create(&t1, NULL, reader, NULL);
#endif
	return 0;
}
