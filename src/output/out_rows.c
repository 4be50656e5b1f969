/* out_rows.c -- the rows of a waveform table, formatted by several threads and
 * written in order (out_rows.h): the queue both the writers (nsc_write_rows) and
 * the stream (out_stream.c) use.
 *
 * Blocks of rows are queued in row order. Invariants, under the lock:
 *   written <= claimed <= nblk,  claimed <= written + R,
 * blocks [0, written) are in the file, [written, claimed) are being formatted
 * or formatted (state 2), [claimed, nblk) wait; one thread writes at a time.
 * The window R bounds the formatted text held in memory. A formatting thread
 * claims the next block while the window allows it; whoever sees block
 * `written` formatted writes it. The block `written` is always claimable or
 * being formatted, so some thread always makes progress. The file holds the
 * blocks in row order: its bytes are the serial loop's whatever the threads. */
#include "out_rows.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct qblock {
    double *v;  /* rows, view.ncol doubles each */
    int own;    /* v came from nsc_rowq_buffer (back to the pool once formatted) */
    long first; /* table row of v's first row */
    int nrow;
    char *text;
    size_t len;
    int state; /* 0 waiting, 1 formatting, 2 formatted */
} qblock;

/* buffers of one size kept for reuse (no malloc/free, hence no mmap/munmap of
 * large blocks, per block: those stall the other threads) */
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
        if (!ni) {
            free(x);
            return;
        }
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

struct nsc_rowq {
    FILE *f;
    nsc_waves view; /* the table's shape: ncol (v, nrow set per block) */
    nsc_rowfmt rf;
    int B, R; /* rows per block, window in blocks */
    pthread_t tid[NSC_OUT_MAX_THREADS];
    int nthread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    qblock *blk;
    int nblk, capblk, claimed, written, writing;
    int closing, failed;
    int err;        /* errno of the first failure (a worker's errno is its own) */
    size_t pending; /* bytes of own rows not yet formatted */
    pool texts;     /* B * rowmax bytes each */
    pool copies;    /* B * ncol doubles each */
};

/* format one block into k->text, or a new buffer when NULL (no lock held) */
static int format_block(const nsc_rowq *q, qblock *k)
{
    nsc_waves v = q->view;
    v.v = k->v;
    v.nrow = k->nrow;
    if (!k->text) k->text = malloc((size_t)q->B * q->rf.rowmax);
    if (!k->text) return 0;
    size_t len = 0;
    for (int i = 0; i < k->nrow; i++)
        len += q->rf.fn(&v, i, k->first + i, k->text + len, q->rf.ctx);
    k->len = len;
    return 1;
}

/* format and write until the queue is closing and every block written, or
 * failed; idle = 1: until nothing is left to format or write (no waiting) */
static void work(nsc_rowq *q, int idle)
{
    pthread_mutex_lock(&q->lock);
    for (;;) {
        if (!q->failed && !q->writing && q->written < q->nblk && q->blk[q->written].state == 2) {
            int b = q->written;
            char *text = q->blk[b].text;
            size_t len = q->blk[b].len;
            q->writing = 1;
            pthread_mutex_unlock(&q->lock);
            int ok = fwrite(text, 1, len, q->f) == len;
            int e = errno;
            pthread_mutex_lock(&q->lock);
            if (!ok && !q->err) q->err = e ? e : EIO;
            pool_put(&q->texts, text);
            q->blk[b].text = NULL;
            q->written++;
            q->writing = 0;
            if (!ok) q->failed = 1;
            pthread_cond_broadcast(&q->cond);
        } else if (!q->failed && q->claimed < q->nblk && q->claimed < q->written + q->R) {
            int b = q->claimed++;
            qblock k = q->blk[b];
            q->blk[b].state = 1;
            k.text = pool_take(&q->texts);
            pthread_mutex_unlock(&q->lock);
            int ok = format_block(q, &k);
            pthread_mutex_lock(&q->lock);
            if (k.own) {
                pool_put(&q->copies, k.v);
                q->blk[b].v = NULL;
                q->pending -= (size_t)k.nrow * (size_t)q->view.ncol * sizeof(double);
            }
            q->blk[b].text = k.text;
            q->blk[b].len = k.len;
            q->blk[b].state = 2;
            if (!ok && !q->err) q->err = ENOMEM;
            if (!ok) q->failed = 1;
            pthread_cond_broadcast(&q->cond);
        } else if (q->failed || (q->closing && q->written == q->nblk) || idle) {
            break;
        } else pthread_cond_wait(&q->cond, &q->lock);
    }
    pthread_cond_broadcast(&q->cond);
    pthread_mutex_unlock(&q->lock);
}

static void *worker(void *arg)
{
    work(arg, 0);
    return NULL;
}

int nsc_out_threads(int threads)
{
    if (threads > 0) return threads > NSC_OUT_MAX_THREADS ? NSC_OUT_MAX_THREADS : threads;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    return n > NSC_OUT_MAX_THREADS ? NSC_OUT_MAX_THREADS : (int)n;
}

int nsc_rowq_block_rows(nsc_rowfmt rf)
{
    long rows = (long)(NSC_OUT_BLOCK / rf.rowmax);
    return rows < 1 ? 1 : rows > 1 << 20 ? 1 << 20 : (int)rows;
}

nsc_rowq *nsc_rowq_new(FILE *f, const nsc_waves *shape, nsc_rowfmt rf, int rows_per_block,
                       int nworkers)
{
    nsc_rowq *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    q->f = f;
    q->view = *shape;
    q->view.name = NULL; /* the rows need the shape only */
    q->view.title = NULL;
    q->view.end_msg = NULL;
    q->rf = rf;
    q->B = rows_per_block > 0 ? rows_per_block : 1;
    if (nworkers > NSC_OUT_MAX_THREADS - 1) nworkers = NSC_OUT_MAX_THREADS - 1;
    q->R = 4 * (nworkers + 1);
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->cond, NULL);
    while (q->nthread < nworkers && pthread_create(&q->tid[q->nthread], NULL, worker, q) == 0)
        q->nthread++;
    return q;
}

int nsc_rowq_workers(const nsc_rowq *q)
{
    return q->nthread;
}

double *nsc_rowq_buffer(nsc_rowq *q)
{
    pthread_mutex_lock(&q->lock);
    double *v = pool_take(&q->copies);
    pthread_mutex_unlock(&q->lock);
    return v ? v : malloc((size_t)q->B * (size_t)q->view.ncol * sizeof(double));
}

size_t nsc_rowq_pending(nsc_rowq *q)
{
    pthread_mutex_lock(&q->lock);
    size_t p = q->failed ? (size_t)-1 : q->pending;
    pthread_mutex_unlock(&q->lock);
    return p;
}

int nsc_rowq_push(nsc_rowq *q, double *v, int own, long first, int nrow)
{
    pthread_mutex_lock(&q->lock);
    int ok = 1;
    if (q->nblk == q->capblk) {
        int cap = q->capblk ? 2 * q->capblk : 64;
        qblock *nb = realloc(q->blk, (size_t)cap * sizeof *nb);
        if (nb) q->blk = nb, q->capblk = cap;
        else ok = 0;
    }
    if (ok) {
        q->blk[q->nblk++] = (qblock){ v, own, first, nrow, NULL, 0, 0 };
        if (own) q->pending += (size_t)nrow * (size_t)q->view.ncol * sizeof(double);
        pthread_cond_broadcast(&q->cond);
    } else q->failed = 1;
    pthread_mutex_unlock(&q->lock);
    return ok;
}

/* no more blocks; the threads stop once the queue is empty, or at once when failed */
static void join_all(nsc_rowq *q)
{
    pthread_mutex_lock(&q->lock);
    q->closing = 1;
    pthread_cond_broadcast(&q->cond);
    pthread_mutex_unlock(&q->lock);
    for (int j = 0; j < q->nthread; j++) pthread_join(q->tid[j], NULL);
    q->nthread = 0;
}

int nsc_rowq_finish(nsc_rowq *q)
{
    pthread_mutex_lock(&q->lock);
    q->closing = 1;
    pthread_cond_broadcast(&q->cond);
    pthread_mutex_unlock(&q->lock);
    work(q, 0); /* this thread formats and writes too */
    join_all(q);
    if (q->failed && q->err) errno = q->err; /* for the caller's message (nsc_afile_close) */
    return !q->failed;
}

void nsc_rowq_free(nsc_rowq *q)
{
    if (!q) return;
    pthread_mutex_lock(&q->lock);
    q->failed = 1; /* abandoned: the threads stop at once */
    pthread_mutex_unlock(&q->lock);
    join_all(q);
    for (int b = 0; b < q->nblk; b++) {
        if (q->blk[b].own) free(q->blk[b].v);
        free(q->blk[b].text);
    }
    free(q->blk);
    pool_free(&q->texts);
    pool_free(&q->copies);
    pthread_cond_destroy(&q->cond);
    pthread_mutex_destroy(&q->lock);
    free(q);
}

void nsc_rowq_wait(nsc_rowq *q, size_t bytes)
{
    if (q->nthread == 0) { /* no worker: this thread formats and writes */
        work(q, 1);
        return;
    }
    pthread_mutex_lock(&q->lock);
    while (!q->failed && q->pending > bytes) pthread_cond_wait(&q->cond, &q->lock);
    pthread_mutex_unlock(&q->lock);
}

int nsc_rowq_push_table(nsc_rowq *q, const nsc_waves *W, long first, size_t budget)
{
    int ok = 1;
    for (; ok && first < W->nrow; first += q->B) {
        int n = W->nrow - first < q->B ? (int)(W->nrow - first) : q->B;
        if (first >= W->row0) { /* in memory: the rows in place */
            ok = nsc_rowq_push(q, W->v + (size_t)(first - W->row0) * W->ncol, 0, first, n);
            continue;
        }
        double *v = nsc_rowq_buffer(q); /* spilled: a copy read back */
        if (!v || nsc_waves_read(W, first, n, v)) {
            int e = v ? errno : ENOMEM;
            free(v);
            pthread_mutex_lock(&q->lock);
            q->failed = 1;
            if (!q->err) q->err = e;
            pthread_mutex_unlock(&q->lock);
            return 0;
        }
        ok = nsc_rowq_push(q, v, 1, first, n);
        if (!ok) free(v);
        nsc_rowq_wait(q, budget);
    }
    return ok;
}

int nsc_write_rows(FILE *f, const nsc_waves *W, nsc_rowfmt rf, int threads)
{
    if (W->nrow <= 0) return 1;
    int B = nsc_rowq_block_rows(rf);
    if (B > W->nrow) B = W->nrow;
    int nblock = (int)(((long)W->nrow + B - 1) / B), T = nsc_out_threads(threads);
    nsc_rowq *q = nsc_rowq_new(f, W, rf, B, (T < nblock ? T : nblock) - 1);
    if (!q) return 0;
    int ok = nsc_rowq_push_table(q, W, 0,
                                 NSC_OUT_PENDING); /* the table's rows, in place when in memory */
    ok = nsc_rowq_finish(q) && ok;
    nsc_rowq_free(q);
    return ok;
}
