/* A Linux list.h-style list walked with `list_for_each_entry`, whose `container_of` is a
 * GNU statement expression declaring a `__typeof__` pointer, and whose step names
 * `typeof(*pos)`: a writer links two nodes into a list under a mutex, a reader walks it
 * under the same mutex and sums the keys it finds: nothing (before the writer) or 1 + 2.
 * GenMC 0.11 (`-rc11`/`-sc -disable-estimation`): no error, 2 executions under both. */
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

#define container_of(ptr, type, member) ({				\
	const __typeof__( ((type *)0)->member ) *__mptr = (ptr);	\
	(type *)( (char *)__mptr - offsetof(type,member) );})
#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(ptr, type, member) list_entry((ptr)->next, type, member)
#define list_next_entry(pos, member) \
	list_entry((pos)->member.next, typeof(*(pos)), member)
#define list_for_each_entry(pos, head, member)			\
	for (pos = list_first_entry(head, typeof(*pos), member);	\
	     &pos->member != (head);					\
	     pos = list_next_entry(pos, member))

struct list_head {
	struct list_head *next;
};

struct node {
	int key;
	struct list_head list;
};

struct list_head head;
struct node a, b;
pthread_mutex_t lock;

void *writer(void *unused)
{
	a.key = 1;
	b.key = 2;
	pthread_mutex_lock(&lock);
	b.list.next = &head;
	a.list.next = &b.list;
	head.next = &a.list;
	pthread_mutex_unlock(&lock);
	return NULL;
}

void *reader(void *unused)
{
	struct node *curr;
	int sum = 0;
	pthread_mutex_lock(&lock);
	list_for_each_entry(curr, &head, list)
		sum += curr->key;
	pthread_mutex_unlock(&lock);
	assert(sum == 0 || sum == 3);
	return NULL;
}

int main()
{
	pthread_t t1, t2;

	head.next = &head;
	pthread_create(&t1, NULL, writer, NULL);
	pthread_create(&t2, NULL, reader, NULL);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	return 0;
}
