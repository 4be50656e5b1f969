/* pwl_sq.c -- the convex piecewise-linear approximation of f(x) = max(0, x)^2 of
 * the PWL MOS model (pwl_sq.h, formulation.md §1).
 *
 * Construction (relative-error equioscillation): on a geometric grid
 * b, rho b, the chord of (1 - eps) x^2 has slope (1 - eps)(1 + rho) b and its
 * largest ratio to x^2, reached at x = 2 rho b/(1 + rho), is
 * (1 - eps)(1 + rho)^2/(4 rho); setting it to 1 + eps gives
 *     (1 + eps)/(1 - eps) = (1 + rho)^2/(4 rho),
 * so the chords stay within [1 - eps, 1 + eps] x^2 on [b1, X]. The design
 * documents' table is this construction with b1 = 0.1, eps = 0.1
 * (9 rho^2 - 26 rho + 9 = 0, rho = 2.4868) and 4 geometric segments. */
#include <math.h>
#include <stdlib.h>

#include "pwl_sq.h"

/* Breakpoints and slopes of the six segments (formulation.md §1). */
static const double def_b[5] = { 0, 0.1, 0.2487, 0.6185, 1.5383 };
static const double def_s[6] = { 0, 0.09, 0.314055, 0.780422, 1.94107, 4.82766 };

int nsc_pwl_sq(int nseg, double *b, double *a, double *eps)
{
    if (nseg == 0) {
        for (int j = 0; j < 5; j++) {
            b[j] = def_b[j];
            a[j] = def_s[j + 1] - def_s[j]; /* slope increase at b_j */
        }
        if (eps) *eps = 0.1;
        return 5;
    }
    if (nseg < 3 || nseg > NSC_PWL_MAXSEG) return -1;
    double rho6 = (13.0 + sqrt(88.0)) / 9.0; /* 9 rho^2 - 26 rho + 9 = 0 */
    double X = NSC_PWL_X0 * pow(rho6, 4);    /* top of the default's range */
    double rho = pow(X / NSC_PWL_X0, 1.0 / (nseg - 2));
    double g = (1 + rho) * (1 + rho) / (4 * rho); /* (1 + eps)/(1 - eps) */
    double e = (g - 1) / (g + 1);
    int nb = nseg - 1;
    double prev = 0; /* slope left of b_j */
    b[0] = 0;
    for (int j = 1; j < nb; j++) b[j] = NSC_PWL_X0 * pow(rho, j - 1);
    for (int j = 0; j < nb; j++) {
        double s = j == 0 ? (1 - e) * NSC_PWL_X0        /* chord of (1-eps) x^2 on [0, b1] */
                          : (1 - e) * (1 + rho) * b[j]; /* chord on [b_j, rho b_j] */
        a[j] = s - prev;
        prev = s;
    }
    if (eps) *eps = e;
    return nb;
}

double nsc_pwl_eval(int nb, const double *b, const double *a, double x)
{
    double f = 0;
    for (int j = 0; j < nb; j++)
        if (x > b[j]) f += a[j] * (x - b[j]); /* f = sum a_j max(0, x - b_j) */
    return f;
}

/* ---- the fit ranged and anchored by the circuit (nsc_pwl_sq_fit) ----
 * f interpolates x^2 at its breakpoints 0 = beta_0 < beta_1 < ... < beta_m and
 * at the top T (the last segment is the chord [beta_m, T], continued): slope
 * s_j = beta_j + beta_{j+1} on [beta_j, beta_{j+1}], so a_j = s_j - s_{j-1} =
 * beta_{j+1} - beta_{j-1} > 0 (convex), and f >= x^2 on [L, T] (chords of a convex
 * curve; L below). Background: beta = 0.1 rho^k (k >= 0) up to X, with (rho - 1)^2/(4 rho) =
 * eps_v: f <= (1 + eps_v) x^2 on [0.1, X]. Anchor a (an overdrive the circuit
 * applies): breakpoints a + d and a - (2^k - 1) d, d = NSC_PWL_ANCH a, k = 1, 2, ...
 * while above a/rho, the background's points in that span dropped. The segment
 * [a - d, a + d] has the slope 2a = (x^2)'(a): for x_s = a, x_d = a - v (the triode),
 * f(a) - f(a - v) = 2a v (v <= d) against 2a v - v^2, and f(a) - f(a - d) = 2a d
 * against 2a d - d^2: relative d/(2a - d) = 1.01 % at most for v <= d; below, the
 * ladder's chord [a - (2^(k+1) - 1) d, a - (2^k - 1) d] is off x^2 by at most
 * 4^k d^2/4 against 2a v >= 2a (2^k - 1) d: 1.01 % up to v = 0.1 a, 1.6 % at 0.3 a
 * (test devmos/fit_triode_at_the_anchors). Below the lowest ladder point L (anchors
 * given) the background is replaced by the design table's equioscillating points
 * (low_fill): |f - x^2| <= eps_v x^2 there with ratio 2.49 instead of 1.86 between
 * points, 2 pairs fewer per side for a 4 V anchor (a CMOS chain at 5 V: 12 -> 10). */
#define EPS_V 0.1 /* the default background's bound, as the design table's */

static int cmp_dbl(const void *x, const void *y)
{
    double u = *(const double *)x, v = *(const double *)y;
    return (u > v) - (u < v);
}

/* Background breakpoints into p: 0, then 0.1 rho^k (k < n, 0.1 rho^n = X); n = nseg - 2
 * (nseg segments with f = 0 below 0), nseg 0: the fewest with error <= EPS_V;
 * returns their number n + 1, *rho the ratio. */
static int background(int nseg, double X, double *p, double *rho)
{
    double rv = 1 + 2 * EPS_V + 2 * sqrt(EPS_V * (1 + EPS_V)); /* (rho-1)^2 = 4 eps rho */
    int n = nseg ? nseg - 2
                 : (int)ceil(log(X / NSC_PWL_X0) / log(rv)); /* nseg: nseg - 1 breakpoints */
    if (n < 1) n = 1;
    *rho = pow(X / NSC_PWL_X0, 1.0 / n); /* 0.1 rho^n = X */
    p[0] = 0;
    for (int k = 0; k < n; k++) p[k + 1] = NSC_PWL_X0 * pow(*rho, k);
    return n + 1;
}

/* Below the lowest ladder point L the breakpoints are replaced by the
 * equioscillating ones of the design table: f = (1 - eps_v) x^2 at 0.1 R^k (k < n)
 * and at p = L/RHO_T, R <= RHO_EQ ((1 + eps)/(1 - eps) = (1 + R)^2/(4 R): chords within
 * eps_v of x^2), and the transition chord [p, L] from (1 - eps_v) p^2 to L^2 within
 * eps_v too while L/p <= 2.04 (+9.2 % at 2.0; its minimum -eps_v at p). b[0..m)
 * sorted with b[0] = 0; returns the new count, -2 past NSC_PWL_MAXSEG - 1. */
#define RHO_EQ 2.48683 /* 9 rho^2 - 26 rho + 9 = 0 */
#define RHO_T 2.0
static int low_fill(double *b, int m, double L)
{
    double keep[NSC_PWL_MAXSEG], p = L / RHO_T;
    int nk = 0, out = 0;
    for (int j = 0; j < m; j++)
        if (b[j] >= L * (1 - 1e-12)) keep[nk++] = b[j];
    b[out++] = 0;
    if (p > NSC_PWL_X0 * (1 + 1e-9)) {
        int n = (int)ceil(log(p / NSC_PWL_X0) / log(RHO_EQ) - 1e-9);
        double R = pow(p / NSC_PWL_X0, 1.0 / n);
        for (int k = 0; k < n; k++) b[out++] = NSC_PWL_X0 * pow(R, k);
        b[out++] = p;
    } else if (L > NSC_PWL_X0 * (1 + 1e-9)) b[out++] = NSC_PWL_X0;
    if (out + nk > NSC_PWL_MAXSEG - 1) return -2;
    for (int j = 0; j < nk; j++) b[out++] = keep[j];
    return out;
}

int nsc_pwl_sq_fit(int nseg, double X, const double *anch, int nanch, double *b, double *a,
                   double *eps)
{
    if (nseg && (nseg < 3 || nseg > NSC_PWL_MAXSEG)) return -1;
    double top = X, rho, pt[2 * NSC_PWL_MAXSEG + 8];
    for (int i = 0; i < nanch; i++) top = fmax(top, anch[i] * (1 + 2 * NSC_PWL_ANCH));
    int n = background(nseg, top, pt, &rho), nbg = n;
    double lmin = nanch > 0 ? top : 0; /* the lowest ladder point */
    for (int i = 0; i < nanch && n < 2 * NSC_PWL_MAXSEG; i++) {
        double an = anch[i], d = NSC_PWL_ANCH * an, lo = an + d;
        pt[n++] = an + d;
        for (int k = 1;
             an - (ldexp(1, k) - 1) * d > fmax(an / rho, NSC_PWL_X0) && n < 2 * NSC_PWL_MAXSEG; k++)
            pt[n++] = lo = an - (ldexp(1, k) - 1) * d;
        for (int k = 1; k < nbg; k++) /* the background inside the ladder dropped: */
            if (pt[k] > lo && pt[k] <= an + d) pt[k] = -1; /* every gap stays a ratio < rho */
        lmin = fmin(lmin, lo);
    }
    qsort(pt, (size_t)n, sizeof *pt, cmp_dbl);
    int m = 0;
    for (int k = 0; k < n; k++) /* sorted, distinct, >= 0 */
        if (pt[k] >= 0 && (m == 0 || pt[k] > b[m - 1] * (1 + 1e-9)) && pt[k] < top) {
            if (m == NSC_PWL_MAXSEG - 1) return -2;
            b[m++] = pt[k];
        }
    if (nanch > 0 && (m = low_fill(b, m, lmin)) < 0) return m;
    double y[NSC_PWL_MAXSEG], prev = 0; /* f(b_j): x^2, (1 - eps_v) x^2 below lmin */
    for (int j = 0; j < m; j++) y[j] = b[j] * b[j] * (b[j] < lmin * (1 - 1e-12) ? 1 - EPS_V : 1);
    for (int j = 0; j < m; j++) { /* a_j = s_j - s_{j-1}, s_j the chord's slope */
        double s = j + 1 < m ? (y[j + 1] - y[j]) / (b[j + 1] - b[j])
                             : (top * top - y[j]) / (top - b[j]);
        a[j] = s - prev;
        prev = s;
    }
    if (eps) *eps = fmax((rho - 1) * (rho - 1) / (4 * rho), nanch > 0 ? EPS_V : 0);
    return m;
}
