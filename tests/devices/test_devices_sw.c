/* test_devices_sw.c -- suite `devsw`: the switch S (stamps, hysteresis, a switch
 * driven by its own circuit), the E TABLE source (stamps of corners and ideal
 * vertical steps, static values, an ideal comparator in a feedback loop), the
 * diode from SPICE parameters (the Chebyshev fit) and its Zener branch, the
 * inconsistent UIC start, and the separation of hidden algebraic rows (no
 * theta-point chattering). References are hand-derived matrices and analytic
 * solutions. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices/device.h"
#include "netlist/netlist.h"
#include "analysis/stepper.h"
#include "testutil.h"

static int zindex(const nsc_lcs *L, const char *name)
{
    for (int k = 0; k < L->n; k++)
        if (!strcmp(L->zname[k], name)) return k;
    cr_assert_fail("no unknown %s", name);
    return -1;
}

/* Operating point of a netlist: the table (one row) and the warnings. */
static nsc_waves *op(const char *text, nsc_report *r)
{
    nsc_circuit *c = tu_parse(text);
    nsc_waves *O = NULL;
    nsc_status s = nsc_stepper_op(c, 1e-12, NSC_SOLVER_AUTO, NULL, 0, &O, r);
    cr_assert_eq(s, NSC_OK, "op failed: %s", r->error ? r->error : "?");
    nsc_circuit_free(c);
    return O;
}

static double opval(const nsc_waves *O, const char *col)
{
    int k = nsc_waves_col(O, col);
    cr_assert(k > 0, "no column %s", col);
    return O->v[k];
}

/* Transient with the netlist's .tran (h = tmax or tstep) and a save list. */
static nsc_waves *tran(const char *text, const char *save, nsc_sim_stats *st, nsc_report *r)
{
    nsc_circuit *c = tu_parse(text);
    nsc_probe *p = NULL;
    int np = 0;
    cr_assert_eq(nsc_waves_probes_parse(c, save, &p, &np, r), NSC_OK);
    nsc_tran_opts o = { 0 };
    o.tstep = c->job.tstep;
    o.tstop = c->job.tstop;
    o.h = c->job.tmax > 0 ? c->job.tmax : c->job.tstep;
    o.theta = c->job.theta;
    o.gmin = 1e-12;
    o.uic = c->job.uic;
    o.solver = NSC_SOLVER_AUTO;
    nsc_waves *W = NULL;
    nsc_sim_stats s0;
    nsc_status s = nsc_stepper_tran(c, &o, p, np, &W, st ? st : &s0, r);
    cr_assert_eq(s, NSC_OK, "run failed: %s", r->error ? r->error : "?");
    nsc_waves_probes_free(p, np);
    nsc_circuit_free(c);
    return W;
}

#define AT(W, row, col) ((W)->v[(size_t)(row) * (W)->ncol + (col)])

/* Times where column col crosses level (linear interpolation) in direction dir
 * (+1 rising, -1 falling, 0 both), up to max. */
static int crossings(const nsc_waves *W, int col, double level, int dir, double *t, int max)
{
    int n = 0;
    for (int i = 1; i < W->nrow && n < max; i++) {
        double a = AT(W, i - 1, col) - level, b = AT(W, i, col) - level;
        if ((a < 0) != (b < 0) && (dir == 0 || (dir > 0) == (b > a)))
            t[n++] = AT(W, i - 1, 0) + (AT(W, i, 0) - AT(W, i - 1, 0)) * (-a) / (b - a);
    }
    return n;
}

/* ================= switch ================= */

#define SW_NET \
    "sw\nV2 in 0 10\nR1 in a 1k\nS1 a 0 c 0 SM\nV1 c 0 %g\n.model SM SW(VT=1 VH=0.5 RON=10 ROFF=1e6)\n.op\n.end\n"

Test(devsw, switch_stamp_and_op_states)
{
    char net[256];
    snprintf(net, sizeof net, SW_NET, 2.0);
    nsc_circuit *c = tu_parse(net);
    nsc_report r;
    nsc_report_init(&r);
    nsc_lcs *L = NULL;
    cr_assert_eq(nsc_lcs_assemble(c, NSC_ASM_TRAN, 1e-12, &L, &r), NSC_OK);
    int a = zindex(L, "v(a)"), cc = zindex(L, "v(c)"), in = zindex(L, "v(in)");
    cr_assert_eq(L->nsw, 1);
    const nsc_switch *S = &L->sw[0];
    cr_assert_eq(S->el, 2);
    cr_assert_eq(S->a, a);
    cr_assert_eq(S->k, -1);
    cr_assert_eq(S->c, cc);
    cr_assert_eq(S->d, -1);
    cr_assert_float_eq(S->g_off, 1e-6, 1e-20);
    cr_assert_float_eq(S->g_on, 0.1, 1e-16);
    cr_assert_eq(S->on_above, 1.5);
    cr_assert_eq(S->off_below, 0.5);
    /* A holds the off conductance: A[a][a] = -(1e-3 + 1e-6), A[a][in] = 1e-3 */
    cr_assert_float_eq(nsc_sp_get(L->A, a, a), -(1e-3 + 1e-6), 1e-18);
    cr_assert_float_eq(nsc_sp_get(L->A, a, in), 1e-3, 1e-18);
    /* decisions: on above 1.5, off below 0.5, kept between */
    char st[1] = { 0 };
    double z[8] = { 0 };
    z[cc] = 1.2;
    cr_assert_eq(nsc_lcs_switch_update(L, z, st), 0);
    cr_assert_eq(st[0], 0);
    z[cc] = 1.6;
    cr_assert_eq(nsc_lcs_switch_update(L, z, st), 1);
    cr_assert_eq(st[0], 1);
    z[cc] = 0.6;
    cr_assert_eq(nsc_lcs_switch_update(L, z, st), 0);
    cr_assert_eq(st[0], 1);
    z[cc] = 0.4;
    cr_assert_eq(nsc_lcs_switch_update(L, z, st), 1);
    cr_assert_eq(st[0], 0);
    nsc_lcs_free(L);
    nsc_circuit_free(c);
    /* OP: on (v(c) = 2 > 1.5): v(a) = 10 * 10/1010; in the band (1.2): initial off */
    nsc_waves *O = op(net, &r);
    cr_assert_float_eq(opval(O, "v(a)"), 10.0 * 10 / 1010, 1e-9);
    nsc_waves_free(O);
    snprintf(net, sizeof net, SW_NET, 1.2);
    O = op(net, &r);
    cr_assert_float_eq(opval(O, "v(a)"), 10.0 * 1e6 / (1e6 + 1e3), 1e-9);
    nsc_waves_free(O);
    nsc_report_free(&r);
}

/* A triangle control 0 -> 2 -> 0 V over 2 ms: on when it exceeds VT + VH = 1.5
 * (t = 0.75 ms), off when it falls below VT - VH = 0.5 (t = 1.75 ms); the state
 * for a step is decided at its start, so the output follows within two steps.
 * I(S1) = g v(a) in the state of the step. */
Test(devsw, switch_hysteresis_tran)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_waves *W = tran("hyst\nV2 in 0 10\nR1 in a 1k\nS1 a 0 c 0 SM\nV1 c 0 PWL(0 0 1m 2 2m 0)\n"
                        ".model SM SW(VT=1 VH=0.5 RON=10 ROFF=1e6)\n.tran 1u 2m\n.end\n",
                        "v(a),i(s1)", NULL, &r);
    double t[4];
    int n = crossings(W, 1, 5.0, 0, t, 4);
    cr_assert_eq(n, 2, "%d transitions", n);
    cr_assert(t[0] > 0.75e-3 && t[0] < 0.75e-3 + 2e-6, "on at %g", t[0]);
    cr_assert(t[1] > 1.75e-3 && t[1] < 1.75e-3 + 2e-6, "off at %g", t[1]);
    for (int i = 0; i < W->nrow; i++) {
        double ti = AT(W, i, 0), va = AT(W, i, 1), is = AT(W, i, 2);
        int on = ti > t[0] + 1e-6 && ti < t[1] - 1e-6;
        if (ti > t[0] - 1e-6 && ti < t[0] + 2e-6) continue;
        if (ti > t[1] - 1e-6 && ti < t[1] + 2e-6) continue;
        cr_assert_float_eq(is, va * (on ? 0.1 : 1e-6), 1e-12, "t = %g: i(s1) = %g, v(a) = %g", ti,
                           is, va);
    }
    nsc_waves_free(W);
    nsc_report_free(&r);
}

/* A switch driven by its own capacitor (feedback): R C charges from 3 to 7 V
 * (t1 = RC ln(7/3)), the switch (RON = 10) discharges it to 3 V towards
 * 10*10/1010 through R || RON (t2). The period t1 + t2 = 0.8559 ms; each
 * discharge ends at most one step late, undershooting by h * 0.29 V/us, which
 * costs up to 41 h of charging: 0.24 % at h = 0.05 us. */
Test(devsw, switch_feedback_oscillator)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_sim_stats st;
    nsc_waves *W =
        tran("relax\nV1 in 0 10\nR1 in c 1k\nC1 c 0 1u\nS1 c 0 c 0 SM\n"
             ".model SM SW(VT=5 VH=2 RON=10 ROFF=1e9)\n.tran 0.05u 3m 0 0.05u UIC\n.end\n",
             "v(c)", &st, &r);
    double t1 = 1e-3 * log(7.0 / 3), vth = 10.0 * 10 / 1010, tau2 = 1e3 * 10 / 1010 * 1e-6;
    double t2 = tau2 * log((7 - vth) / (3 - vth)), T = t1 + t2;
    double tf[8];
    int k = crossings(W, 1, 5.0, -1, tf, 8); /* the discharges through 5 V */
    cr_assert(k >= 3, "%d periods", k);
    for (int i = 1; i < k; i++) {
        double Tm = tf[i] - tf[i - 1];
        cr_log_info("period %d: %.6g s (analytic %.6g)", i, Tm, T);
        cr_assert(fabs(Tm - T) < 0.005 * T, "period %g vs %g", Tm, T);
    }
    cr_assert(st.switch_events >= 2 * (k - 1));
    nsc_waves_free(W);
    nsc_report_free(&r);
}

static void net_err(const char *text, const char *what)
{
    nsc_circuit *c = tu_parse(text);
    nsc_report r;
    nsc_report_init(&r);
    nsc_lcs *L = NULL;
    cr_assert_eq(nsc_lcs_assemble(c, NSC_ASM_TRAN, 1e-12, &L, &r), NSC_ENETLIST, "accepted: %s",
                 text);
    cr_assert(r.error && strstr(r.error, what), "'%s' lacks '%s'", r.error ? r.error : "", what);
    nsc_report_free(&r);
    nsc_circuit_free(c);
}

Test(devsw, switch_model_errors)
{
    net_err("t\nV1 a 0 1\nS1 a 0 a 0 SM\n.model SM SW(RON=0)\n.tran 1u 1m\n.end\n",
            "t.cir:4:1: error: switch model 'sm': RON = 0");
    net_err("t\nV1 a 0 1\nS1 a 0 a 0 SM\n.model SM SW(VH=-1)\n.tran 1u 1m\n.end\n",
            "negative hysteresis");
}

/* ================= E TABLE ================= */

/* (-1,-2) (1,2) (1,3) (2,3): corners at -1 (slope +2) and 1 (slope -2), a
 * vertical step +1 at x = 1, nothing at 2 (slope 0 on both sides). */
Test(devsw, etable_stamp)
{
    nsc_circuit *c = tu_parse(
        "t\nVC c 0 0\nVD d 0 0\nE1 o 0 TABLE {V(c,d)} = (-1,-2) (1,2) (1,3) (2,3)\nR1 o 0 1\n.tran 1u 1m\n.end\n");
    nsc_report r;
    nsc_report_init(&r);
    nsc_lcs *L = NULL;
    cr_assert_eq(nsc_lcs_assemble(c, NSC_ASM_TRAN, 1e-12, &L, &r), NSC_OK);
    cr_assert_eq(L->m, 4);
    int cn = zindex(L, "v(c)"), dn = zindex(L, "v(d)"), o = zindex(L, "v(o)"),
        row = zindex(L, "i(e1)");
    /* branch row: 0 = v_o - g(x), g = -2 + 2 mu0 - 2 mu1 + u */
    cr_assert_eq(nsc_sp_get(L->A, row, o), 1.0);
    cr_assert_eq(L->s0[row], 2.0);
    const double Brow[4] = { -2, 2, -1, 0 }, e0[4] = { -1, 1, 1, 1 };
    const double Cc[4] = { -1, -1, -1, 0 };
    const double D[4][4] = { { 1, 0, 0, 0 }, { 0, 1, 0, 0 }, { 0, 0, 0, 1 }, { 0, 0, -1, 0 } };
    for (int q = 0; q < 4; q++) {
        cr_assert_eq(nsc_sp_get(L->B, row, q), Brow[q], "B[row][%d]", q);
        cr_assert_eq(L->e0[q], e0[q], "e0[%d]", q);
        cr_assert_eq(nsc_sp_get(L->C, q, cn), Cc[q], "C[%d][c]", q);
        cr_assert_eq(nsc_sp_get(L->C, q, dn), -Cc[q], "C[%d][d]", q);
        for (int k = 0; k < 4; k++)
            cr_assert_eq(nsc_sp_get(L->D, q, k), D[q][k], "D[%d][%d]", q, k);
    }
    nsc_lcs_free(L);
    nsc_report_free(&r);
    nsc_circuit_free(c);
}

/* Static values: interpolation, constant beyond the ends, both sides of the steps. */
Test(devsw, etable_values)
{
    static const double x[] = { -3, -1, 0, 0.5, 0.999, 1.001, 1.5, 2, 5 };
    static const double g[] = { -2, -2, 0, 1, 1.998, 3, 3, 3, 3 };
    char net[2048];
    int len = snprintf(net, sizeof net, "t\n");
    for (int k = 0; k < 9; k++)
        len += snprintf(
            net + len, sizeof net - (size_t)len,
            "V%d c%d 0 %g\nE%d o%d 0 TABLE {V(c%d)} = (-1,-2) (1,2) (1,3) (2,3)\nR%d o%d 0 1k\n", k,
            k, x[k], k, k, k, k, k);
    /* a falling comparator: 3 V below 0.5, -3 V above */
    snprintf(net + len, sizeof net - (size_t)len,
             "VX cx 0 0.7\nEC oc 0 TABLE {V(cx)} = (0.5,3) (0.5,-3)\nRC oc 0 1k\n.op\n.end\n");
    nsc_report r;
    nsc_report_init(&r);
    nsc_waves *O = op(net, &r);
    for (int k = 0; k < 9; k++) {
        char col[16];
        snprintf(col, sizeof col, "v(o%d)", k);
        cr_assert_float_eq(opval(O, col), g[k], 1e-12, "x = %g: %g, expected %g", x[k],
                           opval(O, col), g[k]);
    }
    cr_assert_float_eq(opval(O, "v(oc)"), -3.0, 1e-12);
    nsc_waves_free(O);
    nsc_report_free(&r);
}

/* An ideal comparator with positive feedback (astable multivibrator): out = +-5 V,
 * p = out/2, the RC integrator n charges towards out; the output flips when n
 * crosses p: half period RC ln 3 = 109.86 us (the first one RC ln 2 from
 * n = 0), each flip at most one step late. */
Test(devsw, etable_comparator_astable)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_waves *W = tran(
        "astable\nE1 out 0 TABLE {V(p,n)} = (0,-5) (0,5)\nR1 out p 10k\nR2 p 0 10k\nR3 out n 10k\n"
        "C1 n 0 10n\n.tran 0.1u 1m 0 0.1u UIC\n.end\n",
        "v(out),v(n)", NULL, &r);
    double t[16];
    int n = crossings(W, 1, 0.0, 0, t, 16);
    cr_assert(n >= 8, "%d flips", n);
    double half = 1e-4 * log(3.0);
    cr_assert(fabs(t[0] - 1e-4 * log(2.0)) < 0.3e-6, "first flip %g", t[0]);
    for (int i = 1; i < n; i++)
        cr_assert(fabs(t[i] - t[i - 1] - half) < 0.3e-6, "half period %g", t[i] - t[i - 1]);
    for (int i = 0; i < W->nrow; i++)
        cr_assert(fabs(fabs(AT(W, i, 1)) - 5) < 1e-9 || i == 0, "v(out) = %g", AT(W, i, 1));
    nsc_waves_free(W);
    nsc_report_free(&r);
}

/* ================= diode ================= */

/* SEGMENTS = 4 on [IMIN, IMAX] = [100 uA, 1 A] (issue 13 item 4): a concave sum of
 * four lines (one pair per knot) within the reported error of the Shockley curve
 * v(i) = N Vt ln(1 + i/IS) + RS i on the whole range, the error reaching +err
 * at the knots and -err between them (equioscillation); the operating point at
 * about 1 mA is within that error of the exact diode (Newton on the same
 * circuit), where the default single fit on 10 mA..1 A is 0.05 V off. */
Test(devsw, diode_segments_fit)
{
    nsc_circuit *c = tu_parse(
        "t\nV1 a 0 5\nR1 a k 4.4k\nD1 k 0 DS\n"
        ".model DS D(IS=1e-14 N=1 RS=0.1 SEGMENTS=4 IMIN=100u IMAX=1)\n.op\n.end\n");
    nsc_report r;
    nsc_report_init(&r);
    nsc_lcs *L = NULL;
    cr_assert_eq(nsc_lcs_assemble(c, NSC_ASM_TRAN, 1e-12, &L, &r), NSC_OK);
    cr_assert_eq(L->m, 4);
    /* y_0 = v_k - v_a + e0[0] + D00 i + sum_q D0q mu_q, mu_q = max(0, i - e0[q]) (pairs 1..3) */
    double vt = 1.380649e-23 * 300.15 / 1.602176634e-19, emax = -1, emin = 1;
    for (int k = 0; k <= 4000; k++) {
        double i = 1e-4 * pow(1e4, k / 4000.0), v = L->e0[0] + nsc_sp_get(L->D, 0, 0) * i;
        for (int q = 1; q < 4; q++) {
            cr_assert(nsc_sp_get(L->D, q, q) == 1 && nsc_sp_get(L->D, q, 0) == -1);
            v += nsc_sp_get(L->D, 0, q) * fmax(0, i - L->e0[q]);
        }
        double e = v - (vt * log1p(i / 1e-14) + 0.1 * i);
        emax = fmax(emax, e);
        emin = fmin(emin, e);
    }
    cr_log_info("4 segments: error in [%.4g, %.4g] V", emin, emax);
    cr_assert(emax > 0.0079 && emax < 0.0081 && fabs(emax + emin) < 2e-3 * emax, "%g %g", emin,
              emax);
    int found = 0;
    for (int k = 0; k < r.nwarn; k++)
        found += strstr(r.warn[k], "fitted by 4 segments on 100 uA..1 A: VF=0.5") != NULL;
    cr_assert_eq(found, 1, "%d warnings, %s", r.nwarn, r.nwarn ? r.warn[0] : "");
    nsc_lcs_free(L);
    nsc_waves *W = NULL;
    cr_assert_eq(nsc_stepper_op(c, 1e-12, NSC_SOLVER_AUTO, NULL, 0, &W, &r), NSC_OK);
    double v = opval(W, "v(k)"), i = 1e-3, ve = 0;
    for (int it = 0; it < 60; it++) {
        ve = vt * log1p(i / 1e-14) + 0.1 * i;
        i = (5 - ve) / 4.4e3;
    }
    cr_log_info("v(k) = %.5f V, exact %.5f V", v, ve);
    cr_assert(fabs(v - ve) <= emax * 1.001, "v(k) %g exact %g", v, ve);
    nsc_waves_free(W);
    nsc_report_free(&r);
    nsc_circuit_free(c);
}

/* IS, N, RS with SEGMENTS=1 on [10 mA, 1 A]: VF, RON are the Chebyshev line of
 * v(i) = N Vt ln(1 + i/IS) + RS i: the error equioscillates (+e at both ends, -e
 * at the tangent point) and nowhere exceeds e; the warning reports the fit. */
Test(devsw, diode_spice_fit)
{
    nsc_circuit *c = tu_parse(
        "t\nV1 a 0 1\nD1 a k DS\nR1 k 0 1\n"
        ".model DS D(IS=2e-14 N=1.5 RS=0.05 EG=1.11 SEGMENTS=1 IMIN=10m IMAX=1)\n.tran 1u 1m\n.end\n");
    nsc_report r;
    nsc_report_init(&r);
    nsc_lcs *L = NULL;
    cr_assert_eq(nsc_lcs_assemble(c, NSC_ASM_TRAN, 1e-12, &L, &r), NSC_OK);
    double vf = L->e0[0], ron = nsc_sp_get(L->D, 0, 0);
    cr_assert_eq(L->m, 1);
    double vt = 1.380649e-23 * 300.15 / 1.602176634e-19, emax = 0, emin = 0;
    for (int k = 0; k <= 2000; k++) {
        double i = 1e-2 * pow(100.0, k / 2000.0);
        double e = vf + ron * i - (1.5 * vt * log1p(i / 2e-14) + 0.05 * i);
        emax = fmax(emax, e);
        emin = fmin(emin, e);
    }
    cr_log_info("fit: VF = %.5f V, RON = %.5f Ohm, error in [%.3g, %.3g] V", vf, ron, emin, emax);
    cr_assert(fabs(emax + emin) < 1e-4 * emax, "not equioscillating: %g %g", emax, emin);
    cr_assert(ron > 0.05 && vf > 0.9 && vf < 1.2); /* N Vt ln(10 mA/IS) = 1.04 V */
    int found = 0;
    for (int k = 0; k < r.nwarn; k++) {
        if (strstr(r.warn[k], "fitted")) {
            char want[64];
            snprintf(want, sizeof want, "VF=%.4g RON=%.4g", vf, ron);
            cr_assert(strstr(r.warn[k], want), "%s lacks %s", r.warn[k], want);
            found++;
        }
        if (strstr(r.warn[k], "ignored")) found += 10; /* EG */
    }
    cr_assert_eq(found, 11, "warnings: %d", r.nwarn);
    nsc_lcs_free(L);
    nsc_report_free(&r);
    nsc_circuit_free(c);
}

/* The fit's error against N Vt ln(1 + i/1e-14) on 100 uA..100 A sampled on a
 * geometric grid (pairs as in diode_segments_fit) of the card "IS=1e-14 N=n
 * more", and the number of pairs. */
static double fit_error(double n, const char *more, int *m)
{
    char net[256];
    snprintf(net, sizeof net,
             "t\nV1 a 0 5\nR1 a k 1k\nD1 k 0 DS\n.model DS D(IS=1e-14 N=%g %s)\n.op\n.end\n", n,
             more);
    nsc_circuit *c = tu_parse(net);
    nsc_report r;
    nsc_report_init(&r);
    nsc_lcs *L = NULL;
    cr_assert_eq(nsc_lcs_assemble(c, NSC_ASM_TRAN, 1e-12, &L, &r), NSC_OK);
    double is = 1e-14, vt = 1.380649e-23 * 300.15 / 1.602176634e-19, emax = 0;
    *m = L->m;
    for (int k = 0; k <= 6000; k++) {
        double i = 1e-4 * pow(1e6, k / 6000.0), v = L->e0[0] + nsc_sp_get(L->D, 0, 0) * i;
        for (int q = 1; q < L->m; q++) v += nsc_sp_get(L->D, 0, q) * fmax(0, i - L->e0[q]);
        emax = fmax(emax, fabs(v - n * vt * log1p(i / is)));
    }
    nsc_lcs_free(L);
    nsc_report_free(&r);
    nsc_circuit_free(c);
    return emax;
}

/* Without SEGMENTS, a SPICE diode is fitted on 100 uA..100 A by the fewest
 * chords within 10 mV of its curve, at most 8 (dev_d.c; netlist.md "the currents
 * that matter"): N = 1 takes 6 (8.0 mV; 5 would be 11.2 mV), N = 2 takes 8
 * (9.3 mV), N = 3 the cap's 8 (13.9 mV), a nearly ideal N = 0.01 one line. */
Test(devsw, diode_default_fit_is_the_fewest_segments_within_10_mV)
{
    int m, m5, m2, m3, m0;
    double e = fit_error(1, "", &m), e5 = fit_error(1, "SEGMENTS=5 IMIN=100u IMAX=100", &m5);
    double e2 = fit_error(2, "", &m2), e3 = fit_error(3, "", &m3), e0 = fit_error(0.01, "", &m0);
    cr_log_info(
        "N=1: %d pairs %.4g V; 5 segments %.4g V; N=2: %d pairs %.4g V; N=3: %d pairs %.4g V; "
        "N=0.01: %d pairs %.3g V",
        m, e, e5, m2, e2, m3, e3, m0, e0);
    cr_assert(m == 6 && e <= 0.01 && e > 0.0079, "%d %g", m, e);
    cr_assert(m5 == 5 && e5 > 0.01, "%d %g", m5, e5);
    cr_assert(m2 == 8 && e2 <= 0.01 && e2 > 0.009, "%d %g", m2, e2);
    cr_assert(m3 == 8 && e3 > 0.0135 && e3 < 0.0145, "%d %g", m3, e3);
    cr_assert(m0 == 1 && e0 <= 0.01, "%d %g", m0, e0);
}

/* BV adds the reverse branch: y_z = v_a - v_k + BV + RON l_z; a 10 V source
 * through 1k into the cathode clamps at (5.1 + 0.01)/1.001 V, I(D) = -(10 - v)/1k. */
Test(devsw, zener_branch)
{
    nsc_circuit *c = tu_parse(
        "t\nV1 in 0 10\nR1 in k 1k\nD1 0 k DZ\n.model DZ D(VF=0.6 RON=1 BV=5.1)\n.op\n.end\n");
    nsc_report r;
    nsc_report_init(&r);
    nsc_lcs *L = NULL;
    cr_assert_eq(nsc_lcs_assemble(c, NSC_ASM_OP, 1e-12, &L, &r), NSC_OK);
    int k = zindex(L, "v(k)");
    cr_assert_eq(L->m, 2);
    cr_assert_str_eq(L->pair_name[1], "d1#1");
    cr_assert_eq(nsc_sp_get(L->C, 1, k), -1.0); /* y_z = v_a - v_k + ..., a = ground */
    cr_assert_eq(nsc_sp_get(L->B, k, 1), -1.0); /* l_z leaves k */
    cr_assert_eq(nsc_sp_get(L->D, 1, 1), 1.0);
    cr_assert_eq(L->e0[1], 5.1);
    nsc_lcs_free(L);
    nsc_circuit_free(c);
    nsc_waves *O =
        op("t\nV1 in 0 10\nR1 in k 1k\nD1 0 k DZ\n.model DZ D(VF=0.6 RON=1 BV=5.1)\n.op\n.end\n",
           &r);
    double v = (5.1 + 0.01) / 1.001;
    cr_assert_float_eq(opval(O, "v(k)"), v, 1e-12);
    cr_assert_float_eq(opval(O, "l(d1#1)"), (10 - v) / 1e3, 1e-12);
    cr_assert_eq(opval(O, "l(d1#0)"), 0.0);
    nsc_waves_free(O);
    /* SPICE BV, IBV: the Zener voltage is fitted like the forward branch, between
     * BV and BV + N Vt ln(1 A / IBV) */
    O = op("t\nV1 in 0 10\nR1 in k 10\nD1 0 k DS\n.model DS D(IS=1e-14 BV=6.2 IBV=1m)\n.op\n.end\n",
           &r);
    double vk = opval(O, "v(k)"), vt = 1.380649e-23 * 300.15 / 1.602176634e-19;
    cr_log_info("SPICE Zener: v = %.4f at %.3f A", vk, (10 - vk) / 10);
    cr_assert(vk > 6.2 && vk < 6.2 + vt * log(1e3) + 0.01, "v(k) = %g", vk);
    nsc_waves_free(O);
    nsc_report_free(&r);
}

/* ================= initial conditions, hidden algebraic rows ================= */

/* UIC: 10 V on C1 against 0 V on C2 through an ideal diode has no finite
 * consistent solution: the run starts with the pairs open (warning) and the
 * first step shares the charge, v = 10 C1/(C1 + C2) (the 1 MOhm load takes
 * 1e-6 of it per microsecond). */
Test(devsw, uic_impulsive_start)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_waves *W =
        tran("imp\nC1 a 0 1u IC=10\nD1 a b DI\nC2 b 0 300n IC=0\nR1 b 0 1Meg\n.model DI D(VF=0)\n"
             ".tran 1u 10u 0 1u UIC\n.end\n",
             "v(a),v(b)", NULL, &r);
    int warned = 0;
    for (int k = 0; k < r.nwarn; k++)
        warned |= strstr(r.warn[k], "starts with every pair open") != NULL;
    cr_assert(warned);
    cr_assert_eq(AT(W, 0, 1), 10.0);
    cr_assert_eq(AT(W, 0, 2), 0.0);
    cr_assert_float_eq(AT(W, 1, 1), 10.0 / 1.3, 1e-4);
    cr_assert_float_eq(AT(W, 1, 2), 10.0 / 1.3, 1e-4);
    nsc_waves_free(W);
    nsc_report_free(&r);
}

/* Cuk-like cell: the coupling capacitor C1 sits between two nodes with no
 * capacitance to ground, so the sum of their rows is algebraic. Treated as a
 * theta = 0.5 row it rang: the diode mode flipped at every step in
 * discontinuous conduction and the output drifted 6 % from ngspice. With the
 * row separated, every step but the switching events keeps its mode. */
Test(devsw, hidden_algebraic_rows_no_chatter)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_sim_stats st;
    nsc_waves *W = tran(
        "cuk\nVin in 0 12\nVg gate 0 PULSE(0 1 0 10n 10n 7.99u 20u)\nL1 in a 100u\nS1 a 0 gate 0 SWM\n"
        "C1 a b 10u\nD1 b 0 DN\nL2 b out 100u\nC2 out 0 47u\nR1 out 0 10\n"
        ".model SWM SW(VT=0.5 RON=10m ROFF=1e9)\n.model DN D(VF=0)\n.tran 1u 2m 0 20n UIC\n.end\n",
        "v(out)", &st, &r);
    long periods = 100, changes = st.steps - st.mode_hits;
    cr_log_info("%ld steps, %ld not in the previous mode", st.steps, changes);
    cr_assert(changes <= 6 * periods, "%ld mode changes in %ld periods", changes, periods);
    nsc_waves_free(W);
    /* perfectly coupled inductors (K = 1): the secondary voltage is -vin during
     * the on time, not alternating around it */
    W = tran(
        "fly\nVin in 0 12\nVg gate 0 PULSE(0 1 0 10n 10n 3.99u 10u)\nLp in d 200u\nLs 0 s 200u\nK1 Lp Ls 1\n"
        "S1 d 0 gate 0 SWM\nD1 s out DN\nC1 out 0 47u\nR1 out 0 10\n.model SWM SW(VT=0.5 RON=10m ROFF=1e9)\n"
        ".model DN D(VF=0)\n.tran 10n 1m 0 10n UIC\n.end\n",
        "v(s)", NULL, &r);
    int checked = 0;
    for (int i = 1; i < W->nrow; i++) {
        double t = fmod(AT(W, i, 0), 10e-6);
        if (t > 0.2e-6 && t < 3.8e-6) {
            cr_assert(fabs(AT(W, i, 1) + 12) < 0.05, "t = %g: v(s) = %g", AT(W, i, 0), AT(W, i, 1));
            checked++;
        }
    }
    cr_assert(checked > 1000);
    nsc_waves_free(W);
    nsc_report_free(&r);
}

/* S ... ON / OFF: the state the static problem starts from. With the control inside
 * the hysteresis band (0.5 V in 0.3..0.7 V) the state never changes, so ON gives
 * v(2) = 1 V * 1/(1k + 1) and OFF (or nothing) 1 V * 1e9/(1k + 1e9), in the OP and
 * through the transient; outside the band the keyword does not matter. */
Test(devsw, switch_on_off_keyword)
{
    const char *fmt = "sw state\nV1 1 0 DC 1\nR1 1 2 1k\nS1 2 0 c 0 SMOD %s\nVC c 0 DC %s\n"
                      ".model SMOD SW(VT=0.5 VH=0.2 RON=1 ROFF=1e9)\n.tran 1u 10u\n.end\n";
    const double von = 1.0 / 1001.0, voff = 1e9 / (1e9 + 1e3);
    struct {
        const char *kw, *vc;
        double v2;
    } cases[] = {
        { "ON", "0.5", von }, { "OFF", "0.5", voff }, { "", "0.5", voff },
        { "off", "1", von },  { "on", "0", voff },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char text[512];
        snprintf(text, sizeof text, fmt, cases[k].kw, cases[k].vc);
        nsc_report r;
        nsc_report_init(&r);
        nsc_waves *O = op(text, &r);
        cr_expect_float_eq(opval(O, "v(2)"), cases[k].v2, 1e-9, "OP, S1 %s, vc = %s: v(2) = %g",
                           cases[k].kw, cases[k].vc, opval(O, "v(2)"));
        nsc_waves_free(O);
        nsc_waves *W = tran(text, "v(2)", NULL, &r);
        for (int i = 0; i < W->nrow; i++)
            cr_expect_float_eq(AT(W, i, 1), cases[k].v2, 1e-9, "tran row %d, S1 %s, vc = %s", i,
                               cases[k].kw, cases[k].vc);
        cr_expect_eq(r.nwarn, 0, "S1 %s: %s", cases[k].kw, r.nwarn ? r.warn[0] : "");
        nsc_waves_free(W);
        nsc_report_free(&r);
    }
}

/* Xyce's hysteresis forms: VSWITCH with VHON/VHOFF (on above VHON = 1.5, off
 * below VHOFF = 0.5 on the triangle 0 -> 2 -> 0 V over 2 ms: 0.75 and 1.75 ms),
 * and the generic switch S a 0 model CONTROL={expr} with SWITCH(ON OFF) whose
 * control V(c)/2 + 0.25 crosses its mean 1 at the same times (the triangle
 * reaches 1.5 V at 0.75 ms and 1.75 ms). */
Test(devsw, xyce_vhon_vhoff_and_control_switch)
{
    static const char *const net[] = {
        "hyst\nV2 in 0 10\nR1 in a 1k\nS1 a 0 c 0 SM\nV1 c 0 PWL(0 0 1m 2 2m 0)\n"
        ".model SM VSWITCH(VON=1.2 VOFF=0.8 VHON=1.5 VHOFF=0.5 RON=10 ROFF=1e6)\n.tran 1u 2m\n.end\n",
        "generic\nV2 in 0 10\nR1 in a 1k\nS1 a 0 SG CONTROL={V(c)/2 + 0.25}\nV1 c 0 PWL(0 0 1m 2 2m 0)\n"
        ".model SG SWITCH(ON=1.2 OFF=0.8 RON=10 ROFF=1e6)\n.tran 1u 2m\n.end\n",
    };
    const double ton[] = { 0.75e-3, 0.75e-3 }, toff[] = { 1.75e-3, 1.25e-3 };
    for (int k = 0; k < 2; k++) {
        nsc_report r;
        nsc_report_init(&r);
        nsc_waves *W = tran(net[k], "v(a),i(s1)", NULL, &r);
        double t[4];
        int n = crossings(W, 1, 5.0, 0, t, 4);
        cr_assert_eq(n, 2, "%s: %d transitions", net[k], n);
        cr_expect(t[0] > ton[k] && t[0] < ton[k] + 2e-6, "case %d: on at %g", k, t[0]);
        cr_expect(t[1] > toff[k] && t[1] < toff[k] + 2e-6, "case %d: off at %g", k, t[1]);
        int mid = 0;
        while (mid < W->nrow - 1 && AT(W, mid, 0) < 1e-3) mid++;
        cr_expect_float_eq(AT(W, mid, 1), 10.0 * 10 / 1010, 1e-9, "case %d: on-state v(a)", k);
        cr_expect_eq(r.nwarn, 0, "case %d: %s", k, r.nwarn ? r.warn[0] : "");
        nsc_waves_free(W);
        nsc_report_free(&r);
    }
}

/* LTspice's ideal diode D(Vfwd Ron Roff Vrev Rrev) is the PWL diode: forward
 * i = (V - Vfwd)/(R + Ron) (+ the 1e12 of Roff), reverse past Vrev through
 * Rrev; Ron defaults to 1 and Rrev to Ron (LTspice's defaults). */
Test(devsw, ltspice_ideal_diode)
{
    struct {
        const char *model;
        double v, i;
    } cs[] = {
        { "D(Vfwd=0.7 Ron=0.1 Vrev=5 Rrev=0.5)", 2, (2 - 0.7) / 10.1 },
        { "D(Vfwd=0.7 Ron=0.1 Vrev=5 Rrev=0.5)", -8, -(8 - 5) / 10.5 },
        { "D(Vfwd=0.7)", 2, (2 - 0.7) / 11.0 },
        { "D(Vfwd=0.7 Vrev=3)", -8, -(8 - 3) / 11.0 },
        { "D(Vfwd=0.7 Ron=0.1 Roff=100)", 0.5, 0.5 / 110 },
    };
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
        char text[256];
        snprintf(text, sizeof text, "lt\nV1 a 0 %g\nR1 a k 10\nD1 k 0 DI\n.model DI %s\n.end\n",
                 cs[k].v, cs[k].model);
        nsc_report r;
        nsc_report_init(&r);
        nsc_waves *O = op(text, &r);
        double i = (opval(O, "v(a)") - opval(O, "v(k)")) / 10;
        cr_expect_float_eq(i, cs[k].i, 1e-9 + 1e-9 * fabs(cs[k].i),
                           "%s at %g V: i = %.12g, want %.12g", cs[k].model, cs[k].v, i, cs[k].i);
        cr_expect_eq(r.nwarn, 0, "%s: %s", cs[k].model, r.nwarn ? r.warn[0] : "");
        nsc_waves_free(O);
        nsc_report_free(&r);
    }
}

/* m= is m devices in parallel: a SPICE diode m=4 carrying 10 mA sits at the
 * voltage of one diode carrying 2.5 mA (the fit scaled exactly), which is
 * N Vt ln(1 + i/IS) within the fit's 10 mV; MOS m=3 is K times 3 (the linear
 * region's current through R: the same as W three times as wide). */
Test(devsw, multiplier_m_is_devices_in_parallel)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_waves *A = op("m\nI1 0 a 10m\nD1 a 0 DX m=4\n.model DX D(IS=1e-12 N=1.5 RS=0.2)\n.end\n",
                      &r);
    nsc_waves *B = op("m\nI1 0 a 2.5m\nD1 a 0 DX\n.model DX D(IS=1e-12 N=1.5 RS=0.2)\n.end\n", &r);
    double va = opval(A, "v(a)"), vb = opval(B, "v(a)");
    double vt = 1.380649e-23 * 300.15 / 1.602176634e-19,
           exact = 1.5 * vt * log(1 + 2.5e-3 / 1e-12) + 0.2 * 2.5e-3;
    cr_expect_float_eq(va, vb, 1e-9, "m=4 at 10 mA: %.9g V, one diode at 2.5 mA: %.9g V", va, vb);
    cr_expect(fabs(va - exact) < 0.01, "m=4: %g V, the curve %g V", va, exact);
    nsc_waves_free(A);
    nsc_waves_free(B);
    A = op(
        "m\nV1 d0 0 5\nR1 d0 d 1k\nVG g 0 5\nM1 d g 0 0 NM W=10u L=10u m=3\n.model NM NMOS(VTO=1 KP=50u)\n.end\n",
        &r);
    B = op(
        "m\nV1 d0 0 5\nR1 d0 d 1k\nVG g 0 5\nM1 d g 0 0 NM W=30u L=10u\n.model NM NMOS(VTO=1 KP=50u)\n.end\n",
        &r);
    cr_expect_float_eq(opval(A, "v(d)"), opval(B, "v(d)"), 1e-12, "MOS m=3 %.9g, W x 3 %.9g",
                       opval(A, "v(d)"), opval(B, "v(d)"));
    cr_expect(opval(A, "v(d)") < 4.0, "M1 conducts: v(d) = %g", opval(A, "v(d)"));
    nsc_waves_free(A);
    nsc_waves_free(B);
    /* with RD and RS (resistors to internal nodes): m=2 is two transistors, each
     * with its own RD and RS (merging the branches, RD/2 and RS/2 were missing:
     * 6.056 mA for 6.459 mA) */
    const char *md = ".model NM NMOS(LEVEL=1 VTO=1 KP=100u RD=10 RS=10)\n.end\n";
    char na[512], nb[512];
    snprintf(na, sizeof na, "m\nV1 d 0 1\nVG g 0 5\nM1 d g 0 0 NM W=10u L=1u M=2\n%s", md);
    snprintf(nb, sizeof nb,
             "m\nV1 d 0 1\nVG g 0 5\nM1 d g 0 0 NM W=10u L=1u\nM2 d g 0 0 NM W=10u L=1u\n%s", md);
    A = op(na, &r);
    B = op(nb, &r);
    cr_expect_float_eq(opval(A, "i(v1)"), opval(B, "i(v1)"), 1e-12, "RD RS, m=2 %.9g A, two %.9g A",
                       opval(A, "i(v1)"), opval(B, "i(v1)"));
    nsc_waves_free(A);
    nsc_waves_free(B);
    nsc_report_free(&r);
}

/* The switching energies of a model through their parameter table
 * (device.h nsc_swloss_read): the values as given (SPICE suffixes), 0 for
 * those not given, the checks only when EON or EOFF is given, errors at the
 * model's card. */
Test(devsw, switching_energies_read_through_their_table)
{
    nsc_circuit *c = tu_parse(
        "t\nV1 a 0 1\nS1 a 0 a 0 SA\nS2 a 0 a 0 SB\nS3 a 0 a 0 SC\nS4 a 0 a 0 SD\n"
        ".model SA SW(VT=0.5 EON=1.5u EOFF=2u VREF=400 IREF=10)\n"
        ".model SB SW(VT=0.5 EOFF=3n)\n"
        ".model SC SW(VT=0.5 EON=1u VREF=0)\n"
        ".model SD SW(VT=0.5 VREF=-1)\n.op\n.end\n");
    const nsc_model *m[4] = { 0 };
    for (int k = 0; k < c->nmodel; k++)
        if (c->model[k].name[1] >= 'a' && c->model[k].name[1] <= 'd')
            m[c->model[k].name[1] - 'a'] = &c->model[k];
    cr_assert(m[0] && m[1] && m[2] && m[3]);
    nsc_swloss p;
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(nsc_swloss_read(m[0], &p, &r), NSC_OK);
    cr_assert_float_eq(p.eon, 1.5e-6, 1e-20);
    cr_assert_float_eq(p.eoff, 2e-6, 1e-20);
    cr_assert_eq(p.vref, 400);
    cr_assert_eq(p.iref, 10);
    cr_assert_eq(nsc_swloss_read(m[1], &p, &r), NSC_OK);
    cr_assert(p.eon == 0 && p.vref == 0 && p.iref == 0);
    cr_assert_float_eq(p.eoff, 3e-9, 1e-22);
    cr_assert_eq(nsc_swloss_read(m[3], &p, &r),
                 NSC_OK); /* no energies: VREF unchecked, as before */
    cr_assert_eq(nsc_swloss_read(NULL, &p, &r), NSC_OK);
    cr_assert(p.eon == 0 && p.eoff == 0 && p.vref == 0 && p.iref == 0);
    cr_assert_eq(nsc_swloss_read(m[2], &p, &r), NSC_ENETLIST);
    cr_assert(r.error
                  && strstr(r.error,
                            ":9:1: error: model 'sc': VREF and IREF must be finite and > 0"),
              "%s", r.error);
    cr_assert(nsc_swloss_param("EOFF") && nsc_swloss_param("iref") && !nsc_swloss_param("vt"));
    nsc_report_free(&r);
    nsc_circuit_free(c);
}
