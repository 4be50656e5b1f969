/* onestep_nl.c -- the Newton iteration of a one-step problem with smooth
 * functions (lcs.h nsc_smooth, onestep_nl.h).
 *
 * A smooth function owns one exact algebraic row, 0 = -u + f(z_in) (theta 1
 * in every scheme, so it is in W only: R's row is 0 and T leaves it alone).
 * At the iterate z_k it is replaced by its tangent
 *     0 = -u + J (z - z_k) + f(z_k),   J_q = df/dz_in[q] (forward mode, xcode.c),
 * i.e. A[row][in[q]] = J_q, s0[row] = f(z_k) - J z_k, so that
 *     W[row][in[q]] = -J_q   (W = E/h - Theta A, E's row empty; static W = -A)
 * and the row's source term is s0[row] (Ss has no entry there). The values
 * change, never the pattern (nsc_st_smooth stamped it): W is refactored on its
 * old pivots (nsc_klu_refresh), the cached mode systems are refilled from W
 * when next used (nsc_mode_renew), the mode guess is kept. Each iterate's
 * linear complementarity problem is solved exactly by the linear solve, so the
 * diodes and switches stay complementarity pairs at every iteration (as
 * Siconos's Newton on nonlinear relations). Converged when the update is
 * within the tolerances of onestep_nl.h; z_k+1 is then the solution. */
#include "onestep_nl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onestep_mode.h"

/* A(i, j) = x where stored (W, TA: NULL skipped); 0, -1 when A lacks the entry */
static int sp_set(nsc_sparse *A, int i, int j, double x)
{
    if (!A) return 0;
    int k = nsc_sp_pos(A, i, j);
    if (k < 0) return -1;
    A->x[k] = x;
    return 0;
}

/* The problem linearised at zk: L's smooth rows (nsc_lcs_smooth_at), their
 * values into W, Theta A and T s0 (rows of theta 1 that T leaves alone), then
 * W refactored and the modes marked for refilling. 0, or -1 (not finite,
 * singular, no memory). */
static int relin(nsc_onestep *P, const double *zk)
{
    const nsc_lcs *L = P->L;
    if (nsc_lcs_smooth_at(L, zk)) return -1;
    for (int k = 0; k < L->nsm; k++) {
        const nsc_smooth *S = &L->sm[k];
        for (int q = 0; q < S->nin; q++) {
            double g = L->A->x[nsc_sp_pos(L->A, S->row, S->in[q])];
            if (sp_set(P->W, S->row, S->in[q], -g) || sp_set(P->TA, S->row, S->in[q], g)) return -1;
        }
        P->sc[S->row] = L->s0[S->row];
    }
    free(P->WiB); P->WiB = NULL;                                 /* the dense path, formed when needed */
    free(P->M); P->M = NULL;
    nsc_mode_renew(P);
    P->inc_ok = 0;
    P->lch = -1;
    return P->n > 0 && nsc_klu_refresh(P->F, P->W, 1, &P->wrc) < 0 ? -1 : 0;
}

/* every unknown within the tolerances of onestep_nl.h (NaN: not converged) */
static int converged(const nsc_lcs *L, const double *zk, const double *z1, int n)
{
    for (int i = 0; i < n; i++) {
        double tol = NSC_NL_RTOL * fmax(fabs(z1[i]), fabs(zk[i])) + (i < L->nnode_z ? NSC_NL_ATOL_V : NSC_NL_ATOL_I);
        if (!(fabs(z1[i] - zk[i]) <= tol)) return 0;
    }
    return 1;
}

/* One problem of either form: lin(P, ctx, z1, l, info) its linear solve after
 * each linearisation at zk (zk: n entries, the start; overwritten). */
typedef int (*lin_solve)(nsc_onestep *P, void *ctx, double *z1, double *l, nsc_step_info *info);

static int newton(nsc_onestep *P, lin_solve lin, void *ctx, double *zk, double *z1, double *l, nsc_step_info *info)
{
    const nsc_lcs *L = P->L;
    int n = P->n;
    nsc_nlstat *ns = L->nls;
    ns->solves++;
    for (int it = 1; it <= NSC_NL_MAXIT; it++) {
        if (relin(P, zk)) break;
        int st = lin(P, ctx, z1, l, info);
        ns->iters++;
        if (st) return st;                                       /* the LCP failed: the caller's failure */
        int done = converged(L, zk, z1, n);
        memcpy(zk, z1, sizeof(double) * (size_t)n);
        if (done) {
            if (it > ns->maxit) ns->maxit = it;
            memcpy(ns->z, z1, sizeof(double) * (size_t)n);
            return 0;
        }
    }
    ns->fails++;
    memset(info, 0, sizeof *info);
    info->st = NSC_LCP_NEWTON;
    memset(P->q, 0, sizeof(double) * (size_t)P->m);              /* no pair marked: the functions failed */
    return -1;
}

typedef struct solve_ctx {
    nsc_solver solver;
    const double *z0, *s0, *e1;
    double *s1;      /* alpha times the caller's s1, the smooth rows' current s0 */
    const double *s1in;
    double alpha;    /* the sources' scale (1 but in source stepping) */
} solve_ctx;

static int lin_solve_s(nsc_onestep *P, void *ctx, double *z1, double *l, nsc_step_info *info)
{
    solve_ctx *C = ctx;
    const nsc_lcs *L = P->L;
    for (int i = 0; i < P->n; i++) C->s1[i] = C->alpha * C->s1in[i];
    for (int k = 0; k < L->nsm; k++) C->s1[L->sm[k].row] = L->s0[L->sm[k].row];
    return nsc_onestep_solve_lin(P, C->solver, C->z0, C->s0, C->s1, C->e1, z1, l, info);
}

/* Source stepping (a static problem whose Newton iteration from the last
 * iterate failed): the problem with s scaled by alpha (e, the pairs'
 * offsets, kept), from alpha = 0 (the start z = 0) to 1, each stage's Newton
 * from the last converged one; the increment doubles after a success, a
 * quarter after a failure, down to NSC_NL_DALPHA_MIN. As Newton's
 * result: 0, or -1 with info. */
#define NSC_NL_DALPHA_MIN 1e-6
static int source_stepping(nsc_onestep *P, solve_ctx *C, double *zk, double *z1, double *l, nsc_step_info *info)
{
    size_t nb = sizeof(double) * (size_t)P->n;
    double *zs = calloc(1, nb + sizeof(double)), a = 0, d = 0.1;   /* zs: the last stage's solution */
    if (!zs) { info->st = NSC_LCP_ENOMEM; return -1; }
    int st = 0;
    for (double an = 0; !st && a < 1; an = fmin(1, a + d)) {
        C->alpha = an;
        memcpy(zk, zs, nb);
        st = newton(P, lin_solve_s, C, zk, z1, l, info);
        if (!st) {
            memcpy(zs, z1, nb);
            a = an;
            d *= 2;
        } else if (info->st == NSC_LCP_NEWTON && an > 0 && (d /= 4) >= NSC_NL_DALPHA_MIN)
            st = 0;                                              /* retry a shorter stage */
    }
    free(zs);
    C->alpha = 1;
    return st;
}

int nsc_nl_solve(nsc_onestep *P, nsc_solver solver, const double *z0, const double *s0, const double *s1,
                 const double *e1, double *z1, double *l, nsc_step_info *info)
{
    int n = P->n;
    double *zk = malloc(sizeof(double) * (2 * (size_t)n + 1));
    if (!zk) {
        memset(info, 0, sizeof *info);
        info->st = NSC_LCP_ENOMEM;
        return -1;
    }
    memcpy(zk, z0 ? z0 : P->L->nls->z, sizeof(double) * (size_t)n);
    solve_ctx C = { solver, z0, s0, e1, zk + n, s1, 1.0 };
    int st = newton(P, lin_solve_s, &C, zk, z1, l, info);
    if (st && info->st == NSC_LCP_NEWTON && !z0) st = source_stepping(P, &C, zk, z1, l, info);   /* .op, DC */
    free(zk);
    return st;
}

typedef struct step_ctx {
    nsc_solver solver;
    const double *z0, *w0, *w1;
} step_ctx;

static int lin_step(nsc_onestep *P, void *ctx, double *z1, double *l, nsc_step_info *info)
{
    step_ctx *C = ctx;
    return nsc_onestep_step_lin(P, C->solver, C->z0, C->w0, C->w1, z1, l, info);
}

int nsc_nl_step(nsc_onestep *P, nsc_solver solver, const double *z0, const double *w0, const double *w1,
                double *z1, double *l, nsc_step_info *info)
{
    int n = P->n;
    double *zk = malloc(sizeof(double) * ((size_t)n + 1));
    if (!zk) {
        memset(info, 0, sizeof *info);
        info->st = NSC_LCP_ENOMEM;
        return -1;
    }
    memcpy(zk, z0, sizeof(double) * (size_t)n);
    step_ctx C = { solver, z0, w0, w1 };
    int st = newton(P, lin_step, &C, zk, z1, l, info);
    free(zk);
    return st;
}
