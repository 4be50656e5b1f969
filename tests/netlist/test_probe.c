/* The one probe resolver (nl_probe.c): names inside V(...) and I(...) against
 * an elaborated circuit, checked against the circuit's own node and element
 * indices (nsc_circuit_node, nsc_circuit_element) and the cards' terminals. */
#include <criterion/criterion.h>
#include <string.h>

#include "netlist/netlist.h"
#include "netlist/nl_probe.h"
#include "testutil.h"

static const char *const NET = "probes\n"
                               "V1 in 0 DC 5\n"
                               "R1 in mid 1k\n"
                               "X1 mid out half\n"
                               "L1 out 0 1m\n"
                               "L2 aux 0 1m\n"
                               "K1 L1 L2 0.9\n"
                               "R2 aux 0 1k\n"
                               "M1 dr gt sr 0 nm\n"
                               "V2 gt 0 3\n"
                               "R3 in dr 10\n"
                               "R4 sr 0 1\n"
                               ".model nm nmos vto=1 kp=1m\n"
                               ".subckt half a b\n"
                               "R5 a b 2k\n"
                               ".ends\n"
                               ".tran 1u 10u\n";

static nl_probe_fail resolve(const nsc_circuit *c, nsc_probekind kind, const char *name, int opts,
                             nsc_probe *p, char *bad)
{
    char in[64];
    const char *b = NULL;
    strcpy(in, name);
    memset(p, 0, sizeof *p);
    p->el = -7;
    nl_probe_fail f = nl_probe_resolve(c, kind, in, opts, p, &b);
    strcpy(bad, b ? b : "(null)");
    return f;
}

Test(probe, voltages_by_node_name)
{
    nsc_circuit *c = tu_parse(NET);
    nsc_probe p;
    char bad[64];
    cr_assert_eq(resolve(c, NSC_PROBE_V, "out", 0, &p, bad), NL_PROBE_OK);
    cr_assert_eq(p.node[0], nsc_circuit_node(c, "out"));
    cr_assert_gt(p.node[0], 0);
    cr_assert_eq(p.node[1], 0); /* V(a): against ground */
    cr_assert_eq(p.el, -7);     /* untouched */
    cr_assert_eq(resolve(c, NSC_PROBE_V, "IN,Mid", 0, &p, bad), NL_PROBE_OK); /* any case */
    cr_assert_eq(p.node[0], nsc_circuit_node(c, "in"));
    cr_assert_eq(p.node[1], nsc_circuit_node(c, "mid"));
    cr_assert_neq(p.node[0], p.node[1]);
    cr_assert_eq(resolve(c, NSC_PROBE_V, "gnd", 0, &p, bad), NL_PROBE_OK);
    cr_assert_eq(p.node[0], 0);
    cr_assert_eq(resolve(c, NSC_PROBE_V, "in,nowhere", 0, &p, bad), NL_PROBE_NODE);
    cr_assert_str_eq(bad, "nowhere"); /* the name that failed */
    cr_assert_eq(resolve(c, NSC_PROBE_V, "nowhere", 0, &p, bad), NL_PROBE_NODE);
    cr_assert_str_eq(bad, "nowhere");
    nsc_circuit_free(c);
}

Test(probe, currents_by_element_name)
{
    nsc_circuit *c = tu_parse(NET);
    nsc_probe p;
    char bad[64];
    cr_assert_eq(resolve(c, NSC_PROBE_I, "r1", 0, &p, bad), NL_PROBE_OK);
    cr_assert_eq(p.el, nsc_circuit_element(c, "r1"));
    cr_assert_geq(p.el, 0);
    cr_assert_eq(resolve(c, NSC_PROBE_I, "x1.r5", 0, &p, bad), NL_PROBE_OK); /* nscircuit's name */
    cr_assert_eq(p.el, nsc_circuit_element(c, "x1.r5"));
    cr_assert_geq(p.el, 0);
    /* ngspice's flattened name r.x1.r5: only with NL_PROBE_FLAT */
    cr_assert_eq(resolve(c, NSC_PROBE_I, "r.x1.r5", 0, &p, bad), NL_PROBE_ELEMENT);
    cr_assert_eq(p.el, -1);
    cr_assert_eq(resolve(c, NSC_PROBE_I, "r.x1.r5", NL_PROBE_FLAT, &p, bad), NL_PROBE_OK);
    cr_assert_eq(p.el, nsc_circuit_element(c, "x1.r5"));
    /* a coupling has no current: said, with the element found */
    cr_assert_eq(resolve(c, NSC_PROBE_I, "k1", 0, &p, bad), NL_PROBE_NOCURRENT);
    cr_assert_eq(p.el, nsc_circuit_element(c, "k1"));
    cr_assert_eq(resolve(c, NSC_PROBE_I, "r9", NL_PROBE_FLAT, &p, bad), NL_PROBE_ELEMENT);
    cr_assert_str_eq(bad, "r9");
    nsc_circuit_free(c);
}

/* V(@x) (P(x) of .meas): the nodes of x's port, n+ n- of a resistor, the drain
 * and source of a MOS transistor (M d g s b: nodes 0 and 2). */
Test(probe, ports_of_elements)
{
    nsc_circuit *c = tu_parse(NET);
    nsc_probe p;
    char bad[64];
    cr_assert_eq(resolve(c, NSC_PROBE_V, "@r1", NL_PROBE_PORT, &p, bad), NL_PROBE_OK);
    cr_assert_eq(p.node[0], nsc_circuit_node(c, "in"));
    cr_assert_eq(p.node[1], nsc_circuit_node(c, "mid"));
    cr_assert_eq(resolve(c, NSC_PROBE_V, "@m1", NL_PROBE_PORT, &p, bad), NL_PROBE_OK);
    cr_assert_eq(p.node[0], nsc_circuit_node(c, "dr"));
    cr_assert_eq(p.node[1], nsc_circuit_node(c, "sr"));
    cr_assert_eq(resolve(c, NSC_PROBE_V, "@k1", NL_PROBE_PORT, &p, bad),
                 NL_PROBE_NOPORT); /* no current */
    cr_assert_str_eq(bad, "k1");
    cr_assert_eq(resolve(c, NSC_PROBE_V, "@r9", NL_PROBE_PORT, &p, bad), NL_PROBE_NOPORT);
    cr_assert_str_eq(bad, "r9");
    /* without NL_PROBE_PORT, "@r1" is a node name, and there is none */
    cr_assert_eq(resolve(c, NSC_PROBE_V, "@r1", 0, &p, bad), NL_PROBE_NODE);
    cr_assert_str_eq(bad, "@r1");
    nsc_circuit_free(c);
}

/* A names table of its own (nl_names): "alias" is the node of "out", "amp"
 * and "x9.ramp" the element r2; every other name is none. The resolver reads
 * names only through the table (as nl_scope.c nle_probe, the elaboration's
 * hash tables). */
static const nsc_circuit *names_c;
static int names_calls;

static int t_node(void *ctx, const char *name)
{
    (void)ctx;
    names_calls++;
    return !strcmp(name, "alias") ? nsc_circuit_node(names_c, "out")
           : !strcmp(name, "gnd") ? 0
                                  : -1;
}

static int t_element(void *ctx, const char *name)
{
    (void)ctx;
    names_calls++;
    return !strcmp(name, "amp") || !strcmp(name, "x9.ramp") ? nsc_circuit_element(names_c, "r2")
                                                            : -1;
}

Test(probe, names_through_a_table)
{
    nsc_circuit *c = tu_parse(NET);
    nl_names nm = { t_node, t_element, NULL };
    nsc_probe p;
    const char *bad = NULL;
    char in[64];
    names_c = c;
    names_calls = 0;
    strcpy(in, "alias,gnd");
    cr_assert_eq(nl_probe_resolve_in(c, &nm, NSC_PROBE_V, in, 0, &p, &bad), NL_PROBE_OK);
    cr_assert_eq(p.node[0], nsc_circuit_node(c, "out"));
    cr_assert_eq(p.node[1], 0);
    cr_assert_eq(names_calls, 2);
    strcpy(in, "out"); /* in the circuit, not in the table */
    cr_assert_eq(nl_probe_resolve_in(c, &nm, NSC_PROBE_V, in, 0, &p, &bad), NL_PROBE_NODE);
    cr_assert_str_eq(bad, "out");
    strcpy(in, "amp");
    cr_assert_eq(nl_probe_resolve_in(c, &nm, NSC_PROBE_I, in, 0, &p, &bad), NL_PROBE_OK);
    cr_assert_eq(p.el, nsc_circuit_element(c, "r2"));
    strcpy(in, "r.x9.ramp"); /* flattened: the table asked for "x9.ramp" */
    cr_assert_eq(nl_probe_resolve_in(c, &nm, NSC_PROBE_I, in, NL_PROBE_FLAT, &p, &bad),
                 NL_PROBE_OK);
    cr_assert_eq(p.el, nsc_circuit_element(c, "r2"));
    cr_assert_eq(nl_probe_element(c, &nm, "r1"), -1);
    cr_assert_eq(nl_probe_element(c, NULL, "R1"),
                 nsc_circuit_element(c, "r1")); /* the circuit's, any case */
    cr_assert_eq(nl_probe_element(c, NULL, "r.x1.r5"), nsc_circuit_element(c, "x1.r5"));
    nsc_circuit_free(c);
}

/* expression nodes of the tests below (an arena of their own) */
static nl_expr X[64];
static int nx;

static nl_expr *node(nl_xop op, const char *name, nl_expr *a, nl_expr *b)
{
    cr_assert_lt(nx, 64);
    nl_expr *e = &X[nx++];
    memset(e, 0, sizeof *e);
    e->op = op;
    e->name = name;
    e->a = a;
    e->b = b;
    return e;
}

static nl_expr *call(const char *f, nl_expr *a1, nl_expr *a2)
{
    nl_expr *e = node(NL_X_CALL, f, a1, NULL);
    e->nargs = (a1 != NULL) + (a2 != NULL);
    if (a1) a1->next = a2;
    return e;
}

/* V(a), V(a,b), V(1) (a number token), I(x) are probe calls; I(a,b), V(),
 * V(a,2*b) and V(a,b,c) are not; p(x) reads its one name as well. */
Test(probe, calls_inside_expressions)
{
    const char *a, *b;
    nx = 0;
    nl_expr *v1 = call("v", node(NL_X_PARAM, "n1", NULL, NULL), NULL);
    cr_assert_eq(nl_probe_kind(v1), NSC_PROBE_V);
    cr_assert(nl_probe_args(v1, &a, &b));
    cr_assert_str_eq(a, "n1");
    cr_assert_null(b);
    nl_expr *v2 = call("v", node(NL_X_PARAM, "n1", NULL, NULL), node(NL_X_NUM, "0", NULL, NULL));
    cr_assert(nl_probe_args(v2, &a, &b));
    cr_assert_str_eq(b, "0");
    nl_expr *i2 = call("i", node(NL_X_PARAM, "r1", NULL, NULL), node(NL_X_PARAM, "r2", NULL, NULL));
    cr_assert_eq(nl_probe_kind(i2), NSC_PROBE_I);
    cr_assert(!nl_probe_args(i2, &a, &b));
    nl_expr *v0 = call("v", NULL, NULL);
    cr_assert_eq(nl_probe_kind(v0), NSC_PROBE_V);
    cr_assert(!nl_probe_args(v0, &a, &b));
    nl_expr *prod = node(NL_X_MUL, NULL, node(NL_X_NUM, NULL, NULL, NULL),
                         node(NL_X_PARAM, "n2", NULL, NULL));
    cr_assert(!nl_probe_args(call("v", node(NL_X_PARAM, "n1", NULL, NULL), prod), &a, &b));
    nl_expr *v3 = call("v", node(NL_X_PARAM, "n1", NULL, NULL), node(NL_X_PARAM, "n2", NULL, NULL));
    v3->a->next->next = node(NL_X_PARAM, "n3", NULL, NULL);
    v3->nargs = 3;
    cr_assert(!nl_probe_args(v3, &a, &b));
    cr_assert_eq(nl_probe_kind(call("sqrt", prod, NULL)), -1);
    cr_assert_eq(nl_probe_kind(node(NL_X_PARAM, "v", NULL, NULL)), -1); /* a name, not a call */
}

/* What an expression reads: V()/I() of one or more arguments anywhere inside
 * (operators, ?:, function arguments); `time` only when asked. */
Test(probe, what_expressions_read)
{
    nx = 0;
    nl_expr *t = node(NL_X_PARAM, "time", NULL, NULL), *k = node(NL_X_PARAM, "k", NULL, NULL);
    nl_expr *sq = call("sqrt", node(NL_X_ADD, NULL, k, t), NULL);
    cr_assert(nl_probe_reads(sq, 1));
    cr_assert(!nl_probe_reads(sq, 0));
    nl_expr *v = call("v", node(NL_X_PARAM, "n1", NULL, NULL), NULL);
    nl_expr *cond = node(NL_X_COND, NULL, node(NL_X_NUM, NULL, NULL, NULL),
                         node(NL_X_NUM, NULL, NULL, NULL));
    cond->c = call("max", k, v);
    cr_assert(nl_probe_reads(cond, 0)); /* in c's branch, a function's second argument */
    cr_assert(!nl_probe_reads(call("v", NULL, NULL), 1));
    cr_assert(!nl_probe_reads(NULL, 1));
    cr_assert(!nl_probe_reads(k, 1));
}
