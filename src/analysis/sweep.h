/* sweep.h -- parameter studies (cli.md "Parameter studies").
 *
 * A study is a plan: axes (a top-level .param and its values), whose Cartesian
 * product are the points, axis 0 varying fastest:
 *     point i  <->  (i_0, i_1, ...),  i = i_0 + n_0 (i_1 + n_1 (i_2 + ...)).
 * One point is a whole run of the netlist with the point's values as --param
 * overrides: read and elaborate, transient, .meas cards; its result is a row of
 * the table (the parameters, the measures, the point's status and index).
 * A shard K/N of a study holds the points i with i mod N = K - 1; merging the
 * tables of shards 1..N gives the table of the whole study, row for row.
 *
 * A point takes the path of the program's own run (run.h), from the deck the
 * study read once (netlist.h, nsc_deck): later changes to the files do not
 * reach the points.
 *
 * Nothing here keeps global state: points may run concurrently in threads or
 * processes (the program forks one process per point). */
#ifndef NSC_SWEEP_H
#define NSC_SWEEP_H

#include "circuit/circuit.h"
#include "netlist/netlist.h"
#include "run.h"
#include "stepper.h"
#include "output/out_sweep.h"

/* ---- the plan ---- */

#define NSC_SWEEP_MAXPOINTS 1000000000L

typedef struct nsc_axis {
    char *name;  /* the .param, lower case */
    double *val; /* [n] its values, in sweep order */
    int n;
    int logscale; /* 1: geometric values (plots use a log axis) */
} nsc_axis;

typedef struct nsc_plan {
    nsc_axis *axis; /* [naxis], axis 0 varies fastest */
    int naxis;
    long npoint; /* prod of axis[k].n (1 when naxis = 0) */
} nsc_plan;

/* Zero a plan before use; free its contents. */
void nsc_plan_init(nsc_plan *p);
void nsc_plan_free(nsc_plan *p);

/* Axis name = val[0..n) (copied, n >= 1): replaces the values of the axis of that
 * name, keeping its place, else appends an axis. NSC_EUSAGE when the study would
 * exceed NSC_SWEEP_MAXPOINTS points. */
nsc_status nsc_plan_set(nsc_plan *p, const char *name, const double *val, int n, int logscale,
                        nsc_report *r);

/* One axis per .step card of c, in card order. Each must name a top-level
 * .param of c (NSC_ENETLIST at the card otherwise). */
nsc_status nsc_plan_steps(nsc_plan *p, const nsc_circuit *c, nsc_report *r);

/* Whether name is a top-level .param of c. */
int nsc_circuit_has_param(const nsc_circuit *c, const char *name);

/* A --param of `nscircuit sweep`: "NAME=START:STOP:N" (N >= 1 values from START
 * to STOP, evenly spaced, or geometrically with logscale, which needs START, STOP
 * of one sign, not 0), "NAME=V1,V2,..." (a list) or "NAME=V" (one value).
 * Numbers take SPICE suffixes. *name (lower case) and *val are new (free them);
 * *n values. NSC_EUSAGE naming text when it is none of these. */
nsc_status nsc_param_spec(const char *text, int logscale, char **name, double **val, int *n,
                          nsc_report *r);

/* v[k] = value of axis k at point i (0 <= i < p->npoint). */
void nsc_plan_point(const nsc_plan *p, long i, double *v);

/* "K/N" with 1 <= K <= N: 1 and *k, *n set, else 0. */
int nsc_shard_parse(const char *text, int *k, int *n);
/* Whether point i belongs to shard k of n (i mod n = k - 1). */
int nsc_shard_has(long i, int k, int n);

/* ---- one point ---- */

typedef struct nsc_point_info {
    nsc_sim_stats st; /* the transient's statistics */
    double t_parse;   /* seconds: elaborate the deck */
    double t_run;     /* seconds: the transient, its assembly and factorisations included */
    double t_meas;    /* seconds: .meas evaluation (and the waveform file) */
    double t_setup;   /* with profile: seconds of the assembly of the LCS and of the
                          first one-step problems (static and regular step: W analysed
                          and factored by KLU), timed apart: the part of t_run a reuse
                          across points could save */
} nsc_point_info;

/* A point run as a periodic steady state (nsc_run_steady): its warm start and
 * what it hands back besides the measures. */
typedef struct nsc_point_steady {
    const nsc_pss_state *start; /* NULL, or the neighbouring point's steady state */
    nsc_pss_state end;          /* out: the steady state found (arrays malloc'd) */
    double efficiency, losses;  /* out: load / (input + switching), and input + switching - load
                                     (W) over the steady period (losses.h; NAN if not found) */
    int iterations, warm;       /* out: shooting periods, 1 when started from start */
    double mu_abs;              /* out: the largest Floquet multiplier's modulus (nsc_pss_info;
                                     NAN when not computed) */
} nsc_point_steady;

/* One point: elaborate deck with the overrides ov[0..nov) (later entries win), run
 * its transient under cfg, evaluate its .meas cards: meas[k] = value of the k-th
 * card, NAN when it failed (a warning in r says why) or the run did not
 * complete; the .meas ac cards follow the .meas tran ones, evaluated on the
 * .ac sweep at the point's operating point or, for a steady point, around its
 * steady state (nsc_acmeas_run; a netlist with .ac and .meas ac needs no
 * transient). The netlist must have nmeas .meas cards of both kinds. With wavepath, the outputs
 * (cfg->save, .save, defaults) are recorded and written there (.dat); without, only
 * the quantities the .meas cards read are. stop may be NULL (see nsc_tran_opts).
 * Returns the run's status: NSC_OK, NSC_ENETLIST / NSC_EIO (netlist), NSC_ESIM
 * (solver failure), NSC_ENOMEM; the message is in r. A steady point (a .pss card
 * or cfg->steady) runs nsc_run_pss instead of the transient, its .meas over the
 * steady period (nsc_meas_steady_windows), and fills ps when given. */
nsc_status nsc_point_run(const nsc_deck *deck, const nsc_param_set *ov, int nov,
                         const nsc_run_cfg *cfg, int nmeas, double *meas, const char *wavepath,
                         int profile, volatile sig_atomic_t *stop, nsc_point_steady *ps,
                         nsc_point_info *info, nsc_report *r);

/* ---- the table ---- */

/* nsc_sweep_table: output/out_sweep.h (the writers take it as plain data). */

/* An empty table: columns par[0..npar) then meas[0..nmeas) (copied). */
nsc_status nsc_sweep_table_init(nsc_sweep_table *T, char *const *par, int npar, char *const *meas,
                                int nmeas, const char *netlist, long npoint, int shard_k,
                                int shard_n, nsc_report *r);
/* Append a row: values [npar + nmeas], status, point. */
nsc_status nsc_sweep_table_add(nsc_sweep_table *T, const double *v, int status, long point,
                               nsc_report *r);
void nsc_sweep_table_free(nsc_sweep_table *T);
/* Sort the rows by point index. */
void nsc_sweep_table_sort(nsc_sweep_table *T);

/* A study's identity: FNV-1a (64 bits, hex) over the bytes of files[0..nfiles)
 * (the netlist and every file it included, as found: shards run with other -I
 * directories or NSCIRCUIT_PATH differ when what they included differs) and
 * the words that define the study (overrides, the plan's values as numbers,
 * run options; not the shard), so shards of different studies with the same
 * columns are told apart. NULL when a file cannot be read (the identity is
 * then left out). */
char *nsc_study_id(char *const *files, int nfiles, char *const *words, int nwords);

/* Write T to path (atomically): .dat layout, or CSV when csv. */
nsc_status nsc_sweep_write(const nsc_sweep_table *T, const char *path, int csv, nsc_report *r);
/* Read a .dat table written by nsc_sweep_write (NSC_EIO: unreadable; NSC_EUSAGE:
 * not such a table, naming path and line). T is new. */
nsc_status nsc_sweep_read(const char *path, nsc_sweep_table *T, nsc_report *r);

/* The whole study from the tables of its shards: same columns and point count
 * (the netlist names may differ: the first is kept), the same study identity
 * when the tables have one, none interrupted, every point 0..npoint-1 exactly
 * once; rows sorted by point. NSC_EUSAGE naming the file and the point
 * otherwise. out is new. */
nsc_status nsc_sweep_merge(const nsc_sweep_table *part, char *const *path, int npart,
                           nsc_sweep_table *out, nsc_report *r);

/* ---- units of the columns (sweep_units.c), for the picture ----
 * A unit is a string: "V", "A", "W", "Ω", "F", "H", "s", "Hz", "S", "m", "J",
 * "V·s", "A·s", "1" (dimensionless), or "" (unknown). */

/* What parameter name of c sets: c elaborated again (from deck, ov[0..nov) as
 * c was) with name at another value (1.25 times its own, 1 for 0); the fields that
 * change name the unit: an R's (or H's) value Ω, a C's F, an L's H, a V source's
 * level V (its times s, a SIN's frequency Hz), an I source's A, an E TABLE's V,
 * a MOS W/L m, IC= V or A, .tran times s; E/F gains and K "1"; a model card's
 * RON ROFF RS RD RG RB RDS Ω, VT VH VF VTO VON VOFF BV VREF V, IT IH IS ION IOFF
 * IREF IMIN IMAX A, EON EOFF J, TT s. Fields of several units, another model
 * parameter, or a netlist that does not read: "". */
const char *nsc_param_unit(const nsc_deck *deck, const nsc_param_set *ov, int nov,
                           const nsc_circuit *c, const char *name);
/* The unit of .meas card k of c from its quantity: v() V, i() A, and through
 * + - (same units; a bare number takes the other's) * / (products: V*A is W,
 * V/A Ω, V/V "1") abs min max floor ceil; AVG RMS MIN MAX PP FIND PARAM: that
 * unit, INTEG: times s; WHEN, TRIG/TARG, MIN_AT, MAX_AT: s. Else "". */
const char *nsc_meas_unit(const nsc_circuit *c, int k);
/* The unit of a .meas ac card: WHEN Hz; FIND, MAX, MIN of a vdb() dB, of a
 * vp() deg (phases in degrees, netlist.md); other parts "". */
const char *nsc_acmeas_unit(const nsc_acmeas *m);

#endif
