// A local struct declared with `typeof` of a struct lvalue the parameters name, as GenMC's
// `fine-heap` swaps heap nodes with `SWAP(x, y)` (`typeof(x) SWAP = x; x = y; y = SWAP;`):
// the local is a stack object, copied field by field. GenMC 0.11 (`genmc
// -disable-estimation -rc11`/`-sc`, 28 November 2026): no error, 2 executions under both;
// with -DFAIL the assertion fails.
#include <assert.h>
#include <pthread.h>

#define SWAP(x, y)                      \
	do {                            \
		typeof(x) SWAP = x;     \
		x = y;                  \
		y = SWAP;               \
	} while (0)

struct item {
	int key;
	int value;
	int pad[2];
};

struct table {
	struct item items[2];
	pthread_mutex_t lock;
};

struct table t;

void swap_first(struct table *table)
{
	pthread_mutex_lock(&table->lock);
	SWAP(table->items[0], table->items[1]);
	pthread_mutex_unlock(&table->lock);
}

void *reader(void *arg)
{
	pthread_mutex_lock(&t.lock);
	int key = t.items[0].key;
	int value = t.items[0].value;
	pthread_mutex_unlock(&t.lock);
	assert(value == key * 10);
#ifdef FAIL
	assert(key == 1);
#endif
	return NULL;
}

int main()
{
	pthread_t r;

	t.items[0].key = 1;
	t.items[0].value = 10;
	t.items[1].key = 2;
	t.items[1].value = 20;
	pthread_create(&r, NULL, reader, NULL);
	swap_first(&t);
	pthread_join(r, NULL);
	assert(t.items[0].key == 2 && t.items[1].value == 10);
	return 0;
}
