/* Message passing through relaxed atomics: under RC11 the reader may see the flag and
 * not the data (the assertion fails); under SC it may not. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int data;
atomic_int flag;

void *writer(void *unused)
{
	atomic_store_explicit(&data, 1, memory_order_relaxed);
	atomic_store_explicit(&flag, 1, memory_order_relaxed);
	return NULL;
}

void *reader(void *unused)
{
	if (atomic_load_explicit(&flag, memory_order_relaxed) == 1)
		assert(atomic_load_explicit(&data, memory_order_relaxed) == 1);
	return NULL;
}

int main()
{
	pthread_t t1, t2;

	pthread_create(&t1, NULL, writer, NULL);
	pthread_create(&t2, NULL, reader, NULL);
	return 0;
}
