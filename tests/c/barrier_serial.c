/* Which thread's pthread_barrier_wait returns PTHREAD_BARRIER_SERIAL_THREAD: either, so the
 * serial thread writes x or y. nemos counts both executions (2); GenMC 0.11 counts 1 (its
 * barrier-aware exploration, BAM, explores one order of the arrivals: -print-exec-graphs
 * shows thread 1 arriving first and thread 2 serial). With lock_orders.c this is why
 * GenMC's synthetic/barrier5 (16) matches nemos's count: per round nemos counts the serial
 * thread of one wait (2) where GenMC counts the orders of the critical sections (2). */
#include <pthread.h>

pthread_barrier_t b;
int x, y;

void *first(void *unused)
{
	if (pthread_barrier_wait(&b) == PTHREAD_BARRIER_SERIAL_THREAD)
		x = 1;
	return NULL;
}

void *second(void *unused)
{
	if (pthread_barrier_wait(&b) == PTHREAD_BARRIER_SERIAL_THREAD)
		y = 1;
	return NULL;
}

int main()
{
	pthread_t t, u;

	pthread_barrier_init(&b, NULL, 2);
	pthread_create(&t, NULL, first, NULL);
	pthread_create(&u, NULL, second, NULL);
	pthread_join(t, NULL);
	pthread_join(u, NULL);
	int r = x + y;
	return 0;
}
