/* meyer.c -- Meyer's gate capacitances of a level 1-3 MOS card as charges
 * (meyer.h).
 *
 * Meyer's model (SPICE2, ngspice 39's DEVqmeyer), C = Cox W Leff, in the
 * transistor's frame (p = +1 NMOS, -1 PMOS): the overdrives a_s = p (v_g - v_s)
 * - p VTO, a_d = p (v_g - v_d) - p VTO, u the larger (the source is the side
 * of the larger one), w the other:
 *   u <= -PHI:           Cgb = C
 *   -PHI < u <= -PHI/2:  Cgb = -C u/PHI
 *   -PHI/2 < u <= 0:     Cgb = -C u/PHI,  Cgs = C (2/3 + 4 u/(3 PHI))
 *   u > 0, w <= 0:       Cgs = 2/3 C                                 (saturation)
 *   u > 0, w > 0:        Cgs = 2/3 C (1 - w^2/(u+w)^2), Cgd = 2/3 C (1 - u^2/(u+w)^2)   (triode)
 * (vdsat = u: the level-1 square law for every level, as dev_m.c's channel).
 *
 * As charges whose derivatives carry the currents (each a function of the
 * terminal voltages, what leaves the gate entering s, d or b: charge-conserving):
 *   Q_b (g -> b) = C q_b(u),  q_b = u + PHI/3          (u <= -PHI)
 *                                   -u^2/(2 PHI) - PHI/6  (-PHI < u <= -PHI/2)
 *                                   2u/3 + u^2/(6 PHI)    (-PHI/2 < u <= 0)
 *                                   0                     (u > 0)
 *     q_b' = Cgb + the sub-threshold Cgs above over C (C^1 at its joints);
 *   A = max(a_s, 0), B = max(a_d, 0); triode (A, B > 0):
 *   Q_s (g -> s) = 2/3 C (A^2 + A B w(A, B))/(A + B),  Q_d (g -> d) = 2/3 C (B^2 + A B w(B, A))/(A + B),
 *   w(X, Y) = X^4/(X^4 + Y^4); else Q_s = 2/3 C A, Q_d = 2/3 C B (one of them 0).
 * Q_s + Q_d = 2/3 C (A^2 + A B + B^2)/(A + B), Meyer's triode gate charge,
 * whose partial derivatives in A and B are Meyer's Cgs and Cgd: the gate's
 * current is Meyer's in every region. The split between source and drain:
 * Meyer's in cut-off and saturation (Q_s = 2/3 C A, Q_d = 0); in the triode
 * 2/3 C B^2/(A + B), the integral of Meyer's Cgd from the saturation edge at
 * the gate's voltage (the drain's current Meyer's where v_g holds still),
 * plus the share w(B, A) of 2/3 C A B/(A + B) that makes Q_s(A, B) = Q_d(B, A)
 * (symmetric in s and d: no mode switch, continuous where V_DS changes sign;
 * w's 4th power keeps the share off the drain until V_DS is small: C^1 at the
 * saturation edge). Meyer's capacitances are not the derivatives of terminal
 * charges (ngspice integrates C(v) dv, C averaged over the step): its drain
 * takes 2/3 C A/2 = C A/3 going from saturation to V_DS = 0 at a fixed gate,
 * where any symmetric charge has C A/2 there; the 15-inverter chain of
 * tests/data/meyer is +1.9 % off ngspice's delay for it (2nd power: +2.4 %,
 * w = 1/2: +3.0 %). The sub-threshold ramp and the depletion charge return
 * through the bulk (ngspice's ramp: through the source; the same where bulk
 * and source share a node, the usual), as functions of u (ngspice's regions),
 * not of v_gb. The charges are p times these (a PMOS's gate charge is negative). */
#include "meyer.h"

#include <stddef.h>

#include "base/xfn.h"

typedef struct mq {
    nsc_xinstr *c;
    int n;
    int probe[4];            /* PROBE index of terminal t's voltage, -1: ground */
    double p, vto;           /* the sign, p VTO */
} mq;

static void put(mq *B, nsc_xop op, double x)
{
    if (B->n < NSC_MEYER_MAXCODE) B->c[B->n++] = (nsc_xinstr){ op, 0, 0, x };
}
static void num(mq *B, double x) { put(B, NSC_XOP_NUM, x); }
static void op(mq *B, nsc_xop o) { put(B, o, 0); }

/* v of terminal t */
static void vt(mq *B, int t)
{
    if (B->probe[t] < 0) num(B, 0);
    else if (B->n < NSC_MEYER_MAXCODE) B->c[B->n++] = (nsc_xinstr){ NSC_XOP_PROBE, B->probe[t], 0, 0 };
}

/* a_t = p (v_g - v_t) - p VTO (a ground terminal's v: no instruction) */
static void ov(mq *B, int t)
{
    int x = B->p > 0 ? 1 : t, y = B->p > 0 ? t : 1;         /* p (v_g - v_t) = v_x - v_y */
    if (B->probe[y] < 0) vt(B, x);
    else { vt(B, x); vt(B, y); op(B, NSC_XOP_SUB); }
    num(B, B->vto); op(B, NSC_XOP_SUB);
}

/* a_t^n (base/xfn.h pow: its derivative's ln term is skipped for a constant n) */
static void pown(mq *B, int t, double n)
{
    ov(B, t); num(B, n);
    if (B->n < NSC_MEYER_MAXCODE) B->c[B->n++] = (nsc_xinstr){ NSC_XOP_CALL, nsc_xfn_find("pow"), 2, 0 };
}

/* max(a_t, 0) */
static void pos(mq *B, int t)
{
    ov(B, t); num(B, 0); op(B, NSC_XOP_GT); ov(B, t); num(B, 0); op(B, NSC_XOP_COND);
}

/* Side t's channel charge over k (X = a_t, Y the other side's, t 2: A, t 0: B):
 *   X, Y > 0:  (X^2 + X Y X^4/(X^4 + Y^4))/(X + Y),  else max(X, 0) */
static void channel(mq *B, int t, double k)
{
    int o = t == 2 ? 0 : 2;
    ov(B, o); num(B, 0); op(B, NSC_XOP_GT); ov(B, t); num(B, 0); op(B, NSC_XOP_GT); op(B, NSC_XOP_AND);
    pown(B, t, 2);                                                              /* X^2 */
    ov(B, t); ov(B, o); op(B, NSC_XOP_MUL); pown(B, t, 4); op(B, NSC_XOP_MUL);  /* X Y X^4 */
    pown(B, t, 4); pown(B, o, 4); op(B, NSC_XOP_ADD); op(B, NSC_XOP_DIV); op(B, NSC_XOP_ADD);
    ov(B, t); ov(B, o); op(B, NSC_XOP_ADD); op(B, NSC_XOP_DIV);
    pos(B, t);
    op(B, NSC_XOP_COND);
    num(B, k); op(B, NSC_XOP_MUL);
}

/* q_b(a_t): u > 0 ? 0 : u > -PHI/2 ? 2u/3 + u^2/(6 PHI) : u > -PHI ? -u^2/(2 PHI) - PHI/6 : u + PHI/3, u = a_t */
static void qb(mq *B, int t, double phi)
{
    ov(B, t); num(B, 0); op(B, NSC_XOP_GT);
    num(B, 0);
    ov(B, t); num(B, -phi / 2); op(B, NSC_XOP_GT);
    pown(B, t, 2); num(B, 1 / (6 * phi)); op(B, NSC_XOP_MUL); ov(B, t); num(B, 2.0 / 3); op(B, NSC_XOP_MUL);
    op(B, NSC_XOP_ADD);
    ov(B, t); num(B, -phi); op(B, NSC_XOP_GT);
    pown(B, t, 2); num(B, -1 / (2 * phi)); op(B, NSC_XOP_MUL); num(B, -phi / 6); op(B, NSC_XOP_ADD);
    ov(B, t); num(B, phi / 3); op(B, NSC_XOP_ADD);
    op(B, NSC_XOP_COND); op(B, NSC_XOP_COND); op(B, NSC_XOP_COND);
}

/* k q_b(u), u = max(a_s, a_d): a_s > a_d ? q_b(a_s) : q_b(a_d) */
static void bulk(mq *B, double phi, double k)
{
    ov(B, 2); ov(B, 0); op(B, NSC_XOP_GT); qb(B, 2, phi); qb(B, 0, phi); op(B, NSC_XOP_COND);
    num(B, k); op(B, NSC_XOP_MUL);
}

int nsc_meyer_make(const int node[4], double p, double vto, double cox, double phi, nsc_meyer *m)
{
    mq B = { NULL, 0, { -1, -1, -1, -1 }, p, p * vto };
    m->nin = 0;
    for (int t = 0; t < 3; t++) {                            /* the inputs d g s: distinct, not ground */
        int q = 0;
        while (q < m->nin && node[m->term[q]] != node[t]) q++;
        if (node[t] && q == m->nin) m->term[m->nin++] = t;
        B.probe[t] = node[t] ? q : -1;
    }
    int tb = node[3] == node[2] ? 2 : node[3] == node[0] ? 0 : 3;   /* Q_b joins Q_s or Q_d on a shared node */
    m->nq = tb == 3 ? 3 : 2;
    for (int k = 0; k < m->nq; k++) {
        m->to[k] = k == 0 ? 2 : k == 1 ? 0 : 3;
        B.c = m->code[k];
        B.n = 0;
        if (k < 2) channel(&B, m->to[k], 2.0 / 3 * cox * p);
        if (tb == m->to[k]) bulk(&B, phi, cox * p);
        if (k < 2 && tb == m->to[k]) op(&B, NSC_XOP_ADD);
        if (B.n >= NSC_MEYER_MAXCODE) return -1;
        m->ncode[k] = B.n;
    }
    return 0;
}
