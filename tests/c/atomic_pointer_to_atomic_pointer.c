// An atomic pointer behind another pointer: refused with the construct named.
#include <stdatomic.h>

int *_Atomic *pp;

int main()
{
	return 0;
}
