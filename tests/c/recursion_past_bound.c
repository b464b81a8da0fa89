/* A recursion that never ends while the flag is 0: `spin(k)` calls itself until it reads
 * the flag set. Each depth is one more read of `flag`, as a loop's iteration would be:
 * every bound cuts the executions in which the writer comes late. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int flag;
int data;

int wait_for(int k)
{
	if (atomic_load_explicit(&flag, memory_order_acquire))
		return k;
	return wait_for(k + 1);
}

void *writer(void *arg)
{
	data = 1;
	atomic_store_explicit(&flag, 1, memory_order_release);
	return NULL;
}

int main()
{
	pthread_t t;
	pthread_create(&t, NULL, writer, NULL);
	int k = wait_for(0);
	assert(data == 1);
	assert(k >= 0);
	return 0;
}
