/* main reads back what it stored before it starts a thread, and the thread reads what main
 * stored before creating it. Coherence forces both reads (no error, 1 execution under rc11
 * and sc: GenMC 0.11); with coherence skipped (`--skip coherence` under rc11, `--skip sc`
 * under sc) either may read the initial 0, so store forwarding, which assumes coherence,
 * must be off there (`analysis::query::forwards_stores`). */
#include <assert.h>
#include <pthread.h>

int x;
int y;

void *reader(void *arg)
{
	int s = y;
	assert(s == 2);
	return NULL;
}

int main()
{
	pthread_t h;
	x = 1;
	int r = x;
	y = 2;
	pthread_create(&h, NULL, reader, NULL);
	assert(r == 1);
	return 0;
}
