/* nemos's <genmc.h>: GenMC's verification calls, as nemos reads them. */
#ifndef NEMOS_GENMC_H
#define NEMOS_GENMC_H

void __VERIFIER_assume(int condition);
int __VERIFIER_nondet_int(void);
unsigned __VERIFIER_nondet_uint(void);
_Bool __VERIFIER_nondet_bool(void);

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
