/* test_raw.c -- ngspice raw files (writer out_raw.c, readers rd_raw.c, rd_table.c):
 * the header as ngspice 39 writes it, round trips, ngspice's own `load` of our
 * files, our readers on files ngspice wrote (raw ASCII/binary, wrdata). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "output/out.h"
#include "output/rd.h"
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
TestSuite(raw, .init = setup, .fini = teardown);

/* time, v(a) = 1/3 + i (not exact in decimal), v(a,b) = -sin, i(l1) = tiny */
static nsc_waves *sample(int n)
{
    char *names[] = { "v(a)", "v(a,b)", "i(l1)" };
    nsc_waves *W = nsc_waves_new(names, 3, "Sample title");
    cr_assert(W);
    for (int i = 0; i < n; i++) {
        double row[4] = { i * 1e-6, 1.0 / 3.0 + i, -sin(0.01 * i), 1e-300 * i - 2.5e-7 };
        cr_assert_eq(nsc_waves_add(W, row), 0);
    }
    return W;
}

static char *path_of(const char *name)
{
    char *p = nsc_asprintf("%s/%s", tmp, name);
    cr_assert(p);
    return p;
}

static nsc_waves *read_ok(const char *path, nsc_wfinfo *info)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_waves *W = NULL;
    nsc_status s = nsc_read_waves(path, &W, info, &r);
    cr_assert_eq(s, NSC_OK, "%s: %s", path, r.error ? r.error : "");
    nsc_report_free(&r);
    return W;
}

/* a and b hold the same columns (by name) and rows, values within rel */
static void same(const nsc_waves *a, const nsc_waves *b, double rel)
{
    cr_assert_eq(a->nrow, b->nrow, "rows %d vs %d", a->nrow, b->nrow);
    for (int k = 0; k < a->ncol; k++) {
        int kb = nsc_waves_col(b, a->name[k]);
        cr_assert(kb >= 0, "column %s missing", a->name[k]);
        for (int i = 0; i < a->nrow; i++) {
            double x = a->v[(size_t)i * a->ncol + k], y = b->v[(size_t)i * b->ncol + kb];
            if (rel == 0) cr_assert(x == y, "%s row %d: %.17g vs %.17g", a->name[k], i, x, y);
            else
                cr_assert(fabs(x - y) <= rel * fabs(x), "%s row %d: %.17g vs %.17g", a->name[k], i,
                          x, y);
        }
    }
}

/* The Date: line follows SOURCE_DATE_EPOCH (UTC), so a test comparing two runs'
 * bytes does not depend on the clock (a make check once failed when two runs
 * straddled a second); a malformed value falls back to the clock. */
Test(raw, date_follows_source_date_epoch)
{
    nsc_waves *W = sample(3);
    char *p = path_of("d.raw");
    nsc_report r;
    nsc_report_init(&r);
    const char *vals[] = { "1700000000", "0", "12x" };
    const char *want[] = { "Date: Tue Nov 14 22:13:20  2023\n", "Date: Thu Jan  1 00:00:00  1970\n",
                           NULL };
    for (int k = 0; k < 3; k++) {
        setenv("SOURCE_DATE_EPOCH", vals[k], 1);
        cr_assert_eq(nsc_write_raw(W, p, 0, 0, &r), NSC_OK);
        char *s = tu_read_file(p);
        cr_assert(s);
        const char *d = strstr(s, "\nDate: ");
        cr_assert(d);
        if (want[k]) cr_assert(!strncmp(d + 1, want[k], strlen(want[k])), "%.40s", d + 1);
        else
            cr_assert(strncmp(d + 1, "Date: Thu Jan  1", 16) != 0
                          && strncmp(d + 1, "Date: unknown", 13) != 0,
                      "%.40s", d + 1);
        free(s);
    }
    setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
    nsc_report_free(&r);
    free(p);
    nsc_waves_free(W);
}

Test(raw, ascii_header_as_ngspice)
{
    nsc_waves *W = sample(3);
    char *p = path_of("a.raw");
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(nsc_write_raw(W, p, 0, 0, &r), NSC_OK);
    char *s = tu_read_file(p);
    cr_assert(s);
    cr_assert(!strncmp(s, "Title: Sample title\nDate: ", 26), "%.40s", s);
    const char *d = strchr(s + 20, '\n'); /* "Sat Nov 21 21:05:29  2026" */
    cr_assert(d && d - (s + 26) == 25 && s[26 + 19] == ' ' && s[26 + 20] == ' ', "date: %.40s",
              s + 26);
    const char *rest =
        "Plotname: Transient Analysis\nFlags: real\nNo. Variables: 4\nNo. Points: 3       \n"
        "Variables:\n\t0\ttime\ttime\n\t1\tv(a)\tvoltage\n\t2\tv(a,b)\tvoltage\n\t3\ti(l1)\tcurrent\n"
        "Values:\n0\t\t0.000000000000000e+00\n\t3.333333333333333e-01\n\t0.000000000000000e+00\n"
        "\t-2.500000000000000e-07\n1\t\t1.000000000000000e-06\n\t1.333333333333333e+00\n";
    cr_assert(!strncmp(d + 1, rest, strlen(rest)), "%s", d + 1);
    free(s);
    free(p);
    nsc_waves_free(W);
    nsc_report_free(&r);
}

Test(raw, roundtrip_ascii_and_binary)
{
    nsc_waves *W = sample(1000);
    char *pa = path_of("a.raw"), *pb = path_of("b.raw");
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(nsc_write_raw(W, pa, 0, 0, &r), NSC_OK);
    cr_assert_eq(nsc_write_raw(W, pb, 1, 0, &r), NSC_OK);
    nsc_wfinfo ia, ib;
    nsc_waves *A = read_ok(pa, &ia), *B = read_ok(pb, &ib);
    cr_assert_eq(ia.kind, NSC_WF_RAW);
    cr_assert_eq(ib.kind, NSC_WF_RAWBIN);
    cr_assert_str_eq(B->title, "Sample title");
    same(W, B, 0);     /* binary: bit for bit */
    same(W, A, 6e-16); /* %.15e: 16 digits */
    /* binary values are little-endian doubles, row after row */
    char *s = tu_read_file(pb);
    const unsigned char *v = (const unsigned char *)strstr(s, "Binary:\n") + 8;
    uint64_t u = 0;
    for (int k = 7; k >= 0; k--) u = (u << 8) | v[8 * 5 + k]; /* row 1, column 1: v(a) */
    double x;
    memcpy(&x, &u, 8);
    cr_assert_eq(x, 1.0 / 3.0 + 1);
    free(s);
    nsc_waves_free(A);
    nsc_waves_free(B);
    nsc_waves_free(W);
    free(pa);
    free(pb);
    nsc_report_free(&r);
}

/* A run that stopped early says so in the title (the only free-text header line
 * ngspice's reader accepts), and a truncated binary file yields its complete rows. */
Test(raw, early_end_and_truncation)
{
    nsc_waves *W = sample(10);
    W->end = NSC_RUN_FAILED;
    W->t_end = 9e-6;
    W->end_msg = strdup("time 9e-06 s: no solution");
    char *p = path_of("e.raw");
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(nsc_write_raw(W, p, 1, 0, &r), NSC_OK);
    char *s = tu_read_file(p);
    const char *t1 =
        "Title: Sample title [stopped (simulation failure) at t=9.0000000000e-06 s: time 9e-06 s: no solution]\n";
    cr_assert(!strncmp(s, t1, strlen(t1)), "%.120s", s);
    free(s);
    /* cut in the middle of row 8 */
    FILE *f = fopen(p, "rb");
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    const char *bin = strstr(buf, "Binary:\n") + 8;
    size_t cut = (size_t)(bin - buf) + 7 * 32 + 12;
    cr_assert(cut < n);
    f = fopen(p, "wb");
    fwrite(buf, 1, cut, f);
    fclose(f);
    nsc_wfinfo in;
    nsc_waves *B = read_ok(p, &in);
    cr_assert_eq(B->nrow, 7);
    cr_assert_eq(B->v[4 * 6 + 1], 1.0 / 3.0 + 6);
    cr_assert_eq(in.incomplete, 1); /* marked in the Title and truncated */
    nsc_waves_free(B);
    /* "No. Points: 0" as a killed ngspice leaves it: every complete row */
    char *np = strstr(buf, "No. Points: 10");
    cr_assert(np);
    np[12] = '0';
    np[13] = ' ';
    f = fopen(p, "wb");
    fwrite(buf, 1, n, f);
    fclose(f);
    B = read_ok(p, NULL);
    cr_assert_eq(B->nrow, 10);
    nsc_waves_free(B);
    nsc_waves *A = sample(5);
    cr_assert_eq(nsc_write_raw(A, p, 0, 0, &r), NSC_OK);
    s = tu_read_file(p);
    np = strstr(s, "No. Points: 5");
    np[12] = '0';
    cr_assert_eq(tu_write_file(p, s), 0);
    free(s);
    B = read_ok(p, NULL);
    cr_assert_eq(B->nrow, 5);
    nsc_waves_free(B);
    nsc_waves_free(A);
    nsc_waves_free(W);
    free(p);
    nsc_report_free(&r);
}

/* ngspice 39 loads both of our files; what it loaded, written back by ngspice
 * itself (binary), is what we wrote: same names, same values. */
Test(raw, ngspice_loads_ours)
{
    if (!*NSC_NGSPICE) cr_skip_test("ngspice not installed (the CI installs it)");
    nsc_waves *W = sample(500);
    char *pa = path_of("ours_a.raw"), *pb = path_of("ours_b.raw");
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(nsc_write_raw(W, pa, 0, 0, &r), NSC_OK);
    cr_assert_eq(nsc_write_raw(W, pb, 1, 0, &r), NSC_OK);
    char *
        script = path_of("load.cir"),
       *text = nsc_asprintf(
           "* load nscircuit raw files\n.control\nset filetype=binary\nload %s\nwrite %s/back_a.raw\n"
           "load %s\nwrite %s/back_b.raw\n.endc\n.end\n",
           pa, tmp, pb, tmp);
    cr_assert_eq(tu_write_file(script, text), 0);
    char *cmd = nsc_asprintf("cd %s && %s -b %s 2>&1", tmp, NSC_NGSPICE, script), *out = NULL;
    tu_run(cmd, &out); /* exit status 1: "no simulations run" in batch mode */
    cr_assert(out && !strstr(out, "rror") && !strstr(out, "arning"), "ngspice: %s", out);
    char *ba = path_of("back_a.raw"), *bb = path_of("back_b.raw");
    nsc_waves *A = read_ok(pa, NULL), *BA = read_ok(ba, NULL), *BB = read_ok(bb, NULL);
    same(A, BA, 0); /* ngspice parsed our ASCII digits as we do */
    same(W, BB, 0); /* binary: bit for bit through ngspice */
    nsc_waves_free(A);
    nsc_waves_free(BA);
    nsc_waves_free(BB);
    nsc_waves_free(W);
    free(out);
    free(cmd);
    free(text);
    free(script);
    free(pa);
    free(pb);
    free(ba);
    free(bb);
    nsc_report_free(&r);
}

/* Files written by ngspice: raw ASCII and binary of the same run agree (15 digits),
 * wrdata with and without wr_singlescale / wr_vecnames agree to its 9 digits, and
 * a raw file holding an .op plot before the transient yields the transient. */
Test(raw, reads_ngspice_files)
{
    if (!*NSC_NGSPICE) cr_skip_test("ngspice not installed (the CI installs it)");
    char *cir = path_of("rc.cir");
    cr_assert_eq(
        tu_write_file(
            cir,
            "RC and RL\nV1 in 0 PULSE(0 1 0 1u 1u 5u 10u)\nR1 in out 1k\nC1 out 0 1n\nL1 out 0 1m\n"
            ".tran 0.1u 20u\n.control\nrun\nwrdata wr_pairs.txt v(in) v(out) i(L1)\nset wr_vecnames\n"
            "wrdata wr_pairs_named.txt v(in) v(out) i(L1)\nset wr_singlescale\nwrdata wr_named.txt v(in) v(out) i(L1)\n"
            "unset wr_vecnames\nwrdata wr_plain.txt v(in) v(out) i(L1)\n.endc\n.end\n"),
        0);
    char *opcir = path_of("op.cir");
    cr_assert_eq(
        tu_write_file(
            opcir,
            "op then tran\nV1 in 0 1\nR1 in out 1k\nC1 out 0 1n\n.op\n.tran 0.1u 5u\n.end\n"),
        0);
    char *cmd = nsc_asprintf(
        "cd %s && %s -b -r rc_bin.raw rc.cir >/dev/null 2>&1 && SPICE_ASCIIRAWFILE=1 %s -b -r rc_asc.raw rc.cir "
        ">/dev/null 2>&1 && %s -b -r op.raw op.cir >/dev/null 2>&1",
        tmp, NSC_NGSPICE, NSC_NGSPICE, NSC_NGSPICE);
    cr_assert_eq(tu_run(cmd, NULL), 0, "%s", cmd);
    char *p;
    nsc_wfinfo in;
    nsc_waves *B = read_ok(p = path_of("rc_bin.raw"), &in);
    free(p);
    cr_assert_eq(in.kind, NSC_WF_RAWBIN);
    cr_assert(B->nrow > 100);
    cr_assert(nsc_waves_col(B, "v(out)") > 0 && nsc_waves_col(B, "i(l1)") > 0
              && nsc_waves_col(B, "i(v1)") > 0);
    nsc_waves *A = read_ok(p = path_of("rc_asc.raw"), &in);
    free(p);
    cr_assert_eq(in.kind, NSC_WF_RAW);
    same(B, A, 1e-15);
    const char *wr[] = { "wr_pairs_named.txt", "wr_named.txt" };
    for (int k = 0; k < 2; k++) {
        nsc_waves *T = read_ok(p = path_of(wr[k]), &in);
        free(p);
        cr_assert(in.named);
        cr_assert_eq(in.kind, k == 0 ? NSC_WF_WRDATA : NSC_WF_TABLE);
        cr_assert_eq(T->ncol, 4, "%s: %d columns", wr[k], T->ncol);
        cr_assert_eq(T->nrow, B->nrow);
        int co = nsc_waves_col(T, "v(out)"), cb = nsc_waves_col(B, "v(out)"),
            cl = nsc_waves_col(T, "i(L1)");
        cr_assert(co > 0 && cl > 0);
        for (int i = 0; i < T->nrow; i++) {
            double x = B->v[(size_t)i * B->ncol + cb], y = T->v[(size_t)i * T->ncol + co];
            cr_assert(fabs(x - y) <= 1e-8 * fabs(x) + 1e-300, "%s row %d: %g vs %g", wr[k], i, x,
                      y);
        }
        nsc_waves_free(T);
    }
    /* without names: pairs recognised by their repeated time columns; names y1.. */
    nsc_waves *P = read_ok(p = path_of("wr_pairs.txt"), &in);
    free(p);
    cr_assert(!in.named && in.kind == NSC_WF_WRDATA && P->ncol == 4);
    cr_assert_str_eq(P->name[2], "y2");
    nsc_waves *Q = read_ok(p = path_of("wr_plain.txt"), &in);
    free(p);
    cr_assert(!in.named && in.kind == NSC_WF_TABLE && Q->ncol == 4);
    same(P, Q, 0);
    nsc_waves *O = read_ok(p = path_of("op.raw"), NULL);
    free(p);
    cr_assert(O->nrow > 10 && !strcmp(O->name[0], "time"));
    cr_assert_float_eq(O->v[(size_t)(O->nrow - 1) * O->ncol + nsc_waves_col(O, "v(in)")], 1.0,
                       1e-12);
    nsc_waves_free(O);
    nsc_waves_free(P);
    nsc_waves_free(Q);
    nsc_waves_free(A);
    nsc_waves_free(B);
    free(cmd);
    free(cir);
    free(opcir);
}

static nsc_status read_text(const char *text, nsc_waves **W, nsc_wfinfo *in, nsc_report *r)
{
    char *p = path_of("t.txt");
    cr_assert_eq(tu_write_file(p, text), 0);
    nsc_status s = nsc_read_waves(p, W, in, r);
    free(p);
    return s;
}

Test(raw, text_tables)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_waves *W;
    nsc_wfinfo in;
    /* nscircuit .dat, with an early-end line */
    cr_assert_eq(read_text("# time v(a,b) i(l1)\n# stopped at t=2e-06: x\n0 1 2\n1e-6 3 4\n", &W,
                           &in, &r),
                 NSC_OK);
    cr_assert(in.named && W->ncol == 3 && W->nrow == 2 && !strcmp(W->name[1], "v(a,b)")
              && W->v[4] == 3);
    nsc_waves_free(W);
    /* CSV with the early-end line before the header */
    cr_assert_eq(read_text("# interrupted at t=1: x\ntime,v(a),v(a,b)\n0,1,2\n1,3,4\n", &W, &in,
                           &r),
                 NSC_OK);
    cr_assert(in.named && W->ncol == 3 && !strcmp(W->name[2], "v(a,b)") && W->v[5] == 4);
    nsc_waves_free(W);
    /* wrdata pairs with names */
    cr_assert_eq(read_text(" time v(x) time i(v1)\n 0 1 0 2\n 1 3 1 4\n", &W, &in, &r), NSC_OK);
    cr_assert(in.kind == NSC_WF_WRDATA && W->ncol == 3 && !strcmp(W->name[2], "i(v1)")
              && W->v[5] == 4);
    nsc_waves_free(W);
    /* errors name the file and line */
    cr_assert_eq(read_text("# t a b\n0 1 2\n1 2\n", &W, &in, &r), NSC_EIO);
    cr_assert(strstr(r.error, "t.txt:3: 2 columns, the first row has 3"), "%s", r.error);
    nsc_report_free(&r);
    cr_assert_eq(read_text("0 1\n1 x\n", &W, &in, &r), NSC_EIO);
    cr_assert(strstr(r.error, "t.txt:2: column 2: not a finite number: 'x'"), "%s", r.error);
    nsc_report_free(&r);
    cr_assert_eq(read_text("# nothing\n", &W, &in, &r), NSC_EIO);
    cr_assert(strstr(r.error, "no rows of numbers"), "%s", r.error);
    nsc_report_free(&r);
    cr_assert_eq(
        read_text("Title: x\nPlotname: Noise\nFlags: complex\nNo. Variables: 2\nNo. Points: 1\n"
                  "Variables:\n\t0\ttime\ttime\n\t1\tv(a)\tvoltage\nValues:\n0\t1,0\n\t2,3\n",
                  &W, &in, &r),
        NSC_EIO);
    cr_assert(strstr(r.error, "no transient, AC or DC sweep") && strstr(r.error, "'Noise'"), "%s",
              r.error);
    nsc_report_free(&r);
    cr_assert_eq(nsc_read_waves("/nonexistent/x.raw", &W, &in, &r), NSC_EIO);
    cr_assert(strstr(r.error, "cannot read '/nonexistent/x.raw'"), "%s", r.error);
    nsc_report_free(&r);
}

/* The program: --format raw / rawbin / -o x.raw, the same values as the .dat. */
Test(raw, program_formats)
{
    char *cmd = nsc_asprintf(
        "cd %s && %s --quiet --format rawbin -o rb.raw %s/rectifier.cir && %s --quiet -o ra.raw "
        "%s/rectifier.cir && %s --quiet -o r.dat %s/rectifier.cir",
        tmp, NSC_PROGRAM, NSC_NETLISTS, NSC_PROGRAM, NSC_NETLISTS, NSC_PROGRAM, NSC_NETLISTS);
    char *out = NULL;
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    free(out);
    char *pa = path_of("ra.raw"), *pb = path_of("rb.raw"), *pd = path_of("r.dat");
    nsc_wfinfo ia, ib;
    nsc_waves *A = read_ok(pa, &ia), *B = read_ok(pb, &ib), *D = read_ok(pd, NULL);
    cr_assert(ia.kind == NSC_WF_RAW && ib.kind == NSC_WF_RAWBIN);
    same(B, D, 1e-12); /* .dat holds 13 digits */
    same(B, A, 6e-16);
    nsc_waves_free(A);
    nsc_waves_free(B);
    nsc_waves_free(D);
    free(pa);
    free(pb);
    free(pd);
    free(cmd);
}

/* Readers validate header counts against what follows before allocating: a
 * count after the list it sizes, a count larger than the file, a negative one, a
 * second list; each is an error naming the file and line (before: a heap
 * overflow, and a NULL dereference when the allocation failed). */
Test(raw, lying_headers_are_errors)
{
    const char *head = "Title: t\nDate: x\nPlotname: Transient Analysis\nFlags: real\n";
    const char *cases[][2] = {
        { "No. Variables: 2\nNo. Points: 1\nVariables:\n\t0\ttime\ttime\n\t1\ta\tvoltage\n"
          "No. Variables: 900\nValues:\n 0 0 1\n",
          "No. Variables: after the Variables list" },
        { "No. Variables: 2000000000\nNo. Points: 1\nVariables:\n\t0\ttime\ttime\nValues:\n 0 0\n",
          "more than the file holds" },
        { "No. Variables: -3\nNo. Points: 1\nVariables:\n\t0\ttime\ttime\nValues:\n 0 0\n",
          "out of range" },
        { "No. Variables: 99999999999999999999\nVariables:\n", "out of range" },
        { "No. Variables: 2x\nVariables:\n", "out of range" },
        { "No. Variables: 1\nNo. Points: 1\nVariables:\n\t0\ttime\ttime\nVariables:\n\t0\ttime\ttime\n"
          "Values:\n 0 0\n",
          "a second Variables list" },
        { "No. Variables: 1\nNo. Points: -1\nVariables:\n\t0\ttime\ttime\nValues:\n 0 0\n",
          "out of range" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *text = nsc_asprintf("%s%s", head, cases[k][0]);
        nsc_report r;
        nsc_report_init(&r);
        nsc_waves *W = NULL;
        nsc_status s = read_text(text, &W, NULL, &r);
        cr_assert_eq(s, NSC_EIO, "case %zu: %s", k, r.error ? r.error : "accepted");
        cr_assert(W == NULL);
        cr_assert(strstr(r.error, cases[k][1]) && strstr(r.error, "t.txt:"), "case %zu: %s", k,
                  r.error);
        nsc_report_free(&r);
        free(text);
    }
}

/* A complete file is not marked incomplete; a table whose run was interrupted is. */
Test(raw, incomplete_tables_are_marked)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_waves *W = NULL;
    nsc_wfinfo in;
    cr_assert_eq(read_text("# time v(a)\n0 1\n1 2\n", &W, &in, &r), NSC_OK);
    cr_assert_eq(in.incomplete, 0);
    nsc_waves_free(W);
    cr_assert_eq(read_text("# time v(a)\n# interrupted at t=1.0000000000e+00 s: \n0 1\n1 2\n", &W,
                           &in, &r),
                 NSC_OK);
    cr_assert_eq(in.incomplete, 1);
    cr_assert_eq(W->nrow, 2);
    nsc_waves_free(W);
    cr_assert_eq(read_text("# stopped (simulation failure) at t=1e-3 s: x\ntime,v(a)\n0,1\n1,2\n",
                           &W, &in, &r),
                 NSC_OK);
    cr_assert_eq(in.incomplete, 1);
    nsc_waves_free(W);
    nsc_report_free(&r);
}

/* A raw file holding a transient and then an AC plot (as ngspice's `write all`
 * of a run with both): read as "any" it is the first plot; asked for AC, each
 * complex variable X becomes vdb(X) and vp(X) (degrees), a current ip/idb:
 * 0.5 - 0.5j is 20 log10(sqrt(0.5)) = -3.0103 dB at -45 degrees, -1 + 0j is
 * 0 dB at 180 degrees. Binary AC likewise. A DC plot keeps its scale's name. */
Test(raw, ac_and_dc_plots)
{
    const char *text =
        "Title: two plots\nDate: x\nPlotname: Transient Analysis\nFlags: real\nNo. Variables: 2\nNo. Points: 2\n"
        "Variables:\n\t0\ttime\ttime\n\t1\tv(out)\tvoltage\nValues:\n 0\t0\n\t1\n 1\t1e-3\n\t2\n"
        "Title: two plots\nDate: x\nPlotname: AC Analysis\nFlags: complex\nNo. Variables: 3\nNo. Points: 2\n"
        "Variables:\n\t0\tfrequency\tfrequency grid=3\n\t1\tv(out)\tvoltage\n\t2\tv1#branch\tcurrent\n"
        "Values:\n 0\t1.0e+01,0.0e+00\n\t5.0e-01,-5.0e-01\n\t-1.0e+00,0.0e+00\n"
        " 1\t1.0e+02,0.0e+00\n\t1.0e-01,0.0e+00\n\t0.0e+00,2.0e+00\n"
        "Title: two plots\nDate: x\nPlotname: DC transfer characteristic\nFlags: real\nNo. Variables: 2\n"
        "No. Points: 1\nVariables:\n\t0\tv(v-sweep)\tvoltage\n\t1\tv(out)\tvoltage\nValues:\n 0\t2.5\n\t1.25\n";
    char *p = path_of("two.raw");
    cr_assert_eq(tu_write_file(p, text), 0);
    nsc_wfinfo in;
    nsc_waves *W = read_ok(p, &in);
    cr_assert(in.scale == NSC_SCALE_TIME && !strcmp(W->name[0], "time") && W->nrow == 2);
    nsc_waves_free(W);
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(nsc_read_waves_scale(p, NSC_SCALE_FREQ, &W, &in, &r), NSC_OK, "%s", r.error);
    cr_assert(in.scale == NSC_SCALE_FREQ && W->ncol == 5 && W->nrow == 2);
    const char *want[] = { "frequency", "vdb(out)", "vp(out)", "idb(v1)", "ip(v1)" };
    for (int k = 0; k < 5; k++) cr_assert_str_eq(W->name[k], want[k]);
    double v0[] = { 10, 20 * log10(sqrt(0.5)), -45, 0, 180 },
           v1[] = { 100, -20, 0, 20 * log10(2), 90 };
    for (int k = 0; k < 5; k++) {
        cr_assert_float_eq(W->v[k], v0[k], 1e-12, "row 0 column %d: %.15g", k, W->v[k]);
        cr_assert_float_eq(W->v[5 + k], v1[k], 1e-12, "row 1 column %d: %.15g", k, W->v[5 + k]);
    }
    nsc_waves_free(W);
    cr_assert_eq(nsc_read_waves_scale(p, NSC_SCALE_SWEEP, &W, &in, &r), NSC_OK, "%s", r.error);
    cr_assert(in.scale == NSC_SCALE_SWEEP && !strcmp(W->name[0], "v(v-sweep)") && W->v[0] == 2.5
              && W->v[1] == 1.25);
    nsc_waves_free(W);
    /* binary AC: one point, 10 Hz, v(out) = 0 + 1j (0 dB, 90 degrees) */
    FILE *f = fopen(p, "wb");
    cr_assert(f);
    fputs(
        "Title: b\nDate: x\nPlotname: AC Analysis\nFlags: complex\nNo. Variables: 2\nNo. Points: 1\n"
        "Variables:\n\t0\tfrequency\tfrequency\n\t1\tv(out)\tvoltage\nBinary:\n",
        f);
    double b[4] = { 10, 0, 0, 1 }; /* (little-endian hosts: Debian's) */
    fwrite(b, sizeof b, 1, f);
    fclose(f);
    W = read_ok(p, &in);
    cr_assert(in.scale == NSC_SCALE_FREQ && W->ncol == 3 && W->v[0] == 10 && fabs(W->v[1]) < 1e-12
              && fabs(W->v[2] - 90) < 1e-12);
    nsc_waves_free(W);
    cr_assert_eq(nsc_read_waves_scale(p, NSC_SCALE_TIME, &W, &in, &r), NSC_EIO);
    cr_assert(strstr(r.error, "no transient (real values against time) plot; plots: 'AC Analysis'"),
              "%s", r.error);
    nsc_report_free(&r);
    free(p);
}

/* AC text tables: ngspice's wrdata phases are radians (to degrees), nscircuit's
 * .dat says "phases in degrees" (kept); a first column named frequency is AC,
 * another name (v-sweep) a sweep. */
Test(raw, ac_text_tables)
{
    char *p = path_of("acw.txt"), *q = path_of("acd.dat"), *s = path_of("dcw.txt");
    cr_assert_eq(
        tu_write_file(p, " frequency vdb(out) vp(out)\n 1.0e+01 -3.0 -7.853981633974483e-01\n"), 0);
    cr_assert_eq(
        tu_write_file(
            q, "# frequency vdb(out) vp(out)\n# AC small-signal analysis at the operating point: "
               "magnitudes in dB, phases in degrees\n1.0e+01 -3.0 -45\n"),
        0);
    cr_assert_eq(tu_write_file(s, " v-sweep v(out)\n 0 1\n 1 2\n"), 0);
    nsc_wfinfo in;
    nsc_waves *W = read_ok(p, &in);
    cr_assert(in.scale == NSC_SCALE_FREQ && !strcmp(W->name[0], "frequency")
                  && fabs(W->v[2] + 45) < 1e-12,
              "%g", W->v[2]);
    nsc_waves_free(W);
    W = read_ok(q, &in);
    cr_assert(in.scale == NSC_SCALE_FREQ && W->v[2] == -45);
    nsc_waves_free(W);
    W = read_ok(s, &in);
    cr_assert(in.scale == NSC_SCALE_SWEEP && !strcmp(W->name[0], "v-sweep"));
    nsc_waves_free(W);
    free(p);
    free(q);
    free(s);
}

/* A zero AC magnitude is -inf dB: nscircuit's .dat writes "-inf" for a node
 * without AC signal (a DC supply) and compare reads it back in a dB column
 * of an AC table (before: "not a finite number", so no AC .dat of a circuit
 * with a supply could be compared); -inf anywhere else stays an error. */
Test(raw, zero_ac_magnitude_reads_as_minus_inf_db)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_waves *W;
    nsc_wfinfo in;
    cr_assert_eq(read_text("# frequency vdb(vdd) vp(vdd) vdb(out) vp(out)\n# phases in degrees\n"
                           "1 -inf 0 -3 -45\n10 -inf 0 -20 -84\n",
                           &W, &in, &r),
                 NSC_OK, "%s", r.error);
    cr_assert(in.scale == NSC_SCALE_FREQ && W->nrow == 2 && isinf(W->v[1]) && W->v[1] < 0
              && W->v[2] == 0 && W->v[3] == -3);
    nsc_waves_free(W);
    cr_assert_eq(read_text("# frequency vdb(out) vp(out)\n1 -3 -inf\n", &W, &in, &r), NSC_EIO);
    cr_assert(strstr(r.error, "t.txt:2: column 3: not a finite number: '-inf'"), "%s", r.error);
    nsc_report_free(&r);
    cr_assert_eq(read_text("# time v(out)\n0 -inf\n", &W, &in, &r), NSC_EIO);
    cr_assert(strstr(r.error, "column 2: not a finite number"), "%s", r.error);
    nsc_report_free(&r);
}

/* A reference table whose column 0 is named neither time nor frequency ("t",
 * "x") takes the scale of ours when ours is a transient or a DC sweep: before
 * the AC/DC scales a table "t v(out)" compared as a transient; since, it was a
 * DC sweep and compare refused it against a transient. Read alone (no scale
 * asked for) it stays a sweep; a "time" or "frequency" column keeps its scale. */
Test(raw, table_scale_follows_the_one_asked_for)
{
    char *p = path_of("tt.txt"), *q = path_of("ft.txt");
    cr_assert_eq(tu_write_file(p, "t v(out)\n0 1\n1e-3 2\n"), 0);
    cr_assert_eq(tu_write_file(q, "frequency vdb(out)\n1 -3\n10 -20\n"), 0);
    nsc_report r;
    nsc_report_init(&r);
    nsc_wfinfo in;
    nsc_waves *W = read_ok(p, &in);
    cr_assert(in.scale == NSC_SCALE_SWEEP && !strcmp(W->name[0], "t"));
    nsc_waves_free(W);
    cr_assert_eq(nsc_read_waves_scale(p, NSC_SCALE_TIME, &W, &in, &r), NSC_OK, "%s", r.error);
    cr_assert(in.scale == NSC_SCALE_TIME && !strcmp(W->name[0], "time") && W->nrow == 2
              && W->v[3] == 2);
    nsc_waves_free(W);
    cr_assert_eq(nsc_read_waves_scale(q, NSC_SCALE_TIME, &W, &in, &r), NSC_OK, "%s", r.error);
    cr_assert(in.scale == NSC_SCALE_FREQ && !strcmp(W->name[0], "frequency"));
    nsc_waves_free(W);
    cr_assert_eq(nsc_read_waves_scale(p, NSC_SCALE_FREQ, &W, &in, &r), NSC_OK, "%s", r.error);
    cr_assert(in.scale == NSC_SCALE_SWEEP); /* (AC is never guessed: its phases) */
    nsc_waves_free(W);
    free(p);
    free(q);
}

/* AC phases already in degrees without nscircuit's .dat marker stay degrees:
 * nscircuit's own AC .csv (comma-separated, no comment line) and a table with
 * a phase beyond pi (ngspice's vp in radians is atan2's, within [-pi, pi];
 * `set units=degrees` writes degrees). Before, both were read as radians and
 * multiplied by 57.3 (our .dat against our .csv FAILed by 177 degrees). A
 * whitespace table within [-pi, pi] and unmarked is ngspice's wrdata: radians. */
Test(raw, ac_phases_in_degrees_without_the_marker)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_waves *W;
    nsc_wfinfo in;
    cr_assert_eq(read_text("frequency,vdb(out),vp(out)\n10,-3,-1.5\n100,-20,-2\n", &W, &in, &r),
                 NSC_OK, "%s", r.error);
    cr_assert(in.scale == NSC_SCALE_FREQ && W->v[2] == -1.5 && W->v[5] == -2, "%g %g", W->v[2],
              W->v[5]);
    nsc_waves_free(W);
    cr_assert_eq(read_text(" frequency vdb(out) vp(out)\n 10 -3 -1.5\n 100 -20 -45\n", &W, &in, &r),
                 NSC_OK);
    cr_assert(W->v[2] == -1.5 && W->v[5] == -45, "%g %g", W->v[2], W->v[5]);
    nsc_waves_free(W);
    cr_assert_eq(read_text(" frequency vdb(out) vp(out)\n 10 -3 -1.5\n 100 -20 -3.14159\n", &W, &in,
                           &r),
                 NSC_OK);
    cr_assert(fabs(W->v[2] + 1.5 * 180 / 3.14159265358979323846) < 1e-9
                  && fabs(W->v[5] + 3.14159 * 180 / 3.14159265358979323846) < 1e-9,
              "%g %g", W->v[2], W->v[5]);
    nsc_waves_free(W);
}

/* ngspice's `write f.raw vdb(out) vp(out)` in an AC plot: complex values
 * whose variables are real, typed decibel and phase (radians). They are
 * vdb(out) in dB and vp(out) in degrees (before: db(vdb(out)), ph(vdb(out)),
 * db(vp(out)), ph(vp(out)), no signal in common with ours). */
Test(raw, ac_plot_of_decibel_and_phase_vectors)
{
    char *p = path_of("dbph.raw");
    cr_assert_eq(
        tu_write_file(
            p,
            "Title: x\nDate: x\nPlotname: AC Analysis\nFlags: complex\nNo. Variables: 4\n"
            "No. Points: 1\nVariables:\n\t0\tfrequency\tfrequency grid=3\n\t1\tvdb(out)\tdecibel\n"
            "\t2\tvp(out)\tphase\n\t3\tout\tvoltage\nValues:\n 0\t1.0e+01,0.0e+00\n\t-3.0,0.0\n"
            "\t-7.853981633974483e-01,0.0\n\t0.5,-0.5\n"),
        0);
    nsc_wfinfo in;
    nsc_waves *W = read_ok(p, &in);
    const char *want[] = { "frequency", "vdb(out)", "vp(out)", "vdb(out)", "vp(out)" };
    cr_assert(in.scale == NSC_SCALE_FREQ && W->ncol == 5, "%d columns", W->ncol);
    for (int k = 0; k < 5; k++) cr_assert_str_eq(W->name[k], want[k]);
    double v[] = { 10, -3, -45, 20 * log10(sqrt(0.5)), -45 };
    for (int k = 0; k < 5; k++)
        cr_assert_float_eq(W->v[k], v[k], 1e-12, "column %d: %.15g", k, W->v[k]);
    nsc_waves_free(W);
    free(p);
}

/* ngspice 39 loads the program's AC raw (tests/data/ac/sallen_key.cir:
 * `AC Analysis`, complex, frequency first) and DC raw (the nested sweep of
 * tests/data/dc/linear_nested.cir: `DC transfer characteristic`, v-sweep and
 * sweep(i1) first), and what it loaded, written back in binary, reads as
 * what we wrote, bit for bit (issue 29 items 1 and 2: "raw that ngspice's
 * load reads"; raw/ngspice_loads_ours covers transients only). ngspice writes
 * the outer column back as v(sweep(i1)), which reads as sweep(i1) (it read
 * as a signal v(sweep(i1)), compare could not key the inner sweeps by it). */
Test(raw, ngspice_loads_our_ac_and_dc_files)
{
    if (!*NSC_NGSPICE) cr_skip_test("ngspice not installed (the CI installs it)");
    char *
        cmd = nsc_asprintf(
           "cd %s && %s --quiet --format raw -o ac.raw %s/tests/data/ac/sallen_key.cir && %s --quiet "
           "--format raw -o dc.raw %s/tests/data/dc/linear_nested.cir",
           tmp, NSC_PROGRAM, NSC_TOP_SRCDIR, NSC_PROGRAM, NSC_TOP_SRCDIR),
       *out = NULL;
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    free(out);
    free(cmd);
    char *script = path_of("load.cir");
    cr_assert_eq(
        tu_write_file(script,
                      "* load\n.control\nset filetype=binary\nload ac.raw\nwrite ac_back.raw\n"
                      "load dc.raw\nwrite dc_back.raw\n.endc\n.end\n"),
        0);
    cmd = nsc_asprintf("cd %s && %s -b %s 2>&1", tmp, NSC_NGSPICE, script);
    tu_run(cmd, &out); /* exit status 1: "no simulations run" in batch mode */
    cr_assert(out && !strstr(out, "rror") && !strstr(out, "arning"), "ngspice: %s", out);
    const char *names[][2] = { { "ac.raw", "ac_back.raw" }, { "dc.raw", "dc_back.raw" } };
    for (int k = 0; k < 2; k++) {
        char *pa = path_of(names[k][0]), *pb = path_of(names[k][1]);
        nsc_wfinfo ia, ib;
        nsc_waves *A = read_ok(pa, &ia), *B = read_ok(pb, &ib);
        cr_assert_eq(ib.kind, NSC_WF_RAWBIN);
        cr_assert(strstr(A->name[0], k ? "v-sweep" : "frequency"), "%s", A->name[0]);
        cr_assert(!k || nsc_waves_col(A, "sweep(i1)") > 0);
        cr_assert_eq(A->nrow, k ? 27 : 81);
        same(A, B, 0);
        nsc_waves_free(A);
        nsc_waves_free(B);
        free(pa);
        free(pb);
    }
    free(out);
    free(cmd);
    free(script);
}

/* A signal's NaN is a value a run could not give (a ratio by a zero current:
 * Xyce's diode.cir prints V(3)/I(VMON) while the diode is off): read as NaN,
 * and compare names it (before: the table was refused, "not a finite
 * number", also with --signals naming its other columns only); the scale
 * stays finite. */
Test(raw, a_signals_nan_is_read_the_scales_is_refused)
{
    nsc_waves *W = NULL;
    nsc_wfinfo in;
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(read_text("# time v(a) v(b)\n0 0 nan\n1 1 1\n", &W, &in, &r), NSC_OK, "%s",
                 r.error);
    cr_assert(W->nrow == 2 && isnan(W->v[2]) && W->v[4] == 1 && W->v[5] == 1);
    nsc_waves_free(W);
    cr_assert_eq(read_text("# time v(a)\nnan 0\n1 1\n", &W, &in, &r), NSC_EIO);
    cr_assert(strstr(r.error, "t.txt:2: column 1: not a finite number: 'nan'"), "%s", r.error);
    nsc_report_free(&r);
}
