/* A thread-local variable: each thread (main included) has its own copy, initialised as
 * declared, so the threads' plain writes to it neither race nor meet. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

__thread int tid = 7;
atomic_int seen;

void set_tid(int i) { tid = i; }
int get_tid(void) { return tid; }

void *worker(void *arg)
{
	int me = (int)(long)arg;
	assert(get_tid() == 7);
	set_tid(me);
	atomic_store_explicit(&seen, get_tid(), memory_order_relaxed);
	assert(tid == me);
	return NULL;
}

int main()
{
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)(long)(i + 1));
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert(tid == 7);
	int s = atomic_load_explicit(&seen, memory_order_relaxed);
	assert(s == 1 || s == 2);
	return 0;
}
