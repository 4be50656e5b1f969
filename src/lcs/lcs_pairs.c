/* lcs_pairs.c -- the pairs' conditions at a solution: y = C z + D l + e of
 * every pair, and the pair that breaks 0 <= y, 0 <= l, y l = 0 the most
 * (lcs.h nsc_lcs_pairs_y, nsc_lcs_worst_pair, nsc_lcs_check_pairs). One
 * computation for the operating point's check (analysis/opcheck.c), the
 * transients' step check and the adaptive stepper's events (stepper_adapt.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lcs.h"

void nsc_lcs_pairs_y(const nsc_lcs *L, const double *z, const double *l, const double *w,
                     const double *e, double *y)
{
    memcpy(y, e ? e : L->e0, sizeof(double) * (size_t)L->m); /* y = e, or e0 */
    nsc_sp_gaxpy(L->C, z, y);                                /* y += C z */
    nsc_sp_gaxpy(L->D, l, y);                                /* y += D l */
    if (!e && w) nsc_sp_gaxpy(L->Se, w, y);                  /* y += Se w */
}

/* y += |A| |x| (CSC): the size of the terms of A x, row by row. */
static void abs_gaxpy(const nsc_sparse *A, const double *x, double *y)
{
    for (int k = 0; k < A->n; k++)
        for (int p = A->p[k]; p < A->p[k + 1]; p++) y[A->i[p]] += fabs(A->x[p] * x[k]);
}

int nsc_lcs_worst_pair(const nsc_lcs *L, const double *z, const double *l, const double *w,
                       const double *e, double tol, double atol, double *y, double *sc)
{
    int m = L->m, bad = -1;
    double lmax = 0.0, worst = 1.0;
    nsc_lcs_pairs_y(L, z, l, w, e, y);
    for (int j = 0; j < m; j++) {
        sc[j] = fabs(e ? e[j] : L->e0[j]);
        lmax = fmax(lmax, l[j]);
    }
    abs_gaxpy(L->C, z, sc); /* sc = |e| + |C| |z| + |D| |l| (+ |Se| |w|) */
    abs_gaxpy(L->D, l, sc);
    if (!e && w) abs_gaxpy(L->Se, w, sc);
    double ltol = tol * lmax + 1e-30; /* l above it: a conducting pair */
    for (int j = 0; j < m; j++) {
        double yt = tol * sc[j] + atol;
        double v = fmax(-y[j], fmin(y[j], l[j] > ltol ? y[j] : 0.0))
                   / yt;     /* y < 0, or y > 0 with l > 0 */
        if (!(v <= worst)) { /* NaN: bad too */
            worst = v;
            bad = j;
        }
    }
    return bad;
}

nsc_status nsc_lcs_check_pairs(const nsc_lcs *L, const nsc_circuit *c, const double *z,
                               const double *l, const double *w, double t, nsc_report *r)
{
    if (L->m == 0) return NSC_OK;
    double *y = malloc(2 * (size_t)L->m * sizeof(double));
    if (!y) return nsc_oom(r);
    int k = 0; /* the largest unknown */
    for (int i = 1; i < L->n; i++) k = fabs(z[i]) > fabs(z[k]) ? i : k;
    double zmax = L->n ? fabs(z[k]) : 0.0;
    int j = nsc_lcs_worst_pair(L, z, l, w, NULL, NSC_PAIRCHECK_TOL,
                               NSC_PAIRCHECK_TOL * zmax + 1e-12, y, y + L->m);
    nsc_status st = NSC_OK;
    if (j >= 0) {
        const nsc_element *el = &c->el[L->pair_el[j]];
        st = nsc_err(
            r, NSC_ESIM, &el->loc,
            "time %.9g s: the step's solution breaks the complementarity condition "
            "of %s's pair %s (y = %.6g with lambda = %.6g; y >= 0, lambda >= 0, one of them 0; "
            "largest unknown %s = %.6g): the one-step problem was not solved",
            t, el->name, L->pair_name[j], y[j], l[j], L->n ? L->zname[k] : "-", L->n ? z[k] : 0.0);
    }
    free(y);
    return st;
}
