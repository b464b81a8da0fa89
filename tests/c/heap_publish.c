/* A block allocated and initialised before the thread that reads it is created: the
   creation orders the allocation and the write before the read. No defect; one execution
   (the read can only read 1). */
#include <stdlib.h>
#include <pthread.h>
#include <assert.h>

int *p;

void *reader(void *arg)
{
	assert(*p == 1);
	return NULL;
}

int main()
{
	pthread_t t;
	p = malloc(sizeof(int));
	*p = 1;
	pthread_create(&t, NULL, reader, NULL);
	pthread_join(t, NULL);
	free(p);
	return 0;
}
