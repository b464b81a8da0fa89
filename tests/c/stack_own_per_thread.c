/* Each thread has a stack object of its own, written and read through a pointer (as
   ms-queue's `set_ptr(&tmp, ...)`), beside a release/acquire exchange on shared atomics.
   No pointer to a stack object leaves its thread, and every access to one is in program
   order after its allocation and before its free: the memory flags raise nothing, and
   `check` does not build their happens-before for these pairs (program order, which
   happens-before holds, orders each of them). GenMC 0.11's verdicts and counts are in
   `tests/it/c_programs.rs`. */
#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>

atomic_int x, y;
int ids[2] = {1, 2};

static void put(int *p, int v) { *p = v; }
static int get(int *p) { return *p; }

void *worker(void *arg)
{
	int id = *(int *)arg;
	int tmp;
	for (int i = 0; i < 2; i++) {
		put(&tmp, 10 * id + i);
		atomic_store_explicit(&x, get(&tmp), memory_order_release);
		int r = atomic_load_explicit(&y, memory_order_acquire);
		put(&tmp, r);
		atomic_fetch_add_explicit(&y, get(&tmp) + 1, memory_order_acq_rel);
	}
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, worker, &ids[0]);
	pthread_create(&b, NULL, worker, &ids[1]);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(atomic_load_explicit(&y, memory_order_relaxed) >= 2);
	return 0;
}
