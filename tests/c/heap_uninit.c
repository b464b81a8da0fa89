/* malloc leaves its cells uninitialised: reading one before any write is GenMC's
   "Attempt to read from uninitialized memory". */
#include <stdlib.h>

int main(void)
{
	int *p = malloc(2 * sizeof(int));
	p[0] = 1;
	int r = p[1];
	free(p);
	return 0;
}
