/* la_klu.c -- see la_klu.h. The only file that includes klu.h. */
#include "la_klu.h"

#include <klu.h>
#include <stdlib.h>

struct nsc_klu {
    int n;
    klu_common common;
    klu_symbolic *sym;
    klu_numeric *num;
};

nsc_klu *nsc_klu_factor(const nsc_sparse *A, int *singular)
{
    if (singular) *singular = 0;
    if (!A || A->nz != -1 || A->m != A->n) return NULL;
    nsc_klu *F = calloc(1, sizeof *F);
    if (!F) return NULL;
    F->n = A->n;
    klu_defaults(&F->common);
    F->common.halt_if_singular = 1;
    F->sym = klu_analyze(A->n, A->p, A->i, &F->common);          /* BTF + AMD ordering */
    if (F->sym) F->num = klu_factor(A->p, A->i, A->x, F->sym, &F->common); /* P A Q = L U */
    if (!F->sym || !F->num) {
        if (singular && F->common.status == KLU_SINGULAR) *singular = 1;
        nsc_klu_free(F);
        return NULL;
    }
    return F;
}

int nsc_klu_refactor(nsc_klu *F, const nsc_sparse *A)
{
    if (!F || !A || A->n != F->n || !F->num) return -1;
    if (!klu_refactor(A->p, A->i, A->x, F->sym, F->num, &F->common)) return -1;
    return 0;
}

int nsc_klu_factor_num(nsc_klu *F, const nsc_sparse *A)
{
    if (!F || !A || A->n != F->n) return -1;
    if (F->num) klu_free_numeric(&F->num, &F->common);
    F->num = klu_factor(A->p, A->i, A->x, F->sym, &F->common);   /* P A Q = L U, new pivots */
    return F->num ? 0 : -1;
}

int nsc_klu_solve(nsc_klu *F, double *B, int nrhs)
{
    if (!F || !F->num || nrhs <= 0) return nrhs == 0 ? 0 : -1;
    return klu_solve(F->sym, F->num, F->n, nrhs, B, &F->common) ? 0 : -1; /* B = A\B */
}

int nsc_klu_tsolve(nsc_klu *F, double *B, int nrhs)
{
    if (!F || !F->num || nrhs <= 0) return nrhs == 0 ? 0 : -1;
    return klu_tsolve(F->sym, F->num, F->n, nrhs, B, &F->common) ? 0 : -1; /* B = A'\B */
}

double nsc_klu_rcond(nsc_klu *F)
{
    if (!F || !F->num) return 0;
    if (!klu_rcond(F->sym, F->num, &F->common)) return 0;
    return F->common.rcond;
}

double nsc_klu_rcondest(nsc_klu *F, const nsc_sparse *A)
{
    if (!F || !F->num || !A || A->n != F->n) return 0;
    if (!klu_condest(A->p, A->x, F->sym, F->num, &F->common)) return 0;
    return F->common.condest > 0 ? 1.0 / F->common.condest : 0;
}

void nsc_klu_free(nsc_klu *F)
{
    if (!F) return;
    if (F->num) klu_free_numeric(&F->num, &F->common);
    if (F->sym) klu_free_symbolic(&F->sym, &F->common);
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
    F->sym = klu_analyze(n, (int *)p, (int *)i, &F->common);     /* BTF + AMD ordering of the pattern */
    if (!F->sym) { free(F); return NULL; }
    return F;
}

int nsc_kluz_factor(nsc_kluz *F, const double *Ax)
{
    if (!F) return -1;
    if (F->num) klu_z_free_numeric(&F->num, &F->common);
    F->num = klu_z_factor((int *)F->p, (int *)F->i, (double *)Ax, F->sym, &F->common);   /* P A Q = L U */
    return F->num ? 0 : -1;
}

int nsc_kluz_solve(nsc_kluz *F, double *B)
{
    if (!F || !F->num) return -1;
    return klu_z_solve(F->sym, F->num, F->n, 1, B, &F->common) ? 0 : -1;   /* B = A\B */
}

void nsc_kluz_free(nsc_kluz *F)
{
    if (!F) return;
    if (F->num) klu_z_free_numeric(&F->num, &F->common);
    if (F->sym) klu_free_symbolic(&F->sym, &F->common);
    free(F);
}
