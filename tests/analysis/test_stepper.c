/* test_stepper.c -- the theta-scheme against analytic solutions: RC and RLC step
 * responses, convergence order (2 for theta = 0.5, 1 for theta = 1), an ideal
 * diode on a resistive load (exact), breakpoints and interpolated output rows. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "netlist/netlist.h"
#include "analysis/stepper.h"
#include "testutil.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Run a transient with the given step and theta; probes from a --save list. */
static nsc_waves *run(const nsc_circuit *c, const char *save, double h, double theta, double tstop,
                      double tstep)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_probe *p = NULL;
    int np = 0;
    cr_assert_eq(nsc_waves_probes_parse(c, save, &p, &np, &r), NSC_OK, "%s",
                 r.error ? r.error : "?");
    nsc_tran_opts o = { 0 };
    o.tstep = tstep;
    o.tstop = tstop;
    o.h = h;
    o.theta = theta;
    o.gmin = 1e-12;
    o.uic = c->job.uic;
    o.solver = NSC_SOLVER_AUTO;
    nsc_waves *W = NULL;
    nsc_sim_stats st;
    nsc_status s = nsc_stepper_tran(c, &o, p, np, &W, &st, &r);
    cr_assert_eq(s, NSC_OK, "run failed: %s", r.error ? r.error : "?");
    nsc_waves_probes_free(p, np);
    nsc_report_free(&r);
    return W;
}

#define RC_NET "rc\nV1 in 0 DC 1\nR1 in out 1k\nC1 out 0 1u IC=0\n.tran 10u 5m UIC\n.end\n"

/* max over rows of |v(out) - (1 - exp(-t/RC))| */
static double rc_error(double h, double theta)
{
    nsc_circuit *c = tu_parse(RC_NET);
    nsc_waves *W = run(c, "v(out)", h, theta, 5e-3, 1e-4);
    double err = 0;
    for (int i = 0; i < W->nrow; i++) {
        double t = W->v[i * 2], v = W->v[i * 2 + 1];
        double e = fabs(v - (1 - exp(-t / 1e-3)));
        if (e > err) err = e;
    }
    cr_assert_eq(W->nrow, 51);
    nsc_waves_free(W);
    nsc_circuit_free(c);
    return err;
}

Test(stepper, rc_step_response_theta_half)
{
    double e = rc_error(10e-6, 0.5);
    /* trapezoidal rule on y' = -y/tau: local error h^3/(12 tau^3): global ~ 1e-6 at h = tau/100 */
    cr_assert(e < 1e-5, "RC error %g", e);
    cr_assert(e > 1e-9, "suspiciously exact: %g", e);
}

Test(stepper, rc_convergence_order)
{
    double e1 = rc_error(20e-6, 0.5), e2 = rc_error(10e-6, 0.5);
    double p = log2(e1 / e2);
    cr_assert(fabs(p - 2) < 0.15, "theta=0.5 order %g (errors %g %g)", p, e1, e2);
    double f1 = rc_error(20e-6, 1.0), f2 = rc_error(10e-6, 1.0);
    double q = log2(f1 / f2);
    cr_assert(fabs(q - 1) < 0.15, "theta=1 order %g (errors %g %g)", q, f1, f2);
}

/* Series RLC driven by a 1 V step (UIC, all initial values 0):
 * v_C = 1 - e^{-a t}(cos wd t + a/wd sin wd t),  i = C w0^2/wd e^{-a t} sin wd t,
 * a = R/2L = 5000, w0 = 1/sqrt(LC) = 31622.8, wd = sqrt(w0^2 - a^2). */
#define RLC_NET "rlc\nV1 in 0 1\nR1 in x 10\nL1 x y 1m\nC1 y 0 1u\n.tran 10u 1m 0 1u UIC\n.end\n"

static void rlc_errors(double h, double theta, double *ev, double *ei)
{
    nsc_circuit *c = tu_parse(RLC_NET);
    nsc_waves *W = run(c, "v(y),i(l1)", h, theta, 1e-3, 1e-5);
    double a = 5000, w0 = 1 / sqrt(1e-3 * 1e-6), wd = sqrt(w0 * w0 - a * a);
    *ev = *ei = 0;
    for (int i = 0; i < W->nrow; i++) {
        double t = W->v[i * 3];
        double vc = 1 - exp(-a * t) * (cos(wd * t) + a / wd * sin(wd * t));
        double il = 1e-6 * w0 * w0 / wd * exp(-a * t) * sin(wd * t);
        *ev = fmax(*ev, fabs(W->v[i * 3 + 1] - vc));
        *ei = fmax(*ei, fabs(W->v[i * 3 + 2] - il));
    }
    cr_assert_eq(W->nrow, 101);
    nsc_waves_free(W);
    nsc_circuit_free(c);
}

Test(stepper, rlc_analytic)
{
    double ev, ei;
    rlc_errors(1e-6, 0.5, &ev, &ei);
    /* peak current 31.6 mA, peak overshoot ~0.85 V: errors O((w0 h)^2) ~ 1e-3 relative */
    cr_assert(ev < 2e-3, "v_C error %g", ev);
    cr_assert(ei < 5e-5, "i_L error %g", ei);
    double ev2, ei2;
    rlc_errors(0.5e-6, 0.5, &ev2, &ei2);
    cr_assert(fabs(log2(ev / ev2) - 2) < 0.2, "RLC order %g", log2(ev / ev2));
}

/* Ideal diode into a resistor: v(out) = max(0, v(in)) exactly at every step. */
Test(stepper, ideal_diode_resistive_exact)
{
    nsc_circuit *c = tu_parse(
        "hw\nV1 in 0 SIN(0 5 1k)\nD1 in out DI\nR1 out 0 100\n.model DI D(VF=0)\n.tran 10u 3m\n.end\n");
    nsc_waves *W = run(c, "v(in),v(out),i(d1)", 10e-6, 0.5, 3e-3, 10e-6);
    cr_assert_eq(W->nrow, 301);
    for (int i = 0; i < W->nrow; i++) {
        double t = W->v[i * 4], vin = W->v[i * 4 + 1], vout = W->v[i * 4 + 2], id = W->v[i * 4 + 3];
        cr_assert_float_eq(vin, 5 * sin(2 * M_PI * 1e3 * t), 1e-12);
        cr_assert_float_eq(vout, fmax(0, vin), 1e-9, "t=%g vin=%g vout=%g", t, vin, vout);
        cr_assert_float_eq(id, vout / 100, 1e-11);
    }
    nsc_waves_free(W);
    nsc_circuit_free(c);
}

/* A PULSE corner between grid points shortens the step: with h = 0.2 ms and an
 * edge at td = 0.27 ms, v(out) of an RC (tau = 1 ms) must follow
 * 1 - exp(-(t - td)/tau) within the scheme's error (~1e-3); an edge smeared over
 * the step [0.2, 0.4] ms would be off by ~0.03 exp(-(t - td)/tau) > 5e-3. */
Test(stepper, breakpoint_shortens_step)
{
    nsc_circuit *c = tu_parse(
        "bp\nV1 in 0 PULSE(0 1 0.27m 1n 1n 1 2)\nR1 in out 1k\nC1 out 0 1u\n.tran 1m 5m 0 0.2m\n.end\n");
    nsc_waves *W = run(c, "v(out)", 0.2e-3, 0.5, 5e-3, 1e-3);
    cr_assert_eq(W->nrow, 6);
    for (int i = 1; i < W->nrow; i++) {
        double t = W->v[i * 2], v = W->v[i * 2 + 1];
        double ex = 1 - exp(-(t - 0.27e-3 - 0.5e-9) / 1e-3);
        cr_assert(fabs(v - ex) < 5e-3, "t=%g v=%g exact=%g", t, v, ex);
    }
    nsc_waves_free(W);
    nsc_circuit_free(c);
}

/* tstep not a multiple of h: rows are interpolated and stay on the tstep grid. */
Test(stepper, output_grid_interpolated)
{
    nsc_circuit *c = tu_parse(RC_NET);
    nsc_waves *W = run(c, "v(out)", 3e-6, 0.5, 1e-3, 1e-4);
    cr_assert_eq(W->nrow, 11);
    for (int i = 0; i < W->nrow; i++) {
        cr_assert_float_eq(W->v[i * 2], i * 1e-4, 1e-15);
        cr_assert(fabs(W->v[i * 2 + 1] - (1 - exp(-W->v[i * 2] / 1e-3))) < 2e-5);
    }
    nsc_waves_free(W);
    nsc_circuit_free(c);
}

/* Operating point: a divider and a blocking diode. */
Test(stepper, operating_point)
{
    nsc_circuit *c = tu_parse(
        "op\nV1 a 0 10\nR1 a b 3k\nR2 b 0 1k\nD1 0 b DI\nL1 b c 1m\nR3 c 0 1k\n.model DI D(VF=0)\n.op\n.end\n");
    nsc_report r;
    nsc_report_init(&r);
    nsc_waves *O = NULL;
    cr_assert_eq(nsc_stepper_op(c, 1e-12, NSC_SOLVER_AUTO, NULL, 0, &O, &r), NSC_OK, "%s",
                 r.error ? r.error : "");
    /* R2 || R3 = 500: v(b) = 10 * 500 / 3500 */
    int kb = nsc_waves_col(O, "v(b)"), kc = nsc_waves_col(O, "v(c)");
    cr_assert(kb > 0 && kc > 0);
    cr_assert_float_eq(O->v[kb], 10.0 * 500 / 3500, 1e-9);
    cr_assert_float_eq(O->v[kc], 10.0 * 500 / 3500, 1e-9);
    nsc_waves_free(O);
    nsc_report_free(&r);
    nsc_circuit_free(c);
}

/* A CMOS chain with a constant input starts at the transient's equilibrium: the
 * operating point is found with gmin at every chain node (each floats in the OP's
 * linear part) and then solved again in the same mode without its leaks, so no
 * node moves in 2 ns beyond round-off (with gmin's 1e-12 S left in, the nodes started ~1e-8 V off
 * and relaxed for ~5 ns). */
Test(stepper, cmos_chain_starts_at_equilibrium)
{
    nsc_circuit *c = tu_parse(
        "chain\n"
        ".param cox={3.9*8.854214871e-12/20n}\n"
        ".subckt inv in out vdd\nMP out in vdd vdd PM W=1u L=1u\nMN out in 0 0 NM W=1u L=1u\n"
        "CW out 0 50f\n.ends\n"
        ".model NM NMOS(LEVEL=1 VTO=1 KP={750e-4*cox})\n"
        ".model PM PMOS(LEVEL=1 VTO=-1 KP={250e-4*cox})\n"
        "VDD vdd 0 5\nVIN n0 0 DC 5\n"
        "X1 n0 n1 vdd inv\nX2 n1 n2 vdd inv\nX3 n2 n3 vdd inv\nX4 n3 n4 vdd inv\n"
        ".tran 10p 2n\n.end\n");
    nsc_waves *W = run(c, "v(n1),v(n2),v(n3),v(n4)", 1e-12, 0.5, 2e-9, 1e-11);
    cr_assert_gt(W->nrow, 100);
    double drift = 0;
    for (int i = 0; i < W->nrow; i++)
        for (int k = 1; k < 5; k++) drift = fmax(drift, fabs(W->v[i * 5 + k] - W->v[k]));
    /* round-off only: 1.4e-13 V with the default fit (13 active pairs a side on the conducting
     * NMOS, anchored at the 4 V of overdrive VDD applies), < 1e-14 with SEGMENTS=6 */
    cr_expect_lt(drift, 1e-12, "the nodes moved by %g V", drift);
    cr_expect_lt(fabs(W->v[1]), 1e-9, "v(n1) = %g", W->v[1]); /* low, high, low, high */
    cr_expect_lt(fabs(W->v[2] - 5), 1e-9, "v(n2) = %g", W->v[2]);
    nsc_waves_free(W);
    nsc_circuit_free(c);
}

/* A switch whose turn-on puts a resistor across a charged capacitor: the step
 * after the change must not take the new conductance times the old state's
 * algebraic unknowns ((I - Theta) A z_k with v(b) still the off state's ~0 V:
 * 0.8 V across 1 ohm, a 0.4 A kick for half a step at theta = 1/2). That kick
 * knocked v(a) under the switch's threshold every time it turned on: v(a)
 * stuck near 0.80 V and the diode's current climbed to 180 mA (hostile
 * review, session 15). Oracle: the same circuit by implicit Euler at a tenth
 * of the step (first order, no explicit term; its error at 2 ns is ~1e-5). */
#define SW_KICK_NET \
    "switch kick\nV1 in 0 EXP(-1 2 0.1m 0.05m 0.5m 0.2m)\nD1 in a dmod\nR1 a 0 1k\nC1 a 0 0.2u\n" \
    "S1 a b a 0 swm\nR2 b 0 2k\n.model dmod d(ron=1 roff=1e9 vfwd=0.3)\n" \
    ".model swm sw(vt=0.8 vh=0 ron=1 roff=1e9)\n.tran 0.5u 0.2m\n.end\n"

Test(stepper, switch_turn_on_step_takes_no_kick_from_the_old_state)
{
    nsc_circuit *c = tu_parse(SW_KICK_NET);
    nsc_waves *W = run(c, "v(a),i(d1)", 2e-8, 0.5, 2e-4, 5e-7);
    nsc_waves *O = run(c, "v(a),i(d1)", 2e-9, 1.0, 2e-4, 5e-7);
    cr_assert_eq(W->nrow, O->nrow);
    double ev = 0, ei = 0;
    for (int i = 0; i < W->nrow; i++) {
        cr_assert_float_eq(W->v[i * 3], O->v[i * 3], 1e-15);
        ev = fmax(ev, fabs(W->v[i * 3 + 1] - O->v[i * 3 + 1]));
        ei = fmax(ei, fabs(W->v[i * 3 + 2] - O->v[i * 3 + 2]));
    }
    cr_assert_lt(ev, 2e-3, "v(a) off the implicit-Euler oracle by %g V", ev);
    cr_assert_lt(ei, 2e-4, "i(d1) off the implicit-Euler oracle by %g A", ei);
    nsc_waves_free(W);
    nsc_waves_free(O);
    nsc_circuit_free(c);
}
