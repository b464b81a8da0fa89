/* `i++ + i`: C leaves the value undefined (the read of `i` and its increment are
 * unsequenced); nemos refuses it at the increment. */
#include <assert.h>

int main()
{
	int i = 0;
	int j = i++ + i;
	assert(j >= 0);
	return 0;
}
