/* A `case` label inside a nested statement of its `switch` (Duff's device): a jump into
 * the middle of a loop, which nemos's `if` chains cannot write; a located refusal, exit 2. */
#include <pthread.h>

int x;

void *worker(void *arg)
{
	int n = (int)(long)arg;

	switch (n % 2) {
	case 0:
		do {
			x++;
	case 1:
			x++;
		} while (--n > 0);
	}
	return NULL;
}

int main()
{
	pthread_t t;

	pthread_create(&t, NULL, worker, (void *)3);
	return 0;
}
