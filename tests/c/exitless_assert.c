// A loop with no exit whose stores make another thread's assertion fail: GenMC finds the
// failure on a prefix of the execution that runs the loop. The program has an error site,
// so the loop is not reduced to a wait at its head (docs/unrolling.md, "Loops with no exit").
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;

void *thread_1(void *unused)
{
	while (1)
		atomic_store_explicit(&x, 1, memory_order_relaxed);
	return NULL;
}

void *thread_2(void *unused)
{
	assert(atomic_load_explicit(&x, memory_order_relaxed) == 0);
	return NULL;
}

int main()
{
	pthread_t t1, t2;
	pthread_create(&t1, NULL, thread_1, NULL);
	pthread_create(&t2, NULL, thread_2, NULL);
	return 0;
}
