/* calloc zero-fills: reading a cell before any write reads 0 and is no defect. A struct
   of two fields is two cells. */
#include <stdlib.h>
#include <assert.h>

struct pair {
	int a;
	int b;
};

int main()
{
	struct pair *q = calloc(1, sizeof(struct pair));
	q->a = 1;
	assert(q->b == 0);
	free(q);
	return 0;
}
