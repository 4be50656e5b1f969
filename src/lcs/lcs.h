/* lcs.h -- the circuit as a linear complementarity system (formulation.md §1):
 *
 *     E z' = A z + B lambda + s(t),      s(t) = s0 + Ss w(t)
 *     y    = C z + D lambda + e(t),      e(t) = e0 + Se w(t)
 *     0 <= y  _|_  lambda >= 0
 *
 * w(t) is the vector of independent-source waveform values, w_j(t) =
 * nsc_wave_eval(src[j].wave, t). Plain data: built by nsc_lcs_assemble()
 * (lcs_asm.c, one stamp per device file dev_*.c), consumed by the one-step
 * problem and the stepper. All matrices are CSC (nsc_sparse, nz == -1).
 *
 * Unknown layout: z[0..nnode_z-1] are the node voltages of circuit nodes
 * 1..nnode_z (ground removed: z[k-1] = v(node k)); z[nnode_z..n-1] are branch
 * currents (voltage sources, inductors, E/H outputs, ...), each owned by one
 * element. For the static modes (OP, UIC) the layout is the transient layout
 * of the same circuit followed by extra branches (e.g. capacitors imposed as
 * voltage sources), so z_tran = z_static[0..n_tran-1]. Pairs are identical in
 * every mode. */
#ifndef NSC_LCS_H
#define NSC_LCS_H

#include "circuit/circuit.h"
#include "base/sparse.h"

typedef enum nsc_asm_mode {
    NSC_ASM_TRAN, /* the dynamic LCS */
    NSC_ASM_OP,   /* static: 0 = A z + B l + s; capacitors open, inductors shorted,
                     .ic and IC= imposed (capacitor IC= and .ic as voltage sources,
                     inductor IC= as the branch current) */
    NSC_ASM_UIC   /* static, t = 0 with UIC: capacitors replaced by voltage sources
                     of their initial voltage (IC=, else from .ic node values, else 0),
                     inductors by current sources of IC= (else 0) */
} nsc_asm_mode;

/* A linear functional of the solution, for outputs and probes:
 *   value = sum_k coef[k] * term_k, term = z[idx] (NSC_T_Z), lambda[idx] (NSC_T_L),
 *   (z[idx] - z_prev[idx]) / h (NSC_T_DZ; 0 at t = 0), w_idx(t) (NSC_T_W),
 *   g_idx (v_a - v_k) of switch idx in its present state (NSC_T_SW, nsc_lin_eval_sw). */
typedef enum nsc_termkind { NSC_T_Z, NSC_T_L, NSC_T_DZ, NSC_T_W, NSC_T_SW } nsc_termkind;
typedef struct nsc_term {
    nsc_termkind kind;
    int idx;
    double coef;
} nsc_term;
typedef struct nsc_lin {
    int nterm;
    nsc_term *t; /* malloc'd */
} nsc_lin;

typedef struct nsc_src {
    const nsc_wave *wave; /* points into the circuit */
    int el;               /* owning element */
} nsc_src;

/* A switched conductance (S element): g = g_on or g_off between z[a] and z[k]
 * (-1: ground). A holds g_off; a switch in state 1 adds g_on - g_off (the one-step
 * problem is built per state vector, onestep.h). The state for the step
 * t_k -> t_k+1 is decided from u = z[c] - z[d] at t_k (netlist.md): on when
 * u > on_above, off when u < off_below, else unchanged (hysteresis); initially off. */
typedef struct nsc_switch {
    int el;             /* owning element */
    int a, k, c, d;     /* z indices, -1 for ground */
    double g_off, g_on; /* S */
    double on_above, off_below;
} nsc_switch;

/* A smooth function u = f(z) of the unknowns (a B source's nonlinear part,
 * circuit.h nsc_bsmooth): row `row` is 0 = -u + f(z[in[0]], .., z[in[nin-1]]),
 * u = z[row], an exact algebraic row (theta 1 in every scheme). A holds -1 at
 * (row, row) and the pattern (row, in[q]); the Newton iteration of the one-step
 * problem (solve/onestep_nl.c) writes there J_q = df/dz_in[q] at its iterate zk,
 * and s0[row] = f(zk) - J zk: A and s0 hold the linearisation at the last
 * iterate (at a converged operating point, the small-signal model).
 * f is expression code (a B source's, base/xcode.h) or, when fn is set, C
 * code: a device's closed form handed through this interface (the lcs stage
 * includes no device), fn(par, x, g) = f(x) with its gradient into g[nin]. */
typedef double (*nsc_smooth_fn)(const void *par, const double *x, double *g);
typedef struct nsc_smooth {
    int el, row, nin;
    int *in;                /* [nin] z indices, distinct (malloc'd) */
    int *apos;              /* [nin] where A(row, in[q]) is in A->x (in's block: freed with it) */
    const nsc_xinstr *code; /* points into the circuit's B program (NULL with fn) */
    int ncode, depth;       /* depth: nsc_xdepth of code */
    nsc_smooth_fn fn;       /* NULL: f is code */
    const void *par;        /* fn's parameters (the device's, living as long as the circuit) */
} nsc_smooth;

/* The Newton iterations of the one-step problems of an LCS (onestep_nl.c):
 * solves (one per one-step problem solved), iterations in all, failures (no
 * convergence), the most iterations one solve took. */
typedef struct nsc_nlstat {
    long solves, iters, fails;
    int maxit;
    double *z;   /* [n] the last converged iterate (zeros at first): where a static solve starts */
    double *zs;  /* [n] the start of the transient step z solved (onestep_nl.c's predictor) */
    double hs;   /* that step's size (0: z was a static solve's, or none yet) */
    long chords; /* iterations solved on the slopes of an earlier linearisation (chord) */
} nsc_nlstat;

typedef struct nsc_lcs {
    nsc_asm_mode mode;
    int n;             /* unknowns z */
    int m;             /* complementarity pairs */
    int nnode_z;       /* node-voltage unknowns (circuit nnode - 1) */
    nsc_sparse *E, *A; /* n x n */
    nsc_sparse *B;     /* n x m */
    nsc_sparse *C;     /* m x n */
    nsc_sparse *D;     /* m x m */
    double *s0;        /* [n] */
    double *e0;        /* [m] */
    int nsrc;
    nsc_src *src;   /* [nsrc] */
    nsc_sparse *Ss; /* n x nsrc */
    nsc_sparse *Se; /* m x nsrc */

    char **zname;             /* [n] "v(a)", "i(l1)", ... */
    int *z_el;                /* [n] owning element of a branch unknown, -1 for nodes */
    int *pair_el;             /* [m] element of each pair */
    char **pair_name;         /* [m] "d1", or "m1#3" for the 4th pair of m1 */
    int *el_branch;           /* [nel] first branch unknown of each element, -1 if none */
    int *el_pair;             /* [nel] first pair of each element, -1 if none */
    int nstepchk;             /* elements with pairs whose device has a step_check ... */
    int *stepchk;             /* [nstepchk] ... ascending (nsc_lcs_check_step) */
    unsigned char *z_exact;   /* [n] 1: a row that holds at t_k+1 under every theta: the
                               output row of a static PWL map (E TABLE, B), whose pairs'
                               conditions hold at t_k+1 (onestep.c row_theta) */
    unsigned char *pair_cont; /* [m] 1: the pair's mode change is a continuous kink (a PWL
                               MOS channel segment, a fitted junction's segment with a
                               series resistance): l and y are Lipschitz functions of z
                               and w across it, only the vector field's slope changes;
                               the transients need not locate it (stepper_adapt.c,
                               kink_ratio). 0: a switch-like change (an ideal diode, a
                               comparator's step) whose current or voltage jumps; 3 (bit
                               0 set too): a PWL MOS channel segment (stepper_adapt.c
                               restarts no implicit-Euler steps after it) */

    int ngmin; /* nodes that received gmin to ground (circuit node indices) */
    int *gmin_node;

    int nsw;        /* switched conductances (A holds their off state) */
    nsc_switch *sw; /* [nsw] */

    int nsm;         /* smooth functions (0: a linear complementarity system, no Newton) */
    nsc_smooth *sm;  /* [nsm] */
    int ncharge;     /* of them, those that define a differential unknown (a charge: a
                             column of E; dev_cq.c, depl.c) */
    nsc_nlstat *nls; /* their Newton counters (NULL when nsm = 0); written through const L */

    struct nsc_klu_syms *syms; /* the KLU analyses of the one-step problems of L, by
                                   pattern (solve/la_klu.h), shared by every problem and
                                   mode built from L; owned by L (NULL: none) */
} nsc_lcs;

/* Assemble the LCS of circuit c in the given mode. gmin (S) is added from each node
 * that has no path to ground through elements that make W (TRAN) or the static
 * matrix (OP/UIC) nonsingular, i.e. a node reached only through complementarity
 * devices (diodes, MOS channels, switches). A node with no path to ground at all
 * is an error naming it. Returns NSC_OK and *out, or an error in r. */
nsc_status nsc_lcs_assemble(const nsc_circuit *c, nsc_asm_mode mode, double gmin, nsc_lcs **out,
                            nsc_report *r);
/* The same with, besides, a conductance gall (S, > 0; 0: none) from every node to
 * ground (gmin stepping of the operating point, stepper.c): the same unknowns and
 * pairs as without it, A's node diagonal lowered by gall. */
nsc_status nsc_lcs_assemble_gall(const nsc_circuit *c, nsc_asm_mode mode, double gmin, double gall,
                                 nsc_lcs **out, nsc_report *r);
/* The same with gmin across each junction instead (ngspice's placement: a
 * BJT's BE and BC, a diode, a JFET's gate junctions, a MOSFET's bulk
 * junctions; lcs_asm.c junctions) and the one-per-component gmin only where a
 * floating component is left: the same unknowns and pairs. For a circuit whose
 * static solution exists only through gmin (a current source driven against
 * reverse junctions), whose answer then is ngspice's (stepper.c nsc_op_point). */
nsc_status nsc_lcs_assemble_jgmin(const nsc_circuit *c, nsc_asm_mode mode, double gmin,
                                  nsc_lcs **out, nsc_report *r);
void nsc_lcs_free(nsc_lcs *L);

/* Topology checks (lcs_topo.c), made by nsc_lcs_assemble before anything else:
 * every node has a DC path to ground through conducting elements (R, L, V, E, H,
 * E TABLE, D, MOS channel, S; not C, I, G, F). Errors name the node, at its card.
 * Loops of capacitors with voltage sources and cut-sets of inductors with current
 * sources are allowed (netlist.md, Errors). */
nsc_status nsc_topology_check(const nsc_circuit *c, nsc_report *r);

/* *found = 1 when the circuit has a loop of capacitors and voltage-defining
 * branches (V, E, H, E TABLE) holding a capacitor, or a cut-set of inductors
 * and current sources (I, G, F) holding a current source: a capacitor voltage
 * or an inductor current the sources fix, whose current (voltage) is an
 * algebraic derivative (index 2); else 0. NSC_OK, or NSC_ENOMEM (in r). */
nsc_status nsc_topology_index2(const nsc_circuit *c, int *found, nsc_report *r);

/* The linear functional of a probe (V(a[,b]) or I(element), sign conventions of
 * netlist.md: I flows n+ -> n- through the element, anode -> cathode for a diode,
 * drain current for a MOS). Error (with the probe's location) if the element has
 * no current in this LCS. */
nsc_status nsc_lcs_probe(const nsc_lcs *L, const nsc_circuit *c, const nsc_probe *p, nsc_lin *out,
                         nsc_report *r);
void nsc_lin_free(nsc_lin *f);
/* Evaluate a functional: z, lambda at this step, zprev at the previous one
 * (NULL at t = 0), h the step, w the source values at t. NSC_T_SW terms count 0. */
double nsc_lin_eval(const nsc_lin *f, const double *z, const double *lambda, const double *zprev,
                    double h, const double *w);
/* The same with the switches of L in states sw[nsw] (1 = on; sw NULL: all off). */
double nsc_lin_eval_sw(const nsc_lin *f, const nsc_lcs *L, const char *sw, const double *z,
                       const double *lambda, const double *zprev, double h, const double *w);
/* out[k] = nsc_lin_eval_sw(&f[k], ...) for the np functionals f[np] (a step's
 * probes in one call: no call per probe). */
void nsc_lin_eval_all(const nsc_lin *f, int np, const nsc_lcs *L, const char *sw, const double *z,
                      const double *lambda, const double *zprev, double h, const double *w,
                      double *out);

/* Switch decisions from the solution z at t_k (nsc_switch): updates sw[nsw] in
 * place, returns the number of switches that changed state. With VH = 0 and the
 * control exactly at VT, as ngspice 39 behaves (netlist.md): off in the
 * transient (a 0/1 PWM control back at 0 V turns the switch off; it stayed on),
 * on at the operating point (op = 1: nsc_lcs_switch_update_at). */
int nsc_lcs_switch_update(const nsc_lcs *L, const double *z, char *sw);
int nsc_lcs_switch_update_at(const nsc_lcs *L, const double *z, char *sw, int op);

/* s(t) and e(t) into s[n], e[m]; the source values w(t) are also stored into w[nsrc]
 * unless w is NULL. */
void nsc_lcs_sources(const nsc_lcs *L, double t, double *w, double *s, double *e);
/* The same with every source at its DC value (wave->dc): the .op analysis. */
void nsc_lcs_sources_dc(const nsc_lcs *L, double *w, double *s, double *e);

/* A transient's values at time t: the sources w[nsrc] finite (NULL: not
 * checked), the unknowns z[n] finite and, when l[m] is given, each device's
 * step_check of the pairs l. NSC_OK, or NSC_ESIM naming the element whose
 * waveform, or the unknown, is not finite (a B source's sqrt(1m - time) past
 * 1 ms) or whose pairs are inconsistent (issue 25 items 11, 13). */
nsc_status nsc_lcs_check_step(const nsc_lcs *L, const nsc_circuit *c, const double *w,
                              const double *z, const double *l, double t, nsc_report *r);

/* The pairs at a solution (lcs_pairs.c). y[m] = e + C z + D l, where e is
 * the pairs' offsets e[m] when given, else e0 + Se w (w[nsrc], NULL: no
 * source term); summed in the order e, C z, D l, Se w, by columns. */
void nsc_lcs_pairs_y(const nsc_lcs *L, const double *z, const double *l, const double *w,
                     const double *e, double *y);
/* The pair that breaks y >= 0, y l = 0 (l >= 0 given) the most, -1 when none:
 * y_j < 0, or y_j > 0 while l_j > tol max(l), beyond tol (|e_j| + |C_j| |z| +
 * |D_j| |l| (+ |Se_j| |w|)) + atol (the size of y_j's terms); a NaN y breaks it.
 * y and sc are work [m] (y keeps y on return). */
int nsc_lcs_worst_pair(const nsc_lcs *L, const double *z, const double *l, const double *w,
                       const double *e, double tol, double atol, double *y, double *sc);
/* The transient's check of the pairs of a step's solution (z, l) at time t,
 * sources w: NSC_OK, or NSC_ESIM naming the worst pair (nsc_lcs_worst_pair,
 * tol NSC_PAIRCHECK_TOL, atol NSC_PAIRCHECK_TOL max |z| + 1e-12) and the
 * largest unknown. A solver that returns a point of the mode's equations
 * that is not the problem's solution (a pivoting run ending on rounding: a
 * node at 7e8 V) is stopped here, not taken. The tolerance is looser than the
 * operating point's (1e-6, 1e-12): a pivoting run on the dense M of a node
 * tied by gmin (netlists/prc.cir) leaves y 1.1e-6 V off on a 1 V circuit, a
 * B source's pair 1e-12 (tests/data/bsrc/pwl_functions.cir); a solution that
 * is not one is off by the order of its terms. */
#define NSC_PAIRCHECK_TOL 1e-4
nsc_status nsc_lcs_check_pairs(const nsc_lcs *L, const nsc_circuit *c, const double *z,
                               const double *l, const double *w, double t, nsc_report *r);

/* The smooth functions of L (nsc_smooth) linearised at z[n]: A[row][in[q]] =
 * df/dz_in[q], s0[row] = f(z) - J z for each (written through the const L:
 * the values, never the pattern). 0, or -1 when a value or derivative is not
 * finite (or out of memory). The Newton iteration of the one-step problem
 * calls it at each iterate (solve/onestep_nl.c); .ac at the operating point. */
int nsc_lcs_smooth_at(const nsc_lcs *L, const double *z);

/* Write E A B C D (CSC, Matrix Market), s0/Ss and e0/Se, and names.txt (unknowns
 * and pairs) into directory dir (created if missing). */
nsc_status nsc_lcs_dump(const nsc_lcs *L, const char *dir, nsc_report *r);

#endif
