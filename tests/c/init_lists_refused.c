/* Initializers and local arrays nemos does not read: refused at the construct. */
struct s {
	int a[2];
	int b;
};

int main()
{
	int (*m)[2];
	struct s v = { .a = "x", .b = 1 };

	m = 0;
	return 0;
}
