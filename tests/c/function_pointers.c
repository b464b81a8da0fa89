// Calls through function pointers: a global pointer another thread sets, a local one
// assigned from it, and a struct's field; each call runs the body the pointer holds at
// that moment. GenMC 0.11 (`genmc -disable-estimation -rc11`/`-sc`, 28 November 2026): no
// error, 2 executions under both; with -DFAIL the assertion fails.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

struct handler {
	int (*run)(int);
	int arg;
};

int (*op)(int);
atomic_int ready;

int inc(int v)
{
	return v + 1;
}

int dbl(int v)
{
	return v * 2;
}

void *setter(void *arg)
{
	op = dbl;
	atomic_store_explicit(&ready, 1, memory_order_release);
	return NULL;
}

int main()
{
	pthread_t t;
	int (*f)(int) = inc;
	struct handler h;

	op = &inc;
	pthread_create(&t, NULL, setter, NULL);
	if (atomic_load_explicit(&ready, memory_order_acquire))
		f = op;
	int r = f(3);
	assert(r == 4 || r == 6);
	h.run = f;
	h.arg = 5;
	assert(h.run(h.arg) == (r == 4 ? 6 : 10));
	assert(h.run != NULL && (h.run == &inc || h.run == dbl));
#ifdef FAIL
	assert(r == 4);
#endif
	pthread_join(t, NULL);
	assert((*op)(1) == 2);
	return 0;
}
