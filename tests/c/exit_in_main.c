/* `exit` in `main` ends `main` there, and the other threads go on, as GenMC 0.11 runs it
 * (its interpreter unwinds the calling thread only): main reads 0, exits before it writes
 * the flag, and the worker's assertion fails. One execution. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

atomic_int flag;

void *worker(void *arg)
{
	assert(atomic_load_explicit(&flag, memory_order_relaxed) == 1);
	return NULL;
}

int main()
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	if (atomic_load_explicit(&flag, memory_order_relaxed) == 0)
		exit(1);
	atomic_store_explicit(&flag, 1, memory_order_relaxed);
	pthread_join(t, NULL);
	return 0;
}
