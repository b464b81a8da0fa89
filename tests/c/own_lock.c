/* The program defines its own `lock` and `unlock`, names nemos's library also has: the
 * program's functions are the ones called. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int held;
int counter;

void lock(void)
{
	while (atomic_exchange_explicit(&held, 1, memory_order_acquire))
		;
}

void unlock(void)
{
	atomic_store_explicit(&held, 0, memory_order_release);
}

void *increment(void *unused)
{
	lock();
	counter = counter + 1;
	unlock();
	return NULL;
}

int main()
{
	pthread_t a, b;

	pthread_create(&a, NULL, increment, NULL);
	pthread_create(&b, NULL, increment, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(counter == 2);
	return 0;
}
