// Each thread works in its own row of a 16 x 16 table, chosen by its id, which it
// reads through its argument (as GenMC's queue tests give each thread a row of a
// node pool). Every access reaches into the table's 256 cells through that id;
// the ids read are 1 and 2 (or the initial 0, which the static bounds cannot rule
// out), so each access can only reach a few cells.
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

unsigned int idx[4];
int table[16][16];
atomic_int done;

void *work(void *arg)
{
	int t = *((int *) arg);
	table[t][0] = t;
	table[t][1] = table[t][0] + 1;
	table[t][2] = table[t][1] + 1;
	table[t][3] = table[t][2] + 1;
	assert(table[t][3] == t + 3);
	atomic_fetch_add_explicit(&done, 1, memory_order_release);
	return NULL;
}

int main()
{
	pthread_t t1, t2;

	for (int i = 0; i < 4; i++)
		idx[i] = i;
	pthread_create(&t1, NULL, work, &idx[1]);
	pthread_create(&t2, NULL, work, &idx[2]);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	assert(table[1][3] == 4 && table[2][3] == 5);
	return 0;
}
