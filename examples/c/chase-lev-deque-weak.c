/* WEAKENED (the one change from chase-lev-deque.c): take()'s seq_cst fence between its
 * store of bottom and its load of top is removed. Under rc11 the owner can miss the
 * thief's claim of item 2 and the thief the owner's decrement of bottom, so item 2 is both
 * taken and stolen (main's assertion fails). Under sc nothing changes.
 *
 * Chase-Lev work-stealing deque in C11 (the version of Le, Pop, Cohen and Zappa Nardelli,
 * PPoPP 2013, without resizing): the C form of ../chase-lev-deque-weak.litmus. The owner pushes
 * and takes at bottom, thieves steal at top. take() decrements bottom (relaxed), issues a
 * seq_cst fence, reads top (relaxed); if the deque is not empty it reads the slot, and for
 * the last element races the thieves with a seq_cst compare-exchange on top (restoring
 * bottom either way). steal() reads top (acquire), issues a seq_cst fence, reads bottom
 * (acquire) and, if not empty, reads the slot and claims it with a seq_cst compare-exchange
 * on top (returning -1, abort, when that fails). 0 is empty.
 *
 * Client: the deque starts holding items 1 (slot 0, at top) and 2 (slot 1); the owner takes
 * once, a thief steals twice. Checks: no item is handed out twice (main's assertion after
 * joining both), no data race, no deadlock; there are no loops. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

struct deque {
	atomic_int top;
	atomic_int bottom;
	atomic_int buf[2];
};

struct deque d = { .top = 0, .bottom = 2 };
int taken, stolen1, stolen2;

int take(struct deque *q)
{
	int b = atomic_load_explicit(&q->bottom, memory_order_relaxed) - 1;
	atomic_store_explicit(&q->bottom, b, memory_order_relaxed);
	// WEAKENED: the seq_cst fence that was here is removed
	int t = atomic_load_explicit(&q->top, memory_order_relaxed);
	int x = 0;
	if (t <= b) {
		x = atomic_load_explicit(&q->buf[b], memory_order_relaxed);
		if (t == b) {
			if (!atomic_compare_exchange_strong_explicit(&q->top, &t, t + 1,
								     memory_order_seq_cst,
								     memory_order_relaxed))
				x = 0;
			atomic_store_explicit(&q->bottom, b + 1, memory_order_relaxed);
		}
	} else {
		atomic_store_explicit(&q->bottom, b + 1, memory_order_relaxed);
	}
	return x;
}

int steal(struct deque *q)
{
	int t = atomic_load_explicit(&q->top, memory_order_acquire);
	atomic_thread_fence(memory_order_seq_cst);
	int b = atomic_load_explicit(&q->bottom, memory_order_acquire);
	int x = 0;
	if (t < b) {
		x = atomic_load_explicit(&q->buf[t], memory_order_relaxed);
		if (!atomic_compare_exchange_strong_explicit(&q->top, &t, t + 1, memory_order_seq_cst,
							     memory_order_relaxed))
			return -1;
	}
	return x;
}

void *owner(void *unused)
{
	taken = take(&d);
	return NULL;
}

void *thief(void *unused)
{
	stolen1 = steal(&d);
	stolen2 = steal(&d);
	return NULL;
}

int main()
{
	pthread_t t0, t1;

	atomic_init(&d.buf[0], 1);
	atomic_init(&d.buf[1], 2);
	pthread_create(&t0, NULL, owner, NULL);
	pthread_create(&t1, NULL, thief, NULL);
	pthread_join(t0, NULL);
	pthread_join(t1, NULL);
	for (int item = 1; item <= 2; item++) {
		int times = (taken == item) + (stolen1 == item) + (stolen2 == item);
		assert(times <= 1);
	}
	return 0;
}
