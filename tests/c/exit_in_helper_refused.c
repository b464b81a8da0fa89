/* pthread_exit in a function the thread's start routine calls, other than as its last
 * statement: refused (nemos ends a thread from a helper only when the helper never
 * returns). */
#include <pthread.h>

int stop;

void maybe_stop(void)
{
	if (stop)
		pthread_exit(NULL);
	stop = 1;
}

void *worker(void *unused)
{
	maybe_stop();
	return NULL;
}

int main()
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	return 0;
}
