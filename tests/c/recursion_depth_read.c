/* A recursive count whose depth is the value a thread reads: `down(n)` calls itself n
 * times. The writer stores 3 to `x`; main reads 0 or 3 (after the join, 3). */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;
int calls;

int down(int n)
{
	calls++;
	if (n == 0)
		return 0;
	return down(n - 1) + 1;
}

void *writer(void *arg)
{
	atomic_store_explicit(&x, 3, memory_order_release);
	return NULL;
}

int main()
{
	pthread_t t;
	pthread_create(&t, NULL, writer, NULL);
	int n = atomic_load_explicit(&x, memory_order_acquire);
	int r = down(n);
	assert(r == n);
	assert(calls == n + 1);
#ifdef FAIL
	assert(r != 3);
#endif
	pthread_join(t, NULL);
	return 0;
}
