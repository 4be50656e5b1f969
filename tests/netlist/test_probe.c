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

static nl_probe_fail resolve(const nsc_circuit *c, nsc_probekind kind, const char *name, int opts, nsc_probe *p,
                             char *bad)
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
    cr_assert_eq(p.node[1], 0);                                    /* V(a): against ground */
    cr_assert_eq(p.el, -7);                                        /* untouched */
    cr_assert_eq(resolve(c, NSC_PROBE_V, "IN,Mid", 0, &p, bad), NL_PROBE_OK);   /* any case */
    cr_assert_eq(p.node[0], nsc_circuit_node(c, "in"));
    cr_assert_eq(p.node[1], nsc_circuit_node(c, "mid"));
    cr_assert_neq(p.node[0], p.node[1]);
    cr_assert_eq(resolve(c, NSC_PROBE_V, "gnd", 0, &p, bad), NL_PROBE_OK);
    cr_assert_eq(p.node[0], 0);
    cr_assert_eq(resolve(c, NSC_PROBE_V, "in,nowhere", 0, &p, bad), NL_PROBE_NODE);
    cr_assert_str_eq(bad, "nowhere");                              /* the name that failed */
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
    cr_assert_eq(resolve(c, NSC_PROBE_I, "x1.r5", 0, &p, bad), NL_PROBE_OK);   /* nscircuit's name */
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
    cr_assert_eq(resolve(c, NSC_PROBE_V, "@k1", NL_PROBE_PORT, &p, bad), NL_PROBE_NOPORT);   /* no current */
    cr_assert_str_eq(bad, "k1");
    cr_assert_eq(resolve(c, NSC_PROBE_V, "@r9", NL_PROBE_PORT, &p, bad), NL_PROBE_NOPORT);
    cr_assert_str_eq(bad, "r9");
    /* without NL_PROBE_PORT, "@r1" is a node name, and there is none */
    cr_assert_eq(resolve(c, NSC_PROBE_V, "@r1", 0, &p, bad), NL_PROBE_NODE);
    cr_assert_str_eq(bad, "@r1");
    nsc_circuit_free(c);
}
