/* Load buffering with thread creation in place of program order: each of two threads
   reads a location and then starts a thread that writes the other. The thread order
   orders each read before the write it precedes, but not across locations under
   coherence, which allows both reads to see 1 (as it allows load buffering); sc, tso,
   pso and the C11 models (whose no-thin-air counts creation) do not. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;
atomic_int y;
int a;
int c;

void *write_y(void *unused)
{
	atomic_store_explicit(&y, 1, memory_order_relaxed);
	return NULL;
}

void *write_x(void *unused)
{
	atomic_store_explicit(&x, 1, memory_order_relaxed);
	return NULL;
}

void *left(void *unused)
{
	pthread_t t;

	a = atomic_load_explicit(&x, memory_order_relaxed);
	pthread_create(&t, NULL, write_y, NULL);
	return NULL;
}

void *right(void *unused)
{
	pthread_t t;

	c = atomic_load_explicit(&y, memory_order_relaxed);
	pthread_create(&t, NULL, write_x, NULL);
	return NULL;
}

int main()
{
	pthread_t l, r;

	pthread_create(&l, NULL, left, NULL);
	pthread_create(&r, NULL, right, NULL);
	pthread_join(l, NULL);
	pthread_join(r, NULL);
	assert(!(a == 1 && c == 1));
	return 0;
}
