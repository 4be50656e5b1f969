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
 * cannot be loaded, or an address-space limit leaves no room for them
 * (room_for_libs), the LU factorisation and its solves, and the three BLAS
 * products, run as the plain loops below, and the eigenvalues return
 * NSC_DENSE_NOLIB.
 *
 * Never retried: one process computes with one implementation from its first
 * dense call on (a retry that succeeded later would change the rounding of a
 * run half-way), and a failed dlopen searches the file system again at each
 * call. What fails to load does not appear mid-run; room freed later is not
 * worth that. */
#include "config.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
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

/* The address space the BLAS may take, measured with Debian's default,
 * OpenBLAS 0.3.21 (VmSize of a program calling dgetrf_ on a 4 x 4 matrix):
 * +40 MB at dlopen of libblas.so.3, +7 MB liblapack.so.3, then +131 MB at the
 * first routine call, a 128 MiB buffer (32 << 22 bytes) mmap'ed per thread
 * that uses it (each worker thread takes its own when it starts, the calling
 * thread at its first call). Where that mmap fails OpenBLAS retries it for
 * ever: the run hangs at its first dense call, SIGTERM cannot end it (rev10,
 * `ulimit -v 100000`). The other BLAS Debian offers (reference, BLIS, ATLAS)
 * take less. So 64 MiB for the libraries and 136 MiB per thread. */
#define LIB_AS ((size_t)64 << 20)
#define THREAD_AS ((size_t)136 << 20)

/* The threads OpenBLAS starts: its environment variables in its order, else
 * one per processor online (OpenBLAS counts those the process may run on:
 * at most as many; the executable sets
 * OPENBLAS_NUM_THREADS=1, blas_env.h). */
static size_t blas_threads(void)
{
    const char *var[] = { "OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS" };
    for (int k = 0; k < 3; k++) {
        const char *v = getenv(var[k]);
        long n = v ? strtol(v, NULL, 10) : 0;
        if (n > 0) return (size_t)n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (size_t)n : 1;
}

/* Room under resource limit res for a process whose size in it is field f of
 * /proc/self/statm (pages; 0 size, 5 data + stack): SIZE_MAX without a limit,
 * 0 when the size cannot be read. */
static size_t room_under(int res, int f)
{
    struct rlimit rl;
    if (getrlimit(res, &rl) || rl.rlim_cur == RLIM_INFINITY) return SIZE_MAX;
    unsigned long v[6] = { 0 };
    FILE *fp = fopen("/proc/self/statm", "r");
    int n = fp ? fscanf(fp, "%lu %lu %lu %lu %lu %lu", v, v + 1, v + 2, v + 3, v + 4, v + 5) : 0;
    if (fp) fclose(fp);
    if (n <= f) return 0;
    size_t used = (size_t)v[f] * (size_t)sysconf(_SC_PAGESIZE);
    return rl.rlim_cur > used ? (size_t)rl.rlim_cur - used : 0;
}

/* 1 when both limits leave room for the libraries: the address space (ulimit
 * -v) and the data segment (ulimit -d: since Linux 4.7 it counts private
 * writable mappings, OpenBLAS's 128 MiB buffer among them; its mmap failing
 * there is retried for ever as under -v). */
static int room_for_libs(char *why, size_t len)
{
    size_t need = LIB_AS + blas_threads() * THREAD_AS;
    size_t as = room_under(RLIMIT_AS, 0), data = room_under(RLIMIT_DATA, 5);
    if (as >= need && data >= need) return 1;
    int by_data = data < as;
    snprintf(why, len,
             "%s, %s: not loaded: the %s limit (ulimit %s) leaves %zu MB, they may "
             "take %zu MB; the built-in loops run instead",
             NSC_LAPACK_SONAME, NSC_BLAS_SONAME, by_data ? "data-segment" : "address-space",
             by_data ? "-d" : "-v", (by_data ? data : as) >> 20, need >> 20);
    return 0;
}

static void load(void)
{
    if (!room_for_libs(L.err, sizeof L.err)) return;
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

/* Once a dense routine was called and the libraries are not used: the sonames
 * and dlerror()'s text, or the limit's room; else NULL (never loads them). */
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
    if (!lib()) return nsc_dense_lu_loops(n, A, lda, ipiv);
    L.dgetrf(&n, &n, A, &lda, ipiv, &info); /* A = P*L*U */
    return info;
}

int nsc_dense_lusolve(int trans, int n, int nrhs, const double *LU, int lda, const int *ipiv,
                      double *B, int ldb)
{
    int info = 0;
    if (n < 0 || nrhs < 0) return -1;
    if (n == 0 || nrhs == 0) return 0;
    if (!lib()) return nsc_dense_lusolve_loops(trans, n, nrhs, LU, lda, ipiv, B, ldb);
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

/* dgetf2's elimination as plain loops (la_dense.h), where LAPACK is not used:
 * column j's pivot is its first largest |A(i,j)|, i >= j (idamax's choice),
 * its row swapped with row j across the matrix; L(i,j) = A(i,j) / A(j,j),
 * then A(i,k) -= L(i,j) A(j,k) for i, k > j. A zero pivot (the column is zero
 * below the diagonal) leaves the column as it is and is reported (the first). */
int nsc_dense_lu_loops(int n, double *A, int lda, int *ipiv)
{
    int info = 0;
    for (int j = 0; j < n; j++) {
        double *cj = A + (size_t)j * lda;
        int p = j;
        for (int i = j + 1; i < n; i++)
            if (fabs(cj[i]) > fabs(cj[p])) p = i;
        ipiv[j] = p + 1;
        if (cj[p] == 0) {
            if (!info) info = j + 1;
            continue;
        }
        for (int k = 0; p != j && k < n; k++) {
            double t = A[j + (size_t)k * lda];
            A[j + (size_t)k * lda] = A[p + (size_t)k * lda];
            A[p + (size_t)k * lda] = t;
        }
        for (int i = j + 1; i < n; i++) cj[i] /= cj[j];
        for (int k = j + 1; k < n; k++) {
            double *ck = A + (size_t)k * lda, a = ck[j];
            for (int i = j + 1; a != 0 && i < n; i++) ck[i] -= cj[i] * a;
        }
    }
    return info;
}

/* dgetrs as plain loops: A = P L U, so A x = b is L U x = P' b (the swaps of
 * ipiv in order, then L's forward and U's backward substitution), and
 * A' x = b is U' L' (P' x) = b (U' forward, L' backward, the swaps undone in
 * reverse order). */
int nsc_dense_lusolve_loops(int trans, int n, int nrhs, const double *LU, int lda, const int *ipiv,
                            double *B, int ldb)
{
    for (int r = 0; r < nrhs; r++) {
        double *b = B + (size_t)r * ldb, t;
        for (int k = 0; !trans && k < n; k++) t = b[k], b[k] = b[ipiv[k] - 1], b[ipiv[k] - 1] = t;
        for (int j = 0; !trans && j < n; j++) /* L y = P' b, L unit lower */
            for (int i = j + 1; i < n; i++) b[i] -= LU[i + (size_t)j * lda] * b[j];
        for (int j = n - 1; !trans && j >= 0; j--) { /* U x = y */
            b[j] /= LU[j + (size_t)j * lda];
            for (int i = 0; i < j; i++) b[i] -= LU[i + (size_t)j * lda] * b[j];
        }
        for (int j = 0; trans && j < n; j++) { /* U' y = b: U's column j is row j of U' */
            for (int i = 0; i < j; i++) b[j] -= LU[i + (size_t)j * lda] * b[i];
            b[j] /= LU[j + (size_t)j * lda];
        }
        for (int j = n - 1; trans && j >= 0; j--) /* L' z = y */
            for (int i = j + 1; i < n; i++) b[j] -= LU[i + (size_t)j * lda] * b[i];
        for (int k = n - 1; trans && k >= 0; k--)
            t = b[k], b[k] = b[ipiv[k] - 1], b[ipiv[k] - 1] = t;
    }
    return 0;
}

/* The BLAS products as plain loops, where BLAS is not used. */
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
