/* A Herlihy-Wing queue (GenMC's hw-queue, cut down) reached through a global pointer that
 * main sets before it creates the threads. Each thread enqueues a value of its own and
 * then dequeues one; the dequeue scans the cells up to `tail` and blocks (the assume) when
 * it finds none. The array has more cells than nemos splits whole, so its accesses are
 * pruned to the cells their index can hold; in the first round of that pruning the
 * pointer is assumed at its initial value, null, and every access through it stops the
 * thread: the scan loop, whose condition is then a constant, ran 1024 dead iterations a
 * thread and the program passed --max-events (exit 3). Both dequeues succeed and take the
 * two values between them: GenMC 0.11 finds no error, 14 executions under sc (16 under
 * rc11), with no -unroll, -unroll=4 or -unroll=10 alike. */
#include <assert.h>
#include <genmc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>


struct queue {
	atomic_int tail;
	atomic_uint nodes[32];
};

struct queue the_queue;
struct queue *queue;
int ids[2] = {0, 1};
unsigned int out[2];

void *worker(void *arg)
{
	int id = *(int *)arg;
	struct queue *q = queue;
	int slot = atomic_fetch_add_explicit(&q->tail, 1, memory_order_release);
	atomic_store_explicit(&q->nodes[slot + 1], (id + 1) * 10, memory_order_release);
	bool success = false;
	while (!success) {
		int tail = atomic_load_explicit(&q->tail, memory_order_acquire);
		for (int i = 0; i <= tail; ++i) {
			if (atomic_load_explicit(&q->nodes[i], memory_order_acquire) == 0)
				continue;
			unsigned int v = atomic_exchange_explicit(&q->nodes[i], 0, memory_order_acq_rel);
			if (v != 0) {
				out[id] = v;
				success = true;
				break;
			}
		}
		__VERIFIER_assume(success);
	}
	return NULL;
}

int main()
{
	pthread_t t[2];
	queue = &the_queue;
	pthread_create(&t[0], NULL, worker, &ids[0]);
	pthread_create(&t[1], NULL, worker, &ids[1]);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	assert(out[0] + out[1] == 30);
	return 0;
}
