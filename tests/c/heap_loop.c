/* An allocation in a loop the unrolling bound unrolls: refused (one block per call). */
#include <stdlib.h>

int n;

int main(void)
{
	int i = 0;
	while (i < n) {
		int *p = malloc(sizeof(int));
		*p = i;
		i++;
	}
	return 0;
}
