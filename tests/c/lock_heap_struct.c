/* A mutex inside a heap object reached through a pointer. GenMC 0.11: no error, 2
   executions. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

struct account {
	pthread_mutex_t m;
	int balance;
};

struct account *acc;

void *deposit(void *arg)
{
	pthread_mutex_lock(&acc->m);
	acc->balance = acc->balance + 1;
	pthread_mutex_unlock(&acc->m);
	return NULL;
}

int main()
{
	pthread_t t[2];
	acc = malloc(sizeof(struct account));
	pthread_mutex_init(&acc->m, NULL);
	acc->balance = 0;
	pthread_create(&t[0], NULL, deposit, NULL);
	pthread_create(&t[1], NULL, deposit, NULL);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	assert(acc->balance == 2);
	return 0;
}
