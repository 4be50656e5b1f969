/* dev_q.c -- bipolar transistor Q c b e [s] model [area] (netlist.md), the
 * transport form of the Ebers-Moll model (SPICE's Gummel-Poon at level 1,
 * without high injection), piecewise linear but for the Early effect:
 *     .model name NPN|PNP(IS BF BR NF NR [ISE NE ISC NC] [VAF VAR] [RB RC RE]
 *                         [CJE CJC CJS SUBS] [TF TR] [SEGMENTS IMIN IMAX])
 * (ngspice's other names VA VB C2 C4 CCS CSUB read too: Q_ALIAS)
 *
 *   i_F = IS (e^(v_BE/(NF Vt)) - 1),  i_R = IS (e^(v_BC/(NR Vt)) - 1),
 *   I_C = i_F - i_R (1 + 1/BR) - h_C,  I_B = i_F/BF + i_R/BR + h_E + h_C,  I_E = -(I_C + I_B),
 *   h_E = ISE (e^(v_BE/(NE Vt)) - 1),  h_C = ISC (e^(v_BC/(NC Vt)) - 1)
 *
 * (currents into the terminals; PNP: every junction voltage and current
 * reversed, p = -1). Each junction's curve is fitted by nsc_jfit (pwl_exp.c) as
 * the diode's (dev_d.c): IS AREA, NF Vt (NR Vt) on AREA [IMIN, IMAX] (IMIN = 10 mA,
 * IMAX = 1 A) by SEGMENTS = 1 line unless given, nf (nr) pairs in the concave-sum
 * form of nsc_st_jfit (AREA scales the currents: Q AREA=k is k transistors in
 * parallel, RB RC RE included). The fits follow the run (issue 27): a junction
 * whose peak current left the default range, or lies where that fit is more than
 * 10 mV off its curve, is refitted on the currents seen
 * (nsc_jfit_refit, by the fewest chords within 10 mV unless SEGMENTS is given)
 * and the run repeated (run.c), as the diode's (dev_d.c); a junction that
 * stayed on over a transient (its least current, q_step, within NSC_JFIT_BELOW
 * of its peak: a linear stage) is refitted on that band within a fraction of
 * its swing (nsc_jfit_band: the chords' slopes are the stage's gain; one that did
 * not swing, at its level: a matched pair's offset); IMIN/IMAX
 * on the card fix the range; in the AC analysis each fitted junction conducts
 * with its curve's tangent at the operating current (q_ac_tangent: g_m =
 * i_F/(NF Vt), not the chord's slope, which put a 60 uA stage's gain 48 % low):
 *   pair jf (forward): 0 <= lambda_F _|_ y = p (v_e - v_b) + v_F(lambda_F) (the fit),
 *     pairs jf+1..jf+nf-1 its knots' excess currents;
 *   pair jr = jf + nf (reverse): the same with v_c for v_e and the BC fit,
 * so i_F = lambda_F, i_R = lambda_R. Each is injected with the weights of the
 * terminal currents (B is not C^T:
 * the BE junction's current also leaves through the collector):
 *   B[c][F] = -p,  B[b][F] = -p/BF,  B[e][F] = p (1 + 1/BF),
 *   B[c][R] = p (1 + 1/BR),  B[b][R] = -p/BR,  B[e][R] = -p
 * (KCL rows sum the currents into the node: a current into the device is
 * negative there). CJE, CJC (times AREA): constant capacitors b-e and b-c in
 * the transient (VJE, MJE, ... not modelled: SPICE grades them with MJE = MJC
 * = 0.33 by default; as charge-based capacitors they stopped the LM741 netlists'
 * transients at t = 0), CJS a constant capacitor to ground (q_subs). TF > 0: a branch unknown x_F = i_F
 * (row -x_F + sum lambda_F = 0, exact at t_k+1) holding the diffusion charge
 * TF x_F, whose derivative flows b -> e (NPN): E[b][x_F] += p TF,
 * E[e][x_F] -= p TF; TR likewise with x_R = i_R, b -> c (dev_d.c's TT).
 * RB, RC, RE (divided by AREA) are resistors to internal nodes, added by the
 * elaborator (cards_expand.c nsc_card_expand_bjt): node[] are the internal terminals.
 * ISE/NE and ISC/NC, Gummel-Poon's base leakages (b-e and b-c recombination
 * currents, not carried to the collector), are base currents on the junctions'
 * own pairs (q_leak: no pair of their own). VAF, VAR: Gummel-Poon's Early
 * effect without high injection, the transport current (i_F - i_R)/q_b with
 * 1/q_b = 1 - v_BC/VAF - v_BE/VAR (ngspice's q_1; VAF, VAR < 0 taken as ngspice
 * takes them: 1/VAF < 0), the base current unchanged:
 * the correction u = (i_F - i_R)(1/q_b - 1) from c to e (NPN) is a smooth
 * function (q_early_fn) of x_F = i_F, x_R = i_R (exact rows, as TF's) and the
 * terminal voltages, on the Newton iteration of the one-step problem (lcs.h
 * nsc_smooth): every card with VAF or VAR gets it, so its transient runs on
 * the theta-scheme, not the exact stepper (VAF=0 or absent: none, the circuit
 * as before). With TF, the diffusion charge is TF i_F/q_b (ngspice's), a second
 * smooth row w = x_F (1/q_b - 1) beside x_F (q_early_stamp). Other
 * parameters (IKF, ...) are ignored with one warning per model. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cards.h"
#include "device.h"
#include "pwl_exp.h"

#define VT_300 (1.380649e-23 * 300.15 / 1.602176634e-19) /* kT/q, V (dev_d.c's) */

/* The Early effect's transport correction (q_early_fn), a smooth function of
 * the inputs x = (x_F, x_R, then the distinct non-ground terminals among c b e). */
typedef struct q_early {
    int on;            /* VAF or VAR on the card */
    double p;          /* +1 NPN, -1 PNP */
    double ivaf, ivar; /* 1/VAF, 1/VAR (0: not given, infinite) */
    int nin;           /* 2 + the distinct non-ground terminals */
    int at[3];         /* place in x of v_c, v_b, v_e (-1: ground) */
    int term[3];       /* the terminals (0 c, 1 b, 2 e) of x[2..nin) */
    double wr;         /* x_R's weight in d: 1 the transport's u, 0 the charge's w */
} q_early;

typedef struct bjt_par {
    double p; /* +1 NPN, -1 PNP */
    double bf, br;
    nsc_jfit f, r;   /* i_F(v_BE), i_R(v_BC): pairs 0..f.nseg-1, then r.nseg */
    double cje, cjc; /* F, times AREA */
    double tf, tr;   /* s */
    int follow;      /* IMIN, IMAX not on the card: the fits follow the run (q_refit) */
    int seg;         /* SEGMENTS on the card, else 0: a refit takes the fewest within Q_REFIT_TOL */
    int refitted;    /* 1: f or r remade (q_refit): its own fits, named by the element */
    double ise, nevt, isc, ncvt; /* the leakages ISE (e^(v_BE/NE Vt) - 1), ISC on v_BC (A, V) */
    double hle[NSC_JFIT_MAX],
        hlc[NSC_JFIT_MAX]; /* their base currents on f's, r's pairs (q_leak) */
    double lmin[2]; /* i_F's, i_R's least value over the steps since the fits were made (q_step) */
    q_early early;  /* the Early effect (VAF, VAR): early.on 0 without it */
    q_early earlyq; /* the same on x_F alone (wr = 0): the diffusion charge's (TF > 0) */
    double cjs;     /* CJS (CCS): a constant capacitor terminal ts - ground (F, times AREA) */
    int ts;         /* 0 the collector (a vertical transistor), 1 the base (lateral) */
} bjt_par;

/* The card's parameters (netlist.md); RB RC RE make resistors of their own (cards_expand.c). */
typedef struct q_card {
    double is, bf, br, nf, nr, rb, rc, re, cje, cjc, tf, tr, seg, imin, imax, ise, ne, isc, nc, vaf,
        var, cjs, subs;
} q_card;
#define Q_P(f, def) \
    { \
#f, offsetof(q_card, f), def, 0 \
    }
static const nsc_par Q_PAR[] = {
    Q_P(is, 1e-16),
    Q_P(bf, 100),
    Q_P(br, 1),
    Q_P(nf, 1),
    Q_P(nr, 1),
    Q_P(rb, 0),
    Q_P(rc, 0),
    Q_P(re, 0),
    Q_P(cje, 0),
    Q_P(cjc, 0),
    Q_P(tf, 0),
    Q_P(tr, 0),
    { "segments", offsetof(q_card, seg), 1, 0 },
    Q_P(imin, 10e-3),
    Q_P(imax, 1.0),
    Q_P(ise, 0),
    Q_P(ne, 1.5),
    Q_P(isc, 0),
    Q_P(nc, 2),
    Q_P(vaf, 0),
    Q_P(var, 0),
    Q_P(cjs, 0),
    Q_P(subs, 0),
};
#define Q_NPAR ((int)(sizeof Q_PAR / sizeof Q_PAR[0]))
enum { Q_G_SEG = 1 << 12, Q_G_IMIN = 1 << 13, Q_G_IMAX = 1 << 14 }; /* bits of Q_PAR's rows */
/* ngspice's other names of Q_PAR's parameters (bjt.c's model table): read
 * into the same field when the card does not give that field by its own name. */
static const nsc_par Q_ALIAS[] = {
    { "va", offsetof(q_card, vaf), 0, 0 },  { "vb", offsetof(q_card, var), 0, 0 },
    { "c2", offsetof(q_card, ise), 0, 0 },  { "c4", offsetof(q_card, isc), 0, 0 },
    { "ccs", offsetof(q_card, cjs), 0, 0 }, { "csub", offsetof(q_card, cjs), 0, 0 },
};
#define Q_NALIAS ((int)(sizeof Q_ALIAS / sizeof Q_ALIAS[0]))
/* The card into k, ngspice's other names included (Q_ALIAS); the given bits of Q_PAR's rows. */
static unsigned q_read(const nsc_model *m, q_card *k)
{
    unsigned given = nsc_par_read(m, Q_PAR, Q_NPAR, k);
    for (int a = 0; a < Q_NALIAS; a++)
        for (int q = 0; q < Q_NPAR; q++)
            if (Q_PAR[q].off == Q_ALIAS[a].off && !(given & 1u << q)
                && nsc_model_get(m, Q_ALIAS[a].name, (double *)((char *)k + Q_ALIAS[a].off)))
                given |= 1u << q;
    return given;
}

/* A band refit (q_band) only in a circuit of at most Q_BAND_MAXPAIRS pairs: it
 * multiplies a junction's pairs ~2-3x, and Lemke's pivots grow with them (a
 * 4-bit TTL adder, ~1000 pairs, whose idle gates' junctions stay on: 1986
 * after its band refits, not solved at t = 0). */
#define Q_BAND_MAXPAIRS 500
/* A refit (q_refit) without SEGMENTS: the fewest chords within 10 mV, at most 8 (the diode's). */
#define Q_REFIT_TOL 0.01
#define Q_REFIT_MAX 8

/* A leakage junction of Gummel-Poon (ISE/NE on v_BE, ISC/NC on v_BC: base
 * current not carried to the collector) as a function of its main junction's
 * current i (fit f: v = a ln(1 + i/i0), a = NF Vt): h(i) = isl (e^(v/nvt) - 1)
 * = isl ((1 + i/i0)^(a/nvt) - 1) (concave in i when NE >= NF), interpolated on f's
 * knots 0 = K_0 < K_1 < .. < K_n-1 (the pairs' knots) and K_n = f.i2: chords of
 * slope g_k on [K_k, K_k+1], the last one continued beyond, so that
 *   h(lambda_0) = w[0] lambda_0 + sum_{q >= 1} w[q] mu_q,  w[0] = g_0, w[q] = g_q - g_q-1
 * on the junction's own multipliers (mu_q = max(0, lambda_0 - K_q), nsc_st_jfit):
 * no pair of its own, and it follows every refit of f. isl = 0: w = 0. 0, or
 * -1 when a w[q] is not finite (h overflows: a huge ISL, or NE far below NF). */
static int q_leak(const nsc_jfit *f, double isl, double nvt, double *w)
{
    double K[NSC_JFIT_MAX + 1], h[NSC_JFIT_MAX + 1], g0 = 0;
    int fin = 1;
    for (int k = 0; k < NSC_JFIT_MAX; k++) w[k] = 0;
    if (!(isl > 0)) return 0;
    for (int k = 0; k <= f->nseg; k++) {
        K[k] = k == f->nseg ? f->i2 : f->knot[k];
        h[k] = isl * expm1(f->a * log1p(K[k] / f->i0) / nvt);
    }
    for (int k = 0; k < f->nseg; k++) {
        double g = (h[k + 1] - h[k]) / (K[k + 1] - K[k]);
        w[k] = k == 0 ? g : g - g0;
        g0 = g;
        fin &= isfinite(w[k]);
    }
    return fin ? 0 : -1;
}

/* 1 when junction k's leakage on fit f (a refit's candidate) is finite (q_leak). */
static int q_leak_fits(const bjt_par *p, int k, const nsc_jfit *f)
{
    double w[NSC_JFIT_MAX];
    return q_leak(f, k ? p->isc : p->ise, k ? p->ncvt : p->nevt, w) == 0;
}

/* The card's leakages (ISE NE ISC NC, SPICE's defaults 0 1.5 0 2) into p (checked). */
static nsc_status q_leak_model(const nsc_model *m, const q_card *k, double area, nsc_report *r,
                               bjt_par *p)
{
    if (!(k->ise >= 0 && k->isc >= 0 && k->ne > 0 && k->nc > 0 && isfinite(k->ise)
          && isfinite(k->isc)))
        return nsc_err(r, NSC_ENETLIST, &m->loc,
                       "bipolar model '%s': ISE = %g and ISC = %g must be >= 0, NE = %g "
                       "and NC = %g > 0",
                       m->name, k->ise, k->isc, k->ne, k->nc);
    p->ise = k->ise * area;
    p->isc = k->isc * area;
    p->nevt = k->ne * VT_300;
    p->ncvt = k->nc * VT_300;
    for (int j = 0; j < 2; j++) { /* (the B entries must be finite) */
        const nsc_jfit *f = j ? &p->r : &p->f;
        if (q_leak(f, j ? p->isc : p->ise, j ? p->ncvt : p->nevt, j ? p->hlc : p->hle))
            return nsc_err(r, NSC_ENETLIST, &m->loc,
                           "bipolar model '%s': %s = %g with %s = %g: its %s leakage is "
                           "not finite on the junction's fit (up to %g A)",
                           m->name, j ? "ISC" : "ISE", j ? k->isc : k->ise, j ? "NC" : "NE",
                           j ? k->nc : k->ne, j ? "b-c" : "b-e", f->i2);
    }
    return NSC_OK;
}

/* The Early effect of Gummel-Poon without IKF/IKR (ngspice 39's bjtload.c):
 * q_b = q_1 = 1/(1 - v_BC/VAF - v_BE/VAR), transport current (i_F - i_R)/q_b,
 * the base current unchanged. 1/q_b is linear in the junction voltages, so the
 * correction to the transport current i_F - i_R the pairs carry,
 *   u = (x_F - x_R) (1/q_b - 1) = -(x_F - x_R) (v_BC/VAF + v_BE/VAR),
 * (v_BC = p (v_b - v_c), v_BE = p (v_b - v_e), x_F = i_F, x_R = i_R) is a
 * product of two linear forms: its gradient d(1/q_b - 1)/dv_b = -p (1/VAF +
 * 1/VAR), /dv_c = p/VAF, /dv_e = p/VAR times x_F - x_R, and 1/q_b - 1 (-(...))
 * for x_F (x_R). An nsc_smooth_fn on x (q_early's inputs). With wr = 0, d = x_F:
 * w = x_F (1/q_b - 1), so that TF (x_F + w) is ngspice's diffusion charge TF i_F/q_b. */
static double q_early_fn(const void *par, const double *x, double *g)
{
    const q_early *E = par;
    double v[3], dv[3] = { E->p * E->ivaf, -E->p * (E->ivaf + E->ivar), E->p * E->ivar };
    for (int t = 0; t < 3; t++) v[t] = E->at[t] >= 0 ? x[E->at[t]] : 0.0;
    double s = dv[0] * v[0] + dv[1] * v[1] + dv[2] * v[2],
           d = x[0] - E->wr * x[1]; /* 1/q_b - 1, i_F - i_R (i_F) */
    for (int q = 2; q < E->nin; q++) g[q] = 0;
    g[0] = s;
    g[1] = -E->wr * s;
    for (int t = 0; t < 3; t++)
        if (E->at[t] >= 0) g[E->at[t]] += d * dv[t];
    return d * s;
}

/* The Early effect of element e from the card (VAF, VAR of either sign, as
 * ngspice 39's 1/VAF: a negative one lowers the current as v_CE rises; 0 or absent: none)
 * into E, its inputs' places from e's terminals c b e (distinct, not ground). */
static nsc_status q_early_make(const nsc_element *e, const q_card *k, double p, nsc_report *r,
                               q_early *E)
{
    if (!(isfinite(k->vaf) && isfinite(k->var)))
        return nsc_err(r, NSC_ENETLIST, &e->model->loc,
                       "bipolar model '%s': VAF = %g and VAR = %g must be finite (0: none)",
                       e->model->name, k->vaf, k->var);
    *E = (q_early){ k->vaf != 0 || k->var != 0,
                    p,
                    k->vaf != 0 ? 1 / k->vaf : 0,
                    k->var != 0 ? 1 / k->var : 0,
                    2,
                    { -1, -1, -1 },
                    { 0, 0, 0 },
                    1.0 };
    for (int t = 0; t < 3; t++) {
        int q = 2;
        while (q < E->nin && e->node[E->term[q - 2]] != e->node[t]) q++;
        if (!e->node[t]) continue; /* ground: v = 0 */
        if (q == E->nin) E->term[E->nin++ - 2] = t;
        E->at[t] = q;
    }
    return NSC_OK;
}

/* CJS (CCS): a constant capacitor (SPICE's default MJS = 0) from the collector
 * (SUBS = 1, vertical; an NPN's default) or the base (SUBS = -1, lateral; a
 * PNP's default, as ngspice 39) to ground, times AREA: the substrate at a fixed
 * potential, its current the same (checked). */
static nsc_status q_subs(const nsc_element *e, const q_card *k, double area, nsc_report *r,
                         bjt_par *p)
{
    if (!(k->cjs >= 0 && isfinite(k->cjs)))
        return nsc_err(r, NSC_ENETLIST, &e->model->loc,
                       "bipolar model '%s': CJS = %g must be finite and >= 0", e->model->name,
                       k->cjs);
    p->cjs = k->cjs * area;
    p->ts = k->subs == 1 || (k->subs != -1 && p->p > 0) ? 0 : 1;
    return NSC_OK;
}

/* What the model card sets for an element of area `area` into p (checked). */
static nsc_status q_model(const nsc_element *e, double area, nsc_report *r, bjt_par *p)
{
    const nsc_model *m = e->model;
    q_card k;
    unsigned given = q_read(m, &k);
    double is = k.is, nf = k.nf, nr = k.nr, seg = k.seg, imin = k.imin, imax = k.imax;
    p->bf = k.bf;
    p->br = k.br;
    p->cje = k.cje;
    p->cjc = k.cjc;
    p->tf = k.tf;
    p->tr = k.tr;
    const double pos[] = { is, p->bf, p->br, nf, nr }, nneg[] = { p->cje, p->cjc, p->tf, p->tr };
    static const char *const npos[] = { "IS", "BF", "BR", "NF", "NR" }, *const nnneg[] = {
        "CJE", "CJC", "TF", "TR"
    };
    for (int q = 0; q < 5; q++)
        if (!(pos[q] > 0))
            return nsc_err(r, NSC_ENETLIST, &m->loc, "bipolar model '%s': %s = %g must be > 0",
                           m->name, npos[q], pos[q]);
    for (int q = 0; q < 4; q++)
        if (!(nneg[q] >= 0 && (q < 2 || nneg[q] < 1)))
            return nsc_err(r, NSC_ENETLIST, &m->loc, "bipolar model '%s': %s = %g must be >= 0%s",
                           m->name, nnneg[q], nneg[q], q < 2 ? "" : " and < 1 s");
    if (!(seg >= 1 && seg <= NSC_JFIT_MAX && seg == floor(seg)))
        return nsc_err(r, NSC_ENETLIST, &m->loc,
                       "bipolar model '%s': SEGMENTS = %g must be an integer in 1..%d", m->name,
                       seg, NSC_JFIT_MAX);
    if (!(imin > 0 && imax > imin && isfinite(imax)))
        return nsc_err(r, NSC_ENETLIST, &m->loc,
                       "bipolar model '%s': IMIN = %g, IMAX = %g: need 0 < IMIN < IMAX", m->name,
                       imin, imax);
    p->p = m->type == NSC_MOD_NPN ? 1.0 : -1.0;
    p->follow = !(given & (Q_G_IMIN | Q_G_IMAX));
    p->seg = given & Q_G_SEG ? (int)seg : 0;
    p->cje *= area;
    p->cjc *= area;
    nsc_jfit_make(0.0, nf * VT_300, is * area, 0.0, imin * area, imax * area, (int)seg, &p->f);
    nsc_jfit_make(0.0, nr * VT_300, is * area, 0.0, imin * area, imax * area, (int)seg, &p->r);
    nsc_status st = q_early_make(e, &k, p->p, r, &p->early);
    p->earlyq = p->early;
    p->earlyq.wr = 0;
    if (!st) st = q_leak_model(m, &k, area, r, p);
    return st ? st : q_subs(e, &k, area, r, p);
}

/* The parameters of element e (value = AREA, set by the elaborator): an nsc_dev_parse. */
static nsc_status q_params(const nsc_element *e, nsc_report *r, void *out)
{
    bjt_par *p = out;
    const nsc_model *m = e->model;
    if (!m || (m->type != NSC_MOD_NPN && m->type != NSC_MOD_PNP))
        return nsc_err(r, NSC_ENETLIST, &e->loc,
                       "bipolar transistor %s has no bipolar model (NPN or PNP)", e->name);
    memset(p, 0, sizeof *p);
    p->lmin[0] = p->lmin[1] = HUGE_VAL;
    return q_model(e, e->value > 0 ? e->value : 1.0, r, p);
}

/* The card read once (lcs/devif.h bind). */
static void *q_bind(const nsc_circuit *c, int ei)
{
    return nsc_bind_parse(&c->el[ei], sizeof(bjt_par), q_params);
}

/* One warning naming the first parameter of m not read, and one with the fits
 * (element e's own when remade). */
static void q_warn(nsc_dev_ctx *ctx, const nsc_element *e, const bjt_par *p)
{
    const nsc_model *m = e->model;
    for (int q = 0; q < m->npar; q++)
        if (!nsc_par_known(Q_PAR, Q_NPAR, 0, m->pname[q])
            && !nsc_par_known(Q_ALIAS, Q_NALIAS, 0, m->pname[q])) {
            nsc_warn(
                ctx->r, &m->loc,
                "bipolar model '%s': parameters other than IS BF BR NF NR ISE NE ISC NC VAF VAR "
                "RB RC RE CJE CJC CJS SUBS TF TR SEGMENTS IMIN IMAX (and ngspice's other names "
                "of them) are ignored (%s first)",
                m->name, m->pname[q]);
            break;
        }
    char rg[64], rr[64];
    nsc_jfit_range(&p->f, rg, sizeof rg);
    nsc_jfit_range(&p->r, rr, sizeof rr);
    if (!p->refitted)
        nsc_warn(ctx->r, &m->loc,
                 "bipolar model '%s': junctions fitted by %d segment%s on %s: BE VF=%.4g RON=%.4g, "
                 "BC VF=%.4g RON=%.4g (max error %.3g V)",
                 m->name, p->f.nseg, p->f.nseg > 1 ? "s" : "", rg, p->f.vf[0], p->f.r[0],
                 p->r.vf[0], p->r.r[0], fmax(p->f.err, p->r.err));
    else /* refitted (q_refit) */
        nsc_warn(ctx->r, &e->loc,
                 "bipolar model '%s' of %s: junctions fitted, BE by %d segment%s on %s (VF=%.4g), "
                 "BC by %d on %s (VF=%.4g) (max error %.3g V)",
                 m->name, e->name, p->f.nseg, p->f.nseg > 1 ? "s" : "", rg, p->f.vf[0], p->r.nseg,
                 rr, p->r.vf[0], fmax(p->f.err, p->r.err));
}

/* p's branch unknowns from the element's first: x_F = i_F (TF or the Early
 * effect), then x_R = i_R (TR or the Early effect), then the Early effect's u. */
static int q_nxf(const bjt_par *p)
{
    return p->tf > 0 || p->early.on;
}
static int q_nxr(const bjt_par *p)
{
    return p->tr > 0 || p->early.on;
}
/* and then the diffusion charge's w = x_F (1/q_b - 1) (the Early effect and TF) */
static int q_nw(const bjt_par *p)
{
    return p->tf > 0 && p->early.on;
}

static nsc_status q_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    const bjt_par *p = e->priv;
    if (!p) return nsc_bind_failed(e, sizeof *p, q_params, ctx->r);
    q_warn(ctx, e, p);
    int c = e->node[0], b = e->node[1], em = e->node[2], tran = ctx->mode == NSC_ASM_TRAN;
    need->npair = p->f.nseg + p->r.nseg;
    need->nbranch = q_nxf(p) + q_nxr(p) + p->early.on + q_nw(p); /* x_F, x_R, u, w */
    nsc_dev_link(ctx, b, em, p->cje > 0 && tran ? NSC_LINK_NS : NSC_LINK_DC);
    nsc_dev_link(ctx, b, c, p->cjc > 0 && tran ? NSC_LINK_NS : NSC_LINK_DC);
    if (p->cjs > 0 && tran) nsc_dev_link(ctx, e->node[p->ts], 0, NSC_LINK_NS);
    return NSC_OK;
}

/* The pairs of one junction (f->nseg of them from j, fit f): pair j senses
 * y = p (v_x - v_b) + v(lambda) and its lambda, the junction current, is
 * injected with weights w[0..2] into the KCL rows of c, b, e. */
static void q_junction(nsc_builder *bl, const nsc_element *e, double p, int x, const nsc_jfit *f,
                       int j, const double w[3])
{
    nsc_st(bl, NSC_ST_C, j, nsc_zn(x), p); /* y = p (v_x - v_b) + ... */
    nsc_st(bl, NSC_ST_C, j, nsc_zn(e->node[1]), -p);
    nsc_st_jfit(bl, f, j);
    for (int t = 0; t < 3; t++) nsc_st(bl, NSC_ST_B, nsc_zn(e->node[t]), j, w[t]);
}

/* The junction current x = lambda_j (exact row -x + lambda_j = 0) and its
 * diffusion charge tau x (tau > 0) between b and node k: its derivative flows
 * b -> k (NPN), E[b][x] += p tau, E[k][x] -= p tau. */
static void q_charge(nsc_builder *bl, const nsc_element *e, double p, int k, double tau, int x,
                     int j)
{
    nsc_st(bl, NSC_ST_A, x, x, -1.0);
    nsc_st(bl, NSC_ST_B, x, j, 1.0);
    nsc_st_exact(bl, x);
    if (!(tau > 0)) return;
    nsc_st(bl, NSC_ST_E, nsc_zn(e->node[1]), x, p * tau);
    nsc_st(bl, NSC_ST_E, nsc_zn(k), x, -p * tau);
}

/* Row u = 0 = -z[u] + q_early_fn(E) of x_F = z[x], x_R = z[x + 1] and the
 * terminals' voltages (the Newton iteration's). */
static void q_early_row(nsc_builder *bl, const nsc_element *e, int ei, const q_early *E, int x,
                        int u)
{
    int in[5] = { x, x + 1 };
    for (int q = 2; q < E->nin; q++) in[q] = nsc_zn(e->node[E->term[q - 2]]);
    nsc_st_smooth_fn_at0(bl, ei, u, in, E->nin, q_early_fn, E); /* C code: q_early_fn */
}

/* The Early effect (x = the element's first branch unknown, x_F): the
 * transport correction u = z[x + 2], a current c -> e (NPN): A[c][u] = -p,
 * A[e][u] = p; with TF, w = z[x + 3], the diffusion charge's share TF w
 * beside TF x_F (q_charge), its derivative b -> e: E[b][w] += p TF, E[e][w] -= p TF. */
static void q_early_stamp(nsc_builder *bl, const nsc_element *e, int ei, const bjt_par *p, int x)
{
    int u = x + 2, w = x + 3;
    nsc_st(bl, NSC_ST_A, nsc_zn(e->node[0]), u, -p->p);
    nsc_st(bl, NSC_ST_A, nsc_zn(e->node[2]), u, p->p);
    q_early_row(bl, e, ei, &p->early, x, u);
    if (!q_nw(p)) return;
    q_early_row(bl, e, ei, &p->earlyq, x, w);
    nsc_st(bl, NSC_ST_E, nsc_zn(e->node[1]), w, p->p * p->tf);
    nsc_st(bl, NSC_ST_E, nsc_zn(e->node[2]), w, -p->p * p->tf);
}

static nsc_status q_stamp(nsc_builder *bl, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &bl->c->el[ei];
    const bjt_par *p = e->priv;
    if (!p) return nsc_bind_failed(e, sizeof *p, q_params, bl->r);
    int c = e->node[0], b = e->node[1], em = e->node[2], jf = s->pair, jr = s->pair + p->f.nseg;
    double P = p->p;
    const double wf[3] = { -P, -P / p->bf,
                           P * (1.0 + 1.0 / p->bf) }; /* I_C, I_B, I_E of i_F, into the device */
    const double wr[3] = { P * (1.0 + 1.0 / p->br), -P / p->br, -P }; /* of i_R */
    q_junction(bl, e, P, em, &p->f, jf, wf);
    q_junction(bl, e, P, c, &p->r, jr, wr);
    for (int q = 0; q < p->f.nseg; q++) { /* the leakages' base currents (q_leak) */
        nsc_st(bl, NSC_ST_B, nsc_zn(b), jf + q, -P * p->hle[q]);
        nsc_st(bl, NSC_ST_B, nsc_zn(em), jf + q, P * p->hle[q]);
    }
    for (int q = 0; q < p->r.nseg; q++) {
        nsc_st(bl, NSC_ST_B, nsc_zn(b), jr + q, -P * p->hlc[q]);
        nsc_st(bl, NSC_ST_B, nsc_zn(c), jr + q, P * p->hlc[q]);
    }
    if (p->cje > 0) nsc_st_cap(bl, b, em, p->cje); /* (E: dropped in the static modes) */
    if (p->cjc > 0) nsc_st_cap(bl, b, c, p->cjc);
    if (p->cjs > 0) nsc_st_cap(bl, e->node[p->ts], 0, p->cjs);
    if (q_nxf(p)) q_charge(bl, e, P, em, p->tf, s->branch, jf);
    if (q_nxr(p)) q_charge(bl, e, P, c, p->tr, s->branch + q_nxf(p), jr);
    if (p->early.on) q_early_stamp(bl, e, ei, p, s->branch);
    return NSC_OK;
}

/* f += coef * (the current of junction capacitor C from node a to node k) */
static nsc_status q_cap_current(nsc_lin *f, const nsc_element *e, int a, int k, double C)
{
    nsc_status st = nsc_lin_add(f, NSC_T_DZ, nsc_zn(e->node[a]), C);
    return st ? st : nsc_lin_add(f, NSC_T_DZ, nsc_zn(e->node[k]), -C);
}

/* The current into terminal t (0 c, 1 b) of the device in f:
 *   I_C = p (i_F - (1 + 1/BR) i_R + u) + CJC (v_c - v_b)' - p TR x_R',
 *   I_B = p (i_F/BF + i_R/BR) + CJE (v_b - v_e)' + CJC (v_b - v_c)' + p (TF (x_F + w)' + TR x_R')
 * (w: the Early effect's share of the diffusion charge, q_early_stamp). */
static nsc_status q_terminal(const nsc_lcs *L, const nsc_element *e, int ei, const bjt_par *p,
                             int t, nsc_lin *f)
{
    int jf = L->el_pair[ei], jr = jf + p->f.nseg, tran = L->mode == NSC_ASM_TRAN,
        x = L->el_branch[ei];
    double wf = t == 0 ? p->p : p->p / p->bf,
           wr = t == 0 ? -p->p * (1.0 + 1.0 / p->br) : p->p / p->br;
    if (nsc_lin_add(f, NSC_T_L, jf, wf) || nsc_lin_add(f, NSC_T_L, jr, wr)) return NSC_ENOMEM;
    for (int q = 0; q < p->f.nseg && t == 1;
         q++) /* the leakages: I_B += p (h_E + h_C), I_C -= p h_C */
        if (p->hle[q] != 0 && nsc_lin_add(f, NSC_T_L, jf + q, p->p * p->hle[q])) return NSC_ENOMEM;
    for (int q = 0; q < p->r.nseg; q++)
        if (p->hlc[q] != 0
            && nsc_lin_add(f, NSC_T_L, jr + q, (t == 0 ? -1.0 : 1.0) * p->p * p->hlc[q]))
            return NSC_ENOMEM;
    if (t == 0 && p->early.on && nsc_lin_add(f, NSC_T_Z, x + 2, p->p)) /* + p u */
        return NSC_ENOMEM;
    if (!tran) return NSC_OK;
    if (p->cjc > 0
        && (t == 0 ? q_cap_current(f, e, 0, 1, p->cjc) : q_cap_current(f, e, 1, 0, p->cjc)))
        return NSC_ENOMEM;
    if (t == 1 && p->cje > 0 && q_cap_current(f, e, 1, 2, p->cje)) return NSC_ENOMEM;
    if (t == p->ts && p->cjs > 0 && nsc_lin_add(f, NSC_T_DZ, nsc_zn(e->node[t]), p->cjs))
        return NSC_ENOMEM;
    if (t == 1 && p->tf > 0 && nsc_lin_add(f, NSC_T_DZ, x, p->p * p->tf)) return NSC_ENOMEM;
    if (t == 1 && q_nw(p) && nsc_lin_add(f, NSC_T_DZ, x + 3, p->p * p->tf)) return NSC_ENOMEM;
    if (p->tr > 0 && nsc_lin_add(f, NSC_T_DZ, x + q_nxf(p), (t == 0 ? -1.0 : 1.0) * p->p * p->tr))
        return NSC_ENOMEM;
    return NSC_OK;
}

/* I(Q): the collector current (into the collector). */
static nsc_status q_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    const bjt_par *p = c->el[ei].priv;
    return p ? q_terminal(L, &c->el[ei], ei, p, 0, f) : NSC_OK;
}

/* Power with the emitter as reference: v_ce I_C + v_be I_B (I_E = -(I_C + I_B)). */
static nsc_status q_ports(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *v, nsc_lin *i,
                          int *np)
{
    const nsc_element *e = &c->el[ei];
    const bjt_par *p = e->priv;
    *np = 0;
    if (!p) return NSC_OK;
    int em = nsc_zn(e->node[2]);
    for (int t = 0; t < 2; t++)
        if (q_terminal(L, e, ei, p, t, &i[t])
            || nsc_lin_add(&v[t], NSC_T_Z, nsc_zn(e->node[t]), 1.0)
            || nsc_lin_add(&v[t], NSC_T_Z, em, -1.0))
            return NSC_ENOMEM;
    *np = 2;
    return NSC_OK;
}

/* A junction whose peak current left its fit's range far enough to matter
 * (nsc_jfit_outside, as the diode's). */
static void q_check(const nsc_lcs *L, const nsc_circuit *c, int ei, const double *lpk,
                    nsc_report *r)
{
    const nsc_element *e = &c->el[ei];
    const bjt_par *p = e->priv;
    if (!p) return;
    int jf = L->el_pair[ei], jr = jf + p->f.nseg;
    for (int k = 0; k < 2; k++) {
        const nsc_jfit *f = k ? &p->r : &p->f;
        double pk = lpk[k ? jr : jf], ip = nsc_jfit_seen(f, pk, NULL), off;
        if (!nsc_jfit_outside(f, ip, &off)) continue;
        char rg[64], sn[96];
        nsc_jfit_range(f, rg, sizeof rg);
        nsc_jfit_seen_text(f, pk, sn, sizeof sn);
        nsc_warn(
            r, &e->loc,
            "transistor %s: its peak %s junction current %.3g A%s is %s the range %s its model '%s' "
            "was fitted on; there the fit is %.3g V off the SPICE junction (%.3g V inside): set IMIN/IMAX (and "
            "SEGMENTS) to cover the currents of the run%s",
            e->name, k ? "BC" : "BE", ip, sn, ip > f->i2 ? "above" : "below", rg, e->model->name,
            off, f->err, p->refitted ? " (it left the refitted ones too)" : "");
    }
}

/* Each step's junction currents: their least values over the transient run
 * (q_band reads them; q_refit starts them again after every run). Only a
 * transient's points: an operating point's or a .dc sweep's before it are not
 * the run's (a .dc point with the junction off left 0, and no band). Never an
 * error. */
static nsc_status q_step(const nsc_lcs *L, const nsc_circuit *c, int ei, const double *l, double t,
                         nsc_report *r)
{
    (void)t;
    (void)r;
    bjt_par *p = c->el[ei].priv; /* (the element's own block) */
    if (!p || L->mode != NSC_ASM_TRAN) return NSC_OK;
    int jf = L->el_pair[ei], jr = jf + p->f.nseg;
    p->lmin[0] = l[jf] < p->lmin[0] ? l[jf] : p->lmin[0];
    p->lmin[1] = l[jr] < p->lmin[1] ? l[jr] : p->lmin[1];
    return NSC_OK;
}

/* Junction k of a transient that stayed on over the run (its least current
 * lmin[k] within NSC_JFIT_BELOW of its peak ip: a linear stage) refitted on
 * that band (nsc_jfit_band: its slope is the stage's gain), with a note; 1 if
 * so. Not in a circuit of more than Q_BAND_MAXPAIRS pairs. */
static int q_band(const nsc_lcs *L, const nsc_element *e, bjt_par *p, int k, double ip,
                  nsc_report *r)
{
    nsc_jfit *f = k ? &p->r : &p->f, old = *f;
    if (L->mode != NSC_ASM_TRAN || L->m > Q_BAND_MAXPAIRS
        || !nsc_jfit_band(f, p->lmin[k], ip, p->seg))
        return 0;
    if (!q_leak_fits(p, k, f)) { /* (its leakage would overflow: kept) */
        *f = old;
        return 0;
    }
    char a[64], b[64];
    nsc_jfit_range(&old, a, sizeof a);
    nsc_jfit_range(f, b, sizeof b);
    nsc_note(
        r, &e->loc,
        "transistor %s: its %s junction current stayed within %.3g..%.3g A (on over the run), on "
        "%d segment%s on %s of model '%s': refitted by %d segment%s on %s (max error %.3g V), the run repeated",
        e->name, k ? "BC" : "BE", p->lmin[k], ip, old.nseg, old.nseg > 1 ? "s" : "", a,
        e->model->name, f->nseg, f->nseg > 1 ? "s" : "", b, f->err);
    return 1;
}

/* Each junction whose peak current left its default range refitted on the
 * run's currents (device.h refit), else, when it stayed on, on its band
 * (q_band, after a complete run: complete 0 for one that failed part way);
 * the leakages follow (q_leak); the least currents start again (whether or
 * not this element was refitted). */
static int q_refit(const nsc_lcs *L, const nsc_circuit *c, int ei, const double *lpk, int complete,
                   nsc_report *r)
{
    const nsc_element *e = &c->el[ei];
    bjt_par *p = e->priv; /* (the element's own block) */
    if (!p || !p->follow) return 0;
    int jf = L->el_pair[ei], jr = jf + p->f.nseg, n = 0;
    for (int k = 0; k < 2; k++) {
        nsc_jfit *f = k ? &p->r : &p->f, old = *f;
        double pk = lpk[k ? jr : jf], ip = nsc_jfit_seen(f, pk, NULL); /* (pwl_exp.h) */
        int rf = nsc_jfit_follow(f, pk, complete == 2, p->seg, Q_REFIT_MAX, Q_REFIT_TOL);
        if (rf && !q_leak_fits(p, k, f)) { /* (its leakage would overflow: kept) */
            *f = old;
            continue;
        }
        if (rf) {
            char a[64], b[64], sn[96];
            nsc_jfit_range(&old, a, sizeof a);
            nsc_jfit_range(f, b, sizeof b);
            nsc_jfit_seen_text(&old, pk, sn, sizeof sn);
            nsc_note(
                r, &e->loc,
                "transistor %s: its peak %s junction current %.3g A%s %s %s its model '%s' "
                "was fitted on: refitted by %d segment%s on %s (max error %.3g V), the run repeated",
                e->name, k ? "BC" : "BE", ip, sn, nsc_jfit_where(&old, ip), a, e->model->name,
                f->nseg, f->nseg > 1 ? "s" : "", b, f->err);
        } else if (!complete
                   || !q_band(L, e, p, k, pk, r)) /* (a failed run's least currents mean nothing) */
            continue;
        n = p->refitted = 1;
        if (k) q_leak(f, p->isc, p->ncvt, p->hlc); /* the leakage on the new knots */
        else q_leak(f, p->ise, p->nevt, p->hle);
    }
    p->lmin[0] = p->lmin[1] = HUGE_VAL; /* (every run's own: another element's refit */
    return n;                           /*  repeats it with other currents) */
}

/* The AC analysis's slopes (devif.h ac_tangent): each junction's tangent at
 * its operating current (nsc_jfit_tangent_gap) on its pair 0. */
static void q_ac_tangent(const nsc_lcs *L, const nsc_circuit *c, int ei, const double *l,
                         double *dD)
{
    const bjt_par *p = c->el[ei].priv;
    if (!p) return;
    int jf = L->el_pair[ei], jr = jf + p->f.nseg;
    dD[jf] += nsc_jfit_tangent_gap(&p->f, l[jf]);
    dD[jr] += nsc_jfit_tangent_gap(&p->r, l[jr]);
}

/* Q: c b e [s] model [area] [AREA=a] [off] [...] (ngspice). The fourth node is
 * the substrate when f[4] names no model and f[5] is a name: read, not
 * connected (no substrate junction), with a warning. value = AREA times m=. */
static nsc_status q_parse(const nsc_device *d, const nsc_cardview *v)
{
    const nsc_cfield *f = v->f;
    double x, mult = 1; /* m=: AREA times m, as SPICE */
    int el, n = v->nf >= 6 && v->op->model_index(v, &f[4]) < 0 && f[5].kind == NSC_CF_WORD
                        && !v->op->number(v, &f[5], &x) && !nsc_card_is_word(&f[5], "off")
                    ? 4
                    : 3;
    nsc_status st = v->op->element(v, d->kind, &el);
    if (st || (st = v->op->nodes(v, el, 3))) return st;
    if (v->nf < n + 2)
        return nsc_card_err(v, NULL, "missing model name for %s %s", d->name, f[0].u.s);
    if (n == 4)
        nsc_card_warn(v, &f[4], "the substrate node of %s is not connected (no substrate junction)",
                      f[0].u.s);
    if ((st = v->op->model(v, &f[n + 1], el))) return st;
    v->c->el[el].value = 1.0; /* AREA */
    char key[64];
    for (int i = n + 2; i < v->nf; i++) {
        const char *kk = nsc_card_key(&f[i], key, sizeof key);
        int area = kk ? !strcmp(kk, "area")
                      : i == n + 2 && f[i].kind != NSC_CF_PAIR && !nsc_card_is_word(&f[i], "off");
        if (area) {
            if ((st = v->op->value(v, kk ? &f[i].sub[1] : &f[i], &x))) return st;
            if (!(x > 0))
                return nsc_card_err(v, &f[i], "area of %s must be positive (%g)", f[0].u.s, x);
            v->c->el[el].value = x;
        } else if (kk && !strcmp(kk, "m")) {
            if ((st = nsc_card_mult(v, &f[i], &mult))) return st;
        } else if (kk)
            nsc_card_warn(v, &f[i], "parameter '%s' of %s %s ignored", kk, d->name, f[0].u.s);
        else if (f[i].kind == NSC_CF_WORD || f[i].kind == NSC_CF_EXPR)
            nsc_card_warn(v, &f[i], "'%s' of %s %s ignored", nsc_card_text(&f[i]), d->name,
                          f[0].u.s);
        else
            return nsc_card_err(v, &f[i], "unexpected '%s' in %s %s", nsc_card_text(&f[i]), d->name,
                                f[0].u.s);
    }
    v->c->el[el].value *= mult;
    return nsc_card_expand_bjt(v, el);
}

/* SPICE's defaults of its models' parameters (ngspice's; nl_model.c compares
 * a .model defined again with them) */
static const nsc_par Q_DEFS[] = { { "is", 0, 1e-16, 0 }, { "bf", 0, 100, 0 }, { "br", 0, 1, 0 },
                                  { "nf", 0, 1, 0 },     { "nr", 0, 1, 0 },   { "rb", 0, 0, 0 },
                                  { "rc", 0, 0, 0 },     { "re", 0, 0, 0 },   { NULL, 0, 0, 0 } };

/* gmin across base-emitter, base-collector (its internal nodes) and the
 * substrate junction (to ground: from the collector of an NPN, vertical, from
 * the base of a PNP, lateral: ngspice 39's defaults; a card's SUBS= is not read
 * here), as bjtload.c (devif.h junctions). */
static int q_junctions(const nsc_element *e, int *a, int *b)
{
    int npn = e->model && e->model->type == NSC_MOD_NPN;
    a[0] = a[1] = e->node[1], b[0] = e->node[2], b[1] = e->node[0];
    a[2] = npn ? e->node[0] : e->node[1], b[2] = 0;
    return 3;
}

const nsc_device nsc_dev_q = {
    .model_defs = Q_DEFS,
    .kind = NSC_EL_Q,
    .what = "bipolar transistors",
    .name = "bipolar transistor",
    .letter = 'q',
    .card = NSC_CARD_OWN,
    .parse = q_parse,
    .bind = q_bind,
    .count = q_count,
    .stamp = q_stamp,
    .current = q_current,
    .pclass = NSC_PC_SEMI,
    .ports = q_ports,
    .no_power = "a bipolar transistor (its power is in --losses)", /* two ports, no one v i */
    .check = q_check,
    .refit = q_refit,
    .junctions = q_junctions,
    .ac_tangent = q_ac_tangent,
    .step_check = q_step,
    .vseen = 1,
    .ndc = 2,
    .dc = { { 1, 2 }, { 1, 0 } }, /* junctions b-e, b-c */
    .models = { { "npn", NSC_MOD_NPN }, { "pnp", NSC_MOD_PNP } },
    .model_what = "a bipolar (NPN/PNP)",
    .current_param = "ic",
    .pin = { 2, 2, 2 }, /* I(x) = ic: no terminal carries just it */
};
