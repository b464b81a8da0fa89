/* nemos's <genmc.h>: GenMC's verification calls, as nemos reads them. */
#ifndef NEMOS_GENMC_H
#define NEMOS_GENMC_H

void __VERIFIER_assume(int condition);
int __VERIFIER_nondet_int(void);
unsigned __VERIFIER_nondet_uint(void);
_Bool __VERIFIER_nondet_bool(void);

/* GenMC's thread calls: a handle is a `pthread_t` (a macro, so that the front end follows
 * handles of either name alike). The front end reads a spawn whose value is stored or
 * dropped, and a join as a statement, as `pthread_create`/`pthread_join`
 * (`cfront/spawn.rs`); the symmetric forms' hint is GenMC's own, not needed by nemos. */
#include <pthread.h>
#define __VERIFIER_thread_t pthread_t
__VERIFIER_thread_t __VERIFIER_spawn(void *(*start)(void *), void *arg);
__VERIFIER_thread_t __VERIFIER_spawn_symmetric(void *(*start)(void *), void *arg,
                                               __VERIFIER_thread_t th);
void *__VERIFIER_join(__VERIFIER_thread_t th);
void __VERIFIER_join_symmetric(__VERIFIER_thread_t th);

/* Hazard pointers: declared so that programs using them read; the front end refuses the
 * calls by name until it gives them a meaning. */
typedef struct __VERIFIER_hazptr __VERIFIER_hp_t;
__VERIFIER_hp_t *__VERIFIER_hp_alloc(void);
void *__VERIFIER_hp_protect(__VERIFIER_hp_t *hp, void *location);
void __VERIFIER_hp_free(__VERIFIER_hp_t *hp);
void __VERIFIER_hp_retire(void *block);

/* GenMC's annotations, defined plainly. GenMC's own are GNU statement expressions that
 * mark the CAS for its exploration (`-helper`); the value and the effect are the CAS's. */
#define __VERIFIER_final_CAS(cas) (cas)
#define __VERIFIER_helping_CAS(cas) do { cas; } while (0)
#define __VERIFIER_helped_CAS(cas) do { cas; } while (0)

/* GenMC runs an optional block only in executions it then blocks (`__VERIFIER_assume(0)`
 * follows the block), which are not complete executions: the block is left out. An
 * expression, not `do { } while (0)`, so that a spin loop around it stays one. */
#define __VERIFIER_optional(block) ((void)0)

#endif
