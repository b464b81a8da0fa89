/* Two threads increment a plain int with no lock at all: a race under SC too (GenMC 0.11
   -sc: Non-atomic race). */
#include <pthread.h>
int c;
void *t1(void *a)
{
	c++;
	return NULL;
}
void *t2(void *a)
{
	c++;
	return NULL;
}
int main()
{
	pthread_t a, b;
	pthread_create(&a, NULL, t1, NULL);
	pthread_create(&b, NULL, t2, NULL);
	return 0;
}
