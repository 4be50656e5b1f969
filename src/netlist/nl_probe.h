/* nl_probe.h -- the one probe resolver: the name inside V(...) or I(...)
 * against an elaborated circuit, into the plain descriptor nsc_probe (its kind,
 * node indices, element index). The .meas probes (nl_meas.c), the .save,
 * .print and .control outputs (nl_dot.c, by the elaboration's hash tables) and
 * the program's --save list (output/waves.c) resolve their names here; each
 * caller words its own messages from what this returns. V()/I() calls inside
 * expressions (.meas, derived columns, B sources) are read by nl_probe_args. */
#ifndef NSC_NL_PROBE_H
#define NSC_NL_PROBE_H

#include "circuit/circuit.h"
#include "nl_expr.h"

/* What a name denotes (NL_PROBE_OK), else what is wrong with it. */
typedef enum nl_probe_fail {
    NL_PROBE_OK = 0,
    NL_PROBE_NODE,      /* V: a node unknown (*bad: its name) */
    NL_PROBE_ELEMENT,   /* I: no element of that name */
    NL_PROBE_NOCURRENT, /* I: the element's device gives no current (a coupling K); p->el is set */
    NL_PROBE_NOPORT     /* V(@x): no element x with two terminals and a current */
} nl_probe_fail;

/* Options of nl_probe_resolve. */
enum {
    NL_PROBE_FLAT = 1, /* an element also by ngspice's flattened name, "v.x1.v5" for x1.v5 */
    NL_PROBE_PORT = 2 /* V(@x): the voltage across element x's port (P(x) of .meas; devif.h port) */
};

/* The probe of kind named in (the text inside the parentheses: "a", "a,b",
 * "@x" for V; "x" for I) in c into p->node[0..1] (V; node[1] = 0 for V(a)) or
 * p->el (I); in is cut at its comma. Names match as nsc_circuit_node and
 * nsc_circuit_element do (any case, "gnd" is node 0). *bad (may be NULL): the
 * name that failed, a pointer into in. */
nl_probe_fail nl_probe_resolve(const nsc_circuit *c, nsc_probekind kind, char *in, int opts,
                               nsc_probe *p, const char **bad);

/* Where names are looked up: node(ctx, name) and element(ctx, name) give the
 * index of a lower-case name, -1 when none ("gnd" is node 0). */
typedef struct nl_names {
    int (*node)(void *ctx, const char *name);
    int (*element)(void *ctx, const char *name);
    void *ctx;
} nl_names;

/* nl_probe_resolve with the names of nm (NULL: the circuit's own search,
 * nsc_circuit_node and nsc_circuit_element, of any case); in lower case when
 * nm is not NULL. The elaboration passes its hash tables. */
nl_probe_fail nl_probe_resolve_in(const nsc_circuit *c, const nl_names *nm, nsc_probekind kind,
                                  char *in, int opts, nsc_probe *p, const char **bad);

/* The element named name by nm (NULL: in c, any case), else by ngspice's
 * flattened form of it (nl_flat_name); -1 if none. */
int nl_probe_element(const nsc_circuit *c, const nl_names *nm, const char *name);

/* The kind of expression node e when it calls V() or I() (of any arguments),
 * else -1. */
int nl_probe_kind(const nl_expr *e);

/* 1 when e (NULL: 0) reads a V() or I() of one or more arguments, or with
 * time set the name `time`: the circuit's unknowns or the time. */
int nl_probe_reads(const nl_expr *e, int time);

/* The names of probe call e (nl_probe_kind >= 0): *a, and *b for V(a,b)
 * (NULL for V(a) and I(x)); a name is an identifier or a number token
 * ("V(1)"). 0 when e is not of the form V(a), V(a,b) or I(x). */
int nl_probe_args(const nl_expr *e, const char **a, const char **b);

/* ngspice's flattened name of an element inside a subcircuit instance,
 * "v.x1.x2.v5" (its letter, then the path), as nscircuit names it: "x1.x2.v5"
 * (a pointer into s); s itself when it is not of that form. */
const char *nl_flat_name(const char *s);

#endif
