// A counter incremented by compare-exchange retry loops that reuse the value a failed
// exchange read (`r = x; while (!CAS(&x, &r, r + 1));`, GenMC's spin-cas2 with r + 1):
// each loop is reduced to its first test, whose exchange succeeds, so no bound cuts it,
// an increment is never lost (x ends 10, 11 or 12), and `--count` counts as GenMC's spin-assume does.
#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>

atomic_int x;

void *inc(void *arg)
{
	int r = x;
	while (!atomic_compare_exchange_strong(&x, &r, r + 1))
		;
	return NULL;
}

void *set(void *arg)
{
	x = 10;
	return NULL;
}

int main()
{
	pthread_t a, b, c;
	pthread_create(&a, NULL, inc, NULL);
	pthread_create(&b, NULL, inc, NULL);
	pthread_create(&c, NULL, set, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	pthread_join(c, NULL);
	int v = x;
	assert(v == 10 || v == 11 || v == 12);
	return 0;
}
