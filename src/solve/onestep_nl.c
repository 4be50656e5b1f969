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
 * Siconos's Newton on nonlinear relations).
 *
 * Converged at z_k+1 (the solution of the problem linearised at z_k) when
 * every smooth function's tangent at z_k predicts its value at z_k+1 within
 * KAPPA of what the inputs' tolerances make of it (at_solution):
 *     |f(z_k+1) - (f(z_k) + J_k (z_k+1 - z_k))| <= KAPPA (RTOL |f| + sum_q |J_q| tol_q).
 * z_k+1 solves the linear rows and the complementarity of that problem (as
 * any linear circuit's step, to the linear solve's round-off), so it solves,
 * as exactly, the problem whose smooth functions are the tangents -- which
 * differ from f at z_k+1 by no more than KAPPA times a within-tolerance move
 * of the inputs. (KAPPA = 1e-3: the error is z_k+1's own, where the update
 * test bounded z_k's and accepted z_k+1, that error squared; a product of two
 * sines stays within 1e-11 V of its closed form so, test
 * smooth/multiplier_closed_form, with 2 solves a step instead of 3.) On
 * return L's A and s0 hold the tangent at the solution, W the one before it.
 * Neither the update z_k+1 - z_k nor the row's residual f(z_k+1) - u_k+1 is the
 * test: both have a floor, the linear solve's round-off, which near a
 * switching event (h down to 1e-13 s: E/h ~ L/h = 1e9 ohm beside milliohm
 * channels and coupled windings) exceeds NSC_NL_RTOL |z| on branch currents,
 * on the node voltages at an inductor and on a charge row's u. The iterates
 * then alternated between two answers of the same linearisation (the mode
 * unchanged, the smooth inputs still to 1e-8 V), each solve failed after
 * NSC_NL_MAXIT, the stepper shrank h, which made W worse conditioned: a
 * flyback with MUR160's depletion charge and a VDMOS buck with its Cgd(V)
 * stalled at 5e-18 s steps that way. The tangent's error has no such floor: a
 * round-off dz in the inputs moves it by O(f'' dz^2). */
#include "onestep_nl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onestep_mode.h"

/* P->st.smpos (onestep_int.h), made when missing (W's and TA's patterns are
 * P's for its life: nsc_onestep_renew refills them in place). NULL: no memory. */
static const int *sm_pos(nsc_onestep *P)
{
    const nsc_lcs *L = P->L;
    size_t cnt = 0;
    if (P->st.smpos) return P->st.smpos;
    for (int k = 0; k < L->nsm; k++) cnt += (size_t)L->sm[k].nin;
    int *pos = malloc(sizeof(int) * (2 * cnt + 1)), i = 0;
    for (int k = 0; pos && k < L->nsm; k++)
        for (int q = 0; q < L->sm[k].nin; q++, i += 2) {
            pos[i] = P->st.W ? nsc_sp_pos(P->st.W, L->sm[k].row, L->sm[k].in[q]) : -1;
            pos[i + 1] = P->st.TA ? nsc_sp_pos(P->st.TA, L->sm[k].row, L->sm[k].in[q]) : -1;
        }
    return P->st.smpos = pos;
}

/* W, Theta A and T s0 (rows of theta 1 that T leaves alone) from L's smooth
 * rows as nsc_lcs_smooth_at left them, then W refactored and the modes marked
 * for refilling. With charges (L->ncharge) W's factors are left for the first
 * solve with W itself (nsc_onestep_wfactor): a step whose mode system is
 * found (refilled from W) never needs them, and refactoring W at every
 * iteration was 17 % of models_buck's instructions. (Without charges as
 * before, the same factors.) 0, or -1 (singular, no memory). */
static int relin(nsc_onestep *P)
{
    const nsc_lcs *L = P->L;
    const int *pos = sm_pos(P);
    if (!pos) return -1;
    for (int k = 0; k < L->nsm; k++) {
        const nsc_smooth *S = &L->sm[k];
        for (int q = 0; q < S->nin; q++, pos += 2) { /* W[row][in[q]] = -J_q, TA's = J_q */
            double g = L->A->x[S->apos[q]];
            if ((P->st.W && pos[0] < 0) || (P->st.TA && pos[1] < 0)) return -1;
            if (P->st.W) P->st.W->x[pos[0]] = -g;
            if (P->st.TA) P->st.TA->x[pos[1]] = g;
        }
        P->st.sc[S->row] = L->s0[S->row];
    }
    free(P->dn.WiB);
    P->dn.WiB = NULL; /* the dense path, formed when needed */
    free(P->dn.M);
    P->dn.M = NULL;
    nsc_mode_renew_smooth(P);
    P->inc.ok = 0;
    P->inc.lch = -1;
    P->st.wstale = P->n > 0;
    return L->ncharge ? 0 : nsc_onestep_wfactor(P); /* (charges: when a solve with W needs it) */
}

static double tangent(const nsc_lcs *L, const nsc_smooth *S, const double *z);

/* 1 when the chord at zk is tolerated (onestep_nl.h NSC_NL_CHORD): every
 * slope W holds (W[row][in[q]] = -J_W,q, P's last relin) within NSC_NL_CHORD
 * of the largest slope of its function just linearised at zk (A):
 *     |J_q - J_W,q| <= NSC_NL_CHORD max_q' |J_q'|. */
static int chord_ok(const nsc_onestep *P, const int *pos)
{
    const nsc_lcs *L = P->L;
    for (int k = 0; k < L->nsm; k++) {
        const nsc_smooth *S = &L->sm[k];
        double big = 0;
        for (int q = 0; q < S->nin; q++) big = fmax(big, fabs(L->A->x[S->apos[q]]));
        for (int q = 0; q < S->nin; q++, pos += 2)
            if (pos[0] < 0
                || !(fabs(L->A->x[S->apos[q]] + P->st.W->x[pos[0]]) <= NSC_NL_CHORD * big))
                return 0;
    }
    return 1;
}

/* The chord: L's smooth rows, linearised at zk, take the slopes W holds
 * instead (A[row][in[q]] = J_W,q, s0[row] = f(zk) - J_W zk: a line through
 * f(zk)), and the problem's source terms of those rows with them; W, its
 * factors and the mode systems stay. The maps' constant columns read sc:
 * dropped. */
static void chord(nsc_onestep *P, const int *pos, const double *zk)
{
    const nsc_lcs *L = P->L;
    for (int k = 0; k < L->nsm; k++) {
        const nsc_smooth *S = &L->sm[k];
        double c = tangent(L, S, zk); /* f(zk) */
        for (int q = 0; q < S->nin; q++, pos += 2) {
            double g = -P->st.W->x[pos[0]];
            L->A->x[S->apos[q]] = g;
            c -= g * zk[S->in[q]];
        }
        L->s0[S->row] = c;
        P->st.sc[S->row] = c;
    }
    for (int k = 0; P->map && k < NSC_MODE_CACHE; k++) {
        nsc_mode *M = &P->mc.modes[k];
        free(M->G);
        M->G = NULL;
        M->hits = 0;
    }
}

/* the tolerance of unknown i at the value a (onestep_nl.h) */
static double tol_of(const nsc_lcs *L, int i, double a)
{
    return NSC_NL_RTOL * fabs(a) + (i < L->nnode_z ? NSC_NL_ATOL_V : NSC_NL_ATOL_I);
}

/* f(z) of smooth function k from its linearisation at z (A[row][in[q]] = J_q,
 * s0[row] = f(z) - J z), or the tangent's value at z of a linearisation
 * made elsewhere: s0[row] + J z. (A few ulps of |f| + |J z|: far below
 * NSC_NL_RTOL of them.) */
static double tangent(const nsc_lcs *L, const nsc_smooth *S, const double *z)
{
    double f = L->s0[S->row];
    for (int q = 0; q < S->nin; q++) f += L->A->x[S->apos[q]] * z[S->in[q]];
    return f;
}

/* L's smooth rows just linearised at z, t[k] the value the previous
 * linearisation's tangent gave function k at z: 1 when every |f(z) - t[k]| <=
 * NSC_NL_KAPPA (NSC_NL_RTOL max(|f|, |t|) + sum_q |J_q| tol_q(z_in[q])) (the
 * header's test). NaN: 0. */
static int at_solution(const nsc_lcs *L, const double *z, const double *t)
{
    for (int k = 0; k < L->nsm; k++) {
        const nsc_smooth *S = &L->sm[k];
        double f = tangent(L, S, z), tol = NSC_NL_RTOL * fmax(fabs(f), fabs(t[k]));
        for (int q = 0; q < S->nin; q++)
            tol += fabs(L->A->x[S->apos[q]]) * tol_of(L, S->in[q], z[S->in[q]]);
        if (!(fabs(f - t[k]) <= NSC_NL_KAPPA * tol)) return 0;
    }
    return 1;
}

/* One problem of either form: lin(P, ctx, z1, l, info) its linear solve after
 * each linearisation at zk (zk: n entries, the start; overwritten). */
typedef int (*lin_solve)(nsc_onestep *P, void *ctx, double *z1, double *l, nsc_step_info *info);

/* A static problem's update limit (newton()): zc (z1 on entry) with every
 * node voltage a smooth function reads moved at most NSC_NL_DVMAX from zp
 * (each alone, as ngspice limits each device's voltages; 1 when one was). A
 * factor scaling the whole update by NSC_NL_DVMAX over the largest move
 * left a node held by GMIN alone (its transistors off where linearised,
 * thrown 200..1800 V a solve) setting the pace of all: mosamp's (ngspice
 * tests/general, LEVEL=2) operating point crept 1/1000 of its Newton steps a
 * solve, ran out of iterations and went to source stepping, whose stages near
 * the thresholds then met the channels' own round-off (a current of 9e-13 A
 * from terms ~1e-9 A: 2e-19 A, above the 1.5e-19 A at_solution allows): 65
 * solves at NSC_NL_MAXIT, none now. A voltage that the last solve put where
 * this one puts it (zq: the last solve's z1, NULL before the second; within
 * its tolerance) is one the linear rows fix whatever the linearisation (a
 * source's node, a .ic value imposed under UIC): limiting it only delays it,
 * NSC_NL_DVMAX a solve (the PFC's V(out) = 200 V of its .ic took 200 limited
 * solves, past NSC_NL_MAXIT: the operating point and two stages of source
 * stepping failed before it converged), so it is not counted. */
static int step_limit(const nsc_lcs *L, const double *zp, const double *zq, const double *z1,
                      double *zc)
{
    int lim = 0;
    for (int k = 0; k < L->nsm; k++)
        for (int q = 0; q < L->sm[k].nin; q++) {
            int i = L->sm[k].in[q];
            if (i >= L->nnode_z || (zq && fabs(z1[i] - zq[i]) <= tol_of(L, i, z1[i]))) continue;
            double d = zc[i] - zp[i];
            if (fabs(d) > NSC_NL_DVMAX) zc[i] = zp[i] + copysign(NSC_NL_DVMAX, d), lim = 1;
        }
    return lim;
}

/* Newton from zk (overwritten): 0 (z1, l, info the solution's), the LCP's
 * failure as lin returned it, or -1 with info->st = NSC_LCP_NEWTON. A static
 * problem (h = 0: the operating point, a DC sweep's point) linearises next
 * at z1 limited (step_limit) when z1 is not the solution: from z = 0 a
 * LEVEL=6 gate whose channels and junctions are all off leaves its output held by GMIN alone, the full update threw it 2.4e4 V
 * (tests/data/mos6/off.cir; -1e5 V on ngspice's mos6inv example), and Newton
 * came to rest there, on a point of the coded equations far outside every
 * source's range that only GMIN ties to ground (the gmin check at t = 0
 * refused it). ngspice limits its junction and FET voltage steps (DEVpnjlim,
 * DEVfetlim) for the same reason. Convergence is still tested at z1; the
 * transient's problems start from the last step's solution and are not
 * limited. */
static int newton(nsc_onestep *P, lin_solve lin, void *ctx, double *zk, const double *zalt,
                  double *z1, double *l, nsc_step_info *info)
{
    const nsc_lcs *L = P->L;
    size_t nb = sizeof(double) * (size_t)P->n;
    nsc_nlstat *ns = L->nls;
    double *t = malloc(sizeof(double) * ((size_t)L->nsm + 1)); /* the last tangents' values at zk */
    double *zp = P->st.h == 0 ? malloc(3 * nb + sizeof(double))
                              : NULL;       /* the last linearisation point, */
    double *zq = NULL;                      /* the last solve's z1 (zp + n), */
    double *zc = zp ? zp + 2 * P->n : NULL; /* z1 limited (zp + 2n) */
    int st = 0, done = 0, bad = !t || (P->st.h == 0 && !zp), nc = 0; /* nc: chords in a row */
    int lim = 0;
    ns->solves++;
    for (int it = 0; !bad && !st && !done && it <= NSC_NL_MAXIT;
         it++) { /* zk: the start, then solve it's */
        for (int k = 0; it > 0 && k < L->nsm; k++) t[k] = tangent(L, &L->sm[k], zk);
        int nf = nsc_lcs_smooth_at(L, zk); /* f, J at zk (not finite: failed) */
        if (nf && it == 0 && zalt) {       /* (a predicted start: from zalt instead) */
            memcpy(zk, zalt, nb);
            nf = nsc_lcs_smooth_at(L, zk);
        }
        if (nf) break;
        if (it > 0 && at_solution(L, zk, t)) { /* z1 = zk, l and info its solve's */
            if (it > ns->maxit) ns->maxit = it;
            memcpy(ns->z, z1, nb);
            done = 1;
            break;
        }
        if (it == NSC_NL_MAXIT) break;
        if (lim) memcpy(zk, zc, nb);
        if (lim && nsc_lcs_smooth_at(L, zk)) break;
        if (!sm_pos(P)) break;
        nc = nc < NSC_NL_CHORD_RUN && chord_ok(P, P->st.smpos) ? nc + 1 : 0;
        if (nc) chord(P, P->st.smpos, zk);
        else if (relin(P)) break;
        ns->chords += nc > 0;
        if (zp) memcpy(zp, zk, nb);
        ns->iters++;
        st = lin(P, ctx, z1, l, info); /* an LCP failure: the caller's */
        if (zp) memcpy(zc, z1, nb);
        lim = zp ? step_limit(L, zp, zq, z1, zc) : 0;
        if (zp) memcpy(zq = zp + P->n, z1, nb);
        memcpy(zk, z1, nb);
    }
    free(t);
    free(zp);
    if (done || st) return st;
    memset(info, 0, sizeof *info);
    info->st = bad ? NSC_LCP_ENOMEM : NSC_LCP_NEWTON;
    if (bad) return -1;
    ns->fails++;
    memset(P->st.q, 0, sizeof(double) * (size_t)P->m); /* no pair marked: the functions failed */
    P->st.qset = 1;
    return -1;
}

typedef struct solve_ctx {
    nsc_solver solver;
    const double *z0, *s0, *e1;
    double *s1; /* alpha times the caller's s1, the smooth rows' current s0 */
    const double *s1in;
    double alpha; /* the sources' scale (1 but in source stepping) */
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
static int source_stepping(nsc_onestep *P, solve_ctx *C, double *zk, double *z1, double *l,
                           nsc_step_info *info)
{
    size_t nb = sizeof(double) * (size_t)P->n;
    double *zs = calloc(1, nb + sizeof(double)), a = 0, d = 0.1; /* zs: the last stage's solution */
    if (!zs) {
        info->st = NSC_LCP_ENOMEM;
        return -1;
    }
    int st = 0;
    for (double an = 0; !st && a < 1; an = fmin(1, a + d)) {
        C->alpha = an;
        memcpy(zk, zs, nb);
        st = newton(P, lin_solve_s, C, zk, NULL, z1, l, info);
        if (!st) {
            memcpy(zs, z1, nb);
            a = an;
            d *= 2;
        } else if (info->st == NSC_LCP_NEWTON && an > 0 && (d /= 4) >= NSC_NL_DALPHA_MIN)
            st = 0; /* retry a shorter stage */
    }
    free(zs);
    C->alpha = 1;
    return st;
}

int nsc_nl_solve(nsc_onestep *P, nsc_solver solver, const double *z0, const double *s0,
                 const double *s1, const double *e1, double *z1, double *l, nsc_step_info *info)
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
    int st = newton(P, lin_solve_s, &C, zk, NULL, z1, l, info);
    if (st && info->st == NSC_LCP_NEWTON && !z0)
        st = source_stepping(P, &C, zk, z1, l, info); /* .op, DC */
    P->L->nls->hs = 0;                                /* (no transient step: predict() from none) */
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

/* The first linearisation point zk of the step of P from z0 (the
 * predictor): where the LCS has charges and the step continues the last
 * transient step solved, or repeats it shorter or longer from its start, the
 * straight line through that step's start zs and solution z, extended by the
 * ratio of the sizes: zk = z0 + (h / hs) (z - zs); else z0. A tangent at z0
 * predicts f at the step's solution to O(dz^2), dz the step's whole move, so
 * the convergence test (at_solution) of its first solution rarely passes;
 * at the predicted point dz is the line's error, O(h^2) (models_buck: 2.88
 * solves a step from z0). The iteration and its test are unchanged: only
 * where it starts. */
static void predict(const nsc_onestep *P, const double *z0, double *zk)
{
    const nsc_lcs *L = P->L;
    const nsc_nlstat *ns = L->nls;
    size_t nb = sizeof(double) * (size_t)P->n;
    memcpy(zk, z0, nb);
    if (!L->ncharge || !(ns->hs > 0) || (memcmp(z0, ns->z, nb) && memcmp(z0, ns->zs, nb))) return;
    double r = P->st.h / ns->hs;
    for (int i = 0; i < P->n; i++) zk[i] = z0[i] + r * (ns->z[i] - ns->zs[i]);
}

int nsc_nl_step(nsc_onestep *P, nsc_solver solver, const double *z0, const double *w0,
                const double *w1, double *z1, double *l, nsc_step_info *info)
{
    int n = P->n;
    nsc_nlstat *ns = P->L->nls;
    double *zk = malloc(sizeof(double) * ((size_t)n + 1));
    if (!zk) {
        memset(info, 0, sizeof *info);
        info->st = NSC_LCP_ENOMEM;
        return -1;
    }
    predict(P, z0, zk);
    step_ctx C = { solver, z0, w0, w1 };
    int st = newton(P, lin_step, &C, zk, z0, z1, l, info);
    if (!st) { /* (newton copied z1 into ns->z) */
        memcpy(ns->zs, z0, sizeof(double) * (size_t)n);
        ns->hs = P->st.h;
    }
    free(zk);
    return st;
}
