/* source_wave.c -- independent-source waveforms: value at t and corner times
 * (see nsc_wave in circuit.h). Conventions: the waveform is right-continuous
 * (at a corner it already has the value of the next piece); a zero rise, fall
 * or time constant is an ideal step; PULSE per <= 0 does not repeat. */
#include "circuit.h"

#include <math.h>
#include <string.h>

#define NSC_PI 3.14159265358979323846

/* n > 0: ngspice's NP, only n pulses (then v1); 0: unlimited */
static double pulse(const double *p, double n, double t)
{
    double v1 = p[0], v2 = p[1], td = p[2], tr = p[3], tf = p[4], pw = p[5], per = p[6];
    if (t < td) return v1;
    double x = t - td;
    if (n > 0 && per > 0 && x >= n * per) return v1;
    if (per > 0 && x >= per) x = fmod(x, per);  /* x = time within the period */
    if (x < tr) return v1 + (v2 - v1) * x / tr; /* rising edge */
    x -= tr;
    if (x < pw) return v2;
    x -= pw;
    if (x < tf) return v2 + (v1 - v2) * x / tf; /* falling edge */
    return v1;
}

static double sine(const double *p, double t)
{
    double vo = p[0], va = p[1], f = p[2], td = p[3], th = p[4], ph = p[5] * NSC_PI / 180;
    if (t <= td) return vo + va * sin(ph);
    double x = t - td;
    return vo
           + va * exp(-x * th) * sin(2 * NSC_PI * f * x + ph); /* vo + va e^{-θx} sin(2πfx + φ) */
}

/* 1 - e^{-x/tau}, tau <= 0 an ideal step */
static double rise(double x, double tau)
{
    return tau > 0 ? -expm1(-x / tau) : 1.0;
}

static double expo(const double *p, double t)
{
    double v1 = p[0], v2 = p[1], td1 = p[2], tau1 = p[3], td2 = p[4], tau2 = p[5];
    if (t < td1) return v1;
    double v = v1 + (v2 - v1) * rise(t - td1, tau1);
    if (t >= td2) v += (v1 - v2) * rise(t - td2, tau2);
    return v;
}

static double pwl(const nsc_wave *w, double t)
{
    const double *p = w->p;
    int n = w->np / 2;
    if (n == 0) return w->dc;
    double t0 = p[0], tn = p[2 * (n - 1)];
    if (w->repeat >= 0 && t > tn && tn > w->repeat) /* t = repeat + ((t - tn) mod (tn - repeat)) */
        t = w->repeat + fmod(t - tn, tn - w->repeat);
    if (t < t0) return p[1];
    if (t >= tn) return p[2 * n - 1];
    int lo = 0, hi = n - 1; /* p[2lo] <= t < p[2hi] */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (p[2 * mid] <= t) lo = mid;
        else hi = mid;
    }
    double ta = p[2 * lo], va = p[2 * lo + 1], tb = p[2 * hi], vb = p[2 * hi + 1];
    return tb > ta ? va + (vb - va) * (t - ta) / (tb - ta) : vb;
}

/* ---- EXPR: smooth functions of time ---- */

#define NSC_WSTACK 64 /* the compiler (nl_pwl.c) refuses deeper code */

static double expr_eval(const nsc_wave *w, double t)
{
    double st[NSC_WSTACK];
    nsc_xload ld = { t, NULL, NULL };
    return nsc_xrun(w->code, w->ncode, &ld, st);
}

void nsc_wave_defaults(nsc_wave *w, double tstep, double tstop, int has_tran)
{
    double ts = has_tran ? tstep : 0, te = has_tran ? tstop : 1e30, *p = w->p;
    int g = w->ngiven;
    switch (w->kind) {
    case NSC_WAVE_PULSE: {
        const double d[7] = { 0, 0, 0, ts, ts, te, 0 };
        for (int i = g; i < 7; i++) p[i] = d[i];
        if (w->pw_tstop) p[5] = te;         /* ngspice: PW = 0 is TSTOP */
        w->np = g >= 8 && p[7] > 0 ? 8 : 7; /* NP pulses, then V1 */
        break;
    }
    case NSC_WAVE_SIN: {
        const double d[6] = { 0, 0, has_tran ? 1 / te : 0, 0, 0, 0 };
        for (int i = g; i < 6; i++) p[i] = d[i];
        w->np = 6;
        break;
    }
    case NSC_WAVE_EXP:
        if (g < 3) p[2] = 0;
        if (g < 4) p[3] = ts;
        if (g < 5) p[4] = p[2] + ts;
        if (g < 6) p[5] = ts;
        w->np = 6;
        break;
    default: break;
    }
    if (w->dc_from_wave) w->dc = nsc_wave_eval(w, 0);
}

double nsc_wave_eval(const nsc_wave *w, double t)
{
    switch (w->kind) {
    case NSC_WAVE_PULSE: return pulse(w->p, w->np > 7 ? w->p[7] : 0, t);
    case NSC_WAVE_SIN: return sine(w->p, t);
    case NSC_WAVE_EXP: return expo(w->p, t);
    case NSC_WAVE_PWL: return pwl(w, t);
    case NSC_WAVE_EXPR: return expr_eval(w, t);
    default: return w->dc;
    }
}

/* ---- the next corner after t, generated on demand ---- */

/* the smallest of the corners c[0..n) that is > t, else INFINITY */
static double first_after(const double *c, int n, double t)
{
    double best = INFINITY;
    for (int i = 0; i < n; i++)
        if (c[i] > t && c[i] < best) best = c[i];
    return best;
}

/* PULSE: the corners of period k are b, b + tr, b + tr + pw, b + tr + pw + tf with
 * b = td + k per, each sum in that order; periods k - 1 .. k + 1 around t cover corners that
 * overlap the next period. */
static double pulse_next(const double *p, double n, double t)
{
    double td = p[2], tr = p[3], tf = p[4], pw = p[5], per = p[6];
    if (n > 0 && per > 0 && t >= td + n * per) return INFINITY; /* after the NP pulses */
    long k0 = 0;
    if (per > 0 && t > td) {
        double q = floor((t - td) / per);
        if (q > 9e15) return INFINITY; /* beyond what a double counts */
        k0 = (long)q;
    }
    double best = INFINITY;
    for (long k = k0 > 0 ? k0 - 1 : 0; k <= k0 + 1; k++) {
        if (n > 0 && (double)k >= n) break;
        double b = td + (double)k * per;
        double c[4] = { b, b + tr, b + tr + pw, b + tr + pw + tf };
        double x = first_after(c, 4, t);
        if (x < best) best = x;
        if (!(per > 0)) break;
    }
    return best;
}

/* PWL: the times p[2i], then in repetition k >= 1 those after r shifted by k (tn - r) */
static double pwl_next(const nsc_wave *w, double t)
{
    const double *p = w->p;
    int n = w->np / 2;
    if (n == 0) return INFINITY;
    int lo = 0, hi = n; /* first time > t: binary search */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (p[2 * mid] > t) hi = mid;
        else lo = mid + 1;
    }
    if (lo < n) return p[2 * lo];
    double tn = p[2 * (n - 1)], r = w->repeat, per = tn - r;
    if (!(r >= 0 && per > 0)) return INFINITY;
    double q = floor((t - r) / per);
    if (q > 9e15) return INFINITY;
    long k0 = q < 1 ? 1 : (long)q;
    for (long k = k0 - (k0 > 1); k <= k0 + 1; k++) { /* the first corner of repetition k > t */
        double shift = (double)k * per, best = INFINITY;
        for (int i = 0; i < n; i++)
            if (p[2 * i] > r && p[2 * i] + shift > t) {
                best = p[2 * i] + shift;
                break;
            }
        if (best < INFINITY) return best;
    }
    return INFINITY;
}

double nsc_wave_next_corner(const nsc_wave *w, double t)
{
    const double *p = w->p;
    switch (w->kind) {
    case NSC_WAVE_PULSE: return pulse_next(p, w->np > 7 ? p[7] : 0, t);
    case NSC_WAVE_SIN: return p[3] > t ? p[3] : INFINITY;
    case NSC_WAVE_EXP: {
        double c[2] = { p[2], p[4] };
        return first_after(c, 2, t);
    }
    case NSC_WAVE_PWL: return pwl_next(w, t);
    default: return INFINITY;
    }
}

/* ---- periodicity (the periodic steady state) ---- */

double nsc_wave_period(const nsc_wave *w, double *since)
{
    const double *p = w->p;
    *since = 0;
    switch (w->kind) {
    case NSC_WAVE_PULSE: /* repeats from TD; once: constant after it */
        *since = p[2];
        if (p[6] > 0 && w->np > 7 && p[7] > 0) { /* NP pulses: constant after them */
            *since = p[2] + p[7] * p[6];
            return 0;
        }
        if (p[6] > 0) return p[6];
        *since = p[2] + p[3] + p[5] + p[4];
        return 0;
    case NSC_WAVE_SIN: /* undamped: 1/FREQ from TD */
        *since = p[3];
        if (p[1] == 0 || p[2] == 0) return 0;
        return p[4] == 0 && p[2] > 0 ? 1 / p[2] : -1;
    case NSC_WAVE_EXP: return p[0] == p[1] ? 0 : -1;
    case NSC_WAVE_EXPR: return -1; /* a function of time: not known periodic */
    case NSC_WAVE_PWL: {           /* r=: tn - r from r; else constant after tn */
        int n = w->np / 2;
        if (n == 0) return 0;
        double tn = p[2 * (n - 1)];
        if (w->repeat >= 0 && tn > w->repeat) {
            *since = w->repeat;
            return tn - w->repeat;
        }
        *since = tn;
        return 0;
    }
    default: return 0;
    }
}

#define NSC_WAVE_NSAMPLE 64

int nsc_wave_repeats(const nsc_wave *w, double T, double t0)
{
    double a[NSC_WAVE_NSAMPLE], b[NSC_WAVE_NSAMPLE], lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < NSC_WAVE_NSAMPLE; k++) {
        double t = t0 + T * (k + 0.381966) / NSC_WAVE_NSAMPLE; /* off any simple fraction of T */
        a[k] = nsc_wave_eval(w, t);
        b[k] = nsc_wave_eval(w, t + T);
        lo = fmin(lo, fmin(a[k], b[k]));
        hi = fmax(hi, fmax(a[k], b[k]));
    }
    double tol = 1e-9 * (hi - lo) + 1e-12 * fmax(fabs(hi), fabs(lo));
    for (int k = 0; k < NSC_WAVE_NSAMPLE; k++)
        if (!(fabs(a[k] - b[k]) <= tol)) return 0;
    return 1;
}
