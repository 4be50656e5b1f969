/* test_smooth.c -- B sources with smooth nonlinear functions of the unknowns
 * (issue 27 item 3: products, tanh, exp; solved by Newton inside the one-step
 * problem, solve/onestep_nl.c) on netlists of tests/data/smooth/ against
 * closed forms, ngspice 39 and an independent root finder. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

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
TestSuite(smooth, .init = setup, .fini = teardown);

/* run nscircuit with opts on tests/data/smooth/name into tmp/o.dat and read
 * it into t; *out (when out) the program's stderr and stdout */
static void run(const char *opts, const char *name, tu_table *t, char **out)
{
    char cmd[2048], path[1024], *o = NULL;
    snprintf(path, sizeof path, "%s/o.dat", tmp);
    snprintf(cmd, sizeof cmd, "cd %s && %s %s -o %s %s/smooth/%s 2>&1", tmp, NSC_PROGRAM, opts,
             path, NSC_REFDIR, name);
    int st = tu_run(cmd, &o);
    cr_assert_eq(st, 0, "%s: %s", cmd, o);
    if (out) *out = o;
    else free(o);
    cr_assert_eq(tu_table_read(path, t), 0, "cannot read %s", path);
}

/* The Newton line of --stats: problems, iterations, the most one took, failures */
static void newton_stats(const char *out, long *np, long *nit, int *maxit, long *nfail)
{
    tu_newton n;
    cr_assert(tu_newton_stats(out, &n), "%s", out);
    *np = n.np, *nit = n.nit, *maxit = n.maxit, *nfail = n.nfail;
}

/* A multiplier of two sines, V(p) = V(a) V(b), and a power monitor reading a
 * branch current, V(w) = -V(a) I(V1) = V(a)^2 / 500: with fixed steps the
 * sources' rows hold at every grid point, so the products are their closed
 * forms to round-off; adaptive rows inside a step are the step's quadratic
 * interpolant (2e-6 V). Three Newton iterations per step (the third confirms
 * the second to 1e-9): measured, and bounded here by 4. */
Test(smooth, multiplier_closed_form)
{
    for (int fixed = 0; fixed < 2; fixed++) {
        tu_table t;
        char *out;
        run(fixed ? "--stats --step 1u" : "--stats", "multiplier.cir", &t, &out);
        int cp = tu_table_col(&t, "v(p)"), cw = tu_table_col(&t, "v(w)");
        cr_assert(cp > 0 && cw > 0);
        double tol = fixed ? 1e-11 : 2e-6, emax = 0;
        for (int i = 0; i < t.nrow; i++) {
            double at = TU_AT(&t, i, 0), a = 2 * sin(2 * M_PI * 1e3 * at),
                   b = 0.5 + sin(2 * M_PI * 3e3 * at);
            emax = fmax(emax, fabs(TU_AT(&t, i, cp) - a * b));
            cr_assert(fabs(TU_AT(&t, i, cp) - a * b) < tol, "fixed %d t=%g: v(p) %.12g, a b %.12g",
                      fixed, at, TU_AT(&t, i, cp), a * b);
            cr_assert(fabs(TU_AT(&t, i, cw) - a * a / 500) < tol / 100, "fixed %d t=%g: v(w) %.12g",
                      fixed, at, TU_AT(&t, i, cw));
        }
        if (fixed) cr_assert_eq(t.nrow, 2001);
        cr_assert(emax > 0 || fixed); /* (adaptive: the interpolated rows) */
        long np, nit, nfail;
        int maxit;
        newton_stats(out, &np, &nit, &maxit, &nfail);
        cr_assert(np >= 2000 && nfail == 0 && maxit <= 4 && nit <= 4 * np, "%s",
                  out); /* (2000 steps at most 1 us) */
        free(out);
        tu_table_free(&t);
    }
}

/* A tanh soft limiter into an RC, an exp junction current (IS = 1 pA, 50 mV)
 * behind 1 kOhm, and the product of their voltages (smooth.cir) against
 * ngspice 39 on the same cards (smooth_ng.cir, smooth_ng.txt; reltol 1e-6,
 * 1 us steps): every signal within 1e-4 of its range (RMS; measured 2e-6). */
Test(smooth, tanh_exp_product_vs_ngspice)
{
    char cmd[4096], *out = NULL;
    snprintf(cmd, sizeof cmd,
             "cd %s && %s --quiet -o sm.dat %s/smooth/smooth.cir 2>&1 && %s compare sm.dat "
             "%s/smooth/smooth_ng.txt --tol 1e-4 2>&1",
             tmp, NSC_PROGRAM, NSC_REFDIR, NSC_PROGRAM, NSC_REFDIR);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "PASS: all 4 signals"), "%s", out);
    free(out);
}

/* A steep tanh comparator (10 mV wide, 0 .. 5 V) against 0.3 V driving an RC
 * (comparator.cir) against ngspice 39 on the same cards (comparator_ng.txt):
 * within 1e-3 of range RMS (measured 4.5e-4 for the comparator's output, whose
 * edges are 3 us long; 2.4e-5 for the RC), every edge matched. */
Test(smooth, tanh_comparator_vs_ngspice)
{
    char cmd[4096], *out = NULL;
    snprintf(cmd, sizeof cmd,
             "cd %s && %s --quiet -o c.dat %s/smooth/comparator.cir 2>&1 && %s compare c.dat "
             "%s/smooth/comparator_ng.txt --tol 1e-3 2>&1",
             tmp, NSC_PROGRAM, NSC_REFDIR, NSC_PROGRAM, NSC_REFDIR);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "PASS: all 2 signals"), "%s", out);
    cr_assert(strstr(out, "6/6 at 2.5 V") && strstr(out, "6/6 at 2.454 V"), "%s", out);
    free(out);
}

/* An averaged boost PFC (pfc.cir: the switch's node voltage (1-d) V(out) and
 * diode current (1-d) I(Vs), the multiplier current reference 0.01 V(rect)
 * V(eal), tanh duty and limiter, abs() rectifier as a PWL pair) against ngspice
 * 39 on the same cards (pfc_ng.txt: reltol 1e-6, 1 us steps, a 5 us grid):
 * within 5e-3 of range RMS (measured 1.7e-3 for v(d), 2.4e-4 for i(vs), 1e-4
 * for v(out)), every edge of the line current matched. Newton: 2.60
 * iterations a problem, none unconverged, at most 6 (the start's static
 * problem under UIC). Before, 3 of 10 426 problems did not converge, all of
 * them that static problem: its update limit (onestep_nl.c step_limit) held
 * V(out), which the .ic fixes at 200 V whatever the linearisation, to 1 V a
 * solve, past NSC_NL_MAXIT, so the first try and two stages of source
 * stepping failed (one stage took 41) before it converged. */
Test(smooth, pfc_multiplier_loop_vs_ngspice)
{
    char cmd[4096], *out = NULL;
    snprintf(cmd, sizeof cmd,
             "cd %s && %s --stats -o p.dat %s/smooth/pfc.cir 2>&1 && %s compare p.dat "
             "%s/smooth/pfc_ng.txt --tol 5e-3 2>&1",
             tmp, NSC_PROGRAM, NSC_REFDIR, NSC_PROGRAM, NSC_REFDIR);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "PASS: all 4 signals") && strstr(out, "80/80 at 2.063 A"), "%s", out);
    long np, nit, nfail;
    int maxit;
    newton_stats(out, &np, &nit, &maxit, &nfail);
    cr_expect(nfail == 0 && maxit <= 10 && nit <= 3 * np, "%s", out);
    free(out);
}

/* bisection of f on [a, b] (f(a), f(b) of opposite signs) to 1e-15 s */
static double bisect(double (*f)(double, const double *), const double *p, double a, double b)
{
    double fa = f(a, p);
    for (int k = 0; k < 200 && b - a > 1e-15; k++) {
        double c = 0.5 * (a + b), fc = f(c, p);
        if ((fc < 0) == (fa < 0)) {
            a = c;
            fa = fc;
        } else b = c;
    }
    return 0.5 * (a + b);
}

/* rect_sq.cir: the diode's current while it conducts, C dv_in/dt + K v_in^2 */
static double i_on(double t, const double *p)
{
    double w = 2 * M_PI * 50;
    return 100e-6 * 10 * w * cos(w * t) + 2e-3 * pow(10 * sin(w * t), 2);
}

/* the input minus the free decay v0 / (1 + K/C v0 (t - t0)) from (p[0], p[1]) = (t0, v0) */
static double gap(double t, const double *p)
{
    return 10 * sin(2 * M_PI * 50 * t) - p[1] / (1 + 20 * p[1] * (t - p[0]));
}

/* Both kinds at once: an ideal diode (a complementarity pair) charging 100 uF
 * loaded by a quadratic sink I = K V^2 (a smooth B source), from a 10 V 50 Hz
 * sine. While the diode conducts v = v_in; it stops when its current
 * C v_in' + K v_in^2 falls to 0 (t_off, after the peak), then
 * C v' = -K v^2: v = v0 / (1 + K v0 (t - t_off) / C), until v_in reaches it
 * again (t_on). The located events against t_off, t_on found by bisection
 * (5e-8 s: the located instants are within the stepper's event tolerance),
 * the decay against its closed form from the located turn-off (2e-5 V at
 * h = 20 us; measured 7.8e-6). */
Test(smooth, ideal_diode_with_quadratic_load)
{
    tu_table t;
    run("--quiet --events", "rect_sq.cir", &t, NULL);
    int ci = tu_table_col(&t, "v(in)"), co = tu_table_col(&t, "v(out)");
    cr_assert(ci > 0 && co > 0);
    double toff = bisect(i_on, NULL, 0.25 / 50, 0.5 / 50); /* in (T/4, T/2) */
    int k0 = 0;
    for (int i = 1; i < t.nrow; i++)
        if (fabs(TU_AT(&t, i, 0) - toff) < fabs(TU_AT(&t, k0, 0) - toff)) k0 = i;
    cr_assert(fabs(TU_AT(&t, k0, 0) - toff) < 5e-8, "t_off %.12g, row %.12g", toff,
              TU_AT(&t, k0, 0));
    double p[2] = { TU_AT(&t, k0, 0), TU_AT(&t, k0, co) }; /* the decay from the located event */
    double ton = bisect(gap, p, 0.8 / 50, 1.25 / 50);      /* the next rise */
    int checked = 0;
    for (int i = 0; i < t.nrow; i++) {
        double at = TU_AT(&t, i, 0), v = TU_AT(&t, i, co);
        if (i < k0)
            cr_assert(fabs(v - TU_AT(&t, i, ci)) < 1e-9, "t=%g on: %g vs %g", at, v,
                      TU_AT(&t, i, ci));
        else if (i > k0 && at < ton - 1e-7) {
            double want = p[1] / (1 + 20 * p[1] * (at - p[0]));
            cr_assert(fabs(v - want) < 2e-5, "t=%g off: %.9g, closed form %.9g", at, v, want);
            checked++;
        }
    }
    cr_assert(checked > 500, "%d rows", checked);
    int found = 0; /* the turn-on located at t_on */
    for (int i = 1; i < t.nrow; i++) found |= fabs(TU_AT(&t, i, 0) - ton) < 5e-8;
    cr_assert(found, "no row at t_on = %.12g", ton);
    tu_table_free(&t);
}

/* (5 - v) / 1k - IS (exp(v / Vt) - 1), the junction's operating point */
static double op_res(double v, const double *p)
{
    (void)p;
    return (5 - v) / 1e3 - 1e-14 * (exp(v / 0.025) - 1);
}

/* .op of an exp junction behind 1 kOhm from 5 V: Newton from 0 V needs ~200
 * iterations (each gains ~Vt), so it falls back to source stepping; the
 * result against the root found by bisection (1e-9 V). */
Test(smooth, exp_junction_operating_point)
{
    char cmd[2048], path[1024], *out = NULL;
    snprintf(path, sizeof path, "%s/op.cir", tmp);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("exp junction\nV1 s 0 5\nR1 s d 1k\nB1 d 0 I=1e-14*(exp(V(d)/0.025)-1)\n.op\n.end\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cd %s && %s op.cir 2>&1", tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    const char *s = strstr(out, "v(d)");
    double v;
    cr_assert(s && sscanf(s, "v(d) = %lf", &v) == 1, "%s", out);
    double want = bisect(op_res, NULL, 0, 5);
    cr_assert(fabs(v - want) < 1e-9, "v(d) %.12g, root %.12g", v, want);
    free(out);
}

/* E and G POLY of degree 2 and 3 (issue 28 item 8: refused before): the
 * polynomial of poly.cir's cards in SPICE's monomial order (x1^2, x1 x2,
 * x2^2, x1^3, x1^2 x2, ...) against its closed form at every row of a fixed
 * 2 us grid (1e-9), and against ngspice 39 on the same cards (poly_ng.cir,
 * poly_ng.txt: within 1e-4 of range RMS, measured 3.4e-5; ngspice's own rows agree with the
 * closed form to 5e-7 V, which confirms the order). */
Test(smooth, poly_higher_degree)
{
    tu_table t;
    run("--quiet --step 2u", "poly.cir", &t, NULL);
    int ce = tu_table_col(&t, "v(e)"), cg = tu_table_col(&t, "v(g)");
    cr_assert(ce > 0 && cg > 0);
    for (int i = 0; i < t.nrow; i++) {
        double at = TU_AT(&t, i, 0), x1 = 0.2 + sin(2 * M_PI * 1e3 * at),
               x2 = -0.1 + 0.8 * sin(2 * M_PI * 1.7e3 * at);
        double e = 0.1 + x1 + 2 * x2 + 0.5 * x1 * x1 + 0.25 * x1 * x2 - 0.3 * x2 * x2
                   + 0.05 * x1 * x1 * x1 + 0.2 * x1 * x2 * x2 - 0.1 * x2 * x2 * x2;
        double x = x1 - x2, g = 1e3 * (1e-3 + 2e-3 * x + 3e-3 * x * x - 1e-3 * x * x * x);
        cr_assert(fabs(TU_AT(&t, i, ce) - e) < 1e-9, "t=%g: v(e) %.12g, closed form %.12g", at,
                  TU_AT(&t, i, ce), e);
        cr_assert(fabs(TU_AT(&t, i, cg) - g) < 1e-9, "t=%g: v(g) %.12g, closed form %.12g", at,
                  TU_AT(&t, i, cg), g);
    }
    cr_assert_eq(t.nrow, 1001);
    tu_table_free(&t);
    char cmd[4096], *out = NULL;
    snprintf(cmd, sizeof cmd,
             "cd %s && %s --quiet -o p.dat %s/smooth/poly.cir 2>&1 && %s compare p.dat "
             "%s/smooth/poly_ng.txt --tol 1e-4 2>&1",
             tmp, NSC_PROGRAM, NSC_REFDIR, NSC_PROGRAM, NSC_REFDIR);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "PASS: all 2 signals"), "%s", out);
    free(out);
}

/* (s - v) / 1k - IS (exp(v / Vt) - 1) at source s = p[0] */
static double dc_res(double v, const double *p)
{
    return (p[0] - v) / 1e3 - 1e-14 * (exp(v / 0.025) - 1);
}

/* .dc of the exp junction's source 0 .. 5 V (each point's Newton from the
 * last): every point against its bisected root (1e-9 V). */
Test(smooth, exp_junction_dc_sweep)
{
    char cmd[2048], path[1024], *out = NULL;
    snprintf(path, sizeof path, "%s/dc.cir", tmp);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(
        "exp junction\nV1 s 0 0\nR1 s d 1k\nB1 d 0 I=1e-14*(exp(V(d)/0.025)-1)\n.dc V1 0 5 0.25\n.end\n",
        f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cd %s && %s --quiet -o dc.dat dc.cir 2>&1", tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    free(out);
    tu_table t;
    snprintf(path, sizeof path, "%s/dc.dat", tmp);
    cr_assert_eq(tu_table_read(path, &t), 0);
    int cd = tu_table_col(&t, "v(d)");
    cr_assert(cd > 0 && t.nrow == 21);
    for (int i = 0; i < t.nrow; i++) {
        double p[1] = { TU_AT(&t, i, 0) }, want = bisect(dc_res, p, 0, 5 + 1e-9);
        cr_assert(fabs(TU_AT(&t, i, cd) - want) < 1e-9, "V1 = %g: v(d) %.12g, root %.12g", p[0],
                  TU_AT(&t, i, cd), want);
    }
    tu_table_free(&t);
}

/* .ac of a multiplier V(a) V(b) and of tanh(V(a)) at the operating point
 * V(a) = 0.5, V(b) = 2: their tangents, gains 2 (6.0206 dB) and
 * 1 - tanh(0.5)^2 (-2.0866 dB), phase 0. Before the smooth functions were
 * linearised at the operating point the .ac saw them as constants (-inf dB). */
Test(smooth, ac_gain_at_operating_point)
{
    char cmd[2048], path[1024], *out = NULL;
    snprintf(path, sizeof path, "%s/ac.cir", tmp);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(
        "gains\nV1 a 0 DC 0.5 AC 1\nV2 b 0 2\nB1 p 0 V=V(a)*V(b)\nR1 p 0 1k\nB2 q 0 V=tanh(V(a))\nR2 q 0 1k\n"
        ".ac dec 1 1k 10k\n.end\n",
        f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cd %s && %s --quiet -o ac.dat ac.cir 2>&1", tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    free(out);
    tu_table t;
    snprintf(path, sizeof path, "%s/ac.dat", tmp);
    cr_assert_eq(tu_table_read(path, &t), 0);
    int cp = tu_table_col(&t, "vdb(p)"), cq = tu_table_col(&t, "vdb(q)"),
        pp = tu_table_col(&t, "vp(p)");
    cr_assert(cp > 0 && cq > 0 && pp > 0 && t.nrow == 2);
    for (int i = 0; i < t.nrow; i++) {
        cr_assert(fabs(TU_AT(&t, i, cp) - 20 * log10(2)) < 1e-9, "%.12g", TU_AT(&t, i, cp));
        cr_assert(fabs(TU_AT(&t, i, cq) - 20 * log10(1 - tanh(0.5) * tanh(0.5))) < 1e-9, "%.12g",
                  TU_AT(&t, i, cq));
        cr_assert(fabs(TU_AT(&t, i, pp)) < 1e-12);
    }
    tu_table_free(&t);
}

/* A smooth function that is not finite where the circuit sits (sqrt of -1 V)
 * is a simulation failure (exit 3) naming the source's unknown and the
 * Newton iteration, not a NaN waveform (its first version named no device and
 * printed an uninitialised residual). */
Test(smooth, not_finite_function_is_an_error)
{
    char cmd[2048], path[1024], *out = NULL;
    snprintf(path, sizeof path, "%s/neg.cir", tmp);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(
        "sqrt of a negative voltage\nV1 b 0 -1\nR1 b 0 1k\nB1 a 0 V=sqrt(V(b))\nR2 a 0 1k\n.tran 1u 10u\n.end\n",
        f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cd %s && %s --quiet neg.cir 2>&1", tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 3, "%s", out);
    cr_assert(strstr(out, "error: time 0 s: the one-step problem")
                  && strstr(out, "the Newton iteration of its smooth")
                  && strstr(out, "devices: i(b1)#1; residual 0"),
              "%s", out);
    free(out);
}
