/* A value stored into a `bool` object is 0 or 1 (C11 6.3.1.2), at every kind of store:
 * each assertion below fails where the value is kept as it is. GenMC 0.11: no error,
 * 1 execution under rc11 and sc (checked 28 November 2026). */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

struct flags {
	int n;
	bool on;
};

bool frozen = 5;                 /* a global initializer, never written */
bool cells[3] = {0, 7, -1};      /* array cells */
struct flags gs = {4, 9};        /* a struct member */
bool once;                       /* written once by main, with a constant */
bool g;
atomic_bool ab;
atomic_bool swapped;
atomic_bool compared = 1;

bool as_bool(int v) { return v; }           /* a bool function's value */
int through(bool p) { return p; }           /* a bool parameter */

void *worker(void *arg)
{
	atomic_store(&ab, 3);
	atomic_exchange(&swapped, 4);
	bool expected = 1;
	atomic_compare_exchange_strong(&compared, &expected, 6);
	return NULL;
}

int main()
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	bool followed = 3;              /* a local initializer, never written again */
	assert(followed == 1);
	bool b = 10;
	assert(b == 1);
	b = 20;                         /* an assignment */
	assert(b == 1);
	b = 0;
	b += 4;                         /* a compound assignment */
	assert(b == 1);
	g = 2;
	assert(g == 1);
	int k = (g = 6);                /* an assignment's value */
	assert(k == 1);
	assert(frozen == 1);
	assert(cells[0] == 0 && cells[1] == 1 && cells[2] == 1);
	cells[0] = 8;
	assert(cells[0] == 1);
	assert(gs.on == 1);
	gs.on = 3;
	assert(gs.on == 1);
	bool *p = &g;
	*p = 5;                         /* through a pointer */
	assert(g == 1);
	bool s = 3;                     /* a stack object (its address is taken) */
	bool *q = &s;
	assert(*q == 1);
	once = 42;
	assert(once == 1);
	assert(as_bool(9) == 1);
	assert(through(12) == 1);
	assert((bool)7 == 1);
	pthread_join(t, NULL);
	assert(atomic_load(&ab) == 1);
	assert(atomic_load(&swapped) == 1);
	assert(atomic_load(&compared) == 1);
	return 0;
}
