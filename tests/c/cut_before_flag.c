/* A thread cut at the unrolling bound before it writes the flag a join or a create
 * waits for: the executions are cut, not blocked (nemos blocked them until 28 November
 * 2026, and said "no defect" with 0 executions). GenMC 0.11 (measured 2026-11-28, rc11
 * and sc): CASE 1, Safety violation; CASE 2, no error, 1 complete execution. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int m;
int param[8];
pthread_t t1;

void *spin(void *arg)
{
	for (int j = 0; j < atomic_load(&m); j++)
		;
	return NULL;
}

void init(void)
{
	for (int j = 0; j < atomic_load(&m); j++)
		param[j] = j;
}

void *nothing(void *arg)
{
	return NULL;
}

int main()
{
	atomic_store(&m, 3);
#if CASE == 1
	pthread_create(&t1, NULL, spin, NULL);
	pthread_join(t1, NULL);
	assert(0);
#else
	init();
	pthread_create(&t1, NULL, nothing, NULL);
#endif
	return 0;
}
