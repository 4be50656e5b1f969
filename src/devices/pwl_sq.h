/* pwl_sq.h -- the curve fit of the MOS square law (pwl_sq.c), used by dev_m.c. */
#ifndef NSC_PWL_SQ_H
#define NSC_PWL_SQ_H

#include "circuit/circuit.h"

/* ---- the PWL approximation of max(0, x)^2 (pwl_sq.c, used by dev_m.c) ----
 *
 * f(x) = sum_{j < nb} a[j] max(0, x - b[j]) (a[j] > 0: convex; nb = nseg - 1 pairs).
 * nseg = 0: the design documents' 6-segment table (formulation.md §1). nseg in
 * [3, NSC_PWL_MAXSEG]: b[0] = 0, b[j] = 0.1 rho^(j-1) (j = 1..nseg-2), f interpolating
 * (1 - eps) x^2 at b[1..] and at X = 0.1 rho^(nseg-2), f(0) = 0, the last slope
 * continued beyond X; rho = (X/0.1)^(1/(nseg-2)) with X = 0.1 rho6^4 = 3.8241 V (rho6 the
 * ratio of the default table), and eps from (1 + eps)/(1 - eps) = (1 + rho)^2/(4 rho),
 * which makes the relative error equioscillate: |f(x) - x^2| <= eps x^2 on [0.1, X].
 * On [0, 0.1], |f - x^2| <= max((0.1 (1 - eps))^2/4, 0.01 eps) (2.03e-3 for the
 * default); f = 0 for x <= 0; beyond X the error grows (12.4 % at 4 V by default).
 * nseg = 6 gives the default table (eps = 0.1) within 0.05 % (b) and 0.2 % (slopes). */
#define NSC_PWL_MAXSEG 64
#define NSC_PWL_X0 0.1 /* first positive breakpoint (V) */
/* Fill b[nseg-1], a[nseg-1] (arrays of NSC_PWL_MAXSEG); *eps (may be NULL) the
 * relative error bound on [0.1, X] (0.1 for the default). Returns nb, -1 if nseg invalid. */
int nsc_pwl_sq(int nseg, double *b, double *a, double *eps);
/* The MOS fit (dev_m.c): f convex, interpolating x^2 (f >= x^2) at 0, on a
 * background grid 0.1 rho^k up to max(X, the anchors (1 + 2 NSC_PWL_ANCH)) (nseg 0:
 * the fewest points with f <= 1.1 x^2 on [0.1, X]; else nseg segments, 3..NSC_PWL_MAXSEG),
 * refined around each anchor a (an overdrive the circuit applies: a gate drive) by a
 * segment of slope 2a centred on a and a ladder below it, so that the triode
 * current K/2 (f(a) - f(a - v)) is within about NSC_PWL_ANCH/2 of K/2 (a^2 - (a - v)^2)
 * for v << a (pwl_sq.c). Returns nb (b, a as nsc_pwl_sq), -1 for a bad nseg, -2
 * when the points exceed NSC_PWL_MAXSEG - 1 (fewer anchors then); *eps the
 * background's relative bound (rho - 1)^2/(4 rho), and at least 0.1 with anchors:
 * below the lowest anchor's ladder f equioscillates, |f - x^2| <= 0.1 x^2 on
 * [0.1, L] (f interpolates (1 - 0.1) x^2 there, as the design table; pwl_sq.c low_fill). */
#define NSC_PWL_ANCH 0.02
int nsc_pwl_sq_fit(int nseg, double X, const double *anch, int nanch, double *b, double *a,
                   double *eps);
/* Element ei's (an M) fit, bound to c: b, a (NSC_PWL_MAXSEG each), its anchors
 * (M_MAXANCH = 8; may be NULL) and their number; returns nb, -1 when ei is no
 * bound MOS transistor. Gate drives: the levels of the independent voltage
 * sources (dev_m.c m_fit); SEGMENTS=n on the card: n segments, no anchors. */
int nsc_mos_fit(const nsc_circuit *c, int ei, double *b, double *a, double *anch, int *nanch);
/* f(x) of such a table. */
double nsc_pwl_eval(int nb, const double *b, const double *a, double x);

#endif
