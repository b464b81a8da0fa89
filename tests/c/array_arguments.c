/* Each thread gets a pointer to its own slot of a global array as its argument. */
#include <assert.h>
#include <pthread.h>

int slot[2];

void *fill(void *arg)
{
	int *mine = (int *)arg;
	*mine = 1;
	return NULL;
}

int main()
{
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, fill, &slot[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert(slot[0] + slot[1] == 2);
	return 0;
}
