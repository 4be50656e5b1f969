/* la_dense.c -- LAPACK/BLAS wrappers (la_dense.h). The Fortran routines take
 * every argument by reference; character arguments carry a hidden length
 * (gfortran ABI: size_t after the last argument), passed here explicitly.
 *
 * LAPACK and BLAS are loaded when a routine is first called (dlopen of the
 * sonames configure found, NSC_LAPACK_SONAME and NSC_BLAS_SONAME), not with the
 * program: loading and relocating OpenBLAS (~12 500 relocations) and running its
 * constructor take ~8 ms of a process's start, and most runs (the adaptive
 * stepper on sparse systems) never call a dense routine. The routines called are
 * the same, so the values are. Loaded once (pthread_once); where the libraries
 * cannot be loaded, the factorisations and the eigenvalues return
 * NSC_DENSE_NOLIB and the three BLAS products run as the plain loops below. */
#include "config.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "la_dense.h"

typedef void getrf_fn(int *m, int *n, double *a, int *lda, int *ipiv, int *info);
typedef void getrs_fn(const char *trans, int *n, int *nrhs, double *a, int *lda, int *ipiv,
                      double *b, int *ldb, int *info, size_t ltrans);
typedef void gemv_fn(const char *trans, int *m, int *n, double *alpha, double *a, int *lda,
                     double *x, int *incx, double *beta, double *y, int *incy, size_t ltrans);
typedef void gemm_fn(const char *ta, const char *tb, int *m, int *n, int *k, double *alpha,
                     double *a, int *lda, double *b, int *ldb, double *beta, double *c, int *ldc,
                     size_t lta, size_t ltb);
typedef void ger_fn(int *m, int *n, double *alpha, double *x, int *incx, double *y, int *incy,
                    double *a, int *lda);
typedef void geev_fn(const char *jobvl, const char *jobvr, int *n, double *a, int *lda, double *wr,
                     double *wi, double *vl, int *ldvl, double *vr, int *ldvr, double *work,
                     int *lwork, int *info, size_t ljobvl, size_t ljobvr);

static struct {
    getrf_fn *dgetrf;
    getrs_fn *dgetrs;
    gemv_fn *dgemv;
    gemm_fn *dgemm;
    ger_fn *dger;
    geev_fn *dgeev;
    int ok;        /* every pointer set */
    char err[256]; /* why not, when tried and not ok ("" otherwise) */
} L;
static pthread_once_t L_once = PTHREAD_ONCE_INIT;

/* A symbol of LAPACK's library, else of BLAS's (LAPACK's library may hold BLAS). */
static void *sym(void *hl, void *hb, const char *name)
{
    void *f = hl ? dlsym(hl, name) : NULL;
    return f ? f : hb ? dlsym(hb, name) : NULL;
}

static void load(void)
{
    void *hb = dlopen(NSC_BLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
    void *hl = dlopen(NSC_LAPACK_SONAME, RTLD_NOW | RTLD_LOCAL);
    *(void **)&L.dgetrf = sym(hl, hb, "dgetrf_");
    *(void **)&L.dgetrs = sym(hl, hb, "dgetrs_");
    *(void **)&L.dgeev = sym(hl, hb, "dgeev_");
    *(void **)&L.dgemv = sym(hb, hl, "dgemv_");
    *(void **)&L.dgemm = sym(hb, hl, "dgemm_");
    *(void **)&L.dger = sym(hb, hl, "dger_");
    L.ok = L.dgetrf && L.dgetrs && L.dgeev && L.dgemv && L.dgemm && L.dger;
    if (!L.ok) {
        const char *e = hb && hl ? "a routine is missing" : dlerror();
        snprintf(L.err, sizeof L.err, "%s, %s: %s", NSC_LAPACK_SONAME, NSC_BLAS_SONAME,
                 e ? e : "not found");
    }
}

/* Once a dense routine was called and the libraries could not be loaded: the
 * sonames and dlerror()'s text; else NULL (never loads them). */
const char *nsc_dense_load_error(void)
{
    return L.err[0] ? L.err : NULL;
}

/* 1 when the libraries are loaded (loads them the first time). */
static int lib(void)
{
    pthread_once(&L_once, load);
    return L.ok;
}

int nsc_dense_available(void)
{
    return lib();
}

int nsc_dense_lu(int n, double *A, int lda, int *ipiv)
{
    int info = 0;
    if (n <= 0) return n < 0 ? -1 : 0;
    if (!lib()) return NSC_DENSE_NOLIB;
    L.dgetrf(&n, &n, A, &lda, ipiv, &info); /* A = P*L*U */
    return info;
}

int nsc_dense_lusolve(int trans, int n, int nrhs, const double *LU, int lda, const int *ipiv,
                      double *B, int ldb)
{
    int info = 0;
    if (n < 0 || nrhs < 0) return -1;
    if (n == 0 || nrhs == 0) return 0;
    if (!lib()) return NSC_DENSE_NOLIB;
    L.dgetrs(trans ? "T" : "N", &n, &nrhs, (double *)LU, &lda, (int *)ipiv, B, &ldb, &info, 1);
    return info; /* B = op(A)\B */
}

int nsc_dense_solve(int n, double *A, int lda, int *ipiv, double *b)
{
    int st = nsc_dense_lu(n, A, lda, ipiv);
    if (st != 0) return st;
    return nsc_dense_lusolve(0, n, 1, A, lda, ipiv, b, n > 0 ? n : 1); /* b = A\b */
}

int nsc_dense_eig(int n, double *A, int lda, double *wr, double *wi)
{
    int info = 0, lwork = -1, one = 1;
    double q = 0, dummy = 0;
    if (n <= 0) return n < 0 ? -1 : 0;
    if (!lib()) return NSC_DENSE_NOLIB;
    L.dgeev("N", "N", &n, A, &lda, wr, wi, &dummy, &one, &dummy, &one, &q, &lwork, &info, 1, 1);
    if (info) return info; /* (the workspace query) */
    lwork = q >= 3.0 * n ? (int)q : 3 * n;
    double *work = malloc(sizeof(double) * (size_t)lwork);
    if (!work) return -1000;
    L.dgeev("N", "N", &n, A, &lda, wr, wi, &dummy, &one, &dummy, &one, work, &lwork, &info, 1, 1);
    free(work); /* balance, Hessenberg, QR */
    return info;
}

/* The BLAS products as plain loops, where BLAS could not be loaded. */
void nsc_dense_gemv_loops(int trans, int m, int n, double alpha, const double *A, int lda,
                          const double *x, double beta, double *y)
{
    for (int i = 0; i < (trans ? n : m); i++) {
        double s = 0;
        for (int k = 0; k < (trans ? m : n); k++)
            s += (trans ? A[k + (size_t)i * lda] : A[i + (size_t)k * lda]) * x[k];
        y[i] = alpha * s + (beta == 0 ? 0 : beta * y[i]);
    }
}

void nsc_dense_gemm_loops(int ta, int tb, int m, int n, int k, double alpha, const double *A,
                          int lda, const double *B, int ldb, double beta, double *C, int ldc)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = 0;
            for (int l = 0; l < k; l++)
                s += (ta ? A[l + (size_t)i * lda] : A[i + (size_t)l * lda])
                     * (tb ? B[j + (size_t)l * ldb] : B[l + (size_t)j * ldb]);
            double *c = &C[i + (size_t)j * ldc];
            *c = alpha * s + (beta == 0 ? 0 : beta * *c);
        }
}

void nsc_dense_gemv(int trans, int m, int n, double alpha, const double *A, int lda,
                    const double *x, double beta, double *y)
{
    int one = 1, ylen = trans ? n : m;
    if (m <= 0 || n <= 0) { /* op(A) empty: y = beta*y */
        for (int i = 0; i < ylen; i++) y[i] = beta == 0 ? 0 : beta * y[i];
        return;
    }
    if (!lib()) {
        nsc_dense_gemv_loops(trans, m, n, alpha, A, lda, x, beta, y);
        return;
    }
    L.dgemv(trans ? "T" : "N", &m, &n, &alpha, (double *)A, &lda, (double *)x, &one, &beta, y, &one,
            1); /* y = alpha*op(A)*x + beta*y */
}

void nsc_dense_gemm(int transa, int transb, int m, int n, int k, double alpha, const double *A,
                    int lda, const double *B, int ldb, double beta, double *C, int ldc)
{
    if (m <= 0 || n <= 0) return;
    if (k <= 0) { /* C = beta*C */
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++)
                C[i + (size_t)j * ldc] = beta == 0 ? 0 : beta * C[i + (size_t)j * ldc];
        return;
    }
    if (!lib()) {
        nsc_dense_gemm_loops(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    L.dgemm(transa ? "T" : "N", transb ? "T" : "N", &m, &n, &k, &alpha, (double *)A, &lda,
            (double *)B, &ldb, &beta, C, &ldc, 1, 1); /* C = alpha*op(A)*op(B) + beta*C */
}

void nsc_dense_ger(int m, int n, double alpha, const double *x, const double *y, double *A, int lda)
{
    int one = 1;
    if (m <= 0 || n <= 0) return;
    if (!lib()) {
        nsc_dense_gemm_loops(0, 1, m, n, 1, alpha, x, m, y, n, 1, A,
                             lda); /* x y' as m x 1 times 1 x n */
        return;
    }
    L.dger(&m, &n, &alpha, (double *)x, &one, (double *)y, &one, A, &lda); /* A += alpha*x*y' */
}

/* 2^-e for x in [2^(e-1), 2^e), 1 for x == 0 (or non-finite). */
static double pow2_inv(double x)
{
    int e;
    if (!(x > 0) || !isfinite(x)) return 1;
    frexp(x, &e); /* x = f 2^e, f in [0.5, 1) */
    return ldexp(1, -e);
}

void nsc_dense_equilibrate(int m, int n, const double *A, int lda, double *r, double *c)
{
    for (int i = 0; i < m; i++) r[i] = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) r[i] = fmax(r[i], fabs(A[i + (size_t)j * lda]));
    for (int i = 0; i < m; i++) r[i] = pow2_inv(r[i]); /* r_i ~ 1/max_j |A(i,j)| */
    for (int j = 0; j < n; j++) {
        double cmax = 0;
        for (int i = 0; i < m; i++) cmax = fmax(cmax, fabs(r[i] * A[i + (size_t)j * lda]));
        c[j] = pow2_inv(cmax); /* c_j ~ 1/max_i |r_i A(i,j)| */
    }
}

/* out = G u, G nout x ncol column-major (la_dense.h): four columns per sweep of out */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
__attribute__((optimize("tree-vectorize"), target_clones("avx2", "default")))   /* no FMA: same rounding */
#elif defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("tree-vectorize")))
#endif
void nsc_dense_gemv_small(int nout, int ncol, const double *restrict G, const double *restrict u,
                          double *restrict out)
{
    int c = 0;
    if (ncol % 2) {
        const double *g = G;
        for (int i = 0; i < nout; i++) out[i] = g[i] * u[0];
        c = 1;
    } else if (ncol >= 4) { /* the first sweep added to +0.0, as to a zeroed out: bit for bit */
        const double *g0 = G, *g1 = g0 + nout, *g2 = g1 + nout, *g3 = g2 + nout;
        double u0 = u[0], u1 = u[1], u2 = u[2], u3 = u[3];
        for (int i = 0; i < nout; i++)
            out[i] = 0.0 + ((g0[i] * u0 + g1[i] * u1) + (g2[i] * u2 + g3[i] * u3));
        c = 4;
    } else {
        memset(out, 0, sizeof(double) * (size_t)nout);
    }
    for (; c + 3 < ncol; c += 4) {
        const double *g0 = G + (size_t)c * nout, *g1 = g0 + nout, *g2 = g1 + nout, *g3 = g2 + nout;
        double u0 = u[c], u1 = u[c + 1], u2 = u[c + 2], u3 = u[c + 3];
        for (int i = 0; i < nout; i++)
            out[i] += (g0[i] * u0 + g1[i] * u1) + (g2[i] * u2 + g3[i] * u3);
    }
    for (; c + 1 < ncol; c += 2) {
        const double *g0 = G + (size_t)c * nout, *g1 = g0 + nout;
        double u0 = u[c], u1 = u[c + 1];
        for (int i = 0; i < nout; i++) out[i] += g0[i] * u0 + g1[i] * u1;
    }
}
