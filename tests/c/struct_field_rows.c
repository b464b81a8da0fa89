// Struct fields that are arrays of arrays: indexed with constants and registers, through
// the struct and through a pointer to it, and a local's initialised row by row as C lays
// it out (a row's braces, elided ones, zeros for the rest). The flag's two values: 2
// executions.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

struct cell {
	int value;
	int next;
};

struct grid {
	int top;
	struct cell cells[3][2];
	int m[2][3];
	atomic_int flags[2][2];
};

struct grid g;

void *writer(void *arg)
{
	g.cells[2][1].next = 2;
	g.m[1][2] = 5;
	atomic_store_explicit(&g.flags[1][0], 1, memory_order_release);
	return NULL;
}

int main()
{
	pthread_t t;
	pthread_create(&t, NULL, writer, NULL);
	struct grid l = { .m = { { 1, 2 }, { 4 } }, .cells = { { { 5, 6 } }, { { 7, 8 }, { 9, 10 } } } };
	struct grid *p = &l;
	int i = 1;
	assert(l.m[i][0] == 4 && l.m[0][1] == 2 && l.m[0][2] == 0 && p->m[1][1] == 0);
	assert(l.cells[0][0].next == 6 && l.cells[0][1].value == 0);
	assert(p->cells[i][1].value == 9 && l.cells[1][0].next == 8);
	p = &g;
	if (atomic_load_explicit(&p->flags[i][0], memory_order_acquire))
		assert(g.cells[2][i].next == 2 && p->m[i][2] == 5);
	return 0;
}
