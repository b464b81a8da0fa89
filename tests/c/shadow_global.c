/* A local hides a global (and an enclosing block's local) until its block ends, as C
 * scopes names: main's inner `b` and `r` are registers of their own, and the global `b`
 * and the outer `r` keep their values. The thread's write of x is read or not: 2
 * executions; no assertion fails. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

int b = 7;
atomic_int x;

void *writer(void *arg)
{
	atomic_store_explicit(&x, 3, memory_order_relaxed);
	return NULL;
}

int main()
{
	pthread_t t;
	int r = 1;

	pthread_create(&t, NULL, writer, NULL);
	{
		int b = atomic_load_explicit(&x, memory_order_relaxed);
		int r = b + 10;
		assert(r == 10 || r == 13);
		b = 100;
	}
	assert(r == 1);
	assert(b == 7);
	pthread_join(t, NULL);
	return 0;
}
