/* Three threads each publish a plain slot, meet at a barrier, and read every slot: the
 * barrier orders every write before every read (no race, no failed assertion), and adds
 * no execution of its own (GenMC counts 1). */
#include <assert.h>
#include <pthread.h>

#define N 3

pthread_barrier_t barrier;
int slot[N];

void *worker(void *arg)
{
	int me = (int)(long)arg;
	slot[me] = me + 1;
	pthread_barrier_wait(&barrier);
	for (int i = 0; i < N; i++)
		assert(slot[i] == i + 1);
	return NULL;
}

int main()
{
	pthread_t t[N];
	pthread_barrier_init(&barrier, NULL, N);
	for (int i = 0; i < N; i++)
		pthread_create(&t[i], NULL, worker, (void *)(long)i);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&barrier);
	return 0;
}
