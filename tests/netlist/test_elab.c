/* test_elab.c -- elaboration: every card kind checked field by field in the
 * flat nsc_circuit, subcircuits (nesting, parameters, hierarchical names,
 * scoping), analyses and options, outputs, error messages with positions,
 * and the netlists of netlists/. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lcs/lcs.h"
#include "netlist/netlist.h"
#include "devices/device.h"
#include "devices/bprog.h"
#include "base/xfn.h"
#include "testutil.h"

static nsc_report R;

static nsc_circuit *rd(const char *text)
{
    nsc_circuit *c = NULL;
    nsc_report_init(&R);
    nsc_status st = nsc_netlist_read_string(text, "t.cir", NULL, 0, &c, &R);
    cr_assert_eq(st, NSC_OK, "%s", R.error ? R.error : "?");
    cr_assert_not_null(c);
    return c;
}

static void done(nsc_circuit *c)
{
    nsc_circuit_free(c);
    nsc_report_free(&R);
}

static void bad(const char *text, const char *msg)
{
    nsc_circuit *c = NULL;
    nsc_report_init(&R);
    cr_assert_eq(nsc_netlist_read_string(text, "t.cir", NULL, 0, &c, &R), NSC_ENETLIST,
                 "accepted:\n%s", text);
    cr_assert_null(c);
    cr_assert_str_eq(R.error, msg);
    nsc_report_free(&R);
}

static int has_warning(const char *w)
{
    for (int k = 0; k < R.nwarn; k++)
        if (!strcmp(R.warn[k], w)) return 1;
    return 0;
}

static const nsc_element *el(const nsc_circuit *c, const char *name)
{
    int k = nsc_circuit_element(c, name);
    cr_assert_geq(k, 0, "no element %s", name);
    return &c->el[k];
}

static int nd(const nsc_circuit *c, const char *name)
{
    int k = nsc_circuit_node(c, name);
    cr_assert_geq(k, 0, "no node %s", name);
    return k;
}

static void near(double a, double b)
{
    cr_assert(fabs(a - b) <= 1e-12 * fabs(b) + 1e-300, "%.17g != %.17g", a, b);
}

static void loc(nsc_loc l, const char *file, int line, int col)
{
    cr_assert_str_eq(l.file, file);
    cr_assert_eq(l.line, line, "line %d != %d", l.line, line);
    cr_assert_eq(l.col, col, "col %d != %d", l.col, col);
}

Test(elab, passives_and_coupling)
{
    nsc_circuit *c = rd("rlc\n"
                        "R1 IN gnd 10k\n"
                        "C1 in out 10uF IC=1.5\n"
                        "L1 out 0 1mH ic={-2}\n"
                        "Lsec s 0 4m\n"
                        "K1 L1 lsec 0.99\n"
                        "R2 in 0 r=2k tc1=0.1\n");
    cr_assert_str_eq(c->title, "rlc");
    cr_assert_eq(c->nnode, 4);
    cr_assert_str_eq(c->node_name[0], "0");
    cr_assert_str_eq(c->node_name[1], "in");
    cr_assert_eq(nd(c, "GND"), 0);
    loc(c->node_loc[1], "t.cir", 2, 4);
    cr_assert_eq(c->nel, 6);
    const nsc_element *e = el(c, "R1");
    cr_assert_str_eq(e->name, "r1");
    cr_assert_eq(e->kind, NSC_EL_R);
    cr_assert_eq(e->nnode, 2);
    cr_assert_eq(e->node[0], nd(c, "in"));
    cr_assert_eq(e->node[1], 0);
    near(e->value, 10e3);
    cr_assert_eq(e->has_ic, 0);
    loc(e->loc, "t.cir", 2, 1);
    e = el(c, "c1");
    cr_assert_eq(e->kind, NSC_EL_C);
    near(e->value, 10e-6);
    cr_assert_eq(e->has_ic, 1);
    near(e->ic, 1.5);
    e = el(c, "l1");
    cr_assert_eq(e->kind, NSC_EL_L);
    near(e->value, 1e-3);
    near(e->ic, -2);
    e = el(c, "k1");
    cr_assert_eq(e->kind, NSC_EL_K);
    cr_assert_eq(e->ref[0], nsc_circuit_element(c, "l1"));
    cr_assert_eq(e->ref[1], nsc_circuit_element(c, "lsec"));
    near(e->value, 0.99);
    near(el(c, "r2")->value, 2e3);
    cr_assert(has_warning("t.cir:7:14: warning: parameter 'tc1' of resistor r2 ignored"));
    cr_assert_eq(c->job.has_tran, 0);
    cr_assert_eq(c->job.has_op, 0);
    near(c->job.theta, 0.5);
    near(c->job.gmin, 1e-12);
    cr_assert_str_eq(c->job.solver, "auto");
    cr_assert_eq(c->job.nsave, 0);
    done(c);
}

Test(elab, sources_dc_and_waveforms_with_defaults)
{
    nsc_circuit *c = rd("src\n"
                        "V1 a 0 DC 5 AC 1 0\n"
                        "V2 b 0 3.3\n"
                        "V3 c 0 PULSE(0 5 1u 1n)\n"
                        "V4 d 0 SIN(1 2 1k)\n"
                        "V5 e 0 EXP(0 1)\n"
                        "V6 f 0 PWL(0 0 1u 1 2u 0) r=0 td=1u\n"
                        "I1 0 g pulse 0 1m 0 1n 2n 1u 2u\n"
                        "V7 h 0 dc 2 sin(0 1 50)\n"
                        "V8 k 0 EXP(1 2 3u 4u 5u 6u)\n"
                        "V9 l 0\n"
                        ".tran 10n 10u\n");
    const nsc_element *e = el(c, "v1");
    cr_assert_eq(e->kind, NSC_EL_V);
    cr_assert_eq(e->wave.kind, NSC_WAVE_DC);
    near(e->wave.dc, 5);
    cr_assert(e->ac_mag == 1 && e->ac_phase == 0); /* AC 1 0: the .ac's phasor (issue 29) */
    near(el(c, "v2")->wave.dc, 3.3);
    e = el(c, "v3");
    cr_assert_eq(e->wave.kind, NSC_WAVE_PULSE);
    cr_assert_eq(e->wave.np, 7);
    const double pulse[7] = {
        0, 5, 1e-6, 1e-9, 10e-9, 10e-6, 0
    }; /* tf = tstep, pw = tstop, no repeat (ngspice: per = tstop, wrapped only past it) */
    for (int k = 0; k < 7; k++) near(e->wave.p[k], pulse[k]);
    near(e->wave.dc, 0);
    e = el(c, "v4");
    cr_assert_eq(e->wave.kind, NSC_WAVE_SIN);
    const double sine[6] = { 1, 2, 1e3, 0, 0, 0 };
    for (int k = 0; k < 6; k++) near(e->wave.p[k], sine[k]);
    near(e->wave.dc, 1);
    e = el(c, "v5");
    cr_assert_eq(e->wave.kind, NSC_WAVE_EXP);
    const double ex[6] = { 0, 1, 0, 10e-9, 10e-9, 10e-9 }; /* tau = tstep, td2 = td1 + tstep */
    for (int k = 0; k < 6; k++) near(e->wave.p[k], ex[k]);
    e = el(c, "v6");
    cr_assert_eq(e->wave.kind, NSC_WAVE_PWL);
    cr_assert_eq(e->wave.np, 6);
    const double pw[6] = { 1e-6, 0, 2e-6, 1, 3e-6, 0 }; /* shifted by td */
    for (int k = 0; k < 6; k++) near(e->wave.p[k], pw[k]);
    near(e->wave.repeat, 1e-6);
    e = el(c, "i1");
    cr_assert_eq(e->kind, NSC_EL_I);
    cr_assert_eq(e->node[0], 0);
    cr_assert_eq(e->wave.kind, NSC_WAVE_PULSE);
    const double ip[7] = { 0, 1e-3, 0, 1e-9, 2e-9, 1e-6, 2e-6 };
    for (int k = 0; k < 7; k++) near(e->wave.p[k], ip[k]);
    e = el(c, "v7");
    cr_assert_eq(e->wave.kind, NSC_WAVE_SIN);
    near(e->wave.dc, 2); /* DC wins over wave(0) */
    e = el(c, "v8");
    const double ex2[6] = { 1, 2, 3e-6, 4e-6, 5e-6, 6e-6 };
    for (int k = 0; k < 6; k++) near(e->wave.p[k], ex2[k]);
    near(e->wave.dc, 1);
    e = el(c, "v9");
    near(e->wave.dc, 0);
    cr_assert(has_warning("t.cir:11:1: warning: voltage source v9 has no value, 0 assumed"));
    done(c);
}

Test(elab, waveform_value_at_zero_is_dc)
{
    nsc_circuit *c = rd(
        "t\nV1 a 0 PULSE(2 5 0 1n)\nV2 b 0 PWL(0 3 1 4)\nV3 c 0 SIN(1 2 50 0 0 90)\n.tran 1n 1u\n");
    near(el(c, "v1")->wave.dc, 2);
    near(el(c, "v2")->wave.dc, 3);
    near(el(c, "v3")->wave.dc, 3);
    done(c);
}

/* The data a card's parser makes for a device without bind() (E TABLE's
 * points, a B source's program) are the element's private data: binding the
 * circuit again keeps them (it dropped them when only bind() made private data),
 * a bound device's are remade, and each is freed once with the circuit (its
 * priv_free: the program's arrays; valgrind in make check). */
Test(elab, card_data_survive_binding)
{
    nsc_circuit *c = rd("t\nV1 a 0 1\nE1 o 0 TABLE {V(a)} = (0 0) (1 2)\nB1 p 0 V=max(V(a), 0.5)\n"
                        "D1 a q dm\nR1 o 0 1\nR2 p 0 1\nR3 q 0 1\n.model dm D(VF=0.7)\n.op\n");
    nsc_element *e = &c->el[nsc_circuit_element(c, "e1")],
                *b = &c->el[nsc_circuit_element(c, "b1")];
    const void *pe = e->priv, *pb = b->priv;
    cr_assert(pe && pb && b->priv_free && !e->priv_free && nsc_bprog_of(b) == pb
              && !nsc_bprog_of(e));
    cr_assert(el(c, "d1")->priv && !el(c, "d1")->priv_free);
    nsc_devices_bind(c);
    cr_assert(e->priv == pe && b->priv == pb && b->priv_free);
    cr_assert_eq(((const nsc_etab *)e->priv)->n, 2);
    cr_assert_eq(nsc_bprog_of(b)->nop, 1); /* max(x, 0.5) = 0.5 + ramp(x - 0.5) */
    cr_assert_not_null(el(c, "d1")->priv);
    done(c);
}

Test(elab, controlled_sources)
{
    nsc_circuit *c = rd("ctl\n"
                        "E1 o1 0 in 0 {2*5}\n"
                        "E2 o2 0 TABLE {V(in)} = (-1,-1) (0,0) (0,1) (2, 1)\n"
                        "E3 o3 0 table {v(in,o1)} = (0 0) (1 1)\n"
                        "G1 o4 0 in o1 1m\n"
                        "Vs in 0 1\n"
                        "F1 o5 0 vs 2\n"
                        "H1 o6 0 VS 3\n");
    const nsc_element *e = el(c, "e1");
    cr_assert_eq(e->kind, NSC_EL_E);
    cr_assert_eq(e->nnode, 4);
    cr_assert_eq(e->node[0], nd(c, "o1"));
    cr_assert_eq(e->node[1], 0);
    cr_assert_eq(e->node[2], nd(c, "in"));
    cr_assert_eq(e->node[3], 0);
    near(e->value, 10);
    e = el(c, "e2");
    cr_assert_eq(e->kind, NSC_EL_ETABLE);
    cr_assert_eq(e->nnode, 4);
    cr_assert_eq(e->node[2], nd(c, "in"));
    cr_assert_eq(e->node[3], 0);
    const nsc_etab *tab = e->priv; /* the points, the device's data */
    cr_assert_eq(tab->n, 4);
    const double t2[8] = { -1, -1, 0, 0, 0, 1, 2, 1 };
    for (int k = 0; k < 8; k++) near(tab->xy[k], t2[k]);
    e = el(c, "e3");
    cr_assert_eq(e->node[2], nd(c, "in"));
    cr_assert_eq(e->node[3], nd(c, "o1"));
    cr_assert_eq(((const nsc_etab *)e->priv)->n, 2);
    e = el(c, "g1");
    cr_assert_eq(e->kind, NSC_EL_G);
    cr_assert_eq(e->node[3], nd(c, "o1"));
    near(e->value, 1e-3);
    e = el(c, "f1");
    cr_assert_eq(e->kind, NSC_EL_F);
    cr_assert_eq(e->nnode, 2);
    cr_assert_eq(e->ref[0], nsc_circuit_element(c, "vs"));
    near(e->value, 2);
    e = el(c, "h1");
    cr_assert_eq(e->kind, NSC_EL_H);
    cr_assert_eq(e->ref[0], nsc_circuit_element(c, "vs"));
    near(e->value, 3);
    done(c);
}

Test(elab, devices_and_models)
{
    nsc_circuit *c = rd("dev\n"
                        "D1 a k DI\n"
                        "M1 d g s b nmod W=10u L=1u AD=1p PD=4u\n"
                        "M2 d g s b PMOD\n"
                        "S1 a 0 ctl 0 sw1 OFF\n"
                        ".model DI D(VF=0)\n"
                        ".model nmod NMOS (LEVEL=1 VTO=1 KP=20u)\n"
                        ".model pmod pmos vto=-1 kp={2*10u}\n"
                        ".model sw1 SW(vt=2.5 vh=0.1 ron=1 roff=1meg)\n");
    cr_assert_eq(c->nmodel, 4);
    const nsc_element *e = el(c, "d1");
    cr_assert_eq(e->kind, NSC_EL_D);
    cr_assert_eq(e->node[0], nd(c, "a"));
    cr_assert_eq(e->node[1], nd(c, "k"));
    cr_assert_not_null(e->model);
    cr_assert_str_eq(e->model->name, "di");
    cr_assert_eq(e->model->type, NSC_MOD_D);
    cr_assert_eq(e->model->npar, 1); /* VF=0: the ideal diode */
    loc(e->model->loc, "t.cir", 6, 1);
    e = el(c, "m1");
    cr_assert_eq(e->kind, NSC_EL_M);
    cr_assert_eq(e->nnode, 4);
    cr_assert_eq(e->node[3], nd(c, "b"));
    near(e->ipar[0], 10e-6);
    near(e->ipar[1], 1e-6);
    cr_assert_eq(e->model->type, NSC_MOD_NMOS);
    double v;
    cr_assert(nsc_model_get(e->model, "vto", &v));
    near(v, 1);
    cr_assert(nsc_model_get(e->model, "KP", &v));
    near(v, 20e-6);
    cr_assert_str_eq(e->model->pname[0], "level");
    cr_assert(!nsc_model_get(e->model, "cgso", &v));
    near(e->ipar[3], 1e-12); /* AD: the bulk junction's area (JS AD) */
    cr_assert(has_warning("t.cir:3:34: warning: parameter 'pd' of MOS transistor m1 ignored"));
    e = el(c, "m2");
    near(e->ipar[0], 100e-6); /* SPICE defaults */
    near(e->ipar[1], 100e-6);
    cr_assert_eq(e->model->type, NSC_MOD_PMOS);
    cr_assert(nsc_model_get(e->model, "kp", &v));
    near(v, 20e-6);
    e = el(c, "s1");
    cr_assert_eq(e->kind, NSC_EL_S);
    cr_assert_eq(e->node[2], nd(c, "ctl"));
    cr_assert_eq(e->model->type, NSC_MOD_SW);
    cr_assert(nsc_model_get(e->model, "roff", &v));
    near(v, 1e6);
    done(c);
}

Test(elab, analyses_options_ic_outputs)
{
    nsc_circuit *c = rd("dots\n"
                        "R1 in out 1k\n"
                        "L1 out 0 1m\n"
                        ".tran 10n 200u 0 50p UIC\n"
                        ".op\n"
                        ".ic V(in)=1 v(OUT)={2*2}\n"
                        ".options theta=0.6 gmin=1e-10 solver=Lemke reltol=1e-3 noacct\n"
                        ".save v(in) V(in,out) I(L1) out all\n"
                        ".print tran v(in) i(r1)\n"
                        ".step param r 1 2 1\n"
                        ".step param q list 1 2\n"
                        ".meas tran avg1 AVG v(out) FROM=1u TO=2u\n");
    cr_assert_eq(c->job.has_tran, 1);
    near(c->job.tstep, 10e-9);
    near(c->job.tstop, 200e-6);
    near(c->job.tstart, 0);
    near(c->job.tmax, 50e-12);
    cr_assert_eq(c->job.uic, 1);
    loc(c->job.tran_loc, "t.cir", 4, 1);
    cr_assert_eq(c->job.has_op, 1);
    loc(c->job.op_loc, "t.cir", 5, 1);
    cr_assert_eq(c->nic, 2);
    cr_assert_eq(c->ic_node[0], nd(c, "in"));
    near(c->ic_val[0], 1);
    cr_assert_eq(c->ic_node[1], nd(c, "out"));
    near(c->ic_val[1], 4);
    loc(c->ic_loc[1], "t.cir", 6, 15);
    near(c->job.theta, 0.6);
    near(c->job.gmin, 1e-10);
    cr_assert_str_eq(c->job.solver, "lemke");
    near(c->job.reltol, 1e-3); /* a tolerance of the adaptive steps */
    cr_assert_not(has_warning("t.cir:7:44: note: option 'reltol' ignored"));
    cr_assert(has_warning("t.cir:7:56: note: option 'noacct' ignored"));
    cr_assert_eq(c->job.nsave, 5);
    const char *names[] = { "v(in)", "v(in,out)", "i(l1)", "v(out)", "i(r1)" };
    for (int k = 0; k < 5; k++) cr_assert_str_eq(c->job.save[k].name, names[k]);
    cr_assert_eq(c->job.save[1].kind, NSC_PROBE_V);
    cr_assert_eq(c->job.save[1].node[0], nd(c, "in"));
    cr_assert_eq(c->job.save[1].node[1], nd(c, "out"));
    cr_assert_eq(c->job.save[0].node[1], 0);
    cr_assert_eq(c->job.save[2].kind, NSC_PROBE_I);
    cr_assert_eq(c->job.save[2].el, nsc_circuit_element(c, "l1"));
    loc(c->job.save[2].loc, "t.cir", 8, 23);
    cr_assert_eq(c->job.nstep, 2);
    loc(c->job.step_loc, "t.cir", 10, 1);
    cr_assert_eq(c->job.nmeas, 1);
    loc(c->job.meas_loc, "t.cir", 12, 1);
    done(c);
}

Test(elab, subckt_hierarchy_params_and_scoping)
{
    nsc_circuit *c = rd("sub\n"
                        ".param gain=3\n"
                        ".global vdd\n"
                        ".subckt amp in out params: r=1k g={gain}\n"
                        "R1 in mid {r}\n"
                        "E1 out 0 mid gnd {g}\n"
                        "Rv vdd mid 1meg\n"
                        "X1 mid 0 leaf\n"
                        ".subckt leaf p q\n"
                        ".param half={r/2}\n"
                        "Rl p q {half}\n"
                        "D1 p q dl\n"
                        ".model dl D vf={g/10}\n"
                        ".ends leaf\n"
                        ".ends\n"
                        "Xa a b amp\n"
                        "XB b c AMP r=4k g=5\n");
    cr_assert_eq(c->nel, 10);
    const nsc_element *e = el(c, "xa.r1");
    cr_assert_eq(e->node[0], nd(c, "a"));
    cr_assert_eq(e->node[1], nd(c, "xa.mid"));
    near(e->value, 1e3);
    loc(e->loc, "t.cir", 5, 1); /* the card inside the subckt */
    near(el(c, "xa.e1")->value, 3);
    cr_assert_eq(el(c, "xa.e1")->node[3], 0);
    cr_assert_eq(el(c, "xa.rv")->node[0], nd(c, "vdd")); /* .global: not prefixed */
    cr_assert_eq(el(c, "xb.rv")->node[0], nd(c, "vdd"));
    e = el(c, "xa.x1.rl");
    cr_assert_eq(e->node[0], nd(c, "xa.mid"));
    cr_assert_eq(e->node[1], 0);
    near(e->value, 500);
    e = el(c, "xb.x1.rl");
    near(e->value, 2000);
    cr_assert_eq(el(c, "xb.r1")->node[0], nd(c, "b"));
    cr_assert_eq(el(c, "xb.e1")->node[0], nd(c, "c"));
    near(el(c, "xb.e1")->value, 5);
    e = el(c, "xb.x1.d1");
    cr_assert_str_eq(e->model->name, "xb.x1.dl");
    double v;
    cr_assert(nsc_model_get(e->model, "vf", &v));
    near(v, 0.5);
    cr_assert(nsc_model_get(el(c, "xa.x1.d1")->model, "vf", &v));
    near(v, 0.3);
    cr_assert_eq(nsc_circuit_node(c, "XB.MID"), nd(c, "xb.mid"));
    done(c);
}

Test(elab, subckt_references_ic_and_models_from_outside)
{
    nsc_circuit *c = rd("t\n"
                        ".subckt xfmr p s\n"
                        "Lp p 0 1m\n"
                        "Ls s 0 4m\n"
                        "K1 lp ls 1\n"
                        "Vm s m 0\n"
                        "F1 0 p vm 0.5\n"
                        "D1 m 0 dtop\n"
                        ".ic v(s)=1 v(p)=2\n"
                        ".ends\n"
                        "X1 a b xfmr\n"
                        ".model dtop d\n");
    const nsc_element *k = el(c, "x1.k1");
    cr_assert_eq(k->ref[0], nsc_circuit_element(c, "x1.lp"));
    cr_assert_eq(k->ref[1], nsc_circuit_element(c, "x1.ls"));
    cr_assert_eq(el(c, "x1.f1")->ref[0], nsc_circuit_element(c, "x1.vm"));
    cr_assert_str_eq(el(c, "x1.d1")->model->name, "dtop");
    cr_assert_eq(c->nic, 2);
    cr_assert_eq(c->ic_node[0], nd(c, "b")); /* ports map to the instance's nodes */
    cr_assert_eq(c->ic_node[1], nd(c, "a"));
    done(c);
}

Test(elab, circuit_lookups)
{
    nsc_circuit *c = rd("t\nR1 A 0 1\n");
    cr_assert_eq(nsc_circuit_node(c, "a"), 1);
    cr_assert_eq(nsc_circuit_node(c, "A"), 1);
    cr_assert_eq(nsc_circuit_node(c, "gnd"), 0);
    cr_assert_eq(nsc_circuit_node(c, "0"), 0);
    cr_assert_eq(nsc_circuit_node(c, "zz"), -1);
    cr_assert_eq(nsc_circuit_element(c, "R1"), 0);
    cr_assert_eq(nsc_circuit_element(c, "r2"), -1);
    done(c);
}

Test(elab, element_errors)
{
    bad("t\nR1 a\n", "t.cir:2:1: error: missing nodes for resistor r1");
    bad("t\nR1 a b\n", "t.cir:2:1: error: missing value for resistor r1");
    bad("t\nR1 a b 1 2\n", "t.cir:2:10: error: unexpected '2' in resistor r1");
    bad("t\nR1 a (b) 1\n", "t.cir:2:6: error: expected a node name, found '(...)'");
    bad("t\nZ1 a b c m\n",
        "t.cir:2:1: error: unsupported element z1: MESFETs (Z) are not supported; "
        "use a MOS transistor (NMOS, LEVEL=1) or a switch");
    bad("t\nT1 a b c d z0=50\n",
        "t.cir:2:1: error: unsupported element t1: transmission lines (T) are not "
        "supported; use an LC ladder of n sections, L = Z0 TD/n and C = TD/(Z0 n) each");
    bad("t\nW1 a b vc sw\n", "t.cir:2:11: error: unknown model 'sw' for switch w1");
    bad("t\n1abc a b\n", "t.cir:2:1: error: unknown element type '1' (card '1abc')");
    bad("t\nR1 a 0 1\nr1 b 0 1\n",
        "t.cir:3:1: error: duplicate element name 'r1' (first defined at t.cir:2)");
    bad("t\nK1 L1 L2 0.5\nL1 a 0 1\n", "t.cir:2:7: error: unknown element 'l2' in coupling k1");
    bad("t\nK1 L1 R1 0.5\nL1 a 0 1\nR1 a 0 1\n",
        "t.cir:2:7: error: coupling k1: 'r1' is not an inductor");
    bad("t\nK1 L1 L2 1.5\nL1 a 0 1\nL2 a 0 1\n",
        "t.cir:2:10: error: coupling coefficient 1.5 of k1 is not in (0, 1]");
    bad("t\nF1 a 0 R1 2\nR1 a 0 1\n", "t.cir:2:8: error: CCCS f1: 'r1' is not a voltage source");
    bad("t\nH1 a 0 vx 2\n", "t.cir:2:8: error: unknown element 'vx' in CCVS h1");
    bad("t\nD3 a b DX\n", "t.cir:2:8: error: unknown model 'dx' for diode d3");
    bad("t\nD3 a b m1\n.model m1 nmos\n",
        "t.cir:2:8: error: model 'm1' of diode d3 is NMOS model, not a diode (D) model");
    bad("t\nM1 d g s b dd\n.model dd d\n",
        "t.cir:2:12: error: model 'dd' of MOS transistor m1 is D model, not a MOS (NMOS/PMOS) model");
    bad("t\nS1 a b c d\n", "t.cir:2:1: error: missing model name for switch s1");
    bad("t\nE1 a 0 b\n", "t.cir:2:1: error: missing nodes for VCVS e1");
    bad("t\nE1 a 0 b 0\n", "t.cir:2:1: error: missing gain for VCVS e1");
    bad("t\nE1 a 0 value={v(b)*abs(v(a))}\n",
        "t.cir:2:19: error: product of two node voltages or currents with a "
        "nonsmooth part (a comparison, abs, min, ...) or time is neither piecewise-linear nor smooth: 'v(b)*abs(v(a))'");
    bad("t\nE1 a 0 poly(1) b 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1\n",
        "t.cir:2:86: error: POLY(1) of e1: coefficient 33 is of degree above 32"); /* issue 28 item 8: 2..32 smooth */
    bad("t\nG1 a 0 TABLE {V(b)} = (0,0) (1,1)\n",
        "t.cir:2:8: error: TABLE form is supported for E only, not for g1");
    bad("t\nE1 a 0 TABLE {V(b)} = (1,0) (0,1)\n",
        "t.cir:2:8: error: TABLE x values of e1 must be non-decreasing (0 after 1)");
    bad("t\nE1 a 0 TABLE {b} = (1,0) (2,1)\n",
        "t.cir:2:14: error: TABLE of e1: the control must be {V(node)} or {V(node,node)}");
    bad("t\nE1 a 0 TABLE {V(b)} = (1,0)\n",
        "t.cir:2:8: error: TABLE of e1 needs at least two (x,y) points");
    bad("t\nV1 a 0 PULSE(0)\n", "t.cir:2:8: error: PULSE of v1 needs at least 2 values");
    /* 8 values are ngspice's PULSE with NP (tests/e2e/test_corpus.c); 9 are too many */
    bad("t\nV1 a 0 PULSE(0 1 2 3 4 5 6 7 8)\n", "t.cir:2:8: error: too many values in PULSE of v1");
    bad("t\nV1 a 0 PWL(0 0 1)\n",
        "t.cir:2:8: error: PWL of v1 needs time-value pairs (odd number of values)");
    bad("t\nV1 a 0 PWL(1 0 0 1)\n",
        "t.cir:2:8: error: PWL times of v1 must be non-decreasing (0 after 1)");
    bad("t\nV1 a 0 PWL(0 0 1 1) r=2\n",
        "t.cir:2:8: error: PWL repeat time r=2 of v1 must be in [0, last time)");
    bad("t\nV1 a 0 SFFM(0 1)\n", "t.cir:2:8: error: waveform 'sffm' is not supported");
    bad("t\nV1 a 0 1 2\n", "t.cir:2:10: error: unexpected '2' in voltage source v1");
    bad("t\nV1 a 0 DC\n", "t.cir:2:8: error: missing value after DC in v1");
    bad("t\nM1 d g s b nm W=0\n.model nm nmos\n", "t.cir:2:15: error: w of m1 must be positive");
}

/* Issue 28 (eSim's public netlists, `?` for unwired pins): a port name repeated
 * in a .subckt header is its first port, as ngspice maps it (warned); a node
 * that no element touches (an instance's node on a port the subcircuit leaves
 * unconnected) is left out (warned) and the later nodes renumbered, a B
 * source's terms included. Before: "duplicate port", then "no DC path". */
Test(elab, repeated_port_is_its_first_and_untouched_nodes_are_left_out)
{
    nsc_circuit *c = rd("t\n"
                        ".subckt s a q b q\n"
                        "R1 a q 1k\n"
                        "R2 q b 1k\n"
                        ".ends\n"
                        "X1 n1 n2 n3 n4 s\n"
                        "B1 n5 0 V=V(n3)*2\n"
                        "R3 n5 0 1k\n");
    cr_assert_eq(c->nnode, 5); /* 0 n1 n2 n3 n5 */
    cr_assert_eq(nsc_circuit_node(c, "n4"), -1);
    cr_assert_eq(nd(c, "n5"), 4);
    cr_assert_str_eq(c->node_name[4], "n5");
    const nsc_element *r1 = el(c, "x1.r1"), *r2 = el(c, "x1.r2"), *b1 = el(c, "b1");
    cr_assert(r1->node[0] == nd(c, "n1") && r1->node[1] == nd(c, "n2"));
    cr_assert(r2->node[0] == nd(c, "n2") && r2->node[1] == nd(c, "n3"));
    cr_assert_eq(b1->node[0], 4);
    const nsc_bprog *p = nsc_bprog_of(b1);
    cr_assert(p && p->nterm == 1 && p->term[0].kind == NSC_BT_V && p->term[0].idx == nd(c, "n3"));
    cr_assert(has_warning(
        "t.cir:2:17: warning: port 'q' repeated in .subckt s: the name is its first port, "
        "this one connects to nothing inside (as ngspice)"));
    cr_assert(
        has_warning("t.cir:6:13: warning: node 'n4' connects to no element (a subcircuit port left "
                    "unconnected inside): left out"));
    done(c);
}

Test(elab, subckt_errors_point_inside_with_instance)
{
    bad("t\nX1 a b foo\n", "t.cir:2:8: error: unknown subckt 'foo' for instance x1");
    bad("t\nX1 a b\n", "t.cir:2:6: error: unknown subckt 'b' for instance x1");
    bad("t\n.subckt s a b c\nR1 a b 1\n.ends\nX1 a b s\n",
        "t.cir:5:1: error: instance x1 has 2 nodes but subckt 's' has 3 ports");
    bad("t\n.subckt s a b\nX1 a b s\n.ends\nX1 a b s\n",
        "t.cir:3:8: error: recursive subckt 's' (in instance x1)");
    bad("t\n.subckt s1 a\nXq a s2\n.ends\n.subckt s2 a\nXr a s1\n.ends\nX1 n s1\n",
        "t.cir:6:6: error: recursive subckt 's1' (in instance x1.xq)");
    bad("t\n.subckt s a\nR1 a 0 {1/0}\n.ends\nX1 n s\n",
        "t.cir:3:10: error: division by zero (in instance x1)");
    bad("t\n.subckt s a\nD1 a 0 dx\n.ends\nX1 n s\n",
        "t.cir:3:8: error: unknown model 'dx' for diode d1 (in instance x1)");
    bad("t\n.subckt s a params: r=1\nR1 a 0 {r}\n.ends\nX1 n s q=2\n",
        "t.cir:5:8: error: subckt 's' has no parameter 'q' (instance x1)");
    bad("t\n.subckt s a\nR1 a 0 1\n.ends\n.subckt s b\n.ends\n",
        "t.cir:5:9: error: duplicate subckt 's' (first defined at t.cir:2)");
    bad("t\nR1 a 0 1\n.subckt s a\n", "t.cir:3:1: error: missing .ends for .subckt s");
    bad("t\nR1 a 0 1\n.ends\n", "t.cir:3:1: error: .ends without .subckt");
    bad("t\n.subckt s a\n.subckt inner b\nR1 b 0 1\n.ends\n.ends\nX1 a inner\n",
        "t.cir:7:6: error: unknown subckt 'inner' for instance x1");
    bad("t\n.subckt s a\nK1 l1 l2 0.5\nL1 a 0 1\n.ends\nX1 n s\n",
        "t.cir:3:7: error: unknown element 'l2' in coupling k1 (in instance x1)");
}

/* An output naming a node or an element the circuit has not is not written,
 * with a warning, and the others are (issue 28: ngspice 39 ignores them, e.g.
 * `.print dc v(1)` of its examples/measure/mos-meas-dc.sp; before, an error). */
Test(elab, outputs_of_unknown_names_are_warned_and_left_out)
{
    nsc_circuit *c = rd("t\nV1 a 0 1\nR1 a 0 1\n.tran 1u 1m\n.save v(zz) i(zz) v(a) i(r1) v(a,zz)\n"
                        ".print tran qq v(a)\n.dc V1 0 1 0.5\n.print dc v(1) v(a)\n");
    cr_assert(
        has_warning("t.cir:5:9: warning: unknown node 'zz' in .save: that output is not written"));
    cr_assert(has_warning(
        "t.cir:5:15: warning: unknown element 'zz' in .save: that output is not written"));
    cr_assert(
        has_warning("t.cir:5:34: warning: unknown node 'zz' in .save: that output is not written"));
    cr_assert(has_warning(
        "t.cir:6:13: warning: unknown node 'qq' in .print: that output is not written"));
    cr_assert(
        has_warning("t.cir:8:13: warning: unknown node '1' in .print: that output is not written"));
    cr_assert_eq(c->job.nsave, 2); /* v(a) and i(r1); the .print's v(a) is the same column */
    cr_assert_str_eq(c->job.save[0].name, "v(a)");
    cr_assert_str_eq(c->job.save[1].name, "i(r1)");
    cr_assert_eq(c->job.ndcout, 1);
    cr_assert_str_eq(c->job.dcout[0].name, "v(a)");
    done(c);
}

Test(elab, dot_card_errors)
{
    bad("t\nR1 a 0 1\n.tran -1 1\n", "t.cir:3:7: error: tstep of .tran must be positive");
    bad("t\nR1 a 0 1\n.tran 0\n", "t.cir:3:7: error: tstop of .tran must be positive");
    bad("t\nR1 a 0 1\n.tran 1u -1\n", "t.cir:3:10: error: tstop of .tran must be positive");
    bad("t\nR1 a 0 1\n.tran\n", "t.cir:3:1: error: .tran needs tstep and tstop (or tstop alone)");
    bad("t\nR1 a 0 1\n.tran 1u 1m 2m\n",
        "t.cir:3:13: error: tstart of .tran must be in [0, tstop)");
    bad("t\nR1 a 0 1\n.foo\n", "t.cir:3:1: error: unknown card '.foo'");
    bad("t\nR1 a 0 1\n.func f(x) {x}\n.func F(y) {y}\n",
        "t.cir:4:7: error: function 'f' defined twice");
    bad("t\nR1 a 0 1\n.print tran vdb(a)\n",
        "t.cir:3:13: error: unsupported output 'vdb' in .print (use V(n), V(a,b), I(element))");
    bad("t\nR1 a 0 1\n.ic v(q)=1\n", "t.cir:3:7: error: unknown node 'q' in .ic");
    bad("t\nR1 a 0 1\n.ic a=1\n", "t.cir:3:5: error: expected V(node)=value in .ic, found 'a'");
    bad("t\nR1 a 0 1\n.options theta=0.2\n", "t.cir:3:10: error: theta = 0.2 is not in [0.5, 1]");
    bad("t\nR1 a 0 1\n.model m1 nmf\nD1 a 0 m1\n",
        "t.cir:4:8: error: model 'm1' of diode d1 has unsupported type 'nmf' (t.cir:3; supported: D NMOS PMOS VDMOS SW CSW NPN PNP NJF PJF)");
    bad("t\nR1 a 0 1\n.model m1 njf\nD1 a 0 m1\n",
        "t.cir:4:8: error: model 'm1' of diode d1 is NJF model, not a diode (D) model");
    /* the .model types are the device table's (devif.h models): an alias (Xyce's
     * ISWITCH, VSWITCH) reads as its type and is named by the type's first name */
    bad("t\nR1 a 0 1\n.model m1 iswitch\nS1 a 0 a 0 m1\n",
        "t.cir:4:12: error: model 'm1' of switch s1 is CSW model, not a switch (SW) model");
    bad("t\nR1 a 0 1\n.model m1 VSwitch\nD1 a 0 m1\n",
        "t.cir:4:8: error: model 'm1' of diode d1 is SW model, not a diode (D) model");
    bad("t\nR1 a 0 1\n.model m1 vdmos pchan\nQ1 a 0 0 m1\n",
        "t.cir:4:10: error: model 'm1' of bipolar transistor q1 is PMOS model, not a bipolar (NPN/PNP) model");
    bad("t\nR1 a 0 1\n.model m1\n", "t.cir:3:8: error: .model needs a name and a type");
    bad("t\nR1 a 0 1\n.model m1 d (is)\n",
        "t.cir:3:14: error: expected name=value in .model m1, found 'is'");
    bad("t\n* nothing\n", "t.cir:1:1: error: netlist has no elements");
    bad("", "t.cir:1:1: error: netlist has no elements");
    bad("t\n.tran 1u 1m\n.end\n", "t.cir:1:1: error: netlist has no elements");
}

Test(elab, no_analysis_is_not_an_error_and_tran_without_defaults)
{
    nsc_circuit *c = rd("t\nV1 a 0 PULSE(0 1)\nR1 a 0 1\n");
    cr_assert_eq(c->job.has_tran, 0);
    cr_assert_eq(c->job.has_op, 0);
    const nsc_wave *w = &el(c, "v1")->wave;
    cr_assert_eq(w->np, 7);
    for (int k = 0; k < 7; k++) cr_assert(isfinite(w->p[k]));
    done(c);
}

Test(elab, netlists_directory_parses)
{
    DIR *dir = opendir(NSC_NETLISTS);
    if (!dir) cr_skip_test("no netlists directory");
    struct dirent *de;
    int n = 0;
    while ((de = readdir(dir))) {
        size_t len = strlen(de->d_name);
        if (len < 5 || strcmp(de->d_name + len - 4, ".cir")) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", NSC_NETLISTS, de->d_name);
        nsc_circuit *c = NULL;
        nsc_report_init(&R);
        cr_assert_eq(nsc_netlist_read(path, NULL, 0, &c, &R), NSC_OK, "%s: %s", path, R.error);
        cr_assert_gt(c->nel, 0);
        done(c);
        n++;
    }
    closedir(dir);
    cr_assert_gt(n, 0);
}

Test(elab, rectifier_bridge_fields)
{
    nsc_circuit *c = rd("bridge\n"
                        "L1 a b 10m IC=0\n"
                        "C1 a b 1u IC=10\n"
                        "D1 a p DI\nD2 b p DI\nD3 n a DI\nD4 n b DI\n"
                        "R1 p n 1k\n"
                        ".model DI D(VF=0)\n"
                        ".tran 1u 5m 0 1u UIC\n");
    cr_assert_eq(c->nel, 7);
    cr_assert_eq(c->nnode, 5);
    near(el(c, "l1")->value, 10e-3);
    cr_assert_eq(el(c, "l1")->has_ic, 1);
    near(el(c, "l1")->ic, 0);
    near(el(c, "c1")->ic, 10);
    cr_assert_eq(el(c, "d3")->node[0], nd(c, "n"));
    cr_assert_eq(el(c, "d3")->node[1], nd(c, "a"));
    cr_assert_eq(el(c, "d4")->model, el(c, "d1")->model);
    near(c->job.tstep, 1e-6);
    near(c->job.tstop, 5e-3);
    near(c->job.tmax, 1e-6);
    cr_assert_eq(c->job.uic, 1);
    done(c);
}

/* Cards of other dialects and analyses other than the transient are skipped,
 * one warning each naming the card (issue 12 item 2); the .tran still holds. */
Test(elab, other_dialect_cards_are_skipped_with_a_warning)
{
    nsc_circuit *c = rd(
        "t\n.title x\nR1 a 0 1\n.sens v(a)\n.temp 27\n"
        ".noise v(a) v1 dec 10 1 1k\n.pz a 0 a 0 vol pz\n.tf v(a) v1\n.disto dec 10 1 1k\n.backanno\n"
        "V1 a 0 1\n.tran 1u 1m\n");
    const char *card[] = {
        ".sens", "", ".noise", ".pz", ".tf", ".disto"
    }; /* (.ac, .dc, .four: run, issue 29) */
    char w[200];
    for (int k = 0; k < 6; k++) {
        if (!*card[k]) continue;
        snprintf(
            w, sizeof w,
            "t.cir:%d:1: warning: %s card skipped: not simulated (the analyses: .tran, .op, .pss, .ac, .dc)",
            k + 4, card[k]);
        cr_assert(has_warning(w), "%s", w);
    }
    cr_assert(has_warning(
        "t.cir:10:1: warning: .backanno card skipped: LTspice's annotation has no effect here"));
    cr_assert(has_warning("t.cir:5:1: note: .temp ignored"));
    cr_assert_eq(R.nwarn, 7); /* .title sets the title (issue 28 item 4) */
    cr_assert_str_eq(c->title, "x");
    cr_assert(c->job.has_tran && c->job.tstop == 1e-3 && c->job.tstep == 1e-6);
    done(c);
}

/* LTspice's ".tran TSTOP" and Xyce's ".tran 0 TSTOP [TSTART]": rows every
 * (tstop - tstart) / 1000, said in a note. */
Test(elab, tran_without_print_step)
{
    nsc_circuit *c = rd("t\nR1 a 0 1\n.tran 2m uic\n");
    cr_assert(c->job.has_tran && c->job.uic);
    near(c->job.tstop, 2e-3);
    near(c->job.tstep, 2e-6);
    near(c->job.tstart, 0);
    cr_assert(has_warning(
        "t.cir:3:1: note: .tran without a print step: rows every (tstop - tstart) / 1000 = 2e-06 s"));
    done(c);
    c = rd("t\nR1 a 0 1\n.tran 0 3m 1m\n");
    near(c->job.tstop, 3e-3);
    near(c->job.tstart, 1e-3);
    near(c->job.tstep, 2e-6);
    cr_assert(has_warning(
        "t.cir:3:1: note: .tran without a print step: rows every (tstop - tstart) / 1000 = 2e-06 s"));
    done(c);
}

/* .meas as LTspice writes it: options without '=' ("FROM 1m TO 2m"), and no
 * analysis word (".meas NAME ..." measures the transient). */
Test(elab, meas_options_without_equals)
{
    nsc_circuit *c = rd(
        "t\nV1 a 0 1\nR1 a 0 1\n.tran 1u 3m\n.meas tran x AVG v(a) FROM 1m TO 2m\n"
        ".meas tran y WHEN v(a)=0.5 TD 0.5m RISE 2\n.meas tran z AVG v(a) from=1m TO 2.5m\n"
        ".meas w MAX v(a) TO 1m\n");
    cr_assert_eq(c->job.nmeas, 4);
    cr_assert_str_eq(c->job.meas[3].name, "w"); /* LTspice: no analysis word */
    cr_assert_eq(c->job.meas[3].type, NSC_MEAS_MAX);
    near(c->job.meas[3].to, 1e-3);
    near(c->job.meas[0].from, 1e-3);
    near(c->job.meas[0].to, 2e-3);
    near(c->job.meas[1].trig.td, 0.5e-3);
    cr_assert_eq(c->job.meas[1].trig.count, 2);
    cr_assert_eq(c->job.meas[1].trig.edge, 1);
    near(c->job.meas[2].from, 1e-3);
    near(c->job.meas[2].to, 2.5e-3);
    done(c);
    /* FROM without its value: that measure is not made (ngspice 39: "bad syntax") */
    c = rd("t\nV1 a 0 1\nR1 a 0 1\n.tran 1u 3m\n.meas tran x AVG v(a) FROM\n");
    cr_assert(has_warning("t.cir:5:23: warning: .meas x not measured: option 'from' without its "
                          "value"));
    cr_assert_eq(c->job.nmeas, 0);
    cr_assert_eq(c->job.nmeas_probe, 0);
    done(c);
    /* a measure of another analysis is an output not made: warned, the run goes on */
    c = rd("t\nV1 a 0 1\nR1 a 0 1\n.tran 1u 3m\n.meas tf x AVG v(a)\n");
    cr_assert(has_warning(
        "t.cir:5:7: warning: .meas tf x not measured: only .meas tran and .meas ac are"));
    cr_assert_eq(c->job.nmeas, 0);
    done(c);
}

/* B sources compile to exact PWL programs (nl_pwl.c): a comparator is one
 * step auxiliary (two pairs) scaled by the jump, a clamp two ramps, linear
 * terms stay linear, I() names a voltage source resolved at the end. */
Test(elab, behavioural_source_programs)
{
    const char *text = "t\nV1 a 0 1\nV2 r 0 2\nR1 c 0 1\nR2 l 0 1\nR3 n 0 1\n"
                       "B1 c 0 V = V(a) > V(r) ? 5 : 1\n"
                       "B2 l 0 V={min(max(2*V(a,r), 0), 4)}\n"
                       "B3 n 0 I = -2*I(V1) + V(a)/4 + 3\n";
    nsc_circuit *c = NULL;
    nsc_report_init(&R);
    cr_assert_eq(nsc_netlist_read_string(text, "t.cir", NULL, 0, &c, &R), NSC_OK, "%s", R.error);
    const nsc_element *b1 = &c->el[5], *b2 = &c->el[6], *b3 = &c->el[7];
    cr_assert_eq(b1->kind, NSC_EL_BV);
    const nsc_bprog *p = nsc_bprog_of(b1);
    cr_assert_eq(p->nop, 1);
    cr_assert_eq(p->op[0].step, 1); /* H(v(a) - v(r)) */
    cr_assert_eq(p->op[0].arg.nt, 2);
    cr_assert_eq(p->op[0].arg.c, 0);
    cr_assert_eq(p->out.c, 1); /* 1 + (5 - 1) H */
    cr_assert_eq(p->out.nt, 1);
    cr_assert_eq(p->term[p->out.t0].kind, NSC_BT_AUX);
    cr_assert_eq(p->term[p->out.t0].coef, 4);
    p = nsc_bprog_of(b2);    /* max(x, 0) = 0 + a_0, a_0 = ramp(2 v(a) - 2 v(r)); */
    cr_assert_eq(p->nop, 2); /* min(a_0, 4) = a_0 - a_1, a_1 = ramp(a_0 - 4) */
    cr_assert(p->op[0].step == 0 && p->op[1].step == 0);
    cr_assert(p->op[0].arg.nt == 2 && p->op[0].arg.c == 0);
    cr_assert(p->op[1].arg.nt == 1 && p->op[1].arg.c == -4);
    cr_assert_eq(p->term[p->op[1].arg.t0].kind, NSC_BT_AUX);
    cr_assert_eq(p->out.nt, 2);
    cr_assert_eq(b3->kind, NSC_EL_BI);
    p = nsc_bprog_of(b3);
    cr_assert_eq(p->nop, 0);
    cr_assert_eq(p->nelref, 1);
    cr_assert_eq(p->elref[0], 0); /* V1 */
    cr_assert_eq(p->out.c, 3);
    cr_assert_eq(p->out.nt, 2);
    nsc_circuit_free(c);
    nsc_report_free(&R);
}

Test(elab, behavioural_source_errors)
{
    const char *pre = "t\nR1 a 0 1\nR2 b 0 1\nV1 b 0 1\n";
    const struct {
        const char *card, *msg;
    } T[] = {
        { "B1 a b x=1",
          "t.cir:5:8: error: behavioural source b1: expected V=expr or I=expr after the two nodes" },
        { "B1 a 0 V=V(a)*(V(b)>1)",
          "t.cir:5:14: error: product of two node voltages or currents with a nonsmooth "
          "part (a comparison, abs, min, ...) or time is neither piecewise-linear nor smooth: "
          "'v(a)*(v(b)>1)'" },
        { "B1 a 0 V=V(b)/max(V(a),1)",
          "t.cir:5:14: error: division by a node voltage or current with a nonsmooth part "
          "(a comparison, abs, min, ...) or time is neither piecewise-linear nor smooth: "
          "'v(b)/max(v(a),1)'" },
        { "B1 a 0 V=floor(V(b))",
          "t.cir:5:10: error: a function other than abs u uramp sgn min max limit if "
          "(piecewise-linear) or sqrt exp log ln log10 sin cos tan asin acos atan sinh cosh tanh "
          "pow atan2 (smooth, of node voltages and currents without nonsmooth parts or time), of "
          "a node voltage or current, is not supported: 'floor(v(b))'" },
        { "B1 a 0 V=exp(abs(V(b)))",
          "t.cir:5:10: error: a function other than abs u uramp sgn min max limit if "
          "(piecewise-linear) or sqrt exp log ln log10 sin cos tan asin acos atan sinh cosh "
          "tanh pow atan2 (smooth, of node voltages and currents without nonsmooth parts or "
          "time), of a node voltage or current, is not supported: 'exp(abs(v(b)))'" },
        { "B1 a 0 V=V(b)==1 ? 1 : 0",
          "t.cir:5:14: error: '==' and '!=' of node voltages or currents are not "
          "piecewise-linear (true at one point only): use < or >: 'v(b)==1'" },
        { "B1 a 0 V=V(b)*time",
          "t.cir:5:14: error: product of a node voltage or current and a function of time is "
          "not piecewise-linear: 'v(b)*time'" },
        { "B1 a 0 V=V(b) ? 1 : 0",
          "t.cir:5:15: error: '?:' needs a comparison (such as V(a) > V(b)) where it has a "
          "node voltage or current: not piecewise-linear: 'v(b)?1:0'" },
        { "B1 a 0 V={V(b)>1 ? V(b) : 0}",
          "t.cir:5:18: error: '?:' (or if()) whose two values differ by a node voltage "
          "or current is not piecewise-linear (a product with the condition): "
          "'v(b)>1?v(b):0'" },
        { "B1 a 0 I=I(R1)",
          "t.cir:5:12: error: behavioural source b1: 'r1' is not a voltage source" },
        { "B1 a 0 V=I(V9)", "t.cir:5:12: error: unknown element 'v9' in behavioural source b1" },
        { "B1 a 0 V=V(b,a,0)",
          "t.cir:5:10: error: expected V(node) or V(node1,node2): 'v(b,a,0)'" },
        { "B1 b 0 V=1",
          "t.cir:5:1: error: behavioural source b1 closes a loop of voltage sources" },
    };
    char text[512];
    for (size_t k = 0; k < sizeof T / sizeof T[0]; k++) {
        snprintf(text, sizeof text, "%s%s\n", pre, T[k].card);
        if (k == sizeof T / sizeof T[0] - 1) { /* the loop is found by the assembler */
            nsc_circuit *c = NULL;
            nsc_lcs *L = NULL;
            nsc_report_init(&R);
            cr_assert_eq(nsc_netlist_read_string(text, "t.cir", NULL, 0, &c, &R), NSC_OK, "%s",
                         R.error);
            cr_assert_neq(nsc_lcs_assemble(c, NSC_ASM_TRAN, 1e-12, &L, &R), NSC_OK);
            cr_assert_str_eq(R.error, T[k].msg);
            nsc_circuit_free(c);
            nsc_report_free(&R);
            continue;
        }
        bad(text, T[k].msg);
    }
}

/* Every built-in function of the registry (base/xfn.h) called with one
 * argument too many: the registry's arity message at the call's line:col, the
 * same in a B source (quoting the call, as its other messages do) and in a
 * .param value. Before, a B source said "wrong number of arguments" for the
 * piecewise-linear ones and, for the smooth ones, that the function (sqrt ...)
 * is not among those supported, listing it. */
Test(elab, builtin_arity_errors_name_the_function)
{
    const char *pre = "t\nR1 a 0 1\nR2 b 0 1\nV1 b 0 1\n";
    char text[512], args[128], want[256], quote[128];
    for (int id = 0; id < nsc_xfn_count(); id++) {
        const nsc_xfn *f = nsc_xfn_at(id);
        int n = f->nargs;
        const char *s = n == 1 ? "" : "s";
        args[0] = 0;
        for (int k = 0; k <= n; k++) strcat(args, k ? ",v(b)" : "v(b)");
        snprintf(quote, sizeof quote, "%s(%s)", f->name, args);
        snprintf(text, sizeof text, "%sB1 a 0 V=%s\n", pre, quote);
        snprintf(want, sizeof want, "t.cir:5:10: error: function '%s' takes %d argument%s: '%s'",
                 f->name, n, s, quote);
        bad(text, want);
        snprintf(text, sizeof text, "%sB1 a 0 V=1+%s\n", pre,
                 quote); /* inside a sum: the call's column */
        snprintf(want, sizeof want, "t.cir:5:12: error: function '%s' takes %d argument%s: '%s'",
                 f->name, n, s, quote);
        bad(text, want);
        snprintf(text, sizeof text, "%sR3 a 0 {2*%s(1%s)}\n", pre, f->name,
                 n == 1   ? ",1"
                 : n == 2 ? ",1,1"
                          : ",1,1,1");
        snprintf(want, sizeof want, "t.cir:5:11: error: function '%s' takes %d argument%s", f->name,
                 n, s);
        bad(text, want);
    }
}

/* LTspice's Rser= (V L C), Rpar= Cpar= (L C) are elements of their own (issue
 * 12 item 4). Before, Rser= on L and C was dropped with a warning (a silently
 * wrong circuit) and Rser= on V was an error. */
Test(elab, ltspice_parasitics_are_elements)
{
    nsc_circuit *c = rd("parasitics\n"
                        "V1 in 0 PULSE(0 1 0 1n 1n 1u 2u) Rser=0.5\n"
                        "L1 in mid 10u Rser=20m Rpar=2k Cpar=3p IC=0.1\n"
                        "C1 mid 0 4.7u Rser=5m IC=2 Lser=1n\n"
                        "C2 mid 0 1u Rser=0 Cpar=0\n"
                        "V2 mid 0 1 Cpar=1p\n"
                        ".subckt lc a b\nL1 a b 1m Rser=1\n.ends\n"
                        "X1 in 0 lc\n");
    int in = nd(c, "in"), mid = nd(c, "mid");
    const nsc_element *e = el(c, "v1"); /* V1 from in to its Rser node */
    int vn = nd(c, "v1#rser");
    cr_assert_eq(e->node[0], in);
    cr_assert_eq(e->node[1], vn);
    cr_assert_eq(e->wave.kind, NSC_WAVE_PULSE);
    e = el(c, "v1#rser");
    cr_assert_eq(e->kind, NSC_EL_R);
    cr_assert_eq(e->node[0], vn);
    cr_assert_eq(e->node[1], 0);
    near(e->value, 0.5);
    e = el(c, "l1"); /* L1 from in to l1#rser, Rser on to mid */
    int ln = nd(c, "l1#rser");
    cr_assert_eq(e->kind, NSC_EL_L);
    cr_assert_eq(e->node[0], in);
    cr_assert_eq(e->node[1], ln);
    near(e->value, 10e-6);
    cr_assert_eq(e->has_ic, 1);
    near(e->ic, 0.1);
    e = el(c, "l1#rser");
    cr_assert_eq(e->kind, NSC_EL_R);
    cr_assert_eq(e->node[0], ln);
    cr_assert_eq(e->node[1], mid);
    near(e->value, 20e-3);
    e = el(c, "l1#rpar"); /* Rpar and Cpar across the terminals */
    cr_assert_eq(e->kind, NSC_EL_R);
    cr_assert_eq(e->node[0], in);
    cr_assert_eq(e->node[1], mid);
    near(e->value, 2e3);
    e = el(c, "l1#cpar");
    cr_assert_eq(e->kind, NSC_EL_C);
    cr_assert_eq(e->node[0], in);
    cr_assert_eq(e->node[1], mid);
    near(e->value, 3e-12);
    e = el(c, "c1");
    cr_assert_eq(e->node[1], nd(c, "c1#rser"));
    cr_assert_eq(e->has_ic, 1); /* IC= stays the capacitor's own voltage */
    near(e->ic, 2);
    near(el(c, "c1#rser")->value, 5e-3);
    cr_assert_eq(nsc_circuit_element(c, "c2#rser"), -1); /* Rser=0, Cpar=0: none */
    cr_assert_eq(nsc_circuit_element(c, "c2#cpar"), -1);
    cr_assert_eq(nsc_circuit_node(c, "c2#rser"), -1);
    cr_assert_eq(el(c, "c2")->node[1], 0);
    e = el(c, "x1.l1#rser"); /* hierarchical names inside a subckt */
    cr_assert_eq(e->node[0], nd(c, "x1.l1#rser"));
    cr_assert_eq(e->node[1], 0);
    cr_assert_eq(el(c, "x1.l1")->node[1], nd(c, "x1.l1#rser"));
    cr_assert_eq(c->nel, 12);
    cr_assert(has_warning("t.cir:4:28: warning: parameter 'lser' of capacitor c1 ignored"));
    cr_assert(has_warning(
        "t.cir:6:12: warning: parameter 'cpar' of voltage source v2 ignored (not supported)"));
    done(c);
}

Test(elab, ltspice_parasitic_errors)
{
    bad("t\nL1 a 0 1m Rpar=0\n", "t.cir:2:11: error: rpar= of l1 must be positive (0)");
    bad("t\nC1 a 0 1u Rser=-1\n", "t.cir:2:11: error: rser= of c1 must be zero or positive (-1)");
    bad("t\nV1 a 0 1 Rser={-2}\n", "t.cir:2:10: error: rser= of v1 must be zero or positive (-2)");
    bad("t\nI1 a 0 1 Rser=1\n", "t.cir:2:10: error: unexpected 'rser' in current source i1");
    bad("t\nV1 a 0 1 Rser=1 Lser=1\n", "t.cir:2:17: error: unexpected 'lser' in voltage source v1");
    /* the internal node's name is taken by the netlist, before or after */
    bad("t\nR1 a l1#rser 1\nL1 a 0 1m Rser=1\n",
        "t.cir:3:11: error: node 'l1#rser' of the netlist clashes with the internal node of Rser= of l1");
    bad("t\nL1 a 0 1m Rser=1\nR1 a l1#rser 1\n",
        "t.cir:3:6: error: node 'l1#rser' is the internal node of Rser= of l1");
    bad("t\nL1#rser a 0 1m\nL1 a 0 1m Rser=1\n",
        "t.cir:3:1: error: duplicate element name 'l1#rser' (first defined at t.cir:2)");
}

/* Only what the circuit uses must be supported (issue 12 item 6): a .subckt
 * never instantiated is not elaborated, and a .model of a type not supported
 * (a library's NMF, a code model) is an error only for an element that uses
 * it. Before, an unused '.model qn NPN' stopped the run (NPN is supported since). A used subckt with
 * an unsupported element is still an error at its card, with the instance. */
Test(elab, unused_definitions_need_not_be_supported)
{
    const char *lib =
        ".model qn NMF(IS=1e-14 BETA={bf})\n"
        ".subckt amp in out\n"
        "Z2 out in 0 qn area=2\n"
        "A1 [in] out adc\n"
        ".model adc adc_bridge(in_low=0.3)\n"
        "Z1 out in 0 jm\n"
        ".ends\n"
        ".subckt div in out\nR1 in out 1k\nR2 out 0 1k\n.model dd d\n.model qq nmf\n.ends\n";
    char text[1024];
    snprintf(text, sizeof text, "unused\n%sV1 a 0 1\nX1 a b div\n", lib);
    nsc_circuit *c = rd(text);
    cr_assert_eq(c->nel, 3);
    near(el(c, "x1.r2")->value, 1e3);
    cr_assert_eq(c->nmodel, 1); /* x1.dd */
    cr_assert_eq(R.nwarn, 0);
    done(c);
    snprintf(text, sizeof text, "used\n%sV1 a 0 1\nX1 a b div\nX2 a c amp\n", lib);
    bad(text,
        "t.cir:4:1: error: unsupported element z2: MESFETs (Z) are not supported; use a MOS transistor "
        "(NMOS, LEVEL=1) or a switch (in instance x2)");
    snprintf(text, sizeof text, "used\n%sV1 a 0 1\nX1 a b div\nD1 a 0 qn\n", lib);
    bad(text,
        "t.cir:17:8: error: model 'qn' of diode d1 has unsupported type 'nmf' (t.cir:2; supported: D NMOS PMOS VDMOS SW CSW NPN PNP NJF PJF)");
}

/* A B expression whose affine form would exceed 4096 distinct unknowns is an
 * error (compilation merges terms in O(n) each: a megabyte of V() terms in a
 * balanced tree would otherwise take minutes), quoting the subexpression's start. */
Test(elab, behavioural_source_too_large)
{
    size_t cap = 1 << 20, n = 0;
    char *text = malloc(cap);
    cr_assert_not_null(text);
    n += (size_t)snprintf(text + n, cap - n, "t\nR1 a 0 1\nB1 a 0 V={");
    for (int k = 0; k < 5000; k++)
        n += (size_t)snprintf(text + n, cap - n, "%sV(n%d)", k ? "+" : "", k);
    snprintf(text + n, cap - n, "}\n");
    nsc_circuit *c = NULL;
    nsc_report_init(&R);
    cr_assert_neq(nsc_netlist_read_string(text, "t.cir", NULL, 0, &c, &R), NSC_OK);
    cr_assert(strstr(R.error, "too deeply nested") || strstr(R.error, "more than 4096"), "%s",
              R.error);
    nsc_report_free(&R);
    /* balanced: (((v(n0)+v(n1))+(v(n2)+v(n3)))+...), depth 14 */
    n = (size_t)snprintf(text, cap, "t\nR1 a 0 1\nB1 a 0 V={");
    int m = 8192;
    for (int k = 0; k < m; k++) {
        int open = 0;
        for (int q = k; q % 2 == 0 && (1 << open) < m; q /= 2) open++;
        for (int q = 0; q < open; q++) text[n++] = '(';
        n += (size_t)snprintf(text + n, cap - n, "V(n%d)", k);
        int close = 0;
        for (int q = k + 1; q % 2 == 0 && (1 << close) < m; q /= 2) close++;
        for (int q = 0; q < close; q++) text[n++] = ')';
        if (k + 1 < m) text[n++] = '+';
    }
    snprintf(text + n, cap - n, "}\n");
    nsc_report_init(&R);
    cr_assert_neq(nsc_netlist_read_string(text, "t.cir", NULL, 0, &c, &R), NSC_OK);
    cr_assert(
        strstr(R.error,
               "B source expression too large (more than 4096 distinct voltages and currents): "
               "'v(n0)+"),
        "%s", R.error);
    cr_assert(strlen(R.error) < 300, "%s", R.error);
    nsc_report_free(&R);
    free(text);
}

/* W n+ n- vsense model: the sense source is resolved at the end, the model
 * must be CSW (or Xyce's ISWITCH); Xyce's VSWITCH is an S switch's model. */
Test(elab, current_switch_cards)
{
    nsc_circuit *c = NULL;
    nsc_report_init(&R);
    cr_assert_eq(nsc_netlist_read_string(
                     "t\nW1 a 0 VS CM ON\nVS a b 0\nR1 b 0 1\nS1 a 0 b 0 VM\n"
                     ".model CM ISWITCH(ION=2m IOFF=1m)\n.model VM VSWITCH(VON=1 VOFF=0)\n",
                     "t.cir", NULL, 0, &c, &R),
                 NSC_OK, "%s", R.error);
    cr_assert_eq(c->el[0].kind, NSC_EL_W);
    cr_assert_eq(c->el[0].ref[0], 1);
    cr_assert(c->el[0].has_ic && c->el[0].ic == 1);
    cr_assert_eq(c->el[0].model->type, NSC_MOD_CSW);
    cr_assert_eq(c->el[3].model->type, NSC_MOD_SW);
    nsc_circuit_free(c);
    nsc_report_free(&R);
    bad("t\nW1 a 0\n", "t.cir:2:1: error: missing sense voltage source for switch w1");
    bad("t\nW1 a 0 VS\nVS a 0 1\n", "t.cir:2:1: error: missing model name for switch w1");
    bad("t\nW1 a 0 R1 CM\nR1 a 0 1\n.model CM CSW(IT=1m)\n",
        "t.cir:2:8: error: switch w1: 'r1' is not a voltage source");
    bad("t\nW1 a 0 VS SM\nVS a 0 1\n.model SM SW(VT=1)\n",
        "t.cir:2:11: error: model 'sm' of switch w1 is SW model, not a current switch (CSW) model");
}

/* .pss [period=T] [periods=N] [warmup=N] [maxit=N] [tol=X]: the periodic steady
 * state's settings; wrong values and unknown parameters are errors at the
 * field; ngspice's positional form is warned about (not that analysis). */
Test(elab, pss_card)
{
    nsc_circuit *c = rd(
        "t\nV1 a 0 SIN(0 1 1k)\nR1 a 0 1\n.pss period=2m periods=3 warmup=2 maxit=20 tol=1e-8\n");
    cr_assert(c->job.has_pss && c->job.pss_period == 2e-3 && c->job.pss_periods == 3
              && c->job.pss_warmup == 2 && c->job.pss_maxit == 20 && c->job.pss_tol == 1e-8);
    cr_assert_eq(c->job.pss_loc.line, 4);
    done(c);
    c = rd("t\nV1 a 0 SIN(0 1 1k)\nR1 a 0 1\n.pss 1k 1m 2\n");
    cr_assert(c->job.has_pss && c->job.pss_period == 0);
    cr_assert(
        has_warning(
            "t.cir:4:6: warning: positional .pss arguments (ngspice's oscillator analysis) ignored: "
            "the steady state is the driven one, over the sources' period"),
        "%s", R.nwarn ? R.warn[0] : "");
    done(c);
    bad("t\nR1 a 0 1\n.pss periods=0\n",
        "t.cir:3:6: error: .pss periods must be a whole number from 1 to 10000");
    bad("t\nR1 a 0 1\n.pss period=-1\n", "t.cir:3:6: error: .pss period must be a positive time");
    bad("t\nR1 a 0 1\n.pss tol=2\n", "t.cir:3:6: error: .pss tol must be in (0, 1)");
    bad("t\nR1 a 0 1\n.pss harms=3\n",
        "t.cir:3:6: error: unknown .pss parameter 'harms' (period, periods, warmup, maxit, tol)");
}

/* Model cards as vendors and other simulators write them (issue 12 item 3):
 * parameters without '=' and separated by commas, the same .model twice in
 * included libraries (identical: accepted; different: an error naming the
 * first), SINE for SIN, the micro sign and the Greek mu for 'u'. Each was an
 * error before. */
Test(elab, model_card_dialects)
{
    nsc_circuit *c = rd("dia\n"
                        "V1 a 0 SINE(0 2 1k)\n"
                        "C1 a 0 4.7\xc2\xb5\n"
                        "C2 a 0 2\xce\xbc"
                        "F\n"
                        "D1 a 0 DV\n"
                        "D2 a 0 DC\n"
                        ".model DV D IS 2.5e-9 N 1.75 RS {0.1*2}\n"
                        ".model DC D(IS=1e-14, N=1.05,RS=0.1)\n"
                        ".model DV D IS 2.5e-9 N 1.75 RS 0.2\n"
                        ".model dc d(is=1e-14 n=1.05 rs=0.1)\n");
    cr_assert_eq(c->nmodel, 2);
    const nsc_element *e = el(c, "v1");
    cr_assert_eq(e->wave.kind, NSC_WAVE_SIN);
    near(nsc_wave_eval(&e->wave, 0.25e-3), 2);
    near(el(c, "c1")->value, 4.7e-6);
    near(el(c, "c2")->value, 2e-6);
    double v;
    const nsc_model *m = el(c, "d1")->model;
    cr_assert(nsc_model_get(m, "is", &v));
    near(v, 2.5e-9);
    cr_assert(nsc_model_get(m, "n", &v));
    near(v, 1.75);
    cr_assert(nsc_model_get(m, "rs", &v));
    near(v, 0.2);
    m = el(c, "d2")->model;
    cr_assert(m->npar == 3 && nsc_model_get(m, "rs", &v));
    near(v, 0.1);
    done(c);
    bad("dia\nV1 a 0 1\nD1 a 0 DX\n.model DX D IS\n.end\n",
        "t.cir:4:13: error: expected name=value in .model dx, found 'is'");
}

/* `.title` takes the rest of the line verbatim, commas and quotes included,
 * and replaces the first line as ngspice's does; `.title a, b` was a syntax
 * error (issue 28 item 4). */
Test(elab, title_card_is_the_rest_of_the_line)
{
    nsc_circuit *c = rd(
        "first line\n.title Buck: 12 V, 'lab' (rev. 2)  \nR1 a 0 1\nV1 a 0 1\n.op\n");
    cr_assert_str_eq(c->title, "Buck: 12 V, 'lab' (rev. 2)");
    cr_assert_eq(R.nwarn, 0);
    done(c);
}

/* A .subckt nobody instances is not elaborated, and a card of it that does not
 * parse (XSPICE's [ ] vectors, a continuation written without its '+') is an
 * error only once an instance needs it, at the card's own position, as ngspice
 * never expands such a subcircuit (issue 28 item 5). */
Test(elab, unused_subckt_is_not_parsed)
{
    const char *lib = ".subckt adc in out vdd\n"
                      ".model gate1 d_and(rise_delay=1n\n"
                      "fall_delay=1n)\n"
                      ".model adc1 adc_bridge(in_low=[0.1 0.2] in_high=0.9)\n"
                      "a1 [in vdd] out gate1\n"
                      ".ends adc\n";
    char text[1024];
    snprintf(text, sizeof text, "t\n%sV1 a 0 2\nR1 a b 1k\nR2 b 0 1k\n.op\n", lib);
    nsc_circuit *c = rd(text);
    cr_assert_eq(c->nel, 3);
    cr_assert_eq(R.nwarn, 0);
    done(c);
    snprintf(text, sizeof text, "t\n%sV1 a 0 2\nX1 a b a adc\n.op\n", lib);
    bad(text,
        "t.cir:4:14: error: syntax error at ')' (in instance x1)"); /* the line without its '+' */
}

/* Analyses other than the transient are skipped unparsed: Xyce's `.sens
 * param=mod1:is` was a syntax error at the ':' (issue 28 item 5). */
Test(elab, skipped_analyses_are_not_parsed)
{
    nsc_circuit *c = rd(
        "t\nR1 a 0 1\nV1 a 0 1\n.sens objfunc={V(a)} param=mod1:is,r1:r\n.noise v(a) v1 dec 10 1 {1k\n.tran 1u 1m\n");
    cr_assert(has_warning(
        "t.cir:4:1: warning: .sens card skipped: not simulated (the analyses: .tran, .op, .pss, .ac, .dc)"));
    cr_assert(has_warning(
        "t.cir:5:1: warning: .noise card skipped: not simulated (the analyses: .tran, .op, .pss, .ac, .dc)"));
    cr_assert(c->job.has_tran && c->job.tstop == 1e-3);
    done(c);
}

/* A .model defined twice keeps the first card, as ngspice 39 does (checked:
 * `ngspice -b` on a Zener clamp whose DZ card is given first with RS=0, then
 * RS=1000, clamps at -5.15 V; in the other order at -8.57 V); the two are
 * compared after SPICE's defaults, in any order, and only a difference is
 * warned (issue 28 item 6). It was an error. */
Test(elab, model_defined_twice_keeps_the_first)
{
    nsc_circuit *c = rd(
        "t\nV1 a 0 1\nD1 a 0 DX\n.model DX D(IS=1e-14 RS=2)\n.model dx D(rs=2 level=1 n=1)\n"
        ".model dx d rs=2 is=1e-14\n.op\n");
    cr_assert_eq(R.nwarn, 0, "%s", R.nwarn ? R.warn[0] : ""); /* the same values: no warning */
    double v;
    cr_assert(nsc_model_get(el(c, "d1")->model, "rs", &v));
    near(v, 2);
    done(c);
    c = rd("t\nV1 a 0 1\nD1 a 0 DX\n.model DX D(IS=1e-14 RS=2)\n.model DX D(RS=3)\n.op\n");
    cr_assert(has_warning(
        "t.cir:5:8: warning: model 'dx' defined again with other parameters: the first one (t.cir:4) "
        "is kept, as ngspice does"));
    cr_assert(nsc_model_get(el(c, "d1")->model, "rs", &v));
    near(v, 2);
    cr_assert(!nsc_model_get(el(c, "d1")->model, "vf", &v));
    done(c);
    c = rd(
        "t\nV1 a 0 1\nR1 a 0 1\n.model m1 njf\n.model M1 d\n.op\n"); /* another type: the first one too */
    cr_assert(has_warning(
        "t.cir:5:8: warning: model 'm1' defined again with other parameters: the first one (t.cir:4) "
        "is kept, as ngspice does"));
    done(c);
    /* a bipolar model: its device's defaults (IS 1e-16, BF 100) fill in what one leaves out */
    c = rd("t\nV1 a 0 1\nR1 a 0 1\n.model qa npn(bf=100)\n.model qa npn is=1e-16\n.op\n");
    cr_assert_eq(R.nwarn, 0, "%s", R.nwarn ? R.warn[0] : "");
    done(c);
    c = rd("t\nV1 a 0 1\nR1 a 0 1\n.model qa npn(bf=100)\n.model qa npn is=1e-15\n.op\n");
    cr_assert(has_warning(
        "t.cir:5:8: warning: model 'qa' defined again with other parameters: the first one (t.cir:4) "
        "is kept, as ngspice does"));
    done(c);
}

/* PSpice's `R n1 n2 MODEL value` (and ngspice's `R n1 n2 value MODEL`) with a
 * .model RES: value * R * (1 + TC1 dT + TC2 dT^2), dT = 27 - TNOM (PSpice's
 * manual; at TNOM = 27 the temperature terms vanish, as in ngspice: `ngspice
 * -b` on V1 1 V, R1 RMOD 1k with RES(TC1=0.01), .temp 50 gives 0.813 mA =
 * 1 V / 1.23 kOhm, i.e. TC1 acts through T - TNOM only). ngspice ignores R=;
 * PSpice's scale is kept and warned (issue 28 item 8). */
Test(elab, resistor_model_scales_the_value)
{
    nsc_circuit *c = rd("t\nV1 a 0 1\nR1 a 0 RMOD 1k\nR2 a 0 2k rmod2\nR3 a 0 RT 100\n"
                        ".model RMOD RES(R=1.5 TC1=0.01)\n.model rmod2 r(tc1=1e-3 tc2=1e-5)\n"
                        ".model RT RES(TC1=0.01 TC2=1e-4 TNOM=17)\n.op\n");
    near(el(c, "r1")->value, 1500);
    near(el(c, "r2")->value, 2000);
    near(el(c, "r3")->value, 100 * (1 + 0.01 * 10 + 1e-4 * 100));
    cr_assert(has_warning(
        "t.cir:3:8: warning: R=1.5 of resistor model rmod multiplies the value of r1 (PSpice); "
        "ngspice ignores it"));
    done(c);
    bad("t\nV1 a 0 1\nR1 a 0 RMOD 1k\n.model RMOD RES(R=-1)\n.op\n",
        "t.cir:3:8: error: resistor model rmod scales r1 by -1");
}

/* PSpice's model card closed by a line holding only ')' (a warning: ngspice
 * makes the line a comment, which closes nothing either), and a vendor
 * library ending with DOS's end-of-file byte Ctrl-Z (issue 28 item 8). */
Test(elab, pspice_closing_paren_and_dos_eof)
{
    nsc_circuit *c = rd("t\nV1 a 0 1\nD1 a 0 DX\n.model DX D(IS=1e-14\n+ RS=2\n)\n.op\n\x1a\n\x1a");
    cr_assert(has_warning(
        "t.cir:6:1: warning: a line holding only ')' continues the card before it (PSpice); write '+ )'"));
    double v;
    cr_assert(nsc_model_get(el(c, "d1")->model, "rs", &v));
    near(v, 2);
    done(c);
    bad("t\nV1 a 0 1\nR1 a 0 1\x1a\n.op\n", "t.cir:3:9: error: invalid character (byte 0x1a)");
}

/* SPICE users' unit slips, warned (values unchanged: SPICE's reading is
 * kept): `1M` on R, L, C is milli (1Meg meant?), shown as written; letters
 * after a scale factor are ignored, so `2.2kk` is 2.2k (a doubled scale
 * factor); a node that one element alone touches is most likely misspelt.
 * Units written after a scale factor (1uF, 10mV, 1kOhm, 1Meg) and a node read
 * by a B source are not slips (issue 28 item 12). */
Test(elab, unit_pitfalls_are_warned)
{
    nsc_circuit *c = rd(
        "t\nV1 a 0 1\nR1 a b 1M\nR2 b 0 2.2kk\nC1 b 0 1uF\nL1 b c 10M\nR3 c 0 {2*1uu}\nR4 b dangle 1m\n"
        "C2 b 0 1m\nR5 b 0 1Meg\nV2 sense 0 10mV\nB1 q 0 V=V(sense)*2\nR6 q 0 1kOhm\n.tran 1u 10u\n");
    near(el(c, "r1")->value, 1e-3);
    near(el(c, "r2")->value, 2200);
    near(el(c, "l1")->value, 10e-3);
    const char *w[] = {
        "t.cir:3:8: warning: resistor r1 = 1M is 0.001 Ohm: M is milli in SPICE (1Meg is 1e6)",
        "t.cir:4:8: warning: '2.2kk' is 2200: SPICE ignores the letters after the scale factor 'k' "
        "(a doubled scale factor?)",
        "t.cir:6:8: warning: inductor l1 = 10M is 0.01 H: M is milli in SPICE (1Meg is 1e6)",
        "t.cir:7:11: warning: '1uu' is 1e-06: SPICE ignores the letters after the scale factor 'u' "
        "(a doubled scale factor?)",
        "t.cir:8:6: warning: node 'dangle' connects to r4 only (no other element uses it): a misspelt "
        "node name?"
    };
    for (int k = 0; k < 5; k++) cr_expect(has_warning(w[k]), "%s", w[k]);
    cr_expect_eq(R.nwarn, 5, "%d warnings", R.nwarn);
    done(c);
}

/* E/G POLY(n): the linear part c0 + c1 x1 + ... + cn xn exactly, as a B source
 * (compared with ngspice 39 in tests/corpus/ngspice/poly_sources.cir);
 * coefficients of degree 2 and above must be 0, else a clear error naming
 * the coefficient (issue 28 item 8). It was "POLY form of e1 is not supported". */
Test(elab, poly_sources_linear_terms)
{
    nsc_circuit *c = rd("t\nV1 a 0 1\nV2 b 0 2\nE1 s 0 POLY(2) a 0 b 0 0.5 2 -1 0 0 0\nR1 s 0 1\n"
                        "G1 0 t POLY(1) (a,0) 1m 3m\nR2 t 0 1k\n.op\n");
    const nsc_element *e = el(c, "e1");
    cr_assert_eq(e->kind, NSC_EL_BV);
    const nsc_bprog *p = nsc_bprog_of(e); /* the program, the device's data */
    cr_assert(p && p->nop == 0);
    double k0 = p->out.c, ka = 0, kb = 0;
    for (int t = 0; t < p->out.nt; t++) {
        const nsc_bterm *bt = &p->term[p->out.t0 + t];
        cr_assert_eq(bt->kind, NSC_BT_V);
        if (bt->idx == nd(c, "a")) ka += bt->coef;
        if (bt->idx == nd(c, "b")) kb += bt->coef;
    }
    near(k0, 0.5);
    near(ka, 2);
    near(kb, -1);
    cr_assert_eq(el(c, "g1")->kind, NSC_EL_BI);
    near(nsc_bprog_of(el(c, "g1"))->out.c, 1e-3);
    done(c);
    /* degree 2 (issue 27 item 3): coefficient 4 is x1 x2's; the polynomial, nonlinear, is one smooth
     * function of V(a), V(b): 0.5 + 2 x1 - x2 + 0.1 x1 x2 */
    c = rd("t\nV1 a 0 1\nV2 b 0 2\nE1 s 0 POLY(2) a 0 b 0 0.5 2 -1 0 0.1\nR1 s 0 1\n.op\n");
    e = el(c, "e1");
    p = nsc_bprog_of(e);
    cr_assert(p && p->nsm == 1 && p->sm[0].nin == 2);
    const nsc_bsmooth *sm = &p->sm[0];
    double x[2], stk[16];
    for (int q = 0; q < 2; q++) x[q] = sm->in[q].idx == nd(c, "a") ? 3 : 5;
    nsc_xload ld = { 0, x, NULL };
    near(nsc_xrun(sm->code, sm->ncode, &ld, stk), 0.5 + 2 * 3 - 5 + 0.1 * 3 * 5);
    done(c);
    bad("t\nV1 a 0 1\nE1 s 0 POLY(2) a 0 1\nR1 s 0 1\n.op\n",
        "t.cir:3:8: error: POLY(2) of e1 needs 4 control nodes");
}

/* A .model that does not parse is an error only where an element uses it,
 * naming the element and the card's own position (issue 28 item 5). */
Test(elab, unparsed_model_is_an_error_where_used)
{
    nsc_circuit *c = rd(
        "t\n.model d1 d(is=1\n.model adc1 adc_bridge(in_low=[0.1 0.2])\nV1 a 0 1\nR1 a 0 1\n.op\n");
    cr_assert_eq(c->nel, 2);
    done(c);
    bad("t\n.model d1 d(is=1\nV1 a 0 1\nD1 a 0 d1\n.op\n",
        "t.cir:4:8: error: model 'd1' of diode d1 cannot be read: t.cir:2:12: unterminated parenthesis: missing ')'");
}

/* m= (devices in parallel) on the cards: R/m, C m, L/m with the parasitics
 * scaled alike, the diode's and MOS's instance parameter, a BJT's AREA times m;
 * Xyce's CONTROL= switch: its control node and B source. */
Test(elab, multiplier_m_and_control_switch)
{
    nsc_circuit *c = rd(
        "t\nR1 a 0 100 m=2\nC1 a 0 1u m=2\nL1 a b 10m m=4 Rser=1\nR2 b 0 1\n"
        "D1 a 0 DX m=3\nM1 a a 0 0 NM W=2u m=5\nQ1 a a 0 QN 2 m=3\nS1 a 0 SG ON CONTROL={V(a)*2}\n"
        ".model DX D\n.model NM NMOS\n.model QN NPN\n.model SG SWITCH(ON=1 OFF=0)\n.end\n");
    cr_expect_float_eq(el(c, "r1")->value, 50, 1e-12);
    cr_expect_float_eq(el(c, "c1")->value, 2e-6, 1e-18);
    cr_expect_float_eq(el(c, "l1")->value, 2.5e-3, 1e-15);
    cr_expect_float_eq(el(c, "l1#rser")->value, 0.25, 1e-15);
    cr_expect_float_eq(el(c, "d1")->ipar[0], 3, 0);
    cr_expect_float_eq(el(c, "m1")->ipar[0], 2e-6, 0);
    cr_expect_float_eq(el(c, "m1")->ipar[2], 5, 0);
    cr_expect_float_eq(el(c, "q1")->value, 6, 0);
    const nsc_element *s = el(c, "s1"), *b = el(c, "s1#ctl");
    cr_expect_eq(s->nnode, 4);
    cr_expect_eq(s->node[2], nd(c, "s1#ctl"));
    cr_expect_eq(s->node[3], 0);
    cr_expect(s->has_ic && s->ic == 1);
    cr_expect_eq(b->kind, NSC_EL_BV);
    cr_expect_eq(b->node[0], nd(c, "s1#ctl"));
    done(c);
    bad("t\nR1 a 0 100 m=0\n.end\n", "t.cir:2:12: error: m= of r1 must be positive (0)");
    bad("t\nD1 a 0 DX m=-1\n.model DX D\n.end\n", "t.cir:2:11: error: m of d1 must be positive");
}

/* Braces inside expressions ({x} as (x), issue 28 item 7) and a resistor whose
 * value is a piecewise-constant function of time: R = cond ? R1 : R2 is a
 * switch RON = R1, ROFF = R2 driven through rl#ctl by the condition. */
Test(elab, braces_in_expressions_and_time_resistor)
{
    nsc_circuit *c = rd(
        "t\n.param rl=10 vth=2.5\nV1 a 0 1\nRL a 0 R = (time<12ms ? {rl} : {2*rl})\n"
        "B1 o 0 V = 'V(a) > {vth} ? 1 : 0'\nR2 o 0 {2*{rl}}\n.tran 1u 20m\n.end\n");
    const nsc_element *r = el(c, "rl");
    double v = 0;
    cr_expect_eq(r->kind, NSC_EL_S);
    cr_expect_eq(r->node[2], nd(c, "rl#ctl"));
    cr_expect(nsc_model_get(r->model, "ron", &v) && v == 10, "ron %g", v);
    cr_expect(nsc_model_get(r->model, "roff", &v) && v == 20, "roff %g", v);
    cr_expect_eq(el(c, "rl#ctl")->kind, NSC_EL_BV);
    cr_expect_eq(el(c, "b1")->kind, NSC_EL_BV);
    cr_expect_float_eq(el(c, "r2")->value, 20, 1e-12);
    done(c);
    bad("t\nR1 a 0 R = {1k*(1+time)}\n.tran 1u 1m\n.end\n",
        "t.cir:2:12: error: resistor r1: a value that reads time "
        "must be cond ? R1 : R2 (constants R1, R2: a piecewise-constant load)");
    bad("t\nR1 a 0 {time<1m ? 1k : 0}\n.tran 1u 1m\n.end\n",
        "t.cir:2:8: error: resistor r1: its values must be "
        "finite and > 0 (0)");
}

/* The variants of a card that a device's descriptor declares (lcs/devif.h:
 * card_opt, card_table, card_expr, the flags of its instance table) are read
 * by the one parser of its card's form: each made element checked against the
 * closed form of what its card says. */
Test(elab, card_variants_come_from_the_device_table)
{
    nsc_circuit *c = rd("variants\n"
                        ".option scale=1e-6\n"
                        "J1 d g 0 JN area=2 m=3\n"
                        "M1 d g 0 0 NM W=10 L=2 AD=4 m=4\n"
                        "E1 a 0 VALUE={V(g)*2}\n"
                        "G1 a 0 VALUE={V(g)*2}\n"
                        "E2 b 0 TABLE {V(g)} = (0,0) (1,2)\n"
                        "B1 a 0 I=V(g)\n"
                        "C1 a 0 2n m=3\n"
                        "L1 a b 6u m=3\n"
                        ".model JN NJF(VTO=-2 BETA=1m RD=60 RS=30)\n"
                        ".model NM NMOS(LEVEL=1 VTO=1 KP=20u RD=8 RS=2)\n");
    near(el(c, "j1#rd")->value, 60.0 / 6); /* RD / (AREA m) */
    near(el(c, "j1#rs")->value, 30.0 / 6);
    const nsc_element *m = el(c, "m1");
    near(m->ipar[0], 10e-6); /* W L: lengths, times scale */
    near(m->ipar[1], 2e-6);
    near(m->ipar[3], 4e-12);              /* AD: an area, times scale^2 */
    near(el(c, "m1#rd")->value, 8.0 / 4); /* RD / m */
    near(el(c, "m1#rs")->value, 2.0 / 4);
    cr_assert_eq(el(c, "e1")->kind, NSC_EL_BV);
    cr_assert_eq(el(c, "g1")->kind, NSC_EL_BI);
    cr_assert_eq(el(c, "e2")->kind, NSC_EL_ETABLE);
    cr_assert_eq(el(c, "b1")->kind, NSC_EL_BI);
    near(el(c, "c1")->value, 6e-9); /* m in parallel: C m, L / m */
    near(el(c, "l1")->value, 2e-6);
    done(c);
    /* a bad instance parameter or form: the card's file:line:col */
    bad("t\nJ1 d g 0 JN area=-2\n.model JN NJF(VTO=-2 BETA=1m)\n",
        "t.cir:2:13: error: area of j1 must be positive");
    bad("t\nM1 d g 0 0 NM W=0 L=1u\n.model NM NMOS(LEVEL=1)\n",
        "t.cir:2:15: error: w of m1 must be positive");
    bad("t\nG1 a 0 TABLE {V(g)} = (0,0) (1,2)\n",
        "t.cir:2:8: error: TABLE form is supported for E only, not for g1");
    bad("t\nR1 a 0 R={1 + time}\n",
        "t.cir:2:10: error: resistor r1: a value that reads time must be cond ? R1 : R2 (constants R1, R2: a piecewise-constant load)");
}
