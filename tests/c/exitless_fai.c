// A loop with no exit of fetch-adds of no net effect (GenMC's spin-fai1), entered only
// when `y` reads 1.
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

atomic_int x;
atomic_int y;

void *thread_1(void *unused)
{
	if (atomic_load_explicit(&y, memory_order_relaxed) == 1) {
		while (true) {
			atomic_fetch_add_explicit(&x, 1, memory_order_relaxed);
			atomic_fetch_sub_explicit(&x, 1, memory_order_relaxed);
		}
	}
	return NULL;
}

void *thread_2(void *unused)
{
	atomic_store_explicit(&y, 1, memory_order_relaxed);
	return NULL;
}

int main()
{
	pthread_t t1, t2;
	pthread_create(&t1, NULL, thread_1, NULL);
	pthread_create(&t2, NULL, thread_2, NULL);
	return 0;
}
