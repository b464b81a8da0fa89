/* GenMC's `fine-set` starts and joins its threads with one index `i`, set again between
 * the loops that create and those that join (`i = 1;`): a local written only by its
 * block's `for` heads and top-level statements is followed, so both loops are unrolled.
 * Each thread adds its number to `sum` (1 and 2, relaxed); after both joins main sees 3.
 * Two executions: the order of the two additions. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static int adders = 2;
pthread_t threads[3];
int param[3] = { 0, 1, 2 };
atomic_int sum;

void *add(void *arg)
{
	atomic_fetch_add_explicit(&sum, *(int *)arg, memory_order_relaxed);
	return NULL;
}

int main()
{
	int i = 1;

	for (int j = 0; j < adders; j++, i++)
		pthread_create(&threads[i], NULL, add, &param[i]);
	i = 1;
	for (int j = 0; j < adders; j++, i++)
		pthread_join(threads[i], NULL);
	assert(atomic_load_explicit(&sum, memory_order_relaxed) == 3);
	return 0;
}
