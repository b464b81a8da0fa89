// Threads push a node each onto a list with a compare-exchange whose expected value is the
// node's own `next` field, as GenMC's `sll-test` does: a failed exchange writes the head it
// read into `node->next` and the loop retries. After both, the list holds both nodes.
// GenMC 0.11 (`genmc -disable-estimation -rc11`/`-sc`, 28 November 2026): no error, 4
// executions under both; with -DFAIL the assertion fails.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

struct node {
	struct node *next;
};

_Atomic(struct node *) list;
struct node n[2];

void *push(void *arg)
{
	struct node *node = arg;

	node->next = atomic_load(&list);
	while (!atomic_compare_exchange_weak(&list, &node->next, node))
		;
	return NULL;
}

int main()
{
	pthread_t t[2];

	pthread_create(&t[0], NULL, push, &n[0]);
	pthread_create(&t[1], NULL, push, &n[1]);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	struct node *first = atomic_load(&list);
	assert(first == &n[0] || first == &n[1]);
	assert(first->next != NULL && first->next->next == NULL);
#ifdef FAIL
	assert(first == &n[0]);
#endif
	return 0;
}
