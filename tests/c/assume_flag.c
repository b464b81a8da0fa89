/* GenMC's __VERIFIER_assume: only the executions where the reader sees the flag count,
 * and in those it sees the data (release/acquire). */
#include <assert.h>
#include <genmc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

atomic_int data;
atomic_bool ready;

void *writer(void *unused)
{
	atomic_store_explicit(&data, 5, memory_order_relaxed);
	atomic_store_explicit(&ready, true, memory_order_release);
	return NULL;
}

void *reader(void *unused)
{
	__VERIFIER_assume(atomic_load_explicit(&ready, memory_order_acquire));
	assert(atomic_load_explicit(&data, memory_order_relaxed) == 5);
	return NULL;
}

int main()
{
	pthread_t t1, t2;

	pthread_create(&t1, NULL, writer, NULL);
	pthread_create(&t2, NULL, reader, NULL);
	return 0;
}
