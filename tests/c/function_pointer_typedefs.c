// Function pointers through a typedef (`op_t g = dec;`, `op_t h; h = ops[0];`), a global
// array of them initialised with function names, and a global initialised with `&inc`
// (GenMC 0.11: no error, 15 executions under both rc11 and sc; nemos stopped at the
// array's initialiser, "expected a constant integer expression", and read `g()` as a
// call of an unknown function).
#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>
atomic_int x;
void inc(void) { atomic_fetch_add(&x, 1); }
void dec(void) { atomic_fetch_sub(&x, 1); }
typedef void (*op_t)(void);
op_t ops[2] = { inc, dec };
void (*first)(void) = &inc;
op_t chosen;
void *worker(void *arg) {
  op_t g = dec;
  g();
  op_t h;
  h = ops[0];
  h();
  return NULL;
}
int main() {
  pthread_t t;
  chosen = dec;
  pthread_create(&t, NULL, worker, NULL);
  first();
  int i = x;
  ops[i > 0]();
  chosen();
  pthread_join(t, NULL);
  assert((i > 0) == (x == -1));
  assert(x == -1 || x == 1);
  return 0;
}
