/* onestep.c -- the one-step problem of the theta-scheme (see onestep.h). */
#include "onestep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int nsc_solver_parse(const char *name)
{
    if (!name || nsc_strieq(name, "auto")) return NSC_SOLVER_AUTO;
    if (nsc_strieq(name, "lemke")) return NSC_SOLVER_LEMKE;
    if (nsc_strieq(name, "enum")) return NSC_SOLVER_ENUM;
    return -1;
}

static void mode_clear(nsc_mode *M)
{
    free(M->mask);
    free(M->act);
    nsc_sp_free(M->K);
    nsc_klu_free(M->F);
    memset(M, 0, sizeof *M);
}

void nsc_onestep_free(nsc_onestep *P)
{
    if (!P) return;
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
    free(P->WiB);
    free(P->M);
    nsc_lcp_ws_free(P->ws);
    free(P->r);
    free(P->q);
    free(P->w);
    for (int k = 0; k < P->nmodes; k++) mode_clear(&P->modes[k]);
    free(P->prev);
    free(P->mask);
    free(P->mask2);
    free(P->lt);
    free(P->x);
    free(P->zl);
    free(P->ll);
    free(P);
}

/* Theta_ii = theta where row i of E holds a nonzero, 1 on algebraic rows. */
static void row_theta(const nsc_sparse *E, double theta, int n, double *th)
{
    for (int i = 0; i < n; i++) th[i] = 1.0;
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

/* The combinations of E (n-by-n, nnode node rows first). 0 ok, -1 ENOMEM. */
static int algebraic_rows(const nsc_sparse *E, int n, int nnode, alg_t *T)
{
    memset(T, 0, sizeof *T);
    int *uf = malloc(sizeof(int) * ((size_t)n + 1)), *cnt = nsc_calloc((size_t)n + 1, sizeof(int));
    int *idx = malloc(sizeof(int) * ((size_t)n + 1)), *pos = malloc(sizeof(int) * ((size_t)n + 1));
    double *cs = nsc_calloc((size_t)n + 1, sizeof(double)), *ca = nsc_calloc((size_t)n + 1, sizeof(double));
    char *bad = nsc_calloc((size_t)n + 1, 1), *off = nsc_calloc((size_t)n + 1, 1);
    double *A = NULL, *ones = NULL;
    int ret = -1;
    if (!uf || !cnt || !idx || !pos || !cs || !ca || !bad || !off) goto done;
    for (int i = 0; i < n; i++) uf[i] = i;
    for (int j = 0; j < n; j++)
        for (int k = E->p[j]; k < E->p[j + 1]; k++) {
            if (E->x[k] == 0) continue;
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
            for (int k = 0; k < s; k++) ones[k] = 1.0;
            if (alg_add(T, r, idx, ones, s)) goto done;           /* v = 1_S, representative r */
        } else if (branch && s <= NSC_ALG_DENSE) {
            free(A);
            A = nsc_calloc((size_t)s * (size_t)s, sizeof(double));
            if (!A) goto done;
            for (int k = 0; k < s; k++)
                for (int q = E->p[idx[k]]; q < E->p[idx[k] + 1]; q++) A[pos[E->i[q]] + k * s] = E->x[q];
            if (psd_null(T, A, s, idx)) goto done;
        }
    }
    ret = 0;
done:
    free(uf); free(cnt); free(idx); free(pos); free(cs); free(ca); free(bad); free(off); free(A); free(ones);
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

nsc_status nsc_onestep_new_sw(const nsc_lcs *L, double h, double theta, const char *sw,
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
    P->ws = nsc_lcp_ws_new(m > 0 ? m : 1);
    P->prev = nsc_calloc((size_t)m, 1);
    P->mask = nsc_calloc((size_t)m, 1);
    P->mask2 = nsc_calloc((size_t)m, 1);
    P->lt = nsc_calloc((size_t)m, sizeof(double));
    P->x = nsc_calloc((size_t)(n + m), sizeof(double));
    P->zl = nsc_calloc((size_t)n, sizeof(double));
    P->ll = nsc_calloc((size_t)m, sizeof(double));
    P->sw = nsc_calloc((size_t)L->nsw + 1, 1);
    P->ts = nsc_calloc((size_t)n + 1, sizeof(double));
    if (!P->th || !P->r || !P->q || !P->w || !P->ws || !P->prev || !P->mask
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
        row_theta(E, theta, n, P->th);                           /* representative rows: 1 */
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

/* The dense W^-1 B and M = D + C W^-1 B, formed when pivoting first needs them.
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

/* The mode with active set mask: from the cache, or built and factored (the
 * least recently used entry is evicted). NULL on allocation failure; a mode
 * whose system is singular is cached with F = NULL. */
static nsc_mode *mode_get(nsc_onestep *P, const char *mask)
{
    int n = P->n, m = P->m;
    P->clock++;
    for (int k = 0; k < P->nmodes; k++)
        if (memcmp(P->modes[k].mask, mask, (size_t)m) == 0) {
            P->modes[k].last_use = P->clock;
            return &P->modes[k];
        }
    int slot = P->nmodes;
    if (slot == NSC_MODE_CACHE) {
        slot = 0;
        for (int k = 1; k < P->nmodes; k++)
            if (P->modes[k].last_use < P->modes[slot].last_use) slot = k;
        mode_clear(&P->modes[slot]);
    } else {
        P->nmodes++;
    }
    nsc_mode *M = &P->modes[slot];
    M->last_use = P->clock;
    M->mask = nsc_calloc((size_t)m, 1);
    M->act = nsc_calloc((size_t)m, sizeof(int));
    int *pos = nsc_calloc((size_t)m, sizeof(int));
    const nsc_lcs *L = P->L;
    const nsc_sparse *W = P->W;
    nsc_sparse *T = NULL;
    if (!M->mask || !M->act || !pos) goto fail;
    memcpy(M->mask, mask, (size_t)m);
    for (int i = 0; i < m; i++) {
        pos[i] = -1;
        if (mask[i]) { pos[i] = M->na; M->act[M->na++] = i; }
    }
    int N = n + M->na;
    const nsc_sparse *B = P->B;
    T = nsc_sp_new(N, N, W->p[n] + B->p[m] + L->C->p[n] + L->D->p[m] + 1, 1);
    if (!T) goto fail;
    for (int j = 0; j < n; j++)                                   /* [W ...] */
        for (int k = W->p[j]; k < W->p[j + 1]; k++)
            if (nsc_sp_entry(T, W->i[k], j, W->x[k])) goto fail;
    for (int j = 0; j < m; j++) {
        if (pos[j] < 0) continue;
        for (int k = B->p[j]; k < B->p[j + 1]; k++)               /* [... -B_a] */
            if (nsc_sp_entry(T, B->i[k], n + pos[j], -B->x[k])) goto fail;
        for (int k = L->D->p[j]; k < L->D->p[j + 1]; k++)         /* [... D_aa] */
            if (pos[L->D->i[k]] >= 0 && nsc_sp_entry(T, n + pos[L->D->i[k]], n + pos[j], L->D->x[k]))
                goto fail;
    }
    for (int j = 0; j < n; j++)                                   /* [C_a ...] */
        for (int k = L->C->p[j]; k < L->C->p[j + 1]; k++)
            if (pos[L->C->i[k]] >= 0 && nsc_sp_entry(T, n + pos[L->C->i[k]], j, L->C->x[k])) goto fail;
    for (int i = 0; i < M->na; i++)                               /* keep the diagonal in the pattern */
        if (nsc_sp_entry(T, n + i, n + i, 0.0)) goto fail;
    M->K = nsc_sp_compress(T);
    if (!M->K) goto fail;
    nsc_sp_free(T);
    free(pos);
    int singular;
    M->F = nsc_klu_factor(M->K, &singular);                       /* NULL: singular mode */
    if (M->F && nsc_klu_rcond(M->F) < 1e-14) { nsc_klu_free(M->F); M->F = NULL; }
    return M;
fail:
    nsc_sp_free(T);
    free(pos);
    mode_clear(M);
    P->nmodes--;
    if (slot != P->nmodes) { P->modes[slot] = P->modes[P->nmodes]; memset(&P->modes[P->nmodes], 0, sizeof(nsc_mode)); }
    return NULL;
}

/* Solve the mode's system for r, e1 and check complementarity: lambda_a >= -tol
 * and y_i = (C z + D l + e)_i >= -tol_i off the mode, tolerances relative to the
 * size of the terms. Returns 1 when accepted (z1, l set, l clamped >= 0, *res =
 * ||min(l, y)||_inf); 0 when rejected, with next (if not NULL) the primal-dual
 * active-set update of mask (drop pairs with lambda < -tol, add pairs with
 * y < -tol); -1 when the mode's system is singular. */
static int mode_try(nsc_onestep *P, const char *mask, const double *e1, double *z1, double *l,
                    double *res, char *next)
{
    int n = P->n, m = P->m;
    nsc_mode *M = mode_get(P, mask);
    if (!M || !M->F) return -1;
    double *x = P->x;
    memcpy(x, P->r, (size_t)n * sizeof(double));
    for (int k = 0; k < M->na; k++) x[n + k] = -e1[M->act[k]];
    if (nsc_klu_solve(M->F, x, 1)) return -1;                    /* [z; l_a] = K \ [r; -e_a] */
    double lmax = 0;
    for (int k = 0; k < M->na; k++) lmax = fmax(lmax, fabs(x[n + k]));
    double *lt = P->lt;                                           /* lambda of the mode */
    for (int i = 0; i < m; i++) lt[i] = 0;
    for (int k = 0; k < M->na; k++) lt[M->act[k]] = x[n + k];
    /* y = C z + D l + e with the size of its terms, per pair */
    double *y = P->w, *ys = P->q;
    for (int i = 0; i < m; i++) { y[i] = e1[i]; ys[i] = fabs(e1[i]); }
    const nsc_sparse *C = P->L->C, *D = P->L->D;
    for (int j = 0; j < n; j++)
        for (int k = C->p[j]; k < C->p[j + 1]; k++) {
            double t = C->x[k] * x[j];
            y[C->i[k]] += t;
            ys[C->i[k]] += fabs(t);
        }
    for (int j = 0; j < m; j++)
        for (int k = D->p[j]; k < D->p[j + 1]; k++) {
            double t = D->x[k] * lt[j];
            y[D->i[k]] += t;
            ys[D->i[k]] += fabs(t);
        }
    int ok = 1;
    for (int i = 0; i < m; i++) {
        int bad = mask[i] ? lt[i] < -1e-11 * lmax : y[i] < -1e-11 * ys[i];
        if (bad) ok = 0;
        if (next) next[i] = (char)(mask[i] ? !bad : bad);
    }
    if (!ok) return 0;
    double r = 0;
    for (int i = 0; i < m; i++) {
        l[i] = fmax(lt[i], 0.0);
        r = fmax(r, fabs(fmin(l[i], y[i])));
    }
    memcpy(z1, x, (size_t)n * sizeof(double));
    *res = r;
    return 1;
}

/* Primal-dual active-set iteration from the active set start (at most maxit
 * modes, each solved on its sparse system): returns the number of modes tried
 * when one was accepted (z1, l, *res set; P->mask holds it), 0 when it met a
 * singular mode, stalled or ran out of iterations. */
static int active_set(nsc_onestep *P, const char *start, int maxit, const double *e1, double *z1,
                      double *l, double *res)
{
    char *mask = P->mask, *next = P->mask2;
    if (mask != start) memcpy(mask, start, (size_t)P->m);
    for (int it = 1; it <= maxit; it++) {
        int st = mode_try(P, mask, e1, z1, l, res, next);
        if (st == 1) return it;
        if (st < 0 || memcmp(mask, next, (size_t)P->m) == 0) return 0;
        memcpy(mask, next, (size_t)P->m);
    }
    return 0;
}

/* r = (E/h + (I - Theta) A) z0 + Theta s1 + (I - Theta) s0, or s1 when h = 0 */
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

int nsc_onestep_open(nsc_onestep *P, const double *z0, const double *s0, const double *s1, double *z1)
{
    rhs(P, z0, s0, s1);
    memcpy(z1, P->r, (size_t)P->n * sizeof(double));
    return P->n > 0 && nsc_klu_solve(P->F, z1, 1) ? -1 : 0;     /* z1 = W \ r */
}

int nsc_onestep_solve(nsc_onestep *P, nsc_solver solver, const double *z0, const double *s0,
                      const double *s1, const double *e1, double *z1, double *l,
                      nsc_step_info *info)
{
    int n = P->n, m = P->m;
    memset(info, 0, sizeof *info);
    double *r = P->r;
    rhs(P, z0, s0, s1);
    double res;
    if (m > 0 && P->have_prev) {
        int it = active_set(P, P->prev, NSC_AS_MAXIT, e1, z1, l, &res);   /* from the previous mode */
        if (it > 0) {
            info->mode_hit = it == 1;                            /* the previous mode holds */
            info->active_set = it - 1;
            info->residual = res;
            memcpy(P->prev, P->mask, (size_t)m);
            return 0;
        }
    } else if (m > 0 && solver == NSC_SOLVER_AUTO) {
        /* cold start (operating point, first step): from every pair open, a
         * chain of devices settles one link per iteration (a CMOS inverter chain's
         * operating point, whose M holds 1/gmin products that defeat pivoting) */
        memset(P->mask2, 0, (size_t)m);
        int it = active_set(P, P->mask2, NSC_AS_MAXIT + m / 4, e1, z1, l, &res);
        if (it > 0) {
            info->active_set = it - 1;
            info->residual = res;
            memcpy(P->prev, P->mask, (size_t)m);
            P->have_prev = 1;
            return 0;
        }
    }

    double *zf = P->zl;
    memcpy(zf, r, (size_t)n * sizeof(double));
    if (n > 0 && nsc_klu_solve(P->F, zf, 1)) {                  /* z_free = W \ r */
        info->st = NSC_LCP_EINVAL;
        return -1;
    }
    if (m == 0) {
        memcpy(z1, zf, (size_t)n * sizeof(double));
        return 0;
    }
    double *q = P->q, *ll = P->ll;
    for (int i = 0; i < m; i++) { q[i] = e1[i]; ll[i] = 0; }
    nsc_sp_gaxpy(P->L->C, zf, q);                                /* q = C z_free + e1 */
    int need = 0;
    for (int i = 0; i < m; i++) need |= q[i] < 0;
    if (need && dense_form(P)) {
        info->st = NSC_LCP_ENOMEM;
        return -1;
    }
    if (need) {
        nsc_lcp lcp = { m, P->M, q };
        nsc_lcp_info li = { 0, 0 };
        nsc_lcp_status st;
        if (solver == NSC_SOLVER_ENUM) {
            st = nsc_lcp_enum(&lcp, ll, P->w, &li);
        } else {
            st = nsc_lcp_lemke(&lcp, ll, P->w, &li, P->ws);
            /* auto: the enumerative solver settles small problems Lemke cannot */
            if (st != NSC_LCP_OK && solver == NSC_SOLVER_AUTO && m <= 12) {
                int it = li.iter;
                st = nsc_lcp_enum(&lcp, ll, P->w, &li);
                li.iter += it;
            }
        }
        info->lcp_solved = 1;
        info->iter = li.iter;
        info->st = st;
        info->residual = nsc_lcp_residual(&lcp, ll);
        if (st != NSC_LCP_OK) return -1;
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
    int it = active_set(P, P->mask2, NSC_AS_MAXIT, e1, z1, l, &res);
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
    memcpy(z1, zf, (size_t)n * sizeof(double));
    memcpy(l, ll, (size_t)m * sizeof(double));
    return 0;
}
