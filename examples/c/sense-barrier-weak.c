/* WEAKENED (the one change from sense-barrier.c): the waiter's load of sense is relaxed
 * instead of acquire. Under rc11 the waiter can leave the barrier without seeing the other
 * thread's write (a data race, and its assertion fails). Under sc nothing changes.
 *
 * Sense-reversing barrier in C11: the C form of ../sense-barrier-weak.litmus. Each thread
 * flips its local sense and decrements count (acq_rel); the last to arrive resets count
 * (relaxed) and publishes the new sense (release); the others wait until sense (read with
 * acquire) is the new one.
 *
 * Client: each of two threads writes its own plain cell of a before the barrier and reads
 * the other's after it. Checks: each thread sees the other's write (its assertion), count
 * and sense end reset and flipped (main's assertion after joining both), no data race, no
 * deadlock; the wait only reads and is reduced exactly. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#define N 2

atomic_int count = N;
atomic_int sense;
int a[N];

int barrier(int local_sense)
{
	int s = 1 - local_sense;
	if (atomic_fetch_sub_explicit(&count, 1, memory_order_acq_rel) == 1) {
		atomic_store_explicit(&count, N, memory_order_relaxed);
		atomic_store_explicit(&sense, s, memory_order_release);
	} else {
		while (atomic_load_explicit(&sense, memory_order_relaxed) != s) // WEAKENED: was memory_order_acquire
			;
	}
	return s;
}

void *thread0(void *unused)
{
	a[0] = 1;
	barrier(0);
	assert(a[1] == 1);
	return NULL;
}

void *thread1(void *unused)
{
	a[1] = 1;
	barrier(0);
	assert(a[0] == 1);
	return NULL;
}

int main()
{
	pthread_t t0, t1;

	pthread_create(&t0, NULL, thread0, NULL);
	pthread_create(&t1, NULL, thread1, NULL);
	pthread_join(t0, NULL);
	pthread_join(t1, NULL);
	assert(atomic_load(&count) == N && atomic_load(&sense) == 1);
	return 0;
}
