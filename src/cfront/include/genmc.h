/* nemos's <genmc.h>: GenMC's verification calls, as nemos reads them. */
#ifndef NEMOS_GENMC_H
#define NEMOS_GENMC_H

void __VERIFIER_assume(int condition);
int __VERIFIER_nondet_int(void);
unsigned __VERIFIER_nondet_uint(void);
_Bool __VERIFIER_nondet_bool(void);

/* Hazard pointers and GenMC's CAS annotations: declared so that programs using them read;
 * the front end refuses the calls by name until it gives them a meaning. */
typedef struct __VERIFIER_hazptr __VERIFIER_hp_t;
__VERIFIER_hp_t *__VERIFIER_hp_alloc(void);
void *__VERIFIER_hp_protect(__VERIFIER_hp_t *hp, void *location);
void __VERIFIER_hp_free(__VERIFIER_hp_t *hp);
void __VERIFIER_hp_retire(void *block);
_Bool __VERIFIER_final_CAS(_Bool cas);
_Bool __VERIFIER_helping_CAS(_Bool cas);
_Bool __VERIFIER_helped_CAS(_Bool cas);
_Bool __VERIFIER_optional(_Bool condition);

#endif
