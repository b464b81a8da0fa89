/* WEAKENED (the one change from cas-spin-lock.c): unlock's store is relaxed instead of
 * release. Under rc11 the next holder's acquire synchronises with nothing (a data race,
 * and a lost increment: main's assertion fails). Under sc nothing changes.
 *
 * Compare-exchange spin lock (test-and-set) in C11: the C form of ../cas-spin-lock-weak.litmus.
 * lock() retries a compare-exchange of the lock from 0 to 1 (acquire on success) until it
 * succeeds; unlock() stores 0 with release.
 *
 * Client: two threads each increment a plain counter under the lock. Checks: the counter
 * ends at 2 (main's assertion after joining both), no data race on it, no deadlock. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

atomic_int lock;
int counter;

void cas_lock(atomic_int *l)
{
	int expected = 0;
	while (!atomic_compare_exchange_strong_explicit(l, &expected, 1, memory_order_acquire,
							memory_order_relaxed))
		expected = 0;
}

void cas_unlock(atomic_int *l)
{
	atomic_store_explicit(l, 0, memory_order_relaxed); // WEAKENED: was memory_order_release
}

void *worker(void *unused)
{
	cas_lock(&lock);
	counter = counter + 1;
	cas_unlock(&lock);
	return NULL;
}

int main()
{
	pthread_t t0, t1;

	pthread_create(&t0, NULL, worker, NULL);
	pthread_create(&t1, NULL, worker, NULL);
	pthread_join(t0, NULL);
	pthread_join(t1, NULL);
	assert(counter == 2);
	return 0;
}
