/* la_klu.h -- the thin layer over KLU (SuiteSparse): sparse LU of a square CSC
 * nsc_sparse, symbolic analysis once per pattern (shared by every matrix of
 * that pattern through nsc_klu_syms), numeric refactorisation per value
 * change, in-place solves. */
#ifndef NSC_LA_KLU_H
#define NSC_LA_KLU_H

#include "sparse.h"

typedef struct nsc_klu nsc_klu;

/* Analyse and factor the square CSC matrix A (kept by pointer: A must outlive
 * the factorisation only until nsc_klu_refactor/free). Returns NULL on failure;
 * *singular is set to 1 when A is (numerically) singular, 0 otherwise. */
nsc_klu *nsc_klu_factor(const nsc_sparse *A, int *singular);
/* Numeric refactorisation with the same pattern (values of A changed), keeping
 * the pivot order of the last factorisation: no allocation. 0 ok, -1 on a zero
 * pivot or failure (F then holds no usable factors until the next successful call). */
int nsc_klu_refactor(nsc_klu *F, const nsc_sparse *A);
/* Numeric factorisation with fresh partial pivoting, same pattern and symbolic
 * analysis (allocates the numeric object again). 0 ok, -1 singular/failure. */
int nsc_klu_factor_num(nsc_klu *F, const nsc_sparse *A);
/* New values of A factored: on the last pivots when try_old and their klu_rcond
 * stays >= NSC_KLU_RCOND_MIN and >= NSC_KLU_RCOND_DROP * *rc (*rc: the rcond of
 * the last factorisation with pivoting), returning 1; else with new pivots,
 * *rc their rcond (0 on failure), returning 0, or -1 on failure. */
#define NSC_KLU_RCOND_MIN 1e-14
#define NSC_KLU_RCOND_DROP 1e-3
int nsc_klu_refresh(nsc_klu *F, const nsc_sparse *A, int try_old, double *rc);
/* Solve A X = B in place; B is n-by-nrhs column-major. 0 ok, -1 failure. */
int nsc_klu_solve(nsc_klu *F, double *B, int nrhs);
/* Solve A^T X = B in place. */
int nsc_klu_tsolve(nsc_klu *F, double *B, int nrhs);
/* Cheap reciprocal condition estimate (klu_rcond: min|U_ii| / max|U_ii|; of
 * the column-equilibrated matrix when F's analysis came from a cache marked
 * by nsc_klu_syms_cols). */
double nsc_klu_rcond(nsc_klu *F);
/* Reciprocal of the 1-norm condition estimate of A (klu_condest: a few solves);
 * A is the matrix F factors. 0 on failure. */
double nsc_klu_rcondest(nsc_klu *F, const nsc_sparse *A);
void nsc_klu_free(nsc_klu *F);

/* Complex matrices (KLU's klu_z_*: the small-signal AC analysis). The pattern
 * p[n+1], i[nnz] is a CSC pattern; values are interleaved Ax[2 nnz] = re, im. */
typedef struct nsc_kluz nsc_kluz;
/* Symbolic analysis of the pattern (kept by pointer: it must outlive F). NULL on failure. */
nsc_kluz *nsc_kluz_analyze(int n, const int *p, const int *i);
/* Numeric factorisation of the values Ax with fresh partial pivoting. 0 ok,
 * -1 singular or failure. */
int nsc_kluz_factor(nsc_kluz *F, const double *Ax);
/* Solve A X = B in place, B[2 n] interleaved (one right-hand side). 0 ok, -1 failure. */
int nsc_kluz_solve(nsc_kluz *F, double *B);
void nsc_kluz_free(nsc_kluz *F);

/* Symbolic analyses (BTF + AMD orderings) shared by pattern: KLU's analysis
 * depends on the pattern (n, p, i) of A only, so the factorisations of every
 * matrix of one pattern (a circuit's W for each step size, its mode systems
 * with the same active N pairs) can share one, bitwise the same factors. The
 * cache keeps up to NSC_KLU_SYMS patterns (then the oldest is dropped); each
 * analysis is reference-counted, so factorisations may outlive the cache. Not
 * thread-safe: one cache per thread of work. */
#define NSC_KLU_SYMS 64
typedef struct nsc_klu_syms nsc_klu_syms;
nsc_klu_syms *nsc_klu_syms_new(void); /* NULL out of memory */
void nsc_klu_syms_free(nsc_klu_syms *S);
/* nsc_klu_factor with the analysis of A's pattern taken from S (or made and
 * stored there); S NULL: nsc_klu_factor. */
nsc_klu *nsc_klu_factor_in(nsc_klu_syms *S, const nsc_sparse *A, int *singular);
/* Analyses S made and analyses it found (statistics, tests). */
void nsc_klu_syms_counts(const nsc_klu_syms *S, long *made, long *found);
/* Mark S: the factorisations analysed through it measure their rcond
 * (nsc_klu_rcond, and so the old pivots' test of nsc_klu_refresh) with the
 * matrix's columns equilibrated, for unknowns whose units differ by far more
 * than the matrix's conditioning (a charge in coulombs beside voltages). */
void nsc_klu_syms_cols(nsc_klu_syms *S);

#endif
