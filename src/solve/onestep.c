/* onestep.c -- the one-step problem of the theta-scheme (see onestep.h):
 * building it (hidden algebraic rows, W, R, the source matrices), the right-hand
 * side, and the solution driver (previous mode, active set, dense or block
 * pivoting). The mode systems are in onestep_mode.c. */
#include "onestep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onestep_map.h"

int nsc_solver_parse(const char *name)
{
    if (!name || nsc_strieq(name, "auto")) return NSC_SOLVER_AUTO;
    if (nsc_strieq(name, "lemke")) return NSC_SOLVER_LEMKE;
    if (nsc_strieq(name, "enum")) return NSC_SOLVER_ENUM;
    return -1;
}

void nsc_onestep_free(nsc_onestep *P)
{
    if (!P) return;
    nsc_mode_teardown(P);
    nsc_map_free(P->map);
    free(P->th);
    free(P->sw);
    free(P->alg_rep);
    free(P->alg_cp);
    free(P->alg_row);
    free(P->alg_v);
    free(P->ts);
    nsc_sp_free(P->Bt);
    nsc_sp_free(P->W);
    nsc_sp_free(P->R);
    nsc_klu_free(P->F);
    free(P->sc);
    nsc_sp_free(P->Sw1);
    nsc_sp_free(P->Sw0);
    free(P->ebuf);
    free(P->WiB);
    free(P->M);
    nsc_lcp_ws_free(P->ws);
    free(P->r);
    free(P->q);
    free(P->w);
    free(P->prev);
    free(P->mask);
    free(P->mask2);
    free(P->lt);
    free(P->x);
    free(P->zl);
    free(P->ll);
    free(P);
}

/* Theta_ii = theta where row i of E holds a nonzero, theta_alg (1 but in the
 * adaptive transient) on algebraic rows, 1 on the rows marked exact (lcs.h
 * z_exact). At theta_alg = 1/2 an algebraic row holds for the step's mean,
 *   (x_k + x_k+1)/2 = f-part + B lambda_k+1,
 * while a PWL map's pairs hold at t_k+1: the output of V = abs(V(in)) then
 * alternates about the right value by 2 (mu_k+1 - mu_k) every step. */
static void row_theta(const nsc_sparse *E, const unsigned char *exact, double theta, double theta_alg, int n,
                      double *th)
{
    for (int i = 0; i < n; i++) th[i] = exact && exact[i] ? 1.0 : theta_alg;
    if (!E) return;
    for (int j = 0; j < E->n; j++)
        for (int k = E->p[j]; k < E->p[j + 1]; k++)
            if (E->x[k] != 0) th[E->i[k]] = theta;
}

/* Copy of CSC A with row i scaled by s[i]. */
static nsc_sparse *scaled_rows(const nsc_sparse *A, const double *s)
{
    nsc_sparse *S = nsc_sp_add(A, A, 1.0, 0.0);
    if (S) nsc_sp_scale_rows(S, s);
    return S;
}

/* Remove the entries of CSC A that are exactly zero (a matrix only multiplied, never factored). */
static void drop_zeros(nsc_sparse *A)
{
    if (!A) return;
    int t = 0;
    for (int j = 0; j < A->n; j++) {
        int k0 = A->p[j];
        A->p[j] = t;
        for (int k = k0; k < A->p[j + 1]; k++)
            if (A->x[k] != 0) { A->i[t] = A->i[k]; A->x[t++] = A->x[k]; }
    }
    A->p[A->n] = t;
}

nsc_status nsc_onestep_new(const nsc_lcs *L, double h, double theta, nsc_onestep **out,
                           nsc_report *rep)
{
    return nsc_onestep_new_sw(L, h, theta, NULL, out, rep);
}

void nsc_onestep_take_mode(nsc_onestep *P, const nsc_onestep *from)
{
    if (P == from || !from->have_prev || P->m != from->m) return;
    memcpy(P->prev, from->prev, (size_t)P->m);
    P->have_prev = 1;
    P->cur = -1;
    P->inc_ok = 0;                                               /* l was written by another problem */
}

void nsc_onestep_set_mode(nsc_onestep *P, const char *mode)
{
    P->inc_ok = 0;                                               /* l is the caller's, not P's last */
    if (P->m == 0) return;
    if (!mode) {
        P->have_prev = 0;
        P->cur = -1;
        return;
    }
    if (P->have_prev && memcmp(P->prev, mode, (size_t)P->m) == 0) return;   /* cur stays valid */
    memcpy(P->prev, mode, (size_t)P->m);
    P->have_prev = 1;
    P->cur = -1;
}

/* A with the conductance change g_on - g_off of every switch that is on. NULL on ENOMEM. */
static nsc_sparse *switched_a(const nsc_lcs *L, const char *sw)
{
    nsc_sparse *T = nsc_sp_new(L->n, L->n, 4 * L->nsw + 1, 1);
    if (!T) return NULL;
    int bad = 0;
    for (int j = 0; j < L->nsw; j++) {
        if (!sw[j]) continue;
        const nsc_switch *S = &L->sw[j];
        double dg = S->g_on - S->g_off;
        int a = S->a, k = S->k;
        if (a >= 0) bad |= nsc_sp_entry(T, a, a, -dg);           /* KCL: -dg (v_a - v_k) at a */
        if (a >= 0 && k >= 0) bad |= nsc_sp_entry(T, a, k, dg) | nsc_sp_entry(T, k, a, dg);
        if (k >= 0) bad |= nsc_sp_entry(T, k, k, -dg);
    }
    nsc_sparse *D = bad ? NULL : nsc_sp_compress(T);
    nsc_sp_free(T);
    if (!D) return NULL;
    nsc_sparse *A = nsc_sp_add(L->A, D, 1.0, 1.0);              /* A + dA */
    nsc_sp_free(D);
    return A;
}

/* ---- hidden algebraic rows (formulation.md §2) ----
 * A left null vector v of E (v^T E = 0) makes v^T (E z' - A z - B l - s) = 0 an
 * algebraic constraint hidden in differential rows. T replaces one row (the
 * representative, coefficient 1) of v's support by v^T times the rows; the
 * premultiplied DAE has that row algebraic (theta 1), so the constraint holds at
 * t_k+1 instead of the theta-point (where it rings after switching events).
 * Null vectors are found per connected component S of the graph of E:
 *  - node rows (capacitances): E_S is a weighted Laplacian plus capacitances to
 *    ground, singular exactly when its columns sum to zero: v = 1_S;
 *  - branch rows (inductances, K couplings; |S| <= NSC_ALG_DENSE): the null space
 *    of the symmetric E_S by Cholesky with diagonal pivoting (perfect couplings). */
#define NSC_ALG_DENSE 64

typedef struct alg_t {
    int nc;            /* combinations */
    int *rep;          /* [nc] representative row */
    int *cp;           /* [nc+1] entries of combination c: cp[c] .. cp[c+1]-1 */
    int *row;          /* [nnz] */
    double *v;         /* [nnz] */
    int nnz, cap;
} alg_t;

static void alg_free(alg_t *T)
{
    free(T->rep); free(T->cp); free(T->row); free(T->v);
    memset(T, 0, sizeof *T);
}

/* Append combination (rows[k], v[k]), k < cnt, with representative r. 0 ok, -1 ENOMEM. */
static int alg_add(alg_t *T, int r, const int *rows, const double *v, int cnt)
{
    int *rep = nsc_realloc_array(T->rep, (size_t)T->nc + 1, sizeof(int));
    if (rep) T->rep = rep;
    int *cp = nsc_realloc_array(T->cp, (size_t)T->nc + 2, sizeof(int));
    if (cp) T->cp = cp;
    if (!rep || !cp) return -1;
    if (T->nc == 0) T->cp[0] = 0;
    if (T->nnz + cnt > T->cap) {
        int cap = 2 * (T->nnz + cnt) + 8;
        int *ro = nsc_realloc_array(T->row, (size_t)cap, sizeof(int));
        if (ro) T->row = ro;
        double *vv = nsc_realloc_array(T->v, (size_t)cap, sizeof(double));
        if (vv) T->v = vv;
        if (!ro || !vv) return -1;
        T->cap = cap;
    }
    for (int k = 0; k < cnt; k++) {
        T->row[T->nnz] = rows[k];
        T->v[T->nnz++] = v[k];
    }
    T->rep[T->nc] = r;
    T->cp[++T->nc] = T->nnz;
    return 0;
}

/* Null space of the symmetric positive semidefinite s-by-s A (column-major,
 * destroyed) by Cholesky with diagonal pivoting: appends one combination per
 * null vector over the rows idx[0..s-1]. 0 ok, -1 ENOMEM. */
static int psd_null(alg_t *T, double *A, int s, const int *idx)
{
    int *perm = malloc(sizeof(int) * (size_t)s), *rows = malloc(sizeof(int) * (size_t)s);
    double *x = malloc(sizeof(double) * (size_t)s);
    int ret = -1;
    if (!perm || !rows || !x) goto done;
    double dmax = 0;
    for (int i = 0; i < s; i++) { perm[i] = i; dmax = fmax(dmax, A[i + i * s]); }
    int rank = s;
    for (int k = 0; k < s; k++) {
        int p = k;
        for (int i = k + 1; i < s; i++)
            if (A[i + i * s] > A[p + p * s]) p = i;
        if (!(A[p + p * s] > 1e-10 * dmax)) { rank = k; break; }
        if (p != k) {                                             /* symmetric swap k <-> p */
            for (int i = 0; i < s; i++) { double t = A[k + i * s]; A[k + i * s] = A[p + i * s]; A[p + i * s] = t; }
            for (int i = 0; i < s; i++) { double t = A[i + k * s]; A[i + k * s] = A[i + p * s]; A[i + p * s] = t; }
            int t = perm[k]; perm[k] = perm[p]; perm[p] = t;
        }
        double d = sqrt(A[k + k * s]);
        for (int j = k; j < s; j++) A[k + j * s] /= d;            /* row k of R */
        for (int i = k + 1; i < s; i++)
            for (int j = i; j < s; j++) {
                A[i + j * s] -= A[k + i * s] * A[k + j * s];      /* Schur complement (upper part) */
                A[j + i * s] = A[i + j * s];
            }
    }
    for (int q = rank; q < s; q++) {                              /* v = P^T [-R11^-1 R12 e_q; e_q] */
        for (int k = rank - 1; k >= 0; k--) {
            double t = -A[k + q * s];
            for (int j = k + 1; j < rank; j++) t -= A[k + j * s] * x[j];
            x[k] = t / A[k + k * s];
        }
        int cnt = 0;
        double vv[NSC_ALG_DENSE];
        for (int k = 0; k < rank; k++)
            if (x[k] != 0) { rows[cnt] = idx[perm[k]]; vv[cnt++] = x[k]; }
        rows[cnt] = idx[perm[q]];
        vv[cnt++] = 1.0;
        if (alg_add(T, idx[perm[q]], rows, vv, cnt)) goto done;
    }
    ret = 0;
done:
    free(perm); free(rows); free(x);
    return ret;
}

/* 1 when the s-by-s A is symmetric. A component of E coupling a node row to a
 * branch column alone (a diode's diffusion charge TT i_F', dev_d.c) is not: its
 * left null vectors are the branch rows, already algebraic, so it hides none. */
static int symmetric(const double *A, int s)
{
    for (int i = 0; i < s; i++)
        for (int j = i + 1; j < s; j++)
            if (fabs(A[i + j * s] - A[j + i * s]) > 1e-12 * (fabs(A[i + j * s]) + fabs(A[j + i * s]))) return 0;
    return 1;
}

/* The combinations of E (n-by-n, nnode node rows first). 0 ok, -1 ENOMEM. */
static int algebraic_rows(const nsc_sparse *E, int n, int nnode, alg_t *T)
{
    memset(T, 0, sizeof *T);
    int *uf = malloc(sizeof(int) * ((size_t)n + 1)), *cnt = nsc_calloc((size_t)n + 1, sizeof(int));
    int *idx = malloc(sizeof(int) * ((size_t)n + 1)), *pos = malloc(sizeof(int) * ((size_t)n + 1));
    double *cs = nsc_calloc((size_t)n + 1, sizeof(double)), *ca = nsc_calloc((size_t)n + 1, sizeof(double));
    char *bad = nsc_calloc((size_t)n + 1, 1), *off = nsc_calloc((size_t)n + 1, 1), *rowE = nsc_calloc((size_t)n + 1, 1);
    double *A = NULL, *ones = NULL;
    int ret = -1;
    if (!uf || !cnt || !idx || !pos || !cs || !ca || !bad || !off || !rowE) goto done;
    for (int i = 0; i < n; i++) uf[i] = i;
    for (int j = 0; j < n; j++)
        for (int k = E->p[j]; k < E->p[j + 1]; k++) {
            if (E->x[k] == 0) continue;
            rowE[E->i[k]] = 1;
            int a = E->i[k], b = j;
            cs[j] += E->x[k];                                     /* column sums */
            ca[j] += fabs(E->x[k]);
            while (uf[a] != a) a = uf[a] = uf[uf[a]];
            while (uf[b] != b) b = uf[b] = uf[uf[b]];
            if (a != b) uf[a > b ? a : b] = a < b ? a : b;        /* the root is the lowest row */
            if (E->i[k] != j) off[a < b ? a : b] = 1;
        }
    for (int i = 0; i < n; i++) {
        int a = i;
        while (uf[a] != a) a = uf[a];
        uf[i] = a;
        if (off[i] && i != a) off[a] = 1;
    }
    for (int j = 0; j < n; j++) {
        if (fabs(cs[j]) > 1e-12 * ca[j] || ca[j] == 0) bad[uf[j]] = 1;   /* 1_S^T E != 0 */
        cnt[uf[j]]++;
    }
    for (int r = 0; r < n; r++) {                                 /* components with off-diagonal entries */
        if (uf[r] != r || !off[r]) continue;
        int s = 0, branch = 0;
        for (int i = r; i < n; i++)
            if (uf[i] == r) { pos[i] = s; idx[s++] = i; branch |= i >= nnode; }
        if (!bad[r]) {
            double *o = realloc(ones, sizeof(double) * (size_t)s);
            if (!o) goto done;
            ones = o;
            int sv = 0;                                           /* rows of E in S only: a branch row */
            for (int k = 0; k < s; k++)                           /* without E entries (in S through its */
                if (rowE[idx[k]]) { idx[sv] = idx[k]; ones[sv++] = 1.0; }   /* column) is algebraic already */
            if (alg_add(T, r, idx, ones, sv)) goto done;          /* v = 1_S, representative r */
        } else if (branch && s <= NSC_ALG_DENSE) {
            free(A);
            A = nsc_calloc((size_t)s * (size_t)s, sizeof(double));
            if (!A) goto done;
            for (int k = 0; k < s; k++)
                for (int q = E->p[idx[k]]; q < E->p[idx[k] + 1]; q++) A[pos[E->i[q]] + k * s] = E->x[q];
            if (symmetric(A, s) && psd_null(T, A, s, idx)) goto done;
        }
    }
    ret = 0;
done:
    free(uf); free(cnt); free(idx); free(pos); free(cs); free(ca); free(bad); free(off); free(rowE); free(A); free(ones);
    if (ret) alg_free(T);
    return ret;
}

/* T X as a new CSC matrix; with drop, nothing is added to the representative
 * rows (T E: they vanish up to rounding). NULL on ENOMEM. */
static nsc_sparse *alg_apply(const alg_t *T, const nsc_sparse *X, int drop)
{
    int n = X->m;
    char *isrep = nsc_calloc((size_t)n + 1, 1);
    int *rp = nsc_calloc((size_t)n + 2, sizeof(int));            /* row -> its entries in T */
    int *re = malloc(sizeof(int) * ((size_t)T->nnz + 1));
    nsc_sparse *Tr = NULL, *C = NULL;
    if (!isrep || !rp || !re) goto done;
    for (int c = 0; c < T->nc; c++) isrep[T->rep[c]] = 1;
    for (int e = 0; e < T->nnz; e++) rp[T->row[e] + 1]++;
    for (int i = 0; i < n; i++) rp[i + 1] += rp[i];
    int *fill = malloc(sizeof(int) * ((size_t)n + 1));
    if (!fill) goto done;
    memcpy(fill, rp, sizeof(int) * (size_t)n);
    for (int e = 0; e < T->nnz; e++) re[fill[T->row[e]]++] = e;
    free(fill);
    int *comb = malloc(sizeof(int) * ((size_t)T->nnz + 1));       /* entry -> combination */
    if (!comb) goto done;
    for (int c = 0; c < T->nc; c++)
        for (int e = T->cp[c]; e < T->cp[c + 1]; e++) comb[e] = c;
    Tr = nsc_sp_new(n, X->n, 2 * X->p[X->n] + 1, 1);
    if (!Tr) { free(comb); goto done; }
    for (int j = 0; j < X->n; j++)
        for (int k = X->p[j]; k < X->p[j + 1]; k++) {
            int i = X->i[k];
            if (!isrep[i] && nsc_sp_entry(Tr, i, j, X->x[k])) { free(comb); goto done; }
            for (int q = rp[i]; !drop && q < rp[i + 1]; q++) {
                int e = re[q];
                if (nsc_sp_entry(Tr, T->rep[comb[e]], j, T->v[e] * X->x[k])) { free(comb); goto done; }
            }
        }
    free(comb);
    C = nsc_sp_compress(Tr);
done:
    nsc_sp_free(Tr);
    free(isrep); free(rp); free(re);
    return C;
}

/* out = T s (no combinations: out = s). */
static void alg_vec(const nsc_onestep *P, const double *s, double *out)
{
    memcpy(out, s, (size_t)P->n * sizeof(double));
    for (int c = 0; c < P->nalg; c++) {
        double t = 0;
        for (int e = P->alg_cp[c]; e < P->alg_cp[c + 1]; e++) t += P->alg_v[e] * s[P->alg_row[e]];
        out[P->alg_rep[c]] = t;                                   /* (T s)_rep = v^T s */
    }
}

/* The source matrices of the step: r = R z0 + sc + Sw1 w1 + Sw0 w0 with
 * sc = T s0, Sw1 = Theta T Ss, Sw0 = (I - Theta) T Ss (h = 0: sc = s0, Sw1 = Ss).
 * 0 ok, -1 ENOMEM. */
static int sources_setup(nsc_onestep *P)
{
    const nsc_lcs *L = P->L;
    int n = P->n;
    P->sc = nsc_calloc((size_t)n + 1, sizeof(double));
    if (!P->sc) return -1;
    if (P->h > 0) {
        alg_vec(P, L->s0, P->sc);                                /* sc = T s0 */
        alg_t T = { P->nalg, P->alg_rep, P->alg_cp, P->alg_row, P->alg_v, 0, 0 };
        if (P->nalg > 0) T.nnz = P->alg_cp[P->nalg];
        nsc_sparse *TS = P->nalg > 0 ? alg_apply(&T, L->Ss, 0) : nsc_sp_add(L->Ss, L->Ss, 1.0, 0.0);
        double *one_m = nsc_calloc((size_t)n + 1, sizeof(double));
        if (!TS || !one_m) { nsc_sp_free(TS); free(one_m); return -1; }
        for (int i = 0; i < n; i++) one_m[i] = 1.0 - P->th[i];
        P->Sw1 = scaled_rows(TS, P->th);                         /* Theta T Ss */
        P->Sw0 = scaled_rows(TS, one_m);                         /* (I - Theta) T Ss */
        nsc_sp_free(TS);
        free(one_m);
        drop_zeros(P->Sw1);
        drop_zeros(P->Sw0);
        drop_zeros(P->R);                                        /* algebraic rows: (1 - 1) A */
        return P->Sw1 && P->Sw0 ? 0 : -1;
    }
    memcpy(P->sc, L->s0, (size_t)n * sizeof(double));
    P->Sw1 = nsc_sp_add(L->Ss, L->Ss, 1.0, 0.0);
    return P->Sw1 ? 0 : -1;
}

nsc_status nsc_onestep_new_sw(const nsc_lcs *L, double h, double theta, const char *sw,
                              nsc_onestep **out, nsc_report *rep)
{
    return nsc_onestep_new_alg(L, h, theta, 1.0, sw, out, rep);
}

nsc_status nsc_onestep_new_alg(const nsc_lcs *L, double h, double theta, double theta_alg, const char *sw,
                               nsc_onestep **out, nsc_report *rep)
{
    *out = NULL;
    int n = L->n, m = L->m;
    nsc_onestep *P = calloc(1, sizeof *P);
    if (!P) return nsc_err(rep, NSC_ENOMEM, NULL, "out of memory");
    P->L = L;
    P->h = h;
    P->theta = theta;
    P->n = n;
    P->m = m;
    P->th = nsc_calloc((size_t)n, sizeof(double));
    P->r = nsc_calloc((size_t)n, sizeof(double));
    P->q = nsc_calloc((size_t)m, sizeof(double));
    P->w = nsc_calloc((size_t)m, sizeof(double));
    P->prev = nsc_calloc((size_t)m, 1);
    P->mask = nsc_calloc((size_t)m, 1);
    P->mask2 = nsc_calloc((size_t)m, 1);
    P->lt = nsc_calloc((size_t)m, sizeof(double));
    P->x = nsc_calloc((size_t)(n + m), sizeof(double));
    P->zl = nsc_calloc((size_t)n, sizeof(double));
    P->ll = nsc_calloc((size_t)m, sizeof(double));
    P->sw = nsc_calloc((size_t)L->nsw + 1, 1);
    P->ts = nsc_calloc((size_t)n + 1, sizeof(double));
    P->cur = -1;
    P->dense_mmax = NSC_DENSE_MMAX;
    if (!P->th || !P->r || !P->q || !P->w || !P->prev || !P->mask
        || !P->mask2 || !P->lt || !P->x || !P->zl || !P->ll || !P->sw || !P->ts)
        goto nomem;
    P->B = L->B;
    int anyon = 0;
    for (int j = 0; sw && j < L->nsw; j++) anyon |= (P->sw[j] = sw[j] != 0);
    nsc_sparse *Asw = anyon ? switched_a(L, P->sw) : NULL;       /* A of this switch state */
    if (anyon && !Asw) goto nomem;
    const nsc_sparse *A = anyon ? Asw : L->A;

    if (h > 0) {
        alg_t T;
        if (algebraic_rows(L->E, n, L->nnode_z, &T)) { nsc_sp_free(Asw); goto nomem; }
        nsc_sparse *Et = NULL, *At = NULL;
        if (T.nc > 0) {                                          /* the DAE premultiplied by T */
            Et = alg_apply(&T, L->E, 1);
            At = alg_apply(&T, A, 0);
            P->Bt = alg_apply(&T, L->B, 0);
            P->nalg = T.nc;
            P->alg_rep = T.rep;
            P->alg_cp = T.cp;
            P->alg_row = T.row;
            P->alg_v = T.v;
            if (!Et || !At || !P->Bt) { nsc_sp_free(Et); nsc_sp_free(At); nsc_sp_free(Asw); goto nomem; }
            P->B = P->Bt;
            nsc_sp_free(Asw);
            Asw = At;
            A = At;
        } else {
            alg_free(&T);
        }
        const nsc_sparse *E = Et ? Et : L->E;
        row_theta(E, L->z_exact, theta, theta_alg, n, P->th);   /* representative rows: theta_alg */
        nsc_sparse *TA = scaled_rows(A, P->th);                  /* Theta A */
        double *one_m = nsc_calloc((size_t)n, sizeof(double));
        if (!TA || !one_m) { nsc_sp_free(TA); free(one_m); nsc_sp_free(Asw); nsc_sp_free(Et); goto nomem; }
        for (int i = 0; i < n; i++) one_m[i] = 1.0 - P->th[i];
        nsc_sparse *UA = scaled_rows(A, one_m);                  /* (I - Theta) A */
        free(one_m);
        nsc_sp_free(Asw);
        if (!UA) { nsc_sp_free(TA); nsc_sp_free(Et); goto nomem; }
        P->W = nsc_sp_add(E, TA, 1.0 / h, -1.0);                 /* W = E/h - Theta A */
        P->R = nsc_sp_add(E, UA, 1.0 / h, 1.0);                  /* R = E/h + (I-Theta) A */
        nsc_sp_free(TA);
        nsc_sp_free(UA);
        nsc_sp_free(Et);
        if (!P->W || !P->R) goto nomem;
    } else {
        for (int i = 0; i < n; i++) P->th[i] = 1.0;
        P->W = nsc_sp_add(A, A, -1.0, 0.0);                      /* W = -A */
        nsc_sp_free(Asw);
        if (!P->W) goto nomem;
    }
    if (sources_setup(P) || nsc_mode_setup(P) || nsc_map_setup(P)) goto nomem;
    P->inc_track = !P->map && m >= NSC_INC_MMIN && h > 0;

    int singular = 0;
    P->F = n > 0 ? nsc_klu_factor(P->W, &singular) : NULL;
    if (n > 0 && !P->F) {
        nsc_status st = singular
            ? nsc_err(rep, NSC_ESIM, NULL,
                      "the %s matrix is singular (h = %g s): a loop of voltage sources or a cut-set "
                      "of current sources/inductors?", h > 0 ? "transient" : "operating-point", h)
            : nsc_err(rep, NSC_ENOMEM, NULL, "KLU factorisation failed (h = %g s)", h);
        nsc_onestep_free(P);
        return st;
    }

    *out = P;
    return NSC_OK;
nomem:
    nsc_onestep_free(P);
    return nsc_err(rep, NSC_ENOMEM, NULL, "out of memory building the one-step problem");
}

/* The dense W^-1 B and M = D + C W^-1 B (m <= dense_mmax), formed when pivoting first needs them.
 * 0 ok, -1 ENOMEM. */
static int dense_form(nsc_onestep *P)
{
    if (P->M) return 0;
    int n = P->n, m = P->m;
    const nsc_lcs *L = P->L;
    P->WiB = nsc_calloc((size_t)n * (size_t)m + 1, sizeof(double));
    P->M = nsc_calloc((size_t)m * (size_t)m + 1, sizeof(double));
    if (!P->WiB || !P->M) goto fail;
    const nsc_sparse *B = P->B;                                   /* WiB = W^-1 B, from the CSC B */
    for (int j = 0; j < m; j++)
        for (int k = B->p[j]; k < B->p[j + 1]; k++) P->WiB[(size_t)j * n + B->i[k]] += B->x[k];
    if (m > 0 && n > 0 && nsc_klu_solve(P->F, P->WiB, m)) goto fail;
    const nsc_sparse *D = L->D;                                   /* M = D + C W^-1 B */
    for (int j = 0; j < m; j++) {
        double *Mj = P->M + (size_t)j * m;
        for (int k = D->p[j]; k < D->p[j + 1]; k++) Mj[D->i[k]] += D->x[k];
        nsc_sp_gaxpy(L->C, P->WiB + (size_t)j * n, Mj);          /* M(:,j) += C WiB(:,j) */
    }
    return 0;
fail:
    free(P->WiB);
    free(P->M);
    P->WiB = P->M = NULL;
    return -1;
}

/* r = (E/h + (I - Theta) A) z0 + Theta T s1 + (I - Theta) T s0, or s1 when h = 0 */
static void rhs(nsc_onestep *P, const double *z0, const double *s0, const double *s1)
{
    int n = P->n;
    double *r = P->r;
    if (P->h > 0) {
        double *ts = P->ts;
        alg_vec(P, s1, ts);                                      /* T s1 */
        for (int i = 0; i < n; i++) r[i] = P->th[i] * ts[i];
        alg_vec(P, s0, ts);                                      /* T s0 */
        for (int i = 0; i < n; i++) r[i] += (1.0 - P->th[i]) * ts[i];
        nsc_sp_gaxpy(P->R, z0, r);                               /* r += R z0 */
    } else {
        memcpy(r, s1, (size_t)n * sizeof(double));
    }
}

/* r = R z0 + sc + Sw1 w1 + Sw0 w0 (the same from the source values) */
static void rhs_w(nsc_onestep *P, const double *z0, const double *w0, const double *w1)
{
    double *r = P->r;
    memcpy(r, P->sc, (size_t)P->n * sizeof(double));
    nsc_sp_gaxpy(P->Sw1, w1, r);
    if (P->Sw0) nsc_sp_gaxpy(P->Sw0, w0, r);
    if (P->R) nsc_sp_gaxpy(P->R, z0, r);
}

int nsc_onestep_open(nsc_onestep *P, const double *z0, const double *s0, const double *s1, double *z1)
{
    rhs(P, z0, s0, s1);
    memcpy(z1, P->r, (size_t)P->n * sizeof(double));
    return P->n > 0 && nsc_klu_solve(P->F, z1, 1) ? -1 : 0;     /* z1 = W \ r */
}

/* Lemke's workspace for problems up to size k. 0 ok, -1 ENOMEM. */
static int lemke_ws(nsc_onestep *P, int k)
{
    if (P->ws && P->wsmax >= k) return 0;
    nsc_lcp_ws_free(P->ws);
    P->ws = nsc_lcp_ws_new(k > 0 ? k : 1);
    P->wsmax = P->ws ? k : 0;
    return P->ws ? 0 : -1;
}

/* LCP(Mx, q) of size k by the chosen solver (auto: Lemke, then enumeration for
 * k <= 12 when Lemke fails). */
static nsc_lcp_status lcp_pivot(nsc_onestep *P, nsc_solver solver, int k, double *Mx, double *q,
                                double *l, double *w, nsc_step_info *info)
{
    nsc_lcp lcp = { k, Mx, q };
    nsc_lcp_info li = { 0, 0 };
    nsc_lcp_status st;
    if (solver == NSC_SOLVER_ENUM) {
        st = nsc_lcp_enum(&lcp, l, w, &li);
    } else {
        if (lemke_ws(P, k)) return NSC_LCP_ENOMEM;
        st = nsc_lcp_lemke(&lcp, l, w, &li, P->ws);
        if (st != NSC_LCP_OK && solver == NSC_SOLVER_AUTO && k <= 12) {   /* enumeration settles small ones */
            int it = li.iter;
            st = nsc_lcp_enum(&lcp, l, w, &li);
            li.iter += it;
        }
    }
    info->lcp_solved = 1;
    info->iter += li.iter;
    info->st = st;
    info->residual = nsc_lcp_residual(&lcp, l);
    return st;
}

/* Mark the pairs violated by the last mode tried (P->mask vs its update P->mask2)
 * with q_i = -1 (others +1), for the failure report. */
static void mark_violated(nsc_onestep *P)
{
    for (int i = 0; i < P->m; i++) P->q[i] = P->mask[i] != P->mask2[i] ? -1.0 : 1.0;
}

/* The dense path: LCP(M, C W^-1 r + e1) by pivoting, then its mode re-solved
 * exactly (polish). 0 ok, -1 failure. */
static int dense_solve(nsc_onestep *P, nsc_solver solver, double *z1, double *l, nsc_step_info *info)
{
    int n = P->n, m = P->m;
    double *zf = P->zl, *q = P->q, *ll = P->ll, res;
    memcpy(zf, P->r, (size_t)n * sizeof(double));
    if (n > 0 && nsc_klu_solve(P->F, zf, 1)) {                  /* z_free = W \ r */
        info->st = NSC_LCP_EINVAL;
        return -1;
    }
    for (int i = 0; i < m; i++) { q[i] = nsc_pair_e(P, i); ll[i] = 0; }
    nsc_sp_gaxpy(P->L->C, zf, q);                                /* q = C z_free + e1 */
    int need = 0;
    for (int i = 0; i < m; i++) need |= q[i] < 0;
    if (need) {
        if (dense_form(P)) {
            info->st = NSC_LCP_ENOMEM;
            return -1;
        }
        if (lcp_pivot(P, solver, m, P->M, q, ll, P->w, info) != NSC_LCP_OK) return -1;
        for (int j = 0; j < m; j++) {                            /* z = z_free + (W^-1 B) l */
            if (ll[j] == 0) continue;
            const double *c = P->WiB + (size_t)j * n;
            for (int i = 0; i < n; i++) zf[i] += c[i] * ll[j];
        }
    }
    /* the pivoting result's mode, re-solved exactly (and corrected by the
     * active-set iteration where pivoting on M, which holds 1/gmin, was not exact
     * enough); kept as the next guess */
    for (int i = 0; i < m; i++) P->mask2[i] = ll[i] > 0;
    int it = nsc_active_set(P, P->mask2, NULL, NSC_AS_MAXIT, z1, l, &res);
    if (it > 0) {
        memcpy(P->prev, P->mask, (size_t)m);
        P->have_prev = 1;
        info->polished = 1;
        info->active_set = it - 1;
        info->residual = res;
        return 0;
    }
    for (int i = 0; i < m; i++) P->prev[i] = ll[i] > 0;
    P->have_prev = 1;
    P->cur = -1;
    P->inc_ok = 0;
    memcpy(z1, zf, (size_t)n * sizeof(double));
    memcpy(l, ll, (size_t)m * sizeof(double));
    return 0;
}

/* Add pair i to the block F (inF, blk[0..nf-1]) with the pairs D couples it to
 * (both pairs of a vertical step: one alone can make M_FF not copositive).
 * Returns the new nf. */
static int block_add(const nsc_onestep *P, char *inF, int *blk, int nf, int i)
{
    if (inF[i]) return nf;
    inF[i] = 1;
    blk[nf++] = i;
    const nsc_sparse *D = P->L->D, *Dt = P->Dt;
    for (int k = D->p[i]; k < D->p[i + 1]; k++)
        if (D->x[k] != 0) nf = block_add(P, inF, blk, nf, D->i[k]);
    for (int k = Dt->p[i]; k < Dt->p[i + 1]; k++)
        if (Dt->x[k] != 0) nf = block_add(P, inF, blk, nf, Dt->i[k]);
    return nf;
}

/* The block path (no dense m-by-m matrix): the pairs in F (blk[0..nf-1]) are
 * made inactive in base, whose mode K0 gives x0 and the response of the
 * unknowns to each l_j, j in F:  x = x0 + K0^-1 [B_F; -D_NaF] l_F, hence
 *   y_F = q_F + M_FF l_F,  q_F = y_F(x0),  M_FF = D_FF + [C_F  D_FNa] K0^-1 [B_F; -D_NaF];
 * LCP(M_FF, q_F) by pivoting gives F's mode; the violated pairs outside F join
 * F until a mode holds. start: the active set the iteration began from. */
static int block_solve(nsc_onestep *P, nsc_solver solver, const char *start, double *z1, double *l,
                       nsc_step_info *info)
{
    int n = P->n, m = P->m, ret = -1;
    char *inF = nsc_calloc((size_t)m + 1, 1), *base = malloc((size_t)m + 1), *trial = malloc((size_t)m + 1);
    int *blk = nsc_calloc((size_t)m + 1, sizeof(int)), *npos = nsc_calloc((size_t)m + 1, sizeof(int));
    double *col = nsc_calloc((size_t)(n + m) + 1, sizeof(double)), *Mf = NULL, *qf = NULL, *lf = NULL, *wf = NULL;
    if (!inF || !base || !trial || !blk || !npos || !col) { info->st = NSC_LCP_ENOMEM; goto done; }
    int nf = 0;
    for (int i = 0; i < m; i++)                                  /* F: what the iteration changed or violated */
        if (start[i] != P->mask[i] || P->mask[i] != P->mask2[i]) nf = block_add(P, inF, blk, nf, i);
    if (nf == 0)
        for (int i = 0; i < m; i++) nf = block_add(P, inF, blk, nf, i);
    memcpy(base, start, (size_t)m);
    const nsc_lcs *L = P->L;
    for (int round = 0; round < 16; round++) {
        if (nf > NSC_BLOCK_MAX) { info->st = NSC_LCP_MAXITER; goto done; }
        for (int a = 0; a < nf; a++) base[blk[a]] = 0;
        nsc_mode *K0 = nsc_mode_get(P, base);
        if (!K0) { info->st = NSC_LCP_ENOMEM; goto done; }
        if (K0->singular) { info->st = NSC_LCP_EINVAL; goto done; }
        free(Mf); free(qf); free(lf); free(wf);
        Mf = nsc_calloc((size_t)nf * (size_t)nf + 1, sizeof(double));
        qf = nsc_calloc((size_t)nf + 1, sizeof(double));
        lf = nsc_calloc((size_t)nf + 1, sizeof(double));
        wf = nsc_calloc((size_t)nf + 1, sizeof(double));
        if (!Mf || !qf || !lf || !wf) { info->st = NSC_LCP_ENOMEM; goto done; }
        for (int i = 0; i < m; i++) npos[i] = -1;
        for (int a = 0; a < K0->nan; a++) npos[K0->actn[a]] = a;
        const nsc_sparse *Ct = P->Ct, *Dt = P->Dt, *B = P->B, *D = L->D;
        /* y_F(v) for v = [z; l_Na] in col, into out (stride 1), without e when noe */
        for (int c = -1; c < nf; c++) {
            int N0 = n + K0->nan;
            if (c < 0) {
                nsc_mode_rhs(P, K0, col);                        /* x0 = K0 \ rhs */
            } else {
                int j = blk[c];
                memset(col, 0, sizeof(double) * (size_t)N0);
                for (int k = B->p[j]; k < B->p[j + 1]; k++) col[B->i[k]] = B->x[k];        /* [B_j; */
                for (int k = D->p[j]; k < D->p[j + 1]; k++)
                    if (npos[D->i[k]] >= 0) col[n + npos[D->i[k]]] = -D->x[k];             /*  -D_Na,j] */
            }
            if (nsc_klu_solve(K0->F, col, 1)) { info->st = NSC_LCP_EINVAL; goto done; }
            for (int a = 0; a < nf; a++) {
                int i = blk[a];
                double y = c < 0 ? nsc_pair_e(P, i) : 0.0;
                for (int k = Ct->p[i]; k < Ct->p[i + 1]; k++) y += Ct->x[k] * col[Ct->i[k]];
                for (int k = Dt->p[i]; k < Dt->p[i + 1]; k++) {
                    int jj = Dt->i[k];
                    if (npos[jj] >= 0) y += Dt->x[k] * col[n + npos[jj]];          /* D_i,Na l_Na */
                    else if (c >= 0 && jj == blk[c]) y += Dt->x[k];                  /* D_ij */
                }
                if (c < 0) qf[a] = y;
                else Mf[a + (size_t)c * nf] = y;
            }
        }
        if (lcp_pivot(P, solver, nf, Mf, qf, lf, wf, info) != NSC_LCP_OK) {
            if (nf == m || m > NSC_BLOCK_MAX) goto done;
            for (int i = 0; i < m; i++) nf = block_add(P, inF, blk, nf, i);   /* the whole LCP */
            info->st = NSC_LCP_OK;
            continue;
        }
        memcpy(trial, base, (size_t)m);
        for (int a = 0; a < nf; a++) trial[blk[a]] = lf[a] > 0;
        double res;
        nsc_mode *T = nsc_mode_get(P, trial);
        if (!T) { info->st = NSC_LCP_ENOMEM; goto done; }
        memcpy(P->mask, trial, (size_t)m);
        int st = nsc_mode_try(P, T, z1, l, &res, P->mask2);
        if (st == 1) {
            P->cur = (int)(T - P->modes);
            info->residual = res;
            ret = 0;
            goto done;
        }
        int nf0 = nf;
        for (int i = 0; st == 0 && i < m; i++)
            if (P->mask2[i] != trial[i]) nf = block_add(P, inF, blk, nf, i);
        int grew = nf > nf0;
        if (!grew) {                                             /* violations inside F: round-off; polish */
            int it = nsc_active_set(P, trial, T, NSC_AS_MAXIT, z1, l, &res);
            if (it > 0) {
                info->polished = 1;
                info->active_set = it - 1;
                info->residual = res;
                ret = 0;
            } else {
                info->st = NSC_LCP_EINVAL;
            }
            goto done;
        }
    }
    info->st = NSC_LCP_MAXITER;
done:
    if (ret == 0) {
        memcpy(P->prev, P->mask, (size_t)m);
        P->have_prev = 1;
    }
    free(inF); free(base); free(trial); free(blk); free(npos); free(col);
    free(Mf); free(qf); free(lf); free(wf);
    return ret;
}

/* The step for P->r and the step's e (P->e1 or P->w1). */
static int solve_step(nsc_onestep *P, nsc_solver solver, double *z1, double *l, nsc_step_info *info)
{
    int n = P->n, m = P->m;
    memset(info, 0, sizeof *info);
    if (m == 0) {
        memcpy(z1, P->r, (size_t)n * sizeof(double));
        if (n > 0 && nsc_klu_solve(P->F, z1, 1)) {              /* z1 = W \ r */
            info->st = NSC_LCP_EINVAL;
            return -1;
        }
        return 0;
    }
    double res;
    const char *start = NULL;
    if (P->have_prev) {                                          /* from the previous mode */
        nsc_mode *first = P->cur >= 0 ? &P->modes[P->cur] : NULL;
        int it = nsc_active_set(P, P->prev, first, NSC_AS_MAXIT, z1, l, &res);
        if (it > 0) {
            info->mode_hit = it == 1;
            info->active_set = it - 1;
            info->residual = res;
            if (it > 1) memcpy(P->prev, P->mask, (size_t)m);
            return 0;
        }
        start = P->prev;
    } else if (solver == NSC_SOLVER_AUTO) {
        /* cold start (operating point, first step): from every pair open, a
         * chain of devices settles one link per iteration (a CMOS inverter chain's
         * operating point, whose M holds 1/gmin products that defeat pivoting) */
        memset(P->mask2, 0, (size_t)m);
        int it = nsc_active_set(P, P->mask2, NULL, NSC_AS_MAXIT + m / 4, z1, l, &res);
        if (it > 0) {
            info->active_set = it - 1;
            info->residual = res;
            memcpy(P->prev, P->mask, (size_t)m);
            P->have_prev = 1;
            return 0;
        }
    }
    if (m <= P->dense_mmax) return dense_solve(P, solver, z1, l, info);
    if (!start) {                                                /* no iteration yet: try every pair open */
        memset(P->ll, 0, sizeof(double) * (size_t)m);            /* (P->ll: zeros, the start) */
        char *open0 = (char *)P->ll;
        int it = nsc_active_set(P, open0, NULL, 1, z1, l, &res);
        if (it > 0) {
            info->residual = res;
            memcpy(P->prev, P->mask, (size_t)m);
            P->have_prev = 1;
            return 0;
        }
        start = open0;
    }
    char *st0 = malloc((size_t)m + 1);
    if (!st0) { info->st = NSC_LCP_ENOMEM; return -1; }
    memcpy(st0, start, (size_t)m);
    int bad = block_solve(P, solver, st0, z1, l, info);
    free(st0);
    if (bad) mark_violated(P);
    return bad;
}

int nsc_onestep_solve(nsc_onestep *P, nsc_solver solver, const double *z0, const double *s0,
                      const double *s1, const double *e1, double *z1, double *l,
                      nsc_step_info *info)
{
    rhs(P, z0, s0, s1);
    P->e1 = e1;
    P->w1 = NULL;
    P->inc_ok = 0;                                               /* l is not known to be the last one */
    int st = solve_step(P, solver, z1, l, info);
    P->e1 = NULL;
    P->inc_ok = 0;
    return st;
}

const char *nsc_onestep_mode(const nsc_onestep *P)
{
    return P->have_prev && P->m > 0 ? P->prev : NULL;
}

int nsc_onestep_solve_mode(nsc_onestep *P, const char *mode, const double *s, const double *e, double *z,
                           double *l)
{
    if (P->h != 0 || P->m == 0) return -1;
    rhs(P, NULL, NULL, s);
    P->e1 = e;
    P->w1 = NULL;
    P->inc_ok = 0;
    double res;
    int it = nsc_active_set(P, mode, NULL, 1, z, l, &res);       /* that mode only: no pivoting */
    P->e1 = NULL;
    P->inc_ok = 0;
    return it == 1 ? 0 : -1;
}

int nsc_onestep_step(nsc_onestep *P, nsc_solver solver, const double *z0, const double *w0,
                     const double *w1, double *z1, double *l, nsc_step_info *info)
{
    nsc_mode *M = P->map && P->have_prev && P->cur >= 0 ? &P->modes[P->cur] : NULL;
    double res;
    if (M && M->G && nsc_map_try(P, M, z0, w0, w1, z1, l, &res)) {   /* the previous mode, by its map */
        memset(info, 0, sizeof *info);
        info->mode_hit = 1;
        info->residual = res;
        return 0;
    }
    rhs_w(P, z0, w0, w1);
    P->e1 = NULL;
    P->w1 = w1;
    int st = solve_step(P, solver, z1, l, info);
    if (st == 0 && info->mode_hit && P->map && P->cur >= 0) {
        M = &P->modes[P->cur];
        if (!M->G && !M->nomap && ++M->hits >= nsc_map_hits(P->map))
            nsc_map_build(P, M, z0, w0, w1, z1);                 /* ENOMEM: no map, not an error */
    }
    return st;
}

/* In mode a the step is the linear system K_a [z1; l_Na] = [R z0 + (sources); -e_Na]
 * (onestep.h), so with the mode frozen dz1 = [I 0] K_a^-1 [R dz0; 0]: one solve of
 * the factored mode system per column. The mode is the last accepted one
 * (nsc_onestep_mode), the one whose factorisation P->cur names after a step. */
int nsc_onestep_sens(nsc_onestep *P, double *S, int ncol)
{
    int n = P->n;
    if (!P->R) return -1;
    nsc_mode *M = P->cur >= 0 ? &P->modes[P->cur] : NULL;
    if (!M) {
        const char *mask = nsc_onestep_mode(P);
        if (!mask && P->m > 0) return -1;
        char *empty = mask ? NULL : nsc_calloc(1, 1);
        M = nsc_mode_get(P, mask ? mask : empty);
        free(empty);
    }
    if (!M || M->singular) return -1;
    double *x = P->x;
    for (int k = 0; k < ncol; k++) {
        double *col = S + (size_t)k * (size_t)n;
        memset(x, 0, (size_t)(n + M->nan) * sizeof(double));
        nsc_sp_gaxpy(P->R, col, x);                               /* x = R dz0 */
        if (nsc_klu_solve(M->F, x, 1)) return -1;
        memcpy(col, x, (size_t)n * sizeof(double));
    }
    return 0;
}

/* ---- the saltation of an event step ----
 * A step that took a mode change. In mode M its solution x = [z1; l_Na] solves
 * K_M x = rhs_M(z0, w0, w1) (onestep.h). With t1 = t0 + h and z0, w0 fixed,
 * W = E_T/h - Theta A and R = E_T/h + (I - Theta) A both move by -E_T/h^2 dh
 * (E_T the premultiplied E), so
 *     K_M dx/dh = [E_T (z1 - z0) / h^2; 0] + rhs_M(w1 + w') - rhs_M(w1),
 * w' = (w1 - w0) / h the sources' slope over the step (rhs_M is affine in w1),
 * and E_T / h = Theta R + (I - Theta) W row by row. */

/* The index of N-active pair i among M's unknowns (M->actn ascending). */
static int act_pos(const nsc_mode *M, int i)
{
    int lo = 0, hi = M->nan - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (M->actn[mid] < i) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* phi_j of pair j in mode M at x = [z; l_Na] with the sources' part Se w of e
 * (w NULL: none), plus e0 when affine: l_j for an active pair (separable:
 * -(C_j z + e_j) / D_jj), y_j = C_j z + D_j l + e_j for an inactive one. It is
 * >= 0 while the pair keeps M's mode (stepper_adapt.c's phi) and linear in
 * (x, w) when !affine: its derivative along (dx, dw). */
static double mode_phi(const nsc_onestep *P, const nsc_mode *M, int j, const double *x, const double *w, int affine)
{
    int n = P->n;
    if (M->mask[j] && !P->sep[j]) return x[n + act_pos(M, j)];
    double y = affine ? P->L->e0[j] : 0.0;
    for (int k = P->SeT->p[j]; w && k < P->SeT->p[j + 1]; k++) y += P->SeT->x[k] * w[P->SeT->i[k]];
    for (int k = P->Ct->p[j]; k < P->Ct->p[j + 1]; k++) y += P->Ct->x[k] * x[P->Ct->i[k]];   /* + C_j z */
    if (P->sep[j]) return M->mask[j] ? -y * P->dinv[j] : y;     /* (D_jj l_j = 0 when inactive) */
    for (int k = P->Dt->p[j]; k < P->Dt->p[j + 1]; k++) {         /* + D_j l over the N-active pairs */
        int i = P->Dt->i[k];                                      /* (separable: D_ji = 0, i != j) */
        if (M->mask[i] && !P->sep[i]) y += P->Dt->x[k] * x[n + act_pos(M, i)];
    }
    return y;
}

/* The last step (z0, w0 -> w1) redone in mode M: x = [z1; l_Na] and dx = dx/dh
 * (above); wd = w1 + w', t, u [n] work. P->r and P->w1 are overwritten. 0, -1. */
static int mode_dh(nsc_onestep *P, nsc_mode *M, const double *z0, const double *w0, const double *w1,
                   const double *ws, const double *wd, double *x, double *dx, double *t, double *u)
{
    int n = P->n;
    rhs_w(P, z0, w0, w1);
    P->e1 = NULL;
    nsc_sp_gaxpy(P->Sw1, ws, P->r);                               /* r(w1 + w') */
    P->w1 = wd;
    nsc_mode_rhs(P, M, dx);                                       /* dx = rhs_M(w1 + w') */
    rhs_w(P, z0, w0, w1);
    P->w1 = w1;
    nsc_mode_rhs(P, M, x);                                        /* x = rhs_M(w1) */
    for (int i = 0; i < n + M->nan; i++) dx[i] -= x[i];
    if (nsc_klu_solve(M->F, x, 1)) return -1;                     /* x = K_M^-1 rhs_M */
    for (int i = 0; i < n; i++) t[i] = (x[i] - z0[i]) / P->h;
    memset(u, 0, 2 * (size_t)n * sizeof(double));
    nsc_sp_gaxpy(P->R, t, u);                                     /* u = R t */
    nsc_sp_gaxpy(P->W, t, u + n);                                 /* u + n = W t */
    for (int i = 0; i < n; i++) dx[i] += P->th[i] * u[i] + (1 - P->th[i]) * u[n + i];   /* + E_T t / h */
    return nsc_klu_solve(M->F, dx, 1) ? -1 : 0;
}

/* The guard: among the pairs whose mode differs between Ma and Mb, the one
 * that fell through zero inside the step in the old mode Ma (x, dx: its step
 * and d/dh there), first: phi < 0 at the end, phi' < 0, the crossing h_c = h -
 * phi / phi' earliest and not before the step (h_c >= -1e-3 h: phi >= 0 at
 * the start, where Ma held, up to the linearisation). Pairs that changed as a
 * consequence (the MOS a comparator drives) do not fall in Ma; a pair already
 * violated at the start (a source's jump at a breakpoint) changed at a time
 * the state does not move: no guard, the frozen sensitivity is right.
 * *dphi = phi'. -1 if none. */
static int first_guard(const nsc_onestep *P, const nsc_mode *Ma, const nsc_mode *Mb, const double *x,
                       const double *dx, const double *w1, const double *ws, double *dphi)
{
    int g = -1;
    double best = INFINITY;
    for (int j = 0; j < P->m; j++) {
        if (Ma->mask[j] == Mb->mask[j]) continue;
        double v = mode_phi(P, Ma, j, x, w1, 1), d = mode_phi(P, Ma, j, dx, ws, 0), hc = P->h - v / d;
        if (!(v < 0 && d < 0 && hc >= -1e-3 * P->h && hc < best)) continue;
        best = hc;
        g = j;
        *dphi = d;
    }
    return g;
}

int nsc_onestep_sens_event(nsc_onestep *P, const char *from, const double *z0,
                           const double *w0, const double *w1, double *S, int ncol)
{
    int n = P->n, ns = P->L->nsrc;
    if (!P->R || !P->have_prev || P->m == 0) return -1;
    nsc_mode *Ma = nsc_mode_get(P, from), *Mb = Ma ? nsc_mode_get(P, P->prev) : NULL;
    if (!Ma || !Mb || Ma->singular || Mb->singular) return -1;
    if (Ma == Mb) return 1;
    size_t nx = (size_t)n + (size_t)P->m + 1;
    double *buf = calloc(5 * nx + 2 * (size_t)n + 2 * (size_t)ns + 1, sizeof(double));
    if (!buf) return -1;
    double *xa = buf, *fa = xa + nx, *xb = fa + nx, *fb = xb + nx, *t = fb + nx, *u = t + nx, *ws = u + 2 * (size_t)n,
           *wd = ws + ns;
    for (int k = 0; k < ns; k++) {
        ws[k] = (w1[k] - w0[k]) / P->h;                           /* w' */
        wd[k] = w1[k] + ws[k];
    }
    const double *w1keep = P->w1;
    double dphi = 0;
    int st = mode_dh(P, Ma, z0, w0, w1, ws, wd, xa, fa, t, u) || mode_dh(P, Mb, z0, w0, w1, ws, wd, xb, fb, t, u) ? -1 : 0;
    int g = st ? -1 : first_guard(P, Ma, Mb, xa, fa, w1, ws, &dphi);
    if (!st && g < 0) st = 1;                                     /* no guard crosses: frozen */
    for (int k = 0; !st && k < ncol; k++) {
        double *col = S + (size_t)k * (size_t)n;
        memset(xa, 0, nx * sizeof(double));
        nsc_sp_gaxpy(P->R, col, xa);                              /* xa = R dz0 */
        memset(xb, 0, nx * sizeof(double));
        memcpy(xb, xa, (size_t)n * sizeof(double));
        if (nsc_klu_solve(Ma->F, xa, 1) || nsc_klu_solve(Mb->F, xb, 1)) { st = -1; break; }
        double dh = -mode_phi(P, Ma, g, xa, NULL, 0) / dphi;      /* dh/dz0: phi_g stays 0 */
        for (int i = 0; i < n; i++) col[i] = xb[i] + (fa[i] - fb[i]) / P->th[i] * dh;   /* S+ = S_b + (f_a - f_b) dh */
    }
    P->w1 = w1keep;
    free(buf);
    return st;
}

int nsc_onestep_sens_flip(nsc_onestep *P, nsc_onestep *Pn, int c, int d, const double *z0, const double *w0,
                          const double *w1, double *S, int ncol)
{
    int n = P->n, ns = P->L->nsrc;
    if (!P->R || !Pn->R || Pn->theta != 1.0 || (P->m > 0 && !P->have_prev)) return -1;
    char none = 0;
    const char *mask = P->m > 0 ? P->prev : &none;
    nsc_mode *Mo = nsc_mode_get(P, mask), *Mn = Mo ? nsc_mode_get(Pn, mask) : NULL;
    if (!Mo || !Mn || Mo->singular || Mn->singular) return -1;
    size_t nx = (size_t)n + (size_t)P->m + 1;
    double *buf = calloc(5 * nx + 2 * (size_t)n + 2 * (size_t)ns + 1, sizeof(double));
    if (!buf) return -1;
    double *xo = buf, *fo = xo + nx, *xn = fo + nx, *fn = xn + nx, *t = fn + nx, *u = t + nx, *ws = u + 2 * (size_t)n,
           *wd = ws + ns;
    for (int k = 0; k < ns; k++) {
        ws[k] = (w1[k] - w0[k]) / P->h;                           /* w' */
        wd[k] = w1[k] + ws[k];
    }
    const double *w1o = P->w1, *w1n = Pn->w1;
    int st = mode_dh(P, Mo, z0, w0, w1, ws, wd, xo, fo, t, u) || mode_dh(Pn, Mn, z0, w0, w1, ws, wd, xn, fn, t, u) ? -1 : 0;
    double dphi = (c >= 0 ? fo[c] : 0.0) - (d >= 0 ? fo[d] : 0.0);          /* du/dh in the old state */
    if (!st && !(fabs(dphi) > 0)) st = 1;
    for (int k = 0; !st && k < ncol; k++) {
        double *col = S + (size_t)k * (size_t)n;
        memset(xo, 0, nx * sizeof(double));
        nsc_sp_gaxpy(P->R, col, xo);                              /* xo = R dz0 */
        if (nsc_klu_solve(Mo->F, xo, 1)) { st = -1; break; }
        double dh = -((c >= 0 ? xo[c] : 0.0) - (d >= 0 ? xo[d] : 0.0)) / dphi;   /* u stays on its threshold */
        for (int i = 0; i < n; i++) col[i] = xo[i] + (fo[i] - fn[i]) * dh;      /* S+ = S_o + (f_o - f_n) dh */
    }
    P->w1 = w1o;
    Pn->w1 = w1n;
    free(buf);
    return st;
}
