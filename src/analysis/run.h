/* run.h -- one run of a netlist: netlist -> circuit -> settings -> columns ->
 * analysis (transient or periodic steady state) -> .meas.
 *
 * The one run path of the program (main.c adds .op, --dump-lcs and its files
 * around it) and of a point of a parameter study (sweep.h, nsc_point_run): each
 * calls the steps below in this order, so both read the same settings, record
 * the same columns and evaluate the .meas cards the same way:
 *     nsc_run_circuit   the deck elaborated with the overrides
 *     nsc_run_setup     the settings (nsc_run_opts, steady state or not)
 *     nsc_run_check     the analysis the caller runs is there
 *     nsc_run_columns   the probes recorded
 *     nsc_run_analysis  the transient or the steady state -> R->W
 *     nsc_run_measure   the .meas cards on R->W -> R->mres
 *     nsc_run_control   the .control blocks' outputs (the program's runs)
 *     nsc_run_meas_print, an analysis' print (nsc_analyses): what a run shows
 * Nothing here prints on its own: errors and warnings go to the report; what a
 * run shows (the operating point, the .meas results, a .control print) to the
 * stream its caller gives (run_report.c, run_control.c). */
#ifndef NSC_RUN_H
#define NSC_RUN_H

#include <stdio.h>

#include "circuit/circuit.h"
#include "netlist/netlist.h"
#include "analysis/meas.h"
#include "stepper.h"
#include "analysis/smallsig.h"

/* Command-line overrides of a run (0 / NULL: the netlist's). */
typedef struct nsc_run_cfg {
    double step;                /* > 0: scheme step h (else .tran tmax, else tstep) */
    double tstop;               /* > 0: final time (also runs a transient without .tran) */
    double theta;               /* > 0: theta (else .options theta, else 0.5) */
    const char *solver;         /* "auto" | "lemke" | "enum" (else .options solver) */
    const char *save;           /* outputs "v(out),i(l1)" (else .save/.print, else the defaults) */
    const nsc_search_path *inc; /* include search path (-I, NSCIRCUIT_PATH, models dir) */
    int steady;    /* 1: the periodic steady state (--steady; a .pss card also asks for it) */
    double period; /* > 0: its period (--period) */
    int raw;       /* 1: the outputs are a raw file, which holds every vector (as ngspice's):
                          .ac and .dc record the default probes besides the asked ones */
} nsc_run_cfg;

/* o = the settings of the runs of c under cfg: theta, solver, gmin, uic and,
 * when c has a transient (.tran or cfg->tstop > 0), its grid (tstart, tstep,
 * tstop, h); o->tstop = 0 when it has none. o->stop/progress are NULL.
 * Errors (NSC_ENETLIST, at the netlist's first line or the .tran card): theta
 * outside [0.5, 1], unknown .options solver, tstart >= tstop, more than 2e9
 * steps; NSC_EUSAGE for an unknown cfg->solver. */
nsc_status nsc_run_opts(const nsc_circuit *c, const nsc_run_cfg *cfg, nsc_tran_opts *o,
                        nsc_report *r);

/* Whether c runs as a periodic steady state under cfg, and its settings: the
 * .pss card's, cfg->period over its period=, the defaults of cli.md. */
int nsc_run_steady(const nsc_circuit *c, const nsc_run_cfg *cfg);
nsc_pss_opts nsc_run_pss_opts(const nsc_circuit *c, const nsc_run_cfg *cfg);

/* The columns of a transient of c: the outputs (save, else .save/.print, else
 * nsc_waves_probes_default), *nout of them, then the probes the .meas cards read that
 * are not outputs; *n in all. *probes is new (nsc_waves_probes_free(*probes, *n)). */
nsc_status nsc_run_probes(const nsc_circuit *c, const char *save, nsc_probe **probes, int *n,
                          int *nout, nsc_report *r);

/* Whether c under cfg (settings o) has the analysis its caller runs. with_op
 * (the program, which also runs .op): a .tran, .op or .pss card or cfg->tstop,
 * else NSC_ENETLIST "no analysis"; without (a point of a study): a transient or
 * steady state (o->tstop > 0), else NSC_ENETLIST "no transient analysis". */
nsc_status nsc_run_check(const nsc_circuit *c, const nsc_run_cfg *cfg, const nsc_tran_opts *o,
                         int with_op, nsc_report *r);

/* Exit status of a run that ended with s (cli.md): 0, 1 netlist, 2 usage, 3 simulation, 4 output. */
int nsc_exit_status(nsc_status s);

/* One run: what each step fills in (owned by the run; nsc_run_free). */
typedef struct nsc_run {
    nsc_run_cfg cfg;
    nsc_circuit *c;    /* nsc_run_circuit (or given by the caller: then owned) */
    int steady;        /* nsc_run_setup: 1 periodic steady state, 0 transient */
    nsc_tran_opts o;   /* nsc_run_setup; the caller may set stop, progress, rows, losses, events */
    nsc_pss_opts po;   /* nsc_run_setup; the caller may set start, end */
    nsc_probe *probes; /* nsc_run_columns: [nprobe], the outputs first (nout of them) */
    int nprobe, nout;
    nsc_waves *W;  /* nsc_run_analysis: the rows (NULL if none) */
    nsc_waves *Wm; /* nsc_run_analysis: the accepted steps when the rows are not them
                                 (fixed steps, or adaptive with .options interp; with .meas cards), else NULL */
    nsc_sim_stats st;
    nsc_pss_info pinfo;    /* steady: what the shooting found */
    nsc_meas_result *mres; /* nsc_run_measure: [c->nmeas] or NULL */
    nsc_waves *op;         /* nsc_run_op: the operating point (one row), else NULL */
    nsc_probe *acp;        /* .ac (nsc_analyses[NSC_AN_AC]): its probes [nacp], the outputs first */
    int nacp, nacout;      /*   (nacout of them), */
    nsc_ac_result *ac;     /*   its result */
    nsc_probe *dcp;        /* .dc (nsc_analyses[NSC_AN_DC]): its probes [ndcp], */
    int ndcp;
    nsc_waves *dc;        /*   its rows (also those made before a sweep failed), else NULL */
    const nsc_deck *deck; /* nsc_run_circuit's deck and overrides (a .dc over a .param elaborates */
    const nsc_param_set *ov; /*   them again per value; they outlive the run), else NULL */
    int nov;
    int tran_npass; /* the transient's fit passes: NSC_REFITS_GSTEP (run.c tran_fit_pass), one
                                 more for each pass stopped early */
    int tran_passes, tran_early; /* the passes made so far, those stopped early, */
    double tran_time;            /* and the time they simulated */
} nsc_run;

/* The analyses a run may hold, one line each in nsc_analyses (run.c), in the
 * order the program runs them: its name, whether the run asks for it (once
 * nsc_run_setup has set R up), its handler, which leaves its results in R,
 * and, for one whose result is shown as text (.op), its print onto d->out
 * (else NULL: its files are the caller's). A new analysis is its file, its
 * card (nl_dot.c's table), its enum value and a line there. */
struct nsc_ctl_dest;
typedef enum nsc_analysis_id {
    NSC_AN_OP,
    NSC_AN_AC,
    NSC_AN_DC,
    NSC_AN_PSS,
    NSC_AN_TRAN,
    NSC_AN_N
} nsc_analysis_id;
typedef struct nsc_analysis {
    const char *name; /* "op", "ac", "dc", "pss", "tran" */
    int (*asked)(const nsc_run *R);
    nsc_status (*run)(nsc_run *R, nsc_report *r);
    nsc_status (*print)(const nsc_run *R, const struct nsc_ctl_dest *d, nsc_report *r);
} nsc_analysis;
extern const nsc_analysis nsc_analyses[NSC_AN_N];

/* Zero R; free what its steps made (R is zeroed again). */
void nsc_run_init(nsc_run *R);
void nsc_run_free(nsc_run *R);

/* R->c = the deck d (netlist.h) elaborated with the overrides ov[0..nov). */
nsc_status nsc_run_circuit(nsc_run *R, const nsc_deck *d, const nsc_param_set *ov, int nov,
                           nsc_report *r);

/* R->cfg = *cfg; R->o, R->po, R->steady for R->c (nsc_run_opts). A steady run's
 * .meas windows become the steady periods (nsc_meas_steady_windows, a note). */
nsc_status nsc_run_setup(nsc_run *R, const nsc_run_cfg *cfg, nsc_report *r);

/* The probes recorded: meas_only, the quantities the .meas cards read (when they
 * read any; R->nout = 0); else nsc_run_probes with R->cfg.save. */
nsc_status nsc_run_columns(nsc_run *R, int meas_only, nsc_report *r);

/* R->op = the operating point of R->c (nsc_stepper_op, .options gmin and solver):
 * the node voltages, then the currents of the V sources, inductors and diodes
 * (nsc_waves_probes_default). The .op line of nsc_analyses. */
nsc_status nsc_run_op(nsc_run *R, nsc_report *r);

/* The transient (nsc_stepper_tran) or the steady state (nsc_run_pss) of R->c under
 * R->o (and R->po), recording R->probes into R->W; the status of the run: the
 * tran or pss line of nsc_analyses, as R->steady says. */
nsc_status nsc_run_analysis(nsc_run *R, nsc_report *r);

/* The .meas cards of R->c on the accepted steps of a complete run (R->Wm, else
 * the rows R->W; else nothing is done):
 * R->mres[k] = card k's result; each card that failed is a warning in r
 * (".meas NAME failed: why"). NSC_ENOMEM, or the error of nsc_meas_eval. */
nsc_status nsc_run_measure(nsc_run *R, nsc_report *r);

/* Where the outputs of a run's .control blocks go (nsc_run_control). */
typedef struct nsc_ctl_dest {
    FILE *out;            /* print's .meas lines and tables */
    const char *out_name; /* out's name in an error ("standard output") */
    char *const *outs;    /* the run's own files [nouts]: never written */
    int nouts;
    const char *netlist; /* its path: its directory and the current one bound the writes */
    int safe;            /* 1 (--safe-control): a write outside them is refused; 0: a note */
} nsc_ctl_dest;

/* The outputs of R->c's .control blocks (wrdata, write, print) from the rows
 * R->W, whose columns hold their vectors (the first R->nout the run's
 * outputs), and the .meas results R->mres (NULL: none). A file that cannot be
 * written, or may not be (an input of the run, one of d->outs, outside the
 * bounds when d->safe), is a warning in r, as in ngspice, not a failed run; a
 * print that cannot reach d->out is NSC_EOUT in r (nsc_stream_status). */
nsc_status nsc_run_control(const nsc_run *R, const nsc_ctl_dest *d, nsc_report *r);
/* A run of c without a transient (.op, .ac, .dc alone): its .control outputs
 * are not written (they take a transient's rows); one warning in r for each,
 * naming it (before: nothing was said). */
void nsc_run_control_none(const nsc_circuit *c, nsc_report *r);

/* ---- what a run shows (run_report.c): on d->out (d->out_name in a message:
 * NSC_EOUT when it cannot be written), naming d->netlist ---- */

/* R->op: "operating point of NETLIST", then "  NAME = VALUE" a line (the .op
 * line's print in nsc_analyses). */
nsc_status nsc_run_op_print(const nsc_run *R, const nsc_ctl_dest *d, nsc_report *r);

/* The .meas results R->mres: "NAME = VALUE" (%.9e; "NAME = failed") on d->out,
 * and the same lines (%.12e) under a header written to path (atomically). */
nsc_status nsc_run_meas_print(const nsc_run *R, const nsc_ctl_dest *d, const char *path,
                              nsc_report *r);

/* The .meas ac cards of c on the AC result A (R->ac, or the periodic AC
 * around a steady state; nsc_acmeas_eval), shown as nsc_run_meas_print shows
 * .meas tran (phases in degrees); a failed one also a warning in r. */
nsc_status nsc_acmeas_print(const nsc_circuit *c, const nsc_ac_result *A, const nsc_ctl_dest *d,
                            const char *path, nsc_report *r);

#endif
