// A `static` local is one object for the whole program: both threads' calls of `next_id`
// share its counter, so they get different ids. GenMC 0.11 (`genmc -disable-estimation
// -rc11`/`-sc`, 28 November 2026): no error, 2 executions under both; with -DFAIL the
// assertion fails.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

int next_id(void)
{
	static atomic_int id = 1;
	return atomic_fetch_add(&id, 1);
}

int first;

void *worker(void *arg)
{
	first = next_id();
	return NULL;
}

int main()
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	int mine = next_id();
	pthread_join(t, NULL);
	assert(mine != first && mine + first == 3);
#ifdef FAIL
	assert(mine == 1);
#endif
	return 0;
}
