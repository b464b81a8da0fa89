/* A header nemos does not ship: the preprocessor's own message, exit 2. */
#include <signal.h>

int main()
{
	return 0;
}
