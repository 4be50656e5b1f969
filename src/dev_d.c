/* dev_d.c -- ideal / piecewise-linear diode D anode cathode model (netlist.md),
 * .model name D(VF=0 RON=0 ROFF=inf [BV]) or SPICE parameters (IS N RS [BV IBV NBV]):
 *   pair 0, lambda = i_D (anode -> cathode): B[a][0] = -1, B[k][0] = +1;
 *     y = v_k - v_a + VF + RON lambda: C[0][k] = 1, C[0][a] = -1, D = RON, e0 = VF;
 *   pair 1 (BV given), the reverse (Zener) branch lambda_z flowing k -> a:
 *     y = v_a - v_k + VZ + RZ lambda_z;
 *   a finite ROFF is a parallel resistor.
 * Explicit VF or RON: VF, RON as given, VZ = BV, RZ = RON (D(VF=0): the ideal
 * diode of the design documents). Any other card, `.model X D` with no
 * parameters included, is SPICE's diode (IS = 1e-14, N = 1, RS = 0 and what the
 * card gives; netlist.md): VF and RON are fitted to the Shockley curve (with a
 * warning):
 *     v(i) = N Vt ln(1 + i/IS) + RS i,  Vt = kT/q at 300.15 K,
 * replaced on i in [I1, I2] = [10 mA, 1 A] by its best uniform (Chebyshev) line:
 * v(i) is concave, so the line has the secant slope RON = (v(I2) - v(I1))/(I2 - I1)
 * and lies half-way between the secant and the parallel tangent (touching at
 * i* = N Vt/(RON - RS) - IS): the voltage error is at most half that gap, with
 * equal errors at I1, i*, I2. The Zener branch is fitted the same way to
 * v(i) = BV + NBV Vt ln(i/IBV) + RS i (IBV = 1 mA, NBV = N by default). CJO (any
 * card) is a constant capacitance across the diode in the transient (SPICE's
 * junction capacitance at zero bias: its voltage dependence, VJ, M, FC, and the
 * transit time TT are not modelled). Other SPICE parameters (TT, ...) are
 * ignored with one warning per model. */
#include <math.h>
#include <string.h>

#include "device.h"

#define VT_300 (1.380649e-23 * 300.15 / 1.602176634e-19)    /* kT/q, V */
#define FIT_I1 10e-3
#define FIT_I2 1.0

typedef struct diode_par {
    double vf, ron, roff;  /* roff = INFINITY when not given */
    int zener;
    double vz, rz;
    int fitted;            /* VF/RON from IS N RS */
    double err;            /* max fit error (V) of the forward branch */
    double cj;             /* CJO: a constant capacitance across the diode (F), 0: none */
} diode_par;

/* Chebyshev line v = v0 + r i of v(i) = c + a ln(1 + i/i0) + rs i on [FIT_I1, FIT_I2];
 * returns the max error. */
static double cheb_fit(double c, double a, double i0, double rs, double *v0, double *r)
{
    double i1 = FIT_I1, i2 = FIT_I2;
    double v1 = c + a * log1p(i1 / i0) + rs * i1, v2 = c + a * log1p(i2 / i0) + rs * i2;
    double s = (v2 - v1) / (i2 - i1);                         /* secant slope */
    double is = s > rs ? a / (s - rs) - i0 : i1;              /* v'(i*) = s */
    is = fmin(fmax(is, i1), i2);
    double gap = c + a * log1p(is / i0) + rs * is - (v1 + s * (is - i1));   /* >= 0 (concave) */
    *r = s;
    *v0 = v1 - s * i1 + 0.5 * gap;
    return 0.5 * gap;
}

static nsc_status d_params(const nsc_element *e, nsc_report *r, diode_par *p)
{
    const nsc_model *m = e->model;
    if (!m || m->type != NSC_MOD_D)
        return nsc_err(r, NSC_ENETLIST, &e->loc, "diode %s has no diode model", e->name);
    memset(p, 0, sizeof *p);
    p->roff = INFINITY;
    if (!nsc_model_get(m, "cjo", &p->cj)) nsc_model_get(m, "cj0", &p->cj);
    if (!(p->cj >= 0 && isfinite(p->cj)))
        return nsc_err(r, NSC_ENETLIST, &m->loc, "diode model '%s': CJO = %g must be finite and >= 0", m->name, p->cj);
    double is = 1e-14, n = 1, rs = 0, bv = 0, ibv = 1e-3, nbv;
    int given = nsc_model_get(m, "vf", &p->vf) | nsc_model_get(m, "ron", &p->ron);
    int spice = nsc_model_get(m, "is", &is) | nsc_model_get(m, "n", &n) | nsc_model_get(m, "rs", &rs);
    nsc_model_get(m, "roff", &p->roff);
    p->zener = nsc_model_get(m, "bv", &bv);
    nsc_model_get(m, "ibv", &ibv);
    if (!nsc_model_get(m, "nbv", &nbv)) nbv = n;
    if (!(p->roff > 0))
        return nsc_err(r, NSC_ENETLIST, &m->loc, "diode model '%s': ROFF = %g must be > 0", m->name, p->roff);
    if (p->zener && !(bv > 0))
        return nsc_err(r, NSC_ENETLIST, &m->loc, "diode model '%s': BV = %g must be > 0", m->name, bv);
    (void)spice;
    if (!given) {                                            /* SPICE's diode, defaults included */
        if (!(is > 0 && n > 0 && rs >= 0 && ibv > 0 && nbv > 0))
            return nsc_err(r, NSC_ENETLIST, &m->loc, "diode model '%s': IS, N, IBV, NBV must be > 0 and RS >= 0",
                           m->name);
        p->fitted = 1;
        p->err = cheb_fit(0.0, n * VT_300, is, rs, &p->vf, &p->ron);
        if (p->zener) {
            /* v = BV + NBV Vt ln(i/IBV) + RS i = (BV - 40 a) + a ln(1 + i/i0) + RS i to
             * rounding, a = NBV Vt, i0 = IBV e^-40 << FIT_I1 */
            double a = nbv * VT_300;
            cheb_fit(bv - 40.0 * a, a, ibv * exp(-40.0), rs, &p->vz, &p->rz);
        }
    } else {
        if (!(p->ron >= 0))
            return nsc_err(r, NSC_ENETLIST, &m->loc, "diode model '%s': RON = %g must be >= 0", m->name, p->ron);
        p->vz = bv;
        p->rz = p->ron;
    }
    return NSC_OK;
}

static int d_known(const char *name)
{
    if (nsc_strieq(name, "cjo") || nsc_strieq(name, "cj0")) return 1;   /* any card */
    static const char *const k[] = {"vf", "ron", "roff", "is", "n", "rs", "bv", "ibv", "nbv", NULL};
    for (int q = 0; k[q]; q++)
        if (nsc_strieq(name, k[q])) return 1;
    return nsc_swloss_param(name);
}

static nsc_status d_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    diode_par p;
    nsc_status st = d_params(e, ctx->r, &p);
    if (st) return st;
    const nsc_model *m = e->model;
    int given = nsc_model_get(m, "vf", NULL) || nsc_model_get(m, "ron", NULL);
    for (int q = 0; q < m->npar; q++) {
        const char *pn = m->pname[q];
        if (!d_known(pn) || (given && (nsc_strieq(pn, "is") || nsc_strieq(pn, "n") || nsc_strieq(pn, "rs")))) {
            if (given)
                nsc_warn(ctx->r, &m->loc, "diode model '%s': parameters other than VF RON ROFF BV CJO are ignored "
                         "(%s first): piecewise-linear diode VF=%g RON=%g", m->name, pn, p.vf, p.ron);
            else                                            /* the fit's own warning gives VF and RON */
                nsc_warn(ctx->r, &m->loc, "diode model '%s': parameters other than IS N RS ROFF BV IBV NBV CJO are "
                         "ignored (%s first)", m->name, pn);
            break;
        }
    }
    if (p.fitted) {
        if (p.zener)
            nsc_warn(ctx->r, &m->loc, "diode model '%s': SPICE parameters fitted on 10 mA..1 A: VF=%.4g RON=%.4g "
                     "(max error %.3g V), Zener VZ=%.4g RZ=%.4g", m->name, p.vf, p.ron, p.err, p.vz, p.rz);
        else
            nsc_warn(ctx->r, &m->loc, "diode model '%s': SPICE parameters fitted on 10 mA..1 A: VF=%.4g RON=%.4g "
                     "(max error %.3g V)", m->name, p.vf, p.ron, p.err);
    }
    need->npair = p.zener ? 2 : 1;
    int cap = p.cj > 0 && ctx->mode == NSC_ASM_TRAN;          /* CJO: a capacitor in the transient */
    nsc_dev_link(ctx, e->node[0], e->node[1], isfinite(p.roff) || cap ? NSC_LINK_NS : NSC_LINK_DC);
    return NSC_OK;
}

static nsc_status d_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    diode_par p;
    nsc_status st = d_params(e, b->r, &p);
    if (st) return st;
    int a = e->node[0], k = e->node[1], j = s->pair;
    nsc_st_pair(b, a, k, j);                                 /* lambda leaves a, enters k */
    nsc_st(b, NSC_ST_D, j, j, p.ron);                        /* y += RON lambda */
    nsc_st_e0(b, j, p.vf);                                   /* y += VF */
    if (p.zener) {
        nsc_st_pair(b, k, a, j + 1);                         /* lambda_z leaves k, enters a */
        nsc_st(b, NSC_ST_D, j + 1, j + 1, p.rz);
        nsc_st_e0(b, j + 1, p.vz);
    }
    if (isfinite(p.roff)) nsc_st_g(b, a, k, 1.0 / p.roff);
    if (p.cj > 0) nsc_st_cap(b, a, k, p.cj);                 /* (E: dropped in the static modes) */
    return NSC_OK;
}

/* I(D) = lambda - lambda_z + (v_a - v_k)/ROFF + CJO (v_a - v_k)'. */
static int d_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    const nsc_element *e = &c->el[ei];
    diode_par p;
    nsc_report dummy;
    nsc_report_init(&dummy);
    nsc_status st = d_params(e, &dummy, &p);
    nsc_report_free(&dummy);
    if (nsc_lin_add(f, NSC_T_L, L->el_pair[ei], 1.0)) return -1;
    if (st == NSC_OK && p.zener && nsc_lin_add(f, NSC_T_L, L->el_pair[ei] + 1, -1.0)) return -1;
    if (st == NSC_OK && isfinite(p.roff)) {
        if (nsc_lin_add(f, NSC_T_Z, nsc_zn(e->node[0]), 1.0 / p.roff)) return -1;
        if (nsc_lin_add(f, NSC_T_Z, nsc_zn(e->node[1]), -1.0 / p.roff)) return -1;
    }
    if (st == NSC_OK && p.cj > 0 && L->mode == NSC_ASM_TRAN) {
        if (nsc_lin_add(f, NSC_T_DZ, nsc_zn(e->node[0]), p.cj)) return -1;
        if (nsc_lin_add(f, NSC_T_DZ, nsc_zn(e->node[1]), -p.cj)) return -1;
    }
    return 0;
}

const nsc_device nsc_dev_d = {NSC_EL_D, "diodes", 0, d_count, d_stamp, d_current, NSC_PC_SEMI, 1, NULL, NULL};
