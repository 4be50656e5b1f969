/* test_circuits.c -- suite `circuits`: the netlists of netlists/ end to end, as a
 * user would check them (output voltages and ripples, switching periods, current
 * directions, inverter delays), and against ngspice on the same netlist or its
 * SPICE twin (netlists/spice/, see its README) when ngspice is installed.
 *
 * ngspice runs on a copy of the netlist whose .save/.print/.control lines are
 * dropped and whose .end is preceded by a .control block writing the waveforms
 * (wrdata). nscircuit's rows are compared with ngspice's waveform interpolated
 * at their times (ngspice's adaptive steps cluster at the switching events).
 * Errors are relative to the ngspice waveform's range. Run times are logged. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

TestSuite(circuits, .init = setup, .fini = teardown);

#define AT(t, r, c) TU_AT(t, r, c)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* nscircuit on netlist (path relative to netlists/ unless absolute) with extra
 * options and a --save list; returns the wall time. */
static double run_nsc(const char *netlist, const char *opts, const char *save, tu_table *t)
{
    char cmd[4096], path[1024], out[1024];
    if (netlist[0] == '/') snprintf(path, sizeof path, "%s", netlist);
    else snprintf(path, sizeof path, "%s/%s", NSC_NETLISTS, netlist);
    snprintf(out, sizeof out, "%s/nsc.dat", tmp);
    snprintf(cmd, sizeof cmd, "%s --quiet %s --save '%s' -o %s %s 2>&1", NSC_PROGRAM, opts, save,
             out, path);
    char *msg = NULL;
    double t0 = now();
    int st = tu_run(cmd, &msg);
    double dt = now() - t0;
    cr_assert_eq(st, 0, "nscircuit failed (%d): %s\n%s", st, cmd, msg);
    free(msg);
    cr_assert_eq(tu_table_read(out, t), 0, "cannot read %s", out);
    cr_log_info("nscircuit %s %s: %.2f s", netlist, opts, dt);
    return dt;
}

static int have_ngspice(void)
{
    return system("command -v ngspice > /dev/null 2>&1") == 0;
}

#define NEED_NGSPICE() \
    do { \
        if (!have_ngspice()) cr_skip_test("ngspice is not installed (.ci/run installs it)"); \
    } while (0)

/* ngspice on netlist with vecs written by wrdata: t columns time, vecs... */
static double run_ng(const char *netlist, const char *vecs, tu_table *t)
{
    char path[1024], ng[1024], out[1024], cmd[4096];
    if (netlist[0] == '/') snprintf(path, sizeof path, "%s", netlist);
    else snprintf(path, sizeof path, "%s/%s", NSC_NETLISTS, netlist);
    snprintf(ng, sizeof ng, "%s/ng.cir", tmp);
    snprintf(out, sizeof out, "%s/ng.dat", tmp);
    char *text = tu_read_file(path);
    cr_assert_not_null(text, "cannot read %s", path);
    FILE *f = fopen(ng, "w");
    cr_assert_not_null(f);
    int skip = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char low[16] = "";
        size_t k = 0;
        while (line[k] && k < sizeof low - 1) {
            low[k] = (char)(line[k] >= 'A' && line[k] <= 'Z' ? line[k] + 32 : line[k]);
            k++;
        }
        low[k] = 0;
        if (!strncmp(low, ".control", 8)) skip = 1;
        int drop = skip || !strncmp(low, ".save", 5) || !strncmp(low, ".print", 6)
                   || !strncmp(low, ".end", 4);
        if (!strncmp(low, ".endc", 5)) skip = 0;
        if (!strncmp(low, ".ends", 5)) drop = 0;
        if (!drop) fprintf(f, "%s\n", line);
    }
    fprintf(f, ".control\nset wr_singlescale\nrun\nwrdata %s %s\n.endc\n.end\n", out, vecs);
    fclose(f);
    free(text);
    snprintf(cmd, sizeof cmd, "cd %s && ngspice -b ng.cir > ng.log 2>&1", tmp);
    double t0 = now();
    tu_run(cmd, NULL); /* ngspice -b exits 1 even when it ran */
    double dt = now() - t0;
    char logp[1024];
    snprintf(logp, sizeof logp, "%s/ng.log", tmp);
    char *log = tu_read_file(logp);
    int bad = tu_table_read(out, t) != 0 || t->nrow < 10;
    cr_assert(!bad, "ngspice failed on %s:\n%s", path, log ? log : "(no log)");
    free(log);
    cr_log_info("ngspice %s: %.2f s, %d points", netlist, dt, t->nrow);
    return dt;
}

static int col(const tu_table *t, const char *name)
{
    int c = tu_table_col(t, name);
    cr_assert(c > 0, "no column %s", name);
    return c;
}

/* Our column co against the reference column cr on our rows in [t0, t1]: max and
 * rms of the difference relative to the reference's range there. */
typedef struct cmp {
    double max, rms, range;
} cmp;
static cmp compare(const char *what, const tu_table *ours, int co, const tu_table *ref, int cr,
                   double t0, double t1)
{
    double lo = INFINITY, hi = -INFINITY, e2 = 0, em = 0;
    int n = 0;
    for (int i = 0; i < ours->nrow; i++) {
        double t = AT(ours, i, 0);
        if (t < t0 || t > t1) continue;
        double r = tu_interp(ref, cr, t), d = AT(ours, i, co) - r;
        lo = fmin(lo, r);
        hi = fmax(hi, r);
        em = fmax(em, fabs(d));
        e2 += d * d;
        n++;
    }
    cr_assert(n > 0);
    cmp c = { em / (hi - lo), sqrt(e2 / n) / (hi - lo), hi - lo };
    cr_log_info("%s: max %.2e, rms %.2e of the range %.4g", what, c.max, c.rms, c.range);
    return c;
}

/* Time average (trapezoid), min and max of column c over [t0, t1]. */
typedef struct wstat {
    double avg, min, max;
} wstat;
static wstat stats(const tu_table *t, int c, double t0, double t1)
{
    wstat s = { 0, INFINITY, -INFINITY };
    double area = 0, ta = NAN, va = 0, first = NAN, last = 0;
    for (int i = 0; i < t->nrow; i++) {
        double ti = AT(t, i, 0), v = AT(t, i, c);
        if (ti < t0 || ti > t1) continue;
        if (!isnan(ta)) area += 0.5 * (ti - ta) * (v + va);
        if (isnan(first)) first = ti;
        last = ti;
        ta = ti;
        va = v;
        s.min = fmin(s.min, v);
        s.max = fmax(s.max, v);
    }
    s.avg = area / (last - first);
    return s;
}

/* Crossings of level by column c in direction dir (+1 up, -1 down) in [t0, t1]. */
static int crossings(const tu_table *t, int c, double level, int dir, double t0, double t1,
                     double *x, int max)
{
    int n = 0;
    for (int i = 1; i < t->nrow && n < max; i++) {
        double ta = AT(t, i - 1, 0), tb = AT(t, i, 0);
        if (tb < t0 || ta > t1) continue;
        double a = AT(t, i - 1, c) - level, b = AT(t, i, c) - level;
        if ((a < 0) != (b < 0) && (dir > 0) == (b > a)) x[n++] = ta + (tb - ta) * (-a) / (b - a);
    }
    return n;
}

/* ================= rectifiers ================= */

/* Half-wave rectifier: ideal diode against the twin's near-ideal one (8 mV drop on
 * 10 V: 0.1 % of the range; the capacitor current peaks make the conduction
 * angle differ by a few samples: 0.5 % max). */
Test(circuits, halfwave_vs_ngspice)
{
    NEED_NGSPICE();
    tu_table o, n;
    run_nsc("halfwave.cir", "", "v(out),i(d1)", &o);
    run_ng("spice/halfwave.cir", "v(out)", &n);
    cmp c = compare("halfwave v(out)", &o, col(&o, "v(out)"), &n, 1, 0, 60e-3);
    cr_assert(c.max < 5e-3 && c.rms < 2e-3);
    for (int i = 0; i < o.nrow; i++)
        cr_assert(AT(&o, i, col(&o, "i(d1)")) >= -1e-12, "diode current reversed");
    tu_table_free(&o);
    tu_table_free(&n);
}

/* Bridge with an output capacitor: the load current never reverses, the output is
 * never below |v(a,b)| (ideal diodes clamp it), the filter holds it above 40 % of
 * the last peak where the tank voltage crosses zero (an unfiltered bridge gives 0
 * there), and the first step shares the
 * charge of C1 (10 V) with Cf (0 V): 10 C1/(C1 + Cf) = 7.69 V (inconsistent UIC:
 * an impulsive current). Against the twin from 2 us on (ngspice resolves the
 * impulse in its first 10 ns): two 8 mV diode drops on 7-14 V, 0.3 % of range. */
Test(circuits, rectifier_capfilter)
{
    tu_table o;
    run_nsc("rectifier_capfilter.cir", "", "v(a,b),v(p),i(l1),i(r1),i(cf)", &o);
    int cp = col(&o, "v(p)"), cr = col(&o, "i(r1)");
    for (int i = 0; i < o.nrow; i++)
        cr_assert(AT(&o, i, cr) >= -1e-12, "load current reversed at row %d", i);
    cr_assert_float_eq(AT(&o, 1, cp), 10.0 / 1.3, 1e-2); /* less what R1 took in 1 us: 6 mV */
    int cab = col(&o, "v(a,b)");
    for (int i = 1; i < o.nrow; i++)
        cr_assert(AT(&o, i, cp) >= fabs(AT(&o, i, cab)) - 1e-9, "row %d", i);
    double zc[32], zd[32];
    int nz = crossings(&o, cab, 0.0, +1, 0, 3e-3, zc, 16),
        nzd = crossings(&o, cab, 0.0, -1, 0, 3e-3, zd, 16);
    memcpy(zc + nz, zd, sizeof(double) * (size_t)nzd);
    nz += nzd;
    cr_assert(nz >= 6);
    for (int k = 0; k < nz; k++) {
        double peak = 0, vp = 0;
        for (int i = 0; i < o.nrow && AT(&o, i, 0) <= zc[k]; i++)
            if (AT(&o, i, 0) > zc[k] - 0.3e-3)
                peak = fmax(peak, fabs(AT(&o, i, cab))); /* the half-wave before */
        for (int i = 0; i < o.nrow; i++)
            if (AT(&o, i, 0) >= zc[k]) {
                vp = AT(&o, i, cp);
                break;
            }
        cr_assert(vp > 0.4 * peak, "at %g s the output is %g, the last peak %g", zc[k], vp, peak);
    }
    if (have_ngspice()) {
        tu_table n;
        run_ng("spice/rectifier_capfilter.cir", "v(a,b) v(p) i(l1)", &n);
        cmp a = compare("capfilter v(a,b)", &o, col(&o, "v(a,b)"), &n, 1, 2e-6, 5e-3);
        cmp b = compare("capfilter v(p)", &o, cp, &n, 2, 2e-6, 5e-3);
        cmp c = compare("capfilter i(l1)", &o, col(&o, "i(l1)"), &n, 3, 2e-6, 5e-3);
        cr_assert(a.max < 5e-3 && b.max < 5e-3 && c.max < 5e-3);
        tu_table_free(&n);
    }
    tu_table_free(&o);
}

/* ================= parallel resonant converter ================= */

/* The design documents' PRC, 2 ms at h = 50 ns. The output filter current flows
 * one way (rectified), the output settles near 0.62 V. Against ngspice: (a) the
 * ideal-diode netlist against the twin: two 8 mV drops on a 0.62 V output, 2.6 %:
 * max 3 %, rms 1 %; (b) nscircuit on the twin itself (the same diode: nscircuit
 * fits VF = 8.0 mV, RON = 2.2 mOhm to it, error < 0.3 mV): the difference is the
 * integration error of both codes. Measured against a tight ngspice run (RELTOL
 * 1e-5, 5 ns steps): ngspice's default run is off by 0.64 % of the range, ours by
 * 0.55 % at h = 50 ns (0.11 % at 10 ns): max 1 %, rms 0.5 %. */
Test(circuits, prc)
{
    tu_table o;
    run_nsc("prc.cir", "", "v(a),i(lr),i(lf),v(out,n)", &o);
    int clf = col(&o, "i(lf)"), cv = col(&o, "v(out,n)");
    for (int i = 0; i < o.nrow; i++)
        cr_assert(AT(&o, i, clf) >= -1e-9, "i(lf) reversed at row %d", i);
    wstat s = stats(&o, cv, 1.8e-3, 2e-3);
    cr_log_info("PRC output over the last 0.2 ms: %.4f V (ripple %.2g V)", s.avg, s.max - s.min);
    cr_assert(s.avg > 0.55 && s.avg < 0.7, "output %g", s.avg);
    if (!have_ngspice()) cr_skip_test("ngspice is not installed (.ci/run installs it)");
    tu_table n, tw;
    run_ng("spice/prc.cir", "v(a) i(lr) i(lf) v(out,n)", &n);
    const char *names[] = { "v(a)", "i(lr)", "i(lf)", "v(out,n)" };
    for (int k = 0; k < 4; k++) {
        cmp c = compare(names[k], &o, col(&o, names[k]), &n, k + 1, 0, 2e-3);
        cr_assert(c.max < 0.03 && c.rms < 0.01, "%s: ideal vs twin", names[k]);
    }
    run_nsc("spice/prc.cir", "--tstop 2m", "v(a),i(lr),i(lf),v(out,n)", &tw);
    for (int k = 0; k < 4; k++) {
        cmp c = compare(names[k], &tw, col(&tw, names[k]), &n, k + 1, 0, 2e-3);
        cr_assert(c.max < 0.01 && c.rms < 5e-3, "%s: twin vs twin", names[k]);
    }
    tu_table_free(&o);
    tu_table_free(&n);
    tu_table_free(&tw);
}

/* The smallest adaptive step of nscircuit --stats on netlist (relative to
 * netlists/), from its "adaptive steps from H to ..." line. */
static double smallest_step(const char *netlist)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s --stats -o %s/stats.dat %s/%s 2>&1", NSC_PROGRAM, tmp,
             NSC_NETLISTS, netlist);
    char *msg = NULL;
    cr_assert_eq(tu_run(cmd, &msg), 0, "%s", msg ? msg : "");
    const char *p = msg ? strstr(msg, "adaptive steps from ") : NULL;
    double h = NAN;
    cr_assert(p && sscanf(p, "adaptive steps from %lg", &h) == 1, "no step line:\n%s", msg);
    free(msg);
    return h;
}

/* The PRC's diode current at every row. Twice a period the resonant capacitor
 * slides at 0 V with all four diodes on while |i(lr)| < i(lf) (the bridge's
 * loop current free). Before the fix the vertex mode there (three diodes on)
 * was rejected for y = -1.2e-21 V, the all-on mode is singular, and pivoting on
 * the dense M (1/gmin of the floating output in it) left y 6.5e-7 V off: every
 * diode chattered on steps down to 1.4e-14 s, 4 rows had i(d1) < 0 (down to
 * -0.59 mA), 196 had i(d1) above i(lf) (by up to 19.6 mA), i(d1) was 2.28 % RMS
 * of its range off fixed steps. Now: i(d1) >= 0 (to round-off); D1 carries at
 * most the filter's current (i(lf) = i(d1) + i(d2), i(d2) >= 0; 1e-4 of its
 * range: the step's mean multiplier beside a state, 1.2e-6 A measured); steps
 * of at least 1e-12 s (2.57e-12 s); and against the fixed-step theta-scheme at
 * 0.5 ns (no event location, extrapolation or interpolated rows; it stopped at
 * 12.27 us on a pair check before the fix), on its 200 ns rows: the states
 * within 2e-4 RMS of their ranges (3e-5..6e-5), i(d1) within 1 % (0.60 %; the
 * run at 1 ns is 0.40 % off the 0.5 ns one: a row next to a commutation takes
 * a jump of i(d1), and in a sliding window the two runs may carry the loop
 * current on different diodes). */
Test(circuits, prc_diode_current_within_the_filter_current, .timeout = 300)
{
    tu_table o, f;
    const char *save = "v(a),i(lr),i(lf),v(out,n),i(d1)";
    run_nsc("prc.cir", "", save, &o);
    int cd = col(&o, "i(d1)"), cl = col(&o, "i(lf)");
    double tol = 1e-4 * 0.0392; /* of i(lf)'s range, 39.2 mA */
    for (int i = 0; i < o.nrow; i++) {
        double d = AT(&o, i, cd), lf = AT(&o, i, cl);
        cr_assert(d >= -1e-12, "i(d1) = %g A < 0 at t = %.10g s", d, AT(&o, i, 0));
        cr_assert(d <= lf + tol, "i(d1) = %g A above i(lf) = %g A at t = %.10g s", d, lf,
                  AT(&o, i, 0));
    }
    double h = smallest_step("prc.cir");
    cr_log_info("PRC smallest step %.3g s", h);
    cr_assert(h >= 1e-12, "steps down to %g s", h);
    run_nsc("prc.cir", "--step 0.5n", save, &f);
    const char *names[] = { "v(a)", "i(lr)", "i(lf)", "v(out,n)", "i(d1)" };
    for (int k = 0; k < 5; k++) { /* the fixed run's rows, ours interpolated */
        cmp c = compare(names[k], &f, col(&f, names[k]), &o, col(&o, names[k]), 0, 2e-3);
        cr_assert(c.rms < (k < 4 ? 2e-4 : 1e-2), "%s: %.3g RMS of the range", names[k], c.rms);
    }
    tu_table_free(&o);
    tu_table_free(&f);
}

/* ================= buck converter ================= */

/* The buck with its PWM loop, h = 50 ps, cut to 150 us (3e6 steps, a few seconds;
 * the full 200 us run is in the note): the reference ramp ends at 100 us, the
 * output must then regulate to 1.8 V. Checks: the switching period (rising edges
 * of v(sw)) is the ramp's 1.6667 us, the duty cycle (v(sw) high) is about 1.8/3
 * plus the channel drops (0.1 Ohm at 0.18 A), the inductor ripple is (Vin - Vout) D T/L = 0.12 A, v(out)
 * averages 1.8 V within 2 mV at 150 us. Against the twin (square-law MOS, a 2 mV
 * comparator zone, smooth body diodes): the on-resistance differs by the table's
 * slope at 1 V overdrive (3 %: 0.5 mV at 0.18 A), so v(out) within 1 mV, i(l1)
 * and v(ea) within 1 % / 2 % of their ranges. */
Test(circuits, buck)
{
    tu_table o;
    run_nsc("buck.cir", "--tstop 150u", "v(out),i(l1),v(sw),v(ea)", &o);
    int cvo = col(&o, "v(out)"), cil = col(&o, "i(l1)"), csw = col(&o, "v(sw)");
    double T = 1.6667e-6, t0 = 150e-6 - 6 * T;
    wstat v = stats(&o, cvo, t0, 150e-6), il = stats(&o, cil, t0, 150e-6);
    double up[8], dn[8];
    int nu = crossings(&o, csw, 1.5, +1, t0, 150e-6, up, 8),
        nd = crossings(&o, csw, 1.5, -1, t0, 150e-6, dn, 8);
    cr_assert(nu >= 3 && nd >= 3);
    double duty = (dn[1] > up[1] ? dn[1] - up[1] : dn[2] - up[1]) / T,
           ripple = (3.0 - v.avg) * duty * T / 10e-6;
    cr_log_info(
        "buck at 150 us: v(out) = %.5f V (ripple %.3g mV), duty %.4f, i(l1) %.4f A ripple %.4f A (analytic %.4f)",
        v.avg, 1e3 * (v.max - v.min), duty, il.avg, il.max - il.min, ripple);
    cr_assert(fabs(v.avg - 1.8) < 2e-3, "v(out) = %g", v.avg);
    cr_assert(fabs(il.avg - v.avg / 10) < 2e-3, "i(l1) = %g", il.avg);
    cr_assert(duty > 0.6 && duty < 0.62, "duty %g: 1.8/3 plus the channel drops", duty);
    cr_assert(fabs((il.max - il.min) - ripple) < 0.05 * ripple, "ripple %g vs %g", il.max - il.min,
              ripple);
    double e[16];
    int ne = crossings(&o, csw, 1.5, +1, 110e-6, 150e-6, e,
                       16); /* (one cycle is skipped at 101.7 us, */
                            /* as the reference ramp ends) */
    cr_assert(ne >= 10);
    for (int i = 1; i < ne; i++)
        cr_assert(fabs(e[i] - e[i - 1] - T) < 20e-9, "period %g", e[i] - e[i - 1]);
    if (have_ngspice()) {
        tu_table n;
        char twin[1024];
        snprintf(twin, sizeof twin, "%s/spice/buck.cir", NSC_NETLISTS);
        run_ng(twin, "v(out) i(l1) v(sw) v(ea)", &n);
        cmp a = compare("buck v(out)", &o, cvo, &n, 1, 0, 150e-6);
        cmp b = compare("buck i(l1)", &o, cil, &n, 2, 0, 150e-6);
        cmp c = compare("buck v(ea)", &o, col(&o, "v(ea)"), &n, 4, 0, 150e-6);
        cr_assert(a.max * a.range < 1e-3 && b.max < 0.01 && c.max < 0.02);
        wstat vn = stats(&n, 1, t0, 150e-6);
        cr_assert(fabs(vn.avg - v.avg) < 1e-3, "v(out): %g vs ngspice %g", v.avg, vn.avg);
        tu_table_free(&n);
    }
    tu_table_free(&o);
}

/* ================= converters with switches ================= */

/* The same netlist in both. Over the last switching period: the output average
 * (the diode fitted by 2 segments on 100 mA..10 A, 9 mV at most, ngspice ignoring
 * SEGMENTS/IMIN/IMAX: 2.2e-4 apart; 5.5e-4 with the default 10 mA..1 A line, 0.29 V
 * off at the 3.2 A peak) and ripple (analytic I_out D T/C = 0.189 V; 5 %), the
 * inductor current average. */
Test(circuits, boost)
{
    tu_table o;
    run_nsc("boost.cir", "", "v(out),i(l1),i(d1),i(s1)", &o);
    int cv = col(&o, "v(out)"), ci = col(&o, "i(l1)");
    wstat v = stats(&o, cv, 2.99e-3, 3e-3), il = stats(&o, ci, 2.99e-3, 3e-3);
    double dv = v.avg / 25 * 0.5 * 10e-6 / 10e-6;
    cr_log_info("boost: v(out) %.4f V, ripple %.4f V (analytic %.4f), i(l1) %.4f A", v.avg,
                v.max - v.min, dv, il.avg);
    cr_assert(v.avg > 9.2 && v.avg < 9.7, "v(out) %g: vin/(1 - D) = 10 less the diode drop", v.avg);
    cr_assert(fabs((v.max - v.min) - dv) < 0.05 * dv);
    cr_assert(fabs(il.avg * 5 * 0.97 - v.avg * v.avg / 25) < 0.05 * v.avg * v.avg / 25,
              "power balance");
    for (int i = 0; i < o.nrow; i++)
        cr_assert(AT(&o, i, col(&o, "i(d1)")) >= -1e-9, "diode current reversed");
    if (have_ngspice()) {
        tu_table n;
        run_ng("boost.cir", "v(out) i(l1)", &n);
        wstat vn = stats(&n, 1, 2.99e-3, 3e-3), iln = stats(&n, 2, 2.99e-3, 3e-3);
        cr_log_info("ngspice: v(out) %.4f V, ripple %.4f V, i(l1) %.4f A", vn.avg, vn.max - vn.min,
                    iln.avg);
        cr_assert(fabs(v.avg - vn.avg) < 5e-4 * vn.avg); /* 2.2e-4 (5.5e-4 with the default fit) */
        cr_assert(fabs((v.max - v.min) - (vn.max - vn.min)) < 0.03 * (vn.max - vn.min));
        cr_assert(fabs(il.avg - iln.avg) < 2e-3 * iln.avg);
        tu_table_free(&n);
    }
    tu_table_free(&o);
}

/* Cuk: inverted output. The near-ideal diode is the same in both codes (fit error
 * < 0.3 mV): the whole 10 ms start-up (lightly damped, 17 V swing) within 0.5 %
 * of the range; the output ends near -vin D/(1 - D) = -8 V. */
Test(circuits, cuk)
{
    tu_table o;
    run_nsc("cuk.cir", "", "v(out),i(l1),i(l2)", &o);
    int cv = col(&o, "v(out)");
    wstat v = stats(&o, cv, 9.5e-3, 10e-3);
    cr_log_info("Cuk: v(out) %.4f V over the last 0.5 ms", v.avg);
    cr_assert(v.avg < -7 && v.avg > -8.5, "v(out) = %g", v.avg);
    if (have_ngspice()) {
        tu_table n;
        run_ng("cuk.cir", "v(out) i(l1) i(l2)", &n);
        const char *names[] = { "v(out)", "i(l1)", "i(l2)" };
        for (int k = 0; k < 3; k++) {
            cmp c = compare(names[k], &o, col(&o, names[k]), &n, k + 1, 0, 10e-3);
            cr_assert(c.max < 5e-3 && c.rms < 1e-3, "%s", names[k]);
        }
        tu_table_free(&n);
    }
    tu_table_free(&o);
}

/* Flyback with K = 1: the secondary blocks during the on time (v(s) = -vin) and
 * conducts during the off time; v(out) ~ vin D/(1 - D) = 8 V less 8 mV. Against
 * ngspice (same netlist): the steady output within 0.2 %; the lightly damped
 * start-up within 1 % rms of the range: ngspice itself is not converged there (its
 * run moves by 0.5 % rms when only TSTEP goes from 1 us to 100 ns, and stops with
 * "timestep too small" at RELTOL=1e-5), while ours is the same at h = 10 and 2 ns. */
Test(circuits, flyback)
{
    tu_table o;
    run_nsc("flyback.cir", "", "v(out),i(lp),i(ls),v(s),i(d1)", &o);
    int cv = col(&o, "v(out)"), cs = col(&o, "v(s)"), cd = col(&o, "i(d1)");
    wstat v = stats(&o, cv, 4.99e-3, 5e-3);
    cr_log_info("flyback: v(out) %.4f V, ripple %.4f V", v.avg, v.max - v.min);
    cr_assert(fabs(v.avg - 8.0) < 0.1, "v(out) = %g", v.avg);
    for (int i = 0; i < o.nrow; i++) {
        double t = fmod(AT(&o, i, 0), 10e-6);
        cr_assert(AT(&o, i, cd) >= -1e-9, "diode current reversed");
        if (t > 0.5e-6 && t < 3.5e-6)
            cr_assert(fabs(AT(&o, i, cs) + 12) < 0.05, "v(s) = %g in the on time", AT(&o, i, cs));
    }
    if (have_ngspice()) {
        tu_table n;
        run_ng("flyback.cir", "v(out) i(lp) i(ls)", &n);
        wstat vn = stats(&n, 1, 4.99e-3, 5e-3);
        cr_log_info("ngspice: v(out) %.4f V, ripple %.4f V", vn.avg, vn.max - vn.min);
        cr_assert(fabs(v.avg - vn.avg) < 2e-3 * vn.avg, "%g vs ngspice %g", v.avg, vn.avg);
        cmp a = compare("flyback v(out)", &o, cv, &n, 1, 0, 5e-3);
        cmp b = compare("flyback i(lp)", &o, col(&o, "i(lp)"), &n, 2, 0, 5e-3);
        cr_assert(a.rms < 0.01 && b.rms < 0.01);
        tu_table_free(&n);
    }
    tu_table_free(&o);
}

/* ================= CMOS inverter chain ================= */

/* s with every occurrence of from replaced by to (malloc'd). */
static char *subst(const char *s, const char *from, const char *to)
{
    size_t lf = strlen(from), lt = strlen(to), n = 0;
    for (const char *p = strstr(s, from); p; p = strstr(p + lf, from)) n++;
    char *out = malloc(strlen(s) + n * lt + 1), *o = out;
    for (const char *p; (p = strstr(s, from)); s = p + lf) {
        memcpy(o, s, (size_t)(p - s));
        o += p - s;
        memcpy(o, to, lt);
        o += lt;
    }
    strcpy(o, s);
    return out;
}

/* 50 % crossings of v(n0..n10): per-stage delays. */
static void delays(const tu_table *t, int nst, double *d)
{
    for (int s = 0; s < nst; s++) {
        double a[4], b[4];
        int na = crossings(t, s + 1, 2.5, (s % 2) ? -1 : 1, 0, 20e-9, a, 4);
        int nb = crossings(t, s + 2, 2.5, (s % 2) ? 1 : -1, 0, 20e-9, b, 4);
        cr_assert(na >= 1 && nb >= 1);
        d[s] = b[0] - a[0]; /* first input edge -> output edge */
    }
}

/* The generated 10-stage chain (the committed netlist is the generator's output).
 * Every stage swings rail to rail and inverts. Against ngspice's level-1 square
 * law: the delay is the load charge over the current, which the default table
 * gets within its error, 10 % on [0.1, 3.82] V and 12.4 % at the 4 V overdrive:
 * per-stage delay within 1/(1 - 0.124) - 1 = 14.2 % (16 % allowed), total within
 * 12 %; with SEGMENTS=20 (eps 0.5 %, 0.7 % at 4 V) within 2 % per stage and 1.5 %
 * in total. */
Test(circuits, inverter_chain)
{
    char cmd[2048], gen[1024];
    snprintf(cmd, sizeof cmd, "sh %s/inverter_chain.sh 10", NSC_NETLISTS);
    char *text = NULL, *committed = NULL;
    snprintf(gen, sizeof gen, "%s/inverter_chain.cir", NSC_NETLISTS);
    cr_assert_eq(tu_run(cmd, &text), 0);
    committed = tu_read_file(gen);
    cr_assert(committed && !strcmp(text, committed),
              "inverter_chain.cir is not the generator's output");
    const char *save = "v(n0),v(n1),v(n2),v(n3),v(n4),v(n5),v(n6),v(n7),v(n8),v(n9),v(n10)";
    tu_table o;
    run_nsc("inverter_chain.cir", "", save, &o);
    for (int s = 1; s <= 10; s++) {
        wstat w = stats(&o, s + 1, 0, 20e-9);
        cr_assert(w.min < 1e-3 && w.max > 5 - 1e-3, "stage %d swings %g..%g", s, w.min, w.max);
    }
    double d[10], dn[10], d20[10];
    delays(&o, 10, d);
    /* the fine table */
    char fine[1024];
    snprintf(fine, sizeof fine, "%s/chain20.cir", tmp);
    char *t1 = subst(text, "KP={kpn})", "KP={kpn} SEGMENTS=20)"),
         *t20 = subst(t1, "KP={kpp})", "KP={kpp} SEGMENTS=20)");
    free(t1);
    cr_assert_eq(tu_write_file(fine, t20), 0);
    free(t20);
    tu_table o20;
    run_nsc(fine, "", save, &o20);
    delays(&o20, 10, d20);
    if (have_ngspice()) {
        tu_table n;
        run_ng("inverter_chain.cir",
               "v(n0) v(n1) v(n2) v(n3) v(n4) v(n5) v(n6) v(n7) v(n8) v(n9) v(n10)", &n);
        delays(&n, 10, dn);
        double tot = 0, totn = 0, tot20 = 0;
        for (int s = 0; s < 10; s++) {
            cr_log_info(
                "stage %d: delay %.4f ns (SEGMENTS=20: %.4f), ngspice %.4f ns: %+.1f %% (%+.2f %%)",
                s + 1, 1e9 * d[s], 1e9 * d20[s], 1e9 * dn[s], 100 * (d[s] / dn[s] - 1),
                100 * (d20[s] / dn[s] - 1));
            cr_assert(fabs(d[s] / dn[s] - 1) < 0.16, "stage %d", s + 1);
            cr_assert(fabs(d20[s] / dn[s] - 1) < 0.02, "stage %d (SEGMENTS=20)", s + 1);
            tot += d[s];
            totn += dn[s];
            tot20 += d20[s];
        }
        cr_log_info("chain delay %.4f ns, SEGMENTS=20 %.4f ns, ngspice %.4f ns", 1e9 * tot,
                    1e9 * tot20, 1e9 * totn);
        cr_assert(fabs(tot / totn - 1) < 0.12);
        cr_assert(fabs(tot20 / totn - 1) < 0.015);
        tu_table_free(&n);
    }
    free(text);
    free(committed);
    tu_table_free(&o);
    tu_table_free(&o20);
}

/* A 60-stage chain (1200 pairs): its operating point has M = C A^-1 B full of
 * 1/gmin products along the chain (each output node is tied to ground by gmin
 * only when the capacitors are open), which defeats pivoting; the cold-start
 * active-set iteration settles it stage by stage. Outputs alternate 5/0 V from
 * the low input, and the first edge reaches stage 60 after 60 stage delays. */
Test(circuits, inverter_chain_60_stages)
{
    char cmd[2048], path[1024];
    snprintf(path, sizeof path, "%s/chain60.cir", tmp);
    snprintf(cmd, sizeof cmd, "sh %s/inverter_chain.sh 60 > %s", NSC_NETLISTS, path);
    cr_assert_eq(tu_run(cmd, NULL), 0);
    tu_table o;
    run_nsc(path, "--tstop 30n", "v(n1),v(n2),v(n59),v(n60)", &o);
    cr_assert_float_eq(AT(&o, 0, 1), 5.0, 1e-6);
    cr_assert_float_eq(AT(&o, 0, 2), 0.0, 1e-6);
    cr_assert_float_eq(AT(&o, 0, 3), 5.0, 1e-6);
    cr_assert_float_eq(AT(&o, 0, 4), 0.0, 1e-6);
    double x[2];
    cr_assert_eq(crossings(&o, 4, 2.5, +1, 0, 30e-9, x, 1), 1);
    cr_log_info("stage 60 rises at %.3f ns", 1e9 * x[0]);
    cr_assert(x[0] > 0.55e-9 + 30 * 0.8e-9 && x[0] < 0.55e-9 + 30 * 1.0e-9, "%g",
              x[0]); /* 0.3-0.57 ns a stage */
    tu_table_free(&o);
}

/* The generator: N stages, a usage error for a bad N. */
Test(circuits, inverter_chain_generator)
{
    char cmd[2048];
    char *text = NULL;
    snprintf(cmd, sizeof cmd, "sh %s/inverter_chain.sh 3", NSC_NETLISTS);
    cr_assert_eq(tu_run(cmd, &text), 0);
    cr_assert(strstr(text, "X3 n2 n3 vdd inv\n") && !strstr(text, "X4 "), "%s", text);
    cr_assert(strstr(text, ".save v(n0) v(n1) v(n2) v(n3)\n"));
    free(text);
    snprintf(cmd, sizeof cmd, "sh %s/inverter_chain.sh x 2>&1", NSC_NETLISTS);
    cr_assert_eq(tu_run(cmd, &text), 2);
    cr_assert(strstr(text, "usage"));
    free(text);
}
