// A loop with no exit that stores 42 when it reads something else (GenMC's spin-plain+se),
// entered only when `y` reads 1.
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;
atomic_int y;

void *thread_1(void *unused)
{
	if (atomic_load_explicit(&y, memory_order_relaxed) == 1) {
		while (1) {
			if (atomic_load_explicit(&x, memory_order_relaxed) == 42)
				continue;
			else
				atomic_store_explicit(&x, 42, memory_order_relaxed);
		}
	}
	return NULL;
}

void *thread_2(void *unused)
{
	for (int i = 0; i < 2; i++)
		x = i;
	y = 1;
	return NULL;
}

int main()
{
	pthread_t t1, t2;
	pthread_create(&t1, NULL, thread_1, NULL);
	pthread_create(&t2, NULL, thread_2, NULL);
	return 0;
}
