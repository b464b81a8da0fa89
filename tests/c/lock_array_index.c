/* An array of mutexes indexed by a value each thread reads: both threads pick cell 1, so
   the counter it guards is incremented under one mutex. GenMC 0.11: no error, 2 executions. */
#include <assert.h>
#include <pthread.h>

pthread_mutex_t locks[4];
int count[4];
int idx[2] = {1, 1};

void *worker(void *arg)
{
	int i = *(int *)arg;
	pthread_mutex_lock(&locks[i]);
	count[i] = count[i] + 1;
	pthread_mutex_unlock(&locks[i]);
	return NULL;
}

int main()
{
	pthread_t t[2];
	for (int k = 0; k < 4; k++)
		pthread_mutex_init(&locks[k], NULL);
	pthread_create(&t[0], NULL, worker, &idx[0]);
	pthread_create(&t[1], NULL, worker, &idx[1]);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	assert(count[1] == 2);
	return 0;
}
