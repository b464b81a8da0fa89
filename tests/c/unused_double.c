/* A function nothing calls is not translated, as clang emits no code for it: its
 * `double` does not refuse the program (GenMC's cks carries a library's whole header). A
 * string literal is a pointer that is not null, true in `&&`: the assertion is
 * `r == 0`, which fails when main reads the writer's 1 (2 executions: r is 0 or 1). */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static inline double half(double v)
{
	return v / 2.0;
}

atomic_int x;

void *writer(void *unused)
{
	atomic_store_explicit(&x, 1, memory_order_relaxed);
	return NULL;
}

int main()
{
	pthread_t t;

	pthread_create(&t, NULL, writer, NULL);
	int r = atomic_load_explicit(&x, memory_order_relaxed);
	assert(r == 0 && "the writer has not run yet");
	pthread_join(t, NULL);
	return 0;
}
