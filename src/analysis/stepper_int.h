/* stepper_int.h -- what the fixed-step (stepper.c) and the adaptive
 * (stepper_adapt.c) transients share: the cache of one-step problems, the
 * breakpoints of the sources, probes and the failure report. Internal. */
#ifndef NSC_STEPPER_INT_H
#define NSC_STEPPER_INT_H

#include <math.h>

#include "stepper.h"
#include "devices/device.h"

#define NSC_PCACHE 128 /* regular problems at most (small LCSs; large ones: NSC_PCACHE_BIG) */
#define NSC_PCACHE_BIG 32
#define NSC_PCACHE_SMALL 2000 /* n + m up to which an LCS is small */
#define NSC_SPARES 4

/* Time of row j of the output grid: tstart + j tstep while it is not past
 * tstop (eps: the run's time tolerance); then, with o->last_row, tstop itself
 * when the grid's last point fell short of it (span not a multiple of tstep);
 * then INFINITY. */
static inline double nsc_grid_time(const nsc_tran_opts *o, long j, double eps)
{
    double t = o->tstart + (double)j * o->tstep;
    if (t <= o->tstop + eps) return t;
    return o->last_row && j > 0 && o->tstart + (double)(j - 1) * o->tstep < o->tstop - eps
               ? o->tstop
               : INFINITY;
}

/* One-step problems of one LCS keyed by (h, theta, switch states), least
 * recently used evicted: the regular steps in each switch state met (the
 * adaptive stepper's ladder of sizes, in two thetas: up to ~100 for a run
 * whose steps span 12 octaves), and the few shortened ones. A one-off step
 * size (a step ending on a breakpoint or a located event) lives in its own
 * slot, `scratch`, replaced by the next one, so that it never evicts a
 * regular step's factorisation. A problem replaced (the least recently used
 * of the same theta and switch states, a one-off one) is made in place the
 * new one (nsc_onestep_renew): values only, its mode systems kept. */
typedef struct nsc_pcache {
    const nsc_lcs *L;
    nsc_onestep *P[NSC_PCACHE];
    long last[NSC_PCACHE];
    double hk[NSC_PCACHE], thk[NSC_PCACHE]; /* P[k]'s step and theta, read without a call
                                                 (set with P[k]: nsc_pcache_get is the one
                                                 place a slot's problem is built or renewed) */
    int mru;                                /* the slot returned last (looked at first) */
    int n, cap; /* cap: 0 until the first call sets it from the LCS's size */
    long clock;
    nsc_onestep *scratch;
    nsc_onestep *spare[NSC_SPARES]; /* one-off problems before scratch, renewed for the next
                                         one-off steps (never scratch itself, which the caller
                                         may hold as its current problem) */
    long sparelast[NSC_SPARES];
    int alg_theta; /* 1: algebraic rows take the step's theta (adaptive), 0: 1 (fixed steps) */
    int pair_mean; /* 1: pairs held at the theta point (nsc_onestep_opts.mean; with alg_theta) */
} nsc_pcache;

/* 1 when a and b are the same step size (relative 1e-12). */
static inline int nsc_same_h(double a, double b)
{
    if (a == b) return 1; /* (a fixed step's every call) */
    double fa = a < 0 ? -a : a, fb = b < 0 ? -b : b, d = a - b;
    return (d < 0 ? -d : d) <= 1e-12 * (fa > fb ? fa : fb);
}
/* The problem of (h, theta, sw) from C, built when missing (oneoff: into the
 * scratch slot). Counts new factorisations in st (may be NULL). */
nsc_status nsc_pcache_get(nsc_pcache *C, double h, double theta, const char *sw, int oneoff,
                          nsc_onestep **out, nsc_sim_stats *st, nsc_report *r);
void nsc_pcache_free(nsc_pcache *C, nsc_sim_stats *st);

/* Sorted corners of every source waveform in (tol, tstop], at least tol apart.
 * 0, or -1 on ENOMEM. */
/* The breakpoints of the sources of L, generated as the run reaches them: next[j]
 * is the first corner of source j after the cursor (nsc_wave_next_corner), so
 * memory is O(nsrc) whatever the number of periods. */
typedef struct nsc_bpq {
    const nsc_lcs *L;
    double tstop;
    double *next; /* [nsrc] */
    double min;   /* the smallest next[j] (-inf: not known): x < min changes nothing */
} nsc_bpq;
int nsc_bpq_init(nsc_bpq *q, const nsc_lcs *L, double tstop); /* 0, or -1 out of memory */
/* The smallest next corner of the sources after x, q->min updated (x >= q->min). */
double nsc_bpq_scan(nsc_bpq *q, double x);
/* The first breakpoint > x (x never decreasing between calls), INFINITY if none
 * up to tstop. While x < min, every next corner is still ahead and min is the
 * answer: a fixed step costs two comparisons, no call. */
static inline double nsc_bpq_after(nsc_bpq *q, double x)
{
    double best = x < q->min ? q->min : nsc_bpq_scan(q, x);
    return best <= q->tstop ? best : INFINITY;
}
void nsc_bpq_free(nsc_bpq *q);

/* "time 1.2e-3 s: ..., devices d1 d3, residual ..." for a failed step of P at t. */
/* The note of a run that stopped on r's error (dflt without one): the message
 * without its "nscircuit: error: " prefix, new (NULL out of memory). */
char *nsc_end_msg(const nsc_report *r, const char *dflt);

void nsc_step_failure(nsc_report *r, const nsc_lcs *L, const nsc_onestep *P, double t,
                      const nsc_step_info *info, nsc_solver solver);

/* The pair check of a transient's step (lcs.h nsc_lcs_check_pairs: every
 * pair's y = C z + D l + e(w) >= 0 complementary to l, within
 * NSC_PAIRCHECK_TOL of its terms) at the steps where a solution may not be
 * one: the run's first step (first = 1: from the operating point, whose mode
 * the step's problem does not share) and a step solved by pivoting
 * (info->lcp_solved). A step solved in a mode was checked pair by pair
 * (onestep_mode.c, NSC_MODE_TOL) and is not again: checking every restart of
 * the adaptive steps too cost the 15-inverter cascade (630 pairs, hundreds of
 * restarts) 24 % of its run. A step whose pairs are held at the theta point
 * (nsc_onestep_kappa: .options chgtol) has no such conditions at its end and
 * is not checked. NSC_OK, or NSC_ESIM naming the pair (a run that failed
 * outside its fits remakes them and runs again: run.c tran_fit_pass). */
nsc_status nsc_step_pairs(const nsc_lcs *L, const nsc_circuit *c, const nsc_onestep *P,
                          const nsc_step_info *info, int first, const double *z, const double *l,
                          const double *w, double t, nsc_report *r);

/* A solved one-step problem's statistics into st (how it was solved, pivots,
 * its residual): the adaptive and the exact transients. */
void nsc_count_solve(nsc_sim_stats *st, const nsc_step_info *info);

/* The probes f[np] at a step: out[k] = f_k(z, l, zp, h, w) in switch states sw. */
void nsc_eval_probes(const nsc_lin *f, int np, const nsc_lcs *L, const char *sw, const double *z,
                     const double *l, const double *zp, double h, const double *w, double *out);

/* The differential unknowns of L (the columns of E: capacitor node voltages,
 * inductor currents) into di[], ascending, with their absolute tolerances,
 * VNTOL for node voltages and ABSTOL for branch currents, into atol[] (both at
 * least L->n long); returns their number. */
int nsc_tran_states(const nsc_lcs *L, double vntol, double abstol, int *di, double *atol);

/* Where a transient starts and what it hands back (the periodic steady state,
 * stepper_pss.c); nsc_stepper_tran passes none. Adaptive stepping only. */
typedef struct nsc_tran_io {
    double t0;           /* start time; rows from o->tstart >= t0 */
    const double *z, *l; /* the state at t0 ([n], [m]); z NULL: the OP/UIC at t0 = 0 */
    const char *sw;      /* the switch states at t0 ([nsw]) */
    double *zend, *lend; /* if set: the state reached ([n], [m]) ... */
    char *swend;         /* ... and the switch states ([nsw]) */
    double *zmin, *zmax; /* if set: the range of each unknown over the accepted points */
    double *S;           /* if set: n x ns (column-major), d z / d start, propagated */
    int ns;              /*   through every accepted step with its mode frozen, and
                                    across each located event by its saltation (stepper_adapt.c) */
    int sens_failed;     /* out: 1 when a step's sensitivity could not be computed */
    double *lpk;         /* if set: each pair's largest multiplier over the accepted
                                  points ([m]), handed back instead of checked (nsc_dev_check) */
    long ev_frozen;      /* out, with S: events whose saltation S leaves out (switches
                                  on controls that move with the state flipping together, or
                                  with a pair's change) */
    struct nsc_pac *pac; /* if set, with S: S's columns also carry the sources'
                                  perturbation of the periodic AC (nsc_pac_dw at each step's
                                  ends), and each accepted step is handed to nsc_pac_step */
} nsc_tran_io;

/* nsc_stepper_tran from io's start (io NULL: nsc_stepper_tran). */
nsc_status nsc_stepper_tran_io(const nsc_circuit *c, const nsc_tran_opts *o,
                               const nsc_probe *probes, int nprobe, nsc_tran_io *io,
                               nsc_waves **out, nsc_sim_stats *st, nsc_report *r);

/* The transient after t = 0, as the adaptive stepper takes it over from
 * nsc_stepper_tran: the consistent solution at t = 0 is computed and its row (if
 * due) written; the stepper advances to o->tstop, adding rows to W. */
typedef struct nsc_tran {
    const nsc_circuit *c;
    const nsc_tran_opts *o;
    const nsc_lcs *L;
    nsc_pcache *cache;
    const nsc_lin *f; /* [nprobe] */
    int nprobe;
    nsc_waves *W;
    char *sw;                        /* [L->nsw] switch states */
    nsc_bpq *bp;                     /* the breakpoints */
    const double *z0, *l0, *w0, *v0; /* t = 0: z[n], l[m], w[nsrc], probes v0[1..nprobe] */
    long jout;                       /* next output row: t = tstart + jout tstep */
    nsc_sim_stats *st;
    nsc_report *r;
    nsc_tran_io *io;   /* NULL, or the start and hand-back of the run */
    nsc_loss_acc *acc; /* NULL, or the energies being integrated (o->losses) */
    double *lpk;       /* [m] each pair's largest multiplier so far (updated at each accepted point
                              * for the pairs pklist[0..npk) a device checks; the others keep l0) */
    const int *pklist;
    int npk;
    double t0; /* the start without io: 0, or where the exact transient handed over */
    double *hz, *hl, *hw, *hv; /* the exact transient's hand-over: the state at t0 written here
                                    (z0, l0, w0, v0 point to the same arrays) and handover set */
    int handover;
    int handover_kinks; /* 1: handed over at continuous kinks alone (stepper_exact.c kinks_only) */
    char *hmode;        /* [m] or NULL: the hand-over's mode at t0 (the active set up to t0; the
                                adaptive stepper's first step compares its mode with it) */
} nsc_tran;

/* The adaptive transient (stepper_adapt.c): NSC_OK, or NSC_ESIM/NSC_ENOMEM with
 * W->end and W->end_msg set. W->t_end is the time reached. */
nsc_status nsc_tran_adaptive(nsc_tran *T);
/* The exact transient (stepper_exact.c, .options stepping=exact): 1 when T is in its scope
 * (else the adaptive one runs), and the run, as nsc_tran_adaptive; when its
 * modes turn out too many to repay their flows it stops at T->t0 with the
 * state in hz, hl, hw, hv and T->handover set, for nsc_tran_adaptive. */
int nsc_tran_exact_ok(const nsc_tran *T);
nsc_status nsc_tran_exact(nsc_tran *T);
/* The steps' table .meas reads when the rows are the tstep grid (.options
 * interp; nsc_tran_opts.steps), spilled as T->W, with the row v0 at t0 (v0[0]
 * set to it) when tstart is reached: into *Ws and *T->o->steps (stepper.c). */
nsc_status nsc_steps_table(const nsc_tran *T, double t0, double eps, double *v0, nsc_waves **Ws);

/* The fits after a run of L whose pairs' multipliers peaked at lpk[m] (a
 * transient, .op, a .dc sweep's points, .ac's operating point; point 1: lpk
 * is one operating point's, devif.h refit's complete 2): with notes
 * (a pass before the last, nsc_fitted) the fits that follow the run and were
 * left are remade (device.h nsc_dev_refit, a note each into *notes) and the
 * number remade returned: the caller drops its results and makes them again;
 * else (notes NULL, or nothing remade) each device's validity warning
 * (nsc_dev_check) into r and 0. Without it an .op of a diode fitted on
 * 100 uA..100 A carrying 5 kA read 4.2 V off its last chord where the SPICE
 * curve has 1.054 V. */
int nsc_op_fits(const nsc_lcs *L, const nsc_circuit *c, const double *lpk, int point,
                nsc_report *notes, nsc_report *r);
/* What a static solution (z, l) of L, pair offsets e[m], shows the fits, as
 * nsc_op_fits's peaks lpk: into lv[m] (device.h nsc_dev_seen: the
 * multipliers, and the slacks of fitted junctions that do not conduct). */
void nsc_op_seen(const nsc_lcs *L, const nsc_circuit *c, const double *z, const double *l,
                 const double *e, double *lv);

/* The checks of a static solution (z, l) of L, pair offsets e[m] (opcheck.c):
 * in a circuit of voltage sources, resistors, switches, capacitors, inductors,
 * diodes and bipolar transistors, every node within NSC_NOGAIN_MARGIN (plus
 * NSC_OPCHECK_TOL of the span) of the range of the sources' terminals (and
 * ground, and the .ic nodes); in any circuit, every pair's y = C z + D l + e >= 0
 * and complementary to l within NSC_OPCHECK_TOL of its terms. NSC_ESIM naming
 * the node or the pair, else NSC_OK. */
#define NSC_OPCHECK_TOL 1e-6
#define NSC_NOGAIN_MARGIN 1.0
nsc_status nsc_op_solution_check(const nsc_lcs *L, const nsc_circuit *c, const double *z,
                                 const double *l, const double *e, nsc_report *r);

/* The operating point of C->L (an NSC_ASM_OP LCS of c) with sources s[n], e[m]
 * from the source values w (issue 29: .ac, .dc; .op), checked as a step is
 * (finite, each device's step check): switch states from the card when init, else from sw
 * (a previous point's, so the search starts from its decisions); the solution
 * z, l, the switch states sw and mode[m] (1 = active pair) of the accepted
 * solve. The one-step problems stay in C: the next call starts from this mode. */
nsc_status nsc_op_point(const nsc_circuit *c, nsc_pcache *C, nsc_solver solver, double gmin,
                        int init, int jgmin, const double *w, const double *s, const double *e,
                        double *z, double *l, char *sw, char *mode, nsc_report *r);

/* The workspace of an operating point (opws.c; .op, .ac's point, .dc's points):
 * c's OP LCS L, its problem cache, and over L the unknowns z[n], pairs l[m],
 * source values w[nsrc] and s[n] e[m] from them, switch states sw[nsw], modes
 * mode[m] (1 = active pair). Zeroed ({0}) before the first build; owns all. */
typedef struct nsc_opws {
    nsc_lcs *L;
    nsc_pcache cache;
    double *buf; /* the block of z s l e w */
    double *z, *s, *l, *e, *w;
    char *sw, *mode;
    int jgmin; /* 1 (a .dc sweep's points): a point that exists only through gmin is
                  solved as ngspice solves it, gmin across each junction, with a
                  warning (stepper.c op_junction_gmin); 0: an error */
} nsc_opws;
/* (Re)build W for c as it is now: L assembled with gmin, the cache empty, the
 * vectors zeroed but sw, which a rebuild keeps (a sweep's next point starts
 * from the switch states of the last). NSC_OK, or the assembly's error, or
 * NSC_ENOMEM (W then holds what was made: free it). */
nsc_status nsc_opws_build(nsc_opws *W, const nsc_circuit *c, double gmin, nsc_report *r);
/* The operating point of W's LCS (nsc_op_point): its sources at their DC
 * values into w s e, the solution into z l sw mode; init: switch states from
 * the card, else from sw. */
nsc_status nsc_opws_point(nsc_opws *W, const nsc_circuit *c, nsc_solver solver, double gmin,
                          int init, nsc_report *r);
/* All but sw freed (NULL), ready for a rebuild. */
void nsc_opws_release(nsc_opws *W);
/* All freed. */
void nsc_opws_free(nsc_opws *W);

#endif
