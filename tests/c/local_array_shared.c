/* A local array of `main` given to a thread (its address escapes): message passing
 * through its two cells, initialised by the declaration. The flag is written with
 * release and read with acquire, so the data is seen whenever the flag is: no assertion
 * fails under sc or rc11. With -DRELAXED the flag's write is relaxed, and under rc11 the
 * reader may see the flag without the data (GenMC 0.11: "Safety violation" under rc11,
 * none under sc). Executions: 2 under both models (GenMC 0.11 says 2 too), and 2 under sc
 * with -DRELAXED. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifdef RELAXED
#define FLAG_ORDER memory_order_relaxed
#else
#define FLAG_ORDER memory_order_release
#endif

void *writer(void *arg)
{
	atomic_int *cells = arg;

	atomic_store_explicit(&cells[0], 1, memory_order_relaxed);
	atomic_store_explicit(&cells[1], 1, FLAG_ORDER);
	return NULL;
}

int main()
{
	atomic_int cells[2] = { 0 };
	pthread_t t;

	pthread_create(&t, NULL, writer, cells);
	if (atomic_load_explicit(&cells[1], memory_order_acquire) == 1)
		assert(atomic_load_explicit(&cells[0], memory_order_relaxed) == 1);
	pthread_join(t, NULL);
	return 0;
}
