/* A thread publishes the address of its local, then ends with `pthread_exit`: the local is
 * freed there (GenMC frees a thread's stack at its exit), so `main`, which joins the thread
 * and then reads through the pointer, reads freed memory (GenMC 0.11: "Attempt to access
 * freed memory", under rc11 and sc). With -DRETURN the thread returns instead: the same. */
#include <pthread.h>

int *shared;

void *publish(void *unused)
{
	int local = 1;
	shared = &local;
#ifdef RETURN
	return NULL;
#else
	pthread_exit(NULL);
#endif
}

int main()
{
	pthread_t t;

	pthread_create(&t, NULL, publish, NULL);
	pthread_join(t, NULL);
	int r = *shared;
	return r;
}
