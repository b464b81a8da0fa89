/* offsetof and container_of, both as <stddef.h> spells offsetof (`__builtin_offsetof`)
 * and as the Linux list.h GenMC's tests copy spells it (`&((T *)0)->f`): a thread
 * publishes the address of a struct's inner field, the other steps back from it to the
 * struct and reads a field published with it. GenMC 0.11: no error, 2 executions under
 * rc11 and sc (the reader sees the pointer or NULL). */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

struct meta {
	int a;
	int b;
};

struct msg {
	int tag;
	struct meta m;
	int val;
};

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define container_of_linux(ptr, type, member) \
	((type *)((char *)(ptr) - ((size_t) &((type *)0)->member)))

struct msg g;
_Atomic(struct meta *) published;

void *writer(void *unused)
{
	g.val = 5;
	atomic_store_explicit(&published, &g.m, memory_order_release);
	return NULL;
}

void *reader(void *unused)
{
	struct meta *p = atomic_load_explicit(&published, memory_order_acquire);
	if (p != NULL) {
		struct msg *q = container_of(p, struct msg, m);
		struct msg *r = container_of_linux(p, struct msg, m);
		assert(q == &g && r == &g);
		assert(q->val == 5);
	}
	return NULL;
}

int main()
{
	pthread_t t1, t2;

	assert(offsetof(struct msg, m) == 1 && offsetof(struct msg, m.b) == 2);
	assert(offsetof(struct msg, val) == 3);
	pthread_create(&t1, NULL, writer, NULL);
	pthread_create(&t2, NULL, reader, NULL);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	return 0;
}
