// Loops of register arithmetic only, long past any unrolling bound (GenMC's cache-reuse:
// an empty 100000-iteration `for` between two accesses): they emit no event, so nemos runs
// them to their end while unrolling and keeps the values they leave. The reader sees one of
// x's three writes, and the sum computed from the loops is asserted: 3 executions, no
// defect (GenMC 0.11: 3 under both models).
#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>

atomic_int x;
int y;

void *writer(void *arg)
{
	x = 1;
	x = 2;
	return NULL;
}

void *reader(void *arg)
{
	int r = x;
	int s = 0;
	for (int i = 0; i < 100000; i++)
		;
	for (int i = 0; i < 30000; i++) {
		if (i % 3 == 0)
			s = s + 2;
		else
			s = s - 1;
	}
	assert(s == 0);
	for (int i = 0; i < 5000; i += 2)
		s = s + i;
	y = s;
	return NULL;
}

int main()
{
	pthread_t a, b;
	pthread_create(&a, NULL, writer, NULL);
	pthread_create(&b, NULL, reader, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(y == 6247500);
	return 0;
}
