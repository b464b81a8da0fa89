#include <pthread.h>
#include "helper.h"

int main()
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	return 0;
}
