/* A header nemos does not ship: the preprocessor's own message, exit 2. */
#include <string.h>

int main()
{
	return 0;
}
