/* Sequence lock (Boehm's C11 seqlock, MSPC 2012) with one writer: the C form of
 * ../seqlock.litmus. The writer makes seq odd (relaxed store), issues a release fence,
 * writes the data (relaxed atomics: readers race with the writer by design), then makes
 * seq even again with a release store. The reader reads seq (acquire), the data (relaxed),
 * issues an acquire fence, reads seq again (relaxed), and retries while the first value was
 * odd or the two differ.
 *
 * Client: a writer writes the pair (1, 1) over (0, 0) once; a reader reads once. Checks:
 * the pair read is never torn (the reader's assertion), seq ends at 2 (main's), no data
 * race, no deadlock; the reader's retry loop only reads and is reduced exactly. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

struct seqlock {
	atomic_int seq;
	atomic_int x;
	atomic_int y;
};

struct seqlock s;

void write_pair(int v)
{
	int seq = atomic_load_explicit(&s.seq, memory_order_relaxed);
	atomic_store_explicit(&s.seq, seq + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&s.x, v, memory_order_relaxed);
	atomic_store_explicit(&s.y, v, memory_order_relaxed);
	atomic_store_explicit(&s.seq, seq + 2, memory_order_release);
}

void *writer(void *unused)
{
	write_pair(1);
	return NULL;
}

void *reader(void *unused)
{
	int s1, s2, d1, d2;
	do {
		s1 = atomic_load_explicit(&s.seq, memory_order_acquire);
		d1 = atomic_load_explicit(&s.x, memory_order_relaxed);
		d2 = atomic_load_explicit(&s.y, memory_order_relaxed);
		atomic_thread_fence(memory_order_acquire);
		s2 = atomic_load_explicit(&s.seq, memory_order_relaxed);
	} while (s1 % 2 == 1 || s1 != s2);
	assert(d1 == d2);
	return NULL;
}

int main()
{
	pthread_t t0, t1;

	pthread_create(&t0, NULL, writer, NULL);
	pthread_create(&t1, NULL, reader, NULL);
	pthread_join(t0, NULL);
	pthread_join(t1, NULL);
	assert(atomic_load(&s.seq) == 2);
	return 0;
}
