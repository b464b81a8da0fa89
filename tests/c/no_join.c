/* Without the join, main may run before the thread writes: the assertion can fail. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;

void *worker(void *unused)
{
	atomic_store_explicit(&x, 1, memory_order_relaxed);
	return NULL;
}

int main()
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	assert(atomic_load_explicit(&x, memory_order_relaxed) == 1);
	return 0;
}
