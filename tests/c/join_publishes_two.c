/* Message passing through pthread_join: the thread's two plain writes, to two locations,
   precede its end, so main sees both after the join under every model. */
#include <assert.h>
#include <pthread.h>

int x;
int y;

void *worker(void *unused)
{
	x = 1;
	y = 1;
	return NULL;
}

int main()
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	assert(x == 1 && y == 1);
	return 0;
}
