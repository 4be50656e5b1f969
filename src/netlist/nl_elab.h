/* nl_elab.h -- internal to the elaboration (deck -> nsc_circuit): the state
 * its files share and the functions one file calls in another. Not installed,
 * included by the seven files below only.
 *
 * Files: nl_elab.c (driver: cards sorted into definitions, the order of the
 * passes, final resolution), nl_scope.c (messages, names, values, nodes,
 * elements of a scope), nl_elab_el.c (element cards), nl_subckt.c (.subckt
 * definitions and X instances), nl_dot.c (dot cards, .save/.print, .func),
 * nl_model.c (.model cards).
 *
 * Conventions of every function below: E is the one elaboration state (owned
 * by nl_elab.c from_deck); sc the scope (instance) a card is read in; cd the
 * card, f one of its fields (locations of messages). A function returning
 * nsc_status has reported its error in E->r when it returns non-zero (the
 * messages' text and order are part of the interface: tests and users compare
 * them); none prints or exits. Strings returned in E->buf
 * (nle_cat, nle_node_fullname) live until the next call that writes E->buf. */
#ifndef NSC_NL_ELAB_H
#define NSC_NL_ELAB_H

#include <stdarg.h>

#include "netlist.h"
#include "nl_deck.h"
#include "nl_probe.h"

#define NL_MAXNEST 1000 /* subcircuit instances nested deeper are an error */

/* A definition: the top level (hdr == NULL) or a .subckt. */
typedef struct def {
    const char *name;   /* lower case */
    const nl_card *hdr; /* the .subckt card */
    struct def *parent;
    int *body; /* its own cards (not those of nested definitions) */
    int nbody, capbody;
    nl_hash subs;      /* nested definitions: name -> index in elab.defs */
    nl_hash pars;      /* parameter name -> index of its field in hdr->f */
    int nport;         /* ports are hdr->f[2 .. 2+nport) */
    int active;        /* being expanded (recursion check) */
    int sized;         /* def_size: 0 not yet, 1 in progress, 2 done */
    double nel, ninst; /* elements and instances one instance expands to */
} def;

/* An instance of a definition. */
typedef struct scope {
    const def *df;
    struct scope *up;   /* instance of df->parent */
    const char *prefix; /* "x1.x2." or "" */
    const char *where;  /* " (in instance x1.x2)" or "" */
    int depth;
    nl_hash params; /* name -> index in pval */
    double *pval;
    int npar, cappar;
    nl_hash models; /* local name -> index in circuit->model */
    nl_hash
        othermodels; /* local name -> card of a .model of a type not supported (an error once used) */
    nl_hash ports;   /* port name -> index in portnode */
    int *portnode;
} scope;

/* A reference resolved at the end: element el's ref[slot] = element named name. */
typedef struct fixup {
    int el, slot;
    int term; /* >= 0: B source's I() reference nsc_bprog_of(el)->elref[term] instead */
    char *name;
    const nl_card *cd;
    const nl_field *f;
    const char *where;
} fixup;

/* .ic V(name)=value, resolved at the end */
typedef struct icfix {
    char *node;
    double v;
    const nl_card *cd;
    const nl_field *f;
    const char *where;
} icfix;

/* The state of one elaboration: from_deck (nl_elab.c) creates it zeroed,
 * elab_free frees everything in it but the circuit c, which goes to the
 * caller on success. Arrays with a cap* field grow with nsc_grow. */
typedef struct elab {
    nl_deck *d;
    nsc_report *r;
    nsc_circuit *c;
    nl_arena ar; /* scope names, parameter names */
    def **defs;
    int ndef, capdef;
    nl_hash nodes, els, globals, probes;
    nl_hash inodes; /* internal node of an Rser= ("l1#rser") -> its element */
    nl_hash pins;   /* "x1:d" and "x1:1" (instance, port name or number) -> the port's node */
    int capnode, capel, capmodel, capsave, capic;
    int *elmodel;    /* [nel] model index of D/M/S, else -1 */
    int *model_card; /* [capmodel] the card of each model (duplicates are compared with it) */
    nl_func *funcs;  /* .func and .param f(x)= definitions, every scope's (one namespace) */
    int nfunc, capfunc;
    char *ctl_unrun; /* .control commands not run, "plot, print, let" (one note at the end) */
    int ctl_first;   /* the card of the first of them */
    fixup *fix;
    int nfix, capfix;
    icfix *ic;
    int nic, capic2;
    int *ctlcards; /* .control wrdata/write/print cards (nle_resolve_ctl) */
    int nctl, capctl;
    int *save; /* top-level .save/.print cards */
    int nsavecard, capsavecard;
    int *small; /* top-level .ac .dc .print ac|dc .meas ac cards (nl_dot_ac.c) */
    int nsmall, capsmall;
    const nsc_param_set *ov;
    int nov;
    char *ovused;
    char *buf; /* name buffer */
    size_t capbuf;
    long ninst;  /* subcircuit instances expanded (<= NL_MAXELEMENTS) */
    int capstep; /* capacity of circuit->step */
    double
        scale; /* .option scale (ngspice): MOS W L times it, AD AS times its square; 1 unless given */
} elab;

/* ---- nl_scope.c: messages ---- */

/* NSC_ENOMEM "out of memory" in E->r; returns the status. */
nsc_status nle_oom(elab *E);

/* Error NSC_ENETLIST at field f of card cd (its first field when f is NULL),
 * followed by sc->where (" (in instance x1)") when sc is not NULL; returns it. */
nsc_status nle_err(elab *E, const scope *sc, const nl_card *cd, const nl_field *f, const char *fmt,
                   ...) __attribute__((format(printf, 5, 6)));

/* nle_err and nle_warn of a va_list (the card view's messages, nl_elab_el.c). */
nsc_status nle_verr(elab *E, const scope *sc, const nl_card *cd, const nl_field *f, const char *fmt,
                    va_list ap);
void nle_vwarn(elab *E, const scope *sc, const nl_card *cd, const nl_field *f, const char *fmt,
               va_list ap);

/* Warning at field f of card cd (first field when NULL), decorated as nle_err. */
void nle_warn(elab *E, const scope *sc, const nl_card *cd, const nl_field *f, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Note at field f of card cd (first field when NULL): fmt with one string arg. */
void nle_note(elab *E, const nl_card *cd, const nl_field *f, const char *fmt, const char *arg);

/* ---- nl_scope.c: fields and names ---- */

/* Text of field f for messages ("{...}" for an expression, "(...)" a group). */
const char *nle_ftext(const nl_field *f);

/* 1 when f is the word w (case aside). */
int nle_is_word(const nl_field *f, const char *w);

/* 1 when card cd's head (f[0]) is the word w (case aside). */
int nle_head_is(const nl_card *cd, const char *w);

/* The key of PAIR field f in lower case, copied into k[cap]; NULL if f is not
 * a PAIR or its key is not a word. */
const char *nle_pair_key(const nl_field *f, char *k, size_t cap);

/* E->buf = a followed by b in lower case; NULL out of memory (nothing reported). */
const char *nle_cat(elab *E, const char *a, const char *b);

/* 1 when s is an identifier: a letter or '_', then letters, digits, '_', '.'. */
int nle_is_ident(const char *s);

/* ---- nl_scope.c: parameters and values ---- */

/* nl_env lookup of parameter name from scope ctx up to the top level: 1 and
 * *v when found, else 0. */
int nle_scope_lookup(void *ctx, const char *name, double *v);

/* Parameter name (lower case) = v in scope sc, created or replaced. */
nsc_status nle_param_set(elab *E, scope *sc, const char *name, double v);

/* *v = the value of field f: a number, {expr}, a bare expression, a .param name;
 * finite. */
nsc_status nle_value(elab *E, scope *sc, const nl_card *cd, const nl_field *f, double *v);

/* Frees the tables and arrays of scope s (not s itself, not its strings: E->ar). */
void nle_scope_free(scope *s);

/* ---- nl_scope.c: nodes, elements, forward references ---- */

/* New node named name (copied) in E->c, located at field f of cd (none when cd
 * is NULL); *idx its index. Errors past NL_MAXELEMENTS nodes. */
nsc_status nle_node_new(elab *E, const char *name, const nl_card *cd, const nl_field *f, int *idx);

/* Full name of node name seen in scope sc: "0" for 0/gnd, the caller's node
 * for a port, the name for a .global, else prefix + name; in E->buf or the
 * circuit's own strings; NULL out of memory. */
const char *nle_node_fullname(elab *E, const scope *sc, const char *name);

/* *idx = node of word field f in scope sc, created when new; an error for a
 * node that is the internal node of an Rser=. */
nsc_status nle_node(elab *E, scope *sc, const nl_card *cd, const nl_field *f, int *idx);

/* What probe kind in names (nl_probe_resolve_in by E->nodes and E->els: in
 * lower case, "a", "a,b" or "x", cut at its comma; opts NL_PROBE_*) into p
 * (zeroed first); once every node and element exists. */
nl_probe_fail nle_probe(elab *E, nsc_probekind kind, char *in, int opts, nsc_probe *p,
                        const char **bad);

/* 1 when output field f of a .save or .print card cd (a node name, V(a[,b])
 * or a part of it such as VDB(a), I(x)) names a node or an element the circuit
 * has not, with a warning that the column is not written (ngspice ignores such
 * an output: issue 28); 0 otherwise, other faults left to the caller. */
int nle_output_missing(elab *E, const nl_card *cd, const nl_field *f, int opts);

/* Name of element kind k for messages ("resistor", ...). */
const char *nle_kind_name(nsc_elkind k);

/* New element of kind k named full (prefix included, copied) for card cd; *idx
 * its index. Errors on a duplicate name and past NL_MAXELEMENTS elements;
 * grows E->elmodel with E->c->el. */
nsc_status nle_element_named(elab *E, scope *sc, const nl_card *cd, nsc_elkind k, const char *full,
                             int *idx);

/* nle_element_named with the card's head in scope sc: prefix + f[0]. */
nsc_status nle_element_new(elab *E, scope *sc, const nl_card *cd, nsc_elkind k, int *idx);

/* Nodes f[1..n] of card cd into element el (nnode = n); an error when missing. */
nsc_status nle_nodes(elab *E, scope *sc, const nl_card *cd, int el, int n);

/* Element el's ref[slot] = the element named by word field f (prefix + name),
 * resolved by nl_elab.c after every card (E->fix). */
nsc_status nle_fixup_add(elab *E, scope *sc, const nl_card *cd, const nl_field *f, int el,
                         int slot);

/* ---- nl_elab.c ---- */

/* Elaborate the cards of scope sc: .param, then .model, then the rest. */
nsc_status nle_scope_run(elab *E, scope *sc);

/* ---- nl_elab_el.c: element cards ---- */

/* An element card (R C L K V I E G F H D M S W Q B, X through nle_card_x);
 * unknown and unsupported letters are errors naming what to use instead. */
nsc_status nle_card_element(elab *E, scope *sc, const nl_card *cd);

/* The models .model card cd (in scope sc; model mi, just read) derives, by the
 * devices that take its type (nsc_device.model_read, through the card view). */
nsc_status nle_model_read(elab *E, scope *sc, const nl_card *cd, int mi);

/* A capacitor card whose value is a charge-based one (nl_qcap.c): its value
 * field, Q= (*isq = 1) or C= / a bare expression reading V() (*isq = 0); NULL
 * when it is an ordinary capacitor. */
const nl_field *nle_cq_field(const nl_card *cd, int *isq);
/* That card (value field vf) as a charge-based capacitor (dev_cq.c). */
nsc_status nle_card_cq(elab *E, scope *sc, const nl_card *cd, const nl_field *vf, int isq);
/* Element el's charge (a charge-based capacitor): code[0 .. n) of its nodes'
 * voltages (PROBE 0 n+, then n-, ground left out), copied. */
nsc_status nle_cq_code(elab *E, int el, const nsc_xinstr *code, int n);
/* The charge of element el (a charge-based capacitor) times m (devices in parallel). */
nsc_status nle_cq_scale(elab *E, int el, double m);

/* Element "<name of el>#<what>" of kind k and value v from node n0 to n1
 * (LTspice's parasitics, the transistors' expansions: devices/cards_expand.c). */
nsc_status nle_parasitic(elab *E, scope *sc, const nl_card *cd, int el, const char *what,
                         nsc_elkind k, double v, int n0, int n1);

/* ---- nl_subckt.c: definitions and instances ---- */

/* New definition of .subckt card hdr (NULL: the top level) nested in parent,
 * appended to E->defs (which owns it); NULL out of memory (nothing reported). */
def *nle_def_new(elab *E, def *parent, const nl_card *hdr);

/* .subckt card cd inside definition cur: its definition, header checked
 * (name, ports, params), into *d. */
nsc_status nle_subckt_open(elab *E, def *cur, const nl_card *cd, def **d);

/* d->nel, d->ninst counted before expansion; *over = the first card past
 * NL_MAXELEMENTS (over may be NULL). */
void nle_def_size(const elab *E, def *d, int depth, const nl_card **over);

/* X card: a new scope, its ports and parameters, then nle_scope_run. */
nsc_status nle_card_x(elab *E, scope *sc, const nl_card *cd);

/* ---- nl_dot.c: dot cards ---- */

/* .param name=value ... in scope sc (--param E->ov overrides the top level's). */
nsc_status nle_card_param(elab *E, scope *sc, const nl_card *cd);

/* Any dot card other than .param and .model (pass 2 of a scope). */
nsc_status nle_card_dot(elab *E, scope *sc, const nl_card *cd);

/* Every .func and .param f(x)= of the deck into E->funcs, before any value. */
nsc_status nle_funcs_collect(elab *E);

/* The top-level .save / .print cards (E->save) as probes and derived columns,
 * after every element exists. */
nsc_status nle_resolve_save(elab *E);

/* The .control output commands, after every element and measure exists. */
nsc_status nle_resolve_ctl(elab *E);

/* Drop (warned) the nodes no element touches nor program reads: an X card's
 * node on a port its subcircuit leaves unconnected; the others renumbered. */
nsc_status nle_drop_loose_nodes(elab *E);

/* Warn of each node that one element terminal alone touches (no B source reads it). */
void nle_lonely_nodes(elab *E);

/* ---- nl_dot_ac.c: .ac .dc .print ac|dc .meas ac (issue 29) ---- */
/* *taken = 1 when cd is one of them: recorded (a top-level card) or warned
 * about (inside a .subckt). */
nsc_status nle_small_card(elab *E, scope *sc, const nl_card *cd, int *taken);
/* The recorded cards read into E->c, after every element and node is known. */
nsc_status nle_resolve_small(elab *E, scope *top);

/* ---- nl_model.c: models ---- */

/* .model card cd in scope sc: c->model[] and sc->models (a type not supported
 * goes to sc->othermodels, an error only when used). */
nsc_status nle_card_model(elab *E, scope *sc, const nl_card *cd);

/* E->scale from the top level's `.option scale=` (nl_dot.c). */
nsc_status nle_option_scale(elab *E, scope *top);

/* E->elmodel[el] = the model named by field f, seen from scope sc, checked
 * against the element's kind. */
nsc_status nle_model_ref(elab *E, scope *sc, const nl_card *cd, const nl_field *f, int el);
/* The same for a MOS instance of length l, width w (metres, scaled): a name that
 * is not a model names the bin NAME.K holding them (nle_model_bin). */
nsc_status nle_model_ref_lw(elab *E, scope *sc, const nl_card *cd, const nl_field *f, int el,
                            double l, double w);

/* Index of the model named by field f in scope sc or an enclosing one, -1 if none. */
int nle_model_named(elab *E, const scope *sc, const nl_field *f);
/* The .model card named by f that did not parse (nl_deck.c deferred_card:
 * ".model NAME MESSAGE TEXT"), NULL when none (or the name is a model). */
const nl_card *nle_model_unparsed(elab *E, const scope *sc, const nl_field *f);
/* The bin (.model NAME.K, LMIN LMAX WMIN WMAX) of the model named by f for
 * L = l, W = w (metres, scaled): *m, -1 when no NAME.K is defined (nl_model.c). */
nsc_status nle_model_bin(elab *E, scope *sc, const nl_card *cd, const nl_field *f, double l,
                         double w, int *m);

/* A new, zeroed model at c->model[c->nmodel] for card cd (the caller counts
 * it: nmodel++); NULL out of memory (nothing reported). */
nsc_model *nle_model_new(elab *E, const nl_card *cd);

/* A resistor .model (RES or R) named by field f: 1 and *scale, the factor of
 * the element's value (R, TC1 TC2 at TNOM); 0 when f names none; -1 on error. */
int nle_res_model(elab *E, scope *sc, const nl_card *cd, const nl_field *f, double *scale);

/* Append parameter name (copied) = v to model m; *cap its arrays' capacity. */
nsc_status nle_model_set(elab *E, nsc_model *m, int *cap, const char *name, double v);

#endif
