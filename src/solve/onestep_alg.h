/* onestep_alg.h -- internal: the hidden algebraic rows of the one-step problem
 * (formulation.md §2, onestep.h). Used by onestep.c only.
 *
 * T is the identity but on its representative rows: row alg_rep[c] of T X is
 * sum_e alg_v[e] X(alg_row[e], :), e in alg_cp[c] .. alg_cp[c+1]-1 (v_c^T X, v_c a
 * left null vector of E). */
#ifndef NSC_ONESTEP_ALG_H
#define NSC_ONESTEP_ALG_H

#include "onestep_int.h"

/* T of P->L->E into P (nalg, alg_*). With combinations (nalg > 0): *Et = T E
 * (representative rows dropped: they vanish up to rounding), *At = T A (new,
 * the caller's), P->Bt = P->B = T B. Without: *Et = *At = NULL, P unchanged.
 * 0 ok, -1 ENOMEM (*Et, *At NULL; what P holds is freed with P). */
int nsc_alg_setup(nsc_onestep *P, const nsc_sparse *A, nsc_sparse **Et, nsc_sparse **At);
/* T X as a new CSC matrix (nalg = 0: a copy of X). NULL on ENOMEM. */
nsc_sparse *nsc_alg_times(const nsc_onestep *P, const nsc_sparse *X);
/* out[n] = T s[n] (nalg = 0: out = s). */
void nsc_alg_vec(const nsc_onestep *P, const double *s, double *out);

#endif
