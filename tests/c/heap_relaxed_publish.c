/* A block published with a relaxed store: under RC11 nothing orders the allocation
   before the reader's write through the pointer (GenMC's "Attempt to access
   non-allocated memory"); under SC reading the pointer is enough (happens-before is
   po | rf). Two executions: the reader sees NULL (and skips) or the block. */
#include <stdlib.h>
#include <pthread.h>
#include <stdatomic.h>

_Atomic(int *) p;

void *writer(void *arg)
{
	atomic_store_explicit(&p, malloc(sizeof(int)), memory_order_relaxed);
	return NULL;
}

void *reader(void *arg)
{
	int *r = atomic_load_explicit(&p, memory_order_relaxed);
	if (r)
		*r = 18;
	return NULL;
}

int main()
{
	pthread_t a, b;
	pthread_create(&a, NULL, writer, NULL);
	pthread_create(&b, NULL, reader, NULL);
	return 0;
}
