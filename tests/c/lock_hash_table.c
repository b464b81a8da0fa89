/* A table of 32 mutexes picked by a hash of each thread's key (the pattern of GenMC's
   correct/lapor/indexer and fine-htable): keys 3 and 35 hash to cell 21 ((k * 7) % 32), so
   both threads take mutex 21 and the counter it guards ends at 2. With -DKEY2=4 the second
   key hashes to cell 28, the threads take different mutexes and the assertion fails.
   Each lock is a choice among the 32 cells, of which the key's value set keeps one. */
#include <assert.h>
#include <pthread.h>

#ifndef KEY2
#define KEY2 35
#endif

pthread_mutex_t locks[32];
int count[32];
int keys[2] = {3, KEY2};

void *worker(void *arg)
{
	int h = (*(int *)arg * 7) % 32;
	pthread_mutex_lock(&locks[h]);
	count[h] = count[h] + 1;
	pthread_mutex_unlock(&locks[h]);
	return NULL;
}

int main()
{
	pthread_t t[2];
	pthread_create(&t[0], NULL, worker, &keys[0]);
	pthread_create(&t[1], NULL, worker, &keys[1]);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	assert(count[21] == 2);
	return 0;
}
