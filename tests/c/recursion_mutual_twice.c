/* Mutual recursion where each function calls the other twice: f -> g -> f multiplies the
 * inlined bodies by 4 per depth of f (lowering went to 4^8 bodies before the cycle's
 * calls were all counted: over 60 s and 650 MB). GenMC 0.11, measured 2026-11-28: no
 * error, 3 complete executions under rc11 and sc. */
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;
int g(int n);

int f(int n)
{
	if (n <= 0 || atomic_load(&x) == 1)
		return 0;
	return g(n - 1) + g(n - 2);
}

int g(int n)
{
	if (n <= 0)
		return 1;
	return f(n - 1) + f(n - 2);
}

void *t(void *a)
{
	atomic_store(&x, 1);
	return NULL;
}

int main()
{
	pthread_t h;
	pthread_create(&h, NULL, t, NULL);
	f(3);
	return 0;
}
