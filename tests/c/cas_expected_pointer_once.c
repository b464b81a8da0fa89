// The expected pointer of a compare-exchange is evaluated once (C11 7.17.7.4): the read of
// *expected and the write-back on failure name one object even when `g` changes between
// them. GenMC 0.11: no error, 2 executions under both models.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

struct node {
	int next;
};
struct node a, b;
_Atomic(struct node *) g;
atomic_int x;

void *exchanger(void *arg)
{
	atomic_compare_exchange_strong(&x, &g->next, 5);
	return NULL;
}

void *switcher(void *arg)
{
	g = &b;
	return NULL;
}

int main()
{
	pthread_t p, q;
	a.next = 1;
	b.next = 0;
	g = &a;
	pthread_create(&p, NULL, exchanger, NULL);
	pthread_create(&q, NULL, switcher, NULL);
	pthread_join(p, NULL);
	pthread_join(q, NULL);
	assert(!(x == 0 && a.next == 1));
	return 0;
}
