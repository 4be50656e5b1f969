/* out_raw.c -- ngspice raw files (ASCII and binary), as ngspice 39 writes them
 * in batch mode (`ngspice -b -r file.raw`), so that ngspice's `load` and the
 * waveform viewers that read SPICE raw files open them. */
#include "out.h"
#include "out_fmt.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ngspice's date: asctime() with two blanks before the year ("Sat Nov 21 21:05:29  2026"). */
static void raw_date(char *buf, size_t n)
{
    time_t now = time(NULL);
    struct tm tm;
    if (!localtime_r(&now, &tm) || !strftime(buf, n, "%a %b %e %H:%M:%S  %Y", &tm)) snprintf(buf, n, "unknown");
}

/* ngspice's variable type of a column */
static const char *raw_type(const char *name, int col)
{
    if (col == 0) return "time";
    if ((name[0] == 'i' || name[0] == 'I') && name[1] == '(') return "current";
    return "voltage";
}

/* x as 8 little-endian bytes */
static void put_le(unsigned char *p, double x)
{
    uint64_t u;
    memcpy(&u, &x, 8);
    for (int k = 0; k < 8; k++) p[k] = (unsigned char)(u >> (8 * k));
}

static void header(const nsc_waves *W, FILE *f)
{
    char date[64];
    raw_date(date, sizeof date);
    fputs("Title: ", f);
    for (const char *p = W->title ? W->title : ""; *p; p++)          /* one line */
        fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
    if (W->end != NSC_RUN_COMPLETE) {
        fprintf(f, " [%s at t=%.10e s", W->end == NSC_RUN_INTERRUPTED ? "interrupted" : "stopped (simulation failure)",
                W->t_end);
        if (W->end_msg) fputs(": ", f);
        if (W->end_msg)
            for (const char *p = W->end_msg; *p; p++) fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
        fputc(']', f);
    }
    fprintf(f, "\nDate: %s\nPlotname: Transient Analysis\nFlags: real\nNo. Variables: %d\nNo. Points: %-8d\n"
               "Variables:\n", date, W->ncol, W->nrow);
    for (int k = 0; k < W->ncol; k++) fprintf(f, "\t%d\t%s\t%s\n", k, W->name[k], raw_type(W->name[k], k));
}

nsc_status nsc_write_raw(const nsc_waves *W, const char *path, int binary, nsc_report *r)
{
    nsc_afile a;
    nsc_status s = nsc_afile_open(&a, path, r);
    if (s) return s;
    FILE *f = a.f;
    header(W, f);
    int ok = 1;
    if (binary) {
        fputs("Binary:\n", f);
        unsigned char *buf = nsc_calloc((size_t)W->ncol, 8);
        if (!buf) {
            nsc_afile_close(&a, 0, r);
            return nsc_err(r, NSC_ENOMEM, NULL, "out of memory");
        }
        for (int i = 0; ok && i < W->nrow; i++) {
            const double *row = W->v + (size_t)i * W->ncol;
            for (int k = 0; k < W->ncol; k++) put_le(buf + 8 * k, row[k] + 0.0);
            ok = fwrite(buf, 8, (size_t)W->ncol, f) == (size_t)W->ncol;
        }
        free(buf);
    } else {
        fputs("Values:\n", f);
        char *line = malloc((size_t)W->ncol * 40 + 32);
        ok = line != NULL;
        for (int i = 0; ok && i < W->nrow; i++) {
            const double *row = W->v + (size_t)i * W->ncol;
            int len = snprintf(line, 32, "%d\t", i);
            for (int k = 0; k < W->ncol; k++) {              /* "\t%.15e\n" (nsc_fmt_e: the same bytes) */
                line[len++] = '\t';
                len += nsc_fmt_e(line + len, row[k] + 0.0, 15); /* -0 prints as 0 */
                line[len++] = '\n';
            }
            ok = fwrite(line, 1, (size_t)len, f) == (size_t)len;
        }
        free(line);
    }
    return nsc_afile_close(&a, ok, r);
}
