// An exchange loop whose failed exchange may write another value than the one it read
// (it reads 1 and writes 2): such an iteration changes memory, so the loop is not a spin
// loop; nemos reports the executions where it happens as cut, not as a verdict.
#include <pthread.h>
#include <stdatomic.h>

atomic_int l = 1;

static void acquire(void)
{
	while (1) {
		if (!atomic_exchange_explicit(&l, 2, memory_order_acquire))
			return;
	}
}

void *worker(void *arg)
{
	acquire();
	return NULL;
}

int main()
{
	pthread_t a;
	pthread_create(&a, NULL, worker, NULL);
	atomic_store_explicit(&l, 0, memory_order_release);
	return 0;
}
