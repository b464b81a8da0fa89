// Inline assembly with a text is refused: GenMC 0.11 skips it with a warning.
#include <pthread.h>

int x;

int main()
{
	x = 1;
	asm("mfence");
	return 0;
}
