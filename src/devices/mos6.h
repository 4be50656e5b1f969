/* mos6.h -- a LEVEL=6 MOS card's channel and bulk junctions as smooth
 * functions (mos6.c), used by dev_m.c (the M device) for those cards. */
#ifndef NSC_MOS6_H
#define NSC_MOS6_H

#include "device.h"
#include "mos2.h"

#define NSC_M6_NF 3        /* functions: the channel, the b-d and b-s junctions */
#define NSC_M6_MAXCODE 800 /* instructions of the channel (611 with every parameter) */
#define NSC_M6_JCODE 48    /* of a junction (38) */

/* The element's functions: f = 0 chan[0 .. ncode[0]), f = 1, 2 junc[f - 1][0 ..
 * ncode[f]) (0: none), PROBE q = v of terminal term[q] (d g s b), nin of them
 * (distinct, not ground). */
typedef struct nsc_mos6 {
    int nin, term[4];
    int ncode[NSC_M6_NF];
    double vto, kc, kv, nv, nc; /* as read (the warning's summary) */
    nsc_xinstr chan[NSC_M6_MAXCODE];
    nsc_xinstr junc[2][NSC_M6_JCODE];
    int l2; /* 1: the channel is two's (level 2, C code), not chan */
    nsc_mos2 two;
} nsc_mos6;

/* 1 when name is a parameter this model reads (besides dev_m.c's). */
int nsc_m6_known(const char *name);
/* Element e's LEVEL=6 card into six, checked, for width w, effective length
 * leff, mult in parallel (p: +1 NMOS, -1 PMOS; vto: the card's VTO; cox: Cox,
 * F/m^2, 0 without TOX; uo: cm^2/Vs). Errors in r. */
nsc_status nsc_m6_params(const nsc_element *e, double p, double vto, double cox, double uo,
                         double w, double leff, double mult, nsc_report *r, nsc_mos6 *six);
/* A level 1-3 card's level-1 equations with the body effect (dev_m.c, GAMMA
 * and PHI as ngspice derives them), as the power law NC = 2, NV = KV = 1,
 * KC = KP/2 (kp: A/V^2, the card's), LAMBDA; IS, JS read from the card. */
nsc_status nsc_m6_level1(const nsc_element *e, double p, double vto, double kp, double gamma,
                         double phi, double lambda, double w, double leff, double mult,
                         nsc_report *r, nsc_mos6 *six);
/* A LEVEL=2 card's own equations with the body effect (mos2.h; VMAX = NFS = 0,
 * nsc_m2_usable): nsc_m6_level1's junctions, the channel level 2's with cox
 * (F/m^2, ngspice's: TOX or 1e-7 m), pb (PB), nsub (cm^-3, 0: not given). */
nsc_status nsc_m6_level2(const nsc_element *e, double p, double vto, double kp, double gamma,
                         double phi, double lambda, double cox, double pb, double nsub, double w,
                         double leff, double mult, nsc_report *r, nsc_mos6 *six);
/* Its branch unknowns (the channel's and each junction's current). */
int nsc_m6_nbranch(const nsc_mos6 *six);
/* Its rows from branch unknown u on (the currents' KCL entries and the functions). */
void nsc_m6_stamp(nsc_builder *b, int ei, int u, const nsc_mos6 *six);
/* f += w times the current into terminal t (0: the drain, 3: the body) of the
 * channel and the junctions (u: the first branch unknown). */
nsc_status nsc_m6_current(const nsc_mos6 *six, int u, int t, double w, nsc_lin *f);

#endif
