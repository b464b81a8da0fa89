// GenMC's spin-2cas-join2 shape, smaller: the retry loop has two compare-exchanges, one per
// branch on the value the last failed one read, each leaving the loop by `break` when it
// succeeds. Reduced to one iteration that leaves the loop: one execution per write of x the
// load reads (0, 1, 2, 3), the exchange reading the same write (GenMC 0.11, -rc11 and -sc:
// 4 complete executions, 3 blocked).
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;

void *thread_1(void *unused)
{
	for (int i = 1; i <= 3; i++)
		x = i;
	return NULL;
}

void *thread_2(void *unused)
{
	int r = atomic_load_explicit(&x, memory_order_seq_cst);
	for (;;) {
		if (r == 3) {
			if (atomic_compare_exchange_strong(&x, &r, 42))
				break;
		} else {
			if (atomic_compare_exchange_strong(&x, &r, 17))
				break;
		}
	}
	return NULL;
}

int main()
{
	pthread_t a, b;
	pthread_create(&a, NULL, thread_1, NULL);
	pthread_create(&b, NULL, thread_2, NULL);
	return 0;
}
