// A checker thread spins on a critical section (GenMC's saver/spin-lock, smaller): `lock;
// if (every cell written) { unlock; break; } unlock;`, while the workers write their cells
// under the same mutex. A failed iteration takes the mutex, reads and releases it, and so
// leaves memory as it found it: the loop is reduced as a spin loop (docs/unrolling.md,
// "Spin loops"), and counted as GenMC counts it (its failed iterations block).
//   (none)       no error; GenMC 0.11: 2 executions (the two orders of the workers'
//                sections), under rc11 and sc alike
//   -DLATE       the checker reads, in a section after its loop, what worker 1 writes in a
//                second section: it may not be there yet, and the assertion fails
//   -DRACE       worker 1 writes `b` after its section without the mutex, and the checker
//                reads it inside each of its sections: a data race
//   -DWORKERS=1  no worker writes a[1]: the checker spins for good (a liveness violation
//                with -check-liveness; no complete execution)
//   -DHOLD       the checker leaves its loop holding the mutex (`break` before the unlock):
//                the iteration that exits does not close its section, so the loop is not
//                reduced and stays bounded (executions cut by the bound)
//   -DINVALID    worker 0 unlocks the mutex once more, not holding it: an unlock could then
//                fall inside a section the checker's failed iteration holds, so the loop is
//                not reduced either (GenMC: "Invalid unlock() operation")
#include <assert.h>
#include <pthread.h>

#ifndef WORKERS
#define WORKERS 2
#endif

#define DEF (-1)

pthread_mutex_t l;
int a[2] = { DEF, DEF };
int late;
int b;

static int all_written(void)
{
	for (int i = 0; i < 2; i++)
		if (a[i] == DEF)
			return 0;
	return 1;
}

void *checker(void *arg)
{
	while (1) {
		pthread_mutex_lock(&l);
#ifdef RACE
		int seen_b = b;
#endif
#ifdef HOLD
		if (all_written())
			break;
#else
		if (all_written()) {
			pthread_mutex_unlock(&l);
			break;
		}
#endif
		pthread_mutex_unlock(&l);
	}
#ifdef HOLD
	pthread_mutex_unlock(&l);
#endif
#ifdef LATE
	pthread_mutex_lock(&l);
	int seen = late;
	pthread_mutex_unlock(&l);
	assert(seen == 1);
#endif
	return NULL;
}

void *worker(void *arg)
{
	long i = (long) arg;
	pthread_mutex_lock(&l);
	a[i] = i + 1;
	pthread_mutex_unlock(&l);
#ifdef INVALID
	if (i == 0)
		pthread_mutex_unlock(&l);
#endif
	if (i == 1) {
#ifdef LATE
		pthread_mutex_lock(&l);
		late = 1;
		pthread_mutex_unlock(&l);
#endif
#ifdef RACE
		b = 1;
#endif
	}
	return NULL;
}

int main()
{
	pthread_t c, w[WORKERS];
	pthread_create(&c, NULL, checker, NULL);
	for (long i = 0; i < WORKERS; i++)
		pthread_create(&w[i], NULL, worker, (void *) i);
	return 0;
}
