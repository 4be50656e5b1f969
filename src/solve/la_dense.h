/* la_dense.h -- the thin LAPACK/BLAS layer for small dense matrices.
 *
 * All matrices are column-major with a leading dimension: A(i,j) = A[i + j*lda],
 * lda >= max(1, rows). Every routine accepts zero sizes (and then does nothing).
 * trans arguments: 0 = op(A) = A, nonzero = op(A) = A^T. */
#ifndef NSC_LA_DENSE_H
#define NSC_LA_DENSE_H

/* LU factorisation with partial pivoting, in place: A = P*L*U (dgetrf).
 *   n     order of A
 *   A     in: the n-by-n matrix; out: L (unit lower, below the diagonal) and U
 *   lda   leading dimension of A
 *   ipiv  out: n row interchanges (1-based, LAPACK convention)
 * Returns 0 on success, k > 0 if U(k,k) == 0 exactly (A singular; the factors
 * are complete but must not be used to solve), < 0 on a bad argument. */
int nsc_dense_lu(int n, double *A, int lda, int *ipiv);

/* What nsc_dense_eig returns when LAPACK and BLAS are not used: they could not
 * be loaded, or an address-space limit leaves too little room for them (they
 * are loaded at the first call of a routine here, la_dense.c); the LU
 * factorisation and its solves then run as nsc_dense_lu_loops and
 * nsc_dense_lusolve_loops. nsc_dense_available() says whether they are used
 * (loading them). */
#define NSC_DENSE_NOLIB (-1001)
int nsc_dense_available(void);
/* Why they are not used (sonames and the loader's text, or the limit), once a
 * routine here was called and they are not; NULL otherwise. A caller reporting a
 * failed solve names it (the solvers see only a failed factorisation). */
const char *nsc_dense_load_error(void);

/* nsc_dense_lu and nsc_dense_lusolve as plain loops (what they run where
 * LAPACK is not used; the same arguments and returns, the same pivots as
 * dgetf2, the same results up to rounding). */
int nsc_dense_lu_loops(int n, double *A, int lda, int *ipiv);
int nsc_dense_lusolve_loops(int trans, int n, int nrhs, const double *LU, int lda, const int *ipiv,
                            double *B, int ldb);

/* nsc_dense_gemv's and nsc_dense_gemm's products as plain loops (what they run
 * where BLAS is not used; the same arguments, the same results up to
 * the order of the sums). */
void nsc_dense_gemv_loops(int trans, int m, int n, double alpha, const double *A, int lda,
                          const double *x, double beta, double *y);
void nsc_dense_gemm_loops(int transa, int transb, int m, int n, int k, double alpha,
                          const double *A, int lda, const double *B, int ldb, double beta,
                          double *C, int ldc);

/* Solve op(A) X = B with the factors of nsc_dense_lu (dgetrs).
 *   trans   0: A X = B, nonzero: A^T X = B
 *   n, nrhs order of A, number of right-hand sides
 *   LU,lda  the factors (input only)
 *   ipiv    the interchanges from nsc_dense_lu
 *   B,ldb   in: n-by-nrhs right-hand sides; out: the solutions X
 * Returns 0, or < 0 on a bad argument. */
int nsc_dense_lusolve(int trans, int n, int nrhs, const double *LU, int lda, const int *ipiv,
                      double *B, int ldb);

/* Solve A x = b by LU in place: A (n-by-n, lda) is overwritten by its factors,
 * b (n) by x, ipiv (n) is scratch. Returns as nsc_dense_lu (nonzero: x not computed). */
int nsc_dense_solve(int n, double *A, int lda, int *ipiv, double *b);

/* The eigenvalues of a general real matrix (dgeev, no eigenvectors; balanced).
 *   n      order of A
 *   A,lda  in: the n-by-n matrix; out: destroyed
 *   wr,wi  out: n real and imaginary parts; a complex pair is consecutive,
 *          positive imaginary part first
 * Returns 0; > 0 when the QR algorithm did not converge (wr, wi from index
 * info on hold the eigenvalues found); -1000 out of memory; other < 0: a bad
 * argument. The work space (dgeev's optimal, at least 3n) is allocated here. */
int nsc_dense_eig(int n, double *A, int lda, double *wr, double *wi);

/* y = alpha*op(A)*x + beta*y (dgemv); A is m-by-n; x, y have the lengths of op(A).
 * With beta == 0, y need not be initialised. */
void nsc_dense_gemv(int trans, int m, int n, double alpha, const double *A, int lda,
                    const double *x, double beta, double *y);

/* out = G u for a small G (nout x ncol, lda nout) without BLAS's call overhead
 * (measured: a 27 x 27 product through dgemv costs twice its arithmetic): four
 * columns per sweep of out, vectorised, no FMA (the same rounding everywhere). */
void nsc_dense_gemv_small(int nout, int ncol, const double *restrict G, const double *restrict u,
                          double *restrict out);

/* C = alpha*op(A)*op(B) + beta*C (dgemm); C is m-by-n, op(A) m-by-k, op(B) k-by-n. */
void nsc_dense_gemm(int transa, int transb, int m, int n, int k, double alpha, const double *A,
                    int lda, const double *B, int ldb, double beta, double *C, int ldc);

/* A = A + alpha*x*y^T (dger); A is m-by-n, x (m), y (n). */
void nsc_dense_ger(int m, int n, double alpha, const double *x, const double *y, double *A,
                   int lda);

/* Power-of-two equilibration (exact in floating point, like dgeequ): row scales
 * r_i = 2^-e with 2^(e-1) <= max_j |A(i,j)| < 2^e, then column scales c_j likewise
 * for diag(r) A; all-zero rows/columns get scale 1. A is m-by-n (input only);
 * r (m) and c (n) are outputs; max_ij |r_i A(i,j) c_j| is in [0.5, 1) unless zero. */
void nsc_dense_equilibrate(int m, int n, const double *A, int lda, double *r, double *c);

#endif
