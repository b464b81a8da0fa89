/* A one-member union, a designated struct initializer, a call through a local function
 * pointer, a compare-exchange whose failure order is release (clang makes it relaxed),
 * and headers nemos ships for the suite (<limits.h>, <string.h>, <unistd.h>,
 * <inttypes.h>). */
#include <assert.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

typedef union {
	atomic_int lock;
} lock_t;

struct config {
	int n;
	int m;
	atomic_int count;
};

struct config cfg = { .m = 5, .n = 2 };
lock_t l;

void add(int k)
{
	atomic_fetch_add_explicit(&cfg.count, k, memory_order_relaxed);
}

void *worker(void *unused)
{
	void (*fp)(int) = &add;
	int expected = 0;

	fp(cfg.n);
	atomic_compare_exchange_strong_explicit(&l.lock, &expected, 1, memory_order_release,
						memory_order_release);
	return NULL;
}

int main()
{
	pthread_t a, b;

	assert(cfg.n == 2 && cfg.m == 5 && INT_MAX == 2147483647);
	pthread_create(&a, NULL, worker, NULL);
	pthread_create(&b, NULL, worker, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(atomic_load(&cfg.count) == 4 && atomic_load(&l.lock) == 1);
	return 0;
}
