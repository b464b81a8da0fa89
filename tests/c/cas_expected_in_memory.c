// A compare-exchange whose expected value is in memory (`e` points to a global cell): the
// call reads `*e` plainly, and when it fails writes the value it read back into `*e`
// (C11 7.17.7.4). Here it fails exactly when the other thread's store of 3 comes first.
// GenMC 0.11 (`genmc -disable-estimation -rc11`/`-sc`, 28 November 2026): no error, 2
// executions under both; with -DFAIL the assertion fails.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

atomic_int x;
int box[2];

void *other(void *arg)
{
	atomic_store(&x, 3);
	return NULL;
}

int main()
{
	pthread_t t;
	int *e = &box[1];

	pthread_create(&t, NULL, other, NULL);
	bool ok = atomic_compare_exchange_strong(&x, e, 7);
	if (ok)
		assert(box[1] == 0);
	else
		assert(box[1] == 3);
#ifdef FAIL
	assert(ok);
#endif
	pthread_join(t, NULL);
	assert(box[0] == 0);
	return 0;
}
