/* waves.h -- the output table: time plus one column per probe, filled by the
 * stepper and handed to the writers (out_*.c). Plain data. */
#ifndef NSC_WAVES_H
#define NSC_WAVES_H

#include "netlist/circuit.h"

typedef enum nsc_run_end {
    NSC_RUN_COMPLETE = 0,
    NSC_RUN_FAILED,       /* solver failure: rows up to the last computed output point */
    NSC_RUN_INTERRUPTED   /* stop flag raised (SIGINT/SIGTERM) */
} nsc_run_end;

typedef struct nsc_waves {
    int ncol;          /* columns including time (column 0) */
    char **name;       /* [ncol] "time", "v(a)", ... (lower case) */
    int nrow, caprow;
    double *v;         /* row-major [nrow * ncol] */
    nsc_run_end end;
    double t_end;      /* last time reached by the stepper */
    char *end_msg;     /* why the run ended early, or NULL */
    char *title;       /* circuit title */
    int nev, capev;    /* the state changes of the run (nsc_tran_opts.events), in time order */
    struct nsc_event { double t; char *dev; int on; } *ev;   /* dev: "d1", "m1#3", "s1" (owned) */
} nsc_waves;

/* New empty table with columns "time" + names[0..n-1] (copied). NULL on ENOMEM. */
nsc_waves *nsc_waves_new(char *const *names, int n, const char *title);
/* Append one row (ncol values). 0 ok, -1 ENOMEM. */
int nsc_waves_add(nsc_waves *W, const double *row);
void nsc_waves_free(nsc_waves *W);
/* Append a state change: at t, dev's pair became active (on = 1: a diode
 * conducts, a switch is on) or inactive. 0 ok, -1 ENOMEM. */
int nsc_waves_event(nsc_waves *W, double t, const char *dev, int on);
/* Room for rows rows (no growth while filling them); large tables are asked to use
 * the kernel's 2 MiB pages. Unchanged when out of memory. */
void nsc_waves_reserve(nsc_waves *W, long rows);
/* Keep columns 0 .. ncol-1 (time and the first ncol - 1 signals), in place. */
void nsc_waves_keep(nsc_waves *W, int ncol);
/* A new table of W's time and columns cols[0..n) (n = 0: every column), rows
 * and run end copied; NULL out of memory. */
nsc_waves *nsc_waves_select(const nsc_waves *W, const int *cols, int n);
/* Column index by name, case-insensitive; -1 if absent. */
int nsc_waves_col(const nsc_waves *W, const char *name);

/* Parse an output list such as "v(out),v(a,b),i(l1)" (commas inside parentheses
 * belong to the probe) into probes of circuit c. Errors name the bad item.
 * *probes is malloc'd (free each name then the array with nsc_probes_free). */
nsc_status nsc_probes_parse(const nsc_circuit *c, const char *list, nsc_probe **probes,
                            int *n, nsc_report *r);
/* The default outputs of cli.md: every node voltage, then the current of every
 * inductor, voltage source and diode. */
nsc_status nsc_probes_default(const nsc_circuit *c, nsc_probe **probes, int *n, nsc_report *r);
void nsc_probes_free(nsc_probe *p, int n);

#endif
