/* four.c -- .four (issue 29 item 6): the Fourier coefficients of a recorded
 * waveform over its last period, exact for the piecewise-linear interpolant of
 * the rows (the waveform the table holds between them). With tau = t - a over
 * the window [a, a + T], T = 1/f:
 *     c_0 = (1/T) int x dt,   c_k = (2/T) int x e^{-j k w tau} dt   (k >= 1),
 * and x = c_0 + sum M_k sin(k w tau + phi_k): M_k = |c_k|, phi_k = arg c_k + 90
 * degrees (ngspice's convention: a sine that starts the window has phase 0). On
 * a row segment x = x0 + s u, u in [0, h], with y = k w h:
 *     int = e^{-j k w tau0} (x0 h E1(y) + s h^2 E2(y)),
 *     E1(y) = int_0^1 e^{-j y v} dv = e^{-j y/2} sin(y/2) / (y/2),
 *     E2(y) = int_0^1 v e^{-j y v} dv = (e^{-j y} (1 + j y) - 1) / y^2
 * (its series sum (-j y)^n / (n! (n + 2)) for |y| < 0.1). */
#include "smallsig.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static double complex e1(double y)
{
    double z = y / 2;
    return cexp(-I * z) * (z == 0 ? 1 : sin(z) / z);
}

static double complex e2(double y)
{
    if (fabs(y) >= 0.1) return (cexp(-I * y) * (1 + I * y) - 1) / (y * y);
    double complex term = 1, sum = 0.5; /* n = 0: 1 / 2 */
    for (int n = 1; n < 12; n++) {
        term *= -I * y / n; /* (-j y)^n / n! */
        sum += term / (n + 2);
    }
    return sum;
}

/* Add segment [t0, t1] (values x0, x1) of the window starting at a into c[0..nh). */
static void segment(double a, double w, double t0, double t1, double x0, double x1, int nh,
                    double complex *c)
{
    double h = t1 - t0;
    if (!(h > 0)) return;
    double s = (x1 - x0) / h;
    c[0] += x0 * h + s * h * h / 2;
    for (int k = 1; k < nh; k++) {
        double y = k * w * h;
        c[k] += cexp(-I * k * w * (t0 - a)) * (x0 * h * e1(y) + s * h * h * e2(y));
    }
}

nsc_status nsc_four_eval(const nsc_waves *W, int col, double f, int nh, double *mag, double *phase,
                         double *thd, nsc_report *r)
{
    nsc_wcur cur;
    if (nsc_wcur_init(&cur, W)) return nsc_oom(r);
    double T = 1 / f, w = 2 * M_PI * f;
    double b = W->nrow > 0 ? nsc_wcur_row(&cur, W->nrow - 1)[0] : 0, a = b - T;
    double complex *c = nsc_calloc((size_t)nh + 1, sizeof *c);
    if (!c) {
        nsc_wcur_free(&cur);
        return nsc_oom(r);
    }
    int first = W->nrow > 0 && nsc_wcur_row(&cur, 0)[0] <= a * (1 + 1e-12) + 1e-300;
    for (long i = 0; first && i + 1 < W->nrow; i++) {
        const double *p = nsc_wcur_row(&cur, i);
        double t0 = p[0], x0 = p[col];
        const double *q = nsc_wcur_row(&cur, i + 1);
        double t1 = q[0], x1 = q[col];
        if (t1 <= a) continue;
        if (t0 < a) { /* the window starts inside the segment */
            x0 += (x1 - x0) * (a - t0) / (t1 - t0);
            t0 = a;
        }
        segment(a, w, t0, t1, x0, x1, nh, c);
    }
    int err = cur.err;
    nsc_wcur_free(&cur);
    if (err) {
        free(c);
        return nsc_waves_read_error(W, err, r);
    }
    if (!first) {
        free(c);
        return nsc_err(r, NSC_ESIM, NULL, ".four: the run is shorter than one period 1/f = %g s",
                       T);
    }
    double sum2 = 0;
    for (int k = 0; k < nh; k++) {
        double complex ck = c[k] * (k ? 2 / T : 1 / T);
        mag[k] = cabs(ck);
        phase[k] = k ? remainder(carg(ck) * 180 / M_PI + 90, 360) : 0;
        if (k >= 2) sum2 += mag[k] * mag[k];
    }
    *thd = nh > 1 && mag[1] > 0 ? 100 * sqrt(sum2) / mag[1] : NAN;
    free(c);
    return NSC_OK;
}
