/* Threads started in loops counted by values known before the program runs, as GenMC's
 * data-structure tests write their main: globals nothing writes (`readers`, `writers`), a
 * global main writes once (`num_threads`), and a local moved only by the loops' steps
 * (`i`, beside each loop's own `j`). Each thread adds its parameter to a counter. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

int readers = 1, writers = 2;
static int num_threads;
pthread_t threads[4];
int param[4];
atomic_int sum;

void *add(void *arg)
{
	atomic_fetch_add_explicit(&sum, *(int *)arg, memory_order_relaxed);
	return NULL;
}

int main()
{
	int i = 0;

	num_threads = readers + writers;
	for (int j = 0; j < num_threads; j++)
		param[j] = j + 1;
	for (int j = 0; j < writers; j++, i++)
		pthread_create(&threads[i], NULL, add, &param[i]);
	for (int j = 0; j < readers; j++, i++)
		pthread_create(&threads[i], NULL, add, &param[i]);
	for (i = 0; i < num_threads; i++)
		pthread_join(threads[i], NULL);
	assert(i == 3);
	assert(atomic_load_explicit(&sum, memory_order_relaxed) == 6);
	return 0;
}
