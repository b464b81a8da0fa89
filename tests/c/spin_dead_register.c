// A spin loop whose body computes a register nothing reads afterwards from the value the
// iteration before loaded (GenMC's spin-load: `q = r + 1`): the assignment has no effect
// any execution sees, so the loop without it, a spin loop, is the one reduced. Counted as
// GenMC's spin-assume counts (GenMC 0.11: 1 under both models: the loop exits at its
// first test, the load and the exchange reading 17).
#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>

atomic_int x;

void *waiter(void *arg)
{
	int r = x;
	int q = r;
	atomic_compare_exchange_strong(&x, &q, 42);
	while (r != 17) {
		q = r + 1;
		r = x;
	}
	return NULL;
}

void *writer(void *arg)
{
	x = 17;
	return NULL;
}

int main()
{
	pthread_t a, b;
	pthread_create(&a, NULL, waiter, NULL);
	pthread_create(&b, NULL, writer, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(x == 17 || x == 42);
	return 0;
}
