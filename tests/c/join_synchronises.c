/* A plain write of a thread is seen by main after it joins the thread. */
#include <assert.h>
#include <pthread.h>

int x;

void *worker(void *unused)
{
	x = 42;
	return NULL;
}

int main()
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	assert(x == 42);
	return 0;
}
