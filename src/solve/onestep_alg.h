/* onestep_alg.h -- internal: the hidden algebraic rows of the one-step problem
 * (formulation.md §2, onestep.h). Used by onestep.c only.
 *
 * T is the identity but on its representative rows: row rep[c] of T X is
 * sum_e v[e] X(row[e], :), e in cp[c] .. cp[c+1]-1 (P->alg) (v_c^T X, v_c a
 * left null vector of E). */
#ifndef NSC_ONESTEP_ALG_H
#define NSC_ONESTEP_ALG_H

#include "onestep_int.h"

/* T of P->L->E into P (P->alg). With combinations (nalg > 0): *Et = T E
 * (representative rows dropped: they vanish up to rounding), *At = T A (new,
 * the caller's), P->alg.Bt = P->st.B = T B. Without: *Et = *At = NULL, P unchanged.
 * 0 ok, -1 ENOMEM (*Et, *At NULL; what P holds is freed with P). */
int nsc_alg_setup(nsc_onestep *P, const nsc_sparse *A, nsc_sparse **Et, nsc_sparse **At);
/* Free what nsc_alg_setup gave P->alg. */
void nsc_alg_free(nsc_os_alg *a);
/* T X as a new CSC matrix (nalg = 0: a copy of X). NULL on ENOMEM. */
nsc_sparse *nsc_alg_times(const nsc_onestep *P, const nsc_sparse *X);
/* out[n] = T s[n] (nalg = 0: out = s). */
void nsc_alg_vec(const nsc_onestep *P, const double *s, double *out);

#endif
