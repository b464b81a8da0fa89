/* Two threads write a plain int that nothing orders: a data race under C11. */
#include <pthread.h>

int shared;

void *writer(void *arg)
{
	shared = 1;
	return NULL;
}

int main()
{
	pthread_t a, b;

	pthread_create(&a, NULL, writer, NULL);
	pthread_create(&b, NULL, writer, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
