// A spin loop whose body holds a compare-exchange of another location that always fails
// (GenMC's spin-samecas): a failed iteration has no effect, so the loop is reduced as a
// spin loop, and the two waits count as GenMC's spin-assume counts them: thread 1 reads
// 0 at both loops' first tests (GenMC 0.11: 1 execution, 2 blocked).
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;
atomic_int y;

static void spin_until_zero(atomic_int *v)
{
	while (atomic_load_explicit(v, memory_order_relaxed)) {
		int r = 17;
		atomic_compare_exchange_strong(&y, &r, 42);
	}
}

void *waiter(void *arg)
{
	spin_until_zero(&x);
	spin_until_zero(&x);
	return NULL;
}

void *setter(void *arg)
{
	x = 42;
	return NULL;
}

int main()
{
	pthread_t a, b;
	pthread_create(&a, NULL, waiter, NULL);
	pthread_create(&b, NULL, setter, NULL);
	return 0;
}
