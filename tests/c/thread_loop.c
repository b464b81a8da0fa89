/* N threads started and joined in loops with constant bounds, each adding its own
 * argument to a counter: the sum is 0 + 1 + 2 once every thread is joined. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef N
#define N 3
#endif

atomic_int sum;

void *add(void *arg)
{
	int id = (int)(long)arg;
	atomic_fetch_add_explicit(&sum, id, memory_order_relaxed);
	return NULL;
}

int main()
{
	pthread_t t[N];

	for (int i = 0; i < N; i++)
		pthread_create(&t[i], NULL, add, (void *)(long)i);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	assert(atomic_load_explicit(&sum, memory_order_relaxed) == 3);
	return 0;
}
