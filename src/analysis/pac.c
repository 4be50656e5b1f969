/* pac.c -- the periodic small-signal AC's accumulator (pac.h: the math). */
#include "pac.h"
#include "solve/la_dense.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#define PAC_BATCH 32      /* frequencies per period run: 2 columns each beside the nd of Phi */
#define PAC_JUMP_H 1e-3   /* an event step shorter than this fraction of the period ... */
#define PAC_JUMP_REL 1e-3 /* ... across which a probe moves by more than this of its range ... */
#define PAC_JUMP_ABS \
    1e-9 /* ... plus this: the probe jumps at the event (nsc_pac_step, pac_jumps) */

struct nsc_pac {
    const nsc_circuit *c;
    const nsc_probe *p;
    int np;
    nsc_ac_result *R;
    const nsc_lcs *L;
    int n, nd, nsrc;
    const int *di;
    double T, ts;
    nsc_lin *f; /* [np] the probes' functionals (nlin built) */
    int nlin;
    char *onl;  /* [np] 1: the probe reads a pair's multiplier (no sensitivity here) */
    char *jump; /* [np] 1: the probe jumps at an event (its impulse is not computed) */
    double *ylo, *yhi,
        *dyev;  /* [np] the probe's range over the batch's steps, its largest move across
                                 an event's step (mark_jumps); jump decided at the batch's end */
    double *wz; /* [nsrc] zeros (the jump test leaves the sources out: they jump at breakpoints) */
    double *W;  /* [2 nsrc] the sources' phasors (re, im) */
    int k0, nb, ns;       /* the batch: frequencies k0 .. k0+nb-1, ns columns */
    int first;            /* 1 until the batch's first step */
    double *S, *Sprev;    /* [n ns] the columns now, at the previous point */
    double *DW[2];        /* [nsrc ns] the sources' perturbation at a step's start, end */
    double *lz;           /* [m] zeros: no multiplier sensitivity */
    double *Yprev, *Ycur; /* [np ns] the probes of each column at the previous point, now */
    double complex *Ist;  /* [nb np nd] int_0^T y_i(tau) e^{-j omega tau} of state column i */
    double complex *Iin;  /* [nb np] the same of the input's columns (re + j im) */
    double complex
        *w0f; /* [nb] the weight of tau = 0 (first step), applied to e^{-j omega T} y(T) */
};

void nsc_pac_free(nsc_pac *A)
{
    if (!A) return;
    for (int k = 0; k < A->nlin; k++) nsc_lin_free(&A->f[k]);
    free(A->f);
    free(A->onl);
    free(A->jump);
    free(A->wz);
    free(A->ylo);
    free(A->yhi);
    free(A->dyev);
    free(A->W);
    free(A->S);
    free(A->Sprev);
    free(A->DW[0]);
    free(A->DW[1]);
    free(A->lz);
    free(A->Yprev);
    free(A->Ycur);
    free(A->Ist);
    free(A->Iin);
    free(A->w0f);
    free(A);
}

nsc_pac *nsc_pac_new(const nsc_circuit *c, const nsc_probe *p, int np, nsc_ac_result *R)
{
    nsc_pac *A = nsc_calloc(1, sizeof *A);
    if (!A) return NULL;
    A->c = c;
    A->p = p;
    A->np = np;
    A->R = R;
    return A;
}

nsc_status nsc_pac_setup(nsc_pac *A, const nsc_lcs *L, int nd, const int *di, double T,
                         nsc_report *r)
{
    A->L = L;
    A->n = L->n;
    A->nd = nd;
    A->di = di;
    A->T = T;
    A->nsrc = L->nsrc;
    size_t ns = (size_t)nd + 2 * PAC_BATCH, n = (size_t)L->n, np = (size_t)A->np;
    A->f = nsc_calloc(np + 1, sizeof *A->f);
    A->onl = nsc_calloc(np + 1, 1);
    A->jump = nsc_calloc(np + 1, 1);
    A->ylo = nsc_calloc(np + 1, sizeof(double));
    A->yhi = nsc_calloc(np + 1, sizeof(double));
    A->dyev = nsc_calloc(np + 1, sizeof(double));
    A->wz = nsc_calloc((size_t)L->nsrc + 1, sizeof(double));
    A->W = nsc_calloc(2 * (size_t)L->nsrc + 1, sizeof(double));
    A->S = nsc_calloc(n * ns + 1, sizeof(double));
    A->Sprev = nsc_calloc(n * ns + 1, sizeof(double));
    A->DW[0] = nsc_calloc((size_t)L->nsrc * ns + 1, sizeof(double));
    A->DW[1] = nsc_calloc((size_t)L->nsrc * ns + 1, sizeof(double));
    A->lz = nsc_calloc((size_t)L->m + 1, sizeof(double));
    A->Yprev = nsc_calloc(np * ns + 1, sizeof(double));
    A->Ycur = nsc_calloc(np * ns + 1, sizeof(double));
    A->Ist = nsc_calloc(PAC_BATCH * np * (size_t)nd + 1, sizeof(double complex));
    A->Iin = nsc_calloc(PAC_BATCH * np + 1, sizeof(double complex));
    A->w0f = nsc_calloc(PAC_BATCH, sizeof(double complex));
    if (!A->f || !A->onl || !A->jump || !A->wz || !A->ylo || !A->yhi || !A->dyev || !A->W || !A->S
        || !A->Sprev || !A->DW[0] || !A->DW[1] || !A->lz || !A->Yprev || !A->Ycur || !A->Ist
        || !A->Iin || !A->w0f)
        return nsc_oom(r);
    for (int j = 0; j < L->nsrc; j++) { /* W_j = mag e^{j phase} (V and I sources) */
        const nsc_element *e = &A->c->el[L->src[j].el];
        if (e->kind != NSC_EL_V && e->kind != NSC_EL_I) continue;
        A->W[2 * j] = e->ac_mag * cos(e->ac_phase * M_PI / 180);
        A->W[2 * j + 1] = e->ac_mag * sin(e->ac_phase * M_PI / 180);
    }
    for (; A->nlin < A->np; A->nlin++) {
        nsc_status s = nsc_lcs_probe(L, A->c, &A->p[A->nlin], &A->f[A->nlin], r);
        if (s) return s;
        for (int k = 0; k < A->f[A->nlin].nterm; k++)
            A->onl[A->nlin] |= A->f[A->nlin].t[k].kind == NSC_T_L;
    }
    return NSC_OK;
}

int nsc_pac_batch(nsc_pac *A, int b, double ts, double **S)
{
    A->k0 = b * PAC_BATCH;
    A->nb = A->R->nf - A->k0 < PAC_BATCH ? A->R->nf - A->k0 : PAC_BATCH;
    if (A->nb <= 0) return 0;
    A->ns = A->nd + 2 * A->nb;
    A->ts = ts;
    A->first = 1;
    size_t n = (size_t)A->n;
    memset(A->S, 0, n * (size_t)A->ns * sizeof(double));
    for (int k = 0; k < A->nd; k++)
        A->S[(size_t)k * n + (size_t)A->di[k]] = 1; /* d x(0) / d x(0) = I */
    memcpy(A->Sprev, A->S, n * (size_t)A->ns * sizeof(double));
    memset(A->Ist, 0, (size_t)A->nb * (size_t)A->np * (size_t)A->nd * sizeof(double complex));
    memset(A->Iin, 0, (size_t)A->nb * (size_t)A->np * sizeof(double complex));
    *S = A->S;
    return A->ns;
}

const double *nsc_pac_dw(nsc_pac *A, double t, int end)
{
    double *D = A->DW[end], tau = t - A->ts;
    for (int f = 0; f < A->nb; f++) {
        double om = 2 * M_PI * A->R->f[A->k0 + f], cs = cos(om * tau), sn = sin(om * tau);
        double *re = D + (size_t)(A->nd + 2 * f) * (size_t)A->nsrc, *im = re + A->nsrc;
        for (int j = 0; j < A->nsrc; j++) { /* W e^{j omega tau}: real, imaginary part */
            re[j] = A->W[2 * j] * cs - A->W[2 * j + 1] * sn;
            im[j] = A->W[2 * j] * sn + A->W[2 * j + 1] * cs;
        }
    }
    return D;
}

/* phi0(x) = (e^x - 1)/x, phi1(x) = (x e^x - e^x + 1)/x^2 (series near 0, where
 * the closed forms cancel): int_0^h (y0 + (y1 - y0) s/h) e^{a s} ds =
 * h [y0 phi0(a h) + (y1 - y0) phi1(a h)]. */
static void phis(double complex x, double complex *p0, double complex *p1)
{
    if (cabs(x) > 0.5) {
        double complex ex = cexp(x);
        *p0 = (ex - 1) / x;
        *p1 = (x * ex - ex + 1) / (x * x);
        return;
    }
    double complex s0 = 0, s1 = 0, xk = 1; /* xk = x^(m-1) */
    double fact = 1;                       /* m! */
    for (int m = 1; m <= 24; m++) {
        fact *= m;
        s0 += xk / fact;                 /* phi0 = sum_{m>=1} x^{m-1} / m! */
        s1 += xk * m / (fact * (m + 1)); /* phi1 = sum_{m>=1} x^{m-1} m / (m+1)! */
        xk *= x;
    }
    *p0 = s0;
    *p1 = s1;
}

/* The probes of the columns at S (previous point Sprev, step h, sources DW1) into Y [np ns]. */
static void probe_cols(nsc_pac *A, const double *S, const char *sw, double h, double *Y)
{
    size_t n = (size_t)A->n;
    for (int q = 0; q < A->ns; q++) {
        const double *z = S + (size_t)q * n, *zp = A->Sprev + (size_t)q * n;
        const double *w = A->DW[1] + (size_t)q * (size_t)A->nsrc;
        for (int k = 0; k < A->np; k++)
            Y[(size_t)q * (size_t)A->np + (size_t)k] = nsc_lin_eval_sw(&A->f[k], A->L, sw, z, A->lz,
                                                                       zp, h, w);
    }
}

/* The probes' range over the steps (their values at z1, sources left out: they
 * jump at breakpoints, not at events), and their largest move across an event
 * step z0 -> z1 of size h, far shorter than the period (a located event's): a
 * continuous probe barely moves across it; pac_jumps decides against the range
 * (a state near 0 at the event, a DCM inductor current, is no jump). */
static void mark_jumps(nsc_pac *A, const double *z0, const double *z1, double h, const char *sw,
                       int event)
{
    for (int k = 0; k < A->np; k++) {
        if (A->onl[k]) continue;
        double y1 = nsc_lin_eval_sw(&A->f[k], A->L, sw, z1, A->lz, NULL, 0, A->wz);
        if (A->first) A->ylo[k] = A->yhi[k] = y1;
        A->ylo[k] = fmin(A->ylo[k], y1);
        A->yhi[k] = fmax(A->yhi[k], y1);
        if (!event || !(h < PAC_JUMP_H * A->T)) continue;
        double y0 = nsc_lin_eval_sw(&A->f[k], A->L, sw, z0, A->lz, NULL, 0, A->wz);
        A->dyev[k] = fmax(A->dyev[k], fabs(y1 - y0));
    }
}

/* The probes that jumped at an event of the batch's period (mark_jumps). */
static void pac_jumps(nsc_pac *A)
{
    for (int k = 0; k < A->np; k++)
        A->jump[k] |= A->dyev[k] > PAC_JUMP_REL * (A->yhi[k] - A->ylo[k]) + PAC_JUMP_ABS;
}

void nsc_pac_step(nsc_pac *A, double t0, double t1, const double *S, const char *sw,
                  const double *z0, const double *z1, int event)
{
    double h = t1 - t0, tau0 = t0 - A->ts;
    mark_jumps(A, z0, z1, h, sw, event);
    size_t np = (size_t)A->np, nd = (size_t)A->nd;
    if (A->first) { /* the columns at tau = 0 (DZ of the first step) */
        nsc_pac_dw(A, t1, 1);
        probe_cols(A, A->Sprev, sw, 0, A->Yprev);
    }
    probe_cols(A, S, sw, h, A->Ycur);
    for (int f = 0; f < A->nb; f++) {
        double om = 2 * M_PI * A->R->f[A->k0 + f];
        double complex p0, p1;
        phis(-I * om * h, &p0, &p1);
        double complex e0 = h * cexp(-I * om * tau0), w1 = e0 * p1, w0 = e0 * (p0 - p1);
        if (A->first) A->w0f[f] = w0; /* y(0) = e^{-j omega T} y(T), at the close */
        double complex w0u = A->first ? 0 : w0;
        for (size_t k = 0; k < np; k++) {
            double complex *Is = A->Ist + ((size_t)f * np + k) * nd;
            for (size_t i = 0; i < nd; i++)
                Is[i] += w0u * A->Yprev[i * np + k] + w1 * A->Ycur[i * np + k];
            size_t cr = (nd + 2 * (size_t)f) * np + k, ci = cr + np;
            A->Iin[(size_t)f * np + k] += w0u * (A->Yprev[cr] + I * A->Yprev[ci])
                                          + w1 * (A->Ycur[cr] + I * A->Ycur[ci]);
        }
    }
    A->first = 0;
    memcpy(A->Yprev, A->Ycur, np * (size_t)A->ns * sizeof(double));
    memcpy(A->Sprev, S, (size_t)A->n * (size_t)A->ns * sizeof(double));
}

/* (e^{j omega T} I - Phi) p = g for frequency f of the batch, as the real
 * system [cI - Phi, -sI; sI, cI - Phi] [pr; pi] = [gr; gi]. 0, or -1 singular. */
static int periodic(const nsc_pac *A, int f, double *M, int *ipiv, double *b)
{
    int nd = A->nd, N = 2 * nd;
    size_t n = (size_t)A->n;
    double om = 2 * M_PI * A->R->f[A->k0 + f], c = cos(om * A->T), s = sin(om * A->T);
    memset(M, 0, (size_t)N * (size_t)N * sizeof(double));
    for (int j = 0; j < nd; j++) {
        for (int i = 0; i < nd; i++) {
            double phi = A->S[(size_t)j * n + (size_t)A->di[i]];
            M[(size_t)j * N + i] = -phi; /* column j, row i */
            M[(size_t)(j + nd) * N + i + nd] = -phi;
        }
        M[(size_t)j * N + j] += c;
        M[(size_t)(j + nd) * N + j + nd] += c;
        M[(size_t)(j + nd) * N + j] = -s;
        M[(size_t)j * N + j + nd] = s;
        b[j] = A->S[(size_t)(nd + 2 * f) * n + (size_t)A->di[j]];
        b[j + nd] = A->S[(size_t)(nd + 2 * f + 1) * n + (size_t)A->di[j]];
    }
    return N > 0 && nsc_dense_solve(N, M, N, ipiv, b) ? -1 : 0;
}

nsc_status nsc_pac_close(nsc_pac *A, int failed, nsc_report *r)
{
    if (failed)
        return nsc_err(r, NSC_ESIM, NULL,
                       "periodic AC: a step's sensitivity could not be computed");
    pac_jumps(A);
    int nd = A->nd;
    size_t np = (size_t)A->np;
    double *M = nsc_calloc(4 * (size_t)nd * (size_t)nd + 1, sizeof(double)),
           *b = nsc_calloc(2 * (size_t)nd + 1, sizeof(double));
    int *ipiv = nsc_calloc(2 * (size_t)nd + 1, sizeof(int));
    nsc_status s = !M || !b || !ipiv ? nsc_oom(r) : NSC_OK;
    for (int f = 0; !s && f < A->nb; f++) {
        int k = A->k0 + f;
        double om = 2 * M_PI * A->R->f[k];
        if (periodic(A, f, M, ipiv, b)) {
            s = nsc_err(r, NSC_ESIM, NULL,
                        "periodic AC at %g Hz: e^{j omega T} is a Floquet multiplier "
                        "(the orbit is not asymptotically stable there)",
                        A->R->f[k]);
            break;
        }
        for (size_t q = 0; q < np; q++) {
            double complex yT = A->Ycur[(size_t)(nd + 2 * f) * np + q]
                                + I * A->Ycur[(size_t)(nd + 2 * f + 1) * np + q];
            double complex acc = A->Iin[(size_t)f * np + q];
            const double complex *Is = A->Ist + ((size_t)f * np + q) * (size_t)nd;
            for (int i = 0; i < nd; i++) {
                double complex p = b[i] + I * b[i + nd];
                yT += A->Ycur[(size_t)i * np + q] * p; /* y(T) = Y(T) dx(0) + y_in(T) */
                acc += Is[i] * p;
            }
            double complex Y = (acc + A->w0f[f] * cexp(-I * om * A->T) * yT) / A->T;
            size_t o = (size_t)k * np + q;
            A->R->re[o] = A->onl[q] || A->jump[q] ? NAN : creal(Y);
            A->R->im[o] = A->onl[q] || A->jump[q] ? NAN : cimag(Y);
        }
    }
    free(M);
    free(b);
    free(ipiv);
    return s;
}

nsc_status nsc_run_pac(const nsc_circuit *c, const nsc_tran_opts *o, const nsc_pss_opts *po,
                       const nsc_probe *p, int np, nsc_ac_result **out, nsc_pss_info *info,
                       nsc_report *r)
{
    *out = NULL;
    nsc_ac_result *R = NULL;
    nsc_status s = nsc_ac_result_new(c, p, np, &R, r);
    nsc_pac *A = s ? NULL : nsc_pac_new(c, p, np, R);
    if (!s && !A) s = nsc_oom(r);
    nsc_pss_opts q = *po;
    q.pac = A;
    q.end = NULL;
    nsc_waves *W = NULL;
    nsc_sim_stats st;
    if (!s) s = nsc_run_pss(c, o, &q, NULL, 0, &W, &st, info, r);
    nsc_waves_free(W);
    double fh = s ? 0 : 0.5 / info->period; /* fs / 2 */
    int above = 0, onl = 0, nj = 0, j1 = -1;
    for (int k = 0; !s && k < R->nf; k++) above += R->f[k] > fh * (1 + 1e-12);
    for (int k = 0; !s && k < np; k++) onl += A->onl[k];
    for (int k = 0; !s && k < np; k++)
        if (A->jump[k] && !A->onl[k] && nj++ == 0) j1 = k;
    if (!s && above)
        nsc_warn(
            r, &c->job.ac.loc,
            "periodic AC: %d frequenc%s above fs/2 = %g Hz: there the response at f is computed, "
            "but the switching's sideband at fs - f lies below it and a measurement mixes them (valid up to fs/2)",
            above, above > 1 ? "ies" : "y", fh);
    if (!s && onl)
        nsc_warn(r, &c->job.ac.loc,
                 "periodic AC: %d output%s read%s a device's complementarity multiplier (a diode's "
                 "current), which has no small-signal sensitivity here: NaN",
                 onl, onl > 1 ? "s" : "", onl > 1 ? "" : "s");
    if (!s && nj)
        nsc_warn(
            r, &c->job.ac.loc,
            "periodic AC: %d output%s jump%s at the switching events (%s%s): the AC of such an "
            "output carries an impulse at each edge (the jump times the edge's shift) that is not computed: NaN",
            nj, nj > 1 ? "s" : "", nj > 1 ? "" : "s", R->name[j1], nj > 1 ? ", ..." : "");
    char *title =
        s ? NULL
          : nsc_asprintf(
              "%s (periodic AC around the steady state of period %g s, valid up to fs/2 = %g Hz)",
              R->title, info->period, fh);
    if (!s && !title) s = nsc_oom(r);
    if (!s) {
        free(R->title);
        R->title = title;
        R->fhalf = fh;
    }
    nsc_pac_free(A);
    if (s) nsc_ac_result_free(R);
    else *out = R;
    return s;
}
