/* onestep.h -- the one-step problem of the theta-scheme (formulation.md §2):
 *
 *   W z1 = r + B l,   W = E/h - Theta A,
 *   r = (E/h + (I - Theta) A) z0 + Theta s1 + (I - Theta) s0,
 *   y = C z1 + D l + e1,   0 <= y _|_ l >= 0,
 *
 * Theta = diag(theta_i): theta on rows where E has entries, 1 on algebraic rows.
 * Hidden algebraic rows are separated first (formulation.md §2): for each left
 * null vector v of E (capacitors among nodes with no capacitance to ground:
 * v = 1 on them; perfectly coupled inductors), the DAE is premultiplied by T,
 * which replaces one row of v's support by v^T times the rows; that row is then
 * algebraic (theta 1) and its constraint holds at t_k+1, instead of ringing at
 * the theta-point after a switching event. E, A, B, s become T E, T A, T B, T s
 * (W, R, Bt, ts below).
 * With h = 0 the static problem 0 = A z + B l + s (W = -A, r = s1). Reduced to the
 * dense LCP  M l + q >= 0 _|_ l >= 0,  M = D + C W^-1 B,  q = C W^-1 r + e1,
 * and z1 = W^-1 r + (W^-1 B) l. W is factored once per h (KLU); M and W^-1 B are
 * formed once per h (dense, LAPACK-sized blocks), when pivoting first needs them.
 *
 * A step first tries the previous step's mode (its sparse system, nsc_mode):
 * accepted when lambda_a >= 0 and y >= 0 on the other pairs; a rejected mode is
 * corrected by a few primal-dual active-set iterations (drop pairs with
 * lambda < 0, add pairs with y < 0), each a sparse solve; without a previous
 * mode (solver auto) the iteration starts from every pair open. Otherwise the LCP is
 * solved by pivoting and its solution re-solved exactly in its own mode, or the
 * nearest mode the active-set iteration reaches from it (formulation.md §3, §4:
 * no 1/gmin in the accepted solution). */
#ifndef NSC_ONESTEP_H
#define NSC_ONESTEP_H

#include "lcp.h"
#include "lcs.h"
#include "la_klu.h"

typedef enum nsc_solver { NSC_SOLVER_AUTO, NSC_SOLVER_LEMKE, NSC_SOLVER_ENUM } nsc_solver;
/* "auto", "lemke", "enum" -> solver; -1 if unknown. */
int nsc_solver_parse(const char *name);

/* A mode: the set of active pairs (lambda_i >= 0 free, y_i = 0); the rest have
 * lambda_i = 0. Its linear system, in (z, lambda_a),
 *     [ W    -B_a  ] [z       ]   [ r    ]
 *     [ C_a   D_aa ] [lambda_a] = [ -e_a ],
 * is sparse and keeps gmin out of any dense matrix: the solution is exact to
 * round-off even where M = D + C W^-1 B holds entries of order 1/gmin. */
typedef struct nsc_mode {
    char *mask;        /* [m] 1 = active */
    int na;            /* active pairs */
    int *act;          /* [na] their indices */
    nsc_sparse *K;     /* the (n + na) system, CSC */
    nsc_klu *F;        /* its LU, NULL when singular */
    long last_use;
} nsc_mode;

#define NSC_MODE_CACHE 16
#define NSC_AS_MAXIT 8     /* modes tried by the active-set iteration before pivoting */

typedef struct nsc_onestep {
    const nsc_lcs *L;
    double h, theta;
    int n, m;
    char *sw;          /* [L->nsw] switch states this problem is built for (1 = on) */
    int nalg;          /* hidden algebraic rows (below): combination c replaces row alg_rep[c] */
    int *alg_rep, *alg_cp, *alg_row;   /* by sum_e alg_v[e] row alg_row[e], e in alg_cp[c].. */
    double *alg_v;
    const nsc_sparse *B; /* T B (Bt) or L->B */
    nsc_sparse *Bt;
    double *ts;        /* [n] work: T s */
    double *th;        /* [n] Theta_ii */
    nsc_sparse *W;     /* E/h - Theta A */
    nsc_sparse *R;     /* E/h + (I - Theta) A (NULL when h = 0) */
    nsc_klu *F;        /* LU of W */
    double *WiB;       /* [n*m] W^-1 B, column-major (NULL until pivoting needs it) */
    double *M;         /* [m*m] D + C W^-1 B (likewise) */
    nsc_lcp_ws *ws;
    double *r, *q, *w; /* work [n], [m], [m] */
    nsc_mode modes[NSC_MODE_CACHE];
    int nmodes;
    long clock;        /* use counter for least-recently-used eviction */
    char *prev;        /* [m] active set of the last solved step */
    int have_prev;
    char *mask, *mask2; /* [m] work */
    double *x;         /* [n + m] work: mode solution */
    double *zl;        /* [n] work: Lemke's z */
    double *ll;        /* [m] work: Lemke's lambda */
    double *lt;        /* [m] work: a mode's lambda */
} nsc_onestep;

typedef struct nsc_step_info {
    int mode_hit;      /* 1 when the previous step's mode solved this one (no pivoting) */
    int active_set;    /* modes changed by the active-set iteration (from the previous mode or
                          from the pivoting result) before one was accepted */
    int lcp_solved;    /* 1 when an LCP was solved by pivoting */
    int polished;      /* 1 when the pivoting result was refined by its mode's sparse system */
    int iter;          /* pivots */
    double residual;   /* ||min(l, M l + q)||_inf */
    nsc_lcp_status st;
} nsc_step_info;

/* Build the problem for step h (h = 0: static), every switch off. Errors (singular W) in r. */
nsc_status nsc_onestep_new(const nsc_lcs *L, double h, double theta, nsc_onestep **out,
                           nsc_report *r);
/* The same with the switches of L in states sw[L->nsw] (1 = on; NULL: all off):
 * A is replaced by A + sum over on switches of their conductance change, in W and R. */
nsc_status nsc_onestep_new_sw(const nsc_lcs *L, double h, double theta, const char *sw,
                              nsc_onestep **out, nsc_report *r);
/* The solution with every pair open (l = 0): z1 = W^-1 r, same arguments as
 * nsc_onestep_solve. 0 ok, -1 on failure. */
int nsc_onestep_open(nsc_onestep *P, const double *z0, const double *s0, const double *s1, double *z1);
/* Take the mode guess (active set of the last solved step) of another problem of
 * the same LCS (a different h or switch state), so that switching problems does
 * not cost a pivoting solve. */
void nsc_onestep_take_mode(nsc_onestep *P, const nsc_onestep *from);
void nsc_onestep_free(nsc_onestep *P);
/* One step: z0 (NULL when h = 0), s0/s1 = s(t_k)/s(t_k+1), e1 = e(t_k+1) ->
 * z1[n], l[m]. Returns 0, or -1 when the LCP solver failed (info says why). */
int nsc_onestep_solve(nsc_onestep *P, nsc_solver solver, const double *z0, const double *s0,
                      const double *s1, const double *e1, double *z1, double *l,
                      nsc_step_info *info);

#endif
