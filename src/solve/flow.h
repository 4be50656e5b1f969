/* flow.h -- the exact flow of an LCS in one mode (the exact transient,
 * analysis/stepper_exact.c).
 *
 * In a fixed mode (active set and switch states) the LCS is a linear DAE. Its
 * sources are taken, on each segment between their corners, as w_j = p_j + u_j
 * with u_j'' = -a_j u_j - b_j u_j' (DC, PULSE, PWL: a = b = 0 and u affine; SIN:
 * a = omega^2 + d^2, b = 2 d for the damping d; EXP: the roots -1/TAU1, -1/TAU2,
 * a = 1/(TAU1 TAU2), b = 1/TAU1 + 1/TAU2), so that the augmented state
 *     x = [z (n); p (nsrc); u (nsrc); v = u' (nsrc); 1]       (N = n + 3 nsrc + 1)
 * obeys a linear time-invariant system whose flow Phi(h) = e^{h J} on the
 * consistent states is built here:
 *   - one implicit-Euler step of size h0 in the mode (nsc_onestep_affine, the
 *     sources' 2 x 2 part exact) is x -> A(h0) x;
 *   - A(h0)^(2^i) by repeated squaring, i = 0..K, and the same from h0 / 2;
 *   - Richardson: Phi(2^i h0) = 2 A(h0/2)^(2^(i+1)) - A(h0)^(2^i), error O(h0^2)
 *     (implicit Euler's global error is c(t) h0 + O(h0^2)).
 * Implicit Euler leaves every algebraic part of a state consistent after each
 * substep (its factor for an infinitely fast mode is 0) and damps stiff modes
 * (L-stable), so the maps act on the consistent states as the flow does. A step
 * of k h0 is the product of the Phi(2^i h0) over the bits of k. The pair
 * quantities at a state (the mode's guards) come from the same implicit-Euler
 * step of h0: their values a substep ahead (error O(h0)); a shorter step would
 * amplify the state's round-off by C / h in an active pair's current (the
 * difference quotient of a capacitor's voltage). */
#ifndef NSC_FLOW_H
#define NSC_FLOW_H

#include "onestep.h"

typedef struct nsc_flow {
    int n, m, nsrc, N, K;
    double h0;
    double *phi;  /* [(K + 1) N na], column-major: level i the flow over 2^i h0 (columns act) */
    double *dinv; /* [m] 1 / D_ii of the separable pairs, else 0 */
    /* the pair rows (onestep.h nsc_onestep_affine) after h0 from x, m x N, kept as */
    int nu;      /* their distinct rows (without the constant column): */
    double *U;   /*   [nu nau] those rows (columns act[0..nau)), */
    int *umap;   /*   [m] pair i's row of U (nu: constant), */
    double *cst; /*   [m] and its constant (column N - 1) */
    /* Implicit Euler reads z0 only through E z0: the columns of phi and U of the
     * z components outside E's columns (node voltages, source and switch
     * currents: the algebraic part) are zero at every level (a column of A^2 is
     * A times that column of A), so both keep only the others, and the
     * squarings run on them (N na^2 each, not N^3): */
    int na, nau; /* columns kept: of phi (na), of U (nau; the same but N - 1) */
    int *act;    /* [na] the state components they multiply, ascending */
    double *xa;  /* [N] scratch: x gathered at act */
    /* Kept when asked (nsc_flow_build's keep_ie: the losses of the exact
     * transient, analysis/losses.h nsc_loss_basis): the implicit-Euler step
     * itself from x, over h0 (block 0) and h0 / 2 (block 1), each (n + m) x na
     * acting on x at act: rows 0..n-1 z1, row n + i pair i's (nsc_onestep_affine:
     * l_i of an active pair, g_i of the others; an active separable pair's
     * l_i = -g_i dinv_i). They satisfy the step's KCL rows exactly, which the
     * flow's points do only to O(h0^2). */
    double *ie; /* NULL, or [2 (n + m) na] */
} nsc_flow;

/* The 2 x 2 flow S (column-major) over h of u' = v, v' = -a u - b v. */
void nsc_flow_src(double a, double b, double h, double S[4]);

/* The flow of mode mask from the problems P0 (step h0) and P1 (h0 / 2), both
 * implicit Euler (theta 1 on every row) in the same switch states;
 * sa, sb [nsrc] the sources' coefficients (above), K the levels. *out: the flow.
 * 0, 1 when the mode's system is singular, -1 on failure (memory, a solve). */
int nsc_flow_build(nsc_onestep *P0, nsc_onestep *P1, const char *mask, const double *sa,
                   const double *sb, int K, int keep_ie, nsc_flow **out);
void nsc_flow_free(nsc_flow *F);

/* y[n + m] = the implicit-Euler step from x over h0 (half 0) or h0 / 2 (half
 * 1) as kept (ie above): z1, then the pair rows. F built with keep_ie. */
void nsc_flow_ie(const nsc_flow *F, int half, const double *x, double *y);

/* y = Phi(k h0) x, k >= 0; x and y [N] may be the same; work [N]. */
void nsc_flow_advance(const nsc_flow *F, long k, const double *x, double *y, double *work);

/* The pair rows at the state x into g[m] (nsc_onestep_affine's rows n..n+m-1); work [m + 1]. */
void nsc_flow_pairs(const nsc_flow *F, const double *x, double *g, double *work);
/* The same in two parts: the distinct rows w[nu + 1] = U x (w[nu] = 0), then
 * g_i = w[umap_i] + cst_i one (one = x[N - 1], 1). */
void nsc_flow_rows(const nsc_flow *F, const double *x, double *w);
void nsc_flow_expand(const nsc_flow *F, const double *w, double one, double *g);


#endif
