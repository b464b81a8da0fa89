/* A loop that counts while it waits for a flag: it may run any number of times, so every
 * bound cuts some execution. Without --unroll the bound is doubled up to 64 and the answer
 * stays cut (exit 3). */
#include <pthread.h>
#include <stdatomic.h>

atomic_int ready;

void *setter(void *unused)
{
	atomic_store(&ready, 1);
	return NULL;
}

int main()
{
	pthread_t t;
	int waited = 0;

	pthread_create(&t, NULL, setter, NULL);
	while (atomic_load(&ready) == 0)
		waited++;
	return waited;
}
