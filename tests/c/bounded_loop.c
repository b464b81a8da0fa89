/* A loop that counts while it waits, so it is not a spin loop: its iterations are
 * bounded by --unroll. With --block-at-bound the executions that need more are left out;
 * without it they are reported as cut (exit 3). With --end-threads-at-bound too, main ends
 * at the loop's head past the bound, before reading `ready` again, as GenMC 0.11's
 * -unroll=N does (GenMC 0.11: 3 executions at -unroll=2, 4 and no error at -unroll=3). */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int ready;

void *setter(void *unused)
{
	atomic_store(&ready, 1);
	return NULL;
}

int main()
{
	pthread_t t;
	int waited = 0;

	pthread_create(&t, NULL, setter, NULL);
	while (atomic_load(&ready) == 0)
		waited++;
	assert(waited <= 2);
	return 0;
}
