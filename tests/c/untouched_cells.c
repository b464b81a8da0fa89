/* Message passing through one cell of a pool of 2 x 16 cells that nothing else accesses:
 * the writer stores into the cell `slot` names (1 once `main` has set it before the
 * create, 0 as far as the static value sets know) and `main` reads it back after an
 * acquire of `ready`. Only `pool[0][0]` and `pool[0][1]` may be accessed; the initial
 * writes of the other 30 cells are left out, with the same answer: no assertion fails, 2
 * executions (`ready` read as 0 or 1) under rc11 and under sc. GenMC 0.11: no error, 2
 * executions under both (checked 28 November 2026). With -DTOUCH_ALL, `main` also reads
 * every cell after the join (each read has one write it may read), so no initial write is
 * left out, and the answer is the same. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

int pool[2][16];
atomic_int ready;
atomic_int slot;

void *writer(void *arg)
{
	int i = atomic_load_explicit(&slot, memory_order_relaxed);
	pool[0][i] = 42;
	atomic_store_explicit(&ready, 1, memory_order_release);
	return NULL;
}

int main()
{
	pthread_t t;
	atomic_store_explicit(&slot, 1, memory_order_relaxed);
	pthread_create(&t, NULL, writer, NULL);
	if (atomic_load_explicit(&ready, memory_order_acquire) == 1) {
		int i = atomic_load_explicit(&slot, memory_order_relaxed);
		assert(pool[0][i] == 42);
	}
#ifdef TOUCH_ALL
	pthread_join(t, NULL);
	for (int r = 0; r < 2; r++)
		for (int c = 0; c < 16; c++)
			assert(pool[r][c] == (r == 0 && c == 1 ? 42 : 0));
#endif
	return 0;
}
