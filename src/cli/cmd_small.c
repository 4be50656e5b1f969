/* cmd_small.c -- the program's .ac and .dc outputs (issue 29): the analyses
 * are the run module's (run.h nsc_analyses: probes and results in nsc_run),
 * their files here (cli.md: STEM.dat alone, STEM.ac.dat / STEM.dc.dat beside
 * other analyses; each table through its format's line, out.h nsc_formats)
 * and the .meas ac results (run.h nsc_acmeas_print) on stdout and in a file. */
#include "config.h"
#include "cmd.h"
#include "analysis/smallsig.h"
#include "output/out_ac.h"
#include "output/rd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The files of one analysis: base (STEM or STEM.ac), the table out. */
typedef struct small_files {
    char *base, *out, *dat, *gp, *png, *meas;
} small_files;

static void files_free(small_files *F)
{
    free(F->base);
    free(F->out);
    free(F->dat);
    free(F->gp);
    free(F->png);
    free(F->meas);
}

static nsc_status files_of(const nsc_small_args *a, const nsc_circuit *c, const char *tag,
                           small_files *F, nsc_report *r)
{
    memset(F, 0, sizeof *F);
    const char *ext = nsc_formats[a->fmt].suffix;
    char *stem = a->outpath ? nsc_strdup(a->outpath) : nsc_stem(a->netlist);
    if (stem && a->outpath) { /* the output's name without its suffix */
        char *slash = strrchr(stem, '/'), *dot = strrchr(stem, '.');
        if (dot && (!slash || dot > slash + 1)) *dot = 0;
    }
    F->base = stem ? nsc_asprintf("%s%s", stem, a->several ? tag : "") : NULL;
    free(stem);
    if (!F->base) return nsc_oom(r);
    F->out = a->outpath && !a->several ? nsc_strdup(a->outpath)
                                       : nsc_asprintf("%s%s", F->base, ext);
    F->dat = nsc_asprintf("%s.dat", F->base);
    F->gp = nsc_asprintf("%s.gp", F->base);
    F->png = nsc_asprintf("%s.png", F->base);
    F->meas = nsc_asprintf("%s.meas", F->base);
    if (!F->out || !F->dat || !F->gp || !F->png || !F->meas) return nsc_oom(r);
    char *outs[] = { F->out, F->dat, F->gp, F->png, F->meas };
    const char *clash = nsc_output_is_input(outs, 5, c->files, c->nfiles);
    if (clash)
        return nsc_err(r, NSC_EUSAGE, NULL,
                       "the output '%s' is an input of this run: choose another name with -o",
                       clash);
    return NSC_OK;
}

/* The table's columns: .print ac's, else dB and phase of each output probe. */
static nsc_accol *ac_columns(const nsc_circuit *c, const nsc_ac_result *R, int nout, int *ncol,
                             char ***own)
{
    int n = c->job.nacout ? c->job.nacout : 2 * nout;
    nsc_accol *col = nsc_calloc((size_t)n + 1, sizeof *col);
    *own = nsc_calloc((size_t)n + 1, sizeof **own);
    if (!col || !*own) {
        free(col);
        free(*own);
        *own = NULL;
        return NULL;
    }
    for (int k = 0; k < n; k++) {
        if (c->job.nacout) {
            col[k].part = c->job.acout[k].part;
            col[k].name = c->job.acout[k].name;
            col[k].den = -1;
            for (int q = 0; q < R->np; q++) {
                if (!strcmp(R->name[q], c->job.acout[k].p.name)) col[k].probe = q;
                if (c->job.acout[k].den.name && !strcmp(R->name[q], c->job.acout[k].den.name))
                    col[k].den = q;
            }
            continue;
        }
        const char *pn = R->name[k / 2];
        col[k].den = -1;
        col[k].probe = k / 2;
        col[k].part = k % 2 ? NSC_ACP_PH : NSC_ACP_DB;
        (*own)[k] = nsc_asprintf("%c%s%s", pn[0], k % 2 ? "p" : "db", pn + 1);
        if (!(*own)[k]) { /* out of memory: nothing is handed back */
            for (int j = 0; j < k; j++) free((*own)[j]);
            free(*own);
            *own = NULL;
            free(col);
            return NULL;
        }
        col[k].name = (*own)[k];
    }
    *ncol = n;
    return col;
}

static nsc_status ac_write(const nsc_small_args *a, const nsc_circuit *c, const nsc_ac_result *R,
                           int nout, const small_files *F, nsc_report *r)
{
    int ncol = 0;
    char **own = NULL;
    nsc_accol *col = ac_columns(c, R, nout, &ncol, &own);
    nsc_status s = col ? NSC_OK : nsc_oom(r);
    int dat = nsc_formats[a->fmt].gnuplot;
    if (!s) s = nsc_formats[a->fmt].write_ac(R, col, ncol, F->out, r); /* the run's format */
    if (!s && a->plot && !dat)
        s = nsc_write_ac_dat(R, col, ncol, F->dat, r); /* the table the script plots */
    if (!s && (dat || a->plot))
        s = nsc_write_ac_gp(col, ncol, dat ? F->out : F->dat, F->gp, F->png, r);
    if (!s && a->plot) s = nsc_render_gp(F->gp, r);
    nsc_ctl_dest d = { stdout, "standard output", NULL, 0, a->netlist, 0 };
    if (!s && c->job.nacmeas) s = nsc_acmeas_print(c, R, &d, F->meas, r); /* stdout and STEM.meas */
    for (int k = 0; own && k < ncol; k++) free(own[k]);
    free(own);
    free(col);
    return s;
}

/* .ac: the run module's analysis (run.c), then its files. */
static nsc_status run_ac(const nsc_small_args *a, nsc_run *R, nsc_report *r)
{
    small_files F;
    nsc_status s = files_of(a, R->c, ".ac", &F, r);
    int raw = nsc_formats[a->fmt].raw; /* a raw file holds every vector, as ngspice's */
    if (!s) s = nsc_analyses[NSC_AN_AC].run(R, r);
    if (!s) s = ac_write(a, R->c, R->ac, R->nacout, &F, r);
    if (!s && !a->quiet)
        fprintf(stderr, "nscircuit: %s: %sAC analysis, %d frequencies from %g to %g Hz; wrote %s\n",
                a->netlist, R->steady ? "periodic " : "", R->ac->nf, R->ac->f[0],
                R->ac->f[R->ac->nf - 1], raw && a->several ? "its plot of the raw file" : F.out);
    files_free(&F);
    return s;
}

/* .dc: the run module's analysis (run.c), then its files (also of the rows
 * made before a sweep failed). */
static nsc_status run_dc(const nsc_small_args *a, nsc_run *R, nsc_report *r)
{
    small_files F;
    const nsc_circuit *c = R->c;
    nsc_status s = files_of(a, c, ".dc", &F, r);
    int raw = nsc_formats[a->fmt].raw;
    nsc_status rs = s ? s : nsc_analyses[NSC_AN_DC].run(R, r);
    const nsc_waves *W = R->dc;
    if (W && W->nrow > 0) {
        int dat = nsc_formats[a->fmt].gnuplot;
        if (!s) s = nsc_formats[a->fmt].write_dc(W, F.out, r); /* the run's format */
        if (!s && a->plot && !dat)
            s = nsc_write_dat(W, F.dat, 1, r); /* the table the script plots */
        if (!s && (dat || a->plot))            /* the script reads the table just written */
            s = nsc_write_dc_gp(W, c->job.ndc, dat ? F.out : F.dat, F.gp, F.png, r);
        if (!s && a->plot && !rs) s = nsc_render_gp(F.gp, r);
    }
    if (!s && !rs && !a->quiet)
        fprintf(stderr, "nscircuit: %s: DC sweep, %d points; wrote %s\n", a->netlist, W->nrow,
                raw && a->several ? "its plot of the raw file" : F.out);
    files_free(&F);
    return rs ? rs : s;
}

nsc_status nsc_cli_raw_merge(const nsc_small_args *a, const nsc_circuit *c, const char *tran,
                             int tran_line, nsc_report *r);

nsc_status nsc_cli_small(const nsc_small_args *a, nsc_run *R, nsc_report *r)
{
    const nsc_circuit *c = R->c;
    nsc_status s = nsc_analyses[NSC_AN_AC].asked(R) ? run_ac(a, R, r) : NSC_OK;
    if (!s && nsc_analyses[NSC_AN_DC].asked(R)) s = run_dc(a, R, r);
    int raw = nsc_formats[a->fmt].raw;
    if (!s && raw && a->several && !a->tran)
        s = nsc_cli_raw_merge(a, c, NULL, 0, r); /* .ac and .dc: one file */
    return s;
}

/* One output's harmonics, as ngspice prints them (10 harmonics, phases in degrees). */
static nsc_status four_one(FILE *f, const nsc_waves *W, int col, double fr, const char *name,
                           nsc_report *r)
{
    enum { NH = 10 };
    double mag[NH], ph[NH], thd;
    nsc_status s = nsc_four_eval(W, col, fr, NH, mag, ph, &thd, r);
    if (s) return s;
    fprintf(
        f,
        "Fourier analysis for %s:\n  No. Harmonics: %d, THD: %g %%, over [%.10g, %.10g] s (the rows, "
        "linear between them)\n\n",
        name, NH, thd, nsc_waves_at(W, W->nrow - 1, 0) - 1 / fr, nsc_waves_at(W, W->nrow - 1, 0));
    fputs("Harmonic Frequency   Magnitude   Phase       Norm. Mag   Norm. Phase\n"
          "-------- ---------   ---------   -----       ---------   -----------\n",
          f);
    for (int k = 0; k < NH; k++)
        fprintf(f, " %-7d %-11.6g %-11.6g %-11.6g %-11.6g %-11.6g\n", k, k * fr, mag[k], ph[k],
                k && mag[1] > 0 ? mag[k] / mag[1] : 0, k ? remainder(ph[k] - ph[1], 360) : 0);
    fputc('\n', f);
    return NSC_OK;
}

nsc_status nsc_cli_four(const nsc_circuit *c, const nsc_waves *W, const char *out, nsc_report *r)
{
    char *text = NULL, *path = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return nsc_oom(r);
    nsc_status s = NSC_OK;
    for (int q = 0; !s && q < c->job.nfour; q++)
        for (int j = 0; !s && j < c->job.four[q].nsig; j++) {
            int col = -1;
            for (int k = 1; k < W->ncol; k++)
                if (!strcmp(W->name[k], c->job.four[q].sig[j])) col = k;
            if (col < 0)
                s = nsc_err(r, NSC_ESIM, &c->job.four[q].loc, ".four: %s was not recorded",
                            c->job.four[q].sig[j]);
            else s = four_one(f, W, col, c->job.four[q].f, c->job.four[q].sig[j], r);
        }
    if (fclose(f) && !s) s = nsc_oom(r);
    if (!s) {
        fwrite(text, 1, len, stdout);
        s = nsc_stdout_status(r);
    }
    if (!s) {
        const char *slash = strrchr(out, '/'), *dot = strrchr(out, '.');
        int n = dot && (!slash || dot > slash + 1) ? (int)(dot - out) : (int)strlen(out);
        if (!(path = nsc_asprintf("%.*s.four", n, out))) s = nsc_oom(r);
        else if (nsc_output_is_input(&path, 1, c->files, c->nfiles)) /* a netlist named rc.four */
            s = nsc_err(r, NSC_EUSAGE, NULL,
                        "the output '%s' is an input of this run: choose another name with -o",
                        path);
        else s = nsc_write_atomic(path, text, len, r);
    }
    free(path);
    free(text);
    return s;
}

/* One plot of the merged raw file: its card's line and its file. */
typedef struct raw_part {
    int line;
    char *path;
} raw_part;

/* Parts in the netlist's order (by their cards' lines; insertion sort of <= 3). */
static void parts_sort(raw_part *p, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && p[j].line < p[j - 1].line; j--) {
            raw_part t = p[j];
            p[j] = p[j - 1];
            p[j - 1] = t;
        }
}

nsc_status nsc_cli_raw_merge(const nsc_small_args *a, const nsc_circuit *c, const char *tran,
                             int tran_line, nsc_report *r)
{
    raw_part part[3];
    int n = 0;
    small_files F[2];
    memset(F, 0, sizeof F);
    nsc_status s = NSC_OK;
    if (tran) part[n++] = (raw_part){ tran_line, (char *)tran };
    if (c->job.has_ac && !(s = files_of(a, c, ".ac", &F[0], r)))
        part[n++] = (raw_part){ c->job.ac.loc.line, F[0].out };
    if (!s && c->job.ndc && !(s = files_of(a, c, ".dc", &F[1], r)))
        part[n++] = (raw_part){ c->job.dc[0].loc.line, F[1].out };
    char *out = !s ? (a->outpath  ? nsc_strdup(a->outpath)
                      : F[0].base ? nsc_asprintf("%.*s.raw", (int)strlen(F[0].base) - 3, F[0].base)
                                  : nsc_asprintf("%.*s.raw", (int)strlen(F[1].base) - 3, F[1].base))
                   : NULL;
    if (!s && !out) s = nsc_oom(r);
    parts_sort(part, n);
    nsc_afile af;
    int opened = !s && !(s = nsc_afile_open(&af, out, r)), ok = 1;
    for (int k = 0; !s && k < n; k++) { /* the plots one after the other, as ngspice's -r */
        char *data = NULL;
        size_t len = 0;
        nsc_status rs = nsc_read_file(part[k].path, &data, &len, r);
        if (rs) ok = 0, s = rs;
        else ok &= fwrite(data, 1, len, af.f) == len;
        free(data);
    }
    if (opened && s) nsc_afile_close(&af, 0, r);
    else if (opened) s = nsc_afile_close(&af, ok, r);
    for (int k = 0; !s && k < 2; k++)
        if (F[k].out && strcmp(F[k].out, out)) remove(F[k].out);
    if (!s && !tran && !a->quiet) fprintf(stderr, "nscircuit: wrote %s\n", out);
    files_free(&F[0]);
    files_free(&F[1]);
    free(out);
    return s;
}
