/* study.h -- a parameter study run (sweep.h: its plan, one point, its table):
 * each point in a process of its own, at most `jobs` at a time, the results
 * collected into the study's table.
 *
 * A point's process, forked, elaborates the deck the study read once with the
 * fixed overrides and the point's values, runs it (nsc_point_run, as the
 * program runs a netlist) and writes its result to a pipe (protocol below);
 * the calling process reads the pipes and makes the rows. A point that fails,
 * crashes or is killed only marks its own row (measures nan, status 3), so the
 * study always completes; the temporaries a killed point's waveform writer
 * left are removed. Rows do not depend on `jobs`: each point is computed
 * alone, from the deck, by the same code (a steady point's warm start from its
 * neighbour aside, which nsc_study.cold turns off).
 *
 * Result protocol (text, one item per line):
 *     nscircuit-point STATUS
 *     info T_PARSE T_RUN T_MEAS T_SETUP STEPS LCPS FACTORISATIONS
 *     m VALUE            (nmeas lines, C99 hex floats: exact)
 *     p ITERATIONS WARM MU           (a steady point: its shooting)
 *     s N M NSW PERIOD, sz .., sl .., sb ND .., ss DIGITS   (its steady state)
 *     w WARNING          (any number)
 *     e ERROR            (at most one)
 *     end
 *
 * Nothing here prints or exits (the points' own processes end with _exit): the
 * caller shows warnings, failures and progress through nsc_study_hooks, and
 * keeps the signals (a stop flag it sets). */
#ifndef NSC_STUDY_H
#define NSC_STUDY_H

#include <signal.h>

#include "sweep.h"

/* What a running study tells its caller (any hook may be NULL; ctx is passed
 * back). Called in the calling process, in the order the results arrive. */
typedef struct nsc_study_hooks {
    void *ctx;
    void (*warning)(void *ctx, long point, const char *text);        /* a warning of a point */
    void (*failed)(void *ctx, long point, const char *why);          /* a point failed: why */
    void (*progress)(void *ctx, long done, long total, long failed); /* after each wait */
} nsc_study_hooks;

/* A study: the caller sets deck, cfg, fixed, the hooks and the options, then
 * nsc_study_plan, nsc_study_columns (which fill the rest). */
typedef struct nsc_study {
    const nsc_deck *deck;       /* the netlist, read once: every point elaborates it */
    const nsc_run_cfg *cfg;     /* the run options of every point */
    const nsc_param_set *fixed; /* [nfixed] overrides of every point (the point's values win) */
    int nfixed;
    int logscale;         /* --log: geometric ranges */
    int cold;             /* steady points each from its own operating point */
    int profile;          /* time the parts of each point (nsc_point_info.t_setup) */
    double point_timeout; /* a point running longer (seconds) is killed; 0: never */
    nsc_study_hooks hooks;
    nsc_plan plan;   /* the points (nsc_study_plan) */
    int nmeas;       /* the columns after the parameters (nsc_study_columns): */
    char **meas;     /* [nmeas] .meas tran, .meas ac, then efficiency, losses when steady */
    int steady;      /* points run as periodic steady states */
    long *sel, nsel; /* [nsel] the points of this run (its shard's), increasing */
    nsc_pss_state
        *warm;     /* [nsel] steady: the state each finished point found, by position in sel */
    char *wavedir; /* NULL, or the directory of the points' waveforms (nsc_study_waves) */
    int wavewidth; /* digits of NNNN in wavedir/pNNNN.dat */
} nsc_study;

/* What the points of a run gave: the table and the sums over the points. */
typedef struct nsc_study_tally {
    nsc_sweep_table T; /* a row per finished point, in the order they finished */
    long failed;       /* rows of status != 0 */
    long nres;         /* points that reported their times: */
    double t_parse, t_run, t_meas, t_setup, steps; /* their sums (nsc_point_info) */
    long shoot, nwarm, nsteady; /* steady points: shooting periods, warm starts, points */
    double mu_max;              /* the largest Floquet multiplier's modulus over them */
} nsc_study_tally;

/* Zero S (nsc_plan_init); free what the study functions allocated (not deck,
 * cfg, fixed). */
void nsc_study_init(nsc_study *S);
void nsc_study_free(nsc_study *S);

/* S->plan from the .step cards of c, the ranges range[0..nrange) (nsc_param_spec,
 * each naming a top-level .param of c), then the fixed values of swept
 * parameters (one-value axes). NSC_EUSAGE when nothing is swept. */
nsc_status nsc_study_plan(nsc_study *S, const nsc_circuit *c, char *const *range, int nrange,
                          nsc_report *r);

/* The columns after the parameters (c's .meas cards; efficiency and losses when
 * the points are steady states, nsc_run_steady) and the points of shard k of n
 * (1 of 1: the whole study). NSC_ENOMEM or NSC_OK. */
nsc_status nsc_study_columns(nsc_study *S, const nsc_circuit *c, int shard_k, int shard_n,
                             nsc_report *r);

/* The points' waveforms to be written to dir/pNNNN.dat (dir copied; the
 * directory must exist). NSC_ENOMEM or NSC_OK. */
nsc_status nsc_study_waves(nsc_study *S, const char *dir, nsc_report *r);
/* dir/pNNNN.dat of point i (new), or NULL without waveforms (or out of memory). */
char *nsc_study_wave_path(const nsc_study *S, long i);

/* "point 3 (l1=5e-06, c1=2.2e-05)" (new; NULL out of memory). */
char *nsc_study_point_label(const nsc_study *S, long i);

/* The study's identity (nsc_study_id, new; NULL when a file cannot be read):
 * the deck's files, the fixed values, the plan's values, logscale, the run
 * options; not the shard (shards share their study). */
char *nsc_study_identity(const nsc_study *S);

/* The units of the table's columns (for the picture's labels): what each swept
 * parameter sets, what each .meas card of c measures, "1" and W for efficiency
 * and losses. New array (the strings static); NULL out of memory. */
const char **nsc_study_units(const nsc_study *S, const nsc_circuit *c);

/* The empty table of the run in C (its columns, the study's identity when
 * known), for shard k of n of a study of S->plan.npoint points. */
nsc_status nsc_study_tally_init(const nsc_study *S, nsc_study_tally *C, const char *netlist,
                                int shard_k, int shard_n, nsc_report *r);
void nsc_study_tally_free(nsc_study_tally *C);

/* Run the points S->sel[0..nsel), at most jobs processes at once, each row into
 * C->T (a failed point's row too). Stops, killing the running points, when
 * *stop becomes nonzero (stop may be NULL): C then holds the finished points.
 * NSC_ESIM when no process can be started, NSC_ENOMEM; else NSC_OK. */
nsc_status nsc_study_run(nsc_study *S, nsc_study_tally *C, int jobs, volatile sig_atomic_t *stop,
                         nsc_report *r);

#endif
