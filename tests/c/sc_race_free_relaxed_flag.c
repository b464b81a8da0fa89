/* Message passing through a relaxed atomic flag: under SC the reads-from between the
   atomics orders the plain accesses, no race (GenMC 0.11 -sc: no error, 2 executions);
   under RC11 a relaxed flag orders nothing, a race. */
#include <pthread.h>
#include <stdatomic.h>

int d;
atomic_int f;

void *t1(void *a)
{
	d = 1;
	atomic_store_explicit(&f, 1, memory_order_relaxed);
	return NULL;
}

void *t2(void *a)
{
	if (atomic_load_explicit(&f, memory_order_relaxed) == 1)
		d = 2;
	return NULL;
}

int main()
{
	pthread_t a, b;
	pthread_create(&a, NULL, t1, NULL);
	pthread_create(&b, NULL, t2, NULL);
	return 0;
}
