// A loop with no exit of two compare-exchanges (GenMC's spin-2cas), entered only when `y`
// reads 1: the executions that enter it never complete; the others are counted.
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;
atomic_int y;

void *thread_1(void *unused)
{
	int r;
	if (atomic_load_explicit(&y, memory_order_seq_cst) == 1) {
		r = atomic_load_explicit(&x, memory_order_seq_cst);
		for (;;) {
			if (r == 42) {
				if (!atomic_compare_exchange_strong(&x, &r, 42))
					continue;
			} else {
				if (!atomic_compare_exchange_strong(&x, &r, 17))
					continue;
			}
		}
	}
	return NULL;
}

void *thread_2(void *unused)
{
	atomic_store_explicit(&y, 1, memory_order_release);
	return NULL;
}

int main()
{
	pthread_t t1, t2;
	pthread_create(&t1, NULL, thread_1, NULL);
	pthread_create(&t2, NULL, thread_2, NULL);
	return 0;
}
