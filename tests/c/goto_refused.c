/* A `break` between a forward `goto` and its label that leaves the loop around both:
 * the wrapper loop of the `goto` would take the `break`, so it is refused at the `break`. */
#include <stdatomic.h>
#include <pthread.h>

atomic_int x;

int main()
{
	while (1) {
		if (atomic_load(&x) == 1)
			goto next;
		if (atomic_load(&x) == 2)
			break;
next:
		atomic_store(&x, 3);
	}
	return 0;
}
