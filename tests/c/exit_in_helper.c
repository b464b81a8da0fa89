/* pthread_exit at the end of a function the thread's start routine calls: the thread ends
 * there (its `x = 2` never runs), with the value the helper's pthread_exit gives.
 * GenMC 0.11: no error, 1 execution under rc11 and sc. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

int x;
atomic_int done;

void stop(void)
{
	atomic_store_explicit(&done, 1, memory_order_release);
	pthread_exit((void *) 7);
}

void *worker(void *unused)
{
	x = 1;
	stop();
	x = 2;
	return NULL;
}

int main()
{
	pthread_t t;
	void *r;

	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, &r);
	assert(x == 1);
	assert(r == (void *) 7);
	assert(atomic_load_explicit(&done, memory_order_relaxed) == 1);
	return 0;
}
