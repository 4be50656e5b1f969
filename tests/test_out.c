/* test_out.c -- output table, probe lists and the writers. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "netlist.h"
#include "out.h"
#include "stepper.h"
#include "testutil.h"
#include "waves.h"

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
    cr_assert_eq(nsc_write_dat(W, path, &r), NSC_OK);
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
    cr_assert_eq(nsc_write_csv(W, path, &r), NSC_OK);
    char *s = tu_read_file(path);
    cr_assert(strncmp(s, "time,v(a),i(l1)\n0.000000000000e+00,3.333333333333e-01,", 54) == 0, "%.60s", s);
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
    cr_assert_eq(nsc_write_dat(W, path, &r), NSC_OK);
    char *s = tu_read_file(path);
    cr_assert(strncmp(s, "# time v(a) i(l1)\n# stopped (simulation failure) at t=2.5", 56) == 0, "%.80s", s);
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
    cr_assert_eq(nsc_write_dat(W, "/nonexistent-dir/x.dat", &r), NSC_EIO);
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
    cr_assert_eq(nsc_write_dat(W, dat, &r), NSC_OK);
    cr_assert_eq(nsc_write_gp(W, dat, gp, png, &r), NSC_OK);
    char *s = tu_read_file(gp);
    /* voltages and currents in separate panels; time in ms (the run is 2.5 ms),
     * v(a) up to 2.5e3 V in kV, i(l1) down to -5 A in A; names in the legend */
    cr_assert(strstr(s, "set multiplot layout 2,1"), "%s", s);
    cr_assert(strstr(s, "using ($1*1e+03):($2*1e-03) with lines lw 1.5 title 'v(a)'"), "%s", s);
    cr_assert(strstr(s, "using ($1*1e+03):($3*1e+00) with lines lw 1.5 title 'i(l1)'"), "%s", s);
    cr_assert(strstr(s, "set ylabel 'voltage (kV)'") && strstr(s, "set ylabel 'current (A)'"), "%s", s);
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
    cr_assert_eq(nsc_waves_add(W, row), 0);                  /* still growable */
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
    cr_assert_eq(nsc_netlist_read_string("rc\nV1 a 0 1\nR1 a b 1k\nC1 b 0 1u\n.tran 1u 2.5m\n", "p.cir", NULL, 0, &c, &r), NSC_OK);
    nsc_probe *p = NULL;
    int np = 0, ctx = 0;
    cr_assert_eq(nsc_probes_default(c, &p, &np, &r), NSC_OK);
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
    cr_assert_eq(nsc_run_tran(c, &o, p, np, &W, &st, &r), NSC_OK, "%s", r.error ? r.error : "");
    cr_assert_eq(st.steps, 2500);
    cr_assert_eq(ncalls, 2);
    cr_assert_eq(ctx, 2);
    cr_assert_float_eq(tcalls[0], 1e-3, 1e-15);
    cr_assert_float_eq(tcalls[1], 2e-3, 1e-15);
    nsc_waves_free(W);
    nsc_probes_free(p, np);
    nsc_circuit_free(c);
    nsc_report_free(&r);
}
