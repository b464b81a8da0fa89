/* GenMC's own thread calls (<genmc.h>): a spawn stored in an array element, one stored by
 * its declaration, one whose handle is dropped, both kinds of join. The joins make the
 * assertion hold; `main`'s read of z sees 0 or 1 (the dropped spawn is not joined). */
#include <assert.h>
#include <stdatomic.h>
#include <stddef.h>
#include <genmc.h>

atomic_int x;
atomic_int z;
int y;

void *inc(void *arg)
{
	atomic_fetch_add_explicit(&x, 1, memory_order_relaxed);
	return NULL;
}

void *writer(void *arg)
{
	y = 1;
	return NULL;
}

void *other(void *arg)
{
	atomic_store_explicit(&z, 1, memory_order_relaxed);
	return NULL;
}

int main()
{
	__VERIFIER_thread_t t[2];
	t[0] = __VERIFIER_spawn(inc, NULL);
	t[1] = __VERIFIER_spawn_symmetric(inc, NULL, t[0]);
	__VERIFIER_thread_t w = __VERIFIER_spawn(writer, NULL);
	__VERIFIER_spawn(other, NULL);
	__VERIFIER_join(t[0]);
	__VERIFIER_join_symmetric(t[1]);
	__VERIFIER_join(w);
	int r = atomic_load_explicit(&z, memory_order_relaxed);
	assert(atomic_load_explicit(&x, memory_order_relaxed) == 2 && y == 1);
	return 0;
}
