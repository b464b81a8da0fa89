/* A loop whose trip count is known but large: unrolled whole it has 4000 stores, so
 * --max-events 200 stops the unrolling inside it, and the limit names the loop (line 16,
 * column 2) and its thread (P2, the second thread created). */
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;

void *writer(void *unused)
{
	return NULL;
}

void *spinner(void *unused)
{
	for (int i = 0; i < 4000; i++)
		atomic_store(&x, i);
	return NULL;
}

int main()
{
	pthread_t t, u;

	pthread_create(&t, NULL, writer, NULL);
	pthread_create(&u, NULL, spinner, NULL);
	return 0;
}
