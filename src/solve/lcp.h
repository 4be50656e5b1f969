/* lcp.h -- dense linear complementarity problems (formulation.md §3):
 *
 *     w = M z + q,   0 <= w  _|_  z >= 0,     M m-by-m column-major: M[i + j*m].
 *
 * lcp_lemke.c: Lemke's complementary pivoting with the covering vector e = (1..1)
 *              and lexicographic minimum-ratio test (degenerate problems), the
 *              reference solver; works on P-matrices and, when the LCP is feasible,
 *              on copositive-plus (e.g. positive semidefinite) matrices.
 * lcp_enum.c:  enumeration of the 2^m complementary bases (m <= NSC_LCP_ENUM_MAX),
 *              the small-problem oracle for tests; dense solves through LAPACK. */
#ifndef NSC_LCP_H
#define NSC_LCP_H

#define NSC_LCP_ENUM_MAX 20

typedef struct nsc_lcp {
    int m;
    const double *M; /* m*m, column-major */
    const double *q; /* m */
} nsc_lcp;

typedef enum nsc_lcp_status {
    NSC_LCP_OK = 0,
    NSC_LCP_RAY, /* Lemke: secondary ray, no solution found (infeasible or not copositive-plus) */
    NSC_LCP_MAXITER, /* iteration limit */
    NSC_LCP_NOSOL,   /* enum: no complementary basis gives a solution */
    NSC_LCP_ENOMEM,
    NSC_LCP_EINVAL, /* m < 0, m too large for enum, non-finite data */
    NSC_LCP_NEWTON  /* the one-step problem's Newton iteration (smooth functions, onestep_nl.c)
                         did not converge, or a function or derivative was not finite */
} nsc_lcp_status;

typedef struct nsc_lcp_info {
    int iter;        /* pivots (Lemke) or bases tried (enum) */
    double residual; /* nsc_lcp_residual of the returned z */
} nsc_lcp_info;

/* Reusable workspace for problems of size <= mmax (no allocation per call). */
typedef struct nsc_lcp_ws nsc_lcp_ws;
nsc_lcp_ws *nsc_lcp_ws_new(int mmax);
void nsc_lcp_ws_free(nsc_lcp_ws *ws);

/* Solve; z[m] and w[m] are outputs (w may be NULL). ws may be NULL (allocated
 * internally). info may be NULL. Tolerances are relative to max(|M|,|q|). */
nsc_lcp_status nsc_lcp_lemke(const nsc_lcp *p, double *z, double *w, nsc_lcp_info *info,
                             nsc_lcp_ws *ws);
nsc_lcp_status nsc_lcp_enum(const nsc_lcp *p, double *z, double *w, nsc_lcp_info *info);

/* Natural-map residual || min(z, Mz+q) ||_inf: 0 exactly at a solution. */
double nsc_lcp_residual(const nsc_lcp *p, const double *z);
const char *nsc_lcp_strstatus(nsc_lcp_status s);

#endif
