/* lcp_lemke.c -- Lemke's complementary pivoting method (lcp.h).
 *
 * The augmented system  w - M z - e z0 = q  (e = ones) is kept as a dense
 * tableau, row i = [B^{-1}(i,:) | -B^{-1}M(i,:) | -B^{-1}e(i) | x_i] (row-major,
 * 2m+2 wide), basis[i] the basic variable of row i, x = B^{-1} q its value.
 * Variables are numbered v in [0,m): w_v, [m,2m): z_{v-m}, 2m: z0; the tableau
 * column of v is B^{-1} a(v), a(v) = e_v, -M(:,v-m), -e.
 *
 * Start: z0 enters at the row of min q (the basis stays feasible); then the
 * complement of the leaving variable enters, until z0 leaves (solution) or no
 * row limits the entering variable (secondary ray). A pivot on row r, column v
 * divides row r by T(r,v) and subtracts T(i,v) times it from every other row
 * (own loops, no BLAS: the same rounding on every machine): O(m^2).
 *
 * Why the whole tableau (the LM741 transient, whose M holds 1/gmin products:
 * entries 0.1 .. 3e12): the entering column taken from the updated tableau
 * carries the error of its own updates only, while a fresh B^{-1} a carries
 * eps |B^{-1}| |a|, and |B^{-1}| reaches 1e12 after a pivot on an entry like
 * 2e-13 that the lexicographic rule must take there (a degenerate row, x_i = 0,
 * of a pair tied with another: identical transistors). A pivot tolerance
 * relative to ||B^{-1}(i,:)|| ||a|| (this file's earlier rule) refused such
 * true pivots (d_i = 1.5e-5 beside a row norm of 4e7): x_i then went negative,
 * and the next pivots on those rows drove the basis infeasible (a wrong
 * "solution", residual 5.5e3, or a ray), which way depending on the BLAS's
 * rounding. Measured on 53 one-step problems of that run (m = 38..151)
 * against Lemke in 60-digit arithmetic: the old rule found 7 of the first 30
 * answers, the tableau with the rules below all 53 (also with the data
 * perturbed by a few ulps), under OpenBLAS's kernels and the reference BLAS.
 *
 * Ratio test (lexicographic, so degenerate problems cannot cycle): candidates
 * are the rows with d_i = T(i,v) > PIV_EPS (|B^{-1}(i,:)| |a|)_i -- the scale of
 * the sums whose rounding d_i carries, so that the rounding of a zero (a
 * rank-deficient M's) is no pivot while a small true d_i is; among them the
 * minimum theta of x_i/d_i; rows with x_i/d_i <= theta + TIE_EPS xs_i/d_i (xs_i
 * = |B^{-1}(i,:)| |q|, the scale of x_i's sums) tie, a tie going to z0's row,
 * otherwise to the lexicographic minimum of the rows B^{-1}(i,:)/d_i, which
 * is unique because B^{-1} is nonsingular (Cottle-Pang-Stone §4.9). PIV_EPS and
 * TIE_EPS of 1e-12 lose the 38-pair problems of that run; exact ties (0) cycle
 * into a ray on a rank-5 PSD problem of the unit tests.
 *
 * Scaling: the method runs on the equilibrated problem LCP(R M C, R q) (R, C
 * positive diagonal powers of two, nsc_dense_equilibrate: exact), whose solution
 * is z' = C^{-1} z; so badly scaled rows (gmin entries) do not distort the
 * comparisons. The first pivot (z0) takes the last row of min (Rq)_i (exact
 * comparison: tied rows are the lexicographic rule's degenerate rows).
 *
 * Accuracy: at the end the complementary basis alpha = {i : z_i basic} gives
 * z'_alpha = -S(alpha,alpha) \ (Rq)_alpha, S = RMC (LU plus one refinement step), z' = 0
 * elsewhere; that solution is returned unless the pivoted values have a smaller
 * natural residual. Returned: z = C z', w = Mz + q, where w_i with z_i > 0 and
 * |w_i| <= W_EPS (|M||z| + |q|)_i (round-off) is set to 0 (exact complementarity);
 * info->residual = ||min(z, w)||_inf of the unscaled problem before that.
 * On RAY/MAXITER z is the last pivoted z (z0 dropped), w = Mz + q.
 *
 * Verified fallback: when the answer is not a solution to VER_EPS (some
 * |min(z_i, w_i)| > VER_EPS (|S||z'| + |qs|)_i, computed by own loops) or the
 * status is RAY, Lemke runs again on the same scaled problem with a
 * double-double tableau (lcp_lemke_dd.c, ~32 digits), its basis goes through
 * the same final re-solve, and its z' is kept when its relative residual is
 * smaller (status OK). Double is not enough when a true pivot of the gmin scale
 * (1e-12) sits in a tableau entry summing terms of 1e4: it rounds to 0 (a 555
 * monostable's 58-pair problem at t = 0: residual 0.75; lcp/
 * monostable555_gmin_latch_vs_exact). Problems the double tableau answers
 * are not touched (the LM741 transient's 53 problems: none falls back).
 * MAXITER does not fall back (a long path, not round-off).
 *
 * Iteration bound: LEMKE_MAXITER(m) = 100*(m+1) pivots. Lemke needs O(m) pivots
 * on typical problems but exponentially many on Murty's examples; hitting the
 * bound returns NSC_LCP_MAXITER. info->iter counts pivots, the first (z0) included,
 * both runs' when the fallback ran.
 *
 * The workspace (nsc_lcp_ws) is defined here, its only user: about 4 mmax^2 + 12 mmax
 * doubles; with it a call allocates nothing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lcp.h"
#include "la_dense.h"
#include "lcp_lemke_dd.h"

#define PIV_EPS 1e-14
#define TIE_EPS 1e-14
#define W_EPS 1e-12
#define VER_EPS 1e-9 /* a returned z' passes when each |min(z_i, w_i)| <= VER_EPS (|S||z|+|qs|)_i */
#define LEMKE_MAXITER(m) (100 * ((m) + 1))
#define TAB_W(m) (2 * (size_t)(m) + 2) /* a tableau row: B^{-1}, -B^{-1}M, -B^{-1}e, x */

struct nsc_lcp_ws {
    int mmax;
    double *T;       /* mmax*(2mmax+2): the tableau, row-major, rows of TAB_W(m) */
    double *row;     /* 2mmax+2: the pivot row */
    double *F;       /* mmax*mmax: LU factors (final basis) */
    double *x;       /* mmax: basic values; scratch at the end */
    double *d;       /* mmax: the candidates' pivots (tab_ratio); scratch at the end */
    double *u;       /* mmax: scratch at the end */
    double *rn;      /* mmax: scratch at the end */
    double *wt;      /* mmax: w of a candidate solution */
    double *z2;      /* mmax: z of the double-double fallback */
    int *basis;      /* mmax: basic variable of each row */
    int *ipiv;       /* mmax: LAPACK interchanges */
    int *alpha;      /* mmax: indices with z basic */
    double *S;       /* mmax*mmax: R M C */
    double *qs;      /* mmax: R q */
    double *rs, *cs; /* mmax: R, C */
};

nsc_lcp_ws *nsc_lcp_ws_new(int mmax)
{
    if (mmax < 0) return NULL;
    size_t n = mmax > 0 ? (size_t)mmax : 1;
    nsc_lcp_ws *ws = calloc(1, sizeof *ws);
    if (!ws) return NULL;
    ws->mmax = mmax;
    ws->T = malloc(n * TAB_W(n) * sizeof(double));
    ws->row = malloc(TAB_W(n) * sizeof(double));
    ws->F = malloc(n * n * sizeof(double));
    ws->x = malloc(n * sizeof(double));
    ws->d = malloc(n * sizeof(double));
    ws->u = malloc(n * sizeof(double));
    ws->rn = malloc(n * sizeof(double));
    ws->wt = malloc(n * sizeof(double));
    ws->z2 = malloc(n * sizeof(double));
    ws->basis = malloc(n * sizeof(int));
    ws->ipiv = malloc(n * sizeof(int));
    ws->alpha = malloc(n * sizeof(int));
    ws->S = malloc(n * n * sizeof(double));
    ws->qs = malloc(n * sizeof(double));
    ws->rs = malloc(n * sizeof(double));
    ws->cs = malloc(n * sizeof(double));
    if (!ws->S || !ws->qs || !ws->rs || !ws->cs || !ws->T || !ws->row || !ws->F || !ws->x || !ws->d
        || !ws->u || !ws->rn || !ws->wt || !ws->z2 || !ws->basis || !ws->ipiv || !ws->alpha) {
        nsc_lcp_ws_free(ws);
        return NULL;
    }
    return ws;
}

void nsc_lcp_ws_free(nsc_lcp_ws *ws)
{
    if (!ws) return;
    free(ws->T);
    free(ws->row);
    free(ws->F);
    free(ws->x);
    free(ws->d);
    free(ws->u);
    free(ws->rn);
    free(ws->wt);
    free(ws->z2);
    free(ws->basis);
    free(ws->ipiv);
    free(ws->alpha);
    free(ws->S);
    free(ws->qs);
    free(ws->rs);
    free(ws->cs);
    free(ws);
}

/* The tableau of the basis w (B = I): row i = [e_i' | -M(i,:) | -1 | q_i]. */
static void tab_init(const nsc_lcp *p, nsc_lcp_ws *ws)
{
    int m = p->m;
    size_t nc = TAB_W(m);
    for (int i = 0; i < m; i++) {
        double *Ti = ws->T + (size_t)i * nc;
        for (size_t k = 0; k < nc; k++) Ti[k] = 0;
        Ti[i] = 1;
        for (int j = 0; j < m; j++) Ti[m + j] = -p->M[i + (size_t)j * m];
        Ti[2 * m] = -1;
        Ti[2 * m + 1] = p->q[i];
        ws->basis[i] = i;
    }
}

/* Variable v enters at row r: row r /= T(r,v), row i -= T(i,v) row r (i != r),
 * so column v becomes e_r exactly. */
static void tab_pivot(int m, nsc_lcp_ws *ws, int r, int v)
{
    size_t nc = TAB_W(m);
    double *Tr = ws->T + (size_t)r * nc, *u = ws->row, piv = Tr[v];
    for (size_t k = 0; k < nc; k++) u[k] = Tr[k] / piv;
    u[v] = 1;
    memcpy(Tr, u, nc * sizeof(double));
    for (int i = 0; i < m; i++) {
        double *Ti = ws->T + (size_t)i * nc, f = Ti[v];
        if (i == r || f == 0) continue;
        for (size_t k = 0; k < nc; k++) Ti[k] -= f * u[k];
        Ti[v] = 0;
    }
    ws->basis[r] = v;
}

/* 1 when row a of the tableau divided by da precedes row b divided by db in the
 * lexicographic order of their B^{-1} parts (the first m columns). */
static int lex_less(int m, const double *Ta, double da, const double *Tb, double db)
{
    for (int k = 0; k < m; k++) {
        double a = Ta[k] / da, b = Tb[k] / db;
        if (a != b) return a < b;
    }
    return 0;
}

/* |B^{-1}(i,:)| |a(v)| for row Ti of the tableau (a = e_v, -M(:,v-m), -e):
 * the scale of the sums whose rounding is in T(i,v). */
static double tab_scale(const nsc_lcp *p, const double *Ti, int v)
{
    int m = p->m;
    double s = 0;
    if (v < m) return fabs(Ti[v]);
    if (v == 2 * m) {
        for (int k = 0; k < m; k++) s += fabs(Ti[k]);
        return s;
    }
    const double *Mj = p->M + (size_t)(v - m) * m;
    for (int k = 0; k < m; k++)
        if (Mj[k] != 0) s += fabs(Ti[k]) * fabs(Mj[k]);
    return s;
}

/* Row leaving the basis when v enters, or -1 when column v has no positive
 * entry (ray). Candidates: d_i = T(i,v) > PIV_EPS tab_scale (below, the
 * rounding of a zero: a rank-deficient M's). Among them the minimum ratio
 * theta = x_i/d_i, ties (x_i/d_i <= theta + TIE_EPS xs_i/d_i, xs_i =
 * |B^{-1}(i,:)| |q| the scale of x_i's sums) going to z0's row, else to the
 * lexicographic minimum (lex_less). */
static int tab_ratio(const nsc_lcp *p, nsc_lcp_ws *ws, int v)
{
    int m = p->m;
    size_t nc = TAB_W(m);
    int best = -1;
    double thmin = INFINITY, db = 0, *dc = ws->d; /* dc_i: d_i of a candidate, else 0 */
    for (int i = 0; i < m; i++) {
        const double *Ti = ws->T + (size_t)i * nc;
        dc[i] = Ti[v] > 0 && Ti[v] > PIV_EPS * tab_scale(p, Ti, v) ? Ti[v] : 0;
        if (dc[i] > 0) thmin = fmin(thmin, fmax(Ti[nc - 1], 0) / dc[i]);
    }
    for (int i = 0; i < m && thmin < INFINITY; i++) {
        const double *Ti = ws->T + (size_t)i * nc;
        double d = dc[i], xs = 0;
        if (!(d > 0)) continue;
        for (int k = 0; k < m; k++) xs += fabs(Ti[k] * p->q[k]);
        if (fmax(Ti[nc - 1], 0) / d > thmin + TIE_EPS * xs / d) continue;
        if (ws->basis[i] == 2 * m) return i; /* z0 leaves: solution */
        if (best < 0 || lex_less(m, Ti, d, ws->T + (size_t)best * nc, db)) {
            best = i;
            db = d;
        }
    }
    return best;
}

/* The first pivot: z0 enters at the last row of min qs (the lexicographic min
 * of (q_i, e_i')/(-1)), which keeps x >= 0. Returns that row r (w_r left: z_r
 * enters next). */
static int tab_start(const nsc_lcp *ps, nsc_lcp_ws *ws)
{
    int m = ps->m, r = 0;
    for (int i = 1; i < m; i++)
        if (ps->q[i] <= ps->q[r]) r = i;
    tab_init(ps, ws);
    tab_pivot(m, ws, r, 2 * m);
    return r;
}

/* Complementary pivoting from z_enter's entry until z0 leaves (OK), no row
 * limits the entering variable (RAY) or LEMKE_MAXITER pivots (MAXITER); then
 * x = the tableau's last column. *iter counts pivots (in: 1, z0's). */
static nsc_lcp_status lemke_run(const nsc_lcp *ps, nsc_lcp_ws *ws, int enter, int *iter)
{
    int m = ps->m, maxiter = LEMKE_MAXITER(m);
    nsc_lcp_status st = NSC_LCP_OK;
    for (;;) {
        if (*iter >= maxiter) {
            st = NSC_LCP_MAXITER;
            break;
        }
        int r = tab_ratio(ps, ws, enter);
        if (r < 0) {
            st = NSC_LCP_RAY;
            break;
        }
        int leave = ws->basis[r];
        tab_pivot(m, ws, r, enter);
        (*iter)++;
        if (leave == 2 * m) break;                 /* z0 left: complementary basis */
        enter = leave < m ? leave + m : leave - m; /* complement of the leaving variable */
    }
    for (int i = 0; i < m; i++) ws->x[i] = ws->T[(size_t)i * TAB_W(m) + 2 * (size_t)m + 1];
    return st;
}

/* z = the z part of the basic values (clamped to >= 0); wt = Mz + q; returns the residual. */
static double lemke_candidate(const nsc_lcp *p, const double *zsrc, double *z, double *wt)
{
    int m = p->m;
    double res = 0;
    for (int i = 0; i < m; i++) z[i] = fmax(zsrc[i], 0);
    memcpy(wt, p->q, (size_t)m * sizeof(double));
    nsc_dense_gemv(0, m, m, 1, p->M, m, z, 1, wt); /* wt = M z + q */
    for (int i = 0; i < m; i++) {
        double r = fabs(fmin(z[i], wt[i]));
        if (!(r <= res)) res = r; /* NaN propagates */
    }
    return res;
}

/* Final z' of the scaled problem p (into z): the pivoted values, or the solve on
 * the complementary basis alpha when its residual is not larger. */
static void lemke_finish(const nsc_lcp *p, nsc_lcp_ws *ws, double *z, int final)
{
    int m = p->m, k = 0;
    double *zr = ws->u, *wr = ws->d, *F = ws->F;
    for (int i = 0; i < m; i++) zr[i] = 0;
    for (int i = 0; i < m; i++) {
        int v = ws->basis[i];
        if (v >= m && v < 2 * m) {
            zr[v - m] = ws->x[i];
            ws->alpha[k++] = v - m;
        }
    }
    double res = lemke_candidate(p, zr, z, ws->wt); /* pivoted solution */
    if (!final) return;
    int *al = ws->alpha;
    double *za = ws->x, *ra = ws->rn; /* x, rn no longer needed */
    for (int b = 0; b < k; b++)
        for (int a = 0; a < k; a++) F[a + (size_t)b * k] = p->M[al[a] + (size_t)al[b] * m];
    for (int a = 0; a < k; a++) za[a] = -p->q[al[a]];
    if (nsc_dense_solve(k, F, k, ws->ipiv, za) != 0) return; /* z_a = -M_aa \ q_a */
    for (int a = 0; a < k; a++) {                            /* ra = -q_a - M_aa z_a */
        ra[a] = -p->q[al[a]];
        for (int b = 0; b < k; b++) ra[a] -= p->M[al[a] + (size_t)al[b] * m] * za[b];
    }
    nsc_dense_lusolve(0, k, 1, F, k, ws->ipiv, ra, k > 0 ? k : 1);
    for (int i = 0; i < m; i++) zr[i] = 0;
    for (int a = 0; a < k; a++) zr[al[a]] = za[a] + ra[a]; /* one refinement step */
    double *zc = ws->rn;                                   /* candidate z (ra consumed) */
    if (lemke_candidate(p, zr, zc, wr) <= res) memcpy(z, zc, (size_t)m * sizeof(double));
}

/* The problem checked: NSC_LCP_EINVAL for a missing or non-finite M, q, z or a
 * workspace too small, else OK with *qmin = min(q). */
static nsc_lcp_status lemke_inputs(const nsc_lcp *p, const double *z, const nsc_lcp_ws *ws,
                                   double *qmin)
{
    int m = p->m;
    if (!p->M || !p->q || !z || (ws && ws->mmax < m)) return NSC_LCP_EINVAL;
    *qmin = INFINITY;
    for (size_t k = 0; k < (size_t)m * m; k++)
        if (!isfinite(p->M[k])) return NSC_LCP_EINVAL;
    for (int i = 0; i < m; i++) {
        if (!isfinite(p->q[i])) return NSC_LCP_EINVAL;
        *qmin = fmin(*qmin, p->q[i]);
    }
    return NSC_LCP_OK;
}

/* The equilibrated problem *ps = LCP(S, qs): S = R M C, qs = R q (R = rs,
 * C = cs: powers of two, exact), in ws. */
static void lemke_scale(const nsc_lcp *p, nsc_lcp_ws *ws, nsc_lcp *ps)
{
    int m = p->m;
    nsc_dense_equilibrate(m, m, p->M, m, ws->rs, ws->cs);
    for (int j = 0; j < m; j++) /* S = R M C, qs = R q (exact) */
        for (int i = 0; i < m; i++)
            ws->S[i + (size_t)j * m] = ws->rs[i] * p->M[i + (size_t)j * m] * ws->cs[j];
    for (int i = 0; i < m; i++) ws->qs[i] = ws->rs[i] * p->q[i];
    *ps = (nsc_lcp){ m, ws->S, ws->qs };
}

/* z = C z' (z' in z on entry), w = M z + q of the unscaled problem with w_i := 0
 * where z_i > 0 and |w_i| <= W_EPS (|M||z| + |q|)_i (round-off); returns
 * ||min(z, w)||_inf before that. w may be NULL. */
static double lemke_output(const nsc_lcp *p, nsc_lcp_ws *ws, double *z, double *w)
{
    int m = p->m;
    for (int i = 0; i < m; i++) z[i] *= ws->cs[i]; /* z = C z' */
    double *wt = ws->wt, *ws_ = ws->u, res = 0;
    for (int i = 0; i < m; i++) { /* wt = M z + q, ws_ = |M||z| + |q| */
        wt[i] = p->q[i];
        ws_[i] = fabs(p->q[i]);
    }
    for (int j = 0; j < m; j++)
        for (int i = 0; i < m; i++) {
            double t = p->M[i + (size_t)j * m] * z[j];
            wt[i] += t;
            ws_[i] += fabs(t);
        }
    for (int i = 0; i < m; i++) {
        double ri = fabs(fmin(z[i], wt[i]));
        if (!(ri <= res)) res = ri;
        if (z[i] > 0 && fabs(wt[i]) <= W_EPS * ws_[i]) wt[i] = 0; /* round-off: z_i w_i = 0 */
    }
    if (w) memcpy(w, wt, (size_t)m * sizeof(double));
    return res;
}

/* max_i |min(z_i, w_i)| / (|M||z| + |q|)_i, w = Mz + q (own loops: the same
 * bits on every BLAS; a NaN counts as INFINITY): the relative natural residual. */
static double lemke_relres(const nsc_lcp *p, const double *z)
{
    int m = p->m;
    double worst = 0;
    for (int i = 0; i < m; i++) {
        double w = p->q[i], s = fabs(p->q[i]);
        for (int j = 0; j < m; j++) {
            double t = p->M[i + (size_t)j * m] * z[j];
            w += t;
            s += fabs(t);
        }
        double r = fabs(fmin(z[i], w));
        if (!(r <= worst * s)) worst = s > 0 ? r / s : INFINITY; /* NaN: INFINITY */
    }
    return worst;
}

/* When the double tableau's z' (in z, status *st) fails VER_EPS, Lemke again
 * with the double-double tableau (lcp_lemke_dd.c); its z' replaces z when its
 * relative residual is smaller (after a RAY: when it passes VER_EPS). *iter
 * adds its pivots. */
static void lemke_fallback(const nsc_lcp *ps, nsc_lcp_ws *ws, double *z, nsc_lcp_status *st,
                           int *iter)
{
    if (*st == NSC_LCP_MAXITER) return; /* a long path (Murty's), not round-off */
    double r1 = *st == NSC_LCP_OK ? lemke_relres(ps, z) : INFINITY;
    if (r1 <= VER_EPS) return;
    int it = 0;
    nsc_lcp_status s2 = nsc_lcp_lemke_dd(ps, ws->basis, ws->x, &it);
    *iter += it;
    if (s2 != NSC_LCP_OK) return;
    lemke_finish(ps, ws, ws->z2, 1);
    double r2 = lemke_relres(ps, ws->z2);
    if (r2 < r1 && (r2 <= VER_EPS || *st == NSC_LCP_OK)) { /* a RAY stays unless solved */
        memcpy(z, ws->z2, (size_t)ps->m * sizeof(double));
        *st = NSC_LCP_OK;
    }
}

nsc_lcp_status nsc_lcp_lemke(const nsc_lcp *p, double *z, double *w, nsc_lcp_info *info,
                             nsc_lcp_ws *ws)
{
    nsc_lcp_info dummy;
    if (!info) info = &dummy;
    info->iter = 0;
    info->residual = 0;
    if (!p || p->m < 0) return NSC_LCP_EINVAL;
    int m = p->m;
    if (m == 0) return NSC_LCP_OK;
    double qmin;
    if (lemke_inputs(p, z, ws, &qmin) != NSC_LCP_OK) return NSC_LCP_EINVAL;
    if (qmin >= 0) { /* z = 0, w = q */
        for (int i = 0; i < m; i++) z[i] = 0;
        if (w) memcpy(w, p->q, (size_t)m * sizeof(double));
        return NSC_LCP_OK;
    }
    nsc_lcp_ws *own = NULL;
    if (!ws && !(ws = own = nsc_lcp_ws_new(m))) return NSC_LCP_ENOMEM;
    nsc_lcp ps;
    lemke_scale(p, ws, &ps);
    int iter = 1, r = tab_start(&ps, ws);
    nsc_lcp_status st = lemke_run(&ps, ws, m + r, &iter);
    lemke_finish(&ps, ws, z, st == NSC_LCP_OK);
    lemke_fallback(&ps, ws, z, &st, &iter);
    info->iter = iter;
    info->residual = lemke_output(p, ws, z, w);
    nsc_lcp_ws_free(own);
    return st;
}
