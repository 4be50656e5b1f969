/* meyer.h -- the intrinsic gate charge of a level 1-3 MOS card (dev_m.c) as
 * charges of its terminal voltages: Meyer's capacitances in a charge-conserving
 * form (meyer.c has the formulation), each charge one smooth function of the
 * element's branch unknown x, row 0 = -x + q(v), whose x' leaves the gate and
 * enters another terminal (as dev_cq.c). The charges are closed forms computed
 * in C (nsc_meyer_charge, an lcs.h nsc_smooth_fn: value and gradient), not
 * expression code. */
#ifndef NSC_MEYER_H
#define NSC_MEYER_H

/* The most charges of one transistor. */
#define NSC_MEYER_NQ 3

/* One charge's parameter block (nsc_meyer_charge's par). */
typedef struct nsc_meyer_q {
    int nin;        /* the function's inputs: the distinct, non-ground nodes of d g s */
    int in[3];      /* input index of terminal t's voltage (0 d, 1 g, 2 s), -1: ground */
    int side;       /* the channel charge's side: 2 (Q_s) or 0 (Q_d), -1: none */
    int bulk;       /* 1: C q_b(u) added (Q_b, alone or on a shared node) */
    double p, pvto; /* the sign (+1 NMOS, -1 PMOS), p VTO */
    double kc, kb;  /* 2/3 C p, C p (C = Cox W Leff m) */
    double phi;     /* PHI */
} nsc_meyer_q;

typedef struct nsc_meyer {
    int nq;                      /* charges: 2 (bulk on the source or drain) or 3 */
    int to[NSC_MEYER_NQ];        /* charge k's x' leaves g, enters terminal to[k] (0 d, 2 s, 3 b) */
    int nin, term[3];            /* input q is v of terminal term[q] (distinct, not ground) */
    nsc_meyer_q q[NSC_MEYER_NQ]; /* charge k's parameters */
} nsc_meyer;

/* The charges of a transistor whose terminals d g s b are on nodes node[0..4)
 * (0: ground), p = +1 NMOS, -1 PMOS, threshold vto (the card's, p-signed), cox
 * = Cox W Leff m (F, > 0), phi = PHI (V, > 0), into m. */
void nsc_meyer_make(const int node[4], double p, double vto, double cox, double phi, nsc_meyer *m);

/* Charge q_k (C) at the inputs x[nin] (par: &m->q[k], nsc_meyer_q), its
 * gradient dq_k/dx into g[nin] (lcs.h nsc_smooth_fn). */
double nsc_meyer_charge(const void *par, const double *x, double *g);

#endif
