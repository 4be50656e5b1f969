/* sparse.h -- the one sparse-matrix type of nscircuit (after CSparse's cs).
 *
 * A matrix is either a triplet list (nz >= 0: entries (i[k], p[k], x[k]),
 * k < nz, duplicates allowed and summed on compression) or compressed-column
 * (nz == -1: column j holds rows i[p[j]..p[j+1]-1], sorted, no duplicates).
 * Indices are 0-based ints (KLU's int interface). */
#ifndef NSC_SPARSE_H
#define NSC_SPARSE_H

#include <stdio.h>

typedef struct nsc_sparse {
    int m, n;  /* rows, columns */
    int nzmax; /* allocated entries */
    int nz;    /* triplet: entries used; CSC: -1 */
    int *p;    /* CSC: column pointers [n+1]; triplet: column indices [nzmax] */
    int *i;    /* row indices [nzmax] */
    double *x; /* values [nzmax] */
} nsc_sparse;

/* New m-by-n matrix: triplet (triplet != 0) or empty CSC with room for nzmax. NULL on ENOMEM. */
nsc_sparse *nsc_sp_new(int m, int n, int nzmax, int triplet);
void nsc_sp_free(nsc_sparse *A);
/* Append entry A(i,j) += x to a triplet matrix (grows as needed). 0 ok, -1 ENOMEM.
 * Zero values are kept (they fix the sparsity pattern). */
int nsc_sp_entry(nsc_sparse *T, int i, int j, double x);
/* CSC copy of a triplet matrix, duplicates summed, rows sorted. NULL on ENOMEM. */
nsc_sparse *nsc_sp_compress(const nsc_sparse *T);
/* C = alpha*A + beta*B (both CSC, same shape); pattern is the union. NULL on ENOMEM. */
nsc_sparse *nsc_sp_add(const nsc_sparse *A, const nsc_sparse *B, double alpha, double beta);
/* The values of alpha A + beta B into C, whose pattern must be nsc_sp_add's
 * (drop0: without the entries that are exactly zero): 0, or -1 when C's
 * pattern is not that (C's values then partly written). No allocation. */
int nsc_sp_add_into(const nsc_sparse *A, const nsc_sparse *B, double alpha, double beta,
                    nsc_sparse *C, int drop0);
/* CSC transpose. NULL on ENOMEM. */
nsc_sparse *nsc_sp_transpose(const nsc_sparse *A);
/* y += A*x (CSC). */
void nsc_sp_gaxpy(const nsc_sparse *A, const double *x, double *y);
/* y += A^T*x (CSC). */
void nsc_sp_gatxpy(const nsc_sparse *A, const double *x, double *y);
/* y = D*A*x style helpers are built from these two. */
/* Value A(i,j) of a CSC matrix (0 if not stored). */
double nsc_sp_get(const nsc_sparse *A, int i, int j);
/* Position k of entry (i, j) of a CSC matrix (A->x[k]), -1 when not stored. */
int nsc_sp_pos(const nsc_sparse *A, int i, int j);
/* Scale row i of a CSC matrix by s[i] (s has m entries). */
void nsc_sp_scale_rows(nsc_sparse *A, const double *s);
/* Dense column-major copy (m*n doubles, caller frees). NULL on ENOMEM. Tests / small problems only. */
double *nsc_sp_dense(const nsc_sparse *A);
/* Write a CSC matrix in Matrix Market coordinate real general format. 0 ok, -1 on I/O error. */
int nsc_sp_write_mm(const nsc_sparse *A, FILE *f, const char *comment);

#endif
