/* Two threads meet at a barrier twice. In each round exactly one of them is the serial
 * thread (PTHREAD_BARRIER_SERIAL_THREAD); the second round's reads see the first round's
 * writes. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

pthread_barrier_t barrier;
atomic_int serial;
int round1[2];

void *worker(void *arg)
{
	int me = (int)(long)arg;
	round1[me] = 1;
	if (pthread_barrier_wait(&barrier) == PTHREAD_BARRIER_SERIAL_THREAD)
		atomic_fetch_add(&serial, 1);
	int rc = pthread_barrier_wait(&barrier);
	if (rc == PTHREAD_BARRIER_SERIAL_THREAD)
		atomic_fetch_add(&serial, 1);
	assert(round1[1 - me] == 1);
	return NULL;
}

int main()
{
	pthread_t t[2];
	pthread_barrier_init(&barrier, NULL, 2);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)(long)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert(serial == 2);
	return 0;
}
