/* Treiber stack in C11, with nodes from malloc: the C form of ../treiber-stack.litmus.
 * push(v) allocates a node, links it above the top it read and publishes it with a
 * compare-exchange on top (release), retrying with the value the failed exchange saw; pop()
 * reads top (acquire) and unlinks it with a compare-exchange (acquire on success and
 * failure), retrying likewise, then reads the node's value (0 when the stack is empty).
 *
 * Client: main pushes 10 before it starts a pusher, which pushes 20, and a popper, which
 * pops once; after joining both, main checks the stack. Checks: the popper gets a value the
 * stack held (its assertion), the stack ends consistent (it pops 20 and leaves 10 alone on
 * top, or pops 10 and leaves 20 alone: main's assertion), no data race, no memory error, no
 * deadlock. Each retry loop writes, so it is unrolled; one push against one pop needs no
 * more than the default two iterations. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct node {
	int value;
	struct node *next;
};

_Atomic(struct node *) top;
int popped;

void push(int value)
{
	struct node *n = malloc(sizeof(struct node));
	n->value = value;
	struct node *old = atomic_load_explicit(&top, memory_order_relaxed);
	do {
		n->next = old;
	} while (!atomic_compare_exchange_strong_explicit(&top, &old, n, memory_order_release,
							  memory_order_relaxed));
}

int pop(void)
{
	struct node *old = atomic_load_explicit(&top, memory_order_acquire);
	while (old != NULL &&
	       !atomic_compare_exchange_strong_explicit(&top, &old, old->next, memory_order_acquire,
							memory_order_acquire))
		;
	if (old == NULL)
		return 0;
	return old->value;
}

void *pusher(void *unused)
{
	push(20);
	return NULL;
}

void *popper(void *unused)
{
	popped = pop();
	assert(popped == 10 || popped == 20);
	return NULL;
}

int main()
{
	pthread_t t0, t1;

	push(10);
	pthread_create(&t0, NULL, pusher, NULL);
	pthread_create(&t1, NULL, popper, NULL);
	pthread_join(t0, NULL);
	pthread_join(t1, NULL);

	struct node *left = atomic_load(&top);
	assert(left != NULL && left->next == NULL);
	assert((popped == 20 && left->value == 10) || (popped == 10 && left->value == 20));
	return 0;
}
