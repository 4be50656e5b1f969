/* flow.c -- the exact flow of an LCS in one mode (flow.h explains the method). */
#include "flow.h"
#include "la_dense.h"
#include "onestep_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void nsc_flow_src(double a, double b, double h, double S[4])
{
    /* e^{h J}, J = [0 1; -a -b]: scaled to norm <= 1/2, Taylor to 16 terms, squared back */
    double nrm = fabs(h) * (1 + fabs(a) + fabs(b));
    int s = nrm > 0.5 ? (int)ceil(log2(nrm / 0.5)) : 0;
    double f = h / ldexp(1.0, s), J[4] = { 0, -a * f, f, -b * f }; /* column-major */
    double T[4] = { 1, 0, 0, 1 }, E[4] = { 1, 0, 0, 1 }, X[4];
    for (int k = 1; k <= 16; k++) { /* T <- T J / k, E += T */
        X[0] = (T[0] * J[0] + T[2] * J[1]) / k;
        X[1] = (T[1] * J[0] + T[3] * J[1]) / k;
        X[2] = (T[0] * J[2] + T[2] * J[3]) / k;
        X[3] = (T[1] * J[2] + T[3] * J[3]) / k;
        memcpy(T, X, sizeof T);
        for (int q = 0; q < 4; q++) E[q] += T[q];
    }
    for (int i = 0; i < s; i++) {
        X[0] = E[0] * E[0] + E[2] * E[1];
        X[1] = E[1] * E[0] + E[3] * E[1];
        X[2] = E[0] * E[2] + E[2] * E[3];
        X[3] = E[1] * E[2] + E[3] * E[3];
        memcpy(E, X, sizeof E);
    }
    memcpy(S, E, sizeof E);
}

/* The one-step map A (N x N) of the augmented state from G (the step's affine
 * map on [z0; w0; w1; 1], nout = n + m rows) and the sources' flows over h:
 * rows z: z1 = Gz z0 + Gw0 (p + u0) + Gw1 (p + u1) + g, (u1, v1) = S_j (u0, v0);
 * rows p, 1: identity; rows (u_j, v_j): S_j. rows selects z (0) or the pairs (1:
 * the m pair rows instead of z, an m x N matrix into A). */
static void augment(const nsc_flow *F, const double *G, double h, const double *sa,
                    const double *sb, int rows, double *A)
{
    int n = F->n, m = F->m, ns = F->nsrc, N = F->N, nout = n + m, r0 = rows ? n : 0,
        nr = rows ? m : n;
    int lda = rows ? m : N;
    memset(A, 0, sizeof(double) * (size_t)lda * (size_t)N);
#define GC(c) (G + (size_t)(c)*nout + r0)
#define AC(c) (A + (size_t)(c)*lda)
    for (int k = 0; k < n; k++) memcpy(AC(k), GC(k), sizeof(double) * (size_t)nr);
    for (int j = 0; j < ns; j++) {
        double S[4];
        nsc_flow_src(sa[j], sb[j], h, S);
        const double *g0 = GC(n + j), *g1 = GC(n + ns + j);
        double *cp = AC(n + j), *cu = AC(n + ns + j), *cv = AC(n + 2 * ns + j);
        for (int i = 0; i < nr; i++) {
            cp[i] = g0[i] + g1[i];
            cu[i] = g0[i] + g1[i] * S[0];
            cv[i] = g1[i] * S[2];
        }
        if (rows) continue;
        cp[n + j] = 1;                                    /* p' = 0 */
        cu[n + ns + j] = S[0], cu[n + 2 * ns + j] = S[1]; /* (u, v) <- S (u, v) */
        cv[n + ns + j] = S[2], cv[n + 2 * ns + j] = S[3];
    }
    memcpy(AC(N - 1), GC(n + 2 * ns), sizeof(double) * (size_t)nr);
    if (!rows) AC(N - 1)[N - 1] = 1;
#undef GC
#undef AC
}

/* The affine map of P in mode mask into G, augmented into A (N x N) and, when
 * out, its pair rows into out (m x N): one set of the mode's solves for both. */
static int step_map(nsc_flow *F, nsc_onestep *P, const char *mask, const double *sa,
                    const double *sb, double *G, double *A, double *out)
{
    int s = nsc_onestep_affine(P, mask, G, F->dinv);
    if (s) return s;
    augment(F, G, nsc_onestep_h(P), sa, sb, 0, A);
    if (out) augment(F, G, nsc_onestep_h(P), sa, sb, 1, out);
    return 0;
}

/* act: the columns of A0, A1 (N x N) and of the pair rows pr, pr1 (m x N, their
 * constant column aside; pr1 NULL unless keep_ie) not all zero; A0, A1 compacted
 * in place to those columns (N x na). 0, or -1 on ENOMEM. */
static int active(nsc_flow *F, double *A0, double *A1, const double *pr, const double *pr1)
{
    int N = F->N, m = F->m, na = 0;
    F->act = malloc(sizeof(int) * (size_t)N);
    F->xa = malloc(sizeof(double) * (size_t)N);
    if (!F->act || !F->xa) return -1;
    for (int c = 0; c < N; c++) {
        int nz = 0;
        for (int r = 0; r < N && !nz; r++)
            nz = A0[(size_t)c * N + r] != 0 || A1[(size_t)c * N + r] != 0;
        for (int r = 0; r < m && c < N - 1 && !nz; r++) nz = pr[(size_t)c * m + r] != 0;
        for (int r = 0; r < m && c < N - 1 && pr1 && !nz; r++) nz = pr1[(size_t)c * m + r] != 0;
        if (nz) F->act[na++] = c;
    }
    F->na = na;
    F->nau = na && F->act[na - 1] == N - 1 ? na - 1 : na;
    for (int j = 0; j < na; j++) { /* in place: act[j] >= j */
        memmove(A0 + (size_t)j * N, A0 + (size_t)F->act[j] * N, sizeof(double) * (size_t)N);
        memmove(A1 + (size_t)j * N, A1 + (size_t)F->act[j] * N, sizeof(double) * (size_t)N);
    }
    return 0;
}

/* T = X X on the compacted columns (X: N x na, columns act): column j of the
 * square is X times X's column j read at the rows act (the other columns of X
 * are zero). Column by column with nsc_dense_gemv_small, no BLAS call: no BLAS
 * buffers or threads (OpenBLAS reserves tens of MB of address space at its
 * first level-3 call: a 200 MB ulimit run failed). */
static void square(const nsc_flow *F, const double *X, double *T)
{
    int N = F->N, na = F->na;
    for (int j = 0; j < na; j++) {
        for (int q = 0; q < na; q++) F->xa[q] = X[(size_t)j * N + F->act[q]];
        nsc_dense_gemv_small(N, na, X, F->xa, T + (size_t)j * N);
    }
}

/* phi[0..K]: Richardson's combination of the squarings of A0 (h0) and A1 (h0 / 2). */
static void chain(nsc_flow *F, double *A0, double *A1, double *T)
{
    size_t NA = (size_t)F->N * (size_t)F->na;
    square(F, A1, T); /* A1 <- A1^2: also over h0 */
    memcpy(A1, T, NA * sizeof(double));
    for (int i = 0; i <= F->K; i++) {
        double *P = F->phi + (size_t)i * NA;
        for (size_t q = 0; q < NA; q++) P[q] = 2 * A1[q] - A0[q];
        if (i == F->K) break;
        square(F, A0, T);
        memcpy(A0, T, NA * sizeof(double));
        square(F, A1, T);
        memcpy(A1, T, NA * sizeof(double));
    }
}

/* The distinct rows of the pair rows out (m x N) without its constant column
 * (the segments of one PWL device share their argument: the buck's 50 pair
 * rows are 6 distinct ones and 12 constants), read at the columns act[0..nau)
 * only (active(): out is zero in the others, so rows equal there are equal):
 * U (nu x nau), umap[i] the row of pair i (nu: none), cst[i] its constant.
 * Comparing at act (not all N columns) and each row with the distinct rows
 * found before it (not every earlier pair) keeps this m nu nau: m^2 N took
 * 0.07 s CPU a flow for 500 diodes on a 500-node ladder, and m^2 nau 5 M of
 * the 15-inverter cascade's 8.5 M instructions (630 pairs, 3.5 M now). 0, or
 * -1 on ENOMEM. */
static int dedup(nsc_flow *F, const double *out)
{
    int m = F->m, N = F->N, na = F->nau, nu = 0;
    const int *act = F->act;
    int *rep = malloc(sizeof(int) * ((size_t)m + 1)); /* rep[u]: the first pair of row u */
    F->umap = malloc(sizeof(int) * ((size_t)m + 1));
    F->cst = malloc(sizeof(double) * ((size_t)m + 1));
    F->U = malloc(sizeof(double) * ((size_t)m * (size_t)na + 1));
    if (!rep || !F->umap || !F->cst || !F->U) {
        free(rep);
        return -1;
    }
#define OUT(i, q) out[(i) + (size_t)act[q] * m]
    /* Row equality (==, entry by entry) is an equivalence on the rows it
     * holds for (a row with a NaN equals none), so the first earlier pair
     * whose row equals row i is in the class of its representative rep[v]:
     * the same u as comparing with every earlier pair. */
    for (int i = 0; i < m; i++) {
        F->cst[i] = out[i + (size_t)(N - 1) * m];
        int zero = 1, u = -1;
        for (int q = 0; q < na && zero; q++) zero = OUT(i, q) == 0;
        for (int v = 0; v < nu && u < 0 && !zero; v++) {
            int same = 1;
            for (int q = 0; q < na && same; q++) same = OUT(i, q) == OUT(rep[v], q);
            if (same) u = v;
        }
        if (!zero && u < 0) rep[u = nu++] = i;
        F->umap[i] = zero ? -1 : u;
    }
    free(rep);
    F->nu = nu;
    for (int i = 0; i < m; i++)              /* U's rows: nu, column-major */
        if (F->umap[i] < 0) F->umap[i] = nu; /* (nsc_flow_pairs: the zero slot) */
        else
            for (int q = 0; q < na; q++) F->U[F->umap[i] + (size_t)q * nu] = OUT(i, q);
#undef OUT
    return 0;
}

/* F->ie (flow.h): block b the z rows of the compacted step map A (N x na) and
 * the pair rows pr (m x N) at the columns act. 0, or -1 on ENOMEM. */
static int keep_steps(nsc_flow *F, const double *A0, const double *A1, const double *pr0,
                      const double *pr1)
{
    int n = F->n, m = F->m, N = F->N, na = F->na, nr = n + m;
    if (!(F->ie = malloc(sizeof(double) * (2 * (size_t)nr * (size_t)na + 1)))) return -1;
    for (int b = 0; b < 2; b++) {
        const double *A = b ? A1 : A0, *pr = b ? pr1 : pr0;
        double *Y = F->ie + (size_t)b * nr * na;
        for (int j = 0; j < na; j++) {
            memcpy(Y + (size_t)j * nr, A + (size_t)j * N, sizeof(double) * (size_t)n);
            memcpy(Y + (size_t)j * nr + n, pr + (size_t)F->act[j] * m, sizeof(double) * (size_t)m);
        }
    }
    return 0;
}

void nsc_flow_ie(const nsc_flow *F, int half, const double *x, double *y)
{
    int nr = F->n + F->m;
    for (int j = 0; j < F->na; j++) F->xa[j] = x[F->act[j]];
    nsc_dense_gemv_small(nr, F->na, F->ie + (size_t)(half != 0) * nr * F->na, F->xa, y);
}

int nsc_flow_build(nsc_onestep *P0, nsc_onestep *P1, const char *mask, const double *sa,
                   const double *sb, int K, int keep_ie, nsc_flow **out)
{
    *out = NULL;
    nsc_flow *F = calloc(1, sizeof *F);
    if (!F) return -1;
    F->n = P0->n;
    F->m = P0->m;
    F->nsrc = P0->L->nsrc;
    F->N = F->n + 3 * F->nsrc + 1;
    F->K = K;
    F->h0 = nsc_onestep_h(P0);
    int n = F->n, m = F->m, N = F->N, ncol = n + 2 * F->nsrc + 1;
    size_t NN = (size_t)N * (size_t)N;
    double *G = malloc(sizeof(double) * (size_t)(n + m) * (size_t)ncol);
    double *A0 = malloc(sizeof(double) * NN), *A1 = malloc(sizeof(double) * NN),
           *T = malloc(sizeof(double) * NN);
    double *pr = malloc(sizeof(double) * ((size_t)m * (size_t)N + 1)); /* the pair rows at h0 */
    double *pr1 = keep_ie ? malloc(sizeof(double) * ((size_t)m * (size_t)N + 1))
                          : NULL; /* and h0 / 2 */
    F->dinv = malloc(sizeof(double) * ((size_t)m + 1));
    int s = -1;
    if (G && A0 && A1 && T && pr && F->dinv && (pr1 || !keep_ie)) {
        s = step_map(F, P0, mask, sa, sb, G, A0, pr);
        if (!s) s = step_map(F, P1, mask, sa, sb, G, A1, pr1);
        if (!s
            && (active(F, A0, A1, pr, pr1) || dedup(F, pr)
                || (keep_ie && keep_steps(F, A0, A1, pr, pr1))
                || !(F->phi = malloc(sizeof(double) * (size_t)N * (size_t)F->na * (size_t)(K + 1)
                                     + 1))))
            s = -1;
        if (!s) chain(F, A0, A1, T);
    }
    free(G);
    free(A0);
    free(A1);
    free(T);
    free(pr);
    free(pr1);
    if (s) {
        nsc_flow_free(F);
        return s;
    }
    *out = F;
    return 0;
}

void nsc_flow_free(nsc_flow *F)
{
    if (!F) return;
    free(F->phi);
    free(F->dinv);
    free(F->umap);
    free(F->cst);
    free(F->U);
    free(F->act);
    free(F->xa);
    free(F->ie);
    free(F);
}

void nsc_flow_advance(const nsc_flow *F, long k, const double *x, double *y, double *work)
{
    int N = F->N, na = F->na;
    size_t NA = (size_t)N * (size_t)na;
    if (y != x) memcpy(y, x, sizeof(double) * (size_t)N);
    for (int i = F->K; i >= 0 && k > 0; i--) {
        long bit = 1L << i;
        while (k >= bit) { /* (more than once only at level K) */
            k -= bit;
            for (int j = 0; j < na; j++) work[j] = y[F->act[j]];
            nsc_dense_gemv_small(N, na, F->phi + (size_t)i * NA, work, y);
        }
    }
}

void nsc_flow_rows(const nsc_flow *F, const double *x, double *w)
{
    for (int j = 0; j < F->nau; j++) F->xa[j] = x[F->act[j]];
    nsc_dense_gemv_small(F->nu, F->nau, F->U, F->xa, w);
    w[F->nu] = 0; /* (umap = nu: a constant row) */
}

void nsc_flow_expand(const nsc_flow *F, const double *w, double one, double *g)
{
    for (int i = 0; i < F->m; i++) g[i] = w[F->umap[i]] + F->cst[i] * one;
}

void nsc_flow_pairs(const nsc_flow *F, const double *x, double *g, double *work)
{
    nsc_flow_rows(F, x, work);
    nsc_flow_expand(F, work, x[F->N - 1], g);
}
