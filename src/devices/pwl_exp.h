/* pwl_exp.h -- the curve fit of a junction (pwl_exp.c), used by dev_d.c and dev_q.c. */
#ifndef NSC_PWL_EXP_H
#define NSC_PWL_EXP_H

#include <stddef.h>

#include "lcs/stamp.h"

/* ---- the piecewise-linear fit of a junction (pwl_exp.c) ----
 * v(i) = c + a ln(1 + i/i0) + rs i (the Shockley diode: c = 0, a = N Vt, i0 = IS)
 * on [i1, i2] by nseg chords on geometric knots, all raised by err (the largest
 * |fit - v| on [i1, i2]), as nseg parallel branches: i(v) = sum_j max(0, (v - vf[j])/r[j]),
 * vf ascending, every r[j] > 0. nseg = 1 is the best uniform line. */
#define NSC_JFIT_MAX 16
typedef struct nsc_jfit {
    int nseg;
    double vf[NSC_JFIT_MAX], r[NSC_JFIT_MAX];   /* parallel branches */
    double s[NSC_JFIT_MAX], knot[NSC_JFIT_MAX]; /* the same as a concave sum: v(i) = vf[0] + s[0] i
                                                   - sum_{k >= 1} (s[k-1] - s[k]) max(0, i - knot[k]) */
    double i1, i2, err;
    double c, a, i0, rs; /* the curve fitted (a = 0: none, a card's own lines) */
    int seen;            /* 1: remade from a junction's voltage (nsc_jfit_follow), 0 else */
} nsc_jfit;
/* 0, or -1 when the arguments are out of range (nseg in 1..NSC_JFIT_MAX, 0 < i1 < i2,
 * a, i0 > 0, rs >= 0). */
int nsc_jfit_make(double c, double a, double i0, double rs, double i1, double i2, int nseg,
                  nsc_jfit *f);
/* The fit of nsc_jfit_make with the fewest chords (1..nmax) whose error on
 * [i1, i2] is at most tol (V), else nmax chords; the same return value. */
int nsc_jfit_auto(double c, double a, double i0, double rs, double i1, double i2, int nmax,
                  double tol, nsc_jfit *f);
/* The fit's voltage at current i >= 0. */
double nsc_jfit_v(const nsc_jfit *f, double i);
/* The curve's tangent dv/di at current i > 0 minus the fit's slope there (the
 * chord holding i); 0 for a card's own lines (a = 0) or i <= 0. */
double nsc_jfit_tangent_gap(const nsc_jfit *f, double i);
/* "10 mA..1 A": the fitted range into buf. */
void nsc_jfit_range(const nsc_jfit *f, char *buf, size_t n);
/* The junction's pairs j..j+nseg-1 in the concave-sum form: pair 0's multiplier
 * lambda_0 is the junction current, its y_0 gets + vf[0] + s[0] lambda_0
 * - sum_q (s[q-1] - s[q]) mu_q (the device adds the sensed voltage to y_0, and
 * injects lambda_0); pair q >= 1: y_q = mu_q - lambda_0 + knot[q] >= 0 _|_ mu_q >= 0,
 * mu_q = max(0, lambda_0 - knot[q]). The block [[W + s0, -c], [-1, I]] is a
 * P-matrix (principal minors W + s0 - sum_S c_q > 0) with the network's W on
 * one entry, unlike nseg parallel branches (W 1 1^T + diag r: a junction fed by
 * a current source, W ~ 1/gmin, defeated Lemke). */
void nsc_st_jfit(nsc_builder *b, const nsc_jfit *f, int j);
/* 1 when a run whose junction current peaked at ip (> 1 nA) left f's range far
 * enough that the fit is off its curve there by more than twice its error and
 * 10 mV (a 16 A inrush through a 10 mA..1 A line: 1.9 V; 1 mA: 0.09 V); *off is
 * that difference (fit - curve). 0 for a card's own lines (a = 0). */
int nsc_jfit_outside(const nsc_jfit *f, double ip, double *off);
/* A fit that follows the run: when the run's peak ip (> 1 nA) left f's range and
 * the fit is off its curve there by more than its error inside and 10 mV (a
 * one-line BJT junction fitted on 10 mA..1 A: from ~ 5 mA down), or lies inside
 * it where the fit is more than 10 mV off (that line at 12 mA: 27 mV, which put
 * an ECL Schmitt trigger's threshold 80 mV off), f is remade on the currents
 * seen, [i1, NSC_JFIT_ABOVE ip] above its range, else [ip / NSC_JFIT_BELOW,
 * NSC_JFIT_ABOVE ip] (a junction's currents far below its peak matter little: it
 * is nearly off there), by nseg chords (0: the fewest within tol, at most nmax;
 * nsc_jfit_auto), and 1 is returned (inside: only when the new fit is closer at
 * ip); else 0 (f kept). */
#define NSC_JFIT_ABOVE 2.0
#define NSC_JFIT_BELOW 1000.0
int nsc_jfit_refit(nsc_jfit *f, double ip, int nseg, int nmax, double tol);
/* A fit that follows a junction that stayed on (a linear stage: an amplifier's
 * bias): when its current over the run stayed within [imin, ip], imin >= ip /
 * NSC_JFIT_BELOW, and swung (ip >= NSC_JFIT_BAND_SWING imin: a constant one has
 * no small signal), the fit's slopes there are its small-signal conductance, and
 * a chord of the 10 mV refit spans a current ratio of ~6 (its slope ~2x off the
 * tangent's at its ends: an emitter-bypassed stage's gain 2x off; each knot
 * inside the swing also rectifies to first order in the swing, where the
 * exponential does to second: the stage's bias drifts). f is remade on
 * [imin / NSC_JFIT_ABOVE, NSC_JFIT_ABOVE ip] within tol = NSC_JFIT_BAND_FRAC of
 * the junction's swing a ln(ip / imin), at least NSC_JFIT_BAND_MIN, at most
 * 10 mV, by the fewest odd count of chords (at most NSC_JFIT_MAX - 1: the
 * band's centre sqrt(imin ip) mid-chord; an operating point on a knot flips
 * that knot's pair at every step; nseg > 0: by nseg), unless f already covers
 * [imin, ip] within 1.5 tol; 1 when remade, else 0 (f kept). One that did not
 * swing (ip < NSC_JFIT_BAND_SWING imin) has no small signal but its level: it
 * is remade alike within NSC_JFIT_BAND_MIN when f is more than
 * NSC_JFIT_POINT_TOL off the curve at the centre and the new fit is closer
 * there (an op-amp input transistor at 7.17 uA +- 0.5 % left on its 10 mV
 * refit, 5.8 mV low there, beside its band-refitted partner: 9 mV of input
 * offset, the eSim LM741 Differentiator's output 9 mV off ngspice). */
#define NSC_JFIT_BAND_FRAC 0.005
#define NSC_JFIT_BAND_MIN 0.0001
#define NSC_JFIT_BAND_SWING 1.01
int nsc_jfit_band(nsc_jfit *f, double imin, double ip, int nseg);
/* A junction's pair that never conducted over a run (its multiplier 0) is
 * told to the fits by its least slack y > NSC_JFIT_YSEEN as the peak -y
 * (devices.c nsc_dev_seen): on a fit whose multiplier is 0 the junction's
 * voltage is vf[0] - y, below the fit's turn-on, where the SPICE junction may
 * carry a current the fit does not (a CE stage biased at 0.65 V beside a
 * 10 mA..1 A line turning on at 0.80 V: 94 uA taken as none). The current a
 * fit's junction carried as the SPICE junction sees it, from its peak pk: pk
 * itself unless pk < -NSC_JFIT_YSEEN, then the curve's current at the voltage
 * vf[0] + pk (into *v when v is given; else *v is left alone). A card's own
 * lines (a = 0): pk. */
#define NSC_JFIT_YSEEN 1e-9
double nsc_jfit_seen(const nsc_jfit *f, double pk, double *v);
/* " (the SPICE junction's at 0.65 V, where the fit conducts none)" when pk is
 * a slack (nsc_jfit_seen), else "": the notes' words after the current. */
void nsc_jfit_seen_text(const nsc_jfit *f, double pk, char *buf, size_t n);
/* The fit that follows a run (the devices' refit): nsc_jfit_refit at the
 * current nsc_jfit_seen reads from the run's peak pk (f->seen set when that
 * was a junction's voltage); else, when point (pk is one operating point's:
 * .op, .ac's) and f was made from a junction's voltage, nsc_jfit_point. 1 when
 * f was remade. A junction biased through its voltage sets its current by the
 * exponential itself (a CE stage's VBE source: 10 mV of fit are 40 % of
 * I_C), so its fit, made from an estimate, is made again at the current the
 * next pass found. */
#define NSC_JFIT_SEEN_TOL 0.001
int nsc_jfit_follow(nsc_jfit *f, double pk, int point, int nseg, int nmax, double tol);
/* f remade on [ip / NSC_JFIT_ABOVE, NSC_JFIT_ABOVE ip] (room for the pass
 * that follows: a fit that moved by 10 mV moves an exponentially biased
 * current by 1.5x) by the fewest odd count of chords (ip mid-chord) within
 * NSC_JFIT_POINT_TOL (0.4 % of a junction's current at its voltage), unless
 * f is already that close at ip (or ip <= 1 nA): 1 when remade. */
#define NSC_JFIT_POINT_TOL 0.0001
int nsc_jfit_point(nsc_jfit *f, double ip);
/* How a refit's note says where ip was against the old fit f: "left the range"
 * or "lies where it is more than 10 mV off, in the range" (nsc_jfit_refit), or
 * that it is an operating point (nsc_jfit_point). */
const char *nsc_jfit_where(const nsc_jfit *f, double ip);

#endif
