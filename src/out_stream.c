/* out_stream.c -- the output table written while the run computes it (out_stream.h).
 *
 * The stepper's thread copies every B finished rows (their kept columns) into a
 * block and queues it; worker threads format queued blocks and write the
 * formatted ones in row order to the temporary file. Invariants, under the lock:
 *   written <= claimed <= nblk,
 * blocks [0, written) are in the file, [written, claimed) are being formatted
 * or formatted (state 2), [claimed, nblk) wait; one thread writes at a time.
 * Copied rows not yet formatted stay under budget bytes: past it the stepper
 * stops copying (`stopped`) and the rows from next_row on are queued at
 * finish, straight from the finished table. The file is renamed into place
 * only when the run completed; otherwise the caller drops the stream and
 * writes the table the usual way (its header says how the run ended). */
#include "out_stream.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "out_rows.h"

#define BLOCK (1 << 18)          /* text bytes per block, at most */
#define BUDGET ((size_t)64 << 20) /* copied rows waiting to be formatted, bytes (default) */

typedef struct sblock {
    double *v;        /* rows, nkeep columns each */
    int own;          /* v is a copy (freed once formatted) */
    long first;       /* table row of v's first row */
    int nrow;
    char *text;
    size_t len;
    int state;        /* 0 waiting, 1 formatting, 2 formatted */
} sblock;

/* buffers of one size kept for reuse (no malloc/free, hence no mmap/munmap of
 * large blocks, per block: those stall the stepping thread) */
typedef struct pool {
    void **item;
    int n, cap;
} pool;

/* an item, or NULL when empty (lock held) */
static void *pool_take(pool *p)
{
    return p->n > 0 ? p->item[--p->n] : NULL;
}

/* keep x (lock held); freed when it cannot be kept */
static void pool_put(pool *p, void *x)
{
    if (!x) return;
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 16;
        void **ni = realloc(p->item, (size_t)cap * sizeof *ni);
        if (!ni) { free(x); return; }
        p->item = ni;
        p->cap = cap;
    }
    p->item[p->n++] = x;
}

static void pool_free(pool *p)
{
    for (int i = 0; i < p->n; i++) free(p->item[i]);
    free(p->item);
}

struct nsc_stream {
    const char *path;
    nsc_format fmt;
    int nkeep, threads;
    nsc_rowfmt rf;
    nsc_afile a;
    int opened;       /* the temporary file exists and has its header */
    long npos;        /* raw files: offset of the point count */
    nsc_waves view;   /* names and title of the table, nkeep columns */
    int B;            /* rows per block */
    long next_row;    /* rows [0, next_row) are queued */
    pthread_t tid[NSC_OUT_MAX_THREADS];
    int nthread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    sblock *blk;
    int nblk, capblk, claimed, written, writing;
    int closing, failed, stopped;
    size_t pending;   /* bytes of copied rows not yet formatted */
    size_t budget;    /* at most that many */
    pool texts;       /* B * rowmax bytes each */
    pool copies;      /* B * nkeep doubles each */
};

/* format one block into k->text, or a new buffer when NULL (no lock held) */
static int format_block(const nsc_stream *S, sblock *k)
{
    nsc_waves v = S->view;
    v.v = k->v;
    v.nrow = k->nrow;
    if (!k->text) k->text = malloc((size_t)S->B * S->rf.rowmax);
    if (!k->text) return 0;
    size_t len = 0;
    for (int i = 0; i < k->nrow; i++) len += S->rf.fn(&v, i, k->first + i, k->text + len, S->rf.ctx);
    k->len = len;
    return 1;
}

/* format and write until the stream is closed and every block written, or failed */
static void work(nsc_stream *S)
{
    pthread_mutex_lock(&S->lock);
    for (;;) {
        if (!S->failed && !S->writing && S->written < S->nblk && S->blk[S->written].state == 2) {
            int b = S->written;
            char *text = S->blk[b].text;
            size_t len = S->blk[b].len;
            S->writing = 1;
            pthread_mutex_unlock(&S->lock);
            int ok = fwrite(text, 1, len, S->a.f) == len;
            pthread_mutex_lock(&S->lock);
            pool_put(&S->texts, text);
            S->blk[b].text = NULL;
            S->written++;
            S->writing = 0;
            if (!ok) S->failed = 1;
            pthread_cond_broadcast(&S->cond);
        } else if (!S->failed && S->claimed < S->nblk) {
            int b = S->claimed++;
            sblock k = S->blk[b];
            S->blk[b].state = 1;
            k.text = pool_take(&S->texts);
            pthread_mutex_unlock(&S->lock);
            int ok = format_block(S, &k);
            pthread_mutex_lock(&S->lock);
            if (k.own) pool_put(&S->copies, k.v);
            S->blk[b].text = k.text;
            S->blk[b].len = k.len;
            S->blk[b].state = 2;
            if (k.own) {
                S->blk[b].v = NULL;
                S->pending -= (size_t)k.nrow * (size_t)S->nkeep * sizeof(double);
            }
            if (!ok) S->failed = 1;
            pthread_cond_broadcast(&S->cond);
        } else if (S->failed || (S->closing && S->written == S->nblk)) {
            break;
        } else
            pthread_cond_wait(&S->cond, &S->lock);
    }
    pthread_cond_broadcast(&S->cond);
    pthread_mutex_unlock(&S->lock);
}

static void *worker(void *arg)
{
    work(arg);
    return NULL;
}

/* queue rows [first, first + nrow) held in v (lock not held); 0 on ENOMEM */
static int push(nsc_stream *S, double *v, int own, long first, int nrow)
{
    pthread_mutex_lock(&S->lock);
    int ok = 1;
    if (S->nblk == S->capblk) {
        int cap = S->capblk ? 2 * S->capblk : 64;
        sblock *nb = realloc(S->blk, (size_t)cap * sizeof *nb);
        if (nb) S->blk = nb, S->capblk = cap;
        else ok = 0;
    }
    if (ok) {
        S->blk[S->nblk++] = (sblock){ v, own, first, nrow, NULL, 0, 0 };
        if (own) S->pending += (size_t)nrow * (size_t)S->nkeep * sizeof(double);
        pthread_cond_broadcast(&S->cond);
    }
    pthread_mutex_unlock(&S->lock);
    return ok;
}

nsc_stream *nsc_stream_new(const char *path, nsc_format fmt, int nkeep, int threads)
{
    nsc_stream *S = calloc(1, sizeof *S);
    if (!S) return NULL;
    S->path = path;
    S->fmt = fmt;
    S->nkeep = nkeep;
    S->threads = nsc_out_threads(threads);
    S->budget = BUDGET;
    S->rf = fmt == NSC_FMT_RAW || fmt == NSC_FMT_RAWBIN ? nsc_raw_rowfmt(nkeep, fmt == NSC_FMT_RAWBIN)
                                                         : nsc_table_rowfmt(nkeep, fmt == NSC_FMT_CSV ? ',' : ' ');
    long rows = (long)(BLOCK / S->rf.rowmax);
    S->B = rows < 1 ? 1 : rows > 1 << 20 ? 1 << 20 : (int)rows;
    pthread_mutex_init(&S->lock, NULL);
    pthread_cond_init(&S->cond, NULL);
    return S;
}

/* the temporary file, its header, the formatting threads */
static void open_stream(nsc_stream *S, const nsc_waves *W)
{
    nsc_report r;
    nsc_report_init(&r);
    S->stopped = 1;                                  /* unless everything below works */
    if (S->threads < 2 || W->ncol < S->nkeep || nsc_afile_open(&S->a, S->path, &r)) {
        nsc_report_free(&r);                         /* finish writes the usual way and says why */
        return;
    }
    nsc_report_free(&r);
    S->opened = 1;
    S->view = *W;
    S->view.ncol = S->nkeep;
    S->view.end = NSC_RUN_COMPLETE;
    S->view.end_msg = NULL;
    if (S->fmt == NSC_FMT_RAW || S->fmt == NSC_FMT_RAWBIN)
        nsc_raw_header(&S->view, S->a.f, S->fmt == NSC_FMT_RAWBIN, 0, &S->npos);
    else
        nsc_table_header(&S->view, S->a.f, S->fmt == NSC_FMT_CSV ? ',' : ' ');
    S->view.name = NULL;                             /* the rows need the shape only */
    S->view.title = NULL;
    while (S->nthread < S->threads - 1 && pthread_create(&S->tid[S->nthread], NULL, worker, S) == 0) S->nthread++;
    S->stopped = S->nthread == 0;
}

void nsc_stream_rows(const nsc_waves *W, void *ctx)
{
    nsc_stream *S = ctx;
    if (!S->opened) {
        if (S->stopped) return;
        open_stream(S, W);
    }
    while (!S->stopped && W->nrow - S->next_row >= S->B) {
        pthread_mutex_lock(&S->lock);
        int full = S->failed || S->pending >= S->budget;
        double *v = full ? NULL : pool_take(&S->copies);
        pthread_mutex_unlock(&S->lock);
        if (!full && !v) v = malloc((size_t)S->B * (size_t)S->nkeep * sizeof(double));
        if (!v) {
            S->stopped = 1;                          /* the rest at finish, from the table */
            return;
        }
        for (int i = 0; i < S->B; i++)
            memcpy(v + (size_t)i * S->nkeep, W->v + (size_t)(S->next_row + i) * W->ncol, (size_t)S->nkeep * sizeof(double));
        if (!push(S, v, 1, S->next_row, S->B)) {
            free(v);
            S->stopped = 1;
            return;
        }
        S->next_row += S->B;
    }
}

/* stop the threads (lock not held) */
static void join_all(nsc_stream *S)
{
    pthread_mutex_lock(&S->lock);
    S->closing = 1;
    pthread_cond_broadcast(&S->cond);
    pthread_mutex_unlock(&S->lock);
    for (int j = 0; j < S->nthread; j++) pthread_join(S->tid[j], NULL);
    S->nthread = 0;
}

nsc_status nsc_stream_finish(nsc_stream *S, const nsc_waves *W, int *done, nsc_report *r)
{
    *done = 0;
    if (!S->opened || W->ncol != S->nkeep || W->end != NSC_RUN_COMPLETE) return NSC_OK;
    int ok = 1;
    for (long first = S->next_row; ok && first < W->nrow; first += S->B) {   /* the rows not queued yet */
        int n = W->nrow - first < S->B ? (int)(W->nrow - first) : S->B;
        ok = push(S, W->v + (size_t)first * W->ncol, 0, first, n);
    }
    S->next_row = W->nrow;
    if (!ok) {
        pthread_mutex_lock(&S->lock);
        S->failed = 1;
        pthread_mutex_unlock(&S->lock);
    }
    pthread_mutex_lock(&S->lock);
    S->closing = 1;
    pthread_cond_broadcast(&S->cond);
    pthread_mutex_unlock(&S->lock);
    work(S);                                         /* this thread formats and writes too */
    join_all(S);
    ok = !S->failed;
    if (ok && S->npos > 0) {                         /* raw: the point count, in its 8 columns */
        char num[32];
        int len = snprintf(num, sizeof num, "%-8d", W->nrow);
        if (len != 8) return NSC_OK;                 /* too many points to patch: written again */
        ok = fflush(S->a.f) == 0 && fseek(S->a.f, S->npos, SEEK_SET) == 0 && fwrite(num, 1, 8, S->a.f) == 8;
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
    join_all(S);
    if (S->opened) {
        nsc_report r;
        nsc_report_init(&r);
        nsc_afile_close(&S->a, 0, &r);               /* removes the temporary */
        nsc_report_free(&r);
    }
    for (int b = 0; b < S->nblk; b++) {
        if (S->blk[b].own) free(S->blk[b].v);
        free(S->blk[b].text);
    }
    free(S->blk);
    pool_free(&S->texts);
    pool_free(&S->copies);
    pthread_cond_destroy(&S->cond);
    pthread_mutex_destroy(&S->lock);
    free(S);
}
