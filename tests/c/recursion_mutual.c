/* Mutual recursion: is_even and is_odd call each other down to 0, as deep as the value
 * the thread reads (0, 2 or 7; each depth needs that many nested calls). */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;

int is_odd(int n);

int is_even(int n)
{
	if (n == 0)
		return 1;
	return is_odd(n - 1);
}

int is_odd(int n)
{
	if (n == 0)
		return 0;
	return is_even(n - 1);
}

void *w1(void *arg)
{
	atomic_store_explicit(&x, 2, memory_order_relaxed);
	return NULL;
}

void *w2(void *arg)
{
	atomic_store_explicit(&x, 7, memory_order_relaxed);
	return NULL;
}

int main()
{
	pthread_t a, b;
	pthread_create(&a, NULL, w1, NULL);
	pthread_create(&b, NULL, w2, NULL);
	int n = atomic_load_explicit(&x, memory_order_relaxed);
	assert(is_even(n) == (n % 2 == 0));
#ifdef FAIL
	assert(is_odd(n) == 0);
#endif
	return 0;
}
