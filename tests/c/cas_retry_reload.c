// GenMC's spin-cas4 shape: the retry reloads the expected value on one path only
// (`if (y == 0) r = x;`), on the other it reuses what the failed exchange read. Reduced to
// the first test; x ends 1 when the exchange runs before thread 2's store of 1
// (not 42 as it does after that store): either way it ends 1 or 42.
#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>

atomic_int x, y;

void *t1(void *arg)
{
	int r = x;
	while (!atomic_compare_exchange_strong(&x, &r, 42)) {
		if (y == 0)
			r = x;
	}
	return NULL;
}

void *t2(void *arg)
{
	x = 1;
	y = 1;
	return NULL;
}

int main()
{
	pthread_t a, b;
	pthread_create(&a, NULL, t1, NULL);
	pthread_create(&b, NULL, t2, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(x == 42 || x == 1);
	return 0;
}
