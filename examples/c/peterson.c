/* Peterson's mutual exclusion for two threads in C11: the C form of ../peterson.litmus.
 * Thread i raises its flag, gives the turn to the other thread and waits while the other's
 * flag is raised and the turn is the other's; it leaves by lowering its flag (release). The
 * flag and turn stores are relaxed; a seq_cst fence between the flag store and the turn
 * store and another between the turn store and the loads make it correct under rc11 (with
 * only the second fence both threads can enter: see ../README.md).
 *
 * Client: each thread increments a plain counter in its critical section. Checks: the
 * counter ends at 2 (main's assertion after joining both), no data race on it, no
 * deadlock; the waits only read and are reduced exactly. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int flag0, flag1, turn;
int counter;

void *thread0(void *unused)
{
	atomic_store_explicit(&flag0, 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_seq_cst);
	atomic_store_explicit(&turn, 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_seq_cst);
	while (atomic_load_explicit(&flag1, memory_order_acquire) == 1 &&
	       atomic_load_explicit(&turn, memory_order_relaxed) == 1)
		;
	counter = counter + 1;
	atomic_store_explicit(&flag0, 0, memory_order_release);
	return NULL;
}

void *thread1(void *unused)
{
	atomic_store_explicit(&flag1, 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_seq_cst);
	atomic_store_explicit(&turn, 0, memory_order_relaxed);
	atomic_thread_fence(memory_order_seq_cst);
	while (atomic_load_explicit(&flag0, memory_order_acquire) == 1 &&
	       atomic_load_explicit(&turn, memory_order_relaxed) == 0)
		;
	counter = counter + 1;
	atomic_store_explicit(&flag1, 0, memory_order_release);
	return NULL;
}

int main()
{
	pthread_t t0, t1;

	pthread_create(&t0, NULL, thread0, NULL);
	pthread_create(&t1, NULL, thread1, NULL);
	pthread_join(t0, NULL);
	pthread_join(t1, NULL);
	assert(counter == 2);
	return 0;
}
