// An atomic access through a pointer read from memory: `*p` with `_Atomic int *p`, a
// global, stores to and loads from `x`, where `p` points (GenMC 0.11: no error, 4
// executions under both rc11 and sc; nemos stored to `p` itself, and the assertion
// failed).
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

_Atomic int x;
_Atomic int *p = &x;
int *_Atomic q;
int y;

void *writer(void *arg)
{
	*p = 1;
	q = &y;
	return NULL;
}

int main()
{
	pthread_t t;
	pthread_create(&t, NULL, writer, NULL);
	int r = *p;
	int *s = q;
	if (s)
		assert(r == 1 || r == 0);
	pthread_join(t, NULL);
	assert(x == 1 && p == &x);
	return 0;
}
