/* out_rows.h -- the rows of a waveform table, formatted by several threads and
 * written in order (used by the .dat/CSV and raw writers). */
#ifndef NSC_OUT_ROWS_H
#define NSC_OUT_ROWS_H

#include <stddef.h>
#include <stdio.h>

#include "waves.h"

#define NSC_OUT_MAX_THREADS 8

/* Writes row i of W into buf (rowmax bytes available) and returns the bytes written. */
typedef size_t (*nsc_row_fn)(const nsc_waves *W, int i, char *buf, const void *ctx);

/* Threads used for a request: threads > 0 as given, else one per online CPU;
 * at most NSC_OUT_MAX_THREADS. */
int nsc_out_threads(int threads);

/* Rows 0 .. W->nrow-1 formatted by fn and written to f in row order, the same
 * bytes as one thread would write; up to nsc_out_threads(threads) threads format
 * blocks of about 512 KiB while the caller writes the previous ones. fn must be
 * safe to call concurrently on different rows. Returns 1 when every write
 * succeeded, 0 on a write error or when memory ran out. */
int nsc_write_rows(FILE *f, const nsc_waves *W, nsc_row_fn fn, size_t rowmax, const void *ctx, int threads);

#endif
