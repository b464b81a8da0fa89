/* WEAKENED (the one change from linux-rwlock.c): write_unlock's add is relaxed instead of
 * release. Under rc11 a reader that takes the lock after it synchronises with nothing (a
 * data race, and a torn pair: its assertion fails). Under sc nothing changes.
 *
 * The Linux kernel's old reader-writer spin lock (a counter biased by RW_LOCK_BIAS) in C11:
 * the C form of ../linux-rwlock-weak.litmus. A reader takes the lock by subtracting 1 (acquire)
 * and holds it when the count was positive (read_trylock gives up otherwise, adding the 1
 * back); a writer subtracts the whole bias (acquire) and holds it when the count was the
 * bias, otherwise adds it back, waits until the count is the bias again and retries. Both
 * release the lock by adding back what they took (release).
 *
 * Client: a writer takes the lock with write_lock and writes the plain pair (1, 1); a
 * reader tries once with read_trylock and, holding the lock, reads the pair. Checks: the
 * reader never sees a torn pair (its assertion), the lock and the pair end as the writer
 * left them (main's assertion), no data race, no deadlock. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#define RW_LOCK_BIAS 0x00100000

atomic_int lock = RW_LOCK_BIAS;
int x, y;

int read_trylock(atomic_int *l)
{
	int prior = atomic_fetch_sub_explicit(l, 1, memory_order_acquire);
	if (prior > 0)
		return 1;
	atomic_fetch_add_explicit(l, 1, memory_order_relaxed);
	return 0;
}

void read_unlock(atomic_int *l)
{
	atomic_fetch_add_explicit(l, 1, memory_order_release);
}

void write_lock(atomic_int *l)
{
	int prior = atomic_fetch_sub_explicit(l, RW_LOCK_BIAS, memory_order_acquire);
	while (prior != RW_LOCK_BIAS) {
		atomic_fetch_add_explicit(l, RW_LOCK_BIAS, memory_order_relaxed);
		while (atomic_load_explicit(l, memory_order_relaxed) != RW_LOCK_BIAS)
			;
		prior = atomic_fetch_sub_explicit(l, RW_LOCK_BIAS, memory_order_acquire);
	}
}

void write_unlock(atomic_int *l)
{
	atomic_fetch_add_explicit(l, RW_LOCK_BIAS, memory_order_relaxed); // WEAKENED: was memory_order_release
}

void *writer(void *unused)
{
	write_lock(&lock);
	x = 1;
	y = 1;
	write_unlock(&lock);
	return NULL;
}

void *reader(void *unused)
{
	if (read_trylock(&lock)) {
		int r0 = x;
		int r1 = y;
		read_unlock(&lock);
		assert(r0 == r1);
	}
	return NULL;
}

int main()
{
	pthread_t t0, t1;

	pthread_create(&t0, NULL, writer, NULL);
	pthread_create(&t1, NULL, reader, NULL);
	pthread_join(t0, NULL);
	pthread_join(t1, NULL);
	assert(atomic_load(&lock) == RW_LOCK_BIAS && x == 1 && y == 1);
	return 0;
}
