/* onestep_alg.c -- hidden algebraic rows of the one-step problem (formulation.md §2;
 * onestep_alg.h).
 *
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
#include "onestep_alg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NSC_ALG_DENSE 64

typedef struct alg_t {
    int nc;    /* combinations */
    int *rep;  /* [nc] representative row */
    int *cp;   /* [nc+1] entries of combination c: cp[c] .. cp[c+1]-1 */
    int *row;  /* [nnz] */
    double *v; /* [nnz] */
    int nnz, cap;
} alg_t;

static void alg_free(alg_t *T)
{
    free(T->rep);
    free(T->cp);
    free(T->row);
    free(T->v);
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
    for (int i = 0; i < s; i++) {
        perm[i] = i;
        dmax = fmax(dmax, A[i + i * s]);
    }
    int rank = s;
    for (int k = 0; k < s; k++) {
        int p = k;
        for (int i = k + 1; i < s; i++)
            if (A[i + i * s] > A[p + p * s]) p = i;
        if (!(A[p + p * s] > 1e-10 * dmax)) {
            rank = k;
            break;
        }
        if (p != k) { /* symmetric swap k <-> p */
            for (int i = 0; i < s; i++) {
                double t = A[k + i * s];
                A[k + i * s] = A[p + i * s];
                A[p + i * s] = t;
            }
            for (int i = 0; i < s; i++) {
                double t = A[i + k * s];
                A[i + k * s] = A[i + p * s];
                A[i + p * s] = t;
            }
            int t = perm[k];
            perm[k] = perm[p];
            perm[p] = t;
        }
        double d = sqrt(A[k + k * s]);
        for (int j = k; j < s; j++) A[k + j * s] /= d; /* row k of R */
        for (int i = k + 1; i < s; i++)
            for (int j = i; j < s; j++) {
                A[i + j * s] -= A[k + i * s] * A[k + j * s]; /* Schur complement (upper part) */
                A[j + i * s] = A[i + j * s];
            }
    }
    for (int q = rank; q < s; q++) { /* v = P^T [-R11^-1 R12 e_q; e_q] */
        for (int k = rank - 1; k >= 0; k--) {
            double t = -A[k + q * s];
            for (int j = k + 1; j < rank; j++) t -= A[k + j * s] * x[j];
            x[k] = t / A[k + k * s];
        }
        int cnt = 0;
        double vv[NSC_ALG_DENSE];
        for (int k = 0; k < rank; k++)
            if (x[k] != 0) {
                rows[cnt] = idx[perm[k]];
                vv[cnt++] = x[k];
            }
        rows[cnt] = idx[perm[q]];
        vv[cnt++] = 1.0;
        if (alg_add(T, idx[perm[q]], rows, vv, cnt)) goto done;
    }
    ret = 0;
done:
    free(perm);
    free(rows);
    free(x);
    return ret;
}

/* 1 when the s-by-s A is symmetric. A component of E coupling a node row to a
 * branch column alone (a diode's diffusion charge TT i_F', dev_d.c) is not: its
 * left null vectors are the branch rows, already algebraic, so it hides none. */
static int symmetric(const double *A, int s)
{
    for (int i = 0; i < s; i++)
        for (int j = i + 1; j < s; j++)
            if (fabs(A[i + j * s] - A[j + i * s])
                > 1e-12 * (fabs(A[i + j * s]) + fabs(A[j + i * s])))
                return 0;
    return 1;
}

/* The combinations of E (n-by-n, nnode node rows first). 0 ok, -1 ENOMEM. */
static int algebraic_rows(const nsc_sparse *E, int n, int nnode, alg_t *T)
{
    memset(T, 0, sizeof *T);
    int *uf = malloc(sizeof(int) * ((size_t)n + 1)), *cnt = nsc_calloc((size_t)n + 1, sizeof(int));
    int *idx = malloc(sizeof(int) * ((size_t)n + 1)), *pos = malloc(sizeof(int) * ((size_t)n + 1));
    double *cs = nsc_calloc((size_t)n + 1, sizeof(double)),
           *ca = nsc_calloc((size_t)n + 1, sizeof(double));
    char *bad = nsc_calloc((size_t)n + 1, 1), *off = nsc_calloc((size_t)n + 1, 1),
         *rowE = nsc_calloc((size_t)n + 1, 1);
    double *A = NULL, *ones = NULL;
    int ret = -1;
    if (!uf || !cnt || !idx || !pos || !cs || !ca || !bad || !off || !rowE) goto done;
    for (int i = 0; i < n; i++) uf[i] = i;
    for (int j = 0; j < n; j++)
        for (int k = E->p[j]; k < E->p[j + 1]; k++) {
            if (E->x[k] == 0) continue;
            rowE[E->i[k]] = 1;
            int a = E->i[k], b = j;
            cs[j] += E->x[k]; /* column sums */
            ca[j] += fabs(E->x[k]);
            while (uf[a] != a) a = uf[a] = uf[uf[a]];
            while (uf[b] != b) b = uf[b] = uf[uf[b]];
            if (a != b) uf[a > b ? a : b] = a < b ? a : b; /* the root is the lowest row */
            if (E->i[k] != j) off[a < b ? a : b] = 1;
        }
    for (int i = 0; i < n; i++) {
        int a = i;
        while (uf[a] != a) a = uf[a];
        uf[i] = a;
        if (off[i] && i != a) off[a] = 1;
    }
    for (int j = 0; j < n; j++) {
        if (fabs(cs[j]) > 1e-12 * ca[j] || ca[j] == 0) bad[uf[j]] = 1; /* 1_S^T E != 0 */
        cnt[uf[j]]++;
    }
    for (int r = 0; r < n; r++) { /* components with off-diagonal entries */
        if (uf[r] != r || !off[r]) continue;
        int s = 0, branch = 0;
        for (int i = r; i < n; i++)
            if (uf[i] == r) {
                pos[i] = s;
                idx[s++] = i;
                branch |= i >= nnode;
            }
        if (!bad[r]) {
            double *o = realloc(ones, sizeof(double) * (size_t)s);
            if (!o) goto done;
            ones = o;
            int sv = 0;                 /* rows of E in S only: a branch row */
            for (int k = 0; k < s; k++) /* without E entries (in S through its */
                if (rowE[idx[k]]) {
                    idx[sv] = idx[k];
                    ones[sv++] = 1.0;
                }                                        /* column) is algebraic already */
            if (alg_add(T, r, idx, ones, sv)) goto done; /* v = 1_S, representative r */
        } else if (branch && s <= NSC_ALG_DENSE) {
            free(A);
            A = nsc_calloc((size_t)s * (size_t)s, sizeof(double));
            if (!A) goto done;
            for (int k = 0; k < s; k++)
                for (int q = E->p[idx[k]]; q < E->p[idx[k] + 1]; q++)
                    A[pos[E->i[q]] + k * s] = E->x[q];
            if (symmetric(A, s) && psd_null(T, A, s, idx)) goto done;
        }
    }
    ret = 0;
done:
    void *own[] = { uf, cnt, idx, pos, cs, ca, bad, off, rowE, A, ones };
    for (size_t q = 0; q < sizeof own / sizeof own[0]; q++) free(own[q]);
    if (ret) alg_free(T);
    return ret;
}

/* T X as a new CSC matrix; with drop, nothing is added to the representative
 * rows (T E: they vanish up to rounding). NULL on ENOMEM. */
static nsc_sparse *alg_apply(const alg_t *T, const nsc_sparse *X, int drop)
{
    int n = X->m;
    char *isrep = nsc_calloc((size_t)n + 1, 1);
    int *rp = nsc_calloc((size_t)n + 2, sizeof(int)); /* row -> its entries in T */
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
    int *comb = malloc(sizeof(int) * ((size_t)T->nnz + 1)); /* entry -> combination */
    if (!comb) goto done;
    for (int c = 0; c < T->nc; c++)
        for (int e = T->cp[c]; e < T->cp[c + 1]; e++) comb[e] = c;
    Tr = nsc_sp_new(n, X->n, 2 * X->p[X->n] + 1, 1);
    if (!Tr) {
        free(comb);
        goto done;
    }
    for (int j = 0; j < X->n; j++)
        for (int k = X->p[j]; k < X->p[j + 1]; k++) {
            int i = X->i[k];
            if (!isrep[i] && nsc_sp_entry(Tr, i, j, X->x[k])) {
                free(comb);
                goto done;
            }
            for (int q = rp[i]; !drop && q < rp[i + 1]; q++) {
                int e = re[q];
                if (nsc_sp_entry(Tr, T->rep[comb[e]], j, T->v[e] * X->x[k])) {
                    free(comb);
                    goto done;
                }
            }
        }
    free(comb);
    C = nsc_sp_compress(Tr);
done:
    nsc_sp_free(Tr);
    free(isrep);
    free(rp);
    free(re);
    return C;
}

/* out = T s (no combinations: out = s). */
void nsc_alg_vec(const nsc_onestep *P, const double *s, double *out)
{
    memcpy(out, s, (size_t)P->n * sizeof(double));
    for (int c = 0; c < P->alg.nalg; c++) {
        double t = 0;
        for (int e = P->alg.cp[c]; e < P->alg.cp[c + 1]; e++) t += P->alg.v[e] * s[P->alg.row[e]];
        out[P->alg.rep[c]] = t; /* (T s)_rep = v^T s */
    }
}

/* P's combinations as an alg_t (borrowed). */
static alg_t alg_of(const nsc_onestep *P)
{
    alg_t T = { P->alg.nalg, P->alg.rep, P->alg.cp, P->alg.row, P->alg.v, 0, 0 };
    if (P->alg.nalg > 0) T.nnz = P->alg.cp[P->alg.nalg];
    return T;
}

nsc_sparse *nsc_alg_times(const nsc_onestep *P, const nsc_sparse *X)
{
    alg_t T = alg_of(P);
    return P->alg.nalg > 0 ? alg_apply(&T, X, 0) : nsc_sp_add(X, X, 1.0, 0.0);
}

int nsc_alg_setup(nsc_onestep *P, const nsc_sparse *A, nsc_sparse **Et, nsc_sparse **At)
{
    const nsc_lcs *L = P->L;
    alg_t T;
    *Et = *At = NULL;
    if (algebraic_rows(L->E, P->n, L->nnode_z, &T)) return -1;
    if (T.nc == 0) {
        alg_free(&T);
        return 0;
    }
    *Et = alg_apply(&T, L->E, 1); /* the DAE premultiplied by T */
    *At = alg_apply(&T, A, 0);
    P->alg.Bt = alg_apply(&T, L->B, 0);
    P->alg.nalg = T.nc; /* P owns T's arrays from here */
    P->alg.rep = T.rep;
    P->alg.cp = T.cp;
    P->alg.row = T.row;
    P->alg.v = T.v;
    if (!*Et || !*At || !P->alg.Bt) {
        nsc_sp_free(*Et);
        nsc_sp_free(*At);
        *Et = *At = NULL;
        return -1;
    }
    P->st.B = P->alg.Bt;
    return 0;
}

void nsc_alg_free(nsc_os_alg *a)
{
    free(a->rep);
    free(a->cp);
    free(a->row);
    free(a->v);
    nsc_sp_free(a->Bt);
}
