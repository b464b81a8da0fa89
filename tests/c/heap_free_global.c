/* free of an object no allocation returned: GenMC's "Attempt to free non-allocated
   memory". free(NULL) does nothing. */
#include <stdlib.h>

int x;

int main(void)
{
	free(NULL);
	free(&x);
	return 0;
}
