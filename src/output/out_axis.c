/* out_axis.c -- the rules of the pictures' axes (out.h "plot rules"): a
 * trace's statistics, which traces are switching, a panel's robust y range,
 * tick steps whose labels are all distinct. */
#include "out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The k-th smallest of a[0..n) (0 <= k < n), a reordered: quickselect with a
 * median-of-three pivot and Hoare partition, expected O(n). */
static double select_kth(double *a, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        double x = a[lo], y = a[mid], z = a[hi];
        double p = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        size_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < p) i++;
            while (a[j] > p) j--;
            if (i <= j) {
                double t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                if (j == 0) break;
                j--;
            }
        }
        /* now a[lo..j] <= p <= a[i..hi], and j < i */
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else return a[k];
    }
    return a[k];
}

double nsc_select_kth(double *a, size_t n, size_t k)
{
    return select_kth(a, n, k);
}

size_t nsc_quantile_index(size_t n, double q)
{
    if (n == 0) return 0;
    double x = q * (double)(n - 1);
    return q < 0.5 ? (size_t)floor(x) : (size_t)ceil(x);
}

/* s of the finite values a[0..m) (m > 0) in row order; b[m] work (the
 * quantiles reorder a copy): min and max, qlo and qhi, then the jumps,
 * consecutive values differing by more than half the trimmed range. */
static void stat_seq(const double *a, size_t m, double *b, nsc_trace_stat *s)
{
    s->nfinite = m;
    s->min = s->max = a[0];
    for (size_t i = 1; i < m; i++) {
        s->min = fmin(s->min, a[i]);
        s->max = fmax(s->max, a[i]);
    }
    memcpy(b, a, m * sizeof *b);
    s->qlo = select_kth(b, m, nsc_quantile_index(m, NSC_PLOT_QLO));
    s->qhi = select_kth(b, m, nsc_quantile_index(m, NSC_PLOT_QHI));
    double half = nsc_trace_half(s);
    s->first = a[0];
    s->last = a[m - 1];
    for (size_t i = 1; half > 0 && i < m; i++)
        if (fabs(a[i] - a[i - 1]) > half) s->jumps++;
}

int nsc_trace_stat_of(const double *v, size_t n, size_t stride, nsc_trace_stat *s)
{
    memset(s, 0, sizeof *s);
    double *a = malloc((n ? n : 1) * sizeof *a);
    if (!a) return -1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i * stride])) a[m++] = v[i * stride];
    s->nfinite = m;
    if (m == 0) {
        free(a);
        return 0;
    }
    s->min = s->max = a[0];
    for (size_t i = 1; i < m; i++) {
        s->min = fmin(s->min, a[i]);
        s->max = fmax(s->max, a[i]);
    }
    s->qlo = select_kth(a, m, nsc_quantile_index(m, NSC_PLOT_QLO));
    s->qhi = select_kth(a, m, nsc_quantile_index(m, NSC_PLOT_QHI));
    free(a);
    /* jumps: consecutive finite rows differing by more than half the trimmed range */
    double half = nsc_trace_half(s), prev = NAN;
    for (size_t i = 0; i < n; i++) {
        double x = v[i * stride];
        if (!isfinite(x)) continue;
        if (half > 0 && isfinite(prev) && fabs(x - prev) > half) s->jumps++;
        if (!isfinite(prev)) s->first = x;
        prev = s->last = x;
    }
    return 0;
}

/* The statistics of nk <= NSC_STAT_COLS neighbouring columns in one pass
 * over the rows ((nk + 1) n doubles of copies). -1 out of memory, else 0. */
static int stat_block(const double *v, size_t n, size_t stride, int nk, nsc_trace_stat *s)
{
    double *a = malloc(((size_t)nk + 1) * (n ? n : 1) * sizeof *a);
    if (!a) return -1;
    double *b = a + (size_t)nk * (n ? n : 1);
    size_t m[NSC_STAT_COLS] = { 0 };
    for (size_t i = 0; i < n; i++)   /* one pass over the rows: */
        for (int k = 0; k < nk; k++) /* neighbouring values, one cache line */
            if (isfinite(v[i * stride + (size_t)k]))
                a[(size_t)k * n + m[k]++] = v[i * stride + (size_t)k];
    for (int k = 0; k < nk; k++) {
        memset(&s[k], 0, sizeof s[k]);
        if (m[k]) stat_seq(a + (size_t)k * n, m[k], b, &s[k]);
    }
    free(a);
    return 0;
}

int nsc_trace_stat_cols(const double *v, size_t n, size_t stride, int nk, nsc_trace_stat *s)
{
    int per = nk > NSC_STAT_COLS ? NSC_STAT_COLS : nk; /* columns a pass, within the words */
    if (per > 1 && (size_t)(per + 1) * n > NSC_STAT_WORDS)
        per = (int)(NSC_STAT_WORDS / (n ? n : 1)) - 1;
    for (int k = 0; k<nk; k += per> 1 ? per : 1) { /* every one of the nk columns */
        int nb = nk - k < per ? nk - k : per;
        int bad = nb <= 1 ? nsc_trace_stat_of(v + k, n, stride, &s[k])
                          : stat_block(v + k, n, stride, nb, s + k);
        if (bad) return -1;
    }
    return 0;
}

double nsc_trace_half(const nsc_trace_stat *s)
{
    double half = 0.5 * (s->qhi - s->qlo);
    return half > 0.5 * NSC_PLOT_NOISE * fmax(fabs(s->qlo), fabs(s->qhi)) ? half : 0;
}

int nsc_trace_switching(const nsc_trace_stat *s)
{
    int back = fabs(s->last - s->first) <= 0.5 * (s->qhi - s->qlo); /* a pulse, a period */
    return s->jumps >= NSC_PLOT_SWITCH_JUMPS || (s->jumps >= 2 && back);
}

/* The panel range of traces s[0..n): the full range [min, max], or the trimmed
 * range [min qlo, max qhi] (plus NSC_PLOT_MARGIN of it on each side) when
 * excursions beyond it take more than 2/3 of the full span (trimmed < full / 3)
 * while the trimmed data still span at least 1/1000 of it (a run whose content
 * is the spike itself keeps its full range). *clipped = 1 for the trimmed one. */
void nsc_robust_range(const nsc_trace_stat *s, int n, double *lo, double *hi, int *clipped)
{
    double fl = INFINITY, fh = -INFINITY, tl = INFINITY, th = -INFINITY;
    for (int k = 0; k < n; k++) {
        if (!s[k].nfinite) continue;
        fl = fmin(fl, s[k].min);
        fh = fmax(fh, s[k].max);
        tl = fmin(tl, s[k].qlo);
        th = fmax(th, s[k].qhi);
    }
    *clipped = 0;
    if (!(fl <= fh)) {
        *lo = 0;
        *hi = 1;
        return;
    } /* no finite value */
    double full = fh - fl, trim = th - tl;
    if (trim > 0 && trim * 3 < full && trim * 1000 >= full) {
        *lo = fmax(fl, tl - NSC_PLOT_MARGIN * trim);
        *hi = fmin(fh, th + NSC_PLOT_MARGIN * trim);
        *clipped = *lo > fl || *hi < fh;
        if (*clipped) return;
    }
    *lo = fl;
    *hi = fh;
}

/* 1, 2 or 5 times a power of ten, the smallest such >= x (x > 0). */
static double nice_step(double x)
{
    double p = pow(10, floor(log10(x)));
    double m = x / p;
    return (m <= 1 + 1e-9 ? 1 : m <= 2 + 1e-9 ? 2 : m <= 5 + 1e-9 ? 5 : 10) * p;
}

nsc_ticks nsc_ticks_of(double lo, double hi, int nticks)
{
    nsc_ticks t;
    if (!isfinite(lo) || !isfinite(hi)) lo = 0, hi = 1;
    if (hi < lo) {
        double x = lo;
        lo = hi;
        hi = x;
    }
    if (hi - lo <= 1e-12 * fmax(fabs(lo), fabs(hi))) { /* a constant: a band around it */
        double d = lo != 0 ? 0.1 * fabs(lo) : 1;
        lo -= d;
        hi += d;
    }
    t.step = nice_step((hi - lo) / (nticks > 1 ? nticks : 1));
    t.lo = floor(lo / t.step + 1e-9) * t.step + 0.0; /* + 0.0: no "-0" */
    t.hi = ceil(hi / t.step - 1e-9) * t.step + 0.0;
    /* significant digits: down to the step's decade, and all of the integer part */
    double big = fmax(fabs(t.lo), fabs(t.hi));
    int e_big = (int)floor(log10(big > 0 ? big : t.step)),
        e_step = (int)floor(log10(t.step) + 1e-9);
    t.digits = e_big - (e_step < 0 ? e_step : 0) + 1;
    if (t.digits < e_big + 1) t.digits = e_big + 1;
    if (t.digits < 1) t.digits = 1;
    if (t.digits > 15) t.digits = 15;
    return t;
}

void nsc_gp_ticks(FILE *f, char axis, double lo, double hi, int nticks, int setrange)
{
    nsc_ticks t = nsc_ticks_of(lo, hi, nticks);
    if (setrange) fprintf(f, "set %crange [%.10g:%.10g]\n", axis, t.lo, t.hi);
    fprintf(f, "set %ctics %.10g\nset format %c '%%.%dg'\n", axis, t.step, axis, t.digits);
}
