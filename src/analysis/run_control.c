/* run_control.c -- the outputs of a run's .control blocks (wrdata, write,
 * print) from its rows and .meas results (run.h, nsc_run_control). The files
 * are written here; print's lines go to the stream the caller gives. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "base/path.h"
#include "output/out.h"

/* The columns of W that o's vectors name (a print's .meas names are not
 * columns), or the run's nout outputs when it names none; n of them, a new
 * array (NULL: ENOMEM). */
static int *control_columns(const nsc_waves *W, const nsc_ctlout *o, int nout, int *n)
{
    int *cols = nsc_calloc((size_t)(o->nvec > nout ? o->nvec : nout) + 1, sizeof *cols);
    *n = 0;
    if (!cols) return NULL;
    for (int j = 0; j < o->nvec; j++) {
        int col = nsc_waves_col(W, o->vec[j]);
        if (col > 0) cols[(*n)++] = col;
    }
    if (o->nvec == 0) /* the run's outputs */
        for (; *n < nout; (*n)++) cols[*n] = *n + 1;
    return cols;
}

/* print VEC...: the .meas results it names as ngspice prints them ("vmax =
 * 9.933108e-01"), then S, its other vectors (NULL: none), as an indexed table,
 * on out. */
static nsc_status control_print(const nsc_circuit *c, const nsc_waves *S,
                                const nsc_meas_result *res, const nsc_ctlout *o, FILE *out,
                                nsc_report *r)
{
    for (int j = 0, k; res && j < o->nvec; j++)
        if ((k = nsc_circuit_meas(c, o->vec[j])) >= 0) {
            if (res[k].ok) fprintf(out, "%s = %e\n", c->job.meas[k].name, res[k].value + 0.0);
            else fprintf(out, "%s = failed\n", c->job.meas[k].name);
        }
    return S ? nsc_write_print(S, out, r) : NSC_OK;
}

/* Why the .control output o may not be written, NULL when it may: an input of
 * the run, one of its own outputs d->outs, or (d->safe) a file outside the
 * netlist's directory and the current directory; such a file otherwise gets a
 * note in r naming it. why[cap]: the reason's buffer. */
static const char *control_refusal(const nsc_circuit *c, const nsc_ctlout *o, const nsc_ctl_dest *d,
                                   char *why, size_t cap, nsc_report *r)
{
    char *path[] = { o->path };
    if (nsc_output_is_input(path, 1, c->files, c->nfiles)) return "it is an input of this run";
    for (int k = 0; k < d->nouts; k++)
        if (nsc_same_path(o->path, d->outs[k])) return "it is an output of this run";
    char *nd = nsc_strdup(d->netlist), *slash = nd ? strrchr(nd, '/') : NULL;
    if (slash) slash[1] = 0;
    char *full = nsc_canon_path(o->path), *cwd = nsc_canon_path("."),
         *dir = nd ? nsc_canon_path(slash ? nd : ".") : NULL;
    int outside = full && cwd && dir && !nsc_path_under(full, cwd) && !nsc_path_under(full, dir);
    const char *res = NULL;
    if (outside && d->safe) {
        snprintf(why, cap,
                 "%s is outside the netlist's directory and the current directory (--safe-control)",
                 full);
        res = why;
    } else if (outside)
        nsc_note(r, &o->loc,
                 "%s %s writes %s, outside the netlist's directory and the current directory "
                 "(--safe-control refuses it)",
                 o->raw ? "write" : "wrdata", o->path, full);
    free(nd);
    free(full);
    free(cwd);
    free(dir);
    return res;
}

/* print o: S (NULL: out of memory) and the .meas results on d->out. A print
 * that failed is a warning in r; d->out that cannot be written, the error. */
static nsc_status control_print_out(const nsc_run *R, const nsc_ctlout *o, const nsc_waves *S,
                                    int n, const nsc_ctl_dest *d, nsc_report *r)
{
    nsc_report wr;
    nsc_report_init(&wr); /* (n = 0 with vectors: only .meas names) */
    nsc_status s = !S ? nsc_oom(&wr)
                      : control_print(R->c, n == 0 && o->nvec > 0 ? NULL : S, R->mres, o, d->out,
                                      &wr);
    nsc_status so = nsc_stream_status(d->out, d->out_name, r);
    if (s && !so) nsc_warn(r, &o->loc, "print: %s", wr.error ? wr.error : "error");
    nsc_report_free(&wr);
    return so;
}

/* wrdata or write o: S (NULL: out of memory) into o->path; a failure is a
 * warning in r ("... not written: why"). */
static void control_file_out(const nsc_circuit *c, const nsc_ctlout *o, const nsc_waves *S,
                             const char *cmd, nsc_report *r)
{
    nsc_report wr;
    nsc_report_init(&wr);
    nsc_status s = !S       ? nsc_oom(&wr)
                   : o->raw ? nsc_write_raw(S, o->path, 0, 1, &wr)
                            : nsc_write_wrdata(S, c->job.ctl_singlescale, c->job.ctl_vecnames,
                                               o->path, &wr);
    const char *why = wr.error ? wr.error : "error", *pre = "nscircuit: error: ";
    if (!strncmp(why, pre, strlen(pre))) why += strlen(pre);
    if (s) nsc_warn(r, &o->loc, "%s %s not written: %s", cmd, o->path, why);
    nsc_report_free(&wr);
}

nsc_status nsc_run_control(const nsc_run *R, const nsc_ctl_dest *d, nsc_report *r)
{
    const nsc_circuit *c = R->c;
    for (int k = 0; k < c->job.nctlout; k++) {
        const nsc_ctlout *o = &c->job.ctlout[k];
        const char *cmd = o->print ? "print" : o->raw ? "write" : "wrdata";
        char buf[PATH_MAX + 128];
        const char *no = o->print ? NULL : control_refusal(c, o, d, buf, sizeof buf, r);
        if (no) {
            nsc_warn(r, &o->loc, "%s %s not written: %s", cmd, o->path, no);
            continue;
        }
        int n, *cols = control_columns(R->W, o, R->nout, &n);
        nsc_waves *S = cols ? nsc_waves_select(R->W, cols, n) : NULL;
        free(cols);
        nsc_status so = o->print ? control_print_out(R, o, S, n, d, r) : NSC_OK;
        if (!o->print) control_file_out(c, o, S, cmd, r);
        nsc_waves_free(S);
        if (so) return so;
    }
    return NSC_OK;
}
