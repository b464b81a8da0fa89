// A spin loop whose body's compare-exchange may succeed and write another value than the
// one it read (it reads 0 and writes 1) in an iteration that goes on: such an iteration
// changes memory, so it is no failed iteration to drop; nemos reports the executions
// where it happens as cut (exit 3), not as a verdict.
#include <pthread.h>
#include <stdatomic.h>

atomic_int x = 1;
atomic_int y;

void *waiter(void *arg)
{
	while (atomic_load_explicit(&x, memory_order_acquire)) {
		int e = 0;
		atomic_compare_exchange_strong(&y, &e, 1);
	}
	return NULL;
}

int main()
{
	pthread_t a;
	pthread_create(&a, NULL, waiter, NULL);
	atomic_store_explicit(&x, 0, memory_order_release);
	return 0;
}
