/* dev_m.c -- MOS transistor M d g s b model [W=w] [L=l], the PWL Sah model
 * (netlist.md, formulation.md §1),
 *     .model name NMOS|PMOS(LEVEL=1|3 VTO KP [CGSO CGDO] [SEGMENTS]):
 *
 *   I_DS = p K/2 (f(x_s) - f(x_d)),  x_s = p (v_g - v_s - VTO),  x_d = p (v_g - v_d - VTO),
 *
 * K = KP W/L, p = +1 (NMOS) or -1 (PMOS, by symmetry), f the convex PWL
 * approximation of max(0, x)^2 (nsc_pwl_sq: f = sum_j a_j max(0, x - b_j)).
 * Each term is one pair (nb = SEGMENTS - 1 of them per side, 2 nb per transistor):
 *   mu_j = max(0, x_s - b_j): 0 <= mu_j _|_ mu_j - x_s + b_j >= 0,
 *     C[mu_j][g] = -p, C[mu_j][s] = +p, D = 1, e0 = p VTO + b_j;
 *   nu_j likewise with the drain; pairs mu_0..mu_nb-1, then nu_0..nu_nb-1;
 *   I_DS = sum_j c_j (mu_j - nu_j), c_j = p K/2 a_j, flows d -> s through the
 *   channel: B[d][mu_j] = -c_j, B[s][mu_j] = +c_j, B[d][nu_j] = +c_j, B[s][nu_j] = -c_j.
 * Drain and source are interchangeable (I_DS is odd in them). CGSO, CGDO (F/m)
 * give constant capacitors CGSO W (g-s) and CGDO W (g-d) (open in OP/UIC).
 * KP defaults to UO EPSOX/TOX when TOX is given (SPICE; UO default 600 cm^2/Vs),
 * else 2e-5 A/V^2. Cards of any LEVEL (2, 6, BSIM's VTH0 and U0/TOX) are mapped
 * onto this model, with one warning naming the level and the parameters used.
 * The body is not modelled; other parameters are accepted and
 * ignored with one warning per model. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "device.h"

#define EPSOX (3.9 * 8.854214871e-12)                        /* F/m */

typedef struct mos_par {
    double p;            /* +1 NMOS, -1 PMOS */
    double vto, kp, K;   /* K = KP W/L */
    double cgs, cgd;     /* F */
    double level;        /* the card's LEVEL (1 unless given) */
    int nb;              /* pairs per side */
    double b[NSC_PWL_MAXSEG], a[NSC_PWL_MAXSEG];
} mos_par;

/* The card's parameters (netlist.md), bits of the table's rows. */
typedef struct m_card {
    double level, vto, vt0, vth0, kp, cgso, cgdo, seg, tox, uo, u0;
} m_card;
enum { G_VTO = 1 << 1, G_VT0 = 1 << 2, G_VTH0 = 1 << 3, G_KP = 1 << 4, G_TOX = 1 << 8, G_UO = 1 << 9,
       G_U0 = 1 << 10 };
#define M_P(f, def) { #f, offsetof(m_card, f), def, 0 }
static const nsc_par M_PAR[] = {
    M_P(level, 1), M_P(vto, 0), M_P(vt0, 0), M_P(vth0, 0), M_P(kp, 2e-5), M_P(cgso, 0), M_P(cgdo, 0),
    { "segments", offsetof(m_card, seg), 0, 0 }, M_P(tox, 0), M_P(uo, 600), M_P(u0, 600),
};
#define M_NPAR ((int)(sizeof M_PAR / sizeof M_PAR[0]))

/* The instance parameters W= L= (m), SPICE's DEFW DEFL unless given, and m=
 * (transistors in parallel, 1 unless given: K and the capacitors times m). */
enum { M_W, M_L, M_M };
static const nsc_par M_INST[] = { { "w", 0, 100e-6, 0 }, { "l", 0, 100e-6, 0 }, { "m", 0, 1.0, 0 } };

/* what the elaborator takes from a VDMOS card (nl_expand.c nle_vdmos_model) */
static const char *const known_vdmos[] = {"rd", "rs", "rg", "rb", "is", "n", "bv", "cgs", "cgdmin", "cgdmax", NULL};

static int is_known(const nsc_model *m, const char *name)
{
    if (nsc_par_known(M_PAR, M_NPAR, 0, name)) return 1;
    for (int k = 0; m->vdmos && known_vdmos[k]; k++)
        if (nsc_strieq(name, known_vdmos[k])) return 1;
    return 0;
}

/* Element e's card read and checked into p (an nsc_dev_parse): VTO (else VT0,
 * VTH0), KP (else UO EPSOX/TOX with TOX, UO else U0). */
static nsc_status m_params(const nsc_element *e, nsc_report *r, void *out)
{
    mos_par *p = out;
    const nsc_model *m = e->model;
    if (!m || (m->type != NSC_MOD_NMOS && m->type != NSC_MOD_PMOS))
        return nsc_err(r, NSC_ENETLIST, &e->loc, "MOS transistor %s has no MOS model (NMOS or PMOS)", e->name);
    m_card k;
    unsigned given = nsc_par_read(m, M_PAR, M_NPAR, &k);
    double uo = given & G_UO ? k.uo : k.u0, seg = k.seg;
    p->p = m->type == NSC_MOD_NMOS ? 1.0 : -1.0;
    p->level = k.level;
    p->vto = given & G_VTO ? k.vto : given & G_VT0 ? k.vt0 : k.vth0;   /* vth0: BSIM cards */
    p->kp = k.kp;
    if (!(given & G_KP) && (given & G_TOX)) {
        if (!(k.tox > 0))
            return nsc_err(r, NSC_ENETLIST, &m->loc, "MOS model '%s': TOX = %g must be > 0", m->name, k.tox);
        p->kp = uo * 1e-4 * EPSOX / k.tox;                   /* KP = mu Cox, UO in cm^2/Vs */
    }
    if (!(p->kp > 0)) return nsc_err(r, NSC_ENETLIST, &m->loc, "MOS model '%s': KP = %g must be > 0", m->name, p->kp);
    if (!(k.cgso >= 0 && k.cgdo >= 0))
        return nsc_err(r, NSC_ENETLIST, &m->loc, "MOS model '%s': CGSO and CGDO must be >= 0", m->name);
    if (seg != floor(seg) || (p->nb = nsc_pwl_sq((int)seg, p->b, p->a, NULL)) < 0)
        return nsc_err(r, NSC_ENETLIST, &m->loc, "MOS model '%s': SEGMENTS = %g must be an integer in 3..%d",
                       m->name, seg, NSC_PWL_MAXSEG);
    double w = e->ipar[M_W], l = e->ipar[M_L];
    if (!(w > 0 && l > 0))
        return nsc_err(r, NSC_ENETLIST, &e->loc, "MOS transistor %s: W and L must be > 0", e->name);
    double mult = e->ipar[M_M] > 0 ? e->ipar[M_M] : 1.0;     /* 0: an element made without its card (1) */
    p->K = p->kp * w / l * mult;                              /* K = m KP W/L */
    p->cgs = k.cgso * w * mult;
    p->cgd = k.cgdo * w * mult;
    return NSC_OK;
}

/* The card read once (device.h bind). */
static void *m_bind(const nsc_circuit *c, int ei)
{
    return nsc_bind_parse(&c->el[ei], sizeof(mos_par), m_params);
}

static nsc_status m_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    const mos_par *p = e->priv;
    if (!p) return nsc_bind_failed(e, sizeof *p, m_params, ctx->r);
    const nsc_model *m = e->model;
    char ign[256] = "";
    size_t len = 0;
    for (int q = 0; q < m->npar; q++)
        if (!is_known(m, m->pname[q]) && len + strlen(m->pname[q]) + 2 < sizeof ign)
            len += (size_t)snprintf(ign + len, sizeof ign - len, "%s%s", len ? " " : "", m->pname[q]);
    double level = p->level;
    if (m->vdmos) {
        if (len)
            nsc_warn(ctx->r, &m->loc, "VDMOS model '%s': parameters %s ignored (PWL Sah model: VTO=%g KP=%g, %d "
                     "segments; RD RS RG resistors, body diode IS N RB)", m->name, ign, p->vto, p->kp, p->nb + 1);
    } else if (level != 1 && level != 3)                      /* LEVEL=2, 6, BSIM's 8/49/54 ...: mapped */
        nsc_warn(ctx->r, &m->loc, "MOS model '%s': a LEVEL=%g card, simulated as the PWL Sah model (VTO=%g "
                 "KP=%g, %d segments)%s%s%s", m->name, level, p->vto, p->kp, p->nb + 1, len ? "; parameters " : "",
                 ign, len ? " ignored" : "");
    else if (len)
        nsc_warn(ctx->r, &m->loc, "MOS model '%s': parameters %s ignored (PWL Sah model: VTO=%g KP=%g, "
                 "%d segments)", m->name, ign, p->vto, p->kp, p->nb + 1);
    int d = e->node[0], g = e->node[1], s = e->node[2], b = e->node[3];
    int capmode = ctx->mode == NSC_ASM_TRAN ? NSC_LINK_NS : NSC_LINK_DC;
    need->npair = 2 * p->nb;
    nsc_dev_link(ctx, d, s, NSC_LINK_DC);                    /* the channel */
    nsc_dev_link(ctx, b, s, NSC_LINK_DC);                    /* body: unmodelled, not floating */
    if (p->cgs > 0) nsc_dev_link(ctx, g, s, capmode);
    if (p->cgd > 0) nsc_dev_link(ctx, g, d, capmode);
    return NSC_OK;
}

static nsc_status m_stamp(nsc_builder *bld, int ei, const nsc_dev_slots *sl)
{
    const nsc_element *e = &bld->c->el[ei];
    const mos_par *p = e->priv;
    if (!p) return nsc_bind_failed(e, sizeof *p, m_params, bld->r);
    int d = e->node[0], g = e->node[1], s = e->node[2];
    for (int side = 0; side < 2; side++) {
        int x = side == 0 ? s : d;                           /* x_side = p (v_g - v_x - VTO) */
        double dir = side == 0 ? 1.0 : -1.0;                 /* I_DS = sum c_j (mu_j - nu_j) */
        for (int j = 0; j < p->nb; j++) {
            int q = sl->pair + side * p->nb + j;
            double c = dir * p->p * 0.5 * p->K * p->a[j];
            nsc_st(bld, NSC_ST_C, q, nsc_zn(g), -p->p);       /* y = mu - x + b_j */
            nsc_st(bld, NSC_ST_C, q, nsc_zn(x), p->p);
            nsc_st(bld, NSC_ST_D, q, q, 1.0);
            nsc_st_e0(bld, q, p->p * p->vto + p->b[j]);
            nsc_st(bld, NSC_ST_B, nsc_zn(d), q, -c);         /* c mu leaves d, enters s */
            nsc_st(bld, NSC_ST_B, nsc_zn(s), q, c);
        }
    }
    if (p->cgs > 0) nsc_st_cap(bld, g, s, p->cgs);
    if (p->cgd > 0) nsc_st_cap(bld, g, d, p->cgd);
    return NSC_OK;
}

/* I(M): the current into the drain terminal, I_DS + CGDO W (v_d - v_g)'. */
static nsc_status m_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    const nsc_element *e = &c->el[ei];
    const mos_par *p = e->priv;
    if (!p) return NSC_OK;
    for (int side = 0; side < 2; side++)
        for (int j = 0; j < p->nb; j++)
            if (nsc_lin_add(f, NSC_T_L, L->el_pair[ei] + side * p->nb + j,
                            (side ? -1.0 : 1.0) * p->p * 0.5 * p->K * p->a[j]))
                return NSC_ENOMEM;
    if (p->cgd > 0 && L->mode == NSC_ASM_TRAN) {
        if (nsc_lin_add(f, NSC_T_DZ, nsc_zn(e->node[0]), p->cgd)) return NSC_ENOMEM;
        if (nsc_lin_add(f, NSC_T_DZ, nsc_zn(e->node[1]), -p->cgd)) return NSC_ENOMEM;
    }
    return NSC_OK;
}

/* Power, with the source as reference: v_ds i_d + v_gs i_g, i_d = I_DS +
 * CGDO W (v_d - v_g)' (m_current), i_g = CGSO W (v_g - v_s)' + CGDO W (v_g - v_d)'. */
static nsc_status m_ports(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *v, nsc_lin *i, int *np)
{
    const nsc_element *e = &c->el[ei];
    *np = 0;
    if (m_current(L, c, ei, &i[0])) return NSC_ENOMEM;
    int d = nsc_zn(e->node[0]), g = nsc_zn(e->node[1]), s = nsc_zn(e->node[2]);
    if (nsc_lin_add(&v[0], NSC_T_Z, d, 1.0) || nsc_lin_add(&v[0], NSC_T_Z, s, -1.0)) return NSC_ENOMEM;
    const mos_par *p = e->priv;
    *np = 1;
    if (!p || L->mode != NSC_ASM_TRAN || (p->cgs <= 0 && p->cgd <= 0)) return NSC_OK;
    if (nsc_lin_add(&v[1], NSC_T_Z, g, 1.0) || nsc_lin_add(&v[1], NSC_T_Z, s, -1.0)) return NSC_ENOMEM;
    if (nsc_lin_add(&i[1], NSC_T_DZ, g, p->cgs + p->cgd) || nsc_lin_add(&i[1], NSC_T_DZ, s, -p->cgs)
        || nsc_lin_add(&i[1], NSC_T_DZ, d, -p->cgd))
        return NSC_ENOMEM;
    *np = 2;
    return NSC_OK;
}

const nsc_device nsc_dev_m = {
    .kind = NSC_EL_M,
    .what = "MOS transistors",
    .letter = 'm',
    .card = NSC_CARD_MODEL,
    .card_nodes = 4,
    .bind = m_bind,
    .inst = M_INST, .ninst = 3, .inst_unit = "m",
    .count = m_count,
    .stamp = m_stamp,
    .current = m_current,
    .pclass = NSC_PC_SEMI,
    .ports = m_ports,
    .ndc = 1, .dc = {{0, 2}}, /* drain - source */
    .port = {0, 2},
};
