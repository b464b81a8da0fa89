/* Thread handles indexed by a local that straight-line statements move (GenMC's
 * diff-thread-unlock): `i` is 0 at the first create and 1 at the second, so the joins of
 * `t[0]` and `t[1]` wait for both threads. GenMC 0.11: no error, 2 executions under rc11
 * and sc (the two orders of the increments). */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;

void *add1(void *unused)
{
	atomic_fetch_add_explicit(&x, 1, memory_order_relaxed);
	return NULL;
}

void *add2(void *unused)
{
	atomic_fetch_add_explicit(&x, 2, memory_order_relaxed);
	return NULL;
}

int main()
{
	pthread_t t[2];

	{
		int i = 0;
		pthread_create(&t[i], NULL, add1, NULL);
		i++;
		pthread_create(&t[i], NULL, add2, NULL);
		i += 1;
		assert(i == 2);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert(atomic_load_explicit(&x, memory_order_relaxed) == 3);
	return 0;
}
