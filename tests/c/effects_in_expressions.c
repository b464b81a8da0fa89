/* Assignments, `++`/`--`, `,`, `&&`/`||`/`?:` and a statement expression whose values are
 * used, in C's order; then a reader that spins with an assignment in its loop condition. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int flag;
atomic_int total;
int data;
int g;

void *writer(void *unused)
{
	data = 1;
	atomic_store_explicit(&flag, 1, memory_order_release);
	return NULL;
}

void *reader(void *unused)
{
	int seen;

	while ((seen = atomic_load_explicit(&flag, memory_order_acquire)) == 0)
		;
	assert(seen == 1 && data == 1);
	return NULL;
}

int main()
{
	int a, b, i = 0, k = 0;
	pthread_t t1, t2;

	a = b = 3;
	assert(a + b == 6);
	int j = i++;
	assert(j == 0 && i == 1);
	assert(--i == 0);
	if (0 && (k = 1))
		k = 2;
	assert(k == 0);
	if (1 || k++)
		assert(k == 0);
	int c = (k ? k++ : (k = 7));
	assert(c == 7 && k == 7);
	int d = (k = 1, k + 1);
	assert(d == 2);
	int v = ++g;
	assert(v == 1 && g == 1);
	int w = (total += 2);
	assert(w == 2 && atomic_load(&total) == 2);
	int s = ({ int t = 2; t + 1; });
	assert(s == 3);

	pthread_create(&t1, NULL, writer, NULL);
	pthread_create(&t2, NULL, reader, NULL);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	return 0;
}
