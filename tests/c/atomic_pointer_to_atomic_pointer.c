// An atomic pointer behind two pointers: refused with the construct named (one behind a
// single pointer, `_Atomic(int *) *p`, is read: tests/c/atomic_pointer_behind_pointer.c).
#include <stdatomic.h>

int *_Atomic **ppp;

int main()
{
	return 0;
}
