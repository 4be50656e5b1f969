/* devif.h -- the device descriptor: the one interface of the devices (internal header).
 *
 * Every element kind has one nsc_device (one file dev_<x>.c) registered in the
 * table of devices.c (devices/device.h). The descriptor is declared here, below
 * the devices, because the assembler calls it: a bound circuit carries the
 * table (nsc_circuit.dev, set by nsc_devices_bind), which is how this stage
 * reaches the devices without naming one (nsc_devif_of). At the end of
 * elaboration each element's device reads its card once (bind(): the model
 * through a table of nsc_par, the fitted curves) into the element's private
 * data (nsc_element.priv; a device without bind() has there what its card's
 * parser compiled: E TABLE's points, a B source's program). nsc_element holds
 * no field of one kind of device. The assembler (lcs_asm.c) knows no device by name; it
 *   1. calls count() for every element (all devices with late == 0 first, in
 *      element order, then late == 1, then late == 2): the device says how many unknowns,
 *      pairs and sources it needs in ctx->mode, and declares the topology of
 *      its terminals with nsc_dev_link() (gmin and loop checks; DC paths are
 *      checked before, by lcs_topo.c from the table's dc fields);
 *   2. lays the unknowns out: node voltages, then the transient branches
 *      (nbranch, element order), then the static extra branches (nextra,
 *      element order), and gives each element its nsc_dev_slots;
 *   3. calls stamp() for every element: the device adds its entries to
 *      E A B C D, Ss Se, s0 e0 through the nsc_st_* helpers (stamp.h);
 *   4. (lcs_probe.c) calls current() for a probe I(x).
 * The other stages ask the table too (the later ones nsc_device_of, this one
 * nsc_devif_of): the topology checks (lcs_topo.c: dc, topo), the default
 * outputs (waves.c: out_current), .meas ports (nl_meas.c: port, current),
 * source periods and sweep units (meas.c, sweep_units.c: wave_unit,
 * value_unit, ic_unit, priv_unit), losses (losses.c: pclass, swloss, ports), the element
 * cards (nl_elab_el.c: letter, card, parse, card_opt; cards_expr.c: card_table, card_expr;
 * nl_model.c: models; nl_scope.c: name), ngspice's @x[param] and the currents of .meas at a node
 * (nl_dot.c: current_param, pin).
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
 *              .kind = NSC_EL_W, .what = "current-controlled switches", .name = "switch",
 *              .letter = 'w', .card = NSC_CARD_OWN,     W n+ n- vsense model
 *              .parse = nsc_card_model,    its card read through the card view
 *              .card_nodes = 2, .card_sense = 1, .card_state = 1,
 *              .models = {{"csw", NSC_MOD_CSW}, {"iswitch", NSC_MOD_CSW, 1}},  .model types
 *              .model_what = "a current switch (CSW)",
 *              .bind = w_bind, .count = w_count, .stamp = w_stamp, .current = w_current,
 *              .pclass = NSC_PC_SEMI, .swloss = 1,
 *              .ndc = 1, .dc = {{0, 1}},     conducts n+ n- at DC
 *          };
 *   b. devices.c: `nsc_dev_w` in the extern line and `[NSC_EL_W] = &nsc_dev_w`.
 *   c. the kind NSC_EL_W in circuit.h's nsc_elkind, dev_w.c in Makefile.am.
 * Nothing else: no parser, solver, checker or writer changes. A device reads
 * its own card (parse(), through the card view of lcs/card.h: the card's
 * fields as plain data and the netlist stage's services, errors located
 * `file:line:col: error:`): its own parser in its file (K: dev_k.c, Q: dev_q.c),
 * or the parser of a form it shares with others (devices/cards.c: R C L's
 * value, V I's source, F H's, D M S W J's model card, shaped by card_nodes,
 * card_sense, card_state and the inst table; devices/cards_expr.c: the forms
 * whose fields are expressions, E G's gain VALUE= POLY TABLE, B's V= I=, S's
 * CONTROL=, the expressions compiled by the view's op->compile;
 * devices/cards_xspice.c: the A card, whose parts read and write .model cards
 * through the view). A device with a card of a new form writes its parse() in
 * its file: no line of the netlist stage. The netlist stage reads itself only
 * the variants of a card that stand for parts it builds (card_opt: R's value
 * that reads time, C's Q=). */
#ifndef NSC_DEVIF_H
#define NSC_DEVIF_H

#include "circuit/circuit.h"
#include "lcs/card.h"
#include "lcs/lcs.h"
#include "lcs/stamp.h"
#include "base/util.h"

/* ---- 0. binding: a model card read once, at elaboration ----
 * A device's parameters are a table of nsc_par: name, offset of a double in the
 * device's card struct, default when the card does not set it, and the device's
 * own flag bits (e.g. "SPICE's diode only"). */
typedef struct nsc_par {
    const char *name; /* lower case */
    size_t off;       /* offsetof(card struct, field), a double */
    double def;
    unsigned flags;
} nsc_par;

/* The class of an element in the losses table (analysis/losses.c). */
typedef enum nsc_pclass {
    NSC_PC_CONTROLLED = 0, /* E F G H B, E TABLE: behavioural, may deliver or absorb */
    NSC_PC_SOURCE,         /* independent V, I */
    NSC_PC_RESISTOR,
    NSC_PC_SEMI,  /* diodes, MOS, switches: conduction losses */
    NSC_PC_STORE, /* capacitors, inductors */
    NSC_PC_GMIN   /* the gmin conductances of nodes with no DC path but through pairs */
} nsc_pclass;

/* ---- the interface ---- */

/* Two terminals of an element: indices into nsc_element.node. */
typedef struct nsc_tpair {
    signed char a, b;
} nsc_tpair;

/* The class of an element in the topology checks (lcs_topo.c); each holds between n+ n-. */
typedef enum nsc_topo {
    NSC_TOPO_OTHER = 0, /* conducting through its dc pairs, or not at all; nothing else */
    NSC_TOPO_CAP,       /* capacitor: with voltage-defining branches, may close an index-2 loop */
    NSC_TOPO_IND,       /* inductor: with current sources, may form an index-2 cut-set */
    NSC_TOPO_VDEF,      /* voltage-defining branch (V, E, E TABLE, H, B V=) */
    NSC_TOPO_ISRC       /* current source (I, G, F, B I=): no DC conduction */
} nsc_topo;

/* The form of an element card: none, or read by the device itself (its
 * parse() through the card view, lcs/card.h; expressions compiled by the
 * view's op->compile): the device table says which card letter has one. */
typedef enum nsc_cardform {
    NSC_CARD_NONE, /* no card of its own (E TABLE: an E card; B ... I=: a B card) */
    NSC_CARD_OWN   /* read by the device's parse() (R C L K V I E G F H B D M S W J Q A) */
} nsc_cardform;

/* The variants of a card form a device takes (nsc_device.card_opt): those the
 * netlist stage builds itself (TIMESW, CHARGE: nl_elab_el.c, before the
 * device's parse()), those its parser reads (devices/cards.c, cards_expr.c). */
enum {
    NSC_CARDOPT_TIMESW = 1 << 0, /* VALUE: a value {cond ? R1 : R2} that reads time is a switch
                                     driven by cond (R: a load step) */
    NSC_CARDOPT_CHARGE = 1 << 1, /* VALUE: Q=expr, a capacitor of that charge (C; nl_qcap.c) */
    NSC_CARDOPT_RMODEL =
        1 << 2, /* VALUE: a resistor model may stand before or after the value (R) */
    NSC_CARDOPT_MTIMES = 1 << 3,  /* VALUE: m= (in parallel) multiplies the value (C); else divides
                                     it (R, L) */
    NSC_CARDOPT_CONTROL = 1 << 4, /* MODEL: CONTROL={expr}, Xyce's generic switch (S) */
    NSC_CARDOPT_VDMOS = 1 << 5,   /* MODEL: a VDMOS model's card d g s [x] model, its body its
                                     source, expanded into RD RS RG, body diode and Cgd (M) */
    NSC_CARDOPT_BINS = 1 << 6,    /* MODEL: a model name that names no model names bins, chosen by
                                     the instance's L= W= (M; nl_model.c) */
    NSC_CARDOPT_SERIESR = 1 << 7  /* MODEL: the model's RD RS are resistors of their own (M, J;
                                     devices/cards_expand.c) */
};

/* Flags of an instance parameter (nsc_device.inst[k].flags), read by the netlist stage. */
#define NSC_INST_LENGTH 1u /* a length: times `.option scale` (MOS W= L=) */
#define NSC_INST_AREA 2u   /* an area: times scale squared (MOS AD= AS=) */
#define NSC_INST_PARALLEL \
    4u /* a count of devices in parallel (AREA, m): their product divides
                                the resistors the card expanded into, multiplies their charge */

#define NSC_DEV_LATE_LEVELS 3 /* the values of nsc_device.late */

/* A type name of .model cards (lower case) and the type it reads as; alias: left
 * out of the list of supported types in messages (Xyce's VSWITCH: an SW). */
typedef struct nsc_modname {
    const char *name;
    nsc_modeltype type;
    int alias;
} nsc_modname;
#define NSC_MAXMODNAME 20

typedef struct nsc_device {
    nsc_elkind kind;
    const char *what;  /* "resistors", ... (messages about all of them) */
    const char *name;  /* "resistor", ... (messages about one: "missing model name for diode d1") */
    char letter;       /* its card's first letter, lower case (0: none, card NSC_CARD_NONE) */
    nsc_cardform card; /* the form of that card */
    int late;          /* count() order: 0 first, then 1 (inductors), then 2 (capacitors): a device
                         * needs the topology of the earlier levels (< NSC_DEV_LATE_LEVELS) */
    /* Its card read through the card view (lcs/card.h; its card NSC_CARD_OWN): the elements the card
     * makes (d->kind's, named after the card), their nodes, values, wave,
     * instance parameters, models and references, every error through the
     * view (`file:line:col: error:`). The netlist stage calls it for a card
     * starting with d->letter (NULL: the card NSC_CARD_NONE). */
    nsc_status (*parse)(const struct nsc_device *d, const nsc_cardview *v);
    /* A .model card of a type it takes, just read into v->c->model[mi] (v: that
     * card): the parameters and models the device derives from it (a VDMOS's
     * CGSO and body diode model: devices/cards_expand.c). NULL: none. */
    nsc_status (*model_read)(const struct nsc_device *d, const nsc_cardview *v, int mi);
    /* Element ei's card read into its private data (c->el[ei].priv, one block of
     * malloc'd memory owned by the circuit, flat: freed with free()), called once
     * at the end of elaboration: the fitted curves and parameters that count(),
     * stamp(), current() and check() use. Silent: NULL when the card is bad (or no
     * memory); count() then reports why, so that the messages of a run keep the
     * assembly's order. NULL hook: the element's private data are what its
     * card's parser made (E TABLE's points: device.h nsc_etab; a B source's
     * program, compiled by the card view's op->compile: bprog.h, freed by the
     * element's priv_free), or none. */
    void *(*bind)(const nsc_circuit *c, int ei);
    /* The instance parameters of its card, name=value (> 0), read by the card's
     * parser into nsc_element.ipar[k] in this order (t[k].def when not given; the
     * offsets unused). NULL: none (any name=value is ignored with a warning). */
    const nsc_par *inst;   /* flags: NSC_INST_* */
    int ninst;             /* at most NSC_MAXIPAR */
    const char *inst_unit; /* their unit ("m"; sweeps); NULL: none */
    /* The shape of a model card read by nsc_card_model (devices/cards.c):
     * X n1 .. n<card_nodes> [vsense when card_sense] model [name=value | words]. */
    int card_nodes; /* D, W 2; M, S 4 */
    int card_sense; /* 1: a sense voltage source follows the nodes (W), into ref[0] */
    int card_state; /* 1: the words ON / OFF set the initial state (has_ic, ic = 1 or 0: S, W) */
    /* The .model types its card may name (a model card's), name NULL
     * after the last: the elaborator reads a .model card's type here (nl_model.c;
     * the first name of a type, upper case, names it in messages: "NMOS"). */
    nsc_modname models[NSC_MAXMODNAME];
    const char *model_what; /* those types in a message: "a diode (D)" */
    /* SPICE's defaults of those models' parameters (ngspice's), name NULL after
     * the last (off unused): a .model defined again with other values but
     * equal once these fill in what one leaves out is the same (nl_model.c) */
    const nsc_par *model_defs;
    int card_parasitic; /* 1: LTspice's parasitics: Rser= Rpar= Cpar= (a value card: L, C),
                           Rser= (a source's: V; Cpar= ignored with a warning) */
    unsigned card_opt;  /* the variants of its card's form it takes: NSC_CARDOPT_* bits */
    /* nsc_card_vctrl (E G): the devices its TABLE form (E: E TABLE) and its
     * VALUE= and POLY forms (E: B V=, G: B I=) make; nsc_card_behav (B): the
     * device of I=expr (V=expr makes its own). NULL: that form is refused. */
    const struct nsc_device *card_table, *card_expr;
    /* Needs and topology of element ei in ctx->mode; errors (with the card's
     * location) in ctx->r. */
    nsc_status (*count)(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need);
    /* Stamp element ei with its slots s. Errors in b->r; ENOMEM through b->nomem. */
    nsc_status (*stamp)(nsc_builder *b, int ei, const nsc_dev_slots *s);
    /* I(x) of element ei (flowing n+ -> n- through it, anode -> cathode) into f
     * (f empty on entry). NSC_OK or NSC_ENOMEM. NULL: the element has no current. */
    nsc_status (*current)(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f);
    /* ---- 5. power (losses.c) ---- */
    nsc_pclass pclass; /* the element's class in the losses table (0: controlled source) */
    int swloss;        /* 1: EON/EOFF of its model are charged at its switch's state
                           changes, or its first pair's (on while active) */
    int swcap;         /* 1: a controlled switch (MOS, S, W): the capacitors' energy lost in
                           the restart after its turn-on is its switching loss (losses.h) */
    /* The ports of element ei: v[k] the voltage across port k, i[k] the current
     * through it, v i the power it absorbs there; at most NSC_MAXPORT, each empty
     * on entry; their number into *np. NSC_OK or NSC_ENOMEM. NULL: one port,
     * V(n+, n-) and current() (none when current is NULL). */
    nsc_status (*ports)(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *v, nsc_lin *i,
                        int *np);
    /* ---- 6. sources ---- */
    /* The waveform of element ei's q-th source (need.nsrc of them). NULL: every
     * source of the element is its wave (V, I). */
    const nsc_wave *(*wave)(const nsc_circuit *c, int ei, int q);
    /* ---- 7. after a run ---- */
    /* Warnings about element ei's model over the run just made, from lpk (each
     * pair's largest multiplier, indexed as L's pairs): a fit used outside the
     * range it was made for. NULL: nothing to check. */
    void (*check)(const nsc_lcs *L, const nsc_circuit *c, int ei, const double *lpk, nsc_report *r);
    /* Element ei's fits that lpk's run left remade (nsc_jfit_refit) in its
     * private data, each named in a note in r (the next assembly uses them; the
     * run is to be repeated): 1 when any was, else 0 and nothing changed (the
     * fits the card's IMIN/IMAX fix are never remade: check warns about them).
     * NULL: no fit follows the run. complete 0: the run failed part way (its
     * peaks count, but not its least currents: no band refit, dev_q.c); 2:
     * lpk is one operating point's (.op, .ac's: pwl_exp.h nsc_jfit_follow). */
    int (*refit)(const nsc_lcs *L, const nsc_circuit *c, int ei, const double *lpk, int complete,
                 nsc_report *r);
    /* 1 when refit on lpk (complete 0) would remake one of element ei's fits;
     * changes nothing (a run asks it part way: the exact transient stops a pass
     * whose fits were left, stepper_exact.c). NULL with refit set: the device
     * cannot tell part way, and no pass of its circuit stops early. */
    int (*refit_due)(const nsc_lcs *L, const nsc_circuit *c, int ei, const double *lpk);
    /* The small-signal slopes at an operating point (the AC analysis, ac.c):
     * for each of element ei's fitted junctions whose current l[j] > 0 (its pair
     * 0 is j), dD[j] += the curve's tangent dv/di at l[j] minus the fit's chord
     * slope there, so that its conductance is the SPICE junction's own at that
     * current (g_m = i/(N Vt)), not its chord's. NULL: the chords' slopes. */
    void (*ac_tangent)(const nsc_lcs *L, const nsc_circuit *c, int ei, const double *l, double *dD);
    /* mark[j] = 1 for the pairs j of element ei whose lpk check and refit read
     * (the others' peaks need not be tracked by a run). NULL: all its pairs. */
    void (*check_pairs)(const nsc_lcs *L, const nsc_circuit *c, int ei, char *mark);
    /* 1: its check, refit and refit_due read a peak lpk[j] < -NSC_JFIT_YSEEN
     * (pwl_exp.h) as the least slack -y_j of a pair that never conducted
     * (device.h nsc_dev_seen: its fitted junctions' voltages, nsc_jfit_seen);
     * 0: its pairs' peaks are their multipliers alone. */
    int vseen;
    /* The junctions of element e that ngspice puts gmin across (its load
     * routines add gmin to each junction's conductance): their node pairs into
     * a[k], b[k] (at most 3); their number. NULL: none (lcs_asm.c
     * nsc_lcs_assemble_jgmin). */
    int (*junctions)(const nsc_element *e, int *a, int *b);
    /* At each step's end t (nsc_lcs_check_step): NSC_OK, or NSC_ESIM when element
     * ei's pairs l (indexed as L's) hold a value its equations cannot have. NULL:
     * nothing to check. */
    nsc_status (*step_check)(const nsc_lcs *L, const nsc_circuit *c, int ei, const double *l,
                             double t, nsc_report *r);
    /* ---- 8. topology (lcs_topo.c, before any assembly) ---- */
    int ndc; /* terminal pairs dc[0..ndc-1] through which it conducts at DC
                           (0: none, as a capacitor or a current source; at most 2) */
    nsc_tpair dc[2];
    nsc_topo topo; /* its class in the loop and cut-set checks */
    /* ---- 9. outputs and units ---- */
    nsc_tpair port;            /* V(@x), P(x) of .meas: the voltage node[port.a] - node[port.b];
                           {0, 0} (unset): n+ n-, {0, 1} */
    const char *current_param; /* ngspice's @x[param] of I(x) (.save): "id"; NULL: "i" */
    /* The sign of I(x) in the current leaving the node of terminal t into the
     * element (nl_dot.c: the currents of .meas at a node): +1, -1, 0 (the
     * terminal carries none: a control input), 2: not +-I(x) (a MOS gate, a
     * bipolar transistor). All 0 (unset): +1 at n+, -1 at n-, 0 elsewhere. */
    signed char pin[4];
    const char *no_power;   /* non-NULL: P(x) of .print/.meas is refused, this says why
                             ("a bipolar transistor (its power is in --losses)") */
    int out_current;        /* 1: I(x) is a default output (no .print given; waves.c) */
    const char *value_unit; /* unit of nsc_element.value ("Ω"); NULL: value unused */
    const char *ic_unit;    /* unit of its IC= ("V"); NULL: none */
    const char *wave_unit;  /* unit of nsc_element.wave's amplitude ("V"); NULL: the
                               element has no waveform of its own (wave unused) */
    /* The unit of what element b's private data change from a's (same kind, the
     * same card but for a parameter's value: sweep units), NULL when the same, "?"
     * when of no one unit. NULL hook: the data are not compared. */
    const char *(*priv_unit)(const nsc_element *a, const nsc_element *b);
} nsc_device;
#define NSC_MAXPORT 3

/* The device of element kind k in the circuit c as it was bound (c->dev:
 * devices.c's table; c must have been bound), NULL for no kind. */
static inline const nsc_device *nsc_devif_of(const nsc_circuit *c, nsc_elkind k)
{
    return (unsigned)k < NSC_EL_NKINDS ? c->dev[k] : NULL;
}

/* d's port of V(@x), P(x): d->port, or n+ n- ({0, 1}) when unset. */
static inline nsc_tpair nsc_dev_port(const nsc_device *d)
{
    return d->port.a == d->port.b ? (nsc_tpair){ 0, 1 } : d->port;
}

/* 1 when d's card may name a model of type t (d->models). */
static inline int nsc_dev_takes(const nsc_device *d, nsc_modeltype t)
{
    for (int k = 0; k < NSC_MAXMODNAME && d->models[k].name; k++)
        if (d->models[k].type == t) return 1;
    return 0;
}

#endif
