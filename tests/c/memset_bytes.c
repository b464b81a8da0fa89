/* A memset whose size is a number of bytes: nemos counts cells, not bytes. Refused. */
#include <string.h>

int a[4];

int main(void)
{
	memset(a, 0, 16);
	return 0;
}
