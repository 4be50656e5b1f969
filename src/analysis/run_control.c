/* run_control.c -- the outputs of a run's .control blocks (wrdata, write,
 * print) from its rows and .meas results (run.h, nsc_run_control). The files
 * are written here; print's lines go to the stream the caller gives. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "run.h"
#include "base/path.h"
#include "output/out.h"

/* A file name for a message: as it is when it is one plain word, else in
 * single quotes with the bytes that are not printable as '?' (a name from the
 * netlist may hold spaces, quotes or a terminal's control bytes); buf: cap
 * bytes. */
static const char *shown(const char *path, char *buf, size_t cap)
{
    int plain = path && *path;
    for (const char *p = path; plain && *p; p++)
        plain = isgraph((unsigned char)*p) && *p != '\'' && *p != '"';
    if (!path || plain || cap < 3) return path;
    size_t k = 0;
    buf[k++] = '\'';
    for (const char *p = path; *p && k + 2 < cap; p++)
        buf[k++] = isprint((unsigned char)*p) ? *p : '?';
    buf[k++] = '\'';
    buf[k] = 0;
    return buf;
}

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
                                   const char *cmd, char *why, size_t cap, nsc_report *r)
{
    char sb[PATH_MAX + 3];
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
                 cmd, shown(o->path, sb, sizeof sb), full);
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

/* ngspice's vector name of W's column named s (print all > FILE): a node's
 * voltage "v(a)" is "a", a current "i(x)" is "x#branch" (ngspice's name of a
 * source's or an inductor's branch current), the rest as they are. */
static const char *ng_name(const char *s, char *buf, size_t n)
{
    size_t len = strlen(s);
    int v = !strncmp(s, "v(", 2), i = !strncmp(s, "i(", 2);
    if ((!v && !i) || s[len - 1] != ')' || strchr(s, ',') || len + 5 >= n) return s;
    snprintf(buf, n, "%.*s%s", (int)len - 3, s + 2, i ? "#branch" : "");
    return buf;
}

/* ngspice's order of vector names (vectors.c namecmp): character by character,
 * a run of digits as its number ("n2" before "n10"); ties by column. */
static int ng_namecmp(const char *s, const char *t)
{
    for (;;) {
        while (*s == *t && !isdigit((unsigned char)*s) && *s) s++, t++;
        if (!*s) return 0;
        if (*s != *t && (!isdigit((unsigned char)*s) || !isdigit((unsigned char)*t)))
            return (unsigned char)*s - (unsigned char)*t;
        unsigned long i = 0, j = 0;
        for (; isdigit((unsigned char)*s); s++) i = i * 10 + (unsigned long)(*s - '0');
        for (; isdigit((unsigned char)*t); t++) j = j * 10 + (unsigned long)(*t - '0');
        if (i != j) return i < j ? -1 : 1;
    }
}

typedef struct ng_col {
    int col;
    char name[64];
} ng_col;

static int ng_colcmp(const void *a, const void *b)
{
    const ng_col *x = a, *y = b;
    int c = ng_namecmp(x->name, y->name);
    return c ? c : x->col - y->col;
}

/* print > FILE's columns of W: o->vec's (o->all = 0), else the run's nout
 * outputs that are voltages (allv), currents (alli) or any with the scale
 * (all), by ngspice's names in its order; n of them into *n, a new array
 * (NULL: ENOMEM). */
static ng_col *print_columns(const nsc_waves *W, const nsc_ctlout *o, int nout, int *n)
{
    int cap = (o->nvec > nout ? o->nvec : nout) + 1;
    ng_col *v = nsc_calloc((size_t)cap, sizeof *v);
    *n = 0;
    if (!v) return NULL;
    for (int k = o->all ? 0 : 1; k <= (o->all ? nout : o->nvec); k++) {
        int col = o->all ? k : nsc_waves_col(W, o->vec[k - 1]);
        const char *s = col >= 0 ? W->name[col] : "";
        int kv = !strncmp(s, "v(", 2), ki = !strncmp(s, "i(", 2);
        if (col < 0
            || (o->all
                && (col == 0        ? o->all != 'a'
                    : o->all == 'v' ? !kv
                    : o->all == 'i' ? !ki
                                    : 0)))
            continue;
        char buf[64];
        v[*n].col = col;
        snprintf(v[*n].name, sizeof v[*n].name, "%s", o->all ? ng_name(s, buf, sizeof buf) : s);
        (*n)++;
    }
    if (o->all) qsort(v, (size_t)*n, sizeof *v, ng_colcmp);
    return v;
}

/* `>> FILE` as one replacement: a temporary (nsc_afile_open, beside a symbolic
 * link's target) that starts with FILE's bytes and takes its permission bits,
 * renamed over FILE (the target) only once the whole print is written, so a
 * print that fails leaves FILE as it was. FILE that is no regular file (a FIFO,
 * /dev/stdout) is opened for appending. */
static nsc_status append_open(nsc_afile *a, const char *path, nsc_report *r)
{
    struct stat sb;
    int have = stat(path, &sb) == 0;
    if (have && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) {
        *a = (nsc_afile){ .path = path };
        return (a->f = fopen(path, "a"))
                   ? NSC_OK
                   : nsc_err(r, NSC_EOUT, NULL, "cannot write '%s': %s", path, strerror(errno));
    }
    nsc_status s = nsc_afile_open(a, path, r);
    if (s) return s;
    if (have) (void)fchmod(fileno(a->f), sb.st_mode & 07777); /* (best effort) */
    FILE *in = fopen(path, "rb");
    int e = in ? 0 : errno == ENOENT ? 0 : errno; /* (no FILE yet: it starts empty) */
    char buf[1 << 14];
    for (size_t k; in && !e && (k = fread(buf, 1, sizeof buf, in)) > 0;)
        if (fwrite(buf, 1, k, a->f) != k) e = errno ? errno : EIO;
    if (in && ferror(in)) e = errno ? errno : EIO;
    if (in) fclose(in);
    if (!e) return NSC_OK;
    nsc_report q;
    nsc_report_init(&q);
    nsc_afile_close(a, 0, &q); /* (the temporary removed) */
    nsc_report_free(&q);
    return nsc_err(r, NSC_EOUT, NULL, "cannot append to '%s': %s", path, strerror(e));
}

/* print o > FILE (>> FILE: appended, append_open): the .meas results it names,
 * then its vectors of W as ngspice's paged table (nsc_write_print_pages); a
 * failure is a warning in r. */
static void control_print_file(const nsc_run *R, const nsc_ctlout *o, nsc_report *r)
{
    char sb[PATH_MAX + 3];
    nsc_report wr;
    nsc_report_init(&wr);
    int n = 0, ok = 0;
    ng_col *v = print_columns(R->W, o, R->nout, &n);
    int *cols = v ? nsc_calloc((size_t)n + 1, sizeof *cols) : NULL;
    char **names = cols ? nsc_calloc((size_t)n + 1, sizeof *names) : NULL;
    for (int k = 0; names && k < n; k++) {
        cols[k] = v[k].col;
        names[k] = v[k].name;
    }
    nsc_afile a = { 0 };
    nsc_status s = !names      ? nsc_oom(&wr)
                   : o->append ? append_open(&a, o->path, &wr)
                               : nsc_afile_open(&a, o->path, &wr);
    if (!s) {
        s = control_print(R->c, NULL, R->mres, o, a.f, &wr);
        if (!s && (n > 0 || o->nvec == 0))
            s = nsc_write_print_pages(R->W, cols, names, n, a.f, &wr);
        ok = !s;
        if (nsc_afile_close(&a, ok, &wr) && !s) s = NSC_EOUT;
    }
    const char *why = wr.error ? wr.error : "error", *pre = "nscircuit: error: ";
    if (!strncmp(why, pre, strlen(pre))) why += strlen(pre);
    if (s)
        nsc_warn(r, &o->loc, "print %s %s not written: %s", o->append ? ">>" : ">",
                 shown(o->path, sb, sizeof sb), why);
    nsc_report_free(&wr);
    free(names);
    free(cols);
    free(v);
}

/* wrdata or write o: S (NULL: out of memory) into o->path; a failure is a
 * warning in r ("... not written: why"). */
static void control_file_out(const nsc_circuit *c, const nsc_ctlout *o, const nsc_waves *S,
                             const char *cmd, nsc_report *r)
{
    char sb[PATH_MAX + 3];
    nsc_report wr;
    nsc_report_init(&wr);
    nsc_status s = !S       ? nsc_oom(&wr)
                   : o->raw ? nsc_write_raw(S, o->path, 0, 1, &wr)
                            : nsc_write_wrdata(S, c->job.ctl_singlescale, c->job.ctl_vecnames,
                                               o->path, &wr);
    const char *why = wr.error ? wr.error : "error", *pre = "nscircuit: error: ";
    if (!strncmp(why, pre, strlen(pre))) why += strlen(pre);
    if (s) nsc_warn(r, &o->loc, "%s %s not written: %s", cmd, shown(o->path, sb, sizeof sb), why);
    nsc_report_free(&wr);
}

nsc_status nsc_run_control(const nsc_run *R, const nsc_ctl_dest *d, nsc_report *r)
{
    const nsc_circuit *c = R->c;
    char sb[PATH_MAX + 3];
    for (int k = 0; k < c->job.nctlout; k++) {
        const nsc_ctlout *o = &c->job.ctlout[k];
        const char *cmd = o->print ? (o->append ? "print >>" : "print >")
                          : o->raw ? "write"
                                   : "wrdata";
        char buf[PATH_MAX + 128];
        const char *no = o->print && !o->path ? NULL
                                              : control_refusal(c, o, d, cmd, buf, sizeof buf, r);
        if (no) {
            nsc_warn(r, &o->loc, "%s %s not written: %s", cmd, shown(o->path, sb, sizeof sb), no);
            continue;
        }
        if (o->path && o->print) {
            control_print_file(R, o, r);
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

void nsc_run_control_none(const nsc_circuit *c, nsc_report *r)
{
    char sb[PATH_MAX + 3];
    for (int k = 0; k < c->job.nctlout; k++) {
        const nsc_ctlout *o = &c->job.ctlout[k];
        const char *cmd = o->print ? (o->append ? "print >>" : "print >")
                          : o->raw ? "write"
                                   : "wrdata";
        if (o->print && !o->path)
            nsc_warn(r, &o->loc,
                     "print not run: .control outputs take a transient's rows, and "
                     "this run has none (the .op/.ac/.dc results are in its own outputs)");
        else
            nsc_warn(r, &o->loc,
                     "%s %s not written: .control outputs take a transient's rows, "
                     "and this run has none (the .op/.ac/.dc results are in its own outputs)",
                     cmd, shown(o->path, sb, sizeof sb));
    }
}
