// A test-and-set lock (GenMC's ttaslock-opt): `while (1)` around an exchange whose
// failure writes back the 1 it read, so a failed iteration changes nothing and the loop
// is reduced as a spin loop. `--count` counts as GenMC's dynamic spin detection does:
// only executions whose exchanges succeed at once, one per order of the two sections.
#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>

atomic_int l;
int counter;

static void acquire(void)
{
	while (1) {
		if (!atomic_exchange_explicit(&l, 1, memory_order_acquire))
			return;
	}
}

void *worker(void *arg)
{
	acquire();
	counter = counter + 1;
	atomic_store_explicit(&l, 0, memory_order_release);
	return NULL;
}

int main()
{
	pthread_t a, b;
	pthread_create(&a, NULL, worker, NULL);
	pthread_create(&b, NULL, worker, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(counter == 2);
	return 0;
}
