/* stepper_exact.c -- the exact transient (.options stepping=exact): in each
 * mode the LCS is linear and time-invariant on the segments between the
 * sources' corners, so the state is carried by the mode's flow (solve/flow.h)
 * instead of a time-stepping scheme: no local truncation error, steps as long
 * as the waveform allows.
 *
 * Steps. A step of k h0 (h0 the flow's smallest substep) from t ends at the
 * next breakpoint, tstart or tstop when it would reach them, else is the
 * error control's k. Its midpoint and end are exact points of the flow; the
 * probes' chord error at the midpoint, e = max_q |v_q(mid) - (v_q(t) + v_q(t1)) / 2|
 * / (RELTOL max |v_q| + ATOL_q), decides: e > 4 the step is halved and retried,
 * e > 1 the midpoint is a row too (each half's chord is then within about e / 4),
 * e < 1/4 the next step doubles (the exact step up to a located event is
 * tested alike, lead_in). Rows are the steps' ends (and such midpoints): every
 * row but an event step's (implicit Euler over a few h0) is a point of the
 * flow, and a straight line between rows is within the tolerance (netlist.md,
 * Waveforms).
 *
 * Events. The mode's guards (phi_i >= 0: l_i of an active pair, y_i of an
 * inactive one, a switch's control on its side of the threshold) are checked
 * at the midpoint and the end; the first interval in which one fails is
 * bisected on the flow down to NSC_EX_LOC of the step that found it (not below
 * h0); the state is carried exactly to the interval's start, and the mode
 * change is taken by one implicit-Euler step of the one-step problem over the
 * interval (as the adaptive stepper takes a located event), which also gives
 * the impulsive transfers of Moreau's scheme. The next mode's flow is built
 * when first met and cached.
 *
 * Continuous kinks (lcs.h pair_cont: PWL MOS channel segments, fitted
 * junctions; at most NSC_EX_KINK_M pairs, no losses) need no event step: the
 * state and the vector field are continuous across them, the field's slope
 * alone changes, so switching modes late by delta misplaces the state by
 * (the slope's change) delta^2 / 2, and a row (an output's change of slope)
 * delta. The bracket is bisected only until those bounds are within
 * NSC_EX_KERR and NSC_EX_KROW of the tolerance (kink_err, kink_rows), and the
 * new mode goes on from the bracket's end (kink, kink_take); a change of
 * another kind found on the way, one the kink brings about (the new mode's
 * own guards failing at once), a new mode not met before, or a kink still
 * too sharp at h0 (a diode turning off into a switch's ROFF) is located as
 * above.
 *
 * Rows on the tstep grid (.options interp): each grid time is a breakpoint
 * (target), so its row is a step's end, a point of the flow like any other;
 * the other rows go to the steps' table only (nsc_tran_opts.steps, what .meas
 * reads), handed on to the adaptive stepper when it takes over.
 *
 * Losses (--losses, analysis/losses.h): each accepted segment of the flow
 * is integrated from the elements' powers at its start, midpoint and end
 * (the quadratic through them: Simpson's rule), each point's powers from the
 * implicit-Euler steps the flow is made of (flow.h ie: KCL exact, so the
 * energies balance to round-off), their voltages and currents in Richardson's
 * combination 2 x(h0/2) - x(h0) (O(h0^2) off the exact state's); an event step and the
 * NSC_EX_LCHAIN substeps after it are the accumulator's steps at theta 1, as
 * the adaptive stepper's restarts (loss_chain_step): EON/EOFF at the mode
 * change, the capacitors' jump (its damping 1/2 C dv^2) captured in a
 * controlled switch turning on.
 *
 * Scope. Sources DC, PULSE, PWL, SIN and EXP (flow.h); no smooth elements, no steady
 * state; the augmented state's dynamic part
 * (the z components E reads, the sources' and the constant) at most NSC_EX_NMAX. Elsewhere the adaptive stepper runs (nsc_tran_exact_ok). */
#include "stepper_int.h"
#include "solve/flow.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NSC_EX_FLOWS 64  /* flows cached (mode and switch states) */
#define NSC_EX_FTAB 256  /* slots of the flows' hash table (a power of 2, > 2 NSC_EX_FLOWS) */
#define NSC_EX_H0 1e-3   /* h0 <= this times href, H / 2^K for H = the largest step */
#define NSC_EX_LOC 1e-3  /* events located to this fraction of the step that found them */
#define NSC_EX_NMAX 64   /* largest dynamic augmented state (a flow costs ~2 K N NA^2 to build) */
#define NSC_EX_NBIG 1024 /* largest augmented state (a flow's build holds three N x N matrices) */
#define NSC_EX_FLOWS_MIN \
    16 /* after this many flows built (NSC_EX_FLOWS when N <= NSC_EX_NCHEAP), ... */
#define NSC_EX_STEPS_FLOW 8 /* ... fewer steps than this per flow: the theta-scheme takes over */
#define NSC_EX_KINK_STEPS \
    4 /* (a continuous kink crossed counts as this many steps there: it saves an event
                               step and its bisection, ~2 steps' work; the band buck's first 64 flows come in
                               188 steps and 113 kinks) */
#define NSC_EX_NCHEAP \
    64 /* augmented states up to this size: flows cheap, judged once the cache is full */
#define NSC_EX_EVRUN 1000 /* event steps in a row, each shorter than 1e-6 href: chattering ... */
#define NSC_EX_SLIVERS \
    64 /* ... or breakpoints closer than h0 in a row: the adaptive stepper takes over */
#define NSC_EX_KMAX 40
#define NSC_EX_KINK_M \
    64 /* above this many pairs, a mode change on continuous kinks alone hands over (kinks_only) */
#define NSC_EX_KNEXT \
    4 /* after a kink crossed k units into a step, the next step is at most this many k */
#define NSC_EX_GROW \
    64 /* a step grows by at most this factor (grow: the chord error's k^2; a kink's w^2) */
#define NSC_EX_KERR \
    0.05 /* a continuous kink is taken at its bracket's end when its state error (kink_err) is
                               within this fraction of the tolerance */
#define NSC_EX_KROW 0.5 /* ... and the rows' error at the kink (kink_rows) within this fraction */
#define NSC_EX_PKRISE \
    1.1 /* fits_watch: the devices asked again once a tracked peak rose by this factor */
#define NSC_EX_REFIT_MIN \
    0.01 /* ... and a pass whose fits were left runs at least this fraction of the span more */
#define NSC_PI 3.14159265358979323846

typedef struct exf {
    char *key; /* [m + nsw] active set, then switch states */
    nsc_flow *F;
    nsc_loss_map *lm; /* its losses' map (T->acc), else NULL */
    long last;
    unsigned long hash; /* key_hash(key): compared before the key (kink_err looks flows up often) */
} exf;

/* A mode change met before: from (mode, switch states) with the guards
 * failing as in `hit`, the event step accepted `to`: the next such event
 * tries `to` first (the active-set iteration from the old mode, or pivoting,
 * is what an event step costs; a converter repeats its changes every period). */
typedef struct exmemo {
    char *from;     /* [m + nsw] */
    char *hit, *to; /* [m] */
} exmemo;
#define NSC_EX_MEMO 64

typedef struct ex {
    nsc_tran *T;
    const nsc_lcs *L;
    nsc_waves *Ws; /* NULL, or the steps' table (interp with .meas: nsc_tran_opts.steps) */
    const nsc_tran_opts *o;
    int n, m, nsw, nsrc, N, K, nc;
    double h0, href, hmax, t, eps;
    long kcur, kmax; /* the error control's step and the largest, in units of h0 */
    double *sa, *sb; /* [nsrc] the sources' u'' = -a u - b u' */
    double *x, *xm, *x1, *xt, *xm2, *wk; /* [N] states */
    double *z, *zf, *l, *g, *w;          /* [n], [n], [m], [m], [nsrc] */
    double *z1, *w1;                     /* [n], [nsrc]: the event step's */
    double *gtol, *lm;      /* [m] the guards' tolerances (guard_tol), l at the midpoint */
    double *pw, *gsgn;      /* [m] work; the guards' signs */
    double *wv, *ulo, *uhi; /* [m + 1] distinct pair rows, their bounds (guard_bounds) */
    double *wm, *w1v;       /* [m + 1] the distinct rows at a step's midpoint and end */
    int cbad;
    double *v0, *vm, *v1, *rtol; /* [nc] probe rows and each column's ATOL */
    char *mask, *sw1, *key;      /* [m], [nsw], [m + nsw] */
    char *alt,
        *althi; /* [m] the mode with the pairs violated at the last check changed; at a bracket's end */
    int have_alt;
    int swbad; /* the last failed check was a switch's (violated) */
    int have_mask, evrun, nsliver;
    int *lneed, nlneed; /* the pairs whose multiplier the probes or the peaks read */
    int need_dz;        /* the probes read derivatives */
    int v0_ok;          /* v0 holds the probes at (t, x) (the last step's end, same flow) */
    exf cache[NSC_EX_FLOWS];
    short ftab[NSC_EX_FTAB]; /* the cache's hash table: entry + 1, 0 empty (linear probing) */
    exmemo memo[NSC_EX_MEMO];
    int nmemo, memo_next;
    int nf;
    long clock;
    nsc_flow *F;        /* the flow of (mask, sw), NULL: not looked up */
    nsc_loss_map *lmap; /* and its losses' map */
    /* losses (T->acc; header): */
    double *lp0, *lpm, *lp1; /* [ptlen] the segment's points (nsc_loss_map_point) */
    int lp0_ok;              /* lp0 holds the point at (t, x) (the last segment's end, same flow) */
    int lpts;                /* lpm, lp1 hold the trial's points (loss_check) */
    int lch, lcpend;         /* loss_chain: its substeps left; its end not yet a segment's start */
    double lct, *lcz;        /* the chain's time and state z [n] */
    double *lS;              /* [2 nsrc 4] the sources' flows over h0 and h0 / 2 */
    double *ly, *ll, *lw0, *lw1, *lx; /* [n + m], [m], [nsrc], [nsrc], [N]: loss_chain_step's */
    double *lxm; /* [N] a segment's midpoint when it starts at the chain's end */
    /* continuous kinks (kink): */
    double *kxh, *kxa,
        *kxb;            /* [N] the state at the bracket's end; the two modes' substeps from it */
    unsigned char *zdyn; /* [n] 1: z_i is a dynamic state (a column of E) */
    char *kmask;         /* [m] the mode, kept while kink_err looks up the new one */
    double *kg, *kw;     /* [m], [m + 1]: the new mode's pair rows (kink_holds) */
    double *kv0, *kv1;   /* [nc] the two modes' probes (kink_rows) */
    double *kwlo, *kwhi, *kwt; /* [m + 1] the distinct pair rows at a bracket's ends, a trial's */
    int kswhi;                 /* a switch alone failed at the bracket's end (no interpolant) */
    int kinks;                 /* some pairs are continuous kinks (lcs.h pair_cont), at most
                                        NSC_EX_KINK_M pairs, no --losses: kink() takes them */
    int lookup_only;           /* flow_get: no build (kink_err) */
    int settled;               /* kink_settle left F the mode's flow, x seeded at t (z and the
                            sources), v0 its probes: the next step needs only guard_tol */
    /* the early stop of a pass whose fits were left (o->refit_early; fits_watch): */
    double
        *pkgate;   /* [m] the tracked peaks' next level (NSC_EX_PKRISE times the last), else NULL */
    int fits_left; /* the peaks so far would remake a fit (nsc_dev_refit_due) */
    double t_rise; /* the last time a tracked peak rose past its gate once fits_left */
} ex;

/* ---- scope ---- */

int nsc_tran_exact_ok(const nsc_tran *T)
{
    const nsc_lcs *L = T->L;
    if (T->io || L->nsm > 0) return 0;
    int ndyn = 0; /* z components E reads (flow.h) */
    for (int k = 0; k < L->n; k++) ndyn += L->E->p[k + 1] > L->E->p[k];
    if (ndyn + 3 * L->nsrc + 1 > NSC_EX_NMAX || L->n + 3 * L->nsrc + 1 > NSC_EX_NBIG) return 0;
    for (int j = 0; j < L->nsrc; j++) {
        nsc_wavekind k = L->src[j].wave->kind;
        if (k == NSC_WAVE_EXPR) return 0;
    }
    return 1;
}

static void ex_free(ex *a)
{
    for (int q = 0; q < a->nmemo; q++) free(a->memo[q].from);
    for (int q = 0; q < a->nf; q++) {
        free(a->cache[q].key);
        nsc_flow_free(a->cache[q].F);
        nsc_loss_map_free(a->cache[q].lm);
    }
    free(a->sa);
    free(a->sb);
    free(a->x);
    free(a->xm);
    free(a->x1);
    free(a->xt);
    free(a->xm2);
    free(a->wk);
    free(a->z);
    free(a->zf);
    free(a->l);
    free(a->g);
    free(a->w);
    free(a->z1);
    free(a->w1);
    free(a->gtol);
    free(a->lm);
    free(a->pw);
    free(a->gsgn);
    free(a->wv);
    free(a->ulo);
    free(a->uhi);
    free(a->wm);
    free(a->w1v);
    free(a->lneed);
    free(a->lp0);
    free(a->lpm);
    free(a->lp1);
    free(a->lS);
    free(a->ly);
    free(a->ll);
    free(a->lw0);
    free(a->lw1);
    free(a->lx);
    free(a->lcz);
    free(a->lxm);
    free(a->kxh);
    free(a->kxa);
    free(a->kxb);
    free(a->zdyn);
    free(a->kmask);
    free(a->kg);
    free(a->kw);
    free(a->kv0);
    free(a->kv1);
    free(a->kwlo);
    free(a->kwhi);
    free(a->kwt);
    free(a->v0);
    free(a->vm);
    free(a->v1);
    free(a->rtol);
    free(a->mask);
    free(a->sw1);
    free(a->key);
    free(a->alt);
    free(a->althi);
    free(a->pkgate);
}

static double *vec(int n)
{
    return calloc((size_t)n + 1, sizeof(double));
}

/* The sources' coefficients u'' = -a u - b u': SIN a = omega^2 + d^2, b = 2 d
 * (roots -d +- j omega); EXP the roots -1/TAU1 and -1/TAU2 of its time constants
 * that are > 0 (a = the roots' product, b = minus their sum; a TAU <= 0 is an
 * ideal step: no root), so that u = c1 e^{-x/TAU1} + c2 e^{-x/TAU2} on every
 * piece (src_state seeds c1, c2 at its corners); the others affine (a = b = 0). */
static void src_coef(ex *a)
{
    for (int j = 0; j < a->nsrc; j++) {
        const nsc_wave *W = a->L->src[j].wave;
        a->sa[j] = a->sb[j] = 0;
        if (W->kind == NSC_WAVE_SIN) {
            double om = 2 * NSC_PI * W->p[2], d = W->p[4];
            a->sa[j] = om * om + d * d;
            a->sb[j] = 2 * d;
        } else if (W->kind == NSC_WAVE_EXP) {
            double r1 = W->p[3] > 0 ? 1 / W->p[3] : 0, r2 = W->p[5] > 0 ? 1 / W->p[5] : 0;
            a->sa[j] = r1 * r2;
            a->sb[j] = r1 + r2;
        }
    }
}

/* The largest power of 2 <= k (k >= 1): the error control's steps are powers of
 * 2 of h0, each one product with a level of the flow (flow.h). */
static long pow2_below(long k)
{
    long p = 1;
    while (p <= k / 2) p *= 2;
    return p;
}

/* The losses' work vectors and the sources' flows over h0 and h0 / 2 (T->acc). 0, or -1 (ENOMEM). */
static int loss_init(ex *a)
{
    int len = nsc_loss_acc_ptlen(a->T->acc);
    a->lp0 = vec(len), a->lpm = vec(len), a->lp1 = vec(len), a->lS = vec(8 * a->nsrc);
    a->ly = vec(a->n + a->m), a->ll = vec(a->m), a->lw0 = vec(a->nsrc), a->lw1 = vec(a->nsrc),
    a->lx = vec(a->N);
    a->lcz = vec(a->n), a->lxm = vec(a->N);
    if (!a->lp0 || !a->lpm || !a->lp1 || !a->lS || !a->ly || !a->ll || !a->lw0 || !a->lw1 || !a->lx
        || !a->lcz || !a->lxm)
        return -1;
    for (int b = 0; b < 2; b++)
        for (int j = 0; j < a->nsrc; j++)
            nsc_flow_src(a->sa[j], a->sb[j], ldexp(a->h0, -b), a->lS + 4 * (b * a->nsrc + j));
    return 0;
}

/* h0 = H / 2^K <= NSC_EX_H0 href with H the largest step. 0, or -1 (ENOMEM). */
static int ex_init(ex *a, nsc_tran *T)
{
    const nsc_lcs *L = T->L;
    memset(a, 0, sizeof *a);
    a->T = T, a->L = L, a->o = T->o;
    a->n = L->n, a->m = L->m, a->nsw = L->nsw, a->nsrc = L->nsrc;
    a->N = a->n + 3 * a->nsrc + 1;
    a->nc = T->nprobe + 1;
    a->hmax = T->o->h;
    a->href = T->o->href > 0 && T->o->href < a->hmax ? T->o->href : a->hmax;
    a->eps = 1e-9 * a->href;
    int K = (int)ceil(log2(a->hmax / (NSC_EX_H0 * a->href)));
    a->K = K < 4 ? 4 : K > NSC_EX_KMAX ? NSC_EX_KMAX : K;
    a->h0 = ldexp(a->hmax, -a->K);
    a->kmax = 1L << a->K;
    a->kcur = pow2_below((long)fmax(1.0, floor(a->href / a->h0)));
    int N = a->N, n = a->n, m = a->m;
    a->sa = vec(a->nsrc), a->sb = vec(a->nsrc);
    a->x = vec(N), a->xm = vec(N), a->x1 = vec(N), a->xt = vec(N), a->xm2 = vec(N), a->wk = vec(N);
    a->z = vec(n), a->zf = vec(n), a->l = vec(m), a->g = vec(m), a->w = vec(a->nsrc);
    a->z1 = vec(n), a->w1 = vec(a->nsrc), a->gtol = vec(m), a->lm = vec(m), a->pw = vec(m),
    a->gsgn = vec(m);
    a->wv = vec(m + 1), a->ulo = vec(m + 1), a->uhi = vec(m + 1);
    a->wm = vec(m + 1), a->w1v = vec(m + 1);
    a->lneed = calloc((size_t)m + 1, sizeof(int));
    a->v0 = vec(a->nc), a->vm = vec(a->nc), a->v1 = vec(a->nc), a->rtol = vec(a->nc);
    a->mask = calloc((size_t)m + 1, 1), a->sw1 = calloc((size_t)a->nsw + 1, 1);
    a->key = calloc((size_t)(m + a->nsw) + 1, 1);
    a->alt = calloc((size_t)m + 1, 1), a->althi = calloc((size_t)m + 1, 1);
    a->kxh = vec(N), a->kxa = vec(N), a->kxb = vec(N), a->zdyn = calloc((size_t)n + 1, 1);
    a->kmask = calloc((size_t)m + 1, 1), a->kg = vec(m), a->kw = vec(m + 1);
    a->kv0 = vec(a->nc), a->kv1 = vec(a->nc);
    a->kwlo = vec(m + 1), a->kwhi = vec(m + 1), a->kwt = vec(m + 1);
    if (!a->kxh || !a->kxa || !a->kxb || !a->zdyn || !a->kmask || !a->kg || !a->kw || !a->kv0
        || !a->kv1 || !a->kwlo || !a->kwhi || !a->kwt)
        return -1;
    for (int k = 0; k < n; k++) a->zdyn[k] = L->E->p[k + 1] > L->E->p[k];
    for (int j = 0; L->pair_cont && j < m; j++) a->kinks |= L->pair_cont[j];
    a->kinks &= !T->acc && m <= NSC_EX_KINK_M; /* (more pairs: kinks_only hands over) */
    if (!a->sa || !a->sb || !a->x || !a->xm || !a->x1 || !a->xt || !a->xm2 || !a->wk || !a->z
        || !a->zf || !a->l || !a->g || !a->w || !a->z1 || !a->w1 || !a->gtol || !a->lm || !a->pw
        || !a->gsgn || !a->wv || !a->ulo || !a->uhi || !a->wm || !a->w1v || !a->lneed || !a->v0
        || !a->vm || !a->v1 || !a->rtol || !a->mask || !a->sw1 || !a->key || !a->alt || !a->althi)
        return -1;
    for (int q = 1; q < a->nc; q++) /* a current's ABSTOL, else VNTOL */
        a->rtol[q] = T->W->name[q][0] == 'i' ? a->o->abstol : a->o->vntol;
    src_coef(a);
    if (T->acc && loss_init(a)) return -1;
    if (T->o->refit && T->o->refit_early && !T->io && !T->acc && !(a->pkgate = vec(m))) return -1;
    char *mark = calloc((size_t)m + 1, 1); /* the pairs whose l is read: probes, peaks */
    if (!mark) return -1;
    for (int k = 0; k < T->npk; k++) mark[T->pklist[k]] = 1;
    for (int q = 0; q < T->nprobe; q++)
        for (int k = 0; k < T->f[q].nterm; k++) {
            if (T->f[q].t[k].kind == NSC_T_L) mark[T->f[q].t[k].idx] = 1;
            a->need_dz |= T->f[q].t[k].kind == NSC_T_DZ;
        }
    for (int j = 0; j < m; j++)
        if (mark[j]) a->lneed[a->nlneed++] = j;
    free(mark);
    memcpy(a->z, T->z0, sizeof(double) * (size_t)n);
    memcpy(a->l, T->l0, sizeof(double) * (size_t)m);
    memcpy(a->v0, T->v0, sizeof(double) * (size_t)a->nc);
    return 0;
}

/* ---- states ---- */

/* e^{-x/tau} and its slope -e/tau (a tau <= 0 is an ideal step: 0, 0). */
static double decay(double x, double tau, double *slope)
{
    double e = tau > 0 ? exp(-x / tau) : 0;
    *slope = tau > 0 ? -e / tau : 0;
    return e;
}

/* EXP (V1 V2 TD1 TAU1 TD2 TAU2) at t as (p, u, v), x_k = t - TD_k, e_k = e^{-x_k/TAU_k}:
 *   before TD1      V1:                                  p = V1, u = v = 0;
 *   TD1 .. TD2      V1 + (V2 - V1)(1 - e1) = V2 + (V1 - V2) e1:   p = V2;
 *   after TD2 too   + (V1 - V2)(1 - e2) = V1 + (V2 - V1)(e2 - e1): p = V1;
 * u the exponentials, v their slope (src_coef's roots carry them). A corner
 * closer than eps after t is taken as reached. */
static void exp_state(const double *q, double t, double eps, double *p, double *u, double *v)
{
    double s1, s2, e1, e2;
    *p = q[0], *u = 0, *v = 0;
    if (t + eps < q[2]) return;
    e1 = decay(fmax(t - q[2], 0), q[3], &s1);
    if (t + eps < q[4]) {
        *p = q[1], *u = (q[0] - q[1]) * e1, *v = (q[0] - q[1]) * s1;
        return;
    }
    e2 = decay(fmax(t - q[4], 0), q[5], &s2);
    *u = (q[1] - q[0]) * (e2 - e1), *v = (q[1] - q[0]) * (s2 - s1);
}

/* Source j at t (its right limit at a corner) as (p, u, v): value p + u, slope v;
 * corners closer than eps after t are taken as reached (t may be a rounded corner). */
static void src_state(const nsc_wave *W, double t, double eps, double *p, double *u, double *v)
{
    double y = nsc_wave_eval(W, t);
    *p = 0, *u = y, *v = 0;
    if (W->kind == NSC_WAVE_DC) {
        *p = y, *u = 0;
        return;
    }
    if (W->kind == NSC_WAVE_EXP) {
        exp_state(W->p, t, eps, p, u, v);
        return;
    }
    if (W->kind == NSC_WAVE_SIN) {
        const double *q = W->p;
        if (t + eps < q[3]) {
            *p = y, *u = 0;
            return;
        } /* constant before TD (a corner) */
        double om = 2 * NSC_PI * q[2], ph = q[5] * NSC_PI / 180, x = t - q[3],
               e = q[1] * exp(-x * q[4]);
        *p = q[0], *u = y - q[0];
        *v = e * (om * cos(om * x + ph) - q[4] * sin(om * x + ph));
        return;
    }
    /* affine on (t, tc): from two points inside, so that a jump at t (PULSE's
     * PW = 0, a PWL step) is the right limit even when t is a rounded corner */
    double tc = nsc_wave_next_corner(W, t + eps), d = tc < INFINITY ? (tc - t) / 2 : 1.0;
    if (!(d > 0)) return;
    double ya = nsc_wave_eval(W, t + d / 2), yb = nsc_wave_eval(W, t + d);
    *v = (yb - ya) / (d / 2);
    *u = ya - *v * d / 2;
}

/* x = [z; p; u; v; 1] at t. */
static void seed_from(const ex *a, double t, const double *z, double *x)
{
    int n = a->n, ns = a->nsrc;
    memcpy(x, z, sizeof(double) * (size_t)n);
    for (int j = 0; j < ns; j++)
        src_state(a->L->src[j].wave, t, a->eps, &x[n + j], &x[n + ns + j], &x[n + 2 * ns + j]);
    x[a->N - 1] = 1;
}

static void seed(ex *a, double t)
{
    seed_from(a, t, a->z, a->x);
}

/* The source values w = p + u of state x. */
static void x_sources(const ex *a, const double *x, double *w)
{
    for (int j = 0; j < a->nsrc; j++) w[j] = x[a->n + j] + x[a->n + a->nsrc + j];
}

/* Pair i's multiplier from its pair row g (flow.h): l_i of an active pair
 * (-g_i / D_ii when separable), 0 of an inactive one. */
static double pair_l(const ex *a, int i, double g)
{
    double v = !a->mask[i] ? 0 : a->F->dinv[i] > 0 ? -g * a->F->dinv[i] : g;
    return v > 0 ? v : 0;
}

/* The multipliers read (lneed) of a state from its distinct pair rows w (nsc_flow_rows). */
static void x_lambda(const ex *a, const double *w, double *l)
{
    const nsc_flow *F = a->F;
    for (int k = 0; k < a->nlneed; k++) {
        int i = a->lneed[k];
        l[i] = pair_l(a, i, w[F->umap[i]] + F->cst[i]);
    }
}

/* The probes at state x into v[1..]: z, l and the sources from x (w: x's
 * distinct pair rows when known, else NULL); dz/dt by the flow's first
 * substep (forward difference over h0). */
static void x_probes(ex *a, const double *x, const double *w, double *v)
{
    int n = a->n;
    if (a->nlneed) {
        if (!w) {
            nsc_flow_rows(a->F, x, a->pw);
            w = a->pw;
        }
        x_lambda(a, w, a->l);
    }
    x_sources(a, x, a->w);
    if (a->need_dz) {
        nsc_flow_advance(a->F, 1, x, a->xt, a->wk);
        for (int i = 0; i < n; i++)
            a->zf[i] = 2 * x[i] - a->xt[i]; /* (x - zf) / h0 = (x(t+h0) - x) / h0 */
    }
    nsc_eval_probes(a->T->f, a->T->nprobe, a->L, a->T->sw, x, a->l, a->zf, a->h0, a->w, v + 1);
}

/* ---- guards ---- */

/* The guards per distinct row u of the pair rows (flow.h: the pairs i of one
 * row have g_i = w_u + cst_i): phi_i = gsgn_i g_i >= -gtol_i for all of them
 * is lo_u <= w_u <= hi_u; a constant row's pairs are checked here once
 * (cbad). A check is then nu comparisons instead of m. */
static void guard_bounds(ex *a)
{
    const nsc_flow *F = a->F;
    int nu = F->nu;
    for (int u = 0; u < nu; u++) a->ulo[u] = -INFINITY, a->uhi[u] = INFINITY;
    a->cbad = 0;
    for (int i = 0; i < a->m; i++) {
        int u = F->umap[i];
        double c = F->cst[i], tol = a->gtol[i];
        if (u == nu) a->cbad |= a->gsgn[i] * c < -tol;
        else if (a->gsgn[i] > 0) a->ulo[u] = fmax(a->ulo[u], -c - tol);
        else a->uhi[u] = fmin(a->uhi[u], -c + tol);
    }
}

/* The guards' tolerances gtol at the step's start x: 1e-10 of the size of each
 * pair row's terms (the flow's round-off: an active pair's current is a
 * difference quotient over h0 of the states, terms of C/h0 times a voltage;
 * no tighter than the one-step problem's own mode check, NSC_MODE_TOL, or an
 * event step finds the mode unchanged); their signs gsgn. */
static void guard_tol(ex *a, const double *x)
{
    const nsc_flow *F = a->F;
    int m = a->m, nu = F->nu;
    for (int u = 0; u < nu; u++) { /* the size of each distinct row's terms */
        double s = 0;
        for (int j = 0; j < F->nau; j++) s += fabs(F->U[u + (size_t)j * nu] * x[F->act[j]]);
        a->wv[u] = s;
    }
    a->wv[nu] = 0;
    for (int i = 0; i < m; i++) {
        a->gtol[i] = 1e-15 + 1e-10 * (a->wv[F->umap[i]] + fabs(F->cst[i]));
        a->gsgn[i] = a->mask[i] && F->dinv[i] > 0 ? -1.0 : 1.0; /* phi_i = gsgn_i g_i */
    }
    guard_bounds(a);
}

/* 1 when the mode's guards fail at x (its distinct pair rows into w[m + 1]): a pair's phi below
 * -gtol (alt: the mode with those pairs changed, the event step's second
 * guess), or a switch that would change state (nsc_lcs_switch_update). */
static int violated(ex *a, const double *x, double *w)
{
    const nsc_flow *F = a->F;
    nsc_flow_rows(F, x, w);
    int bad = a->cbad;
    for (int u = 0; u < F->nu; u++) bad |= w[u] < a->ulo[u] || w[u] > a->uhi[u];
    a->swbad = !bad;
    if (bad) {
        double *g = a->g;
        nsc_flow_expand(F, w, x[a->N - 1], g);
        memcpy(a->alt, a->mask, (size_t)a->m);
        for (int i = 0; i < a->m; i++)
            if (a->gsgn[i] * g[i] < -a->gtol[i]) a->alt[i] = !a->mask[i];
        return 1;
    }
    if (!a->nsw) return 0;
    memcpy(a->sw1, a->T->sw, (size_t)a->nsw); /* the transient's decision (lcs.h) */
    return nsc_lcs_switch_update(a->L, x, a->sw1) > 0;
}

/* 1 when the last failed check (violated) changes continuous kinks alone
 * (lcs.h pair_cont: PWL MOS channel segments, fitted junctions) in a circuit
 * of more than NSC_EX_KINK_M pairs. A flow is one mode's: every kink needs
 * a new one, while the theta-scheme's step costs a mode check. Many PWL
 * pairs cross one after another (the 15-inverter cascade's 600: a new mode
 * every few steps, each flow ~6 M instructions to build, 97 M for the 16
 * built before the flows' count handed over, of 557 M for the run): the
 * theta-scheme takes over at the first such change. Fewer pairs keep the
 * flows (a converter's few segments repeat every period, their flows
 * cached). */
static int kinks_only(const ex *a)
{
    if (a->m <= NSC_EX_KINK_M || a->swbad || !a->L->pair_cont) return 0;
    int any = 0, m = a->m;
    for (int i = nsc_flags_next_diff(a->alt, a->mask, 0, m); i < m;
         i = nsc_flags_next_diff(a->alt, a->mask, i + 1, m)) {
        if (!a->L->pair_cont[i]) return 0;
        any = 1;
    }
    return any;
}

/* 1 when the last failed check (violated) changes continuous kinks alone
 * (lcs.h pair_cont), no switch: the state and the vector field are
 * continuous across them, only the field's slope changes, and the step may
 * cross them without an event step (kink). Not with --losses (the loss
 * accumulator's chain starts at event steps). */
static int cont_kink(const ex *a)
{
    if (a->swbad || !a->kinks) return 0;
    int any = 0, m = a->m;
    for (int i = nsc_flags_next_diff(a->alt, a->mask, 0, m); i < m;
         i = nsc_flags_next_diff(a->alt, a->mask, i + 1, m)) {
        if (!a->L->pair_cont[i]) return 0;
        any = 1;
    }
    return any;
}

/* The guards that failed at the last check (alt) as the next event step's
 * second guess (althi, have_alt). */
static void keep_alt(ex *a)
{
    memcpy(a->althi, a->alt, (size_t)a->m);
    a->have_alt = 1;
}

/* ---- flows ---- */

/* The losses' map of the flow F in the mode and switch states of a (losses.h nsc_loss_basis). */
static nsc_loss_map *loss_map(const ex *a, const nsc_flow *F)
{
    size_t blk = (size_t)(a->n + a->m) * (size_t)F->na;
    nsc_loss_basis B = { a->n,
                         a->m,
                         a->nsrc,
                         a->N,
                         F->na,
                         F->act,
                         { F->ie, F->ie + blk },
                         a->mask,
                         F->dinv,
                         { a->h0, a->h0 / 2 },
                         { a->lS, a->lS + 4 * a->nsrc } };
    return nsc_loss_map_new(a->T->acc, &B, a->T->sw);
}

/* FNV-1a of the n bytes of key. */
static unsigned long key_hash(const char *key, int n)
{
    unsigned long h = 14695981039346656037UL;
    for (int i = 0; i < n; i++) h = (h ^ (unsigned char)key[i]) * 1099511628211UL;
    return h;
}

/* The cache entry of key (nk bytes, hash h) through the hash table ftab; -1
 * when not cached. *slot: where the probe ended (empty: where it goes). */
static int flow_find(const ex *a, const char *key, int nk, unsigned long h, int *slot)
{
    int i = (int)(h & (NSC_EX_FTAB - 1));
    for (; a->ftab[i]; i = (i + 1) & (NSC_EX_FTAB - 1)) {
        int q = a->ftab[i] - 1;
        if (a->cache[q].hash == h && !memcmp(a->cache[q].key, key, (size_t)nk)) return q;
    }
    *slot = i;
    return -1;
}

/* ftab remade from the cache's entries (after one was replaced). */
static void flow_rehash(ex *a)
{
    memset(a->ftab, 0, sizeof a->ftab);
    for (int q = 0; q < a->nf; q++) {
        int i = (int)(a->cache[q].hash & (NSC_EX_FTAB - 1));
        while (a->ftab[i]) i = (i + 1) & (NSC_EX_FTAB - 1);
        a->ftab[i] = (short)(q + 1);
    }
}

/* a->F: the flow of (mask, switch states), from the cache or built (its two
 * implicit-Euler problems from the problem cache). 0, 1 when the mode's system
 * is singular, 2 when the flows built would not repay themselves (a new mode
 * every few steps: the 15-inverter cascade's 600 pairs), 3 when not cached
 * and a->lookup_only, else a failure status. */
static int flow_get(ex *a)
{
    nsc_tran *T = a->T;
    int m = a->m, nk = m + a->nsw, slot = 0;
    memcpy(a->key, a->mask, (size_t)m);
    memcpy(a->key + m, T->sw, (size_t)a->nsw);
    unsigned long h = key_hash(a->key, nk);
    int q = flow_find(a, a->key, nk, h, &slot);
    if (q >= 0) {
        a->cache[q].last = ++a->clock;
        a->F = a->cache[q].F;
        a->lmap = a->cache[q].lm;
        return 0;
    }
    if (a->lookup_only) return 3;
    long fmin = a->N <= NSC_EX_NCHEAP ? NSC_EX_FLOWS : NSC_EX_FLOWS_MIN;
    long worth = T->st->steps + NSC_EX_KINK_STEPS * T->st->kinks;
    if (T->st->flows >= fmin && T->st->flows * NSC_EX_STEPS_FLOW > worth) return 2;
    nsc_onestep *P[2];
    const double hs[2] = { a->h0, a->h0 / 2 };
    for (int q = 0; q < 2; q++) {
        nsc_status s = nsc_pcache_get(T->cache, hs[q], 1.0, T->sw, 0, &P[q], T->st, T->r);
        if (s) return s;
    }
    nsc_flow *F;
    nsc_loss_map *lm = NULL;
    int s = nsc_flow_build(P[0], P[1], a->mask, a->sa, a->sb, a->K, T->acc != NULL, &F);
    if (s)
        return s > 0 ? 1
                     : nsc_err(T->r, NSC_ESIM, NULL,
                               "time %.9g s: the flow of a mode could not be built", a->t);
    T->st->flows++;
    if (T->acc && !(lm = loss_map(a, F))) {
        nsc_flow_free(F);
        return nsc_oom(T->r);
    }
    int lru = 0, full = a->nf == NSC_EX_FLOWS;
    for (int k = 1; full && k < a->nf; k++)
        if (a->cache[k].last < a->cache[lru].last) lru = k;
    exf *e = &a->cache[full ? lru : a->nf++];
    if (!e->key && !(e->key = malloc((size_t)nk + 1))) {
        nsc_flow_free(F);
        nsc_loss_map_free(lm);
        return nsc_oom(T->r);
    }
    nsc_flow_free(e->F);
    nsc_loss_map_free(e->lm);
    memcpy(e->key, a->key, (size_t)nk);
    e->hash = h;
    e->F = F;
    e->lm = lm;
    e->last = ++a->clock;
    if (full) flow_rehash(a); /* (the replaced key's slot) */
    else a->ftab[slot] = (short)(e - a->cache + 1);
    a->F = F;
    a->lmap = lm;
    return 0;
}

/* ---- rows ---- */

/* The early stop of a pass whose fits were left (o->refit_early, run.c):
 * each time a tracked peak (T->pklist) rises past NSC_EX_PKRISE times its
 * level at the last such rise, the devices are asked whether the peaks so
 * far would remake a fit (nsc_dev_refit_due: 1 would, -1 some device cannot
 * tell part way, then never asked again). Once they would, the pass goes on
 * while the peaks rise (t_rise, the last rise) and stops at
 * 2 t_rise + NSC_EX_REFIT_MIN of the span when still due (fits_stop):
 * its rows are void (the fits were left), the fits are remade on the peaks so
 * far (stepper.c tran_free, as after a run that failed part way) and run.c
 * makes the run again. A converter's junction peaks come in its start-up
 * (the band buck's at 2.2 us and 103 us of 1 ms): the pass that would remake
 * its fits after the whole span stops there instead. A pass that completes
 * is judged as before (stepper.c nsc_op_fits), so no result is kept from
 * fits its currents left. */
static void fits_watch(ex *a, double t)
{
    nsc_tran *T = a->T;
    int rose = 0;
    for (int k = 0; k < T->npk; k++) {
        int j = T->pklist[k];
        if (T->lpk[j] > a->pkgate[j]) {
            rose = 1;
            a->pkgate[j] = NSC_EX_PKRISE * T->lpk[j];
        }
    }
    if (!rose) return;
    int due = nsc_dev_refit_due(a->L, T->c, T->lpk); /* (asked again at each rise: a */
    if (due < 0) { /* peak may leave a fit below its range and rise into it) */
        free(a->pkgate);
        a->pkgate = NULL;
        a->fits_left = 0;
        return;
    }
    a->fits_left = due;
    if (due) a->t_rise = t;
}

/* 1 when the pass stops at a->t (fits_watch): its fits left as the peaks
 * are now (asked once more: the refit that follows reads the same peaks). */
static int fits_stop(ex *a)
{
    if (!a->fits_left || !(a->t < a->o->tstop - a->eps)
        || a->t < 2 * a->t_rise + NSC_EX_REFIT_MIN * (a->o->tstop - a->T->t0))
        return 0;
    a->fits_left = nsc_dev_refit_due(a->L, a->T->c, a->T->lpk) > 0;
    return a->fits_left;
}

/* The row v (probes in v[1..]) at t, when inside the window; the peaks of the
 * checked pairs (l) and the devices' step checks of l at every row, a point of
 * a flow as an event's (ev_solve checks only the latter; a BJT's least junction
 * current over the run, dev_q.c q_step, is read at every point, as the
 * adaptive stepper's steps give it). With interp the row is written only at
 * the grid's next time (every other point goes to the steps' table). */
static nsc_status add_row(ex *a, double t, double *v, const double *l)
{
    nsc_tran *T = a->T;
    nsc_status s = nsc_lcs_check_step(a->L, T->c, NULL, NULL, l, t, T->r);
    if (s) return s;
    for (int k = 0; k < T->npk; k++) {
        int j = T->pklist[k];
        T->lpk[j] = l[j] > T->lpk[j] ? l[j] : T->lpk[j];
    }
    if (a->pkgate) fits_watch(a, t);
    if (t < a->o->tstart - a->eps) return NSC_OK;
    v[0] = t;
    if (a->Ws && nsc_waves_add(a->Ws, v)) return nsc_waves_add_error(a->Ws, T->r);
    if (a->o->interp) {
        if (!(fabs(t - nsc_grid_time(a->o, T->jout, a->eps)) <= a->eps)) return NSC_OK;
        v[0] = nsc_grid_time(a->o, T->jout++, a->eps);
    }
    if (nsc_waves_add(T->W, v)) return nsc_waves_add_error(T->W, T->r);
    if (a->o->rows) a->o->rows(T->W, a->o->rows_ctx);
    return NSC_OK;
}

static void count(ex *a, double h, int event)
{
    nsc_sim_stats *st = a->T->st;
    st->steps++;
    st->events += event;
    if (h < st->hmin_used) st->hmin_used = h;
    if (h > st->hmax_used) st->hmax_used = h;
    if (a->o->progress && st->steps % 1000 == 0) a->o->progress(a->t, a->o->progress_ctx);
}

/* ---- losses ---- */

/* pt = the elements' powers at the flow's state x (the header's Losses):
 * from 2 x(h0/2) - x(h0) of the implicit-Euler steps' quantities from x. */
static void loss_point(ex *a, const double *x, double *pt)
{
    nsc_loss_map_point(a->T->acc, a->lmap, x, pt);
}

/* After an event step, NSC_EX_LCHAIN substeps of h0 are counted as the
 * implicit-Euler steps the flow is built of (KCL exact; the accumulator's
 * step at theta 1), from the event step's end: a switch flipped by the event
 * (its state decided from the event step's end) is on in the flow only, whose
 * first substep takes the capacitors' jump (1/2 C dv^2 lost, captured as at
 * the adaptive stepper's restarts) and the turn-on or turn-off that charges
 * EON/EOFF. The flow's own substeps leave such a jump's fast mode at
 * -tau/h0 of it, ringing down by that factor a substep (flow.h: Richardson's
 * combination), and a point's powers there carry C delta / h0 in the
 * capacitors' currents: the chain's steps leave tau/h0 a substep without the
 * ringing, and the segments take over from the chain's end, when the
 * trajectory's mode has died out. The chain advances as the segments pass its
 * substeps (a segment within it adds nothing), so that the next event step
 * ends it where the flow was. */
#define NSC_EX_LCHAIN 4

/* One substep of the chain from (lct, lcz). */
static void loss_chain_step(ex *a)
{
    int n = a->n, m = a->m, ns = a->nsrc;
    const nsc_flow *F = a->F;
    seed_from(a, a->lct, a->lcz, a->lx);
    nsc_flow_ie(F, 0, a->lx, a->ly);
    for (int i = 0; i < m; i++) { /* (pair_l without its clip at 0: KCL exact) */
        double g = a->ly[n + i];
        a->ll[i] = !a->mask[i] ? 0 : F->dinv[i] > 0 ? -g * F->dinv[i] : g;
    }
    x_sources(a, a->lx, a->lw0);
    for (int j = 0; j < ns; j++) { /* w = p + u at t + h0, u = (S (u, v))_0 */
        const double *S = a->lS + 4 * j, *x = a->lx;
        a->lw1[j] = x[n + j] + S[0] * x[n + ns + j] + S[2] * x[n + 2 * ns + j];
    }
    nsc_loss_acc_step(a->T->acc, 1.0, a->lct, a->lct + a->h0, a->lcz, a->ly, a->ll, a->lw0, a->lw1,
                      a->T->sw, a->mask);
    memcpy(a->lcz, a->ly, sizeof(double) * (size_t)n);
    a->lct += a->h0;
    a->lch--;
}

/* The chord error of the elements' powers over the trial a->t -> t1 (its
 * points at a->x, xm at tm, x1 into lp0, lpm, lp1 for loss_seg): max over the
 * elements of |p(tm) - the chord's value| / (RELTOL P), P half the sum of the
 * |powers| (the power flowing through the circuit). The step control takes the
 * larger of it and the probes' chord error, so that the quadrature sees the
 * powers as the rows see the saved signals: a current that the saved signals
 * do not show (a capacitor charging through a diode's RS after its turn-on, in
 * tens of ns, inside a 25 us step over v(out)) bends the powers, not the rows
 * (5.6 % of C1's energy before). */
static double loss_check(ex *a, double tm, double t1, const double *xm, const double *x1)
{
    if (!a->lp0_ok) loss_point(a, a->x, a->lp0);
    a->lp0_ok = 1;
    loss_point(a, xm, a->lpm);
    loss_point(a, x1, a->lp1);
    a->lpts = 1;
    double s = (tm - a->t) / (t1 - a->t), P = 0, e = 0;
    int nrow = nsc_loss_acc_nrow(a->T->acc);
    for (int k = 0; k < nrow; k++)
        P += fmax(fabs(a->lp0[k]), fmax(fabs(a->lpm[k]), fabs(a->lp1[k])));
    double tol = a->o->reltol * P / 2 + 1e-300;
    for (int k = 0; k < nrow; k++) {
        double r = fabs(a->lpm[k] - (a->lp0[k] + s * (a->lp1[k] - a->lp0[k]))) / tol;
        e = r > e ? r : e;
    }
    return e;
}

/* The midpoint of a segment t0 -> t1 that starts at the chain's end, inside
 * the step from a->t: the flow's point on the h0 grid nearest the middle,
 * into lxm (*xm), and its time; a->t (none: the trapezoid) when that falls
 * outside the middle half (a segment of a few h0). The step's own midpoint
 * can lie a fraction of h0 after t0, and the quadratic through two points
 * that close (from the chain's state and the flow's) would extrapolate
 * their difference over the segment. */
static double loss_mid(ex *a, double t0, double t1, const double **xm)
{
    double u = floor(((t0 + t1) / 2 - a->t) / a->h0 + 0.5), tm = a->t + u * a->h0;
    if (!(tm >= t0 + (t1 - t0) / 4 && tm <= t1 - (t1 - t0) / 4)) return a->t;
    nsc_flow_advance(a->F, (long)u, a->x, a->lxm, a->wk);
    *xm = a->lxm;
    return tm;
}

/* The segment a->t -> t1 of the flow (from a->x; midpoint xm at tm when
 * tm > a->t; end x1) into the losses; its end's point kept as the next
 * segment's start when keep (same flow, no breakpoint: the sources not
 * reseeded). Within the chain after an event step, the chain's substeps up to
 * t1 instead; the segment that passes the chain's end starts from there. */
static void loss_seg(ex *a, double tm, double t1, const double *xm, const double *x1, int keep)
{
    if (!a->T->acc) return;
    double t0 = a->t;
    const double *x0 = a->x;
    while (a->lch > 0 && a->lct + a->h0 <= t1 + 0.5 * a->h0) loss_chain_step(a);
    if (a->lch > 0 || (a->lcpend && t1 - a->lct <= 0.5 * a->h0)) {
        a->lp0_ok = 0, a->lpts = 0;
        return;
    }
    if (a->lcpend) { /* from the chain's end */
        t0 = a->lct > t0 ? a->lct : t0;
        seed_from(a, t0, a->lcz, a->lx);
        x0 = a->lx, a->lp0_ok = 0, a->lcpend = 0, a->lpts = 0;
        tm = loss_mid(a, t0, t1, &xm);
    }
    if (!a->lp0_ok) loss_point(a, x0, a->lp0);
    if (!a->lpts && tm > t0) loss_point(a, xm, a->lpm);
    if (!a->lpts) loss_point(a, x1, a->lp1);
    a->lpts = 0;
    nsc_loss_acc_segment(a->T->acc, t0, tm, t1, a->lp0, tm > t0 ? a->lpm : NULL, a->lp1);
    double *q = a->lp0;
    a->lp0 = a->lp1, a->lp1 = q;
    a->lp0_ok = keep;
}

/* ---- the mode change ---- */

/* --events: the pairs whose mode changes (mask -> mode1) and the switches that flip, at t. */
static int log_changes(ex *a, double t, const char *mode1)
{
    for (int j = 0; a->have_mask && j < a->m; j++)
        if (mode1[j] != a->mask[j] && nsc_waves_event(a->T->W, t, a->L->pair_name[j], mode1[j]))
            return -1;
    for (int k = 0; k < a->nsw; k++)
        if (a->sw1[k] != a->T->sw[k]
            && nsc_waves_event(a->T->W, t, a->T->c->el[a->L->sw[k].el].name, a->sw1[k]))
            return -1;
    return 0;
}

/* The memo of the event whose old mode is (mask, sw) and whose guards fail as
 * in althi; else one from the same mode (exact = 0); NULL when none. */
static exmemo *memo_find(ex *a, int *exact)
{
    int m = a->m, nk = m + a->nsw;
    exmemo *near = NULL;
    memcpy(a->key, a->mask, (size_t)m);
    memcpy(a->key + m, a->T->sw, (size_t)a->nsw);
    for (int q = 0; q < a->nmemo; q++) {
        if (memcmp(a->memo[q].from, a->key, (size_t)nk)) continue;
        if (!memcmp(a->memo[q].hit, a->althi, (size_t)m)) {
            *exact = 1;
            return &a->memo[q];
        }
        near = &a->memo[q];
    }
    *exact = 0;
    return near;
}

/* Remember the event from (mask, sw, althi) to mode1: in e (the entry found
 * for exactly that), else a new entry (round robin). */
static void memo_add(ex *a, exmemo *e, const char *mode1)
{
    int m = a->m, nk = m + a->nsw;
    if (e) {
        memcpy(e->to, mode1, (size_t)m);
        return;
    }
    e = &a->memo[a->nmemo < NSC_EX_MEMO ? a->nmemo : a->memo_next];
    if (a->nmemo < NSC_EX_MEMO) {
        if (!(e->from = malloc((size_t)(nk + 2 * m) + 1))) return;
        a->nmemo++;
    } else {
        a->memo_next = (a->memo_next + 1) % NSC_EX_MEMO;
    }
    e->hit = e->from + nk, e->to = e->hit + m;
    memcpy(e->from, a->mask, (size_t)m);
    memcpy(e->from + m, a->T->sw, (size_t)a->nsw);
    memcpy(e->hit, a->althi, (size_t)m);
    memcpy(e->to, mode1, (size_t)m);
}

/* Stop here for the adaptive stepper: the state at t (z, every pair's l,
 * switch states, the last row's probes) into T's hand-over arrays. */
static nsc_status hand_over(ex *a)
{
    nsc_tran *T = a->T;
    if (a->F) {                                  /* inside a mode (seeded at t): every pair's */
        nsc_flow_pairs(a->F, a->x, a->g, a->pw); /* multiplier, not only those the probes read */
        for (int i = 0; i < a->m; i++) a->l[i] = pair_l(a, i, a->g[i]);
    }
    memcpy(T->hz, a->z, sizeof(double) * (size_t)a->n);
    memcpy(T->hl, a->l, sizeof(double) * (size_t)a->m);
    if (T->hmode && a->have_mask) memcpy(T->hmode, a->mask, (size_t)a->m);
    else T->hmode = NULL;
    for (int j = 0; j < a->nsrc; j++) T->hw[j] = nsc_wave_eval(a->L->src[j].wave, a->t);
    memcpy(T->hv, a->v1, sizeof(double) * (size_t)a->nc);
    T->hv[0] = a->t;
    T->t0 = a->t;
    T->handover = 1;
    T->st->exact = 2;
    T->st->exact_until = a->t;
    return NSC_OK;
}

/* hand_over at a mode change on continuous kinks alone (kinks_only): the
 * adaptive stepper takes such kinks inside its steps (nsc_tran.handover_kinks). */
static nsc_status hand_over_kinks(ex *a)
{
    a->T->handover_kinks = 1;
    return hand_over(a);
}

/* max |x_i| over x[n]. */
static double vmax(const double *x, int n)
{
    double v = 0;
    for (int i = 0; i < n; i++) v = fabs(x[i]) > v ? fabs(x[i]) : v;
    return v;
}

/* The event step's problem over (t, t + dt] solved from z (guesses: the
 * remembered outcome, the current mode, the mode with the failing guards
 * changed) into z1, l. 0, 1 when it has no solution (info, *P say why), or
 * a failure status (negative). */
static int ev_solve(ex *a, double dt, nsc_onestep **P, nsc_step_info *info, exmemo **hit)
{
    nsc_tran *T = a->T;
    const nsc_lcs *L = a->L;
    double t = a->t, tn = t + dt, k = dt / a->h0;
    int oneoff = !(k == ldexp(1.0, ilogb(k))); /* 2^j h0: a regular slot of the cache */
    nsc_status s = nsc_pcache_get(T->cache, dt, 1.0, T->sw, oneoff, P, T->st, T->r);
    if (s) return -(int)s;
    int exact = 0;
    exmemo *me = a->have_alt && a->have_mask ? memo_find(a, &exact) : NULL;
    *hit = exact ? me : NULL;
    nsc_onestep_set_mode(*P, me ? me->to : a->have_mask ? a->mask : NULL);
    nsc_onestep_set_alt(*P, me ? a->mask : a->have_alt ? a->althi : NULL);
    for (int j = 0; j < a->nsrc; j++) {
        a->w[j] = nsc_wave_eval(L->src[j].wave, t);
        a->w1[j] = nsc_wave_eval(L->src[j].wave, tn);
    }
    if ((s = nsc_lcs_check_step(L, T->c, a->w1, NULL, NULL, tn, T->r))) return -(int)s;
    int bad = nsc_onestep_step(*P, a->o->solver, a->z, a->w, a->w1, a->z1, a->l, info);
    nsc_onestep_set_alt(*P, NULL);
    nsc_count_solve(T->st, info);
    if (!bad && (s = nsc_lcs_check_step(L, T->c, NULL, a->z1, a->l, tn, T->r))) return -(int)s;
    if (!bad && info->lcp_solved && !info->polished
        && !(info->residual <= 1e-9 * (1 + vmax(a->z1, a->n))))
        bad = 1; /* pivoting result not exact: as no solution */
    if (!bad
        && (s = nsc_step_pairs(L, T->c, *P, info, T->st->steps == 0, a->z1, a->l, a->w1, tn, T->r)))
        return -(int)s;
    return bad ? 1 : 0;
}

/* The next time no step crosses: the next breakpoint after t, tstart (when
 * ahead), tstop; with interp the grid's next time. */
static double target(const ex *a)
{
    double tg = nsc_bpq_after(a->T->bp, a->t + a->eps), tstop = a->o->tstop;
    tg = tg < tstop ? tg : tstop;
    if (a->t < a->o->tstart - a->eps && a->o->tstart < tg) tg = a->o->tstart;
    if (a->o->interp) {
        double tj = nsc_grid_time(a->o, a->T->jout, a->eps);
        tg = tj > a->t + a->eps && tj < tg ? tj : tg;
    }
    return tg;
}

/* One implicit-Euler step of the one-step problem over (t, t + dt] from z,
 * guessing the current mode: the mode change at a located event (and the
 * impulsive transfers it makes). The new mode, switch states and row. A
 * step without solution is retried 8 and 64 times longer (at most href, never across target()): a
 * step of a few h0 across the event can be too short for the problem's
 * conditioning (W = E/dt - A), where a longer one is not. */
static nsc_status ev_step(ex *a, double dt)
{
    nsc_tran *T = a->T;
    const nsc_lcs *L = a->L;
    nsc_onestep *P = NULL;
    nsc_step_info info;
    nsc_status s;
    exmemo *memo = NULL;
    int had_alt = a->have_alt, r = 1;
    double tcap = target(a); /* (never across it: a corner, tstart, tstop) */
    if (a->t + dt > tcap) dt = tcap - a->t;
    for (int q = 0; q < 3 && r == 1; q++) {
        if (q > 0 && (dt * 8 > a->href || a->t + dt * 8 > tcap)) break;
        if (q > 0) dt *= 8;
        r = ev_solve(a, dt, &P, &info, &memo);
    }
    a->have_alt = 0;
    if (r < 0) return (nsc_status)-r;
    double tn = a->t + dt;
    if (r) {
        nsc_step_failure(T->r, L, P, tn, &info, a->o->solver);
        return NSC_ESIM;
    }
    const char *mode1 = nsc_onestep_mode(P);
    if (!mode1) mode1 = a->mask; /* no pairs (m = 0): the empty mode */
    int moved = a->have_mask && memcmp(mode1, a->mask, (size_t)a->m);
    if (had_alt && moved && (!memo || info.lcp_solved || info.active_set)) memo_add(a, memo, mode1);
    memcpy(a->sw1, T->sw, (size_t)a->nsw);
    int nflip = a->nsw ? nsc_lcs_switch_update(L, a->z1, a->sw1) : 0;
    int changed = nflip || !a->have_mask || moved;
    if (T->acc) /* (the step's switch states: before the update) */
        nsc_loss_acc_step(T->acc, 1.0, a->t, tn, a->z, a->z1, a->l, a->w, a->w1, T->sw, mode1);
    if (T->acc) { /* the chain from the step's end (loss_seg) */
        memcpy(a->lcz, a->z1, sizeof(double) * (size_t)a->n);
        a->lct = tn, a->lch = NSC_EX_LCHAIN, a->lcpend = 1, a->lp0_ok = 0;
    }
    if (a->o->events && log_changes(a, tn, mode1)) return nsc_oom(T->r);
    nsc_eval_probes(T->f, T->nprobe, L, T->sw, a->z1, a->l, a->z, dt, a->w1, a->v1 + 1);
    a->t = tn;
    count(a, dt, changed && a->have_mask);
    T->st->switch_events += nflip;
    if ((s = add_row(a, tn, a->v1, a->l))) return s;
    memcpy(a->z, a->z1, sizeof(double) * (size_t)a->n);
    memcpy(a->mask, mode1, (size_t)a->m);
    memcpy(T->sw, a->sw1, (size_t)a->nsw);
    a->have_mask = 1;
    a->F = NULL;
    a->v0_ok = 0;
    if (dt < 1e-6 * a->href && ++a->evrun > NSC_EX_EVRUN)
        return hand_over(a); /* chattering: captured there */
    return NSC_OK;
}

/* ---- steps ---- */

static double chord_err(const ex *a);
static nsc_status kink_take(ex *a, long khi, double ek);
static long grow(const ex *a, long k, double e, double lim);

/* The probes of the exact step (t, t + klo h0] that precedes a located event
 * (its end a->xm): v0 at t, vm (lm) at its midpoint, v1 (a->l) at its end; the
 * chord's error there (chord_err, 0 when klo < 2), as a step's own test: the
 * rows before an event are as close as the error control's elsewhere. */
static double lead_in(ex *a, long klo)
{
    if (!a->v0_ok) x_probes(a, a->x, NULL, a->v0);
    double e = 0;
    if (klo >= 2) {
        nsc_flow_advance(a->F, klo / 2, a->x, a->xm2, a->wk);
        x_probes(a, a->xm2, NULL, a->vm);
        memcpy(a->lm, a->l, sizeof(double) * (size_t)a->m);
    }
    x_probes(a, a->xm, NULL, a->v1);
    if (klo >= 2) e = chord_err(a);
    if (klo >= 2 && a->T->acc)
        e = fmax(e, loss_check(a, a->t + (double)(klo / 2) * a->h0, a->t + (double)klo * a->h0,
                               a->xm2, a->xm));
    return e;
}

/* The flow's state xs at t + klo h0 carried to the start of the event's interval
 * (t + klo h0, t + khi h0] by bisection (its trials at klo plus powers of 2, one
 * product each) down to ktol units (the guards fail
 * at its end; ktol a power of 2: the event step's problem is a regular slot of
 * the cache); a row there; then the event step of ktol units from there. */
static nsc_status locate(ex *a, const double *xs, long klo, long khi, long ktol)
{
    const nsc_flow *F = a->F;
    size_t nb = sizeof(double) * (size_t)a->N;
    memcpy(a->xm, xs, nb);
    memcpy(a->althi, a->alt, (size_t)a->m); /* (the check that found the event) */
    long half = 1;                          /* bisection on a power-of-2 grid from klo: */
    while (2 * half < khi - klo) half *= 2; /* each trial one level of the flow */
    for (; khi - klo > ktol && half > 0; half /= 2) {
        long kmid = klo + half;
        if (kmid >= khi) continue; /* (beyond the bracket: known to fail) */
        nsc_flow_advance(F, half, a->xm, a->x1, a->wk);
        if (violated(a, a->x1, a->wv)) {
            khi = kmid;
            memcpy(a->althi, a->alt, (size_t)a->m);
        } else {
            klo = kmid;
            memcpy(a->xm, a->x1, nb);
        }
    }
    a->have_alt = 1;
    a->T->st->locate_trials++;
    if (klo > 0) { /* an exact step to the interval's start */
        double t1 = a->t + (double)klo * a->h0, e = lead_in(a, klo);
        if (e > 4) { /* its chord fails: a shorter step first */
            a->kcur = pow2_below(klo / 2);
            a->have_alt = 0;
            a->lpts = 0;
            a->T->st->rejected++;
            return NSC_OK;
        }
        nsc_status s = e > 1 ? add_row(a, a->t + (double)(klo / 2) * a->h0, a->vm, a->lm) : NSC_OK;
        if (s) return s;
        loss_seg(a, a->t + (double)(klo / 2) * a->h0, t1, a->xm2, a->xm, 0);
        a->t = t1;
        count(a, (double)klo * a->h0, 0);
        if ((s = add_row(a, t1, a->v1, a->l))) return s;
        memcpy(a->z, a->xm, sizeof(double) * (size_t)a->n);
    }
    a->v0_ok = 0;
    return ev_step(a, (double)ktol * a->h0); /* (>= khi - klo: across the change) */
}

/* 1 when the mode althi (flow Fn) holds at the bracket's end: every pair's
 * guard (violated's phi_i = gsgn_i g_i >= -gtol_i, the signs of the new
 * mode, the tolerances of the old) from the pair rows at kxh, and the
 * switches unchanged at the new mode's state a substep later (kxb: its
 * algebraic part the new mode's). */
static int kink_holds(ex *a, const nsc_flow *Fn)
{
    nsc_flow_pairs(Fn, a->kxh, a->kg, a->kw);
    for (int i = 0; i < a->m; i++) {
        double sg = a->althi[i] && Fn->dinv[i] > 0 ? -1.0 : 1.0;
        if (sg * a->kg[i] < -a->gtol[i]) return 0;
    }
    if (!a->nsw) return 1;
    memcpy(a->sw1, a->T->sw, (size_t)a->nsw);
    return nsc_lcs_switch_update(a->L, a->kxb, a->sw1) == 0;
}

/* The rows' error, in units of RELTOL |v| + ATOL, of taking the kinks at the
 * bracket's end: the probes of the two modes a substep after xh (kxa the
 * old's, kxb the new's, Fn) differ by the probes' change of slope times the
 * overshoot (and the substep), and the straight line from the last row to
 * the kink's row (the new mode's, kink_settle) misses the corner by at most
 * that. First order in the overshoot for an algebraic output (a diode
 * clipper's v(out), all algebraic, has its corner there: 3.8 % of range
 * between rows when this was not checked), second order for a state. */
static double kink_rows(ex *a, nsc_flow *Fn)
{
    nsc_flow *Fo = a->F;
    x_probes(a, a->kxa, NULL, a->kv0);
    memcpy(a->kmask, a->mask, (size_t)a->m);
    memcpy(a->mask, a->althi, (size_t)a->m); /* (pair_l reads the mode) */
    a->F = Fn;
    x_probes(a, a->kxb, NULL, a->kv1);
    memcpy(a->mask, a->kmask, (size_t)a->m);
    a->F = Fo;
    double e = 0;
    for (int q = 1; q < a->nc; q++) {
        double tol = a->o->reltol * fmax(fabs(a->kv0[q]), fabs(a->kv1[q])) + a->rtol[q];
        double r = fabs(a->kv1[q] - a->kv0[q]) / tol;
        e = r > e ? r : e;
    }
    return e;
}

/* The state error, in units of the tolerance, of taking the continuous kinks
 * found at the end of a bracket of w units of h0 as if they happened there (kink):
 * the pairs crossed (althi) change the vector field by a difference that is
 * zero at the crossing tc and grows linearly, c (s - tc), so that switching
 * late by delta <= w h0 misplaces the state by c delta^2 / 2. The two modes'
 * flows over one substep from the bracket's end xh (kxh) differ by
 * d = c h0 (delta + h0 / 2), hence the error is at most |d| w / 2, taken
 * over the dynamic states (zdyn; the algebraic ones follow the mode) against
 * RELTOL |x_i| + ATOL (VNTOL for a node's voltage). The new mode's flow is
 * looked up in the cache, never built (the modes of brackets not yet
 * narrowed to one crossing would be built for nothing), into *Fn; a->F and
 * a->mask are restored. -2: the flow not cached, -1: no flow (singular).
 * *bad (and INFINITY): the new mode's own guards fail at xh (kink_holds): a
 * change the kinks bring about (a body diode's current taken over by the
 * channel, which the old mode never sees) lies inside the bracket. */
static double kink_err(ex *a, long w, nsc_flow **Fn, int *bad)
{
    nsc_flow *Fo = a->F;
    nsc_loss_map *lmo = a->lmap;
    memcpy(a->kmask, a->mask, (size_t)a->m);
    memcpy(a->mask, a->althi, (size_t)a->m);
    a->F = NULL;
    a->lookup_only = 1;
    int s = flow_get(a);
    a->lookup_only = 0;
    *Fn = a->F;
    memcpy(a->mask, a->kmask, (size_t)a->m);
    a->F = Fo, a->lmap = lmo;
    if (s) return s == 3 ? -2 : -1;
    nsc_flow_advance(*Fn, 1, a->kxh, a->kxb, a->wk);
    if ((*bad = !kink_holds(a, *Fn))) return INFINITY;
    nsc_flow_advance(Fo, 1, a->kxh, a->kxa, a->wk);
    double e = 0;
    for (int i = 0; i < a->n; i++) {
        if (!a->zdyn[i]) continue;
        double tol = a->o->reltol * fmax(fabs(a->kxh[i]), fabs(a->kxb[i]))
                     + (i < a->L->nnode_z ? a->o->vntol : a->o->abstol);
        double r = fabs(a->kxb[i] - a->kxa[i]) * 0.5 * (double)w / tol;
        e = r > e ? r : e;
    }
    double er = kink_rows(a, *Fn) / NSC_EX_KROW; /* (first order in w: squared, as e) */
    return fmax(e, NSC_EX_KERR * er * er);
}

/* The offset in [lo, hi] (1 <= lo <= hi) with the fewest bits set, as hi
 * with its lowest bits cleared while it stays >= lo: the flow advances by one
 * product a bit (flow.h), so that a trial placed anywhere in a window costs
 * one or two products, as a bisection's power of 2 does. */
static long cheap_in(long lo, long hi)
{
    long d = hi;
    while (d & (d - 1)) {
        long e = d & (d - 1); /* (d without its lowest bit) */
        if (e < lo) break;
        d = e;
    }
    return d;
}

/* Where the guards failed at the end of the bracket (klo, khi] cross, in
 * units of h0 from a->t: the earliest of their secants, pair i's
 * f_i = phi_i + gtol_i (phi_i = gsgn_i g_i, g_i = w_u + cst_i of the pair
 * rows kwlo at klo, kwhi at khi) from f_i(klo) >= 0 to f_i(khi) < 0. A pair
 * row along a mode's flow is a sum of the flow's exponentials, smooth in the
 * time: the secant's error is O(w^2 g'' / g') for a bracket of w (none for a
 * guard linear in the time, a ramp's). -1 when a switch alone failed there
 * (kswhi: its control is not a pair row). *sn: the earliest of the pairs
 * that are no continuous kinks (INFINITY: none). */
static double cross_est(const ex *a, long klo, long khi, double *sn)
{
    const nsc_flow *F = a->F;
    double s = INFINITY, w = (double)(khi - klo);
    *sn = INFINITY;
    if (a->kswhi) return -1;
    for (int i = nsc_flags_next_diff(a->althi, a->mask, 0, a->m); i < a->m;
         i = nsc_flags_next_diff(a->althi, a->mask, i + 1, a->m)) {
        int u = F->umap[i];
        if (u == F->nu) continue; /* (a constant row: fails at klo too) */
        double flo = a->gsgn[i] * (a->kwlo[u] + F->cst[i]) + a->gtol[i];
        double fhi = a->gsgn[i] * (a->kwhi[u] + F->cst[i]) + a->gtol[i];
        if (!(fhi < 0)) continue;
        double th = flo > 0 ? flo / (flo - fhi) : 0, si = (double)klo + th * w;
        s = fmin(s, si);
        if (!a->L->pair_cont || !a->L->pair_cont[i]) *sn = fmin(*sn, si);
    }
    return s < INFINITY ? s : -1;
}

/* Where kink wants a bracket's ends: d past the crossing s (cross_est) and
 * r before it, in units of h0. */
typedef struct kplan {
    double d, r;
} kplan;

/* An event's plan: a bracket of ktol units about the crossing. */
static kplan event_plan(long ktol)
{
    kplan p = { 0.5 * (double)ktol, 0.5 * (double)ktol };
    return p;
}

/* The plan while the mode at the bracket's end is not cached or fails at
 * once (kink_err -2, bad) at the overshoot over past the crossing: the end
 * brought back to 0.3 of it and the new mode asked again there (the modes
 * of a bracket holding several crossings often are; taken together they
 * are one step), down to an event's (ktol). */
static kplan retry_plan(double over, long ktol)
{
    double d = fmax(0.5 * over, 0.5 * (double)ktol);
    kplan p = { d, fmax(1 + d / 4, 0.5 * (double)ktol) };
    return p;
}

/* The plan after kink_err's e > NSC_EX_KERR (or bad) at the bracket (klo, khi]
 * whose guards cross at s. kink_err measures the modes' difference a substep
 * past the bracket's end, c (delta + 1/2) for the overshoot delta = khi - s,
 * times half the width: e = c' (khi - s + 1/2)(khi - klo). A bracket from
 * s - r to s + d has e = c' (d + 1/2)(d + r): d the largest with that within
 * 0.7 NSC_EX_KERR for r = 1 + d / 4 (the secant's margin), so that the
 * step ends as far past the kink as the tolerance allows (the next step
 * starts there; kinks close together are taken at once); less than 0.7 of
 * the overshoot that failed, half of it when the new mode failed at the end
 * (bad: a change it brings about lies before), at least 1. */
static kplan kink_plan(double e, long klo, long khi, double s)
{
    double over = fmax((double)khi - s, 0), c = e / ((over + 0.5) * (double)(khi - klo));
    double A = 1.25, B = 1 + 0.5 * A, C = 0.5 - 0.7 * NSC_EX_KERR / c; /* A d^2 + B d + C <= 0 */
    double d = (-B + sqrt(fmax(B * B - 4 * A * C, 0))) / (2 * A);
    d = fmin(d, 0.7 * over);
    kplan p = { fmax(d, 1), 1 + fmax(d, 1) / 4 };
    return p;
}

/* The next trial inside the bracket (klo, khi), toward the plan p about the
 * crossing s (cross_est): the end first, within [s + 3d/4, s + d] (its
 * time from the step's start with the fewest bits: lead_in advances to half
 * of it), then the start within [s - r, s - r/4]; a bisection (the bracket's middle, on a
 * power of 2 from klo) when there is no secant, or bis (the last trial fell
 * on the side not expected, or the plan is met and the bracket still too
 * wide). *exp: 1 when the trial is expected to fail (it lies past s), 0
 * before it, -1 a bisection. */
static long kink_next(long klo, long khi, double s, kplan p, int bis, int *exp)
{
    *exp = -1;
    if (s < 0 || bis) return klo + pow2_below((khi - klo + 1) / 2);
    double lo, hi;
    *exp = (double)khi > s + p.d + 0.5;
    if (*exp) lo = ceil(s + 0.75 * p.d), hi = floor(s + p.d);
    else lo = ceil(s - p.r), hi = floor(s - 0.25 * p.r);
    if (lo > hi) lo = hi = *exp ? ceil(s) : floor(s);
    lo = fmax(lo, (double)(klo + 1)), hi = fmin(hi, (double)(khi - 1));
    if (lo > hi)
        lo = hi = fmin(fmax(*exp ? ceil(s) : floor(s), (double)(klo + 1)), (double)(khi - 1));
    return *exp ? cheap_in((long)lo, (long)hi) : klo + cheap_in((long)lo - klo, (long)hi - klo);
}

/* 1 when the bracket (klo, khi] meets the plan p about s (no secant: when it is one unit). */
static int kink_in(long klo, long khi, double s, kplan p)
{
    if (s < 0) return khi - klo <= 1;
    return (double)khi - s <= p.d + 0.5 && s - (double)klo <= p.r + 0.5;
}

/* The change found in (t + klo h0, t + khi h0] (xs the flow's state at klo,
 * xh at khi, wlo and whi their distinct pair rows, a->alt the guards failed
 * at khi) bracketed on the flow (one or two products a trial): each trial is
 * placed by the failed guards' secants (kink_next) toward a plan. While the
 * guards failed at the bracket's end are continuous kinks alone
 * (cont_kink), the plan is kink_err's (kink_plan): an exact step goes to the
 * bracket's end once its kink error is within the tolerance and the mode
 * with the crossed pairs changed (their guards failed there, so the new
 * mode's hold) goes on from the same state (the state is continuous across a
 * kink, no implicit-Euler step is needed; kink_take). Any other change (a
 * switch, an ideal diode, a comparator's step), a new mode not cached or
 * failing at once, or a kink not within the tolerance at h0, is bracketed
 * to ktol units and located (locate). */
static nsc_status kink(ex *a, const double *xs, long klo, long khi, const double *xh,
                       const double *wlo, const double *whi, long ktol)
{
    size_t nb = sizeof(double) * (size_t)a->N, nw = sizeof(double) * (size_t)(a->F->nu + 1);
    memcpy(a->kxh, xh, nb); /* (xh may be a->xm: first) */
    if (xs != a->xm) memcpy(a->xm, xs, nb);
    memcpy(a->kwlo, wlo, nw);
    memcpy(a->kwhi, whi, nw);
    memcpy(a->althi, a->alt, (size_t)a->m);
    a->kswhi = a->swbad;
    nsc_flow *Fn = NULL;
    int cont = cont_kink(a), ask = cont, exp = -1, wrong = 0, evt = !cont, retry = 0;
    kplan p = event_plan(ktol);
    for (;;) {
        double sn, s = cross_est(a, klo, khi, &sn);
        if (!cont && a->kinks && s >= 0 && sn < (double)khi && sn - s > 2) {
            p.d = 0.75 * (sn - s); /* kinks first, then an event: the kinks alone, */
            p.r = 1 + p.d / 4;     /* as many as come before it (cont_kink asks then) */
        }
        int in = kink_in(klo, khi, s, p);
        if (cont && (ask || in)) {
            int bad = 0;
            double e = kink_err(a, khi - klo, &Fn, &bad);
            ask = 0;
            evt = e < 0 || bad; /* (at ktol: located as an event) */
            retry = e == -2 || bad;
            if (e == -1) cont = 0; /* a singular mode: the event step */
            if (!bad && e >= 0 && e <= NSC_EX_KERR) return kink_take(a, khi, e);
            double sc = s < 0 ? (double)klo : s;
            p = e == -1 ? event_plan(ktol)
                : e == -2 || bad
                    ? retry_plan((double)khi - sc, ktol) /* (asked again as khi moves) */
                    : kink_plan(e, klo, khi, sc);
            in = kink_in(klo, khi, s, p);
        }
        if (khi - klo <= 1 || (evt && khi - klo <= ktol)) break;
        long kmid = kink_next(klo, khi, s, p, wrong || in, &exp);
        nsc_flow_advance(a->F, kmid - klo, a->xm, a->x1, a->wk);
        a->T->st->bracket_trials++;
        int v = violated(a, a->x1, a->kwt);
        wrong = exp >= 0 && v != exp;
        if (!v) {
            klo = kmid;
            memcpy(a->xm, a->x1, nb);
            memcpy(a->kwlo, a->kwt, nw);
            continue;
        }
        khi = kmid;
        ask |= retry || memcmp(a->althi, a->alt, (size_t)a->m) != 0; /* (another set failed) */
        memcpy(a->althi, a->alt, (size_t)a->m);
        memcpy(a->kxh, a->x1, nb);
        memcpy(a->kwhi, a->kwt, nw);
        a->kswhi = a->swbad;
        int c = cont_kink(a);
        if (c != cont) ask = 1, p = event_plan(ktol);
        cont = c;
        evt |= !cont;
    }
    memcpy(a->alt, a->althi, (size_t)a->m); /* (a kink not within the tolerance at h0: an event) */
    return locate(a, a->xm, klo, khi, ktol);
}

/* After a kink's mode change at a->t (mask the new mode): the state's
 * algebraic part (the z_i outside E's columns) made the new mode's, from the
 * new flow's first substep (O(h0) off; an extrapolation from two substeps is
 * O(h0^2) but not L-stable: a boost's diode turning off into its switch's
 * ROFF, L / ROFF = 0.1 ps against h0 = 10 ps, gave v(sw) -7.5 V for +5 V):
 * the old mode's differs by the field's change of slope times the overshoot,
 * a jump the next step's chord test would see at its start (and the row at t
 * would keep). The probes there into v when v (a->l the new mode's multipliers).
 * 0, or flow_get's status (then nothing changed; the next step meets it). */
static int kink_settle(ex *a, double *v)
{
    a->F = NULL;
    int s = flow_get(a);
    if (s) {
        a->F = NULL;
        return s;
    }
    seed(a, a->t);
    nsc_flow_advance(a->F, 1, a->x, a->kxa, a->wk);
    for (int i = 0; i < a->n; i++)
        if (!a->zdyn[i]) a->z[i] = a->x[i] = a->kxa[i];
    if (v) x_probes(a, a->x, NULL, v);
    a->settled = 1; /* (step: guard_tol; its flow_get, seed and probes at t are these) */
    return 0;
}

/* kink's end: the exact step to t + khi h0 (state kxh), then the mode althi
 * from there; the next step at most NSC_EX_KNEXT times as long (the kinks of
 * a gate's ramp follow one another: a step across several is bisected back
 * to the first), or as long as the next kink's error, ek (kink_err) grown as
 * the square of the step (grow), stays within half NSC_EX_KERR: the band
 * buck's gate edge crosses 32 MOS segments 20-40 h0 apart, each taken at
 * e ~ 1e-4..1e-2 of the tolerance, and the factor 4 ratcheted the step down
 * to 8 h0 across the edge. */
static nsc_status kink_take(ex *a, long khi, double ek)
{
    size_t nb = sizeof(double) * (size_t)a->N;
    memcpy(a->xm, a->kxh, nb); /* an exact step to the bracket's end */
    double t1 = a->t + (double)khi * a->h0, e = lead_in(a, khi);
    if (e > 4) { /* its chord fails: a shorter step first */
        a->kcur = pow2_below(khi / 2 > 0 ? khi / 2 : 1);
        a->T->st->rejected++;
        return NSC_OK;
    }
    nsc_status s = e > 1 ? add_row(a, a->t + (double)(khi / 2) * a->h0, a->vm, a->lm) : NSC_OK;
    if (s) return s;
    a->t = t1;
    count(a, (double)khi * a->h0, 0);
    memcpy(a->z, a->xm, sizeof(double) * (size_t)a->n);
    memcpy(a->sw1, a->T->sw, (size_t)a->nsw); /* (no switch flips: log_changes reads sw1) */
    if (a->o->events && log_changes(a, t1, a->althi)) return nsc_oom(a->T->r);
    memcpy(a->mask, a->althi, (size_t)a->m);
    kink_settle(a, a->v1); /* (the row at t1: the new mode's, t1 past the kink) */
    if ((s = add_row(a, t1, a->v1, a->l))) return s;
    a->T->st->kinks++;
    long kn = pow2_below(NSC_EX_KNEXT * khi), ke = grow(a, khi, ek, 0.5 * NSC_EX_KERR);
    if (ke > kn) kn = ke; /* (the next kink within half the tolerance taken at once) */
    if (kn < a->kcur) a->kcur = kn;
    a->have_alt = 0;
    a->v0_ok = a->settled; /* (the row's probes: the next step's start) */
    if (a->settled) memcpy(a->v0, a->v1, sizeof(double) * (size_t)a->nc);
    a->evrun = 0;
    return NSC_OK;
}

/* max over the probes of |vm - (v0 + v1) / 2| / (RELTOL max |v| + ATOL): the chord's error at the midpoint. */
static double chord_err(const ex *a)
{
    double e = 0;
    for (int q = 1; q < a->nc; q++) {
        double v0 = a->v0[q], vm = a->vm[q], v1 = a->v1[q];
        double tol = a->o->reltol * fmax(fabs(vm), fmax(fabs(v0), fabs(v1))) + a->rtol[q];
        double r = fabs(vm - 0.5 * (v0 + v1)) / tol;
        if (r > e) e = r;
    }
    return e;
}

/* The step's size in units of h0 toward target (kt units and rem seconds
 * away): the error control's, or landing on the target when within 5/4 of it,
 * or half the way when within 2. *land: 1 when it lands. */
static long step_units(const ex *a, long kt, int *land)
{
    long k = a->kcur;
    *land = 0;
    if (kt <= k + k / 4 && kt <= a->kmax) {
        *land = 1;
        return kt;
    }
    if (kt < 2 * k) return kt / 2;
    return k;
}

/* The next step after one of k units whose error e (in units of the
 * tolerance) grows as the square of its length: the chord's midpoint error
 * h^2 |x''| / 8 (step), a kink's state error c delta w / 2 (kink_err, its
 * overshoot delta <= w). k (a power of 2 below it) doubled while the error
 * predicted there, e 4^j, stays below lim, at most NSC_EX_GROW k and kmax.
 * A doubling a step (the rule before) needs log2 of the ratio in steps to
 * climb back after an event: the band buck took 14 from 38 ps to 312 ns
 * after each of its edges, each with e far below the tolerance. */
static long grow(const ex *a, long k, double e, double lim)
{
    long g = pow2_below(k);
    for (double eg = 4 * e; eg < lim && 2 * g <= a->kmax && g < NSC_EX_GROW * k; eg *= 4) g *= 2;
    return g;
}

/* Accept the trial t -> t1 (midpoint xm at tm, end x1; e its chord error): rows, state, next size. */
static nsc_status accept(ex *a, double tm, double t1, long k, int land, double e)
{
    nsc_status s;
    if (e > 1 && tm > a->t && (s = add_row(a, tm, a->vm, a->lm))) return s;
    count(a, t1 - a->t, 0);
    a->t = t1;
    if ((s = add_row(a, t1, a->v1, a->l))) return s;
    memcpy(a->z, a->x1, sizeof(double) * (size_t)a->n);
    memcpy(a->v0, a->v1, sizeof(double) * (size_t)a->nc);
    a->v0_ok = !land; /* (a breakpoint reseeds the sources) */
    a->evrun = 0;
    if (!land || k >= a->kcur) {
        k = pow2_below(k);
        if (e < 0.25 && 2 * k <= a->kmax) a->kcur = k >= 2 ? grow(a, k, e, 1) : 2 * k;
        else if (e > 1) a->kcur = k / 2 > 0 ? k / 2 : 1;
        else a->kcur = k;
    }
    return NSC_OK;
}

/* x1 carried on by r < h0: the quadratic through the flow at 0, h0, 2 h0 (error
 * O(h0^3 x''')); linear over one substep it was O(r h0 x''): 4e-5 V after an
 * RC's 1 ns edge with h0 = 10 ns. */
static void rest(ex *a, double r)
{
    double s = r / a->h0, c1 = s * (2 - s), c2 = s * (s - 1) / 2, c0 = 1 - c1 - c2;
    nsc_flow_advance(a->F, 1, a->x1, a->xt, a->wk);  /* x(h0) */
    nsc_flow_advance(a->F, 1, a->xt, a->xm2, a->wk); /* x(2 h0) */
    for (int i = 0; i < a->N; i++) a->x1[i] = c0 * a->x1[i] + c1 * a->xt[i] + c2 * a->xm2[i];
}

/* One step from a->t in the current mode (or the mode change that interrupts it). */
static nsc_status step(ex *a)
{
    nsc_tran *T = a->T;
    int fresh = !a->F || a->settled;
    if (!a->F) {
        int s = flow_get(a);
        if (s == 1) return ev_step(a, a->h0); /* a singular mode: the scheme's step */
        if (s == 2) return hand_over(a);
        if (s) return (nsc_status)s;
    }
    if (!a->settled) seed(a, a->t);
    a->settled = 0;
    if (fresh) guard_tol(a, a->x);
    if (violated(a, a->x, a->wv)) { /* the mode ends at t (a source's corner) */
        if (kinks_only(a)) return hand_over_kinks(a);
        keep_alt(a);
        return ev_step(a, a->h0);
    }
    double tg = target(a);
    double kd = floor((tg - a->t) / a->h0
                      + 1e-6); /* (up to tstop / h0: 2e9 2^40 overflows a long) */
    long kt = kd < 4.0 * (double)a->kmax ? (long)kd
                                         : 4 * a->kmax; /* (beyond 2 kmax only k is read) */
    double rem = (tg - a->t) - (double)kt * a->h0;
    a->nsliver = kt ? 0 : a->nsliver + 1; /* breakpoints closer than h0, in a row: */
    if (a->nsliver > NSC_EX_SLIVERS) return hand_over(a); /* the theta-scheme merges them */
    int land;
    long k = step_units(a, kt, &land), km = k / 2;
    double tm = a->t + (double)km * a->h0, t1 = land ? tg : a->t + (double)k * a->h0;
    nsc_flow_advance(a->F, km, a->x, a->xm, a->wk);
    nsc_flow_advance(a->F, k - km, a->xm, a->x1, a->wk);
    if (land && rem > 0) rest(a, rem);
    long ktol = pow2_below((long)fmax(1.0, NSC_EX_LOC * (double)k));
    if (km > 0 && violated(a, a->xm, a->wm))
        return kinks_only(a) ? hand_over_kinks(a)
               : a->kinks    ? kink(a, a->x, 0, km, a->xm, a->wv, a->wm, ktol)
                             : locate(a, a->x, 0, km, ktol);
    if (violated(a, a->x1, a->w1v)) {
        if (kinks_only(a)) return hand_over_kinks(a);
        /* (not at a landing: a kink taken at a breakpoint or tstop settles the
         * algebraic state a substep into the sources' next segment, kink_settle:
         * a BJT stage fed a triangle read v(e2) 12.24 V beside a 12 V supply at
         * tstop, a corner of the triangle) */
        if (k - km > 0 && !land && a->kinks)
            return kink(a, a->xm, km, k, a->x1, a->wm, a->w1v, ktol);
        if (k - km > 0) return locate(a, a->xm, km, k, ktol);
        keep_alt(a);
        return ev_step(a, t1 - a->t); /* (a sliver before the target) */
    }
    if (!a->v0_ok) x_probes(a, a->x, NULL, a->v0);
    x_probes(a, a->xm, a->wm, a->vm);
    memcpy(a->lm, a->l, sizeof(double) * (size_t)a->m);
    x_probes(a, a->x1, a->w1v, a->v1);    /* (a->l: x1's, for its row and the next) */
    double e = km > 0 ? chord_err(a) : 0; /* (one substep: no midpoint) */
    if (km > 0 && T->acc) e = fmax(e, loss_check(a, tm, t1, a->xm, a->x1));
    if (e > 4 && k >= 2) { /* the waveform bends: half the step */
        a->lpts = 0;
        a->kcur = k / 2;
        T->st->rejected++;
        return NSC_OK;
    }
    loss_seg(a, tm, t1, a->xm, a->x1, !land);
    return accept(a, tm, t1, k, land, e);
}

nsc_status nsc_tran_exact(nsc_tran *T)
{
    const nsc_tran_opts *o = T->o;
    nsc_waves *W = T->W;
    ex A, *a = &A;
    nsc_status s = NSC_OK;
    T->st->hmin_used = INFINITY;
    T->st->exact = 1;
    if (ex_init(a, T)) {
        s = nsc_oom(T->r);
        goto done;
    }
    a->t = T->t0;
    if (o->steps && o->interp && (s = nsc_steps_table(T, a->t, a->eps, a->v0, &a->Ws))) goto done;
    s = ev_step(a, a->h0); /* the first mode, from the initial state */
    while (!s && !T->handover && a->t < o->tstop - a->eps) {
        if (o->stop && *o->stop) {
            W->end = NSC_RUN_INTERRUPTED;
            W->end_msg = nsc_strdup("by a signal");
            break;
        }
        s = step(a);
        if (!s && fits_stop(a)) {
            T->st->refit_stop = a->t;
            break;
        }
    }
done:
    W->t_end = a->t;
    if (s) {
        W->end = NSC_RUN_FAILED;
        W->end_msg = nsc_end_msg(T->r, "solver failure");
    }
    if (T->st->hmin_used == INFINITY && !T->handover) T->st->hmin_used = 0;
    ex_free(a);
    return s;
}
