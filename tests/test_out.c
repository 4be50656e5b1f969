/* test_out.c -- output table, probe lists and the writers. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "netlist.h"
#include "out.h"
#include "out_stream.h"
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
    cr_assert_eq(nsc_write_dat(W, path, 0, &r), NSC_OK);
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
            nsc_status s = f == 0 ? nsc_write_dat(W, path, th[j], &r) : f == 1 ? nsc_write_csv(W, path, th[j], &r)
                                                                           : nsc_write_raw(W, path, f == 3, th[j], &r);
            cr_assert_eq(s, NSC_OK, "%s", r.error);
            text[j] = tu_read_file(path);
            cr_assert(text[j]);
        }
        if (f == 0) {                                           /* printf's rows, after the header line */
            const char *p = strchr(text[0], '\n') + 1;
            char line[256];
            for (int i = 0; i < W->nrow; i++) {
                const double *v = W->v + (size_t)i * 5;
                int n = snprintf(line, sizeof line, "%.12e %.12e %.12e %.12e %.12e\n", v[0], v[1], v[2], v[3], v[4]);
                cr_assert(strncmp(p, line, (size_t)n) == 0, "row %d: %.*s vs %s", i, n, p, line);
                p += n;
            }
            cr_assert_eq(*p, 0);
        }
        if (f == 2)                                             /* raw: the date line may differ */
            for (int j = 0; j < 3; j++) {
                char *dl = strstr(text[j], "\nDate: ");
                cr_assert(dl);
                memset(dl + 7, 'x', 25);
            }
        if (f < 3) {                                            /* text formats: whole files equal */
            cr_expect_str_eq(text[1], text[0], "format %d, 3 threads", f);
            cr_expect_str_eq(text[2], text[0], "format %d, 8 threads", f);
        }
        for (int j = 0; j < 3; j++) free(text[j]);
    }
    for (int j = 1; j < 3; j++) {                               /* binary raw: compare bytes */
        char pa[512], pb[512];
        snprintf(pa, sizeof pa, "%s/w3_1", d);
        snprintf(pb, sizeof pb, "%s/w3_%d", d, th[j]);
        FILE *a = fopen(pa, "rb"), *b = fopen(pb, "rb");
        cr_assert(a && b);
        long n = 0;
        int ca, cb, date = 0;
        while ((ca = getc(a)) != EOF && (cb = getc(b)) != EOF) {
            if (ca == '\n') date++;                              /* line 2 is the date */
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
        for (int budget = 0; budget < 3; budget++) {          /* none, part-way, from the start */
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
            nsc_waves_keep(W, 3);                                /* time, v(a), i(l1) */
            int done = 0;
            cr_assert_eq(nsc_stream_finish(S, W, &done, &r), NSC_OK, "%s", r.error);
            cr_assert_eq(done, 1);
            nsc_stream_free(S);
            nsc_status s = f == 0 ? nsc_write_dat(W, ref, 1, &r) : f == 1 ? nsc_write_csv(W, ref, 1, &r)
                                                                      : nsc_write_raw(W, ref, f == 3, 1, &r);
            cr_assert_eq(s, NSC_OK);
            char *a = tu_read_file(ref), *b = tu_read_file(got);
            cr_assert(a && b);
            if (f >= 2) {                                        /* raw: the date line may differ */
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
            cr_expect(memcmp(a, b, (size_t)na) == 0, "format %d budget %d: bytes differ", f, budget);
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
