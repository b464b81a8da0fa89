/* A create and a join whose values are kept: `int r = pthread_create(...)`, `r =
 * pthread_join(...)`, `int s = thrd_create(...)`; each succeeds, its value 0. */
#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <threads.h>

int x;
int y;

void *writer(void *arg)
{
	x = 1;
	return NULL;
}

int other(void *arg)
{
	y = 1;
	return 0;
}

int main()
{
	pthread_t t;
	thrd_t u;
	int r = pthread_create(&t, NULL, writer, NULL);
	assert(r == 0);
	int s = thrd_create(&u, other, NULL);
	assert(s == thrd_success);
	r = pthread_join(t, NULL);
	assert(r == 0 && x == 1);
	s = thrd_join(u, NULL);
	assert(s == thrd_success && y == 1);
	return 0;
}
