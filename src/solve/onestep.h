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
 * (W, R, Bt below). With h = 0 the static problem 0 = A z + B l + s (W = -A, r = s1).
 *
 * Modes (onestep_mode.c). A mode is an active set a (l_i >= 0 free, y_i = 0;
 * l_i = 0 elsewhere). Pairs are of two kinds:
 *  - separable (S): D_jj > 0 is the only entry of row j and column j of D (PWL
 *    MOS segments, diodes with RON > 0, Zener branches). With g_j = C_j z + e_j,
 *    l_j = max(0, -g_j / D_jj): eliminated from the mode system, an active one
 *    adds the conductance stamp B_j C_j^T / D_jj to W (pattern fixed: the union
 *    of every stamp, so only values change with the mode);
 *  - the others (N: ideal diodes D_jj = 0, the coupled pairs of a vertical step)
 *    stay unknowns. The mode system in (z, l_Na), Na = N active:
 *      [ W + sum_{j in S, active} B_j C_j^T / D_jj   -B_Na  ] [z   ]   [ r - sum B_j e_j / D_jj ]
 *      [ C_Na                                         D_NaNa ] [l_Na] = [ -e_Na                  ]
 *    It is sparse (KLU) and keeps gmin out of any dense matrix: the solution is
 *    exact to round-off even where M = D + C W^-1 B holds entries of order 1/gmin.
 * Factorisations live in a least-recently-used cache of NSC_MODE_CACHE modes (NSC_MODE_CACHE_BIG
 * for a large pattern); a
 * new mode with the same N-active set as the evicted one reuses its pattern, its
 * symbolic analysis and its numeric storage (klu_refactor, no allocation), with a
 * pivoting refactorisation when the old pivot order has become poor.
 *
 * A step first tries the previous step's mode: accepted when l_a >= 0 and y >= 0
 * on the other pairs (tolerances relative to the size of the terms); a rejected
 * mode is corrected by primal-dual active-set iterations (semismooth Newton on
 * min(l, y) = 0: drop pairs with l < 0, add pairs with y < 0), each a sparse
 * solve; without a previous mode (solver auto) the iteration starts from every
 * pair open. Otherwise, for m <= NSC_DENSE_MMAX, the dense LCP
 * M l + q >= 0 _|_ l >= 0,  M = D + C W^-1 B,  q = C W^-1 r + e1  is solved by
 * pivoting (M and W^-1 B formed once per problem, when first needed) and its
 * solution re-solved exactly in its own mode, or the nearest mode the active-set
 * iteration reaches from it (formulation.md §3, §4: no 1/gmin in the accepted
 * solution). For larger m no dense m-by-m or n-by-m matrix is ever formed: the
 * pairs the active-set iteration could not settle form a small block F, the
 * others are frozen in their mode, and LCP(M_FF, q_F) (Lemke) is built from
 * |F| sparse solves; the block grows by the violated pairs until a mode holds.
 *
 * Memory: O(nnz) for the sparse matrices and their factorisations, O(n + m)
 * work vectors; dense matrices only for m <= NSC_DENSE_MMAX or a block F. */
#ifndef NSC_ONESTEP_H
#define NSC_ONESTEP_H

#include <stdint.h>

#include "lcp.h"
#include "lcs/lcs.h"
#include "base/la_klu.h"

typedef enum nsc_solver { NSC_SOLVER_AUTO, NSC_SOLVER_LEMKE, NSC_SOLVER_ENUM } nsc_solver;
/* "auto", "lemke", "enum" -> solver; -1 if unknown. */
int nsc_solver_parse(const char *name);

typedef struct nsc_onestep nsc_onestep; /* opaque: its fields are onestep_int.h's */

/* What the steppers read of a problem: its step, theta, switch states, the
 * pairs a failed solve marks (q[j] < 0: pair j wanted to switch; m entries,
 * valid after a failure; NULL: none marked), the mode systems factored and
 * found in its cache. */
double nsc_onestep_h(const nsc_onestep *P);
double nsc_onestep_theta(const nsc_onestep *P);
const char *nsc_onestep_sw(const nsc_onestep *P); /* [L->nsw] the switch states it was built for */
const double *nsc_onestep_violated(const nsc_onestep *P);
long nsc_onestep_nfactor(const nsc_onestep *P);
long nsc_onestep_ncached(const nsc_onestep *P);
/* The pairs whose l the last nsc_onestep_step on P may have changed: their
 * count, with *list[0..count-1] their indices (valid until the next call on P),
 * or -1 when any pair's may have (then *list is NULL). A step accepted by the
 * incremental check of a large problem lists what it evaluated, so that a
 * caller's per-step bookkeeping over l costs what the step's own check did. */
int nsc_onestep_changed(const nsc_onestep *P, const int **list);

typedef struct nsc_step_info {
    int mode_hit;    /* 1 when the previous step's mode solved this one (no pivoting) */
    int active_set;  /* modes changed by the active-set iteration (from the previous mode or
                          from the pivoting result) before one was accepted */
    int lcp_solved;  /* 1 when an LCP was solved by pivoting (dense or block) */
    int polished;    /* 1 when the pivoting result was refined by its mode's sparse system */
    int iter;        /* pivots */
    double residual; /* ||min(l, y)||_inf of the accepted solution */
    nsc_lcp_status st;
} nsc_step_info;

/* How a one-step problem is built (nsc_onestep_new). Only h and theta must be
 * set; every other field's zero is the plain problem.
 * - sw: the switches of L in states sw[L->nsw] (1 = on; NULL: all off): A is
 *   replaced by A + sum over on switches of their conductance change, in W and R.
 * - theta_alg: the theta of the algebraic rows (0: 1, formulation.md §2: the
 *   rows hold at t_k+1). The adaptive transient passes theta: with the algebraic
 *   rows at 1, a pair's current reaching a capacitor through an algebraic node
 *   (a bridge's load) is taken at t_k+1, which makes the scheme first order (the
 *   bridge's v(a,b): 5.8e-4 of range at h = 1 us, 5.8e-3 at 10 us); at theta it
 *   is the trapezoidal mean, second order (1.7e-5 at 1 us). Ringing needs an
 *   inconsistent start, and the adaptive stepper starts every segment with an
 *   implicit-Euler step (theta = theta_alg = 1).
 * - like: a problem of L (or NULL) whose pairs' pattern structures are copied
 *   where they are the same (onestep_mode.h nsc_mode_like) instead of
 *   recomputed: the problem built is the same, bit for bit. Ignored with mean
 *   or when like was built with mean (their D is scaled).
 * - mean: each pair whose multiplier enters theta rows only is held at the
 *   theta point: theta y(t_k+1) + (1 - theta) y(t_k) >= 0 _|_ l >= 0, y = C z +
 *   D l + e with the step's l in both. With the algebraic rows at theta (the
 *   adaptive transient) l is the step's mean, and a condition at t_k+1 puts a
 *   diode's RON l half a step late (its v = -RON i lags by RON |di/dt| h / 2: a
 *   buck's mean v(out) 3.6e-5 low at a 50 ns ceiling, first order in the step);
 *   held at the theta point, the condition and the rows it feeds are one
 *   trapezoidal rule (second order). Pairs on an exact row (a comparator's
 *   output) and implicit-Euler steps (every Theta_ii = 1) hold at t_k+1 as
 *   before. Only nsc_onestep_step's path (the sources' values w0, w1) reads the
 *   start's part of such a pair; nsc_onestep_solve's given e1 is the condition's
 *   whole e. No affine maps, no incremental check. */
typedef struct nsc_onestep_opts {
    double h;                /* the step (0: the static problem) */
    double theta;            /* theta of the differential rows */
    double theta_alg;        /* theta of the algebraic rows (0: 1) */
    const char *sw;          /* [L->nsw] switch states, or NULL: all off */
    const nsc_onestep *like; /* a problem to copy the pattern structures from, or NULL */
    int mean;                /* 1: pairs held at the theta point */
} nsc_onestep_opts;

/* Build the problem of L with the options o into *out. Errors (singular W,
 * ENOMEM) in r. */
nsc_status nsc_onestep_new(const nsc_lcs *L, const nsc_onestep_opts *o, nsc_onestep **out,
                           nsc_report *r);
/* kap_j = (1 - theta_j) / theta_j of each pair (> 0: held at the theta point,
 * nsc_onestep_opts.mean), or NULL when every pair holds at t_k+1. */
const double *nsc_onestep_kappa(const nsc_onestep *P);
/* The solution with every pair open (l = 0): z1 = W^-1 r, same arguments as
 * nsc_onestep_solve. 0 ok, -1 on failure. */
int nsc_onestep_open(nsc_onestep *P, const double *z0, const double *s0, const double *s1,
                     double *z1);
/* Take the mode guess (active set of the last solved step) of another problem of
 * the same LCS (a different h or switch state), so that switching problems does
 * not cost a pivoting solve. */
void nsc_onestep_take_mode(nsc_onestep *P, const nsc_onestep *from);
/* The mode guess of the next step (m flags, 1 = active; NULL: none, a cold
 * start), e.g. the mode accepted at t_k after a rejected trial step; the next
 * call's l is not assumed to be what the last call on P returned. */
void nsc_onestep_set_mode(nsc_onestep *P, const char *mode);
/* A second guess for the next steps (m flags; NULL: none), tried by the
 * active-set iteration when the first (the last mode) fails, before pivoting:
 * e.g. the mode found after an event by the trial that bracketed it, for the
 * shorter trials that locate it. The caller keeps the array alive while set. */
void nsc_onestep_set_alt(nsc_onestep *P, const char *mode);
/* 1: the next steps fail (info st NSC_LCP_MAXITER) where the active-set
 * iteration from the guesses fails, instead of pivoting: for a caller that
 * can retry a shorter step, which changes fewer pairs, where pivoting costs
 * more (a dense m x m Lemke on a large m: 50 ms at m = 300). */
void nsc_onestep_set_nopivot(nsc_onestep *P, int on);
void nsc_onestep_free(nsc_onestep *P);
/* P (a transient problem, h > 0) made in place the problem of step h, same
 * theta and switch states: W and R take their new values on the same patterns,
 * the mode cache and the mode guess are dropped, W is refactored on its
 * analysis; afterwards P computes bit for bit what a new problem of h would.
 * No rebuild of the pair structures, no new analysis. 0 ok; -1 when a pattern
 * differs, out of memory or W singular: P is then unusable (free it and build
 * the problem anew, which reports why). */
int nsc_onestep_renew(nsc_onestep *P, double h);
/* The active set (m flags, 1 = active) of the last step P accepted; NULL before any. */
const char *nsc_onestep_mode(const nsc_onestep *P);
/* Its key (the mode cache's hash of the flags, the same in every problem of P's
 * LCS), kept where known (hashed, O(m), where not); 0 before any step. */
uint64_t nsc_onestep_mode_key(nsc_onestep *P);
/* nsc_onestep_set_mode with the key of mode (nsc_onestep_mode_key of the
 * problem whose mode it is): the next step looks that mode up without hashing. */
void nsc_onestep_set_mode_key(nsc_onestep *P, const char *mode, uint64_t key);
/* The static solution (h = 0) of P in the given mode (m flags, e.g. from
 * nsc_onestep_mode of a problem of an LCS of the same layout), without pivoting:
 * 0 when that mode's system is nonsingular and its solution complementary (z[n],
 * l[m] set), -1 otherwise (z, l overwritten). */
int nsc_onestep_solve_mode(nsc_onestep *P, const char *mode, const double *s, const double *e,
                           double *z, double *l);
/* One step: z0 (NULL when h = 0), s0/s1 = s(t_k)/s(t_k+1), e1 = e(t_k+1) ->
 * z1[n], l[m]. Returns 0, or -1 when the LCP solver failed (info says why);
 * l is overwritten in both cases. */
int nsc_onestep_solve(nsc_onestep *P, nsc_solver solver, const double *z0, const double *s0,
                      const double *s1, const double *e1, double *z1, double *l,
                      nsc_step_info *info);
/* The same from the source values w0 = w(t_k), w1 = w(t_k+1) (L->nsrc each;
 * s = s0 + Ss w, e = e0 + Se w as in lcs.h): the transient's step, which never
 * forms s or e as vectors. h > 0. l must hold what the previous call on P
 * returned in it (the transient passes the same array every step) unless
 * nsc_onestep_take_mode was called since: large problems evaluate only the
 * pairs whose inputs changed. */
int nsc_onestep_step(nsc_onestep *P, nsc_solver solver, const double *z0, const double *w0,
                     const double *w1, double *z1, double *l, nsc_step_info *info);

/* The affine map of one step of P (h > 0) in the active set mask (m flags),
 * for the exact flow of a mode (solve/flow.c): G, (n + m) x (n + 2 nsrc + 1)
 * column-major, on u = [z0; w0; w1; 1]: rows 0..n-1 give z1, row n + i pair i's
 * l_i (active and not separable) or g_i = C_i z1 + D_i l + e_i (the others; an
 * active separable pair's l_i = -g_i dinv[i]). dinv (NULL or [m]): 1 / D_ii of
 * the separable pairs, 0 elsewhere. 0 ok, 1 the mode is singular, -1 failure. */
int nsc_onestep_affine(nsc_onestep *P, const char *mask, double *G, double *dinv);

/* The sensitivity of the last accepted step of P to its start (mode and step
 * size frozen): each column dz0 of S (n x ncol, column-major) becomes
 * dz1 = dz1/dz0 dz0 in place. The monodromy matrix of a period is the product
 * over its steps (stepper_pss.c). With DW0, DW1 (L->nsrc x ncol each,
 * column-major; NULL: none) column k also carries a perturbation of the
 * sources, dw(t_k) = DW0[:, k] and dw(t_k+1) = DW1[:, k]:
 * dz1 = [I 0] K_a^-1 ([R dz0; 0] + rhs_a(dw) - rhs_a(0)), the step's response
 * to both (the periodic AC, pac.c). The same holds for the saltations below,
 * whose instant then moves with the sources too (a comparator's input).
 * 0, or -1 when P has no accepted mode or h = 0. */
int nsc_onestep_sens(nsc_onestep *P, double *S, int ncol, const double *DW0, const double *DW1);

/* The same for a step that took an event: the mode changed from `from` (the
 * active set at its start) to the accepted one because a pair's phi (l_j of an
 * active pair, y_j of an inactive one, in mode `from`) fell through zero inside
 * it. The step's length is then a function of its start, h(z0), fixed by
 * phi(z1_from(z0, h)) = 0, and the period's later steps start where it ends;
 * differentiating (onestep.c, "the saltation of an event step"),
 *     S+ = S_b + (f_a - f_b) dh/dz0,   dh/dz0 = -(phi' S_a) / (phi' f_a),
 * with S_a, S_b the step's frozen sensitivities in the old and new mode, f_a,
 * f_b = d z1 / d h in each, phi' the guard's gradient: the discrete form of the
 * saltation matrix S+ = S- + (f+ - f-) (grad g . S-) / (grad g . f-). The guard
 * is, among the pairs cand[ncand] (those whose mode changed), the first to fall
 * through zero in the old mode. Needs theta = 1 (the located event's step is
 * implicit Euler, stepper_adapt.c). z0, w0, w1: the step's start and sources.
 * 0 (S updated), 1 when it does not apply (theta != 1, no guard falls, same
 * mode: S untouched, use nsc_onestep_sens), -1 on failure (S undefined). */
int nsc_onestep_sens_event(nsc_onestep *P, const char *from, const double *z0, const double *w0,
                           const double *w1, double *S, int ncol, const double *DW0,
                           const double *DW1);
/* The same for a step of P at whose end a switch flips, its control u = z_c -
 * z_d (c, d: -1 for ground) crossing its threshold inside it: the step is in
 * the old switch states (P), the next ones in the new (Pn: the same LCS and
 * step, theta = 1, the new states); P in its accepted active set, Pn in the
 * active set of its own step from z0 (solved here: the set the steps after
 * the flip take, a freewheeling diode on where the switch opened; P's set
 * left the inductor to ROFF, and the periodic AC of a buck 32 dB high),
 *     S+ = S_o + (f_o - f_n) dh/dz0,   dh/dz0 = -(du S_o) / (du f_o),
 * f_o = dz1/dh of P's step (theta f(z1) + (1 - theta) f(z0), both in the old
 * states), f_n that of Pn's (implicit Euler: f(z1) in the new states).
 * 0 (S updated), 1 when u does not move over the step (S untouched), -1 on
 * failure. */
int nsc_onestep_sens_flip(nsc_onestep *P, nsc_onestep *Pn, int c, int d, const double *z0,
                          const double *w0, const double *w1, double *S, int ncol,
                          const double *DW0, const double *DW1);
/* The same for a step of P that took an event (its pairs' mode changed from
 * `from` to the accepted one, a guard pair falling through zero inside it, as
 * for nsc_onestep_sens_event) at whose end a switch flips because of it (a
 * B-source or E TABLE comparator whose output is the switch's control: the
 * control jumps, its own sensitivity is 0, and the instant is the guard's):
 *     S+ = S_b + (f_a - f_n) dh/dz0,   dh/dz0 = -(phi' S_a) / (phi' f_a),
 * S_a, S_b the step's sensitivities in the old and the accepted mode (P), f_a
 * = dz1/dh in the old mode, f_n that of Pn (the new switch states, the active
 * set of its own step from z0, as in nsc_onestep_sens_flip). Needs theta = 1.
 * 0 (S updated), 1 when it does not apply (theta != 1, the same mode, no
 * guard falls: S untouched), -1 on failure. */
int nsc_onestep_sens_event_flip(nsc_onestep *P, nsc_onestep *Pn, const char *from, const double *z0,
                                const double *w0, const double *w1, double *S, int ncol,
                                const double *DW0, const double *DW1);

#endif
