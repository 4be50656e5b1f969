/* lcp_enum.c -- enumeration of the complementary bases (lcp.h), the test oracle.
 *
 * Works on the equilibrated problem LCP(S, s), S = R M C, s = R q (R, C powers of
 * two, nsc_dense_equilibrate), z = C z'. For an index set alpha (z'_alpha basic,
 * w_alpha = 0, z' = 0 elsewhere):
 *     S(alpha,alpha) z'_alpha = -s_alpha,    w' = S z' + s,
 * accepted when z'_alpha >= -ENUM_EPS ||z'_alpha||_inf and, off alpha,
 * w'_i >= -ENUM_EPS (|S||z'| + |s|)_i.
 * Order: by increasing cardinality |alpha|, and within one cardinality by
 * increasing bitmask value (bit i <-> index i); the first accepted basis is
 * returned with z clamped to >= 0, w = Mz + q (original data) and w_alpha = 0.
 * Singular principal submatrices (exact zero pivot in LU) are skipped, so a
 * solution whose complementary bases are all singular is not found (NOSOL).
 * Cost O(2^m m^3); m <= NSC_LCP_ENUM_MAX. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lcp.h"
#include "la_dense.h"

#define ENUM_EPS 1e-10

/* Try the basis given by mask on p = (S, s); 1 if it solves the LCP (z' set), 0 otherwise. */
static int enum_try(const nsc_lcp *p, uint32_t mask, double *F, int *ipiv, int *al, double *za,
                    double *z)
{
    int m = p->m, k = 0;
    for (int i = 0; i < m; i++)
        if (mask & (UINT32_C(1) << i)) al[k++] = i;
    for (int b = 0; b < k; b++)
        for (int a = 0; a < k; a++) F[a + (size_t)b * k] = p->M[al[a] + (size_t)al[b] * m];
    for (int a = 0; a < k; a++) za[a] = -p->q[al[a]];
    if (nsc_dense_solve(k, F, k, ipiv, za) != 0) return 0; /* z_a = -S_aa \ s_a */
    double zmax = 0;
    for (int a = 0; a < k; a++) zmax = fmax(zmax, fabs(za[a]));
    if (!isfinite(zmax)) return 0;
    for (int a = 0; a < k; a++)
        if (za[a] < -ENUM_EPS * zmax) return 0;
    for (int i = 0; i < m; i++) z[i] = 0;
    for (int a = 0; a < k; a++) z[al[a]] = fmax(za[a], 0);
    for (int i = 0; i < m; i++) {
        if (mask & (UINT32_C(1) << i)) continue;
        double wi = p->q[i], wa = fabs(p->q[i]); /* w_i = (S z + s)_i, wa = (|S||z| + |s|)_i */
        for (int a = 0; a < k; a++) {
            double t = p->M[i + (size_t)al[a] * m] * z[al[a]];
            wi += t;
            wa += fabs(t);
        }
        if (wi < -ENUM_EPS * wa) return 0;
    }
    return 1;
}

nsc_lcp_status nsc_lcp_enum(const nsc_lcp *p, double *z, double *w, nsc_lcp_info *info)
{
    nsc_lcp_info dummy;
    if (!info) info = &dummy;
    info->iter = 0;
    info->residual = 0;
    if (!p || p->m < 0 || p->m > NSC_LCP_ENUM_MAX) return NSC_LCP_EINVAL;
    int m = p->m;
    if (m == 0) return NSC_LCP_OK;
    if (!p->M || !p->q || !z) return NSC_LCP_EINVAL;
    for (size_t k = 0; k < (size_t)m * m; k++)
        if (!isfinite(p->M[k])) return NSC_LCP_EINVAL;
    for (int i = 0; i < m; i++)
        if (!isfinite(p->q[i])) return NSC_LCP_EINVAL;
    size_t mm = (size_t)m * m;
    double *F = malloc(mm * sizeof(double)), *S = malloc(mm * sizeof(double));
    double *buf = malloc(4 * (size_t)m * sizeof(double));
    int *ipiv = malloc((size_t)m * sizeof(int)), *al = malloc((size_t)m * sizeof(int));
    nsc_lcp_status st = NSC_LCP_NOSOL;
    if (!F || !S || !buf || !ipiv || !al) {
        st = NSC_LCP_ENOMEM;
        goto done;
    }
    double *za = buf, *s = buf + m, *r = buf + 2 * m, *c = buf + 3 * m;
    nsc_dense_equilibrate(m, m, p->M, m, r, c);
    for (int j = 0; j < m; j++) /* S = R M C, s = R q (exact) */
        for (int i = 0; i < m; i++) S[i + (size_t)j * m] = r[i] * p->M[i + (size_t)j * m] * c[j];
    for (int i = 0; i < m; i++) s[i] = r[i] * p->q[i];
    nsc_lcp ps = { m, S, s };
    uint32_t full = (UINT32_C(1) << m) - 1; /* m <= 20 */
    for (int card = 0; card <= m && st == NSC_LCP_NOSOL; card++) {
        uint32_t mask = (UINT32_C(1) << card) - 1, last = full & ~((UINT32_C(1) << (m - card)) - 1);
        for (;;) {
            info->iter++;
            if (enum_try(&ps, mask, F, ipiv, al, za, z)) {
                st = NSC_LCP_OK;
                break;
            }
            if (mask == last) break;
            uint32_t lo = mask & -mask, hi = mask + lo; /* Gosper: next mask, same popcount */
            mask = (((hi ^ mask) >> 2) / lo) | hi;
        }
    }
    if (st == NSC_LCP_OK) {
        for (int i = 0; i < m; i++) z[i] *= c[i]; /* z = C z' */
        info->residual = nsc_lcp_residual(p, z);
        if (w) {
            memcpy(w, p->q, (size_t)m * sizeof(double));
            nsc_dense_gemv(0, m, m, 1, p->M, m, z, 1, w); /* w = M z + q */
            for (int i = 0; i < m; i++)
                if (z[i] > 0) w[i] = 0; /* basic z: w_i = 0 up to round-off */
        }
    } else {
        for (int i = 0; i < m; i++) z[i] = 0;
    }
done:
    free(F);
    free(S);
    free(buf);
    free(ipiv);
    free(al);
    return st;
}
