/* dev_d.c -- ideal / piecewise-linear diode D anode cathode model (netlist.md),
 * .model name D(VF=0 RON=0 ROFF=inf [BV]) or SPICE parameters (IS N RS [BV IBV NBV]
 * [SEGMENTS IMIN IMAX]), CJO and TT on any card:
 *   pair 0, the forward current lambda_0 = i_F flowing anode -> cathode:
 *     y_0 = v_k - v_a + v(i_F) with the fit's concave v(i) (nsc_jfit)
 *         = v_k - v_a + vf_0 + s_0 lambda_0 - sum_{q >= 1} c_q mu_q,
 *     c_q = s_q-1 - s_q > 0 (one segment: VF + RON lambda_0);
 *   pairs q = 1..nf-1, mu_q = max(0, i_F - knot_q):
 *     y_q = mu_q - lambda_0 + knot_q >= 0 _|_ mu_q >= 0.
 *     Its block [[W + s_0, -c], [-1, I]] is a P-matrix (principal minors
 *     W + s_0 - sum_S c_q > 0 since sum c_q < s_0) whose network part W sits on
 *     one entry: a diode fed by a current source (W ~ 1/gmin = 1e12) stays
 *     solvable, where nf parallel branches (W 1 1^T + diag r) defeated Lemke;
 *   pair nf (BV given), the reverse (Zener) branch lambda_z flowing k -> a:
 *     y = v_a - v_k + VZ + RZ lambda_z;
 *   a finite ROFF is a parallel resistor;
 *   CJO > 0 alone (or M = 0): a constant capacitor CJO across it (the transient:
 *     linear, no Newton iteration; SPICE's C(v) of M = 0);
 *   CJO > 0 with VJ or M > 0 given: SPICE's depletion charge q(v) of CJO VJ (1) M (0.5) FC (0.5)
 *     (depl.h) of v = v_a - v_k, m times, as a charge-based capacitor (dev_cq.c):
 *     a branch unknown x, row 0 = -x + q(v) (a smooth function: the Newton
 *     iteration), E[a][x] += 1, E[k][x] -= 1 in the transient (x' flows a -> k;
 *     each step moves exactly q(v1) - q(v0)); static modes: open. v is the
 *     terminals' voltage (the fit holds RS inside: no internal node), none when
 *     a and k are one node;
 *   TT > 0: one branch unknown x = i_F = lambda_0, the diffusion charge TT x
 *     whose derivative flows a -> k (charge control: the junction stays on while
 *     charge is left, the reverse recovery). Its row holds at t_k+1 and the
 *     lambda_q are implicit (Moreau): first order in the charge's decay, no ringing.
 * Explicit VF or RON: VF, RON as given, VZ = BV, RZ = RON (D(VF=0): the ideal
 * diode of the design documents). LTspice's ideal diode (VFWD, VREV or RREV
 * given) is the same card: VF = VFWD, VZ = VREV, RZ = RREV, with LTspice's
 * defaults RON = 1, ROFF = 1e12, RREV = RON (ILIMIT, REVILIMIT, EPSILON and
 * REVEPSILON are not modelled: the warning names them). Any other card, `.model X D` with no
 * parameters included, is SPICE's diode (IS = 1e-14, N = 1, RS = 0 and what the
 * card gives; netlist.md), fitted (with a warning) by nsc_jfit (pwl_exp.c) to
 *     v(i) = N Vt ln(1 + i/IS) + RS i,  Vt = kT/q at 300.15 K,
 * on [IMIN, IMAX] = [100 uA, 100 A] unless given (our parameters: then fixed) by SEGMENTS
 * chords on geometric knots raised by half their largest gap (one: the best
 * uniform line, Chebyshev); without SEGMENTS, the fewest chords within 10 mV of
 * the curve (at most 8; d_fit). The Zener branch is one line fitted the same way
 * to v(i) = BV + NBV Vt ln(i/IBV) + RS i (IBV = 1 mA, NBV = N by default) on
 * IMIN..IMAX when given, else on 10 mA..1 A. Other SPICE parameters are ignored with one warning per model.
 * The fit follows the run (issue 27): a run whose peak forward current left the
 * default range (nsc_jfit_outside) has the fit remade on the currents it saw
 * (nsc_jfit_refit: [IMIN, 2 peak] above, [peak/1000, 2 peak] below) and is
 * repeated (run.c nsc_run_analysis, at most twice); IMIN/IMAX on the card fix
 * the range (a run outside it is warned about, d_check).
 * The instance's m= (m diodes in parallel) scales the card's currents at the
 * same voltage (d_mult), as SPICE's m. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cards.h"
#include "device.h"
#include "pwl_exp.h"
#include "depl.h"

#define VT_300 (1.380649e-23 * 300.15 / 1.602176634e-19) /* kT/q, V */

typedef struct diode_par {
    nsc_jfit fw; /* the forward curve (pairs 0..fw.nseg-1) */
    double roff; /* INFINITY when not given */
    int zener;
    double vz, rz;     /* the reverse branch (pair fw.nseg) */
    int fitted;        /* fw from IS N RS */
    int follow;        /* fitted on the default range: remade to the run's currents (d_refit) */
    int seg;           /* the card's SEGMENTS, 0: the fewest within D_AUTO_TOL */
    int refitted;      /* 1: fw remade (d_refit): its own fit, named by the element */
    double cj;         /* CJO (F, times m), 0: none */
    double tt;         /* TT: the diffusion charge TT i_F (s), 0: none */
    double vj, mj, fc; /* the depletion charge's VJ M FC */
    int nq; /* instructions of its charge q(v) (0: none), PROBEs the nodes a, k not ground */
    nsc_xinstr qcode[NSC_DEPL_MAXCODE];
} diode_par;

/* The default fit of a SPICE diode: [IMIN, IMAX] = [100 uA, 100 A] (a signal
 * diode's milliamperes to a power rectifier's inrush), by the fewest chords
 * (at most D_AUTO_MAX) within D_AUTO_TOL of the curve: N = 1 takes 6 (8 mV),
 * N = 2 takes 8 (9.3 mV), N = 3 the cap's 8 (13.9 mV, said in the warning);
 * a nearly ideal card (N = 0.01) one. The Zener branch
 * is one line on IMIN..IMAX when the card gives them, else on 10 mA..1 A. */
#define D_IMIN 100e-6
#define D_IMAX 100.0
#define D_AUTO_MAX 8
#define D_AUTO_TOL 0.01

/* The card's parameters (netlist.md defaults); D_SPICE: SPICE's diode only,
 * ignored on a VF/RON card. */
typedef struct d_card {
    double cjo, cj0, tt, vf, ron, roff, is, n, rs, bv, ibv, nbv, seg, imin, imax, vfwd, vrev, rrev,
        vj, m, fc;
} d_card;
enum { D_SPICE = 1 };
enum {
    G_CJO = 1 << 0,
    G_VF = 1 << 3,
    G_VJ = 1 << 18,
    G_M = 1 << 19,
    G_RON = 1 << 4,
    G_BV = 1 << 9,
    G_NBV = 1 << 11,
    G_SEG = 1 << 12,
    G_IMIN = 1 << 13,
    G_IMAX = 1 << 14,
    G_VFWD = 1 << 15,
    G_VREV = 1 << 16,
    G_RREV = 1 << 17
};
/* bits of the table's rows */
#define D_P(f, def, fl) \
    { \
#f, offsetof(d_card, f), def, fl \
    }
static const nsc_par D_PAR[] = {
    D_P(cjo, 0, 0),
    D_P(cj0, 0, 0),
    D_P(tt, 0, 0),
    D_P(vf, 0, 0),
    D_P(ron, 0, 0),
    D_P(roff, INFINITY, 0),
    D_P(is, 1e-14, D_SPICE),
    D_P(n, 1, D_SPICE),
    D_P(rs, 0, D_SPICE),
    D_P(bv, 0, 0),
    D_P(ibv, 1e-3, D_SPICE),
    D_P(nbv, 0, D_SPICE),
    { "segments", offsetof(d_card, seg), 0, D_SPICE },
    D_P(imin, D_IMIN, D_SPICE),
    D_P(imax, D_IMAX, D_SPICE),
    D_P(vfwd, 0, 0),
    D_P(vrev, 0, 0),
    D_P(rrev, 0, 0),
    D_P(vj, 1, 0),
    D_P(m, 0.5, 0),
    D_P(fc, 0.5, 0),
};
#define D_NPAR ((int)(sizeof D_PAR / sizeof D_PAR[0]))

/* The instance parameter m= (devices in parallel), 1 unless given. */
enum { D_M };
static const nsc_par D_INST[] = { { "m", 0, 1.0, 0 } };

/* The SPICE parameters of card k (given: its mask) fitted into p. */
static nsc_status d_fit(const nsc_model *m, const d_card *k, unsigned given, nsc_report *r,
                        diode_par *p)
{
    double nbv = given & G_NBV ? k->nbv : k->n, seg = k->seg, imin = k->imin, imax = k->imax;
    int range = (given & (G_IMIN | G_IMAX)) != 0;
    if (!(k->is > 0 && k->n > 0 && k->rs >= 0 && k->ibv > 0 && nbv > 0))
        return nsc_err(r, NSC_ENETLIST, &m->loc,
                       "diode model '%s': IS, N, IBV, NBV must be > 0 and RS >= 0", m->name);
    if ((given & G_SEG) && !(seg >= 1 && seg <= NSC_JFIT_MAX && seg == floor(seg)))
        return nsc_err(r, NSC_ENETLIST, &m->loc,
                       "diode model '%s': SEGMENTS = %g must be an integer in 1..%d", m->name, seg,
                       NSC_JFIT_MAX);
    if (!(imin > 0 && imax > imin && isfinite(imax)))
        return nsc_err(r, NSC_ENETLIST, &m->loc,
                       "diode model '%s': IMIN = %g, IMAX = %g: need 0 < IMIN < IMAX", m->name,
                       imin, imax);
    p->fitted = 1;
    p->follow = !range;
    p->seg = given & G_SEG ? (int)seg : 0;
    if (given & G_SEG)
        nsc_jfit_make(0.0, k->n * VT_300, k->is, k->rs, imin, imax, (int)seg, &p->fw);
    else
        nsc_jfit_auto(0.0, k->n * VT_300, k->is, k->rs, imin, imax, D_AUTO_MAX, D_AUTO_TOL, &p->fw);
    if (p->zener) {
        /* v = BV + NBV Vt ln(i/IBV) + RS i = (BV - 40 a) + a ln(1 + i/i0) + RS i to
         * rounding, a = NBV Vt, i0 = IBV e^-40 << IMIN; one segment */
        double a = nbv * VT_300;
        nsc_jfit z;
        nsc_jfit_make(k->bv - 40.0 * a, a, k->ibv * exp(-40.0), k->rs, range ? imin : 10e-3,
                      range ? imax : 1.0, 1, &z);
        p->vz = z.vf[0];
        p->rz = z.r[0];
    }
    return NSC_OK;
}

/* The explicit PWL card (VF/RON, or LTspice's ideal diode: VFWD RON ROFF VREV
 * RREV, whose defaults are LTspice's: RON = 1, ROFF = 1e12, RREV = RON) into p. */
static nsc_status d_explicit(const nsc_model *m, const d_card *k, unsigned given, nsc_report *r,
                             diode_par *p)
{
    int lt = (given & (G_VFWD | G_VREV | G_RREV)) != 0;
    double ron = !(given & G_RON) && lt ? 1.0 : k->ron;
    if (lt && !isfinite(p->roff)) p->roff = 1e12;
    if (!(ron >= 0))
        return nsc_err(r, NSC_ENETLIST, &m->loc, "diode model '%s': RON = %g must be >= 0", m->name,
                       ron);
    p->fw.nseg = 1;
    p->fw.vf[0] = given & G_VFWD ? k->vfwd : k->vf;
    p->fw.r[0] = p->fw.s[0] = ron;
    p->vz = given & G_VREV ? k->vrev : k->bv;
    p->rz = given & G_RREV ? k->rrev : ron;
    if (p->zener && !(p->rz >= 0))
        return nsc_err(r, NSC_ENETLIST, &m->loc, "diode model '%s': RREV = %g must be >= 0",
                       m->name, p->rz);
    return NSC_OK;
}

/* m diodes in parallel (SPICE's m=): every current scaled by m at the same
 * voltage, so the fit's slopes and resistances divide by m, its knots and
 * range multiply by m (v_m(i) = v_1(i/m)); CJO multiplies, TT stays. */
static void d_mult(diode_par *p, double m)
{
    nsc_jfit *f = &p->fw;
    for (int q = 0; q < f->nseg; q++) {
        f->r[q] /= m;
        f->s[q] /= m;
        f->knot[q] *= m;
    }
    f->i1 *= m;
    f->i2 *= m;
    f->i0 *= m;
    f->rs /= m;
    p->rz /= m;
    p->roff /= m;
    p->cj *= m;
}

/* XSPICE's zener code model (an A card, cards_xspice.c; its card's type "zener"):
 * V_BREAKDOWN I_BREAKDOWN I_SAT N_FORWARD read as SPICE's BV IBV IS N, with
 * XSPICE's defaults (2e-2 A, 1e-12 A, 1) for the last three. 1 when m is one. */
static const char *const xz_name[] = { "v_breakdown", "i_breakdown", "i_sat", "n_forward" };
static int d_xspice_zener(const nsc_model *m, d_card *k, unsigned *given)
{
    double v;
    if (!nsc_model_get(m, "v_breakdown", &k->bv)) return 0;
    *given |= G_BV;
    k->ibv = nsc_model_get(m, "i_breakdown", &v) ? v : 2e-2;
    k->is = nsc_model_get(m, "i_sat", &v) ? v : 1e-12;
    k->n = nsc_model_get(m, "n_forward", &v) ? v : 1.0;
    return 1;
}

/* Element e's card read and checked into p (an nsc_dev_parse). */
static nsc_status d_params(const nsc_element *e, nsc_report *r, void *out)
{
    diode_par *p = out;
    const nsc_model *m = e->model;
    if (!m || m->type != NSC_MOD_D)
        return nsc_err(r, NSC_ENETLIST, &e->loc, "diode %s has no diode model", e->name);
    d_card k;
    unsigned given = nsc_par_read(m, D_PAR, D_NPAR, &k);
    d_xspice_zener(m, &k, &given);
    memset(p, 0, sizeof *p);
    p->roff = k.roff;
    p->cj = given & G_CJO ? k.cjo : k.cj0;
    p->tt = k.tt;
    if (!(p->cj >= 0 && isfinite(p->cj)))
        return nsc_err(r, NSC_ENETLIST, &m->loc,
                       "diode model '%s': CJO = %g must be finite and >= 0", m->name, p->cj);
    if (!(k.vj > 0 && k.m >= 0 && k.m < 1 && k.fc >= 0 && k.fc < 1))
        return nsc_err(r, NSC_ENETLIST, &m->loc,
                       "diode model '%s': need VJ > 0, 0 <= M < 1, 0 <= FC < 1 (VJ = %g, "
                       "M = %g, FC = %g)",
                       m->name, k.vj, k.m, k.fc);
    p->vj = k.vj, p->mj = k.m, p->fc = k.fc;
    if (!(p->tt >= 0 && p->tt < 1.0))
        return nsc_err(r, NSC_ENETLIST, &m->loc, "diode model '%s': TT = %g must be >= 0 and < 1 s",
                       m->name, p->tt);
    p->zener = (given & (G_BV | G_VREV)) != 0;
    if (!(p->roff > 0))
        return nsc_err(r, NSC_ENETLIST, &m->loc, "diode model '%s': ROFF = %g must be > 0", m->name,
                       p->roff);
    double bv = given & G_VREV ? k.vrev : k.bv;
    if (p->zener && !(bv > 0))
        return nsc_err(r, NSC_ENETLIST, &m->loc, "diode model '%s': %s = %g must be > 0", m->name,
                       given & G_VREV ? "VREV" : "BV", bv);
    nsc_status st = given & (G_VF | G_RON | G_VFWD | G_VREV | G_RREV)
                        ? d_explicit(m, &k, given, r, p)
                        : d_fit(m, &k, given, r, p); /* SPICE's diode, defaults included */
    double mult = e->ipar[D_M] > 0 ? e->ipar[D_M]
                                   : 1.0; /* 0: an element made without its card (1) */
    if (!st && mult != 1) d_mult(p, mult);
    int a = e->node[0], c = e->node[1];
    if (!st && p->cj > 0 && a != c && p->mj > 0
        && (given & (G_VJ | G_M))) /* else the constant CJO (linear) */
        p->nq = nsc_depl_code(p->qcode, a ? 0 : -1, c ? (a ? 1 : 0) : -1, p->cj, p->vj, p->mj,
                              p->fc);
    return st;
}

/* The card read once (lcs/devif.h bind). */
static void *d_bind(const nsc_circuit *c, int ei)
{
    return nsc_bind_parse(&c->el[ei], sizeof(diode_par), d_params);
}

/* One warning naming the first parameter of m that is not read, and the fit's
 * (element e's own when remade). */
static void d_warn(nsc_dev_ctx *ctx, const nsc_element *e, const diode_par *p)
{
    const nsc_model *m = e->model;
    for (int q = 0; q < m->npar; q++) {
        const char *pn = m->pname[q];
        int xz = 0;
        for (int j = 0; j < 4; j++) xz |= nsc_strieq(pn, xz_name[j]);
        if (nsc_par_known(D_PAR, D_NPAR, p->fitted ? 0 : D_SPICE, pn) || nsc_swloss_param(pn) || xz)
            continue;
        if (!p->fitted)
            nsc_warn(
                ctx->r, &m->loc,
                "diode model '%s': parameters other than VF RON ROFF BV CJO VJ M FC TT (VFWD VREV RREV) are ignored "
                "(%s first): piecewise-linear diode VF=%g RON=%g",
                m->name, pn, p->fw.vf[0], p->fw.r[0]);
        else /* the fit's own warning gives VF and RON */
            nsc_warn(ctx->r, &m->loc,
                     "diode model '%s': parameters other than IS N RS ROFF BV IBV NBV CJO VJ M FC "
                     "TT SEGMENTS IMIN IMAX are ignored (%s first)",
                     m->name, pn);
        break;
    }
    if (!p->fitted) return;
    char rg[64], z[96] = "";
    nsc_jfit_range(&p->fw, rg, sizeof rg);
    if (p->zener) snprintf(z, sizeof z, ", Zener VZ=%.4g RZ=%.4g", p->vz, p->rz);
    if (p->refitted) /* d_refit */
        nsc_warn(ctx->r, &e->loc,
                 "diode model '%s' of %s: SPICE parameters fitted by %d segment%s on %s: VF=%.4g "
                 "(max error %.3g V)%s",
                 m->name, e->name, p->fw.nseg, p->fw.nseg > 1 ? "s" : "", rg, p->fw.vf[0],
                 p->fw.err, z);
    else if (p->fw.nseg == 1)
        nsc_warn(ctx->r, &m->loc,
                 "diode model '%s': SPICE parameters fitted on %s: VF=%.4g RON=%.4g "
                 "(max error %.3g V)%s",
                 m->name, rg, p->fw.vf[0], p->fw.r[0], p->fw.err, z);
    else
        nsc_warn(ctx->r, &m->loc,
                 "diode model '%s': SPICE parameters fitted by %d segments on %s: VF=%.4g "
                 "(max error %.3g V)%s",
                 m->name, p->fw.nseg, rg, p->fw.vf[0], p->fw.err, z);
}

static nsc_status d_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    const diode_par *p = e->priv;
    if (!p) return nsc_bind_failed(e, sizeof *p, d_params, ctx->r);
    d_warn(ctx, e, p);
    need->npair = p->fw.nseg + (p->zener ? 1 : 0);
    need->nbranch = (p->tt > 0) + (p->nq > 0); /* the diffusion current, the depletion charge */
    int cap = p->cj > 0 && ctx->mode == NSC_ASM_TRAN; /* CJO: a capacitor in the transient */
    nsc_dev_link(ctx, e->node[0], e->node[1], isfinite(p->roff) || cap ? NSC_LINK_NS : NSC_LINK_DC);
    return NSC_OK;
}

/* The pairs of the header; TT: the branch unknown x = i_F (row 0 = -x + lambda_0,
 * exact at t_k+1) carries the diffusion charge TT x, whose derivative flows
 * a -> k: E[a][x] += TT, E[k][x] -= TT; CJO: the charge's unknown after it. */
static nsc_status d_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    const diode_par *p = e->priv;
    if (!p) return nsc_bind_failed(e, sizeof *p, d_params, b->r);
    int a = e->node[0], k = e->node[1], j = s->pair, nf = p->fw.nseg;
    nsc_st_pair(b, a, k, j); /* lambda_0 leaves a, enters k */
    nsc_st_jfit(b, &p->fw, j);
    if (p->zener) {
        nsc_st_pair(b, k, a, j + nf); /* lambda_z leaves k, enters a */
        nsc_st(b, NSC_ST_D, j + nf, j + nf, p->rz);
        nsc_st_e0(b, j + nf, p->vz);
    }
    if (isfinite(p->roff)) nsc_st_g(b, a, k, 1.0 / p->roff);
    if (p->cj > 0 && !p->nq) nsc_st_cap(b, a, k, p->cj); /* constant (E: dropped when static) */
    if (p->nq > 0) {                                     /* the depletion charge x = q(v) */
        int x = s->branch + (p->tt > 0), in[2], nin = 0;
        if (b->mode == NSC_ASM_TRAN) {
            nsc_st(b, NSC_ST_E, nsc_zn(a), x, 1.0); /* x' leaves a, enters k */
            nsc_st(b, NSC_ST_E, nsc_zn(k), x, -1.0);
        }
        if (a) in[nin++] = nsc_zn(a);
        if (k) in[nin++] = nsc_zn(k);
        nsc_st_smooth_at0(b, ei, x, in, nin, p->qcode, p->nq);
    }
    if (p->tt > 0) {
        int x = s->branch;
        nsc_st(b, NSC_ST_A, x, x, -1.0);
        nsc_st(b, NSC_ST_B, x, j, 1.0);
        nsc_st_exact(b, x);
        nsc_st(b, NSC_ST_E, nsc_zn(a), x, p->tt);
        nsc_st(b, NSC_ST_E, nsc_zn(k), x, -p->tt);
    }
    return NSC_OK;
}

/* I(D) = lambda_0 - lambda_z + (v_a - v_k)/ROFF + q(v)' (CJO (v_a - v_k)' when constant) + TT x'. */
static nsc_status d_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    const nsc_element *e = &c->el[ei];
    const diode_par *p = e->priv;
    int j = L->el_pair[ei], nf = p ? p->fw.nseg : 1, tran = L->mode == NSC_ASM_TRAN;
    if (nsc_lin_add(f, NSC_T_L, j, 1.0)) return NSC_ENOMEM;
    if (!p) return NSC_OK;
    if (p->zener && nsc_lin_add(f, NSC_T_L, j + nf, -1.0)) return NSC_ENOMEM;
    if (isfinite(p->roff)) {
        if (nsc_lin_add(f, NSC_T_Z, nsc_zn(e->node[0]), 1.0 / p->roff)) return NSC_ENOMEM;
        if (nsc_lin_add(f, NSC_T_Z, nsc_zn(e->node[1]), -1.0 / p->roff)) return NSC_ENOMEM;
    }
    if (p->cj > 0 && !p->nq && tran) { /* constant: CJO (v_a - v_k)' */
        if (nsc_lin_add(f, NSC_T_DZ, nsc_zn(e->node[0]), p->cj)) return NSC_ENOMEM;
        if (nsc_lin_add(f, NSC_T_DZ, nsc_zn(e->node[1]), -p->cj)) return NSC_ENOMEM;
    }
    if (p->nq > 0 && tran && nsc_lin_add(f, NSC_T_DZ, L->el_branch[ei] + (p->tt > 0), 1.0))
        return NSC_ENOMEM;
    if (p->tt > 0 && tran && nsc_lin_add(f, NSC_T_DZ, L->el_branch[ei], p->tt)) return NSC_ENOMEM;
    return NSC_OK;
}

/* A fitted diode whose peak forward current left the fit's range far enough to
 * matter (nsc_jfit_outside): the waveform is not the SPICE diode's. */
static void d_check(const nsc_lcs *L, const nsc_circuit *c, int ei, const double *lpk,
                    nsc_report *r)
{
    const nsc_element *e = &c->el[ei];
    const diode_par *p = e->priv;
    double pk = lpk[L->el_pair[ei]], off;
    if (!p || !p->fitted) return;
    double ip = nsc_jfit_seen(&p->fw, pk, NULL); /* (its voltage when it never conducted) */
    if (!nsc_jfit_outside(&p->fw, ip, &off)) return;
    char rg[64], sn[96];
    nsc_jfit_range(&p->fw, rg, sizeof rg);
    nsc_jfit_seen_text(&p->fw, pk, sn, sizeof sn);
    nsc_warn(
        r, &e->loc,
        "diode %s: its peak current %.3g A%s is %s the range %s its model '%s' was fitted on; "
        "there the fit is %.3g V off the SPICE diode (%.3g V inside): set IMIN/IMAX (and SEGMENTS) "
        "to cover the currents of the run%s",
        e->name, ip, sn, ip > p->fw.i2 ? "above" : "below", rg, e->model->name, off, p->fw.err,
        p->refitted ? " (it left the refitted ones too)" : "");
}

/* The fit of a diode whose peak current left its default range remade on the
 * run's currents (device.h refit). */
static int d_refit(const nsc_lcs *L, const nsc_circuit *c, int ei, const double *lpk, int complete,
                   nsc_report *r)
{
    const nsc_element *e = &c->el[ei];
    diode_par *p = e->priv; /* (the element's own block) */
    if (!p || !p->follow) return 0;
    double pk = lpk[L->el_pair[ei]], ip = nsc_jfit_seen(&p->fw, pk, NULL);
    nsc_jfit old = p->fw;
    if (!nsc_jfit_follow(&p->fw, pk, complete == 2, p->seg, D_AUTO_MAX, D_AUTO_TOL)) return 0;
    p->refitted = 1;
    char a[64], b[64], sn[96];
    nsc_jfit_range(&old, a, sizeof a);
    nsc_jfit_range(&p->fw, b, sizeof b);
    nsc_jfit_seen_text(&old, pk, sn, sizeof sn);
    nsc_note(r, &e->loc,
             "diode %s: its peak current %.3g A%s %s %s its model '%s' was fitted on: "
             "refitted by %d segment%s on %s (max error %.3g V), the run repeated",
             e->name, ip, sn, nsc_jfit_where(&old, ip), a, e->model->name, p->fw.nseg,
             p->fw.nseg > 1 ? "s" : "", b, p->fw.err);
    return 1;
}

/* d_refit's decision alone, on a copy of the fit (device.h refit_due). */
static int d_refit_due(const nsc_lcs *L, const nsc_circuit *c, int ei, const double *lpk)
{
    const diode_par *p = c->el[ei].priv;
    if (!p || !p->follow) return 0;
    nsc_jfit f = p->fw;
    return nsc_jfit_follow(&f, lpk[L->el_pair[ei]], 0, p->seg, D_AUTO_MAX, D_AUTO_TOL);
}

/* SPICE's defaults of its models' parameters (ngspice's; nl_model.c compares
 * a .model defined again with them) */
static const nsc_par D_DEFS[] = { { "is", 0, 1e-14, 0 }, { "n", 0, 1, 0 },    { "rs", 0, 0, 0 },
                                  { "tt", 0, 0, 0 },     { "cjo", 0, 0, 0 },  { "cj0", 0, 0, 0 },
                                  { "vj", 0, 1, 0 },     { "m", 0, 0.5, 0 },  { "eg", 0, 1.11, 0 },
                                  { "xti", 0, 3, 0 },    { "fc", 0, 0.5, 0 }, { "ibv", 0, 1e-3, 0 },
                                  { "kf", 0, 0, 0 },     { "af", 0, 1, 0 },   { NULL, 0, 0, 0 } };

/* gmin across anode-cathode, as dioload.c (devif.h junctions). */
static int d_junctions(const nsc_element *e, int *a, int *b)
{
    a[0] = e->node[0], b[0] = e->node[1];
    return 1;
}

const nsc_device nsc_dev_d = {
    .model_defs = D_DEFS,
    .kind = NSC_EL_D,
    .what = "diodes",
    .name = "diode",
    .letter = 'd',
    .card = NSC_CARD_OWN,
    .parse = nsc_card_model,
    .card_nodes = 2,
    .bind = d_bind,
    .inst = D_INST,
    .ninst = 1,
    .count = d_count,
    .stamp = d_stamp,
    .current = d_current,
    .pclass = NSC_PC_SEMI,
    .swloss = 1,
    .check = d_check,
    .refit = d_refit,
    .refit_due = d_refit_due,
    .vseen = 1,
    .junctions = d_junctions,
    .ndc = 1,
    .dc = { { 0, 1 } },
    .out_current = 1,
    .models = { { "d", NSC_MOD_D }, { "zener", NSC_MOD_D, 1 } },
    /* XSPICE's zener: an A card (cards_xspice.c) */ .model_what = "a diode (D)",
    .current_param = "id",
};
