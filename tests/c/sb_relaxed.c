/* Store buffering with relaxed accesses: under RC11 both threads may read 0 (the
 * assertion fails); under SC they may not. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;
atomic_int y;
int r1;
int r2;

void *left(void *unused)
{
	atomic_store_explicit(&x, 1, memory_order_relaxed);
	r1 = atomic_load_explicit(&y, memory_order_relaxed);
	return NULL;
}

void *right(void *unused)
{
	atomic_store_explicit(&y, 1, memory_order_relaxed);
	r2 = atomic_load_explicit(&x, memory_order_relaxed);
	return NULL;
}

int main()
{
	pthread_t a, b;

	pthread_create(&a, NULL, left, NULL);
	pthread_create(&b, NULL, right, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(r1 == 1 || r2 == 1);
	return 0;
}
