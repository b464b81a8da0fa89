// A work-stealing deque of four cells whose only seq_cst events are fences (the
// owner's take and the thief's steal each put one between their write and read of the
// other end), as GenMC's dq: under rc11 psc-f alone orders them. The owner pushes 1
// and 2 and takes one back; the thief steals one. No value is taken twice, and taken
// values are ones pushed.
#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>

atomic_long top;
atomic_long bottom;
atomic_long cells[4];
long taken, stolen;

void push(long v)
{
	long b = atomic_load_explicit(&bottom, memory_order_relaxed);
	atomic_store_explicit(&cells[b % 4], v, memory_order_relaxed);
	atomic_store_explicit(&bottom, b + 1, memory_order_release);
}

long take(void)
{
	long b = atomic_load_explicit(&bottom, memory_order_relaxed) - 1;
	atomic_store_explicit(&bottom, b, memory_order_release);
	atomic_thread_fence(memory_order_seq_cst);
	long t = atomic_load_explicit(&top, memory_order_relaxed);
	if (t > b) {
		atomic_store_explicit(&bottom, b + 1, memory_order_release);
		return 0;
	}
	long v = atomic_load_explicit(&cells[b % 4], memory_order_relaxed);
	if (t < b)
		return v;
	if (!atomic_compare_exchange_strong_explicit(&top, &t, t + 1, memory_order_seq_cst,
						     memory_order_relaxed))
		v = 0;
	atomic_store_explicit(&bottom, b + 1, memory_order_release);
	return v;
}

long steal(void)
{
	long t = atomic_load_explicit(&top, memory_order_acquire);
	atomic_thread_fence(memory_order_seq_cst);
	long b = atomic_load_explicit(&bottom, memory_order_acquire);
	if (t >= b)
		return 0;
	long v = atomic_load_explicit(&cells[t % 4], memory_order_relaxed);
	if (!atomic_compare_exchange_strong_explicit(&top, &t, t + 1, memory_order_release,
						     memory_order_relaxed))
		return 0;
	return v;
}

void *owner(void *arg)
{
	push(1);
	push(2);
	taken = take();
	return NULL;
}

void *thief(void *arg)
{
	stolen = steal();
	return NULL;
}

int main()
{
	pthread_t a, b;
	pthread_create(&a, NULL, owner, NULL);
	pthread_create(&b, NULL, thief, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(taken != 0);
	assert(taken != stolen);
	assert(stolen == 0 || stolen == 1);
	return 0;
}
