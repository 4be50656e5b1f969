/* test_compare.c -- cmp.c (errors and switching shifts on one time grid) on
 * synthetic signals with known errors and shifts, and `nscircuit compare`. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/cmp.h"
#include "output/out.h"
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
TestSuite(compare, .init = setup, .fini = teardown);

typedef double (*fn)(double t, int col);

/* table of n rows on [t0, t1] (uniform), columns names[0..nc) from f */
static nsc_waves *table(char **names, int nc, int n, double t0, double t1, fn f)
{
    nsc_waves *W = nsc_waves_new(names, nc, "");
    cr_assert(W);
    double row[16];
    for (int i = 0; i < n; i++) {
        row[0] = t0 + (t1 - t0) * i / (n - 1);
        for (int k = 0; k < nc; k++) row[k + 1] = f(row[0], k);
        cr_assert_eq(nsc_waves_add(W, row), 0);
    }
    return W;
}

static nsc_cmp *run(const nsc_waves *a, const nsc_waves *b, char **sig, int nsig)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_cmp *c = NULL;
    nsc_status s = nsc_compare(a, b, sig, nsig, -INFINITY, INFINITY, &c, &r);
    cr_assert_eq(s, NSC_OK, "%s", r.error ? r.error : "");
    nsc_report_free(&r);
    return c;
}

static double ref_sin(double t, int k)
{
    (void)k;
    return 3 * sin(2 * M_PI * 50 * t);
}
static double off_sin(double t, int k)
{
    (void)k;
    return 3 * sin(2 * M_PI * 50 * t) + 0.01;
}
static double ramp_err(double t, int k)
{
    (void)k;
    return 3 * sin(2 * M_PI * 50 * t) + 0.02 * t / 0.04;
}

/* A constant offset: max = rms = offset. A linear drift e = a t on [0, T]: max a T,
 * rms a T / sqrt(3), exact because e is linear on every piece of the grid. Range:
 * 6 (two periods of 3 sin). The grids differ (501 vs 1001 points). */
Test(compare, known_errors)
{
    char *n[] = { "v(out)" };
    nsc_waves *ref = table(n, 1, 1001, 0, 0.04, ref_sin);
    nsc_waves *ours = table(n, 1, 501, 0, 0.04, off_sin);
    nsc_cmp *c = run(ours, ref, NULL, 0);
    cr_assert_eq(c->nsig, 1);
    cr_assert_eq(c->ngrid, 501); /* ours' points */
    const nsc_cmp_sig *s = &c->sig[0];
    cr_assert_float_eq(s->range, 6, 1e-12);
    /* errors at ours' points, a subset of the reference's: exact */
    cr_assert_float_eq(s->max_err, 0.01, 1e-12, "max %g", s->max_err);
    cr_assert_float_eq(s->rms_err, 0.01, 1e-12, "rms %g", s->rms_err);
    nsc_cmp_free(c);
    nsc_waves_free(ours);
    /* same grid: exact */
    ours = table(n, 1, 1001, 0, 0.04, off_sin);
    c = run(ours, ref, NULL, 0);
    cr_assert_float_eq(c->sig[0].max_err, 0.01, 1e-12);
    cr_assert_float_eq(c->sig[0].rms_err, 0.01, 1e-12);
    cr_assert_float_eq(c->sig[0].max_err / c->sig[0].scale, 0.01 / 6, 1e-12);
    nsc_cmp_free(c);
    nsc_waves_free(ours);
    ours = table(n, 1, 1001, 0, 0.04, ramp_err);
    c = run(ours, ref, NULL, 0);
    cr_assert_float_eq(c->sig[0].max_err, 0.02, 1e-12);
    cr_assert_float_eq(c->sig[0].t_max_err, 0.04, 1e-15);
    cr_assert_float_eq(c->sig[0].rms_err, 0.02 / sqrt(3), 1e-12);
    nsc_cmp *w = NULL;
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(nsc_compare(ours, ref, NULL, 0, 0.02, 1, &w, &r), NSC_OK); /* window [0.02, end] */
    cr_assert_float_eq(w->t0, 0.02, 1e-15);
    cr_assert_eq(w->ngrid, 501);
    cr_assert_float_eq(w->sig[0].rms_err, sqrt((1e-4 + 2e-4 + 4e-4) / 3),
                       1e-12); /* e: 0.01 -> 0.02 */
    nsc_cmp_free(w);
    /* sin's zero crossings are the mid level; the drift moves them by -e/slope */
    cr_assert_eq(c->sig[0].n_ref, 3); /* falling at 10 ms, rising at 20, falling at 30 */
    cr_assert_eq(c->sig[0].n_matched, 3);
    nsc_cmp_free(c);
    nsc_waves_free(ours);
    nsc_waves_free(ref);
}

/* Trapezoid pulse train (ramps 1 us, high 4 us, period 10 us): ours is the same
 * wave delayed by d = 0.37 us on another grid; every switching instant is shifted
 * by exactly d (the mid level is crossed on the linear ramps). */
static double trap(double t)
{
    double p = fmod(t, 10e-6);
    return p < 1e-6 ? p / 1e-6 : p < 5e-6 ? 1 : p < 6e-6 ? 1 - (p - 5e-6) / 1e-6 : 0;
}
static double trap_ref(double t, int k)
{
    (void)k;
    return 5 * trap(t);
}
static double trap_late(double t, int k)
{
    (void)k;
    return 5 * trap(t > 0.37e-6 ? t - 0.37e-6 : 0);
}

Test(compare, switching_shift)
{
    char *n[] = { "V(Gate)" }, *m[] = { "v(gate)" };
    nsc_waves *ref = table(n, 1, 10001, 0, 100e-6, trap_ref);  /* h = 10 ns, corners on the grid */
    nsc_waves *ours = table(m, 1, 1001, 0, 100e-6, trap_late); /* h = 100 ns: corners are not */
    nsc_cmp *c = run(ours, ref, NULL, 0);
    const nsc_cmp_sig *s = &c->sig[0];
    cr_assert_str_eq(s->name, "v(gate)"); /* names match case-insensitively */
    cr_assert_eq(s->n_ref, 20, "edges %d",
                 s->n_ref); /* rising at 0.5 + 10k us, falling at 5.5 + 10k us */
    cr_assert_eq(s->n_ours, 20);
    cr_assert_eq(s->n_matched, 20);
    cr_assert_float_eq(s->shift_max, 0.37e-6, 1e-12);
    cr_assert_float_eq(s->shift_mean, 0.37e-6, 1e-12);
    cr_assert_float_eq(s->level, 2.5, 1e-12);
    /* a delay of the ramp: the max error is 5 V/us * 0.37 us */
    cr_assert_float_eq(s->max_err, 5 * 0.37, 1e-9);
    nsc_cmp_free(c);
    nsc_waves_free(ours);
    nsc_waves_free(ref);
}

/* Edges with hysteresis: ripple around the mid level is not a switching event. */
Test(compare, edges_hysteresis)
{
    double t[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };
    double y[] = { 0, 0.52, 0.48, 0.53, 1, 1, 0.45, 0.55, 0 };
    double at[8];
    int dir[8];
    int n = nsc_cmp_edges(t, y, 9, 0.5, 0.1, at, dir, 8);
    cr_assert_eq(n, 2);
    cr_assert_eq(dir[0], 1);
    cr_assert_float_eq(at[0], 2 + 0.02 / 0.05, 1e-12); /* the last upward mid crossing before 1 */
    cr_assert_eq(dir[1], -1);
    cr_assert_float_eq(at[1], 7 + 0.05 / 0.55, 1e-12);
}

/* A square wave whose edges fall between ours' rows (every 1 us; edges at
 * 0.5 + 5k us) sampled exactly at the rows: no error (before, the union grid
 * read ours' linear piece across each edge as a ramp: 99.5 % max error, the
 * README's compare example failed), and the instants shift by at most half a row. */
static double square(double t, int k)
{
    (void)k;
    return fmod(t, 10e-6) < 5e-6 ? 1 : -1;
}
static double square_late(double t, int k)
{
    (void)k;
    return square(t - 0.5e-6, 0);
}

Test(compare, edges_between_rows_are_not_errors)
{
    char *n[] = { "v(in)" };
    int nr = 100001; /* 1 ns, edges at 0.5 + 5k us */
    nsc_waves *ref = table(n, 1, nr, 0, 100e-6, square_late);
    nsc_waves *ours = table(n, 1, 101, 0, 100e-6, square_late);
    nsc_cmp *c = run(ours, ref, NULL, 0);
    const nsc_cmp_sig *s = &c->sig[0];
    cr_assert_eq(c->ngrid, 101);
    cr_assert(s->max_err < 1e-12, "max %g", s->max_err);
    cr_assert_eq(s->n_matched, s->n_ref);
    cr_assert_eq(s->n_ref, 19, "edges %d", s->n_ref);
    cr_assert(fabs(s->shift_max) <= 0.5e-6 + 1e-12, "shift %g", s->shift_max);
    nsc_cmp_free(c);
    nsc_waves_free(ours);
    nsc_waves_free(ref);
}

/* table of the rows (t, y) given, one column */
static nsc_waves *points(char *name, const double *t, const double *y, int n)
{
    char *names[] = { name };
    nsc_waves *W = nsc_waves_new(names, 1, "");
    cr_assert(W);
    for (int i = 0; i < n; i++) {
        double row[2] = { t[i], y[i] };
        cr_assert_eq(nsc_waves_add(W, row), 0);
    }
    return W;
}

/* Rows at accepted steps (not uniform): both tables are piecewise-linear
 * waveforms and the grid is the union of their points. A 0 -> 1 ramp of width
 * w = 1e-3 at t = 0.5 in ours and at 0.5 + w in the reference: e(t) is a
 * triangle of height 1 and base 2 w, so the RMS over [0, 1] is sqrt(2 w / 3)
 * exactly (e linear on every piece of the union grid). Before, on ours' rows
 * only, the error 1 at ours' row 0.501 was spread linearly over ours' long step
 * to 0.75: RMS 0.29, 11x too large. */
Test(compare, accepted_step_rows_are_waveforms)
{
    double w = 1e-3;
    const double to[] = { 0, 0.5, 0.5 + w, 0.75, 1 }, yo[] = { 0, 0, 1, 1, 1 };
    const double tr[] = { 0, 0.5 + w, 0.5 + 2 * w, 1 }, yr[] = { 0, 0, 1, 1 };
    nsc_waves *ours = points("v(x)", to, yo, 5), *ref = points("v(x)", tr, yr, 4);
    nsc_cmp *c = run(ours, ref, NULL, 0);
    cr_assert_eq(c->samples, 0);
    cr_assert_eq(c->ngrid, 6); /* 0, 0.5, 0.501, 0.502, 0.75, 1 */
    cr_assert_float_eq(c->sig[0].rms_err, sqrt(2 * w / 3), 1e-12, "rms %.12g", c->sig[0].rms_err);
    cr_assert_float_eq(c->sig[0].max_err, 1, 1e-12);
    nsc_cmp_free(c);
    nsc_waves_free(ours);
    nsc_waves_free(ref);
}

/* A fixed-step file as `.dat` holds it: t = t0 + i h printed "%.12e" and read
 * back. With TSTART = 1 ms and h = 1/3 ps (not a round number, so every t is
 * rounded) the times carry up to 5e-16 s of print rounding, 1.5e-3 h: the gaps
 * are h within twice that, still samples
 * (before, gaps were judged within 1e-6 h and the file was compared as a
 * waveform). Rows 1 % off the grid are not samples. */
static nsc_waves *printed_grid(int n, double t0, double h, double jitter)
{
    char *names[] = { "v(x)" };
    nsc_waves *W = nsc_waves_new(names, 1, "");
    cr_assert(W);
    char buf[32];
    for (int i = 0; i < n; i++) {
        snprintf(buf, sizeof buf, "%.12e", t0 + (i + (i % 2 ? jitter : 0)) * h);
        double row[2] = { strtod(buf, NULL), i % 7 };
        cr_assert_eq(nsc_waves_add(W, row), 0);
    }
    return W;
}

Test(compare, printed_fixed_step_rows_stay_samples)
{
    nsc_waves *ours = printed_grid(1001, 1e-3, 1e-12 / 3, 0), *ref = printed_grid(3, 1e-3, 1e-9, 0);
    nsc_cmp *c = run(ours, ref, NULL, 0);
    cr_assert_eq(c->samples, 1);
    nsc_cmp_free(c);
    nsc_waves_free(ours);
    ours = printed_grid(1001, 1e-3, 1e-12 / 3, 0.01);
    c = run(ours, ref, NULL, 0);
    cr_assert_eq(c->samples, 0);
    nsc_cmp_free(c);
    nsc_waves_free(ours);
    nsc_waves_free(ref);
}

/* A DC level whose range is round-off: judged relative to its magnitude (before,
 * a 1e-4 offset on 5 V with 1e-15 V of noise was 1e11 "of range"). */
static double dc_ref(double t, int k)
{
    (void)k;
    return 5 + 4e-15 * sin(1e5 * t);
}
static double dc_ours(double t, int k)
{
    (void)k;
    return 5.0001 + 0 * t;
}

Test(compare, roundoff_range_is_judged_by_magnitude)
{
    char *n[] = { "v(vdd)" };
    nsc_waves *ref = table(n, 1, 1001, 0, 1e-3, dc_ref);
    nsc_waves *ours = table(n, 1, 101, 0, 1e-3, dc_ours);
    nsc_cmp *c = run(ours, ref, NULL, 0);
    const nsc_cmp_sig *s = &c->sig[0];
    cr_assert_float_eq(s->scale, 5, 1e-12);
    cr_assert_float_eq(s->rms_err / s->scale, 1e-4 / 5, 1e-12);
    cr_assert_eq(s->n_ref, 0);
    cr_assert_eq(s->n_ours, 0);
    nsc_cmp_free(c);
    nsc_waves_free(ours);
    nsc_waves_free(ref);
}

/* One reference edge and none of ours: unmatched, no "+inf s" shift (with a
 * single reference instant the match limit was infinite and d = inf matched). */
static double step_up(double t, int k)
{
    (void)k;
    return t < 0.5e-3 ? 0 : 1;
}
static double flat0(double t, int k)
{
    (void)k;
    return 0 * t;
}

Test(compare, lone_edge_without_match_has_no_infinite_shift)
{
    char *n[] = { "v(x)" };
    nsc_waves *ref = table(n, 1, 1001, 0, 1e-3, step_up);
    nsc_waves *ours = table(n, 1, 1001, 0, 1e-3, flat0);
    nsc_cmp *c = run(ours, ref, NULL, 0);
    const nsc_cmp_sig *s = &c->sig[0];
    cr_assert_eq(s->n_ref, 1);
    cr_assert_eq(s->n_ours, 0);
    cr_assert_eq(s->n_matched, 0);
    cr_assert(isfinite(s->shift_max) && isfinite(s->shift_mean));
    nsc_cmp_free(c);
    nsc_waves_free(ours);
    nsc_waves_free(ref);
}

static double va(double t, int k)
{
    return k == 0 ? 10 * t : k == 1 ? 4 * t * t : 1;
}
static double vab(double t, int k)
{
    (void)k;
    return 10 * t - 4 * t * t;
}

/* v(a,b) of ours against v(a) - v(b) of the reference; names canonical. */
Test(compare, derived_and_canonical_names)
{
    char *nr[] = { "v(a)", "v(b)", "l1#branch" }, *no[] = { "V(A, B)", "i(L1)" };
    nsc_waves *ref = table(nr, 3, 101, 0, 1, va);
    nsc_waves *ours = table(no, 1, 101, 0, 1, vab);
    nsc_cmp *c = run(ours, ref, NULL, 0);
    cr_assert_eq(c->nsig, 1);
    cr_assert_str_eq(c->sig[0].name, "v(a,b)");
    cr_assert_str_eq(c->sig[0].ref_src, "v(a) - v(b)");
    cr_assert(c->sig[0].max_err < 1e-15);
    nsc_cmp_free(c);
    char *sig[] = { "v(a)-v(b)" };
    c = run(ours, ref, sig, 1);
    cr_assert_str_eq(c->sig[0].name, "v(a,b)");
    nsc_cmp_free(c);
    nsc_waves_free(ours);
    nsc_waves_free(ref);
    const char *in[] = { "V(Out)",     "v(a)-v(b)", "v(a,0)", "v(x, gnd)",
                         "vin#branch", "I( R1 )",   "time",   "v(a,b" };
    const char *want[] = { "v(out)", "v(a,b)", "v(a)", "v(x)", "i(vin)", "i(r1)", "time", "v(a,b" };
    for (int k = 0; k < 8; k++) {
        char *s = nsc_signame_canon(in[k]);
        cr_assert_str_eq(s, want[k]);
        free(s);
    }
}

Test(compare, errors)
{
    char *n[] = { "v(a)" }, *m[] = { "v(b)" };
    nsc_waves *A = table(n, 1, 11, 0, 1, ref_sin), *B = table(m, 1, 11, 0, 1, ref_sin);
    nsc_waves *C = table(n, 1, 11, 2, 3, ref_sin);
    nsc_report r;
    nsc_report_init(&r);
    nsc_cmp *c;
    cr_assert_eq(nsc_compare(A, B, NULL, 0, -INFINITY, INFINITY, &c, &r), NSC_EUSAGE);
    cr_assert(strstr(r.error, "no common signal: ours has v(a); the reference has v(b)"), "%s",
              r.error);
    nsc_report_free(&r);
    char *sig[] = { "i(x)" };
    cr_assert_eq(nsc_compare(A, A, sig, 1, -INFINITY, INFINITY, &c, &r), NSC_EUSAGE);
    cr_assert(strstr(r.error, "signal 'i(x)' is not in ours"), "%s", r.error);
    nsc_report_free(&r);
    cr_assert_eq(nsc_compare(A, C, NULL, 0, -INFINITY, INFINITY, &c, &r), NSC_EUSAGE);
    cr_assert(strstr(r.error, "no common time interval"), "%s", r.error);
    nsc_report_free(&r);
    A->v[2 * 5] = -1; /* time goes back */
    cr_assert_eq(nsc_compare(A, C, NULL, 0, -INFINITY, INFINITY, &c, &r), NSC_EUSAGE);
    cr_assert(strstr(r.error, "time decreases at row 6"), "%s", r.error);
    nsc_report_free(&r);
    nsc_waves_free(A);
    nsc_waves_free(B);
    nsc_waves_free(C);
}

/* The program's two files in tmp: ref.dat (v(a), v(b)) and ours.csv (v(a,b)). */
static void program_files(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/ref.dat", tmp);
    cr_assert_eq(tu_write_file(path, "# time v(a) v(b)\n0 0 0\n1 1 10\n2 0 0\n"), 0);
    snprintf(path, sizeof path, "%s/ours.csv", tmp);
    cr_assert_eq(tu_write_file(path, "time,v(a,b)\n0,0\n0.5,-4.49\n1,-9\n2,0\n"),
                 0); /* ref v(a,b) = -9 t */
}

/* The program: verdict and exit statuses, --plot files. */
Test(compare, program)
{
    char path[1024], cmd[4096];
    program_files();
    char *out = NULL;
    /* error 0.01 V at t = 0.5, range 9: max 0.11 %; rms: integral of a hat 0->0.01->0 over 2 s */
    snprintf(cmd, sizeof cmd, "cd %s && %s compare ours.csv ref.dat --tol 0.1%% 2>&1", tmp,
             NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "v(a,b)") && strstr(out, "PASS") && strstr(out, "10 mV  0.111 %"), "%s",
              out);
    cr_assert(strstr(out, "v(a,b): ours v(a,b), reference v(a) - v(b)"), "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "cd %s && %s compare ours.csv ref.dat --tol 1e-4 --plot -o cmp 2>&1",
             tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 1, "%s", out);
    cr_assert(strstr(out, "FAIL: 1 of 1 signals"), "%s", out);
    free(out);
    if (tu_run("command -v gnuplot >/dev/null", NULL) == 0) {
        snprintf(path, sizeof path, "%s/cmp.v_a_b.png", tmp);
        char *png = tu_read_file(path);
        cr_assert(png && !memcmp(png, "\x89PNG", 4), "no %s", path);
        free(png);
        snprintf(path, sizeof path, "%s/cmp.dat", tmp);
        tu_table t;
        cr_assert_eq(tu_table_read(path, &t), 0);
        cr_assert_eq(t.ncol, 4);
        cr_assert_eq(t.nrow, 4);                                  /* grid 0 .5 1 2 */
        cr_assert_float_eq(TU_AT(&t, 1, 3), -4.49 - -4.5, 1e-12); /* ours - ref at 0.5 */
        tu_table_free(&t);
    }
    const char *bad[] = { "ours.csv missing.raw", "ours.csv", "ours.csv ref.dat --signals 'i(l9)'",
                          "ours.csv ref.dat --tol x", "ours.csv ours.csv --signals 'v(q)'" };
    for (int k = 0; k < 5; k++) {
        snprintf(cmd, sizeof cmd, "cd %s && %s compare %s 2>&1", tmp, NSC_PROGRAM, bad[k]);
        cr_assert_eq(tu_run(cmd, &out), 2, "%s: %s", bad[k], out);
        cr_assert(strstr(out, "error"), "%s: %s", bad[k], out);
        free(out);
    }
}

/* An interrupted ours, or one covering a third of the reference's time, is no
 * PASS without --from/--to (before: PASS on the common part, exit 0); a
 * nameless wrdata file takes the names of --signals, in order. */
Test(compare, program_incomplete_and_nameless)
{
    char path[1024], cmd[4096], *out = NULL;
    program_files();
    snprintf(path, sizeof path, "%s/cut.dat", tmp);
    cr_assert_eq(tu_write_file(path,
                               "# time v(a,b)\n# interrupted at t=1 s: \n0 0\n0.5 -4.5\n1 -9\n"),
                 0);
    snprintf(cmd, sizeof cmd, "cd %s && %s compare cut.dat ref.dat 2>&1", tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 1, "%s", out);
    cr_assert(strstr(out, "FAIL: cut.dat is incomplete") && !strstr(out, "PASS"), "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "cd %s && %s compare cut.dat ref.dat --to 1 2>&1", tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    free(out);
    snprintf(path, sizeof path, "%s/short.dat", tmp);
    cr_assert_eq(tu_write_file(path, "# time v(a,b)\n0 0\n0.33 -2.97\n0.66 -5.94\n"), 0);
    snprintf(cmd, sizeof cmd, "cd %s && %s compare short.dat ref.dat 2>&1", tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 1, "%s", out);
    cr_assert(strstr(out, "FAIL: the files cover different times") && strstr(out, "33 %"), "%s",
              out);
    free(out);
    snprintf(path, sizeof path, "%s/wr.txt", tmp);
    cr_assert_eq(tu_write_file(path, " 0 0 0 5\n 1 -9 1 5\n 2 0 2 5\n"), 0);
    snprintf(cmd, sizeof cmd, "cd %s && %s compare ours.csv wr.txt --signals 'v(a,b),v(c)' 2>&1",
             tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 2, "%s", out); /* v(c) is not in ours */
    cr_assert(strstr(out, "signal 'v(c)' is not in ours"), "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "cd %s && %s compare ours.csv wr.txt --signals 'v(a,b)' 2>&1", tmp,
             NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 2, "%s", out); /* two columns, one name */
    cr_assert(strstr(out, "wr.txt has no signal names: give its 2 column names"), "%s", out);
    free(out);
    snprintf(path, sizeof path, "%s/wr1.txt", tmp);
    cr_assert_eq(tu_write_file(path, " 0 0\n 1 -9\n 2 0\n"), 0);
    snprintf(cmd, sizeof cmd,
             "cd %s && %s compare ours.csv wr1.txt --signals 'V(a,b)' --quiet 2>&1", tmp,
             NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(!strncmp(out, "PASS: all 1 signals", 19), "%s", out);
    free(out);
}

/* An AC table of (f, vdb, vp) rows, column 0 named frequency. */
static nsc_waves *ac_table(const double *f, const double *db, const double *ph, int n)
{
    char *names[] = { "vdb(out)", "vp(out)" };
    nsc_waves *W = nsc_waves_new(names, 2, "");
    cr_assert(W);
    free(W->name[0]);
    W->name[0] = strdup("frequency");
    for (int i = 0; i < n; i++) {
        double row[3] = { f[i], db[i], ph[i] };
        cr_assert_eq(nsc_waves_add(W, row), 0);
    }
    return W;
}

/* AC tables: linear in log10(f) between points, the RMS over log10(f), phases
 * the short way round and their errors modulo 360. The reference is -20
 * dB/decade from 10 Hz to 1 kHz (0, -40 dB at its two points) and its phase
 * crosses 180 (179 -> -179 degrees: through 180 at 100 Hz, not 0); ours has
 * the same line at 100 Hz (-20 dB: no error in log f; linear in f the
 * reference there would be -3.6 dB) and phases -180 (= 180), 180, -178: errors
 * 1, 0, 1 degrees (never 359). A transient and an AC table are not compared. */
Test(compare, ac_tables_in_log_frequency_and_phase_modulo_360)
{
    const double fr[] = { 10, 1000 }, dbr[] = { 0, -40 }, phr[] = { 179, -179 };
    const double fo[] = { 10, 100, 1000 }, dbo[] = { 0, -20, -40 }, pho[] = { -180, 180, -178 };
    nsc_waves *ref = ac_table(fr, dbr, phr, 2), *ours = ac_table(fo, dbo, pho, 3);
    nsc_cmp *c = run(ours, ref, NULL, 0);
    cr_assert(c->scale == NSC_SCALE_FREQ && c->logx && c->ngrid == 3 && c->nsig == 2);
    cr_assert(fabs(c->sig[0].max_err) < 1e-12, "dB error %g", c->sig[0].max_err);
    cr_assert(c->sig[1].phase);
    cr_assert_float_eq(nsc_cmp_diff(c, 1, -180, 179), 1, 1e-12);
    cr_assert_float_eq(nsc_cmp_diff(c, 1, -178, -179), 1, 1e-12);
    cr_assert_float_eq(c->sig[1].max_err, 1, 1e-9, "%.15g", c->sig[1].max_err);
    cr_assert(fabs(nsc_cmp_diff(c, 1, c->ours[c->ngrid + 1], c->ref[c->ngrid + 1]))
              < 1e-9); /* 100 Hz */
    nsc_cmp_free(c);
    nsc_waves_free(ours);
    nsc_waves_free(ref);
    /* a -1 degree phase offset everywhere, across the wrap: RMS 1 over log f */
    const double pr3[] = { 178, -179, -170 }, po3[] = { 177, 180, -171 };
    ref = ac_table(fo, dbo, pr3, 3);
    ours = ac_table(fo, dbo, po3, 3);
    c = run(ours, ref, NULL, 0);
    cr_assert_float_eq(c->sig[1].rms_err, 1, 1e-12, "%.15g", c->sig[1].rms_err);
    cr_assert_float_eq(c->sig[1].max_err, 1, 1e-12);
    nsc_cmp_free(c);
    /* not a transient */
    char *n[] = { "vdb(out)" };
    nsc_waves *tr = table(n, 1, 11, 0, 1e-3, ref_sin);
    nsc_report r;
    nsc_report_init(&r);
    nsc_cmp *x = NULL;
    cr_assert_eq(nsc_compare(ours, tr, NULL, 0, -INFINITY, INFINITY, &x, &r), NSC_EUSAGE);
    cr_assert(strstr(r.error,
                     "ours is an AC analysis (frequency), the reference a transient (time)"),
              "%s", r.error);
    nsc_report_free(&r);
    nsc_waves_free(tr);
    nsc_waves_free(ours);
    nsc_waves_free(ref);
}

/* A zero AC magnitude (-inf dB) in both tables is no error: a DC supply node
 * has no AC signal, and ngspice's raw file and ours both hold 0 there (before,
 * -inf - -inf was NaN and two identical files FAILed with "-nan %"). A notch
 * row of exactly 0 in both likewise; -inf in ours where the reference is
 * finite is an infinite error (FAIL), never NaN. */
Test(compare, zero_ac_magnitude_in_both_is_no_error)
{
    const double f[] = { 10, 100, 1000 }, inf3[] = { -INFINITY, -INFINITY, -INFINITY },
                 ph[] = { 0, 0, 0 };
    const double notch[] = { -20, -INFINITY, -20 }, flat[] = { -20, -25, -20 };
    nsc_waves *ref = ac_table(f, inf3, ph, 3), *ours = ac_table(f, inf3, ph, 3);
    nsc_cmp *c = run(ours, ref, NULL, 0);
    for (int q = 0; q < 2; q++) {
        cr_assert(c->sig[q].max_err == 0 && c->sig[q].rms_err == 0, "%s: %g %g", c->sig[q].name,
                  c->sig[q].max_err, c->sig[q].rms_err);
        cr_assert(isfinite(c->sig[q].range) && isfinite(c->sig[q].scale) && c->sig[q].scale > 0);
    }
    nsc_cmp_free(c);
    nsc_waves_free(ours);
    nsc_waves_free(ref);
    ref = ac_table(f, notch, ph, 3);
    ours = ac_table(f, notch, ph, 3);
    c = run(ours, ref, NULL, 0);
    cr_assert(c->sig[0].max_err == 0 && c->sig[0].rms_err == 0, "%g %g", c->sig[0].max_err,
              c->sig[0].rms_err);
    cr_assert_float_eq(c->sig[0].range, 0, 1e-12, "range of the finite values: %g",
                       c->sig[0].range);
    nsc_cmp_free(c);
    nsc_waves_free(ref);
    ref = ac_table(f, flat, ph, 3);
    c = run(ours, ref, NULL, 0);
    cr_assert(isinf(c->sig[0].max_err) && isinf(c->sig[0].rms_err), "%g %g", c->sig[0].max_err,
              c->sig[0].rms_err);
    cr_assert_float_eq(c->sig[0].range, 5, 1e-12);
    nsc_cmp_free(c);
    nsc_waves_free(ours);
    nsc_waves_free(ref);
}

/* A DC sweep run downwards (.dc V1 2 -1 -0.5, nscircuit and ngspice write it
 * in that order) compares as the same sweep upwards: before, compare refused
 * it ("the swept value decreases at row 2 ... a nested sweep?"). v(out) =
 * 0.5 v-sweep in the reference; ours is 0.5 v-sweep + 0.01 at one point (x = 0.5):
 * a max error 0.01 there. A sweep that goes down then up (nested) is still an
 * error. */
static nsc_waves *sweep_table(const double *x, const double *y, int n)
{
    char *names[] = { "v(out)" };
    nsc_waves *W = nsc_waves_new(names, 1, "");
    cr_assert(W);
    free(W->name[0]);
    W->name[0] = strdup("v-sweep");
    for (int i = 0; i < n; i++) {
        double row[2] = { x[i], y[i] };
        cr_assert_eq(nsc_waves_add(W, row), 0);
    }
    return W;
}

Test(compare, downward_dc_sweep_compares_as_the_same_sweep)
{
    const double xd[] = { 2, 1.5, 1, 0.5, 0, -0.5, -1 },
                 yd[] = { 1, 0.75, 0.5, 0.26, 0, -0.25, -0.5 };
    const double xu[] = { -1, 0, 1, 2 }, yu[] = { -0.5, 0, 0.5, 1 };
    nsc_waves *ours = sweep_table(xd, yd, 7), *ref = sweep_table(xu, yu, 4);
    nsc_cmp *c = run(ours, ref, NULL, 0);
    cr_assert(c->scale == NSC_SCALE_SWEEP && c->t0 == -1 && c->t1 == 2 && c->ngrid == 7, "%g %g %d",
              c->t0, c->t1, c->ngrid);
    cr_assert_float_eq(c->sig[0].max_err, 0.01, 1e-12, "%.15g", c->sig[0].max_err);
    cr_assert_float_eq(c->sig[0].t_max_err, 0.5, 1e-12);
    cr_assert_float_eq(c->sig[0].range, 1.5, 1e-12);
    nsc_cmp_free(c);
    c = run(ref, ours, NULL, 0); /* the downward one as the reference */
    cr_assert_float_eq(c->sig[0].max_err, 0.01, 1e-12);
    nsc_cmp_free(c);
    nsc_waves_free(ours);
    const double xn[] = { 0, 1, 0, 1 }, yn[] = { 0, 0.5, 0, 0.5 };
    ours = sweep_table(xn, yn, 4);
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(nsc_compare(ours, ref, NULL, 0, -INFINITY, INFINITY, &c, &r), NSC_EUSAGE);
    cr_assert(strstr(r.error, "decreases at row 3") && strstr(r.error, "nested"), "%s", r.error);
    nsc_report_free(&r);
    nsc_waves_free(ours);
    nsc_waves_free(ref);
}

/* AC files that cover different decades are incomplete on the log scale the
 * comparison uses: ours from 100 Hz, the reference from 1 Hz to 1 MHz holds
 * 4 of the 6 decades (67 %; before, 100 Hz .. 1 MHz was 99.99 % of the
 * linear span and the run PASSed with two decades never compared). */
Test(compare, ac_coverage_counts_decades)
{
    char path[1024], cmd[4096];
    const char *hdr = "# frequency vdb(out) vp(out)\n# magnitudes in dB, phases in degrees\n";
    snprintf(path, sizeof path, "%s/acref.dat", tmp);
    char *text = nsc_asprintf(
        "%s1 0 0\n10 -1 -10\n100 -3 -45\n1e3 -20 -84\n1e4 -40 -89\n1e5 -60 -90\n1e6 -80 -90\n",
        hdr);
    cr_assert_eq(tu_write_file(path, text), 0);
    free(text);
    snprintf(path, sizeof path, "%s/acours.dat", tmp);
    text = nsc_asprintf("%s100 -3 -45\n1e3 -20 -84\n1e4 -40 -89\n1e5 -60 -90\n1e6 -80 -90\n", hdr);
    cr_assert_eq(tu_write_file(path, text), 0);
    free(text);
    char *out = NULL;
    snprintf(cmd, sizeof cmd, "cd %s && %s compare acours.dat acref.dat 2>&1", tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 1, "%s", out);
    cr_assert(strstr(out, "FAIL: the files cover different frequencies")
                  && strstr(out, "hold for 66.7 % of it"),
              "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "cd %s && %s compare acours.dat acref.dat --from 100 2>&1", tmp,
             NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    free(out);
}

/* An AC run at one frequency (.ac lin 1 1k 1k) has no interval to compare
 * on: the error says frequency and Hz (before: "no common time interval:
 * ours covers 1000 .. 1000 s"). */
Test(compare, one_frequency_is_no_interval_in_hz)
{
    const double f[] = { 1000 }, db[] = { -3 }, ph[] = { -45 };
    nsc_waves *a = ac_table(f, db, ph, 1), *b = ac_table(f, db, ph, 1);
    nsc_report r;
    nsc_report_init(&r);
    nsc_cmp *c = NULL;
    cr_assert_eq(nsc_compare(a, b, NULL, 0, -INFINITY, INFINITY, &c, &r), NSC_EUSAGE);
    cr_assert(
        strstr(
            r.error,
            "no common frequency interval: ours covers 1000 .. 1000 Hz, the reference 1000 .. 1000 Hz"),
        "%s", r.error);
    nsc_report_free(&r);
    nsc_waves_free(a);
    nsc_waves_free(b);
}

/* --plot with a node without AC signal (vdb = -inf dB in both files: a DC
 * supply): that signal has nothing to draw and is left out of the plots with a
 * note; the others are drawn (before: gnuplot's "all points y value
 * undefined" failed the whole command, exit 4). */
Test(compare, plot_leaves_out_a_signal_without_finite_values)
{
    if (tu_run("command -v gnuplot >/dev/null", NULL) != 0) return;
    char path[1024], cmd[4096];
    snprintf(path, sizeof path, "%s/acvdd.dat", tmp);
    cr_assert_eq(
        tu_write_file(path, "# frequency vdb(vdd) vp(vdd) vdb(out) vp(out)\n# phases in degrees\n"
                            "1 -inf 0 -3 -45\n10 -inf 0 -20 -84\n100 -inf 0 -40 -89\n"),
        0);
    char *out = NULL;
    snprintf(cmd, sizeof cmd, "cd %s && %s compare acvdd.dat acvdd.dat --plot -o pv 2>&1", tmp,
             NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "vdb(vdd): no finite value, not plotted")
                  && strstr(out, "pv.vdb_out.png"),
              "%s", out);
    free(out);
    snprintf(path, sizeof path, "%s/pv.vdb_vdd.gp", tmp);
    cr_assert(access(path, F_OK) != 0, "%s written", path);
}

/* ngspice's default wrdata of an AC run has no names (no wr_vecnames):
 * pairs (f, vdb), (f, vp radians). Named with --signals against our AC .dat
 * it is an AC table, its phases in degrees (before: "ours is an AC analysis
 * (frequency), the reference a transient (time)"). The reference is ours'
 * values, the phase -pi/4 = -45 degrees: no error. */
Test(compare, unnamed_wrdata_ac_named_by_signals)
{
    char path[1024], cmd[4096];
    snprintf(path, sizeof path, "%s/uac.dat", tmp);
    cr_assert_eq(tu_write_file(
                     path,
                     "# frequency vdb(out) vp(out)\n# phases in degrees\n10 -3 -45\n100 -20 -84\n"),
                 0);
    snprintf(path, sizeof path, "%s/uac_ng.txt", tmp);
    cr_assert_eq(tu_write_file(path,
                               " 10 -3 10 -0.7853981633974483\n 100 -20 100 -1.4660765716752369\n"),
                 0);
    char *out = NULL;
    snprintf(cmd, sizeof cmd,
             "cd %s && %s compare uac.dat uac_ng.txt --signals 'vdb(out),vp(out)' 2>&1", tmp,
             NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "PASS: all 2 signals") && strstr(out, "log frequency"), "%s", out);
    free(out);
}

/* A nested DC sweep (.dc V1 -2 2 0.5 I1 0 1m 0.5m) compares each inner sweep
 * as its own curve, keyed by the outer value: ours' .dat and raw (the outer
 * column sweep(i1)) against ngspice 39's wrdata and raw of the same netlist
 * (tests/data/dc/README.md: only v-sweep, the inner sweeps one after the
 * other), within 1e-9 of the range as dc/linear_nested_vs_ngspice finds the
 * numbers. Before: "the swept value decreases at row 10 (a nested sweep?
 * compare the rows of one inner sweep)", exit 2. */
Test(compare, nested_dc_sweep_against_ngspice)
{
    char cmd[4096], *out = NULL;
    const char *d = NSC_TOP_SRCDIR "/tests/data/dc";
    snprintf(
        cmd, sizeof cmd,
        "cd %s && %s -o n.dat %s/linear_nested.cir >/dev/null 2>&1 && %s --format raw -o n.raw "
        "%s/linear_nested.cir >/dev/null 2>&1 && %s compare n.dat %s/linear_nested_ngspice39.dat --tol 1e-9 && "
        "%s compare n.raw %s/linear_nested_ngspice39.raw --tol 1e-9",
        tmp, NSC_PROGRAM, d, NSC_PROGRAM, d, NSC_PROGRAM, d, NSC_PROGRAM, d);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "a nested DC sweep: 3 inner sweeps of sweep(i1)"), "%s", out);
    cr_assert(strstr(out, "\nsweep(i1) = 0: -2 V .. 2 V, 9 points\n")
                  && strstr(out, "\nsweep(i1) = 0.0005: -2 V .. "
                                 "2 V, 9 points\n")
                  && strstr(out, "\nsweep(i1) = 0.001: -2 V .. 2 V, 9 points\n"),
              "%s", out);
    cr_assert(
        strstr(
            out,
            "PASS: all 6 signals within --tol 1e-07 % (rms error of the reference range) in each of "
            "the 3 inner sweeps")
            && strstr(out, "PASS: all 3 signals"),
        "%s", out);
    free(out);
}

/* One table of a nested sweep: for each outer k in 0..nk, the inner values
 * x0, x0 + dx, ... (n of them), y = x + 10 k (+ bump at x == xb in inner
 * sweep kb); with outer != 0 the column sweep(i1) = k 0.5m after v-sweep. */
static nsc_waves *nested(int nk, double x0, double dx, int n, int outer, int kb, double xb,
                         double bump)
{
    char *names[] = { "sweep(i1)", "v(out)" };
    nsc_waves *W = nsc_waves_new(outer ? names : names + 1, outer ? 2 : 1, "");
    cr_assert(W);
    free(W->name[0]);
    W->name[0] = strdup("v-sweep");
    for (int k = 0; k < nk; k++)
        for (int i = 0; i < n; i++) {
            double x = x0 + dx * i, y = x + 10 * k + (k == kb && fabs(x - xb) < 1e-12 ? bump : 0);
            double row[3] = { x, outer ? k * 0.5e-3 : y, y };
            cr_assert_eq(nsc_waves_add(W, row), 0);
        }
    return W;
}

/* The inner sweeps pair in order, a downward inner sweep of the reference
 * with an upward one of ours; the outer column is the key, not a signal. A
 * 10 mV error at x = 0.5 in the second inner sweep is that sweep's alone:
 * max 10 mV there, and (v(out) linear in x, ours' 4 points on the
 * reference's 7) round-off in the others. 3 inner sweeps against 2 is an
 * error. */
Test(compare, nested_dc_sweep_pairs_the_inner_sweeps)
{
    nsc_waves *ours = nested(3, -1, 1, 4, 1, -1, 0, 0),
              *ref = nested(3, 2, -0.5, 7, 0, 1, 0.5, 0.01);
    nsc_report r;
    nsc_report_init(&r);
    nsc_cmp_set *S = NULL;
    cr_assert_eq(nsc_compare_set(ours, ref, NULL, 0, -INFINITY, INFINITY, &S, &r), NSC_OK, "%s",
                 r.error);
    cr_assert_eq(S->n, 3);
    cr_assert_str_eq(S->outer, "sweep(i1)");
    for (int k = 0; k < 3; k++) {
        const nsc_cmp *c = S->c[k];
        cr_assert_float_eq(S->key[k], k * 0.5e-3, 1e-18);
        cr_assert(c->nsig == 1 && !strcmp(c->sig[0].name, "v(out)") && c->t0 == -1 && c->t1 == 2
                  && c->ngrid == 7);
        cr_assert_float_eq(c->sig[0].max_err, k == 1 ? 0.01 : 0, 1e-12, "inner sweep %d: %g", k,
                           c->sig[0].max_err);
        if (k == 1) cr_assert_float_eq(c->sig[0].t_max_err, 0.5, 1e-12);
    }
    nsc_cmp_set_free(S);
    nsc_cmp *one = NULL;
    cr_assert_eq(nsc_compare(ours, ref, NULL, 0, -INFINITY, INFINITY, &one, &r), NSC_EUSAGE);
    nsc_waves_free(ref);
    ref = nested(2, 2, -0.5, 7, 0, -1, 0, 0);
    nsc_report_free(&r);
    nsc_report_init(&r);
    cr_assert_eq(nsc_compare_set(ours, ref, NULL, 0, -INFINITY, INFINITY, &S, &r), NSC_EUSAGE);
    cr_assert(
        strstr(r.error,
               "ours holds 3 inner sweeps, the reference 2 (in ours, sweep(i1) changes at row 5)"),
        "%s", r.error);
    nsc_report_free(&r);
    nsc_waves_free(ours);
    nsc_waves_free(ref);
}

/* A NaN in the reference (ngspice writes "nan" in a raw file when a run
 * diverged): the signal's errors are NaN, the row named, the verdict FAIL.
 * Before: "max error 0 V 0 %" beside an rms of inf (a NaN compares false). */
Test(compare, nan_in_the_reference_is_named)
{
    char path[1024], cmd[4096], *out = NULL;
    snprintf(path, sizeof path, "%s/o.dat", tmp);
    cr_assert_eq(tu_write_file(path, "# v-sweep v(in) v(out)\n0 0 0\n0.5 0.5 0.25\n1 1 0.5\n"), 0);
    snprintf(path, sizeof path, "%s/nan.raw", tmp);
    cr_assert_eq(tu_write_file(
                     path, "Title: r\nDate: x\nPlotname: DC transfer characteristic\nFlags: real\n"
                           "No. Variables: 3\nNo. Points: 3\nVariables:\n\t0\tv-sweep\tvoltage\n"
                           "\t1\tv(in)\tvoltage\n\t2\tv(out)\tvoltage\nValues:\n 0\t0\n\t0\n\t0\n\n"
                           " 1\t0.5\n\tnan\n\t0.25\n\n 2\t1\n\t1\n\t0.5\n\n"),
                 0);
    snprintf(cmd, sizeof cmd, "cd %s && %s compare o.dat nan.raw 2>&1", tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 1, "%s", out);
    cr_assert(strstr(out,
                     "\nv(in)   1 V          NaN                    NaN                    FAIL"),
              "%s", out);
    cr_assert(strstr(out, "v(in): NaN in the reference at row 2 (0.5): its errors are NaN"), "%s",
              out);
    cr_assert(
        strstr(
            out,
            "FAIL: 1 of 2 signals above --tol 1 % (rms error of the reference range); worst v(in): "
            "NaN (row 2 of the reference)"),
        "%s", out);
    free(out);
}

/* A node held by gmin at -5e8 V (a current source pulling 1 mA out of a
 * floating base) moves 5 V over a sweep; ours is 0.25 V off (5e-10 of it, far
 * inside any SPICE's tolerance). Its range is below 1e-6 of its magnitude: the
 * error divides by the magnitude (before: by the 5 V range, 5 %). */
static double gmin_ref(double t, int k)
{
    (void)k;
    return -5e8 + 5 * t;
}
static double gmin_ours(double t, int k)
{
    return gmin_ref(t, k) - 0.25;
}

Test(compare, range_within_a_millionth_of_the_level_is_judged_by_magnitude)
{
    char *n[] = { "v(b)" };
    nsc_waves *ref = table(n, 1, 201, 0, 1, gmin_ref), *ours = table(n, 1, 201, 0, 1, gmin_ours);
    nsc_cmp *c = run(ours, ref, NULL, 0);
    const nsc_cmp_sig *s = &c->sig[0];
    cr_assert_float_eq(s->range, 5, 1e-6);
    cr_assert_float_eq(s->scale, 5e8, 1);
    cr_assert_float_eq(s->rms_err / s->scale, 5e-10, 1e-15);
    nsc_cmp_free(c);
    nsc_waves_free(ours);
    nsc_waves_free(ref);
}
