/* A local struct is a stack object: its fields are cells of it, written and read
   through the struct and through a pointer to it, here by two threads in turn (the
   worker writes `b`, main reads it after the join). The assertion holds; one execution. */
#include <pthread.h>
#include <assert.h>

struct pair {
	int a;
	int b;
};

void *worker(void *arg)
{
	struct pair *p = arg;
	p->b = p->a + 1;
	return NULL;
}

int main(void)
{
	struct pair s;
	s.a = 5;
	pthread_t t;
	pthread_create(&t, NULL, worker, &s);
	pthread_join(t, NULL);
	assert(s.b == 6);
	return 0;
}
