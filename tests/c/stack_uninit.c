/* A stack object read before anything is written to it reads uninitialised memory, as
   GenMC says of an alloca (any dynamic address). `set` writes through the pointer only
   when asked: the first read is initialised, the second is not. One execution. */
void set(int *p, int v, int really)
{
	if (really)
		*p = v;
}

int main(void)
{
	int a, b;
	set(&a, 1, 1);
	set(&b, 2, 0);
	int r = a + b;
	return 0;
}
