/* run_report.c -- what a run shows of its results (run.h): the operating
 * point and the .meas results, on the stream the caller gives and, for the
 * measures, in a file beside the run's outputs. Nothing is printed elsewhere:
 * the program (cli/main.c) passes its standard output. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "run.h"
#include "base/path.h"
#include "output/out.h"

nsc_status nsc_run_op_print(const nsc_run *R, const nsc_ctl_dest *d, nsc_report *r)
{
    const nsc_waves *O = R->op;
    fprintf(d->out, "operating point of %s\n", d->netlist);
    for (int k = 1; k < O->ncol; k++) fprintf(d->out, "  %-20s = % .10e\n", O->name[k], O->v[k]);
    return nsc_stream_status(d->out, d->out_name, r);
}

/* The name of measure k of c: .meas tran or .meas ac. */
typedef const char *(*meas_name)(const nsc_circuit *c, int k);
static const char *tran_name(const nsc_circuit *c, int k)
{
    return c->job.meas[k].name;
}
static const char *ac_name(const nsc_circuit *c, int k)
{
    return c->job.acmeas[k].name;
}

/* "NAME = VALUE" for res[0..n) on d->out (%.9e) and into f (%.12e), a failed
 * one "NAME = failed". */
static void meas_lines(const nsc_circuit *c, meas_name name, const nsc_meas_result *res, int n,
                       const nsc_ctl_dest *d, FILE *f)
{
    for (int k = 0; k < n; k++) {
        if (res[k].ok) {
            fprintf(d->out, "%s = %.9e\n", name(c, k), res[k].value + 0.0); /* (+ 0.0: no -0) */
            fprintf(f, "%s = %.12e\n", name(c, k), res[k].value + 0.0);
        } else {
            fprintf(d->out, "%s = failed\n", name(c, k));
            fprintf(f, "%s = failed\n", name(c, k));
        }
    }
}

/* The text made in f (text, len: an open_memstream's) closed, d->out's
 * status checked, then the text written to path. */
static nsc_status meas_finish(FILE *f, char **text, size_t *len, const nsc_ctl_dest *d,
                              const char *path, nsc_report *r)
{
    if (fclose(f)) {
        free(*text);
        return nsc_oom(r);
    }
    nsc_status s = nsc_stream_status(d->out, d->out_name, r); /* a full output: NSC_EOUT */
    if (!s) s = nsc_write_atomic(path, *text, *len, r);
    free(*text);
    return s;
}

nsc_status nsc_run_meas_print(const nsc_run *R, const nsc_ctl_dest *d, const char *path,
                              nsc_report *r)
{
    const nsc_circuit *c = R->c;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return nsc_oom(r);
    fprintf(f, "# .meas results of %s (nscircuit %s)\n", d->netlist, PACKAGE_VERSION);
    meas_lines(c, tran_name, R->mres, c->job.nmeas, d, f);
    return meas_finish(f, &text, &len, d, path, r);
}

nsc_status nsc_acmeas_print(const nsc_circuit *c, const nsc_ac_result *A, const nsc_ctl_dest *d,
                            const char *path, nsc_report *r)
{
    nsc_meas_result *res = nsc_calloc((size_t)c->job.nacmeas + 1, sizeof *res);
    char *text = NULL;
    size_t len = 0;
    FILE *f = res ? open_memstream(&text, &len) : NULL;
    if (!f) {
        free(res);
        return nsc_oom(r);
    }
    nsc_acmeas_eval(c, A, res);
    fprintf(f, "# .meas ac results of %s (nscircuit %s; phases in degrees)\n", d->netlist,
            PACKAGE_VERSION);
    meas_lines(c, ac_name, res, c->job.nacmeas, d, f);
    for (int k = 0; k < c->job.nacmeas; k++)
        if (!res[k].ok)
            nsc_warn(r, &c->job.acmeas[k].loc, ".meas %s failed: %s", c->job.acmeas[k].name,
                     res[k].why ? res[k].why : "");
    nsc_meas_results_free(res, c->job.nacmeas);
    free(res);
    return meas_finish(f, &text, &len, d, path, r);
}
