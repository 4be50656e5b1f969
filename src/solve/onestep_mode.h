/* onestep_mode.h -- internal: the mode systems of the one-step problem
 * (onestep.h explains the formulation). Used by onestep.c and onestep_map.c only. */
#ifndef NSC_ONESTEP_MODE_H
#define NSC_ONESTEP_MODE_H

#include "onestep_int.h"

/* Relative complementarity tolerance: a pair is violated when l_i < -TOL max|l_Na|
 * (N active) or y_i < -TOL (|e_i| + sum |C_ik z_k| + sum |D_ik l_k|) (inactive; for
 * separable active pairs the same test on -g_i). */
#define NSC_MODE_TOL 1e-11

/* The mode cache's and active-set iteration's work arrays of P (zeroed, P->m
 * set): no mode yet. 0 ok, -1 ENOMEM (what was allocated is freed by
 * nsc_mode_teardown). */
int nsc_mode_init(nsc_onestep *P);
/* Pair kinds, the base pattern Wb and the contributor lists of P (W, B and the
 * LCS set). 0 ok, -1 ENOMEM. */
int nsc_mode_setup(nsc_onestep *P);
/* 1 when nsc_mode_setup would give P what it gave S (S set up, of the same L,
 * W of the same pattern, neither with the hidden algebraic rows' transform,
 * both transient or both static): P can copy it (nsc_mode_setup_like). */
int nsc_mode_like(const nsc_onestep *P, const nsc_onestep *S);
/* nsc_mode_setup of P by copying S's (nsc_mode_like(P, S)): the same arrays,
 * Wb's values from P's W. 0, or -1 on ENOMEM. */
int nsc_mode_setup_like(nsc_onestep *P, const nsc_onestep *S);
/* Free what nsc_mode_init and nsc_mode_setup allocated and every cached mode. */
void nsc_mode_teardown(nsc_onestep *P);
/* After W took new values on its pattern (nsc_onestep_renew): every cached mode
 * dropped, as in a new problem, and Wb's values made from W exactly as
 * nsc_mode_setup's compression sums them (W's entry, plus 0.0 where a separable
 * stamp shares its position; 0.0 where only stamps are). */
void nsc_mode_renew(nsc_onestep *P);
/* The same after a Newton relinearisation (onestep_nl.c), which changes W on
 * the smooth functions' rows only: Wb takes W's values there (pat.hs), and a
 * cached mode not already renewed for a new h recomputes those positions only
 * when next used (NSC_STALE_SMOOTH), then is refactored on its old pivots. */
void nsc_mode_renew_smooth(nsc_onestep *P);

/* Hash of an active set. */
uint64_t nsc_mode_key(const nsc_onestep *P, const char *mask);

/* The mode of active set mask, factored: from the cache, else built in the least
 * recently used slot (same N-active set as that slot: values refilled and
 * refactored in place). NULL on allocation failure; a singular mode is returned
 * with singular = 1. */
nsc_mode *nsc_mode_get(nsc_onestep *P, const char *mask);
/* The same with the key of mask known (nsc_mode_key(P, mask)). */
nsc_mode *nsc_mode_get_key(nsc_onestep *P, const char *mask, uint64_t key);

/* e_i of the step being solved: P->st.e1[i], or e0_i + Se(i,:) w1 (+ ez_i for a
 * pair held at the theta point). */
static inline double nsc_pair_e(const nsc_onestep *P, int i)
{
    if (P->st.e1) return P->st.e1[i];
    double e = P->L->e0[i];
    const nsc_sparse *S = P->pat.SeT;
    for (int k = S->p[i]; k < S->p[i + 1]; k++)
        e += S->x[k] * P->st.w1[S->i[k]]; /* e += Se(i,:) w1 */
    return P->st.kap ? e + P->st.ez[i] : e;
}

/* The right-hand side of mode M into x[n + nan]: [r - sum_{S active} B_j e_j / D_jj; -e_Na]. */
void nsc_mode_rhs(const nsc_onestep *P, const nsc_mode *M, double *x);

/* Solve mode M for P->st.r and the step's e, and check complementarity (NSC_MODE_TOL).
 * Returns 1 when accepted: z1[n], l[m] (clamped >= 0), *res = max violation over
 * the inactive pairs; 0 when rejected; -1 when M is singular. l is overwritten
 * in every case; next (if not NULL) receives the active-set update of M's mask
 * (drop pairs with l < -tol, add pairs with y < -tol). */
int nsc_mode_try(nsc_onestep *P, nsc_mode *M, double *z1, double *l, double *res, char *next);

/* Primal-dual active-set iteration from active set start (at most maxit modes;
 * it stops at a mode among the last NSC_AS_SEEN tried: a cycle).
 * first: the mode of start when known (NULL: looked up). Returns the number of
 * modes tried when one was accepted (z1, l, *res set; P->mc.mask holds it, P->mc.cur
 * its slot), 0 when it met a singular mode, stalled or ran out of iterations
 * (P->mc.mask holds the last mode tried, P->mc.mask2 its update). */
int nsc_active_set(nsc_onestep *P, const char *start, nsc_mode *first, int maxit, double *z1,
                   double *l, double *res);

#endif
