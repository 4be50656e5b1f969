/* out_stream.h -- the output table written while the run computes it: rows are
 * formatted and written by other threads as the stepper finishes them, so a long
 * run's output costs little after its last step. Same bytes as out.h's writers. */
#ifndef NSC_OUT_STREAM_H
#define NSC_OUT_STREAM_H

#include "out.h"
#include "waves.h"

typedef struct nsc_stream nsc_stream;

/* A stream to path in format fmt of the first nkeep columns of the table the run
 * fills, with nsc_out_threads(threads) threads (fewer than 2: no streaming).
 * Nothing is opened until rows arrive. NULL when out of memory. */
nsc_stream *nsc_stream_new(const char *path, nsc_format fmt, int nkeep, int threads);

/* The stepper's row hook (nsc_tran_opts.rows, ctx = the stream): queues the rows
 * finished since the last call. On its first call it opens the temporary file
 * beside path and writes the header of a complete run. */
void nsc_stream_rows(const nsc_waves *W, void *ctx);

/* After a complete run, W holding exactly the nkeep columns: the remaining rows
 * are written and the file renamed onto path; *done = 1 (the status says whether
 * the write succeeded). *done = 0 when nothing was streamed (no rows, fewer than
 * two threads, the file could not be opened, the run did not complete, or the
 * raw point count does not fit its field): the caller writes the table itself,
 * after nsc_stream_free. */
nsc_status nsc_stream_finish(nsc_stream *S, const nsc_waves *W, int *done, nsc_report *r);

/* Tests: at most `bytes` of copied rows wait to be formatted (default 64 MiB;
 * past it the rest is written at finish), blocks of rows_per_block rows (> 0).
 * Before the first rows. */
void nsc_stream_set_budget(nsc_stream *S, size_t bytes, int rows_per_block);

/* Stops the threads and removes the temporary file unless finished. NULL is a no-op. */
void nsc_stream_free(nsc_stream *S);

#endif
