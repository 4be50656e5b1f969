/* stepper.c -- operating point and fixed-step theta-scheme transient.
 *
 * Time grid: t_k = k h (k integer, never accumulated), the last step ending at
 * tstop. A waveform corner b strictly inside (t_k, t_k+1) shortens the step to end
 * on b, and the next step ends on t_k+1 again (netlist.md); each distinct step
 * size has its own factored W, kept in a small cache. Output rows are on the
 * tstep grid from tstart; a row that falls between two step ends is linearly
 * interpolated between them (as ngspice does).
 *
 * Switches (lcs.h nsc_switch): the state for the step t_k -> t_k+1 is decided
 * from z at t_k; each (h, switch state) has its own one-step problem in a small
 * least-recently-used cache, and a new problem inherits the mode guess of the
 * previous one. */
#include "stepper_int.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


/* The mode-cache counters of a problem about to be freed, into st (may be NULL). */
static void pcache_count(const nsc_onestep *P, nsc_sim_stats *st)
{
    if (!st) return;
    st->mode_factor += nsc_onestep_nfactor(P);
    st->mode_cached += nsc_onestep_ncached(P);
}

/* 1 when P was built for the nsw switch states sw. */
static int same_sw(const nsc_onestep *P, const char *sw, size_t nsw)
{
    return nsw == 0 || memcmp(nsc_onestep_sw(P), sw, nsw) == 0;
}

/* 1 when P is the problem of step h, theta and the nsw switch states sw. */
static int built_for(const nsc_onestep *P, double h, double theta, const char *sw, size_t nsw)
{
    return nsc_same_h(nsc_onestep_h(P), h) && nsc_onestep_theta(P) == theta && same_sw(P, sw, nsw);
}

/* 1 when P has this theta and these switch states (nsc_onestep_renew can make it step h). */
static int renewable(const nsc_pcache *C, const nsc_onestep *P, double theta, const char *sw)
{
    size_t nsw = (size_t)C->L->nsw;
    return P && nsc_onestep_theta(P) == theta && same_sw(P, sw, nsw);
}

/* *V (when it has this theta and these switch states) made in place the
 * problem of step h (nsc_onestep_renew: no rebuild of its structures, no new
 * analysis): 1 done; 0 not, *V then freed and NULL when it was tried. Its
 * counters go to st first (they restart at 0, as a new problem's). */
static int renew(nsc_pcache *C, nsc_onestep **V, double h, double theta, const char *sw,
                 nsc_sim_stats *st)
{
    if (!renewable(C, *V, theta, sw)) return 0;
    pcache_count(*V, st);
    if (nsc_onestep_renew(*V, h) == 0) {
        if (st) st->factorizations++;
        return 1;
    }
    nsc_onestep_free(*V);
    *V = NULL;
    return 0;
}

/* A problem of the cache to copy a new one's pattern structures from
 * (nsc_onestep_opts.like): the most recently used regular one, else the
 * scratch, else any; not slot skip (being refilled). NULL when none. */
static const nsc_onestep *pcache_sibling(const nsc_pcache *C, int skip)
{
    if (C->mru >= 0 && C->mru < C->n && C->mru != skip && C->P[C->mru]) return C->P[C->mru];
    if (C->scratch) return C->scratch;
    for (int k = 0; k < C->n; k++)
        if (k != skip && C->P[k]) return C->P[k];
    return NULL;
}

/* A new problem of the cache's kind (alg_theta, pair_mean), its pattern
 * structures copied from a sibling where it can (not slot skip). */
static nsc_status pcache_new(const nsc_pcache *C, double h, double theta, const char *sw, int skip,
                             nsc_onestep **P, nsc_report *r)
{
    nsc_onestep_opts o = { .h = h,
                           .theta = theta,
                           .theta_alg = C->alg_theta ? theta : 1.0,
                           .sw = sw,
                           .mean = C->pair_mean,
                           .like = pcache_sibling(C, skip) };
    return nsc_onestep_new(C->L, &o, P, r);
}

/* A one-off step's problem: the least recently used spare of this theta and
 * these switch states renewed, else built (into an empty spare slot's place,
 * or the least recently used spare's, freed); the current scratch becomes a
 * spare in the slot given up. */
static nsc_status pcache_oneoff(nsc_pcache *C, double h, double theta, const char *sw,
                                nsc_onestep **out, nsc_sim_stats *st, nsc_report *r)
{
    int pick = -1, lru = 0;
    for (int k = 0; k < NSC_SPARES; k++) {
        if (renewable(C, C->spare[k], theta, sw)
            && (pick < 0 || C->sparelast[k] < C->sparelast[pick]))
            pick = k;
        if (!C->spare[k] || (C->spare[lru] && C->sparelast[k] < C->sparelast[lru])) lru = k;
    }
    nsc_onestep *P = pick >= 0 ? C->spare[pick] : NULL;
    if (pick >= 0 && !renew(C, &P, h, theta, sw, st)) C->spare[pick] = NULL; /* tried and freed */
    if (!P) {
        if (pick < 0) pick = lru;
        if (C->spare[pick]) {
            pcache_count(C->spare[pick], st);
            nsc_onestep_free(C->spare[pick]);
        }
        C->spare[pick] = NULL;
        nsc_status s = pcache_new(C, h, theta, sw, -1, &P, r);
        if (s) return s;
        if (st) st->factorizations++;
    }
    C->spare[pick] = C->scratch;
    C->sparelast[pick] = C->clock;
    C->scratch = *out = P;
    return NSC_OK;
}

/* The slot for a new regular problem: a free one, else the least recently
 * used of this theta and switch states renewed into it (*out set), else the
 * least recently used, its problem freed. */
static int pcache_slot(nsc_pcache *C, double h, double theta, const char *sw, nsc_onestep **out,
                       nsc_sim_stats *st)
{
    if (C->n < C->cap) return C->n++;
    int slot = 0, same = -1;
    for (int k = 0; k < C->n; k++) {
        if (C->last[k] < C->last[slot]) slot = k;
        if (renewable(C, C->P[k], theta, sw) && C->last[k] < C->clock - 1 /* not the current one */
            && (same < 0 || C->last[k] < C->last[same]))
            same = k;
    }
    if (same >= 0 && renew(C, &C->P[same], h, theta, sw, st)) {
        *out = C->P[same];
        return same;
    }
    if (same >= 0) slot = same; /* tried and freed */
    else {
        pcache_count(C->P[slot], st);
        nsc_onestep_free(C->P[slot]);
    }
    C->P[slot] = NULL;
    return slot;
}

nsc_status nsc_pcache_get(nsc_pcache *C, double h, double theta, const char *sw, int oneoff,
                          nsc_onestep **out, nsc_sim_stats *st, nsc_report *r)
{
    size_t nsw = (size_t)C->L->nsw;
    if (!C->cap) C->cap = C->L->n + C->L->m <= NSC_PCACHE_SMALL ? NSC_PCACHE : NSC_PCACHE_BIG;
    C->clock++;
    for (int q = -1; q < C->n; q++) { /* the last one first, then the others */
        int k = q < 0 ? C->mru : q;
        if (k >= C->n || (q >= 0 && k == C->mru)) continue;
        if (C->thk[k] == theta && nsc_same_h(C->hk[k], h)
            && same_sw(C->P[k], sw, nsw)) { /* hk, thk: P[k]'s */
            C->last[k] = C->clock;
            C->mru = k;
            *out = C->P[k];
            return NSC_OK;
        }
    }
    nsc_onestep *S = C->scratch;
    if (S && built_for(S, h, theta, sw, nsw)) {
        *out = S;
        return NSC_OK;
    }
    if (oneoff) return pcache_oneoff(C, h, theta, sw, out, st, r);
    nsc_onestep *P = NULL;
    int slot = pcache_slot(C, h, theta, sw, &P, st);
    if (!P) {
        nsc_status s = pcache_new(C, h, theta, sw, slot, &P, r);
        if (s) { /* the slot stays, empty: closed */
            C->P[slot] = C->P[--C->n];
            C->last[slot] = C->last[C->n];
            C->hk[slot] = C->hk[C->n];
            C->thk[slot] = C->thk[C->n];
            return s;
        }
        if (st) st->factorizations++;
        C->P[slot] = P;
    }
    C->last[slot] = C->clock;
    C->hk[slot] = nsc_onestep_h(P);
    C->thk[slot] = nsc_onestep_theta(P);
    C->mru = slot;
    *out = P;
    return NSC_OK;
}

void nsc_pcache_free(nsc_pcache *C, nsc_sim_stats *st)
{
    nsc_nlstat *ns = C->L ? C->L->nls : NULL;
    if (st && ns) { /* Newton's counts, taken once */
        st->nl_solves += ns->solves;
        st->nl_iters += ns->iters;
        st->nl_fails += ns->fails;
        st->nl_chords += ns->chords;
        if (ns->maxit > st->nl_maxit) st->nl_maxit = ns->maxit;
        ns->solves = ns->iters = ns->fails = ns->maxit = 0;
        ns->chords = 0;
    }
    for (int k = 0; k < C->n; k++) {
        pcache_count(C->P[k], st);
        nsc_onestep_free(C->P[k]);
    }
    C->n = 0;
    for (int k = 0; k <= NSC_SPARES; k++) {
        nsc_onestep **V = k < NSC_SPARES ? &C->spare[k] : &C->scratch;
        if (!*V) continue;
        pcache_count(*V, st);
        nsc_onestep_free(*V);
        *V = NULL;
    }
}


/* Sorted, de-duplicated corners of every source waveform in (0, tstop]. */
int nsc_bpq_init(nsc_bpq *q, const nsc_lcs *L, double tstop)
{
    q->L = L;
    q->tstop = tstop;
    q->next = nsc_calloc((size_t)L->nsrc + 1, sizeof(double));
    if (!q->next) return -1;
    for (int j = 0; j < L->nsrc; j++) q->next[j] = -INFINITY; /* computed at the first call */
    q->min = -INFINITY;
    return 0;
}

double nsc_bpq_scan(nsc_bpq *q, double x)
{
    double best = INFINITY;
    for (int j = 0; j < q->L->nsrc; j++) {
        if (q->next[j] <= x) q->next[j] = nsc_wave_next_corner(q->L->src[j].wave, x);
        if (q->next[j] < best) best = q->next[j];
    }
    q->min = best;
    return best;
}

void nsc_bpq_free(nsc_bpq *q)
{
    free(q->next);
    q->next = NULL;
}

int nsc_tran_states(const nsc_lcs *L, double vntol, double abstol, int *di, double *atol)
{
    int nd = 0;
    for (int j = 0; j < L->n; j++)
        if (L->E->p[j + 1] > L->E->p[j]) {
            atol[nd] = j < L->nnode_z ? vntol : abstol;
            di[nd++] = j;
        }
    return nd;
}

nsc_status nsc_step_pairs(const nsc_lcs *L, const nsc_circuit *c, const nsc_onestep *P,
                          const nsc_step_info *info, int first, const double *z, const double *l,
                          const double *w, double t, nsc_report *r)
{
    if (!(first || info->lcp_solved) || nsc_onestep_kappa(P)) return NSC_OK;
    return nsc_lcs_check_pairs(L, c, z, l, w, t, r);
}

/* "time 1.2e-3 s: ..., devices d1 d3, residual ..." for a failed step. */
void nsc_step_failure(nsc_report *r, const nsc_lcs *L, const nsc_onestep *P, double t,
                      const nsc_step_info *info, nsc_solver solver)
{
    char dev[512] = "";
    size_t len = 0;
    int shown = 0;
    const double *q = nsc_onestep_violated(P); /* (NULL: none marked) */
    for (int j = 0; j < L->m && q && shown < 12; j++) {
        if (q[j] >= 0) continue; /* pairs that want to switch */
        const char *name = L->pair_name[j];
        if (strstr(dev, name)) continue;
        int w = snprintf(dev + len, sizeof dev - len, "%s%s", shown ? " " : "", name);
        if (w < 0 || (size_t)w >= sizeof dev - len) break;
        len += (size_t)w;
        shown++;
    }
    for (int k = 0; info->st == NSC_LCP_NEWTON && k < L->nsm && shown < 12;
         k++) { /* the smooth functions' unknowns */
        int w = snprintf(dev + len, sizeof dev - len, "%s%s", shown ? " " : "",
                         L->zname[L->sm[k].row]);
        if (w < 0 || (size_t)w >= sizeof dev - len) break;
        len += (size_t)w;
        shown++;
    }
    nsc_err(
        r, NSC_ESIM, NULL,
        "time %.9g s: the one-step problem (%d complementarity pairs) was not solved by %s (%s); "
        "devices: %s; residual %.3g",
        t, L->m, solver == NSC_SOLVER_ENUM ? "enumeration" : "Lemke's method",
        nsc_lcp_strstatus(info->st), shown ? dev : "(none)", info->residual);
}

/* --events with fixed steps: the pairs whose mode (1 = active) differs from the
 * last step's, logged at the step's end t. prev: [m] modes, then a flag (prev[m]
 * = 1 once a mode is known), then room for the switch states. 0, or -1 on ENOMEM. */
static int log_modes(nsc_waves *W, const nsc_lcs *L, double t, const char *mode, char *prev)
{
    if (!mode) return 0;
    for (int j = 0; prev[L->m] && j < L->m; j++)
        if (mode[j] != prev[j] && nsc_waves_event(W, t, L->pair_name[j], mode[j])) return -1;
    memcpy(prev, mode, (size_t)L->m);
    prev[L->m] = 1;
    return 0;
}

void nsc_count_solve(nsc_sim_stats *st, const nsc_step_info *info)
{
    st->mode_hits += info->mode_hit;
    st->active_set += !info->mode_hit && !info->lcp_solved && info->active_set > 0;
    st->lcps += info->lcp_solved;
    st->pivots += info->iter;
    if (info->residual > st->max_residual) st->max_residual = info->residual;
}

void nsc_eval_probes(const nsc_lin *f, int np, const nsc_lcs *L, const char *sw, const double *z,
                     const double *l, const double *zp, double h, const double *w, double *out)
{
    nsc_lin_eval_all(f, np, L, sw, z, l, zp, h, w, out);
}

/* Initial switch states: off, or on when the card says ON (dev_s.c). */
static void switch_init(const nsc_circuit *c, const nsc_lcs *L, char *sw)
{
    for (int j = 0; j < L->nsw; j++) {
        const nsc_element *e = &c->el[L->sw[j].el];
        sw[j] = (char)(e->has_ic && e->ic != 0);
    }
}

/* The static problem (OP, UIC) of C->L with sources s, e: switch decisions
 * iterated to a fixed point from the states in sw (a decision that keeps
 * flipping is kept after 2 nsw + 2 solves, with a warning). With relax, a
 * problem without solution (UIC: initial values that no finite device current
 * can reconcile, e.g. a charged capacitor across a discharged one through ideal
 * diodes) gives the solution with every pair open, l = 0, with a warning: the
 * first step then makes the impulsive transfer (as Siconos starts from l = 0). */
/* Source stepping, when pivoting on the static problem fails (Lemke's secondary
 * ray on a transistor circuit's LCP, not copositive-plus): the problem with the
 * constant terms of its rows scaled, s(a) = a s, followed from a = 0 (with e >= 0,
 * the devices' thresholds, every pair open) to a = 1, each solve starting from
 * the mode of the one before (the problem's guess), so that each is a small
 * change that the mode iteration settles; a failed step is halved, down to
 * 1/4096 of the range. The pairs' terms e are not scaled. 0 and (z, l) the
 * problem's solution at a = 1, or -1 (z, l overwritten). */
static int op_continuation(nsc_pcache *C, nsc_solver solver, const double *s, const double *e,
                           double *z, double *l, const char *sw, nsc_sim_stats *st, nsc_report *r)
{
    int n = C->L->n;
    double *sa = malloc(sizeof *sa * ((size_t)n + 1)), a = 0, da = 1.0 / 16;
    for (int i = 0; i < C->L->m; i++)
        if (!(e[i] >= 0)) da = 0; /* a = 0 is not "all open" */
    while (sa && da > 0 && a < 1) {
        double an = fmin(1.0, a + da);
        for (int i = 0; i < n; i++) sa[i] = an * s[i];
        nsc_onestep *P;
        nsc_step_info info;
        if (nsc_pcache_get(C, 0.0, 1.0, sw, 0, &P, st, r)) break;
        if (nsc_onestep_solve(P, solver, NULL, NULL, sa, e, z, l, &info) == 0) {
            a = an;
            da = fmin(2 * da, 0.25);
        } else if ((da /= 2) < 1.0 / 4096) da = 0;
    }
    free(sa);
    return a == 1.0 ? 0 : -1;
}

/* gmin stepping (SPICE's), when pivoting and source stepping both fail: the
 * static problem with a conductance G from every node to ground besides its own
 * (nsc_lcs_assemble_gall), solved first at G = NSC_GSTEP_G0 (raised by decades
 * up to 1 S until it solves: with G large every node's row is dominated by G,
 * the LCP near a P-matrix one that pivoting solves), then G lowered by a factor
 * (10, taken down to its root when a step fails, back up after a success) until
 * it passes gmin, each solve starting from the mode of the one before; last the
 * problem itself (C's, without G) from the mode at the smallest G. The pairs and
 * unknowns are the same at every G, so a mode carries over. 0 and (z, l) the
 * problem's solution, or -1 (z, l overwritten). */
#define NSC_GSTEP_G0 1e-3
static int gstep_solve(const nsc_circuit *c, double gmin, double G, nsc_pcache *C,
                       nsc_solver solver, const double *s, const double *e, double *z, double *l,
                       const char *sw, char *mode, int have)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_lcs *Lg = NULL;
    nsc_onestep *P = NULL;
    int bad = -1, own = G > 0;
    if (own ? nsc_lcs_assemble_gall(c, C->L->mode, gmin, G, &Lg, &r) == NSC_OK
                  && nsc_onestep_new(Lg, &(nsc_onestep_opts){ .theta = 1.0, .sw = sw }, &P, &r)
                         == NSC_OK
            : nsc_pcache_get(C, 0.0, 1.0, sw, 0, &P, NULL, &r) == NSC_OK) {
        nsc_step_info info;
        if (have) nsc_onestep_set_mode(P, mode);
        bad = nsc_onestep_solve(P, solver, NULL, NULL, s, e, z, l, &info);
        const char *pm = bad ? NULL : nsc_onestep_mode(P);
        if (pm) memcpy(mode, pm, (size_t)C->L->m);
    }
    if (own) {
        nsc_onestep_free(P);
        nsc_lcs_free(Lg);
    }
    nsc_report_free(&r);
    return bad ? -1 : 0;
}

static int op_gmin_stepping(const nsc_circuit *c, double gmin, nsc_pcache *C, nsc_solver solver,
                            const double *s, const double *e, double *z, double *l, const char *sw)
{
    char *mode = calloc((size_t)C->L->m + 1, 1);
    double gend = gmin > 0 ? gmin : 1e-12, G = NSC_GSTEP_G0, last = 0, f = 10;
    int have = 0, ok = -1;
    while (mode && ok) {
        double g = G > gend ? G : 0; /* 0: the problem itself */
        if (gstep_solve(c, gmin, g, C, solver, s, e, z, l, sw, mode, have) == 0) {
            if (g == 0) ok = 0;
            have = 1;
            last = G;
            f = fmin(f * f, 10);
            G = last / f;
        } else if (!have) {
            if ((G *= 10) > 1) break; /* no start */
        } else {
            if ((f = sqrt(f)) < 1.01) break; /* the path folds */
            G = last / f;
        }
    }
    free(mode);
    return ok;
}

/* The static problem (t = 0, C's) solved into (z, l), the switches' states sw
 * updated until they settle: pivoting, else (relax 0) the continuation, then gmin
 * stepping; relax 1: every pair open when pivoting fails. *gstep = 1 when gmin
 * stepping gave the point returned (the last solve's), else 0. */
static nsc_status static_solve(const nsc_circuit *c, double gmin, nsc_pcache *C, nsc_solver solver,
                               int relax, const double *s, const double *e, double *z, double *l,
                               char *sw, int *gstep, nsc_sim_stats *st, nsc_report *r)
{
    const nsc_lcs *L = C->L;
    for (int it = 0;; it++) {
        nsc_onestep *P;
        *gstep = 0;
        nsc_status status = nsc_pcache_get(C, 0.0, 1.0, sw, 0, &P, st, r);
        if (status) return status;
        nsc_step_info info;
        int bad = nsc_onestep_solve(P, solver, NULL, NULL, s, e, z, l, &info);
        if (st) {
            st->lcps += info.lcp_solved;
            st->pivots += info.iter;
        }
        if (bad && !relax && op_continuation(C, solver, s, e, z, l, sw, st, r) == 0) bad = 0;
        if (bad && !relax && op_gmin_stepping(c, gmin, C, solver, s, e, z, l, sw) == 0)
            bad = 0, *gstep = 1;
        if (bad && relax && nsc_onestep_open(P, NULL, NULL, s, z) == 0) {
            memset(l, 0, sizeof(double) * (size_t)L->m);
            nsc_warn(
                r, NULL,
                "the initial conditions admit no consistent solution of the complementarity "
                "devices at t = 0 (an impulsive current); the run starts with every pair open");
            bad = 0;
        }
        if (bad) {
            nsc_step_failure(r, L, P, 0.0, &info, solver);
            return NSC_ESIM;
        }
        if (!nsc_lcs_switch_update_at(L, z, sw, 1)) return NSC_OK;
        if (st) st->switch_events++;
        if (it == 2 * L->nsw + 2) {
            nsc_warn(r, NULL,
                     "the switch states of the initial solution did not settle after %d solves; "
                     "the last decision is kept",
                     it + 1);
            return NSC_OK;
        }
    }
}

/* The operating point without gmin's leaks: gmin (one conductance per component
 * that the OP's nonsingular elements leave floating, lcs_asm.c) lets pivoting find
 * the mode, but its leaks (~gmin R V, 3e-8 V at a CMOS chain's nodes) are not in
 * the transient's equations, so the run would start off equilibrium and relax for
 * ~20 time constants, every node changing every step. The same mode solved with
 * gmin 1e-12 times smaller (the same layout, no pivoting) is kept when it is
 * complementary and within 1e-6 of the first solution (a node that only gmin
 * held would move far: the first solution stays). 1 when (z, l) was replaced. */
static int polish_op(const nsc_circuit *c, double gmin, nsc_pcache *C0, const char *sw,
                     const double *s, const double *e, double *z, double *l, nsc_sim_stats *st)
{
    int kept = 0;
    const nsc_lcs *L0 = C0->L;
    int n = L0->n, m = L0->m;
    nsc_report r;
    nsc_report_init(&r);
    nsc_onestep *P1 = NULL, *P2 = NULL;
    nsc_lcs *Lb = NULL;
    char *mode = NULL;
    double *zb = NULL;
    if (L0->ngmin == 0 || m == 0 || !(gmin > 0)
        || nsc_pcache_get(C0, 0.0, 1.0, sw, 0, &P1, NULL, &r))
        goto out;
    const char *pm = nsc_onestep_mode(P1);
    if (!pm || !(mode = malloc((size_t)m))) goto out;
    memcpy(mode, pm, (size_t)m);
    nsc_pcache_free(C0, st); /* the first problem's memory, before the second */
    zb = malloc(sizeof(double) * (size_t)(n + m));
    if (zb && !nsc_lcs_assemble(c, NSC_ASM_OP, gmin * 1e-12, &Lb, &r) && Lb->n == n && Lb->m == m
        && !nsc_onestep_new(Lb, &(nsc_onestep_opts){ .theta = 1.0, .sw = sw }, &P2, &r)
        && nsc_onestep_solve_mode(P2, mode, s, e, zb, zb + n) == 0) {
        double zmax = 0, d = 0;
        for (int i = 0; i < n; i++) {
            zmax = fabs(z[i]) > zmax ? fabs(z[i]) : zmax;
            d = fabs(zb[i] - z[i]) > d ? fabs(zb[i] - z[i]) : d;
        }
        if (d <= 1e-6 * zmax) {
            memcpy(z, zb, sizeof(double) * (size_t)n);
            memcpy(l, zb + n, sizeof(double) * (size_t)m);
            kept = 1;
        }
    }
out:
    nsc_onestep_free(P2);
    nsc_lcs_free(Lb);
    free(zb);
    free(mode);
    nsc_report_free(&r);
    return kept;
}

/* Fixed steps with theta < 1 ring on a mode much faster than h (a capacitor
 * shorted by a closed switch's RON, a capacitor driven by an ideal edge): the
 * step z_k+1 - z_k of an unknown flips sign every step without decaying. The
 * output is the scheme's (fixed stepping is bit-for-bit the design documents'
 * scheme), so this only warns, once: after NSC_RING_STEPS such steps in a row,
 * each larger than NSC_RING_REL of the largest magnitude the unknown had in the
 * watched steps and at least half the one before. The scheme's factor on such a mode is R(-inf) = -(1 - theta)
 * / theta: -1 at theta = 0.5 (never damped), so the ringing starts at an
 * excitation and lasts:
 * watching the 2 NSC_RING_STEPS + 2 steps after the start, each breakpoint and
 * each mode change is enough, and costs nothing on the long smooth stretches.
 * Inside a window every step is watched, so after its first step (full) an
 * unknown with z1_i = z0_i and d_i = 0 is left as it is: the update would set
 * run_i = 0 (already: d_i = 0 means the last update's alt was false), d_i = 0
 * and mag_i = max(mag_i, |z_i|), already so since |z_i| entered mag_i at the
 * step z_i last changed or at the window's first step. The watch's cost is
 * then the unknowns that moved (a 1000-stage chain at 1 ps, a mode change every
 * step: 1.0 G of its 20.5 G instructions over all n every step). */
#define NSC_RING_STEPS 20
#define NSC_RING_REL 1e-3
typedef struct ring_watch {
    int n, warned;
    int left;    /* steps still watched */
    int full;    /* 1: the window's first step (every unknown updated) */
    double *d;   /* [n] last step of each unknown */
    double *mag; /* [n] largest |z_i| seen while watching */
    int *run;    /* [n] alternating steps in a row */
} ring_watch;

/* 1 when unknowns i..i+7 all have z1 bitwise z0 and d +0 (each skipped by
 * ring_step: a bitwise test is stricter than z1 == z0, d == 0), from the OR of
 * their bits: ~5 instructions an unknown where the chain's mostly still nodes
 * cost ~10 each tested one by one. */
static int ring_still8(const double *z0, const double *z1, const double *d)
{
    uint64_t acc = 0;
    for (int k = 0; k < 8; k++) {
        uint64_t a, b, c;
        memcpy(&a, z0 + k, 8);
        memcpy(&b, z1 + k, 8);
        memcpy(&c, d + k, 8);
        acc |= (a ^ b) | c;
    }
    return acc == 0;
}

/* The watch's update of unknown i. */
static void ring_one(ring_watch *R, const nsc_lcs *L, const double *z0, const double *z1, int i,
                     double t, double theta, double h, nsc_report *r)
{
    double a0 = fabs(z0[i]), a1 = fabs(z1[i]), mg = R->mag[i]; /* max(mag, |z0|, |z1|), */
    if (a0 > mg) mg = a0;                                      /* inline: no libm call */
    if (a1 > mg) mg = a1;
    R->mag[i] = mg;
    double d = z1[i] - z0[i], big = NSC_RING_REL * mg;
    int alt = d * R->d[i] < 0 && fabs(d) > big && fabs(d) >= 0.5 * fabs(R->d[i]);
    R->run[i] = alt ? R->run[i] + 1 : 0;
    R->d[i] = d;
    if (R->run[i] < NSC_RING_STEPS) return;
    R->warned = 1;
    nsc_warn(
        r, NULL,
        "%s flips by about %.3g every step up to t=%g s: theta = %g rings on a time constant far "
        "below the step h = %g s (a capacitor shorted by a switch, an ideal edge into a capacitor?); "
        "use .options theta=1, or adaptive stepping (the default)",
        L->zname[i], fabs(d), t, theta, h);
}

static void ring_step(ring_watch *R, const nsc_lcs *L, const double *z0, const double *z1, double t,
                      double theta, double h, nsc_report *r)
{
    int full = R->full, n = R->n;
    R->full = 0;
    for (int i0 = 0; !R->warned && i0 < n; i0 += 8) {
        int e = i0 + 8 < n ? i0 + 8 : n;
        if (!full && e - i0 == 8 && ring_still8(z0 + i0, z1 + i0, R->d + i0)) continue;
        for (int i = i0; !R->warned && i < e; i++)
            if (full || z1[i] != z0[i] || R->d[i] != 0) /* (else its update changes nothing) */
                ring_one(R, L, z0, z1, i, t, theta, h, r);
    }
}

/* gmin only fixes the common mode of a floating sub-network: in a well-posed
 * circuit the current through it is ~gmin * |v| (picoamperes). When it carries
 * more than NSC_GMIN_CURRENT the static solution exists only through gmin (a
 * current source, or an inductor's initial current, with no path: blocking
 * diodes, open switches) and its voltages are ~I/gmin: an error naming the node
 * and what is connected there, not a result. */
#define NSC_GMIN_CURRENT 1e-9

/* The first gmin node of L whose gmin carries more than NSC_GMIN_CURRENT in z
 * (z holds v(node k) at k - 1, lcs_asm.c), 0 when none. */
static int gmin_node_driven(const nsc_lcs *L, double gmin, const double *z)
{
    for (int q = 0; q < L->ngmin; q++)
        if (gmin * fabs(z[L->gmin_node[q] - 1]) > NSC_GMIN_CURRENT) return L->gmin_node[q];
    return 0;
}

/* The names of the elements at node nd, ", "-separated, into at[cap]. */
static void elements_at(const nsc_circuit *c, int nd, char *at, size_t cap)
{
    at[0] = 0;
    for (int e = 0, k = 0; e < c->nel && strlen(at) + 50 < cap; e++)
        for (int j = 0; j < c->el[e].nnode && j < 4; j++)
            if (c->el[e].node[j] == nd) {
                snprintf(at + strlen(at), cap - strlen(at), "%s%s", k++ ? ", " : "", c->el[e].name);
                break;
            }
}

static nsc_status gmin_check(const nsc_lcs *L, const nsc_circuit *c, double gmin, const double *z,
                             nsc_report *r)
{
    int nd = gmin_node_driven(L, gmin, z);
    if (nd) {
        double v = z[nd - 1], i = gmin * fabs(v);
        char at[200];
        elements_at(c, nd, at, sizeof at);
        return nsc_err(
            r, NSC_ESIM, NULL,
            "no solution at t=0: node '%s' has no path for the current driven into it "
            "(only gmin = %g S carries it: %.3g A, so v = %.3g V); a current source or an inductor's "
            "initial current is blocked (diodes off, switches open?); elements at the node: %s",
            c->node_name[nd], gmin, i, v, at);
    }
    return NSC_OK;
}

/* The static problem of C's circuit solved with ngspice's gmin placement
 * (nsc_lcs_assemble_jgmin: gmin across each junction) into (z, l), for an
 * operating point that exists only through gmin (gmin_check failed): as
 * ngspice answers a current source driven against reverse junctions (eSim's
 * BJT examples sweep I1 through such points), with a warning naming the node
 * (one text per node: a DC sweep's points repeat it once). NSC_OK, or
 * NSC_ESIM when that problem has no solution either. */
static nsc_status op_junction_gmin(const nsc_circuit *c, const nsc_pcache *C, nsc_solver solver,
                                   double gmin, int nd, const double *s, const double *e, double *z,
                                   double *l, const char *sw, nsc_report *r)
{
    nsc_report q;
    nsc_report_init(&q);
    nsc_lcs *Lj = NULL;
    nsc_onestep *P = NULL;
    nsc_step_info info;
    int bad = nd == 0 || gmin <= 0 || nsc_lcs_assemble_jgmin(c, C->L->mode, gmin, &Lj, &q)
              || nsc_onestep_new(Lj, &(nsc_onestep_opts){ .theta = 1.0, .sw = sw }, &P, &q)
              || nsc_onestep_solve(P, solver, NULL, NULL, s, e, z, l, &info);
    for (int k = 0; !bad && k < Lj->n; k++) bad = !isfinite(z[k]);
    nsc_onestep_free(P);
    nsc_lcs_free(Lj);
    nsc_report_free(&q);
    if (bad) return NSC_ESIM;
    char at[200];
    elements_at(c, nd, at, sizeof at);
    nsc_warn(r, NULL,
             "node '%s' has no path for the current driven into it but gmin (a current source "
             "against reverse junctions, open switches?): solved as ngspice does, with gmin = %g S "
             "across each junction; its voltages (~ current / gmin) are gmin's, not the "
             "circuit's; elements at the node: %s",
             c->node_name[nd], gmin, at);
    return NSC_OK;
}

/* The checks of a static solution (z, l), pair offsets e: gmin_check, then
 * nsc_op_solution_check (opcheck.c: its pairs' conditions, no node beyond the
 * sources' range). */
static nsc_status op_checks(const nsc_lcs *L, const nsc_circuit *c, double gmin, const double *z,
                            const double *l, const double *e, nsc_report *r)
{
    nsc_status st = gmin_check(L, c, gmin, z, r);
    return st ? st : nsc_op_solution_check(L, c, z, l, e, r);
}

/* op_checks of the static solution (z, l); where it fails (a solution of the
 * piecewise-linear problem with every transistor around a node off, held by gmin
 * alone, or beyond the sources' range: the LCP has several, and pivoting or a
 * continuation can end on such a one), the solution gmin stepping reaches from
 * a large G instead, when it passes them; else the first check's error when gmin
 * stepping finds none, the second's when its solution fails too. gstep 1: (z, l) is
 * gmin stepping's own point (static_solve ended on it, not polished since), which a
 * second run would reach again from the same sources and switches: the first
 * check's error, without the repeat. */
static nsc_status op_gmin_checked(const nsc_circuit *c, nsc_pcache *C, nsc_solver solver,
                                  double gmin, int gstep, const double *s, const double *e,
                                  double *z, double *l, const char *sw, nsc_report *r)
{
    nsc_report q;
    nsc_report_init(&q);
    nsc_status st = op_checks(C->L, c, gmin, z, l, e, &q);
    if (st && !gstep && op_gmin_stepping(c, gmin, C, solver, s, e, z, l, sw) == 0
        && !op_checks(C->L, c, gmin, z, l, e, r))
        st = NSC_OK;
    if (st && !r->error) {
        r->status = q.status;
        r->error = q.error;
        q.error = NULL;
    }
    nsc_report_free(&q);
    return st;
}

char *nsc_end_msg(const nsc_report *r, const char *dflt)
{
    const char *msg = r->error ? r->error : dflt, *pre = "nscircuit: error: ";
    return nsc_strdup(strncmp(msg, pre, strlen(pre)) ? msg : msg + strlen(pre));
}

/* A run that ended with an error (out of memory mid-run, say) but no note yet
 * says so in its table: rows up to the last one kept, the error as the note,
 * so no writer presents it as complete and no .meas reads it. */
static void mark_failed(nsc_waves *W, const nsc_report *r)
{
    if (W->end != NSC_RUN_COMPLETE) return;
    W->end = NSC_RUN_FAILED;
    W->t_end = W->nrow > 0 ? nsc_waves_at(W, W->nrow - 1, 0) : 0;
    free(W->end_msg);
    W->end_msg = nsc_end_msg(r, "error");
}

nsc_status nsc_stepper_tran(const nsc_circuit *c, const nsc_tran_opts *o, const nsc_probe *probes,
                            int nprobe, nsc_waves **out, nsc_sim_stats *st, nsc_report *r)
{
    return nsc_stepper_tran_io(c, o, probes, nprobe, NULL, out, st, r);
}

/* One transient run of nsc_stepper_tran_io: what it owns (freed by tran_free), its
 * work vectors (slices of buf) and, for fixed steps, where the march stands. */
typedef struct tran_run {
    const nsc_circuit *c;
    const nsc_tran_opts *o;
    nsc_tran_io *io;
    nsc_sim_stats *st;
    nsc_report *r;
    nsc_lcs *L, *L0;           /* the transient's LCS, the static one (OP or UIC) */
    nsc_lin *f;                /* [nprobe] the probes as functionals */
    char **names, *sw, *evlog; /* column names, switch states, --events' last modes */
    double *buf, *lpk;         /* the work vectors; each pair's peak multiplier */
    double *lv0;      /* [m0] what the static start showed the fits (nsc_op_seen), NULL: none */
    char *pkmark;     /* [m] 1: a pair nsc_dev_check reads (its peak is tracked) */
    int *pklist, npk; /* [npk] those pairs */
    nsc_bpq bp;
    nsc_loss_acc *acc;
    ring_watch ring;
    nsc_pcache cache, cache0;
    nsc_waves *W;
    nsc_waves *Ws;              /* fixed steps with o->steps: the steps' table (.meas), else NULL */
    int nprobe, n, m, nsrc, nc; /* nc = nprobe + 1 columns */
    double *z0, *z1, *zs, *l, *ls, *e1, *w0, *w1, *ws0, *v0, *v1, *row, *s0;
    long jout; /* next output row: t = tstart + jout tstep */
    double tout;
    double t, bprev, h, tstop, eps; /* fixed steps: t = t_k or a breakpoint reached */
    long k;                         /* t_k = k h is the last grid point reached */
    int swchanged, index2;
    int started; /* 1: the state at t0 was found (lpk holds its pairs, then the run's peaks) */
    int swstep;  /* 1: switch states changed at t (the next step is implicit Euler) */
    nsc_onestep *P;
    double Ph, Ptheta; /* P's h and theta (read once when P is chosen) */
} tran_run;

/* The LCSs, the probes, the table and the work vectors. */
static nsc_status tran_setup(tran_run *R, const nsc_probe *probes)
{
    const nsc_tran_opts *o = R->o;
    nsc_report *r = R->r;
    nsc_status s;
    if ((s = nsc_lcs_assemble(R->c, NSC_ASM_TRAN, o->gmin, &R->L, r))) return s;
    if ((s = nsc_lcs_assemble(R->c, o->uic ? NSC_ASM_UIC : NSC_ASM_OP, o->gmin, &R->L0, r)))
        return s;
    if (o->losses && (s = nsc_loss_acc_new(R->L, R->c, o->gmin, o->tstart, o->tstop, &R->acc, r)))
        return s;
    const nsc_lcs *L = R->L, *L0 = R->L0;
    int n = R->n = L->n, m = R->m = L->m;
    R->st->n = n;
    R->st->m = m;
    R->cache.L = L;
    R->cache.alg_theta = o->adaptive; /* nsc_onestep_opts.theta_alg */
    R->cache.pair_mean = o->adaptive && o->pair_mean;
    R->cache0.L = L0;
    R->f = nsc_calloc((size_t)R->nprobe, sizeof *R->f);
    R->names = nsc_calloc((size_t)R->nprobe, sizeof *R->names);
    R->sw = nsc_calloc((size_t)L->nsw + 1, 1); /* switch states */
    if (!R->f || !R->names || !R->sw) return nsc_oom(r);
    switch_init(R->c, L, R->sw);
    for (int k = 0; k < R->nprobe; k++) {
        if ((s = nsc_lcs_probe(L, R->c, &probes[k], &R->f[k], r))) return s;
        R->names[k] = probes[k].name;
    }
    if (!(R->W = nsc_waves_new(R->names, R->nprobe, R->c->title))) return nsc_oom(r);
    if (o->mem_rows > 0 && nsc_waves_spill(R->W, o->mem_rows, o->spill_near)) return nsc_oom(r);
    /* work: z0 z1 (n), static zs ss es (n0), l (m), static ls (m0), e1 (m), w0 w1 (nsrc),
     * static ws0 (nsrc0), v0 v1 row (ncol) */
    int n0 = L0->n, nsrc = R->nsrc = L->nsrc, nsrc0 = L0->nsrc, nc = R->nc = R->nprobe + 1;
    size_t tot = (size_t)2 * n + (size_t)n0 * 3 + (size_t)m * 3 + (size_t)2 * nsrc + (size_t)nsrc0
                 + (size_t)3 * nc + (size_t)L0->m;
    R->buf = nsc_calloc(tot, sizeof(double));
    R->lpk = nsc_calloc((size_t)m + 1, sizeof(double)); /* the peak of each pair */
    R->pkmark = nsc_calloc((size_t)m + 1, 1);
    R->pklist = nsc_calloc((size_t)m + 1, sizeof(int));
    if (!R->buf || !R->lpk || !R->pkmark || !R->pklist) return nsc_oom(r);
    nsc_dev_check_pairs(L, R->c, R->pkmark);
    for (int j = 0; j < m; j++)
        if (R->pkmark[j]) R->pklist[R->npk++] = j;
    R->z0 = R->buf, R->z1 = R->z0 + n, R->zs = R->z1 + n;
    double *ss = R->zs + n0, *es = ss + n0;
    R->l = es + n0, R->ls = R->l + m, R->e1 = R->ls + m, R->w0 = R->e1 + m, R->w1 = R->w0 + nsrc;
    R->ws0 = R->w1 + nsrc, R->v0 = R->ws0 + nsrc0, R->v1 = R->v0 + nc, R->row = R->v1 + nc;
    R->s0 = R->zs; /* reused after the initial solve: n <= n0 */
    return NSC_OK;
}

/* The state at t0 and its probes v0: the given one (io), else the consistent
 * solution of the static problem (OP or UIC) at t = 0; the static layout extends
 * the transient one (same nodes, same switches). */
static nsc_status tran_initial(tran_run *R)
{
    const nsc_tran_opts *o = R->o;
    const nsc_lcs *L = R->L, *L0 = R->L0;
    nsc_report *r = R->r;
    int n = R->n, m = R->m;
    double t0 = R->io ? R->io->t0 : 0.0;
    if (R->io && R->io->z) { /* the given state at t0 */
        memcpy(R->z0, R->io->z, (size_t)n * sizeof(double));
        memcpy(R->l, R->io->l, (size_t)m * sizeof(double));
        memcpy(R->sw, R->io->sw, (size_t)L->nsw);
    } else {
        double *s0s = nsc_calloc((size_t)L0->n, sizeof(double));
        double *e0s = nsc_calloc((size_t)L0->m + 1, sizeof(double));
        if (!s0s || !e0s) {
            free(s0s);
            free(e0s);
            return nsc_oom(r);
        }
        nsc_lcs_sources(L0, 0.0, R->ws0, s0s, e0s);
        int gstep;
        nsc_status s = static_solve(R->c, o->gmin, &R->cache0, o->solver, o->uic, s0s, e0s, R->zs,
                                    R->ls, R->sw, &gstep, R->st, r);
        if (!s && !o->uic
            && polish_op(R->c, o->gmin, &R->cache0, R->sw, s0s, e0s, R->zs, R->ls, R->st))
            gstep = 0; /* no longer gmin stepping's point */
        if (!s && o->uic) s = gmin_check(L0, R->c, o->gmin, R->zs, r);
        if (!s && !o->uic) /* an OP start: as nsc_op_point's */
            s = op_gmin_checked(R->c, &R->cache0, o->solver, o->gmin, gstep, s0s, e0s, R->zs, R->ls,
                                R->sw, r);
        if (!s && !R->io && (R->lv0 = nsc_calloc((size_t)L0->m + 1, sizeof(double))))
            nsc_op_seen(L0, R->c, R->zs, R->ls, e0s, R->lv0); /* (none: no harm) */
        free(s0s);
        free(e0s);
        if (s) {
            R->W->end = NSC_RUN_FAILED;
            R->W->end_msg = nsc_asprintf("%s", r->error ? r->error : "initial solution failed");
            return s;
        }
        memcpy(R->z0, R->zs, (size_t)n * sizeof(double));
        memcpy(R->l, R->ls, (size_t)m * sizeof(double));
    }
    nsc_pcache_free(&R->cache0, R->st);
    memcpy(R->lpk, R->l, (size_t)m * sizeof(double));
    R->started = 1;
    nsc_lcs_sources(L, t0, R->w0, R->s0, R->e1);
    nsc_eval_probes(R->f, R->nprobe, L, R->sw, R->z0, R->l, NULL, 0.0, R->w0, R->v0 + 1);
    R->v0[0] = t0;
    return NSC_OK;
}

/* The breakpoints, the table's room and the row at t0 when it is due. */
static nsc_status tran_first_row(tran_run *R)
{
    const nsc_tran_opts *o = R->o;
    double t0 = R->v0[0];
    R->h = o->h, R->tstop = o->tstop, R->eps = 1e-9 * R->h;
    if (nsc_bpq_init(&R->bp, R->L, R->tstop)) return nsc_oom(R->r);
    if (o->tstep > 0
        && (R->tstop - o->tstart) / o->tstep * R->nc < 1e7) /* the rows (up to 80 MB), reserved: */
        nsc_waves_reserve(R->W, (long)((R->tstop - o->tstart) / o->tstep)
                                    + 2); /* no growth in the loop */
    R->jout = 0;
    R->tout = o->tstart;
    if (R->tout <= t0 + R->eps) {
        R->row[0] = t0;
        memcpy(R->row + 1, R->v0 + 1, (size_t)R->nprobe * sizeof(double));
        if (nsc_waves_add(R->W, R->row)) return nsc_waves_add_error(R->W, R->r);
        R->jout = 1;
        R->tout = nsc_grid_time(o, 1, R->eps);
    }
    if (!o->adaptive && o->steps) { /* the steps' table of .meas, from its row at t0 */
        *o->steps = R->Ws = nsc_waves_new(R->names, R->nprobe, R->c->title);
        if (!R->Ws || nsc_waves_spill_like(R->Ws, R->W)) return nsc_oom(R->r);
        if (o->tstart <= t0 + R->eps && nsc_waves_add(R->Ws, R->row)) /* (row: the one at t0) */
            return nsc_waves_add_error(R->Ws, R->r);
    }
    return NSC_OK;
}

/* The step (t, tn] into the steps' table: the row at tstart when it falls
 * inside (linear), then the step's end (v1). */
static nsc_status fixed_step_row(tran_run *R, double tn, double hh)
{
    const nsc_tran_opts *o = R->o;
    double ts = o->tstart, eps = R->eps;
    if (tn < ts - eps) return NSC_OK;
    if (R->t < ts - eps && tn > ts + eps) {
        double a = (ts - R->t) / hh;
        R->row[0] = ts;
        for (int q = 1; q < R->nc; q++) R->row[q] = (1 - a) * R->v0[q] + a * R->v1[q];
        if (nsc_waves_add(R->Ws, R->row)) return nsc_waves_add_error(R->Ws, R->r);
    }
    R->v1[0] = tn;
    return nsc_waves_add(R->Ws, R->v1) ? nsc_waves_add_error(R->Ws, R->r) : NSC_OK;
}

/* The options of the adaptive steps after the exact transient handed over at
 * continuous kinks alone (many PWL pairs: the 15-inverter cascade's 600)
 * when .options chgtol asks for the kinks inside the steps (stepper_adapt.c
 * kink_ratio): every pair whose multiplier enters theta rows is then held at
 * the theta point (the cache emptied of the exact stepper's problems and
 * rebuilt so: nsc_onestep_opts.mean), which makes the device currents second
 * order where a kink inside a step taken at t_k+1 is first order. Measured on
 * the cascade, chgtol=1e-14, against 5 ps fixed steps: v(n15) 1.04 % of range
 * RMS at t_k+1 (1 251 steps), 0.31 % held at the theta point (1 324 steps).
 * Not without CHGTOL: an absolute charge is no default for every circuit
 * (1e-14 C, ngspice's, is 10 % of an 8-inverter chain's 20 fF swing: v(n8)
 * 3.35 % of range against 0.13 % with the kinks located). */
static const nsc_tran_opts *kink_opts(tran_run *R, nsc_tran_opts *ok)
{
    if (!(ok->chgtol > 0)) return R->o;
    ok->pair_mean = 1;
    nsc_pcache_free(&R->cache, R->st);
    R->cache.pair_mean = 1;
    return ok;
}

/* The adaptive transient from the state at t0 (stepper_adapt.c), or the exact
 * one (stepper_exact.c) where asked and in its scope, which may hand over to
 * the adaptive one (its state written into R's arrays). */
static nsc_status tran_adaptive(tran_run *R)
{
    nsc_tran T = { R->c,   R->o,   R->L,   &R->cache, R->f,   R->nprobe, R->W,  R->sw,
                   &R->bp, R->z0,  R->l,   R->w0,     R->v0,  R->jout,   R->st, R->r,
                   R->io,  R->acc, R->lpk, R->pklist, R->npk, 0.0,       R->z0, R->l,
                   R->w0,  R->v0,  0,      0,         NULL };
    nsc_tran_opts ok = *R->o;
    if (R->o->exact && !R->io && R->L->nsm > 0) { /* smooth elements: the stand-in's guards */
        ok.standin = 1;
        T.o = &ok;
    }
    if (R->o->exact && nsc_tran_exact_ok(&T)) {
        if (!(T.hmode = nsc_calloc((size_t)R->m + 1, 1))) return nsc_oom(R->r);
        char *hm = T.hmode;
        nsc_status s = nsc_tran_exact(&T);
        if (!s && T.handover && T.handover_kinks) T.o = kink_opts(R, &ok);
        if (!s && T.handover) s = nsc_tran_adaptive(&T);
        free(hm);
        return s;
    }
    return nsc_tran_adaptive(&T);
}

/* A circuit whose sources fix a capacitor voltage (inductor current) has its
 * current (voltage) as the scheme's discrete derivative, an algebraic unknown
 * in a differential row: theta = 1/2 carries the jump of the source's slope at
 * a corner into every later step as +-C ds (a PULSE edge into series
 * capacitors gave 0 and 2 C dv/dt on alternate steps). As SPICE does, the step
 * after t = 0 and after each corner is implicit Euler, which sets the current
 * to the slope's; the trapezoidal steps then keep it (C ds/dt exact for a
 * ramp). Other circuits keep the design documents' scheme bit for bit.
 * Here: the march's start, the --events log and the ringing watch. */
static nsc_status fixed_start(tran_run *R)
{
    const nsc_tran_opts *o = R->o;
    int n = R->n;
    R->index2 = 0;
    if (o->theta < 1 && nsc_topology_index2(R->c, &R->index2, R->r)) return R->r->status;
    R->t = 0.0;
    R->bprev = INFINITY; /* the breakpoint found for the last step */
    R->k = 0;
    R->swchanged = 1; /* switch states changed since P was chosen */
    R->swstep = 0;
    R->P = NULL;
    if (o->events && !(R->evlog = calloc((size_t)R->m + (size_t)R->L->nsw + 2, 1)))
        return nsc_oom(R->r);
    R->ring = (ring_watch){ n,
                            o->theta >= 1,
                            2 * NSC_RING_STEPS + 2,
                            1,
                            nsc_calloc((size_t)n + 1, sizeof(double)),
                            nsc_calloc((size_t)n + 1, sizeof(double)),
                            nsc_calloc((size_t)n + 1, sizeof(int)) };
    if (!R->ring.d || !R->ring.mag || !R->ring.run) R->ring.warned = 1; /* no watch, no harm */
    return NSC_OK;
}

/* lpk[j] = max(lpk[j], l[j]) over the pairs a device checks after the run
 * (pkmark, nsc_dev_check_pairs: fitted diodes' and BJTs' junctions) whose l
 * the step just taken by P may have changed (nsc_onestep_changed: every pair,
 * or the few a large problem's incremental check evaluated). Exact because
 * every call of P's step in the march is followed by this update: l's other
 * entries are already in lpk. A mode-reuse step's cost stays proportional to
 * what changed (a 20 000-pair chain spent half its run here when this looped
 * over every pair). The other pairs keep their initial l in lpk. */
static void peak_update(tran_run *R)
{
    const int *ch;
    double *lpk = R->lpk;
    const double *l = R->l;
    if (R->npk == 0) return;
    int nch = nsc_onestep_changed(R->P, &ch);
    if (nch < 0 || nch > R->npk) /* (not libm's fmax, a call per pair: l and lpk are never NaN) */
        for (int k = 0; k < R->npk; k++) {
            int j = R->pklist[k];
            lpk[j] = l[j] > lpk[j] ? l[j] : lpk[j];
        }
    else
        for (int k = 0; k < nch; k++) {
            int j = ch[k];
            if (R->pkmark[j]) lpk[j] = l[j] > lpk[j] ? l[j] : lpk[j];
        }
}

enum { STEP_ON, STEP_END, STEP_ERR }; /* go on; the run ended (table marked); an error */

/* One step from t to *tn (the next grid point, or a breakpoint before it) with
 * its step *hh: the one-step problem of (h, theta, switch states), solved, the
 * statistics, losses, ringing watch and --events log updated. */
static int fixed_solve(tran_run *R, double *tn, double *hh, nsc_status *s)
{
    const nsc_tran_opts *o = R->o;
    const nsc_lcs *L = R->L;
    nsc_sim_stats *st = R->st;
    double t = R->t, h = R->h, eps = R->eps;
    if (o->stop && *o->stop) {
        R->W->end = NSC_RUN_INTERRUPTED;
        R->W->end_msg = nsc_strdup("by a signal"); /* the note says "interrupted at t=..." */
        return STEP_END;
    }
    double tg = (double)(R->k + 1) * h; /* next grid point */
    if (tg > R->tstop - eps) tg = R->tstop;
    int at_bp = R->bprev <= t + eps;           /* steps never cross a breakpoint: t is on it */
    double b = nsc_bpq_after(&R->bp, t + eps); /* the next breakpoint */
    R->bprev = b;
    *tn = tg;
    if (b < tg - eps) {
        *tn = b;
        st->short_steps++;
    }
    *hh = *tn - t;
    double hkey = fabs(*hh - h) <= eps ? h : *hh;
    /* index 2: the step from t = 0 or a breakpoint is implicit Euler (fixed_start);
     * so is the step after a switch change (fixed_advance) */
    double th = (R->index2 && (t == 0.0 || at_bp)) || R->swstep ? 1.0 : o->theta;
    R->swstep = 0;
    if (!R->P || R->swchanged || !nsc_same_h(R->Ph, hkey)
        || R->Ptheta != th) { /* (h, theta, switch states) */
        nsc_onestep *Pn;
        if ((*s = nsc_pcache_get(&R->cache, hkey, th, R->sw, 0, &Pn, st, R->r))) return STEP_ERR;
        if (R->P && Pn != R->P) nsc_onestep_take_mode(Pn, R->P);
        R->P = Pn;
        R->Ph = nsc_onestep_h(Pn);
        R->Ptheta = nsc_onestep_theta(Pn);
        R->swchanged = 0;
    }
    for (int j = 0; j < R->nsrc; j++) R->w1[j] = nsc_wave_eval(L->src[j].wave, *tn); /* w(t_k+1) */
    nsc_step_info info;
    if ((R->nsrc > 0 && nsc_lcs_check_step(L, R->c, R->w1, NULL, NULL, *tn, R->r))
        || (nsc_onestep_step(R->P, o->solver, R->z0, R->w0, R->w1, R->z1, R->l, &info)
            && (nsc_step_failure(R->r, L, R->P, *tn, &info, o->solver), 1))
        || nsc_lcs_check_step(L, R->c, NULL, R->z1, R->l, *tn, R->r)
        || ((st->steps == 0 || info.lcp_solved) /* (nsc_step_pairs' own test, without a call) */
            && nsc_step_pairs(L, R->c, R->P, &info, st->steps == 0, R->z1, R->l, R->w1, *tn,
                              R->r))) {
        *s = NSC_ESIM;
        R->W->end = NSC_RUN_FAILED;
        R->W->end_msg = nsc_end_msg(R->r, "solver failure");
        return STEP_END;
    }
    st->steps++;
    if (R->acc)
        nsc_loss_acc_step(R->acc, th, t, *tn, R->z0, R->z1, R->l, R->w0, R->w1, R->sw,
                          nsc_onestep_mode(R->P));
    peak_update(R);
    if (o->progress && st->steps % 1000 == 0) o->progress(*tn, o->progress_ctx);
    st->mode_hits += info.mode_hit;
    st->active_set += !info.mode_hit && !info.lcp_solved && info.active_set > 0;
    st->lcps += info.lcp_solved;
    st->pivots += info.iter;
    if (info.residual > st->max_residual) st->max_residual = info.residual;
    if (*tn == tg) R->k++;
    ring_watch *rw = &R->ring;
    if (!rw->warned && (*tn != tg || !info.mode_hit)
        && rw->left <= 0) { /* excited: a fresh window */
        rw->left = 2 * NSC_RING_STEPS + 2;
        rw->full = 1;
        memset(rw->run, 0, (size_t)R->n * sizeof(int));
        memset(rw->d, 0, (size_t)R->n * sizeof(double));
    }
    if (!rw->warned && rw->left > 0 && rw->left--)
        ring_step(rw, L, R->z0, R->z1, *tn, o->theta, h, R->r);
    if (R->evlog && log_modes(R->W, L, *tn, nsc_onestep_mode(R->P), R->evlog)) {
        *s = nsc_oom(R->r);
        return STEP_ERR;
    }
    return STEP_ON;
}

/* The output rows in (t, tn]: exact at tn, interpolated inside; *need = 1 when
 * v1 holds the probes at tn (a row falls in (t, tn] or may fall in the next
 * step, which ends at or before the next grid point). */
static nsc_status fixed_rows(tran_run *R, double tn, double hh, int *need)
{
    const nsc_tran_opts *o = R->o;
    double eps = R->eps, tnext = (double)(R->k + 1) * R->h;
    if (tnext > R->tstop) tnext = R->tstop;
    *need = R->Ws
            || (R->tout <= tnext + eps
                && R->tout <= R->tstop + eps); /* (the steps' table: each step) */
    if (*need) {
        nsc_eval_probes(R->f, R->nprobe, R->L, R->sw, R->z1, R->l, R->z0, hh, R->w1,
                        R->v1 + 1); /* I(S) in the step's state */
        R->v1[0] = tn;
    }
    double *row = R->row;
    while (R->tout <= tn + eps && R->tout <= R->tstop + eps) {
        int bad;
        if (fabs(R->tout - tn) <= eps) { /* v1 itself with time tout (no copy), then tn again */
            R->v1[0] = R->tout;
            bad = nsc_waves_add(R->W, R->v1);
            R->v1[0] = tn;
        } else {
            double a = (R->tout - R->t) / hh;
            row[0] = R->tout;
            for (int q = 1; q < R->nc; q++) row[q] = (1 - a) * R->v0[q] + a * R->v1[q];
            bad = nsc_waves_add(R->W, row);
        }
        if (bad) return nsc_waves_add_error(R->W, R->r);
        R->jout++;
        R->tout = nsc_grid_time(o, R->jout, eps);
        if (o->rows) o->rows(R->W, o->rows_ctx);
    }
    return R->Ws ? fixed_step_row(R, tn, hh) : NSC_OK;
}

/* t = tn: the step's end becomes the start of the next; the switch states for
 * the next step, decided from z(tn), and their changes logged (--events).
 * A switch is a conductance in A, which the scheme's explicit part (I - Theta)
 * A z_k applies to z(tn): after a change, z(tn)'s algebraic unknowns are the
 * old state's (an opened switch's far node still at ~0 V), so a theta < 1 step
 * would inject the new conductance times a voltage that the new state does not
 * have (0.8 V across 1 ohm for half a step kicked a 0.2 uF node 40 mV). The
 * step after a change is implicit Euler (swstep), which has no explicit part,
 * as SPICE restarts at a breakpoint; the later steps are the scheme's. */
static nsc_status fixed_advance(tran_run *R, double tn, int need)
{
    const nsc_lcs *L = R->L;
    R->t = tn;
    double *tz = R->z0;
    R->z0 = R->z1;
    R->z1 = tz; /* z0 = z(t_k+1) */
    double *tw = R->w0;
    R->w0 = R->w1;
    R->w1 = tw;
    if (need) {
        double *tv = R->v0;
        R->v0 = R->v1;
        R->v1 = tv;
    }
    if (R->evlog) memcpy(R->evlog + R->m + 1, R->sw, (size_t)L->nsw);
    int ch = L->nsw > 0 ? nsc_lcs_switch_update(L, R->z0, R->sw) : 0;
    R->st->switch_events += ch;
    R->swchanged |= ch > 0;
    R->swstep = ch > 0;
    for (int j = 0; R->evlog && ch && j < L->nsw; j++)
        if (R->sw[j] != R->evlog[R->m + 1 + j]
            && nsc_waves_event(R->W, R->t, R->c->el[L->sw[j].el].name, R->sw[j]))
            return nsc_oom(R->r);
    return NSC_OK;
}

/* The fixed-step march to tstop: W->t_end is the time reached unless an error
 * (not a solver failure, not a stop) cut it short. */
static nsc_status tran_fixed(tran_run *R)
{
    nsc_status s = fixed_start(R);
    while (!s && R->t < R->tstop - R->eps) {
        double tn, hh;
        int need, step = fixed_solve(R, &tn, &hh, &s);
        if (step == STEP_ERR) return s;
        if (step == STEP_END) break;
        if ((s = fixed_rows(R, tn, hh, &need)) || (s = fixed_advance(R, tn, need))) return s;
    }
    if (!s || s == NSC_ESIM) R->W->t_end = R->t;
    return s;
}

/* Losses, the devices' validity over the run, and everything R owns but W. */
static void tran_free(tran_run *R, nsc_status s)
{
    const nsc_lcs *L = R->L;
    if (s && R->W) mark_failed(R->W, R->r);
    if (R->acc && !s && R->W) nsc_loss_acc_finish(R->acc, R->W->t_end, R->o->losses, R->r);
    else nsc_loss_acc_free(R->acc);
    for (int j = 0; R->lv0 && R->lpk && j < R->m; j++) /* never conducted: the start's slack */
        if (R->lpk[j] <= 0 && R->lv0[j] < 0) R->lpk[j] = R->lv0[j];
    if (!s && L && R->lpk
        && R->st->refit_stop > 0) /* stopped early (stepper_exact.c fits_watch): */
        nsc_dev_refit(L, R->c, R->lpk, 0, R->o->refit); /* its fits remade, run.c repeats it */
    else if (!s && L && R->lpk) {                       /* the devices' validity over the run */
        int done = R->W && R->W->end == NSC_RUN_COMPLETE;
        if (R->io && R->io->lpk) memcpy(R->io->lpk, R->lpk, (size_t)L->m * sizeof(double));
        else if (!R->io) nsc_op_fits(L, R->c, R->lpk, 0, done ? R->o->refit : NULL, R->r);
    } else if (s == NSC_ESIM && R->started && L && R->lpk && !R->io && R->o->refit)
        nsc_dev_refit(L, R->c, R->lpk, 0,
                      R->o->refit); /* a run that failed outside its fits: run.c repeats it */
    free(R->lpk);
    free(R->lv0);
    free(R->pkmark);
    free(R->pklist);
    free(R->ring.d);
    free(R->ring.mag);
    free(R->ring.run);
    nsc_pcache_free(&R->cache, R->st);
    nsc_pcache_free(&R->cache0, R->st);
    for (int q = 0; R->f && q < R->nprobe; q++) nsc_lin_free(&R->f[q]);
    free(R->f);
    free(R->names);
    free(R->sw);
    free(R->buf);
    nsc_bpq_free(&R->bp);
    free(R->evlog);
    nsc_lcs_free(R->L);
    nsc_lcs_free(R->L0);
}

nsc_status nsc_stepper_tran_io(const nsc_circuit *c, const nsc_tran_opts *o,
                               const nsc_probe *probes, int nprobe, nsc_tran_io *io,
                               nsc_waves **out, nsc_sim_stats *st, nsc_report *r)
{
    memset(st, 0, sizeof *st);
    tran_run R;
    memset(&R, 0, sizeof R);
    R.c = c, R.o = o, R.io = io, R.st = st, R.r = r, R.nprobe = nprobe;
    nsc_status s = tran_setup(&R, probes);
    *out = R.W;
    if (!s) s = tran_initial(&R);
    if (!s) s = tran_first_row(&R);
    if (!s && io && !o->adaptive)
        s = nsc_err(r, NSC_EUSAGE, NULL, "a transient from a given state needs adaptive steps");
    if (!s) s = o->adaptive ? tran_adaptive(&R) : tran_fixed(&R);
    tran_free(&R, s);
    return s;
}

/* Columns of the operating-point table: the probes' names, else every unknown
 * and "l(pair)"; *names[k] for k >= n are new strings when owned. */
static nsc_status op_names(const nsc_lcs *L, const nsc_probe *probes, int np, char ***names,
                           int *nc, nsc_report *r)
{
    int n = L->n, m = L->m;
    *nc = np > 0 ? np : n + m;
    *names = nsc_calloc((size_t)*nc, sizeof **names);
    if (!*names) return nsc_oom(r);
    for (int k = 0; k < np; k++) (*names)[k] = probes[k].name;
    if (np > 0) return NSC_OK;
    for (int i = 0; i < n; i++) (*names)[i] = L->zname[i];
    for (int j = 0; j < m; j++)
        if (!((*names)[n + j] = nsc_asprintf("l(%s)", L->pair_name[j]))) return nsc_oom(r);
    return NSC_OK;
}

/* The row of the operating-point table: probes evaluated at (z, l) (a capacitor's
 * dz/dt term is 0: zprev = NULL), else z then l. */
static nsc_status op_row(const nsc_lcs *L, const nsc_circuit *c, const nsc_probe *probes, int np,
                         const char *sw, const double *z, const double *l, const double *w,
                         double *row, nsc_report *r)
{
    if (np == 0) {
        memcpy(row, z, (size_t)L->n * sizeof(double));
        memcpy(row + L->n, l, (size_t)L->m * sizeof(double));
        return NSC_OK;
    }
    for (int k = 0; k < np; k++) {
        nsc_lin f;
        nsc_status s = nsc_lcs_probe(L, c, &probes[k], &f, r);
        if (s) return s;
        row[k] = nsc_lin_eval_sw(&f, L, sw, z, l, NULL, 0, w);
        nsc_lin_free(&f);
    }
    return NSC_OK;
}

int nsc_op_fits(const nsc_lcs *L, const nsc_circuit *c, const double *lpk, int point,
                nsc_report *notes, nsc_report *r)
{
    if (notes) {
        int n = nsc_dev_refit(L, c, lpk, point ? 2 : 1, notes);
        if (n > 0) return n;
    }
    nsc_dev_check(L, c, lpk, r);
    return 0;
}

void nsc_op_seen(const nsc_lcs *L, const nsc_circuit *c, const double *z, const double *l,
                 const double *e, double *lv)
{
    nsc_lcs_pairs_y(L, z, l, NULL, e, lv);
    nsc_dev_seen(L, c, l, lv, lv);
}

/* One pass of nsc_stepper_op: NSC_OK with *out NULL when it remade fits
 * (notes in *notes: the caller makes it again). */
static nsc_status op_pass(const nsc_circuit *c, double gmin, nsc_solver solver,
                          const nsc_probe *probes, int nprobe, nsc_report *notes, nsc_waves **out,
                          nsc_report *r)
{
    *out = NULL;
    nsc_opws O = { 0 };
    char **names = NULL;
    double *rv = NULL;
    int nc = 0;
    nsc_status s;
    if ((s = nsc_opws_build(&O, c, gmin, r))) goto done;
    const nsc_lcs *L = O.L;
    if ((s = op_names(L, probes, nprobe, &names, &nc, r))) goto done;
    if (!(rv = nsc_calloc((size_t)(1 + nc + L->m), sizeof(double)))) { /* + lv (nsc_op_seen) */
        s = nsc_oom(r);
        goto done;
    }
    s = nsc_opws_point(&O, c, solver, gmin, 1, r);
    if (!s) nsc_op_seen(L, c, O.z, O.l, O.e, rv + 1 + nc);
    if (s || nsc_op_fits(L, c, rv + 1 + nc, 1, notes, r)) goto done;
    if ((s = op_row(L, c, probes, nprobe, O.sw, O.z, O.l, O.w, rv + 1, r))) goto done;
    nsc_waves *W = nsc_waves_new(names, nc, c->title);
    if (!W) {
        s = nsc_oom(r);
        goto done;
    }
    if (nsc_waves_add(W, rv)) {
        nsc_waves_free(W);
        s = nsc_oom(r);
        goto done;
    }
    *out = W;
done:
    if (names && O.L && nprobe == 0)
        for (int j = 0; j < O.L->m; j++) free(names[O.L->n + j]);
    free(names);
    free(rv);
    nsc_opws_free(&O);
    return s;
}

nsc_status nsc_fitted(nsc_fit_pass pass, void *ctx, nsc_report *r)
{
    int npass = NSC_REFITS;
    return nsc_fitted_n(pass, ctx, &npass, r);
}

nsc_status nsc_fitted_n(nsc_fit_pass pass, void *ctx, int *npass, nsc_report *r)
{
    for (int k = 0;; k++) {
        nsc_report notes;
        nsc_report_init(&notes);
        int n0 = r->nwarn, again = 0, np = *npass, last = k >= np - 1;
        nsc_status s = pass(ctx, last ? NULL : &notes, &again, r);
        again = again && !s;
        if (again) { /* the pass's warnings replaced by the notes */
            nsc_report_trim(r, n0);
            nsc_report_take(r, &notes);
        }
        nsc_report_free(&notes);
        if (again && last) { /* only when it raised *npass: made again, with notes */
            if (*npass <= np) return s;
            k--;
        }
        if (!again) return s;
    }
}

typedef struct op_ctx {
    const nsc_circuit *c;
    double gmin;
    nsc_solver solver;
    const nsc_probe *probes;
    int nprobe;
    nsc_waves **out;
    int npass; /* NSC_REFITS_GSTEP (stepper.h) */
} op_ctx;

static nsc_status op_fit_pass(void *ctx, nsc_report *notes, int *again, nsc_report *r)
{
    op_ctx *o = ctx;
    nsc_status s = op_pass(o->c, o->gmin, o->solver, o->probes, o->nprobe, notes, o->out, r);
    *again = !*o->out;
    return s;
}

nsc_status nsc_stepper_op(const nsc_circuit *c, double gmin, nsc_solver solver,
                          const nsc_probe *probes, int nprobe, nsc_waves **out, nsc_report *r)
{
    op_ctx o = { c, gmin, solver, probes, nprobe, out, NSC_REFITS_GSTEP };
    return nsc_fitted_n(op_fit_pass, &o, &o.npass, r);
}

nsc_status nsc_op_point(const nsc_circuit *c, nsc_pcache *C, nsc_solver solver, double gmin,
                        int init, int jgmin, const double *w, const double *s, const double *e,
                        double *z, double *l, char *sw, char *mode, nsc_report *r)
{
    if (init) switch_init(c, C->L, sw);
    int gstep;
    nsc_status st = static_solve(c, gmin, C, solver, 0, s, e, z, l, sw, &gstep, NULL, r);
    int jg = 0; /* 1: solved with gmin across the junctions (op_junction_gmin) */
    if (!st) {
        int nd = jgmin ? gmin_node_driven(C->L, gmin, z) : 0; /* (static_solve's point) */
        nsc_report q;
        nsc_report_init(&q);
        st = op_gmin_checked(c, C, solver, gmin, gstep, s, e, z, l, sw, &q);
        if (st && nd && !op_junction_gmin(c, C, solver, gmin, nd, s, e, z, l, sw, r))
            st = NSC_OK, jg = 1;
        nsc_report_take(r, &q);
        if (st && !r->error) {
            r->status = q.status;
            r->error = q.error;
            q.error = NULL;
        }
        nsc_report_free(&q);
    }
    if (!st && !jg) st = nsc_lcs_check_step(C->L, c, w, z, l, 0, r); /* finite, consistent */
    nsc_onestep *P;
    if (!st) st = nsc_pcache_get(C, 0.0, 1.0, sw, 0, &P, NULL, r);
    const char *pm = st ? NULL : nsc_onestep_mode(P);
    if (pm) memcpy(mode, pm, (size_t)C->L->m);
    else if (!st) memset(mode, 0, (size_t)C->L->m); /* m = 0, or no pair */
    return st;
}

nsc_status nsc_steps_table(const nsc_tran *T, double t0, double eps, double *v0, nsc_waves **Ws)
{
    const nsc_waves *W = T->W;
    *T->o->steps = *Ws = nsc_waves_new(W->name + 1, W->ncol - 1, W->title);
    if (!*Ws || nsc_waves_spill_like(*Ws, W)) return nsc_oom(T->r);
    if (T->o->tstart > t0 + eps) return NSC_OK;
    v0[0] = t0;
    return nsc_waves_add(*Ws, v0) ? nsc_waves_add_error(*Ws, T->r) : NSC_OK;
}
