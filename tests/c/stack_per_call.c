/* One stack object per call: two threads run the same function, each with its own
   `local`, which each passes to `bump` through a pointer; nothing is shared, so no race,
   and each thread's assertion holds. The globals are written by both threads with
   relaxed atomics: 1 execution per coherence order of `last`, 2 in all. In an unrolled
   loop the declaration is one object for every iteration (as GenMC's allocas, made at
   the function's entry): the second iteration sees the first's 1 and adds 1. */
#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>

atomic_int last;

void bump(int *p)
{
	*p = *p + 1;
}

void *worker(void *arg)
{
	for (int i = 0; i < 2; i++) {
		int local;
		if (i == 0)
			local = 0;
		bump(&local);
		if (i == 1)
			assert(local == 2);
	}
	atomic_store_explicit(&last, 1, memory_order_relaxed);
	return NULL;
}

int main(void)
{
	pthread_t t1, t2;
	pthread_create(&t1, NULL, worker, NULL);
	pthread_create(&t2, NULL, worker, NULL);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	return 0;
}
