/* cmp.h -- comparison of two waveform tables (nscircuit compare): both put on one
 * time grid, per-signal errors and the shift of switching instants.
 *
 * Tables of an AC analysis (column 0 frequency; magnitudes in dB, phases in
 * degrees) or a DC sweep (column 0 the swept value) are compared alike, "time"
 * read as their scale, with these differences: the grid is always both
 * tables' points; an AC table is linear in log10(f) between its points and the
 * RMS error integrates over log10(f) (each decade weighs the same); a phase
 * (vp(x), ip(x), ph(x), degrees) is interpolated the short way round between
 * two rows and its error taken modulo 360 into [-180, 180]; no switching
 * instants. A DC sweep run downwards (its swept value decreasing at every
 * row) compares as the same sweep upwards. A nested DC sweep (.dc V1 ... I1
 * ...) compares each inner sweep as its own curve (nsc_compare_set): the k-th
 * inner sweep of ours with the k-th of the reference, keyed by the outer
 * value. An inner sweep starts where nscircuit's outer column "sweep(x)"
 * changes, or, in a table without it (ngspice's raw and wrdata hold only the
 * inner "v-sweep"), where the swept value repeats or turns against the
 * inner sweep's direction (that of its first two rows).
 *
 * A NaN among a signal's values in [t0, t1] (a reference file holding "nan")
 * makes its errors NaN, with the file and row named (nan_side, nan_row): no
 * figure is computed around it.
 *
 * Definitions (t0..t1 is the time interval both tables cover, within the
 * window asked for):
 *  - grid: when ours' rows are at accepted steps and events (their gaps not
 *    uniform: nscircuit's default output), both tables are piecewise-linear
 *    waveforms (what a plot draws) and the grid is t0, t1 and every time point of
 *    either table between them, each table interpolated at the other's points
 *    (an error at one row is not spread over a long step the other resolves).
 *    When ours' rows are uniform (the tstep grid of fixed steps or .options
 *    interp) they are samples: ours says nothing between them (an edge between
 *    two rows is not a ramp), so the grid is ours' time points inside [t0, t1]
 *    (t0, t1 then shrink to the first and last of them; both ends when ours has
 *    fewer than two there) and the reference is interpolated there;
 *  - e(t) = ours(t) - ref(t) on the grid, linear in between; max error = max |e|
 *    on the grid; rms error = sqrt( 1/(t1-t0) * integral of e^2 dt ), integrated
 *    exactly on each piece: h (e_a^2 + e_a e_b + e_b^2) / 3;
 *  - relative errors divide by the reference's range (max - min over its own
 *    points in [t0, t1] and the grid); a range of at most 1e-6 of the reference's
 *    magnitude (a constant signal: within every SPICE's convergence tolerance,
 *    RELTOL >= 1e-6, its variation is the solvers' residue) divides by the magnitude, a
 *    zero signal by 1, and such a signal has no switching instants;
 *  - switching instants: found on each table's own points (its own resolution),
 *    crossings of the mid level of the reference's range,
 *    with a hysteresis of 10 % of the range (a crossing counts once the signal
 *    has left the band on the other side), at the interpolated time the mid level
 *    was crossed. Each reference instant is matched to the nearest instant of
 *    ours of the same direction; shift = t_ours - t_ref. */
#ifndef NSC_CMP_H
#define NSC_CMP_H

#include "waves.h"

typedef struct nsc_cmp_sig {
    char *name;               /* canonical name, e.g. "v(a,b)" */
    char *ours_src, *ref_src; /* where each side's values come from: "v(a,b)" or "v(a) - v(b)" */
    double range;             /* reference max - min on [t0, t1] */
    double scale;             /* divisor of relative errors (range, see above) */
    double max_err;           /* max |e| */
    double t_max_err;         /* a time where it is reached */
    double rms_err;
    double level;      /* switching threshold (mid level) */
    int n_ref, n_ours; /* switching instants found */
    int n_matched;     /* reference instants matched (0 when either has none) */
    double shift_max;  /* matched shift of largest magnitude (signed), s */
    double shift_mean; /* mean matched shift, s */
    int phase;         /* 1: a phase in degrees (errors modulo 360) */
    int nan_side; /* 0 no NaN; 1 ours, 2 the reference holds a NaN of it in [t0, t1] (errors NaN) */
    int nan_row;  /* the first such row of that file, 1-based */
    double t_nan; /* its abscissa (time, frequency, swept value) */
} nsc_cmp_sig;

typedef struct nsc_cmp {
    int scale;     /* NSC_SCALE_* of both tables' column 0 */
    int logx;      /* 1: AC, interpolated and integrated in log10(f) */
    double t0, t1; /* common interval */
    int samples; /* 1: ours' rows are uniform samples, the grid is theirs; 0: both tables' points */
    int ngrid;
    double *t; /* [ngrid] */
    int nsig;
    nsc_cmp_sig *sig;   /* [nsig] */
    double *ours, *ref; /* [nsig * ngrid] signal s at grid point i: [s * ngrid + i] */
} nsc_cmp;

/* Compare tables ours and ref (column 0 time, non-decreasing; a DC sweep may
 * also decrease at every row) on the part of
 * [from, to] both cover (-INFINITY, INFINITY: all of it). signals[0..nsig)
 * names the signals to compare (nsig == 0: every signal of ours also found in
 * ref). A name is found in a table by its canonical form (nsc_signame_canon),
 * else "v(a,b)" as the difference of columns v(a) and v(b), else "v(a)" as a
 * bare column "a". Errors (NSC_EUSAGE): a named signal missing in either table,
 * no common signal, no common time interval, time decreasing, a nested DC
 * sweep (nsc_compare_set compares those). */
nsc_status nsc_compare(const nsc_waves *ours, const nsc_waves *ref, char *const *signals, int nsig,
                       double from, double to, nsc_cmp **out, nsc_report *r);
void nsc_cmp_free(nsc_cmp *c);

/* The comparison of two tables, one nsc_cmp per inner sweep of a nested DC
 * sweep (n = 1 for every other table). */
typedef struct nsc_cmp_set {
    int n;       /* inner sweeps compared (1: not nested) */
    nsc_cmp **c; /* [n] in the files' order; all with the same signals */
    char
        *outer; /* nested: the outer sweep's name ("sweep(i1)"), NULL when neither table holds it */
    double *key; /* [n] the outer value of each inner sweep; NaN when neither table holds it */
} nsc_cmp_set;

/* nsc_compare, also of nested DC sweeps. Errors as nsc_compare's, and: one
 * table nested and not the other, different numbers of inner sweeps, or
 * outer values that differ (1e-9 relative) when both tables hold them. */
nsc_status nsc_compare_set(const nsc_waves *ours, const nsc_waves *ref, char *const *signals,
                           int nsig, double from, double to, nsc_cmp_set **out, nsc_report *r);
void nsc_cmp_set_free(nsc_cmp_set *s);

/* ours - reference of signal q, modulo 360 into [-180, 180] for a phase */
double nsc_cmp_diff(const nsc_cmp *c, int q, double ours, double ref);
/* The scale of table W (NSC_SCALE_*) from its column 0's name. */
int nsc_waves_scale(const nsc_waves *W);
/* The scale a table's column 0 named name says (any case): time (also NULL, a
 * table without names), frequency, anything else a sweep. */
int nsc_scale_of_name(const char *name);
/* What an AC column named name holds (any case): NSC_AC_DB a magnitude in dB
 * (vdb(x), idb(x), db(x)), NSC_AC_PHASE a phase (vp(x), ip(x), ph(x)), else 0. */
enum { NSC_AC_DB = 1, NSC_AC_PHASE = 2 };
int nsc_signame_ac(const char *name);

/* Canonical signal name (malloc'd): lower case, blanks removed, "x#branch" ->
 * "i(x)", "v(a,0)" / "v(a,gnd)" -> "v(a)", "v(a)-v(b)" -> "v(a,b)". */
char *nsc_signame_canon(const char *name);

/* Switching instants of y[0..n) at times t: crossings of level with hysteresis
 * band +-hyst (see above). Writes at most cap instants to at[] (time) and dir[]
 * (+1 rising, -1 falling); returns how many there are. */
int nsc_cmp_edges(const double *t, const double *y, int n, double level, double hyst, double *at,
                  int *dir, int cap);

#endif
