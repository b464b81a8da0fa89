// clang's __sync maxima and minima, each a seq_cst read-modify-write of one cell: two
// threads apply one of each to shared cells, in either order (2 orders per cell, 16
// executions). Unsigned order makes -1 the largest value: umax keeps it, umin replaces it.
#include <assert.h>
#include <pthread.h>

int smax = -1, smin = 5, umax = -1, umin = -1;

void *one(void *arg)
{
	__sync_fetch_and_max(&smax, 42);
	__sync_fetch_and_min(&smin, 3);
	__sync_fetch_and_umax(&umax, 42);
	__sync_fetch_and_umin(&umin, 9);
	return NULL;
}

void *two(void *arg)
{
	int old = __sync_fetch_and_max(&smax, 7);
	assert(old == -1 || old == 42);
	__sync_fetch_and_min(&smin, -2);
	__sync_fetch_and_umax(&umax, 7);
	old = __sync_fetch_and_umin(&umin, 7);
	assert(old == -1 || old == 9);
	return NULL;
}

int main()
{
	pthread_t a, b;
	pthread_create(&a, NULL, one, NULL);
	pthread_create(&b, NULL, two, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(smax == 42);
	assert(smin == -2);
	assert(umax == -1);
	assert(umin == 7);
	return 0;
}
