/* out_rows.h -- the rows of a waveform table, formatted by several threads and
 * written in order (used by the .dat/CSV and raw writers). */
#ifndef NSC_OUT_ROWS_H
#define NSC_OUT_ROWS_H

#include <stddef.h>
#include <stdio.h>

#include "waves.h"

#define NSC_OUT_MAX_THREADS 8

/* Writes row i of W, the table's row number `index` (raw files number their
 * points), into buf (rowmax bytes available) and returns the bytes written. */
typedef size_t (*nsc_row_fn)(const nsc_waves *W, int i, long index, char *buf, const void *ctx);

/* A table format's rows: the function, the most bytes a row takes, its context. */
typedef struct nsc_rowfmt {
    nsc_row_fn fn;
    size_t rowmax;
    const void *ctx;
} nsc_rowfmt;

/* The rows of .dat (sep ' ') and CSV (sep ',') tables of ncol columns (out_dat.c),
 * and of raw files, ASCII or binary (out_raw.c). */
nsc_rowfmt nsc_table_rowfmt(int ncol, char sep);
nsc_rowfmt nsc_raw_rowfmt(int ncol, int binary);
/* Their headers: the lines before the first row. nsc_raw_header writes npoints as
 * "No. Points: %-8d" and stores the offset of that number in *npos (may be NULL). */
void nsc_table_header(const nsc_waves *W, FILE *f, char sep);
void nsc_raw_header(const nsc_waves *W, FILE *f, int binary, int npoints, long *npos);

/* Threads used for a request: threads > 0 as given, else one per online CPU;
 * at most NSC_OUT_MAX_THREADS. */
int nsc_out_threads(int threads);

/* Rows 0 .. W->nrow-1 formatted by rf.fn and written to f in row order, the same
 * bytes as one thread would write; up to nsc_out_threads(threads) threads format
 * blocks of about 256 KiB while the caller writes the finished ones. fn must be
 * safe to call concurrently on different rows. Returns 1 when every write
 * succeeded, 0 on a write error or when memory ran out. */
int nsc_write_rows(FILE *f, const nsc_waves *W, nsc_rowfmt rf, int threads);

#endif
