/* A thread spins on a flag that nobody sets: it waits for ever. */
#include <pthread.h>
#include <stdatomic.h>

atomic_int flag;

void *waiter(void *arg)
{
	while (atomic_load(&flag) == 0)
		;
	return NULL;
}

int main()
{
	pthread_t t;

	pthread_create(&t, NULL, waiter, NULL);
	return 0;
}
