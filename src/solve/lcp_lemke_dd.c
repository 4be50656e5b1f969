/* lcp_lemke_dd.c -- Lemke's method with a double-double tableau (lcp_lemke_dd.h).
 *
 * Why: the one-step problem of a 555 monostable at t = 0 (58 pairs; M holds 26
 * gmin entries of 1e-12 beside entries up to 3e4; tests/solve/test_lcp.c
 * lcp/monostable555_gmin_latch_vs_exact; also corpus xspice_monostable) needs pivots whose true value is of
 * order 1e-12 while the same tableau entry sums terms of order 1e4: in double
 * that entry is computed as 0 (pivot 24 of the exact path) and no tolerance
 * recovers it; the double tableau ends on a wrong basis (residual 0.75).
 * Replayed in 53-, 64- and 80-bit arithmetic with these rules the method still
 * goes wrong; with 106 bits it ends on a solution (residual 3e-12) with both
 * tolerances at 1e-29 or 1e-30, not at 1e-28 (a tie of 1.7e16 * 1e-28). So
 * lcp_lemke.c runs this when its own answer fails its residual check.
 *
 * Arithmetic: a value is hi + lo with |lo| <= ulp(hi)/2 (Dekker; Knuth's
 * two-sum, Dekker's split product: no fused multiply-add is needed, and the
 * build's -std=c11 keeps the compiler from contracting a*b+c, so every machine
 * computes the same bits). Relative rounding 2^-104 per operation.
 *
 * Rules (as lcp_lemke.c, with PIV_EPS, TIE_EPS scaled to this precision):
 * candidates are rows with d_i = T(i,v) > DD_PIV_EPS (|B^{-1}(i,:)| |a(v)|)_i;
 * theta = min x_i/d_i; rows with x_i/d_i <= theta + DD_TIE_EPS
 * (|B^{-1}(i,:)| |q|)_i / d_i tie, going to z0's row, else to the
 * lexicographic minimum of B^{-1}(i,:)/d_i. The scales are sums of the hi parts
 * in double (a tolerance needs no more). */
#include <math.h>
#include <stdlib.h>
#include "lcp_lemke_dd.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF /* GCC: off under -std=c11 */
#endif

#define DD_PIV_EPS 1e-30
#define DD_TIE_EPS 1e-30
#define DD_MAXITER(m) (100 * ((m) + 1))

typedef struct {
    double hi, lo;
} dd;

static dd dd_fast2(double a, double b) /* |a| >= |b|: a + b exactly */
{
    double s = a + b;
    return (dd){ s, b - (s - a) };
}

static dd dd_two_sum(double a, double b) /* a + b exactly */
{
    double s = a + b, bb = s - a;
    return (dd){ s, (a - (s - bb)) + (b - bb) };
}

static dd dd_two_prod(double a, double b) /* a b exactly (Dekker) */
{
    const double sp = 134217729.0; /* 2^27 + 1 */
    double p = a * b, t = sp * a, ah = t - (t - a), al = a - ah;
    t = sp * b;
    double bh = t - (t - b), bl = b - bh;
    return (dd){ p, ((ah * bh - p) + ah * bl + al * bh) + al * bl };
}

static dd dd_add(dd a, dd b)
{
    dd s = dd_two_sum(a.hi, b.hi), t = dd_two_sum(a.lo, b.lo);
    s = dd_fast2(s.hi, s.lo + t.hi);
    return dd_fast2(s.hi, s.lo + t.lo);
}

static dd dd_neg(dd a)
{
    return (dd){ -a.hi, -a.lo };
}

static dd dd_mul(dd a, dd b)
{
    dd p = dd_two_prod(a.hi, b.hi);
    return dd_fast2(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi));
}

static dd dd_div(dd a, dd b) /* two correction steps */
{
    double q1 = a.hi / b.hi;
    dd r = dd_add(a, dd_neg(dd_mul(b, (dd){ q1, 0 })));
    double q2 = r.hi / b.hi;
    r = dd_add(r, dd_neg(dd_mul(b, (dd){ q2, 0 })));
    return dd_add(dd_fast2(q1, q2), (dd){ r.hi / b.hi, 0 });
}

static int dd_lt(dd a, dd b)
{
    return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}

static int dd_pos(dd a)
{
    return a.hi > 0 || (a.hi == 0 && a.lo > 0);
}

typedef struct {
    int m;
    size_t nc; /* row width 2m+2: B^{-1}, -B^{-1}M, -B^{-1}e, x */
    dd *T, *u, *dc;
    int *basis;
} dd_tab;

/* Variable v enters at row r (column v becomes e_r exactly). */
static void dd_pivot(dd_tab *t, int r, int v)
{
    dd *Tr = t->T + (size_t)r * t->nc, piv = Tr[v];
    for (size_t k = 0; k < t->nc; k++) t->u[k] = dd_div(Tr[k], piv);
    t->u[v] = (dd){ 1, 0 };
    for (size_t k = 0; k < t->nc; k++) Tr[k] = t->u[k];
    for (int i = 0; i < t->m; i++) {
        dd *Ti = t->T + (size_t)i * t->nc, f = Ti[v];
        if (i == r || (f.hi == 0 && f.lo == 0)) continue;
        for (size_t k = 0; k < t->nc; k++) Ti[k] = dd_add(Ti[k], dd_neg(dd_mul(f, t->u[k])));
        Ti[v] = (dd){ 0, 0 };
    }
    t->basis[r] = v;
}

/* Row a / da before row b / db in the lexicographic order of their B^{-1} parts. */
static int dd_lex_less(int m, const dd *Ta, dd da, const dd *Tb, dd db)
{
    for (int k = 0; k < m; k++) {
        dd a = dd_div(Ta[k], da), b = dd_div(Tb[k], db);
        if (a.hi != b.hi || a.lo != b.lo) return dd_lt(a, b);
    }
    return 0;
}

/* (|B^{-1}(i,:)| |y|)_i from the hi parts; y = a(v) (v >= 0) or q (v < 0). */
static double dd_scale(const nsc_lcp *p, const dd *Ti, int v)
{
    int m = p->m;
    double s = 0;
    if (v >= 0 && v < m) return fabs(Ti[v].hi);
    for (int k = 0; k < m; k++) {
        double a = v < 0 ? p->q[k] : v == 2 * m ? 1 : p->M[k + (size_t)(v - m) * m];
        s += fabs(Ti[k].hi * a);
    }
    return s;
}

static dd dd_ratio_of(const dd *Ti, size_t nc, dd d)
{
    dd x = Ti[nc - 1];
    return dd_pos(x) ? dd_div(x, d) : (dd){ 0, 0 };
}

/* Leaving row when v enters, -1 for a ray (the rules in the file's comment). */
static int dd_ratio(const nsc_lcp *p, dd_tab *t, int v)
{
    int m = p->m, best = -1, any = 0;
    dd thmin = { INFINITY, 0 }, db = { 0, 0 };
    for (int i = 0; i < m; i++) {
        const dd *Ti = t->T + (size_t)i * t->nc;
        int c = dd_pos(Ti[v]) && Ti[v].hi > DD_PIV_EPS * dd_scale(p, Ti, v);
        t->dc[i] = c ? Ti[v] : (dd){ 0, 0 };
        if (!c) continue;
        dd th = dd_ratio_of(Ti, t->nc, Ti[v]);
        if (!any || dd_lt(th, thmin)) thmin = th;
        any = 1;
    }
    for (int i = 0; i < m && any; i++) {
        const dd *Ti = t->T + (size_t)i * t->nc;
        dd d = t->dc[i];
        if (!dd_pos(d)) continue;
        dd gap = dd_add(dd_ratio_of(Ti, t->nc, d), dd_neg(thmin));
        if (gap.hi > DD_TIE_EPS * dd_scale(p, Ti, -1) / d.hi) continue;
        if (t->basis[i] == 2 * m) return i; /* z0 leaves: solution */
        if (best < 0 || dd_lex_less(m, Ti, d, t->T + (size_t)best * t->nc, db)) {
            best = i;
            db = d;
        }
    }
    return best;
}

/* The tableau of the basis w, then z0 entering at the last row of min q. */
static int dd_start(const nsc_lcp *p, dd_tab *t)
{
    int m = p->m, r = 0;
    for (int i = 0; i < m; i++) {
        dd *Ti = t->T + (size_t)i * t->nc;
        for (size_t k = 0; k < t->nc; k++) Ti[k] = (dd){ 0, 0 };
        Ti[i] = (dd){ 1, 0 };
        for (int j = 0; j < m; j++) Ti[m + j] = (dd){ -p->M[i + (size_t)j * m], 0 };
        Ti[2 * m] = (dd){ -1, 0 };
        Ti[2 * m + 1] = (dd){ p->q[i], 0 };
        t->basis[i] = i;
        if (p->q[i] <= p->q[r]) r = i;
    }
    dd_pivot(t, r, 2 * m);
    return r;
}

/* Complementary pivoting from z0's entry until z0 leaves (OK), a ray or
 * DD_MAXITER pivots; *iter counts pivots, z0's included. */
static nsc_lcp_status dd_run(const nsc_lcp *p, dd_tab *t, int *iter)
{
    int m = p->m, enter = m + dd_start(p, t);
    for (*iter = 1; *iter < DD_MAXITER(m);) {
        int r = dd_ratio(p, t, enter);
        if (r < 0) return NSC_LCP_RAY;
        int leave = t->basis[r];
        dd_pivot(t, r, enter);
        (*iter)++;
        if (leave == 2 * m) return NSC_LCP_OK; /* z0 left: complementary basis */
        enter = leave < m ? leave + m : leave - m;
    }
    return NSC_LCP_MAXITER;
}

nsc_lcp_status nsc_lcp_lemke_dd(const nsc_lcp *p, int *basis, double *x, int *iter)
{
    int m = p->m;
    dd_tab t = { m, 2 * (size_t)m + 2, NULL, NULL, NULL, basis };
    t.T = malloc((size_t)m * t.nc * sizeof(dd));
    t.u = malloc(t.nc * sizeof(dd));
    t.dc = malloc((size_t)m * sizeof(dd));
    nsc_lcp_status st = t.T && t.u && t.dc ? NSC_LCP_OK : NSC_LCP_ENOMEM;
    *iter = 0;
    if (st == NSC_LCP_OK) st = dd_run(p, &t, iter);
    for (int i = 0; i < m && st != NSC_LCP_ENOMEM; i++) {
        const dd *xi = t.T + (size_t)i * t.nc + t.nc - 1;
        x[i] = xi->hi + xi->lo;
    }
    free(t.T);
    free(t.u);
    free(t.dc);
    return st;
}
