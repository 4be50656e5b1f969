/* out_raw.c -- ngspice raw files (ASCII and binary), as ngspice 39 writes them
 * in batch mode (`ngspice -b -r file.raw`), so that ngspice's `load` and the
 * waveform viewers that read SPICE raw files open them. */
#include "out.h"
#include "out_fmt.h"
#include "out_rows.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ngspice's date: asctime() with two blanks before the year ("Sat Nov 21 21:05:29  2026").
 * SOURCE_DATE_EPOCH (the reproducible-builds convention: decimal seconds since
 * the epoch, read as UTC) replaces the clock, so two runs can give the same bytes. */
void nsc_raw_date(char *buf, size_t n)
{
    time_t now = time(NULL);
    struct tm tm, *ok;
    const char *e = getenv("SOURCE_DATE_EPOCH");
    char *end = NULL;
    long long sde = e && *e ? strtoll(e, &end, 10) : -1;
    if (e && *e && end && !*end && sde >= 0 && sde <= 253402300799LL) {
        now = (time_t)sde;
        ok = gmtime_r(&now, &tm);
    } else ok = localtime_r(&now, &tm);
    if (!ok || !strftime(buf, n, "%a %b %e %H:%M:%S  %Y", &tm)) snprintf(buf, n, "unknown");
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
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &x, 8); /* already little-endian */
#else
    uint64_t u;
    memcpy(&u, &x, 8);
    for (int k = 0; k < 8; k++) p[k] = (unsigned char)(u >> (8 * k));
#endif
}

void nsc_raw_header(const nsc_waves *W, FILE *f, int binary, int npoints, long *npos)
{
    char date[64];
    nsc_raw_date(date, sizeof date);
    fputs("Title: ", f);
    for (const char *p = W->title ? W->title : ""; *p; p++) /* one line */
        fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
    if (W->end != NSC_RUN_COMPLETE) {
        fprintf(f, " [%s at t=%.10e s",
                W->end == NSC_RUN_INTERRUPTED ? "interrupted" : "stopped (simulation failure)",
                W->t_end);
        if (W->end_msg) fputs(": ", f);
        if (W->end_msg)
            for (const char *p = W->end_msg; *p; p++) fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
        fputc(']', f);
    }
    fprintf(
        f, "\nDate: %s\nPlotname: Transient Analysis\nFlags: real\nNo. Variables: %d\nNo. Points: ",
        date, W->ncol);
    if (npos) *npos = ftell(f);
    fprintf(f, "%-8d\nVariables:\n", npoints);
    for (int k = 0; k < W->ncol; k++)
        fprintf(f, "\t%d\t%s\t%s\n", k, W->name[k], raw_type(W->name[k], k));
    fputs(binary ? "Binary:\n" : "Values:\n", f);
}

/* one point: 8 little-endian bytes per value */
static size_t bin_row(const nsc_waves *W, int i, long index, char *buf, const void *ctx)
{
    const double *row = W->v + (size_t)i * W->ncol;
    for (int k = 0; k < W->ncol; k++) put_le((unsigned char *)buf + 8 * k, row[k] + 0.0);
    return (size_t)W->ncol * 8;
}

/* one point: "<index>\t" then "\t%.15e\n" per value (nsc_fmt_e: the same bytes) */
static size_t ascii_row(const nsc_waves *W, int i, long index, char *buf, const void *ctx)
{
    const double *row = W->v + (size_t)i * W->ncol;
    char idx[16];
    size_t len = 0, n = 0;
    unsigned long u = (unsigned long)index;
    do idx[n++] = (char)('0' + u % 10);
    while (u /= 10); /* "%ld" of index >= 0 */
    while (n > 0) buf[len++] = idx[--n];
    buf[len++] = '\t';
    for (int k = 0; k < W->ncol; k++) {
        buf[len++] = '\t';
        len += (size_t)nsc_fmt_e(buf + len, row[k] + 0.0, 15); /* -0 prints as 0 */
        buf[len++] = '\n';
    }
    return len;
}

nsc_rowfmt nsc_raw_rowfmt(int ncol, int binary)
{
    return binary ? (nsc_rowfmt){ bin_row, (size_t)ncol * 8, NULL }
                  : (nsc_rowfmt){ ascii_row, (size_t)ncol * 32 + 24, NULL };
}

nsc_status nsc_write_raw(const nsc_waves *W, const char *path, int binary, int threads,
                         nsc_report *r)
{
    nsc_afile a;
    nsc_status s = nsc_afile_open(&a, path, r);
    if (s) return s;
    nsc_raw_header(W, a.f, binary, W->nrow, NULL);
    int ok = nsc_write_rows(a.f, W, nsc_raw_rowfmt(W->ncol, binary), threads);
    return nsc_afile_close(&a, ok, r);
}
