/* pac.h -- the periodic small-signal AC (issue 29 item 3): the transfer from the
 * `AC mag [phase]` sources to the outputs at the perturbation frequency, around
 * the periodic steady state, exact for the PWL circuit. Internal to
 * src/analysis: the steady state (stepper_pss.c) runs one period per batch of
 * frequencies with the accumulator handed to the stepper (nsc_tran_io.pac),
 * which calls nsc_pac_dw and nsc_pac_step at each accepted step.
 *
 * The math. Let the sources be perturbed by dw(t) = Re(W e^{j omega t}) (W_j =
 * mag_j e^{j phase_j}, all AC sources at once, superposed). By linearity in the
 * perturbation the complex response dz(t) to W e^{j omega t} is propagated as
 * two real columns (real and imaginary part of the input) through each step's
 * linear map, with each event's time shift driven by the state and by the input
 * (nsc_onestep_sens*, DW0/DW1), beside the nd columns of the monodromy matrix
 * (the differential unknowns' start). Over one period from t_s (tau = t - t_s):
 *     dx(T) = Phi dx(0) + g(omega),   g = the input columns' end (real + j imag).
 * The response of the form p(tau) e^{j omega tau} with p periodic (the steady
 * sinusoidal response, omega not a Floquet exponent) has dx(T) = e^{j omega T}
 * dx(0), so (e^{j omega T} I - Phi) dx(0) = g, one complex solve of size nd,
 * and dz(tau) = S(tau) dx(0) + G(tau). The output is the Fourier coefficient at
 * omega of the perturbed probe y (the period average of its envelope p_y):
 *     Y = (1/T) int_0^T dy(tau) e^{-j omega tau} dtau,
 * integrated exactly for dy linear between the accepted points (the rows' own
 * interpolant); the value at tau = 0 is e^{-j omega T} dy(T) (periodicity), so
 * algebraic unknowns need no start. Transfer = Y per unit W (W is the source's
 * phasor, as .ac). Above fs/2 the baseband response Y is still the component at
 * omega, but a sideband of the switching at fs - omega is then lower, and a
 * network analyser's reading mixes them: valid up to fs/2 (the caller warns).
 * Outputs that jump at an event (a switch node's voltage) carry an impulse
 * (jump x time shift) that dy's interpolant leaves out (the open-loop buck's
 * v(sw) came out 32 dB under Vin k (sL + Z2)/(sL + R0 + Z2) at 100 Hz): such an
 * output is found at the events (its value across a located event's step moves
 * by more than 1e-3 of its range over the period) and is NaN, with a warning;
 * so are probes on pair
 * multipliers (a diode's current: no sensitivity here). Not found: a capacitor
 * current (its dz/dt term) that jumps. */
#ifndef NSC_PAC_H
#define NSC_PAC_H

#include "lcs/lcs.h"
#include "analysis/smallsig.h"

typedef struct nsc_pac nsc_pac;

/* An accumulator for the probes p[np] of c at the frequencies f[nf] (Hz); the
 * result R (probes' names, frequencies) is filled by the runs. NULL out of memory. */
nsc_pac *nsc_pac_new(const nsc_circuit *c, const nsc_probe *p, int np, nsc_ac_result *R);
void nsc_pac_free(nsc_pac *A);

/* The layout of the steady state's LCS L: nd differential unknowns di[nd], the
 * period T; the probes' functionals built (r: a probe L cannot read). */
nsc_status nsc_pac_setup(nsc_pac *A, const nsc_lcs *L, int nd, const int *di, double T,
                         nsc_report *r);

/* Batch b (0, 1, ... while it returns > 0): *S (n x ns, column-major) the
 * sensitivity columns to propagate over one period from t_s (identity on the
 * differential unknowns, then two input columns per frequency of the batch,
 * zero); returns ns, 0 when every frequency is done. */
int nsc_pac_batch(nsc_pac *A, int b, double ts, double **S);

/* The perturbation of the sources of the columns at time t (L->nsrc x ns,
 * column-major; end 0: the step's start, 1: its end, two buffers). */
const double *nsc_pac_dw(nsc_pac *A, double t, int end);

/* After the sensitivity of the accepted step (t0, t1] in switch states sw: S
 * holds dz(t1) of every column; the Fourier integrals advance. z0, z1: the
 * step's states; event: the step took a mode change or a switch's flip (the
 * probes that jump across it are marked). */
void nsc_pac_step(nsc_pac *A, double t0, double t1, const double *S, const char *sw,
                  const double *z0, const double *z1, int event);

/* The batch's period done (S at t_s + T): the periodicity solved and the
 * batch's rows of R filled. NSC_ESIM when e^{j omega T} is a Floquet
 * multiplier (singular) or a step's sensitivity failed (failed). */
nsc_status nsc_pac_close(nsc_pac *A, int failed, nsc_report *r);

#endif
