/* lcs_smooth.c -- the linearisation of an LCS's smooth functions (lcs.h
 * nsc_smooth, nsc_lcs_smooth_at): the one place that evaluates them. */
#include <math.h>
#include <stdlib.h>

#include "lcs.h"

/* S at z: A[row][in[q]] = J_q, s0[row] = f - J z. work: 2 nin + (depth + 1)(nin + 1). */
static int smooth_at(const nsc_lcs *L, const nsc_smooth *S, const double *z, double *work)
{
    double *x = work, *g = x + S->nin, *st = g + S->nin, *dst = st + S->depth + 1;
    for (int q = 0; q < S->nin; q++) x[q] = z[S->in[q]];
    double f = S->fn ? S->fn(S->par, x, g)
                     : nsc_xrun_grad(S->code, S->ncode, x, S->nin, st, dst, g),
           c = f;
    if (!isfinite(f)) return -1;
    for (int q = 0; q < S->nin; q++) {
        int k = S->apos[q];
        if (!isfinite(g[q]) || k < 0) return -1;
        c -= g[q] * x[q]; /* c = f(z) - J z */
        L->A->x[k] = g[q];
    }
    L->s0[S->row] = c;
    return 0;
}

int nsc_lcs_smooth_at(const nsc_lcs *L, const double *z)
{
    size_t need = 0;
    for (int k = 0; k < L->nsm; k++) {
        size_t w = (size_t)(2 * L->sm[k].nin + (L->sm[k].depth + 1) * (L->sm[k].nin + 1));
        if (w > need) need = w;
    }
    double *work = malloc(sizeof(double) * (need + 1));
    int bad = !work;
    for (int k = 0; k < L->nsm && !bad; k++) bad = smooth_at(L, &L->sm[k], z, work);
    free(work);
    return bad ? -1 : 0;
}
