/* Plain accesses to atomic struct fields are seq_cst atomics, as C says (GenMC's
 * `struct-temps`): `node.next = ...` and `p->spin = 1` are stores, `node.spin` and
 * `q->next` loads, so nothing races under rc11, and the seq_cst store of spin after next
 * publishes next. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct node {
	_Atomic(struct node *) next;
	atomic_int spin;
};

struct node node;
struct node other;

void *writer(void *unused)
{
	struct node *p = &node;
	node.next = &other;
	p->spin = 1;
	return NULL;
}

void *reader(void *unused)
{
	struct node *q = &node;
	if (node.spin == 1)
		assert(q->next == &other);
	return NULL;
}

int main()
{
	pthread_t t1, t2;

	pthread_create(&t1, NULL, writer, NULL);
	pthread_create(&t2, NULL, reader, NULL);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	return 0;
}
