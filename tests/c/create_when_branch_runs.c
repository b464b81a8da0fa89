/* A thread started in a branch starts when the branch runs (GenMC's nested-create has a
 * thread that starts one of two threads, depending on a flag). GenMC 0.11, measured
 * 2026-11-28 under rc11 and sc: CASE 0, no error, 2 complete executions; CASE 1, Safety
 * violation (`main` reads flag 0 after the writer's x = 1, so the thread started with
 * 0 reads 1). CASE 2 joins a thread started in a branch: refused. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;
atomic_int flag;

void *writer(void *unused)
{
	atomic_store(&x, 1);
	atomic_store(&flag, 1);
	return NULL;
}

void *checker(void *arg)
{
#if CASE == 1
	assert(atomic_load(&x) == (int)(long)arg);
#endif
	return NULL;
}

int main()
{
	pthread_t w, t;

	pthread_create(&w, NULL, writer, NULL);
	if (atomic_load(&flag) == 1)
		pthread_create(&t, NULL, checker, (void *)1L);
	else
		pthread_create(&t, NULL, checker, (void *)0L);
#if CASE == 2
	pthread_join(t, NULL);
#endif
	return 0;
}
