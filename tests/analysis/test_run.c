/* test_run.c -- one run (run.h): the steps the program and sweep points share,
 * on an RC low-pass against its closed form, and the checks of the analyses. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/run.h"
#include "output/out.h"
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

/* v(out) = 1 - exp(-t / (r c)) after a 1 V step; tau = 1 ms, the run 5 ms */
static const char RC[] = "RC step response\n"
                         ".param r=1k c=1u\n"
                         "V1 in 0 PULSE(0 1 0 1n 1n 1 2)\n"
                         "R1 in out {r}\n"
                         "C1 out 0 {c}\n"
                         "%s"
                         ".meas tran vend FIND v(out) AT=1m\n"
                         ".meas tran never WHEN v(out)=2\n"
                         ".end\n";

static nsc_deck *deck_of(const char *analysis)
{
    char path[1024], text[2048];
    snprintf(path, sizeof path, "%s/rc.cir", tmp);
    snprintf(text, sizeof text, RC, analysis);
    cr_assert_eq(tu_write_file(path, text), 0);
    nsc_report r;
    nsc_report_init(&r);
    nsc_deck *d = NULL;
    cr_assert_eq(nsc_deck_read(path, NULL, &d, &r), NSC_OK, "%s", r.error);
    nsc_report_free(&r);
    return d;
}

Test(run, steps_give_the_rc_response_and_warn_once_per_failed_measure, .init = setup,
     .fini = teardown)
{
    nsc_deck *d = deck_of(".tran 10u 5m 0 1u\n");
    nsc_param_set ov[] = { { "c", 2e-6 } }; /* tau = 2 ms */
    nsc_run_cfg cfg = { 0 };
    nsc_run R;
    nsc_run_init(&R);
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(nsc_run_circuit(&R, d, ov, 1, &r), NSC_OK, "%s", r.error);
    cr_assert_eq(nsc_run_setup(&R, &cfg, &r), NSC_OK, "%s", r.error);
    cr_assert_eq(nsc_run_check(R.c, &cfg, &R.o, 0, &r), NSC_OK);
    cr_assert_eq(nsc_run_columns(&R, 1, &r), NSC_OK);
    cr_assert_eq(R.nprobe, 1); /* v(out), the only quantity the .meas read */
    cr_assert_eq(nsc_run_analysis(&R, &r), NSC_OK, "%s", r.error);
    cr_assert_eq(nsc_run_measure(&R, &r), NSC_OK);
    cr_assert(R.mres[0].ok && !R.mres[1].ok);
    cr_assert_float_eq(R.mres[0].value, 1 - exp(-1e-3 / 2e-3), 1e-6);
    cr_assert_eq(r.nwarn, 1);
    cr_assert(strstr(r.warn[0], "rc.cir:8:1: warning: .meas never failed"), "%s", r.warn[0]);
    nsc_run_free(&R);
    nsc_report_free(&r);
    nsc_deck_free(d);
}

Test(run, check_names_the_missing_analysis, .init = setup, .fini = teardown)
{
    nsc_run_cfg cfg = { 0 };
    const char *const cards[] = { "", ".op\n" };
    for (int k = 0; k < 2; k++) {
        nsc_deck *d = deck_of(cards[k]);
        nsc_run R;
        nsc_run_init(&R);
        nsc_report r;
        nsc_report_init(&r);
        cr_assert_eq(nsc_run_circuit(&R, d, NULL, 0, &r), NSC_OK, "%s", r.error);
        cr_assert_eq(nsc_run_setup(&R, &cfg, &r), NSC_OK);
        cr_assert_eq(R.o.tstop, 0);
        /* the program: .op is an analysis; a sweep point: only a transient is */
        cr_assert_eq(nsc_run_check(R.c, &cfg, &R.o, 1, &r), k ? NSC_OK : NSC_ENETLIST);
        if (!k)
            cr_assert(
                strstr(r.error,
                       "rc.cir:1:1: error: no analysis: add a .tran, .op, .pss, .ac or .dc card"),
                "%s", r.error);
        nsc_report_free(&r);
        nsc_report_init(&r);
        cr_assert_eq(nsc_run_check(R.c, &cfg, &R.o, 0, &r), NSC_ENETLIST);
        cr_assert(strstr(r.error, "rc.cir:1:1: error: no transient analysis"), "%s", r.error);
        /* --tstop gives both a transient */
        nsc_run_cfg ts = { .tstop = 1e-3 };
        nsc_tran_opts o;
        cr_assert_eq(nsc_run_opts(R.c, &ts, &o, &r), NSC_OK);
        cr_assert_eq(nsc_run_check(R.c, &ts, &o, 0, &r), NSC_OK);
        cr_assert_float_eq(o.tstop, 1e-3, 0);
        nsc_run_free(&R);
        nsc_report_free(&r);
        nsc_deck_free(d);
    }
}

/* The rows of a tstep grid whose span is not a multiple of tstep (1 ms in
 * steps of 0.3 ms) end with one at tstop, as ngspice 39 writes its final point
 * (`.tran 0.3u 1u` with and without `.options interp`: rows 0, 0.3, 0.6, 0.9
 * and 1 us): fixed steps (the grid of rows interpolated between steps of 10 us)
 * and the adaptive stepper's interp grid. Before, the last row was 0.9 ms.
 * v(out) there against the closed form 1 - exp(-t / 1 ms). */
Test(run, the_grid_ends_with_a_row_at_tstop, .init = setup, .fini = teardown)
{
    const char *analysis[] = { ".options stepping=fixed\n.tran 0.3m 1m 0 10u\n",
                               ".options interp\n.tran 0.3m 1m\n" };
    for (int k = 0; k < 2; k++) {
        nsc_deck *d = deck_of(analysis[k]);
        nsc_run_cfg cfg = { 0 };
        nsc_run R;
        nsc_run_init(&R);
        nsc_report r;
        nsc_report_init(&r);
        cr_assert_eq(nsc_run_circuit(&R, d, NULL, 0, &r), NSC_OK, "%s", r.error);
        cr_assert_eq(nsc_run_setup(&R, &cfg, &r), NSC_OK, "%s", r.error);
        cr_assert_eq(nsc_run_columns(&R, 1, &r), NSC_OK);
        cr_assert_eq(nsc_run_analysis(&R, &r), NSC_OK, "%s", r.error);
        const nsc_waves *W = R.W;
        cr_assert_eq(W->nrow, 5, "%s: %d rows", analysis[k], W->nrow);
        for (int i = 0; i < 4; i++) cr_assert_float_eq(nsc_waves_at(W, i, 0), 0.3e-3 * i, 1e-15);
        cr_assert_float_eq(nsc_waves_at(W, 4, 0), 1e-3, 1e-15);
        for (int i = 1; i < W->nrow; i++) {
            double t = nsc_waves_at(W, i, 0);
            cr_assert(fabs(nsc_waves_at(W, i, 1) - (1 - exp(-t / 1e-3))) < 1e-4, "%s t=%g: %.9g",
                      analysis[k], t, nsc_waves_at(W, i, 1));
        }
        nsc_run_free(&R);
        nsc_report_free(&r);
        nsc_deck_free(d);
    }
}

/* The table of analyses (run.c nsc_analyses): which lines a run asks for, and the
 * .op line's handler on a divider, v(mid) = 10 * 3k / (1k + 3k) = 7.5 V and
 * i(v1) = -10 / 4k (the current enters the source's + node from the circuit) */
Test(run, analyses_table_asks_its_lines_and_runs_the_op, .init = setup, .fini = teardown)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/div.cir", tmp);
    const char *const text[] = { "d\nV1 in 0 10\nR1 in mid 1k\nR2 mid 0 3k\n.op\n.end\n",
                                 "d\nV1 in 0 10\nR1 in mid 1k\nR2 mid 0 3k\n.tran 1u 10u\n.end\n" };
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(tu_write_file(path, text[k]), 0);
        nsc_report r;
        nsc_report_init(&r);
        nsc_deck *d = NULL;
        cr_assert_eq(nsc_deck_read(path, NULL, &d, &r), NSC_OK, "%s", r.error);
        nsc_run_cfg cfg = { 0 };
        nsc_run R;
        nsc_run_init(&R);
        cr_assert_eq(nsc_run_circuit(&R, d, NULL, 0, &r), NSC_OK, "%s", r.error);
        cr_assert_eq(nsc_run_setup(&R, &cfg, &r), NSC_OK, "%s", r.error);
        cr_assert_eq(nsc_analyses[NSC_AN_OP].asked(&R), k == 0);
        cr_assert_eq(nsc_analyses[NSC_AN_TRAN].asked(&R), k == 1);
        cr_assert(!nsc_analyses[NSC_AN_PSS].asked(&R) && !nsc_analyses[NSC_AN_AC].asked(&R)
                  && !nsc_analyses[NSC_AN_DC].asked(&R));
        if (k == 0) {
            cr_assert_eq(nsc_analyses[NSC_AN_OP].run(&R, &r), NSC_OK, "%s", r.error);
            cr_assert(R.op && R.op->nrow == 1);
            int vmid = -1, iv1 = -1;
            for (int j = 1; j < R.op->ncol; j++) {
                if (!strcmp(R.op->name[j], "v(mid)")) vmid = j;
                if (!strcmp(R.op->name[j], "i(v1)")) iv1 = j;
            }
            cr_assert(vmid > 0 && iv1 > 0);
            cr_assert_float_eq(R.op->v[vmid], 7.5, 1e-9);
            cr_assert_float_eq(R.op->v[iv1], -10 / 4e3, 1e-12);
        }
        nsc_run_free(&R);
        nsc_report_free(&r);
        nsc_deck_free(d);
    }
}

/* The .ac and .dc lines of the table run in the run module and leave their
 * results in the run (issue 26 item 3: cli/cmd_small.c only writes them): an
 * RC low-pass, R = 1k, C = 1u, H = 1 / (1 + j 2 pi f R C) at each frequency
 * (re = 1 / (1 + x^2), im = -x / (1 + x^2), x = 2 pi f R C); a divider swept
 * from 0 to 10 V, v(mid) = 0.75 V1 at each point. */
Test(run, ac_and_dc_lines_leave_their_results_in_the_run, .init = setup, .fini = teardown)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/small.cir", tmp);
    cr_assert_eq(
        tu_write_file(path,
                      "s\nV1 in 0 DC 0 AC 1\nR1 in out 1k\nC1 out 0 1u\nR2 in mid 1k\nR3 mid 0 3k\n"
                      ".ac dec 5 10 100k\n.dc V1 0 10 2.5\n.save v(out) v(mid)\n.end\n"),
        0);
    nsc_report r;
    nsc_report_init(&r);
    nsc_deck *d = NULL;
    cr_assert_eq(nsc_deck_read(path, NULL, &d, &r), NSC_OK, "%s", r.error);
    nsc_run_cfg cfg = { 0 };
    nsc_run R;
    nsc_run_init(&R);
    cr_assert_eq(nsc_run_circuit(&R, d, NULL, 0, &r), NSC_OK, "%s", r.error);
    cr_assert_eq(nsc_run_setup(&R, &cfg, &r), NSC_OK, "%s", r.error);
    cr_assert(nsc_analyses[NSC_AN_AC].asked(&R) && nsc_analyses[NSC_AN_DC].asked(&R));
    cr_assert_eq(nsc_analyses[NSC_AN_AC].run(&R, &r), NSC_OK, "%s", r.error);
    cr_assert_eq(nsc_analyses[NSC_AN_DC].run(&R, &r), NSC_OK, "%s", r.error);
    const nsc_ac_result *A = R.ac;
    int q = -1;
    for (int j = 0; j < A->np; j++)
        if (!strcmp(A->name[j], "v(out)")) q = j;
    cr_assert(q >= 0 && A->nf == 21, "%d frequencies", A->nf);
    for (int k = 0; k < A->nf; k++) {
        double x = 2 * 3.14159265358979323846 * A->f[k] * 1e3 * 1e-6;
        cr_assert(fabs(A->re[k * A->np + q] - 1 / (1 + x * x)) < 1e-9, "re at %g Hz", A->f[k]);
        cr_assert(fabs(A->im[k * A->np + q] + x / (1 + x * x)) < 1e-9, "im at %g Hz", A->f[k]);
    }
    const nsc_waves *W = R.dc;
    int cm = nsc_waves_col(W, "v(mid)");
    cr_assert(cm > 0 && W->nrow == 5, "%d rows", W->nrow);
    for (int i = 0; i < W->nrow; i++)
        cr_assert_float_eq(nsc_waves_at(W, i, cm), 0.75 * nsc_waves_at(W, i, 0), 1e-9);
    nsc_run_free(&R);
    nsc_report_free(&r);
    nsc_deck_free(d);
}

/* The .control outputs run in the run module (issue 26 item 3): print writes
 * the .meas results it names to the stream given, never to stdout, as
 * ngspice's "%e" (vend = v(out) at 1 ms = 1 - exp(-1) with tau = 1 ms);
 * wrdata writes "t v" rows (the last at 5 ms: 1 - exp(-5)); a wrdata onto the
 * netlist or onto one of the run's own files is a warning, nothing written. */
Test(run, control_prints_to_the_given_stream_and_keeps_off_inputs_and_outputs, .init = setup,
     .fini = teardown)
{
    char path[1024], text[8192], ctl[4096], data[1100], own[1100];
    snprintf(path, sizeof path, "%s/rc.cir", tmp);
    snprintf(data, sizeof data, "%s/out.txt", tmp);
    snprintf(own, sizeof own, "%s/own.dat", tmp);
    snprintf(ctl, sizeof ctl,
             ".tran 10u 5m 0 1u\n.control\nrun\nprint vend\nwrdata %s v(out)\nwrdata %s v(out)\n"
             "wrdata %s v(out)\n.endc\n",
             data, path, own);
    snprintf(text, sizeof text, RC, ctl);
    cr_assert_eq(tu_write_file(path, text), 0);
    nsc_report r;
    nsc_report_init(&r);
    nsc_deck *d = NULL;
    cr_assert_eq(nsc_deck_read(path, NULL, &d, &r), NSC_OK, "%s", r.error);
    nsc_run_cfg cfg = { 0 };
    nsc_run R;
    nsc_run_init(&R);
    cr_assert_eq(nsc_run_circuit(&R, d, NULL, 0, &r), NSC_OK, "%s", r.error);
    cr_assert_eq(nsc_run_setup(&R, &cfg, &r), NSC_OK, "%s", r.error);
    cr_assert_eq(nsc_run_columns(&R, 0, &r), NSC_OK, "%s", r.error);
    cr_assert_eq(nsc_run_analysis(&R, &r), NSC_OK, "%s", r.error);
    cr_assert_eq(nsc_run_measure(&R, &r), NSC_OK);
    int nwarn = r.nwarn;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert(f);
    char *outs[] = { own };
    nsc_ctl_dest cd = { f, "the test's stream", outs, 1, path, 0 };
    cr_assert_eq(nsc_run_control(&R, &cd, &r), NSC_OK, "%s", r.error);
    fclose(f);
    double v;
    cr_assert_eq(sscanf(buf, "vend = %lf\n", &v), 1, "%s", buf);
    cr_assert_float_eq(v, 1 - exp(-1), 5e-6); /* "%e": 7 digits */
    free(buf);
    cr_assert_eq(r.nwarn, nwarn + 2); /* the netlist and own.dat refused */
    cr_assert(strstr(r.warn[nwarn], "it is an input of this run"), "%s", r.warn[nwarn]);
    cr_assert(strstr(r.warn[nwarn + 1], "it is an output of this run"), "%s", r.warn[nwarn + 1]);
    char *got = tu_read_file(data), *nl = got ? strrchr(got, '\n') : NULL;
    cr_assert(nl);
    while (nl > got && nl[-1] != '\n') nl--; /* the last row */
    double t, vt;
    cr_assert_eq(sscanf(nl, "%lf %lf", &t, &vt), 2);
    cr_assert_float_eq(t, 5e-3, 1e-12);
    cr_assert_float_eq(vt, 1 - exp(-5), 1e-4);
    cr_assert_eq(tu_read_file(own), NULL);
    free(got);
    nsc_run_free(&R);
    nsc_report_free(&r);
    nsc_deck_free(d);
}

/* What a run shows goes to the stream its caller gives (run_report.c, issue
 * 26 item 3), never to stdout: the .op line's print (a divider, v(mid) =
 * 10 V * 3k / 4k = 7.5 V, i(v1) = -10 V / 4k), the .meas results and their
 * file (vend = 1 - exp(-1) with tau = 1 ms, never failed); a stream that
 * cannot be written (/dev/full) is NSC_EOUT naming it, and no .meas file. */
Test(run, op_and_meas_print_to_the_given_stream, .init = setup, .fini = teardown)
{
    char path[1024], mpath[1100], *text = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/div.cir", tmp);
    cr_assert_eq(tu_write_file(path, "d\nV1 in 0 10\nR1 in mid 1k\nR2 mid 0 3k\n.op\n.end\n"), 0);
    nsc_report r;
    nsc_report_init(&r);
    nsc_deck *d = NULL;
    cr_assert_eq(nsc_deck_read(path, NULL, &d, &r), NSC_OK, "%s", r.error);
    nsc_run_cfg cfg = { 0 };
    nsc_run R;
    nsc_run_init(&R);
    cr_assert_eq(nsc_run_circuit(&R, d, NULL, 0, &r), NSC_OK, "%s", r.error);
    cr_assert_eq(nsc_run_setup(&R, &cfg, &r), NSC_OK, "%s", r.error);
    const nsc_analysis *op = &nsc_analyses[NSC_AN_OP];
    cr_assert(op->print && !nsc_analyses[NSC_AN_TRAN].print);
    cr_assert_eq(op->run(&R, &r), NSC_OK, "%s", r.error);
    FILE *f = open_memstream(&text, &len);
    nsc_ctl_dest dest = { f, "the test's stream", NULL, 0, "div.cir", 0 };
    cr_assert_eq(op->print(&R, &dest, &r), NSC_OK);
    fclose(f);
    double vmid = 0, iv1 = 0;
    cr_assert(!strncmp(text, "operating point of div.cir\n", 27), "%s", text);
    cr_assert(strstr(text, "  v(mid)               = ")
                  && strstr(text, "  i(v1)                = "),
              "%s", text);
    cr_assert_eq(sscanf(strstr(text, "v(mid)") + 6, " = %lf", &vmid), 1);
    cr_assert_eq(sscanf(strstr(text, "i(v1)") + 5, " = %lf", &iv1), 1);
    cr_assert_float_eq(vmid, 7.5, 1e-9);
    cr_assert_float_eq(iv1, -10 / 4e3, 1e-12);
    free(text);
    nsc_run_free(&R);
    nsc_deck_free(d);

    d = deck_of(".tran 10u 5m 0 1u\n");
    nsc_run_init(&R);
    cr_assert_eq(nsc_run_circuit(&R, d, NULL, 0, &r), NSC_OK, "%s", r.error);
    cr_assert_eq(nsc_run_setup(&R, &cfg, &r), NSC_OK, "%s", r.error);
    cr_assert_eq(nsc_run_columns(&R, 1, &r), NSC_OK);
    cr_assert_eq(nsc_run_analysis(&R, &r), NSC_OK, "%s", r.error);
    cr_assert_eq(nsc_run_measure(&R, &r), NSC_OK);
    snprintf(mpath, sizeof mpath, "%s/rc.meas", tmp);
    f = open_memstream(&text, &len);
    dest.out = f;
    dest.netlist = "rc.cir";
    cr_assert_eq(nsc_run_meas_print(&R, &dest, mpath, &r), NSC_OK, "%s", r.error);
    fclose(f);
    double v9 = 0, v12 = 0;
    cr_assert_eq(sscanf(text, "vend = %lf\nnever = failed\n", &v9), 1, "%s", text);
    cr_assert(strstr(text, "never = failed\n"), "%s", text);
    cr_assert_float_eq(v9, 1 - exp(-1.0), 1e-6);
    free(text);
    text = tu_read_file(mpath);
    cr_assert(text && !strncmp(text, "# .meas results of rc.cir (nscircuit ", 37), "%s", text);
    cr_assert(strstr(text, "\nnever = failed\n"), "%s", text);
    cr_assert_eq(sscanf(strstr(text, "\nvend = ") + 1, "vend = %lf", &v12), 1);
    cr_assert_float_eq(v12, R.mres[0].value, 1e-12); /* %.12e in the file: 13 digits */
    cr_assert(fabs(v12 - R.mres[0].value) <= fabs(v9 - R.mres[0].value)
              || v9 == R.mres[0].value); /* finer than %.9e */
    free(text);
    remove(mpath);
    FILE *full = fopen("/dev/full", "w");
    if (full) { /* (Linux): a full device */
        dest.out = full;
        dest.out_name = "the full device";
        nsc_report_free(&r);
        nsc_report_init(&r);
        cr_assert_eq(nsc_run_meas_print(&R, &dest, mpath, &r), NSC_EOUT);
        cr_assert(r.error && strstr(r.error, "the full device"), "%s", r.error);
        cr_assert_null(tu_read_file(mpath));
        fclose(full);
    }
    nsc_run_free(&R);
    nsc_report_free(&r);
    nsc_deck_free(d);
}

/* The format table's .dc writers (out.h nsc_formats): the divider's sweep in
 * CSV through its line, read back: v(mid) = 0.75 V1 on each row. */
Test(run, dc_sweep_written_through_the_format_table, .init = setup, .fini = teardown)
{
    char path[1024], out[1100];
    snprintf(path, sizeof path, "%s/dc.cir", tmp);
    cr_assert_eq(
        tu_write_file(
            path, "s\nV1 in 0 0\nR2 in mid 1k\nR3 mid 0 3k\n.dc V1 0 10 2.5\n.save v(mid)\n.end\n"),
        0);
    nsc_report r;
    nsc_report_init(&r);
    nsc_deck *d = NULL;
    cr_assert_eq(nsc_deck_read(path, NULL, &d, &r), NSC_OK, "%s", r.error);
    nsc_run_cfg cfg = { 0 };
    nsc_run R;
    nsc_run_init(&R);
    cr_assert_eq(nsc_run_circuit(&R, d, NULL, 0, &r), NSC_OK, "%s", r.error);
    cr_assert_eq(nsc_run_setup(&R, &cfg, &r), NSC_OK, "%s", r.error);
    cr_assert_eq(nsc_analyses[NSC_AN_DC].run(&R, &r), NSC_OK, "%s", r.error);
    for (int k = 0; k < NSC_FMT_N; k++)
        cr_assert(nsc_formats[k].write && nsc_formats[k].write_ac && nsc_formats[k].write_dc, "%s",
                  nsc_formats[k].name);
    snprintf(out, sizeof out, "%s/dc.csv", tmp);
    cr_assert_eq(nsc_formats[nsc_format_named("csv")].write_dc(R.dc, out, &r), NSC_OK, "%s",
                 r.error);
    char *text = tu_read_file(out), *line, *save = NULL;
    cr_assert(text);
    int row = -1;
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save), row++) {
        if (row < 0) {
            cr_assert(strstr(line, "v(mid)") && strchr(line, ','), "%s", line);
            continue;
        }
        double v1, vmid;
        cr_assert_eq(sscanf(line, "%lf,%lf", &v1, &vmid), 2, "%s", line);
        cr_assert_float_eq(v1, 2.5 * row, 1e-12);
        cr_assert_float_eq(vmid, 0.75 * v1, 1e-9);
    }
    cr_assert_eq(row, 5);
    free(text);
    nsc_run_free(&R);
    nsc_report_free(&r);
    nsc_deck_free(d);
}
