/* meyer.h -- the intrinsic gate charge of a level 1-3 MOS card (dev_m.c) as
 * charges of its terminal voltages: Meyer's capacitances in a charge-conserving
 * form (meyer.c has the formulation), each charge one smooth function
 * (base/xcode.h code) of the element's branch unknown x, row 0 = -x + q(v),
 * whose x' leaves the gate and enters another terminal (as dev_cq.c). */
#ifndef NSC_MEYER_H
#define NSC_MEYER_H

#include "base/xcode.h"

/* The most instructions one charge's code has. */
#define NSC_MEYER_MAXCODE 256
/* The most charges of one transistor. */
#define NSC_MEYER_NQ 3

typedef struct nsc_meyer {
    int nq;                                   /* charges: 2 (bulk on the source or drain) or 3 */
    int to[NSC_MEYER_NQ];                     /* charge k's x' leaves g, enters terminal to[k] (0 d, 2 s, 3 b) */
    int nin, term[3];                         /* PROBE q loads v of terminal term[q] (distinct, not ground) */
    int ncode[NSC_MEYER_NQ];
    nsc_xinstr code[NSC_MEYER_NQ][NSC_MEYER_MAXCODE];
} nsc_meyer;

/* The charges of a transistor whose terminals d g s b are on nodes node[0..4)
 * (0: ground), p = +1 NMOS, -1 PMOS, threshold vto (the card's, p-signed), cox
 * = Cox W Leff m (F, > 0), phi = PHI (V, > 0), into m; -1 when a code would exceed NSC_MEYER_MAXCODE. */
int nsc_meyer_make(const int node[4], double p, double vto, double cox, double phi, nsc_meyer *m);

#endif
