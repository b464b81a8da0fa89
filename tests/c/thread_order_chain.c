/* The thread order is transitive: main's write reaches a grandchild through two creates,
   the grandchild's write reaches main through two joins, and a thread joined before the
   next one starts is seen by that one. Under every model no assertion fails. */
#include <assert.h>
#include <pthread.h>

int x = 1;
int y;
int z;

void *grandchild(void *unused)
{
	assert(x == 2);
	y = 1;
	return NULL;
}

void *child(void *unused)
{
	pthread_t g;

	pthread_create(&g, NULL, grandchild, NULL);
	pthread_join(g, NULL);
	return NULL;
}

void *first(void *unused)
{
	z = 1;
	return NULL;
}

void *second(void *unused)
{
	assert(z == 1);
	return NULL;
}

int main()
{
	pthread_t c, f, s;

	x = 2;
	pthread_create(&c, NULL, child, NULL);
	pthread_join(c, NULL);
	assert(y == 1);
	pthread_create(&f, NULL, first, NULL);
	pthread_join(f, NULL);
	pthread_create(&s, NULL, second, NULL);
	pthread_join(s, NULL);
	return 0;
}
