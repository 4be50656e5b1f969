/* out_stats.c -- the trace statistics (out.h) of every column of a table; a
 * spilled table's in passes over its rows, memory bounded whatever their number.
 *
 * min, max and the jumps are one pass each in row order, as nsc_trace_stat_of
 * computes them. A quantile, the k-th smallest finite value, is narrowed on the
 * values' keys (the bits of a double mapped so that unsigned order is numeric
 * order): each pass counts the values of the candidate key range [lo, hi] in
 * NB buckets and keeps the bucket holding rank k, until the range holds at most
 * CAP values, which a last pass collects and selects from, or one key (the
 * value itself). Each pass divides the range by NB: a handful of passes. */
#include "out.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NB 4096               /* buckets per pass */
#define CAP ((size_t)1 << 16) /* values collected for the final selection, at most */

static uint64_t key_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u >> 63 ? ~u : u | (uint64_t)1 << 63;
}

static double value_of(uint64_t k)
{
    uint64_t u = k >> 63 ? k & ~((uint64_t)1 << 63) : ~k;
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* One quantile being narrowed: rank k among the finite values, `below` of them
 * under key lo, `in` of them in [lo, hi]. */
typedef struct qsel {
    uint64_t lo, hi;
    size_t k, below, in;
    int done;
    double x;
    size_t *hist; /* [NB] counting passes */
    double *buf;  /* [in] the collecting pass */
    size_t nbuf;
    int share; /* a high quantile collecting its low twin's values: a copy at settling */
} qsel;

static uint64_t width_of(const qsel *q)
{
    return (q->hi - q->lo) / NB + 1;
}

/* value x of a column into its quantile's pass */
static void take(qsel *q, double x)
{
    uint64_t k = key_of(x);
    if (q->done || k < q->lo || k > q->hi) return;
    if (q->buf) {
        if (q->nbuf < q->in) q->buf[q->nbuf++] = x;
    } else q->hist[(k - q->lo) / width_of(q)]++;
}

/* after a pass: the quantile found, or its range narrowed to one bucket */
static void settle(qsel *q)
{
    if (q->done) return;
    if (q->buf) {
        q->x = q->k - q->below < q->nbuf ? nsc_select_kth(q->buf, q->nbuf, q->k - q->below) : NAN;
        q->done = 1;
        free(q->buf); /* done: its memory serves the next column's */
        q->buf = NULL;
        return;
    }
    uint64_t w = width_of(q);
    size_t b = 0;
    while (b < NB - 1 && q->below + q->hist[b] <= q->k) q->below += q->hist[b++];
    q->in = q->hist[b];
    q->lo += (uint64_t)b * w;
    if (q->hi - q->lo > w - 1) q->hi = q->lo + (w - 1);
    memset(q->hist, 0, NB * sizeof *q->hist);
    if (q->lo == q->hi) q->x = value_of(q->lo), q->done = 1;
}

/* ready for the next pass: a collecting one when few values remain, else a
 * counting one (its histogram made at its first); 0, -1 ENOMEM */
static int arm(qsel *q)
{
    if (q->done || q->buf) return 0;
    if (q->in > CAP) return q->hist || (q->hist = calloc(NB, sizeof *q->hist)) ? 0 : -1;
    free(q->hist);
    q->hist = NULL;
    q->buf = malloc((q->in ? q->in : 1) * sizeof *q->buf);
    return q->buf ? 0 : -1;
}

/* The quantiles armed for a pass; a column's high quantile that would collect
 * the very values its low one collects (same range: both start on [min, max])
 * shares them (q[j].share) instead of a second scattered copy. 0, -1 ENOMEM */
static int arm_all(qsel *q, int nq)
{
    for (int j = 0; j < nq; j++) {
        qsel *lo = j % 2 ? &q[j - 1] : NULL;
        if (lo && !q[j].done && !q[j].buf && q[j].in <= CAP && lo->buf && lo->nbuf == 0
            && lo->lo == q[j].lo && lo->hi == q[j].hi && lo->in == q[j].in) {
            free(q[j].hist);
            q[j].hist = NULL;
            q[j].share = 1;
            continue;
        }
        if (arm(&q[j])) return -1;
    }
    return 0;
}

/* After a pass: each quantile settled; a sharing one gets its copy of the
 * collected values (in row order, as its own collection) before its twin's
 * selection reorders them. 0, -1 ENOMEM */
static int settle_all(qsel *q, int nq)
{
    for (int j = 0; j < nq; j++) {
        if (j % 2 == 0 && j + 1 < nq && q[j + 1].share) {
            qsel *h = &q[j + 1];
            h->buf = malloc((q[j].nbuf ? q[j].nbuf : 1) * sizeof *h->buf);
            if (!h->buf) return -1;
            if (q[j].nbuf) memcpy(h->buf, q[j].buf, q[j].nbuf * sizeof *h->buf);
            h->nbuf = q[j].nbuf;
            h->share = 0;
        }
        settle(&q[j]);
    }
    return 0;
}

#define RUN 64 /* rows a block of the collecting passes (~RUN * ncol doubles, in cache) */

/* Row i and the number of rows from it that follow it in the same memory (the
 * cursor's buffer or the table's rows), at most RUN, into *n. */
static const double *rows_at(nsc_wcur *c, long i, long *n)
{
    const nsc_waves *W = c->W;
    const double *row = nsc_wcur_row(c, i);
    long end = i >= W->row0 ? W->nrow : c->first + c->n;
    *n = end - i < RUN ? end - i : RUN;
    return row;
}

/* pass 1: min, max, finite count of each column (row order, as nsc_trace_stat_of):
 * fmin/fmax's values, libm asked only for a zero (+0 and -0 compare equal and
 * either may be returned); an x equal to min or max otherwise has its bits */
static void pass_range(nsc_wcur *c, nsc_trace_stat *st)
{
    const nsc_waves *W = c->W;
    for (long i = 0; i < W->nrow; i++) {
        const double *row = nsc_wcur_row(c, i);
        for (int k = 1; k < W->ncol; k++) {
            double x = row[k];
            if (!isfinite(x)) continue;
            nsc_trace_stat *s = &st[k];
            if (!s->nfinite) s->min = s->max = x;
            else if (x < s->min) s->min = x;
            else if (x > s->max) s->max = x;
            else if (x == 0) s->min = fmin(s->min, x), s->max = fmax(s->max, x);
            s->nfinite++;
        }
    }
}

/* the quantiles: q[2 (k - 1)] low, q[2 (k - 1) + 1] high of column k */
static int pass_quantiles(nsc_wcur *c, nsc_trace_stat *st, qsel *q)
{
    const nsc_waves *W = c->W;
    int nq = 2 * (W->ncol - 1), left = 0;
    for (int j = 0; j < nq; j++) {
        const nsc_trace_stat *s = &st[j / 2 + 1];
        q[j] = (qsel){ key_of(s->min == 0 ? -0.0 : s->min),
                       key_of(s->max == 0 ? 0.0 : s->max),
                       0,
                       0,
                       s->nfinite,
                       s->nfinite == 0,
                       0,
                       NULL,
                       NULL,
                       0,
                       0 }; /* (fmin may return +0 with a -0 present) */
        q[j].k = nsc_quantile_index(s->nfinite, j % 2 ? NSC_PLOT_QHI : NSC_PLOT_QLO);
        if (q[j].lo == q[j].hi && !q[j].done) q[j].x = s->min, q[j].done = 1;
        left += !q[j].done;
    }
    size_t nc = (size_t)W->ncol;
    while (left > 0) {
        if (arm_all(q, nq)) return -1;
        long r;
        for (long i = 0; i < W->nrow; i += r) {    /* a block of rows, column by column: */
            const double *row = rows_at(c, i, &r); /* each quantile's values in row order */
            for (int j = 0; j < nq; j++) {
                if (q[j].done || q[j].share) continue;
                const double *v = row + j / 2 + 1;
                for (long t = 0; t < r; t++)
                    if (isfinite(v[(size_t)t * nc])) take(&q[j], v[(size_t)t * nc]);
            }
        }
        if (settle_all(q, nq)) return -1;
        left = 0;
        for (int j = 0; j < nq; j++) left += !q[j].done;
    }
    for (int j = 0; j < nq; j++) {
        nsc_trace_stat *s = &st[j / 2 + 1];
        if (s->nfinite) *(j % 2 ? &s->qhi : &s->qlo) = q[j].x;
    }
    return 0;
}

/* last pass: the jumps, consecutive finite rows more than half of qhi - qlo
 * apart (prev[ncol + k]: column k's half, read once: qlo and qhi are final) */
static void pass_jumps(nsc_wcur *c, nsc_trace_stat *st, double *prev)
{
    const nsc_waves *W = c->W;
    double *hv = prev + W->ncol;
    for (int k = 1; k < W->ncol; k++) prev[k] = NAN, hv[k] = nsc_trace_half(&st[k]);
    for (long i = 0; i < W->nrow; i++) {
        const double *row = nsc_wcur_row(c, i);
        for (int k = 1; k < W->ncol; k++) {
            double x = row[k], half = hv[k];
            if (!isfinite(x)) continue;
            if (half > 0 && isfinite(prev[k]) && fabs(x - prev[k]) > half) st[k].jumps++;
            if (!isfinite(prev[k])) st[k].first = x;
            prev[k] = st[k].last = x;
        }
    }
}

int nsc_trace_stats(const nsc_waves *W, nsc_trace_stat *st)
{
    if (!W->sp || W->row0 == 0) { /* every row in memory */
        for (int k = 1; k < W->ncol; k += NSC_STAT_COLS) {
            int nk = W->ncol - k < NSC_STAT_COLS ? W->ncol - k : NSC_STAT_COLS;
            if (nsc_trace_stat_cols(W->v + k, (size_t)W->nrow, (size_t)W->ncol, nk, &st[k]))
                return -1;
        }
        return 0;
    }
    memset(st, 0, (size_t)W->ncol * sizeof *st);
    int nq = 2 * (W->ncol - 1), s = 0;
    nsc_wcur c;
    memset(&c, 0, sizeof c);
    qsel *q = nsc_calloc((size_t)nq + 1, sizeof *q);
    double *prev = nsc_calloc(2 * (size_t)W->ncol, sizeof *prev); /* pass_jumps' */
    if (!q || !prev || nsc_wcur_init(&c, W)) s = -1;
    if (!s) {
        pass_range(&c, st);
        s = pass_quantiles(&c, st, q);
    }
    if (!s) pass_jumps(&c, st, prev);
    if (!s && c.err) s = -2, errno = c.err;
    for (int j = 0; q && j < nq; j++) free(q[j].hist), free(q[j].buf);
    free(q);
    free(prev);
    nsc_wcur_free(&c);
    return s;
}
