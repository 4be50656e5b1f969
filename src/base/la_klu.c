/* la_klu.c -- see la_klu.h. The only file that includes klu.h. */
#include "la_klu.h"

#include <klu.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A symbolic analysis and its users: the factorisations holding it, and the
 * cache while it lists it. Freed when the last lets go. */
typedef struct sym_ref {
    klu_symbolic *sym;
    int refs;
} sym_ref;

/* The last one-column solve of a factorisation whose diagonal blocks are all
 * 1x1 (BTF: a feed-forward circuit, the inverter chain), kept so that the next
 * solve recomputes only the unknowns whose inputs changed (inc_solve). */
typedef struct inc_state {
    int use;      /* 1: the factors qualify (all blocks 1x1, no zero pivot), rows built */
    int valid;    /* 1: b and x hold a solve with the current factor values */
    double *b;    /* [n] the last right-hand side, pivot order: B[Pnum[k]] */
    double *x;    /* [n] its solution, pivot order (klu_solve's X) */
    char *dirty;  /* [n] 0 between solves */
    int *rp, *rq; /* [n + 1], [nzoff]: row k of Off: its entries' positions in Offx, k descending */
    int *rk;      /* [nzoff] their columns */
} inc_state;

struct nsc_klu {
    int n;
    klu_common common;
    sym_ref *sym;
    klu_numeric *num;
    int cols;            /* 1: rcond with A's columns equilibrated (nsc_klu_syms_cols) */
    const nsc_sparse *A; /* the matrix last factored (cols: its column scales) */
    inc_state inc;       /* the incremental one-column solve (rows: pattern of num's Off) */
};

/* One cached pattern: a copy of (n, p, i), its hash, its analysis. */
typedef struct sym_entry {
    uint64_t key;
    int n, nnz;
    int *p, *i;
    sym_ref *ref;
} sym_entry;

struct nsc_klu_syms {
    sym_entry e[NSC_KLU_SYMS];
    int len, next; /* entries used; the slot replaced next when full */
    long made, found;
    int cols; /* nsc_klu_syms_cols */
};

static void sym_release(sym_ref *R)
{
    if (!R || --R->refs > 0) return;
    klu_common c;
    klu_defaults(&c);
    klu_free_symbolic(&R->sym, &c);
    free(R);
}

/* A new analysis of A's pattern, one reference (the caller's); NULL on failure. */
static sym_ref *sym_analyze(const nsc_sparse *A, klu_common *c)
{
    sym_ref *R = malloc(sizeof *R);
    if (!R) return NULL;
    R->refs = 1;
    R->sym = klu_analyze(A->n, A->p, A->i, c); /* BTF + AMD ordering */
    if (!R->sym) {
        free(R);
        return NULL;
    }
    return R;
}

static uint64_t pattern_key(const nsc_sparse *A)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)A->n; /* FNV-1a over p and i */
    for (int j = 0; j <= A->n; j++) h = (h ^ (uint64_t)(unsigned)A->p[j]) * 1099511628211ull;
    for (int k = 0; k < A->p[A->n]; k++) h = (h ^ (uint64_t)(unsigned)A->i[k]) * 1099511628211ull;
    return h;
}

/* The analysis of A's pattern from S, or made and stored: a new reference for
 * the caller; NULL on failure. */
static sym_ref *sym_get(nsc_klu_syms *S, const nsc_sparse *A, klu_common *c)
{
    uint64_t key = pattern_key(A);
    int nnz = A->p[A->n];
    for (int k = 0; k < S->len; k++) {
        sym_entry *e = &S->e[k];
        if (e->key == key && e->n == A->n && e->nnz == nnz
            && !memcmp(e->p, A->p, sizeof(int) * ((size_t)A->n + 1))
            && !memcmp(e->i, A->i, sizeof(int) * (size_t)nnz)) {
            S->found++;
            e->ref->refs++;
            return e->ref;
        }
    }
    sym_ref *R = sym_analyze(A, c);
    if (!R) return NULL;
    S->made++;
    int *p = malloc(sizeof(int) * ((size_t)A->n + 1)), *i = malloc(sizeof(int) * ((size_t)nnz + 1));
    if (!p || !i) {
        free(p);
        free(i);
        return R;
    } /* not cached: still usable */
    sym_entry *e;
    if (S->len < NSC_KLU_SYMS) {
        e = &S->e[S->len++];
    } else { /* full: the oldest goes */
        e = &S->e[S->next];
        S->next = (S->next + 1) % NSC_KLU_SYMS;
        free(e->p);
        free(e->i);
        sym_release(e->ref);
    }
    memcpy(p, A->p, sizeof(int) * ((size_t)A->n + 1));
    memcpy(i, A->i, sizeof(int) * (size_t)nnz);
    *e = (sym_entry){ key, A->n, nnz, p, i, R };
    R->refs++; /* the cache's reference */
    return R;
}

nsc_klu_syms *nsc_klu_syms_new(void)
{
    return calloc(1, sizeof(nsc_klu_syms));
}

void nsc_klu_syms_free(nsc_klu_syms *S)
{
    if (!S) return;
    for (int k = 0; k < S->len; k++) {
        free(S->e[k].p);
        free(S->e[k].i);
        sym_release(S->e[k].ref);
    }
    free(S);
}

void nsc_klu_syms_cols(nsc_klu_syms *S)
{
    if (S) S->cols = 1;
}

void nsc_klu_syms_counts(const nsc_klu_syms *S, long *made, long *found)
{
    *made = S ? S->made : 0;
    *found = S ? S->found : 0;
}

nsc_klu *nsc_klu_factor_in(nsc_klu_syms *S, const nsc_sparse *A, int *singular)
{
    if (singular) *singular = 0;
    if (!A || A->nz != -1 || A->m != A->n) return NULL;
    nsc_klu *F = calloc(1, sizeof *F);
    if (!F) return NULL;
    F->n = A->n;
    F->cols = S && S->cols;
    F->A = A;
    klu_defaults(&F->common);
    F->common.halt_if_singular = 1;
    F->sym = S ? sym_get(S, A, &F->common) : sym_analyze(A, &F->common);
    if (F->sym) F->num = klu_factor(A->p, A->i, A->x, F->sym->sym, &F->common); /* P A Q = L U */
    if (!F->sym || !F->num) {
        if (singular && F->common.status == KLU_SINGULAR) *singular = 1;
        nsc_klu_free(F);
        return NULL;
    }
    return F;
}

nsc_klu *nsc_klu_factor(const nsc_sparse *A, int *singular)
{
    return nsc_klu_factor_in(NULL, A, singular);
}

int nsc_klu_refactor(nsc_klu *F, const nsc_sparse *A)
{
    if (!F || !A || A->n != F->n || !F->num) return -1;
    F->A = A;
    F->inc.valid = 0; /* new values on the same pivots: Off's pattern (the rows) stays */
    if (!klu_refactor(A->p, A->i, A->x, F->sym->sym, F->num, &F->common)) return -1;
    return 0;
}

int nsc_klu_factor_num(nsc_klu *F, const nsc_sparse *A)
{
    if (!F || !A || A->n != F->n) return -1;
    if (F->num) klu_free_numeric(&F->num, &F->common);
    F->A = A;
    F->inc.valid = F->inc.use = 0; /* new pivots: Off's pattern may change */
    F->num = klu_factor(A->p, A->i, A->x, F->sym->sym, &F->common); /* P A Q = L U, new pivots */
    return F->num ? 0 : -1;
}

int nsc_klu_refresh(nsc_klu *F, const nsc_sparse *A, int try_old, double *rc)
{
    if (try_old && nsc_klu_refactor(F, A) == 0) {
        double r = nsc_klu_rcond(F);
        if (r >= NSC_KLU_RCOND_MIN && r >= NSC_KLU_RCOND_DROP * *rc) return 1;
    }
    if (nsc_klu_factor_num(F, A)) {
        *rc = 0.0;
        return -1;
    }
    *rc = nsc_klu_rcond(F);
    return 0;
}

static int same_bits(double a, double b)
{
    uint64_t u, v;
    memcpy(&u, &a, sizeof u);
    memcpy(&v, &b, sizeof v);
    return u == v;
}

static void inc_free(inc_state *I)
{
    free(I->b);
    free(I->x);
    free(I->dirty);
    free(I->rp);
    free(I->rq);
    free(I->rk);
    memset(I, 0, sizeof *I);
}

/* The rows of Off (row k: the positions p in Offx of its entries and their
 * columns), each in the order klu_solve subtracts them from X[k]: its blocks
 * are solved last to first, so by column descending. 0, -1 out of memory. */
static int inc_rows(nsc_klu *F)
{
    inc_state *I = &F->inc;
    const klu_numeric *N = F->num;
    int n = F->n, nz = N->nzoff;
    free(I->rp);
    free(I->rq);
    free(I->rk);
    I->rp = calloc((size_t)n + 2, sizeof(int));
    I->rq = malloc(((size_t)nz + 1) * sizeof(int));
    I->rk = malloc(((size_t)nz + 1) * sizeof(int));
    if (!I->b) I->b = malloc(((size_t)n + 1) * sizeof(double));
    if (!I->x) I->x = malloc(((size_t)n + 1) * sizeof(double));
    if (!I->dirty) I->dirty = calloc((size_t)n + 1, 1);
    if (!I->rp || !I->rq || !I->rk || !I->b || !I->x || !I->dirty) return -1;
    for (int p = 0; p < nz; p++) I->rp[N->Offi[p] + 2]++; /* counts, shifted for the fill */
    for (int k = 0; k < n; k++) I->rp[k + 2] += I->rp[k + 1];
    for (int k = n - 1; k >= 0; k--)
        for (int p = N->Offp[k]; p < N->Offp[k + 1]; p++) {
            int q = I->rp[N->Offi[p] + 1]++;
            I->rq[q] = p;
            I->rk[q] = k;
        }
    return 0;
}

/* 1 when the factors' diagonal blocks are all 1x1 with nonzero pivots (the
 * incremental solve's scope; else klu_solve), the rows built once per pivots. */
static int inc_ready(nsc_klu *F)
{
    inc_state *I = &F->inc;
    const klu_numeric *N = F->num;
    const double *U = N->Udiag;
    if (F->sym->sym->maxblock != 1 || N->nblocks != F->n) return 0;
    for (int k = 0; k < F->n; k++)
        if (U[k] == 0) return 0;
    if (!I->use) {
        if (inc_rows(F)) {
            inc_free(I);
            return 0;
        }
        I->use = 1;
    }
    return 1;
}

/* B = A \ B for factors of 1x1 diagonal blocks, as klu_solve computes it: in
 * pivot order X[k] = B[Pnum[k]] / Rs[k], minus Off(k, j) X[j] for j from n - 1
 * down to k + 1, divided by U[k][k]; B[Q[k]] = X[k]. The same operations in the
 * same order on the same inputs give the same bits, so an X[k] whose right-hand
 * side and X[j] (j in row k of Off) are bitwise the last solve's is the last
 * solve's: only the unknowns reached from a changed B entry through changed
 * X's are computed (a step of the 1000-stage chain moves a few hundred of its
 * 1004 unknowns, the rest sit bitwise still). The first solve of new factor
 * values computes every X[k]. */
static void inc_solve(nsc_klu *F, double *B)
{
    inc_state *I = &F->inc;
    const klu_numeric *N = F->num;
    const int *Pnum = N->Pnum, *Q = F->sym->sym->Q, *Offp = N->Offp, *Offi = N->Offi;
    const double *Rs = N->Rs, *U = N->Udiag, *Offx = N->Offx;
    double *x = I->x, *b = I->b;
    char *dirty = I->dirty;
    int n = F->n, all = !I->valid;
    for (int k = 0; k < n; k++) {
        double v = B[Pnum[k]];
        if (all || !same_bits(v, b[k])) b[k] = v, dirty[k] = 1;
    }
    for (int k = n - 1; k >= 0; k--) {
        if (!dirty[k]) continue;
        dirty[k] = 0;
        double xk = Rs ? b[k] / Rs[k] : b[k];
        for (int q = I->rp[k]; q < I->rp[k + 1]; q++) xk -= Offx[I->rq[q]] * x[I->rk[q]];
        xk /= U[k];
        if (all || !same_bits(xk, x[k])) {
            x[k] = xk;
            for (int p = Offp[k]; p < Offp[k + 1]; p++) dirty[Offi[p]] = 1;
        }
    }
    for (int k = 0; k < n; k++) B[Q[k]] = x[k];
    I->valid = 1;
}

int nsc_klu_solve(nsc_klu *F, double *B, int nrhs)
{
    if (!F || !F->num || nrhs <= 0) return nrhs == 0 ? 0 : -1;
    if (nrhs == 1 && (F->inc.valid || inc_ready(F))) {
        inc_solve(F, B);
        return 0;
    }
    return klu_solve(F->sym->sym, F->num, F->n, nrhs, B, &F->common) ? 0 : -1; /* B = A\B */
}

int nsc_klu_tsolve(nsc_klu *F, double *B, int nrhs)
{
    if (!F || !F->num || nrhs <= 0) return nrhs == 0 ? 0 : -1;
    return klu_tsolve(F->sym->sym, F->num, F->n, nrhs, B, &F->common) ? 0 : -1; /* B = A'\B */
}

/* klu_rcond's min_k |U_kk| / max_k |U_kk| for the factors of R^-1 A D, D
 * the column scales that make each column of R^-1 A (R = diag(Rs), KLU's row
 * scaling; KLU keeps Rs in pivot order, Rs[Pinv[i]] row i's) of largest
 * entry 1: U_kk d_Q[k] (Q the column order). Row pivoting
 * within a column does not see D, so R^-1 A's factors are those of R^-1 A D
 * times D^-1, computed as accurately: only the estimate changes. A column of
 * charges (coulombs, entries E/h ~ 1e9 in the KCL rows and 1 in its own row)
 * beside node voltages (siemens) gave 3e-15 unscaled. 0 on failure. */
static double rcond_cols(nsc_klu *F)
{
    const nsc_sparse *A = F->A;
    const klu_numeric *N = F->num;
    const int *Q = F->sym->sym->Q;
    const double *U = N->Udiag;
    double rmin = INFINITY, rmax = 0;
    for (int k = 0; k < F->n; k++) {
        int j = Q[k];
        double cmax = 0;
        for (int p = A->p[j]; p < A->p[j + 1]; p++) {
            double a = fabs(A->x[p]) / (N->Rs ? N->Rs[N->Pinv[A->i[p]]] : 1.0); /* |(R^-1 A)_ij| */
            if (a > cmax) cmax = a;
        }
        double u = cmax > 0 ? fabs(U[k]) / cmax : 0; /* |U_kk d_j| */
        if (u < rmin) rmin = u;
        if (u > rmax) rmax = u;
    }
    return rmax > 0 && rmin == rmin ? rmin / rmax : 0;
}

double nsc_klu_rcond(nsc_klu *F)
{
    if (!F || !F->num) return 0;
    if (F->cols && F->A) return rcond_cols(F);
    if (!klu_rcond(F->sym->sym, F->num, &F->common)) return 0;
    return F->common.rcond;
}

double nsc_klu_rcondest(nsc_klu *F, const nsc_sparse *A)
{
    if (!F || !F->num || !A || A->n != F->n) return 0;
    if (!klu_condest(A->p, A->x, F->sym->sym, F->num, &F->common)) return 0;
    return F->common.condest > 0 ? 1.0 / F->common.condest : 0;
}

void nsc_klu_free(nsc_klu *F)
{
    if (!F) return;
    inc_free(&F->inc);
    if (F->num) klu_free_numeric(&F->num, &F->common);
    sym_release(F->sym);
    free(F);
}

struct nsc_kluz {
    int n;
    const int *p, *i;
    klu_common common;
    klu_symbolic *sym;
    klu_numeric *num;
};

nsc_kluz *nsc_kluz_analyze(int n, const int *p, const int *i)
{
    nsc_kluz *F = calloc(1, sizeof *F);
    if (!F) return NULL;
    F->n = n;
    F->p = p;
    F->i = i;
    klu_defaults(&F->common);
    F->common.halt_if_singular = 1;
    F->sym = klu_analyze(n, (int *)p, (int *)i, &F->common); /* BTF + AMD ordering of the pattern */
    if (!F->sym) {
        free(F);
        return NULL;
    }
    return F;
}

int nsc_kluz_factor(nsc_kluz *F, const double *Ax)
{
    if (!F) return -1;
    if (F->num) klu_z_free_numeric(&F->num, &F->common);
    F->num = klu_z_factor((int *)F->p, (int *)F->i, (double *)Ax, F->sym,
                          &F->common); /* P A Q = L U */
    return F->num ? 0 : -1;
}

int nsc_kluz_solve(nsc_kluz *F, double *B)
{
    if (!F || !F->num) return -1;
    return klu_z_solve(F->sym, F->num, F->n, 1, B, &F->common) ? 0 : -1; /* B = A\B */
}

void nsc_kluz_free(nsc_kluz *F)
{
    if (!F) return;
    if (F->num) klu_z_free_numeric(&F->num, &F->common);
    if (F->sym) klu_free_symbolic(&F->sym, &F->common);
    free(F);
}
