/* pthread_exit in a function the thread's start routine calls: refused (nemos ends a
 * thread only from its start routine or main). */
#include <pthread.h>

void stop(void)
{
	pthread_exit(NULL);
}

void *worker(void *unused)
{
	stop();
	return NULL;
}

int main()
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	return 0;
}
