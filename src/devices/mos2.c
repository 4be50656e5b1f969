/* mos2.c -- a LEVEL=2 card's channel (Grove-Frohman, ngspice 39's MOS2 at
 * TNOM, VMAX = NFS = 0) as a smooth function of the terminal voltages.
 *
 * With every voltage p-scaled and the conducting side the lower one (v_ds >= 0:
 * the source; else the drain, the terminals' roles swapped and the current
 * negated), for the gate, drain and bulk voltages g, x, b to that side:
 *   sarg = sqrt(PHI - b) (b <= 0), sqrt(PHI) / (1 + b / (2 PHI)) (b > 0),
 *   barg = the same of b - x (the drain end),
 *   vbin = p VTO - GAMMA sqrt(PHI) + factor (PHI - b),  eta = 1 + factor
 *     (factor = pi DELTA EPS_SI / (4 Cox W m): the narrow channel),
 *   gamasd = GAMMA (1 - a_s - a_d), a_k = XJ / (2 Leff) (sqrt(1 + 2 XD arg_k / XJ) - 1)
 *     (the short channel's shared charge; arg_s = sarg, arg_d = barg; none
 *     without XJ), XD = sqrt(2 EPS_SI / (q NSUB)) (0 without NSUB),
 *   von = vbin + gamasd sarg;  no current for g <= vbin;
 *   ufact = (UCRIT 100 EPS_SI / Cox / (g - von))^UEXP above that overdrive, else 1,
 *   vdsat = max(0, (g - vbin)/eta + gd^2 (1 - sqrt(1 + 4 argv / gd^2)) / 2),
 *     gd = gamasd / eta, argv = (g - vbin)/eta + PHI - b (argv <= 0: vdsat = 0;
 *     gd <= 0: (g - vbin)/eta),
 *   the channel's shortening l = LAMBDA x, or with NSUB and LAMBDA = 0
 *     l = XD / Leff sqrt(a + sqrt(1 + a^2)), a = (x - vdsat)/4;
 *   clfact = 1 - l, unless Leff clfact < XWB (punch-through: XWB = XD sqrt(PB),
 *     0.25 um without NSUB): clfact = XWB / (1 + (l Leff - (Leff - XD sqrt(PB))) / XWB) / Leff,
 *   beta1 = KP W m / Leff ufact / clfact,
 *   triode (x <= vdsat): beta1 ((g - vbin - eta x / 2) x - gamasd (barg^3 - sarg^3) / 1.5),
 *   saturation:          beta1 ((g - vbin - eta vdsat / 2) vdsat - gamasd (bsarg^3 - sarg^3) / 1.5),
 *     bsarg: sarg's form of b - vdsat.
 * The 3/2 powers are the bulk charge's: the current at x = 0 is 0 and both
 * sides meet at x = 0 with the same slope. The gradient is exact (forward mode
 * on the three local voltages), not ngspice's approximate conductances. */
#include <math.h>
#include <stddef.h>

#include "device.h"
#include "mos2.h"

#define M2_EPSSI (11.7 * 8.854214871e-12) /* F/m */
#define M2_PI 3.14159265358979323846

typedef struct m2_card {
    double ucrit, uexp, xj, delta, vmax, nfs, neff, utra;
} m2_card;
#define M2_P(f, def) \
    { \
#f, offsetof(m2_card, f), def, 0 \
    }
static const nsc_par M2_PAR[] = { M2_P(ucrit, 1e4), M2_P(uexp, 0), M2_P(xj, 0),   M2_P(delta, 0),
                                  M2_P(vmax, 0),    M2_P(nfs, 0),  M2_P(neff, 1), M2_P(utra, 0) };
#define M2_NPAR ((int)(sizeof M2_PAR / sizeof M2_PAR[0]))
enum { G2_VMAX = 1 << 4, G2_NFS = 1 << 5, G2_NEFF = 1 << 6 }; /* not read: unused without VMAX */

int nsc_m2_known(const char *name)
{
    return nsc_par_known(M2_PAR, M2_NPAR, G2_VMAX | G2_NFS | G2_NEFF, name);
}

int nsc_m2_usable(const nsc_model *m)
{
    m2_card k;
    nsc_par_read(m, M2_PAR, M2_NPAR, &k);
    return k.vmax == 0 && k.nfs == 0;
}

int nsc_m2_make(const nsc_model *m, double p, double vto, double kp, double gamma, double phi,
                double cox, double pb, double lambda, double nsub, double w, double leff,
                double mult, nsc_mos2 *two)
{
    m2_card k;
    nsc_par_read(m, M2_PAR, M2_NPAR, &k);
    if (!(k.ucrit > 0 && k.uexp >= 0 && k.xj >= 0 && k.delta >= 0 && cox > 0 && pb > 0)) return -1;
    two->p = p;
    two->vbi = p * vto - gamma * sqrt(phi);
    two->phi = phi, two->gamma = gamma, two->lambda = lambda;
    two->beta = kp * w * mult / leff;
    two->leff = leff, two->xj = k.xj;
    two->nsub = nsub > 0;
    two->xd = two->nsub ? sqrt(2 * M2_EPSSI / (1.602176634e-19 * nsub * 1e6)) : 0;
    two->factor = 0.25 * M2_PI * k.delta * M2_EPSSI / (cox * w * mult); /* ngspice's m */
    two->ucrit_v = k.ucrit * 100 * M2_EPSSI / cox;
    two->uexp = k.uexp;
    two->xld = leff - two->xd * sqrt(pb);
    two->xwb = two->nsub ? two->xd * sqrt(pb) : 0.25e-6;
    return 0;
}

/* ---- forward mode on (g, x, b): a value and its three partials ---- */
typedef struct dn {
    double v, d[3];
} dn;

static dn dk(double v)
{
    return (dn){ v, { 0, 0, 0 } };
}
static dn dadd(dn a, dn b)
{
    return (dn){ a.v + b.v, { a.d[0] + b.d[0], a.d[1] + b.d[1], a.d[2] + b.d[2] } };
}
static dn dsub(dn a, dn b)
{
    return (dn){ a.v - b.v, { a.d[0] - b.d[0], a.d[1] - b.d[1], a.d[2] - b.d[2] } };
}
static dn dmul(dn a, dn b)
{
    dn r = { a.v * b.v, { 0, 0, 0 } };
    for (int i = 0; i < 3; i++) r.d[i] = a.d[i] * b.v + a.v * b.d[i];
    return r;
}
static dn dscl(dn a, double k)
{
    return (dn){ a.v * k, { a.d[0] * k, a.d[1] * k, a.d[2] * k } };
}
static dn ddiv(dn a, dn b)
{
    dn r = { a.v / b.v, { 0, 0, 0 } };
    for (int i = 0; i < 3; i++) r.d[i] = (a.d[i] - r.v * b.d[i]) / b.v;
    return r;
}
/* a^e, a > 0, constant e (e = 0.5: sqrt) */
static dn dpow(dn a, double e)
{
    double v = e == 0.5 ? sqrt(a.v) : pow(a.v, e), s = e * v / a.v;
    return (dn){ v, { a.d[0] * s, a.d[1] * s, a.d[2] * s } };
}
static dn dcube(dn a)
{
    return dmul(dmul(a, a), a);
}

/* sarg's form of v (the bulk's voltage to a channel end): the root of PHI - v,
 * linearised as ngspice for v > 0 */
static dn m2_root(const nsc_mos2 *m, dn v)
{
    if (v.v <= 0) return dpow(dsub(dk(m->phi), v), 0.5);
    return ddiv(dk(sqrt(m->phi)), dadd(dk(1), dscl(v, 0.5 / m->phi)));
}

/* the shortening l of the header at x, vdsat */
static dn m2_shorten(const nsc_mos2 *m, dn x, dn vdsat)
{
    if (!m->nsub || m->lambda > 0) return dscl(x, m->lambda);
    dn a = dscl(dsub(x, vdsat), 0.25);
    dn s = dpow(dadd(dk(1), dmul(a, a)), 0.5);
    return dscl(dpow(dadd(a, s), 0.5), m->xd / m->leff);
}

/* vdsat of the header */
static dn m2_vdsat(const nsc_mos2 *m, dn g, dn b, dn vbin, dn gamasd, double eta)
{
    dn gd = dscl(gamasd, 1 / eta), ov = dscl(dsub(g, vbin), 1 / eta), vd;
    if (gd.v > 0) {
        dn gd2 = dmul(gd, gd), argv = dadd(ov, dsub(dk(m->phi), b));
        if (argv.v <= 0) return dk(0);
        dn arg = dpow(dadd(dk(1), dscl(ddiv(argv, gd2), 4)), 0.5);
        vd = dadd(ov, dscl(dmul(gd2, dsub(dk(1), arg)), 0.5));
    } else vd = ov;
    return vd.v > 0 ? vd : dk(0);
}

/* the current F(g, x, b) for x >= 0 (the header), gradient in F.d */
static dn m2_f(const nsc_mos2 *m, dn g, dn x, dn b)
{
    double eta = 1 + m->factor;
    dn sarg = m2_root(m, b), barg = m2_root(m, dsub(b, x));
    dn vbin = dadd(dk(m->vbi), dscl(dsub(dk(m->phi), b), m->factor)), gamasd = dk(m->gamma);
    if ((m->gamma > 0 || m->nsub) && m->xj > 0) { /* the short channel's shared charge */
        double t = 0.5 * m->xj / m->leff;
        dn as = dpow(dadd(dk(1), dscl(sarg, 2 * m->xd / m->xj)), 0.5);
        dn ad = dpow(dadd(dk(1), dscl(barg, 2 * m->xd / m->xj)), 0.5);
        gamasd = dscl(dsub(dk(1 + 2 * t), dscl(dadd(as, ad), t)), m->gamma);
    }
    if (g.v <= vbin.v) return dk(0);
    dn vgst = dsub(g, dadd(vbin, dmul(gamasd, sarg))), ufact = dk(1);
    if (vgst.v > m->ucrit_v && m->uexp != 0) ufact = dpow(ddiv(dk(m->ucrit_v), vgst), m->uexp);
    dn vdsat = m2_vdsat(m, g, b, vbin, gamasd, eta);
    dn l = m2_shorten(m, x, vdsat), clfact = dsub(dk(1), l);
    if (m->leff * clfact.v < m->xwb) { /* punch-through */
        dn dl = dscl(l, m->leff);
        dn xleff = ddiv(dk(m->xwb), dadd(dk(1), dscl(dsub(dl, dk(m->xld)), 1 / m->xwb)));
        clfact = dscl(xleff, 1 / m->leff);
    }
    dn beta1 = dscl(ddiv(ufact, clfact), m->beta), ov = dsub(g, vbin), q, body;
    if (x.v <= vdsat.v) { /* triode */
        q = dmul(dsub(ov, dscl(x, 0.5 * eta)), x);
        body = dsub(dcube(barg), dcube(sarg));
    } else { /* saturation */
        q = dmul(dsub(ov, dscl(vdsat, 0.5 * eta)), vdsat);
        body = dsub(dcube(m2_root(m, dsub(b, vdsat))), dcube(sarg));
    }
    return dmul(beta1, dsub(q, dmul(gamasd, dscl(body, 1 / 1.5))));
}

static double m2_v(const nsc_mos2 *m, const double *x, int t)
{
    return m->probe[t] >= 0 ? x[m->probe[t]] : 0.0;
}

double nsc_m2_current(const void *par, const double *x, double *g)
{
    const nsc_mos2 *m = par;
    double p = m->p, v[4]; /* terminal voltages d g s b */
    for (int t = 0; t < 4; t++) v[t] = m2_v(m, x, t);
    int fwd = p * (v[0] - v[2]) >= 0, c = fwd ? 2 : 0, o = fwd ? 0 : 2; /* c: conducting side */
    dn vg = { p * (v[1] - v[c]), { 1, 0, 0 } }, vx = { p * (v[o] - v[c]), { 0, 1, 0 } };
    dn vb = { p * (v[3] - v[c]), { 0, 0, 1 } };
    dn f = m2_f(m, vg, vx, vb);
    double s = fwd ? 1 : -1; /* u = p s F; dv_local/dv_t = p (t) - p (c) */
    double dt[4] = { 0, 0, 0, 0 };
    dt[1] = s * f.d[0], dt[o] = s * f.d[1], dt[3] = s * f.d[2];
    dt[c] = -s * (f.d[0] + f.d[1] + f.d[2]);
    for (int q = 0; q < m->nin; q++) g[q] = 0;
    for (int t = 0; t < 4; t++)
        if (m->probe[t] >= 0) g[m->probe[t]] += dt[t];
    return p * s * f.v;
}
