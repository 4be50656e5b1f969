/* out_dat.c -- gnuplot columns and CSV, written atomically (temp + rename). */
#define _DEFAULT_SOURCE /* realpath, readlink, lstat */
#include "out.h"
#include "out_fmt.h"
#include "out_rows.h"
#include "cmp.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file a symbolic link names, followed to its end (at most 40 links, as
 * the kernel's): realpath where the target exists, else the last link's text
 * taken relative to its directory (a dangling link: the file is created, as
 * the shell's `>` and ngspice's fopen do). NULL: a loop, or no memory. */
static char *link_target(const char *path)
{
    char *p = nsc_strdup(path);
    for (int k = 0; p && k < 40; k++) {
        struct stat lb;
        if (lstat(p, &lb) || !S_ISLNK(lb.st_mode)) return p;
        char *real = realpath(p, NULL), t[4096];
        if (real) {
            free(p);
            return real;
        }
        ssize_t n = readlink(p, t, sizeof t - 1);
        if (n <= 0) break;
        t[n] = 0;
        const char *slash = strrchr(p, '/');
        char *q = t[0] == '/' || !slash ? nsc_strdup(t)
                                        : nsc_asprintf("%.*s/%s", (int)(slash - p), p, t);
        free(p);
        p = q;
    }
    free(p);
    return NULL;
}

static nsc_status afile_start(nsc_afile *a, const char *path, nsc_report *r)
{
    struct stat sb;
    if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) { /* written through, not replaced */
        if (!(a->own = link_target(path)))
            return nsc_err(r, NSC_EOUT, NULL, "cannot write '%s': its symbolic links do not end",
                           path);
        a->path = path = a->own;
    }
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) { /* a device, a FIFO: write to it */
        if (S_ISDIR(sb.st_mode))
            return nsc_err(r, NSC_EOUT, NULL, "cannot write '%s': Is a directory", path);
        if (!(a->f = fopen(path, "w")))
            return nsc_err(r, NSC_EOUT, NULL, "cannot write '%s': %s", path, strerror(errno));
        return NSC_OK;
    }
    nsc_reap_stale(path); /* a killed run's temporaries */
    a->tmp = nsc_tmp_template(path);
    if (!a->tmp) return nsc_oom(r);
    int fd = nsc_mkstemp(a->tmp);
    if (fd < 0 || !(a->f = fdopen(fd, "w"))) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(a->tmp);
        }
        free(a->tmp);
        a->tmp = NULL;
        return nsc_err(r, NSC_EOUT, NULL, "cannot write '%s': %s", path, strerror(e));
    }
    return NSC_OK;
}

nsc_status nsc_afile_open(nsc_afile *a, const char *path, nsc_report *r)
{
    *a = (nsc_afile){ .path = path };
    nsc_status s = afile_start(a, path, r);
    if (s) { /* (no close follows a failed open) */
        free(a->own);
        a->own = NULL;
    }
    return s;
}

nsc_status nsc_afile_close(nsc_afile *a, int ok, nsc_report *r)
{
    int bad = !ok || ferror(a->f);
    int e = errno;
    if (fflush(a->f)) {
        bad = 1;
        e = errno;
    } /* the error of the write that failed */
    if (fclose(a->f)) {
        if (!bad) e = errno;
        bad = 1;
    }
    if (!bad && a->tmp && rename(a->tmp, a->path)) {
        bad = 1;
        e = errno;
    }
    if (bad && a->tmp) unlink(a->tmp);
    free(a->tmp);
    a->tmp = NULL;
    nsc_status s = bad ? nsc_err(r, NSC_EOUT, NULL, "cannot write '%s': %s", a->path,
                                 strerror(e ? e : EIO))
                       : NSC_OK;
    free(a->own);
    a->own = NULL;
    return s;
}

nsc_status nsc_write_atomic(const char *path, const char *data, size_t len, nsc_report *r)
{
    nsc_afile a;
    nsc_status s = nsc_afile_open(&a, path, r);
    if (s) return s;
    int ok = fwrite(data, 1, len, a.f) == len;
    return nsc_afile_close(&a, ok, r);
}

static void end_note(const nsc_waves *W, FILE *f);

/* The state changes of W (--events): "# t device state" then one line each,
 * t in seconds (%.12e), state 1 (the pair active: a diode conducts, a switch
 * is on) or 0; the run's end note as in the .dat. */
nsc_status nsc_write_events(const nsc_waves *W, const char *path, nsc_report *r)
{
    nsc_afile a;
    nsc_status s = nsc_afile_open(&a, path, r);
    if (s) return s;
    fprintf(a.f, "# state changes of %s: time (s), device (pair), state (1 on, 0 off)\n",
            W->title ? W->title : "");
    for (int k = 0; k < W->nev; k++)
        fprintf(a.f, "%.12e %s %d\n", W->ev[k].t, W->ev[k].dev, W->ev[k].on);
    end_note(W, a.f);
    return nsc_afile_close(&a, 1, r);
}

static void end_note(const nsc_waves *W, FILE *f)
{
    if (W->end == NSC_RUN_COMPLETE) return;
    fprintf(f, "# %s at t=%.10e s: %s\n",
            W->end == NSC_RUN_INTERRUPTED ? "interrupted" : "stopped (simulation failure)",
            W->t_end, W->end_msg ? W->end_msg : "");
}

/* one row, "%.12e" values (nsc_fmt_e: the same bytes) separated by *sep */
static size_t table_row(const nsc_waves *W, int i, long index, char *buf, const void *sep)
{
    const double *row = W->v + (size_t)i * W->ncol;
    size_t len = 0;
    for (int k = 0; k < W->ncol; k++) {
        if (k) buf[len++] = *(const char *)sep;
        len += (size_t)nsc_fmt_e(buf + len, row[k] + 0.0, 12); /* -0 prints as 0 */
    }
    buf[len++] = '\n';
    return len;
}

nsc_rowfmt nsc_table_rowfmt(int ncol, char sep)
{
    static const char space = ' ', comma = ',';
    return (nsc_rowfmt){ table_row, (size_t)ncol * 32 + 2, sep == ',' ? &comma : &space };
}

/* A CSV field as RFC 4180 has it: quoted ("" for a quote) when it holds a
 * comma, a quote or a line break (v(p,n)), else as it is. */
static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void nsc_table_header(const nsc_waves *W, FILE *f, char sep)
{
    if (sep == ' ') {
        fputc('#', f);
        for (int k = 0; k < W->ncol; k++) fprintf(f, " %s", W->name[k]);
        fputc('\n', f);
        end_note(W, f);
    } else {
        end_note(W, f);
        for (int k = 0; k < W->ncol; k++) {
            if (k) fputc(',', f);
            csv_field(f, W->name[k]);
        }
        fputc('\n', f);
    }
}

static nsc_status write_table(const nsc_waves *W, const char *path, char sep, int threads,
                              nsc_report *r)
{
    nsc_afile a;
    nsc_status s = nsc_afile_open(&a, path, r);
    if (s) return s;
    nsc_table_header(W, a.f, sep);
    int ok = nsc_write_rows(a.f, W, nsc_table_rowfmt(W->ncol, sep), threads);
    return nsc_afile_close(&a, ok, r);
}

nsc_status nsc_write_dat(const nsc_waves *W, const char *path, int threads, nsc_report *r)
{
    return write_table(W, path, ' ', threads, r);
}

nsc_status nsc_write_wrdata(const nsc_waves *W, int singlescale, int vecnames, const char *path,
                            nsc_report *r)
{
    nsc_afile a;
    nsc_status st = nsc_afile_open(&a, path, r);
    if (st) return st;
    if (vecnames) {
        for (int k = 1; k < W->ncol; k++)
            fprintf(a.f, "%s%s%s", k > 1 ? " " : "", singlescale && k > 1 ? "" : "time ",
                    W->name[k]);
        fputc('\n', a.f);
    }
    nsc_wcur cur;
    int ok = !nsc_wcur_init(&cur, W);
    for (int i = 0; ok && i < W->nrow; i++) {
        const double *v = nsc_wcur_row(&cur, i);
        for (int k = 1; k < W->ncol; k++) {
            if (!singlescale || k == 1) fprintf(a.f, "%s% .12e", k > 1 ? " " : "", v[0]);
            fprintf(a.f, " % .12e", v[k]);
        }
        fputc('\n', a.f);
    }
    if (cur.err) errno = cur.err; /* (the message names the file written) */
    ok = ok && !cur.err;
    nsc_wcur_free(&cur);
    return nsc_afile_close(&a, ok, r);
}

nsc_status nsc_write_print(const nsc_waves *W, FILE *f, nsc_report *r)
{
    static const char rule[] =
        "--------------------------------------------------------------------------------\n";
    fprintf(f, "%sIndex   ", rule);
    for (int k = 0; k < W->ncol; k++) fprintf(f, "%-16s", W->name[k]);
    fprintf(f, "\n%s", rule);
    nsc_wcur cur;
    int ok = !nsc_wcur_init(&cur, W);
    for (int i = 0; ok && i < W->nrow; i++) {
        const double *v = nsc_wcur_row(&cur, i);
        fprintf(f, "%d\t", i);
        for (int k = 0; k < W->ncol; k++)
            fprintf(f, v[k] < 0 ? "%.5e\t" : "%.6e\t", v[k]); /* 12 characters */
        fputc('\n', f);
    }
    int err = cur.err;
    nsc_wcur_free(&cur);
    if (!ok || err || fflush(f) || ferror(f))
        return nsc_err(r, NSC_EOUT, NULL, "print: %s", strerror(err ? err : errno ? errno : EIO));
    return NSC_OK;
}

/* One block of ngspice's paged table (com_print): the title line centred in
 * 80 columns, the analysis name under it, a rule, "Index" and the names, a
 * rule, then rows "%d\t" and each value and a tab; 55 rows on the first page,
 * 58 on the next ones, each after a form feed and the names again. Columns:
 * 0 (the scale) and cols[0..n) of W, named names[0..n). */
static void print_block(const nsc_waves *W, nsc_wcur *cur, const int *cols, char *const *names,
                        int n, FILE *f)
{
    static const char rule[] =
        "--------------------------------------------------------------------------------\n";
    static const char *const kind[] = { "Transient Analysis", "AC Analysis",
                                        "DC transfer characteristic" };
    const char *t = W->title ? W->title : "";
    int pad = strlen(t) < 80 ? (int)(80 - strlen(t)) / 2 : 0;
    fprintf(f, "%*s%s\n%*s%s\n%s", pad, "", t, pad, "", kind[nsc_waves_scale(W)], rule);
    for (int i = 0, line = 3; i < W->nrow; line = 0) { /* a page */
        if (i > 0) fputs("\f\n", f);
        fprintf(f, "Index   %-16.15s", W->name[0]);
        for (int k = 0; k < n; k++) fprintf(f, "%-16.15s", names[k]);
        fprintf(f, "\n%s", rule);
        for (line += 2; i < W->nrow && line < 60; i++, line++) {
            const double *v = nsc_wcur_row(cur, i);
            fprintf(f, v[0] < 0 ? "%d\t%.5e\t" : "%d\t%.6e\t", i, v[0]);
            for (int k = 0; k < n; k++)
                fprintf(f, v[cols[k]] < 0 ? "%.5e\t" : "%.6e\t", v[cols[k]]);
            fputc('\n', f);
        }
    }
}

nsc_status nsc_write_print_pages(const nsc_waves *W, const int *cols, char *const *names, int n,
                                 FILE *f, nsc_report *r)
{
    nsc_wcur cur;
    int ok = !nsc_wcur_init(&cur, W);
    for (int k = 0; ok && k < n; k += 3) { /* 8 + 16 (scale + 3) <= 80 columns a block */
        if (k > 0) fputs("\f\n", f);
        print_block(W, &cur, cols + k, names + k, n - k < 3 ? n - k : 3, f);
    }
    if (n == 0 && ok) print_block(W, &cur, cols, names, 0, f);
    int err = cur.err;
    nsc_wcur_free(&cur);
    if (!ok || err) return nsc_err(r, NSC_EOUT, NULL, "print: %s", strerror(err ? err : ENOMEM));
    return NSC_OK;
}

nsc_status nsc_write_csv(const nsc_waves *W, const char *path, int threads, nsc_report *r)
{
    return write_table(W, path, ',', threads, r);
}

const char *nsc_eng(double x, const char *unit, char *buf, size_t n)
{
    static const char *const prefix[] = { "f", "p", "n", "u", "m", "", "k", "M", "G", "T" };
    int e = 0;
    if (isfinite(x) && x != 0) {
        e = (int)floor(log10(fabs(x)) / 3);
        if (e < -5) e = -5;
        if (e > 4) e = 4;
        if (fabs(x) / pow(10, 3 * e) >= 999.95 && e < 4) e++; /* 999.96 m -> 1 */
    }
    const char *p = prefix[e + 5];
    snprintf(buf, n, "%.4g%s%s%s", x / pow(10, 3 * e) + 0.0, *p || *unit ? " " : "", p, unit);
    return buf;
}
