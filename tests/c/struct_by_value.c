// A struct passed by value: the callee's parameter is an object of its own, a copy of the
// argument (C11 6.5.2.2p4), so what the callee writes to it the caller does not see, and
// the copy reads the argument when the call is made. GenMC 0.11 (`genmc
// -disable-estimation -rc11`/`-sc`, 28 November 2026): no error, 1 execution under both;
// with -DFAIL the assertion fails (1 execution). (`pad` makes clang copy the struct with
// `memcpy`, which GenMC reads field by field; without it GenMC 0.11 stops at "Mixed-size
// accesses".)
#include <assert.h>
#include <pthread.h>

struct pair {
	int a;
	int b;
	int pad[4];
};

struct pair g = { 1, 2 };

int bump(struct pair p)
{
	p.b = 10;
	return p.a + p.b;
}

void *writer(void *arg)
{
	g.a = 5;
	return NULL;
}

int main()
{
	pthread_t t;
	struct pair w = { 1, 2 };

	pthread_create(&t, NULL, writer, NULL);
	assert(bump(w) == 11);
	assert(w.b == 2);
	pthread_join(t, NULL);
	int s = bump(g);
	assert(s == 15 && g.b == 2);
#ifdef FAIL
	assert(s == 11);
#endif
	return 0;
}
