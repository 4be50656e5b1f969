/* lcp_lemke.c -- Lemke's complementary pivoting method (lcp.h).
 *
 * The augmented system  w - M z - e z0 = q  (e = ones) is kept in revised form:
 * basis[i] names the basic variable of row i, Binv = B^{-1} (m-by-m, explicit),
 * x = B^{-1} q the basic values. Variables are numbered v in [0,m): w_v,
 * [m,2m): z_{v-m}, 2m: z0; their columns are e_v, -M(:,v-m), -e.
 *
 * Start: z0 enters at the row of min q (the basis stays feasible); then the
 * complement of the leaving variable enters, until z0 leaves (solution) or no
 * row limits the entering variable (secondary ray). Each pivot costs O(m^2):
 * d = B^{-1} a (dgemv) and the rank-one update of B^{-1} (dger).
 *
 * Ratio test (lexicographic, so degenerate problems cannot cycle): among rows
 * with d_i > 0 minimise x_i/d_i; ties are broken in favour of z0, otherwise by
 * the lexicographic minimum of the rows B^{-1}(i,:)/d_i, which is unique
 * because B^{-1} is nonsingular (Cottle-Pang-Stone §4.9).
 *
 * Scaling: the method runs on the equilibrated problem LCP(R M C, R q) (R, C
 * positive diagonal powers of two, nsc_dense_equilibrate: exact), whose solution
 * is z' = C^{-1} z; so badly scaled rows (gmin entries) do not distort the
 * tolerances. On it, with rn_i = ||B^{-1}(i,:)||_inf, xs_i = |B^{-1}(i,:)| |q|:
 *   pivot candidate        d_i > PIV_EPS * rn_i * ||a||_inf
 *   ratio tie              x_i/d_i <= theta_min + TIE_EPS * xs_i / d_i
 *   lexicographic tie      |B^{-1}(i,k)/d_i - B^{-1}(l,k)/d_l| <= LEX_EPS * max(rn_i/d_i, rn_l/d_l)
 *   first pivot (z0)       last row with q_i <= min(q) + TIE_EPS |min(q)|
 * B^{-1} and x are recomputed from an LU of B every max(m,32) pivots (drift).
 *
 * Accuracy: at the end the complementary basis alpha = {i : z_i basic} gives
 * z'_alpha = -S(alpha,alpha) \ (Rq)_alpha, S = RMC (LU plus one refinement step), z' = 0
 * elsewhere; that solution is returned unless the pivoted values have a smaller
 * natural residual. Returned: z = C z', w = Mz + q, where w_i with z_i > 0 and
 * |w_i| <= W_EPS (|M||z| + |q|)_i (round-off) is set to 0 (exact complementarity);
 * info->residual = ||min(z, w)||_inf of the unscaled problem before that.
 * On RAY/MAXITER z is the last pivoted z (z0 dropped), w = Mz + q.
 *
 * Iteration bound: LEMKE_MAXITER(m) = 100*(m+1) pivots. Lemke needs O(m) pivots
 * on typical problems but exponentially many on Murty's examples; hitting the
 * bound returns NSC_LCP_MAXITER. info->iter counts pivots, the first (z0) included.
 *
 * The workspace (nsc_lcp_ws) is defined here, its only user: about 3 mmax^2 + 12 mmax
 * doubles; with it a call allocates nothing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lcp.h"
#include "la_dense.h"

#define PIV_EPS 1e-11
#define TIE_EPS 1e-12
#define LEX_EPS 1e-11
#define W_EPS 1e-12
#define LEMKE_MAXITER(m) (100 * ((m) + 1))

struct nsc_lcp_ws {
    int mmax;
    double *Binv;    /* mmax*mmax: B^{-1}, leading dimension m of the current problem */
    double *F;       /* mmax*mmax: LU factors (refactorisation, final basis) */
    double *x;       /* mmax: basic values B^{-1} q */
    double *d;       /* mmax: entering column B^{-1} a; scratch at the end */
    double *u;       /* mmax: pivot row; scratch at the end */
    double *rn;      /* mmax: row norms ||B^{-1}(i,:)||_inf */
    double *wt;      /* mmax: w of a candidate solution */
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
    ws->Binv = malloc(n * n * sizeof(double));
    ws->F = malloc(n * n * sizeof(double));
    ws->x = malloc(n * sizeof(double));
    ws->d = malloc(n * sizeof(double));
    ws->u = malloc(n * sizeof(double));
    ws->rn = malloc(n * sizeof(double));
    ws->wt = malloc(n * sizeof(double));
    ws->basis = malloc(n * sizeof(int));
    ws->ipiv = malloc(n * sizeof(int));
    ws->alpha = malloc(n * sizeof(int));
    ws->S = malloc(n * n * sizeof(double));
    ws->qs = malloc(n * sizeof(double));
    ws->rs = malloc(n * sizeof(double));
    ws->cs = malloc(n * sizeof(double));
    if (!ws->S || !ws->qs || !ws->rs || !ws->cs || !ws->Binv || !ws->F || !ws->x || !ws->d || !ws->u
        || !ws->rn || !ws->wt || !ws->basis || !ws->ipiv || !ws->alpha) {
        nsc_lcp_ws_free(ws);
        return NULL;
    }
    return ws;
}

void nsc_lcp_ws_free(nsc_lcp_ws *ws)
{
    if (!ws) return;
    free(ws->Binv);
    free(ws->F);
    free(ws->x);
    free(ws->d);
    free(ws->u);
    free(ws->rn);
    free(ws->wt);
    free(ws->basis);
    free(ws->ipiv);
    free(ws->alpha);
    free(ws->S);
    free(ws->qs);
    free(ws->rs);
    free(ws->cs);
    free(ws);
}

/* d = B^{-1} a(v) for variable v; returns ||a(v)||_inf. */
static double lemke_column(const nsc_lcp *p, const double *Binv, int v, double *d)
{
    int m = p->m;
    if (v < m) { /* a = e_v */
        memcpy(d, Binv + (size_t)v * m, (size_t)m * sizeof(double));
        return 1;
    }
    if (v < 2 * m) { /* a = -M(:,j) */
        const double *Mj = p->M + (size_t)(v - m) * m;
        double amax = 0;
        for (int i = 0; i < m; i++) amax = fmax(amax, fabs(Mj[i]));
        nsc_dense_gemv(0, m, m, -1, Binv, m, Mj, 0, d); /* d = -B^{-1} M(:,j) */
        return amax;
    }
    for (int i = 0; i < m; i++) d[i] = 0; /* a = -e */
    for (int k = 0; k < m; k++)
        for (int i = 0; i < m; i++) d[i] -= Binv[i + (size_t)k * m]; /* d = -B^{-1} e */
    return 1;
}

/* rn_i = ||B^{-1}(i,:)||_inf */
static void lemke_rownorms(int m, const double *Binv, double *rn)
{
    for (int i = 0; i < m; i++) rn[i] = 0;
    for (int k = 0; k < m; k++) { /* rn_i = max_k |B^{-1}_ik| */
        const double *c = Binv + (size_t)k * m;
        for (int i = 0; i < m; i++) { /* no libm call: vectorizes */
            double v = fabs(c[i]);
            rn[i] = v > rn[i] ? v : rn[i];
        }
    }
}

/* Pivot on row r with entering column d = B^{-1} a: B^{-1} <- E B^{-1}, x <- E x. */
static void lemke_pivot(int m, double *Binv, double *x, double *d, double *u, double *rn, int r)
{
    double piv = d[r];
    for (int k = 0; k < m; k++) u[k] = Binv[r + (size_t)k * m] / piv; /* u = B^{-1}(r,:)/d_r */
    double xr = x[r] / piv;
    for (int i = 0; i < m; i++) x[i] -= d[i] * xr; /* x -= d x_r/d_r */
    x[r] = xr;
    nsc_dense_ger(m, m, -1, d, u, Binv, m);                     /* B^{-1} -= d u' */
    for (int k = 0; k < m; k++) Binv[r + (size_t)k * m] = u[k]; /* row r = u */
    lemke_rownorms(m, Binv, rn);
}

/* B^{-1} and x = B^{-1} q recomputed from an LU of the basis matrix. 0 ok. */
static int lemke_refactor(const nsc_lcp *p, nsc_lcp_ws *ws)
{
    int m = p->m;
    double *F = ws->F;
    for (int i = 0; i < m; i++) { /* F(:,i) = a(basis[i]) */
        int v = ws->basis[i];
        double *Fi = F + (size_t)i * m;
        if (v < m) {
            for (int k = 0; k < m; k++) Fi[k] = 0;
            Fi[v] = 1;
        } else if (v < 2 * m) {
            for (int k = 0; k < m; k++) Fi[k] = -p->M[k + (size_t)(v - m) * m];
        } else {
            for (int k = 0; k < m; k++) Fi[k] = -1;
        }
    }
    if (nsc_dense_lu(m, F, m, ws->ipiv) != 0) return -1;
    for (size_t k = 0; k < (size_t)m * m; k++) ws->Binv[k] = 0;
    for (int i = 0; i < m; i++) ws->Binv[i + (size_t)i * m] = 1;
    nsc_dense_lusolve(0, m, m, F, m, ws->ipiv, ws->Binv, m); /* B^{-1} = F\I */
    memcpy(ws->x, p->q, (size_t)m * sizeof(double));
    nsc_dense_lusolve(0, m, 1, F, m, ws->ipiv, ws->x, m); /* x = F\q */
    lemke_rownorms(m, ws->Binv, ws->rn);
    return 0;
}

/* Row leaving the basis when v enters (d = B^{-1} a(v), amax = ||a||_inf), or -1
 * when d has no positive entry (ray). */
static int lemke_ratio(const nsc_lcp *p, const nsc_lcp_ws *ws, double amax)
{
    int m = p->m, best = -1;
    const double *d = ws->d, *x = ws->x, *rn = ws->rn, *Binv = ws->Binv;
    double thmin = INFINITY;
    for (int i = 0; i < m; i++) /* theta_min = min x_i/d_i over d_i > 0 */
        if (d[i] > PIV_EPS * rn[i] * amax) thmin = fmin(thmin, fmax(x[i], 0) / d[i]);
    if (thmin == INFINITY) return -1;
    for (int i = 0; i < m; i++) {
        if (!(d[i] > PIV_EPS * rn[i] * amax)) continue;
        double xs = 0;
        for (int k = 0; k < m; k++)
            xs += fabs(Binv[i + (size_t)k * m] * p->q[k]); /* |B^{-1}(i,:)||q| */
        if (fmax(x[i], 0) / d[i] > thmin + TIE_EPS * xs / d[i]) continue;
        if (ws->basis[i] == 2 * m) return i; /* z0 leaves: solution */
        if (best < 0) {
            best = i;
            continue;
        }
        double si = rn[i] / d[i], sb = rn[best] / d[best], tol = LEX_EPS * fmax(si, sb);
        for (int k = 0; k < m; k++) { /* lexicographic min of B^{-1}(i,:)/d_i */
            double a = Binv[i + (size_t)k * m] / d[i], b = Binv[best + (size_t)k * m] / d[best];
            if (fabs(a - b) <= tol) continue;
            if (a < b) best = i;
            break;
        }
    }
    return best;
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

/* Basis = w (B = I, x = qs), then z0 enters at the row r of min qs (the last
 * tied one: the lexicographic min of (q_i, e_i')/(-1)), keeping x >= 0.
 * Returns r (z_r's complement w_r left: z_r enters next). */
static int lemke_start(const nsc_lcp *ps, nsc_lcp_ws *ws)
{
    int m = ps->m, r = 0;
    double qsmin = INFINITY;
    for (int i = 0; i < m; i++) qsmin = fmin(qsmin, ws->qs[i]);
    for (size_t k = 0; k < (size_t)m * m; k++) ws->Binv[k] = 0;
    for (int i = 0; i < m; i++) { /* basis = w, B = I, x = q */
        ws->Binv[i + (size_t)i * m] = 1;
        ws->basis[i] = i;
        ws->x[i] = ws->qs[i];
        ws->rn[i] = 1;
    }
    for (int i = 0; i < m; i++) /* lexicographic min of (q_i, e_i')/(-1): last tied row */
        if (ws->qs[i] <= qsmin + TIE_EPS * fabs(qsmin)) r = i;
    lemke_column(ps, ws->Binv, 2 * m, ws->d); /* d = -e */
    lemke_pivot(m, ws->Binv, ws->x, ws->d, ws->u, ws->rn, r);
    ws->basis[r] = 2 * m;
    return r;
}

/* Complementary pivoting from z_enter's entry until z0 leaves (OK), no row
 * limits the entering variable (RAY) or LEMKE_MAXITER pivots (MAXITER);
 * B^-1 refactored every max(m, 32) pivots. *iter counts pivots (in: 1, z0's). */
static nsc_lcp_status lemke_run(const nsc_lcp *ps, nsc_lcp_ws *ws, int enter, int *iter)
{
    int m = ps->m, maxiter = LEMKE_MAXITER(m), period = m < 32 ? 32 : m;
    for (;;) {
        if (*iter >= maxiter) return NSC_LCP_MAXITER;
        if (*iter % period == 0) lemke_refactor(ps, ws);
        double amax = lemke_column(ps, ws->Binv, enter, ws->d);
        int r = lemke_ratio(ps, ws, amax);
        if (r < 0) return NSC_LCP_RAY;
        int leave = ws->basis[r];
        lemke_pivot(m, ws->Binv, ws->x, ws->d, ws->u, ws->rn, r);
        ws->basis[r] = enter;
        (*iter)++;
        if (leave == 2 * m) return NSC_LCP_OK;     /* z0 left: complementary basis */
        enter = leave < m ? leave + m : leave - m; /* complement of the leaving variable */
    }
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
    int iter = 1, r = lemke_start(&ps, ws);
    nsc_lcp_status st = lemke_run(&ps, ws, m + r, &iter);
    lemke_finish(&ps, ws, z, st == NSC_LCP_OK);
    info->iter = iter;
    info->residual = lemke_output(p, ws, z, w);
    nsc_lcp_ws_free(own);
    return st;
}
