/* Forward `goto`s as C code writes them: a search that jumps past the code for "not
 * found", and two labels of one block, the later one jumped to from before the loop and
 * from inside two nested loops. With -DSTRUCTURED the same functions are written with
 * `break` and flags instead: both must have the same verdicts and execution counts.
 *
 * Thread 1 writes x = 1 and then z = 1 (relaxed); thread 2 runs find(1) and scan():
 * - find reads x twice; y gets 1 exactly when no read saw 1, so r1 == 1 iff y == 0:
 *   the first assertion holds in every execution;
 * - scan reads z: 2 (never written) would skip to `second`; otherwise up to two reads in
 *   the loop, 11 when one of them sees 1, else 10. So seen is 10 or 11 (the second
 *   assertion holds), and 11 in some execution: with -DFAIL, `assert(seen != 11)` fails. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int x, y, z;

#ifndef STRUCTURED
int find(int key)
{
	int r = 0;
	for (int i = 0; i < 2; i++) {
		if (atomic_load_explicit(&x, memory_order_relaxed) == key) {
			r = 1;
			goto out;
		}
	}
	atomic_store_explicit(&y, 1, memory_order_relaxed);
out:
	return r;
}

int scan(void)
{
	int seen = 0;
	if (atomic_load_explicit(&z, memory_order_relaxed) == 2)
		goto second;
	while (1) {
		for (int j = 0; j < 2; j++) {
			if (atomic_load_explicit(&z, memory_order_relaxed) == 1)
				goto first;
		}
		goto second;
	}
first:
	seen += 1;
second:
	seen += 10;
	return seen;
}
#else
int find(int key)
{
	int r = 0;
	for (int i = 0; i < 2; i++) {
		if (atomic_load_explicit(&x, memory_order_relaxed) == key) {
			r = 1;
			break;
		}
	}
	if (!r)
		atomic_store_explicit(&y, 1, memory_order_relaxed);
	return r;
}

int scan(void)
{
	int seen = 0;
	int found = 0;
	if (atomic_load_explicit(&z, memory_order_relaxed) != 2) {
		for (int j = 0; j < 2; j++) {
			if (atomic_load_explicit(&z, memory_order_relaxed) == 1) {
				found = 1;
				break;
			}
		}
	}
	if (found)
		seen += 1;
	seen += 10;
	return seen;
}
#endif

void *writer(void *unused)
{
	atomic_store_explicit(&x, 1, memory_order_relaxed);
	atomic_store_explicit(&z, 1, memory_order_relaxed);
	return NULL;
}

void *searcher(void *unused)
{
	int r1 = find(1);
	assert((r1 == 1) == (atomic_load_explicit(&y, memory_order_relaxed) == 0));
	int seen = scan();
	assert(seen == 10 || seen == 11);
#ifdef FAIL
	assert(seen != 11);
#endif
	return NULL;
}

int main()
{
	pthread_t w, s;

	pthread_create(&w, NULL, writer, NULL);
	pthread_create(&s, NULL, searcher, NULL);
	return 0;
}
