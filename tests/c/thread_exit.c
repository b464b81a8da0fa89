/* pthread_exit ends its thread where it is called (the store after it does not run), and
 * its value is what pthread_join gives. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int flag;
atomic_int after;

void *worker(void *unused)
{
	if (atomic_load_explicit(&flag, memory_order_relaxed) == 0)
		pthread_exit((void *)1);
	atomic_store_explicit(&after, 1, memory_order_relaxed);
	return (void *)2;
}

int main()
{
	pthread_t t;
	void *res;

	pthread_create(&t, NULL, worker, NULL);
	atomic_store_explicit(&flag, 1, memory_order_relaxed);
	pthread_join(t, &res);
	long r = (long)res;
	int a = atomic_load_explicit(&after, memory_order_relaxed);
	assert((r == 1 && a == 0) || (r == 2 && a == 1));
	return 0;
}
