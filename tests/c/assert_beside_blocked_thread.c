// An assertion that fails beside a thread that then spins for good: GenMC 0.11 reports the
// safety violation (0 complete executions, 1 blocked) under rc11 and sc, with or without
// `-check-liveness`. With `--no-liveness` nemos left the blocked executions out of the
// assertions too and said "no defect".
#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>
atomic_int x;
void *t1(void *a) { while (atomic_load(&x) == 0); return NULL; }
void *t2(void *a) { assert(atomic_load(&x) == 1); return NULL; }
int main() {
  pthread_t a, b;
  pthread_create(&a, NULL, t1, NULL);
  pthread_create(&b, NULL, t2, NULL);
  return 0;
}
