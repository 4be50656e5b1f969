/* meas.h -- .meas tran evaluation on a transient's waveform table.
 *
 * Waveforms are taken as linear between rows (what the table and a plot say;
 * a run's measures read the table of its accepted steps, run.h nsc_run.Wm,
 * when its rows are a grid), so:
 *  - window [a, b] = [FROM, TO] clipped to the run (TD= of AVG .. MAX_AT moves a
 *    as FROM does); values at a and b interpolated;
 *  - INTEG = integral of y over [a, b] (exact for linear pieces: trapezoids);
 *    AVG = INTEG / (b - a); RMS = sqrt(integral of y^2 / (b - a)), y^2 integrated
 *    exactly on each piece: h (ya^2 + ya yb + yb^2) / 3;
 *  - MIN, MAX, PP over the rows inside the window and the two interpolated ends;
 *    MIN_AT / MAX_AT: the first time the extreme is reached;
 *  - crossings of y = val, from max(a, TD) to b, as ngspice counts them: the
 *    signal is below (y <= val at the start) or above; RISE when a signal below
 *    reaches y >= val, FALL when a signal above reaches y <= val (CROSS: either),
 *    at the time interpolated on that piece; LAST is the last one;
 *  - FIND: y interpolated at the instant; TRIG/TARG: t_targ - t_trig.
 * Expressions are evaluated row by row before these operations (so
 * AVG par('v(out)*i(rl)') is the average power). */
#ifndef NSC_MEAS_H
#define NSC_MEAS_H

#include "circuit/circuit.h"
#include "output/waves.h"

typedef struct nsc_meas_result {
    int ok; /* 1: value is the result; 0: the measure failed, why says why */
    double value;
    char *why; /* malloc'd or NULL */
} nsc_meas_result;

/* Evaluate c->meas[0 .. c->nmeas) on W, whose columns include every probe of
 * c->meas_probe (found by name). res[nmeas] is filled (free with
 * nsc_meas_results_free). A failing measure is not an error (res[k].ok = 0);
 * errors are a probe missing from W (NSC_EUSAGE) and NSC_ENOMEM. */
nsc_status nsc_meas_eval(const nsc_circuit *c, const nsc_waves *W, nsc_meas_result *res,
                         nsc_report *r);
void nsc_meas_results_free(nsc_meas_result *res, int n);

/* The derived columns of c (c->xcol) computed on *W, inserted among its first
 * nout outputs where their .print put them, those of pos < 0 (not outputs) at
 * the end (*W replaced, *nout += the outputs among them); NSC_ENOMEM, or
 * NSC_EUSAGE when a quantity they read is not a column of W. */
nsc_status nsc_meas_derive(const nsc_circuit *c, nsc_waves **W, int *nout, nsc_report *r);

/* The periodic steady state's measures are over its written periods: every
 * FROM=/TO= window of c's measures is dropped (TD= stays); one note in r
 * names the first card that had one. */
void nsc_meas_steady_windows(nsc_circuit *c, nsc_report *r);

#endif
