/* MCS queue lock (Mellor-Crummey and Scott, 1991) in C11: the C form of
 * ../mcs-lock.litmus. Each thread brings its own queue node, allocated with malloc. lock()
 * clears its node, swaps itself into tail (acq_rel) and, when there was a predecessor,
 * links itself behind it (release) and waits until its own node is unlocked (acquire).
 * unlock() reads its successor link (acquire); with no successor it tries to reset tail
 * from itself to NULL (release) and, when that fails, waits for the successor to link
 * itself; then it unlocks the successor's node with a release store.
 *
 * Client: two threads each increment a plain counter under the lock. Checks: the counter
 * ends at 2 and tail is NULL again (main's assertion after joining both), no data race on
 * the counter, no memory error, no deadlock; every wait only reads and is reduced
 * exactly. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct mcs_node {
	_Atomic(struct mcs_node *) next;
	atomic_int locked;
};

_Atomic(struct mcs_node *) tail;
int counter;

void mcs_lock(struct mcs_node *me)
{
	atomic_store_explicit(&me->next, NULL, memory_order_relaxed);
	atomic_store_explicit(&me->locked, 1, memory_order_relaxed);
	struct mcs_node *pred = atomic_exchange_explicit(&tail, me, memory_order_acq_rel);
	if (pred != NULL) {
		atomic_store_explicit(&pred->next, me, memory_order_release);
		while (atomic_load_explicit(&me->locked, memory_order_acquire) == 1)
			;
	}
}

void mcs_unlock(struct mcs_node *me)
{
	struct mcs_node *succ = atomic_load_explicit(&me->next, memory_order_acquire);
	if (succ == NULL) {
		struct mcs_node *expected = me;
		if (atomic_compare_exchange_strong_explicit(&tail, &expected, NULL,
							    memory_order_release,
							    memory_order_relaxed))
			return;
		do {
			succ = atomic_load_explicit(&me->next, memory_order_acquire);
		} while (succ == NULL);
	}
	atomic_store_explicit(&succ->locked, 0, memory_order_release);
}

void *worker(void *unused)
{
	struct mcs_node *me = malloc(sizeof(struct mcs_node));
	mcs_lock(me);
	counter = counter + 1;
	mcs_unlock(me);
	return NULL;
}

int main()
{
	pthread_t t0, t1;

	pthread_create(&t0, NULL, worker, NULL);
	pthread_create(&t1, NULL, worker, NULL);
	pthread_join(t0, NULL);
	pthread_join(t1, NULL);
	assert(counter == 2 && atomic_load(&tail) == NULL);
	return 0;
}
