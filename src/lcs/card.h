/* card.h -- the card view: an element card as the netlist stage hands it to a
 * device's own parser (nsc_device.parse, devif.h). Internal header.
 *
 * The devices sit below the netlist in the layering (tests/check_layers.sh), so
 * a device file cannot see the netlist's cards, scopes or expressions. What it
 * sees is this view: the card's fields as plain data (nsc_cfield: kind, text,
 * location, sub-fields; the netlist stage's own nl_field is this type, so no
 * field is copied), and a table of the netlist stage's services (nsc_cardops)
 * for what only that stage knows: a field's value (numbers, {expr}, .param
 * names, in the card's scope), nodes and elements by name (the subcircuit
 * prefix), references to elements resolved after every card, models by name
 * (read, linked, made), and the parts this stage builds (parasitics, charges). Messages go through the view too:
 * nsc_card_err names the field as `file:line:col: error: ...` (plus the
 * instance, " (in instance x1)"), as the netlist stage's own messages.
 *
 * Conventions: a function returning nsc_status has reported its error (in the
 * run's report) when it returns non-zero; the parser returns that status at
 * once. The circuit v->c is the one being built: an element's index stays, its
 * address moves when an element is added (read v->c->el[el] after each op). */
#ifndef NSC_CARD_H
#define NSC_CARD_H

#include <stdarg.h>
#include <stddef.h>

#include "base/util.h"
#include "base/xcode.h"
#include "circuit/circuit.h"

struct nl_expr;   /* the netlist stage's expression: opaque here, read through op->value */
struct nsc_bprog; /* a behavioural source's program (devices/bprog.h) */

/* The kind of a card field. Syntax -> kind:
 *   word               WORD   s = "word" in lower case (node, number, keyword, name)
 *   "text"             STRING s = text without quotes
 *   {e} or 'e'         EXPR   x = parsed e
 *   name(f f, f ...)   CALL   s = name (lower case), sub[0..nsub) = the fields inside
 *   (f f, f ...)       GROUP  sub[0..nsub)
 *   key=value          PAIR   sub[0] = key field, sub[1] = value field;
 *                             after a plain word key the value is an expression
 *                             even without braces (EXPR), e.g. w=2*l */
typedef enum nsc_cfkind {
    NSC_CF_WORD,
    NSC_CF_STRING,
    NSC_CF_EXPR,
    NSC_CF_CALL,
    NSC_CF_GROUP,
    NSC_CF_PAIR
} nsc_cfkind;

/* A field of a card; line/col: 1-based position of its first character (of the
 * key for a PAIR) in the card's file. */
typedef struct nsc_cfield {
    int kind; /* nsc_cfkind */
    int line, col;
    int nsub;
    union {
        const char *s;
        struct nl_expr *x;
    } u;
    struct nsc_cfield *sub;
} nsc_cfield;

typedef struct nsc_cardview nsc_cardview;

/* The netlist stage's services to a card's parser. f: a field of the card
 * (NULL: its head, f[0]); el: an element the card made (an index of v->c->el). */
typedef struct nsc_cardops {
    /* an error NSC_ENETLIST at f, its message fmt; returns the status */
    nsc_status (*verr)(const nsc_cardview *v, const nsc_cfield *f, const char *fmt, va_list ap);
    /* a warning at f */
    void (*vwarn)(const nsc_cardview *v, const nsc_cfield *f, const char *fmt, va_list ap);
    /* NSC_ENOMEM reported; returns it */
    nsc_status (*oom)(const nsc_cardview *v);
    /* 1 and *x when f is a word that reads as a number (SPICE's: 1k, 10u, 2meg), else 0 */
    int (*number)(const nsc_cardview *v, const nsc_cfield *f, double *x);
    /* *x = the value of f: a number, {expr}, a bare expression, a .param name; finite */
    nsc_status (*value)(const nsc_cardview *v, const nsc_cfield *f, double *x);
    /* a new element of kind k named after the card's head (the subcircuit's
     * prefix + f[0]; a duplicate name is an error); *el its index */
    nsc_status (*element)(const nsc_cardview *v, nsc_elkind k, int *el);
    /* the fields f[1..n] as element el's nodes (nnode = n); an error when missing */
    nsc_status (*nodes)(const nsc_cardview *v, int el, int n);
    /* element el's ref[slot] = the element word field f names (the prefix
     * added), resolved after every card */
    nsc_status (*ref)(const nsc_cardview *v, const nsc_cfield *f, int el, int slot);
    /* element el's model = the .model field f names, checked against el's device */
    nsc_status (*model)(const nsc_cardview *v, const nsc_cfield *f, int el);
    /* the same for a MOS instance of length l, width w (metres, scaled): a name
     * that names no model names the bin NAME.K holding them */
    nsc_status (*model_bin)(const nsc_cardview *v, const nsc_cfield *f, int el, double l, double w);
    /* the index in v->c->model of the .model f names from the card's scope, -1 if none */
    int (*model_index)(const nsc_cardview *v, const nsc_cfield *f);
    /* *is = 1 when f names a resistor .model (RES, R): *scale its factor of the
     * element's value (R, TC1 TC2 at TNOM); else *is = 0 */
    nsc_status (*res_model)(const nsc_cardview *v, const nsc_cfield *f, int *is, double *scale);
    /* *n = a new internal node "<el>#<what>" of element el (field f: where a
     * netlist node of that name is refused as clashing with the internal node
     * of `of` + the card's head, e.g. "CONTROL= of ") */
    nsc_status (*inode)(const nsc_cardview *v, const nsc_cfield *f, int el, const char *what,
                        const char *of, int *n);
    /* Rser = r > 0 (LTspice's, field f) in series with element el: el's n-
     * moves to a new node "<el>#rser", a resistor of its own joins it to n- */
    nsc_status (*series_r)(const nsc_cardview *v, const nsc_cfield *f, int el, double r);
    /* a parasitic of element el: element "<el>#<what>" of kind k and value x
     * from node n0 to n1 (LTspice's Rpar= Cpar=) */
    nsc_status (*parasitic)(const nsc_cardview *v, int el, const char *what, nsc_elkind k, double x,
                            int n0, int n1);
    /* The A card's parts (devices/cards_xspice.c): elements of other names
     * and kinds, internal nodes, and the .model cards they read and write. */
    /* the card's element name, the subcircuit's prefix + f[0] in lower case, in
     * a buffer of the netlist stage's kept until the next op; NULL out of memory */
    const char *(*name)(const nsc_cardview *v);
    /* a new element of kind k named full (prefix included; a duplicate name is
     * an error); *el its index */
    nsc_status (*element_named)(const nsc_cardview *v, nsc_elkind k, const char *full, int *el);
    /* *n = the node word field f names in the card's scope, made when new */
    nsc_status (*node)(const nsc_cardview *v, const nsc_cfield *f, int *n);
    /* *n = a new node named full (prefix included; no clash check), located at f */
    nsc_status (*node_new)(const nsc_cardview *v, const char *full, const nsc_cfield *f, int *n);
    /* the index in v->c->model of element el's model, -1 if none (yet) */
    int (*model_of)(const nsc_cardview *v, int el);
    /* element el's model = model index m (its type checked by the caller) */
    void (*model_link)(const nsc_cardview *v, int el, int m);
    /* model m's parameter name (lower case) = x appended (a default the card
     * leaves out; the last setting wins in nsc_model_get) */
    nsc_status (*model_set)(const nsc_cardview *v, int m, const char *name, double x);
    /* the type word of model m as its .model card writes it ("aswitch" for a
     * model of type SW), NULL when it is not a word */
    const char *(*model_word)(const nsc_cardview *v, int m);
    /* the raw text of the .model card f names when that card did not parse
     * (XSPICE's core with its [ ] vectors), *name the model's name; NULL when
     * there is none (or the name is a parsed model) */
    const char *(*model_text)(const nsc_cardview *v, const nsc_cfield *f, const char **name);
    /* The transistors' expansions (devices/cards_expand.c) and the models a
     * .model card derives (nsc_device.model_read: v is that .model card). */
    /* 1 when the circuit has a node named full */
    int (*node_exists)(const nsc_cardview *v, const char *full);
    /* element el's charge (a charge-based capacitor, dev_cq.c): code[0 .. n)
     * of its nodes' voltages (PROBE 0 n+, then n-, ground left out), copied */
    nsc_status (*charge)(const nsc_cardview *v, int el, const nsc_xinstr *code, int n);
    /* *m = a new model of type t named model from's name + suffix, located
     * at it, known in the .model card's scope by its name + suffix */
    nsc_status (*model_new)(const nsc_cardview *v, int from, const char *suffix, nsc_modeltype t,
                            int *m);
    /* the devices in parallel of element el (the product of its instance
     * parameters flagged NSC_INST_PARALLEL) carried to the elements its card
     * expanded into (el + 1 ..): they divide the resistors, multiply the charge */
    nsc_status (*parallel)(const nsc_cardview *v, int el);

    /* Expressions (the netlist stage's: a device reads none itself). */
    /* *p = the expression of field f (NSC_CF_EXPR) compiled to the exact
     * piecewise-linear program of a behavioural source element el
     * (netlist/nl_pwl.c; free with nsc_bprog_free): V() names nodes of the
     * card's scope (made if new), .params are numbers, and each I(vsource) is a
     * reference resolved after every card into el's program (so el's priv must
     * be the program kept); mirror: the mirrored forms of max min abs uramp
     * (nl_pwl.h). An error at the subexpression it cannot compile. */
    nsc_status (*compile)(const nsc_cardview *v, const nsc_cfield *f, int el, int mirror,
                          struct nsc_bprog **p);
    /* nd[0 .. *n) = the nodes of f when f is the expression {V(a)} or {V(a,b)}
     * (names of the card's scope, made if new); *n = 0 when f is not one */
    nsc_status (*vnodes)(const nsc_cardview *v, const nsc_cfield *f, int nd[2], int *n);
    /* An expression built from fields (E G POLY), each node at field at's
     * position, in the elaboration's arena (freed with it; NULL out of memory,
     * also when an operand is NULL): the number c; V(p, m) of node names p m;
     * a + b (op '+') or a * b (op '*'). */
    struct nl_expr *(*x_num)(const nsc_cardview *v, const nsc_cfield *at, double c);
    struct nl_expr *(*x_volt)(const nsc_cardview *v, const nsc_cfield *at, const char *p,
                              const char *m);
    struct nl_expr *(*x_op)(const nsc_cardview *v, const nsc_cfield *at, int op, struct nl_expr *a,
                            struct nl_expr *b);
} nsc_cardops;

/* An element card as its device's parser sees it. */
struct nsc_cardview {
    const nsc_cfield *f; /* the fields, f[0] the head (the element's name as written) */
    int nf;
    nsc_circuit *c; /* the circuit being built */
    double scale;   /* ngspice's `.option scale` (1 unless given): lengths times it */
    const nsc_cardops *op;
    void *ctx; /* the netlist stage's (its scope and card) */
};

#endif
