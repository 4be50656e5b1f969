/* stepper.h -- analyses: the operating point and the theta-scheme transient
 * (formulation.md §2), with fixed steps (stepper.c) or adaptive, event-located
 * steps (stepper_adapt.c), from a circuit to a waveform table. */
#ifndef NSC_STEPPER_H
#define NSC_STEPPER_H

#include <signal.h>

#include "circuit/circuit.h"
#include "losses.h"
#include "solve/onestep.h"
#include "output/waves.h"

typedef struct nsc_tran_opts {
    double tstep, tstop, tstart; /* output grid */
    double h;          /* fixed steps: the scheme step (> 0); adaptive: the largest step */
    double href;       /* adaptive: the step scale, min(tstep, h) (0: h): the first step is
                                     1e-3 of it, and so are the floors of the restarts (stepper_adapt.c) */
    int interp;        /* adaptive: 1 rows on the tstep grid (interpolated), 0 at the accepted
                                     steps and located events, with rows added inside long steps */
    int last_row;      /* 1: the tstep grid (fixed steps, interp) ends with a row at tstop
                                     when its last point falls short of it, as ngspice writes its final
                                     point (nsc_grid_time; the steady state's grid has none) */
    nsc_waves **steps; /* if set (fixed steps, or adaptive with interp): a new table of the
                                     accepted steps (all columns, from tstart), what .meas reads */
    double theta;      /* 0.5 .. 1 */
    int adaptive;      /* 1: error-controlled steps with located events (stepper_adapt.c) */
    int exact;         /* with adaptive: the flow of each mode where it applies (stepper_exact.c) */
    int pair_mean;     /* with adaptive: the pairs whose multipliers enter theta rows held at
                                     the theta point (nsc_onestep_opts.mean; the steady state's runs) */
    double reltol, abstol, vntol, trtol; /* adaptive: SPICE tolerances (all > 0) */
    double chgtol; /* adaptive: the charge error allowed a continuous kink (C) */
    int standin;   /* adaptive: the theta-scheme stands in for the exact flow, which smooth
                      elements keep out: its guards (stepper_adapt.c, Stand-in) */
    int events;    /* adaptive: log every state change in W->ev (--events) */
    double gmin;
    int uic;
    nsc_solver solver;
    volatile sig_atomic_t *stop; /* set non-zero asynchronously to stop (may be NULL) */
    void (*progress)(double t,
                     void *ctx); /* if set: called with the time reached every 1000 steps */
    void *progress_ctx;
    void (*rows)(const nsc_waves *W,
                 void *ctx); /* if set: called after each step that added rows */
    void *rows_ctx;
    nsc_losses
        *losses;   /* if set: every element's energy over [tstart, the time reached] (losses.h) */
    long mem_rows; /* > 0: rows of the table kept in memory at most, the earlier ones
                                     in a temporary file beside spill_near (nsc_waves_spill) */
    const char *spill_near;
    nsc_report *refit;        /* if set: a complete run's fits that follow the run and were left
                                     are remade (nsc_dev_refit, notes into *refit: none, nothing
                                     changed) instead of warned about (nsc_dev_check) */
    int refit_early;          /* with refit: the exact transient may stop the pass once its
                                     fits were left and its peaks stopped rising (stepper_exact.c
                                     fits_watch); the fits are remade on the peaks so far */
    void (*rerun)(void *ctx); /* if set: called before nsc_run_analysis repeats the run with
                                     remade fits; the rows handed to rows before are void */
    void *rerun_ctx;
} nsc_tran_opts;

typedef struct nsc_sim_stats {
    long steps;         /* time steps taken (accepted: each advanced time) */
    long rejected;      /* adaptive: trial steps rejected (local error, solver failure) */
    long events;        /* adaptive: switching events located (a step ended on each) */
    long locate_trials; /* adaptive: trial steps spent locating events */
    long captured; /* adaptive: mode changes captured inside a step (chattering, not located) */
    double hmin_used, hmax_used; /* adaptive: smallest and largest accepted step */
    long short_steps;            /* steps shortened to end on a breakpoint */
    long mode_hits;              /* steps solved by the previous step's mode (no pivoting) */
    long active_set;    /* steps solved by the active-set iteration from the previous mode */
    long lcps;          /* one-step LCPs solved by pivoting */
    long pivots;        /* solver iterations */
    int factorizations; /* W factored (one per distinct h and switch state met) */
    long switch_events; /* switch state changes (S elements) */
    long mode_factor;   /* mode systems factored (built, or refactored in a recycled slot) */
    long mode_cached;   /* mode systems found factored in the mode cache */
    int n, m;           /* unknowns, complementarity pairs */
    double max_residual;
    long
        nl_solves; /* one-step problems solved by Newton (smooth B-source functions, onestep_nl.c) */
    long nl_iters;  /* their Newton iterations in all (each a linear complementarity solve) */
    long nl_fails;  /* of them, not converged (the step retried shorter, or the run's error) */
    int nl_maxit;   /* the most iterations one problem took */
    long nl_chords; /* of the iterations, those on the last relinearisation's slopes and
                      factors (onestep_nl.h NSC_NL_CHORD) */
    int exact;      /* 1: the exact transient ran (stepper_exact.c); 2: it handed over to the
                            adaptive one at exact_until */
    double exact_until;
    long flows; /* exact: the modes' flows built */
    long kinks; /* exact: continuous kinks crossed without an event step (stepper_exact.c kink) */
    long bracket_trials; /* exact: trial points whose guards kink checked bracketing a change */
    double refit_stop;   /* exact, nsc_tran_opts.refit_early: > 0 the time the pass stopped at, its
                            fits remade on the peaks so far (the run is made again) */
    int passes;          /* the transient's passes before this one (run.c: fits remade after
                            each), */
    int passes_early;    /* those stopped early (refit_stop), */
    double passes_time;  /* and the time they simulated (s) */
} nsc_sim_stats;

/* Transient: probes (n > 0) define the columns. Returns NSC_OK with a complete
 * table, NSC_ESIM on solver failure (table holds every output point computed,
 * W->end/end_msg say why; r has "time ..., devices ..., residual ..."), or a
 * netlist/assembly error. *out is set whenever a table exists. */
nsc_status nsc_stepper_tran(const nsc_circuit *c, const nsc_tran_opts *o, const nsc_probe *probes,
                            int nprobe, nsc_waves **out, nsc_sim_stats *st, nsc_report *r);

/* Periodic steady state (stepper_pss.c): the sources' common period (or
 * period), a warm-up transient from the operating point, then shooting-Newton
 * with the monodromy matrix propagated through the steps; the table holds
 * `periods` steady periods from info->t0, a multiple of the period (a row's t
 * mod T is its phase). NSC_ESIM with what did not converge in r. */
/* A steady state handed from one run to the next (a sweep's neighbouring
 * point): the unknowns, multipliers and switch states at the start of a period. */
typedef struct nsc_pss_state {
    int n, m, nsw;
    double period;
    double *z, *l; /* [n], [m] */
    char *sw;      /* [nsw] */
    int nd;        /* differential unknowns */
    double *B;     /* [nd * nd] the shooting's secant correction (the saltation terms
                          that J lacks, nsc_tran_io.ev_frozen; stepper_pss.c) */
} nsc_pss_state;
void nsc_pss_state_free(nsc_pss_state *x);

/* The shortest period: its steps, T/50 down to 1e-9 of that, keep products of
 * three step sizes (error control, the rows' interpolation) above DBL_MIN;
 * --period 1e-300 wrote rows of NaN. */
#define NSC_PERIOD_MIN 1e-90

typedef struct nsc_pss_opts {
    double period; /* > 0: the period (>= NSC_PERIOD_MIN); 0: the sources' common period */
    int periods;   /* periods written (>= 1) */
    int warmup;    /* periods of transient before the shooting (>= 1) */
    int maxit;     /* shooting periods at most */
    double tol;    /* cycle-to-cycle change, relative to each state's peak-to-peak */
    const nsc_pss_state *start; /* if set, of this circuit's layout and period: the warm-up is
                                   one period from it (where the sources repeat), not
                                   `warmup` periods from the operating point */
    nsc_pss_state *end;         /* if set: the steady state found (replacing its arrays) */
    struct nsc_pac *pac;        /* if set: the periodic AC (pac.h) instead of the written
                                   periods: one period per batch of frequencies from the
                                   steady state (nsc_run_pac) */
} nsc_pss_opts;

typedef struct nsc_pss_info {
    double period, t0; /* the period, the start of the written periods */
    int iterations;    /* shooting periods run */
    int warm;          /* 1: started from nsc_pss_opts.start */
    long periods_run;  /* periods simulated in all (warm-up, shooting, written) */
    double residual;   /* the written periods' cycle-to-cycle change (relative, worst state) */
    int worst;         /* that state's unknown */
    char worst_name[64];
    int floquet;         /* 1: the Floquet multipliers below were computed (0: a step's
                              sensitivity failed in the last shooting period) */
    double mu_re, mu_im; /* the multiplier of largest modulus: an eigenvalue of the monodromy
                              matrix dPhi/dx at the solution (stepper_pss.c) */
    double mu_abs;       /* its modulus: the orbit is stable when < 1 */
    int nmu_out;         /* multipliers outside the unit circle (|mu| > 1 + NSC_PSS_MU_TOL,
                              stepper_pss.c): the run then fails with NSC_ESIM */
} nsc_pss_info;

nsc_status nsc_run_pss(const nsc_circuit *c, const nsc_tran_opts *o, const nsc_pss_opts *po,
                       const nsc_probe *probes, int nprobe, nsc_waves **out, nsc_sim_stats *st,
                       nsc_pss_info *info, nsc_report *r);

/* Passes of an analysis whose fits follow the run: the first, then at most
 * NSC_REFITS - 1 more after remaking the fits it left (run.c, nsc_op_fits). */
#define NSC_REFITS 3
/* The passes of every .op and transient (stepper.c nsc_stepper_op, run.c
 * run_tran_fitted): an LM741-like op-amp's default fits settle in 4..7 passes
 * (within 0.016 V of ngspice in 8). Until session 20 only an .op whose point
 * took gmin stepping, or a transient after a failed pass, had them, and Lemke's
 * method failing on 1/gmin-scaled problems was what granted them to the LM741
 * op-amps. No other run takes more than NSC_REFITS. */
#define NSC_REFITS_GSTEP 8
/* Passes the exact transient may stop early (nsc_tran_opts.refit_early), each
 * besides the NSC_REFITS (or NSC_REFITS_GSTEP) a run may make. */
#define NSC_REFITS_EARLY 4

/* An analysis made again while its fits follow the run: pass(ctx, notes,
 * &again, r) until it does not ask again (again set: it remade fits, a note
 * each into *notes, and dropped its results); notes is NULL on the last of
 * the NSC_REFITS passes (no refit then: the devices' warnings instead, as
 * nsc_op_fits does with it). Each repeated pass's warnings are replaced by its
 * notes. Returns the last pass's status. */
typedef nsc_status (*nsc_fit_pass)(void *ctx, nsc_report *notes, int *again, nsc_report *r);
nsc_status nsc_fitted(nsc_fit_pass pass, void *ctx, nsc_report *r);
/* nsc_fitted with *npass passes in place of NSC_REFITS, read before each pass.
 * A pass may raise it through its ctx (run.c tran_fit_pass: one more for each
 * pass the exact transient stopped early); one
 * that raises it on what was its last pass (notes NULL) asks again, keeping
 * nothing, and is made again with notes. */
nsc_status nsc_fitted_n(nsc_fit_pass pass, void *ctx, int *npass, nsc_report *r);

/* Operating point: a one-row table of the probes (nprobe > 0: "v(a)", "i(d1)", ...;
 * a capacitor carries no current), else of every unknown ("v(a)", "i(v1)", ...) and
 * every pair's complementarity variable ("l(d1)"). Junction fits that the
 * point leaves are remade and the point found again (nsc_op_fits); a note each. */
nsc_status nsc_stepper_op(const nsc_circuit *c, double gmin, nsc_solver solver,
                          const nsc_probe *probes, int nprobe, nsc_waves **out, nsc_report *r);

#endif
