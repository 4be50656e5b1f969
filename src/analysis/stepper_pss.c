/* stepper_pss.c -- the periodic steady state by shooting (cli.md --steady,
 * netlist.md .pss).
 *
 * The sources repeat with period T for t >= t0 (their common period, or the
 * user's). Let x be the differential unknowns (the columns of E: capacitor
 * node voltages, inductor currents) and Phi(x) the state one period after
 * starting from x at t_s = t0 + k T, computed by the adaptive transient
 * (stepper_adapt.c; its first step is implicit Euler, which reads only x of
 * the start). The steady state solves F(x) = Phi(x) - x = 0 by Newton's method,
 *     A dx = -F(x),   A = J - I (+ B),
 * with J = dPhi/dx, the monodromy matrix, propagated through the period's
 * steps: each accepted step in mode a is linear, z1 = K_a^-1 [R z0 + ...], so
 * dz1 = [I 0] K_a^-1 [R dz0; 0] (nsc_onestep_sens), nd solves of the
 * factored mode system per step; one period gives J, no finite differences.
 * At each event whose instant moves with the state (a diode turning off in
 * DCM, a PWM comparator's crossing in closed loop, a switch S on a state)
 * the step's end is a function of its start and the saltation term is added
 * (stepper_adapt.c; nsc_onestep_sens_event, nsc_onestep_sens_flip): J is
 * then the derivative of the period's map (netlists/buck.cir, closed loop:
 * J within 7e-5 of its largest entry from central differences of Phi, where
 * the frozen J had dv(ea)/dv(out) -26.7 for -7.07). With an exact J the
 * trust region starts at NSC_PSS_STEP merit scales and an open-loop
 * converter converges in 2-3 periods (the buck in 5). Events whose saltation
 * the run could not form (switches S on controls that move with the state
 * flipping together, or with a pair's change) are counted
 * (nsc_tran_io.ev_frozen); for those runs only, B, a secant (Broyden)
 * correction updated after every run, learns what J leaves out, and the trust
 * region starts at 1 merit scale. Measured on netlists/: buck, boost, cuk,
 * flyback 5, 3, 3, 2 shooting periods with the saltation and no secant; the
 * secant on top made them 6, 4, 3, 2. Each iteration is one period: F and J
 * of the new point come from the same run. Globalisation: a trust region on
 * the step (shoot()) and, after repeated failures, a transient period.
 *
 * Step ceiling: T/50 in the warm-up, T/200 in the shooting and the written
 * periods (a netlist's smaller TMAX stays). The adaptive steps' error has
 * parts first order in the ceiling that the local error estimate does not
 * see. A pair's multiplier is the step's mean current while its condition
 * held at the step's end (onestep.c, theta on the algebraic rows), so a
 * diode's RON i lagged by RON di/dt h/2 (the open-loop comparator buck's mean
 * v(out) 3.55e-5 low): in these runs the condition is held at the theta point
 * (nsc_tran_opts.pair_mean, nsc_onestep_opts.mean; that buck now within 5e-9
 * of D Vin / (1 + R0/R)). Events are located to 1e-3 of the ceiling
 * (stepper_adapt.c); a switch flips 1e-6 of the ceiling past the crossing
 * predicted from its control's straight line (next_trial): exact for a
 * sawtooth, where a switch on its own sawtooth control flipped up to 25 ps
 * late, the same buck's mean 6.6e-6 low (now 2.9e-9). Before the first: on
 * netlists/boost.cir without its TMAX
 * (RON 0.09 Ohm carrying the inductor's ramp) v(out) was 3.3e-3 of its ripple
 * off (RMS) at T/50, 1.7e-3 at T/100, 6.6e-4 at T/200, against the same
 * steady state at TMAX = 0.25 ns (itself within 5e-5 of the last period of
 * a fixed-step transient at 0.2 ns, tests/data/pss: 7.2e-4 against that);
 * steps of a shooting period 89 -> 247.
 *
 * Convergence: max_i |F_i| / scale_i <= tol, scale_i = max(peak-to-peak of x_i
 * over the period, 1e-3 max |x_i|, VNTOL or ABSTOL). The written periods are
 * one more run from the solution; their own cycle-to-cycle change is
 * reported (nsc_pss_info.residual).
 *
 * Stability: Newton finds a fixed point of Phi whether or not it attracts
 * (a linear circuit's in one step). The Floquet multipliers, the eigenvalues
 * of J at the solution (the last shooting period ran from it), decide: a
 * perturbation dx becomes J^k dx after k periods. One of modulus above 1 +
 * NSC_PSS_MU_TOL fails the run (NSC_ESIM), naming it and its value measured
 * on one period of Phi along its eigenvector (confirm(); where that puts a
 * sole real one inside, J's lacking saltation is blamed: a warning, and the
 * run goes on); the largest is reported (nsc_pss_info.mu_*). The margin:
 * J's multipliers agree with those of central differences of Phi to 4e-6
 * on netlists/ cuk, boost, flyback (the saltation makes J the derivative of
 * the period's map; the relays of tests/analysis/test_stepper_pss.c bound
 * its entries to 8e-4 of the largest), an undamped LC gives 1 - 2e-8 (the
 * implicit-Euler first step); and beyond 1 + 1e-3 a perturbation grows
 * e-fold within 1000 periods, a physical instability. Where J lacks
 * saltation terms the multipliers are those of J + B, the secant model's. */
#include "stepper_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solve/la_dense.h"
#include "lcs/lcs.h"
#include "pac.h"

#define NSC_PSS_MAXPER 1000    /* the common period is at most this many of the longest */
#define NSC_PSS_MAXWARM 100000 /* periods before the sources repeat, at most */
#define NSC_PSS_HALVE 3        /* step halvings before a plain transient period */
#define NSC_PSS_STEP 100       /* largest Newton step, in merit scales (the warm-up's range) */
#define NSC_PSS_HWARM 50 /* warm-up steps at most T / this (ngspice's span / 50: a start only) */
#define NSC_PSS_HMAX 200 /* shooting and written steps at most T / this (the header) */
#define NSC_PSS_MU_TOL \
    1e-3                /* a multiplier is outside the unit circle when |mu| > 1 + this (above) */
#define NSC_PSS_LEAPS 2 /* full Newton steps taken although the merit rose (shoot()) */

typedef struct pss {
    const nsc_circuit *c;
    nsc_tran_opts o; /* the internal runs: no rows, no progress */
    int n, m, nsw, nd;
    long frozen;  /* events of the last run with sensitivities whose saltation J lacks */
    int nojac;    /* 1: a step's sensitivity failed in the last run with sensitivities */
    int *di;      /* [nd] differential unknowns */
    char **zname; /* [n] (the assembled LCS's) */
    double *atol; /* [nd] */
    double *z, *l, *z1, *l1, *S, *zmin, *zmax, *J, *F, *x, *dx;
    double *lpk; /* [m] each pair's peak over the written periods (nsc_dev_check) */
    double *A, *B, *Facc, *ms, *Phiacc,
        dxn; /* [nd*nd] model and secant correction, [nd] F at the accepted point, merit scales */
    double *wr, *wi; /* [nd] the Floquet multipliers */
    double *xs;      /* [nd] the solution's differential unknowns (confirm()) */
    double *Jb, *zb,
        *lb; /* the best iterate (lowest merit): its monodromy (J + B where frozen), start */
    char *swb;
    double mbest, rbest;      /* its merit and residual */
    int itbest, worstb, jbok; /* its shooting period, worst state; 1: its J exists */
    double stall; /* the smallest step (merit scales) tried from it without a lower merit */
    int usebest;  /* 1: monodromy() and multipliers() read the best iterate's */
    char *sw, *sw1;
    int *ipiv;
    nsc_sim_stats *st;
    nsc_pss_info *info;
    nsc_report *r;
} pss;

/* The common period of the sources of L and the time from which they repeat. */
static nsc_status common_period(const nsc_circuit *c, const nsc_lcs *L, double *T, double *since,
                                nsc_report *r)
{
    double pmax = 0;
    *since = 0;
    for (int j = 0; j < L->nsrc; j++) {
        double s, p = nsc_wave_period(L->src[j].wave, &s);
        const nsc_element *e = &c->el[L->src[j].el];
        if (p < 0 && !(*T > 0))
            return nsc_err(
                r, NSC_ENETLIST, &e->loc,
                "source %s is not periodic (EXP, a damped SIN, a B source's function of time): give the "
                "steady state's period with --period or .pss period=",
                e->name);
        if (s > *since) *since = s;
        if (p > pmax) pmax = p;
    }
    if (*T > 0 && *T < NSC_PERIOD_MIN)
        return nsc_err(r, NSC_EUSAGE, NULL,
                       "the period %g s is shorter than %g s, the shortest nscircuit's steps "
                       "resolve",
                       *T, NSC_PERIOD_MIN);
    if (*T > 0) { /* given: warn where it is not a period */
        int warned = -1;
        for (int j = 0; j < L->nsrc; j++) {
            double s, p = nsc_wave_period(L->src[j].wave, &s), q = p > 0 ? *T / p : 0;
            if (p > 0 && !(fabs(q - nearbyint(q)) <= 1e-9 * q && q >= 0.5))
                nsc_warn(r, &c->el[L->src[j].el].loc,
                         "the period %g s is not a multiple of source %s's period %g s: "
                         "the result is not a periodic steady state",
                         *T, c->el[L->src[j].el].name, p);
            else if (p < 0 && L->src[j].el != warned
                     && !nsc_wave_repeats(L->src[j].wave, *T, fmax(s, *since))) {
                warned = L->src[j].el; /* once per element (a B source's several) */
                nsc_warn(r, &c->el[warned].loc,
                         "the period %g s is not a period of source %s's waveform (its values "
                         "at t and t + %g s differ): the result is not a periodic steady state",
                         *T, c->el[warned].name, *T);
            }
        }
        return NSC_OK;
    }
    if (pmax == 0)
        return nsc_err(r, NSC_EUSAGE, NULL,
                       "no periodic source: give the steady state's period with --period");
    for (int k = 1; k <= NSC_PSS_MAXPER; k++) { /* the smallest multiple of pmax that ... */
        double cand = k * pmax;
        int ok = 1;
        for (int j = 0; j < L->nsrc && ok; j++) { /* ... each period divides */
            double s, p = nsc_wave_period(L->src[j].wave, &s), q = p > 0 ? cand / p : 0;
            ok = p <= 0 || fabs(q - nearbyint(q)) <= 1e-9 * q;
        }
        if (ok) {
            *T = cand;
            return NSC_OK;
        }
    }
    return nsc_err(r, NSC_EUSAGE, NULL,
                   "the sources' periods have no common multiple within %d periods of "
                   "the longest (%g s): give the period with --period",
                   NSC_PSS_MAXPER, pmax);
}

static void stats_add(nsc_sim_stats *a, const nsc_sim_stats *b)
{
    a->steps += b->steps;
    a->rejected += b->rejected;
    a->events += b->events;
    a->locate_trials += b->locate_trials;
    a->captured += b->captured;
    a->kinks += b->kinks;
    a->bracket_trials += b->bracket_trials;
    a->short_steps += b->short_steps;
    a->mode_hits += b->mode_hits;
    a->active_set += b->active_set;
    a->lcps += b->lcps;
    a->pivots += b->pivots;
    a->factorizations += b->factorizations;
    a->nl_solves += b->nl_solves;
    a->nl_iters += b->nl_iters;
    a->nl_fails += b->nl_fails;
    a->nl_chords += b->nl_chords;
    if (b->nl_maxit > a->nl_maxit) a->nl_maxit = b->nl_maxit;
    a->switch_events += b->switch_events;
    a->mode_factor += b->mode_factor;
    a->mode_cached += b->mode_cached;
    if (b->hmin_used > 0 && (a->hmin_used == 0 || b->hmin_used < a->hmin_used))
        a->hmin_used = b->hmin_used;
    if (b->hmax_used > a->hmax_used) a->hmax_used = b->hmax_used;
    if (b->max_residual > a->max_residual) a->max_residual = b->max_residual;
    a->n = b->n;
    a->m = b->m;
}

/* A run of o (from o->tstart to o->tstop) from p's start state (from the OP
 * at t = 0 when fresh), its end state into z1/l1/sw1 and its range into
 * zmin/zmax; with the sensitivities when sens (*nojac = 1 when a step's could
 * not be computed). With out, the table of the probes is handed back; without,
 * an interrupted run is an error. */
static nsc_status run(pss *p, const nsc_tran_opts *o, const nsc_probe *probes, int nprobe,
                      nsc_waves **out, int fresh, int sens, int *nojac)
{
    nsc_tran_io io = { o->tstart,
                       fresh ? NULL : p->z,
                       p->l,
                       p->sw,
                       p->z1,
                       p->l1,
                       p->sw1,
                       p->zmin,
                       p->zmax,
                       sens ? p->S : NULL,
                       p->nd,
                       0,
                       out ? p->lpk : NULL,
                       0,
                       NULL };
    for (int i = 0; i < p->n; i++) p->zmin[i] = p->zmax[i] = fresh ? 0 : p->z[i];
    if (sens) {
        memset(p->S, 0, sizeof(double) * (size_t)p->n * (size_t)p->nd);
        for (int k = 0; k < p->nd; k++) p->S[(size_t)k * (size_t)p->n + (size_t)p->di[k]] = 1;
    }
    nsc_waves *W = NULL;
    nsc_sim_stats st;
    nsc_status s = nsc_stepper_tran_io(p->c, o, probes, nprobe, &io, &W, &st, p->r);
    stats_add(p->st, &st);
    p->info->periods_run += lround((o->tstop - o->tstart) / p->info->period);
    if (nojac) *nojac = io.sens_failed;
    if (sens) p->frozen = io.ev_frozen;
    if (sens) p->nojac = io.sens_failed;
    if (out) {
        *out = W;
        return s;
    }
    int interrupted = W && W->end == NSC_RUN_INTERRUPTED;
    nsc_waves_free(W);
    if (!s && interrupted) s = nsc_err(p->r, NSC_ESIM, NULL, "interrupted by a signal");
    return s;
}

/* An internal run over [t0, t1]: no rows but its ends, no progress. */
static nsc_status run_span(pss *p, double t0, double t1, int fresh, int sens, int *nojac)
{
    nsc_tran_opts o = p->o;
    o.tstart = t0;
    o.tstop = t1;
    o.tstep = t1 - t0;
    return run(p, &o, NULL, 0, NULL, fresh, sens, nojac);
}

/* F = Phi(x) - x on the differential unknowns and the residual max |F_i| /
 * scale_i (*worst: its unknown), scale_i = max(peak-to-peak of x_i over the run,
 * 1e-3 max |x_i|, VNTOL or ABSTOL). */
static double residual(pss *p, int *worst)
{
    double res = 0;
    *worst = p->nd > 0 ? p->di[0] : 0;
    for (int k = 0; k < p->nd; k++) {
        int i = p->di[k];
        double big = fmax(fabs(p->zmin[i]), fabs(p->zmax[i]));
        double scale = fmax(fmax(p->zmax[i] - p->zmin[i], 1e-3 * big), p->atol[k]);
        p->F[k] = p->z1[i] - p->z[i];
        double q = fabs(p->F[k]) / scale;
        if (!(q <= res)) {
            res = q;
            *worst = i;
        }
    }
    return res;
}

/* The start of the next run: the end state reached (algebraic unknowns, the
 * mode guess, switch states) with x + alpha dx. */
static void set_start(pss *p, double alpha)
{
    memcpy(p->z, p->z1, sizeof(double) * (size_t)p->n);
    memcpy(p->l, p->l1, sizeof(double) * (size_t)p->m);
    memcpy(p->sw, p->sw1, (size_t)p->nsw);
    for (int k = 0; k < p->nd; k++) p->z[p->di[k]] = p->x[k] + alpha * p->dx[k];
}

/* The converged start's algebraic unknowns and multipliers: those its run
 * reached at ts + T (the differential ones there are the start's within the
 * tolerance), not the previous run's end's (set_start), which belong to the
 * iterate before the last Newton step: the written period's first row
 * printed them (netlists/flyback.cir, converged in 2 shooting periods: v(d)
 * 12.3 V and i(d1) 0.945 A at t = ts, 20.02 V and 1.21 A one period later).
 * Kept where a switch's state at ts + T differs from the start's. */
static void consistent_start(pss *p)
{
    if (memcmp(p->sw, p->sw1, (size_t)p->nsw)) return;
    for (int k = 0; k < p->nd; k++) p->xs[k] = p->z[p->di[k]];
    memcpy(p->z, p->z1, sizeof(double) * (size_t)p->n);
    memcpy(p->l, p->l1, sizeof(double) * (size_t)p->m);
    for (int k = 0; k < p->nd; k++) p->z[p->di[k]] = p->xs[k];
}

/* The model matrix at the accepted point: A = J - I, + B (the secant
 * correction carried from earlier points) when J lacks saltation terms. */
static void model(pss *p)
{
    int nd = p->nd;
    for (int k = 0; k < nd; k++)
        for (int q = 0; q < nd; q++) {
            size_t kq = (size_t)k * (size_t)nd + (size_t)q; /* column k, row q */
            p->A[kq] = p->S[(size_t)k * (size_t)p->n + (size_t)p->di[q]] - (q == k)
                       + (p->frozen ? p->B[kq] : 0);
        }
}

/* The step dx: A dx = -F(x_acc), at most cap merit scales in any state. 0, or
 * -1 when A is singular. */
static int newton_step(pss *p, double cap)
{
    int nd = p->nd;
    memcpy(p->J, p->A, sizeof(double) * (size_t)nd * (size_t)nd);
    for (int k = 0; k < nd; k++) p->dx[k] = -p->Facc[k];
    if (nsc_dense_solve(nd, p->J, nd > 0 ? nd : 1, p->ipiv, p->dx)) return -1;
    double big = 0;
    for (int k = 0; k < nd; k++) {
        if (!isfinite(p->dx[k])) return -1;
        big = fmax(big, fabs(p->dx[k]) / p->ms[k]);
    }
    for (int k = 0; big > cap && k < nd; k++) p->dx[k] *= cap / big;
    p->dxn = big < cap ? big : cap;
    return 0;
}

/* The secant (Broyden) update from the run at x_acc + dx: with r = (F - F_acc)
 * - A dx and dx_s = dx ./ ms, A and B += r (dx_s ./ ms)^T / |dx_s|^2, so that the
 * model reproduces the observed change of F. Used only when the run's J
 * lacks saltation terms (p->frozen: nsc_tran_io.ev_frozen), it learns them:
 * a rank-one term per such event. */
static void secant(pss *p)
{
    int nd = p->nd;
    double den = 0;
    for (int k = 0; k < nd; k++) den += (p->dx[k] / p->ms[k]) * (p->dx[k] / p->ms[k]);
    if (!(den > 0)) return;
    for (int q = 0; q < nd; q++) {
        double pred = 0;
        for (int k = 0; k < nd; k++) pred += p->A[(size_t)k * (size_t)nd + (size_t)q] * p->dx[k];
        double rq = (p->F[q] - p->Facc[q]) - pred;
        for (int k = 0; k < nd; k++) {
            double d = rq * p->dx[k] / (p->ms[k] * p->ms[k]) / den;
            p->A[(size_t)k * (size_t)nd + (size_t)q] += d;
            p->B[(size_t)k * (size_t)nd + (size_t)q] += d;
        }
    }
}

/* The merit of the run just made: max |F_k| / ms_k (fixed scales). */
static double merit(const pss *p)
{
    double r = 0;
    for (int k = 0; k < p->nd; k++) r = fmax(r, fabs(p->F[k]) / p->ms[k]);
    return r;
}

/* The run just made (from p->z, merit mn, residual rn) as the best iterate. */
static void monodromy(const pss *p, double *M);
static void keep_best(pss *p, int it, double rn, double mn, int worst, int nojac)
{
    p->mbest = mn;
    p->rbest = rn;
    p->itbest = it;
    p->worstb = worst;
    p->jbok = !nojac;
    p->stall = INFINITY;
    memcpy(p->zb, p->z, sizeof(double) * (size_t)p->n);
    memcpy(p->lb, p->l, sizeof(double) * (size_t)p->m);
    memcpy(p->swb, p->sw, (size_t)p->nsw);
    monodromy(p, p->Jb);
}

/* Shooting from the state in z1 (the end of the warm-up, at ts; zmin/zmax its
 * range, the merit scales). Trust region: the step is at most cap merit scales
 * (from NSC_PSS_STEP when the first run's J holds every event's saltation,
 * else from 1), cap grows 4x after a full step that lowered the merit, shrinks
 * 4x after one that did not (the model is then corrected by the secant where
 * J lacks saltation terms, and the step recomputed); after NSC_PSS_HALVE such
 * failures in a row the next start is Phi(x_acc), a transient period. A full
 * Newton step of an exact J (no frozen events) whose merit rose is still
 * taken as the next point, NSC_PSS_LEAPS times per run: the period's map is
 * piecewise smooth, and from a start in another region (an open-loop buck's
 * warm-up in DCM, coming down from the operating point's 11 V) its J points
 * past a kink into the region of the orbit, whose own J then lands on it: 3
 * shooting periods where the trust region, cut to 1e-5 merit scales, took 11
 * (a switch comparing the control with a sawtooth, an E TABLE or a B source
 * comparator, tests/analysis/test_stepper_pss.c; 44 with an ESR,
 * tests/data/pac/buck_open.cir). On success p->z is
 * the periodic state at ts. */
static nsc_status no_orbit(pss *p, int it, double ts, double T, const nsc_pss_opts *po);

static nsc_status shoot(pss *p, double ts, double T, const nsc_pss_opts *po)
{
    int worst, fails = 0, it = 0, nojac, trial = 0, leaps = 0;
    double macc = INFINITY, cap = 1;
    p->mbest = INFINITY;
    for (int k = 0; k < p->nd; k++) {
        int i = p->di[k];
        p->ms[k] = fmax(fmax(p->zmax[i] - p->zmin[i], fmax(fabs(p->zmin[i]), fabs(p->zmax[i]))),
                        p->atol[k]);
        p->x[k] = p->z1[i];
        p->dx[k] = 0;
    }
    set_start(p, 0);
    while (it < po->maxit) {
        it++;
        nsc_status s = run_span(p, ts, ts + T, 0, 1, &nojac);
        if (s) return s;
        double rn = residual(p, &worst), mn = merit(p);
        p->info->iterations = it;
        p->info->residual = rn;
        p->info->worst = worst;
        if (rn <= po->tol) {
            consistent_start(p);
            return NSC_OK;
        }
        if (mn < p->mbest) keep_best(p, it, rn, mn, worst, nojac);
        else if (trial) p->stall = fmin(p->stall, p->dxn);
        if (it == 1)
            cap = p->frozen ? 1 : NSC_PSS_STEP; /* J exact: a full Newton step is trusted */
        if (trial && p->frozen) secant(p);      /* what the model missed */
        int bad = 0;
        int leap = trial && !p->frozen && p->dxn < cap && leaps < NSC_PSS_LEAPS && mn >= macc;
        leaps += leap;           /* a full Newton step with an exact J, worse: */
        if (mn < macc || leap) { /* accept the point just run (its J is the new region's) */
            if (trial && p->dxn >= cap * 0.999) cap = fmin(4 * cap, NSC_PSS_STEP);
            for (int k = 0; k < p->nd; k++) {
                p->x[k] = p->z[p->di[k]];
                p->Facc[k] = p->F[k];
                p->Phiacc[k] = p->z1[p->di[k]];
            }
            macc = mn;
            fails = 0;
            model(p);
            bad = nojac || newton_step(p, cap);
        } else if (++fails <= NSC_PSS_HALVE) { /* a smaller step, from the corrected model */
            cap = p->dxn / 4;
            bad = newton_step(p, cap);
        } else bad = 1;
        trial = !bad;
        if (bad) { /* a transient period from x_acc */
            for (int k = 0; k < p->nd; k++) {
                p->x[k] = p->Phiacc[k];
                p->dx[k] = 0;
            }
            macc = INFINITY;
            fails = 0;
        }
        set_start(p, 1);
    }
    return no_orbit(p, it, ts, T, po);
}

/* M (nd x nd, column k = d Phi / d x_k) = J, the monodromy matrix of the
 * last run with sensitivities, + B where that run's J lacks saltation terms
 * (p->frozen: the secant's learned correction). */
static void monodromy(const pss *p, double *M)
{
    int nd = p->nd;
    if (p->usebest) { /* the best iterate's, kept */
        memcpy(M, p->Jb, sizeof(double) * (size_t)nd * (size_t)nd);
        return;
    }
    for (int k = 0; k < nd; k++)
        for (int q = 0; q < nd; q++) {
            size_t kq = (size_t)k * (size_t)nd + (size_t)q;
            M[kq] = p->S[(size_t)k * (size_t)p->n + (size_t)p->di[q]] + (p->frozen ? p->B[kq] : 0);
        }
}

/* The Floquet multipliers of the orbit through the solution: the eigenvalues
 * of M (monodromy()) of the last shooting period, which ran from it. A
 * perturbation dx of the periodic state becomes M^k dx after k periods: the
 * orbit attracts its neighbourhood when every |mu| < 1. The largest in
 * modulus, and the count outside 1 + NSC_PSS_MU_TOL, into p->info (floquet
 * 0 when the run's sensitivities failed or the QR iteration did not converge). */
static nsc_status multipliers(pss *p)
{
    nsc_pss_info *I = p->info;
    int nd = p->nd;
    I->floquet = I->nmu_out = 0;
    I->mu_re = I->mu_im = I->mu_abs = 0;
    if (p->usebest ? !p->jbok : p->nojac) return NSC_OK;
    monodromy(p, p->J);
    int st = nsc_dense_eig(nd, p->J, nd > 0 ? nd : 1, p->wr, p->wi);
    if (st == -1000) return nsc_oom(p->r);
    if (st) return NSC_OK;
    I->floquet = 1;
    for (int k = 0; k < nd; k++) {
        double a = hypot(p->wr[k], p->wi[k]);
        I->nmu_out += a > 1 + NSC_PSS_MU_TOL;
        if (a > I->mu_abs) {
            I->mu_abs = a;
            I->mu_re = p->wr[k];
            I->mu_im = fabs(p->wi[k]);
        }
    }
    return NSC_OK;
}

/* The state whose component, in merit scales, dominates the eigenvector of
 * M for its real eigenvalue mu: two steps of inverse iteration with
 * M - mu (1 + 1e-9) I (off the exact eigenvalue, so that the LU exists); its
 * unknown, or -1. Uses p->A (the model is not needed after convergence). */
static int mode_state(pss *p, double mu)
{
    int nd = p->nd, best = -1;
    monodromy(p, p->A);
    for (int k = 0; k < nd; k++) p->A[(size_t)k * (size_t)nd + (size_t)k] -= mu * (1 + 1e-9);
    if (nd == 0 || nsc_dense_lu(nd, p->A, nd, p->ipiv)) return -1;
    for (int k = 0; k < nd; k++) p->dx[k] = 1;
    for (int it = 0; it < 2; it++) {
        if (nsc_dense_lusolve(0, nd, 1, p->A, nd, p->ipiv, p->dx, nd))
            return -1; /* v = (M - mu')^-1 v */
        double big = 0;
        for (int k = 0; k < nd; k++) big = fmax(big, fabs(p->dx[k]));
        if (!(big > 0) || !isfinite(big)) return -1;
        for (int k = 0; k < nd; k++) p->dx[k] /= big;
    }
    double w = -1;
    for (int k = 0; k < nd; k++)
        if (fabs(p->dx[k]) / p->ms[k] > w) {
            w = fabs(p->dx[k]) / p->ms[k];
            best = p->di[k];
        }
    return best;
}

/* The multiplier along the eigenvector v = p->dx (mode_state()) measured on
 * Phi itself: one period from x* and one from x* + eps v (eps v at most 1e-3
 * merit scales: Phi is affine while the events keep their order, and the
 * instants are located to tol, 1e-5 made that tol visible),
 *     mu = <Phi(x* + eps v) - Phi(x*), v> / (eps <v, v>),
 * in merit scales (the difference of two runs, not Phi(x*) taken as x*: x*
 * is a fixed point only to the shooting's tolerance and the steps' round-off,
 * which eps v does not dwarf: -1.998 for -2); p->z is x* again afterwards. J
 * can be off where an event has part of its saltation only (a comparator
 * driving a switch: 0.672 for 0.680 here, 0.683 from central differences),
 * which matters near 1. */
static nsc_status confirm(pss *p, double ts, double T, double *mu)
{
    int nd = p->nd;
    double big = 0, num = 0, den = 0;
    double *phi0 = nsc_calloc((size_t)nd + 1, sizeof(double));
    if (!phi0) return nsc_oom(p->r);
    nsc_status s = run_span(p, ts, ts + T, 0, 0, NULL); /* Phi(x*) */
    for (int k = 0; k < nd; k++) phi0[k] = p->z1[p->di[k]];
    for (int k = 0; k < nd; k++) big = fmax(big, fabs(p->dx[k]) / p->ms[k]);
    double eps = 1e-3 / big;
    for (int k = 0; k < nd; k++) {
        p->xs[k] = p->z[p->di[k]];
        p->z[p->di[k]] += eps * p->dx[k];
    }
    if (!s) s = run_span(p, ts, ts + T, 0, 0, NULL);
    for (int k = 0; k < nd; k++) {
        double v = p->dx[k] / p->ms[k], d = (p->z1[p->di[k]] - phi0[k]) / p->ms[k];
        num += d * v; /* <Phi(x* + eps v) - Phi(x*), v> */
        den += eps * v * v;
        p->z[p->di[k]] = p->xs[k];
    }
    free(phi0);
    *mu = num / den;
    return s;
}

/* The verdict on an orbit with nmu_out multipliers outside the unit circle:
 * NSC_OK when the only one is real and Phi itself puts it inside (confirm():
 * then a warning, and info holds the measured one), else the error: which
 * one, where, and what to do. A real multiplier below -1 flips the
 * perturbation each period: a period doubling, whose orbit of twice the
 * period --period 2T finds (subharmonic oscillation of a current-mode
 * converter beyond D = 0.5, a diode's reverse recovery); one above 1 is a
 * divergence (a net negative resistance) or another steady state; a complex
 * pair, an oscillation of the circuit's own that the sources do not lock. */
static nsc_status unstable(pss *p, double ts, double T)
{
    nsc_pss_info *I = p->info;
    int neg = 0, w = I->mu_im > 0 ? -1 : mode_state(p, I->mu_re);
    double mu = 0;
    nsc_status s = w >= 0 ? confirm(p, ts, T, &mu) : NSC_OK;
    if (s) return s;
    if (w >= 0 && I->nmu_out == 1 && fabs(mu) <= 1 + NSC_PSS_MU_TOL) {
        nsc_warn(
            p->r, NULL,
            "the monodromy matrix's Floquet multiplier %.4g is outside the unit circle, but one "
            "period of the circuit along its eigenvector gives %.4g: taken as stable (the matrix lacks part "
            "of an event's saltation)",
            I->mu_re, mu);
        I->mu_re = mu;
        I->mu_abs = fabs(mu);
        I->nmu_out = 0;
        return NSC_OK;
    }
    for (int k = 0; k < p->nd; k++) neg |= p->wi[k] == 0 && p->wr[k] < -(1 + NSC_PSS_MU_TOL);
    char m[80], where[160] = "", what[200];
    if (I->mu_im > 0)
        snprintf(m, sizeof m, "%.4g%+.4gi (modulus %.4g)", I->mu_re, I->mu_im, I->mu_abs);
    else snprintf(m, sizeof m, "%.4g", I->mu_re);
    if (w >= 0)
        snprintf(where, sizeof where,
                 " (one period of the circuit along its eigenvector: %.4g), mostly in %s", mu,
                 p->zname[w]);
    if (neg)
        snprintf(what, sizeof what,
                 "a multiplier below -1 is a period doubling: the orbit of twice the period "
                 "may be stable; try --period %g (.pss period=%g)",
                 2 * T, 2 * T);
    else if (I->mu_im > 0)
        snprintf(what, sizeof what,
                 "a complex pair is an oscillation of the circuit's own that the sources do "
                 "not lock: no steady state of this period; run a transient");
    else
        snprintf(what, sizeof what,
                 "the circuit moves away from it (a net negative resistance diverges) or "
                 "settles on another orbit; run a transient");
    return nsc_err(p->r, NSC_ESIM, NULL,
                   "the periodic orbit found is unstable: %d Floquet multiplier%s outside "
                   "the unit circle, the largest %s%s; %s",
                   I->nmu_out, I->nmu_out > 1 ? "s" : "", m, where, what);
}

#define NSC_PSS_PROBE 8 /* transient periods run from the best iterate when the shooting fails */
#define NSC_PSS_KMAX 4  /* the longest period (in T) looked for in them */

/* The transient of NSC_PSS_PROBE periods from the best iterate (no_orbit()):
 * c[j] = max_i |x_j - x_{j-1}|_i / ms_i, the change of period j = 1..PROBE;
 * *k the smallest k in 2..KMAX whose change over k periods, over the last
 * KMAX periods, is below a tenth of the one-period change (0: none), *dk and
 * *d1 those changes. */
static nsc_status probe_tail(pss *p, double ts, double T, double *c, int *k, double *dk, double *d1)
{
    int nd = p->nd, np = NSC_PSS_PROBE;
    double *X = nsc_calloc((size_t)(np + 1) * (size_t)nd + 1, sizeof(double));
    if (!X) return nsc_oom(p->r);
    memcpy(p->z, p->zb, sizeof(double) * (size_t)p->n);
    memcpy(p->l, p->lb, sizeof(double) * (size_t)p->m);
    memcpy(p->sw, p->swb, (size_t)p->nsw);
    nsc_status s = NSC_OK;
    for (int j = 0; j <= np && !s; j++) {
        for (int q = 0; q < nd; q++) X[(size_t)j * nd + q] = p->z[p->di[q]];
        if (j == np) break;
        s = run_span(p, ts, ts + T, 0, 0, NULL); /* the sources repeat: every period from ts */
        memcpy(p->z, p->z1, sizeof(double) * (size_t)p->n);
        memcpy(p->l, p->l1, sizeof(double) * (size_t)p->m);
        memcpy(p->sw, p->sw1, (size_t)p->nsw);
    }
    double dd[NSC_PSS_KMAX + 1] = { 0 };
    for (int j = 1; j <= np; j++) {
        c[j - 1] = 0;
        for (int q = 0; q < nd; q++)
            c[j - 1] = fmax(c[j - 1],
                            fabs(X[(size_t)j * nd + q] - X[(size_t)(j - 1) * nd + q]) / p->ms[q]);
    }
    for (int kk = 1; kk <= NSC_PSS_KMAX; kk++)
        for (int j = np - NSC_PSS_KMAX + 1; j <= np; j++)
            for (int q = 0; q < nd; q++)
                dd[kk] = fmax(dd[kk], fabs(X[(size_t)j * nd + q] - X[(size_t)(j - kk) * nd + q])
                                          / p->ms[q]);
    *k = 0;
    *d1 = dd[1];
    *dk = 0;
    for (int kk = 2; kk <= NSC_PSS_KMAX && !*k; kk++)
        if (dd[kk] < 0.1 * dd[1]) {
            *k = kk;
            *dk = dd[kk];
        }
    free(X);
    return s;
}

/* "mu1, mu2, mu3" (the largest three of the best iterate's multipliers by
 * modulus, p->wr/wi from multipliers()) into buf. */
static void mu_list(const pss *p, char *buf, size_t len)
{
    int used[3] = { -1, -1, -1 }, o = 0;
    buf[0] = 0;
    for (int r = 0; r < 3 && r < p->nd; r++) {
        int b = -1;
        for (int k = 0; k < p->nd; k++) {
            if (k == used[0] || k == used[1] || p->wi[k] < 0)
                continue; /* a pair once, by its + member */
            if (b < 0 || hypot(p->wr[k], p->wi[k]) > hypot(p->wr[b], p->wi[b])) b = k;
        }
        if (b < 0) break;
        used[r] = b;
        if (p->wi[b] != 0)
            o += snprintf(buf + o, len - (size_t)o, "%s%.4g%+.3gi", r ? ", " : "", p->wr[b],
                          p->wi[b]);
        else o += snprintf(buf + o, len - (size_t)o, "%s%.4g", r ? ", " : "", p->wr[b]);
        if ((size_t)o >= len) break;
    }
}

/* What the failed shooting shows, and what to try (no_orbit(), when the
 * transient from the best iterate repeats with no period k <= KMAX): from
 * its largest multiplier, a stalled trust region, the transient's trend. */
static const char *no_orbit_hint(const pss *p, const double *c)
{
    const nsc_pss_info *I = p->info;
    if (I->floquet && I->mu_im == 0 && I->mu_re < -1 + 1e-2)
        return "a multiplier at or beyond -1 is a period doubling: the orbit may have period 2T (try --period "
               "twice the period) or none";
    if (I->floquet && I->mu_abs > 1 + NSC_PSS_MU_TOL)
        return "the period-1 orbit there is unstable: a period-k orbit or no periodic one (RC dampers move "
               "multipliers inside)";
    if (p->stall < 1e-3)
        return "the period map jumps there (an event that appears or vanishes with the state: a ringing that grazes "
               "a device's threshold, or an instant located to the step ceiling): try an RC damper across the "
               "ringing, a smaller TMAX, or a looser .pss tol=";
    if (c[NSC_PSS_PROBE - 1] < 0.8 * c[0] || (I->floquet && I->mu_abs > 0.99))
        return "a slowly decaying mode (the transient from it still converges): raise .pss maxit= or warmup=, or "
               "add damping";
    return "the period map is not smooth at this tolerance (events located to the step ceiling): try a looser "
           ".pss tol=, or a smaller TMAX";
}

/* The failure of the shooting after it periods, saying why it may not
 * converge and what to try: the best iterate (lowest merit), the largest
 * three Floquet multipliers of its monodromy matrix and the state the
 * largest real one's mode moves; the smallest step from it that did not
 * lower the merit (a stall: the map jumps); NSC_PSS_PROBE transient periods
 * from it (probe_tail()): their change, and the period k <= NSC_PSS_KMAX
 * they repeat with, if any (a period-k orbit: try kT); then a hint
 * (no_orbit_hint()). */
static nsc_status no_orbit(pss *p, int it, double ts, double T, const nsc_pss_opts *po)
{
    nsc_pss_info *I = p->info;
    char mus[160] = "", mode[96] = "", stall[128] = "", tail[256], per[96] = "";
    p->usebest = 1;
    nsc_status s = multipliers(p);
    if (s) return s;
    if (I->floquet) {
        int st = I->mu_im == 0 ? mode_state(p, I->mu_re) : -1;
        mu_list(p, mus, sizeof mus);
        if (st >= 0) snprintf(mode, sizeof mode, ", the largest's mode moving %s", p->zname[st]);
    }
    if (p->stall < 1e-3)
        snprintf(stall, sizeof stall,
                 "; Newton steps from it down to %.2g of the states' scales did not lower "
                 "its change",
                 p->stall);
    double c[NSC_PSS_PROBE] = { 0 }, dk = 0, d1 = 0;
    int k = 0;
    if ((s = probe_tail(p, ts, T, c, &k, &dk, &d1))) return s;
    if (k) {
        snprintf(tail, sizeof tail,
                 "it repeats every %d periods (change over %d periods %.2g, over one %.2g)", k, k,
                 dk, d1);
        snprintf(per, sizeof per,
                 "a stable orbit of %d periods is near it: try --period %g (.pss period=%g)", k,
                 k * T, k * T);
    } else
        snprintf(tail, sizeof tail,
                 "its cycle-to-cycle change goes %.3g, %.3g, ... %.3g and does not repeat within "
                 "%d periods",
                 c[0], c[1], c[NSC_PSS_PROBE - 1], NSC_PSS_KMAX);
    return nsc_err(
        p->r, NSC_ESIM, NULL,
        "periodic steady state not found: after %d shooting periods of %g s the "
        "cycle-to-cycle change of %s is %.3g of its peak-to-peak (tolerance %.3g); the best iterate "
        "(period %d: %.3g in %s) has the Floquet multipliers %s%s%s; %d transient periods from it: %s; "
        "%s",
        it, T, p->zname[I->worst], I->residual, po->tol, p->itbest, p->rbest, p->zname[p->worstb],
        I->floquet ? mus : "(not computed)", mode, stall, NSC_PSS_PROBE, tail,
        k ? per : no_orbit_hint(p, c));
}

/* The periodic AC (pac.h) around the solution p->z at ts: one period per
 * batch of frequencies, its columns propagated with the monodromy's. */
static nsc_status pac_runs(pss *p, const nsc_lcs *L, double ts, double T, struct nsc_pac *A)
{
    nsc_status s = nsc_pac_setup(A, L, p->nd, p->di, T, p->r);
    double *S;
    int ns;
    for (int b = 0; !s && (ns = nsc_pac_batch(A, b, ts, &S)) > 0; b++) {
        nsc_tran_opts o = p->o;
        o.tstart = ts;
        o.tstop = ts + T;
        o.tstep = T;
        nsc_tran_io io = { ts,      p->z, p->l, p->sw, p->z1, p->l1, p->sw1, p->zmin,
                           p->zmax, S,    ns,   0,     NULL,  0,     A };
        nsc_waves *W = NULL;
        nsc_sim_stats st;
        s = nsc_stepper_tran_io(p->c, &o, NULL, 0, &io, &W, &st, p->r);
        stats_add(p->st, &st);
        p->info->periods_run++;
        if (!s && W && W->end == NSC_RUN_INTERRUPTED)
            s = nsc_err(p->r, NSC_ESIM, NULL, "interrupted by a signal");
        nsc_waves_free(W);
        if (!s) s = nsc_pac_close(A, io.sens_failed, p->r);
    }
    return s;
}

static void pss_free(pss *p)
{
    free(p->di);
    free(p->atol);
    free(p->z);
    free(p->l);
    free(p->z1);
    free(p->l1);
    free(p->S);
    free(p->zmin);
    free(p->zmax);
    free(p->lpk);
    free(p->J);
    free(p->F);
    free(p->x);
    free(p->dx);
    free(p->A);
    free(p->B);
    free(p->Facc);
    free(p->ms);
    free(p->Phiacc);
    free(p->sw);
    free(p->sw1);
    free(p->ipiv);
    free(p->wr);
    free(p->wi);
    free(p->xs);
    free(p->Jb);
    free(p->zb);
    free(p->lb);
    free(p->swb);
}

/* The layout (unknowns, pairs, switches, differential unknowns) and work arrays. */
static nsc_status pss_init(pss *p, const nsc_lcs *L)
{
    int n = L->n, m = L->m;
    p->n = n;
    p->m = m;
    p->nsw = L->nsw;
    p->zname = L->zname;
    p->di = nsc_calloc((size_t)n + 1, sizeof(int));
    p->atol = nsc_calloc((size_t)n + 1, sizeof(double));
    if (!p->di || !p->atol) return nsc_oom(p->r);
    p->nd = nsc_tran_states(L, p->o.vntol, p->o.abstol, p->di, p->atol);
    size_t nd = (size_t)p->nd + 1;
    if (nd > 4096)
        return nsc_err(p->r, NSC_EUSAGE, NULL,
                       "periodic steady state: %d state variables, at most "
                       "4095 (its Jacobian is dense)",
                       p->nd);
    p->z = nsc_calloc((size_t)n + 1, sizeof(double));
    p->z1 = nsc_calloc((size_t)n + 1, sizeof(double));
    p->zmin = nsc_calloc((size_t)n + 1, sizeof(double));
    p->lpk = nsc_calloc((size_t)L->m + 1, sizeof(double));
    p->zmax = nsc_calloc((size_t)n + 1, sizeof(double));
    p->l = nsc_calloc((size_t)m + 1, sizeof(double));
    p->l1 = nsc_calloc((size_t)m + 1, sizeof(double));
    p->S = nsc_calloc(((size_t)n + 1) * nd, sizeof(double));
    p->J = nsc_calloc(nd * nd, sizeof(double));
    p->F = nsc_calloc(nd, sizeof(double));
    p->x = nsc_calloc(nd, sizeof(double));
    p->dx = nsc_calloc(nd, sizeof(double));
    p->A = nsc_calloc(nd * nd, sizeof(double));
    p->B = nsc_calloc(nd * nd, sizeof(double));
    p->Facc = nsc_calloc(nd, sizeof(double));
    p->ms = nsc_calloc(nd, sizeof(double));
    p->Phiacc = nsc_calloc(nd, sizeof(double));
    p->ipiv = nsc_calloc(nd, sizeof(int));
    p->wr = nsc_calloc(nd, sizeof(double));
    p->wi = nsc_calloc(nd, sizeof(double));
    p->xs = nsc_calloc(nd, sizeof(double));
    p->Jb = nsc_calloc(nd * nd, sizeof(double));
    p->zb = nsc_calloc((size_t)n + 1, sizeof(double));
    p->lb = nsc_calloc((size_t)m + 1, sizeof(double));
    p->swb = nsc_calloc((size_t)p->nsw + 1, 1);
    p->sw = nsc_calloc((size_t)p->nsw + 1, 1);
    p->sw1 = nsc_calloc((size_t)p->nsw + 1, 1);
    if (!p->z || !p->z1 || !p->lpk || !p->zmin || !p->zmax || !p->l || !p->l1 || !p->S || !p->J
        || !p->F || !p->x || !p->dx || !p->A || !p->B || !p->Facc || !p->ms || !p->Phiacc
        || !p->ipiv || !p->sw || !p->sw1 || !p->wr || !p->wi || !p->xs || !p->Jb || !p->zb || !p->lb
        || !p->swb)
        return nsc_oom(p->r);
    return NSC_OK;
}

void nsc_pss_state_free(nsc_pss_state *x)
{
    if (!x) return;
    free(x->z);
    free(x->l);
    free(x->sw);
    free(x->B);
    memset(x, 0, sizeof *x);
}

/* p's start from x when it has p's layout and period T: 1, else 0. */
static int warm_start(pss *p, const nsc_pss_state *x, double T)
{
    if (!x || !x->z || x->n != p->n || x->m != p->m || x->nsw != p->nsw
        || !(fabs(x->period - T) <= 1e-12 * T))
        return 0;
    memcpy(p->z, x->z, sizeof(double) * (size_t)p->n);
    memcpy(p->l, x->l, sizeof(double) * (size_t)p->m);
    memcpy(p->sw, x->sw, (size_t)p->nsw);
    if (x->B && x->nd == p->nd) /* the neighbour's saltation, learned */
        memcpy(p->B, x->B, sizeof(double) * (size_t)p->nd * (size_t)p->nd);
    return 1;
}

/* The steady state p->z, p->l, p->sw into x. 0, or -1 out of memory. */
static int keep_state(const pss *p, nsc_pss_state *x, double T)
{
    nsc_pss_state_free(x);
    x->z = nsc_calloc((size_t)p->n + 1, sizeof(double));
    x->l = nsc_calloc((size_t)p->m + 1, sizeof(double));
    x->sw = nsc_calloc((size_t)p->nsw + 1, 1);
    x->B = nsc_calloc((size_t)p->nd * (size_t)p->nd + 1, sizeof(double));
    if (!x->z || !x->l || !x->sw || !x->B) {
        nsc_pss_state_free(x);
        return -1;
    }
    memcpy(x->B, p->B, sizeof(double) * (size_t)p->nd * (size_t)p->nd);
    x->nd = p->nd;
    memcpy(x->z, p->z, sizeof(double) * (size_t)p->n);
    memcpy(x->l, p->l, sizeof(double) * (size_t)p->m);
    memcpy(x->sw, p->sw, (size_t)p->nsw);
    x->n = p->n;
    x->m = p->m;
    x->nsw = p->nsw;
    x->period = T;
    return 0;
}

/* The warm-up to ts (p->o.h its ceiling), then the shooting. Where the
 * shooting from a given state (info->warm: a sweep's previous point) fails, it
 * is started again from the operating point: a neighbour's orbit can put the
 * Newton iterates where the period map jumps (an accept/reject decision or a
 * step size of the adaptive steps flipping with the state: 1e-6..1e-5 of the
 * states' scales, the stepper's error tolerance, against a shooting tolerance
 * of 1e-9), and they stall there (2 of 40 warm-started points of a closed-loop
 * comparator buck's sweep, test_stepper_pss; vref = 6.31 before the steady
 * state's pairs were held at the theta point) although the same point
 * converges from its own warm-up. The first attempt's error is dropped
 * (warnings stay); info->warm says 0 then. */
static nsc_status warm_then_shoot(pss *p, double t0, double ts, double T, double hcap,
                                  const nsc_pss_opts *po)
{
    nsc_pss_info *info = p->info;
    nsc_status s = info->warm
                       ? run_span(p, t0, ts, 0, 0, NULL) /* one period from the given state */
                       : run_span(p, 0, ts, 1, 0, NULL); /* warm-up from the operating point */
    double hw = p->o.h;
    p->o.h = fmin(hcap, T / NSC_PSS_HMAX);
    if (!s) s = shoot(p, ts, T, po);
    if (s != NSC_ESIM || !info->warm) return s;
    free(p->r->error);
    p->r->error = NULL;
    p->r->status = NSC_OK;
    info->warm = 0;
    p->usebest = 0;
    memset(p->B, 0, sizeof(double) * (size_t)p->nd * (size_t)p->nd);
    ts = t0 + (po->warmup > 0 ? po->warmup : 1) * T;
    info->t0 = ts;
    p->o.h = hw;
    s = run_span(p, 0, ts, 1, 0, NULL);
    p->o.h = fmin(hcap, T / NSC_PSS_HMAX);
    return s ? s : shoot(p, ts, T, po);
}

nsc_status nsc_run_pss(const nsc_circuit *c, const nsc_tran_opts *o, const nsc_pss_opts *po,
                       const nsc_probe *probes, int nprobe, nsc_waves **out, nsc_sim_stats *st,
                       nsc_pss_info *info, nsc_report *r)
{
    *out = NULL;
    memset(st, 0, sizeof *st);
    memset(info, 0, sizeof *info);
    pss P, *p = &P;
    memset(p, 0, sizeof *p);
    p->c = c;
    p->st = st;
    p->info = info;
    p->r = r;
    p->o = *o;
    p->o.rows = NULL;
    p->o.progress = NULL;
    p->o.events = 0;
    p->o.adaptive = 1;
    p->o.pair_mean = 1; /* the header: steps' error */
    p->o.losses = NULL; /* the written periods' only */
    p->o.href = 0;      /* every scale from the ceiling T / 50 */
    p->o.interp = 1;    /* rows on the grid (phases), no step table */
    p->o.steps = NULL;
    nsc_lcs *L = NULL;
    nsc_status s = nsc_lcs_assemble(c, NSC_ASM_TRAN, o->gmin, &L, r);
    double T = po->period, since = 0;
    if (!s) s = common_period(c, L, &T, &since, r);
    if (!s) s = pss_init(p, L);
    if (s) goto done;
    double hcap = p->o.h > 0 ? p->o.h : INFINITY; /* TMAX or --step, when given */
    p->o.h = fmin(hcap, T / NSC_PSS_HWARM);
    if (since / T > NSC_PSS_MAXWARM) {
        s = nsc_err(r, NSC_EUSAGE, NULL,
                    "the sources become periodic only after %.3g periods of %g s (at most %d)",
                    since / T, T, NSC_PSS_MAXWARM);
        goto done;
    }
    double t0 = ceil(since / T * (1 - 1e-12)) * T; /* the sources repeat from t0, a multiple of T */
    int warm = po->warmup > 0 ? po->warmup : 1;
    double ts = t0 + warm * T;
    info->period = T; /* (run() counts periods by it) */
    info->warm = warm_start(p, po->start, T);
    if (info->warm) ts = t0 + T;
    info->t0 = ts;
    if ((s = warm_then_shoot(p, t0, ts, T, hcap, po)) || (s = multipliers(p))) goto done;
    ts = info->t0;
    if (info->nmu_out > 0 && (s = unstable(p, ts, T))) goto done;
    if (po->end && keep_state(p, po->end, T)) {
        s = nsc_oom(r);
        goto done;
    }
    if (po->pac) { /* the periodic AC instead of rows */
        s = pac_runs(p, L, ts, T, po->pac);
        goto done;
    }
    nsc_tran_opts fo = *o; /* the written periods, from the solution */
    fo.adaptive = 1;
    fo.pair_mean = 1;
    fo.h = p->o.h;
    fo.href = 0;
    fo.interp = 1;
    fo.steps = NULL;
    fo.tstart = ts;
    fo.tstop = ts + po->periods * T;
    fo.tstep = o->tstep > 0 && o->tstep <= T / 20 ? o->tstep : T / 200;
    s = run(p, &fo, probes, nprobe, out, 0, 0, NULL);
    if (!s) nsc_dev_check(L, c, p->lpk, r);
    if (!s && po->periods == 1) {             /* the written period's own change (later */
        int worst;                            /* periods continue as a transient, whose */
        info->residual = residual(p, &worst); /* steps differ: ~1e-7 of the swing) */
        info->worst = worst;
    }
done:
    if (info->worst >= 0 && L && info->worst < L->n)
        snprintf(info->worst_name, sizeof info->worst_name, "%s", L->zname[info->worst]);
    pss_free(p);
    nsc_lcs_free(L);
    return s;
}
