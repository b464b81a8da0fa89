// A loop that stores whenever it sees x otherwise than 42, until done is set (GenMC's
// spin-plain+se with an exit). Its iterations that write nothing are dropped, as GenMC's
// SAVer blocks them: after two in a row that go on the thread waits, and an execution in
// which one goes on is not counted (GenMC 0.11: 5 executions under both models).
#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>

atomic_int x;
atomic_int done;

void *setter(void *arg)
{
	while (!atomic_load_explicit(&done, memory_order_relaxed)) {
		if (atomic_load_explicit(&x, memory_order_relaxed) != 42)
			atomic_store_explicit(&x, 42, memory_order_relaxed);
	}
	return NULL;
}

void *writer(void *arg)
{
	x = 1;
	done = 1;
	return NULL;
}

int main()
{
	pthread_t a, b;
	pthread_create(&a, NULL, setter, NULL);
	pthread_create(&b, NULL, writer, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(x == 42 || x == 1);
	return 0;
}
