/* Initializers and local arrays nemos does not read: refused at the construct. `v`'s
   string is for `a[0]`, an int (brace elision): not C (C11 6.7.9p11, 6.5.16.1p1), though
   clang accepts it with -Wno-error=int-conversion (GenMC's memset3); `w`'s is for `p[0]`, a
   pointer: C, but nemos has no address for a string literal. */
struct s {
	int a[2];
	int b;
};

struct t {
	char *p[2];
};

int main()
{
	int (*m)[2];
	struct s v = { .a = "x", .b = 1 };
	struct t w = { .p = "y" };

	m = 0;
	return 0;
}
