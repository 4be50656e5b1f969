/* bprog.h -- a behavioural source's program (B n+ n- V=/I=, E/G VALUE= and
 * POLY): the data a B element keeps (nsc_element.priv), compiled from its
 * expression by the netlist stage (netlist/nl_pwl.c, which knows expressions)
 * and read by its device (dev_b.c). */
#ifndef NSC_BPROG_H
#define NSC_BPROG_H

#include "circuit/circuit.h"
#include "base/xcode.h"

/* A behavioural source's expression compiled to exact piecewise-linear form
 * (nl_pwl.c): the output is affine in node voltages, branch currents of voltage
 * sources and auxiliary values a_k, each a_k a nonsmooth function of an affine
 * argument that may use earlier a_j (j < k):
 *   ramp: a_k = max(0, arg_k)       (one complementarity pair)
 *   step: a_k = H(arg_k) in {0, 1}, H(0) = [0, 1] (two pairs: an ideal relay)
 * An affine form is c + sum of term[t0 .. t0+nt); a term may also be a smooth
 * function of time w_k(t) (tw[k]), which enters as an independent source. */
typedef enum nsc_btkind { NSC_BT_V, NSC_BT_I, NSC_BT_AUX, NSC_BT_W, NSC_BT_S } nsc_btkind;
typedef struct nsc_bterm {
    nsc_btkind kind;
    int idx; /* V: node; I: index into elref; AUX: k; W: index into tw (a function of time);
                       S: index into sm (a smooth function of unknowns) */
    double coef;
} nsc_bterm;
typedef struct nsc_baff {
    double c;
    int t0, nt;
} nsc_baff;
/* A smooth function s_k of node voltages and voltage-source currents that has
 * no PWL form (V(a)*V(b), tanh(V(x)/1m), exp(...)): compiled code (base/xcode.h)
 * whose PROBE q loads input in[q] (kind V or I only, distinct), differentiated
 * by nsc_xrun_grad. The B source gives it an unknown u_k = s_k(inputs), solved
 * by the Newton iteration of the one-step problem (solve/onestep_nl.c). */
typedef struct nsc_bsmooth {
    nsc_xinstr *code;
    int ncode;
    nsc_bterm *in; /* [nin] coef unused (1) */
    int nin;
} nsc_bsmooth;
typedef struct nsc_bop {
    int step; /* 0 ramp, 1 step */
    nsc_baff arg;
} nsc_bop;
typedef struct nsc_bprog {
    nsc_bterm *term;
    int nterm;
    nsc_bop *op;
    int nop;
    nsc_baff out;
    int *elref; /* element indices of the I(...) references (voltage sources) */
    int nelref;
    nsc_wave *tw; /* [ntw] the smooth functions of time the expression holds (EXPR waveforms):
                       the B source's own independent sources */
    int ntw;
    nsc_bsmooth *sm; /* [nsm] its smooth nonlinear functions of unknowns (each its own unknown) */
    int nsm;
} nsc_bprog;

/* Releases p (a nsc_bprog, NULL allowed): the priv_free of a B element. */
void nsc_bprog_free(void *p);

/* The program of element e when it is a B source (BV, BI), else NULL. */
static inline nsc_bprog *nsc_bprog_of(const nsc_element *e)
{
    return e->kind == NSC_EL_BV || e->kind == NSC_EL_BI ? e->priv : NULL;
}

#endif
