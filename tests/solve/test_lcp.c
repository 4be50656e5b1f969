/* test_lcp.c -- dense LCP solvers (lcp_lemke.c, lcp_enum.c, lcp_util.c) and the
 * LAPACK layer (la_dense.c). Oracles: hand-solved problems, enumeration (unique
 * solution for P-matrices), constructed complementary pairs, direct checks of
 * w = Mz + q >= 0, z >= 0, z'w = 0. */
#include "config.h"

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "solve/la_dense.h"
#include "solve/lcp.h"
#include "testutil.h"

/* ---- deterministic PRNG (splitmix64) ---- */
typedef struct {
    uint64_t s;
} rng_t;
static uint64_t rng_next(rng_t *g)
{
    uint64_t z = (g->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double rng_unif(rng_t *g) /* [0,1) */
{
    return (double)(rng_next(g) >> 11) * 0x1.0p-53;
}
static double rng_sym(rng_t *g) /* [-1,1) */
{
    return 2 * rng_unif(g) - 1;
}
static int rng_int(rng_t *g, int n) /* [0,n) */
{
    return (int)(rng_next(g) % (uint64_t)n);
}

/* ---- helpers ---- */
static double maxabs(int n, const double *v)
{
    double r = 0;
    for (int i = 0; i < n; i++) r = fmax(r, fabs(v[i]));
    return r;
}

/* Checks z >= 0, w = Mz+q >= 0, |z_i w_i| small, all relative to the data scale. */
static void check_solution(const nsc_lcp *p, const double *z, const double *w, double rtol)
{
    int m = p->m;
    double Mmax = maxabs(m * m, p->M), qmax = maxabs(m, p->q), zmax = maxabs(m, z);
    double wscale = Mmax * zmax + qmax;
    for (int i = 0; i < m; i++) {
        double wi = p->q[i];
        for (int j = 0; j < m; j++) wi += p->M[i + j * m] * z[j];
        cr_assert(z[i] >= 0, "z[%d] = %g < 0", i, z[i]);
        cr_assert(wi >= -rtol * wscale, "w[%d] = %g < 0", i, wi);
        cr_assert(fabs(fmin(z[i], wi)) <= rtol * fmax(wscale, zmax),
                  "complementarity i=%d z=%g w=%g", i, z[i], wi);
        if (w) {
            cr_assert(fabs(w[i] - wi) <= rtol * wscale, "w[%d] = %g, Mz+q = %g", i, w[i], wi);
            cr_assert(z[i] == 0 || w[i] == 0 || fabs(z[i] * w[i]) <= rtol * wscale * zmax);
        }
    }
}

/* M = A A^T + I (symmetric positive definite, hence a P-matrix). */
static void make_spd(rng_t *g, int m, double *M)
{
    double *A = malloc((size_t)m * m * sizeof(double));
    for (int k = 0; k < m * m; k++) A[k] = rng_sym(g);
    for (int j = 0; j < m; j++)
        for (int i = 0; i < m; i++) {
            double s = i == j ? 1 : 0;
            for (int k = 0; k < m; k++) s += A[i + k * m] * A[j + k * m];
            M[i + j * m] = s;
        }
    free(A);
}

/* Nonsymmetric, strictly row diagonally dominant with positive diagonal (a P-matrix). */
static void make_diagdom(rng_t *g, int m, double *M)
{
    for (int i = 0; i < m; i++) {
        double s = 0;
        for (int j = 0; j < m; j++)
            if (j != i) {
                M[i + j * m] = rng_sym(g);
                s += fabs(M[i + j * m]);
            }
        M[i + i * m] = s + 0.1 + rng_unif(g);
    }
}

/* ---- la_dense ---- */

Test(la_dense, lu_solve_3x3)
{
    /* A x = b with x = (1, -2, 3) */
    double A[9] = { 2, 4, -2, 1, -6, 7, 1, 0, 2 }; /* columns */
    double x[3] = { 1, -2, 3 }, b[3], LU[9];
    int ipiv[3];
    for (int i = 0; i < 3; i++) b[i] = A[i] * x[0] + A[i + 3] * x[1] + A[i + 6] * x[2];
    cr_assert_eq(b[0], 3); /* 2 - 2 + 3 */
    memcpy(LU, A, sizeof A);
    cr_assert_eq(nsc_dense_lu(3, LU, 3, ipiv), 0);
    cr_assert_eq(nsc_dense_lusolve(0, 3, 1, LU, 3, ipiv, b, 3), 0);
    for (int i = 0; i < 3; i++) cr_assert_float_eq(b[i], x[i], 1e-14);
    /* A^T y = c with y = (1, 1, 1): c = column sums */
    double c[3] = { 4, 2, 3 };
    cr_assert_eq(nsc_dense_lusolve(1, 3, 1, LU, 3, ipiv, c, 3), 0);
    for (int i = 0; i < 3; i++) cr_assert_float_eq(c[i], 1, 1e-14);
}

Test(la_dense, singular_detected)
{
    double A[4] = { 1, 2, 2, 4 }, b[2] = { 1, 2 };
    int ipiv[2];
    cr_assert_gt(nsc_dense_solve(2, A, 2, ipiv, b), 0);
    cr_assert_eq(nsc_dense_solve(0, A, 1, ipiv, b), 0);
}

Test(la_dense, gemv_gemm_ger)
{
    double A[6] = { 1, 2, 3, 4, 5, 6 }; /* 2x3: [1 3 5; 2 4 6] */
    double x[3] = { 1, 0, -1 }, y[2] = { 10, 20 };
    nsc_dense_gemv(0, 2, 3, 2, A, 2, x, 1, y); /* y = 2 A x + y = 2*(-4,-4) + (10,20) */
    cr_assert_float_eq(y[0], 2, 1e-15);
    cr_assert_float_eq(y[1], 12, 1e-15);
    double v[2] = { 1, 1 }, t[3];
    nsc_dense_gemv(1, 2, 3, 1, A, 2, v, 0, t); /* t = A' v = (3, 7, 11) */
    cr_assert_float_eq(t[0], 3, 1e-15);
    cr_assert_float_eq(t[1], 7, 1e-15);
    cr_assert_float_eq(t[2], 11, 1e-15);
    double C[4] = { 0 };
    nsc_dense_gemm(0, 1, 2, 2, 3, 1, A, 2, A, 2, 0, C, 2); /* C = A A' = [35 44; 44 56] */
    cr_assert_float_eq(C[0], 35, 1e-14);
    cr_assert_float_eq(C[1], 44, 1e-14);
    cr_assert_float_eq(C[2], 44, 1e-14);
    cr_assert_float_eq(C[3], 56, 1e-14);
    double u[2] = { 1, 2 }, w[3] = { 1, 0, 1 };
    nsc_dense_ger(2, 3, -1, u, w, A, 2); /* A -= u w' = [0 3 4; 0 4 4] */
    cr_assert_float_eq(A[0], 0, 1e-15);
    cr_assert_float_eq(A[1], 0, 1e-15);
    cr_assert_float_eq(A[3], 4, 1e-15);
    cr_assert_float_eq(A[4], 4, 1e-15);
    cr_assert_float_eq(A[5], 4, 1e-15);
}

/* LAPACK is loaded at the first dense call, not with the program (la_dense.c):
 * this test's process (forked by the runner, which calls no dense routine) has
 * not loaded it before nsc_dense_lu, and has after. */
Test(la_dense, lapack_loaded_on_first_use)
{
    cr_assert_null(dlopen(NSC_LAPACK_SONAME, RTLD_NOW | RTLD_NOLOAD), "%s loaded at the start",
                   NSC_LAPACK_SONAME);
    double A[4] = { 4, 2, 1, 3 }, b[2] = { 5, 5 }; /* [4 1; 2 3] x = (5, 5): x = (1, 1) */
    int ipiv[2];
    cr_assert_eq(nsc_dense_solve(2, A, 2, ipiv, b), 0);
    cr_assert_float_eq(b[0], 1, 1e-15);
    cr_assert_float_eq(b[1], 1, 1e-15);
    cr_assert_eq(nsc_dense_available(), 1);
    cr_assert_not_null(dlopen(NSC_LAPACK_SONAME, RTLD_NOW | RTLD_NOLOAD));
}

/* The LU loops that run without LAPACK (la_dense.c), against LAPACK's dgetrf
 * and dgetrs on a 6 x 6 matrix that needs row interchanges (a zero leading
 * entry, the largest entries below the diagonal): the same pivots, factors
 * within rounding, and both solves return x = (1, -2, 3, -4, 5, -6) and
 * (1, ..., 1) for two right-hand sides; a singular matrix gives the same
 * first zero pivot as dgetrf. */
Test(la_dense, lu_loops_match_lapack)
{
    enum { N = 6 };
    double A[N * N], F1[N * N], F2[N * N], B1[2 * N], B2[2 * N];
    int p1[N], p2[N];
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++)
            A[i + j * N] = i == j ? (i == 0 ? 0 : 1.5)
                                  : ((i * 5 + j * 3) % 7 - 3) * (i > j ? 2.0 : 1.0);
    memcpy(F1, A, sizeof A);
    memcpy(F2, A, sizeof A);
    cr_assert_eq(nsc_dense_lu(N, F1, N, p1), 0);
    cr_assert_eq(nsc_dense_lu_loops(N, F2, N, p2), 0);
    cr_assert_neq(p2[0], 1, "no interchange at the zero leading entry");
    for (int i = 0; i < N; i++) cr_assert_eq(p1[i], p2[i], "pivot %d", i);
    for (int i = 0; i < N * N; i++) cr_assert_float_eq(F1[i], F2[i], 1e-13 * (1 + fabs(F1[i])));
    for (int trans = 0; trans < 2; trans++) {
        double x[2 * N];
        for (int i = 0; i < N; i++) x[i] = (i % 2 ? -1 : 1) * (i + 1), x[N + i] = 1;
        for (int r = 0; r < 2; r++) /* b = op(A) x */
            for (int i = 0; i < N; i++) {
                double s = 0;
                for (int k = 0; k < N; k++)
                    s += (trans ? A[k + i * N] : A[i + k * N]) * x[r * N + k];
                B1[r * N + i] = B2[r * N + i] = s;
            }
        cr_assert_eq(nsc_dense_lusolve(trans, N, 2, F1, N, p1, B1, N), 0);
        cr_assert_eq(nsc_dense_lusolve_loops(trans, N, 2, F2, N, p2, B2, N), 0);
        for (int i = 0; i < 2 * N; i++) {
            cr_assert_float_eq(B1[i], x[i], 1e-12, "LAPACK trans %d, %d", trans, i);
            cr_assert_float_eq(B2[i], x[i], 1e-12, "loops trans %d, %d", trans, i);
        }
    }
    double S[9] = { 1, 2, 4, 2, 4, 8, 0, 1, 1 }; /* columns 1 and 2 parallel (exact in binary) */
    double S2[9];
    memcpy(S2, S, sizeof S);
    int q1[3], q2[3], i1 = nsc_dense_lu(3, S, 3, q1), i2 = nsc_dense_lu_loops(3, S2, 3, q2);
    cr_assert_eq(i1, 2);
    cr_assert_eq(i2, i1);
}

/* The loops nsc_dense_gemv/gemm fall back to without BLAS, against BLAS on a
 * 5 x 4 matrix of small integers (every product and sum exact in both). */
Test(la_dense, fallback_loops_match_blas)
{
    double A[20], B[20], x[5], y1[5], y2[5], C1[25], C2[25];
    for (int i = 0; i < 20; i++) A[i] = (i * 7) % 11 - 5, B[i] = (i * 5) % 9 - 4;
    for (int t = 0; t < 2; t++) {
        int m = 5, n = 4, ny = t ? n : m;
        for (int i = 0; i < 5; i++) x[i] = i - 2, y1[i] = y2[i] = 3 - i;
        nsc_dense_gemv(t, m, n, 2, A, 5, x, -1, y1);
        nsc_dense_gemv_loops(t, m, n, 2, A, 5, x, -1, y2);
        for (int i = 0; i < ny; i++) cr_assert_eq(y1[i], y2[i], "gemv trans %d row %d", t, i);
    }
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) { /* C (4 x 4) = op(A) op(B), A and B 4 x 4 or transposed */
            for (int i = 0; i < 25; i++) C1[i] = C2[i] = i % 3;
            nsc_dense_gemm(ta, tb, 4, 4, 4, 1.5, A, 5, B, 5, 0.5, C1, 5);
            nsc_dense_gemm_loops(ta, tb, 4, 4, 4, 1.5, A, 5, B, 5, 0.5, C2, 5);
            for (int i = 0; i < 25; i++) cr_assert_eq(C1[i], C2[i], "gemm %d%d at %d", ta, tb, i);
        }
}

/* ---- LCP: hand-solved problems ---- */

Test(lcp, lemke_worked_example)
{
    double M[4] = { 2, 1, 1, 2 }, q[2] = { -5, -6 }, z[2], w[2];
    nsc_lcp p = { 2, M, q };
    nsc_lcp_info info;
    cr_assert_eq(nsc_lcp_lemke(&p, z, w, &info, NULL), NSC_LCP_OK);
    cr_assert_float_eq(z[0], 4.0 / 3, 1e-14);
    cr_assert_float_eq(z[1], 7.0 / 3, 1e-14);
    cr_assert_float_eq(w[0], 0, 1e-14);
    cr_assert_float_eq(w[1], 0, 1e-14);
    cr_assert_leq(info.residual, 1e-14);
    cr_assert_geq(info.iter, 3); /* z0 in, z2 in, z1 in / z0 out */
}

Test(lcp, enum_worked_example)
{
    double M[4] = { 2, 1, 1, 2 }, q[2] = { -5, -6 }, z[2], w[2];
    nsc_lcp p = { 2, M, q };
    nsc_lcp_info info;
    cr_assert_eq(nsc_lcp_enum(&p, z, w, &info), NSC_LCP_OK);
    cr_assert_float_eq(z[0], 4.0 / 3, 1e-14);
    cr_assert_float_eq(z[1], 7.0 / 3, 1e-14);
    cr_assert_float_eq(w[0], 0, 1e-14);
    cr_assert_float_eq(w[1], 0, 1e-14);
    cr_assert_eq(info.iter, 4); /* {}, {0}, {1}, {0,1} */
}

Test(lcp, one_active_pair)
{
    /* M = [2 1; 1 2], q = (-6, 1): z = (3, 0), w = (0, 3 + 1) */
    double M[4] = { 2, 1, 1, 2 }, q[2] = { -6, 1 }, z[2], w[2];
    nsc_lcp p = { 2, M, q };
    cr_assert_eq(nsc_lcp_lemke(&p, z, w, NULL, NULL), NSC_LCP_OK);
    cr_assert_float_eq(z[0], 3, 1e-14);
    cr_assert_eq(z[1], 0);
    cr_assert_eq(w[0], 0);
    cr_assert_float_eq(w[1], 4, 1e-14);
    cr_assert_eq(nsc_lcp_enum(&p, z, w, NULL), NSC_LCP_OK);
    cr_assert_float_eq(z[0], 3, 1e-14);
    cr_assert_float_eq(w[1], 4, 1e-14);
}

Test(lcp, q_nonnegative_trivial)
{
    double M[9] = { 1, -3, 2, 0, 1, 5, 7, 2, 1 }, q[3] = { 0, 2, 0.5 }, z[3] = { 9, 9, 9 }, w[3];
    nsc_lcp p = { 3, M, q };
    nsc_lcp_info info = { -1, -1 };
    cr_assert_eq(nsc_lcp_lemke(&p, z, w, &info, NULL), NSC_LCP_OK);
    cr_assert_eq(info.iter, 0);
    cr_assert_eq(info.residual, 0);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(z[i], 0);
        cr_assert_eq(w[i], q[i]);
    }
    cr_assert_eq(nsc_lcp_enum(&p, z, w, &info), NSC_LCP_OK);
    for (int i = 0; i < 3; i++) cr_assert_eq(z[i], 0);
    cr_assert_eq(info.iter, 1);
}

Test(lcp, empty_problem)
{
    nsc_lcp p = { 0, NULL, NULL };
    cr_assert_eq(nsc_lcp_lemke(&p, NULL, NULL, NULL, NULL), NSC_LCP_OK);
    cr_assert_eq(nsc_lcp_enum(&p, NULL, NULL, NULL), NSC_LCP_OK);
}

/* ---- random P-matrices: Lemke == enumeration (unique solution) ---- */

static void compare_with_enum(rng_t *g, int m, int diagdom, double qscale)
{
    double M[144], q[12], z1[12], w1[12], z2[12], w2[12];
    if (diagdom) make_diagdom(g, m, M);
    else make_spd(g, m, M);
    for (int i = 0; i < m; i++) q[i] = qscale * rng_sym(g);
    nsc_lcp p = { m, M, q };
    nsc_lcp_info i1, i2;
    cr_assert_eq(nsc_lcp_lemke(&p, z1, w1, &i1, NULL), NSC_LCP_OK);
    cr_assert_eq(nsc_lcp_enum(&p, z2, w2, &i2), NSC_LCP_OK);
    double zs = fmax(maxabs(m, z2), 1e-300);
    for (int i = 0; i < m; i++) {
        cr_assert(fabs(z1[i] - z2[i]) <= 1e-9 * zs, "m=%d i=%d lemke %.17g enum %.17g", m, i, z1[i],
                  z2[i]);
        cr_assert(fabs(w1[i] - w2[i]) <= 1e-9 * (maxabs(m * m, M) * zs + qscale));
    }
    cr_assert_leq(i1.residual, 1e-10 * qscale, "residual %g", i1.residual);
    cr_assert_float_eq(i1.residual, nsc_lcp_residual(&p, z1), 1e-300 + 1e-12 * qscale);
    check_solution(&p, z1, w1, 1e-12);
}

Test(lcp, random_spd_vs_enum)
{
    rng_t g = { 12345 };
    for (int m = 1; m <= 12; m++)
        for (int s = 0; s < 60; s++) compare_with_enum(&g, m, 0, 1);
}

Test(lcp, random_diagdom_vs_enum)
{
    rng_t g = { 777 };
    for (int m = 1; m <= 12; m++)
        for (int s = 0; s < 60; s++) compare_with_enum(&g, m, 1, 1);
}

Test(lcp, random_scaled_vs_enum)
{
    /* The path must not depend on the units of the data. */
    rng_t g = { 99 };
    for (int m = 1; m <= 8; m++)
        for (int s = 0; s < 30; s++) {
            compare_with_enum(&g, m, s & 1, 1e-9);
            compare_with_enum(&g, m, s & 1, 1e9);
        }
}

Test(lcp, badly_scaled_rows)
{
    /* Row scaling D M with D = diag(1e12, 1, 1e-6, ...) keeps the P property and the
     * solution z of (DM, Dq): compare with the unscaled problem. */
    rng_t g = { 4242 };
    for (int s = 0; s < 100; s++) {
        int m = 1 + rng_int(&g, 10);
        double M[100], q[10], DM[100], Dq[10], D[10], z1[10], z2[10];
        make_spd(&g, m, M);
        for (int i = 0; i < m; i++) {
            q[i] = rng_sym(&g);
            D[i] = pow(10, (double)(rng_int(&g, 19) - 6)); /* 1e-6 .. 1e12 */
        }
        for (int j = 0; j < m; j++)
            for (int i = 0; i < m; i++) DM[i + j * m] = D[i] * M[i + j * m];
        for (int i = 0; i < m; i++) Dq[i] = D[i] * q[i];
        nsc_lcp p = { m, M, q }, pd = { m, DM, Dq };
        cr_assert_eq(nsc_lcp_lemke(&p, z1, NULL, NULL, NULL), NSC_LCP_OK);
        cr_assert_eq(nsc_lcp_lemke(&pd, z2, NULL, NULL, NULL), NSC_LCP_OK);
        for (int i = 0; i < m; i++)
            cr_assert(fabs(z1[i] - z2[i]) <= 1e-9 * fmax(maxabs(m, z1), 1e-300),
                      "seed %d i=%d %.17g vs %.17g", s, i, z1[i], z2[i]);
    }
}

Test(lcp, larger_spd)
{
    rng_t g = { 2024 };
    int m = 150;
    double *M = malloc(sizeof(double) * m * m), *q = malloc(sizeof(double) * m);
    double *z = malloc(sizeof(double) * m), *w = malloc(sizeof(double) * m);
    make_spd(&g, m, M);
    for (int i = 0; i < m; i++) q[i] = 10 * rng_sym(&g);
    nsc_lcp p = { m, M, q };
    nsc_lcp_info info;
    cr_assert_eq(nsc_lcp_lemke(&p, z, w, &info, NULL), NSC_LCP_OK);
    cr_assert_leq(info.iter, 2 * m + 1);
    cr_assert_leq(info.residual, 1e-10);
    check_solution(&p, z, w, 1e-12);
    free(M);
    free(q);
    free(z);
    free(w);
}

/* Murty-type lower triangular P-matrix: m_ii = 1, m_ij = 2 (j < i), q_i = -2(i+1).
 * Lemke's path length grows exponentially with n (751 pivots at n = 16); the
 * (degenerate) solution is z = (2, 0, 2, 0, ...), w = 0: row i gives
 * z_i + 2 sum_{j<i} z_j = 2(i+1). */
static void make_murty(int n, double *M, double *q)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) M[i + j * n] = i == j ? 1 : (j < i ? 2 : 0);
    for (int i = 0; i < n; i++) q[i] = -2.0 * (i + 1);
}

Test(lcp, long_path_murty)
{
    int n = 16;
    double M[256], q[16], z[16], w[16], ze[16];
    make_murty(n, M, q);
    nsc_lcp p = { n, M, q };
    nsc_lcp_info info;
    cr_assert_eq(nsc_lcp_lemke(&p, z, w, &info, NULL), NSC_LCP_OK);
    cr_assert_gt(info.iter, 500); /* several refactorisations of B^{-1} on the way */
    for (int i = 0; i < n; i++) {
        cr_assert_eq(z[i], i % 2 == 0 ? 2 : 0, "z[%d] = %.17g", i, z[i]);
        cr_assert_eq(w[i], 0);
    }
    cr_assert_eq(nsc_lcp_enum(&p, ze, NULL, NULL), NSC_LCP_OK);
    for (int i = 0; i < n; i++) cr_assert_float_eq(ze[i], z[i], 1e-14);
}

Test(lcp, maxiter_murty)
{
    /* n = 20 needs more than 100*(n+1) = 2100 pivots */
    int n = 20;
    double M[400], q[20], z[20], w[20];
    make_murty(n, M, q);
    nsc_lcp p = { n, M, q };
    nsc_lcp_info info;
    cr_assert_eq(nsc_lcp_lemke(&p, z, w, &info, NULL), NSC_LCP_MAXITER);
    cr_assert_eq(info.iter, 100 * (n + 1));
    cr_assert_float_eq(info.residual, nsc_lcp_residual(&p, z), 1e-12);
    cr_assert_gt(info.residual, 0.5); /* not a solution */
}

Test(lcp, backward_stable_solution)
{
    /* Rows with z_i > 0 must satisfy (Mz + q)_i = 0 to componentwise relative
     * round-off, as the LU solve on the final basis (with one refinement step)
     * gives; the pivoted values alone are ~10x worse here. */
    rng_t g = { 1 };
    int m = 300;
    double *M = malloc(sizeof(double) * m * m), *q = malloc(sizeof(double) * m);
    double *z = malloc(sizeof(double) * m), *w = malloc(sizeof(double) * m);
    make_spd(&g, m, M);
    for (int i = 0; i < m; i++) q[i] = rng_sym(&g);
    nsc_lcp p = { m, M, q };
    nsc_lcp_info info;
    cr_assert_eq(nsc_lcp_lemke(&p, z, w, &info, NULL), NSC_LCP_OK);
    int nact = 0;
    for (int i = 0; i < m; i++) {
        if (z[i] == 0) continue;
        nact++;
        double wi = q[i], wa = fabs(q[i]);
        for (int j = 0; j < m; j++) {
            wi += M[i + j * m] * z[j];
            wa += fabs(M[i + j * m] * z[j]);
        }
        cr_assert_leq(fabs(wi), 4 * 2.220446049250313e-16 * wa, "row %d: %g of %g", i, wi, wa);
        cr_assert_eq(w[i], 0);
    }
    cr_assert_gt(nact, m / 4);
    free(M);
    free(q);
    free(z);
    free(w);
}

/* ---- PSD (+ skew) feasible problems built from a complementary pair ---- */

Test(lcp, random_psd_skew_feasible)
{
    rng_t g = { 31337 };
    for (int s = 0; s < 400; s++) {
        int m = 1 + rng_int(&g, 14), r = rng_int(&g, m + 1); /* rank r <= m */
        double M[196], A[196], S[196], q[14], zs[14], ws_[14], z[14], w[14];
        for (int k = 0; k < m * r; k++) A[k] = rng_sym(&g);
        for (int k = 0; k < m * m; k++) S[k] = (s % 3 == 0) ? 0 : rng_sym(&g);
        for (int j = 0; j < m; j++)
            for (int i = 0; i < m; i++) {
                double t = S[i + j * m] - S[j + i * m]; /* S - S' */
                for (int k = 0; k < r; k++) t += A[i + k * m] * A[j + k * m];
                M[i + j * m] = t;
            }
        for (int i = 0; i < m; i++) { /* complementary pair, some both zero */
            int c = rng_int(&g, 3);
            zs[i] = c == 0 ? rng_unif(&g) : 0;
            ws_[i] = c == 1 ? rng_unif(&g) : 0;
        }
        for (int i = 0; i < m; i++) {
            q[i] = ws_[i];
            for (int j = 0; j < m; j++) q[i] -= M[i + j * m] * zs[j]; /* q = w* - M z* */
        }
        nsc_lcp p = { m, M, q };
        nsc_lcp_info info;
        nsc_lcp_status st = nsc_lcp_lemke(&p, z, w, &info, NULL);
        cr_assert_eq(st, NSC_LCP_OK, "seed %d m=%d rank=%d: %s", s, m, r, nsc_lcp_strstatus(st));
        cr_assert_leq(info.residual, 1e-10, "seed %d residual %g", s, info.residual);
        check_solution(&p, z, w, 1e-10);
    }
}

/* An 8-pair principal subproblem (pairs 4 11 12 17 18 22 24 26) of a one-step
 * problem of the LM741 transient (tests/data/bjt/opamp741_tran.cir, a refit
 * pass's first step, m = 38): the junctions off, its nodes held by gmin, so M
 * holds 1/gmin products (1e12, 2e10 beside 0.12 and 250), and q ties in pairs
 * (identical transistors). After z0 enters, rows tied with its row are
 * degenerate (x_i = 0) and the lexicographic rule must pivot on an entry of
 * 1e-13 of its column's scale; the method's earlier rule (pivot candidates
 * d_i > 1e-11 ||B^{-1}(i,:)|| ||a||, a fresh B^{-1} a each pivot) refused such
 * pivots and ended on a secondary ray (residual 28.5) under the reference BLAS
 * and OpenBLAS alike. Oracle: enumeration (a unique solution; its active set
 * {0 2 4 5 6}), and the conditions w = Mz + q >= 0, z >= 0, z'w = 0. */
Test(lcp, gmin_scaled_degenerate_ties_vs_enum)
{
    static const double M[64] = { /* column-major */
                                  0x1.e449a940003dap+39,
                                  -0x1.2a05f20000000p+34,
                                  0,
                                  0,
                                  0,
                                  0,
                                  -0x1.d1a94a2000000p+39,
                                  0,
                                  -0x1.d1a94a2000000p+40,
                                  0x1.5d3ef798000f6p+41,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  -0x1.d1a94a2000000p+39,
                                  0x1.d1a94a2000000p+39,
                                  0x1.2a0605a476e92p+32,
                                  0,
                                  -0x1.2a05f203581c2p+32,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0x1.d1a94a2539abfp+39,
                                  0x1.eccffcfa4c2afp-4,
                                  -0x1.d1a94b55e9abfp+39,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  -0x1.2a05f203581c3p+34,
                                  0,
                                  0x1.2a05f2c65fcf7p+34,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0x1.39c7b33ff3e92p+10,
                                  -0x1.f3fffffffffffp+7,
                                  0x1.d1a94a2000000p+39,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  -0x1.8893fffffffffp+15,
                                  0x1.2a06b64a1ecd0p+32,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0x1.2a06b64a1ecd0p+32
    };
    static const double q[8] = { 0x1.7b4c45ee3a174p-1,  0x1.7b4c45ee3a174p-1,
                                 -0x1.c84b3ba11c5e9p+3, 0x1.7b4c45ee3a174p-1,
                                 -0x1.c84b3ba11c5e9p+3, 0x1.7b4c45ee3a170p-1,
                                 -0x1.c84b3ba11c5e9p+3, -0x1.c84b3ba11c5e9p+3 };
    double z[8], w[8], ze[8], we[8];
    nsc_lcp p = { 8, M, q };
    nsc_lcp_info info;
    cr_assert_eq(nsc_lcp_enum(&p, ze, we, NULL), NSC_LCP_OK);
    cr_assert_eq(nsc_lcp_lemke(&p, z, w, &info, NULL), NSC_LCP_OK, "Lemke: %d pivots, residual %g",
                 info.iter, info.residual);
    for (int i = 0; i < 8; i++) {
        cr_assert_eq(z[i] > 0, ze[i] > 0, "pair %d: z = %g, enumeration %g", i, z[i], ze[i]);
        cr_assert(fabs(z[i] - ze[i]) <= 1e-9 * maxabs(8, ze), "z[%d] = %g, enumeration %g", i, z[i],
                  ze[i]);
    }
    check_solution(&p, z, w, 1e-14);
}

/* The one-step LCP of a 555 monostable at t = 0 (58 pairs; M holds 26 gmin
 * entries of 1e-12 beside entries up to 3.3e4, q up to 3.3e4; dumped from the
 * run of tests/data/lcp/README.md), against the exact-rational Lemke answer of
 * tests/data/lcp/lemke_exact.py (checked there in rationals: z, w >= 0, z w = 0).
 * The double tableau alone (473fa63) returned "solved" with residual 0.75: a
 * true pivot entry of 1e-12 computed as 0 beside terms of 1e4, and a tie
 * tolerance of 332 on ratios 2.5 and 4 (|B^{-1}||q| = 1.7e16); the
 * double-double fallback of lcp_lemke_dd.c answers it. */
Test(lcp, monostable555_gmin_latch_vs_exact, .timeout = 30)
{
    FILE *f = fopen(NSC_REFDIR "/lcp/monostable555_t0_m58.txt", "r");
    FILE *fe = fopen(NSC_REFDIR "/lcp/monostable555_t0_m58_exact.txt", "r");
    cr_assert(f && fe);
    int m, a, b;
    cr_assert_eq(fscanf(f, "%d %d %d", &m, &a, &b), 3);
    cr_assert_eq(m, 58);
    double q[58], M[58 * 58], z[58], w[58], ze[58], we[58];
    for (int i = 0; i < m; i++) cr_assert_eq(fscanf(f, "%lf", &q[i]), 1);
    for (int k = 0; k < m * m; k++) cr_assert_eq(fscanf(f, "%lf", &M[k]), 1);
    for (int i = 0; i < m; i++) cr_assert_eq(fscanf(fe, "%d %lf %lf", &a, &ze[i], &we[i]), 3);
    fclose(f);
    fclose(fe);
    nsc_lcp p = { m, M, q };
    nsc_lcp_info info;
    cr_assert_eq(nsc_lcp_lemke(&p, z, w, &info, NULL), NSC_LCP_OK);
    cr_assert_leq(info.residual, 1e-10, "residual %g after %d pivots", info.residual, info.iter);
    for (int i = 0; i < m; i++) {
        cr_assert_eq(z[i] > 0, ze[i] > 0, "pair %d: z = %g, exact %g", i, z[i], ze[i]);
        cr_assert(fabs(z[i] - ze[i]) <= 1e-11 * (1 + fabs(ze[i])), "z[%d] = %.17g, exact %.17g", i,
                  z[i], ze[i]);
        cr_assert(fabs(w[i] - we[i]) <= 1e-11 * (1 + fabs(we[i])), "w[%d] = %.17g, exact %.17g", i,
                  w[i], we[i]);
    }
    check_solution(&p, z, w, 1e-14);
}

/* ---- degenerate problems ---- */

Test(lcp, degenerate_identity_ties)
{
    /* M = I, q = -(1,1,1,1): every ratio ties; z = 1. */
    double M[16] = { 0 }, q[4] = { -1, -1, -1, -1 }, z[4], w[4];
    for (int i = 0; i < 4; i++) M[i + 4 * i] = 1;
    nsc_lcp p = { 4, M, q };
    nsc_lcp_info info;
    cr_assert_eq(nsc_lcp_lemke(&p, z, w, &info, NULL), NSC_LCP_OK);
    for (int i = 0; i < 4; i++) {
        cr_assert_float_eq(z[i], 1, 1e-15);
        cr_assert_eq(w[i], 0);
    }
    cr_assert_leq(info.iter, 5);
}

Test(lcp, degenerate_cyclic_murty)
{
    /* M = [1 2 0; 0 1 2; 2 0 1], q = -e: all ties at every step; z = e/3.
     * Breaking the ties by the smallest row index instead of the lexicographic
     * rule cycles here (checked: MAXITER after 400 pivots). */
    double M[9] = { 1, 0, 2, 2, 1, 0, 0, 2, 1 }, q[3] = { -1, -1, -1 }, z[3], w[3];
    nsc_lcp p = { 3, M, q };
    nsc_lcp_info info;
    cr_assert_eq(nsc_lcp_lemke(&p, z, w, &info, NULL), NSC_LCP_OK);
    cr_assert_lt(info.iter, 10);
    for (int i = 0; i < 3; i++) cr_assert_float_eq(z[i], 1.0 / 3, 1e-15);
    cr_assert_eq(nsc_lcp_enum(&p, z, w, NULL), NSC_LCP_OK);
    for (int i = 0; i < 3; i++) cr_assert_float_eq(z[i], 1.0 / 3, 1e-15);
}

Test(lcp, degenerate_zero_q_entries)
{
    /* q with zeros: x_i = 0 basic rows tie at theta = 0 throughout. */
    double M[16] = { 2, -1, 0, 0, -1, 2, -1, 0, 0, -1, 2, -1, 0, 0, -1, 2 };
    double q[4] = { 0, -1, 0, -1 }, z[4], w[4], ze[4], we[4];
    nsc_lcp p = { 4, M, q };
    cr_assert_eq(nsc_lcp_lemke(&p, z, w, NULL, NULL), NSC_LCP_OK);
    cr_assert_eq(nsc_lcp_enum(&p, ze, we, NULL), NSC_LCP_OK);
    for (int i = 0; i < 4; i++) cr_assert_float_eq(z[i], ze[i], 1e-14);
    /* exact: T^{-1} (0,1,0,1)' for T = tridiag(-1,2,-1), n = 4: (0.8, 1.6, 1.4, 1.2) */
    double zx[4] = { 0.8, 1.6, 1.4, 1.2 };
    for (int i = 0; i < 4; i++) cr_assert_float_eq(z[i], zx[i], 1e-14);
    check_solution(&p, z, w, 1e-14);
}

Test(lcp, degenerate_repeated_rows_psd)
{
    /* M = [1 1; 1 1] (PSD, repeated rows), q = (-1, -1): z1 + z2 = 1. */
    double M[4] = { 1, 1, 1, 1 }, q[2] = { -1, -1 }, z[2], w[2];
    nsc_lcp p = { 2, M, q };
    cr_assert_eq(nsc_lcp_lemke(&p, z, w, NULL, NULL), NSC_LCP_OK);
    cr_assert_float_eq(z[0] + z[1], 1, 1e-15);
    check_solution(&p, z, w, 1e-14);
}

Test(lcp, degenerate_random_integer)
{
    /* Small integer data with many ties and zeros: P-matrices (diagonally dominant
     * integer) compared with enumeration, and PSD block-repeated matrices checked
     * directly. A cycling pivot rule would hit MAXITER here. */
    rng_t g = { 5 };
    for (int s = 0; s < 1000; s++) {
        int m = 1 + rng_int(&g, 8);
        double M[64], q[8], z[8], w[8], ze[8], we[8];
        for (int i = 0; i < m; i++) {
            int sum = 0;
            for (int j = 0; j < m; j++)
                if (j != i) {
                    int v = rng_int(&g, 3) - 1; /* -1, 0, 1 */
                    M[i + j * m] = v;
                    sum += abs(v);
                }
            M[i + i * m] = sum + 1;
            q[i] = -(double)rng_int(&g, 2); /* 0 or -1: ties */
        }
        nsc_lcp p = { m, M, q };
        cr_assert_eq(nsc_lcp_lemke(&p, z, w, NULL, NULL), NSC_LCP_OK, "seed %d", s);
        cr_assert_eq(nsc_lcp_enum(&p, ze, we, NULL), NSC_LCP_OK);
        for (int i = 0; i < m; i++) cr_assert_float_eq(z[i], ze[i], 1e-12, "seed %d", s);
        check_solution(&p, z, w, 1e-13);
    }
    for (int s = 0; s < 500; s++) { /* M = B B' with repeated rows of B, integer */
        int m = 2 + rng_int(&g, 7), r = 1 + rng_int(&g, 3);
        double B[24], M[64], q[8], z[8], w[8];
        for (int i = 0; i < m; i++)
            for (int k = 0; k < r; k++)
                B[i + k * m] = (i > 0 && rng_int(&g, 2)) ? B[i - 1 + k * m] : rng_int(&g, 3) - 1;
        for (int j = 0; j < m; j++)
            for (int i = 0; i < m; i++) {
                double t = 0;
                for (int k = 0; k < r; k++) t += B[i + k * m] * B[j + k * m];
                M[i + j * m] = t;
            }
        double zs[8];
        for (int i = 0; i < m; i++) zs[i] = rng_int(&g, 2);
        for (int i = 0; i < m; i++) { /* q = w* - M z*, w* in {0,1} off supp z* */
            q[i] = zs[i] ? 0 : rng_int(&g, 2);
            for (int j = 0; j < m; j++) q[i] -= M[i + j * m] * zs[j];
        }
        nsc_lcp p = { m, M, q };
        nsc_lcp_status st = nsc_lcp_lemke(&p, z, w, NULL, NULL);
        cr_assert_eq(st, NSC_LCP_OK, "psd seed %d: %s", s, nsc_lcp_strstatus(st));
        check_solution(&p, z, w, 1e-12);
    }
}

/* ---- infeasible ---- */

Test(lcp, infeasible_ray_and_nosol)
{
    double z[2], w[2];
    double M1[1] = { 0 }, q1[1] = { -1 };
    nsc_lcp p1 = { 1, M1, q1 };
    cr_assert_eq(nsc_lcp_lemke(&p1, z, w, NULL, NULL), NSC_LCP_RAY);
    cr_assert_eq(nsc_lcp_enum(&p1, z, w, NULL), NSC_LCP_NOSOL);
    double M2[1] = { -1 }, q2[1] = { -1 };
    nsc_lcp p2 = { 1, M2, q2 };
    cr_assert_eq(nsc_lcp_lemke(&p2, z, w, NULL, NULL), NSC_LCP_RAY);
    cr_assert_eq(nsc_lcp_enum(&p2, z, w, NULL), NSC_LCP_NOSOL);
    /* skew-symmetric (PSD): w1 = z2 - 1, w2 = -z1 - 1 < 0 always */
    double M3[4] = { 0, -1, 1, 0 }, q3[2] = { -1, -1 };
    nsc_lcp p3 = { 2, M3, q3 };
    nsc_lcp_info info;
    cr_assert_eq(nsc_lcp_lemke(&p3, z, w, &info, NULL), NSC_LCP_RAY);
    cr_assert_gt(info.residual, 0.5);
    cr_assert_eq(nsc_lcp_enum(&p3, z, w, &info), NSC_LCP_NOSOL);
    cr_assert_eq(info.iter, 4);
}

/* ---- workspace, invalid input, utilities ---- */

Test(lcp, workspace_reuse_across_sizes)
{
    rng_t g = { 8 };
    nsc_lcp_ws *ws = nsc_lcp_ws_new(12);
    cr_assert_not_null(ws);
    int sizes[] = { 12, 3, 7, 1, 12, 5, 2, 11 };
    for (int t = 0; t < 8; t++) {
        int m = sizes[t];
        double M[144], q[12], z1[12], z2[12], w1[12], w2[12];
        make_diagdom(&g, m, M);
        for (int i = 0; i < m; i++) q[i] = rng_sym(&g);
        nsc_lcp p = { m, M, q };
        nsc_lcp_info i1, i2;
        cr_assert_eq(nsc_lcp_lemke(&p, z1, w1, &i1, ws), NSC_LCP_OK);
        cr_assert_eq(nsc_lcp_lemke(&p, z2, w2, &i2, NULL), NSC_LCP_OK);
        cr_assert_eq(i1.iter, i2.iter);
        for (int i = 0; i < m; i++) {
            cr_assert_eq(z1[i], z2[i]); /* identical computation */
            cr_assert_eq(w1[i], w2[i]);
        }
    }
    double M[169] = { 0 }, q[13] = { -1 }, z[13];
    nsc_lcp big = { 13, M, q };
    cr_assert_eq(nsc_lcp_lemke(&big, z, NULL, NULL, ws), NSC_LCP_EINVAL); /* m > mmax */
    nsc_lcp_ws_free(ws);
    nsc_lcp_ws_free(NULL);
}

Test(lcp, invalid_input)
{
    double M[4] = { 2, 1, 1, 2 }, q[2] = { -5, -6 }, z[2];
    nsc_lcp p = { 2, M, q };
    M[1] = NAN;
    cr_assert_eq(nsc_lcp_lemke(&p, z, NULL, NULL, NULL), NSC_LCP_EINVAL);
    cr_assert_eq(nsc_lcp_enum(&p, z, NULL, NULL), NSC_LCP_EINVAL);
    M[1] = 1;
    q[0] = INFINITY;
    cr_assert_eq(nsc_lcp_lemke(&p, z, NULL, NULL, NULL), NSC_LCP_EINVAL);
    cr_assert_eq(nsc_lcp_enum(&p, z, NULL, NULL), NSC_LCP_EINVAL);
    q[0] = -5;
    nsc_lcp neg = { -1, M, q };
    cr_assert_eq(nsc_lcp_lemke(&neg, z, NULL, NULL, NULL), NSC_LCP_EINVAL);
    cr_assert_eq(nsc_lcp_enum(&neg, z, NULL, NULL), NSC_LCP_EINVAL);
    nsc_lcp big = { NSC_LCP_ENUM_MAX + 1, M, q }; /* rejected before reading M */
    cr_assert_eq(nsc_lcp_enum(&big, z, NULL, NULL), NSC_LCP_EINVAL);
    cr_assert_eq(nsc_lcp_lemke(NULL, z, NULL, NULL, NULL), NSC_LCP_EINVAL);
    cr_assert_null(nsc_lcp_ws_new(-1));
}

Test(lcp, residual_values)
{
    double M[4] = { 2, 1, 1, 2 }, q[2] = { -5, -6 };
    nsc_lcp p = { 2, M, q };
    double z0[2] = { 0, 0 }; /* min(0, -5), min(0, -6): 6 */
    cr_assert_float_eq(nsc_lcp_residual(&p, z0), 6, 1e-15);
    double z1[2] = { 4.0 / 3, 7.0 / 3 }; /* solution */
    cr_assert_leq(nsc_lcp_residual(&p, z1), 1e-14);
    double z2[2] = { 3, 0 }; /* w = (1, -3): min(3,1)=1, min(0,-3)=-3 */
    cr_assert_float_eq(nsc_lcp_residual(&p, z2), 3, 1e-15);
    double z3[2] = { -0.5, 10 }; /* w = (4, 13.5): min = -0.5, 10 */
    cr_assert_float_eq(nsc_lcp_residual(&p, z3), 10, 1e-15);
}

Test(lcp, strstatus_distinct)
{
    nsc_lcp_status all[] = { NSC_LCP_OK,    NSC_LCP_RAY,    NSC_LCP_MAXITER,
                             NSC_LCP_NOSOL, NSC_LCP_ENOMEM, NSC_LCP_EINVAL };
    for (int a = 0; a < 6; a++) {
        cr_assert_not_null(nsc_lcp_strstatus(all[a]));
        for (int b = 0; b < a; b++)
            cr_assert_str_neq(nsc_lcp_strstatus(all[a]), nsc_lcp_strstatus(all[b]));
    }
    cr_assert_str_eq(nsc_lcp_strstatus(NSC_LCP_OK), "solved");
}
