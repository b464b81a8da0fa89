/* `a[i++] = v;`: the index's side effect is sequenced as C sequences it (i is read for the
 * index and then incremented; the value assigned does not read i). The thread's write
 * of x is read or not: 2 executions; no assertion fails. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

int a[4];
atomic_int x;

void *writer(void *arg)
{
	atomic_store_explicit(&x, 2, memory_order_relaxed);
	return NULL;
}

int main()
{
	pthread_t t;
	int i = 0;

	pthread_create(&t, NULL, writer, NULL);
	a[i++] = 5;
	a[i++] = atomic_load_explicit(&x, memory_order_relaxed);
	a[++i] += 7;
	pthread_join(t, NULL);
	assert(i == 3 && a[0] == 5 && a[2] == 0 && a[3] == 7);
	assert(a[1] == 0 || a[1] == 2);
	return 0;
}
