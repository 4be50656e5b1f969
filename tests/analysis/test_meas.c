/* test_meas.c -- .meas tran: elaboration of the cards (nl_meas.c) and evaluation
 * (meas.c) against hand computations on piecewise-linear waveforms, error
 * messages, and the program (stdout, circuit.meas, columns only .meas reads). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/meas.h"
#include "netlist/netlist.h"
#include "testutil.h"

static char *tmp;
static void setup(void)
{
    tmp = tu_tmpdir();
    cr_assert(tmp);
}
static void teardown(void)
{
    tu_rmdir(tmp);
    free(tmp);
}
TestSuite(meas, .init = setup, .fini = teardown);

static const char *const HEAD = "meas test\nV1 a 0 1\nR1 a b 1\nR2 b 0 1\n.param two=2\n";

static nsc_circuit *circuit(const char *cards)
{
    char *text = nsc_asprintf("%s%s.tran 0.5 4\n.end\n", HEAD, cards);
    nsc_report r;
    nsc_report_init(&r);
    nsc_circuit *c = NULL;
    nsc_status s = nsc_netlist_read_string(text, "m.cir", NULL, 0, &c, &r);
    cr_assert_eq(s, NSC_OK, "%s", r.error ? r.error : "");
    free(text);
    nsc_report_free(&r);
    return c;
}

static char *error_of(const char *cards)
{
    char *text = nsc_asprintf("%s%s\n.tran 0.5 4\n.end\n", HEAD, cards);
    nsc_report r;
    nsc_report_init(&r);
    nsc_circuit *c = NULL;
    nsc_status s = nsc_netlist_read_string(text, "m.cir", NULL, 0, &c, &r);
    cr_assert_eq(s, NSC_ENETLIST, "no error for %s", cards);
    char *e = strdup(r.error);
    free(text);
    nsc_report_free(&r);
    return e;
}

/* t = 0, 0.5, ..., 4; v(a) a triangle 0 -> 2 (t = 1) -> 0 (t = 2) -> 2 -> 0;
 * v(b) = 3; i(v1) = t. Columns in another order than the probes. */
static nsc_waves *waves(void)
{
    char *names[] = { "i(v1)", "v(b)", "v(a)" };
    nsc_waves *W = nsc_waves_new(names, 3, "");
    for (int i = 0; i <= 8; i++) {
        double t = 0.5 * i, p = fmod(t, 2), tri = p <= 1 ? 2 * p : 2 * (2 - p);
        double row[4] = { t, t, 3, tri };
        cr_assert_eq(nsc_waves_add(W, row), 0);
    }
    return W;
}

typedef struct expect {
    const char *card;
    double value; /* NAN: the measure fails */
} expect;

static void check(const expect *x, int n)
{
    char cards[8192] = "";
    for (int k = 0; k < n; k++)
        snprintf(cards + strlen(cards), sizeof cards - strlen(cards), "%s\n", x[k].card);
    nsc_circuit *c = circuit(cards);
    cr_assert_eq(c->job.nmeas, n);
    nsc_waves *W = waves();
    nsc_meas_result *res = calloc((size_t)n, sizeof *res);
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(nsc_meas_eval(c, W, res, &r), NSC_OK, "%s", r.error ? r.error : "");
    for (int k = 0; k < n; k++) {
        if (isnan(x[k].value)) {
            cr_assert(!res[k].ok, "%s: expected a failure, got %.17g", x[k].card, res[k].value);
            cr_assert(res[k].why && *res[k].why);
        } else {
            cr_assert(res[k].ok, "%s: failed: %s", x[k].card, res[k].why ? res[k].why : "");
            cr_assert_float_eq(res[k].value, x[k].value, 1e-12 * (1 + fabs(x[k].value)),
                               "%s: %.17g, want %.17g", x[k].card, res[k].value, x[k].value);
        }
    }
    nsc_meas_results_free(res, n);
    free(res);
    nsc_report_free(&r);
    nsc_waves_free(W);
    nsc_circuit_free(c);
}

/* Integrals of linear pieces are exact: the triangle's mean is 1, its mean
 * square 4/3; over [0.25, 1.25]: int 2t dt (0.25..1) + int 2(2-t) dt (1..1.25)
 * = 0.9375 + 0.4375. */
Test(meas, statistics)
{
    const expect x[] = {
        { ".meas tran avgv AVG v(a)", 1 },
        { ".meas tran rmsv RMS v(a)", 2 / sqrt(3) },
        { ".meas tran integv INTEG v(a)", 4 },
        { ".meas tran intv INTEGRAL v(a) to=1", 1 },
        { ".meas tran w AVG v(a) FROM=0.25 TO=1.25", 1.375 },
        { ".meas tran mx MAX v(a) from=0.25 to=0.75", 1.5 },
        { ".meas tran mn MIN v(a) from=0.25 to=0.75", 0.5 },
        { ".meas tran pp PP v(a) from=0.25 to=0.75", 1 },
        { ".meas tran pp2 PP v(a)", 2 },
        { ".meas tran mxat MAX_AT v(a)", 1 },
        { ".meas tran mnat MIN_AT v(a) from=0.5", 2 },
        { ".meas tran tdw AVG v(a) td=3 to=4", 1 },
        { ".meas tran one AVG v(a) from=1 to=1", 2 },
        { ".meas tran rmsb RMS v(b) from={two}", 3 },
        { ".meas tran prod AVG par('v(a)*v(b)/two')", 1.5 },
        { ".meas tran diff MAX {v(b)-v(a)}", 3 },
        { ".meas tran i1 MAX i(v1)", 4 },
        { ".meas tran p PARAM='avgv*two+1'", 3 },
        { ".meas tran eff PARAM='prod/avgv'", 1.5 },
        { ".meas tran out AVG v(a) from=5", NAN },
        { ".meas tran dep PARAM='out+1'", NAN },
    };
    check(x, sizeof x / sizeof x[0]);
}

/* v(a) = 1.5 at 0.75 (rise), 1.25 (fall), 2.75 (rise), 3.25 (fall); v(a) = i(v1)
 * at 0 (start at the level, then above) and 4/3 (fall); v(a) = 1 at 0.5, 1.5,
 * 2.5, 3.5; v(a) = 0.5 rising at 0.25, 2.25. */
Test(meas, crossings)
{
    const expect x[] = {
        { ".meas tran c1 WHEN v(a)=1.5", 0.75 },
        { ".meas tran c2 WHEN v(a)=1.5 RISE=2", 2.75 },
        { ".meas tran c3 WHEN v(a)=1.5 FALL=1", 1.25 },
        { ".meas tran c4 WHEN v(a)=1.5 CROSS=3", 2.75 },
        { ".meas tran c5 WHEN v(a)=1.5 FALL=LAST", 3.25 },
        { ".meas tran c6 WHEN v(a)=1.5 CROSS=LAST", 3.25 },
        { ".meas tran c7 WHEN v(a)=1.5 TD=1", 1.25 },
        { ".meas tran c8 WHEN v(a)=1.5 FROM=2.9 CROSS=1", 3.25 },
        { ".meas tran c9 WHEN v(a)={3*0.5} TO=2.5 RISE=LAST", 0.75 },
        { ".meas tran c10 WHEN v(a)=i(v1) CROSS=2", 4.0 / 3 },
        { ".meas tran c11 WHEN v(a)=v(b)", NAN },
        { ".meas tran c12 WHEN v(a)=1.5 RISE=3", NAN },
        { ".meas tran d1 TRIG v(a) VAL=1 RISE=1 TARG v(a) VAL=1 FALL=2", 3.0 },
        { ".meas tran d2 TRIG AT=1 TARG v(a) VAL=0.5 RISE=2", 1.25 },
        { ".meas tran d3 TRIG v(a) VAL=1 TD=1 RISE=1 TARG AT=3", 0.5 },
        { ".meas tran f1 FIND v(a) AT=0.8", 1.6 },
        { ".meas tran f2 FIND i(v1) WHEN v(a)=1.5 FALL=2", 3.25 },
        { ".meas tran f3 FIND v(a) AT=9", NAN },
        { ".meas tran w2 PARAM='c2-c1'", 2 },
    };
    check(x, sizeof x / sizeof x[0]);
}

/* .meas reads the functions B sources read (base/xfn.h), on the triangle v(a)
 * (rows 0 1 2 1 0 1 2 1 0, linear between): u(v(a)-1) has rows 0 1/2 1 1/2 0 ...,
 * mean 1/2 by trapezoids; sgn(v(a)-1) rows -1 0 1 0 ..., mean 0; v(a) >= 1 rows
 * 0 1 1 1 0 ..., mean 3/4; limit clips (bounds in either order); 4 atan2(1, 1) =
 * 2 asin(1) = pi. */
Test(meas, functions_of_b_sources)
{
    const expect x[] = {
        { ".meas tran u1 AVG par('u(v(a)-1)')", 0.5 },
        { ".meas tran s1 AVG par('sgn(v(a)-1)')", 0 },
        { ".meas tran s2 MIN par('sgn(v(a)-1)')", -1 },
        { ".meas tran r1 MAX par('uramp(v(a)-1.5)')", 0.5 },
        { ".meas tran l1 MAX par('limit(v(a), 0.5, 1.5)')", 1.5 },
        { ".meas tran l2 MIN par('limit(v(a), 1.5, 0.5)')", 0.5 },
        { ".meas tran i1 AVG par('if(v(a)>=1, 1, 0)')", 0.75 },
        { ".meas tran i2 MAX par('if(v(a)>1, v(a), 0)')", 2 },
        { ".meas tran p1 PARAM='4*atan2(1, 1)'", 3.14159265358979323846 },
        { ".meas tran p2 PARAM='tanh(0)+2*asin(1)+sinh(0)+cosh(0)-1+atan(0)+acos(1)'",
          3.14159265358979323846 },
    };
    check(x, sizeof x / sizeof x[0]);
}

/* A measure calls the netlist's functions (.func), inlined as a B source's
 * are, row by row then linear between rows (meas.h): sq(v(a)) at the rows is
 * 0 1 4 1 0 ..., mean (1/2 + 5/2 + 5/2 + 1/2) / 4 = 3/2; sq(v(a)-1) is 1 0 1 0 ...,
 * mean 1/2; cube(2) = 8 (a function calling one). */
Test(meas, user_functions)
{
    nsc_circuit *c = circuit(
        ".func sq(x) {x*x}\n.func cube(x) {x*sq(x)}\n.meas tran q AVG par('sq(v(a))')\n"
        ".meas tran q1 AVG par('sq(v(a)-1)')\n.meas tran k PARAM='cube(two)+q1'\n");
    nsc_waves *W = waves();
    nsc_meas_result res[3] = { 0 };
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(nsc_meas_eval(c, W, res, &r), NSC_OK, "%s", r.error ? r.error : "");
    const double want[] = { 1.5, 0.5, 8.5 };
    for (int k = 0; k < 3; k++) {
        cr_assert(res[k].ok, "%s: %s", c->job.meas[k].name, res[k].why ? res[k].why : "");
        cr_assert_float_eq(res[k].value, want[k], 1e-12, "%s: %.17g", c->job.meas[k].name,
                           res[k].value);
    }
    cr_assert_str_eq(c->job.meas[0].sig.text, "sq(v(a))"); /* as written */
    nsc_meas_results_free(res, 3);
    nsc_report_free(&r);
    nsc_waves_free(W);
    nsc_circuit_free(c);
    char *e = error_of(".func sq(x) {x*x}\n.meas tran x AVG par('sq(v(a), 1)')");
    cr_assert(strstr(e, "m.cir:7:23: error: function 'sq' takes 1 argument, not 2"), "%s", e);
    free(e);
}

/* `time` reads the row's time, as in a B source: on t = 0 .. 4 its mean is 2,
 * max v(b) t = 3 * 4, i(v1) - t = 0; a derived .print column {v(a)*time} is
 * the product at every row. */
Test(meas, time_in_measures_and_columns)
{
    const expect x[] = {
        { ".meas tran t1 AVG par('time')", 2 },
        { ".meas tran t2 MAX par('v(b)*time')", 12 },
        { ".meas tran t3 INTEG par('i(v1)-time')", 0 },
        { ".meas tran t4 MAX par('if(time>=2, v(a), 0)*time')", 6 },
    };
    check(x, sizeof x / sizeof x[0]);
    nsc_circuit *c = circuit(".print tran v(a) {v(a)*time}\n");
    nsc_waves *W = waves();
    int nout = 3;
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(c->job.nxcol, 1);
    cr_assert_eq(nsc_meas_derive(c, &W, &nout, &r), NSC_OK, "%s", r.error ? r.error : "");
    int k = nsc_waves_col(W, c->job.xcol[0].name), a = nsc_waves_col(W, "v(a)");
    cr_assert(k > 0 && a > 0 && W->nrow == 9);
    for (long i = 0; i < W->nrow; i++)
        cr_assert_eq(nsc_waves_at(W, i, k), nsc_waves_at(W, i, a) * nsc_waves_at(W, i, 0),
                     "row %ld", i);
    nsc_report_free(&r);
    nsc_waves_free(W);
    nsc_circuit_free(c);
}

/* The probes of the measures: distinct, resolved, named as output columns. */
Test(meas, probes)
{
    nsc_circuit *c = circuit(
        ".meas tran x AVG v(a)\n.meas tran y WHEN V(A,gnd)=1\n.meas tran z MAX par('v(a,b)*i(R1)')\n");
    cr_assert_eq(c->job.nmeas_probe, 3);
    cr_assert_str_eq(c->job.meas_probe[0].name, "v(a)");
    cr_assert_str_eq(c->job.meas_probe[1].name, "v(a,b)");
    cr_assert_str_eq(c->job.meas_probe[2].name, "i(r1)");
    cr_assert_eq(c->job.meas_probe[1].node[0], nsc_circuit_node(c, "a"));
    cr_assert_eq(c->job.meas_probe[1].node[1], nsc_circuit_node(c, "b"));
    cr_assert_eq(c->job.meas_probe[2].el, nsc_circuit_element(c, "r1"));
    cr_assert_str_eq(c->job.meas[2].sig.text, "v(a,b)*i(r1)");
    cr_assert_eq(c->job.meas[1].type, NSC_MEAS_WHEN);
    cr_assert_eq(c->job.meas[1].trig.val, 1);
    nsc_circuit_free(c);
}

Test(meas, errors)
{
    const char *bad[][2] = {
        { ".meas tran x AVG v(zz)", "m.cir:6:20: error: unknown node 'zz' in .meas" },
        { ".meas tran x AVG i(rq)", "m.cir:6:20: error: unknown element 'rq' in .meas" },
        /* .meas ac: an unsupported form is skipped with a warning (test_ac.c), a bad node not */
        { ".meas ac x MAX v(zz)", "m.cir:6:18: error: unknown node 'zz'" },
        { ".meas tran x FOO v(a)", "m.cir:6:14: error: unknown measurement 'foo'" },
        { ".meas tran x PARAM='v(a)*2'", "PARAM= of .meas x reads a waveform" },
        { ".meas tran x PARAM='time*2'", "PARAM= of .meas x reads a waveform" },
        { ".meas tran x PARAM='nosuch*2'",
          "unknown name 'nosuch' in .meas x (not a .param, nor an earlier measure)" },
        { ".meas tran x TRIG v(a) RISE=1 TARG v(a) VAL=1", "VAL= missing for v(a) in .meas x" },
        { ".meas tran x TRIG v(a) VAL=1", "TRIG without TARG in .meas x" },
        { ".meas tran x WHEN v(a)=1 RISE=0", "expected a positive integer or LAST" },
        { ".meas tran x WHEN v(a)", "expected signal=value after WHEN" },
        { ".meas tran x AVG par('v(a)*foo(2)')", "unknown function 'foo' in .meas x" },
        { ".meas tran x AVG par('limit(v(a), 1)')",
          "m.cir:6:23: error: function 'limit' takes 3 arguments in .meas x" },
        { ".meas tran x FIND v(a)", "FIND needs AT=time or WHEN signal=value" },
        { ".meas tran", "expected a measure name after .meas tran" },
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char *e = error_of(bad[k][0]);
        cr_assert(strstr(e, bad[k][1]), "%s:\n  got  %s\n  want %s", bad[k][0], e, bad[k][1]);
        free(e);
    }
}

/* The program on an RC discharge (R = 1k, C = 1u from 1 V, tau = 1 ms, theta = 0.5,
 * h = 1 us): v = exp(-t/tau); WHEN v=0.5 at tau ln 2; AVG over 5 tau = (1 - e^-5)/5;
 * INTEG of i(r1) = C (v(5 ms) - 1) exactly for the trapezoidal scheme
 * (C dv = h (i0 + i1) / 2). i(r1) is measured without being saved: the .dat keeps
 * only v(out). */
Test(meas, program)
{
    char path[1024], cmd[2048];
    snprintf(path, sizeof path, "%s/rc.cir", tmp);
    cr_assert_eq(
        tu_write_file(
            path,
            "RC discharge\nV1 in 0 0\nR1 in out 1k\nC1 out 0 1u IC=1\n.tran 1u 5m UIC\n.options stepping=fixed\n.save v(out)\n"
            ".meas tran thalf WHEN v(out)=0.5\n.meas tran vavg AVG v(out) FROM=0 TO=5m\n"
            ".meas tran q INTEG i(r1)\n.meas tran vend FIND v(out) AT=5m\n.meas tran ratio PARAM='q/1u/(vend-1)'\n"
            ".meas tran never WHEN v(out)=2\n.end\n"),
        0);
    snprintf(cmd, sizeof cmd, "cd %s && %s rc.cir 2>&1", tmp, NSC_PROGRAM);
    char *out = NULL;
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    double thalf, vavg, q, vend, ratio;
    const char *p;
    cr_assert((p = strstr(out, "thalf = ")) && sscanf(p + 8, "%lf", &thalf) == 1, "%s", out);
    cr_assert((p = strstr(out, "vavg = ")) && sscanf(p + 7, "%lf", &vavg) == 1);
    cr_assert((p = strstr(out, "q = ")) && sscanf(p + 4, "%lf", &q) == 1);
    cr_assert((p = strstr(out, "vend = ")) && sscanf(p + 7, "%lf", &vend) == 1);
    cr_assert((p = strstr(out, "ratio = ")) && sscanf(p + 8, "%lf", &ratio) == 1);
    cr_assert(strstr(out, "never = failed"), "%s", out);
    cr_assert(strstr(out,
                     "rc.cir:13:1: warning: .meas never failed: v(out) crosses 2 only 0 times"),
              "%s", out);
    cr_assert(strstr(out, "wrote rc.dat, rc.gp, rc.meas"), "%s", out);
    free(out);
    cr_assert_float_eq(thalf, 1e-3 * log(2), 1e-9);
    cr_assert_float_eq(vavg, (1 - exp(-5)) / 5, 1e-6);
    cr_assert_float_eq(vend, exp(-5), 1e-6);
    cr_assert_float_eq(ratio, 1, 1e-9);
    snprintf(path, sizeof path, "%s/rc.meas", tmp);
    char *m = tu_read_file(path);
    cr_assert(m && strstr(m, "\nthalf = 6.93") && strstr(m, "\nnever = failed\n"), "%s", m);
    free(m);
    snprintf(path, sizeof path, "%s/rc.dat", tmp);
    tu_table t;
    cr_assert_eq(tu_table_read(path, &t), 0);
    cr_assert_eq(t.ncol, 2, "columns: %d", t.ncol);
    cr_assert_str_eq(t.name[1], "v(out)");
    tu_table_free(&t);
    /* .meas with only .op: a warning, nothing measured */
    snprintf(path, sizeof path, "%s/op.cir", tmp);
    cr_assert_eq(tu_write_file(path, "op\nV1 a 0 1\nR1 a 0 1\n.op\n.meas tran x AVG v(a)\n.end\n"),
                 0);
    snprintf(cmd, sizeof cmd, "cd %s && %s op.cir 2>&1", tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "op.cir:5:1: warning: .meas tran ignored: no transient analysis"), "%s",
              out);
    free(out);
}

/* A window still settling gets a warning (issue 14 item 3). An RC low-pass,
 * tau = 1 ms, fed a 1 kHz square wave from 0: its mean approaches 0.5 V as
 * 0.5 (1 - exp(-t/tau)), so from one period to the next the mean changes by
 * 0.5 exp(-t/tau) (1 - exp(-T/tau)) = 0.32 (e^-t/tau) V: over [2 ms, 3 ms]
 * ~13 % of its scale. At 30 ms the change is ~3e-14 V: no warning. */
Test(meas, window_not_in_steady_state_is_warned)
{
    char path[1024], cmd[2048], *out = NULL;
    const char *fmt =
        "RC low-pass on a square wave\nV1 in 0 PULSE(0 1 0 1n 1n 0.5m 1m)\nR1 in out 1k\n"
        "C1 out 0 1u\n.tran 10u %s\n.meas tran vavg AVG v(out) FROM=%s TO=%s\n"
        ".meas tran vmax MAX v(out)\n.end\n";
    char text[512];
    snprintf(text, sizeof text, fmt, "3m", "2m", "3m");
    snprintf(path, sizeof path, "%s/lp.cir", tmp);
    cr_assert_eq(tu_write_file(path, text), 0);
    snprintf(cmd, sizeof cmd, "cd %s && %s lp.cir 2>&1", tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(
        strstr(out,
               "lp.cir:6:1: warning: .meas vavg: v(out) is not in periodic steady state at the "
               "window's end: its mean over the last period (T = 0.001 s) changed by"),
        "%s", out);
    cr_assert(strstr(out,
                     "lp.cir:7:1: warning: .meas vmax: v(out) is not in periodic steady state"),
              "%s", out);
    free(out);
    snprintf(text, sizeof text, fmt, "30m", "29m", "30m");
    cr_assert_eq(tu_write_file(path, text), 0);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(!strstr(out, "steady state"), "%s", out);
    double v;
    const char *p = strstr(out, "vavg = ");
    cr_assert(p && sscanf(p + 7, "%lf", &v) == 1, "%s", out);
    cr_assert(fabs(v - 0.5) < 1e-3, "vavg = %g", v);
    free(out);
}

/* Comparisons, && || ! and ?: in PARAM= (1 true, 0 false; SPICE's strict < >
 * at a tie), LTspice's `PARAM expr` without '=', and a name measured twice:
 * each measured in order, a later PARAM reading the last of the name (issue 28
 * item 3). On the triangle: avgv = 1, mx = 2. */
Test(meas, param_conditions_and_names_measured_twice)
{
    const expect x[] = {
        { ".meas tran avgv AVG v(a)", 1 },
        { ".meas tran mx MAX v(a)", 2 },
        { ".meas tran c1 PARAM='avgv > 0.5 ? 10 : 20'", 10 },
        { ".meas tran c2 PARAM='avgv < 1 ? 10 : 20'", 20 },
        { ".meas tran c3 param='avgv >= 1 && mx == 2'", 1 },
        { ".meas tran c4 param='avgv != 1 || !(mx <= 1)'", 1 },
        { ".meas tran c5 param='(avgv > 2) + (mx > 1)*2 + (1 ? 4 : 8)'", 6 },
        { ".meas tran lt PARAM 'mx/4'", 0.5 },
        { ".meas tran lt2 PARAM {mx*two}", 4 },
        { ".meas tran dup AVG v(b)", 3 },
        { ".meas tran early PARAM='dup'", 6 }, /* the last dup, measured after it */
        { ".meas tran dup MAX v(a) from=0.25 to=0.75", 1.5 },
        { ".meas tran dup PARAM='dup*4'", 6 }, /* its own name: the dup before it (1.5) */
        { ".meas tran fromto TRIG v(a) VAL=1.5 RISE=1 TARG v(a) VAL=1.5 FALL=1 FROM=2", 0.5 },
    };
    check(x, sizeof x / sizeof x[0]);
}

/* The same forms through the program against ngspice 39 on an RC low-pass
 * (tau = 100 us) fed a 1 kHz pulse: `ngspice -b` on this netlist with
 * `.control / run / .endc` added prints tr = -8.613708e-04 (FROM= TO= apply
 * to TRIG and TARG: trig 2.022132e-03, targ 1.160761e-03), tr0 =
 * 1.386277e-04, vmax = 9.932959e-01, vmax = 9.933416e-01, big = 0, cmp = 0,
 * which = 6.79357e-03, vmax = 6.793567e-03, which2 = 6.79357e-03, in this
 * order (`which` reads the last vmax, measured after it). ngspice 39 refuses
 * `PARAM expr` without '=' (LTspice's form): half = vmax / 2 exactly. */
Test(meas, ngspice_measures_names_twice_and_conditions)
{
    char path[1024], cmd[2048], *out = NULL;
    snprintf(path, sizeof path, "%s/m.cir", tmp);
    cr_assert_eq(
        tu_write_file(
            path,
            "meas test\nV1 in 0 PULSE(0 1 0 1u 1u 0.5m 1m)\nR1 in out 1k\nC1 out 0 100n\n.tran 1u 3m\n"
            ".options stepsizelimit\n" /* ngspice's steps (<= TSTEP): values to 1e-4 */
            ".meas tran tr TRIG v(out) VAL=0.2 RISE=1 TARG v(out) VAL=0.8 RISE=1 FROM=1.1m TO=2.9m\n"
            ".meas tran tr0 TRIG v(out) VAL=0.2 RISE=1 TARG v(out) VAL=0.8 RISE=1\n"
            ".meas tran vmax MAX v(out) FROM=0 TO=1m\n.meas tran vmax MAX v(out) FROM=1m TO=3m\n"
            ".meas tran big PARAM='vmax > 0.9 ? 1 : 0'\n.meas tran cmp param='vmax >= 0.99 && tr0 < 1m'\n"
            ".meas tran which PARAM='vmax'\n.meas tran vmax MIN v(out) FROM=1m TO=3m\n.meas tran which2 PARAM='vmax'\n"
            ".meas tran half PARAM vmax/2\n.end\n"),
        0);
    snprintf(cmd, sizeof cmd, "cd %s && %s m.cir 2>&1", tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    const char *name[] = { "tr",  "tr0",   "vmax", "vmax",   "big",
                           "cmp", "which", "vmax", "which2", "half" };
    const double ng[] = { -8.613708e-04, 1.386277e-04, 9.932959e-01, 9.933416e-01,    0, 0,
                          6.79357e-03,   6.793567e-03, 6.79357e-03,  6.793567e-03 / 2 };
    const char *p = out;
    for (int k = 0; k < 10; k++) {
        char key[32];
        snprintf(key, sizeof key, "%s = ", name[k]);
        const char *q = strstr(p, key);
        while (q && q > out && q[-1] != '\n') q = strstr(q + 1, key);
        cr_assert(q, "no '%s' after the measures before it in\n%s", key, out);
        double v = strtod(q + strlen(key), NULL);
        cr_expect(fabs(v - ng[k]) <= 1e-4 * fabs(ng[k]), "%s = %.9g, ngspice %.9g", name[k], v,
                  ng[k]);
        p = q + strlen(key);
    }
    free(out);
}

/* vmax = max v(b) over 1m..3m of the SIN into RC below: ngspice 39 8.465880e-01 */
static void expect_vmax(const char *out)
{
    const char *q = strstr(out, "vmax = ");
    cr_assert(q, "%s", out);
    double v = strtod(q + 7, NULL);
    cr_expect(fabs(v - 8.465880e-01) <= 1e-4 * 8.465880e-01, "vmax = %.9g, ngspice 8.465880e-01",
              v);
}

/* An option a measure's form does not take fails that measure alone, as in
 * ngspice 39: `ngspice -b` on this netlist (without the .options line, with
 * `.control / run / .endc`) prints ".meas tran vbad ... failed!" for vbad,
 * vbad2 and tr ("no such parameter as 'extra'", "equal sign missing ?", "no
 * such parameter as 'minus'") and vmax = 8.465880e-01. A known option the form
 * has no use for (VAL= on AVG) is ignored, the measure made (ngspice measures
 * vavg; its 0.4695 is over 1m..1.507306m, a window ending at its own time point:
 * checked here against the closed form of the steady state instead, A sin(wt+ph),
 * A = 1/sqrt(1 + (wRC)^2), ph = -atan(wRC), averaged over 1m..1.5m: 0.456429;
 * the start's e^(-t/RC) term is e^-10 there). Before, the first of these
 * measures stopped the run (exit 1) while `.meas ac` warned and went on. */
Test(meas, unsupported_option_skips_that_measure_only)
{
    char path[1024], cmd[2048], *out = NULL;
    snprintf(path, sizeof path, "%s/mo.cir", tmp);
    cr_assert_eq(tu_write_file(path, "meas option\nV1 a 0 SIN(0 1 1k)\nR1 a b 1k\nC1 b 0 100n\n"
                                     ".tran 10u 3m\n.options stepsizelimit\n"
                                     ".meas tran vmax max v(b) from=1m to=3m\n"
                                     ".meas tran vbad avg v(b) from=1m to=2m extra=3\n"
                                     ".meas tran vavg avg v(b) from=1m to=1.5m val=1\n"
                                     ".meas tran vbad2 avg v(b) from=1m bogus\n"
                                     ".meas tran tr when v(b)=0.2 rise=2 minus=1\n.end\n"),
                 0);
    snprintf(cmd, sizeof cmd, "cd %s && %s mo.cir 2>&1", tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "mo.cir:8:40: warning: .meas vbad not measured: unsupported option "
                          "'extra' (this form takes from=, to=, td=)"),
              "%s", out);
    cr_assert(strstr(out, "mo.cir:10:35: warning: .meas vbad2 not measured: unsupported option "
                          "'bogus'"),
              "%s", out);
    cr_assert(strstr(out, "mo.cir:11:36: warning: .meas tr not measured: unsupported option "
                          "'minus' (this form takes from=, to=, td=, rise=, fall=, cross=)"),
              "%s", out);
    cr_assert(!strstr(out, "vbad =") && !strstr(out, "vbad2 =") && !strstr(out, "tr ="), "%s", out);
    expect_vmax(out);
    const char *q;
    double v;
    cr_assert(strstr(out, "mo.cir:9:42: warning: option 'val' of .meas vavg ignored"), "%s", out);
    q = strstr(out, "vavg = ");
    cr_assert(q, "%s", out);
    v = strtod(q + 7, NULL);
    cr_expect(fabs(v - 0.456429) <= 1e-3 * 0.456429, "vavg = %.9g, closed form 0.456429", v);
    free(out);
}

/* rev8's findings on the skip above: an unknown option after TARG stopped the
 * run (exit 1: "unexpected 'extra'") while one after TRIG was skipped; a
 * param= naming a skipped measure stopped it ("unknown name 'a' ... nor an
 * earlier measure"); TD without its value was called unsupported. ngspice 39
 * fails each of these measures and measures the rest (vmax as above). */
Test(meas, skipped_measure_after_targ_or_used_by_a_param)
{
    char path[1024], cmd[2048], *out = NULL;
    snprintf(path, sizeof path, "%s/ms.cir", tmp);
    cr_assert_eq(tu_write_file(path,
                               "meas skip\nV1 a 0 SIN(0 1 1k)\nR1 a b 1k\nC1 b 0 100n\n"
                               ".tran 10u 3m\n.options stepsizelimit\n"
                               ".meas tran c trig v(b) val=0.2 rise=2 targ v(b) val=0.4 rise=2 "
                               "extra=2\n"
                               ".meas tran a avg v(b) extra=3\n"
                               ".meas tran pa param='a*2'\n"
                               ".meas tran pb param='pa+1'\n"
                               ".meas tran k max v(b) td\n"
                               ".meas tran vmax max v(b) from=1m to=3m\n.end\n"),
                 0);
    snprintf(cmd, sizeof cmd, "cd %s && %s ms.cir 2>&1", tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "ms.cir:7:64: warning: .meas c not measured: unsupported option 'extra'"),
              "%s", out);
    cr_assert(strstr(out, "warning: .meas pa not measured: it uses .meas a, which is not measured"),
              "%s", out);
    cr_assert(strstr(out,
                     "warning: .meas pb not measured: it uses .meas pa, which is not measured"),
              "%s", out);
    cr_assert(strstr(out, "ms.cir:11:23: warning: .meas k not measured: option 'td' without its "
                          "value"),
              "%s", out);
    cr_assert(!strstr(out, "c =") && !strstr(out, "pa =") && !strstr(out, "k ="), "%s", out);
    expect_vmax(out);
    free(out);
}

/* rev8's L2: an option given twice in one measure (FROM, TO) or one TRIG/TARG/
 * WHEN part (TD, VAL, RISE/FALL/CROSS) was taken silently, the last winning.
 * ngspice 39 (`ngspice -b` on this netlist with `.control / run / .endc`) takes
 * the last too, without a word: vmax = 8.465880e-01 (from=1m, as vmax above),
 * tr = 1.12726e-03 (rise=2), dl = -9.812019e-04 (trig's td=1m). The same values
 * here, and a warning at each repeated option naming the value kept. */
Test(meas, option_given_twice_last_wins_with_a_warning)
{
    char path[1024], cmd[2048], *out = NULL;
    snprintf(path, sizeof path, "%s/md.cir", tmp);
    cr_assert_eq(tu_write_file(path, "meas twice\nV1 a 0 SIN(0 1 1k)\nR1 a b 1k\nC1 b 0 100n\n"
                                     ".tran 10u 3m\n.options stepsizelimit\n"
                                     ".meas tran vmax max v(b) from=0.2m to=3m from=1m\n"
                                     ".meas tran tr when v(b)=0.2 rise=1 fall=1 rise=2\n"
                                     ".meas tran dl trig v(b) val=0.2 td=0 td=1m rise=1 targ v(b) "
                                     "val=0.4 rise=1\n.end\n"),
                 0);
    snprintf(cmd, sizeof cmd, "cd %s && %s md.cir 2>&1", tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    static const char *const warn[] = {
        "md.cir:7:42: warning: .meas vmax: from given twice; the last, from=0.001, is used",
        "md.cir:8:36: warning: .meas tr: rise/fall/cross given twice; the last, fall=1, is used",
        "md.cir:8:43: warning: .meas tr: rise/fall/cross given twice; the last, rise=2, is used",
        "md.cir:9:38: warning: .meas dl: td given twice; the last, td=0.001, is used"
    };
    for (int k = 0; k < 4; k++) cr_expect(strstr(out, warn[k]), "no '%s' in\n%s", warn[k], out);
    expect_vmax(out);
    static const char *const name[] = { "tr = ", "dl = " };
    const double ng[] = { 1.12726e-03, -9.812019e-04 };
    for (int k = 0; k < 2; k++) {
        const char *q = strstr(out, name[k]);
        cr_assert(q, "%s", out);
        double v = strtod(q + 5, NULL);
        cr_expect(fabs(v - ng[k]) <= 1e-4 * fabs(ng[k]), "%s%.9g, ngspice %.9g", name[k], v, ng[k]);
    }
    free(out);
}
