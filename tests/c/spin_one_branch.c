// A success flag set by an exchange on one branch of the body only, whose expected value
// is a block-local written on that branch (GenMC's spin-cas-onebranch): nothing reads the
// local after the loop, so it need not be written on every path. Counted as GenMC's
// spin-assume counts (GenMC 0.11 with -disable-ipr: 1 under both models).
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

atomic_int x;
atomic_int y;

void *grabber(void *arg)
{
	bool success = false;
	while (!success) {
		if (y == 1) {
			;
		} else {
			int r = 2;
			success = atomic_compare_exchange_strong(&x, &r, 42);
		}
	}
	return NULL;
}

void *writer(void *arg)
{
	y = 1;
	for (int i = 1; i <= 3; i++)
		x = i;
	y = 0;
	return NULL;
}

int main()
{
	pthread_t a, b;
	pthread_create(&a, NULL, grabber, NULL);
	pthread_create(&b, NULL, writer, NULL);
	return 0;
}
