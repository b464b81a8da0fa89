/* A function's stack object lives until the function returns (GenMC frees a frame's
   allocas there): the pointer `leak` returns is dangling, and the write through it is
   an access to freed memory. One execution. */
int *leak(void)
{
	int x = 1;
	int *p = &x;
	*p = 2;
	return p;
}

int main(void)
{
	int *q = leak();
	*q = 3;
	return 0;
}
