/* onestep_map.c -- affine maps of the modes of small problems (onestep.h).
 *
 * In a fixed mode, the step is affine in u = [z0(zcol); w0(w0col); w1(w1col); 1]:
 * the mode's right-hand side is (onestep.c, onestep_mode.c)
 *     [ R z0 + sc + Sw1 w1 + Sw0 w0 - c - sum_{S active, Se} B_j (Se_j w1) / D_jj ;
 *       -(e0 + Se w1)_Na ],
 * so column k of G is K^-1 times the right-hand side's derivative in u_k
 * (followed by the pair rows, whose e adds e0 to the constant column and Se to
 * the w1 columns). */
#include "onestep_map.h"
#include "la_dense.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct nsc_map {
    int ncol, nz, nw0, nw1;    /* ncol = nz + nw0 + nw1 + 1 */
    int *zcol, *w0col, *w1col; /* the inputs */
    double *u;                 /* [ncol] work */
    double *out;               /* [n + m] work */
    double *ed;                /* [m] work: d e / d u_k */
};

void nsc_map_free(nsc_map *Q)
{
    if (!Q) return;
    free(Q->zcol);
    free(Q->w0col);
    free(Q->w1col);
    free(Q->u);
    free(Q->out);
    free(Q->ed);
    free(Q);
}

int nsc_map_hits(const nsc_map *Q)
{
    return Q->ncol > NSC_MAP_HITS ? Q->ncol : NSC_MAP_HITS;
}

int nsc_map_setup(nsc_onestep *P)
{
    P->map = NULL;
    if (!(P->st.h > 0) || !P->st.R || P->st.kap)
        return 0; /* (pairs at the theta point: e reads z0) */
    const nsc_lcs *L = P->L;
    int n = P->n, m = P->m, nsrc = L->nsrc;
    nsc_map *Q = nsc_calloc(1, sizeof *Q);
    if (!Q) return -1;
    Q->zcol = nsc_calloc((size_t)n + 1, sizeof(int));
    Q->w0col = nsc_calloc((size_t)nsrc + 1, sizeof(int));
    Q->w1col = nsc_calloc((size_t)nsrc + 1, sizeof(int));
    if (!Q->zcol || !Q->w0col || !Q->w1col) {
        nsc_map_free(Q);
        return -1;
    }
    for (int k = 0; k < n; k++)
        if (P->st.R->p[k + 1] > P->st.R->p[k]) Q->zcol[Q->nz++] = k;
    for (int q = 0; q < nsrc; q++) {
        if (P->st.Sw0->p[q + 1] > P->st.Sw0->p[q]) Q->w0col[Q->nw0++] = q;
        if (P->st.Sw1->p[q + 1] > P->st.Sw1->p[q] || L->Se->p[q + 1] > L->Se->p[q])
            Q->w1col[Q->nw1++] = q;
    }
    Q->ncol = Q->nz + Q->nw0 + Q->nw1 + 1;
    if ((double)(n + m) * Q->ncol > NSC_MAP_MAX) {
        nsc_map_free(Q);
        return 0;
    }
    Q->u = nsc_calloc((size_t)Q->ncol, sizeof(double));
    Q->out = nsc_calloc((size_t)(n + m) + 1, sizeof(double));
    Q->ed = nsc_calloc((size_t)m + 1, sizeof(double));
    if (!Q->u || !Q->out || !Q->ed) {
        nsc_map_free(Q);
        return -1;
    }
    P->map = Q;
    return 0;
}

/* The size of the terms of g_i = C_i z + D_i l_Na + e_i at z = out[0..n) and
 * l_Na (out[n + j], j active N): the scale of the sparse check's tolerance. */
static double pair_size(const nsc_onestep *P, const nsc_mode *M, int i, const double *out)
{
    const nsc_sparse *Ct = P->pat.Ct, *Dt = P->pat.Dt;
    double s = fabs(nsc_pair_e(P, i));
    for (int k = Ct->p[i]; k < Ct->p[i + 1]; k++) s += fabs(Ct->x[k] * out[Ct->i[k]]);
    if (!P->pat.sep[i])
        for (int k = Dt->p[i]; k < Dt->p[i + 1]; k++) {
            int j = Dt->i[k];
            if (M->mask[j] && !P->pat.sep[j]) s += fabs(Dt->x[k] * out[P->n + j]);
        }
    return s;
}

/* The cancellation test of map G (onestep.h, NSC_MAP_CANCEL) at inputs u with
 * the sparse solution x = [z1; l_Na]: every row's terms sum_j |G_ij| U_j,
 * U_j = max(|u_j|, the largest |u| of its kind: node voltage, branch current,
 * source value), within NSC_MAP_CANCEL of the row's scale (|value| plus the
 * largest |z1| of its kind; a pair row: the size of the terms of g_i plus the
 * largest such size over the pairs). */
static int map_accurate(const nsc_onestep *P, const nsc_mode *M, const double *G, const double *u,
                        const double *x)
{
    const nsc_map *Q = P->map;
    int n = P->n, m = P->m, nout = n + m, nz = P->L->nnode_z;
    double S[3] = { 0, 0, 0 }, T[2] = { 0, 0 }; /* input kinds: V, I, source */
    int *kind = malloc(sizeof(int) * (size_t)Q->ncol);
    double *U = malloc(sizeof(double) * (size_t)Q->ncol),
           *out = malloc(sizeof(double) * (size_t)nout);
    int ok = 0;
    if (!kind || !U || !out) goto done;
    for (int c = 0; c < Q->ncol; c++) {
        kind[c] = c < Q->nz ? (Q->zcol[c] < nz ? 0 : 1) : c < Q->ncol - 1 ? 2 : -1;
        if (kind[c] >= 0 && fabs(u[c]) > S[kind[c]]) S[kind[c]] = fabs(u[c]);
    }
    for (int c = 0; c < Q->ncol; c++) U[c] = kind[c] < 0 ? 1.0 : fmax(fabs(u[c]), S[kind[c]]);
    for (int i = 0; i < n; i++) T[i >= nz] = fmax(T[i >= nz], fabs(x[i]));
    memcpy(out, x, sizeof(double) * (size_t)n); /* z1, then l of the active N pairs by pair */
    for (int a = 0; a < M->nan; a++) out[n + M->actn[a]] = x[n + a];
    double Tp = 0; /* the largest pair row scale */
    for (int i = 0; i < m; i++) Tp = fmax(Tp, pair_size(P, M, i, out));
    ok = 1;
    for (int i = 0; ok && i < nout; i++) {
        double c = 0;
        for (int j = 0; j < Q->ncol; j++) c += fabs(G[i + (size_t)j * nout]) * U[j];
        double scale = i < n ? fabs(x[i]) + T[i >= nz] : pair_size(P, M, i - n, out) + Tp;
        ok = c <= NSC_MAP_CANCEL * scale;
    }
done:
    free(kind);
    free(U);
    free(out);
    return ok;
}

/* Column g (n + m) of mode M's affine map for the input (kind, k): kind 0 z0_k
 * (R(:,k)), 1 w0_k (Sw0(:,k)), 2 w1_k (Sw1(:,k), Se(:,k)), 3 the constant (sc - c,
 * -e0_Na): K^-1 times the right-hand side's derivative, then per pair l_i
 * (active N) or g_i = C_i z + D_i l_Na + e_i. P->pat.posn must index M's active N
 * pairs; ed: [m] work. 0, or -1 when the solve fails. */
int nsc_map_column(nsc_onestep *P, nsc_mode *M, int kind, int k, double *g, double *ed)
{
    const nsc_lcs *L = P->L;
    int n = P->n, m = P->m, N = n + M->nan;
    double *x = P->st.x;
    const nsc_sparse *B = P->st.B, *Ct = P->pat.Ct, *Dt = P->pat.Dt, *Se = L->Se;
    memset(x, 0, sizeof(double) * (size_t)N);
    memset(ed, 0, sizeof(double) * (size_t)m);
    if (kind == 0) { /* z0_k: R(:,k) */
        for (int q = P->st.R->p[k]; q < P->st.R->p[k + 1]; q++) x[P->st.R->i[q]] = P->st.R->x[q];
    } else if (kind == 1) { /* w0_k: Sw0(:,k) */
        for (int q = P->st.Sw0->p[k]; q < P->st.Sw0->p[k + 1]; q++)
            x[P->st.Sw0->i[q]] = P->st.Sw0->x[q];
    } else if (kind == 2) { /* w1_k: Sw1(:,k), Se(:,k) */
        for (int q = P->st.Sw1->p[k]; q < P->st.Sw1->p[k + 1]; q++)
            x[P->st.Sw1->i[q]] = P->st.Sw1->x[q];
        for (int q = Se->p[k]; q < Se->p[k + 1]; q++) {
            int i = Se->i[q];
            double v = Se->x[q];
            ed[i] += v;
            if (!M->mask[i]) continue;
            if (P->pat.sep[i])
                for (int b = B->p[i]; b < B->p[i + 1]; b++)
                    x[B->i[b]] -= B->x[b] * v * P->pat.dinv[i];
            else x[n + P->pat.posn[i]] -= v;
        }
    } else { /* 1: sc - c, -e0_Na */
        for (int i = 0; i < n; i++) x[i] = P->st.sc[i] - M->c[i];
        for (int a = 0; a < M->nan; a++) x[n + a] = -L->e0[M->actn[a]];
        memcpy(ed, L->e0, sizeof(double) * (size_t)m);
    }
    if (nsc_klu_solve(M->F, x, 1)) return -1; /* G(:,c) = K \ rhs_c */
    memcpy(g, x, sizeof(double) * (size_t)n);
    for (int i = 0; i < m; i++) {
        if (M->mask[i] && !P->pat.sep[i]) {
            g[n + i] = x[n + P->pat.posn[i]];
            continue;
        }
        double v = ed[i]; /* g_i = C_i z + D_i l_Na + e_i */
        for (int q = Ct->p[i]; q < Ct->p[i + 1]; q++) v += Ct->x[q] * x[Ct->i[q]];
        if (!P->pat.sep[i])
            for (int q = Dt->p[i]; q < Dt->p[i + 1]; q++)
                if (P->pat.posn[Dt->i[q]] >= 0) v += Dt->x[q] * x[n + P->pat.posn[Dt->i[q]]];
        g[n + i] = v;
    }
    return 0;
}

int nsc_map_build(nsc_onestep *P, nsc_mode *M, const double *z0, const double *w0, const double *w1,
                  const double *z1)
{
    nsc_map *Q = P->map;
    int n = P->n, m = P->m, nout = n + m, N = n + M->nan;
    if (!Q || M->singular || M->G) return 0;
    double *G = nsc_calloc((size_t)nout * (size_t)Q->ncol, sizeof(double));
    double *xs = malloc(sizeof(double) * (size_t)N); /* the step's sparse solution */
    if (!G || !xs) {
        free(G);
        free(xs);
        return -1;
    }
    memcpy(xs, P->st.x, sizeof(double) * (size_t)N);
    for (int a = 0; a < M->nan; a++) P->pat.posn[M->actn[a]] = a;
    int ret = -1;
    for (int c = 0; c < Q->ncol; c++) {
        int kind = c < Q->nz ? 0 : c < Q->nz + Q->nw0 ? 1 : c < Q->ncol - 1 ? 2 : 3;
        int k = kind == 0   ? Q->zcol[c]
                : kind == 1 ? Q->w0col[c - Q->nz]
                : kind == 2 ? Q->w1col[c - Q->nz - Q->nw0]
                            : 0;
        if (nsc_map_column(P, M, kind, k, G + (size_t)c * nout, Q->ed)) goto done;
    }
    ret = 0;
    int c = 0; /* the inputs of this step */
    for (int a = 0; a < Q->nz; a++) Q->u[c++] = z0[Q->zcol[a]];
    for (int a = 0; a < Q->nw0; a++) Q->u[c++] = w0[Q->w0col[a]];
    for (int a = 0; a < Q->nw1; a++) Q->u[c++] = w1[Q->w1col[a]];
    Q->u[c] = 1.0;
    P->st.e1 = NULL;
    P->st.w1 = w1;
    if (map_accurate(P, M, G, Q->u, xs)) {
        M->G = G;
        G = NULL;
    } else {
        M->nomap = 1;
    }
    (void)z1;
done:
    for (int a = 0; a < M->nan; a++) P->pat.posn[M->actn[a]] = -1;
    free(G);
    free(xs);
    return ret;
}

int nsc_map_try(nsc_onestep *P, nsc_mode *M, const double *z0, const double *w0, const double *w1,
                double *z1, double *l, double *res)
{
    nsc_map *Q = P->map;
    int n = P->n, m = P->m, nout = n + m, ncol = Q->ncol;
    double *u = Q->u, *out = Q->out;
    const double *G = M->G;
    int c = 0;
    for (int a = 0; a < Q->nz; a++) u[c++] = z0[Q->zcol[a]];
    for (int a = 0; a < Q->nw0; a++) u[c++] = w0[Q->w0col[a]];
    for (int a = 0; a < Q->nw1; a++) u[c++] = w1[Q->w1col[a]];
    u[c] = 1.0;
    nsc_dense_gemv_small(nout, ncol, G, u, out); /* out = G u */
    const double *y = out + n;
    const char *mask = M->mask;
    P->st.e1 = NULL; /* e = e0 + Se w1 (pair_size) */
    P->st.w1 = w1;
    double lmax = 0, viol = 0;
    for (int a = 0; a < M->nan; a++) {
        double v = fabs(y[M->actn[a]]);
        if (v > lmax) lmax = v;
    }
    for (int i = 0; i < m; i++) {
        double v = y[i], li = 0;
        if (mask[i]) {
            if (P->pat.sep[i]) { /* S active: l = -g / D_ii >= 0 */
                if (v > 0 && v > NSC_MODE_TOL * pair_size(P, M, i, out)) return 0;
                li = -v * P->pat.dinv[i];
            } else { /* N active: l >= 0 */
                if (v < -NSC_MODE_TOL * lmax) return 0;
                li = v;
            }
        } else if (v < 0) { /* inactive: y = g >= 0 */
            if (v < -NSC_MODE_TOL * pair_size(P, M, i, out)) return 0;
            if (-v > viol) viol = -v;
        }
        l[i] = li > 0 ? li : 0.0;
    }
    memcpy(z1, out, sizeof(double) * (size_t)n);
    *res = viol;
    return 1;
}

/* 1 when column k of S has no entry (kind 2 also looks at Se). */
static int column_empty(const nsc_onestep *P, int kind, int k)
{
    if (kind == 0) return P->st.R->p[k + 1] == P->st.R->p[k];
    if (kind == 1) return P->st.Sw0->p[k + 1] == P->st.Sw0->p[k];
    return P->st.Sw1->p[k + 1] == P->st.Sw1->p[k] && P->L->Se->p[k + 1] == P->L->Se->p[k];
}

int nsc_onestep_affine(nsc_onestep *P, const char *mask, double *G, double *dinv)
{
    int n = P->n, m = P->m, nsrc = P->L->nsrc, nout = n + m, ncol = n + 2 * nsrc + 1;
    if (!(P->st.h > 0) || !P->st.R) return -1;
    nsc_mode *M = nsc_mode_get(P, mask);
    if (!M) return -1;
    if (M->singular) return 1;
    double *ed = malloc(sizeof(double) * ((size_t)m + 1));
    if (!ed) return -1;
    for (int a = 0; a < M->nan; a++) P->pat.posn[M->actn[a]] = a;
    int ret = 0;
    memset(G, 0, sizeof(double) * (size_t)nout * (size_t)ncol);
    for (int c = 0; c < ncol && !ret; c++) {
        int kind = c < n ? 0 : c < n + nsrc ? 1 : c < n + 2 * nsrc ? 2 : 3;
        int k = kind == 0 ? c : kind == 1 ? c - n : kind == 2 ? c - n - nsrc : 0;
        if (kind < 3 && column_empty(P, kind, k)) continue;
        if (nsc_map_column(P, M, kind, k, G + (size_t)c * nout, ed)) ret = -1;
    }
    for (int a = 0; a < M->nan; a++) P->pat.posn[M->actn[a]] = -1;
    for (int i = 0; dinv && i < m; i++) dinv[i] = P->pat.sep[i] ? P->pat.dinv[i] : 0.0;
    free(ed);
    return ret;
}
