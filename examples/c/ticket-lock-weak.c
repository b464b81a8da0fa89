/* WEAKENED (the one change from ticket-lock.c): the wait on serving is relaxed instead of
 * acquire. Under rc11 the second thread can enter without seeing the first's increment (a
 * data race, and a lost increment: main's assertion fails). Under sc nothing changes.
 *
 * Ticket lock in C11: the C form of ../ticket-lock-weak.litmus. lock() takes a ticket with a
 * relaxed fetch-add on next and waits until serving (read with acquire) reaches it;
 * unlock() hands the lock on with a release store of the next ticket to serving.
 *
 * Client: two threads each increment a plain counter under the lock. Checks: the counter
 * ends at 2 (main's assertion after joining both), no data race on it, no deadlock; the
 * waits only read and are reduced exactly. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

struct ticket_lock {
	atomic_int next;
	atomic_int serving;
};

struct ticket_lock lock;
int counter;

int ticket_lock(struct ticket_lock *l)
{
	int t = atomic_fetch_add_explicit(&l->next, 1, memory_order_relaxed);
	while (atomic_load_explicit(&l->serving, memory_order_relaxed) != t) // WEAKENED: was memory_order_acquire
		;
	return t;
}

void ticket_unlock(struct ticket_lock *l, int t)
{
	atomic_store_explicit(&l->serving, t + 1, memory_order_release);
}

void *worker(void *unused)
{
	int t = ticket_lock(&lock);
	counter = counter + 1;
	ticket_unlock(&lock, t);
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
