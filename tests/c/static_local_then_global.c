// A function's `static` local and a global of the same name declared after it: nemos names
// objects by their C name, so this is refused at the global rather than merged with the
// static (which made both assertions fail; GenMC 0.11: no error).
#include <assert.h>
#include <pthread.h>

int next_id(void)
{
	static int n = 0;
	n = n + 1;
	return n;
}

int n = 100;

void *worker(void *arg)
{
	next_id();
	return NULL;
}

int main()
{
	pthread_t a;
	pthread_create(&a, NULL, worker, NULL);
	pthread_join(a, NULL);
	int r = next_id();
	assert(r == 2);
	assert(n == 100);
	return 0;
}
