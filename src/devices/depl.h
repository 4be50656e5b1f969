/* depl.h -- charges of a device's junction or gate as code (base/xcode.h) of
 * their voltage: the depletion charge of a pn junction (SPICE's CJO VJ M FC;
 * a diode's CJO, dev_d.c, and a VDMOS body diode's, netlist/nl_qcap.c) and a
 * VDMOS's gate-drain charge (CGDMIN CGDMAX A; devices/cards_expand.c). */
#ifndef NSC_DEPL_H
#define NSC_DEPL_H

#include "base/xcode.h"

/* The most instructions nsc_depl_code writes. */
#define NSC_DEPL_MAXCODE 80

/* q(v), v = PROBE pa - PROBE pk (-1: ground, 0 V), into out[0 .. n), n returned:
 *   v < FC VJ:  CJO VJ/(1 - M) (1 - (1 - v/VJ)^(1-M)),
 *   above:      CJO (F1 + (F3 (v - FC VJ) + M/(2 VJ) (v^2 - (FC VJ)^2)) / F2),
 *   F1 = VJ/(1 - M) (1 - (1 - FC)^(1-M)), F2 = (1 - FC)^(1+M), F3 = 1 - FC (1 + M):
 * the integral of SPICE's C(v) = CJO (1 - v/VJ)^-M and its linear extension
 * above FC VJ (C^1 where they meet; 0 < VJ, 0 <= M < 1, 0 <= FC < 1). out has
 * room for NSC_DEPL_MAXCODE. */
int nsc_depl_code(nsc_xinstr *out, int pa, int pk, double cjo, double vj, double m, double fc);

/* The gate-drain charge of a VDMOS (ngspice 39's, after LTspice's), v = PROBE pa
 * - PROBE pk the gate-drain voltage (p-scaled), into out[0 .. n), n returned:
 * its capacitance C(v) = Y + S tanh(A v) (v > 0), Y + S atan(A v) (v <= 0),
 * S = (CGDMAX - CGDMIN)/(1 + pi/2), Y = CGDMAX - S (CGDMIN as v -> -inf,
 * CGDMAX as v -> +inf; C^2 at 0), integrated from 0:
 *   v > 0:   q = Y v + S/A ln(cosh(A v)) = Y v + S/A (x + ln(1 + e^-2x) - ln 2), x = A v,
 *   v <= 0:  q = Y v + S (v atan(A v) - ln(1 + A^2 v^2)/(2 A))
 * (ngspice integrates the capacitance between the steps' voltages instead: the
 * same waveform as the step goes to 0). CGDMIN, CGDMAX >= 0, A > 0. */
int nsc_cgd_code(nsc_xinstr *out, int pa, int pk, double cmin, double cmax, double a);

#endif
