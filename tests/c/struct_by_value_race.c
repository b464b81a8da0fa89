// The copy of a struct passed by value reads the argument's fields plainly, so a thread
// writing one of them at the same time races with the call. GenMC 0.11 (28 November 2026):
// a non-atomic race under -rc11 and -sc (`pad`: as in struct_by_value.c).
#include <pthread.h>

struct pair {
	int a;
	int b;
	int pad[4];
};

struct pair g = { 1, 2 };

int sum(struct pair p)
{
	return p.a + p.b;
}

void *writer(void *arg)
{
	g.b = 5;
	return NULL;
}

int main()
{
	pthread_t t;

	pthread_create(&t, NULL, writer, NULL);
	int s = sum(g);
	pthread_join(t, NULL);
	return s;
}
