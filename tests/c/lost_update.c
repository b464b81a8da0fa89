/* Two threads increment a counter with a load and a store instead of one read-modify-write:
 * an update can be lost. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int counter;

void *increment(void *unused)
{
	int seen = atomic_load(&counter);
	atomic_store(&counter, seen + 1);
	return NULL;
}

int main()
{
	pthread_t a, b;

	pthread_create(&a, NULL, increment, NULL);
	pthread_create(&b, NULL, increment, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(atomic_load(&counter) == 2);
	return 0;
}
