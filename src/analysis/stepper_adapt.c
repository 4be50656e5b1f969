/* stepper_adapt.c -- the adaptive, event-located theta-scheme transient
 * (netlist.md .tran, the default; stepping=fixed is stepper.c).
 *
 * Step-size control. The local truncation error of the theta-scheme on the
 * differential unknowns x (the columns of E: capacitor node voltages, inductor
 * currents) is
 *     LTE = (1/2 - theta) h^2 x'' + (1/6 - theta/2) h^3 x''' + O(h^4),
 * with x'' and x''' from divided differences of the new point and the last
 * three accepted points of the current smooth segment (as SPICE's ckterr does
 * with charges). A trial step is accepted when, for every such unknown,
 *     |LTE_i| <= TRTOL (RELTOL max(|x_i(t_k)|, |x_i(t_k+1)|) + ATOL_i),
 * ATOL_i = VNTOL for node voltages and ABSTOL for branch currents; the source
 * waveforms' values are watched the same way (ATOL = VNTOL), so that a SIN
 * source is resolved even where no state follows it; the next step
 * is h (0.9 / err)^(1/q), q = 3 for theta = 1/2 and 2 otherwise, at most twice
 * the last and at most hmax (TMAX, else ngspice's min(TSTEP, span/50); with
 * .options nostepsizelimit (TSTOP - TSTART)/50, TSTEP not capping it, as in
 * LTspice: run.c). The scales that were fractions of hmax while TSTEP capped it are
 * fractions of href = min(TSTEP, hmax) (nsc_tran_opts.href): the first step,
 * the restart floor, the breakpoint merge, chattering, hmin and the event
 * tolerance; with hmax = span/50 they would be coarse (events 20 ns late on a
 * 100 kHz converter over 1 ms).
 * Step sizes are taken from the ladder hmax 2^(-j/4) so that the factorised
 * problems of the cache are reused; steps that end on a breakpoint, on tstop or
 * at a located event are one-off sizes (their own cache slot).
 *
 * Events. A trial step whose active set differs from the accepted one at t_k
 * (a diode, MOS segment or comparator pair changes), or after which a switch S
 * would change state, contains an event. For each such pair j, with y_j and
 * l_j its complementarity variables, phi_j = y_j - l_j for a pair inactive at
 * t_k and l_j - y_j for an active one (for a switch: the control's distance to
 * the threshold it crosses) is >= 0 while the pair keeps its mode and < 0 at
 * the trial's end. The event time is bracketed in (t_k, t_hi] and located by
 * the Illinois variant of regula falsi on phi: each trial either contains the
 * event (t_hi moves down) or is an ordinary step that is accepted (t_k moves
 * up). Once t_hi - t_k <= NSC_LOC_TOL href the step to t_hi is taken and
 * accepted with the new mode: events are located to NSC_LOC_TOL href (loc_tol),
 * and a switch changes state at the located crossing (in a steady state's
 * periods at the crossing predicted from its control's line: next_trial). A conducting pair's
 * release predicted ahead (predict_release) is approached in steps of half the
 * distance, down to href, so that its prediction (error O(h^2)) is sharp.
 *
 * Restarts. After every event and every breakpoint the history is cleared and
 * the first NSC_RESTART_STEPS steps are implicit Euler (theta = 1), the first
 * of NSC_RESTART (2 %) of the last step, at least NSC_RESTART_MIN href, then
 * growing under the error control: the trapezoidal rule would carry the jump
 * of an algebraic current (a capacitor's current at a source's edge) into the
 * next steps as a +- oscillation that never decays (its factor for a mode much
 * faster than h is -1); implicit Euler damps such a mode by tau/h a step. The
 * first step of a segment has no error estimate (one point of history), so it
 * is short: with a quarter of the last step, the 30 ns transient of a diode
 * turning on into a capacitor was not resolved and its current was 1.7 % of
 * range off on a 10 us print grid (0.1 % now). A rejection whose worst unknown
 * turned back on each of the last three steps (rings) is that -1 mode excited
 * by the scheme itself (a device current taken at t_k+1 against a capacitor's
 * trapezoidal mean): the run continues in implicit Euler (reject_lte).
 * An event of PWL MOS channel segments only (lcs.h pair_cont 3; no switch)
 * has no jump to damp: l and y are Lipschitz across it, only the vector
 * field's slope changes, by one segment's share of K. (A fitted junction's
 * segments, continuous too, change the conductance by the curve's ratios:
 * without the restarts the LTspice buck's Schottky diode on its switch node,
 * tests/corpus/ltspice/buck_lt, came out 3-4x further from a converged run,
 * v(out) 0.009 % -> 0.039 % of range: they keep them.) The history is
 * cleared (divided differences across the kink would take the slope change
 * for x'') but the steps stay trapezoidal: the next is NSC_KINK_NEXT of the
 * step that found the event and keeps that size once more (no estimate yet,
 * as after kinks taken inside a step). The 15-inverter cascade's ~10 solves a
 * located segment change (bracket, approach, event step, two restart steps
 * and first_ratio's halves, the climb back) fall to ~6: 3 802 trials -> 3 095,
 * v(n15) 1.17 % -> 1.18 % of range against 5 ps steps.
 *
 * Accumulations. A sliding mode of an ideal comparator is one mode of the LCS
 * and costs nothing. Events that follow each other ever faster (chattering, a
 * Zeno sequence) would drive the locator into ever smaller steps: after
 * NSC_CHATTER consecutive steps each ending on an event less than NSC_CHAT_H
 * href after the previous one, location stops for href of simulated time and
 * the stepper takes implicit-Euler steps of NSC_CHAT_H href that capture the
 * mode changes inside them (event capturing, as in the fixed-step scheme);
 * location resumes before that once NSC_CHATTER of these steps in a row
 * captured no change (the accumulation is over: at each input edge of the
 * 15-inverter cascade 75 of the window's 115 steps changed nothing).
 *
 * Output rows (netlist.md, Waveforms): the accepted steps and located events,
 * and inside a step the rows its interpolant needs for chords within RELTOL
 * |x| + ATOL (step_pieces); with .options interp the tstep grid. Inside a
 * step the interpolant is the quadratic through the last three accepted
 * points (interpolation error O(h^3), the order of the trapezoidal LTE) when
 * all three lie after the segment's start (whose values are the old mode's)
 * and the step changes no mode, linear otherwise. With interp, .meas reads a
 * table of the steps (nsc_tran_opts.steps).
 *
 * Stand-in (o->standin: the exact flow was asked, smooth elements keep it
 * out; other runs are untouched). Two guards of what the exact flow did:
 * (1) An operating point can be an unstable equilibrium (a BJT astable with
 * both transistors saturated). The exact flow left it through its round-off;
 * SPICE leaves it through its own, amplified by steps of at most TSTEP. Here
 * the step map returns the start bit for bit, and at steps of span/50 (lambda
 * h >> 2) theta = 1/2 barely amplifies the unstable mode ((1 + x)/(x - 1) per
 * step, x = lambda h / 2): the run stayed at the balance. So the start is
 * moved by NSC_REST_KICK (1e-3) of each differential unknown's tolerance
 * (unequal weights: no symmetry hides a mode), about what a converged Newton
 * iteration leaves in SPICE (a device's charge q(v) to q at the moved node
 * voltages: kick_charges), and the steps are at most TSTEP / 8 (below SPICE's
 * ceiling TSTEP: rest_start) until the state has moved NSC_REST_DEPART
 * tolerances from the start (rest_dev), or its move is no larger after
 * 2 NSC_REST_PROBE steps than after NSC_REST_PROBE (the start is stable), or
 * for NSC_REST_STEPS steps (a stable circuit at rest is not held there for
 * the whole run: a B-source multiplier at rest over .tran 1u 200m took
 * 204 809 steps; an unstable one departs within them:
 * tests/data/early/astable.cir within 20..200 steps). (2) theta = 1/2 takes the algebraic rows at the
 * step's theta point, so an algebraic unknown carries a mode of factor -1
 * that steps of changing size excite and the error control on the
 * differential unknowns never sees (a CE stage's v(c) rang by 55 mV, v(b)
 * within 2 uV). alg_ring measures it with lte_ratio's third-derivative term
 * on every algebraic unknown; a step above its tolerance is retried at the
 * same size with implicit Euler, which puts those unknowns back on their rows
 * (damp_trial), and the ringing's history restarts there. */
#include "stepper_int.h"
#include "pac.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NSC_RESTART_STEPS 2 /* implicit-Euler steps that start a segment (see the header) */
#define NSC_KINK_NEXT \
    0.5 /* after a located event of continuous kinks only: this times the step that found it */
#define NSC_BP_MERGE 1e-6 /* a breakpoint this close (times href) after t is taken as reached */
#define NSC_STALL 100000  /* trial steps in a row without an accepted one: a failure, not a hang */
#define NSC_GROW 2.0      /* largest growth of the step after an accepted one */
#define NSC_SHRINK 0.2    /* smallest factor after a rejected one */
#define NSC_SAFETY 0.9
#define NSC_RESTART 0.02 /* first step after an event or breakpoint: this times the last one */
#define NSC_RESTART_MIN \
    1e-3 /* ... and at least this times href; the first step of the run: this times href */
#define NSC_LADDER 4.0 /* step sizes hmax 2^(-j / NSC_LADDER) */
#define NSC_LOC_TOL \
    1e-3 /* events located to NSC_LOC_TOL href, or of the step that found them (bracket) */
#define NSC_LOC_PAST \
    1e-3 /* a steady state's switch flips this times the tolerance past its predicted crossing */
#define NSC_LOC_FLOOR \
    1e-4 /* ... but not below NSC_LOC_FLOOR href (sliver steps of 2.5e-14 s on the buck) */
#define NSC_HMIN 1e-9    /* smallest step, times href: below it the run fails (exit 3) */
#define NSC_LOC_MAXIT 40 /* trials to locate one event before it is taken where bracketed */
#define NSC_CHATTER 8    /* consecutive event steps ... */
#define NSC_CHAT_H 1e-2  /* ... each shorter than this times href: chattering */
#define NSC_PIVOT_M \
    64 /* above this many pairs, a step whose active set fails is retried shorter ... */
#define NSC_PIVOT_H 1e-3 /* ... while longer than this times href, before any pivoting */
#define NSC_ROWS_STEP 64 /* rows at most inside one step (rows at the steps) */
#define NSC_REJ_JUMP 4   /* local-error rejections in a row from one t: a jump there (reject_lte) */
#define NSC_REST_KICK 1e-3 /* the stand-in's start moved by this many tolerances (rest_start) */
#define NSC_REST_DEPART \
    100.0 /* the stand-in leaves the start's ceiling past this many tolerances (departed) */
#define NSC_REST_PROBE \
    32 /* ... or when the move from it is no larger at twice this many steps than at this many */
#define NSC_REST_STEPS \
    1000 /* ... or after this many steps at it: a stable rest is not held at TSTEP all run */

typedef struct ad {
    nsc_tran *T;
    const nsc_lcs *L;
    const nsc_tran_opts *o;
    int n, m, nsw, nd;
    int *di;       /* [nd] differential unknowns: columns of E */
    double *atol;  /* [nd] VNTOL or ABSTOL */
    double ht[4];  /* history of the smooth segment, newest first */
    double *hx[4]; /* [nd] each */
    int nh;
    nsc_sparse *Ct, *Dt, *Set; /* rows of C, D, Se as columns */
    double *z0, *z1, *l, *lsave, *lpt, *w0, *w1, *v0, *v1, *row;
    double tp, *zp, *lp, *wp, *vp; /* the accepted point before t (z, l, w, probes) */
    double *zh, *lh, *wh;          /* a segment's first step in halves: zh[2n] (first_ratio) */
    char *mode0,
        *sw1; /* accepted active set at t (NULL until the first step), trial switch states */
    uint64_t key0, key1; /* mode0's key when have_key0 (nsc_onestep_mode_key), the trial's mode's */
    int have_key0;
    char *modehi; /* the mode at the end of the trial that last shrank the bracket */
    int have_mode;
    double eps; /* times this close are one (1e-9 href) */
    int kink;   /* the step being accepted changes a mode or switch state */
    int jump;   /* ... of a pair whose multiplier may jump (not a continuous kink), or a switch */
    int chan;   /* ... of PWL MOS channel segments only (lcs.h pair_cont 3; jumps()) */
    double t_jump; /* the end of the last accepted step with a jump (point_lambda, smooth_step) */
    double *rtol;  /* [nprobe + 1] each column's absolute tolerance (step_pieces) */
    nsc_waves *Ws; /* NULL, or the steps' table (nsc_tran_opts.steps) */
    int *evid;     /* [m + nsw] items of the bracketed event (pair j, or m + switch k) */
    double *evphi; /* [m + nsw] their phi at t_hi */
    int nev;
    int *lread, nlread;   /* the pairs whose multiplier a probe reads (point_lambda) */
    int kinks;            /* continuous kinks are not located (kink_ratio): not in a steady state */
    double *rcap, *ratol; /* [n] E_ii of each row and its ATOL (kink_ratio; rcap 0: no charge) */
    double *ddiag, *kq;   /* [m] D_jj; [n] the charge errors of a step's kinks by row */
    int *pkrun,
        npkrun;   /* T->pklist (ascending) as runs [pkrun[2r], pkrun[2r+1]) of consecutive pairs */
    double *yend; /* [m] work: every pair's y at the trial's end (pairs_y) */
    /* the stand-in's guards (o->standin; header, Stand-in): */
    double *za[3], ta[3]; /* z at the last accepted points of the history, newest first */
    int na;               /* how many (alg_ring) */
    char *isd;            /* [n] 1: z_i is a differential unknown (a column of E) */
    int rest;             /* 1: still at the start's state: steps at most hrest (departed) */
    int nrest;            /* steps accepted at the start's ceiling (NSC_REST_STEPS) */
    double dev_probe;     /* rest_dev at the NSC_REST_PROBE-th of them */
    double hrest, *xrest; /* the ceiling there; [nd] the differential unknowns at the start */
} ad;

static void ad_free(ad *a)
{
    for (int k = 0; k < 3; k++) free(a->za[k]);
    free(a->isd);
    free(a->xrest);
    free(a->di);
    free(a->atol);
    for (int k = 0; k < 4; k++) free(a->hx[k]);
    nsc_sp_free(a->Ct);
    nsc_sp_free(a->Dt);
    nsc_sp_free(a->Set);
    free(a->z0);
    free(a->z1);
    free(a->l);
    free(a->lsave);
    free(a->lpt);
    free(a->w0);
    free(a->w1);
    free(a->v0);
    free(a->v1);
    free(a->row);
    free(a->mode0);
    free(a->sw1);
    free(a->modehi);
    free(a->evid);
    free(a->evphi);
    free(a->lread);
    free(a->pkrun);
    free(a->zp);
    free(a->lp);
    free(a->wp);
    free(a->vp);
    free(a->zh);
    free(a->lh);
    free(a->wh);
    free(a->rtol);
    free(a->yend);
    free(a->rcap);
    free(a->ratol);
    free(a->ddiag);
    free(a->kq);
}

static double *dup_or_zero(const double *x, int n)
{
    double *y = calloc((size_t)n + 1, sizeof(double));
    if (y && x && n > 0) memcpy(y, x, (size_t)n * sizeof(double));
    return y;
}

/* The pairs whose multiplier the probes read (their NSC_T_L terms), once each,
 * ascending, into a->lread; the checked pairs' runs (pkrun). 0, or -1 (ENOMEM). */
static int probe_pairs(ad *a, const nsc_tran *T)
{
    char *mark = calloc((size_t)a->m + 1, 1);
    a->lread = malloc(sizeof(int) * ((size_t)a->m + 1));
    if (!mark || !a->lread) {
        free(mark);
        return -1;
    }
    for (int k = 0; k < T->nprobe; k++)
        for (int q = 0; q < T->f[k].nterm; q++)
            if (T->f[k].t[q].kind == NSC_T_L) mark[T->f[k].t[q].idx] = 1;
    for (int j = 0; j < a->m; j++)
        if (mark[j]) a->lread[a->nlread++] = j;
    free(mark);
    a->pkrun = malloc(sizeof(int) * (2 * (size_t)T->npk + 2));
    if (!a->pkrun) return -1;
    for (int k = 0; k < T->npk; k++) {
        int j = T->pklist[k];
        if (a->npkrun && a->pkrun[2 * a->npkrun - 1] == j) a->pkrun[2 * a->npkrun - 1] = j + 1;
        else {
            a->pkrun[2 * a->npkrun] = j;
            a->pkrun[2 * a->npkrun + 1] = j + 1;
            a->npkrun++;
        }
    }
    return 0;
}

/* What kink_ratio reads: each row's capacitance E_ii and ATOL, each pair's
 * D_jj. Continuous kinks are taken inside steps (a->kinks) when .options
 * chgtol gives the charge their error may misplace (nsc_tran_opts.chgtol > 0);
 * by default, and in a steady state's periods (T->io: the shooting's saltation
 * is taken at located instants; a continuous kink's is the identity, but the
 * period map's derivative would see the step's kink error move with the
 * state), they are located as events. Why not by default (measured, against
 * fine fixed steps): the scheme takes a pair's multiplier at t_k+1 (first
 * order in the device currents, which the local error estimate, of theta =
 * 1/2's h^3 term, does not see); locating every kink restarted short steps
 * at each, which hid it. Taken inside longer steps at ngspice's charge
 * tolerance (TRTOL RELTOL max(|q|, CHGTOL): a floor of 1e-17 C here), an
 * 8-inverter chain's v(n8) went from 0.15 % to 1.1 % of range, and the
 * 15-inverter cascade took 8 848 steps against 4 262 located. 0, or -1
 * (ENOMEM). */
static int kink_setup(ad *a, const nsc_tran *T)
{
    const nsc_lcs *L = a->L;
    for (int j = 0; L->pair_cont && j < a->m; j++) a->kinks |= L->pair_cont[j];
    a->kinks &= !T->io && a->o->chgtol > 0;
    if (!a->kinks) return 0;
    a->rcap = calloc((size_t)a->n + 1, sizeof(double));
    a->ratol = calloc((size_t)a->n + 1, sizeof(double));
    a->kq = calloc((size_t)a->n + 1, sizeof(double));
    a->ddiag = calloc((size_t)a->m + 1, sizeof(double));
    if (!a->rcap || !a->ratol || !a->kq || !a->ddiag) return -1;
    for (int j = 0; j < a->n; j++) {
        for (int k = L->E->p[j]; k < L->E->p[j + 1]; k++)
            if (L->E->i[k] == j) a->rcap[j] = fabs(L->E->x[k]);
        a->ratol[j] = j < L->nnode_z ? a->o->vntol : a->o->abstol;
    }
    for (int j = 0; j < a->m; j++)
        for (int k = L->D->p[j]; k < L->D->p[j + 1]; k++)
            if (L->D->i[k] == j) a->ddiag[j] = L->D->x[k];
    return 0;
}

/* Work arrays, the differential unknowns and their absolute tolerances. 0 or -1 (ENOMEM). */
/* The stand-in's arrays (o->standin): the history of z, which unknowns are
 * differential, the start's state. 0, or -1 (no memory). */
static int standin_setup(ad *a)
{
    if (!a->o->standin) return 0;
    for (int k = 0; k < 3; k++)
        if (!(a->za[k] = dup_or_zero(NULL, a->n))) return -1;
    if (!(a->isd = calloc((size_t)a->n + 1, 1)) || !(a->xrest = dup_or_zero(NULL, a->nd)))
        return -1;
    for (int i = 0; i < a->nd; i++) a->isd[a->di[i]] = 1;
    return 0;
}

static int ad_init(ad *a, nsc_tran *T)
{
    const nsc_lcs *L = T->L;
    memset(a, 0, sizeof *a);
    a->T = T;
    a->L = L;
    a->o = T->o;
    a->n = L->n;
    a->m = L->m;
    a->nsw = L->nsw;
    int n = a->n, m = a->m, nc = T->nprobe + 1, ni = m + L->nsw;
    a->di = malloc(sizeof(int) * (size_t)(n + 1));
    a->atol = malloc(sizeof(double) * (size_t)(n + L->nsrc + 1));
    if (!a->di || !a->atol) return -1;
    a->nd = nsc_tran_states(L, a->o->vntol, a->o->abstol, a->di, a->atol);
    for (int j = 0; j < L->nsrc; j++) a->atol[a->nd + j] = a->o->vntol; /* source values: after z */
    for (int k = 0; k < 4; k++)
        if (!(a->hx[k] = malloc(sizeof(double) * (size_t)(a->nd + L->nsrc + 1)))) return -1;
    a->Ct = nsc_sp_transpose(L->C);
    a->Dt = nsc_sp_transpose(L->D);
    a->Set = nsc_sp_transpose(L->Se);
    a->z0 = dup_or_zero(T->z0, n);
    a->z1 = dup_or_zero(NULL, n);
    a->l = dup_or_zero(T->l0, m);
    a->lsave = dup_or_zero(T->l0, m);
    a->lpt = dup_or_zero(NULL, m);
    a->w0 = dup_or_zero(T->w0, L->nsrc);
    a->w1 = dup_or_zero(NULL, L->nsrc);
    a->v0 = dup_or_zero(T->v0, nc);
    a->v1 = dup_or_zero(NULL, nc);
    a->row = dup_or_zero(NULL, nc);
    a->zp = dup_or_zero(NULL, n);
    a->lp = dup_or_zero(NULL, m);
    a->wp = dup_or_zero(NULL, L->nsrc);
    a->vp = dup_or_zero(NULL, nc);
    a->zh = dup_or_zero(NULL, 2 * n);
    a->lh = dup_or_zero(NULL, m);
    a->wh = dup_or_zero(NULL, L->nsrc);
    a->tp = -INFINITY;
    a->mode0 = calloc((size_t)m + 1, 1);
    a->sw1 = calloc((size_t)L->nsw + 1, 1);
    a->modehi = calloc((size_t)m + 1, 1);
    a->evid = malloc(sizeof(int) * (size_t)(ni + 1));
    a->evphi = malloc(sizeof(double) * (size_t)(ni + 1));
    a->yend = dup_or_zero(NULL, m);
    a->rtol = dup_or_zero(NULL, nc);
    if (probe_pairs(a, T) || kink_setup(a, T) || standin_setup(a)) return -1;
    for (int q = 1; a->rtol && q < nc; q++) /* a current's ABSTOL, else VNTOL */
        a->rtol[q] = T->W->name[q][0] == 'i' ? a->o->abstol : a->o->vntol;
    if (!a->rtol || !a->Ct || !a->Dt || !a->Set || !a->z0 || !a->z1 || !a->l || !a->lsave || !a->lpt
        || !a->w0 || !a->w1 || !a->v0 || !a->v1 || !a->row || !a->zp || !a->lp || !a->wp || !a->vp
        || !a->zh || !a->lh || !a->wh || !a->mode0 || !a->modehi || !a->sw1 || !a->evid || !a->evphi
        || !a->yend)
        return -1;
    return 0;
}

/* ---- local truncation error ---- */

/* x = (z at the differential unknowns, w): what the error control watches. */
static double xval(const ad *a, int i, const double *z, const double *w)
{
    return i < a->nd ? z[a->di[i]] : w[i - a->nd];
}

static void hist_reset(ad *a, double t, const double *z, const double *w)
{
    a->nh = 1;
    a->ht[0] = t;
    if (a->za[0]) { /* (the stand-in's) */
        a->na = 1;
        a->ta[0] = t;
        memcpy(a->za[0], z, sizeof(double) * (size_t)a->n);
    }
    for (int i = 0; i < a->nd + a->L->nsrc; i++) a->hx[0][i] = xval(a, i, z, w);
}

static void hist_push(ad *a, double t, const double *z, const double *w)
{
    double *last = a->hx[3];
    for (int k = 3; k > 0; k--) {
        a->hx[k] = a->hx[k - 1];
        a->ht[k] = a->ht[k - 1];
    }
    a->hx[0] = last;
    a->ht[0] = t;
    for (int i = 0; i < a->nd + a->L->nsrc; i++) a->hx[0][i] = xval(a, i, z, w);
    if (a->nh < 4) a->nh++;
    if (!a->za[0]) return;
    double *lz = a->za[2];
    a->za[2] = a->za[1];
    a->za[1] = a->za[0];
    a->za[0] = lz;
    a->ta[2] = a->ta[1];
    a->ta[1] = a->ta[0];
    a->ta[0] = t;
    memcpy(lz, z, sizeof(double) * (size_t)a->n);
    if (a->na < 3) a->na++;
}

/* err = max_i |LTE_i| / (TRTOL tol_i) of the trial point (t1, z1) reached with
 * theta from the history; 0 when the history is too short (one point). *worst:
 * the watched quantity (xval's i) with the largest ratio, -1 if none. */
static double lte_ratio(const ad *a, double t1, const double *z1, const double *w1, double theta,
                        int *worst)
{
    const nsc_tran_opts *o = a->o;
    *worst = -1;
    if (a->nh < 2) return 0;
    double t0 = a->ht[0], tm = a->ht[1], h = t1 - t0;
    double c2 = 0.5 - theta, c3 = 1.0 / 6.0 - theta / 2;
    double err = 0;
    for (int i = 0; i < a->nd + a->L->nsrc; i++) {
        double x1 = xval(a, i, z1, w1), x0 = a->hx[0][i], xm = a->hx[1][i];
        double f10 = (x1 - x0) / h, f0m = (x0 - xm) / (t0 - tm);
        double d2 = (f10 - f0m) / (t1 - tm); /* x'' / 2 */
        double lte;
        if (a->nh >= 3) {
            double tmm = a->ht[2], xmm = a->hx[2][i];
            double d2p = (f0m - (xm - xmm) / (tm - tmm)) / (t0 - tmm);
            double d3 = (d2 - d2p) / (t1 - tmm); /* x''' / 6 */
            lte = fabs(c2 * h * h * 2 * d2) + fabs(c3 * h * h * h * 6 * d3);
        } else /* x''' ~ x'' / (t1 - tm) */
            lte = fabs(c2 * h * h * 2 * d2) + fabs(c3) * h * h * h * fabs(2 * d2) / (t1 - tm);
        double ax = fabs(x1) > fabs(x0) ? fabs(x1) : fabs(x0);
        double r = lte / (o->trtol * (o->reltol * ax + a->atol[i]));
        if (r > err) {
            err = r;
            *worst = i;
        }
    }
    return err;
}

/* 1 when the watched unknown i of the trial z1 turned back on each of the
 * last three steps, each move above its tolerance: the mode of factor -1 that
 * theta = 1/2 leaves undamped (a drain current taken at t_k+1 into a capacitor
 * row that takes the trapezoidal mean: PWL MOS in saturation, C with ESR), which
 * no shorter step damps. */
static int rings(const ad *a, int i, const double *z1)
{
    if (a->nh < 3 || i < 0 || i >= a->nd) return 0;
    double x1 = z1[a->di[i]], x0 = a->hx[0][i], xm = a->hx[1][i], xmm = a->hx[2][i];
    double d1 = x1 - x0, d0 = x0 - xm, dm = xm - xmm;
    double tol = a->o->reltol * fmax(fabs(x1), fabs(x0)) + a->atol[i];
    return d1 * d0 < 0 && d0 * dm < 0 && fabs(d1) > tol && fabs(d0) > tol;
}

/* The stand-in's ringing ratio (header, Stand-in) of the trial (t1, z1) taken
 * with theta < 1: max over the algebraic unknowns i (not columns of E) of
 *     |(1/6 - theta/2) h^3 x_i'''| / (TRTOL (RELTOL max(|x_i(t_k)|, |x_i(t_k+1)|) + ATOL_i)),
 * x''' from the divided differences of z1 and the last three accepted points
 * (lte_ratio's form); 0 with a shorter history. The mode of factor -1 that
 * theta = 1/2 leaves on an algebraic unknown, +-K on alternate points, makes
 * x''' ~ 8 K / h^3 (equal steps): a ratio ~ (2/3) K / tol. */
static double alg_ring(const ad *a, double t1, const double *z1, double theta)
{
    const nsc_tran_opts *o = a->o;
    if (!a->za[0] || a->na < 3 || theta >= 1) return 0;
    double t0 = a->ta[0], tm = a->ta[1], tmm = a->ta[2], h = t1 - t0, c3 = 1.0 / 6.0 - theta / 2;
    double err = 0;
    for (int i = 0; i < a->n; i++) {
        if (a->isd[i]) continue;
        double x1 = z1[i], x0 = a->za[0][i], xm = a->za[1][i], xmm = a->za[2][i];
        double f10 = (x1 - x0) / h, f0m = (x0 - xm) / (t0 - tm), fmm = (xm - xmm) / (tm - tmm);
        double d3 = ((f10 - f0m) / (t1 - tm) - (f0m - fmm) / (t0 - tmm)) / (t1 - tmm);
        double atol = i < a->L->nnode_z ? o->vntol : o->abstol;
        double tol = o->trtol * (o->reltol * fmax(fabs(x1), fabs(x0)) + atol);
        err = fmax(err, fabs(c3 * h * h * h * 6 * d3) / tol);
    }
    return err;
}

/* How far the accepted point z0 is from the start's state: the largest move
 * of a differential unknown in its tolerances (header, Stand-in: departed
 * past NSC_REST_DEPART). */
static double rest_dev(const ad *a)
{
    double dev = 0;
    for (int i = 0; i < a->nd; i++) {
        double x = a->z0[a->di[i]], x0 = a->xrest[i];
        dev = fmax(dev, fabs(x - x0) / (a->o->reltol * fabs(x0) + a->atol[i]));
    }
    return dev;
}

/* ---- events ---- */

/* y_j = C_j z + D_j l + e0_j + Se_j w of pair j. */
static double pair_y(const ad *a, int j, const double *z, const double *l, const double *w)
{
    const nsc_lcs *L = a->L;
    double y = L->e0[j];
    for (int k = a->Ct->p[j]; k < a->Ct->p[j + 1]; k++) y += a->Ct->x[k] * z[a->Ct->i[k]];
    for (int k = a->Dt->p[j]; k < a->Dt->p[j + 1]; k++) y += a->Dt->x[k] * l[a->Dt->i[k]];
    for (int k = a->Set->p[j]; k < a->Set->p[j + 1]; k++) y += a->Set->x[k] * w[a->Set->i[k]];
    return y;
}

/* pair_y of every pair into y[m] (lcs.h nsc_lcs_pairs_y: each pair's terms
 * added in pair_y's order, e0_j, C_jk z_k, D_jk l_k, Se_jk w_k, each by
 * ascending k), so y_j is pair_y's bit for bit, in O(nnz) for all m pairs
 * instead of a loop over each pair's rows. */
static void pairs_y(const ad *a, const double *z, const double *l, const double *w, double *y)
{
    nsc_lcs_pairs_y(a->L, z, l, w, NULL, y);
}

/* phi of item id (pair id, or switch id - m) for the mode of t_k: >= 0 while it
 * keeps that mode or state. */
static double phi(const ad *a, int id, const double *z, const double *l, const double *w)
{
    if (id < a->m) {
        double d = pair_y(a, id, z, l, w) - l[id];
        return a->mode0[id] ? -d : d;
    }
    const nsc_switch *S = &a->L->sw[id - a->m];
    double u = (S->c >= 0 ? z[S->c] : 0.0) - (S->d >= 0 ? z[S->d] : 0.0);
    return a->T->sw[id - a->m] ? u - S->off_below : S->on_above - u;
}

/* The items that change over the trial (t, z0, l at t in lsave) -> (z1, l, w1):
 * pairs whose mode differs from mode0, switches that flip in sw1, and, where
 * the trial's pairs are held at the theta point (kap, nsc_onestep_opts.mean),
 * an inactive one whose y crossed zero by t_k+1 while its theta-point value
 * held (the step's mean flips it up to half a step late; located by its y at
 * the ends, the last trial of the bracket, implicit Euler, takes the change
 * where the locator found it). Their phi at the trial's end into evphi.
 * Returns their number; items already on their boundary at t (phi <= 0: the
 * change belongs to t, e.g. a pair left degenerate by the last event) are not
 * counted. */
static int changed_items(ad *a, const char *mode1, int nflip, const double *kap)
{
    int ne = 0;
    /* held at the theta point: every pair, an unchanged one may have crossed (kap); else the changed ones */
    int all = mode1 && kap;
    if (all)
        pairs_y(a, a->z1, a->l, a->w1, a->yend); /* phi(j, end) = yend_j - l_j for an inactive j */
    for (int j = all     ? 0
                 : mode1 ? nsc_flags_next_diff(mode1, a->mode0, 0, a->m)
                         : a->m;
         j < a->m; j = all ? j + 1 : nsc_flags_next_diff(mode1, a->mode0, j + 1, a->m))
        if ((mode1[j] != a->mode0[j]
             || (all && kap[j] > 0 && !a->mode0[j] && a->yend[j] - a->l[j] < 0))
            && phi(a, j, a->z0, a->lsave, a->w0) > 0) {
            a->evid[ne] = j;
            a->evphi[ne++] = phi(a, j, a->z1, a->l, a->w1);
        }
    for (int k = 0; nflip && k < a->nsw; k++)
        if (a->sw1[k] != a->T->sw[k] && phi(a, a->m + k, a->z0, a->lsave, a->w0) > 0) {
            a->evid[ne] = a->m + k;
            a->evphi[ne++] = phi(a, a->m + k, a->z1, a->l, a->w1);
        }
    return ne;
}

/* The items evid[0..ne) reordered: the events to locate first (their number
 * returned), then the continuous kinks (lcs.h pair_cont; when a->kinks), in
 * evid[ret..ne) with their evphi. */
static int kinks_apart(ad *a, int ne)
{
    if (!a->kinks) return ne;
    int nd = 0;
    for (int q = 0; q < ne; q++) {
        int id = a->evid[q];
        if (id < a->m && a->L->pair_cont[id]) continue;
        double ph = a->evphi[q]; /* (stable: events in their order) */
        for (int r = q; r > nd; r--) {
            a->evid[r] = a->evid[r - 1];
            a->evphi[r] = a->evphi[r - 1];
        }
        a->evid[nd] = id;
        a->evphi[nd++] = ph;
    }
    return nd;
}

/* The charge error a continuous kink may make on row i (capacitance E_ii =
 * rcap): TRTOL (RELTOL |q| + max(E_ii ATOL_i, CHGTOL)), q = E_ii max(|v0|,
 * |v1|) the row's charge: the local error's tolerance in charge, with
 * .options chgtol the floor below which no relative accuracy is asked. (Not
 * ngspice's RELTOL max(|q|, CHGTOL): with this stepper's TRTOL = 1 that floor,
 * 1e-17 C, took 8 848 steps on the 15-inverter cascade against 4 262 located;
 * CHGTOL is the charge a step may misplace, as its name says.) */
static double charge_tol(const ad *a, int i)
{
    const nsc_tran_opts *o = a->o;
    double c = a->rcap[i], q = c * fmax(fabs(a->z0[i]), fabs(a->z1[i]));
    return o->trtol * (o->reltol * q + fmax(c * a->ratol[i], o->chgtol));
}

/* The error ratio of the continuous kinks evid[k0..k0+nk) crossed inside the
 * trial (t, t + h] (z0 -> z1), which is taken in the mode of its end without
 * locating them.
 * The math. Across pair j's kink the vector field E z' = f stays continuous;
 * only its slope changes: with the crossing at t* = t + h - tau, the new
 * mode's multiplier differs from what the old mode's would be by a term that
 * grows from 0 at t* linearly to dl_j = |phi_j(t + h)| at the end (an
 * activation: l_j itself; a release: y_j / D_jj, the old mode's l_j gone
 * negative), tau = h phi_j(t) / (phi_j(t) - phi_j(t + h)) from phi's linear
 * interpolation. The step integrates a pair's multiplier with weight th_j at
 * its end (1 at t_k+1; 1/(1 + kap_j) held at the theta point), exact for the
 * part before t* and for a linear l: the kink's part g(s) = dl_j (s - t*) /
 * tau is integrated as th_j h dl_j where its integral is dl_j tau / 2, so the
 * charge it moves through row i of B_j is off by
 *     q_ij = B_ij dl_j (th_j h - tau / 2)   (|q_ij| <= |B_ij| dl_j h: O(h^2), dl_j ~ tau),
 * and through a pair k coupled by D (a fitted junction's segment changes its
 * resistance, not a current of its own: y_k = 0 moves l_k by -D_kj dl_j /
 * D_kk) by that times B_k.
 * Charges of one row are summed with their signs (a MOS at v_DS = 0 crosses
 * its source and drain segments together: their currents cancel); the
 * ratio is max_i |q_i| / charge_tol_i over the rows with a capacitance E_ii
 * (on a node, q_i / E_ii is the voltage error; rows without E_ii store no
 * charge and are not counted: their values follow the others'). It falls
 * as h^2: a step is shrunk or grown by its square root (trial). After the
 * step the error history restarts (next_step). */
static double kink_ratio(ad *a, int k0, int nk, double h, const nsc_onestep *P)
{
    const nsc_lcs *L = a->L;
    const nsc_sparse *B = L->B, *D = L->D;
    const double *kap = nsc_onestep_kappa(P);
    memset(a->kq, 0, sizeof(double) * (size_t)a->n);
    for (int q = k0; q < k0 + nk; q++) {
        int j = a->evid[q];
        double p0 = phi(a, j, a->z0, a->lsave, a->w0), p1 = a->evphi[q];
        if (!(p0 > 0 && p1 < 0)) continue; /* (changed_items: p0 > 0) */
        double tau = h * -p1 / (p0 - p1),
               dl = a->mode0[j] && a->ddiag[j] > 0 ? -p1 / a->ddiag[j] : -p1;
        double w = dl * (h / (1 + (kap ? kap[j] : 0)) - tau / 2);
        for (int k = B->p[j]; k < B->p[j + 1]; k++) a->kq[B->i[k]] += B->x[k] * w;
        for (int k = D->p[j]; k < D->p[j + 1]; k++) { /* the pairs j's change acts through */
            int i = D->i[k];
            if (i == j || !(a->ddiag[i] > 0)) continue;
            double f = -D->x[k] / a->ddiag[i] * w; /* y_i = 0: dl_i = -D_ij dl_j / D_ii */
            for (int r = B->p[i]; r < B->p[i + 1]; r++) a->kq[B->i[r]] += B->x[r] * f;
        }
    }
    double err = 0;
    for (int i = 0; i < a->n; i++) {
        if (!(a->rcap[i] > 0) || a->kq[i] == 0) continue;
        double r = fabs(a->kq[i]) / charge_tol(a, i);
        if (r > err) err = r;
    }
    return err;
}

/* The multipliers at the end t + h of an accepted step, for the outputs (a
 * diode's current): l is the mean over the step (see predict_release), its
 * value at the midpoint to O(h^2); within a segment it is extrapolated through
 * the midpoints of this step and the last, l + (l - lsave) h / (h + h_prev).
 * A step of theta = 1, or the first of a segment, is taken as it is; so is a
 * step with a jump (a->jump) or after one (the last step's mean lsave from
 * before it, tp < t_jump): a mean over a mode change extrapolated, or one
 * taken through it, is no value of the multiplier (netlists/prc.cir: i(d1)
 * 31.6 mA beside i(lf) 19.0 mA at a bridge's commutation, 1.67 times the
 * step's mean, the last step's 0). Only the pairs the probes read (lread) are
 * extrapolated: the others of lpt are not read. */
static const double *point_lambda(ad *a, double t, double h, double theta)
{
    if (theta == 1.0 || a->jump || a->tp < a->t_jump || a->nh < 2 || a->ht[1] != a->tp
        || !(t - a->tp > 0))
        return a->l;
    double f = h / (h + (t - a->tp));
    for (int k = 0; k < a->nlread; k++) {
        int j = a->lread[k];
        a->lpt[j] = fmax(0.0, a->l[j] + (a->l[j] - a->lsave[j]) * f); /* l >= 0 */
    }
    return a->lpt;
}

/* --events: every pair whose mode1 differs from the accepted mode0, and every
 * switch flip (sw1 vs T->sw), logged at t (the step's end: for a located event
 * the instant within tol_t). 0, or -1 on ENOMEM. */
static int log_changes(ad *a, double t, const char *mode1, int nflip)
{
    const nsc_lcs *L = a->L;
    for (int j = 0; mode1 && a->have_mode && j < a->m; j++)
        if (mode1[j] != a->mode0[j] && nsc_waves_event(a->T->W, t, L->pair_name[j], mode1[j]))
            return -1;
    for (int k = 0; nflip && k < a->nsw; k++)
        if (a->sw1[k] != a->T->sw[k]
            && nsc_waves_event(a->T->W, t, a->T->c->el[L->sw[k].el].name, a->sw1[k]))
            return -1;
    return 0;
}

/* The multiplier of the one-step problem is an impulse: lambda_k+1 is the mean
 * of the pair's multiplier over the step (t_k, t_k+1] (Moreau-Jean), i.e. its
 * value at the step's midpoint to O(h^2), while y_k+1 is the value at t_k+1.
 * An active pair (a diode conducting) therefore changes mode only when the
 * mean over the trial step turns negative, up to half a step after the true
 * instant. Before each ordinary step the active pairs' multipliers are
 * extrapolated linearly through the midpoints of the last two steps of the
 * segment; the earliest predicted zero in (t + tol, tn) becomes the step's
 * end, so that the mode change is bracketed from there (located at the
 * predicted instant, error O(h^2) + tol instead of h/2). Returns tn or that
 * instant. */
static double predict_release(const ad *a, double t, double tn, double tol)
{
    if (a->nh < 3 || !a->have_mode || a->ht[1] != a->tp) return tn;
    double mb = (a->ht[1] + a->ht[0]) / 2, ma = (a->ht[2] + a->ht[1]) / 2, best = tn;
    for (int j = 0; j < a->m; j++) {
        if (!a->mode0[j] || (a->kinks && a->L->pair_cont[j])) continue; /* (a kink: not located) */
        double lb = a->lsave[j], la = a->lp[j];
        if (!(lb < la)) continue; /* not falling (mb > ma: the slope's sign), no division */
        double slope = (lb - la) / (mb - ma);
        if (!(slope < 0) || lb + slope * (t - mb) <= 0) continue; /* not falling, or already at 0 */
        double tc = mb - lb / slope;
        if (tc > t + tol && tc < best) best = tc;
    }
    return best;
}

/* The end of the next trial step inside the bracket (t, t_hi] of an event.
 * First choice: the items' phi extrapolated linearly from the last two accepted
 * points (t_p, t) of the smooth segment, which are in the old mode on both
 * sides (phi is smooth there; across the event it is not: an ideal diode's phi
 * is a voltage before and a current after): the earliest crossing t* gives the
 * trial t* - tol/2 (an ordinary step ending just before the event), or, when
 * t* is within tol, t + tol (a step across it, accepted as the event). Without
 * a usable extrapolation, regula falsi between phi(t) and phi(t_hi) clamped to
 * [0.1, 0.9] of the bracket; after two trials in a row that contained the
 * event (nup), bisection.
 * In a steady state's periods (T->io) a switch whose control's line crosses
 * at t* flips at te = t* + NSC_LOC_PAST tol, the end of a step of exactly
 * tol from te - tol (an ordinary step reaches there first): its instant no
 * longer depends on where the bracket's trials fell (the open-loop buck's
 * switch on its own sawtooth flipped 1.2 ps late at the turn-off and 25 ps at
 * the turn-on, its mean v(out) 6.6e-6 low; now 2.9e-9). The flip step keeps
 * the size tol: the saltation (nsc_onestep_sens_flip) takes the new state's
 * field from a step of that size, O(h) off where that state moves fast (a
 * switch node's capacitor), and the step of the event that follows (tol)
 * errs alike: with a flip step of tol/2 the peak-current-mode chopper's
 * multiplier came out -1.996 where one period of the circuit gives -2.000. */
static double next_trial(const ad *a, double t, double t_hi, double tol, int nup)
{
    if (t_hi - t <= tol) return t_hi;
    double ts = INFINITY, f = 2;
    int tsw = 0; /* 1: ts is a switch's crossing */
    for (int q = 0; q < a->nev; q++) {
        double p0 = phi(a, a->evid[q], a->z0, a->lsave, a->w0);
        if (!(p0 > 0)) continue;
        if (nup < 2 && a->nh >= 2 && a->tp < t) {
            double pp = phi(a, a->evid[q], a->zp, a->lp, a->wp), slope = (p0 - pp) / (t - a->tp);
            if (slope < 0 && t - p0 / slope < ts) {
                ts = t - p0 / slope;
                tsw = a->evid[q] >= a->m;
            }
        }
        double p1 = a->evphi[q];
        if (p1 < p0 && p0 / (p0 - p1) < f) f = p0 / (p0 - p1);
    }
    if (ts > t && ts < t_hi && tsw && a->T->io) {
        double te = fmin(ts + NSC_LOC_PAST * tol, t_hi);
        return te - t > (1 + NSC_LOC_PAST) * tol ? te - tol : fmin(te, t + tol);
    }
    if (ts > t && ts < t_hi) return ts - t > tol ? ts - tol / 2 : t + tol;
    if (nup >= 2 || f > 1) f = 0.5;
    f = f < 0.1 ? 0.1 : f > 0.9 ? 0.9 : f;
    double te = t + f * (t_hi - t);
    return te - t < tol / 2 ? t + tol / 2 : te;
}

/* ---- the step loop ---- */

static double vmax(const double *x, int n)
{
    double v = 0;
    for (int i = 0; i < n; i++) v = fabs(x[i]) > v ? fabs(x[i]) : v;
    return v;
}

/* The largest ladder size hmax 2^(-j/NSC_LADDER) <= h. */
static double ladder(double h, double hmax)
{
    if (h >= hmax) return hmax;
    double j = ceil(-NSC_LADDER * log2(h / hmax) - 1e-9);
    return hmax * exp2(-j / NSC_LADDER);
}

/* 1 when the step (t, t1] has a smooth interpolant: the quadratic through the
 * accepted points (tp, t, t1), tp after the segment's start (whose values are
 * the old mode's) and no mode change in the step (kink), and tp after the last
 * jump (t_jump: the multipliers at tp, t_jump's step's mean, are no values of
 * the new mode's; the segment goes on across a pair changed at its start). */
static int smooth_step(const ad *a, double t)
{
    return a->nh >= 3 && a->tp < t && !a->kink && a->tp > a->t_jump;
}

/* The probes at x in (t, t1) into row[1..]: the quadratic of a smooth step,
 * else linear. */
static void interp_row(const ad *a, double t, double t1, double x, double *row)
{
    int nc = a->T->nprobe + 1;
    if (smooth_step(a, t)) {
        double tp = a->tp;
        double c0 = (x - t) * (x - t1) / ((tp - t) * (tp - t1));
        double c1 = (x - tp) * (x - t1) / ((t - tp) * (t - t1));
        double c2 = (x - tp) * (x - t) / ((t1 - tp) * (t1 - t));
        for (int q = 1; q < nc; q++) row[q] = c0 * a->vp[q] + c1 * a->v0[q] + c2 * a->v1[q];
    } else {
        double f = (x - t) / (t1 - t);
        for (int q = 1; q < nc; q++) row[q] = (1 - f) * a->v0[q] + f * a->v1[q];
    }
}

/* Rows of the tstep grid in (t, t1] (.options interp): exact at t1, interpolated inside. */
static int grid_rows(ad *a, double t, double t1)
{
    nsc_tran *T = a->T;
    const nsc_tran_opts *o = a->o;
    double eps = a->eps;
    for (;;) {
        double tout = nsc_grid_time(o, T->jout, eps); /* (INFINITY past the grid) */
        if (!(tout <= t1 + eps && tout <= o->tstop + eps)) return 0;
        a->row[0] = tout;
        if (fabs(tout - t1) <= eps)
            memcpy(a->row + 1, a->v1 + 1, (size_t)T->nprobe * sizeof(double));
        else interp_row(a, t, t1, tout, a->row);
        if (nsc_waves_add(T->W, a->row)) return -1;
        T->jout++;
        if (o->rows) o->rows(T->W, o->rows_ctx);
    }
}

/* Pieces k of the step (t, t1] for rows whose chords stay within the error
 * tolerance. The step's interpolant (interp_row) departs from the chord over
 * a piece of length (t1 - t) / k by at most |d2| ((t1 - t) / k)^2 / 4, d2 the
 * second divided difference through (tp, t, t1); k is the least with that <=
 * RELTOL max(|v(t)|, |v(t1)|) + ATOL for every column (rtol: ATOL by column),
 * at most NSC_ROWS_STEP; 1 where the interpolant is linear. */
static int step_pieces(const ad *a, double t, double t1)
{
    if (!smooth_step(a, t)) return 1;
    double tp = a->tp, h = t1 - t, kmax = 1;
    for (int q = 1; q <= a->T->nprobe; q++) {
        double f1 = (a->v1[q] - a->v0[q]) / h, f0 = (a->v0[q] - a->vp[q]) / (t - tp);
        double d2 = fabs(f1 - f0) / (t1 - tp);
        double tol = a->o->reltol * fmax(fabs(a->v0[q]), fabs(a->v1[q])) + a->rtol[q];
        double k = 0.5 * h * sqrt(d2 / tol); /* |d2| (h / k)^2 / 4 = tol */
        if (k > kmax) kmax = k;
    }
    return kmax >= NSC_ROWS_STEP ? NSC_ROWS_STEP : (int)ceil(kmax);
}

/* Rows of the step (t, t1] into D at the steps: the row at tstart when it
 * falls inside, the rows inside the step that step_pieces asks for, and the
 * step's end t1 (exact). 0, or -1 when a row could not be added. */
static int step_rows(ad *a, nsc_waves *D, double t, double t1, int notify)
{
    const nsc_tran_opts *o = a->o;
    double eps = a->eps, from = t;
    if (t1 < o->tstart - eps) return 0;
    if (t < o->tstart - eps && t1 > o->tstart + eps) { /* the window starts inside */
        a->row[0] = from = o->tstart;
        interp_row(a, t, t1, o->tstart, a->row);
        if (nsc_waves_add(D, a->row)) return -1;
        if (notify) o->rows(D, o->rows_ctx);
    }
    int k = step_pieces(a, t, t1);
    for (int j = 1; j < k; j++) {
        double x = t + (t1 - t) * j / k;
        if (x <= from + eps) continue;
        a->row[0] = x;
        interp_row(a, t, t1, x, a->row);
        if (nsc_waves_add(D, a->row)) return -1;
        if (notify) o->rows(D, o->rows_ctx);
    }
    a->v1[0] = t1;
    if (nsc_waves_add(D, a->v1)) return -1;
    if (notify) o->rows(D, o->rows_ctx);
    return 0;
}

/* The rows of the accepted step (t, t1]: the tstep grid (interp) or the steps
 * (netlist.md, Waveforms); the steps' table of .meas (nsc_tran_opts.steps). */
static int write_rows(ad *a, double t, double t1)
{
    if (a->Ws && step_rows(a, a->Ws, t, t1, 0)) return -2;
    if (a->o->interp) return grid_rows(a, t, t1);
    return step_rows(a, a->T->W, t, t1, a->o->rows != NULL);
}

static nsc_status too_small(ad *a, double t, double h, int worst, const char *why)
{
    nsc_tran *T = a->T;
    return nsc_err(T->r, NSC_ESIM, NULL, "time %.9g s: the time step fell below %.3g s (%s)%s%s", t,
                   h, why, worst >= 0 ? "; largest local error in " : "",
                   worst >= 0 ? a->L->zname[worst] : "");
}

/* ---- the driver ----
 * One trial step from t to tn, then one of: a failed solve (smaller step), an
 * event inside (bracket it), a local error too large (smaller step), or
 * accepted (advance, maybe start a new segment). The state between trials: */
typedef struct ctl {
    double t, hmax, hmin, tol_t, eps;
    double href;  /* the step scale min(tstep, hmax) (nsc_tran_opts.href) */
    double hnext; /* the error control's next step */
    double t_hi,
        t_est;    /* bracket (t, t_hi] of an event and the next trial's end; t_hi = inf: none */
    double h_pre; /* the step that found the bracketed event */
    double t_rej; /* where the last local-error rejections were, and how many in a row */
    int nrej;
    double t_lastev, chat_until, t_cap;
    int restart;    /* implicit-Euler steps still to take in this segment */
    int ring_reset; /* 1: the history restarts at the next accepted point (reject_lte) */
    int damp1;      /* 1: the next trial is implicit Euler (the stand-in's ringing, alg_ring) */
    int damped;     /* 1: theta = 1 from now on (reject_lte) */
    int nup, loc_it, dirty, ev_run, rejected, stall, take;
    int chat_idle; /* chatter steps in a row that captured no change (trial) */
    int kinked;    /* the step accepted crossed continuous kinks (kink_ratio) */
    int kreset;    /* the history restarted after kinks: no estimate yet (next_step) */
    nsc_onestep *Plast;
} ctl;

/* The tolerance of an event located from t: NSC_LOC_TOL of href, not of the
 * ceiling (which may be far above the circuit's time scale), and not below the
 * round-off of t; bracket() lowers it to NSC_LOC_TOL of the step that found
 * the event when that is shorter (without a TSTEP, href is the ceiling span/50:
 * a 100 kHz converter's events were 20 ns late over 1 ms). The tolerance is
 * fixed per event: relative to each trial's size it shrank with the trials cut
 * short by the last bracket: a Zeno sequence of steps down to 1e-24 s at a
 * buck's start. */
static double loc_tol(const ctl *c)
{
    return fmax(NSC_LOC_TOL * c->href, 64 * DBL_EPSILON * fabs(c->t));
}

/* The trial: its end tn and, for a ladder step, its size *hl (0: a one-off
 * size); *tb the next breakpoint. */
static double trial_end(ad *a, ctl *c, int chatter, double *hl, double *tb)
{
    nsc_tran *T = a->T;
    double t = c->t, hmax = c->hmax, tstop = a->o->tstop;
    int pss = T->io != NULL; /* a steady state's period: one-off trials (below) */
    *tb = nsc_bpq_after(T->bp,
                        t + NSC_BP_MERGE * c->href); /* closer ones are reached: no sliver steps */
    double h = chatter ? NSC_CHAT_H * c->href : c->hnext < hmax ? c->hnext : hmax;
    if (a->rest && h > a->hrest) h = a->hrest; /* (the stand-in at the start's state) */
    double tn, tg = *tb < tstop ? *tb : tstop, stretch = c->rejected ? 1.0 : 1.25;
    *hl = 0;
    if (c->t_hi < INFINITY) { /* locating an event */
        tn = c->t_hi - t <= c->tol_t ? c->t_hi : c->t_est;
        /* A trial that stops short of t_hi (an ordinary step before the event
         * aimed at) is cut to the ladder: its problem is cached, not renewed
         * (the buck: 9 591 trials, each a renewal, down to 2 621). Not in a
         * steady state's periods: the ladder makes the located instant
         * piecewise constant in the state (within tol), and the shooting
         * differentiates the period map (its monodromy 2.5 % off). */
        double hq = ladder(tn - t, hmax);
        if (tn < c->t_hi && tn - t > c->tol_t * (1 + 1e-9) && hq > 0.5 * (tn - t) && hq > c->tol_t
            && !pss) {
            *hl = hq;
            tn = t + hq;
        } else if (fabs(tn - t - c->tol_t) <= 1e-9 * c->tol_t && !pss)
            *hl = c->tol_t; /* a step of tol_t (t + tol_t - t: ulps of t off) keyed by tol_t,
                             * cached (the cascade renewed a spare 268 times for it); not in a
                             * steady state's periods (the ulps moved the ringing flyback's
                             * stalled shooting, stepper_pss/a_stalled_shooting_says_the_map_jumps,
                             * to another diagnosis) */
    } else if (tg - t <= stretch * h && tg - t <= hmax) tn = tg; /* land on the breakpoint */
    else if (tg - t <= 2 * h) tn = t + (tg - t) / 2;             /* (no sliver before it) */
    else {
        *hl = ladder(h, hmax);
        tn = t + *hl;
    }
    if (c->t_hi == INFINITY && !chatter && !c->restart && !c->take) {
        double tc = predict_release(a, t, INFINITY, loc_tol(c));
        if (tc - t < 2 * (tn - t)
            && tn - t > c->href) { /* approached in steps of half the distance */
            double hc = ladder(fmax((tc - t) / 2, c->href),
                               hmax); /* down to href: the prediction's */
            if (hc < tn - t) {
                *hl = hc;
                tn = t + hc;
            } /* error is O(h^2) (the halfwave's turn-off */
        }     /* 66 us late with 0.8 ms steps) */
        if (tc < tn) {
            tn = tc;
            *hl = 0;
        }
    }
    double cap = *tb < c->t_cap ? *tb : c->t_cap; /* t_cap: after a failed solve */
    if (tstop < cap) cap = tstop;
    if (tn > cap) {
        tn = cap;
        *hl = 0;
    }
    return tn;
}

/* No solution (or an inexact one) for the trial of size hq: retry 8 times
 * shorter. At the end of a bracket (a degenerate crossing) the change is taken
 * in a step of 2 tol_t past it instead. NSC_OK, or the failure below hmin. */
static nsc_status on_no_solution(ad *a, ctl *c, nsc_onestep *P, double tn,
                                 const nsc_step_info *info)
{
    double hq = tn - c->t;
    memcpy(a->l, a->lsave, sizeof(double) * (size_t)a->m);
    c->dirty = 1;
    a->T->st->rejected++;
    if (hq <= c->hmin) {
        nsc_step_failure(a->T->r, a->L, P, tn, info, a->o->solver);
        return NSC_ESIM;
    }
    c->hnext = hq / 8;
    c->t_cap = c->t + hq / 8; /* also when tn was a breakpoint */
    c->restart = 1;
    c->rejected = 1;
    if (c->t_hi < INFINITY && hq <= c->tol_t * (1 + 1e-9)) {
        c->t_hi = INFINITY;
        c->loc_it = 0;
        c->hnext = 2 * c->tol_t;
        c->take = 1;
    } else if (c->t_hi < INFINITY) {
        c->t_hi = tn;
        c->t_est = c->t + hq / 8;
    }
    return NSC_OK;
}

/* ne items change over the trial ending at tn: shrink the bracket to (t, tn]
 * and choose the next trial. */
static void bracket(ad *a, ctl *c, int ne, double tn, double tb, const char *mode1)
{
    double hq = tn - c->t;
    if (mode1) memcpy(a->modehi, mode1, (size_t)a->m); /* the next trials' second guess */
    if (c->t_hi == INFINITY) {                         /* a new event: its tolerance (loc_tol) */
        c->h_pre = hq;
        c->nup = 0;
        double tl = fmax(NSC_LOC_TOL * hq,
                         fmax(NSC_LOC_FLOOR * c->href, 64 * DBL_EPSILON * fabs(c->t)));
        if (tl < c->tol_t && !a->T->io) c->tol_t = tl; /* not in a steady state (its saltation */
                                                       /* multiplier -2 came out -2.003) */
    }
    c->nup++;
    a->nev = ne;
    c->t_hi = tn;
    c->loc_it++;
    a->T->st->locate_trials++;
    c->t_est = next_trial(a, c->t, c->t_hi, c->tol_t, c->nup);
    if (tn == tb && c->nup == 1 && hq > 2 * c->tol_t)
        c->t_est = tb - c->tol_t / 2; /* at the edge itself? */
    memcpy(a->l, a->lsave, sizeof(double) * (size_t)a->m);
    c->dirty = 1;
}

/* The local error ratio err > 1 of a trial of size hq (worst: lte_ratio's):
 * retry shorter; or, when the worst unknown rings (rings()), retry the same
 * step with implicit Euler, which damps that mode, from a history without the
 * ringing points (ring_reset), and keep implicit Euler to the end of the run
 * (damped): where the mode rings, theta = 1/2 is first order (the current
 * taken at t_k+1 against the capacitor's mean: v(cx) 1.2 % of range off the
 * converged run for the PWL MOS with an ESR capacitor; implicit Euler 0.04 %,
 * in as many steps) and rings again after every event. */
static nsc_status reject_lte(ad *a, ctl *c, double hq, double err, double theta, int worst)
{
    memcpy(a->l, a->lsave, sizeof(double) * (size_t)a->m);
    c->dirty = 1;
    a->T->st->rejected++;
    if (theta < 1 && rings(a, worst, a->z1)) {
        if (!a->T->io)
            nsc_note(
                a->T->r, NULL,
                "time %.9g s: theta = %g rings on %s (a device current taken at the step's end "
                "into a capacitor's row); implicit-Euler steps from there on",
                c->t, theta, a->L->zname[a->di[worst]]);
        hist_reset(a, c->t, a->z0, a->w0);
        c->damped = c->ring_reset = 1;
        c->hnext = hq;
        c->rejected = 1;
        if (c->t_hi < INFINITY) c->t_est = c->t + hq;
        return NSC_OK;
    }
    /* A local error that does not fall as the step does (NSC_REJ_JUMP
     * rejections in a row from one t, the step 1/600 of the first) is a jump at
     * t inside the history's divided differences: a pair that changed at t
     * without an event (on its boundary there, changed_items). The history
     * restarts at t, as after an event (a MOS body-diode bridge collapsed to
     * 1e-15 s steps at 2.33 ms without this: tests/data/mos_body). Not in a
     * steady state's periods: it changed the stalled flyback's period map
     * (stepper_pss/a_stalled_shooting_says_the_map_jumps). */
    c->nrej = c->t == c->t_rej ? c->nrej + 1 : 1;
    c->t_rej = c->t;
    if (c->nrej == NSC_REJ_JUMP && a->nh > 1 && !a->T->io) { /* not in a steady state's periods */
        hist_reset(a, c->t, a->z0, a->w0);
        c->restart = NSC_RESTART_STEPS;
    }
    worst = worst >= 0 && worst < a->nd ? a->di[worst] : -1;
    double fac = NSC_SAFETY * pow(err, theta == 0.5 ? -1.0 / 3 : -0.5);
    double hn = hq * (fac < NSC_SHRINK ? NSC_SHRINK : fac);
    if (hn < c->hmin) return too_small(a, c->t, hn, worst, "local error");
    c->hnext = hn;
    c->rejected = 1;
    if (c->t_hi < INFINITY) c->t_est = c->t + hn;
    return NSC_OK;
}

/* The stand-in's trial of size hq whose algebraic unknowns ring (alg_ring > 1):
 * retried at the same size with implicit Euler, which puts them back on their
 * rows (header, Stand-in). */
static nsc_status damp_trial(ad *a, ctl *c, double hq)
{
    memcpy(a->l, a->lsave, sizeof(double) * (size_t)a->m);
    c->dirty = 1;
    a->T->st->rejected++;
    c->damp1 = 1;
    c->hnext = hq;
    c->rejected = 1;
    if (c->t_hi < INFINITY) c->t_est = c->t + hq;
    return NSC_OK;
}

/* Accept the trial (t, z0) -> (tn, z1): statistics, probes and rows, the
 * points shifted (p <- 0 <- 1), the mode, switch states and events logged. */
static nsc_status advance(ad *a, ctl *c, double tn, double theta, const nsc_step_info *info,
                          const char *mode1, int nflip, int chatter)
{
    nsc_tran *T = a->T;
    nsc_sim_stats *st = T->st;
    const nsc_tran_opts *o = a->o;
    double t = c->t, hq = tn - t;
    int m = a->m;
    c->rejected = c->take = c->stall = 0;
    c->t_cap = INFINITY;
    st->steps++;
    nsc_count_solve(st, info);
    if (hq < st->hmin_used) st->hmin_used = hq;
    if (hq > st->hmax_used) st->hmax_used = hq;
    if (o->progress && st->steps % 1000 == 0) o->progress(tn, o->progress_ctx);
    nsc_eval_probes(T->f, T->nprobe, a->L, T->sw, a->z1, point_lambda(a, t, hq, theta), a->z0, hq,
                    a->w1, a->v1 + 1);
    a->v1[0] = tn;
    int wr = write_rows(a, t, tn);
    if (wr)
        return nsc_waves_add_error(wr == -2 ? a->Ws : T->W, T->r); /* memory, or the spill file */
    if (a->jump) a->t_jump = tn;
    if (chatter && (nflip || (mode1 && a->have_mode && memcmp(mode1, a->mode0, (size_t)m))))
        st->captured++;
    double *x; /* (zp, z0, z1) <- (z0, z1, zp) */
    x = a->zp;
    a->zp = a->z0;
    a->z0 = a->z1;
    a->z1 = x;
    x = a->wp;
    a->wp = a->w0;
    a->w0 = a->w1;
    a->w1 = x;
    x = a->vp;
    a->vp = a->v0;
    a->v0 = a->v1;
    a->v1 = x;
    x = a->lp;
    a->lp = a->lsave;
    a->lsave = x;
    memcpy(a->lsave, a->l, sizeof(double) * (size_t)m);
    a->tp = t;
    c->t = tn;
    if (o->events && log_changes(a, tn, mode1, nflip)) return nsc_oom(T->r);
    for (int r = 0; r < a->npkrun; r++) { /* the checked pairs only (no libm call) */
        double *lpk = T->lpk;
        const double *l = a->l;
        for (int j = a->pkrun[2 * r]; j < a->pkrun[2 * r + 1]; j++)
            lpk[j] = l[j] > lpk[j] ? l[j] : lpk[j];
    }
    if (T->io && T->io->zmin)
        for (int i = 0; i < a->n; i++) {
            if (a->z0[i] < T->io->zmin[i]) T->io->zmin[i] = a->z0[i];
            if (a->z0[i] > T->io->zmax[i]) T->io->zmax[i] = a->z0[i];
        }
    if (mode1) {
        memcpy(a->mode0, mode1, (size_t)m);
        a->have_mode = 1;
        a->key0 = a->key1;
        a->have_key0 = 1;
    }
    if (nflip) {
        memcpy(T->sw, a->sw1, (size_t)a->nsw);
        st->switch_events += nflip;
    }
    return NSC_OK;
}

/* After an accepted step of size hq (err its local error ratio): the event
 * bookkeeping (chattering), the bracket, and the next step: a new segment
 * after an event, a breakpoint, a switch flip or in chatter, else grown or
 * shrunk by the error control. */
static void next_step(ad *a, ctl *c, double hq, double err, double theta, int event, int at_bp,
                      int newseg)
{
    double t = c->t;
    if (event) {
        a->T->st->events++;
        c->ev_run = t - c->t_lastev < NSC_CHAT_H * c->href ? c->ev_run + 1 : 1;
        c->t_lastev = t;
        if (c->ev_run >= NSC_CHATTER) {
            c->chat_until = t + c->href;
            c->ev_run = 0;
        }
    }
    if (c->t_hi < INFINITY && !event) c->nup = 0; /* an ordinary step inside the bracket */
    if (c->t_hi < INFINITY && !event && t < c->t_hi - c->eps) {
        c->t_est = next_trial(a, t, c->t_hi, c->tol_t, c->nup);
    } else {
        c->t_hi = INFINITY;
        c->loc_it = 0;
    }
    if (event && a->chan && !at_bp && !newseg && !a->T->io) { /* MOS channel kinks only */
        hist_reset(a, t, a->z0, a->w0);      /* (the divided differences would see the kink) */
        c->kreset = 1;                       /* the next step keeps its size: no estimate yet */
        c->hnext = NSC_KINK_NEXT * c->h_pre; /* implicit-Euler steps still due after a */
        return;                              /* jump or a corner stay due (rev9) */
    }
    if (event || at_bp || newseg) {                   /* a new smooth segment */
        for (int j = 0; at_bp && j < a->L->nsrc; j++) /* from the sources' right limit */
            a->w0[j] = nsc_wave_eval(a->L->src[j].wave, t);
        hist_reset(a, t, a->z0, a->w0);
        double hlast = event ? c->h_pre : hq > c->hnext ? hq : c->hnext;
        c->hnext = NSC_RESTART * hlast;
        if (c->hnext < NSC_RESTART_MIN * c->href) c->hnext = NSC_RESTART_MIN * c->href;
        c->restart = NSC_RESTART_STEPS;
        return;
    }
    int noest = c->kreset && a->nh < 2; /* no local error measured since the kinks */
    c->kreset = c->kinked || (c->kreset && a->nh < 2);
    if (c->ring_reset || c->kinked) {   /* the first damped point, or the kinks' end: */
        hist_reset(a, t, a->z0, a->w0); /* the history's start (divided differences */
        c->ring_reset = 0;              /* across a kink see its slope change as */
    } else                              /* x''': they would reject the next steps) */
        hist_push(a, t, a->z0, a->w0);
    /* (a step after kinks without a measured error keeps the kinks' size:
     * doubled, the next kink's error, O(h^2), was rejected one trial in three) */
    double fac = err > 0 ? NSC_SAFETY * pow(err, theta == 0.5 ? -1.0 / 3 : -0.5)
                 : noest ? 1.0
                         : NSC_GROW;
    fac = fac > NSC_GROW ? NSC_GROW : fac < NSC_SHRINK ? NSC_SHRINK : fac;
    c->hnext = hq * fac;
    if (c->restart > 0) c->restart--;
}

/* 1 when a switch that flips at the end of the accepted step has a control
 * that moves with the start (S, n x ns): its instant then moves too. A
 * control set by the sources alone (a gate driven by a PULSE) has
 * sensitivity 0 and the frozen sensitivity is exact. */
static int flip_moves(const ad *a, const double *S, int ns)
{
    double big = 0, du = 0;
    for (int q = 0; q < ns; q++) {
        const double *col = S + (size_t)q * (size_t)a->n;
        for (int i = 0; i < a->n; i++) big = fmax(big, fabs(col[i]));
        for (int k = 0; k < a->nsw; k++) {
            const nsc_switch *W = &a->L->sw[k];
            if (a->sw1[k] == a->T->sw[k]) continue;
            du = fmax(du, fabs((W->c >= 0 ? col[W->c] : 0.0) - (W->d >= 0 ? col[W->d] : 0.0)));
        }
    }
    return du > 1e-12 * big;
}

/* The saltation of the one switch that flips at the end of the accepted step
 * of P (nsc_onestep_sens_flip), with the problem of the new switch states
 * built for it (implicit Euler, the same step); with from (the pairs' mode at
 * the step's start), the flip of a switch whose control jumped with the
 * pairs' event (a comparator's output) at the event's instant
 * (nsc_onestep_sens_event_flip). 0, 1 when not applied (S untouched), -1 on
 * failure. */
static int flip_sens(ad *a, nsc_onestep *P, const char *from, const double *dw0, const double *dw1)
{
    nsc_tran_io *io = a->T->io;
    int k = 0;
    while (a->sw1[k] == a->T->sw[k]) k++;
    nsc_onestep *Pn = NULL;
    nsc_report r;
    nsc_report_init(&r);
    nsc_onestep_opts o = { .h = nsc_onestep_h(P), .theta = 1.0, .theta_alg = 1.0, .sw = a->sw1 };
    int s = nsc_onestep_new(a->L, &o, &Pn, &r) ? 1
            : from ? nsc_onestep_sens_event_flip(P, Pn, from, a->z0, a->w0, a->w1, io->S, io->ns,
                                                 dw0, dw1)
                   : nsc_onestep_sens_flip(P, Pn, a->L->sw[k].c, a->L->sw[k].d, a->z0, a->w0, a->w1,
                                           io->S, io->ns, dw0, dw1);
    nsc_onestep_free(Pn);
    nsc_report_free(&r);
    return s;
}

/* The sensitivity (nsc_tran_io.S) through the accepted step of P from
 * (t, z0, w0) into mode1 with nflip switch flips: with the mode frozen, or,
 * where the pairs' mode changed (a located event, or one captured inside a
 * step) or one switch flipped on a control that moves with the state, with
 * the event's saltation (nsc_onestep_sens_event, nsc_onestep_sens_flip), so
 * that the period's monodromy matrix includes the shift of the switching
 * instant with the state. A switch that flips with the pairs' change and
 * whose control does not move (a comparator's output, which jumps) flips at
 * the pairs' event: its saltation is the event's guard with the new switch
 * states' field (nsc_onestep_sens_event_flip). Flips left frozen whose
 * control moves (several at once, or with a pair's change) are counted in
 * io->ev_frozen. */
static void step_sens(ad *a, nsc_onestep *P, const char *mode1, int nflip, double t0, double t1)
{
    nsc_tran_io *io = a->T->io;
    const double *dw0 = io->pac ? nsc_pac_dw(io->pac, t0, 0) : NULL,
                 *dw1 = io->pac ? nsc_pac_dw(io->pac, t1, 1) : NULL;
    int changed = mode1 && a->have_mode && memcmp(mode1, a->mode0, (size_t)a->m) != 0;
    int s = 1, moves = nflip && flip_moves(a, io->S, io->ns); /* (S at the step's start) */
    if (changed && !nflip)
        s = nsc_onestep_sens_event(P, a->mode0, a->z0, a->w0, a->w1, io->S, io->ns, dw0, dw1);
    else if (moves && nflip == 1 && !changed) s = flip_sens(a, P, NULL, dw0, dw1);
    else if (changed && nflip == 1 && !moves)
        s = flip_sens(a, P, a->mode0, dw0, dw1); /* a comparator's switch */
    if (s == 1 && moves) io->ev_frozen++;
    if (s == 1) s = nsc_onestep_sens(P, io->S, io->ns, dw0, dw1);
    if (s) io->sens_failed = 1;
    if (io->pac) nsc_pac_step(io->pac, t0, t1, io->S, a->T->sw, a->z0, a->z1, changed || nflip);
}

/* The local error of a segment's first step (one point of history: lte_ratio
 * has no estimate), an implicit-Euler step z0 -> z1 of size hq, by step
 * doubling: the same step as two halves z0 -> zh -> z2 in its mode, and
 * x1 - x2 = h/2 (x'(t1) - x'(t + h/2)) ~ h^2 x''/4, half of x1's local
 * error h^2 x''/2. A jump of the start (an algebraic node moved by the new
 * mode: both x1 and zh take it whole) cancels in x1 - x2, not in a one-half
 * comparison (which collapsed the steps of a MOS ringing into a C with ESR).
 * Without it the first step after an event was taken whatever its size: 2 % of
 * a 28 us step is 0.56 of the 0.99 us time constant an opened switch leaves an
 * inductor (L/ROFF), and that one step left i(l1) 12 % high for the rest of the
 * decay (hostile review, session 16). The ratio to the tolerance (as
 * lte_ratio's), or 0 when the halves are not solved (nothing is claimed).
 * Costs two solves per segment start: of a one-off problem, or, for a ladder
 * step hl (hq = t + hl - t, a few ulps of t off hl), of the ladder's own
 * problem of hl/2 (a ladder size too: cached, where hq/2 renewed a spare at
 * almost every segment start, 270 times on the 15-inverter cascade). */
static double first_ratio(ad *a, ctl *c, double hq, double hl, const char *mode1, int *worst)
{
    nsc_tran *T = a->T;
    const nsc_tran_opts *o = a->o;
    nsc_onestep *Ph;
    *worst = -1;
    if (nsc_pcache_get(T->cache, (hl > 0 ? hl : hq) / 2, 1.0, T->sw, hl == 0, &Ph, T->st, T->r))
        return 0;
    c->dirty = 1;                                 /* (a one-off may be a renewed spare) */
    nsc_onestep_set_mode_key(Ph, mode1, a->key1); /* (a->key1: mode1's) */
    for (int j = 0; j < a->L->nsrc; j++) a->wh[j] = nsc_wave_eval(a->L->src[j].wave, c->t + hq / 2);
    nsc_step_info info;
    double *zh = a->zh, *z2 = a->zh + a->n;
    if (nsc_onestep_step(Ph, o->solver, a->z0, a->w0, a->wh, zh, a->lh, &info)
        || nsc_onestep_step(Ph, o->solver, zh, a->wh, a->w1, z2, a->lh, &info))
        return 0;
    double err = 0;
    for (int i = 0; i < a->nd; i++) {
        double x0 = a->z0[a->di[i]], x1 = a->z1[a->di[i]];
        double ax = fabs(x1) > fabs(x0) ? fabs(x1) : fabs(x0);
        double r = 2 * fabs(x1 - z2[a->di[i]]) / (o->trtol * (o->reltol * ax + a->atol[i]));
        if (r > err) {
            err = r;
            *worst = i;
        }
    }
    return err;
}

/* The trial from c->t to tn (hl: a ladder step's size, else 0; tb: the
 * breakpoint it may land on) at theta: its one-step problem (*Pp), guessed
 * from the mode at t, solved into a->z1, a->l; *bad 1 when no solution is
 * taken (none, or a pivoting result not exact). NSC_OK, or a failure (the
 * step's values refused, or its pairs failing their check). */
static nsc_status trial_solve(ad *a, ctl *c, double tn, double hl, double tb, double theta,
                              nsc_onestep **Pp, int *bad, nsc_step_info *info)
{
    nsc_tran *T = a->T;
    const nsc_tran_opts *o = a->o;
    double hq = tn - c->t;
    nsc_onestep *P; /* a ladder step's problem is keyed by its */
    nsc_status s = nsc_pcache_get(T->cache, hl > 0 ? hl : hq, theta, T->sw, hl == 0, &P, T->st,
                                  T->r);
    if (s) return s; /* size (t + hl - t != hl in floating point) */
    *Pp = P;
    if (P != c->Plast || c->dirty) { /* the guess: the mode at t */
        if (a->have_mode && a->have_key0) nsc_onestep_set_mode_key(P, a->mode0, a->key0);
        else nsc_onestep_set_mode(P, a->have_mode ? a->mode0 : NULL);
        c->Plast = P;
    }
    nsc_onestep_set_alt(P, c->t_hi < INFINITY ? a->modehi
                                              : NULL); /* inside a bracket: its far end's mode */
    nsc_onestep_set_nopivot(P,
                            a->m > NSC_PIVOT_M
                                && hq > NSC_PIVOT_H * c->href); /* large m: shorter, not pivoting */
    /* w(t_k+1); a step that lands on a breakpoint takes the sources' left limit
     * there (a PWL or PULSE jump belongs to the next segment, which starts from
     * the right limit: next_step), else the jump fell inside this step and the
     * error control shrank it to nothing */
    double tw = tn == tb && tn > 0 ? tn * (1 - 4 * DBL_EPSILON) : tn;
    for (int j = 0; j < a->L->nsrc; j++) a->w1[j] = nsc_wave_eval(a->L->src[j].wave, tw);
    if ((s = nsc_lcs_check_step(a->L, T->c, a->w1, NULL, NULL, tn, T->r))) return s;
    *bad = nsc_onestep_step(P, o->solver, a->z0, a->w0, a->w1, a->z1, a->l, info);
    nsc_onestep_set_alt(P, NULL);
    nsc_onestep_set_nopivot(P, 0);
    if (!*bad && (s = nsc_lcs_check_step(a->L, T->c, NULL, a->z1, a->l, tn, T->r))) return s;
    c->dirty = 0;
    if (!*bad && info->lcp_solved && !info->polished
        && info->residual > 1e-9 * (1 + vmax(a->z1, a->n)))
        *bad = 1; /* pivoting result not exact: not taken */
    if (!*bad)
        s = nsc_step_pairs(a->L, T->c, P, info, T->st->steps == 0, a->z1, a->l, a->w1, tn, T->r);
    return s;
}

/* A step accepted in chatter: NSC_CHATTER of them in a row that captured no
 * change end the accumulation (events are located again). */
static void chatter_idle(ad *a, ctl *c)
{
    c->chat_idle = a->kink ? 0 : c->chat_idle + 1;
    if (c->chat_idle >= NSC_CHATTER) {
        c->chat_until = c->t;
        c->chat_idle = 0;
    }
}

/* The stand-in's bookkeeping after an accepted step (header, Stand-in): the
 * damped point ends the ringing's history; the start's ceiling ends once
 * departed, stable (rest_dev twice NSC_REST_PROBE steps on no larger) or after
 * NSC_REST_STEPS steps. */
static void standin_accepted(ad *a, ctl *c)
{
    if (c->damp1) {
        c->damp1 = 0;
        a->na = 1;
        a->ta[0] = c->t;
        memcpy(a->za[0], a->z0, sizeof(double) * (size_t)a->n);
    }
    if (!a->rest) return;
    double dev = rest_dev(a);
    if (++a->nrest == NSC_REST_PROBE) a->dev_probe = dev;
    if (dev > NSC_REST_DEPART || a->nrest >= NSC_REST_STEPS
        || (a->nrest == 2 * NSC_REST_PROBE && dev <= a->dev_probe)) /* departed; or stable */
        a->rest = 0;
}

/* 1 when the step into mode1 with nflip switch flips changes a switch or a
 * pair whose change is not a continuous kink (lcs.h pair_cont): the
 * multipliers may jump there. a->chan: 1 when every changed pair is a PWL MOS
 * channel segment (pair_cont 3). */
static int jumps(ad *a, const char *mode1, int nflip)
{
    a->chan = 0;
    if (nflip) return 1;
    if (!mode1 || !a->have_mode) return 0;
    int chan = 1;
    for (int j = nsc_flags_next_diff(mode1, a->mode0, 0, a->m); j < a->m;
         j = nsc_flags_next_diff(mode1, a->mode0, j + 1, a->m)) { /* the changed pairs only */
        if (!a->L->pair_cont[j]) return 1;
        chan &= a->L->pair_cont[j] == 3;
    }
    a->chan = chan;
    return 0;
}

/* One trial from c->t. NSC_OK (advanced or not), or a failure. */
static nsc_status trial(ad *a, ctl *c)
{
    nsc_tran *T = a->T;
    const nsc_tran_opts *o = a->o;
    int chatter = c->t < c->chat_until;
    double hl, tb, tn = trial_end(a, c, chatter, &hl, &tb), hq = tn - c->t;
    if (c->t_hi == INFINITY) c->tol_t = loc_tol(c); /* kept while the event found is bracketed */
    /* theta = 1 on restarts, in chatter, and on the last trial of a bracket
     * (<= tol_t: the step that takes the mode change, where a quantity that
     * jumps, a comparator's output on an algebraic row, would overshoot at
     * theta = 1/2: the MOS of the buck saw a second event 8 ps later) */
    double theta = c->restart || chatter || c->damped || c->damp1
                           || (c->t_hi < INFINITY && hq <= c->tol_t * (1 + 1e-9))
                       ? 1.0
                       : o->theta;
    nsc_onestep *P = NULL;
    nsc_step_info info;
    int bad = 0;
    nsc_status s = trial_solve(a, c, tn, hl, tb, theta, &P, &bad, &info);
    if (s) return s;
    if (bad) return on_no_solution(a, c, P, tn, &info);
    const char *mode1 = nsc_onestep_mode(P);
    if (mode1) a->key1 = nsc_onestep_mode_key(P); /* (mode1 is P's mode: its key) */
    int nflip = 0;
    if (a->nsw) {
        memcpy(a->sw1, T->sw, (size_t)a->nsw);
        nflip = nsc_lcs_switch_update(a->L, a->z1, a->sw1);
    }
    int nc = chatter || !a->have_mode ? 0 : changed_items(a, mode1, nflip, nsc_onestep_kappa(P));
    int ne = kinks_apart(a, nc); /* events first, then continuous kinks */
    /* (tol_t with last's slack: a trial t + tol_t, a few ulps of t longer than
     * tol_t, was bracketed again, then bisected: three trials more an event) */
    if (ne > 0 && hq > c->tol_t * (1 + 1e-9) && c->loc_it < NSC_LOC_MAXIT && !c->take) {
        bracket(a, c, ne, tn, tb, mode1); /* an event inside */
        return NSC_OK;
    }
    int event = ne > 0, worst = -1;
    a->kink = event || nflip
              || (mode1 && a->have_mode
                  && memcmp(mode1, a->mode0,
                            (size_t)a->m)); /* bracketed to tol_t: the event is at tn */
    a->jump = a->kink && jumps(a, mode1, nflip);
    a->chan &= a->kink;
    /* the last trial of a bracket (at most tol_t long) is taken whatever its
     * error: rejecting it retried the same step forever (the bracket's end
     * does not move), a stall of 100000 trials on a VDMOS buck's turn-on */
    int last = c->t_hi < INFINITY && hq <= c->tol_t * (1 + 1e-9);
    double err = event || chatter || last ? 0 : lte_ratio(a, tn, a->z1, a->w1, theta, &worst);
    /* a segment's first step; not a step after the kinks' history reset (kreset:
     * it keeps the kinks' size, whose error kink_ratio measured; taken as a
     * first step at theta = 1, in restart steps and in every step once damped,
     * the cascade at chgtol=1e-14 took 13 091 steps) */
    if (!event && !chatter && !last && a->nh < 2 && theta == 1.0 && !T->io && !c->kreset)
        err = first_ratio(a, c, hq, hl, mode1, &worst);
    /* continuous kinks alone: taken at the step's end, their error measured
     * (kink_ratio, O(h^2): the step's size follows it as implicit Euler's, theta 1) */
    double kerr = !event && !chatter && !last && nc > ne ? kink_ratio(a, ne, nc - ne, hq, P) : 0,
           th_c = theta;
    if (kerr > err) {
        err = kerr;
        th_c = 1.0;
        worst = -1;
    }
    if (err > 1) return reject_lte(a, c, hq, err, th_c, worst);
    if (!event && !chatter && !last && alg_ring(a, tn, a->z1, theta) > 1)
        return damp_trial(a, c, hq);
    if (T->io && T->io->S) step_sens(a, P, mode1, nflip, c->t, tn);
    if (T->acc)
        nsc_loss_acc_step(T->acc, theta, c->t, tn, a->z0, a->z1, a->l, a->w0, a->w1, T->sw, mode1);
    if ((s = advance(a, c, tn, theta, &info, mode1, nflip, chatter))) return s;
    if (chatter) chatter_idle(a, c);
    c->kinked = nc > ne;
    next_step(a, c, hq, err, th_c, event, c->t == tb, nflip || chatter);
    standin_accepted(a, c);
    return NSC_OK;
}

/* The smooth function whose value unknown j is (row 0 = -z_j + f(z): a charge
 * of a device's terminal voltages, Meyer's, a charge-based capacitor), or -1 */
static int smooth_of(const nsc_lcs *L, int j)
{
    for (int k = 0; k < L->nsm; k++)
        if (L->sm[k].row == j) return k;
    return -1;
}

/* The charges among the differential unknowns set to f(zk), zk: the start z0
 * with every node voltage moved by NSC_REST_KICK (k + 1)/nnode of its
 * tolerance (k of nnode: unequal); A's and s0's linearisation kept. -1: no
 * memory or a function not finite there (the charges unchanged). */
static int kick_charges(ad *a)
{
    const nsc_lcs *L = a->L;
    int n = L->n, nn = L->nnode_z, nx = L->A->p[L->A->n];
    double *zk = malloc(sizeof(double) * (size_t)(n + L->n + nx));
    if (!zk) return -1;
    double *s0 = zk + n, *ax = s0 + L->n; /* A's and s0's values, restored */
    memcpy(zk, a->z0, sizeof(double) * (size_t)n);
    memcpy(s0, L->s0, sizeof(double) * (size_t)L->n);
    memcpy(ax, L->A->x, sizeof(double) * (size_t)nx);
    for (int k = 0; k < nn; k++)
        zk[k] += NSC_REST_KICK * (a->o->reltol * fabs(zk[k]) + a->o->vntol) * (k + 1) / nn;
    int bad = nsc_lcs_smooth_at(L, zk);
    for (int i = 0; !bad && i < a->nd; i++) {
        int j = a->di[i], k = smooth_of(L, j);
        if (k < 0) continue;
        const nsc_smooth *S = &L->sm[k];
        double f = L->s0[j]; /* f(zk) = s0 + J zk */
        for (int q = 0; q < S->nin; q++) f += L->A->x[S->apos[q]] * zk[S->in[q]];
        a->z0[j] = f;
    }
    memcpy(L->s0, s0, sizeof(double) * (size_t)L->n);
    memcpy(L->A->x, ax, sizeof(double) * (size_t)nx);
    free(zk);
    return bad ? -1 : 0;
}

/* The stand-in's start (header, Stand-in): steps at most TSTEP / 8 (on the
 * ladder) until departed, and the differential unknowns moved off the start's
 * state by NSC_REST_KICK (i + 1)/nd of their tolerances (unknown i of nd:
 * unequal, so that no symmetry of the circuit hides a mode from it) -- but a
 * charge z_j = q(v) (smooth_of) to q at the node voltages so moved
 * (kick_charges): a charge kicked on its own is met by moving the voltages to
 * where q reaches it, and in saturation Meyer's q_d is flat in v_d, so the
 * drain jumped to the saturation edge for the first steps (a 1 V -> 4 V
 * glitch of 1 ps at every level 1-3 card with TOX; ngspice's mosamp's output
 * 6.3 V off at t = 2.6 ps). TSTEP / 8: where the only storage is charges the
 * channel current enters at the step's end (the charge rows are exact), and
 * steps of h |s| > 1 damp a ring's unstable mode s like implicit Euler
 * (|1 - h s| > 1): rev9's Meyer ring (TSTEP 0.1 ns, |s| ~ 1.4e10/s) stayed at
 * its balance at 0.1 ns steps and oscillated at 50 ps ones. */
static void rest_start(ad *a, double hmax)
{
    a->rest = 1;
    a->nrest = 0;
    a->hrest = ladder(a->o->tstep / 8, hmax);
    int nq = 0;
    for (int i = 0; i < a->nd; i++) {
        double *x = &a->z0[a->di[i]];
        a->xrest[i] = *x;
        if (smooth_of(a->L, a->di[i]) >= 0) nq++;
        else *x += NSC_REST_KICK * (a->o->reltol * fabs(*x) + a->atol[i]) * (i + 1) / a->nd;
    }
    if (nq) kick_charges(a); /* (failed: the charges stay at rest) */
}

nsc_status nsc_tran_adaptive(nsc_tran *T)
{
    const nsc_tran_opts *o = T->o;
    nsc_sim_stats *st = T->st;
    nsc_waves *W = T->W;
    ad A, *a = &A;
    ctl C = { 0 }, *c = &C;
    nsc_status s = NSC_OK;
    if (ad_init(a, T)) {
        s = nsc_oom(T->r);
        goto fail;
    }
    c->hmax = o->h;
    c->href = o->href > 0 && o->href < o->h ? o->href : o->h;
    c->hmin = NSC_HMIN * c->href;
    c->tol_t = NSC_LOC_TOL * c->href;
    c->eps = a->eps = 1e-9 * c->href;
    c->hnext = NSC_RESTART_MIN * c->href;
    c->t_hi = INFINITY;
    c->h_pre = c->hmax;
    c->t_lastev = c->chat_until = a->t_jump = -INFINITY;
    c->t_cap = INFINITY;
    c->restart = c->dirty = 1;
    c->t = T->io ? T->io->t0 : T->t0;
    if (o->steps && o->interp && T->handover)
        a->Ws = *o->steps; /* the exact stepper's table, continued */
    else if (o->steps && o->interp && (s = nsc_steps_table(T, c->t, a->eps, a->v0, &a->Ws)))
        goto fail;
    if (o->standin && a->nd > 0 && o->tstep < c->hmax) /* SPICE's ceiling at the start */
        rest_start(a, c->hmax);
    hist_reset(a, c->t, a->z0, a->w0);
    a->have_mode = a->m == 0; /* no pairs: the (empty) mode is known */
    a->have_key0 = 0;
    if (T->handover && T->hmode) {                /* the exact transient's, up to t0: a mode */
        memcpy(a->mode0, T->hmode, (size_t)a->m); /* change at t0 (a source's corner) is the */
        a->have_mode = 1;                         /* first step's event, not its local error */
        a->have_key0 = 0;
    }
    st->hmin_used = INFINITY;
    while (c->t < o->tstop - c->eps) {
        if (o->stop && *o->stop) {
            W->end = NSC_RUN_INTERRUPTED;
            W->end_msg = nsc_strdup("by a signal"); /* the note says "interrupted at t=..." */
            break;
        }
        if (++c->stall > NSC_STALL) { /* never a hang: trials without progress */
            s = nsc_err(T->r, NSC_ESIM, NULL, "no progress at t=%.9g s after %d trial steps", c->t,
                        NSC_STALL);
            goto fail;
        }
        if ((s = trial(a, c))) goto fail;
    }
    W->t_end = c->t;
    if (st->hmin_used == INFINITY) st->hmin_used = 0;
    if (T->io && T->io->zend) { /* the state reached, for the next run */
        memcpy(T->io->zend, a->z0, sizeof(double) * (size_t)a->n);
        memcpy(T->io->lend, a->l, sizeof(double) * (size_t)a->m);
        memcpy(T->io->swend, T->sw, (size_t)a->nsw);
    }
    ad_free(a);
    return s;
fail:
    W->t_end = c->t;
    W->end = W->end == NSC_RUN_INTERRUPTED ? W->end : NSC_RUN_FAILED;
    W->end_msg = nsc_end_msg(T->r, "solver failure");
    if (st->hmin_used == INFINITY) st->hmin_used = 0;
    ad_free(a);
    return s;
}
