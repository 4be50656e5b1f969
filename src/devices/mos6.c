/* mos6.c -- a LEVEL=6 MOS card (Sakurai and Newton's n-th power law, as
 * ngspice 39's MOS6 at the nominal temperature) as smooth functions of the
 * terminal voltages (lcs.h nsc_smooth, solved by the Newton iteration of the
 * one-step problem), built as code (base/xcode.h) whose PROBEs are the
 * terminals' voltages; dev_m.c stamps them for its LEVEL=6 elements.
 *
 * Why not the PWL form of levels 1-3: their current is K/2 (f(x_s) - f(x_d)),
 * one convex function of each side's overdrive, which complementarity pairs
 * hold exactly up to the fit; the power law's triode current
 *   I_sat (2 - v/V_sat) v/V_sat,  V_sat = KV g^NV,  I_sat = KC W/Leff g^NC,
 * is of that form only when NV = KV = 1 and NC = 2 (then it is
 * KC W/Leff (x_s^2 - x_d^2)), and LAMBDA, GAMMA, SIGMA couple it to v_ds
 * and v_bs. A PWL form would be a 2-D fit (approximate, many pairs); the
 * smooth functions are the card's equations to the Newton tolerance
 * (1e-9 relative), at 2-4 iterations per step (test devmos6).
 *
 * With p = +1 (NMOS) or -1 (PMOS) and every voltage p-scaled (v_xy = p (v_x - v_y)):
 *   u0, the channel d -> s: p id, id = F(v_gs, v_bs, v_ds) for v_ds >= 0,
 *     -F(v_gd, v_bd, -v_ds) below (the terminals' roles swap), where, with
 *     b the bulk's voltage to the conducting side and x the v_ds >= 0:
 *       sarg = sqrt(PHI - b) (b <= 0), max(0, sqrt(PHI) - b / (2 sqrt(PHI))) (b > 0),
 *       von = p VTO - GAMMA sqrt(PHI) + GAMMA sarg - GAMMA1 b - SIGMA x,
 *       g = v_g - von;  F = 0 for g <= 0, else
 *       F = KC W/Leff g^NC (1 + (LAMBDA0 - LAMBDA1 b) x) (x < V_sat: times (2 - x/V_sat) x/V_sat),
 *       V_sat = KV g^NV (LAMBDA sets LAMBDA0 when LAMBDA0 is not given);
 *   u1, u2, the bulk junctions b -> d and b -> s (when b is not on that node):
 *     p (I_s (e(v_b. / Vt) - 1) + GMIN v_b.), I_s = JS AD (AS) when JS, AD, AS
 *     are all given, else IS (1e-14), e(x) = exp(x) up to x = 40, then
 *     exp(40)(1 + x - 40) (C^1; no overflow while Newton searches).
 * KC defaults to 5e-5 A/V^NC, or to UO Cox / 2 when TOX is given (ngspice).
 * Each u_k is a branch unknown with its row 0 = -u_k + f_k(v_d, v_g, v_s, v_b). */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "mos6.h"
#include "base/xfn.h"

#define VT_300 (1.380649e-23 * 300.15 / 1.602176634e-19) /* kT/q, V */
#define M6_GMIN 1e-12                                    /* S across each junction, as SPICE */
#define M6_XMAX 40.0                                     /* the junctions' exponent, linear above */

typedef struct m6_card {
    double kv, nv, kc, nc, lambda, lambda0, lambda1, gamma, gamma1, sigma, phi, is, js;
} m6_card;
enum { G6_KC = 1 << 2, G6_LAMBDA0 = 1 << 5 };
#define M6_P(f, def) \
    { \
#f, offsetof(m6_card, f), def, 0 \
    }
static const nsc_par M6_PAR[] = {
    M6_P(kv, 2),      M6_P(nv, 0.5),    M6_P(kc, 5e-5), M6_P(nc, 1),     M6_P(lambda, 0),
    M6_P(lambda0, 0), M6_P(lambda1, 0), M6_P(gamma, 0), M6_P(gamma1, 0), M6_P(sigma, 0),
    M6_P(phi, 0.6),   M6_P(is, 1e-14),  M6_P(js, 0),
};
#define M6_NPAR ((int)(sizeof M6_PAR / sizeof M6_PAR[0]))

int nsc_m6_known(const char *name)
{
    return nsc_par_known(M6_PAR, M6_NPAR, 0, name);
}

/* ---- code building ---- */
typedef struct mb {
    nsc_xinstr *c;
    int n, max;   /* instructions in c, room */
    int probe[4]; /* PROBE index of terminal d g s b, -1: ground (0 V) */
    double p;     /* polarity */
    const m6_card *k;
    double vto, beta; /* p VTO - GAMMA sqrt(PHI); KC W/Leff m */
} mb;

static void op(mb *B, nsc_xop o)
{
    if (B->n < B->max) B->c[B->n++] = (nsc_xinstr){ o, 0, 0, 0 };
}
static void num(mb *B, double x)
{
    if (B->n < B->max) B->c[B->n++] = (nsc_xinstr){ NSC_XOP_NUM, 0, 0, x };
}
static void call(mb *B, const char *f)
{
    if (B->n < B->max) B->c[B->n++] = (nsc_xinstr){ NSC_XOP_CALL, nsc_xfn_find(f), 1, 0 };
}
static void term(mb *B, int t)
{
    if (B->probe[t] >= 0 && B->n < B->max)
        B->c[B->n++] = (nsc_xinstr){ NSC_XOP_PROBE, B->probe[t], 0, 0 };
    else num(B, 0);
}

/* p (v_a - v_b), terminals a, b (0 d, 1 g, 2 s, 3 b) */
static void vab(mb *B, int a, int b)
{
    term(B, a);
    term(B, b);
    op(B, NSC_XOP_SUB);
    if (B->p < 0) op(B, NSC_XOP_NEG);
}

/* the conducting side c (2: the source, v_ds >= 0; 0: the drain): x = v_dc >= 0, b = v_bc */
static void xds(mb *B, int c)
{
    vab(B, c == 2 ? 0 : 2, c);
}
static void vb(mb *B, int c)
{
    vab(B, 3, c);
}

/* sarg of the header (emitted only when GAMMA != 0) */
static void sarg(mb *B, int c)
{
    double sp = sqrt(B->k->phi);
    vb(B, c);
    num(B, 0);
    op(B, NSC_XOP_LE);
    num(B, B->k->phi);
    vb(B, c);
    op(B, NSC_XOP_SUB);
    call(B, "sqrt");
    num(B, sp);
    vb(B, c);
    num(B, 0.5 / sp);
    op(B, NSC_XOP_MUL);
    op(B, NSC_XOP_SUB); /* t = sqrt(PHI) - b/(2 sqrt(PHI)) */
    num(B, 0);
    op(B, NSC_XOP_GT);
    num(B, sp);
    vb(B, c);
    num(B, 0.5 / sp);
    op(B, NSC_XOP_MUL);
    op(B, NSC_XOP_SUB);
    num(B, 0);
    op(B, NSC_XOP_COND); /* max(0, t) */
    op(B, NSC_XOP_COND);
}

/* g = v_gc - von */
static void gov(mb *B, int c)
{
    const m6_card *k = B->k;
    vab(B, 1, c);
    num(B, B->vto);
    op(B, NSC_XOP_SUB);
    if (k->gamma != 0) {
        sarg(B, c);
        num(B, k->gamma);
        op(B, NSC_XOP_MUL);
        op(B, NSC_XOP_SUB);
    }
    if (k->gamma1 != 0) {
        vb(B, c);
        num(B, k->gamma1);
        op(B, NSC_XOP_MUL);
        op(B, NSC_XOP_ADD);
    }
    if (k->sigma != 0) {
        xds(B, c);
        num(B, k->sigma);
        op(B, NSC_XOP_MUL);
        op(B, NSC_XOP_ADD);
    }
}

/* g^e */
static void gpow(mb *B, int c, double e)
{
    gov(B, c);
    if (e != 1) {
        num(B, e);
        op(B, NSC_XOP_POW);
    }
}
/* V_sat = KV g^NV */
static void vsat(mb *B, int c)
{
    gpow(B, c, B->k->nv);
    num(B, B->k->kv);
    op(B, NSC_XOP_MUL);
}

/* F of the header for the conducting side c */
static void chan_f(mb *B, int c)
{
    const m6_card *k = B->k;
    gov(B, c);
    num(B, 0);
    op(B, NSC_XOP_GT); /* g > 0 */
    gpow(B, c, k->nc);
    num(B, B->beta);
    op(B, NSC_XOP_MUL);                       /* I_sat */
    if (k->lambda0 != 0 || k->lambda1 != 0) { /* (1 + (L0 - L1 b) x) */
        num(B, k->lambda0);
        if (k->lambda1 != 0) {
            vb(B, c);
            num(B, k->lambda1);
            op(B, NSC_XOP_MUL);
            op(B, NSC_XOP_SUB);
        }
        xds(B, c);
        op(B, NSC_XOP_MUL);
        num(B, 1);
        op(B, NSC_XOP_ADD);
        op(B, NSC_XOP_MUL);
    }
    xds(B, c);
    vsat(B, c);
    op(B, NSC_XOP_LT); /* x < V_sat: the triode */
    num(B, 2);
    xds(B, c);
    vsat(B, c);
    op(B, NSC_XOP_DIV);
    op(B, NSC_XOP_SUB);
    xds(B, c);
    op(B, NSC_XOP_MUL);
    vsat(B, c);
    op(B, NSC_XOP_DIV); /* (2 - x/V_sat) x/V_sat */
    num(B, 1);
    op(B, NSC_XOP_COND);
    op(B, NSC_XOP_MUL);
    num(B, 0);
    op(B, NSC_XOP_COND);
}

/* u0 = p id */
static void channel(mb *B)
{
    xds(B, 2);
    num(B, 0);
    op(B, NSC_XOP_GE);
    chan_f(B, 2);
    chan_f(B, 0);
    op(B, NSC_XOP_NEG);
    op(B, NSC_XOP_COND);
    if (B->p < 0) op(B, NSC_XOP_NEG);
}

/* the junction b -> c of saturation current is: p (IS (e(v/Vt) - 1) + GMIN v), v = v_bc */
static void junction(mb *B, int c, double is)
{
    double e40 = exp(M6_XMAX);
    vb(B, c);
    num(B, VT_300);
    op(B, NSC_XOP_DIV);
    num(B, M6_XMAX);
    op(B, NSC_XOP_LT);
    vb(B, c);
    num(B, VT_300);
    op(B, NSC_XOP_DIV);
    call(B, "exp");
    vb(B, c);
    num(B, VT_300);
    op(B, NSC_XOP_DIV);
    num(B, 1 - M6_XMAX);
    op(B, NSC_XOP_ADD);
    num(B, e40);
    op(B, NSC_XOP_MUL);
    op(B, NSC_XOP_COND);
    num(B, 1);
    op(B, NSC_XOP_SUB);
    num(B, is);
    op(B, NSC_XOP_MUL);
    vb(B, c);
    num(B, M6_GMIN);
    op(B, NSC_XOP_MUL);
    op(B, NSC_XOP_ADD);
    if (B->p < 0) op(B, NSC_XOP_NEG);
}

/* ---- binding ---- */

/* The functions of card k (checked by the caller) into six: the element e's
 * terminals, p, vto (the card's, not p-signed), W/Leff w / leff, mult. */
static nsc_status m6_build(const nsc_element *e, double p, double vto, const m6_card *k, double w,
                           double leff, double mult, nsc_report *r, nsc_mos6 *six)
{
    memset(six, 0, sizeof *six);
    six->vto = vto, six->kc = k->kc, six->kv = k->kv, six->nv = k->nv, six->nc = k->nc;
    mb B = { NULL,
             0,
             0,
             { -1, -1, -1, -1 },
             p,
             k,
             p * vto - k->gamma * sqrt(k->phi),
             k->kc * w / leff * mult };
    for (int t = 0; t < 4; t++) { /* the inputs: distinct, not ground */
        int q = 0;
        while (q < six->nin && e->node[six->term[q]] != e->node[t]) q++;
        if (e->node[t] && q == six->nin) six->term[six->nin++] = t;
        B.probe[t] = e->node[t] ? q : -1;
    }
    double ad = e->ipar[3], as = e->ipar[4]; /* dev_m.c's AD= AS= */
    int area = k->js > 0 && ad > 0 && as > 0;
    double isat[2] = { mult * (area ? k->js * ad : k->is), mult * (area ? k->js * as : k->is) };
    for (int f = 0; f < NSC_M6_NF; f++) {
        B.c = f ? six->junc[f - 1] : six->chan;
        B.max = f ? NSC_M6_JCODE : NSC_M6_MAXCODE;
        B.n = 0;
        int t = f == 1 ? 0 : 2; /* the junction's other terminal */
        if (f == 0) channel(&B);
        else if (isat[f - 1] > 0 && e->node[3] != e->node[t]) junction(&B, t, isat[f - 1]);
        if (B.n >= B.max)
            return nsc_err(r, NSC_ENETLIST, &e->loc, "MOS transistor %s: code too long", e->name);
        six->ncode[f] = B.n;
    }
    return NSC_OK;
}

nsc_status nsc_m6_params(const nsc_element *e, double p, double vto, double cox, double uo,
                         double w, double leff, double mult, nsc_report *r, nsc_mos6 *six)
{
    const nsc_model *m = e->model;
    m6_card k;
    unsigned given = nsc_par_read(m, M6_PAR, M6_NPAR, &k);
    if (!(given & G6_LAMBDA0)) k.lambda0 = k.lambda;
    if (!(given & G6_KC) && cox > 0) k.kc = 0.5 * uo * 1e-4 * cox; /* UO in cm^2/Vs */
    if (!(k.kv > 0 && k.nv > 0 && k.kc > 0 && k.nc > 0 && k.phi > 0 && k.is >= 0 && k.js >= 0
          && k.gamma >= 0))
        return nsc_err(r, NSC_ENETLIST, &m->loc,
                       "MOS model '%s' (LEVEL=6): need KV, NV, KC, NC, PHI > 0 and IS, JS, "
                       "GAMMA >= 0",
                       m->name);
    return m6_build(e, p, vto, &k, w, leff, mult, r, six);
}

/* Level 1 (Shichman-Hodges, ngspice's MOS1) is the power law with NC = 2,
 * NV = KV = 1, KC = KP/2, LAMBDA0 = LAMBDA, no GAMMA1, LAMBDA1, SIGMA:
 *   triode KP/2 W/Leff (2 g - x) x (1 + LAMBDA x), saturation KP/2 W/Leff g^2 (1 + LAMBDA x),
 * with g = v_gs - von and von's body effect of the header (the same sarg). */
nsc_status nsc_m6_level1(const nsc_element *e, double p, double vto, double kp, double gamma,
                         double phi, double lambda, double w, double leff, double mult,
                         nsc_report *r, nsc_mos6 *six)
{
    m6_card k;
    nsc_par_read(e->model, M6_PAR, M6_NPAR, &k); /* IS, JS (the junctions) */
    k.kv = 1, k.nv = 1, k.nc = 2, k.kc = 0.5 * kp;
    k.lambda = k.lambda0 = lambda, k.lambda1 = 0;
    k.gamma = gamma, k.gamma1 = 0, k.sigma = 0, k.phi = phi;
    if (!(k.is >= 0 && k.js >= 0))
        return nsc_err(r, NSC_ENETLIST, &e->model->loc, "MOS model '%s': IS, JS must be >= 0",
                       e->model->name);
    return m6_build(e, p, vto, &k, w, leff, mult, r, six);
}

nsc_status nsc_m6_level2(const nsc_element *e, double p, double vto, double kp, double gamma,
                         double phi, double lambda, double cox, double pb, double nsub, double w,
                         double leff, double mult, nsc_report *r, nsc_mos6 *six)
{
    nsc_status s = nsc_m6_level1(e, p, vto, kp, gamma, phi, lambda, w, leff, mult, r, six);
    if (s) return s;
    if (nsc_m2_make(e->model, p, vto, kp, gamma, phi, cox, pb, lambda, nsub, w, leff, mult,
                    &six->two))
        return nsc_err(r, NSC_ENETLIST, &e->model->loc,
                       "MOS model '%s' (LEVEL=2): need UCRIT, PB > 0 and UEXP, XJ, DELTA >= 0",
                       e->model->name);
    six->two.nin = six->nin; /* the inputs of m6_build's channel */
    for (int t = 0; t < 4; t++) {
        six->two.probe[t] = -1;
        for (int q = 0; q < six->nin; q++)
            if (e->node[t] && e->node[six->term[q]] == e->node[t]) six->two.probe[t] = q;
    }
    six->l2 = 1;
    return NSC_OK;
}

/* ---- the rows ---- */

int nsc_m6_nbranch(const nsc_mos6 *six)
{
    return 1 + (six->ncode[1] > 0) + (six->ncode[2] > 0);
}

/* the unknowns in order: u0 d -> s, then b -> d, b -> s when present */
void nsc_m6_stamp(nsc_builder *b, int ei, int u, const nsc_mos6 *six)
{
    const nsc_element *e = &b->c->el[ei];
    int in[4];
    for (int q = 0; q < six->nin; q++) in[q] = nsc_zn(e->node[six->term[q]]);
    for (int f = 0; f < NSC_M6_NF; f++) {
        if (!six->ncode[f]) continue;
        int from = f == 0 ? e->node[0] : e->node[3], to = f == 1 ? e->node[0] : e->node[2];
        nsc_st_inc(b, from, to, u); /* the current u leaves `from`, enters `to` */
        if (f == 0 && six->l2)      /* C code: mos2.c */
            nsc_st_smooth_fn_at0(b, ei, u, in, six->nin, nsc_m2_current, &six->two);
        else
            nsc_st_smooth_at0(b, ei, u, in, six->nin, f ? six->junc[f - 1] : six->chan,
                              six->ncode[f]);
        u++;
    }
}

nsc_status nsc_m6_current(const nsc_mos6 *six, int u, int t, double w, nsc_lin *f)
{
    int ubd = u + 1, ubs = u + 1 + (six->ncode[1] > 0);
    if (t == 0) { /* into d: u0 - i_bd */
        if (nsc_lin_add(f, NSC_T_Z, u, w)) return NSC_ENOMEM;
        return six->ncode[1] ? nsc_lin_add(f, NSC_T_Z, ubd, -w) : NSC_OK;
    }
    if (six->ncode[1] && nsc_lin_add(f, NSC_T_Z, ubd, w))
        return NSC_ENOMEM; /* into b: i_bd + i_bs */
    return six->ncode[2] ? nsc_lin_add(f, NSC_T_Z, ubs, w) : NSC_OK;
}
