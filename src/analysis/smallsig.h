/* smallsig.h -- the analyses at the operating point (issue 29): the small-signal
 * AC sweep (ac.c) and the DC sweep (dc.c). Nothing here prints.
 *
 * AC. The circuit is linearised in the operating point's mode: each pair keeps
 * the state the .op found (active: y = 0 with l free; inactive: l = 0), each
 * switch its state, a B source its active segment (its pairs). In that mode the
 * LCS E z' = A z + B l + Ss w, y = C z + D l + Se w is linear; with the phasors
 * W of the `AC mag [phase]` sources (mag e^{j phase pi/180}; several superpose)
 * the response (Z, L_a) at angular frequency omega solves
 *     [ j omega E - A_sw   -B_a  ] [ Z   ]   [  Ss W    ]
 *     [ C_a                D_aa  ] [ L_a ] = [ -Se_a W  ]
 * (a = active pairs, A_sw = A with the conductances of the switches that are
 * on), one complex sparse LU (KLU) per frequency. */
#ifndef NSC_SMALLSIG_H
#define NSC_SMALLSIG_H

#include "circuit/circuit.h"
#include "output/waves.h"
#include "output/out_ac.h"
#include "netlist/netlist.h"
#include "solve/onestep.h"
#include "analysis/meas.h"
#include "analysis/stepper.h"

/* The frequencies of s as ngspice 39 places them (measured): lin: n points from
 * fstart to fstop; dec: K = floor(n log10(fstop/fstart)) steps, each a factor
 * (fstop/fstart)^(1/K), so the last point is fstop; oct: K = floor(n
 * log2(fstop/fstart)) steps of 2^(1/n), the last at or below fstop (K = 0:
 * fstart alone). *f is new ([*nf]). Error (at the card) over 10^7 points. */
nsc_status nsc_ac_freqs(const nsc_acsweep *s, double **f, int *nf, nsc_report *r);

/* nsc_ac_result, nsc_ac_part, nsc_ac_part_ratio: output/out_ac.h (the writers
 * take the result as plain data). */

/* The AC sweep c->ac of c (c->has_ac) at its operating point (gmin, solver as
 * the .op's). NSC_ESIM when the operating point fails or the linearised system
 * is singular at a frequency (the message names it). */
nsc_status nsc_run_ac(const nsc_circuit *c, double gmin, nsc_solver solver, const nsc_probe *p,
                      int np, nsc_ac_result **out, nsc_report *r);

/* The result's arrays for the probes p[np] at the frequencies of c->ac (ac.c). */
nsc_status nsc_ac_result_new(const nsc_circuit *c, const nsc_probe *p, int np, nsc_ac_result **out,
                             nsc_report *r);

/* The periodic AC (pac.h, issue 29 item 3): the AC sweep c->ac around the
 * periodic steady state of c under o and po (nsc_run_pss), the transfer from
 * the `AC mag [phase]` sources to the probes p[np] at each frequency, exact
 * for the PWL circuit. info: the steady state's. Frequencies above fs/2 (fs =
 * 1/period) are computed but a warning says that they are past the range a
 * network analyser separates from the switching sidebands; the title says up
 * to where it is valid. Probes on pair multipliers (a diode's current) come
 * out NaN with a warning. NSC_ESIM as nsc_run_pss, or when a frequency hits a
 * Floquet multiplier. */
nsc_status nsc_run_pac(const nsc_circuit *c, const nsc_tran_opts *o, const nsc_pss_opts *po,
                       const nsc_probe *p, int np, nsc_ac_result **out, nsc_pss_info *info,
                       nsc_report *r);

/* The .meas ac cards of c on R (ac_meas.c): res[c->nacmeas] filled (free with
 * nsc_meas_results_free); R must hold every probe the cards read. A measure
 * that fails says why (an AT outside the sweep, a level never crossed). */
void nsc_acmeas_eval(const nsc_circuit *c, const nsc_ac_result *R, nsc_meas_result *res);

/* The .meas ac cards of c at one point of a study (sweep.c): the AC sweep c->ac
 * at the operating point (po NULL; gmin, solver from o) or around the
 * periodic steady state (o, po: nsc_run_pac) for the probes the cards read,
 * then val[k] = the k-th card's value, NAN when it failed (a warning in r
 * says why); every val NAN when the run fails (its status returned) or c has
 * no .ac card. */
nsc_status nsc_acmeas_run(const nsc_circuit *c, const nsc_tran_opts *o, const nsc_pss_opts *po,
                          double *val, nsc_report *r);

/* The DC sweep c->dc (c->ndc of them, dc[0] inner) of c: at each point the
 * operating point (warm-started from the previous point's mode and switch
 * states), the probes p[0..np) evaluated there (a capacitor carries no current).
 * The table: column 0 the inner swept value ("v-sweep", "i-sweep", "res-sweep"
 * as ngspice names it), then, for a nested sweep, the outer value ("sweep(v2)"),
 * then the probes. c's element values are changed during the run and restored.
 * NSC_ESIM naming the point that failed (the table then holds the points before). */
nsc_status nsc_run_dc(nsc_circuit *c, double gmin, nsc_solver solver, const nsc_probe *p, int np,
                      nsc_waves **out, nsc_report *r);

/* The outputs of circuit c for its DC sweep: p[0..np) new (nsc_waves_probes_free). */
typedef nsc_status (*nsc_dc_probes_fn)(const nsc_circuit *c, void *ctx, nsc_probe **p, int *np,
                                       nsc_report *r);

/* nsc_run_dc of c when a sweep is over a top-level .param (dc[k].el = -1,
 * which nsc_run_dc refuses): each value of the .param's sweep elaborates the
 * deck d again with ov[0..nov) and that value (later overrides win), and the
 * operating points of that circuit are nsc_run_dc's with the .param held; an
 * element's sweep inside a .param's (.dc V1 ... rv ...) runs whole in each
 * circuit (warm-started), one outside it (.dc rv ... V1 ...) is held at each
 * of its values in turn. The rows come in nsc_run_dc's order (dc[0]
 * fastest), the table as nsc_run_dc's, column 0 of a .param "sweep(name)".
 * probes gives each circuit's outputs (the same in each). A value the
 * netlist refuses is its elaboration's error (a warning names the value);
 * NSC_ESIM as nsc_run_dc; the table holds the rows before either. */
nsc_status nsc_run_dc_params(const nsc_deck *d, const nsc_param_set *ov, int nov,
                             const nsc_circuit *c, double gmin, nsc_solver solver,
                             nsc_dc_probes_fn probes, void *ctx, nsc_waves **out, nsc_report *r);

/* .four (four.c): harmonics 0 .. nh-1 of column col of W over its last 1/f
 * seconds (the rows' piecewise-linear interpolant, exactly): mag[k] (mag[0] the
 * mean), phase[k] in degrees (of sin(k w (t - a) + phase), a the window's start;
 * phase[0] = 0), thd = 100 sqrt(sum_{k >= 2} mag_k^2) / mag_1 (percent).
 * NSC_ESIM when the rows span less than 1/f. */
nsc_status nsc_four_eval(const nsc_waves *W, int col, double f, int nh, double *mag, double *phase,
                         double *thd, nsc_report *r);

/* The values of one sweep: start, start + step, ... to stop (1e-9 step of slack). */
int nsc_dc_count(const nsc_dcsweep *s);

#endif
