/* onestep_nl.h -- internal: the Newton iteration of a one-step problem whose
 * LCS has smooth functions (lcs.h nsc_smooth), and the linear solves it
 * repeats. Used by onestep.c only (nsc_onestep_solve and nsc_onestep_step
 * hand a problem with L->nsm > 0 to these; one without never comes here). */
#ifndef NSC_ONESTEP_NL_H
#define NSC_ONESTEP_NL_H

#include "onestep_int.h"

/* Relative and absolute tolerances of an unknown, the iteration limit (linear
 * solves): an unknown's tolerance is
 *   tol_i = NSC_NL_RTOL |z_i| + (NSC_NL_ATOL_V on node voltages, NSC_NL_ATOL_I on
 *   branch currents and the smooth functions' own unknowns),
 * and the solution z_k+1 of the problem linearised at z_k is converged when
 * every smooth function's tangent at z_k is within NSC_NL_KAPPA (NSC_NL_RTOL
 * |f| + sum_q |df/dz_q| tol_q) of f at z_k+1 (onestep_nl.c at_solution). */
#define NSC_NL_RTOL 1e-9
#define NSC_NL_ATOL_V 1e-9
#define NSC_NL_ATOL_I 1e-12
#define NSC_NL_MAXIT 50
#define NSC_NL_KAPPA 1e-3
/* The chord (modified Newton, onestep_nl.c chord_ok): an iteration keeps the
 * slopes of the problem's last relinearisation -- and W, its factors and every
 * cached mode system with them: no refill, no refactorisation -- when each
 * slope just linearised is within NSC_NL_CHORD of its function's largest
 * slope of the one W holds, and fewer than NSC_NL_CHORD_RUN solves in a row
 * were chords (a chord's error contracts by about the slopes' relative
 * change a solve, 1e-3; a full Newton step follows at the latest after
 * NSC_NL_CHORD_RUN). Measured on tests/data/meyer/chain.cir to 1.5 ns and a
 * 15-inverter cascade with TOX (bench/README.md): 1e-3 against 3e-4 and 3e-3,
 * runs of 1, 2 and 3, the fewest instructions at 1e-3 and 2. */
#define NSC_NL_CHORD 1e-3
#define NSC_NL_CHORD_RUN 2
/* A static problem's Newton moves the node voltages that smooth functions read
 * by at most this much an iteration (onestep_nl.c newton()), V. */
#define NSC_NL_DVMAX 1.0

/* The linear one-step solves of onestep.c (onestep.h nsc_onestep_solve and
 * nsc_onestep_step, without the Newton iteration): the LCS as it stands, its
 * smooth rows holding the last linearisation. */
int nsc_onestep_solve_lin(nsc_onestep *P, nsc_solver solver, const double *z0, const double *s0,
                          const double *s1, const double *e1, double *z1, double *l,
                          nsc_step_info *info);
int nsc_onestep_step_lin(nsc_onestep *P, nsc_solver solver, const double *z0, const double *w0,
                         const double *w1, double *z1, double *l, nsc_step_info *info);

/* The same problems solved by Newton on the smooth functions: linearise at
 * z_k (z_0: the step's start z0, or for a static problem the LCS's last
 * iterate), solve the linear complementarity problem exactly, repeat until
 * the smooth rows' residual is within the tolerances. Returns as the linear
 * solves do; a solve that does not converge in NSC_NL_MAXIT iterations (or meets a NaN or
 * inf) fails with info->st = NSC_LCP_NEWTON. Counts into L->nls. */
int nsc_nl_solve(nsc_onestep *P, nsc_solver solver, const double *z0, const double *s0,
                 const double *s1, const double *e1, double *z1, double *l, nsc_step_info *info);
int nsc_nl_step(nsc_onestep *P, nsc_solver solver, const double *z0, const double *w0,
                const double *w1, double *z1, double *l, nsc_step_info *info);

#endif
