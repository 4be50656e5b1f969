/* opcheck.c -- the checks that a static solution is one (stepper_int.h
 * nsc_op_solution_check): the piecewise-linear problem's own conditions, and the
 * no-gain property of the circuit.
 *
 * 1. The pairs: y = C z + D lambda + e >= 0 beside lambda >= 0, y lambda = 0,
 * each within NSC_OPCHECK_TOL of the row's terms. A continuation that carries a
 * mode from one problem to the next (gmin stepping) or a pivoting run that
 * ends on rounding can return a point that solves the mode's linear equations
 * but not the complementarity problem (a junction taken as off while 21 V
 * forward: an LM741-like op-amp's node at -16.5 V on -15 V rails).
 *
 * 2. The no-gain property (Wolaver 1980, "Proof in graph theory of the no-gain
 * property of transistor circuits"): in a DC circuit of voltage sources and
 * elements each of which takes current in at its highest terminal and gives it
 * out at its lowest, every node voltage lies between the lowest and the highest
 * voltage of the sources' terminals. Proof sketch: let S be the nodes at the
 * highest voltage V*, none a source terminal nor ground. Each element touching
 * S has its highest terminal in S and takes a current >= 0 from it; KCL over S
 * sums them to 0, so each is 0: no resistor leaves S, so S is a whole
 * resistor-connected component, and the one gmin that lcs_asm.c places in each
 * floating component carries gmin V* = 0, so V* = 0. Resistors, switches (a
 * positive resistance in either state), junction diodes (no current below
 * VF > 0, then increasing), capacitors (open), inductors and their couplings
 * (shorts), current sources of 0 A have it; so has the bipolar transistor of
 * dev_q.c (transport Ebers-Moll) as long as its BC junction conducts no less
 * than its BE junction at a like voltage: its fits are made apart (and NR may
 * differ from NF), so in saturation its collector can lie below its emitter
 * (NPN) by up to about a junction's forward drop: NSC_NOGAIN_MARGIN. The .ic
 * nodes the operating point holds (lcs_asm.c hold_ic_nodes) count as source
 * terminals. A circuit with any other element (controlled sources, MOS, JFET,
 * gates, B sources, a current source that drives, a capacitor or inductor whose
 * IC= the operating point holds: a source) is not checked. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "stepper_int.h"

/* 1 when element e keeps the no-gain property at a DC solution (above). */
static int nogain_element(const nsc_element *e)
{
    switch (e->kind) {
    case NSC_EL_C:
    case NSC_EL_L:
    case NSC_EL_CQ: return !e->has_ic; /* IC= held at the operating point: a source */
    case NSC_EL_R:
    case NSC_EL_K:
    case NSC_EL_V:
    case NSC_EL_D:
    case NSC_EL_Q:
    case NSC_EL_S:
    case NSC_EL_W: return 1;
    case NSC_EL_I: return e->wave.kind == NSC_WAVE_DC && e->wave.dc == 0.0;
    default: return 0;
    }
}

/* [*lo, *hi] widened to v(nd) (z holds v(node k) at k - 1, lcs_asm.c; ground 0). */
static void widen(const double *z, int nd, double *lo, double *hi)
{
    double v = nd > 0 ? z[nd - 1] : 0.0;
    *lo = fmin(*lo, v);
    *hi = fmax(*hi, v);
}

static nsc_status nogain_check(const nsc_circuit *c, const double *z, nsc_report *r)
{
    for (int e = 0; e < c->nel; e++)
        if (!nogain_element(&c->el[e])) return NSC_OK;
    double lo = 0.0, hi = 0.0; /* ground: 0 V */
    for (int e = 0; e < c->nel; e++)
        for (int j = 0; c->el[e].kind == NSC_EL_V && j < 2; j++)
            widen(z, c->el[e].node[j], &lo, &hi);
    for (int k = 0; k < c->nic; k++) widen(z, c->ic_node[k], &lo, &hi);
    double worst = NSC_NOGAIN_MARGIN + NSC_OPCHECK_TOL * (hi - lo);
    int bad = 0;
    for (int nd = 1; nd < c->nnode; nd++) {
        double v = z[nd - 1], out = fmax(v - hi, lo - v);
        if (!(out <= worst)) { /* NaN: bad too */
            worst = out;
            bad = nd;
        }
    }
    if (!bad) return NSC_OK;
    const nsc_loc *at = c->node_loc && c->node_loc[bad].line > 0 ? &c->node_loc[bad] : NULL;
    return nsc_err(
        r, NSC_ESIM, at,
        "no consistent operating point: the solution found puts node '%s' at %.6g V, "
        "outside the %.6g..%.6g V of the voltage sources' terminals (by more than a junction's %g V), "
        "where no DC solution of a circuit of sources, resistors, switches, junctions and bipolar "
        "transistors can lie (the piecewise-linear problem has several solutions and the search "
        "ended on a spurious one)",
        c->node_name[bad], z[bad - 1], lo, hi, NSC_NOGAIN_MARGIN);
}

nsc_status nsc_op_solution_check(const nsc_lcs *L, const nsc_circuit *c, const double *z,
                                 const double *l, const double *e, nsc_report *r)
{
    nsc_status st = nogain_check(c, z, r);
    if (st || L->m == 0) return st;
    double *y = malloc(2 * (size_t)L->m * sizeof(double));
    if (!y) return nsc_oom(r);
    int j = nsc_lcs_worst_pair(L, z, l, NULL, e, NSC_OPCHECK_TOL, 1e-12, y,
                               y + L->m); /* (1 above) */
    if (j >= 0) {
        const nsc_element *el = &c->el[L->pair_el[j]];
        st = nsc_err(
            r, NSC_ESIM, &el->loc,
            "no consistent operating point: the solution found breaks the "
            "complementarity condition of %s's pair %s (y = %.6g with lambda = %.6g; y >= 0, lambda >= 0, "
            "one of them 0)",
            el->name, L->pair_name[j], y[j], l[j]);
    }
    free(y);
    return st;
}
