/* GCC's atomic builtins as the C11 atomics they are (`cfront/translate/builtins.rs`):
 * message passing through `__atomic_store_n`/`__atomic_load_n` with release/acquire (or,
 * with -DRELAXED, relaxed: then the read of `data` races and may miss 42 under rc11), a
 * seq_cst `__sync_fetch_and_add`, an `__atomic_add_fetch` that returns the new value and
 * an `__atomic_compare_exchange_n` that fails only when the producer's add came between.
 * With -DC11 the same program is written with <stdatomic.h>'s calls: both must have the
 * same verdicts and execution counts. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#if defined(C11) && defined(RELAXED)
#define ACQ memory_order_relaxed
#define REL memory_order_relaxed
#elif defined(C11)
#define ACQ memory_order_acquire
#define REL memory_order_release
#elif defined(RELAXED)
#define ACQ __ATOMIC_RELAXED
#define REL __ATOMIC_RELAXED
#else
#define ACQ __ATOMIC_ACQUIRE
#define REL __ATOMIC_RELEASE
#endif
#ifdef C11
#define RLX memory_order_relaxed
#define SCST memory_order_seq_cst
#else
#define RLX __ATOMIC_RELAXED
#define SCST __ATOMIC_SEQ_CST
#endif

int data;
#ifdef C11
atomic_int flag, counter;
#define STORE(p, v, o) atomic_store_explicit(p, v, o)
#define LOAD(p, o) atomic_load_explicit(p, o)
#define FETCH_ADD_SC(p, v) atomic_fetch_add(p, v)
#define ADD_FETCH(p, v, o) (atomic_fetch_add_explicit(p, v, o) + v)
#define CAS(p, e, d, s, f) atomic_compare_exchange_strong_explicit(p, e, d, s, f)
#else
int flag, counter;
#define STORE(p, v, o) __atomic_store_n(p, v, o)
#define LOAD(p, o) __atomic_load_n(p, o)
#define FETCH_ADD_SC(p, v) __sync_fetch_and_add(p, v)
#define ADD_FETCH(p, v, o) __atomic_add_fetch(p, v, o)
#define CAS(p, e, d, s, f) __atomic_compare_exchange_n(p, e, d, 0, s, f)
#endif

void *producer(void *unused)
{
	data = 42;
	STORE(&flag, 1, REL);
	FETCH_ADD_SC(&counter, 1);
	return NULL;
}

void *consumer(void *unused)
{
	if (LOAD(&flag, ACQ) == 1)
		assert(data == 42);
	int now = ADD_FETCH(&counter, 2, RLX);
	assert(now == 2 || now == 3);
	int expected = now;
	int swapped = CAS(&counter, &expected, 10, SCST, SCST);
	assert(swapped || expected == 3);
	return NULL;
}

int main()
{
	pthread_t p, c;

	pthread_create(&p, NULL, producer, NULL);
	pthread_create(&c, NULL, consumer, NULL);
	return 0;
}
