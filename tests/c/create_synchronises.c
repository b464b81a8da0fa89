/* What main writes before it starts a thread is seen by the thread. */
#include <assert.h>
#include <pthread.h>

int x;

void *worker(void *unused)
{
	assert(x == 7);
	return NULL;
}

int main()
{
	pthread_t t;

	x = 7;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	return 0;
}
