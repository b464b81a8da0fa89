/* Per-thread slot pools indexed by a thread id read from memory (the pattern of GenMC's
 * qu and stc tests: `free_lists[t][free_index[t]++]`). Each thread takes two slots of its
 * own row through its own counter `next_free[t]`, writes its id + 1 into them and adds
 * both to `total`. Known answer: no assertion fails; the three fetch-adds on `total` are
 * the only accesses that can interleave differently, in 3! = 6 orders, under rc11 and sc.
 * The counter's writes `next_free[t] = next_free[t] + 1` go through a computed index, so
 * each cell's write is `(t == 0 ? r0 : t == 1 ? r1 : ..) + 1` under the case `t == k`:
 * nemos reads them as increments of a counter (events/counting.rs), whose range bounds the
 * slots a thread can take, and the pool's 3 x 64 cells are split only into those. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#define THREADS 3
#define SLOTS 64

int ids[THREADS];
int next_free[THREADS];
int pool[THREADS][SLOTS];
atomic_int total;

int *take(int t)
{
	return &pool[t][next_free[t]++];
}

void *worker(void *arg)
{
	int t = *(int *)arg;
	int *a = take(t);
	int *b = take(t);
	*a = t + 1;
	*b = t + 1;
	atomic_fetch_add(&total, *a + *b);
	return NULL;
}

int main()
{
	pthread_t h[THREADS];
	for (int i = 0; i < THREADS; i++)
		ids[i] = i;
	for (int i = 0; i < THREADS; i++)
		pthread_create(&h[i], NULL, worker, &ids[i]);
	for (int i = 0; i < THREADS; i++)
		pthread_join(h[i], NULL);
	assert(atomic_load(&total) == 2 * (1 + 2 + 3));
	assert(pool[2][1] == 3 && next_free[1] == 2);
	return 0;
}
