/* An array of mutexes indexed by a value each thread reads: the threads pick different
   cells, so the shared total is not protected. GenMC 0.11: a non-atomic race. */
#include <pthread.h>

pthread_mutex_t locks[4];
int total;
int idx[2] = {0, 3};

void *worker(void *arg)
{
	int i = *(int *)arg;
	pthread_mutex_lock(&locks[i]);
	total = total + 1;
	pthread_mutex_unlock(&locks[i]);
	return NULL;
}

int main()
{
	pthread_t t[2];
	pthread_create(&t[0], NULL, worker, &idx[0]);
	pthread_create(&t[1], NULL, worker, &idx[1]);
	return 0;
}
