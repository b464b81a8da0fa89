/* Initializer lists of locals and of a global array, as C gives them meaning (C11 6.7.9):
 * positional items in order, designators (`.f`, `[i]`, GNU's `[a ... b]`, nested), brace
 * elision, an array of arrays' rows, a string literal for a `char` array, and zero for every cell not named; a
 * struct copied whole. Every assertion holds, in the one execution (GenMC 0.11 agrees:
 * no error, 1 execution under sc and rc11). With -DCASE=N one assertion that does not
 * hold is added: it fails in every execution. */
#include <assert.h>
#include <pthread.h>

struct pair {
	int x;
	int y;
};

struct box {
	int a[4];
	int b;
	struct pair c;
	char tag;
};

int ga[6] = { [1 ... 3] = 4, [5] = 9 };
struct pair g;

int main()
{
	struct box w = { .a = { [0 ... 2] = 42 }, .b = 7, .c.y = 3 };
	struct box z = { 1, 2, 3, 4, 5, 6 };
	struct pair ps[3] = { 1, 2, { 3 }, [2].y = 8 };
	int n[5] = { 'x', 'y' };
	int m[2][3] = { { 1, 2 }, { 4 } };
	char s[6] = "ab\0c";
	struct pair q = { .y = 2, .x = 1 };
	struct pair r = q;

	r.x = 5;
	g = r;

	assert(w.a[0] == 42 && w.a[2] == 42 && w.a[3] == 0);
	assert(w.b == 7 && w.c.x == 0 && w.c.y == 3 && w.tag == 0);
	assert(z.a[3] == 4 && z.b == 5 && z.c.x == 6 && z.c.y == 0);
	assert(ps[0].x == 1 && ps[0].y == 2 && ps[1].x == 3 && ps[1].y == 0);
	assert(ps[2].x == 0 && ps[2].y == 8);
	assert(n[0] == 'x' && n[1] == 'y' && n[4] == 0);
	assert(m[0][1] == 2 && m[0][2] == 0 && m[1][0] == 4 && m[1][2] == 0);
	assert(s[0] == 'a' && s[2] == 0 && s[3] == 'c' && s[5] == 0);
	assert(q.x == 1 && r.y == 2 && g.x == 5 && g.y == 2);
	assert(ga[0] == 0 && ga[1] == 4 && ga[3] == 4 && ga[4] == 0 && ga[5] == 9);
#if CASE == 1
	assert(w.a[3] == 42);
#elif CASE == 2
	assert(ps[1].y == 8);
#elif CASE == 3
	assert(q.x == 5);
#endif
	return 0;
}
