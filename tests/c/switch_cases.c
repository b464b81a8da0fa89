/* `switch` read as C runs it: fall-through, a `default` in the middle, `case a:` and
 * `case b:` sharing statements, a `break` inside an `if` leaving the switch, and a switch
 * on a constant (a loop variable of a loop nemos unrolls) that starts a thread.
 * The reader sees x as 0, 1, 2 or 3: 4 executions; no assertion fails. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;

int classify(int v)
{
	int r = 0;

	switch (v) {
	case 0:
		r = 10;
		break;
	default:
		r += 100;
		/* falls through */
	case 2:
	case 3:
		r += 1;
		if (v == 3)
			break;
		r += 1000;
	}
	return r;
}

void *writer(void *arg)
{
	atomic_store_explicit(&x, 1, memory_order_relaxed);
	atomic_store_explicit(&x, 2, memory_order_relaxed);
	atomic_store_explicit(&x, 3, memory_order_relaxed);
	return NULL;
}

int main()
{
	pthread_t t[2];

	for (int i = 0; i < 2; i++) {
		switch (i) {
		case 1:
			pthread_create(&t[0], NULL, writer, NULL);
			break;
		default:
			break;
		}
	}
	int v = atomic_load_explicit(&x, memory_order_relaxed);
	int r = classify(v);
	assert(r == (v == 0 ? 10 : v == 1 ? 1101 : v == 2 ? 1001 : 1));
	pthread_join(t[0], NULL);
	return 0;
}
