/* As stack_argument.c, but main reads its local before the join: the thread's plain
   write races with main's plain read (GenMC: "Non-atomic race"). Each thread has one
   stack object (`data` of main, `seen` of the worker, written through a pointer). */
#include <pthread.h>

void *worker(void *arg)
{
	*(int *)arg = 1;
	return NULL;
}

int main(void)
{
	int data = 0;
	pthread_t t;
	pthread_create(&t, NULL, worker, &data);
	int r = data;
	pthread_join(t, NULL);
	return 0;
}
