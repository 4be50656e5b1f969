/* depl.h -- the depletion charge of a pn junction (SPICE's CJO VJ M FC) as
 * code (base/xcode.h) of its voltage: the charge of a diode's CJO (dev_d.c)
 * and of a VDMOS body diode's (netlist/nl_qcap.c nle_cq_depletion). */
#ifndef NSC_DEPL_H
#define NSC_DEPL_H

#include "base/xcode.h"

/* The most instructions nsc_depl_code writes. */
#define NSC_DEPL_MAXCODE 64

/* q(v), v = PROBE pa - PROBE pk (-1: ground, 0 V), into out[0 .. n), n returned:
 *   v < FC VJ:  CJO VJ/(1 - M) (1 - (1 - v/VJ)^(1-M)),
 *   above:      CJO (F1 + (F3 (v - FC VJ) + M/(2 VJ) (v^2 - (FC VJ)^2)) / F2),
 *   F1 = VJ/(1 - M) (1 - (1 - FC)^(1-M)), F2 = (1 - FC)^(1+M), F3 = 1 - FC (1 + M):
 * the integral of SPICE's C(v) = CJO (1 - v/VJ)^-M and its linear extension
 * above FC VJ (C^1 where they meet; 0 < VJ, 0 <= M < 1, 0 <= FC < 1). out has
 * room for NSC_DEPL_MAXCODE. */
int nsc_depl_code(nsc_xinstr *out, int pa, int pk, double cjo, double vj, double m, double fc);


#endif
