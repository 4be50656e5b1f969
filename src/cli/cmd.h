/* cmd.h -- subcommands of the nscircuit program (not part of the library). */
#ifndef NSC_CMD_H
#define NSC_CMD_H

#include "analysis/sweep.h"
#include "base/path.h"

#include <getopt.h>

/* An option value: a finite SPICE number with scale suffix ("50p", "1meg").
 * Returns 1 and sets *v, else 0. */
int nsc_opt_number(const char *s, double *v);
void nsc_heap_hugepages(void); /* the process heap in transparent huge pages (cmd_util.c) */

/* The options of one run, one table for the program (main.c) and `nscircuit
 * sweep` (cmd_sweep.c): --step --tstop --theta --solver --save --steady
 * --period, into an nsc_run_cfg. NSC_RUN_LONGOPTS are their getopt_long
 * entries (a command lists them among its own, whose codes stay below
 * NSC_RUNOPT_FIRST); nsc_run_option reads the one of code c. */
enum {
    NSC_RUNOPT_FIRST = 1024,
    NSC_RUNOPT_STEP = NSC_RUNOPT_FIRST,
    NSC_RUNOPT_TSTOP,
    NSC_RUNOPT_THETA,
    NSC_RUNOPT_SOLVER,
    NSC_RUNOPT_SAVE,
    NSC_RUNOPT_STEADY,
    NSC_RUNOPT_PERIOD,
    NSC_RUNOPT_END
};
#define NSC_RUN_LONGOPTS \
    { "step", required_argument, 0, NSC_RUNOPT_STEP }, \
        { "tstop", required_argument, 0, NSC_RUNOPT_TSTOP }, \
        { "theta", required_argument, 0, NSC_RUNOPT_THETA }, \
        { "solver", required_argument, 0, NSC_RUNOPT_SOLVER }, \
        { "save", required_argument, 0, NSC_RUNOPT_SAVE }, \
        { "steady", no_argument, 0, NSC_RUNOPT_STEADY }, \
    { \
        "period", required_argument, 0, NSC_RUNOPT_PERIOD \
    }
/* Run option c (NSC_RUNOPT_FIRST <= c < NSC_RUNOPT_END) with its argument arg
 * (pointed to by cfg, not copied) into cfg: -1 to go on, else the exit status
 * of a usage error, printed as cmd's (nsc_usage_error). */
int nsc_run_option(nsc_run_cfg *cfg, int c, const char *arg, const char *cmd);
/* "CMD: error: " fmt (with one string argument) and "Try 'CMD --help'." on
 * stderr; returns 2, the exit status of a usage error. */
int nsc_usage_error(const char *cmd, const char *fmt, const char *arg);
/* The report's warnings, then its error, one line each on stderr. */
void nsc_print_report(const nsc_report *r);
/* Print r's warnings and notes now (--quiet: the notes are dropped), then forget
 * them, so they come before the run's summary and are never repeated. */
void nsc_flush_warnings(nsc_report *r, int quiet);
/* NSC_OK, or NSC_EOUT (exit 4, cli.md) in r when what was printed on stdout
 * could not be written (a full disk, a closed pipe): stdout is flushed. */
nsc_status nsc_stdout_status(nsc_report *r);

/* The include search path of a run: the -I directories given to
 * nsc_search_add in order, then $NSCIRCUIT_PATH (colon-separated), then the
 * installed models directory (NSC_MODELDIR). */
typedef struct nsc_search_buf {
    nsc_search_path path; /* dir points into cli[] / env */
    const char **dirs;
    int ncli;
    char *env; /* copy of $NSCIRCUIT_PATH, split in place */
} nsc_search_buf;
/* Add a -I directory; 0 or -1 out of memory. */
int nsc_search_add(nsc_search_buf *b, const char *dir);
/* Append the environment, the source tree's models/ (a build-tree program), and the models directory; returns &b->path or NULL
 * out of memory. */
const nsc_search_path *nsc_search_finish(nsc_search_buf *b);
void nsc_search_free(nsc_search_buf *b);

/* `nscircuit compare OURS REFERENCE [options]`: argv[0] is "compare". Prints the
 * comparison on stdout; returns the exit status: 0 every signal within --tol,
 * 1 some signal is not, 2 usage error / unreadable file / nothing to compare. */
int nsc_cmd_compare(int argc, char **argv);

/* The usage text of `nscircuit compare` (also in `nscircuit --help`). */
extern const char nsc_compare_usage[];

/* `nscircuit sweep NETLIST [--param ...] [options]` / `nscircuit sweep --merge
 * TABLE...` (cmd_sweep.c): argv[0] is "sweep". Returns the exit status: 0 every
 * point succeeded, 1 netlist error, 2 usage error or tables that do not merge,
 * 3 some point failed (its row says which). */
int nsc_cmd_sweep(int argc, char **argv);

/* The usage text of `nscircuit sweep` (also in `nscircuit --help`). */
extern const char nsc_sweep_usage[];

/* A parameter study of netlist (also run by `nscircuit circuit.cir` when the
 * netlist has .step cards). Returns the exit status as nsc_cmd_sweep. */
typedef struct nsc_sweep_args {
    const char *netlist;
    const nsc_deck *deck;       /* NULL, or netlist read already (nsc_deck_read): not read again */
    const char *prefix;         /* outputs PREFIX.sweep.dat ...; NULL: the netlist's name
                                   (circuit.shardKofN for a shard) in the current directory */
    nsc_run_cfg cfg;            /* --step --tstop --theta --solver --save */
    const nsc_param_set *fixed; /* --param NAME=VALUE, [nfixed] */
    int nfixed;
    char *const *range; /* --param NAME=START:STOP:N or NAME=V1,V2,..., [nrange] */
    int nrange;
    int logscale;         /* --log */
    int jobs;             /* -j; 0: the number of processors */
    int shard_k, shard_n; /* --shard K/N; shard_n = 0: the whole study */
    int csv, keep_waves, noplot, stats, quiet, progress;
    int yes;              /* --yes: run more than NSC_SWEEP_CONFIRM points */
    int cold;             /* --cold: steady points not warm-started from a neighbour */
    double point_timeout; /* --point-timeout S; 0: none */
} nsc_sweep_args;

/* A study (or shard) of more points than this needs --yes. */
#define NSC_SWEEP_CONFIRM 10000
int nsc_sweep(const nsc_sweep_args *a);

/* The .ac and .dc analyses of the program's run (cmd_small.c, issue 29): their
 * files (cli.md), the .meas ac results on stdout and in STEM[.ac].meas. */
#include "output/out.h"
typedef struct nsc_small_args {
    const char *netlist, *outpath, *save;
    nsc_format fmt;
    int plot, quiet;
    int several; /* other analyses write files too: STEM.ac.*, STEM.dc.* */
    int tran;    /* a transient or steady state runs after them */
} nsc_small_args;
/* The analyses of R (set up: nsc_run_setup) nsc_analyses[NSC_AN_AC] and
 * [NSC_AN_DC] that it asks for, each run then written (around the steady
 * state when R is one: nsc_run_pac). */
nsc_status nsc_cli_small(const nsc_small_args *a, nsc_run *R, nsc_report *r);
/* A raw run with several analyses: the plots (the transient's file tran, its
 * card at tran_line, when not NULL; STEM.ac.raw, STEM.dc.raw) one after the
 * other in the netlist's order into the output file (cli.md), the AC and DC
 * files then removed. */
nsc_status nsc_cli_raw_merge(const nsc_small_args *a, const nsc_circuit *c, const char *tran,
                             int tran_line, nsc_report *r);
/* The .four cards on the rows W of the transient or steady state: ngspice's
 * tables on stdout and in STEM.four (out: the run's output file). */
nsc_status nsc_cli_four(const nsc_circuit *c, const nsc_waves *W, const char *out, nsc_report *r);

#endif
