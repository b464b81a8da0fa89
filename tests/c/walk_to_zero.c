/* A reader walks down an array to its first zero while three threads set the cells above
 * cell 0: the loop always ends, after one to four tests, but no constant says how often.
 * Without --unroll nemos raises the bound until no execution is cut, as GenMC explores it
 * without one: the reader stops at cell 3, 2, 1 or 0, four executions under either model.
 * With --unroll 2 the executions that test four cells are cut (exit 3). */
#include <pthread.h>
#include <stdatomic.h>

atomic_int cells[4];
int index_of[4] = {0, 1, 2, 3};

void *setter(void *arg)
{
	atomic_store_explicit(&cells[*(int *)arg], 1, memory_order_relaxed);
	return NULL;
}

int main()
{
	pthread_t t[4];
	for (int j = 1; j <= 3; j++)
		pthread_create(&t[j], NULL, setter, &index_of[j]);
	int i;
	for (i = 3; atomic_load_explicit(&cells[i], memory_order_relaxed) != 0; i--)
		;
	return 0;
}
