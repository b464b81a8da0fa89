/* Store buffering with seq_cst accesses: both threads cannot read 0. Checked by main
 * after joining both. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;
atomic_int y;
int r1;
int r2;

void *left(void *unused)
{
	atomic_store(&x, 1);
	r1 = atomic_load(&y);
	return NULL;
}

void *right(void *unused)
{
	atomic_store(&y, 1);
	r2 = atomic_load(&x);
	return NULL;
}

int main()
{
	pthread_t a, b;

	pthread_create(&a, NULL, left, NULL);
	pthread_create(&b, NULL, right, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(r1 == 1 || r2 == 1);
	return 0;
}
