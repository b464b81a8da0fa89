/* nemos does not read `switch` yet: a located refusal, exit 2. */
#include <pthread.h>

int x;

void *worker(void *arg)
{
	switch ((int)(long)arg) {
	case 0:
		x = 1;
		break;
	default:
		x = 2;
	}
	return NULL;
}

int main()
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	return 0;
}
