// A compare-exchange loop with a `break` (GenMC's spin-cas6): the reset of the expected
// value and the next exchange both run only when the flag `break` sets is clear, which
// the registers' check sees path by path. Counted as GenMC's spin-assume counts (GenMC
// 0.11: 4 under both models).
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;

void *grabber(void *arg)
{
	int r = 1;
	while (!atomic_compare_exchange_strong(&x, &r, 42)) {
		if (x == 3)
			break;
		r = 1;
	}
	return NULL;
}

void *writer(void *arg)
{
	for (int i = 1; i <= 3; i++)
		x = i;
	return NULL;
}

int main()
{
	pthread_t a, b;
	pthread_create(&a, NULL, grabber, NULL);
	pthread_create(&b, NULL, writer, NULL);
	return 0;
}
