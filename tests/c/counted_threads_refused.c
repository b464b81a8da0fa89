/* Loops whose count is not known before the program runs: `n` is written by a thread,
 * and `k` is moved inside a branch. Starting threads in them is refused at the call. */
#include <pthread.h>
#include <stdatomic.h>

int n = 1;
atomic_int flag;

void *set(void *unused)
{
	n = 2;
	return NULL;
}

int main()
{
	pthread_t t[4];
	int k = 0;

	pthread_create(&t[0], NULL, set, NULL);
	if (atomic_load_explicit(&flag, memory_order_relaxed))
		k++;
	for (int i = 1; i < n; i++)
		pthread_create(&t[i], NULL, set, NULL);
	for (int j = 0; j < 1; j++, k++)
		pthread_create(&t[3], NULL, set, NULL);
	return 0;
}
