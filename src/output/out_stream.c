/* out_stream.c -- the output table written while the run computes it (out_stream.h).
 *
 * The stepper's thread copies every B finished rows (their kept columns) into a
 * block and pushes it on a row queue (out_rows.c) whose workers format and
 * write blocks in row order to the temporary file. Copied rows not yet
 * formatted stay under budget bytes: past it the stepper stops copying
 * (`stopped`) and the rows from next_row on are pushed at finish, straight from
 * the finished table. The file is renamed into place only when the run
 * completed; otherwise the caller drops the stream and writes the table the
 * usual way (its header says how the run ended). */
#include "out_stream.h"

#include <stdlib.h>
#include <string.h>

#include "out_rows.h"

#define BUDGET NSC_OUT_PENDING /* copied rows waiting to be formatted, bytes (default) */

struct nsc_stream {
    const char *path;
    nsc_format fmt;
    int nkeep, threads;
    nsc_rowfmt rf;
    nsc_afile a;
    int opened;    /* the temporary file exists and has its header */
    long npos;     /* raw files: offset of the point count */
    int B;         /* rows per block */
    long next_row; /* rows [0, next_row) are queued */
    int stopped;   /* no more copies during the run */
    size_t budget;
    nsc_rowq *q;
    nsc_wcur cur; /* the table's rows, some read back when it spills */
};

nsc_stream *nsc_stream_new(const char *path, nsc_format fmt, int nkeep, int threads)
{
    nsc_stream *S = calloc(1, sizeof *S);
    if (!S) return NULL;
    S->path = path;
    S->fmt = fmt;
    S->nkeep = nkeep;
    S->threads = nsc_out_threads(threads);
    S->budget = BUDGET;
    const nsc_format_desc *F = &nsc_formats[fmt];
    S->rf = F->raw ? nsc_raw_rowfmt(nkeep, F->binary) : nsc_table_rowfmt(nkeep, F->sep);
    S->B = nsc_rowq_block_rows(S->rf);
    return S;
}

/* the temporary file, its header, the queue and its workers */
static void open_stream(nsc_stream *S, const nsc_waves *W)
{
    nsc_report r;
    nsc_report_init(&r);
    S->stopped = 1; /* unless everything below works */
    if (S->threads < 2 || W->ncol < S->nkeep || nsc_afile_open(&S->a, S->path, &r)) {
        nsc_report_free(&r); /* finish writes the usual way and says why */
        return;
    }
    nsc_report_free(&r);
    S->opened = 1;
    nsc_waves view = *W; /* the header of a complete run, kept columns */
    view.ncol = S->nkeep;
    view.end = NSC_RUN_COMPLETE;
    view.end_msg = NULL;
    const nsc_format_desc *F = &nsc_formats[S->fmt];
    if (F->raw) nsc_raw_header(&view, S->a.f, F->binary, 0, &S->npos);
    else nsc_table_header(&view, S->a.f, F->sep);
    S->q = nsc_rowq_new(S->a.f, &view, S->rf, S->B, S->threads - 1);
    S->stopped = !S->q || nsc_rowq_workers(S->q) == 0 || nsc_wcur_init(&S->cur, W);
}

void nsc_stream_rows(const nsc_waves *W, void *ctx)
{
    nsc_stream *S = ctx;
    if (!S->opened) {
        if (S->stopped) return;
        open_stream(S, W);
    }
    while (!S->stopped && W->nrow - S->next_row >= S->B) {
        double *v = nsc_rowq_pending(S->q) >= S->budget ? NULL : nsc_rowq_buffer(S->q);
        if (!v) {
            S->stopped = 1; /* the rest at finish, from the table */
            return;
        }
        for (int i = 0; i < S->B; i++)
            memcpy(v + (size_t)i * S->nkeep, nsc_wcur_row(&S->cur, S->next_row + i),
                   (size_t)S->nkeep * sizeof(double));
        if (S->cur.err
            || !nsc_rowq_push(S->q, v, 1, S->next_row, S->B)) { /* (unread rows: at finish) */
            free(v);
            S->stopped = 1;
            return;
        }
        S->next_row += S->B;
    }
}

nsc_status nsc_stream_finish(nsc_stream *S, const nsc_waves *W, int *done, nsc_report *r)
{
    *done = 0;
    if (!S->opened || !S->q || W->ncol != S->nkeep || W->end != NSC_RUN_COMPLETE) return NSC_OK;
    int ok = nsc_rowq_push_table(S->q, W, S->next_row, S->budget); /* the rows not queued yet */
    S->next_row = W->nrow;
    ok = nsc_rowq_finish(S->q) && ok;
    nsc_rowq_free(S->q);
    S->q = NULL;
    if (ok && S->npos > 0) { /* raw: the point count, in its 8 columns */
        char num[32];
        int len = snprintf(num, sizeof num, "%-8d", W->nrow);
        if (len != 8) return NSC_OK; /* too many points to patch: written again */
        ok = fflush(S->a.f) == 0 && fseek(S->a.f, S->npos, SEEK_SET) == 0
             && fwrite(num, 1, 8, S->a.f) == 8;
    }
    S->opened = 0;
    *done = 1;
    return nsc_afile_close(&S->a, ok, r);
}

void nsc_stream_set_budget(nsc_stream *S, size_t bytes, int rows_per_block)
{
    S->budget = bytes;
    if (rows_per_block > 0) S->B = rows_per_block;
}

void nsc_stream_free(nsc_stream *S)
{
    if (!S) return;
    nsc_rowq_free(S->q); /* stops the workers before the file closes */
    nsc_wcur_free(&S->cur);
    if (S->opened) {
        nsc_report r;
        nsc_report_init(&r);
        nsc_afile_close(&S->a, 0, &r); /* removes the temporary */
        nsc_report_free(&r);
    }
    free(S);
}
