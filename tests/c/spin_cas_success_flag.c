// A loop that ends when a flag holds a compare-exchange's success, the exchange under a
// branch of the body with another expected value on each side (GenMC's spin-cas-res): an
// iteration that goes on has its exchange fail, so it has no effect, and the flag is 0 at
// every test that holds. Counted as GenMC does: the first iteration's exchange reads 1
// after thread 2's 0, its 1, or the initial 0 read first (GenMC 0.11: 3).
#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>

atomic_int x;

void *grabber(void *arg)
{
	int success = 0;
	while (!success) {
		int r = 0;
		int p = 1;
		if (x == 42)
			success = atomic_compare_exchange_strong(&x, &r, 42);
		else
			success = atomic_compare_exchange_strong(&x, &p, 42);
	}
	return NULL;
}

void *writer(void *arg)
{
	for (int i = 0; i < 3; i++)
		x = i;
	return NULL;
}

int main()
{
	pthread_t a, b;
	pthread_create(&a, NULL, grabber, NULL);
	pthread_create(&b, NULL, writer, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(x == 42 || x == 2);
	return 0;
}
