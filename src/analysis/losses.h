/* losses.h -- energy of every element over a window of the transient or of the
 * steady periods (cli.md --losses), and the switching energies of EON/EOFF.
 *
 * Quadrature. A step t_k -> t_k+1 = t_k + h of the theta-scheme solves, on the
 * KCL rows (formulation.md §2, every row at the step's theta in the adaptive
 * transient),
 *     E (z1 - z0)/h = A z_theta + B l + s_theta,   z_theta = theta z1 + (1 - theta) z0,
 * so the currents of the step are i_R = G v_theta (resistors, switches),
 * z_theta (branch currents), l (diode and MOS pairs: the step's mean),
 * C (v1 - v0)/h (capacitors) and w_theta (current sources), and they satisfy
 * KCL at every node. Each element's energy over the step is taken as
 *     h sum over its ports of v_theta(port) i(port),
 * with the port voltages at the same theta-point: by Tellegen's theorem the
 * energies of all elements (sources negative when they deliver) sum to zero to
 * round-off, whatever the devices, which is the energy balance checked. A
 * capacitor's is C (v1 - v0)(theta v1 + (1 - theta) v0): the change of
 * C v^2 / 2 at theta = 1/2, plus the scheme's damping C (theta - 1/2)(v1 - v0)^2
 * on the implicit-Euler steps of event restarts. A step straddling the start of
 * the window counts for the part inside it, in proportion.
 *
 * Switching energies (diodes, S and W switches whose model gives EON or EOFF,
 * joules): at each turn-on (turn-off) inside the window, EON (EOFF), scaled by
 * v/VREF when VREF is given and by i/IREF when IREF is given, v the voltage
 * the element blocks on the off side of the event and i the current it
 * carries on the on side (PLECS's and PSIM's linear data-sheet scaling). They
 * are charged on top of the circuit's own energies: the ideal device does not
 * dissipate them. A diode is on while its first pair (forward conduction) is
 * active, a switch in its on state; the turn-ons and turn-offs of every diode
 * and S/W switch are counted, with or without EON/EOFF (and a MOS's, on while
 * its first channel pair is active).
 *
 * Capacitive turn-on loss. A controlled switch (MOS, S, W) turning on across
 * charged capacitors (its own output capacitance, a diode's junction, a
 * snubber) discharges them, and charges those on the other side of a bridge,
 * faster than the steps resolve: the implicit-Euler steps of the event's
 * restart lose C (theta - 1/2) dv^2 = 1/2 C dv^2 of each capacitor's jump,
 * the energy a real switch dissipates in its channel. That damping, found in
 * the capacitors' (or their devices') rows, is moved to the switch's row over
 * the restart after its turn-on (ecap, part of its energy; the sum unchanged):
 * the switching loss that the device's charge gives, without EON/EOFF. */
#ifndef NSC_LOSSES_H
#define NSC_LOSSES_H

#include <stdio.h>

#include "circuit/circuit.h"
#include "lcs/devif.h"
#include "base/util.h"

typedef struct nsc_loss_row {
    const char *name; /* the element's (into the circuit), "gmin" */
    int el;           /* element index, -1 for gmin */
    nsc_pclass cls;
    double energy;  /* J absorbed over the window by the circuit's equations */
    double esw;     /* J of EON/EOFF charged */
    double ecap;    /* J of capacitive turn-on loss moved into it (in energy; losses.c capture) */
    long non, noff; /* turn-ons and turn-offs in the window */
} nsc_loss_row;

typedef struct nsc_loss_acc nsc_loss_acc;

/* The result: filled by the transient when nsc_tran_opts.losses points to it. */
typedef struct nsc_losses {
    double from, to; /* the window (from the run: tstart .. the time reached) */
    int nrow;
    nsc_loss_row *row; /* [nrow] malloc'd */
} nsc_losses;

void nsc_losses_free(nsc_losses *Ls);

/* The accumulator of the circuit c assembled as L, over [from, to]: the
 * elements' ports (device.h ports), their EON/EOFF data (errors at the model
 * card: a negative energy, VREF or IREF <= 0), gmin on L's gmin nodes. */
nsc_status nsc_loss_acc_new(const nsc_lcs *L, const nsc_circuit *c, double gmin, double from,
                            double to, nsc_loss_acc **out, nsc_report *r);
/* One accepted step t0 -> t1 of the scheme at theta: z0, z1 [n], the step's
 * multipliers l [m], source values w0, w1 as the step used them, the switch
 * states sw of the step and the active set mode1 at t1 (NULL: none). */
void nsc_loss_acc_step(nsc_loss_acc *a, double theta, double t0, double t1, const double *z0,
                       const double *z1, const double *l, const double *w0, const double *w1,
                       const char *sw, const char *mode1);
/* The exact transient (stepper_exact.c) integrates each flow segment
 * t0 -> t1 by the quadrature of the quadratic through the elements' powers
 * at three points of the flow: t0, tm, t1 (Simpson's rule at tm = (t0 + t1) / 2;
 * the trapezoid over a segment of one substep). Each point's powers are a
 * "point" (nsc_loss_acc_ptlen doubles: the rows' powers, then each element's
 * port-0 voltage and current; nsc_loss_map_point) from the sets (z1, l, dz,
 * w1) of implicit-Euler steps from the flow's state (nsc_loss_basis), which
 * satisfy the step's KCL rows exactly: the sum of a point's powers is 0
 * (Tellegen) up to the round-off of the steps' difference quotients (C eps
 * |v| / h0 in a capacitor's current), and so is the sum of the energies. With
 * the voltages and currents in Richardson's combination 2 x(h0/2) - x(h0) of
 * the two steps, a point's powers are those of the exact state to O(h0^2). Error of a segment of length H: Simpson's
 * H^5 p''''/2880; with v and i within the step control's chord tolerances
 * dv, di of straight lines (their second derivatives 8 dv / H^2, 8 di / H^2)
 * that is about 0.13 H dv di, second order in the tolerances (RELTOL^2 of the
 * energy H v i); O(H^4 p''') when tm is off the middle by a substep (odd
 * unit counts, a landing remainder). */
int nsc_loss_acc_ptlen(const nsc_loss_acc *a);
int nsc_loss_acc_nrow(const nsc_loss_acc *a); /* the rows' powers at a point's start */
/* The implicit-Euler steps of one mode as linear maps of the augmented state
 * x = [z; p; u; v; 1] (solve/flow.h, N = n + 3 nsrc + 1): step b (0, 1) over
 * h[b] has z1 and the pair rows = ie[b] (x gathered at act[0..na)), (n + m) x
 * na column-major (flow.h nsc_flow_ie); l_i of pair i from its row as the
 * mask and dinv say (0 inactive, -row dinv_i active separable, else the row);
 * dz = (z1 - z) / h[b]; the sources at its end w_j = p_j + S u_j + S v_j with
 * S[b][4 j ..] the 2 x 2 flow (column-major) over h[b]. */
typedef struct nsc_loss_basis {
    int n, m, nsrc, N, na;
    const int *act;
    const double *ie[2];
    const char *mask;
    const double *dinv;
    double h[2];
    const double *S[2];
} nsc_loss_basis;
/* A mode's powers as one matrix: each element's port voltages and currents
 * (Richardson's combination of the two steps) as rows over x (their nonzero
 * columns; each distinct row once), so that a point is one product and a
 * multiplication per port. */
typedef struct nsc_loss_map nsc_loss_map;
/* The map of the mode B in the switch states sw; NULL when out of memory. */
nsc_loss_map *nsc_loss_map_new(const nsc_loss_acc *a, const nsc_loss_basis *B, const char *sw);
void nsc_loss_map_free(nsc_loss_map *M);
/* pt = the point at the state x (header): the powers of Richardson's
 * combination 2 (step 1) - (step 0) of each port's voltage and current (h =
 * { h0, h0 / 2 }: O(h0^2) off the state's; KCL and KVL hold for the
 * combination as for each step, so does Tellegen). */
void nsc_loss_map_point(const nsc_loss_acc *a, const nsc_loss_map *M, const double *x, double *pt);
/* The segment t0 -> t1 of one mode from its points p0, pm (at tm; NULL: none,
 * or tm outside the middle 60 %: the trapezoid) and p1. A segment has no damping: a turn-on's capture (above) ends; the
 * switching elements' v and i at t1 are the ones EON/EOFF of the next event read. */
void nsc_loss_acc_segment(nsc_loss_acc *a, double t0, double tm, double t1, const double *p0,
                          const double *pm, const double *p1);
/* Hand the energies over [from, t_end] to out (replacing its rows) and free a.
 * NSC_OK or NSC_ENOMEM. */
nsc_status nsc_loss_acc_finish(nsc_loss_acc *a, double t_end, nsc_losses *out, nsc_report *r);
void nsc_loss_acc_free(nsc_loss_acc *a);

/* The balance of a window (joules): input = energy delivered by the
 * independent sources that deliver (net over the window) and are not loads;
 * sinks = energy absorbed by the others that are not loads; the rest by class.
 * residual = the sum of every element's energy (0 by Tellegen), rel = residual
 * / the sum of |energies|. The loads are the elements named (any kind: a
 * resistor, a current sink), else the resistor that absorbs the most and every
 * independent source that absorbs energy (a current-sink load, a battery
 * charged); loads = their energy; efficiency = loads / (input + switching), NAN
 * when the input is not positive. unsteady: the storage elements' energy
 * changed by more than NSC_LOSS_STORE_FRAC of input + switching (a start-up
 * window: the efficiency then counts what the storage gave or took). */
#define NSC_LOSS_STORE_FRAC 0.01
typedef struct nsc_loss_sum {
    double input, resistors, semis, switching, stored, controlled, gmin, sinks;
    double residual, rel;
    int *load; /* [nload] row indices of the loads (malloc'd: nsc_loss_sum_free) */
    int nload;
    double loads; /* J absorbed by the loads */
    double efficiency;
    int unsteady;
} nsc_loss_sum;
/* The sum of Ls with the loads named load[0..nload) (nload 0: the default
 * ones): 0; k + 1 when load[k] names no row; -1 out of memory. Free s with
 * nsc_loss_sum_free in every case. */
int nsc_losses_sum(const nsc_losses *Ls, char *const *load, int nload, nsc_loss_sum *s);
void nsc_loss_sum_free(nsc_loss_sum *s);

/* The table (cli.md --losses) to f: a header naming the window, one row per
 * element (name quoted when it holds blanks), the balance and efficiency as
 * comment lines. 0, or -1 when a write failed. */
int nsc_losses_print(FILE *f, const nsc_losses *Ls, const nsc_loss_sum *s, const char *what);

#endif
