/* A loop whose number of iterations depends on what main reads: it runs until main has
 * read both of `other`'s stores, at most 3 times, so some executions meet a bound of 2 and
 * others do not. With -DWITHIN=2 the program keeps only the executions in which the loop
 * ran at most twice (an assumption): the executions --unroll 2 --block-at-bound keeps.
 * Without -DCHECK the assertion is left out, so that GenMC counts every execution. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <genmc.h>

atomic_int x;
atomic_int y;

void *other(void *unused)
{
	atomic_store(&x, 1);
	atomic_store(&y, 1);
	return NULL;
}

int main()
{
	pthread_t t;
	int n = 0;

	pthread_create(&t, NULL, other, NULL);
	while (atomic_load(&x) + atomic_load(&y) < 2 && n < 3)
		n++;
#ifdef WITHIN
	__VERIFIER_assume(n <= WITHIN);
#endif
#ifdef CHECK
	assert(n <= 2);
#endif
	return 0;
}
