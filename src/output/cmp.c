/* cmp.c -- two waveform tables on one time grid: errors and switching shifts
 * (definitions in cmp.h). */
#include "cmp.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- names ---- */

static int plain(const char *b, size_t n) /* a node name: no ( ) , */
{
    if (n == 0) return 0;
    for (size_t k = 0; k < n; k++)
        if (b[k] == '(' || b[k] == ')' || b[k] == ',') return 0;
    return 1;
}

char *nsc_signame_canon(const char *name)
{
    char *s = malloc(strlen(name) + 1), *d = s;
    if (!s) return NULL;
    for (const char *p = name; *p; p++)
        if (!isspace((unsigned char)*p)) *d++ = (char)tolower((unsigned char)*p);
    *d = 0;
    size_t L = strlen(s);
    char *out = NULL;
    if (L > 7 && !strcmp(s + L - 7, "#branch") && plain(s, L - 7)) { /* l1#branch */
        out = nsc_asprintf("i(%.*s)", (int)(L - 7), s);
    } else if (L > 2 && s[0] == 'v' && s[1] == '(' && s[L - 1] == ')') {
        const char *a = s + 2, *close = strchr(a, ')');
        const char *comma = memchr(a, ',', (size_t)(close - a));
        if (close[1] == '-' && close[2] == 'v' && close[3] == '(' && plain(a, (size_t)(close - a))
            && plain(close + 4, (size_t)(s + L - 1 - (close + 4)))) /* v(a)-v(b) */
            out = nsc_asprintf("v(%.*s,%.*s)", (int)(close - a), a, (int)(s + L - 1 - (close + 4)),
                               close + 4);
        else if (comma && close == s + L - 1 && plain(a, (size_t)(comma - a))) { /* v(a,0) */
            const char *b = comma + 1;
            size_t nb = (size_t)(close - b);
            if ((nb == 1 && *b == '0') || (nb == 3 && !strncmp(b, "gnd", 3)))
                out = nsc_asprintf("v(%.*s)", (int)(comma - a), a);
        }
    }
    if (out || !s) {
        free(s);
        return out;
    }
    return s;
}

/* ---- scales ---- */

int nsc_scale_of_name(const char *name)
{
    if (!name || !strcasecmp(name, "time")) return NSC_SCALE_TIME;
    return !strcasecmp(name, "frequency") ? NSC_SCALE_FREQ : NSC_SCALE_SWEEP;
}

int nsc_waves_scale(const nsc_waves *W)
{
    return nsc_scale_of_name(W->name[0]);
}

int nsc_signame_ac(const char *name)
{
    if (!strncasecmp(name, "vdb(", 4) || !strncasecmp(name, "idb(", 4)
        || !strncasecmp(name, "db(", 3))
        return NSC_AC_DB;
    if (!strncasecmp(name, "vp(", 3) || !strncasecmp(name, "ip(", 3)
        || !strncasecmp(name, "ph(", 3))
        return NSC_AC_PHASE;
    return 0;
}

static const char *scale_text(int scale)
{
    return scale == NSC_SCALE_TIME   ? "a transient (time)"
           : scale == NSC_SCALE_FREQ ? "an AC analysis (frequency)"
                                     : "a DC sweep";
}

/* The abscissa where tables are linear: log10(f) for AC, else t itself. */
static double xof(int logx, double t)
{
    return logx ? log10(t) : t;
}

double nsc_cmp_diff(const nsc_cmp *c, int q, double ours, double ref)
{
    if (ours == ref) return 0; /* (both -inf dB: a zero AC magnitude in both) */
    double d = ours - ref;
    return c->sig[q].phase ? d - 360 * nearbyint(d / 360) : d;
}

/* ---- signals in a table ---- */

typedef struct table {
    const nsc_waves *W;
    const int *row; /* [nrow] the file's row (1-based) of each of W's rows; NULL: i + 1 */
    char **canon;   /* [ncol] */
    int *k;         /* [ngrid] segment of each grid point */
    double *a;      /* [ngrid] weight: value = (1-a) y[k] + a y[k+1] */
} table;

typedef struct source {
    int plus, minus; /* columns; minus = -1 when none */
} source;

static int col_of(const table *T, const char *canon)
{
    for (int c = 1; c < T->W->ncol; c++)
        if (T->canon[c] && !strcmp(T->canon[c], canon)) return c;
    return -1;
}

/* canonical name -> columns; 0 if the table cannot provide it */
static int find(const table *T, const char *name, source *s)
{
    s->minus = -1;
    if ((s->plus = col_of(T, name)) > 0) return 1;
    size_t L = strlen(name);
    if (L > 3 && name[0] == 'v' && name[1] == '(' && name[L - 1] == ')') {
        char *in = nsc_strndup(name + 2, L - 3);
        if (!in) return 0;
        char *comma = strchr(in, ',');
        int ok = 0;
        if (comma) { /* v(a,b) = v(a) - v(b) */
            *comma = 0;
            char *va = nsc_asprintf("v(%s)", in), *vb = nsc_asprintf("v(%s)", comma + 1);
            if (va && vb && (s->plus = col_of(T, va)) > 0 && (s->minus = col_of(T, vb)) > 0) ok = 1;
            free(va);
            free(vb);
        } else if ((s->plus = col_of(T, in)) > 0) /* v(a) = bare column a */
            ok = 1;
        free(in);
        if (!ok) s->minus = -1;
        return ok;
    }
    return 0;
}

static char *source_text(const table *T, source s)
{
    if (s.minus < 0) return nsc_strdup(T->W->name[s.plus]);
    return nsc_asprintf("%s - %s", T->W->name[s.plus], T->W->name[s.minus]);
}

/* Column col at grid point i, linear between its rows; a phase (degrees) the
 * short way round between two rows (179 -> -179 passes 180, not 0). A row
 * that is not finite (-inf dB: a zero AC magnitude) is not interpolated: the
 * nearer row's value (0 * -inf would be NaN). */
static double value(const table *T, int col, int i, int phase)
{
    const nsc_waves *W = T->W;
    int k = T->k[i];
    double y0 = W->v[(size_t)k * W->ncol + col];
    if (k + 1 >= W->nrow) return y0;
    double y1 = W->v[(size_t)(k + 1) * W->ncol + col];
    if (!isfinite(y0) || !isfinite(y1)) return T->a[i] <= 0.5 ? y0 : y1;
    if (phase) y1 = y0 + (y1 - y0 - 360 * nearbyint((y1 - y0) / 360));
    return (1 - T->a[i]) * y0 + T->a[i] * y1;
}

static void table_free(table *T)
{
    for (int c = 0; T->canon && c < T->W->ncol; c++) free(T->canon[c]);
    free(T->canon);
    free(T->k);
    free(T->a);
}

/* The file's row (1-based) of T's row i. */
static int file_row(const table *T, int i)
{
    return T->row ? T->row[i] : i + 1;
}

static nsc_status table_init(table *T, const nsc_waves *W, const int *row, const char *which,
                             nsc_report *r)
{
    T->W = W;
    T->row = row;
    if (W->nrow < 1) return nsc_err(r, NSC_EUSAGE, NULL, "%s has no rows", which);
    int sc = nsc_waves_scale(W);
    const char *x = sc == NSC_SCALE_TIME   ? "time"
                    : sc == NSC_SCALE_FREQ ? "frequency"
                                           : "the swept value";
    for (int i = 0; i < W->nrow; i++) {
        double t = W->v[(size_t)i * W->ncol];
        if (!isfinite(t))
            return nsc_err(r, NSC_EUSAGE, NULL, "%s: %s is not finite at row %d", which, x,
                           file_row(T, i));
        if (i && t < W->v[(size_t)(i - 1) * W->ncol])
            return nsc_err(r, NSC_EUSAGE, NULL, "%s: %s decreases at row %d (%g after %g)", which,
                           x, file_row(T, i), t, W->v[(size_t)(i - 1) * W->ncol]);
    }
    if (!(T->canon = nsc_calloc((size_t)W->ncol, sizeof(char *)))) return nsc_oom(r);
    for (int c = 1; c < W->ncol; c++)
        if (!(T->canon[c] = nsc_signame_canon(W->name[c]))) return nsc_oom(r);
    return NSC_OK;
}

/* segment index and weight of every grid point (value right-continuous at
 * repeated times), linear in x = xof(logx, t) */
static nsc_status table_locate(table *T, const double *g, int ng, int logx, nsc_report *r)
{
    const nsc_waves *W = T->W;
    T->k = nsc_calloc((size_t)ng, sizeof(int));
    T->a = nsc_calloc((size_t)ng, sizeof(double));
    if (!T->k || !T->a) return nsc_oom(r);
    int k = 0;
    for (int i = 0; i < ng; i++) {
        while (k + 1 < W->nrow && W->v[(size_t)(k + 1) * W->ncol] <= g[i]) k++;
        T->k[i] = k;
        if (k + 1 < W->nrow) {
            double ta = W->v[(size_t)k * W->ncol], tb = W->v[(size_t)(k + 1) * W->ncol];
            int lg = logx && ta > 0; /* (a row at f = 0: linear there) */
            T->a[i] = g[i] <= ta ? 0
                                 : (xof(lg, g[i]) - xof(lg, ta))
                                       / (xof(lg, tb) - xof(lg, ta)); /* tb > g[i] >= ta */
        }
    }
    return NSC_OK;
}

/* ---- the grid ---- */

/* Are ours' rows inside [t0, t1] samples on a uniform grid (the tstep grid of
 * fixed steps or .options interp; the last interval may be shorter)? Rows at
 * accepted steps and events are not: their gaps follow the waveform. A gap is
 * the grid's within 1e-6 of it plus the times' own print precision: a .dat row
 * holds t to 13 significant digits ("%.12e"), so two rows' difference carries
 * up to 1e-12 |t| of rounding, which exceeds 1e-6 gap once |t| > 1e6 gaps (a
 * million rows, or a late TSTART: `.tran 1p 1.001m 1m` has |t| = 1e9 gaps). */
static int uniform_rows(const nsc_waves *A, double t0, double t1)
{
    int n = 0;
    double prev = 0, gap = 0;
    for (int i = 0; i < A->nrow; i++) {
        double x = A->v[(size_t)i * A->ncol];
        if (x < t0 || x > t1) continue;
        if (n == 1) gap = x - prev;
        else if (n >= 2 && !(fabs(x - prev - gap) <= 1e-6 * gap + 4e-12 * fabs(x))
                 && !(i + 1 == A->nrow && x - prev < gap))
            return 0;
        prev = x;
        n++;
    }
    return n >= 3 && gap > 0;
}

/* Append the time points of W inside (t0, t1) to g[*n]. */
static void add_points(const nsc_waves *W, double t0, double t1, double *g, int *n)
{
    for (int i = 0; i < W->nrow; i++) {
        double x = W->v[(size_t)i * W->ncol];
        if (x > t0 && x < t1) g[(*n)++] = x;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Samples: ours' time points inside [t0, t1] (t0, t1 then shrink to the first
 * and last of them; both ends when ours has fewer than two there). */
static nsc_status grid_ours(const nsc_waves *A, nsc_cmp *c, nsc_report *r)
{
    double tol = 1e-12 * (c->t1 - c->t0);
    c->t = nsc_calloc((size_t)A->nrow + 2, sizeof(double));
    if (!c->t) return nsc_oom(r);
    int n = 0;
    for (int i = 0; i < A->nrow; i++) {
        double x = A->v[(size_t)i * A->ncol];
        if (x > c->t1 + tol) break;
        if (x >= c->t0 - tol && (n == 0 || x > c->t[n - 1] + tol))
            c->t[n++] = x; /* sorted, no repeats */
    }
    if (n < 2) { /* ours has no interval inside: its interpolated ends */
        c->t[0] = c->t0;
        c->t[1] = c->t1;
        n = 2;
    }
    c->t0 = c->t[0] = fmax(c->t[0], c->t0); /* the interval compared: ours' first to last point */
    c->t1 = c->t[n - 1] = fmin(c->t[n - 1], c->t1);
    c->ngrid = n;
    return NSC_OK;
}

/* Waveforms: t0, t1 and every time point of both tables between them, sorted,
 * no repeats (within 1e-12 of the interval). */
static nsc_status grid_union(const nsc_waves *A, const nsc_waves *B, nsc_cmp *c, nsc_report *r)
{
    double *g = nsc_calloc((size_t)A->nrow + (size_t)B->nrow + 2, sizeof(double));
    if (!g) return nsc_oom(r);
    int m = 0;
    g[m++] = c->t0;
    add_points(A, c->t0, c->t1, g, &m);
    add_points(B, c->t0, c->t1, g, &m);
    g[m++] = c->t1;
    qsort(g, (size_t)m, sizeof *g, cmp_double);
    double tol = 1e-12 * (c->t1 - c->t0);
    int n = 0;
    for (int i = 0; i < m; i++)
        if (n == 0 || g[i] > g[n - 1] + tol) g[n++] = g[i];
    if (g[n - 1] < c->t1) g[n - 1] = c->t1; /* t1 itself closes the grid */
    c->t = g;
    c->ngrid = n;
    return NSC_OK;
}

/* The grid. Rows at accepted steps and events (nscircuit's default output,
 * ngspice's and LTspice's files) are points of piecewise-linear waveforms: the
 * grid is the union of both tables' points, each table linear between its own
 * (an error at one of ours' rows is not spread over a long step of ours that the
 * reference resolves). Rows on a uniform grid (fixed steps, .options interp) are
 * samples: ours says nothing between them (an edge of a square wave between two
 * rows is not a ramp), so the grid is ours' points, the reference interpolated. */
static nsc_status make_grid(const nsc_waves *A, const nsc_waves *B, double from, double to,
                            nsc_cmp *c, nsc_report *r)
{
    double a0 = A->v[0], a1 = A->v[(size_t)(A->nrow - 1) * A->ncol];
    double b0 = B->v[0], b1 = B->v[(size_t)(B->nrow - 1) * B->ncol];
    c->t0 = fmax(fmax(a0, b0), from);
    c->t1 = fmin(fmin(a1, b1), to);
    if (!(c->t1 > c->t0)) {
        const char *x = c->scale == NSC_SCALE_TIME   ? "time interval"
                        : c->scale == NSC_SCALE_FREQ ? "frequency interval"
                                                     : "sweep range";
        const char *u = c->scale == NSC_SCALE_TIME ? " s" : c->scale == NSC_SCALE_FREQ ? " Hz" : "";
        return nsc_err(r, NSC_EUSAGE, NULL,
                       "no common %s: ours covers %g .. %g%s, the reference %g .. %g%s%s", x, a0,
                       a1, u, b0, b1, u,
                       isinf(from) && isinf(to) ? "" : " (within the window given)");
    }
    c->samples = c->scale == NSC_SCALE_TIME && uniform_rows(A, c->t0, c->t1);
    c->logx = c->scale == NSC_SCALE_FREQ && c->t0 > 0; /* (a frequency of 0: linear) */
    return c->samples ? grid_ours(A, c, r) : grid_union(A, B, c, r);
}

/* ---- switching instants ---- */

int nsc_cmp_edges(const double *t, const double *y, int n, double level, double hyst, double *at,
                  int *dir, int cap)
{
    int state = 0, count = 0;      /* +1 above the band, -1 below, 0 not yet known */
    double tup = NAN, tdown = NAN; /* last mid-level crossings since the state was entered */
    for (int i = 0; i < n; i++) {
        if (i > 0) {
            double a = y[i - 1] - level, b = y[i] - level;
            double tc = a == b ? t[i] : t[i - 1] + (t[i] - t[i - 1]) * (a / (a - b));
            if (a <= 0 && b >= 0 && a < b) tup = tc;
            if (a >= 0 && b <= 0 && a > b) tdown = tc;
        }
        if (y[i] > level + hyst && state != 1) {
            if (state == -1) {
                if (count < cap) {
                    at[count] = isnan(tup) ? t[i] : tup;
                    dir[count] = 1;
                }
                count++;
            }
            state = 1;
            tdown = NAN;
        } else if (y[i] < level - hyst && state != -1) {
            if (state == 1) {
                if (count < cap) {
                    at[count] = isnan(tdown) ? t[i] : tdown;
                    dir[count] = -1;
                }
                count++;
            }
            state = -1;
            tup = NAN;
        }
    }
    return count;
}

/* match each reference instant to the nearest one of ours in the same direction,
 * closer than half the distance to the neighbouring reference instants */
static void match_edges(nsc_cmp_sig *s, const double *rt, const int *rd, int nr, const double *ot,
                        const int *od, int no)
{
    double sum = 0, best = 0;
    int m = 0;
    for (int k = 0; k < nr; k++) {
        double lim = INFINITY;
        if (k > 0) lim = fmin(lim, 0.5 * (rt[k] - rt[k - 1]));
        if (k + 1 < nr) lim = fmin(lim, 0.5 * (rt[k + 1] - rt[k]));
        double d = INFINITY;
        for (int j = 0; j < no; j++) /* no is small */
            if (od[j] == rd[k] && fabs(ot[j] - rt[k]) < fabs(d)) d = ot[j] - rt[k];
        if (!isfinite(d) || !(fabs(d) <= lim)) continue; /* none in that direction: unmatched */
        sum += d;
        if (fabs(d) >= fabs(best)) best = d;
        m++;
    }
    s->n_matched = m;
    s->shift_max = best;
    s->shift_mean = m ? sum / m : 0;
}

/* One signal of table T at T's own rows inside [t0, t1]: *t, *y (malloc'd), *n. */
static nsc_status own_series(const table *T, source src, double t0, double t1, double **t,
                             double **y, int *n, nsc_report *r)
{
    const nsc_waves *W = T->W;
    *n = 0;
    *t = nsc_calloc((size_t)W->nrow + 1, sizeof(double));
    *y = nsc_calloc((size_t)W->nrow + 1, sizeof(double));
    if (!*t || !*y) return nsc_oom(r);
    for (int i = 0; i < W->nrow; i++) {
        const double *row = W->v + (size_t)i * W->ncol;
        if (row[0] < t0 || row[0] > t1) continue;
        (*t)[*n] = row[0];
        (*y)[(*n)++] = row[src.plus] - (src.minus > 0 ? row[src.minus] : 0);
    }
    return NSC_OK;
}

/* Switching instants of both sides, each found on its own rows (its own
 * resolution), at the mid level of the reference's range with 10 % hysteresis. */
static nsc_status instants(nsc_cmp *c, int q, const table *A, source sa, const table *B, source sb,
                           nsc_report *r)
{
    nsc_cmp_sig *s = &c->sig[q];
    double *ta = NULL, *ya = NULL, *tb = NULL, *yb = NULL, *at = NULL;
    int *dir = NULL, na = 0, nb = 0;
    nsc_status st = own_series(A, sa, c->t0, c->t1, &ta, &ya, &na, r);
    if (!st) st = own_series(B, sb, c->t0, c->t1, &tb, &yb, &nb, r);
    if (!st
        && (!(at = nsc_calloc((size_t)na + (size_t)nb + 2, sizeof(double)))
            || !(dir = nsc_calloc((size_t)na + (size_t)nb + 2, sizeof(int)))))
        st = nsc_oom(r);
    if (!st) {
        double hyst = 0.1 * s->range;
        s->n_ref = nsc_cmp_edges(tb, yb, nb, s->level, hyst, at, dir, nb + 1);
        s->n_ours = nsc_cmp_edges(ta, ya, na, s->level, hyst, at + nb + 1, dir + nb + 1, na + 1);
        match_edges(s, at, dir, s->n_ref, at + nb + 1, dir + nb + 1, s->n_ours);
    }
    free(ta);
    free(ya);
    free(tb);
    free(yb);
    free(at);
    free(dir);
    return st;
}

/* The first row of T in [t0, t1] where signal src is NaN: its file row
 * (1-based), its abscissa in *x; 0 when there is none. */
static int nan_row(const table *T, source src, double t0, double t1, double *x)
{
    const nsc_waves *W = T->W;
    for (int i = 0; i < W->nrow; i++) {
        const double *row = W->v + (size_t)i * W->ncol;
        if (row[0] < t0 || row[0] > t1) continue;
        if (isnan(row[src.plus]) || (src.minus > 0 && isnan(row[src.minus]))) {
            *x = row[0];
            return file_row(T, i);
        }
    }
    return 0;
}

/* A NaN of signal s in [t0, t1], the reference's first, else ours': no error
 * figure holds around it (a NaN compares false: its max error came out 0). */
static void nan_check(nsc_cmp_sig *s, const table *A, source sa, const table *B, source sb,
                      double t0, double t1)
{
    if ((s->nan_row = nan_row(B, sb, t0, t1, &s->t_nan))) s->nan_side = 2;
    else if ((s->nan_row = nan_row(A, sa, t0, t1, &s->t_nan))) s->nan_side = 1;
}

/* Errors on the grid (ours' points); the reference's range from its own rows in
 * the window and its values on the grid, finite ones (-inf dB, a zero AC
 * magnitude, is no level; equal values are no error). A range below 1e-6 of the
 * signal's magnitude is no scale (the signal is constant within every SPICE's
 * convergence tolerance, RELTOL >= 1e-6: its variation is the solvers' residue,
 * e.g. a node held by gmin at -5e8 V moving 5 V over a sweep): relative errors
 * then divide by the magnitude. */
static nsc_status metrics(nsc_cmp *c, int q, const table *A, source sa, const table *B, source sb,
                          nsc_report *r)
{
    nsc_cmp_sig *s = &c->sig[q];
    const double *t = c->t, *o = c->ours + (size_t)q * c->ngrid, *f = c->ref + (size_t)q * c->ngrid;
    int n = c->ngrid;
    double lo = INFINITY, hi = -INFINITY, mag = 0, emax = -1, ie2 = 0;
    for (int i = 0; i < n; i++) {
        if (isfinite(f[i])) { /* (-inf dB is no level of the range) */
            lo = fmin(lo, f[i]);
            hi = fmax(hi, f[i]);
            mag = fmax(mag, fabs(f[i]));
        }
        double e = fabs(nsc_cmp_diff(c, q, o[i], f[i]));
        if (e > emax) {
            emax = e;
            s->t_max_err = t[i];
        }
        if (i) {
            double ea = nsc_cmp_diff(c, q, o[i - 1], f[i - 1]), eb = nsc_cmp_diff(c, q, o[i], f[i]);
            double dx = xof(c->logx, t[i]) - xof(c->logx, t[i - 1]);
            ie2 += isfinite(ea) && isfinite(eb)
                       ? dx * (ea * ea + ea * eb + eb * eb) / 3 /* integral of e^2, */
                       : INFINITY;                              /* e linear in x */
        }
    }
    const nsc_waves *R = B->W;
    for (int i = 0; i < R->nrow; i++) {
        const double *row = R->v + (size_t)i * R->ncol;
        if (row[0] < c->t0 || row[0] > c->t1) continue;
        double y = row[sb.plus] - (sb.minus > 0 ? row[sb.minus] : 0);
        if (!isfinite(y)) continue;
        lo = fmin(lo, y);
        hi = fmax(hi, y);
        mag = fmax(mag, fabs(y));
    }
    nan_check(s, A, sa, B, sb, c->t0, c->t1);
    s->range = hi >= lo ? hi - lo : 0;       /* (no finite value: 0) */
    int roundoff = !(s->range > 1e-6 * mag); /* (constant: see above) */
    s->scale = !roundoff ? s->range : mag > 0 ? mag : 1;
    s->max_err = emax;
    s->rms_err = sqrt(ie2 / (xof(c->logx, c->t1) - xof(c->logx, c->t0)));
    s->level = 0.5 * (lo + hi);
    if (s->nan_side) s->max_err = s->rms_err = NAN, s->t_max_err = s->t_nan;
    if (roundoff || c->scale != NSC_SCALE_TIME) return NSC_OK;
    return instants(c, q, A, sa, B, sb, r);
}

/* ---- driver ---- */

void nsc_cmp_free(nsc_cmp *c)
{
    if (!c) return;
    for (int q = 0; c->sig && q < c->nsig; q++) {
        free(c->sig[q].name);
        free(c->sig[q].ours_src);
        free(c->sig[q].ref_src);
    }
    free(c->sig);
    free(c->t);
    free(c->ours);
    free(c->ref);
    free(c);
}

/* ---- nested DC sweeps ---- */

/* A table as compared: W (the file's, or own: a copy of some of its rows and
 * columns), row[i] the file's row (1-based) of W's row i (NULL: i + 1). */
typedef struct view {
    const nsc_waves *W;
    nsc_waves *own;
    int *row;
} view;

static void view_free(view *v)
{
    nsc_waves_free(v->own);
    free(v->row);
}

/* The column of nscircuit's outer sweep value ("sweep(i1)") in a DC sweep, or -1. */
static int outer_col(const nsc_waves *W)
{
    if (nsc_waves_scale(W) != NSC_SCALE_SWEEP) return -1;
    for (int c = 1; c < W->ncol; c++)
        if (!strncasecmp(W->name[c], "sweep(", 6)) return c;
    return -1;
}

/* The first rows of W's inner sweeps into at[0..n), at[n] = nrow (at: room
 * for nrow + 1); returns n. In a DC sweep a new inner sweep starts where the
 * outer column oc (>= 0) changes, else where the swept value repeats or
 * turns against the direction of the inner sweep's first two rows; any
 * other table is one. */
static int inner_starts(const nsc_waves *W, int oc, int *at)
{
    int n = 0, dir = 0;
    at[n++] = 0;
    for (int i = 1; nsc_waves_scale(W) == NSC_SCALE_SWEEP && i < W->nrow; i++) {
        const double *p = W->v + (size_t)(i - 1) * W->ncol, *x = p + W->ncol;
        double d = x[0] - p[0];
        int start = oc >= 0 ? x[oc] != p[oc] : d == 0 || (dir > 0 && d < 0) || (dir < 0 && d > 0);
        if (start) at[n++] = i, dir = 0;
        else if (!dir) dir = d > 0 ? 1 : d < 0 ? -1 : 0;
    }
    at[n] = W->nrow;
    return n;
}

/* Rows [a, b) of W without column oc (-1: none) as view v, in ascending
 * order of column 0 (a downward sweep reversed, so that it compares as the
 * same sweep upwards); W itself when that is all of it unchanged. */
static nsc_status block_view(const nsc_waves *W, int a, int b, int oc, view *v, nsc_report *r)
{
    int nc = W->ncol, down = b - a > 1 && W->v[(size_t)(a + 1) * nc] < W->v[(size_t)a * nc];
    memset(v, 0, sizeof *v);
    v->W = W;
    if (a == 0 && b == W->nrow && oc < 0 && !down) return NSC_OK;
    char **names = nsc_calloc((size_t)nc, sizeof *names);
    double *buf = nsc_calloc((size_t)nc, sizeof *buf);
    int m = 0;
    for (int c = 1; names && c < nc; c++)
        if (c != oc) names[m++] = W->name[c];
    v->W = v->own = names && buf ? nsc_waves_new(names, m, W->title ? W->title : "") : NULL;
    v->row = nsc_calloc((size_t)(b - a), sizeof(int));
    char *s0 = v->own && v->row ? nsc_strdup(W->name[0]) : NULL; /* the scale's name, "v-sweep" */
    if (s0) {
        free(v->own->name[0]);
        v->own->name[0] = s0;
    }
    for (int k = 0; s0 && k < b - a; k++) {
        int i = down ? b - 1 - k : a + k, j = 0;
        for (int c = 0; c < nc; c++)
            if (c != oc) buf[j++] = W->v[(size_t)i * nc + c];
        v->row[k] = i + 1;
        if (nsc_waves_add(v->own, buf)) s0 = NULL;
    }
    free(names);
    free(buf);
    return s0 ? NSC_OK : nsc_oom(r);
}

/* Why inner sweep 2 of W starts at row i (0-based): its outer column
 * changes, else the swept value repeats or turns back. */
static nsc_status not_nested_alike(const char *which, const nsc_waves *W, int oc, int i, int na,
                                   int nb, nsc_report *r)
{
    char why[160];
    double d = W->v[(size_t)i * W->ncol] - W->v[(size_t)(i - 1) * W->ncol];
    if (oc >= 0) snprintf(why, sizeof why, "%s changes at row %d", W->name[oc], i + 1);
    else
        snprintf(why, sizeof why, "the swept value %s at row %d",
                 d == 0  ? "repeats"
                 : d < 0 ? "decreases"
                         : "increases",
                 i + 1);
    if (nb == 1)
        return nsc_err(r, NSC_EUSAGE, NULL,
                       "%s is a nested DC sweep of %d inner sweeps (%s), the %s one sweep: "
                       "nothing to compare",
                       which, na, why, which[0] == 'o' ? "reference" : "ours");
    return nsc_err(r, NSC_EUSAGE, NULL, "ours holds %d inner sweeps, the reference %d (in %s, %s)",
                   which[0] == 'o' ? na : nb, which[0] == 'o' ? nb : na, which, why);
}

static nsc_status compare_views(const view *va, const view *vb, char *const *signals, int nsig,
                                double from, double to, nsc_cmp **out, nsc_report *r);

void nsc_cmp_set_free(nsc_cmp_set *S)
{
    if (!S) return;
    for (int k = 0; S->c && k < S->n; k++) nsc_cmp_free(S->c[k]);
    free(S->c);
    free(S->key);
    free(S->outer);
    free(S);
}

/* Inner sweep k of both tables (rows [ia[k], ia[k+1]) of ours, [ib[k],
 * ib[k+1]) of the reference; outer columns oa, ob or -1) into S. */
static nsc_status compare_block(nsc_cmp_set *S, int k, const nsc_waves *ours, const int *ia, int oa,
                                const nsc_waves *ref, const int *ib, int ob, char *const *signals,
                                int nsig, double from, double to, nsc_report *r)
{
    double ka = oa >= 0 ? ours->v[(size_t)ia[k] * ours->ncol + oa] : NAN;
    double kb = ob >= 0 ? ref->v[(size_t)ib[k] * ref->ncol + ob] : NAN;
    if (oa >= 0 && ob >= 0 && !(fabs(ka - kb) <= 1e-9 * fmax(fabs(ka), fabs(kb))))
        return nsc_err(r, NSC_EUSAGE, NULL, "inner sweep %d: ours' %s is %g, the reference's %g",
                       k + 1, ours->name[oa], ka, kb);
    S->key[k] = oa >= 0 ? ka : kb;
    view A, B;
    nsc_status st = block_view(ours, ia[k], ia[k + 1], oa, &A, r);
    if (!st) st = block_view(ref, ib[k], ib[k + 1], ob, &B, r);
    else memset(&B, 0, sizeof B);
    if (!st) st = compare_views(&A, &B, signals, nsig, from, to, &S->c[k], r);
    view_free(&A);
    view_free(&B);
    return st;
}

nsc_status nsc_compare_set(const nsc_waves *ours, const nsc_waves *ref, char *const *signals,
                           int nsig, double from, double to, nsc_cmp_set **out, nsc_report *r)
{
    *out = NULL;
    int oa = outer_col(ours), ob = outer_col(ref);
    int *ia = nsc_calloc((size_t)ours->nrow + 2, sizeof(int)),
        *ib = nsc_calloc((size_t)ref->nrow + 2, sizeof(int));
    nsc_cmp_set *S = calloc(1, sizeof *S);
    nsc_status st = NSC_OK;
    if (!ia || !ib || !S) st = nsc_oom(r);
    int na = st ? 0 : inner_starts(ours, oa, ia), nb = st ? 0 : inner_starts(ref, ob, ib);
    if (!st && na != nb)
        st = na > nb ? not_nested_alike("ours", ours, oa, ia[1], na, nb, r)
                     : not_nested_alike("the reference", ref, ob, ib[1], nb, na, r);
    if (!st
        && (!(S->c = nsc_calloc((size_t)na, sizeof *S->c))
            || !(S->key = nsc_calloc((size_t)na, sizeof(double)))
            || (na > 1 && (oa >= 0 || ob >= 0)
                && !(S->outer = nsc_strdup(oa >= 0 ? ours->name[oa] : ref->name[ob])))))
        st = nsc_oom(r);
    for (int k = 0; !st && k < na; k++, S->n = k)
        st = compare_block(S, k, ours, ia, oa, ref, ib, ob, signals, nsig, from, to, r);
    free(ia);
    free(ib);
    if (st) nsc_cmp_set_free(S);
    else *out = S;
    return st;
}

nsc_status nsc_compare(const nsc_waves *ours, const nsc_waves *ref, char *const *signals, int nsig,
                       double from, double to, nsc_cmp **out, nsc_report *r)
{
    nsc_cmp_set *S = NULL;
    *out = NULL;
    nsc_status st = nsc_compare_set(ours, ref, signals, nsig, from, to, &S, r);
    if (st) return st;
    if (S->n == 1) {
        *out = S->c[0];
        S->c[0] = NULL;
    } else
        st = nsc_err(r, NSC_EUSAGE, NULL,
                     "a nested DC sweep of %d inner sweeps (nsc_compare_set compares them)", S->n);
    nsc_cmp_set_free(S);
    return st;
}

/* The signals to compare into c->sig (the named ones, else every column of
 * ours that the reference also has, each once), their columns in sa, sb. */
static nsc_status pick_signals(nsc_cmp *c, table *A, table *B, source *sa, source *sb,
                               char *const *signals, int nsig, nsc_report *r)
{
    const nsc_waves *ours = A->W;
    for (int q = 0; q < (nsig > 0 ? nsig : ours->ncol - 1); q++) {
        char *name = nsc_signame_canon(nsig > 0 ? signals[q] : ours->name[q + 1]);
        if (!name) return nsc_oom(r);
        int dup = 0;
        for (int p = 0; p < c->nsig; p++) dup |= !strcmp(c->sig[p].name, name);
        int fa = find(A, name, &sa[c->nsig]), fb = find(B, name, &sb[c->nsig]);
        if (nsig > 0 && (!fa || !fb)) {
            free(name);
            return nsc_err(r, NSC_EUSAGE, NULL, "signal '%s' is not in %s", signals[q],
                           !fa ? "ours" : "the reference");
        }
        if (dup || !fa || !fb) {
            free(name);
            continue;
        }
        c->sig[c->nsig].name = name;
        c->sig[c->nsig].phase = c->scale == NSC_SCALE_FREQ && nsc_signame_ac(name) == NSC_AC_PHASE;
        c->sig[c->nsig].ours_src = source_text(A, sa[c->nsig]);
        c->sig[c->nsig].ref_src = source_text(B, sb[c->nsig]);
        c->nsig++;
        if (!c->sig[c->nsig - 1].ours_src || !c->sig[c->nsig - 1].ref_src) return nsc_oom(r);
    }
    return NSC_OK;
}

/* The error when two tables share no signal: each one's column names. */
static nsc_status no_common(const nsc_waves *ours, const nsc_waves *ref, nsc_report *r)
{
    char la[200] = "", lb[200] = "";
    for (int k = 1; k < ours->ncol && strlen(la) < 150; k++)
        snprintf(la + strlen(la), sizeof la - strlen(la), "%s%s", k > 1 ? " " : "", ours->name[k]);
    for (int k = 1; k < ref->ncol && strlen(lb) < 150; k++)
        snprintf(lb + strlen(lb), sizeof lb - strlen(lb), "%s%s", k > 1 ? " " : "", ref->name[k]);
    return nsc_err(r, NSC_EUSAGE, NULL, "no common signal: ours has %s; the reference has %s", la,
                   lb);
}

/* nsc_compare of two views whose column 0 does not decrease */
static nsc_status compare_views(const view *va, const view *vb, char *const *signals, int nsig,
                                double from, double to, nsc_cmp **out, nsc_report *r)
{
    const nsc_waves *ours = va->W, *ref = vb->W;
    *out = NULL;
    table A = { 0 }, B = { 0 };
    source *sa = NULL, *sb = NULL;
    nsc_cmp *c = calloc(1, sizeof *c);
    nsc_status st = NSC_OK;
    if (!c) return nsc_oom(r);
    if ((st = table_init(&A, ours, va->row, "ours", r))
        || (st = table_init(&B, ref, vb->row, "the reference", r)))
        goto done;
    c->scale = nsc_waves_scale(ours);
    if (nsc_waves_scale(ref) != c->scale) {
        st = nsc_err(r, NSC_EUSAGE, NULL, "ours is %s, the reference %s: nothing to compare",
                     scale_text(c->scale), scale_text(nsc_waves_scale(ref)));
        goto done;
    }
    int cap = nsig > 0 ? nsig : ours->ncol;
    c->sig = nsc_calloc((size_t)cap, sizeof *c->sig);
    sa = nsc_calloc((size_t)cap, sizeof *sa);
    sb = nsc_calloc((size_t)cap, sizeof *sb);
    if (!c->sig || !sa || !sb) {
        st = nsc_oom(r);
        goto done;
    }
    if ((st = pick_signals(c, &A, &B, sa, sb, signals, nsig, r))) goto done;
    if (c->nsig == 0) {
        st = no_common(ours, ref, r);
        goto done;
    }
    if ((st = make_grid(ours, ref, from, to, c, r))
        || (st = table_locate(&A, c->t, c->ngrid, c->logx, r))
        || (st = table_locate(&B, c->t, c->ngrid, c->logx, r)))
        goto done;
    size_t ng = (size_t)c->ngrid;
    c->ours = nsc_calloc((size_t)c->nsig * ng, sizeof(double));
    c->ref = nsc_calloc((size_t)c->nsig * ng, sizeof(double));
    if (!c->ours || !c->ref) {
        st = nsc_oom(r);
        goto done;
    }
    for (int q = 0; q < c->nsig; q++) {
        for (size_t i = 0; i < ng; i++) {
            int ph = c->sig[q].phase;
            c->ours[q * ng + i] = value(&A, sa[q].plus, (int)i, ph)
                                  - (sa[q].minus > 0 ? value(&A, sa[q].minus, (int)i, 0) : 0);
            c->ref[q * ng + i] = value(&B, sb[q].plus, (int)i, ph)
                                 - (sb[q].minus > 0 ? value(&B, sb[q].minus, (int)i, 0) : 0);
        }
        if ((st = metrics(c, q, &A, sa[q], &B, sb[q], r))) goto done;
    }
done:
    table_free(&A);
    table_free(&B);
    free(sa);
    free(sb);
    if (st) nsc_cmp_free(c);
    else *out = c;
    return st;
}
