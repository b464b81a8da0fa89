// A compare-exchange spin lock (GenMC's barrier3 and barrier-lock take it the same way):
// the retry loop is reduced to its first test, one retry and a wait, and `--count` counts
// as GenMC's spin-assume does: only executions whose loops succeed at their first test.
#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>

atomic_int l;
int counter;

void *worker(void *arg)
{
	int r = 0;
	while (!atomic_compare_exchange_strong(&l, &r, 1))
		r = 0;
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
