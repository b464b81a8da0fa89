/* Message passing with a release store and an acquire load: a reader that sees the flag
 * sees the data, under every model. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

int data;
atomic_int flag;

void *writer(void *unused)
{
	data = 1;
	atomic_store_explicit(&flag, 1, memory_order_release);
	return NULL;
}

void *reader(void *unused)
{
	if (atomic_load_explicit(&flag, memory_order_acquire) == 1)
		assert(data == 1);
	return NULL;
}

int main()
{
	pthread_t t1, t2;

	if (pthread_create(&t1, NULL, writer, NULL))
		abort();
	if (pthread_create(&t2, NULL, reader, NULL))
		abort();
	return 0;
}
