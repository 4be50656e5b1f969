/* test_out.c -- output table, probe lists and the writers. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "netlist/netlist.h"
#include "output/out.h"
#include "output/rd.h"
#include "output/out_stream.h"
#include "analysis/stepper.h"
#include "testutil.h"
#include "output/waves.h"

static nsc_waves *sample(void)
{
    char *names[] = { "v(a)", "i(l1)" };
    nsc_waves *W = nsc_waves_new(names, 2, "t'itle");
    cr_assert(W);
    for (int i = 0; i < 2500; i++) {
        double row[3] = { i * 1e-6, 1.0 / 3.0 + i, -2e-3 * i };
        cr_assert_eq(nsc_waves_add(W, row), 0);
    }
    return W;
}

Test(out, dat_roundtrip)
{
    char *d = tu_tmpdir();
    nsc_waves *W = sample();
    nsc_report r;
    nsc_report_init(&r);
    char path[512];
    snprintf(path, sizeof path, "%s/x.dat", d);
    cr_assert_eq(nsc_write_dat(W, path, 0, &r), NSC_OK);
    tu_table t;
    cr_assert_eq(tu_table_read(path, &t), 0);
    cr_assert_eq(t.ncol, 3);
    cr_assert_eq(t.nrow, 2500);
    cr_assert_str_eq(t.name[1], "v(a)");
    for (int i = 0; i < t.nrow; i++) {
        cr_assert_float_eq(TU_AT(&t, i, 1), 1.0 / 3.0 + i, 1e-12 * (1 + i));
        cr_assert_float_eq(TU_AT(&t, i, 2), -2e-3 * i, 1e-15 * (1 + i));
    }
    tu_table_free(&t);
    /* csv */
    snprintf(path, sizeof path, "%s/x.csv", d);
    cr_assert_eq(nsc_write_csv(W, path, 0, &r), NSC_OK);
    char *s = tu_read_file(path);
    cr_assert(strncmp(s, "time,v(a),i(l1)\n0.000000000000e+00,3.333333333333e-01,", 54) == 0,
              "%.60s", s);
    free(s);
    nsc_waves_free(W);
    nsc_report_free(&r);
    tu_rmdir(d);
    free(d);
}

Test(out, early_end_is_said_in_header)
{
    char *d = tu_tmpdir();
    nsc_waves *W = sample();
    W->end = NSC_RUN_FAILED;
    W->t_end = 2.5e-3;
    W->end_msg = strdup("time 0.0025 s: ...");
    nsc_report r;
    nsc_report_init(&r);
    char path[512];
    snprintf(path, sizeof path, "%s/x.dat", d);
    cr_assert_eq(nsc_write_dat(W, path, 0, &r), NSC_OK);
    char *s = tu_read_file(path);
    cr_assert(strncmp(s, "# time v(a) i(l1)\n# stopped (simulation failure) at t=2.5", 56) == 0,
              "%.80s", s);
    free(s);
    nsc_waves_free(W);
    nsc_report_free(&r);
    tu_rmdir(d);
    free(d);
}

Test(out, unwritable_path_is_an_error)
{
    nsc_waves *W = sample();
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(nsc_write_dat(W, "/nonexistent-dir/x.dat", 0, &r), NSC_EOUT);
    cr_assert(strstr(r.error, "cannot write '/nonexistent-dir/x.dat'"), "%s", r.error);
    nsc_waves_free(W);
    nsc_report_free(&r);
}

Test(out, gnuplot_script_panels)
{
    char *d = tu_tmpdir();
    nsc_waves *W = sample();
    nsc_report r;
    nsc_report_init(&r);
    char dat[512], gp[512], png[512];
    snprintf(dat, sizeof dat, "%s/x.dat", d);
    snprintf(gp, sizeof gp, "%s/x.gp", d);
    snprintf(png, sizeof png, "%s/x.png", d);
    cr_assert_eq(nsc_write_dat(W, dat, 0, &r), NSC_OK);
    cr_assert_eq(nsc_write_gp(W, dat, gp, png, &r), NSC_OK);
    char *s = tu_read_file(gp);
    /* voltages and currents in separate panels; time in ms (the run is 2.5 ms),
     * v(a) up to 2.5e3 V in kV, i(l1) down to -5 A in A; names in the legend */
    cr_assert(strstr(s, "set multiplot layout 2,1"), "%s", s);
    cr_assert(strstr(s, "using ($1*1e+03):($2*1e-03) with lines lt 1 lw 1.5 title 'v(a)'"), "%s",
              s);
    cr_assert(strstr(s, "using ($1*1e+03):($3*1e+00) with lines lt 1 lw 1.5 title 'i(l1)'"), "%s",
              s);
    /* neither is switching: no third panel; tick steps 1, 2, 5 x 10^k */
    cr_assert(!strstr(s, "set ylabel 'switching"), "%s", s);
    cr_assert(strstr(s, "set yrange [0:2.5]\nset ytics 0.5\n")
                  && strstr(s, "set yrange [-5:0]\nset ytics 1\n"),
              "%s", s);
    cr_assert(strstr(s, "set ylabel 'voltage (kV)'") && strstr(s, "set ylabel 'current (A)'"), "%s",
              s);
    cr_assert(strstr(s, "set xlabel 'time (ms)'") && strstr(s, "set xrange [0:2.499]"), "%s", s);
    /* only the bottom panel labels the time axis */
    const char *v = strstr(s, "title 'v(a)'"), *x = strstr(s, "set xlabel 'time");
    cr_assert(v && x && x > v, "xlabel before the last panel: %s", s);
    cr_assert(strstr(s, "title 't''itle'"), "quote in the title not doubled: %s", s);
    free(s);
    if (tu_run("command -v gnuplot >/dev/null", NULL) == 0) {
        cr_assert_eq(nsc_render_gp(gp, &r), NSC_OK, "%s", r.error ? r.error : "");
        char *p = tu_read_file(png);
        cr_assert(p && memcmp(p, "\x89PNG", 4) == 0);
        free(p);
    }
    nsc_waves_free(W);
    nsc_report_free(&r);
    tu_rmdir(d);
    free(d);
}

/* A long table's picture comes from its envelope (nsc_gp_envelope): checked
 * against the runs' extremes found here by brute force. 200 001 rows: a sine of
 * 1 000 rows a period with a one-row spike, a falling ramp (its maximum comes
 * first in every run), and a column holding NaN for its first 100 rows. */
static nsc_waves *long_table(void)
{
    char *names[] = { "v(s)", "v(r)", "v(n)" };
    nsc_waves *W = nsc_waves_new(names, 3, "long");
    cr_assert(W);
    for (long i = 0; i <= 200000; i++) {
        double row[4] = { i * 1e-9, sin(2 * 3.14159265358979 * i / 1000) + (i == 54321 ? 6 : 0),
                          -1e-3 * i, i < 100 ? NAN : 1 };
        cr_assert_eq(nsc_waves_add(W, row), 0);
    }
    return W;
}

Test(out, long_table_is_drawn_from_its_envelope)
{
    nsc_waves *W = long_table();
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_eq(nsc_gp_envelope(f, W), 0);
    cr_assert_eq(fclose(f), 0);
    long k = (W->nrow + NSC_GP_ENVELOPE / 2 - 1) / (NSC_GP_ENVELOPE / 2), rows = 0, i0 = 0;
    double spike = 0;
    for (char *p = text; *p; rows++, i0 += rows % 2 ? 0 : k) {
        double v[4];
        for (int j = 0; j < 4; j++) v[j] = strtod(p, &p);
        cr_assert_eq(*p, '\n');
        p++;
        long i1 = i0 + k < W->nrow ? i0 + k : W->nrow, at = rows % 2 ? i1 - 1 : i0;
        double t = nsc_waves_at(W, at, 0); /* written with 9 digits */
        cr_assert(fabs(v[0] - t) <= 1e-8 * t, "row %ld: %g vs %g", rows, v[0], t);
        double lo = INFINITY, hi = -INFINITY; /* the sine's extremes, in their order */
        long ilo = 0, ihi = 0;
        for (long i = i0; i < i1; i++) {
            double x = nsc_waves_at(W, i, 1);
            if (x < lo) lo = x, ilo = i;
            if (x > hi) hi = x, ihi = i;
        }
        double first = ilo <= ihi ? lo : hi, second = ilo <= ihi ? hi : lo;
        cr_assert(fabs(v[1] - (rows % 2 ? second : first)) <= 1e-8 * (1 + fabs(hi)), "row %ld: %g",
                  rows, v[1]);
        double r = -1e-3 * (rows % 2 ? i1 - 1 : i0); /* the ramp's extremes at the run's ends */
        cr_assert(fabs(v[2] - r) <= 1e-8 * fabs(r), "row %ld: %g vs %g", rows, v[2], r);
        cr_assert(i0 + k <= 100 ? isnan(v[3]) : v[3] == 1, "row %ld: %g", rows, v[3]);
        spike = fmax(spike, v[1]);
    }
    cr_assert_eq(rows, 2 * ((W->nrow + k - 1) / k));
    cr_assert(rows <= NSC_GP_ENVELOPE);
    cr_assert(fabs(spike - (6 + sin(2 * 3.14159265358979 * 54321 / 1000))) < 1e-8, "%g", spike);
    free(text);
    nsc_waves_free(W);
}

/* --plot of a long table: the PNG rendered from the envelope, whose temporary
 * file is gone afterwards (the directory holds the .dat, .gp and .png only). */
Test(out, long_table_renders_without_leaving_its_envelope)
{
    if (tu_run("command -v gnuplot >/dev/null", NULL) != 0) return;
    char *d = tu_tmpdir(), dat[512], gp[512], png[512];
    nsc_waves *W = long_table();
    nsc_report r;
    nsc_report_init(&r);
    snprintf(dat, sizeof dat, "%s/x.dat", d);
    snprintf(gp, sizeof gp, "%s/x.gp", d);
    snprintf(png, sizeof png, "%s/x.png", d);
    cr_assert_eq(nsc_write_dat(W, dat, 0, &r), NSC_OK);
    cr_assert_eq(nsc_write_gp(W, dat, gp, png, &r), NSC_OK);
    cr_assert_eq(nsc_render_gp_waves(gp, W, &r), NSC_OK, "%s", r.error ? r.error : "");
    char *p = tu_read_file(png);
    cr_assert(p && memcmp(p, "\x89PNG", 4) == 0);
    free(p);
    DIR *dir = opendir(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(dir));)
        n += e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) ? 1 : 0;
    closedir(dir);
    cr_assert_eq(n, 3, "a temporary file was left in %s", d);
    nsc_waves_free(W);
    nsc_report_free(&r);
    tu_rmdir(d);
    free(d);
}

/* ---- the plot rules (out_axis.c) ---- */

#define PI 3.14159265358979323846

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* deterministic pseudo-random numbers in [0, 1) */
static double lcg(unsigned long *s)
{
    *s = *s * 6364136223846793005UL + 1442695040888963407UL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

Test(out, plot_rule_statistics)
{
    /* quantiles against a sorted copy: floor(q (n-1)) and ceil(q (n-1)) */
    unsigned long seed = 7;
    for (int n = 1; n < 3000; n = n * 3 + 1) {
        double *v = malloc((size_t)n * sizeof *v), *w = malloc((size_t)n * sizeof *w);
        for (int i = 0; i < n; i++)
            v[i] = w[i] = i % 5 == 0 ? 1.0 : lcg(&seed) * 10 - 3; /* ties too */
        qsort(w, (size_t)n, sizeof *w, cmp_dbl);
        nsc_trace_stat st;
        cr_assert_eq(nsc_trace_stat_of(v, (size_t)n, 1, &st), 0);
        cr_assert_eq(st.qlo, w[(int)floor(0.005 * (n - 1))], "n %d", n);
        cr_assert_eq(st.qhi, w[(int)ceil(0.995 * (n - 1))], "n %d", n);
        cr_assert(st.min == w[0] && st.max == w[n - 1] && st.nfinite == (size_t)n);
        free(v);
        free(w);
    }
    /* jumps: a square wave of 10-row half periods over 1000 rows has 99 edges; a
     * sine of 50 rows a period (a change of at most 2 pi / 50 of its amplitude) none */
    double sq[1000], sn[1000];
    for (int i = 0; i < 1000; i++) {
        sq[i] = (i / 10) % 2 ? 12 : 0;
        sn[i] = sin(2 * PI * i / 50);
    }
    nsc_trace_stat a, b;
    cr_assert_eq(nsc_trace_stat_of(sq, 1000, 1, &a), 0);
    cr_assert_eq(nsc_trace_stat_of(sn, 1000, 1, &b), 0);
    cr_assert_eq(a.jumps, 99);
    cr_assert_eq(b.jumps, 0);
    cr_assert(nsc_trace_switching(&a) && !nsc_trace_switching(&b));
    /* a single step (one jump) is not switching */
    for (int i = 0; i < 1000; i++) sq[i] = i < 500 ? 0 : 5;
    cr_assert_eq(nsc_trace_stat_of(sq, 1000, 1, &a), 0);
    cr_assert(a.jumps == 1 && !nsc_trace_switching(&a));
}

/* Tick labels: every multiple of the step in range written with the chosen %g
 * precision is distinct, the range covers the data, the step is 1, 2 or 5 x 10^k. */
Test(out, tick_labels_are_distinct)
{
    const double r[][2] = {
        { 1.79980, 1.79992 }, { 0, 0.634 },   { -0.0113, 634 },        { 179.95, 180.07 },
        { 323.93, 323.971 },  { 5e-9, 2e-8 }, { -3e5, 1.2e6 },         { 97.3, 99.6 },
        { 1.8, 1.8 },         { 0, 0 },       { 1e-12, 1.0000001e-12 }
    };
    for (size_t k = 0; k < sizeof r / sizeof r[0]; k++) {
        nsc_ticks t = nsc_ticks_of(r[k][0], r[k][1], 6);
        cr_assert(t.lo <= r[k][0] && t.hi >= r[k][1] && t.hi > t.lo, "range %g %g: %g %g", r[k][0],
                  r[k][1], t.lo, t.hi);
        double m = t.step / pow(10, floor(log10(t.step) + 1e-9));
        cr_assert(fabs(m - 1) < 1e-9 || fabs(m - 2) < 1e-9 || fabs(m - 5) < 1e-9, "step %g",
                  t.step);
        long n = lround((t.hi - t.lo) / t.step);
        cr_assert(n >= 1 && n <= 14, "range %g %g: %ld ticks", r[k][0], r[k][1], n);
        char prev[64] = "", cur[64];
        for (long i = 0; i <= n; i++) {
            snprintf(cur, sizeof cur, "%.*g", t.digits, t.lo + (double)i * t.step);
            cr_assert(strcmp(cur, prev), "range %g %g: label %s repeated (%%.%dg)", r[k][0],
                      r[k][1], cur, t.digits);
            strcpy(prev, cur);
        }
    }
}

/* The panel of a script that plots title: from its "set ylabel" to the end of
 * its plot command (a new string), NULL if absent. */
static char *panel_of(const char *s, const char *title)
{
    char key[128];
    snprintf(key, sizeof key, "title '%s'", title);
    const char *t = strstr(s, key);
    if (!t) return NULL;
    const char *a = s, *p;
    while ((p = strstr(a, "set ylabel")) && p < t) a = p + 1;
    a = a == s ? s : a - 1;
    const char *e = t;
    while (*e && !(e[0] == '\n' && strncmp(e + 1, "     ", 5))) e++;
    return strndup(a, (size_t)(e - a));
}

/* "set yrange [lo:hi]" and "set ytics step" of a panel. */
static void yrange_of(const char *panel, double *lo, double *hi, double *step)
{
    const char *y = strstr(panel, "set yrange [");
    cr_assert(y && sscanf(y, "set yrange [%lf:%lf]", lo, hi) == 2, "%s", panel);
    y = strstr(panel, "set ytics ");
    cr_assert(y && sscanf(y, "set ytics %lf", step) == 1, "%s", panel);
}

static char *script_of(nsc_waves *W, const char *d)
{
    nsc_report r;
    nsc_report_init(&r);
    char dat[512], gp[512], png[512];
    snprintf(dat, sizeof dat, "%s/w.dat", d);
    snprintf(gp, sizeof gp, "%s/w.gp", d);
    snprintf(png, sizeof png, "%s/w.png", d);
    cr_assert_eq(nsc_write_gp(W, dat, gp, png, &r), NSC_OK);
    nsc_report_free(&r);
    return tu_read_file(gp);
}

/* A PWM node goes to its own panel below the others; v(out), the first column,
 * is drawn last in its panel (on top); v(out)'s panel is scaled to v(out). */
Test(out, switching_node_in_its_own_panel)
{
    char *names[] = { "v(out)", "v(sw)", "v(ref)" };
    nsc_waves *W = nsc_waves_new(names, 3, "pwm");
    for (int i = 0; i < 4000; i++) {
        double t = i * 1e-8, out = 1.8 * (1 - exp(-t / 1e-5)) + 0.002 * sin(2 * PI * i / 40);
        double row[4] = { t, out, (i % 40) < 24 ? 3 : 0, 1.8 };
        cr_assert_eq(nsc_waves_add(W, row), 0);
    }
    char *d = tu_tmpdir(), *s = script_of(W, d);
    char *po = panel_of(s, "v(out)"), *ps = panel_of(s, "v(sw)");
    cr_assert(po && ps, "%s", s);
    cr_assert(!strstr(po, "'v(sw)'") && !strstr(ps, "'v(out)'"), "same panel: %s", s);
    cr_assert(strstr(ps, "set ylabel 'switching voltage (V)'"), "%s", ps);
    cr_assert(strstr(po, "set ylabel 'voltage (V)'") && strstr(po, "'v(ref)'"), "%s", po);
    cr_assert(strstr(s, "set multiplot layout 2,1"), "%s", s);
    cr_assert(strstr(po, "title 'v(ref)'") < strstr(po, "title 'v(out)'"),
              "v(out) not drawn last: %s", po);
    cr_assert(strstr(s, "set key invert"), "%s", s);
    cr_assert(strstr(s, "title 'v(out)'") < strstr(s, "title 'v(sw)'"), "switching panel first: %s",
              s);
    double lo, hi, step;
    yrange_of(po, &lo, &hi, &step);
    cr_assert(lo <= 0 && hi >= 1.802 && hi < 2.5, "v(out) panel [%g, %g]", lo, hi);
    free(po);
    free(ps);
    free(s);
    nsc_waves_free(W);
    tu_rmdir(d);
    free(d);
}

/* A run whose content is the spike itself (a pulse over 0.3 % of the rows,
 * zero elsewhere) keeps its full range: nothing is clipped. */
Test(out, a_pulse_alone_is_not_clipped)
{
    char *names[] = { "i(l1)" };
    nsc_waves *W = nsc_waves_new(names, 1, "pulse");
    for (int i = 0; i < 2000; i++) {
        double row[2] = { i * 1e-6, i >= 100 && i < 106 ? 1.5 : 0 };
        cr_assert_eq(nsc_waves_add(W, row), 0);
    }
    char *d = tu_tmpdir(), *s = script_of(W, d);
    double lo, hi, step;
    yrange_of(s, &lo, &hi, &step);
    cr_assert(strstr(s, "set ylabel 'current (A)'") && lo <= 0 && hi >= 1.5, "%s", s);
    cr_assert(!strstr(s, "set label 1"), "%s", s);
    free(s);
    nsc_waves_free(W);
    tu_rmdir(d);
    free(d);
}

/* The quantile of sorted w[0..n) as the rule takes it. */
static double qat(const double *w, int n, double q)
{
    return w[q < 0.5 ? (int)floor(q * (n - 1)) : (int)ceil(q * (n - 1))];
}

/* netlists/rectifier_capfilter.cir at fixed 1 us steps: the first row's
 * capacitor and diode currents are 2.3 A difference quotients (an impulse),
 * their content is within +-20 mA. Their panel (switching currents: pulses of
 * 2 or more jumps back to 0, issue 25 item 21) has the 0.5-99.5 % range of
 * its columns (computed here from the .dat) plus 5 %, widened to a tick at
 * most; the label names the 2.3 A the panel clips. */
Test(out, startup_spike_does_not_set_the_scale)
{
    char *d = tu_tmpdir(), cmd[2048], path[600], *out = NULL;
    snprintf(cmd, sizeof cmd,
             "cd %s && %s --quiet --step 1u -o rc.dat %s/rectifier_capfilter.cir 2>&1", d,
             NSC_PROGRAM, NSC_NETLISTS);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    free(out);
    snprintf(path, sizeof path, "%s/rc.dat", d);
    tu_table t;
    cr_assert_eq(tu_table_read(path, &t), 0);
    double ql = INFINITY, qh = -INFINITY, peak = 0;
    double *w = malloc((size_t)t.nrow * sizeof *w);
    for (int c = 1; c < t.ncol; c++) {
        if (strcmp(t.name[c], "i(d1)") && strcmp(t.name[c], "i(d2)") && strcmp(t.name[c], "i(cf)"))
            continue;
        for (int i = 0; i < t.nrow; i++) w[i] = TU_AT(&t, i, c), peak = fmax(peak, w[i]);
        qsort(w, (size_t)t.nrow, sizeof *w, cmp_dbl);
        ql = fmin(ql, qat(w, t.nrow, 0.005));
        qh = fmax(qh, qat(w, t.nrow, 0.995));
    }
    free(w);
    tu_table_free(&t);
    cr_assert(peak > 2 && qh - ql < 0.2, "the run changed: peak %g, range %g %g", peak, ql, qh);
    double lo = 1e3 * (ql - 0.05 * (qh - ql)), hi = 1e3 * (qh + 0.05 * (qh - ql)); /* mA */
    snprintf(path, sizeof path, "%s/rc.gp", d);
    char *s = tu_read_file(path), *p = panel_of(s, "i(cf)");
    cr_assert(p && strstr(p, "set ylabel 'switching current (mA)'") && strstr(p, "'i(d1)'"), "%s",
              s);
    double a, b, step;
    yrange_of(p, &a, &b, &step);
    cr_assert(a <= lo + 1e-9 && a > lo - step && b >= hi - 1e-9 && b < hi + step,
              "panel [%g, %g] step %g, rule [%g, %g]", a, b, step, lo, hi);
    cr_assert(strstr(p, "clipped to the 0.5-99.5 % range") && strstr(p, " to 2.3"), "%s", p);
    free(p);
    free(s);
    tu_rmdir(d);
    free(d);
}

/* netlists/buck.cir (60 us of it) with --plot: v(sw), v(g) and the ramp in a
 * switching panel, v(out) with v(ref) and v(ea); the PNG is rendered. Rows on
 * the 10 ns grid (.options interp: its TMAX = 50 ps would write 1.2 M steps). */
Test(out, buck_plot_separates_the_switching_node)
{
    char *d = tu_tmpdir(), cmd[2048], path[600], *out = NULL;
    snprintf(cmd, sizeof cmd,
             "cd %s && sed 's/^\\.end$/.options interp\\n.end/' %s/buck.cir > buck.cir && "
             "%s --quiet --tstop 60u --plot -o buck.dat buck.cir 2>&1",
             d, NSC_NETLISTS, NSC_PROGRAM);
    int have_gp = tu_run("command -v gnuplot >/dev/null", NULL) == 0;
    if (!have_gp)
        snprintf(cmd, sizeof cmd,
                 "cd %s && sed 's/^\\.end$/.options interp\\n.end/' %s/buck.cir > buck.cir && "
                 "%s --quiet --tstop 60u -o buck.dat buck.cir 2>&1",
                 d, NSC_NETLISTS, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    free(out);
    snprintf(path, sizeof path, "%s/buck.gp", d);
    char *s = tu_read_file(path), *po = panel_of(s, "v(out)"), *ps = panel_of(s, "v(sw)");
    cr_assert(po && ps, "%s", s);
    cr_assert(strstr(ps, "switching voltage") && strstr(ps, "'v(g)'") && strstr(ps, "'v(ramp)'"),
              "%s", ps);
    cr_assert(!strstr(po, "'v(sw)'") && !strstr(po, "switching") && strstr(po, "'v(ea)'"), "%s",
              po);
    cr_assert(strstr(s, "set xlabel 'time (µs)'"), "%s", s);
    free(po);
    free(ps);
    free(s);
    if (have_gp) {
        snprintf(path, sizeof path, "%s/buck.png", d);
        char *p = tu_read_file(path);
        cr_assert(p && memcmp(p, "\x89PNG", 4) == 0);
        free(p);
    }
    tu_rmdir(d);
    free(d);
}

/* Engineering notation used by the summaries and compare. */
Test(out, engineering_notation)
{
    char b[32];
    cr_assert_str_eq(nsc_eng(1.5e-3, "s", b, sizeof b), "1.5 ms");
    cr_assert_str_eq(nsc_eng(-3.3e-6, "A", b, sizeof b), "-3.3 uA");
    cr_assert_str_eq(nsc_eng(20, "V", b, sizeof b), "20 V");
    cr_assert_str_eq(nsc_eng(0, "V", b, sizeof b), "0 V");
    cr_assert_str_eq(nsc_eng(999.96e-3, "V", b, sizeof b), "1 V");
    cr_assert_str_eq(nsc_eng(12345, "", b, sizeof b), "12.35 k");
    cr_assert_str_eq(nsc_eng(0.25, "", b, sizeof b), "250 m");
    double sc;
    const char *u;
    nsc_time_unit(5e-3, &sc, &u);
    cr_assert(sc == 1e3 && !strcmp(u, "ms"));
    nsc_time_unit(2e-7, &sc, &u);
    cr_assert(sc == 1e9 && !strcmp(u, "ns"));
    nsc_time_unit(3, &sc, &u);
    cr_assert(sc == 1 && !strcmp(u, "s"));
    cr_assert_eq(nsc_unit_scale(0.09, &u), 1e3);
    cr_assert_str_eq(u, "m");
    cr_assert_eq(nsc_unit_scale(400, &u), 1);
    cr_assert_str_eq(u, "");
}

/* Dropping the trailing columns (the .meas-only probes) keeps rows intact. */
Test(out, waves_keep_columns)
{
    nsc_waves *W = sample();
    nsc_waves_keep(W, 2);
    cr_assert_eq(W->ncol, 2);
    cr_assert_eq(W->nrow, 2500);
    cr_assert_str_eq(W->name[1], "v(a)");
    for (int i = 0; i < W->nrow; i++) {
        cr_assert_eq(W->v[2 * i], i * 1e-6);
        cr_assert_eq(W->v[2 * i + 1], 1.0 / 3.0 + i);
    }
    double row[2] = { 1, 2 };
    cr_assert_eq(nsc_waves_add(W, row), 0); /* still growable */
    cr_assert_eq(W->v[2 * 2500 + 1], 2);
    nsc_waves_free(W);
}

/* The stepper's progress hook (the CLI's progress bar): called every 1000 steps
 * with the time reached. */
static int ncalls;
static double tcalls[4];
static void on_progress(double t, void *ctx)
{
    if (ncalls < 4) tcalls[ncalls] = t;
    ncalls++;
    *(int *)ctx += 1;
}

Test(out, progress_hook_of_the_stepper)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_circuit *c = NULL;
    cr_assert_eq(nsc_netlist_read_string("rc\nV1 a 0 1\nR1 a b 1k\nC1 b 0 1u\n.tran 1u 2.5m\n",
                                         "p.cir", NULL, 0, &c, &r),
                 NSC_OK);
    nsc_probe *p = NULL;
    int np = 0, ctx = 0;
    cr_assert_eq(nsc_waves_probes_default(c, &p, &np, &r), NSC_OK);
    nsc_tran_opts o;
    memset(&o, 0, sizeof o);
    o.tstep = o.h = 1e-6;
    o.tstop = 2.5e-3;
    o.theta = 0.5;
    o.gmin = 1e-12;
    o.solver = NSC_SOLVER_AUTO;
    o.progress = on_progress;
    o.progress_ctx = &ctx;
    nsc_waves *W = NULL;
    nsc_sim_stats st;
    cr_assert_eq(nsc_stepper_tran(c, &o, p, np, &W, &st, &r), NSC_OK, "%s", r.error ? r.error : "");
    cr_assert_eq(st.steps, 2500);
    cr_assert_eq(ncalls, 2);
    cr_assert_eq(ctx, 2);
    cr_assert_float_eq(tcalls[0], 1e-3, 1e-15);
    cr_assert_float_eq(tcalls[1], 2e-3, 1e-15);
    nsc_waves_free(W);
    nsc_waves_probes_free(p, np);
    nsc_circuit_free(c);
    nsc_report_free(&r);
}

/* The writers' bytes do not depend on the number of formatting threads: 30 001 rows
 * (several 512 KiB blocks, the last one short) written with 1, 3 and 8 threads; the
 * one-thread .dat is checked row by row against printf's "%.12e". */
Test(out, threads_write_the_same_bytes)
{
    char *d = tu_tmpdir();
    char *names[] = { "v(a)", "i(l1)", "v(b,c)", "i(r1)" };
    nsc_waves *W = nsc_waves_new(names, 4, "threads");
    cr_assert(W);
    uint64_t u = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 30001; i++) {
        double row[5] = { i * 1e-6, 0, 0, 0, 0 };
        for (int k = 1; k < 5; k++) {
            u ^= u << 13, u ^= u >> 7, u ^= u << 17;
            row[k] = ldexp((double)(u >> 11), (int)(u % 120) - 113) * (u & 1 ? -1 : 1);
        }
        cr_assert_eq(nsc_waves_add(W, row), 0);
    }
    nsc_report r;
    nsc_report_init(&r);
    const int th[] = { 1, 3, 8 };
    for (int f = 0; f < 4; f++) {
        char *text[3];
        for (int j = 0; j < 3; j++) {
            char path[512];
            snprintf(path, sizeof path, "%s/w%d_%d", d, f, th[j]);
            nsc_status s = f == 0   ? nsc_write_dat(W, path, th[j], &r)
                           : f == 1 ? nsc_write_csv(W, path, th[j], &r)
                                    : nsc_write_raw(W, path, f == 3, th[j], &r);
            cr_assert_eq(s, NSC_OK, "%s", r.error);
            text[j] = tu_read_file(path);
            cr_assert(text[j]);
        }
        if (f == 0) { /* printf's rows, after the header line */
            const char *p = strchr(text[0], '\n') + 1;
            char line[256];
            for (int i = 0; i < W->nrow; i++) {
                const double *v = W->v + (size_t)i * 5;
                int n = snprintf(line, sizeof line, "%.12e %.12e %.12e %.12e %.12e\n", v[0], v[1],
                                 v[2], v[3], v[4]);
                cr_assert(strncmp(p, line, (size_t)n) == 0, "row %d: %.*s vs %s", i, n, p, line);
                p += n;
            }
            cr_assert_eq(*p, 0);
        }
        if (f == 2) /* raw: the date line may differ */
            for (int j = 0; j < 3; j++) {
                char *dl = strstr(text[j], "\nDate: ");
                cr_assert(dl);
                memset(dl + 7, 'x', 25);
            }
        if (f < 3) { /* text formats: whole files equal */
            cr_expect_str_eq(text[1], text[0], "format %d, 3 threads", f);
            cr_expect_str_eq(text[2], text[0], "format %d, 8 threads", f);
        }
        for (int j = 0; j < 3; j++) free(text[j]);
    }
    for (int j = 1; j < 3; j++) { /* binary raw: compare bytes */
        char pa[512], pb[512];
        snprintf(pa, sizeof pa, "%s/w3_1", d);
        snprintf(pb, sizeof pb, "%s/w3_%d", d, th[j]);
        FILE *a = fopen(pa, "rb"), *b = fopen(pb, "rb");
        cr_assert(a && b);
        long n = 0;
        int ca, cb, date = 0;
        while ((ca = getc(a)) != EOF && (cb = getc(b)) != EOF) {
            if (ca == '\n') date++; /* line 2 is the date */
            if (date != 1) cr_assert_eq(ca, cb, "byte %ld", n);
            n++;
        }
        cr_assert_eq(getc(a), EOF);
        cr_assert_eq(getc(b), EOF);
        cr_assert_gt(n, 30001L * 5 * 8);
        fclose(a);
        fclose(b);
    }
    nsc_waves_free(W);
    nsc_report_free(&r);
    tu_rmdir(d);
    free(d);
}

/* Output files get the mode open(2) would give them (0666 & ~umask), not mkstemp's 0600. */
Test(out, file_mode_follows_umask)
{
    char *d = tu_tmpdir();
    nsc_waves *W = sample();
    nsc_report r;
    nsc_report_init(&r);
    char path[512];
    snprintf(path, sizeof path, "%s/m.dat", d);
    mode_t old = umask(022);
    cr_assert_eq(nsc_write_dat(W, path, 1, &r), NSC_OK);
    struct stat sb;
    cr_assert_eq(stat(path, &sb), 0);
    cr_expect_eq(sb.st_mode & 0777, 0644, "mode %o", (unsigned)(sb.st_mode & 0777));
    umask(027);
    cr_assert_eq(nsc_write_atomic(path, "x\n", 2, &r), NSC_OK);
    cr_assert_eq(stat(path, &sb), 0);
    cr_expect_eq(sb.st_mode & 0777, 0640, "mode %o", (unsigned)(sb.st_mode & 0777));
    umask(old);
    nsc_waves_free(W);
    nsc_report_free(&r);
    tu_rmdir(d);
    free(d);
}

/* The stream (rows written while the run adds them) writes the bytes of the usual
 * writers: a table growing row by row (with a column it must drop, like a .meas-only
 * probe), the hook called after every row, in the four formats; with a budget that
 * stops copying part-way (the rest comes from the finished table) and without. */
Test(out, stream_writes_the_same_bytes)
{
    char *d = tu_tmpdir();
    char *names[] = { "v(a)", "i(l1)", "v(meas_only)" };
    nsc_report r;
    nsc_report_init(&r);
    const nsc_format fmts[] = { NSC_FMT_DAT, NSC_FMT_CSV, NSC_FMT_RAW, NSC_FMT_RAWBIN };
    for (int f = 0; f < 4; f++)
        for (int budget = 0; budget < 3; budget++) { /* none, part-way, from the start */
            char ref[512], got[512];
            snprintf(ref, sizeof ref, "%s/ref%d", d, f);
            snprintf(got, sizeof got, "%s/got%d_%d", d, f, budget);
            nsc_waves *W = nsc_waves_new(names, 3, "stream");
            cr_assert(W);
            nsc_stream *S = nsc_stream_new(got, fmts[f], 3, 2);
            cr_assert(S);
            const size_t bytes[3] = { (size_t)1 << 30, 40 * 3 * sizeof(double), 0 };
            nsc_stream_set_budget(S, bytes[budget], 37);
            for (int i = 0; i < 5003; i++) {
                double row[4] = { i * 1e-6, sin(i * 0.01), -1e-3 * i, 42.0 + i };
                cr_assert_eq(nsc_waves_add(W, row), 0);
                nsc_stream_rows(W, S);
            }
            nsc_waves_keep(W, 3); /* time, v(a), i(l1) */
            int done = 0;
            cr_assert_eq(nsc_stream_finish(S, W, &done, &r), NSC_OK, "%s", r.error);
            cr_assert_eq(done, 1);
            nsc_stream_free(S);
            nsc_status s = f == 0   ? nsc_write_dat(W, ref, 1, &r)
                           : f == 1 ? nsc_write_csv(W, ref, 1, &r)
                                    : nsc_write_raw(W, ref, f == 3, 1, &r);
            cr_assert_eq(s, NSC_OK);
            char *a = tu_read_file(ref), *b = tu_read_file(got);
            cr_assert(a && b);
            if (f >= 2) { /* raw: the date line may differ */
                char *da = strstr(a, "\nDate: "), *db = strstr(b, "\nDate: ");
                cr_assert(da && db);
                memset(da + 7, 'x', 25);
                memset(db + 7, 'x', 25);
            }
            FILE *fa = fopen(ref, "rb");
            fseek(fa, 0, SEEK_END);
            long na = ftell(fa);
            fclose(fa);
            FILE *fb = fopen(got, "rb");
            fseek(fb, 0, SEEK_END);
            long nb = ftell(fb);
            fclose(fb);
            cr_assert_eq(na, nb, "format %d budget %d: %ld vs %ld bytes", f, budget, na, nb);
            cr_expect(memcmp(a, b, (size_t)na) == 0, "format %d budget %d: bytes differ", f,
                      budget);
            free(a);
            free(b);
            nsc_waves_free(W);
        }
    /* an unfinished stream leaves no file behind */
    char path[512];
    snprintf(path, sizeof path, "%s/dropped.dat", d);
    nsc_waves *W = nsc_waves_new(names, 3, "dropped");
    nsc_stream *S = nsc_stream_new(path, NSC_FMT_DAT, 3, 2);
    nsc_stream_set_budget(S, (size_t)1 << 30, 10);
    for (int i = 0; i < 100; i++) {
        double row[4] = { i, 1, 2, 3 };
        nsc_waves_add(W, row);
        nsc_stream_rows(W, S);
    }
    nsc_stream_free(S);
    DIR *dir = opendir(d);
    cr_assert(dir);
    int left = 0;
    for (struct dirent *de; (de = readdir(dir));) left += strncmp(de->d_name, "dropped", 7) == 0;
    closedir(dir);
    cr_expect_eq(left, 0, "the unfinished stream left %d files", left);
    nsc_waves_free(W);
    nsc_report_free(&r);
    tu_rmdir(d);
    free(d);
}

/* CSV names as RFC 4180 has them (issue 25 item 19: `time,v(p,n),i(v1),v(ac)`
 * was 5 fields over 4 columns): a name holding a comma or a quote is quoted,
 * "" a quote inside; the header then has as many fields as every row (counted
 * outside quotes), and the reader (rd_table.c) gives back the names and values. */
Test(out, csv_names_are_quoted_and_read_back)
{
    char *d = tu_tmpdir();
    char *names[] = { "v(p,n)", "i(v1)", "x\"y" };
    nsc_waves *W = nsc_waves_new(names, 3, "t");
    cr_assert(W);
    for (int i = 0; i < 5; i++) {
        double row[4] = { i * 1e-3, 0.5 * i, -1.0 * i, 2.0 + i };
        cr_assert_eq(nsc_waves_add(W, row), 0);
    }
    nsc_report r;
    nsc_report_init(&r);
    char path[512];
    snprintf(path, sizeof path, "%s/b.csv", d);
    cr_assert_eq(nsc_write_csv(W, path, 0, &r), NSC_OK);
    char *s = tu_read_file(path);
    const char *hdr = "time,\"v(p,n)\",i(v1),\"x\"\"y\"\n";
    cr_assert(s && !strncmp(s, hdr, strlen(hdr)), "%.60s", s);
    for (const char *p = s; *p;) { /* 4 fields on every line */
        int fields = 1, quoted = 0;
        for (; *p && *p != '\n'; p++) {
            if (*p == '"') quoted = !quoted;
            else if (*p == ',' && !quoted) fields++;
        }
        cr_assert_eq(fields, 4, "%s", s);
        if (*p) p++;
    }
    free(s);
    nsc_waves *R = NULL;
    cr_assert_eq(nsc_read_waves(path, &R, NULL, &r), NSC_OK, "%s", r.error);
    cr_assert_eq(R->ncol, 4);
    cr_assert_str_eq(R->name[1], "v(p,n)");
    cr_assert_str_eq(R->name[2], "i(v1)");
    cr_assert_str_eq(R->name[3], "x\"y");
    cr_assert_eq(R->nrow, 5);
    for (int i = 0; i < 5; i++) {
        const double *v = R->v + (size_t)i * 4;
        cr_assert(v[0] == i * 1e-3 && v[1] == 0.5 * i && v[2] == -1.0 * i && v[3] == 2.0 + i,
                  "row %d", i);
    }
    nsc_waves_free(R);
    nsc_waves_free(W);
    nsc_report_free(&r);
    tu_rmdir(d);
    free(d);
}

/* One steady period (issue 25 item 21: v(out) was drawn among the gate drives,
 * the switching panel lost): the gate, high once (2 jumps) and back at its
 * start value, is switching; a reference constant but for round-off (1.8 V +-
 * 2e-16: "jumps" of its own noise) is not, and shares v(out)'s panel. */
Test(out, steady_period_plot_keeps_the_switching_panel)
{
    char *names[] = { "v(out)", "v(g)", "v(ref)" };
    nsc_waves *W = nsc_waves_new(names, 3, "one period");
    for (int i = 0; i <= 400; i++) {
        double row[4] = { 1e-3 + i * 2.5e-8, 1.8 + 0.001 * sin(2 * PI * i / 400),
                          i > 20 && i < 220 ? 3 : 0, 1.8 + (i % 2 ? 2.2e-16 : -2.2e-16) };
        cr_assert_eq(nsc_waves_add(W, row), 0);
    }
    nsc_trace_stat st[4];
    cr_assert_eq(nsc_trace_stats(W, st), 0);
    cr_assert(st[2].jumps == 2 && nsc_trace_switching(&st[2]), "v(g): %ld jumps", st[2].jumps);
    cr_assert(st[3].jumps == 0 && !nsc_trace_switching(&st[3]), "v(ref): %ld jumps", st[3].jumps);
    char *d = tu_tmpdir(), *s = script_of(W, d);
    char *po = panel_of(s, "v(out)"), *pg = panel_of(s, "v(g)");
    cr_assert(po && pg && strstr(pg, "set ylabel 'switching voltage (V)'") && strstr(po, "'v(ref)'")
                  && !strstr(po, "'v(g)'"),
              "%s", s);
    free(po);
    free(pg);
    free(s);
    nsc_waves_free(W);
    tu_rmdir(d);
    free(d);
}

/* Traces of one panel have distinct styles, 9 or more too (issue 25 item 21:
 * gnuplot's 8 line types repeated); a title longer than 110 characters is cut
 * with "..." (it was clipped on both sides); traces of sizes 20 times apart
 * (a 6 V output, a 120 V snubber node) get their own panels, in the order of
 * their first columns; 7 mV beside 76 mV (10 times) share one. */
Test(out, plot_styles_titles_and_scales)
{
    char *names[20], title[301];
    for (int k = 0; k < 18; k++) names[k] = nsc_asprintf("v(n%d)", k);
    names[18] = "i(a)";
    names[19] = "i(b)";
    memset(title, 'x', 300);
    title[300] = 0;
    nsc_waves *W = nsc_waves_new(names, 20, title);
    for (int i = 0; i < 500; i++) {
        double row[21] = { i * 1e-6 };
        for (int k = 0; k < 18; k++)
            row[k + 1] = (k == 17 ? 120 : 6) * (1 + 0.1 * sin(2 * PI * i / 100 + k));
        row[19] = 0.076 * sin(2 * PI * i / 100);
        row[20] = 0.0073 * sin(2 * PI * i / 100);
        cr_assert_eq(nsc_waves_add(W, row), 0);
    }
    char *d = tu_tmpdir(), *s = script_of(W, d);
    const char *t = strstr(s, "set multiplot layout 3,1 title '");
    cr_assert(t, "%s", s);
    t += strlen("set multiplot layout 3,1 title '");
    cr_assert(strspn(t, "x") == 107 && !strncmp(t + 107, "...'\n", 5), "%.130s", t);
    char *p6 = panel_of(s, "v(n0)"), *p120 = panel_of(s, "v(n17)"), *pi = panel_of(s, "i(a)");
    cr_assert(p6 && p120 && pi && !strstr(p6, "'v(n17)'") && strstr(pi, "'i(b)'"), "%s", s);
    cr_assert(strstr(s, "'v(n0)'") < strstr(s, "'v(n17)'"), "%s", s);
    char style[17][64]; /* the 17 traces of the 6 V panel */
    int n = 0;
    for (const char *p = strstr(p6, "with lines "); p; p = strstr(p + 1, "with lines ")) {
        const char *e = strstr(p, " lw ");
        cr_assert(e && n < 17);
        snprintf(style[n++], 64, "%.*s", (int)(e - p), p);
    }
    cr_assert_eq(n, 17, "%s", p6);
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) cr_assert(strcmp(style[a], style[b]), "%s twice", style[a]);
    free(p6);
    free(p120);
    free(pi);
    free(s);
    for (int k = 0; k < 18; k++) free(names[k]);
    nsc_waves_free(W);
    tu_rmdir(d);
    free(d);
}

/* The statistics of neighbouring columns (nsc_trace_stat_cols) equal each
 * column's own (nsc_trace_stat_of), also for a table so long that fewer columns
 * fit the copies' NSC_STAT_WORDS at once: 300 000 rows x 8 columns (3 a pass).
 * Before, the columns past the first pass kept zero statistics: a 0..16 V
 * switch node was plotted on [0:1] (hostile review, session 17). */
Test(out, column_block_statistics_are_each_columns)
{
    const int n = 300000, nk = 8;
    double *v = malloc((size_t)n * nk * sizeof *v);
    cr_assert(v);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < nk; k++)
            v[(size_t)i * nk + k] = (k + 1) * ((i / 1000) % 2 ? 2.0 : -1.0) + 1e-6 * i;
    nsc_trace_stat s[8], o;
    cr_assert_eq(nsc_trace_stat_cols(v, (size_t)n, (size_t)nk, nk, s), 0);
    for (int k = 0; k < nk; k++) {
        cr_assert_eq(nsc_trace_stat_of(v + k, (size_t)n, (size_t)nk, &o), 0);
        cr_expect(s[k].min == o.min && s[k].max == o.max && s[k].qlo == o.qlo && s[k].qhi == o.qhi
                      && s[k].jumps == o.jumps && s[k].nfinite == o.nfinite,
                  "column %d: min %g/%g max %g/%g jumps %ld/%ld", k, s[k].min, o.min, s[k].max,
                  o.max, s[k].jumps, o.jumps);
    }
    free(v);
}
