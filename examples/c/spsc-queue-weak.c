/* WEAKENED (the one change from spsc-queue.c): the consumer's load of tail is relaxed
 * instead of acquire. Under rc11 it can see the producer's tail and read the slot before
 * the producer's write of it (a data race) and fail its assertion. Under sc nothing
 * changes.
 *
 * Single-producer single-consumer ring buffer (Lamport's queue) in C11: the C form of
 * ../spsc-queue-weak.litmus, with one slot to keep the client small. head and tail count
 * dequeues and enqueues; the slot of count i is buf[i % SIZE]. enqueue(v) waits while the
 * ring is full (head read with acquire), writes the plain slot and publishes it by storing
 * tail + 1 with release; dequeue() waits while it is empty (tail read with acquire), reads
 * the plain slot and frees it by storing head + 1 with release.
 *
 * Client: a producer enqueues 1 then 2 and a consumer dequeues twice, so the second value
 * reuses the slot after the consumer has freed it. Checks: values come out in FIFO order
 * (the consumer's assertion), head and tail end at 2 (main's), no data race on the slot, no
 * deadlock; the waits only read and are reduced exactly. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#define SIZE 1

struct queue {
	atomic_int head;
	atomic_int tail;
	int buf[SIZE];
};

struct queue q;

void enqueue(int v)
{
	int t = atomic_load_explicit(&q.tail, memory_order_relaxed);
	while (t - atomic_load_explicit(&q.head, memory_order_acquire) == SIZE)
		;
	q.buf[t % SIZE] = v;
	atomic_store_explicit(&q.tail, t + 1, memory_order_release);
}

int dequeue(void)
{
	int h = atomic_load_explicit(&q.head, memory_order_relaxed);
	while (atomic_load_explicit(&q.tail, memory_order_relaxed) == h) // WEAKENED: was memory_order_acquire
		;
	int v = q.buf[h % SIZE];
	atomic_store_explicit(&q.head, h + 1, memory_order_release);
	return v;
}

void *producer(void *unused)
{
	enqueue(1);
	enqueue(2);
	return NULL;
}

void *consumer(void *unused)
{
	int first = dequeue();
	int second = dequeue();
	assert(first == 1 && second == 2);
	return NULL;
}

int main()
{
	pthread_t t0, t1;

	pthread_create(&t0, NULL, producer, NULL);
	pthread_create(&t1, NULL, consumer, NULL);
	pthread_join(t0, NULL);
	pthread_join(t1, NULL);
	assert(atomic_load(&q.head) == 2 && atomic_load(&q.tail) == 2);
	return 0;
}
