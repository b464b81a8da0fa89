/* Two threads store into an `atomic_bool`, one the value 2: C stores 1, so `main` reads
 * 0 or 1 and never 2. GenMC 0.11: no error, 6 executions under rc11 and under sc
 * (checked 28 November 2026). */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

atomic_bool flag;

void *two(void *arg)
{
	atomic_store_explicit(&flag, 2, memory_order_relaxed);
	return NULL;
}

void *one(void *arg)
{
	atomic_store_explicit(&flag, 1, memory_order_relaxed);
	return NULL;
}

int main()
{
	pthread_t a, b;
	pthread_create(&a, NULL, two, NULL);
	pthread_create(&b, NULL, one, NULL);
	int v = atomic_load_explicit(&flag, memory_order_relaxed);
	assert(v != 2);
	return 0;
}
