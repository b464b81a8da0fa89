/* A local of main whose address is the thread's argument: a memory location of its own
   (a stack object), shared by main and the thread. The thread writes it, main reads it
   after the join: the join orders the write before the read, so the read sees 42 and
   the assertion holds; one execution under both models. */
#include <pthread.h>
#include <assert.h>

void *worker(void *arg)
{
	int *p = (int *)arg;
	*p = 42;
	return NULL;
}

int main(void)
{
	int data = 0;
	pthread_t t;
	pthread_create(&t, NULL, worker, &data);
	pthread_join(t, NULL);
	assert(data == 42);
	return 0;
}
