/* `get`'s local has its address taken: a stack object, one per call. Called in a loop
   that --unroll unrolls, each call would need a block of its own: refused. */
#include <stdatomic.h>
atomic_int n;
int get(void) {
	int v = 0;
	int *p = &v;
	*p = atomic_load(&n);
	return v;
}
int main(void)
{
	int k = 0;
	while (k < 3)
		k = k + 1 + get();
	return 0;
}
