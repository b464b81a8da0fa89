/* Message passing through pthread_create: main's two plain writes, to two locations,
   precede the create, so the thread sees both new values under every model (pso and
   coherence included: creation orders what precedes it, whatever the locations). */
#include <assert.h>
#include <pthread.h>

int x = 1;
int y = 1;

void *worker(void *unused)
{
	assert(x == 2 && y == 2);
	return NULL;
}

int main()
{
	pthread_t t;

	x = 2;
	y = 2;
	pthread_create(&t, NULL, worker, NULL);
	return 0;
}
