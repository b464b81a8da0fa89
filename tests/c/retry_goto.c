/* A sequence lock as the Linux kernel writes it: a reader retries through a backward
 * `goto` while the count is odd, `_Atomic` struct members read and written plainly (seq_cst
 * atomics, as C says: no race), mutex calls whose failure would `exit`, a nested
 * initializer of zeros and an empty struct. Every access is seq_cst: a reader that sees the
 * same even count before and after its read of `data` sees the writer's data or none. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct lock_class_key {};
struct seqcount { _Atomic(unsigned) sequence; };
struct seqlock { struct seqcount seqcount; pthread_mutex_t lock; };

struct seqlock sl = { .seqcount = { .sequence = 0 }, .lock = PTHREAD_MUTEX_INITIALIZER };
atomic_int data;

unsigned read_begin(struct seqcount *s)
{
	unsigned ret;
repeat:
	ret = s->sequence;
	if (ret & 1)
		goto repeat;
	return ret;
}

void *writer(void *unused)
{
	if (pthread_mutex_lock(&sl.lock))
		exit(-1);
	sl.seqcount.sequence = sl.seqcount.sequence + 1;
	data = 1;
	sl.seqcount.sequence = sl.seqcount.sequence + 1;
	if (pthread_mutex_unlock(&sl.lock))
		exit(-1);
	return NULL;
}

void *reader(void *unused)
{
	unsigned seq = read_begin(&sl.seqcount);
	int d = data;
	if (sl.seqcount.sequence == seq)
		assert(d == (seq == 2));
	return NULL;
}

int main()
{
	pthread_t w, r;

	pthread_create(&w, NULL, writer, NULL);
	pthread_create(&r, NULL, reader, NULL);
	return 0;
}
