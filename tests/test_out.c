/* test_out.c -- output table, probe lists and the writers. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"
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
    cr_assert(strstr(s, "set multiplot layout 2,1"), "%s", s);
    cr_assert(strstr(s, "using 1:2 with lines lw 1.5 title 'v(a)'"));
    cr_assert(strstr(s, "using 1:3 with lines lw 1.5 title 'i(l1)'"));
    cr_assert(strstr(s, "voltage (V)") && strstr(s, "current (A)"));
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
