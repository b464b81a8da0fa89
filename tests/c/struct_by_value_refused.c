// A struct passed by value is refused at the parameter (its copy is not laid out).
#include <pthread.h>

struct pair {
	int a;
	int b;
};

int sum(struct pair p)
{
	return p.a + p.b;
}

int main()
{
	struct pair w = { 1, 2 };
	return sum(w) - 3;
}
