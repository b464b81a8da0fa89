// The pointer itself is the atomic object: `int *_Atomic p`, and `T _Atomic q` with
// `typedef int *T`. Every access to `p` and `q` is atomic, so there is no race, and the
// second assertion holds (GenMC 0.11: no error, 3 executions under
// both rc11 and sc; nemos read both as plain pointers to atomics and reported a race).
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

typedef int *T;
int a, b;
int *_Atomic p = &a;
T _Atomic q;

void *writer(void *arg)
{
	q = &b;
	p = &b;
	return NULL;
}

int main()
{
	pthread_t t;
	pthread_create(&t, NULL, writer, NULL);
	int *r = p;
	int *s = q;
	pthread_join(t, NULL);
	assert(p == &b && q == &b);
	assert(r == &a || r == &b);
	(void)s;
	return 0;
}
