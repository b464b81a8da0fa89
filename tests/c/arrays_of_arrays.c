/* An array of arrays, laid out row after row: each thread fills its row; a row is the
 * address of its first element. */
#include <assert.h>
#include <pthread.h>

int grid[2][3];

void *fill(void *arg)
{
	int row = (int)(long)arg;

	for (int col = 0; col < 3; col++)
		grid[row][col] = row * 3 + col + 1;
	return NULL;
}

int sum_row(int m[2][3], int row)
{
	return m[row][0] + m[row][1] + m[row][2];
}

int main()
{
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, fill, (void *)(long)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	int *second = grid[1];
	assert(second[2] == 6 && grid[0][2] == 3);
	assert(sum_row(grid, 1) == 15);
	return 0;
}
