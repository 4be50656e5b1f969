/* mos2.h -- the channel current of a LEVEL=2 MOS card (Grove-Frohman, as
 * ngspice 39's MOS2 at the nominal temperature, without VMAX and NFS) as one
 * smooth function of the terminal voltages with its gradient (lcs.h
 * nsc_smooth_fn); mos6.c stamps it in place of level 1's channel for the
 * transistors with a body effect (dev_m.c). */
#ifndef NSC_MOS2_H
#define NSC_MOS2_H

struct nsc_model; /* circuit/circuit.h */

/* The channel's constants (nsc_m2_make) and where its voltages are: x[probe[t]]
 * is terminal t's (d g s b), probe[t] < 0: ground. */
typedef struct nsc_mos2 {
    int probe[4], nin; /* nin: the distinct inputs x[0 .. nin) */
    double p;          /* +1 NMOS, -1 PMOS */
    double vbi;        /* p VTO - GAMMA sqrt(PHI) */
    double phi, gamma; /* V, V^0.5 */
    double beta;       /* KP W m / Leff, A/V^2 */
    double leff, xd, xj;
    double factor;   /* DELTA's narrow-channel term pi DELTA EPS_SI / (4 Cox W m) */
    double ucrit_v;  /* UCRIT 100 EPS_SI / Cox: the overdrive where mobility falls, V */
    double uexp;     /* UEXP */
    double lambda;   /* LAMBDA (0: from the depletion width, with NSUB) */
    int nsub;        /* 1: NSUB given (xd > 0, the depletion-width LAMBDA) */
    double xwb, xld; /* punch-through: the shortest channel, Leff - XD sqrt(PB) */
} nsc_mos2;

/* 1 when name is a parameter the level-2 channel reads (besides dev_m.c's). */
int nsc_m2_known(const char *name);
/* 1 when card m (LEVEL=2) can be simulated by nsc_m2_current: VMAX and NFS are 0. */
int nsc_m2_usable(const struct nsc_model *m);
/* The constants of card m for p, vto (the card's VTO, not p-signed), kp (A/V^2),
 * gamma, phi, cox (F/m^2), pb (V), lambda, nsub (cm^-3, 0: not given), w, leff,
 * mult into two (probe, nin left to the caller). 0, or -1 with a bad UCRIT UEXP XJ DELTA. */
int nsc_m2_make(const struct nsc_model *m, double p, double vto, double kp, double gamma,
                double phi, double cox, double pb, double lambda, double nsub, double w,
                double leff, double mult, nsc_mos2 *two);
/* p id (the current d -> s) at the terminal voltages x, its gradient into g
 * (par: an nsc_mos2). */
double nsc_m2_current(const void *par, const double *x, double *g);

#endif
