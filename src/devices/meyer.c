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
 * not of v_gb. The charges are p times these (a PMOS's gate charge is negative).
 *
 * Derivatives (nsc_meyer_charge's gradient, by hand; a_s, a_d have d/dv_g = p,
 * d/dv_s resp. d/dv_d = -p): in the triode, with S = A^4 + B^4, D = A + B,
 * N = A^2 + A^5 B/S (Q_s = 2/3 C N/D),
 *   dN/dA = 2A + A^4 B (A^4 + 5 B^4)/S^2,  dN/dB = A^5 (A^4 - 3 B^4)/S^2,
 *   d(N/D)/dX = (dN/dX - N/D)/D;
 * Q_d the same with A and B exchanged; q_b' above. At a region's edge the
 * form below it holds (each test a strict >), as ngspice's regions. At a_s =
 * a_d (V_DS = 0, every transistor of a circuit at z = 0, where the charges are
 * first linearised: lcs_asm.c smooth_at0) q_b(max(a_s, a_d)) has a kink: its
 * slope q_b' goes half to a_s and half to a_d (the mean of its one-sided
 * gradients), symmetric in s and d. All of it on a_d made a gate's charge
 * C (v_g - v_d) there: the nodes of a CMOS ring, whose only capacitance is the
 * gate's, had the cyclic capacitance matrix of rows C (v_k - v_k+1)', which
 * is singular (rows summing to zero), and the first transient matrix with it. */
#include "meyer.h"

/* a_t = p (v_g - v_t) - p VTO of terminal t (0 d, 2 s) at the inputs x */
static double ov(const nsc_meyer_q *Q, const double *x, int t)
{
    double vg = Q->in[1] >= 0 ? x[Q->in[1]] : 0, vt = Q->in[t] >= 0 ? x[Q->in[t]] : 0;
    return (Q->p > 0 ? vg - vt : vt - vg) - Q->pvto;
}

/* Side X's channel charge over 2/3 C (X its overdrive, Y the other side's):
 *   X, Y > 0:  N/D = (X^2 + X Y X^4/(X^4 + Y^4))/(X + Y),  else max(X, 0);
 * its partial derivatives in X, Y into *dx, *dy (the header's). */
static double channel(double X, double Y, double *dx, double *dy)
{
    if (X > 0 && Y > 0) {
        double X2 = X * X, X4 = X2 * X2, Y2 = Y * Y, Y4 = Y2 * Y2, S = X4 + Y4, D = X + Y;
        double q = (X2 + X * Y * X4 / S) / D, S2 = S * S;
        *dx = (2 * X + X4 * Y * (X4 + 5 * Y4) / S2 - q) / D;
        *dy = (X * X4 * (X4 - 3 * Y4) / S2 - q) / D;
        return q;
    }
    *dx = X > 0 ? 1 : 0;
    *dy = 0;
    return X > 0 ? X : 0;
}

/* q_b(u) (the header's four regions) and q_b'(u) into *du */
static double qb(double u, double phi, double *du)
{
    if (u > 0) {
        *du = 0;
        return 0;
    }
    if (u > -phi / 2) {
        *du = u / (3 * phi) + 2.0 / 3;
        return u * u * (1 / (6 * phi)) + u * (2.0 / 3);
    }
    if (u > -phi) {
        *du = -u / phi;
        return u * u * (-1 / (2 * phi)) + -phi / 6;
    }
    *du = 1;
    return u + phi / 3;
}

double nsc_meyer_charge(const void *par, const double *x, double *g)
{
    const nsc_meyer_q *Q = par;
    double as = ov(Q, x, 2), ad = ov(Q, x, 0), das = 0, dad = 0, q = 0;
    if (Q->side >= 0) { /* k channel(X, Y), X = a_side */
        double dx, dy;
        q = Q->kc * (Q->side == 2 ? channel(as, ad, &dx, &dy) : channel(ad, as, &dx, &dy));
        das = Q->kc * (Q->side == 2 ? dx : dy);
        dad = Q->kc * (Q->side == 2 ? dy : dx);
    }
    if (Q->bulk) { /* + C p q_b(u), u = max(a_s, a_d) */
        double du, b = qb(as > ad ? as : ad, Q->phi, &du);
        q += Q->kb * b;
        if (as != ad) *(as > ad ? &das : &dad) += Q->kb * du;
        else { /* the kink of max at a tie: half of the slope to each side */
            das += 0.5 * Q->kb * du;
            dad += 0.5 * Q->kb * du;
        }
    }
    for (int i = 0; i < Q->nin; i++) g[i] = 0;
    if (Q->in[1] >= 0) g[Q->in[1]] += Q->p * (das + dad); /* d a_s/dv_g = d a_d/dv_g = p */
    if (Q->in[2] >= 0) g[Q->in[2]] -= Q->p * das;
    if (Q->in[0] >= 0) g[Q->in[0]] -= Q->p * dad;
    return q;
}

void nsc_meyer_make(const int node[4], double p, double vto, double cox, double phi, nsc_meyer *m)
{
    int in[3];
    m->nin = 0;
    for (int t = 0; t < 3; t++) { /* the inputs d g s: distinct, not ground */
        int q = 0;
        while (q < m->nin && node[m->term[q]] != node[t]) q++;
        if (node[t] && q == m->nin) m->term[m->nin++] = t;
        in[t] = node[t] ? q : -1;
    }
    int tb = node[3] == node[2]   ? 2
             : node[3] == node[0] ? 0
                                  : 3; /* Q_b joins Q_s or Q_d on a shared node */
    m->nq = tb == 3 ? 3 : 2;
    for (int k = 0; k < m->nq; k++) {
        m->to[k] = k == 0 ? 2 : k == 1 ? 0 : 3;
        m->q[k] = (nsc_meyer_q){ m->nin,
                                 { in[0], in[1], in[2] },
                                 k < 2 ? m->to[k] : -1,
                                 tb == m->to[k],
                                 p,
                                 p * vto,
                                 2.0 / 3 * cox * p,
                                 cox * p,
                                 phi };
    }
}
