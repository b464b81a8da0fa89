/* Allocation errors and accesses to memory never allocated, GenMC's "Allocation error"
 * and "Attempt to access non-allocated memory". Pick a case with -DCASE=N.
 * GenMC 0.11 (measured 2026-11-28, rc11 and sc):
 *   1 malloc(-2)                      Allocation error
 *   2 malloc(0)                       Allocation error
 *   3 aligned_alloc(3, 8)             Allocation error
 *   4 aligned_alloc(4, 6)             Allocation error
 *   5 aligned_alloc(4, 8), used       no error, 1 execution
 *   6 malloc(0) only if x is read 1   Allocation error
 *   7 a store through 0xdeadbeef      Attempt to access non-allocated memory
 *   8 a fetch-add through 0xdeadbeef  Attempt to access non-allocated memory
 *   9 as 6, x never written           no error, 1 execution
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

atomic_int x;

void *writer(void *arg)
{
	atomic_store_explicit(&x, 1, memory_order_relaxed);
	return NULL;
}

int main()
{
#if CASE == 1
	void *p = malloc(-2);
#elif CASE == 2
	void *p = malloc(0);
#elif CASE == 3
	void *p = aligned_alloc(3, 8);
#elif CASE == 4
	void *p = aligned_alloc(4, 6);
#elif CASE == 5
	int *p = aligned_alloc(4, 8);
	p[1] = 3;
	assert(p[1] == 3);
#elif CASE == 6 || CASE == 9
	pthread_t t;
#if CASE == 6
	pthread_create(&t, NULL, writer, NULL);
#endif
	if (atomic_load_explicit(&x, memory_order_relaxed) == 1) {
		void *p = malloc(0);
	}
#elif CASE == 7
	*(int *) 0xdeadbeef = 1;
#elif CASE == 8
	atomic_fetch_add((atomic_int *) 0xdeadbeef, 1);
#endif
	return 0;
}
