// Inline assembly with an empty text is a compiler fence, which GenMC 0.11 runs as
// nothing ("Plain compiler fence", its Interpreter::visitInlineAsm): message passing
// with release/acquire, fences of each form written in both threads.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#define barrier() asm("")

int data;
atomic_int flag;

void *writer(void *arg)
{
	data = 1;
	barrier();
	atomic_store_explicit(&flag, 1, memory_order_release);
	__asm__ __volatile__("" ::: "memory");
	return NULL;
}

int main()
{
	pthread_t t;
	pthread_create(&t, NULL, writer, NULL);
	asm volatile(" ");
	if (atomic_load_explicit(&flag, memory_order_acquire)) {
		__asm__("\n");
		assert(data == 1);
	}
	return 0;
}
