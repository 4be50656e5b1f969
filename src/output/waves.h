/* waves.h -- the output table: time plus one column per probe, filled by the
 * stepper and handed to the writers (out_*.c). Plain data.
 *
 * Bounded memory (nsc_waves_spill, waves_spill.c): a table may keep only its
 * last rows in memory, rows [row0, nrow) in v, the earlier ones in an unlinked
 * temporary file; they are read back, bit for bit, by nsc_waves_read,
 * nsc_waves_at and the row cursor (nsc_wcur). A table that never spilled has
 * row0 = 0: v holds every row. */
#ifndef NSC_WAVES_H
#define NSC_WAVES_H

#include "circuit/circuit.h"

typedef enum nsc_run_end {
    NSC_RUN_COMPLETE = 0,
    NSC_RUN_FAILED,     /* solver failure: rows up to the last computed output point */
    NSC_RUN_INTERRUPTED /* stop flag raised (SIGINT/SIGTERM) */
} nsc_run_end;

/* What a table's column 0 is, by its name (name[0]): "time" (a transient),
 * "frequency" (an AC analysis: magnitudes in dB, phases in degrees), anything
 * else a swept value (a DC sweep: "v-sweep", ngspice's "v(v-sweep)"). */
enum { NSC_SCALE_TIME, NSC_SCALE_FREQ, NSC_SCALE_SWEEP };

typedef struct nsc_waves {
    int ncol;             /* columns including time (column 0) */
    char **name;          /* [ncol] "time", "v(a)", ... (lower case) */
    int nrow, caprow;     /* rows in all; room in v, rows */
    double *v;            /* row-major [(nrow - row0) * ncol]: rows row0 .. nrow-1 */
    long row0;            /* rows before row0 are in the spill file (0 without one) */
    struct nsc_spill *sp; /* NULL: every row stays in memory */
    nsc_run_end end;
    double t_end;   /* last time reached by the stepper */
    char *end_msg;  /* why the run ended early, or NULL */
    char *title;    /* circuit title */
    int nev, capev; /* the state changes of the run (nsc_tran_opts.events), in time order */
    struct nsc_event {
        double t;
        char *dev;
        int on;
    } * ev; /* dev: "d1", "m1#3", "s1" (owned) */
} nsc_waves;

/* New empty table with columns "time" + names[0..n-1] (copied). NULL on ENOMEM. */
nsc_waves *nsc_waves_new(char *const *names, int n, const char *title);
/* Append one row (ncol values). 0 ok, -1 out of memory or the spill file could
 * not be written (nsc_waves_add_error says which). */
int nsc_waves_add(nsc_waves *W, const double *row);
/* Why the last nsc_waves_add failed, into r: NSC_EOUT naming the spill file and
 * the system's reason (disk full ...), else NSC_ENOMEM. */
nsc_status nsc_waves_add_error(const nsc_waves *W, nsc_report *r);

/* Keep at most max_rows (>= 1) rows in memory: when that many are held and a row
 * comes, they are appended to a temporary file created exclusively (mkstemp) on
 * the first such batch beside path (the output's name; NULL or not writable:
 * in $TMPDIR, else /tmp) and unlinked at once. No rows may be added after
 * nsc_waves_keep drops columns of a spilled table. 0, or -1 out of memory. */
int nsc_waves_spill(nsc_waves *W, long max_rows, const char *path);
/* S spills as W does (same bound, same place); 0, or -1 out of memory. */
int nsc_waves_spill_like(nsc_waves *S, const nsc_waves *W);
/* Rows [first, first + n) of W (ncol values each) into dst: 0, or -1 with errno
 * when the spill file cannot be read. */
int nsc_waves_read(const nsc_waves *W, long first, long n, double *dst);
/* Value of row i, column k; NaN when the spill file cannot be read. */
double nsc_waves_at(const nsc_waves *W, long i, int k);
/* NSC_EOUT naming the spill file with strerror(e), for a failed read. */
nsc_status nsc_waves_read_error(const nsc_waves *W, int e, nsc_report *r);

/* Walking the rows in any order: row i, a pointer into W or into the cursor's
 * buffer of rows read back (valid until the next call). A row that cannot be
 * read is NaNs and err keeps the first errno. */
typedef struct nsc_wcur {
    const nsc_waves *W;
    double *buf; /* rows [first, first + n) of the file, when spilled */
    long first, n, cap;
    int err;
} nsc_wcur;
/* 0, or -1 out of memory (a spilled table needs a buffer). */
int nsc_wcur_init(nsc_wcur *c, const nsc_waves *W);
const double *nsc_wcur_row(nsc_wcur *c, long i);
void nsc_wcur_free(nsc_wcur *c);
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
 * and run end copied, spilling as W does; NULL out of memory or when a spill
 * file could not be read or written. */
nsc_waves *nsc_waves_select(const nsc_waves *W, const int *cols, int n);
/* Column index by name, case-insensitive; -1 if absent. */
int nsc_waves_col(const nsc_waves *W, const char *name);

/* waves.c's use of waves_spill.c: free the spill state; write the rows in
 * memory to the file (0, or -1 with the error kept for nsc_waves_add_error). */
void nsc_spill_free(struct nsc_spill *sp);
long nsc_spill_cap(const struct nsc_spill *sp); /* rows held in memory at most */
int nsc_spill_batch(nsc_waves *W);

/* Parse an output list such as "v(out),v(a,b),i(l1)" (commas inside parentheses
 * belong to the probe) into probes of circuit c. Errors name the bad item.
 * *probes is malloc'd (free each name then the array with nsc_waves_probes_free). */
nsc_status nsc_waves_probes_parse(const nsc_circuit *c, const char *list, nsc_probe **probes,
                                  int *n, nsc_report *r);
/* The default outputs of cli.md: every node voltage, then the current of every
 * inductor, voltage source and diode; not the nodes the program adds (named
 * with '#': an inductor's Rser= node l1#rser), which the netlist does not name. */
nsc_status nsc_waves_probes_default(const nsc_circuit *c, nsc_probe **probes, int *n,
                                    nsc_report *r);
void nsc_waves_probes_free(nsc_probe *p, int n);

#endif
