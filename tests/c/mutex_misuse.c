/* POSIX mutexes used in ways a per-thread matching of lock and unlock refuses, each with
 * GenMC's verdict (GenMC 0.11, `genmc -rc11` and `-sc`, -DCASE=N):
 * 1: the second thread unlocks a mutex `main` holds, when it reads x == 0: "Invalid
 *    unlock() operation" (GenMC's wrong/locking/diff-thread-unlock).
 * 2: a lock, reached only after the release of a destroy, reads the destroyed mutex:
 *    "Attempt to read from uninitialized memory" (GenMC's wrong/locking/destroyed-mutex).
 * 3: a lock taken in a branch and released in a later branch under the same condition:
 *    no error; GenMC counts 3 executions under rc11 and under sc.
 * 4: an unlock on the path where the lock was not taken: "Invalid unlock() operation".
 * 5: a destroy after every thread is joined: no error; 2 executions (rc11 and sc). */
#include <pthread.h>
#include <stdatomic.h>

pthread_mutex_t m;
atomic_int x;

void *first(void *unused)
{
#if CASE == 1
	atomic_store_explicit(&x, 1, memory_order_relaxed);
	pthread_mutex_lock(&m);
#elif CASE == 2
	pthread_mutex_destroy(&m);
	atomic_store_explicit(&x, 1, memory_order_release);
#elif CASE == 5
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
#else
	int r = atomic_load_explicit(&x, memory_order_relaxed);
	if (r)
		pthread_mutex_lock(&m);
#if CASE == 3
	if (r)
		pthread_mutex_unlock(&m);
#else
	pthread_mutex_unlock(&m);
#endif
#endif
	return NULL;
}

void *second(void *unused)
{
#if CASE == 1
	if (atomic_load_explicit(&x, memory_order_relaxed) == 0)
		pthread_mutex_unlock(&m);
#elif CASE == 2
	if (atomic_load_explicit(&x, memory_order_acquire))
		pthread_mutex_lock(&m);
#else
	atomic_store_explicit(&x, 1, memory_order_relaxed);
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
#endif
	return NULL;
}

int main()
{
	pthread_t a, b;

	pthread_mutex_init(&m, NULL);
#if CASE == 1
	pthread_mutex_lock(&m);
#endif
	pthread_create(&a, NULL, first, NULL);
	pthread_create(&b, NULL, second, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
#if CASE == 5
	pthread_mutex_destroy(&m);
#endif
	return 0;
}
