// A `do` loop with a `break` whose condition reads a load only when the flag is clear
// (GenMC's spin-dowhile1): a spin loop, path by path. Counted as GenMC's spin-assume
// counts (GenMC 0.11: 2 under both models).
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;

void *waiter(void *arg)
{
	do {
		if (atomic_load_explicit(&x, memory_order_acquire) == 3)
			break;
	} while (atomic_load_explicit(&x, memory_order_relaxed) != 0);
	return NULL;
}

void *writer(void *arg)
{
	for (int i = 1; i <= 3; i++)
		atomic_store_explicit(&x, i, memory_order_relaxed);
	return NULL;
}

int main()
{
	pthread_t a, b;
	pthread_create(&a, NULL, waiter, NULL);
	pthread_create(&b, NULL, writer, NULL);
	return 0;
}
