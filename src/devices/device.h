/* device.h -- the one device interface of the LCS assembler (internal header).
 *
 * Every element kind has one nsc_device (one file dev_<x>.c) registered in the
 * table of devices.c. At the end of elaboration each element's device reads its
 * card once (bind(): the model through a table of nsc_par, the fitted curves)
 * into the element's private data. The assembler (lcs_asm.c) knows no device
 * by name; it
 *   1. calls count() for every element (all devices with late == 0 first, in
 *      element order, then late == 1, then late == 2): the device says how many unknowns,
 *      pairs and sources it needs in ctx->mode, and declares the topology of
 *      its terminals with nsc_dev_link() (gmin and loop checks; DC paths are
 *      checked before, by lcs_topo.c from the table's dc fields);
 *   2. lays the unknowns out: node voltages, then the transient branches
 *      (nbranch, element order), then the static extra branches (nextra,
 *      element order), and gives each element its nsc_dev_slots;
 *   3. calls stamp() for every element: the device adds its entries to
 *      E A B C D, Ss Se, s0 e0 through the nsc_st_* helpers below;
 *   4. (lcs_probe.c) calls current() for a probe I(x).
 * The other stages ask the table too (nsc_device_of): the topology checks
 * (lcs_topo.c: dc, topo), the default outputs (waves.c: out_current), .meas
 * ports (nl_meas.c: port, current), source periods and sweep units (meas.c,
 * sweep_units.c: wave_unit, value_unit, ic_unit), losses (losses.c: pclass,
 * swloss, ports), the element cards (nl_elab_el.c: letter, card, inst, card_*).
 * None of them names an element kind.
 *
 * Worked example: the current-controlled switch W n+ n- vsense model.
 *   a. src/devices/dev_w.c: bind() reads the model through its table (IT IH RON
 *      ROFF ION IOFF); count() warns about the model and links n+ n- (a finite
 *      conductance: NSC_LINK_NS); stamp() registers the switch with
 *      nsc_st_switch_z(), its control the branch current of vsense; current()
 *      is g(state) (v+ - v-); then the table entry, designated initializers
 *      only, every field left out meaning "none" (0, NULL):
 *          const nsc_device nsc_dev_w = {
 *              .kind = NSC_EL_W, .what = "current-controlled switches",
 *              .letter = 'w', .card = NSC_CARD_MODEL,   W n+ n- vsense model
 *              .card_nodes = 2, .card_sense = 1, .card_state = 1,
 *              .bind = w_bind, .count = w_count, .stamp = w_stamp, .current = w_current,
 *              .pclass = NSC_PC_SEMI, .swloss = 1,
 *              .ndc = 1, .dc = {{0, 1}},     conducts n+ n- at DC
 *          };
 *   b. devices.c: `nsc_dev_w` in the extern line and `[NSC_EL_W] = &nsc_dev_w`.
 *   c. the kind NSC_EL_W in circuit.h's nsc_elkind, dev_w.c in Makefile.am.
 * Nothing else: no parser, solver, checker or writer changes. The netlist
 * stage reads a card by its form (nsc_cardform; nl_elab_el.c has one parser
 * per form, not per device): a device whose card has a new form also adds
 * that form and its parser. */
#ifndef NSC_DEVICE_H
#define NSC_DEVICE_H

#include "netlist/circuit.h"
#include "lcs/lcs.h"
#include "analysis/losses.h"
#include "solve/sparse.h"
#include "base/util.h"

/* ---- 1. counting and topology ---- */

/* Union-find forests over circuit nodes (0 = ground), owned by the assembler. */
typedef struct nsc_dev_ctx {
    const nsc_circuit *c;
    nsc_asm_mode mode;
    nsc_report *r;
    const unsigned char *has_icv; /* [nnode] 1 if .ic V(node) given */
    const double *icv;            /* [nnode] .ic value (0 where not given; icv[0] = 0) */
    int *uf_ns;    /* paths through elements that make the mode's matrix nonsingular */
    int *uf_vd;    /* voltage-defining branches (V, E, H, imposed C, shorted L) */
} nsc_dev_ctx;

/* Strength of a terminal pair of a device (each implies the weaker ones). */
enum {
    NSC_LINK_DC = 1, /* a current can flow (diode, current source, open capacitor, ...) but
                        nothing is tied in the mode's matrix: no forest changes (DC paths to
                        ground are checked before assembly, lcs_topo.c) */
    NSC_LINK_NS = 2, /* the pair is tied in the mode's matrix (resistor, capacitor in TRAN, ...) */
    NSC_LINK_VD = 3  /* voltage-defining branch (v_a - v_b fixed by the branch row) */
};

/* Declare nodes a, b (circuit indices) linked with strength how.
 * For NSC_LINK_VD returns 1 (and changes nothing) if a and b are already tied by
 * voltage-defining branches (a loop: singular), else 0. Other strengths return 0. */
int nsc_dev_link(nsc_dev_ctx *ctx, int a, int b, int how);

/* What an element needs in the current mode (count() fills it, zeroed before). */
typedef struct nsc_dev_need {
    int nbranch; /* branch unknowns of the transient layout (same in every mode) */
    int nextra;  /* extra branch unknowns of the static modes (0 in TRAN) */
    int npair;   /* complementarity pairs (same in every mode) */
    int nsrc;    /* independent sources w_j (the element's own wave) */
    int flag;    /* the device's own: set by count, handed to stamp in its slots */
} nsc_dev_need;

/* ---- 2./3. stamping ---- */

/* First index of each kind of slot of one element, -1 when it has none. */
typedef struct nsc_dev_slots {
    int branch; /* z index of the first transient branch */
    int extra;  /* z index of the first static extra branch */
    int pair;   /* lambda index */
    int src;    /* w index */
    int flag;   /* nsc_dev_need.flag of the element */
} nsc_dev_slots;

typedef enum nsc_stmat { NSC_ST_E, NSC_ST_A, NSC_ST_B, NSC_ST_C, NSC_ST_D, NSC_ST_SS, NSC_ST_SE } nsc_stmat;

/* Triplet builder of the LCS being assembled (owned by the assembler). */
typedef struct nsc_builder {
    const nsc_circuit *c;
    nsc_asm_mode mode;
    nsc_report *r;
    nsc_sparse *T[7];           /* triplets, indexed by nsc_stmat */
    double *s0, *e0;            /* [n], [m] */
    unsigned char *exact;       /* [n] nsc_lcs z_exact */
    const int *el_branch;       /* [nel] first transient branch (z index) or -1 */
    const int *el_extra;        /* [nel] first static extra branch or -1 */
    const unsigned char *has_icv;
    const double *icv;
    int nomem;                  /* set by a helper that could not allocate */
    nsc_switch *sw;             /* switched conductances registered so far (nsc_st_switch) */
    int nsw, capsw;
    nsc_smooth *sm;             /* smooth functions registered so far (nsc_st_smooth) */
    int nsm, capsm;
} nsc_builder;

/* z index of the voltage of circuit node k (-1 for ground, whose stamps are dropped). */
static inline int nsc_zn(int k) { return k - 1; }

/* Raw entry M(i,j) += x; dropped when i < 0 or j < 0 (ground) or x == 0; E dropped
 * in the static modes. i, j are z / lambda / w indices as M requires. */
void nsc_st(nsc_builder *b, nsc_stmat M, int i, int j, double x);
/* Conductance G between nodes a, b (KCL rows: sum of currents into the node):
 * A[a][a] -= G, A[a][b] += G, A[b][a] += G, A[b][b] -= G. */
void nsc_st_g(nsc_builder *b, int a, int k, double G);
/* Capacitance C between nodes a, b: E[a][a] += C, E[a][b] -= C, E[b][a] -= C, E[b][b] += C. */
void nsc_st_cap(nsc_builder *b, int a, int k, double C);
/* Branch current z[col] flowing a -> k through the element: A[a][col] -= 1, A[k][col] += 1. */
void nsc_st_inc(nsc_builder *b, int a, int k, int col);
/* Branch row: A[row][a] += coef, A[row][k] -= coef (coef*(v_a - v_k)). */
void nsc_st_vrow(nsc_builder *b, int row, int a, int k, double coef);
/* VCCS: current gm*(v_c - v_d) flowing a -> k through the element. */
void nsc_st_vccs(nsc_builder *b, int a, int k, int c, int d, double gm);
/* Ideal-diode pair j, lambda_j flowing a -> k: B[a][j] -= 1, B[k][j] += 1,
 * y_j = v_k - v_a + ...: C[j][k] += 1, C[j][a] -= 1 (so C = B^T on the pair). */
void nsc_st_pair(nsc_builder *b, int a, int k, int j);
/* Constant source terms: s0[i] += x, e0[j] += x (index < 0 dropped). */
void nsc_st_s0(nsc_builder *b, int i, double x);
/* Row i holds at t_k+1 under every theta (lcs.h z_exact): the output row of a
 * static PWL map, y = f(x) with f's pairs, which would ring at theta = 1/2. */
static inline void nsc_st_exact(nsc_builder *b, int i) { if (i >= 0) b->exact[i] = 1; }
void nsc_st_e0(nsc_builder *b, int j, double x);
/* Switched conductance of element el between nodes a, k (circuit indices): stamps
 * g_off into A (nsc_st_g) and registers the switch (lcs.h nsc_switch) with its
 * control v(c) - v(d), thresholds on_above >= off_below and initial state 0 (off).
 * Returns the switch index. */
int nsc_st_switch(nsc_builder *b, int el, int a, int k, double g_off, double g_on, int c, int d,
                  double on_above, double off_below);
/* The same with the control z[zc] - z[zd] given as z indices (-1: none), e.g. a
 * branch current for a current-controlled switch. */
int nsc_st_switch_z(nsc_builder *b, int el, int a, int k, double g_off, double g_on, int zc, int zd,
                    double on_above, double off_below);
/* Smooth function of element el (lcs.h nsc_smooth): u = z[row] = f(z[in[0..nin)))
 * by code[0..ncode) whose PROBE q loads z[in[q]]: stamps A[row][row] = -1 and
 * the pattern (row, in[q]) (zero values, kept: the Newton iteration writes
 * them), marks the row exact, registers the function (in copied). */
void nsc_st_smooth(nsc_builder *b, int el, int row, const int *in, int nin, const nsc_xinstr *code, int ncode);

/* ---- 0. binding: a model card read once, at elaboration ----
 * A device's parameters are a table of nsc_par: name, offset of a double in the
 * device's card struct, default when the card does not set it, and the device's
 * own flag bits (e.g. "SPICE's diode only"). */
typedef struct nsc_par {
    const char *name;   /* lower case */
    size_t off;         /* offsetof(card struct, field), a double */
    double def;
    unsigned flags;
} nsc_par;
/* Every parameter of t[0..n) (n <= 32) into the doubles of dst, the card's
 * setting (the last one wins, as nsc_model_get) or t[k].def. Returns the mask
 * of those m sets (bit k: t[k]); m NULL: none. */
unsigned nsc_par_read(const nsc_model *m, const nsc_par *t, int n, void *dst);
/* 1 when name is in t[0..n) with none of the flags skip (case-insensitive). */
int nsc_par_known(const nsc_par *t, int n, unsigned skip, const char *name);
/* A device's card parser: element e's card checked and read into out (the
 * device's private data); errors in r. */
typedef nsc_status (*nsc_dev_parse)(const nsc_element *e, nsc_report *r, void *out);
/* bind() from a parser: a block of size bytes parse() filled, NULL when it fails
 * (its messages dropped) or no memory. */
void *nsc_bind_parse(const nsc_element *e, size_t size, nsc_dev_parse parse);
/* count() of an element whose bind() gave NULL: parse()'s error once more, or
 * out of memory. */
nsc_status nsc_bind_failed(const nsc_element *e, size_t size, nsc_dev_parse parse, nsc_report *r);
/* Every element's private data (again) from its device's bind(), NULL for the
 * devices without: called once at the end of elaboration (and after a card of
 * the circuit is changed, by whoever changes it). */
void nsc_devices_bind(nsc_circuit *c);

/* ---- threshold switches (dev_s.c; S and W) ----
 * On above T + H, off below T - H (H >= 0); a model giving ON and OFF (Xyce's
 * VSWITCH/ISWITCH, smooth between them there) has T at their mean. */
typedef struct nsc_sw_par {
    double t, h, ron, roff;       /* defaults 0, 0, 1, 1e12 */
    double on, off;               /* ON and OFF as the card gives them (0 unless given) */
} nsc_sw_par;
typedef struct nsc_sw_kind {
    nsc_modeltype type;
    const char *model;            /* in "switch s1 has no <model> model" */
    const nsc_par *par;           /* [6]: T H RON ROFF ON OFF ("vt" "vh" "ron" "roff" "von" "voff") into nsc_sw_par */
    const char *hname;            /* H in messages: "VH" */
    const char *known;            /* the parameters read, for the warning about others */
    nsc_dev_parse parse;          /* the kind's nsc_sw_params */
} nsc_sw_kind;
#define NSC_SW_NPAR 6
extern const nsc_sw_kind nsc_sw_voltage;   /* S: SW(VT VH RON ROFF), VSWITCH(VON VOFF) */
/* The parameters of e's model (of kind k), checked: RON, ROFF finite and > 0, H >= 0. */
nsc_status nsc_sw_params(const nsc_element *e, const nsc_sw_kind *k, nsc_report *r, nsc_sw_par *p);
/* count() of a switch of kind k (S, W): its bound parameters (or the error), one
 * warning when its model has parameters other than k's, the terminals linked
 * (always a finite conductance). */
nsc_status nsc_sw_count(nsc_dev_ctx *ctx, int ei, const nsc_sw_kind *k);

/* ---- 4. probes ---- */

/* Append coef*term to f. 0 ok, -1 ENOMEM. Index < 0 (ground) is dropped. */
nsc_status nsc_lin_add(nsc_lin *f, nsc_termkind kind, int idx, double coef);
/* w index of element el's first source in L, -1 if none. */
int nsc_lcs_src_of(const nsc_lcs *L, int el);
/* Index of element el's switch in L->sw, -1 if none. */
int nsc_lcs_sw_of(const nsc_lcs *L, int el);

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
#define NSC_PWL_X0 0.1      /* first positive breakpoint (V) */
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
int nsc_pwl_sq_fit(int nseg, double X, const double *anch, int nanch, double *b, double *a, double *eps);
/* Element ei's (an M) fit, bound to c: b, a (NSC_PWL_MAXSEG each), its anchors
 * (M_MAXANCH = 8; may be NULL) and their number; returns nb, -1 when ei is no
 * bound MOS transistor. Gate drives: the levels of the independent voltage
 * sources (dev_m.c m_fit); SEGMENTS=n on the card: n segments, no anchors. */
int nsc_mos_fit(const nsc_circuit *c, int ei, double *b, double *a, double *anch, int *nanch);
/* f(x) of such a table. */
double nsc_pwl_eval(int nb, const double *b, const double *a, double x);

/* ---- the piecewise-linear fit of a junction (pwl_exp.c) ----
 * v(i) = c + a ln(1 + i/i0) + rs i (the Shockley diode: c = 0, a = N Vt, i0 = IS)
 * on [i1, i2] by nseg chords on geometric knots, all raised by err (the largest
 * |fit - v| on [i1, i2]), as nseg parallel branches: i(v) = sum_j max(0, (v - vf[j])/r[j]),
 * vf ascending, every r[j] > 0. nseg = 1 is the best uniform line. */
#define NSC_JFIT_MAX 16
typedef struct nsc_jfit {
    int nseg;
    double vf[NSC_JFIT_MAX], r[NSC_JFIT_MAX];   /* parallel branches */
    double s[NSC_JFIT_MAX], knot[NSC_JFIT_MAX]; /* the same as a concave sum: v(i) = vf[0] + s[0] i
                                                   - sum_{k >= 1} (s[k-1] - s[k]) max(0, i - knot[k]) */
    double i1, i2, err;
    double c, a, i0, rs;                        /* the curve fitted (a = 0: none, a card's own lines) */
} nsc_jfit;
/* 0, or -1 when the arguments are out of range (nseg in 1..NSC_JFIT_MAX, 0 < i1 < i2,
 * a, i0 > 0, rs >= 0). */
int nsc_jfit_make(double c, double a, double i0, double rs, double i1, double i2, int nseg, nsc_jfit *f);
/* The fit of nsc_jfit_make with the fewest chords (1..nmax) whose error on
 * [i1, i2] is at most tol (V), else nmax chords; the same return value. */
int nsc_jfit_auto(double c, double a, double i0, double rs, double i1, double i2, int nmax, double tol, nsc_jfit *f);
/* The fit's voltage at current i >= 0. */
double nsc_jfit_v(const nsc_jfit *f, double i);
/* "10 mA..1 A": the fitted range into buf. */
void nsc_jfit_range(const nsc_jfit *f, char *buf, size_t n);
/* The junction's pairs j..j+nseg-1 in the concave-sum form: pair 0's multiplier
 * lambda_0 is the junction current, its y_0 gets + vf[0] + s[0] lambda_0
 * - sum_q (s[q-1] - s[q]) mu_q (the device adds the sensed voltage to y_0, and
 * injects lambda_0); pair q >= 1: y_q = mu_q - lambda_0 + knot[q] >= 0 _|_ mu_q >= 0,
 * mu_q = max(0, lambda_0 - knot[q]). The block [[W + s0, -c], [-1, I]] is a
 * P-matrix (principal minors W + s0 - sum_S c_q > 0) with the network's W on
 * one entry, unlike nseg parallel branches (W 1 1^T + diag r: a junction fed by
 * a current source, W ~ 1/gmin, defeated Lemke). */
void nsc_st_jfit(nsc_builder *b, const nsc_jfit *f, int j);
/* 1 when a run whose junction current peaked at ip (> 1 nA) left f's range far
 * enough that the fit is off its curve there by more than twice its error and
 * 10 mV (a 16 A inrush through a 10 mA..1 A line: 1.9 V; 1 mA: 0.09 V); *off is
 * that difference (fit - curve). 0 for a card's own lines (a = 0). */
int nsc_jfit_outside(const nsc_jfit *f, double ip, double *off);
/* A fit that follows the run: when the run's peak ip (> 1 nA) left f's range and
 * the fit is off its curve there by more than its error inside and 10 mV (a
 * one-line BJT junction fitted on 10 mA..1 A: from ~ 5 mA down), f is remade on the currents seen, [i1, NSC_JFIT_ABOVE ip] above its range, else
 * [ip / NSC_JFIT_BELOW, NSC_JFIT_ABOVE ip] (a junction's currents far below its
 * peak matter little: it is nearly off there), by nseg chords (0: the fewest
 * within tol, at most nmax; nsc_jfit_auto), and 1 is returned; else 0 (f kept). */
#define NSC_JFIT_ABOVE 2.0
#define NSC_JFIT_BELOW 1000.0
int nsc_jfit_refit(nsc_jfit *f, double ip, int nseg, int nmax, double tol);

/* ---- the interface ---- */

/* Two terminals of an element: indices into nsc_element.node. */
typedef struct nsc_tpair { signed char a, b; } nsc_tpair;

/* The class of an element in the topology checks (lcs_topo.c); each holds between n+ n-. */
typedef enum nsc_topo {
    NSC_TOPO_OTHER = 0, /* conducting through its dc pairs, or not at all; nothing else */
    NSC_TOPO_CAP,       /* capacitor: with voltage-defining branches, may close an index-2 loop */
    NSC_TOPO_IND,       /* inductor: with current sources, may form an index-2 cut-set */
    NSC_TOPO_VDEF,      /* voltage-defining branch (V, E, E TABLE, H, B V=) */
    NSC_TOPO_ISRC       /* current source (I, G, F, B I=): no DC conduction */
} nsc_topo;

/* The form of an element card, read by the netlist stage (nl_elab_el.c), which
 * knows card forms, not devices: the device table says which form each card
 * letter has. */
typedef enum nsc_cardform {
    NSC_CARD_NONE,      /* no card of its own (E TABLE: an E card; B ... I=: a B card) */
    NSC_CARD_VALUE,     /* X n+ n- value [IC= when ic_unit] (R, C, L; LTspice's Rser= ...): value or
                           <letter>=value */
    NSC_CARD_COUPLING,  /* K L1 L2 k */
    NSC_CARD_SOURCE,    /* X n+ n- waveform (V, I) */
    NSC_CARD_VCTRL,     /* X n+ n- nc+ nc- gain | VALUE= | TABLE (E, G) */
    NSC_CARD_ICTRL,     /* X n+ n- vsense gain (F, H) */
    NSC_CARD_MODEL,     /* X nodes... model [params] (D, M, S, W) */
    NSC_CARD_BJT,       /* Q c b e [s] model [area] */
    NSC_CARD_BEHAV      /* B n+ n- V=expr | I=expr */
} nsc_cardform;

#define NSC_DEV_LATE_LEVELS 3   /* the values of nsc_device.late */

typedef struct nsc_device {
    nsc_elkind kind;
    const char *what;   /* "resistor", ... (messages) */
    char letter;        /* its card's first letter, lower case (0: none, card NSC_CARD_NONE) */
    nsc_cardform card;  /* the form of that card */
    int late;           /* count() order: 0 first, then 1 (inductors), then 2 (capacitors): a device
                         * needs the topology of the earlier levels (< NSC_DEV_LATE_LEVELS) */
    /* Element ei's card read into its private data (c->el[ei].priv, one block of
     * malloc'd memory owned by the circuit, flat: freed with free()), called once
     * at the end of elaboration: the fitted curves and parameters that count(),
     * stamp(), current() and check() use. Silent: NULL when the card is bad (or no
     * memory); count() then reports why, so that the messages of a run keep the
     * assembly's order. NULL hook: the device keeps no data. */
    void *(*bind)(const nsc_circuit *c, int ei);
    /* The instance parameters of its card, name=value (> 0), read by the card's
     * parser into nsc_element.ipar[k] in this order (t[k].def when not given; the
     * offsets unused). NULL: none (any name=value is ignored with a warning). */
    const nsc_par *inst;
    int ninst;          /* at most NSC_MAXIPAR */
    const char *inst_unit; /* their unit ("m"; sweeps); NULL: none */
    /* The shape of a card of form NSC_CARD_MODEL (nl_elab_el.c card_model):
     * X n1 .. n<card_nodes> [vsense when card_sense] model [name=value | words]. */
    int card_nodes;     /* D, W 2; M, S 4 */
    int card_sense;     /* 1: a sense voltage source follows the nodes (W), into ref[0] */
    int card_state;     /* 1: the words ON / OFF set the initial state (has_ic, ic = 1 or 0: S, W) */
    int card_parasitic; /* 1: LTspice's parasitics: Rser= Rpar= Cpar= (NSC_CARD_VALUE: L, C),
                           Rser= (NSC_CARD_SOURCE: V; Cpar= ignored with a warning) */
    /* Needs and topology of element ei in ctx->mode; errors (with the card's
     * location) in ctx->r. */
    nsc_status (*count)(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need);
    /* Stamp element ei with its slots s. Errors in b->r; ENOMEM through b->nomem. */
    nsc_status (*stamp)(nsc_builder *b, int ei, const nsc_dev_slots *s);
    /* I(x) of element ei (flowing n+ -> n- through it, anode -> cathode) into f
     * (f empty on entry). NSC_OK or NSC_ENOMEM. NULL: the element has no current. */
    nsc_status (*current)(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f);
    /* ---- 5. power (losses.c) ---- */
    nsc_pclass pclass;  /* the element's class in the losses table (0: controlled source) */
    int swloss;         /* 1: EON/EOFF of its model are charged at its switch's state
                           changes, or its first pair's (on while active) */
    /* The ports of element ei: v[k] the voltage across port k, i[k] the current
     * through it, v i the power it absorbs there; at most NSC_MAXPORT, each empty
     * on entry; their number into *np. NSC_OK or NSC_ENOMEM. NULL: one port,
     * V(n+, n-) and current() (none when current is NULL). */
    nsc_status (*ports)(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *v, nsc_lin *i, int *np);
    /* ---- 6. sources ---- */
    /* The waveform of element ei's q-th source (need.nsrc of them). NULL: every
     * source of the element is its wave (V, I). */
    const nsc_wave *(*wave)(const nsc_circuit *c, int ei, int q);
    /* ---- 7. after a run ---- */
    /* Warnings about element ei's model over the run just made, from lpk (each
     * pair's largest multiplier, indexed as L's pairs): a fit used outside the
     * range it was made for. NULL: nothing to check. */
    void (*check)(const nsc_lcs *L, const nsc_circuit *c, int ei, const double *lpk, nsc_report *r);
    /* Element ei's fits that lpk's run left remade on the currents it saw
     * (nsc_jfit_refit) in its private data, each named in a note in r (the next
     * assembly uses them; the run is to be repeated): 1 when any was, else 0 and
     * nothing changed (the fits the card's IMIN/IMAX fix are never remade: check
     * warns about them). NULL: no fit follows the run. */
    int (*refit)(const nsc_lcs *L, const nsc_circuit *c, int ei, const double *lpk, nsc_report *r);
    /* At each step's end t (nsc_lcs_check_step): NSC_OK, or NSC_ESIM when element
     * ei's pairs l (indexed as L's) hold a value its equations cannot have. NULL:
     * nothing to check. */
    nsc_status (*step_check)(const nsc_lcs *L, const nsc_circuit *c, int ei, const double *l, double t, nsc_report *r);
    /* ---- 8. topology (lcs_topo.c, before any assembly) ---- */
    int ndc;            /* terminal pairs dc[0..ndc-1] through which it conducts at DC
                           (0: none, as a capacitor or a current source; at most 2) */
    nsc_tpair dc[2];
    nsc_topo topo;      /* its class in the loop and cut-set checks */
    /* ---- 9. outputs and units ---- */
    nsc_tpair port;     /* V(@x), P(x) of .meas: the voltage node[port.a] - node[port.b];
                           {0, 0} (unset): n+ n-, {0, 1} */
    const char *no_power; /* non-NULL: P(x) of .print/.meas is refused, this says why
                             ("a bipolar transistor (its power is in --losses)") */
    int out_current;    /* 1: I(x) is a default output (no .print given; waves.c) */
    const char *value_unit; /* unit of nsc_element.value ("Ω"); NULL: value unused */
    const char *ic_unit;    /* unit of its IC= ("V"); NULL: none */
    const char *wave_unit;  /* unit of nsc_element.wave's amplitude ("V"); NULL: the
                               element has no waveform of its own (wave unused) */
} nsc_device;
#define NSC_MAXPORT 3

/* The device of an element kind (never NULL for kind < NSC_EL_NKINDS). */
const nsc_device *nsc_device_of(nsc_elkind kind);
/* The device whose cards start with letter c (either case); NULL: none. */
const nsc_device *nsc_device_of_letter(int c);

/* d's port of V(@x), P(x): d->port, or n+ n- ({0, 1}) when unset. */
static inline nsc_tpair nsc_dev_port(const nsc_device *d)
{
    return d->port.a == d->port.b ? (nsc_tpair){ 0, 1 } : d->port;
}

#endif
