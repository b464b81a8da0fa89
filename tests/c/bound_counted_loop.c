// GenMC 0.11's -unroll=N bounds a loop whose trip count is a constant too: the thread that
// comes back to the loop's header after N iterations ends there, even where the test
// would fail (`genmc -unroll=N`: 2, 3, 4 complete executions at N = 1, 2, 3; at 2 the
// loop's two iterations run and `y = 1` never does).
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;
atomic_int y;

void *t1(void *u)
{
	for (int i = 0; i < 2; i++)
		x = i + 1;
	y = 1;
	return NULL;
}

void *t2(void *u)
{
	int a = y;
	int b = x;
	return NULL;
}

int main()
{
	pthread_t a, b;
	pthread_create(&a, NULL, t1, NULL);
	pthread_create(&b, NULL, t2, NULL);
	return 0;
}
