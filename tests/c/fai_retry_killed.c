/* A fetch-and-add retry loop (GenMC's spin-fai-fail, smaller): a worker takes `x` from 0
 * with a fetch-and-add; finding it taken, it gives its increment back and tries again.
 * One worker always finds `x` taken, so every execution needs a second iteration. GenMC
 * 0.11's -unroll=N stops (kills) that worker's thread at the bound and counts the
 * execution: nemos's --block-at-bound --end-threads-at-bound. GenMC 0.11, -unroll=1: 8 complete executions under
 * rc11 and sc (which worker wins, and the reader's four values); -unroll=2: 12. (The two
 * workers are two functions, so that GenMC's symmetry reduction does not halve these.)
 * Nobody joins the workers; with -DJOIN_BOTH main joins both, and waits for good on the
 * stopped one: GenMC 0.11 -unroll=1 counts 0 complete executions (8 blocked). */
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;

void *worker1(void *unused)
{
	for (;;) {
		if (atomic_fetch_add(&x, 1) == 0)
			break;
		atomic_fetch_add(&x, -1);
	}
	return NULL;
}

void *worker2(void *unused)
{
	for (;;) {
		if (atomic_fetch_add(&x, 1) == 0)
			break;
		atomic_fetch_add(&x, -1);
	}
	return NULL;
}

void *reader(void *unused)
{
	int a = atomic_load(&x);
	return NULL;
}

int main()
{
	pthread_t t1, t2, t3;

	pthread_create(&t1, NULL, worker1, NULL);
	pthread_create(&t2, NULL, worker2, NULL);
	pthread_create(&t3, NULL, reader, NULL);
#ifdef JOIN_BOTH
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
#endif
	return 0;
}
