/* Three critical sections of one mutex touching different data. GenMC 0.11 counts one
 * execution per order of the sections (a lock reads from the unlock before it): 3. nemos's
 * mutexes are an order on critical sections (`lko`), not memory, and `--count` counts
 * distinct `rf` and `co`, which the order does not change: 1. (GenMC's correct/ipr
 * lock-inplace2, 3 against nemos's 2, and lock-nested, 6 against 4, differ the same way.) */
#include <pthread.h>

pthread_mutex_t l;
int x, y, z;

void *first(void *unused)
{
	pthread_mutex_lock(&l);
	x = 1;
	pthread_mutex_unlock(&l);
	pthread_mutex_lock(&l);
	y = 1;
	pthread_mutex_unlock(&l);
	return NULL;
}

void *second(void *unused)
{
	pthread_mutex_lock(&l);
	z = 1;
	pthread_mutex_unlock(&l);
	return NULL;
}

int main()
{
	pthread_t a, b;

	pthread_create(&a, NULL, first, NULL);
	pthread_create(&b, NULL, second, NULL);
	return 0;
}
