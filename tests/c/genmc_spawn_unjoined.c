/* A thread started with GenMC's __VERIFIER_spawn, its handle dropped, never joined: `main`
 * may read y after the thread writes it, so the assertion can fail. */
#include <assert.h>
#include <stdatomic.h>
#include <stddef.h>
#include <genmc.h>

atomic_int y;

void *writer(void *arg)
{
	atomic_store_explicit(&y, 1, memory_order_relaxed);
	return NULL;
}

int main()
{
	__VERIFIER_spawn(writer, NULL);
	assert(atomic_load_explicit(&y, memory_order_relaxed) == 0);
	return 0;
}
