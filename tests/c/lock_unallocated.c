/* A lock at an address that is no object's (GenMC's tests/wrong/infr/unalloc-lock).
   GenMC 0.11: "Attempt to access non-allocated memory". */
#include <pthread.h>

int main()
{
	pthread_mutex_lock((pthread_mutex_t *) 0xdeadbeef);
	return 0;
}
