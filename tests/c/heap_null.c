/* A write through a pointer the other thread may not have set yet: NULL, GenMC's
   "Attempt to access non-allocated memory". */
#include <stdlib.h>
#include <pthread.h>
#include <stdatomic.h>

_Atomic(int *) p;

void *writer(void *arg)
{
	p = malloc(sizeof(int));
	return NULL;
}

void *reader(void *arg)
{
	int *r = p;
	*r = 1;
	return NULL;
}

int main()
{
	pthread_t a, b;
	pthread_create(&a, NULL, writer, NULL);
	pthread_create(&b, NULL, reader, NULL);
	return 0;
}
