/* testutil.h -- helpers shared by the Criterion tests. */
#ifndef NSC_TESTUTIL_H
#define NSC_TESTUTIL_H

#include <stddef.h>

#ifndef NSC_TOP_SRCDIR
#define NSC_TOP_SRCDIR "."
#endif
#ifndef NSC_TOP_BUILDDIR
#define NSC_TOP_BUILDDIR "."
#endif
/* The reference waveforms copied into tests/data (see tests/data/README.md). */
#define NSC_REFDIR NSC_TOP_SRCDIR "/tests/data"
#define NSC_NETLISTS NSC_TOP_SRCDIR "/netlists"
#define NSC_PROGRAM NSC_TOP_BUILDDIR "/nscircuit"

/* A table of numbers read from a whitespace-separated file whose comment
 * lines start with '#'; the first '#' line's words are the column names. */
typedef struct tu_table {
    int ncol, nrow;
    char **name; /* [ncol] */
    double *v;   /* row-major [nrow*ncol] */
} tu_table;
int tu_table_read(const char *path, tu_table *t); /* 0 ok */
void tu_table_free(tu_table *t);
int tu_table_col(const tu_table *t, const char *name); /* -1 if absent (case-insensitive) */
/* Column col of t at time x, linear between rows (column 0 increasing; held beyond the ends). */
double tu_interp(const tu_table *t, int col, double x);
#define TU_AT(t, r, c) ((t)->v[(size_t)(r) * (t)->ncol + (c)])
/* RMS over b's rows of (a - b) in column sig (a linear between its rows),
 * relative to b's range; NAN when either lacks the column. */
double tu_rms_rel(const tu_table *a, const tu_table *b, const char *sig);

/* The Newton line of --stats ("Newton (smooth functions): NP problems solved in
 * NIT iterations (PER per problem, at most MAXIT), NFAIL not converged") read
 * from a program's output: 1, or 0 when out has none. */
typedef struct tu_newton {
    long np, nit, nfail;
    double per;
    int maxit;
    long nchord; /* "; NCHORD iterations kept the last factors (chord), FPER mode systems */
    double fper; /*   factored per iteration" (-1 when the line has none) */
} tu_newton;
int tu_newton_stats(const char *out, tu_newton *n);

/* Runs REFDIR/cir (an .ac whose first saved signal is a magnitude) in dir and
 * asserts its nrow rows against the ngspice 39 wrdata file REFDIR/ng (a header
 * line, then "frequency magnitude" per row): frequencies within 1e-7, the
 * magnitude within rel of ngspice's at every row; name names it in messages. */
void tu_ac_mag_vs_ngspice(const char *dir, const char *cir, const char *ng, int nrow, double rel,
                          const char *name);

/* Run a shell command; returns its exit status (or -1), output captured into a
 * malloc'd string *out (may be NULL to discard). */
int tu_run(const char *cmd, char **out);
/* Write text to path (0 ok). */
int tu_write_file(const char *path, const char *text);
/* A fresh temporary directory (malloc'd path), removed by tu_rmdir. */
char *tu_tmpdir(void);
void tu_rmdir(const char *dir);
/* Whole file as a string (malloc'd) or NULL. */
char *tu_read_file(const char *path);

/* The circuit of a netlist text (file name "t.cir"); fails the test on an error. */
struct nsc_circuit;
struct nsc_circuit *tu_parse(const char *text);

#endif
