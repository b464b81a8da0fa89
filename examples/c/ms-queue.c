/* Michael-Scott queue (PODC 1996) in C11, with nodes from malloc: the C form of
 * ../ms-queue.litmus. head and tail start at a dummy node. enqueue(n) reads tail (acquire),
 * links n after it with a compare-exchange of tail->next from NULL (release), then swings
 * tail to n (release; failing harmlessly when the dequeuer already helped). dequeue() reads
 * head, tail and head->next (acquire); it returns -1 (empty) when next is NULL; when head
 * equals tail, tail lags behind the node just linked and it helps by swinging tail forward;
 * then it reads the next node's plain value and moves head there with a compare-exchange
 * (release), returning the value. Each operation is one attempt of the algorithm's retry
 * loop, as in the litmus form (with one enqueuer and one dequeuer no attempt fails except as
 * said here).
 *
 * Client: main makes the dummy node and starts an enqueuer, which fills a node with the
 * plain value 42 and enqueues it, and a dequeuer, which dequeues once; after joining both,
 * main checks that the queue ends consistent. Checks: the dequeuer gets -1 or 42 (its
 * assertion), head, tail and the link end as the litmus form's final condition says (main's
 * assertion), no data race, no memory error, no deadlock. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct node {
	int value;
	_Atomic(struct node *) next;
};

_Atomic(struct node *) head;
_Atomic(struct node *) tail;

struct node *dummy;
struct node *enqueued;
int dequeued;

void enqueue(struct node *n)
{
	struct node *t = atomic_load_explicit(&tail, memory_order_acquire);
	struct node *expected = NULL;
	if (atomic_compare_exchange_strong_explicit(&t->next, &expected, n, memory_order_release,
						    memory_order_relaxed))
		atomic_compare_exchange_strong_explicit(&tail, &t, n, memory_order_release,
							memory_order_relaxed);
}

int dequeue(void)
{
	struct node *h = atomic_load_explicit(&head, memory_order_acquire);
	struct node *t = atomic_load_explicit(&tail, memory_order_acquire);
	struct node *next = atomic_load_explicit(&h->next, memory_order_acquire);
	if (next == NULL)
		return -1;
	if (h == t)
		atomic_compare_exchange_strong_explicit(&tail, &t, next, memory_order_release,
							memory_order_relaxed);
	int value = next->value;
	if (atomic_compare_exchange_strong_explicit(&head, &h, next, memory_order_release,
						    memory_order_relaxed))
		return value;
	return -2;
}

void *enqueuer(void *unused)
{
	struct node *n = malloc(sizeof(struct node));
	n->value = 42;
	atomic_init(&n->next, NULL);
	enqueued = n;
	enqueue(n);
	return NULL;
}

void *dequeuer(void *unused)
{
	dequeued = dequeue();
	assert(dequeued == -1 || dequeued == 42);
	return NULL;
}

int main()
{
	pthread_t t0, t1;

	dummy = malloc(sizeof(struct node));
	dummy->value = 0;
	atomic_init(&dummy->next, NULL);
	atomic_init(&head, dummy);
	atomic_init(&tail, dummy);

	pthread_create(&t0, NULL, enqueuer, NULL);
	pthread_create(&t1, NULL, dequeuer, NULL);
	pthread_join(t0, NULL);
	pthread_join(t1, NULL);

	assert(atomic_load(&tail) == enqueued && atomic_load(&dummy->next) == enqueued);
	assert((dequeued == -1 && atomic_load(&head) == dummy) ||
	       (dequeued == 42 && atomic_load(&head) == enqueued));
	return 0;
}
