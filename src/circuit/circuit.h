/* circuit.h -- the elaborated, flat circuit: plain data handed from the netlist
 * front end (nl_*.c) to the LCS assembler (lcs_asm.c).
 *
 * Invariants after nsc_elaborate() succeeds:
 *  - node 0 is ground ("0"; "gnd" maps to it); nodes 1..nnode-1 are the others,
 *    named in lower case with their hierarchical prefix ("x1.mid");
 *  - element names are lower case and hierarchical ("x1.r3"), unique;
 *  - every numeric value is finite and already evaluated (params resolved);
 *  - references (K inductors, F/H sense sources) are resolved to element indices;
 *  - models are resolved to pointers into circuit->models. */
#ifndef NSC_CIRCUIT_H
#define NSC_CIRCUIT_H

#include "base/util.h"
#include "base/xcode.h"

/* Element kinds: the keys of the device table (src/devices/devices.c), which says
 * all a stage needs to know of a kind; outside src/devices only the card parsers
 * (nl_elab_el.c) name a kind. */
typedef enum nsc_elkind {
    NSC_EL_R,
    NSC_EL_C,
    NSC_EL_L,
    NSC_EL_K, /* resistor, capacitor, inductor, coupling */
    NSC_EL_V,
    NSC_EL_I,      /* independent sources */
    NSC_EL_E,      /* VCVS (gain) */
    NSC_EL_ETABLE, /* PWL VCVS: E n+ n- TABLE {V(a[,b])} = (x,y)... */
    NSC_EL_G,      /* VCCS */
    NSC_EL_F,      /* CCCS */
    NSC_EL_H,      /* CCVS */
    NSC_EL_D,
    NSC_EL_M,
    NSC_EL_S,   /* diode, MOS, voltage-controlled switch */
    NSC_EL_BV,  /* behavioural voltage source B n+ n- V=expr (PWL, exact) */
    NSC_EL_BI,  /* behavioural current source B n+ n- I=expr */
    NSC_EL_W,   /* current-controlled switch W n+ n- vsense model */
    NSC_EL_Q,   /* bipolar transistor Q c b e [s] model [area] */
    NSC_EL_CQ,  /* charge-based capacitor C n+ n- C='f(V)' | Q='q(V)' (no card letter of its own) */
    NSC_EL_J,   /* JFET J d g s model (NJF, PJF level 1) */
    NSC_EL_A,   /* XSPICE gate or bridge A [in..] out model (d_and ..., adc_bridge, dac_bridge) */
    NSC_EL_AFF, /* XSPICE flip-flop or latch (d_dff ..., an A card: no card letter of its own) */
    NSC_EL_LCPL,  /* XSPICE winding lcouple (an A card: no card letter of its own) */
    NSC_EL_NKINDS /* the number of kinds (size of the device table) */
} nsc_elkind;

/* Independent-source waveform. p[] holds the fields with SPICE defaults filled
 * in by the elaborator (defaults that depend on .tran, e.g. PULSE tr/tf = tstep,
 * per = tstop, are filled too, so evaluation needs nothing else):
 *   DC    : np = 0, value dc
 *   PULSE : p = v1 v2 td tr tf pw per [npulse]     (np = 7; 8 when ngspice's NP > 0 is
 *           given: npulse pulses, then v1)
 *   SIN   : p = vo va freq td theta phase(deg)     (np = 6)
 *   EXP   : p = v1 v2 td1 tau1 td2 tau2            (np = 6)
 *   PWL   : p = t1 v1 t2 v2 ...                    (np = 2n), repeat >= 0: the
 *           ngspice r=value (repeat from time `repeat` to the last point), -1: none
 * dc is the DC value (the `DC v` field, or the waveform's value at t = 0 when absent,
 * as SPICE uses for the operating point). */
typedef enum nsc_wavekind {
    NSC_WAVE_DC,
    NSC_WAVE_PULSE,
    NSC_WAVE_SIN,
    NSC_WAVE_EXP,
    NSC_WAVE_PWL,
    NSC_WAVE_EXPR
} nsc_wavekind;
/* EXPR: a smooth expression of time (a B source's time-only part, nl_pwl.c) as
 * compiled code (base/xcode.h) whose only load is TIME. No corners (its
 * smoothness is the step control's), no period. */
typedef struct nsc_wave {
    nsc_wavekind kind;
    double dc;
    double *p;
    int np;
    double repeat;
    nsc_xinstr *code; /* EXPR: [ncode], owned by the B source's program */
    int ncode;
    int ngiven;       /* fields the card gave; p[ngiven..] are defaults (nsc_wave_defaults) */
    int pw_tstop;     /* PULSE's PW given as 0: it means TSTOP */
    int dc_from_wave; /* no DC value on the card: dc = the waveform at t = 0 */
} nsc_wave;

/* Fills the omitted fields of a PULSE, SIN or EXP with SPICE's defaults for
 * a run of print step tstep and end tstop (has_tran 0: no .tran, so SIN's
 * default frequency is 0 and PULSE's PW never ends), and dc when it comes from
 * the waveform. Idempotent: a run whose TSTOP differs from the card's (--tstop)
 * calls it again, as ngspice takes the defaults from the run's TSTOP. */
void nsc_wave_defaults(nsc_wave *w, double tstep, double tstop, int has_tran);

typedef enum nsc_modeltype {
    NSC_MOD_D,
    NSC_MOD_NMOS,
    NSC_MOD_PMOS,
    NSC_MOD_SW,
    NSC_MOD_CSW,
    NSC_MOD_NPN,
    NSC_MOD_PNP,
    NSC_MOD_NJF,
    NSC_MOD_PJF,
    NSC_MOD_DAND,
    NSC_MOD_DNAND,
    NSC_MOD_DOR,
    NSC_MOD_DNOR,
    NSC_MOD_DXOR,
    NSC_MOD_DXNOR,
    NSC_MOD_DINV,
    NSC_MOD_DBUF,
    NSC_MOD_ADC,
    NSC_MOD_DAC,
    NSC_MOD_DDFF,
    NSC_MOD_DJKFF,
    NSC_MOD_DTFF,
    NSC_MOD_DSRFF,
    NSC_MOD_DDLATCH,
    NSC_MOD_DSRLATCH,
    NSC_MOD_LIMIT,
    NSC_MOD_CORE,
    NSC_MOD_LCOUPLE
} nsc_modeltype;

/* A .model card: parameter names lower case, values evaluated. Lookups by
 * nsc_model_get(); "given" tells whether the card set the parameter. */
typedef struct nsc_model {
    char *name; /* lower case, hierarchical if defined inside a subckt */
    nsc_modeltype type;
    int npar;
    char **pname;
    double *pval;
    nsc_loc loc;
    int vdmos; /* an LTspice/ngspice VDMOS card, run as NMOS/PMOS (devices/cards_expand.c) */
} nsc_model;

/* The elements. Field use by kind:
 *   R C L     node[0..1]; value (ohm, F, H; m= applied: R/m, C m, L/m); C and L: has_ic/ic (IC=)
 *   K         ref[0], ref[1] element indices of the two inductors; value = k
 *   V I       node[0..1]; wave
 *   E G       node[0..1] output, node[2..3] control; value = gain / gm
 *   ETABLE    node[0..1] output, node[2..3] control (node[3] = 0 for V(a));
 *             priv: its points (devices/device.h nsc_etab), made by the card's parser
 *   F H       node[0..1]; ref[0] = index of the sense voltage source; value = gain / r
 *   D         node[0] anode, node[1] cathode; model; ipar = m (m=, 1 when not given)
 *   M         node[0..3] = d g s b; model; ipar = W, L (metres; default when not given), m (m=)
 *   S         node[0..1] switch, node[2..3] control; model
 *   BV BI     node[0..1]; priv: the program of V(n+,n-) / of the current n+ -> n- inside
 *             (devices/bprog.h nsc_bprog), compiled by the card's parser
 *   W         node[0..1] switch; ref[0] = sense voltage source; model (CSW)
 *   Q         node[0..2] = c b e (internal nodes when the model has RC RB RE); model
 *             (NPN, PNP); value = AREA times m= (1 unless given); the substrate is not kept
 *   CQ        node[0..1]; has_ic/ic; priv: a program (devices/bprog.h) whose sm[0] is its charge
 *             q(v(n+) - v(n-)), inputs V(n+) V(n-)
 *             (nl_qcap.c, dev_cq.c)
 *   J         node[0..2] = d g s (internal nodes when the model has RD RS); model (NJF, PJF);
 *             ipar = AREA, m
 *   A         node[0] output, node[1] = 0, node[2..nnode) one or two inputs; model (an XSPICE
 *             gate or bridge); ipar[0] = 1: an inner stage of a gate of more inputs (dev_a.c)
 *   AFF       node[0] out, node[1] = 0, node[2] nout, node[3..nnode) the inputs in XSPICE's
 *             order (data.., clk or enable, set, reset; 0 for NULL); model (an XSPICE
 *             flip-flop or latch); ipar[0] bit 0 / bit 1: out / nout is NULL (dev_aff.c)
 *   LCPL      node[0..1] electrical port, node[2..3] magnetic port; value = num_turns (dev_lcouple.c)
 */
#define NSC_MAXIPAR 5
typedef struct nsc_element {
    nsc_elkind kind;
    char *name;
    int nnode;
    int node[8]; /* nnode of them (at most 8: an XSPICE flip-flop) */
    double value;
    int has_ic;
    double ic;
    nsc_wave wave;
    double ac_mag, ac_phase; /* V I: `AC mag [phase]` (phase in degrees); 0 when not given */
    int ref[2];
    const nsc_model *model;
    double
        ipar[NSC_MAXIPAR]; /* instance parameters, named by its device's table (lcs/devif.h inst) */
    /* Its device's data: read from the card at elaboration by the device's bind()
     * (lcs/devif.h; one flat block), or, for a device without bind(), made by the
     * card's parser in the netlist stage (E TABLE's points, a B source's program);
     * NULL: none. Owned by the element, released by priv_free (NULL: free()). */
    void *priv;
    void (*priv_free)(void *priv);
    nsc_loc loc; /* the card (for subckt instances: the card inside the subckt) */
} nsc_element;

/* An output quantity from .save/.print/--save: V(n1[,n2]) or I(element). */
typedef enum nsc_probekind { NSC_PROBE_V, NSC_PROBE_I } nsc_probekind;
typedef struct nsc_probe {
    nsc_probekind kind;
    int node[2]; /* V: nodes (node[1] = 0 for V(a)) */
    int el;      /* I: element index */
    char *name;  /* column name, lower case: "v(a)", "v(a,b)", "i(l1)" */
    nsc_loc loc;
} nsc_probe;

/* A .meas tran card, evaluated on the transient's waveforms by meas.c.
 * Measured quantities are compiled code (base/xcode.h, nsc_msig) over the probes in
 * circuit->meas_probe, numbers and earlier measures, so a plain V(out), an
 * expression par('v(out)*i(rl)') and PARAM='pout/pin' all take the same form. */
typedef struct nsc_msig {
    nsc_xinstr *code;
    int ncode;
    char *text; /* as written, lower case ("v(out)", "v(in)*i(vin)"), for messages */
} nsc_msig;

/* The instant of a measure: the count-th crossing of sig = val (edge: +1 RISE,
 * -1 FALL, 0 CROSS; count -1 = LAST) at or after td, or the time at (has_at). */
typedef struct nsc_mtime {
    nsc_msig sig;
    double val, td;
    int edge, count;
    int has_at;
    double at;
} nsc_mtime;

typedef enum nsc_meastype {
    NSC_MEAS_AVG,
    NSC_MEAS_RMS,
    NSC_MEAS_MIN,
    NSC_MEAS_MAX,
    NSC_MEAS_PP,
    NSC_MEAS_INTEG,
    NSC_MEAS_MIN_AT,
    NSC_MEAS_MAX_AT,   /* time of the min / max */
    NSC_MEAS_WHEN,     /* time of trig */
    NSC_MEAS_FIND,     /* sig at the instant trig */
    NSC_MEAS_TRIGTARG, /* time of targ - time of trig */
    NSC_MEAS_PARAM     /* sig on other results (a name measured twice: its last card's) */
} nsc_meastype;

typedef struct nsc_meas {
    char *name; /* lower case */
    nsc_meastype type;
    nsc_msig sig;         /* AVG .. MAX_AT, FIND: measured quantity; PARAM: the expression */
    double from, to;      /* window; from = -inf / to = +inf when not given */
    nsc_mtime trig, targ; /* WHEN, FIND: trig; TRIG/TARG: both */
    nsc_loc loc;          /* the card */
} nsc_meas;

/* A .step card: `.step param NAME start stop incr` (linear, stop included when
 * reached to within 1e-9 incr), `.step dec|oct param NAME start stop n` (n points
 * per decade / octave), `.step param NAME list v1 v2 ...`: the values in order.
 * NAME need not be a .param here; a parameter study checks that it is one. */
typedef struct nsc_step {
    char *param; /* lower case */
    double *val; /* [nval] */
    int nval;
    nsc_loc loc; /* the card */
} nsc_step;

/* An output command of a .control block (wrdata, write, print), run after the
 * transient by the program (main.c): a failure is a warning, as in ngspice. */
typedef struct nsc_ctlout {
    int raw;    /* 1: write (an ngspice raw file), 0: wrdata (columns) */
    int print;  /* 1: print (to standard output; path NULL): the vectors as an
                         indexed table, a .meas result as "name = value" */
    char *path; /* print: NULL (standard output), or its `> FILE` / `>> FILE` */
    int append; /* print >> FILE: appended to, not replaced */
    char all;   /* print > FILE of all ('a'), allv ('v'), alli ('i'): those of the
                   run's outputs, by ngspice's names and order (0: its vectors) */
    char **vec; /* [nvec] column names ("v(a)", "i(v1)"), also in meas_probe, */
    int nvec;   /*   or (print) .meas names; 0: the run's outputs */
    nsc_loc loc;
} nsc_ctlout;

/* `.ac dec|oct|lin n fstart fstop` */
typedef enum nsc_ackind { NSC_AC_DEC, NSC_AC_OCT, NSC_AC_LIN } nsc_ackind;
typedef struct nsc_acsweep {
    nsc_ackind kind;
    int n;                /* points per decade / octave, or in all (lin) */
    double fstart, fstop; /* 0 < fstart <= fstop */
    nsc_loc loc;
} nsc_acsweep;

/* A complex output of the small-signal analysis: part of probe p (V(a[,b]) or
 * I(x)); name the column ("vdb(out)", "ip(v1)"). */
typedef enum nsc_acpart { NSC_ACP_DB, NSC_ACP_PH, NSC_ACP_RE, NSC_ACP_IM, NSC_ACP_MAG } nsc_acpart;
typedef struct nsc_acout {
    nsc_probe p;
    nsc_probe den; /* den.name set: the signal is the part of p / den, written
                           `vdb(out)/v(fb)` (a loop gain by Middlebrook's injection) */
    nsc_acpart part;
    char *name;
} nsc_acout;

/* .meas ac name FIND sig AT=f | WHEN sig=val | FIND sig WHEN sig2=val | MAX sig | MIN sig
 * (the first crossing, in increasing frequency; linear in f between points, as ngspice) */
typedef enum nsc_acmtype {
    NSC_ACM_FIND_AT,
    NSC_ACM_WHEN,
    NSC_ACM_FIND_WHEN,
    NSC_ACM_MAX,
    NSC_ACM_MIN
} nsc_acmtype;
typedef struct nsc_acmeas {
    char *name; /* lower case */
    nsc_acmtype type;
    nsc_acout sig, when; /* when: WHEN's signal */
    double at, val;
    nsc_loc loc;
} nsc_acmeas;

/* One sweep of `.dc SRC start stop step`: a V or I source's DC value, a
 * resistor's resistance, or a top-level .param (el = -1: each value
 * elaborates the netlist again, nsc_run_dc_params); the values start, start +
 * step, ... up to stop (within 1e-9 step), as ngspice (step of the sign of
 * stop - start). */
typedef struct nsc_dcsweep {
    int el;      /* the element swept; -1: the .param named param */
    char *param; /* lower case (owned), or NULL */
    double start, stop, step;
    nsc_loc loc;
} nsc_dcsweep;

/* `.four freq out...`: the harmonics of each output over the last period 1/f of
 * the transient (or of the steady state's rows) (four.c). */
typedef struct nsc_four {
    double f;
    char **sig; /* [nsig] column names ("v(a)", "i(l1)"), also in meas_probe */
    int nsig;
    nsc_loc loc;
} nsc_four;

/* The job: what a run of the circuit asks for, apart from its topology (issue 26
 * item 3): its analyses, options, outputs and measures, read from the dot cards
 * (nl_dot.c, nl_dot_ac.c, nl_meas.c). Invariant: only the netlist stage (which
 * fills it), analysis/run.c (which turns it into a run's settings), the analyses
 * of its cards (meas.c, ac*.c, dc.c, pac.c, sweep*.c) and the program read it;
 * the devices, the assembler, the solvers and the steppers never do (they take
 * nsc_tran_opts). Held in nsc_circuit.job for now (one allocation, one free);
 * the next step gives it to the run (nsc_run) beside the circuit. */
typedef struct nsc_job {
    /* analyses */
    int has_tran;
    double tstep, tstop, tstart, tmax; /* tmax = 0 when not given */
    int uic;
    nsc_loc tran_loc;
    int has_op;
    nsc_loc op_loc;
    int has_pss; /* .pss: the periodic steady state instead of the transient */
    nsc_loc pss_loc;
    double pss_period;                      /* period= (0: the sources') */
    int pss_periods, pss_warmup, pss_maxit; /* 0: defaults */
    double pss_tol;                         /* 0: default */

    /* .options */
    double theta;       /* default 0.5 */
    double gmin;        /* default 1e-12 */
    char solver[32];    /* default "auto" */
    int stepping_fixed; /* .options stepping=fixed (default 0: adaptive or exact) */
    int theta_given;    /* .options theta= given: the theta-scheme, not the exact flow */
    int stepping_exact; /* the flow of each mode where it applies (stepper_exact.c): 1 by default
                               (unless a theta is given), 2 asked for (stepping=exact); 0
                               (stepping=adaptive or fixed): the theta-scheme's steps */
    int stepsizelimit; /* 1 (.options stepsizelimit): adaptive cap min(tstep, (tstop - tstart) / 50) as in
                               ngspice; 0 (default, .options nostepsizelimit): (tstop - tstart) / 50 (run.c) */
    int interp;        /* .options interp: adaptive rows on the tstep grid, not at the steps */
    /* SPICE tolerances of the adaptive step control (stepper_adapt.c); 0 = default */
    double reltol, abstol, vntol, chgtol, trtol;

    /* .save / .print (empty: writer defaults of cli.md) */
    nsc_probe *save;
    int nsave;

    /* cards parsed but not yet simulated (later issues) */
    int nstep, nmeas;
    nsc_loc step_loc, meas_loc;

    /* .step param cards, first card first: nstep entries (step_loc = the first card) */
    nsc_step *step;
    /* top-level .param names (lower case) and values (after --param overrides), in
     * definition order: what a parameter study may sweep */
    char **param;
    double *param_val;
    int nparam;

    /* .meas tran: nmeas measures; the probes they read (resolved, distinct names) */
    nsc_meas *meas;
    nsc_probe *meas_probe;
    int nmeas_probe;
    /* the names of the .meas cards skipped (an option their form does not take, or
     * a use of a skipped measure): a later param= naming one is skipped too */
    char **meas_skipped;
    int nmeas_skipped;

    /* derived output columns (Xyce .print {expr}, P(x), W(x)): programs over
     * meas_probe, computed after the run, after the other outputs */
    struct nsc_xcol {
        char *name;
        nsc_msig sig;
        int pos;
    } * xcol; /* pos: the outputs before it in
                                                                  its .print (Xyce's column order);
                                                                  -1: not an output (a .control let) */
    int nxcol;

    /* .control blocks: the outputs they write, ngspice's wrdata options, plot */
    nsc_ctlout *ctlout;
    int nctlout;
    int ctl_singlescale, ctl_vecnames, ctl_plot;

    /* .ac, .dc, .print ac, .meas ac (issue 29; nl_dot_ac.c) */
    int has_ac;
    nsc_acsweep ac;
    nsc_acout *acout; /* .print ac columns (none: the defaults, dB and phase) */
    int nacout;
    nsc_acmeas *acmeas; /* .meas ac */
    int nacmeas;
    int ndc; /* .dc: 0, 1 or 2 nested sweeps (dc[0] the inner one) */
    nsc_dcsweep dc[2];
    nsc_probe *dcout; /* .print dc outputs (none: .save/.print, else the defaults) */
    int ndcout;
    nsc_four *four; /* .four cards (issue 29 item 6) */
    int nfour;
} nsc_job;

typedef struct nsc_circuit {
    char *title;
    char **files; /* interned file names (nsc_loc.file points here) */
    int nfiles;

    int nnode;         /* number of nodes including ground (index 0) */
    char **node_name;  /* [nnode], node_name[0] = "0" */
    nsc_loc *node_loc; /* [nnode], first card that mentions the node */

    nsc_element *el;
    int nel;
    nsc_model *model;
    int nmodel;
    /* [NSC_EL_NKINDS] the device of each element kind (devices.c's table), set
     * when the elements are bound (nsc_devices_bind): how the stages below the
     * devices (lcs) reach them (lcs/devif.h nsc_devif_of); NULL before */
    const struct nsc_device *const *dev;

    /* .ic V(node)=value */
    int nic;
    int *ic_node;
    double *ic_val;
    nsc_loc *ic_loc;

    nsc_job job; /* the run's analyses, options, outputs and measures */
} nsc_circuit;

void nsc_circuit_free(nsc_circuit *c);
/* Parameter of a model, case-insensitive; returns 1 and sets *v if given, else 0. */
int nsc_model_get(const nsc_model *m, const char *name, double *v);
/* Node / element lookup by (lower- or mixed-case) name; -1 if absent. */
int nsc_circuit_node(const nsc_circuit *c, const char *name);
int nsc_circuit_element(const nsc_circuit *c, const char *name);
/* Index of the .meas named name (case-insensitive), -1 if none. */
int nsc_circuit_meas(const nsc_circuit *c, const char *name);

/* Value of a waveform at time t (seconds). */
double nsc_wave_eval(const nsc_wave *w, double t);
/* The first corner of w strictly after t (INFINITY if none): the breakpoints one
 * at a time, in O(1) (PULSE) or O(log n + n) (PWL), with no list to store (ten
 * PULSE sources of 1 ps period over 1 s filled 2.1 GB as a list). */
double nsc_wave_next_corner(const nsc_wave *w, double t);
/* The period of w for t >= *since: > 0, 0 when w is constant there, -1 when it
 * is not periodic (EXP, a damped SIN). */
double nsc_wave_period(const nsc_wave *w, double *since);
/* 1 when w(t + T) = w(t) (within 1e-9 of w's range over the samples, and of
 * T's rounding) at NSC_WAVE_NSAMPLE times t spread over [t0, t0 + T): T is a
 * period of w as far as sampling tells (a B source's function of time, whose
 * nsc_wave_period is -1); 0 when a sample differs. */
int nsc_wave_repeats(const nsc_wave *w, double T, double t0);

#endif
