/* A write after the block is freed: GenMC's "Attempt to access freed memory". */
#include <stdlib.h>

typedef struct {
	int x;
	int y;
} obj;

int main(void)
{
	obj *o = malloc(sizeof(obj));
	o->x = 1;
	free(o);
	o->y = 10;
	return 0;
}
