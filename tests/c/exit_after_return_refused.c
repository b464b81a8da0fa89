/* A helper that ends in pthread_exit but may return before it: refused (ending the thread
 * at every call would drop the path that returns). */
#include <pthread.h>

int stop;

void stop_unless(int keep_going)
{
	if (keep_going)
		return;
	pthread_exit(NULL);
}

void *worker(void *unused)
{
	stop_unless(stop);
	stop = 2;
	return NULL;
}

int main()
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	return 0;
}
