/* memset of whole objects to 0, one plain write per cell (sizes written with sizeof,
   counted in cells), and an array of arrays initialised row by row with nested lists
   (a short row padded with zeros). Single thread: one execution, the assertions hold. */
#include <string.h>
#include <assert.h>

int a[3] = {1, 2, 3};
int m[2][3] = { {1, 2}, {4, 5, 6} };

struct s {
	int x;
	int y;
};

int main(void)
{
	struct s v;
	v.x = 3;
	v.y = 4;
	memset(a, 0, sizeof(a));
	memset(&v, 0, sizeof(struct s));
	assert(a[0] == 0 && a[1] == 0 && a[2] == 0);
	assert(v.x == 0 && v.y == 0);
	assert(m[0][0] == 1 && m[0][1] == 2 && m[0][2] == 0);
	assert(m[1][0] == 4 && m[1][2] == 6);
	return 0;
}
