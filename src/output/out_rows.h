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
 * blocks of about NSC_OUT_BLOCK bytes and write the finished ones. fn must be
 * safe to call concurrently on different rows. Returns 1 when every write
 * succeeded, 0 on a write error or when memory ran out. */
int nsc_write_rows(FILE *f, const nsc_waves *W, nsc_rowfmt rf, int threads);

/* The queue under nsc_write_rows and the stream (out_stream.c): blocks of rows
 * formatted by background workers, and by the thread that finishes the queue,
 * written to f in the order they were pushed. */
#define NSC_OUT_BLOCK (1 << 18) /* bytes of text per block, at most */
typedef struct nsc_rowq nsc_rowq;
/* Rows per block for a format (NSC_OUT_BLOCK / rowmax, at least 1). */
int nsc_rowq_block_rows(nsc_rowfmt rf);
/* A queue writing to f rows of shape->ncol columns, blocks of at most
 * rows_per_block rows, with up to nworkers background threads (fewer when a
 * thread cannot be started: nsc_rowq_workers). NULL when out of memory. */
nsc_rowq *nsc_rowq_new(FILE *f, const nsc_waves *shape, nsc_rowfmt rf, int rows_per_block,
                       int nworkers);
int nsc_rowq_workers(const nsc_rowq *q);
/* A buffer for one block's rows (rows_per_block * ncol doubles), to be pushed
 * with own = 1; NULL when out of memory. */
double *nsc_rowq_buffer(nsc_rowq *q);
/* Bytes of own blocks not formatted yet; (size_t)-1 once the queue failed. */
size_t nsc_rowq_pending(nsc_rowq *q);
/* Queue table rows [first, first + nrow), held row by row in v: a buffer of
 * nsc_rowq_buffer (own = 1, the queue takes it) or rows that stay valid until
 * the queue is finished (own = 0). 0 when out of memory (the queue then fails). */
int nsc_rowq_push(nsc_rowq *q, double *v, int own, long first, int nrow);
/* Rows [first, W->nrow) of W in blocks: in place when in memory (own = 0),
 * else copies read back from the spill file, and then, while more than budget
 * bytes of copies wait, this thread waits (or, without workers, formats and
 * writes them itself). 0 when a row could not be read or memory ran out (the
 * queue then fails, errno of the cause kept for nsc_rowq_finish). */
#define NSC_OUT_PENDING ((size_t)64 << 20) /* bytes of copied rows waiting, at most (default) */
int nsc_rowq_push_table(nsc_rowq *q, const nsc_waves *W, long first, size_t budget);
/* Until at most bytes of own rows wait to be formatted (or the queue failed). */
void nsc_rowq_wait(nsc_rowq *q, size_t bytes);
/* Format and write what is queued, with the workers; 1 when every write succeeded. */
int nsc_rowq_finish(nsc_rowq *q);
/* Stop the workers (a queue not finished is abandoned) and free the queue. */
void nsc_rowq_free(nsc_rowq *q);

#endif
