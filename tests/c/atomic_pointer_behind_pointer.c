// An atomic pointer behind a pointer: `*pp` with `int *_Atomic *pp`, and a parameter
// `_Atomic(int *) *r`, are atomic accesses of the pointer (GenMC 0.11: no error, 4
// executions under both rc11 and sc).
#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>
int a, b;
int *_Atomic p = &a;
_Atomic(int *) q = &a;
int *_Atomic *pp = &p;
void *t1(void *arg) { *pp = &b; q = &b; return NULL; }
void set(_Atomic(int *) *r, int *v) { *r = v; }
int main() {
  pthread_t t;
  pthread_create(&t, NULL, t1, NULL);
  int *s = *pp;
  set(&q, &a);
  pthread_join(t, NULL);
  assert(s == &a || s == &b);
  assert(p == &b);
  return 0;
}
