/* meas.c -- .meas tran on a waveform table (definitions in meas.h). */
#include "meas.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices/device.h"

/* Value of program s at time t with probe values pv[] and measure results mv[]
 * (NaN for a failed one): NaN when the arithmetic is not finite. stack has
 * nsc_xdepth slots. */
static double run(const nsc_msig *s, double t, const double *pv, const double *mv, double *stack)
{
    nsc_xload ld = { t, pv, mv };
    double v = nsc_xrun(s->code, s->ncode, &ld, stack);
    return isfinite(v) ? v : NAN;
}

/* The rows are read through a cursor (a spilled table's from its file) and a
 * signal's value at a row is computed when asked, not kept: memory does not
 * grow with the rows. */
typedef struct evalctx {
    const nsc_circuit *c;
    const nsc_waves *W;
    nsc_wcur cur;
    int *col; /* [nmeas_probe] column of each probe in W */
    double *pv, *stack;
    double *mv; /* [nmeas] the results so far, NaN for a failed or pending one */
} evalctx;

/* time of row i */
static double T(evalctx *E, long i)
{
    return nsc_wcur_row(&E->cur, i)[0];
}

/* s at row i */
static double Y(evalctx *E, const nsc_msig *s, long i)
{
    const double *row = nsc_wcur_row(&E->cur, i);
    for (int k = 0; k < E->c->job.nmeas_probe; k++) E->pv[k] = row[E->col[k]];
    return run(s, row[0], E->pv, E->mv, E->stack);
}

/* s at time x (linear between rows; x inside the run) */
static double at_time(evalctx *E, const nsc_msig *s, double x)
{
    int lo = 0, hi = E->W->nrow - 1;
    if (x <= T(E, 0)) return Y(E, s, 0);
    if (x >= T(E, hi)) return Y(E, s, hi);
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (T(E, mid) <= x) lo = mid;
        else hi = mid;
    }
    double h = T(E, hi) - T(E, lo);
    return h > 0 ? Y(E, s, lo) + (Y(E, s, hi) - Y(E, s, lo)) * ((x - T(E, lo)) / h) : Y(E, s, hi);
}

/* failure text (malloc'd) */
static char *why(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *why(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return nsc_strdup(buf);
}

/* the window [a, b] of m inside the run; 0 if empty */
static int window(const nsc_meas *m, evalctx *E, double *a, double *b)
{
    *a = fmax(fmax(m->from, T(E, 0)), m->type <= NSC_MEAS_MAX_AT ? m->trig.td : -INFINITY);
    *b = fmin(m->to, T(E, E->W->nrow - 1));
    return *a <= *b;
}

/* AVG .. MAX_AT over [a, b] */
static void statistic(const nsc_meas *m, evalctx *E, const nsc_msig *y, double a, double b,
                      nsc_meas_result *out)
{
    double iy = 0, iy2 = 0, lo = INFINITY, hi = -INFINITY, tlo = a, thi = a;
    double ya = at_time(E, y, a), yb = at_time(E, y, b);
    double tp = a, yp = ya; /* last point of the piecewise-linear path */
    lo = hi = ya;
    for (int i = 0; i < E->W->nrow; i++) {
        double t = T(E, i);
        if (t <= a) continue;
        double yy = t < b ? Y(E, y, i) : yb;
        if (t >= b) t = b;
        double h = t - tp;
        iy += 0.5 * h * (yp + yy);                    /* integral of y: trapezoid */
        iy2 += h * (yp * yp + yp * yy + yy * yy) / 3; /* integral of y^2, y linear */
        if (yy < lo) {
            lo = yy;
            tlo = t;
        }
        if (yy > hi) {
            hi = yy;
            thi = t;
        }
        tp = t;
        yp = yy;
        if (t >= b) break;
    }
    double len = b - a, v = NAN;
    switch (m->type) {
    case NSC_MEAS_AVG: v = len > 0 ? iy / len : ya; break;
    case NSC_MEAS_RMS: v = len > 0 ? sqrt(iy2 / len) : fabs(ya); break;
    case NSC_MEAS_INTEG: v = iy; break;
    case NSC_MEAS_MIN: v = lo; break;
    case NSC_MEAS_MAX: v = hi; break;
    case NSC_MEAS_PP: v = hi - lo; break;
    case NSC_MEAS_MIN_AT: v = tlo; break;
    case NSC_MEAS_MAX_AT: v = thi; break;
    default: break;
    }
    out->ok = isfinite(v);
    out->value = v;
    if (!out->ok) out->why = why("%s is not finite in [%g, %g] s", m->sig.text, a, b);
}

/* time of the instant tm within [a, b], or NAN (with *msg) */
static double instant(const nsc_mtime *tm, evalctx *E, double a, double b, char **msg)
{
    const nsc_msig *y = &tm->sig;
    long nrow = E->W->nrow;
    if (tm->has_at) {
        if (tm->at < T(E, 0) || tm->at > T(E, nrow - 1)) {
            *msg = why("AT=%g s is outside the run [%g, %g] s", tm->at, T(E, 0), T(E, nrow - 1));
            return NAN;
        }
        return tm->at;
    }
    double start = fmax(a, tm->td), v = tm->val, found = NAN;
    if (start > b) {
        *msg = why("TD=%g s is after the window end %g s", tm->td, b);
        return NAN;
    }
    double tp = start, yp = at_time(E, y, start);
    int above = yp > v, n = 0; /* a start exactly at val counts as below */
    for (long i = 0; i < nrow && tp < b; i++) {
        double ti = T(E, i);
        if (ti <= tp) continue;
        double t = ti < b ? ti : b, yy = ti < b ? Y(E, y, i) : at_time(E, y, b);
        int rise = !above && yy >= v, fall = above && yy <= v;
        if (rise || fall) {
            above = rise;
            double tc = yy != yp ? tp + (t - tp) * ((v - yp) / (yy - yp)) : tp;
            if (tm->edge == 0 || tm->edge == (rise ? 1 : -1)) {
                n++;
                if (tm->count < 0) found = tc;
                else if (n == tm->count) return tc;
            }
        }
        tp = t;
        yp = yy;
    }
    if (!isnan(found)) return found;
    const char *kind = tm->edge == 1 ? "RISE" : tm->edge == -1 ? "FALL" : "CROSS";
    if (tm->count < 0)
        *msg = why("%s never crosses %g (%s=LAST) in [%g, %g] s", tm->sig.text, v, kind, start, b);
    else
        *msg = why("%s crosses %g only %d time%s (%s=%d wanted) in [%g, %g] s", tm->sig.text, v, n,
                   n == 1 ? "" : "s", kind, tm->count, start, b);
    return NAN;
}

static nsc_status one(evalctx *E, const nsc_meas *m, nsc_meas_result *out)
{
    double a, b;
    memset(out, 0, sizeof *out);
    if (m->type == NSC_MEAS_PARAM) {
        out->value = run(&m->sig, 0, E->pv, E->mv, E->stack); /* (no TIME: nl_meas.c) */
        out->ok = isfinite(out->value);
        if (!out->ok) out->why = why("%s is not finite (or uses a failed measure)", m->sig.text);
        return NSC_OK;
    }
    if (!window(m, E, &a, &b)) {
        out->why = why("window FROM=%g TO=%g is outside the run [%g, %g] s", m->from, m->to,
                       T(E, 0), T(E, E->W->nrow - 1));
        return NSC_OK;
    }
    switch (m->type) {
    case NSC_MEAS_WHEN:
    case NSC_MEAS_FIND: {
        double t = instant(&m->trig, E, a, b, &out->why);
        if (isnan(t)) break;
        out->value = m->type == NSC_MEAS_WHEN ? t : at_time(E, &m->sig, t);
        out->ok = isfinite(out->value);
        break;
    }
    case NSC_MEAS_TRIGTARG: {
        double t0 = instant(&m->trig, E, a, b, &out->why);
        if (isnan(t0)) break;
        double t1 = instant(&m->targ, E, a, b, &out->why);
        if (isnan(t1)) break;
        out->value = t1 - t0;
        out->ok = 1;
        break;
    }
    default: statistic(m, E, &m->sig, a, b, out);
    }
    if (!out->ok && !out->why && !(out->why = why("result is not finite"))) return NSC_ENOMEM;
    return NSC_OK;
}

/* ---- periodic steady state of a window (issue 14 item 3) ---- */

/* Period of one source's waveform at late times (nsc_wave_period: PULSE PER
 * unless NP pulses end it, an undamped SIN's 1/FREQ, PWL r='s span); 0 when not
 * periodic (constant at the end: no constraint; or not periodic at all). */
static double wave_period(const nsc_wave *w)
{
    double since, p = nsc_wave_period(w, &since);
    return p > 0 ? p : 0;
}

/* 1 when e carries a source waveform of its own (V, I). */
static int has_wave(const nsc_element *e)
{
    const nsc_device *d = nsc_device_of(e->kind);
    return d && d->wave_unit;
}

/* The common period of the circuit's independent sources: the smallest
 * multiple k T (k <= 64) of the longest period T that every period divides
 * (to 1e-6); 0 when there is none or no periodic source. */
static double source_period(const nsc_circuit *c)
{
    double T = 0;
    for (int i = 0; i < c->nel; i++)
        if (has_wave(&c->el[i])) T = fmax(T, wave_period(&c->el[i].wave));
    if (!(T > 0)) return 0;
    for (int k = 1; k <= 64; k++) {
        int ok = 1;
        for (int i = 0; ok && i < c->nel; i++) {
            if (!has_wave(&c->el[i])) continue;
            double p = wave_period(&c->el[i].wave), q = p > 0 ? k * T / p : 1;
            ok = fabs(q - round(q)) <= 1e-6 * q;
        }
        if (ok) return k * T;
    }
    return 0;
}

/* A statistic over a window ending at b of a circuit with periodic sources of
 * period T (b - 2T inside the run): warn when the signal's mean over the last
 * period differs from its mean over the period before by more than 1e-3 of
 * max(peak-to-peak over the last period, |mean|): the run is still settling
 * there and the measure is a transient's, not the steady state's. */
static void steady_check(const nsc_meas *m, evalctx *E, double b, double T, nsc_report *r)
{
    const nsc_msig *y = &m->sig;
    if (!(T > 0) || b - 2 * T < nsc_wcur_row(&E->cur, 0)[0]) return;
    nsc_meas q = *m;
    nsc_meas_result r1 = { 0 }, r0 = { 0 }, pp = { 0 };
    q.type = NSC_MEAS_AVG;
    statistic(&q, E, y, b - T, b, &r1);
    statistic(&q, E, y, b - 2 * T, b - T, &r0);
    q.type = NSC_MEAS_PP;
    statistic(&q, E, y, b - T, b, &pp);
    free(r1.why);
    free(r0.why);
    free(pp.why);
    double scale = fmax(pp.value, fabs(r1.value)), d = fabs(r1.value - r0.value);
    if (!(scale > 0) || !isfinite(d) || d <= 1e-3 * scale) return;
    nsc_warn(
        r, &m->loc,
        ".meas %s: %s is not in periodic steady state at the window's end: its mean over the "
        "last period (T = %g s) changed by %.3g %% of its scale from the period before; run longer or "
        "move the window",
        m->name, m->sig.text, T, 100 * d / scale);
}

void nsc_meas_results_free(nsc_meas_result *res, int n)
{
    for (int k = 0; res && k < n; k++) free(res[k].why);
}

nsc_status nsc_meas_eval(const nsc_circuit *c, const nsc_waves *W, nsc_meas_result *res,
                         nsc_report *r)
{
    evalctx E = { c, W, { 0 }, NULL, NULL, NULL, NULL };
    int maxcode = 1;
    for (int k = 0; k < c->job.nmeas; k++) {
        memset(&res[k], 0, sizeof res[k]);
        const nsc_meas *m = &c->job.meas[k];
        const nsc_msig *sg[] = { &m->sig, &m->trig.sig, &m->targ.sig };
        for (int j = 0; j < 3; j++) { /* the stack: the deepest program's */
            int d = nsc_xdepth(sg[j]->code, sg[j]->ncode);
            maxcode = d > maxcode ? d : maxcode;
        }
    }
    if (W->nrow < 1) return nsc_err(r, NSC_EUSAGE, NULL, "no rows to measure");
    E.col = nsc_calloc((size_t)c->job.nmeas_probe + 1, sizeof(int));
    E.pv = nsc_calloc((size_t)c->job.nmeas_probe + 1, sizeof(double));
    E.stack = nsc_calloc((size_t)maxcode, sizeof(double));
    E.mv = nsc_calloc((size_t)c->job.nmeas + 1, sizeof(double));
    nsc_status s = NSC_OK;
    if (nsc_wcur_init(&E.cur, W) || !E.col || !E.pv || !E.stack || !E.mv) {
        s = nsc_oom(r);
        goto done;
    }
    for (int k = 0; k < c->job.nmeas; k++) E.mv[k] = NAN;
    for (int k = 0; k < c->job.nmeas_probe; k++)
        if ((E.col[k] = nsc_waves_col(W, c->job.meas_probe[k].name)) < 1) {
            s = nsc_err(r, NSC_EUSAGE, NULL, ".meas: no column %s in the waveform table",
                        c->job.meas_probe[k].name);
            goto done;
        }
    double T = source_period(c), a, b;
    for (int k = 0; k < c->job.nmeas; k++) {
        const nsc_meas *m = &c->job.meas[k];
        if ((s = one(&E, m, &res[k]))) {
            s = nsc_oom(r);
            goto done;
        }
        E.mv[k] = res[k].ok ? res[k].value : NAN;
        if (res[k].ok && m->type >= NSC_MEAS_AVG && m->type <= NSC_MEAS_MAX_AT
            && window(m, &E, &a, &b))
            steady_check(m, &E, b, T, r);
    }
    for (int k = 0; k < c->job.nmeas; k++) /* PARAM=: again, with every measure known (a */
        if (c->job.meas[k].type
            == NSC_MEAS_PARAM) { /* name measured twice is its last value, as ngspice) */
            free(res[k].why);
            if ((s = one(&E, &c->job.meas[k], &res[k]))) {
                s = nsc_oom(r);
                goto done;
            }
            E.mv[k] = res[k].ok ? res[k].value : NAN;
        }
    if (E.cur.err) s = nsc_waves_read_error(W, E.cur.err, r);
done:
    nsc_wcur_free(&E.cur);
    free(E.col);
    free(E.pv);
    free(E.stack);
    free(E.mv);
    return s;
}

void nsc_meas_steady_windows(nsc_circuit *c, nsc_report *r)
{
    int first = -1;
    for (int k = 0; k < c->job.nmeas; k++) {
        nsc_meas *m = &c->job.meas[k];
        if (first < 0 && (m->from > -INFINITY || m->to < INFINITY)) first = k;
        m->from = -INFINITY;
        m->to = INFINITY;
    }
    if (first >= 0)
        nsc_note(r, &c->job.meas[first].loc,
                 ".meas windows (FROM=, TO=) are replaced by the steady periods written");
}

/* The columns of the derived table: map[d] (d = 1 .. nc-1) is the column of W
 * it copies (> 0) or -(k + 1) for derived column k; the derived ones stand
 * where their .print put them (after the first pos outputs, Xyce's order),
 * then come the probes that are not outputs, then the derived columns that are
 * not outputs (pos < 0: the `let` vectors of .control outputs). names[d - 1] their names. */
static void derive_map(const nsc_circuit *c, const nsc_waves *W, int no, int *map, char **names)
{
    int d = 1;
    for (int j = 0; j <= no; j++) {
        for (int k = 0; k < c->job.nxcol; k++)
            if (c->job.xcol[k].pos >= 0
                && (c->job.xcol[k].pos < no ? c->job.xcol[k].pos : no) == j) {
                names[d - 1] = c->job.xcol[k].name;
                map[d++] = -(k + 1);
            }
        if (j < no) {
            names[d - 1] = W->name[j + 1];
            map[d++] = j + 1;
        }
    }
    for (int k = no + 1; k < W->ncol; k++) {
        names[d - 1] = W->name[k];
        map[d++] = k;
    }
    for (int k = 0; k < c->job.nxcol; k++) /* pos < 0: a .control let, not an output */
        if (c->job.xcol[k].pos < 0) {
            names[d - 1] = c->job.xcol[k].name;
            map[d++] = -(k + 1);
        }
}

/* the rows of a derived column that are not finite: how many, the first's time */
typedef struct nonfinite {
    long n;
    double t;
} nonfinite;

nsc_status nsc_meas_derive(const nsc_circuit *c, nsc_waves **Wp, int *nout, nsc_report *r)
{
    const nsc_waves *W = *Wp;
    int nx = c->job.nxcol, no = *nout, nc = W->ncol + nx, maxc = 1;
    for (int k = 0; k < nx; k++) {
        int d = nsc_xdepth(c->job.xcol[k].sig.code, c->job.xcol[k].sig.ncode);
        maxc = d > maxc ? d : maxc;
    }
    char **names = nsc_calloc((size_t)nc, sizeof *names);
    int *col = nsc_calloc((size_t)c->job.nmeas_probe + 1, sizeof *col),
        *map = nsc_calloc((size_t)nc, sizeof *map);
    double *pv = nsc_calloc((size_t)c->job.nmeas_probe + 1, sizeof *pv),
           *stack = nsc_calloc((size_t)maxc + 1, sizeof *stack);
    double *row = nsc_calloc((size_t)nc, sizeof *row);
    nonfinite *bad = nsc_calloc((size_t)nx + 1, sizeof *bad);
    nsc_status st = names && col && map && pv && stack && row && bad ? NSC_OK : nsc_oom(r);
    for (int k = 0; !st && k < c->job.nmeas_probe; k++)
        if ((col[k] = nsc_waves_col(W, c->job.meas_probe[k].name)) < 0)
            st = nsc_err(r, NSC_EUSAGE, NULL, "derived column: %s is not recorded",
                         c->job.meas_probe[k].name);
    nsc_waves *D = NULL;
    if (!st) {
        derive_map(c, W, no, map, names);
        if (!(D = nsc_waves_new(names, nc - 1, W->title)) || nsc_waves_spill_like(D, W))
            st = nsc_oom(r);
    }
    nsc_wcur cur;
    if (nsc_wcur_init(&cur, W) && !st) st = nsc_oom(r);
    for (int i = 0; !st && i < W->nrow; i++) {
        const double *src = nsc_wcur_row(&cur, i);
        for (int k = 0; k < c->job.nmeas_probe; k++) pv[k] = src[col[k]];
        row[0] = src[0];
        for (int d = 1; d < nc; d++) {
            if (map[d] > 0) {
                row[d] = src[map[d]];
                continue;
            }
            nonfinite *b = &bad[-map[d] - 1];
            row[d] = run(&c->job.xcol[-map[d] - 1].sig, src[0], pv, NULL, stack);
            if (!isfinite(row[d]) && b->n++ == 0) b->t = row[0];
        }
        if (nsc_waves_add(D, row)) st = nsc_waves_add_error(D, r);
    }
    if (!st && cur.err) st = nsc_waves_read_error(W, cur.err, r);
    nsc_wcur_free(&cur);
    if (!st) {
        D->end = W->end;
        D->t_end = W->t_end;
        D->end_msg = W->end_msg ? nsc_strdup(W->end_msg) : NULL;
        D->ev = (*Wp)->ev; /* the events move over */
        D->nev = (*Wp)->nev;
        D->capev = (*Wp)->capev;
        (*Wp)->ev = NULL;
        (*Wp)->nev = (*Wp)->capev = 0;
        nsc_waves_free(*Wp);
        *Wp = D;
        for (int k = 0; k < nx; k++) no += c->job.xcol[k].pos >= 0;
        *nout = no;
        for (int k = 0; k < nx; k++)
            if (bad[k].n)
                nsc_warn(
                    r, NULL,
                    "column %s is not finite (NaN or infinite) in %ld of %d rows, the first at t=%.9g s",
                    c->job.xcol[k].name, bad[k].n, D->nrow, bad[k].t); /* (W is freed: D's rows) */
    } else nsc_waves_free(D);
    free(names);
    free(col);
    free(map);
    free(pv);
    free(stack);
    free(row);
    free(bad);
    return st;
}
