/* Misuses of a barrier, one per -DCASE: 1 waits on a barrier never initialised, 2
 * initialises it twice, 3 waits on it after destroying it, 4 initialises it with 0. */
#include <pthread.h>

pthread_barrier_t barrier;

int main()
{
#if CASE == 1
	pthread_barrier_wait(&barrier);
#elif CASE == 2
	pthread_barrier_init(&barrier, NULL, 1);
	pthread_barrier_init(&barrier, NULL, 1);
#elif CASE == 3
	pthread_barrier_init(&barrier, NULL, 1);
	pthread_barrier_wait(&barrier);
	pthread_barrier_destroy(&barrier);
	pthread_barrier_wait(&barrier);
#else
	pthread_barrier_init(&barrier, NULL, 0);
#endif
	return 0;
}
