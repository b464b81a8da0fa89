/* A sorted list built by main before it starts its threads, then searched and extended
 * under one mutex by two threads: every link is read through a pointer the reading thread
 * (or main, before the create) stored, which store forwarding keeps exact (see
 * `events/unroll/forward.rs`). */
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

struct node {
	int key;
	struct node *next;
};

struct node pool[6];
int used;
struct node *head;
pthread_mutex_t lock;

static struct node *fresh(int key)
{
	struct node *n = &pool[used];
	used = used + 1;
	n->key = key;
	n->next = NULL;
	return n;
}

/* Insert `key` in order; 0 if it was there. */
static int insert(int key)
{
	struct node **link = &head;
	while (*link != NULL && (*link)->key < key)
		link = &(*link)->next;
	if (*link != NULL && (*link)->key == key)
		return 0;
	struct node *n = fresh(key);
	n->next = *link;
	*link = n;
	return 1;
}

static int count(void)
{
	int c = 0;
	for (struct node *n = head; n != NULL; n = n->next)
		c++;
	return c;
}

void *adder(void *arg)
{
	pthread_mutex_lock(&lock);
	int before = count();
	int added = insert(5);
	assert(count() == before + added);
	pthread_mutex_unlock(&lock);
	return NULL;
}

void *seeker(void *arg)
{
	pthread_mutex_lock(&lock);
	int found = 0;
	for (struct node *n = head; n != NULL; n = n->next)
		if (n->key == 4)
			found = 1;
	assert(found);
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main()
{
	pthread_t a, s;
	insert(6);
	insert(2);
	insert(4);
	assert(count() == 3);
	pthread_create(&a, NULL, adder, NULL);
	pthread_create(&s, NULL, seeker, NULL);
	pthread_join(a, NULL);
	pthread_join(s, NULL);
	assert(count() == 4 && used == 4);
	return 0;
}
