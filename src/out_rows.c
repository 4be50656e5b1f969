/* out_rows.c -- the rows of a waveform table, formatted in parallel and written
 * in order (out_rows.h).
 *
 * Rows are cut into blocks of B rows (B * rowmax <= BLOCK bytes), formatted into
 * a ring of R buffers. Invariants, under the lock:
 *   written <= next <= nblock,  next <= written + R,
 * blocks [0, written) are in the file, blocks [written, next) are claimed (being
 * formatted or done[b % R]), and block b uses buffer b % R, which block b - R
 * released when it was written. Formatting threads claim the next block while
 * the window allows it; the caller writes block `written` as soon as it is done
 * and otherwise formats too. The file holds the blocks in row order, so its
 * bytes are the serial loop's whatever the threads. */
#include "out_rows.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#define BLOCK (1 << 18)   /* bytes of text per block, at most */

typedef struct queue {
    const nsc_waves *W;
    nsc_rowfmt rf;
    int B, nblock, R;
    size_t cap;           /* bytes per buffer */
    char *mem;            /* R buffers */
    size_t *len;          /* [R] bytes formatted in each */
    int *done;            /* [R] block in the buffer is formatted */
    int next, written, failed;
    pthread_mutex_t lock;
    pthread_cond_t cond;
} queue;

static void format_block(queue *q, int b)
{
    char *buf = q->mem + (size_t)(b % q->R) * q->cap;
    int last = (b + 1) * q->B < q->W->nrow ? (b + 1) * q->B : q->W->nrow;
    size_t len = 0;
    for (int i = b * q->B; i < last; i++) len += q->rf.fn(q->W, i, i, buf + len, q->rf.ctx);
    q->len[b % q->R] = len;
}

/* claim a block to format (lock held): its index, or -1 when none is left or the
 * run failed; waits while the window is full */
static int claim(queue *q)
{
    while (!q->failed && q->next < q->nblock && q->next >= q->written + q->R) pthread_cond_wait(&q->cond, &q->lock);
    if (q->failed || q->next >= q->nblock) return -1;
    return q->next++;
}

static void *worker(void *arg)
{
    queue *q = arg;
    pthread_mutex_lock(&q->lock);
    for (int b; (b = claim(q)) >= 0;) {
        pthread_mutex_unlock(&q->lock);
        format_block(q, b);
        pthread_mutex_lock(&q->lock);
        q->done[b % q->R] = 1;
        pthread_cond_broadcast(&q->cond);
    }
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

int nsc_out_threads(int threads)
{
    if (threads > 0) return threads > NSC_OUT_MAX_THREADS ? NSC_OUT_MAX_THREADS : threads;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    return n > NSC_OUT_MAX_THREADS ? NSC_OUT_MAX_THREADS : (int)n;
}

int nsc_write_rows(FILE *f, const nsc_waves *W, nsc_rowfmt rf, int threads)
{
    if (W->nrow <= 0) return 1;
    long rows = (long)(BLOCK / rf.rowmax);
    queue q = { .W = W, .rf = rf };
    q.B = rows < 1 ? 1 : rows > W->nrow ? W->nrow : (int)rows;
    q.nblock = (int)(((long)W->nrow + q.B - 1) / q.B);
    int T = nsc_out_threads(threads);
    if (T > q.nblock) T = q.nblock;
    q.R = T == 1 ? 1 : 4 * T;                     /* the window: R blocks ahead of the file */
    if (q.R > q.nblock) q.R = q.nblock;
    q.cap = (size_t)q.B * rf.rowmax;
    q.mem = malloc((size_t)q.R * q.cap);
    q.len = calloc((size_t)q.R, sizeof *q.len);
    q.done = calloc((size_t)q.R, sizeof *q.done);
    if (!q.mem || !q.len || !q.done) {
        free(q.mem), free(q.len), free(q.done);
        return 0;
    }
    pthread_mutex_init(&q.lock, NULL);
    pthread_cond_init(&q.cond, NULL);
    pthread_t tid[NSC_OUT_MAX_THREADS];
    int nt = 0;
    while (nt < T - 1 && pthread_create(&tid[nt], NULL, worker, &q) == 0) nt++;
    pthread_mutex_lock(&q.lock);
    while (!q.failed && q.written < q.nblock) {
        int w = q.written % q.R;
        if (q.done[w] && q.written < q.next) {         /* write the next block in order */
            pthread_mutex_unlock(&q.lock);
            int ok = fwrite(q.mem + (size_t)w * q.cap, 1, q.len[w], f) == q.len[w];
            pthread_mutex_lock(&q.lock);
            q.done[w] = 0;
            q.written++;
            if (!ok) q.failed = 1;
            pthread_cond_broadcast(&q.cond);
        } else if (q.next < q.nblock && q.next < q.written + q.R) {   /* else format one */
            int b = q.next++;
            pthread_mutex_unlock(&q.lock);
            format_block(&q, b);
            pthread_mutex_lock(&q.lock);
            q.done[b % q.R] = 1;
        } else
            pthread_cond_wait(&q.cond, &q.lock);
    }
    pthread_cond_broadcast(&q.cond);
    pthread_mutex_unlock(&q.lock);
    for (int j = 0; j < nt; j++) pthread_join(tid[j], NULL);
    pthread_cond_destroy(&q.cond);
    pthread_mutex_destroy(&q.lock);
    int ok = !q.failed;
    free(q.mem), free(q.len), free(q.done);
    return ok;
}
