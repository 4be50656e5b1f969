/* dev_m.c -- MOS transistor M d g s b model [W=w] [L=l], the PWL Sah model
 * (netlist.md, formulation.md §1),
 *     .model name NMOS|PMOS(LEVEL=1|3 VTO KP [TOX PHI CGSO CGDO CGBO CBD CBS PB MJ] [LD RD RS] [SEGMENTS]
 *                           [GAMMA LAMBDA NSUB NSS TPG]):
 *
 *   I_DS = p K/2 (f(x_s) - f(x_d)),  x_s = p (v_g - v_s - VTO),  x_d = p (v_g - v_d - VTO),
 *
 * K = KP W/L, p = +1 (NMOS) or -1 (PMOS, by symmetry), f the convex PWL
 * approximation of max(0, x)^2 (f = sum_j a_j max(0, x - b_j)) fitted to the
 * circuit (m_fit, nsc_pwl_sq_fit): chords of x^2 up to the largest overdrive the
 * sources' levels give, a segment of slope 2a at each such overdrive a (the
 * triode at that gate drive within 1 %); SEGMENTS=n: n geometric segments.
 * Each term is one pair (nb = SEGMENTS - 1 of them per side, 2 nb per transistor):
 *   mu_j = max(0, x_s - b_j): 0 <= mu_j _|_ mu_j - x_s + b_j >= 0,
 *     C[mu_j][g] = -p, C[mu_j][s] = +p, D = 1, e0 = p VTO + b_j;
 *   nu_j likewise with the drain; pairs mu_0..mu_nb-1, then nu_0..nu_nb-1;
 *   I_DS = sum_j c_j (mu_j - nu_j), c_j = p K/2 a_j, flows d -> s through the
 *   channel: B[d][mu_j] = -c_j, B[s][mu_j] = +c_j, B[d][nu_j] = +c_j, B[s][nu_j] = -c_j.
 * Drain and source are interchangeable (I_DS is odd in them). Constant capacitors
 * (open in OP/UIC; m_caps): CGSO W g-s, CGDO W g-d, CGBO Leff g-b, CBD b-d and
 * CBS b-s (their charge over the circuit's swing). The gate's own charge, Cox W
 * Leff (TOX given): on level 1-3 cards Meyer's capacitances as charges of the
 * terminal voltages (meyer.c, PHI default 0.6): branch unknowns x_k after the
 * channel's, rows 0 = -x_k + q_k(v) on the Newton iteration, x_k' from g to s,
 * d (and b when the bulk is on neither); other cards (LEVEL=6, the mapped
 * levels) a constant Cox W Leff g-s as before.
 * RD and RS are resistors to internal nodes NAME#d, NAME#s made by the elaborator
 * (cards_expand.c nsc_card_expand_rdrs); LD shortens the channel: K = KP W/(L - 2 LD).
 * KP defaults to UO EPSOX/TOX when TOX is given (SPICE; UO default 600 cm^2/Vs),
 * on a LEVEL=2 card to UO EPSOX/1e-7 m without TOX (ngspice 39's MOS2: 2.07e-5
 * at UO 600), else 2e-5 A/V^2. Cards of any other LEVEL (2, BSIM's VTH0 and U0/TOX) are mapped
 * onto this model, with one warning naming the level and the parameters used.
 * LEVEL=6 cards have the power law of mos6.c instead of the pairs (smooth
 * functions on the Newton iteration; their bulk junctions there too), with the
 * same capacitors, LD, RD and RS.
 * Level 1-3 cards (not VDMOS, whose body diode is the elaborator's D) have the
 * bulk junction diodes as ngspice's: b -> d and b -> s (NMOS; d -> b, s -> b
 * PMOS), i = I_sat (e^(v/Vt) - 1), I_sat = JS AD (JS AS) when JS, AD and AS are
 * all given, else IS (1e-14; IS = 0: no junctions), times m; each fitted as a BJT junction (nsc_jfit:
 * one line on 10 mA..1 A, m times) whose fit follows the run (m_refit: remade on
 * the currents seen, the run repeated, as the diode's); a junction whose
 * terminals share a node (the usual bulk tied to source) is none. Pairs after
 * the channel's: jd = 2 nb (its fit's nseg), then js; each a diode's pair
 * (nsc_st_pair, nsc_st_jfit).
 * The body effect (level 1-3, not VDMOS): GAMMA, PHI as given, or with NSUB
 * (and Cox: TOX, levels 2 and 3 1e-7 m unless given) VTO, GAMMA, PHI not given
 * derived as ngspice 39 does (m_nsub). An element whose bulk is not on its
 * source, of a card with GAMMA != 0, has level 1's equations with the threshold
 *   V_T = VTO + GAMMA (sqrt(PHI - V_BS) - sqrt(PHI))  (V_BS > 0: ngspice's
 *   linearised root max(0, sqrt(PHI) - V_BS/(2 sqrt(PHI))) in place of the sqrt),
 * the lower of drain and source its source (both sides' terms then use V_BS:
 * level 1's triode K (V_GS - V_T - V_DS/2) V_DS), LAMBDA, and the junctions
 * exp(V/Vt) (JS, IS; GMIN) -- mos6.c's power law with NC = 2, NV = KV = 1,
 * KC = KP/2 (nsc_m6_level1), smooth functions on the Newton iteration, no
 * pairs (p->body, p->six). Why not the pairs with a threshold linear in v_b
 * and the source (a chord of the body effect over the circuit's V_SB): that
 * chord is the card only at its ends (ngspice's mosamp spans V_SB = 5..35 V,
 * where sqrt bends by 2.5x), a refit needs each transistor's V_SB range from a
 * first run (the refit hooks see pair multipliers, not node voltages), and in
 * triode ngspice evaluates V_T at the source for both sides, which the pairs'
 * per-side rows cannot hold without a pair choosing the lower side. The smooth
 * form is the card's equations to the Newton tolerance (drain currents within
 * 4e-8 of ngspice's, tests/data/mos_gamma); its cost: the circuit leaves the
 * exact stepper for the theta-scheme (as any TOX card's Meyer charges already
 * do), 2 Newton iterations a step on the corpus's mos_body_level2. A bulk on
 * A LEVEL=2 card (VMAX = NFS = 0) has level 2's own equations there instead
 * (mos2.c: Grove-Frohman, XJ, UCRIT UEXP, DELTA, the depletion width's channel
 * shortening; Cox from TOX or 1e-7 m, as ngspice; within 1e-7 of ngspice's
 * currents, tests/data/mos_gamma/l2_*); with VMAX or NFS, level 1's.
 * A bulk on the source keeps the pairs (V_BS = 0 while the source is the lower side; with
 * the drain below it ngspice's threshold falls with V_BD: not modelled).
 * Other parameters are accepted and ignored with one warning per model
 * (GAMMA and LAMBDA too on an element without the body effect). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cards.h"
#include "device.h"
#include "pwl_exp.h"
#include "pwl_sq.h"
#include "mos6.h"
#include "meyer.h"

#define EPSOX (3.9 * 8.854214871e-12) /* F/m */
#define M_MAXANCH 8                   /* gate drives anchored per transistor */
#define M_XDEF 3.8241 /* the fit's range without larger drives: the design table's (pwl_sq.c) */
#define M_XANCH 0.5   /* the least overdrive anchored (V): below, K/2 x^2 is no on-state */

typedef struct mos_par {
    double p;          /* +1 NMOS, -1 PMOS */
    double vto, kp, K; /* K = KP W/L */
    double cgs, cgd;   /* F: CGSO W (+ Cox W Leff, TOX given), CGDO W */
    double cgb;        /* F: CGBO Leff */
    double cbd, cbs;   /* F: CBD, CBS as constants (m_fit: their charge over the circuit's swing) */
    double pb, mj;     /* the junctions' grading */
    double level;      /* the card's LEVEL (1 unless given) */
    int nseg;          /* the card's SEGMENTS (0: the default fit) */
    int nb;            /* pairs per side */
    int nanch;         /* overdrives the fit is anchored at (m_fit) */
    double anch[M_MAXANCH], top;
    double b[NSC_PWL_MAXSEG], a[NSC_PWL_MAXSEG];
    int junc;        /* 1: the bulk junction diodes (level 1-3) */
    int jrefit;      /* the junction fits remade so far (m_refit) */
    nsc_jfit jd, js; /* the b-d and b-s junctions (m_junctions) */
    int six;  /* 1: a LEVEL=6 card, or body: its nsc_mos6 follows in the block (m_six), no pairs */
    int body; /* 1: a level 1-3 card with GAMMA, bulk off the source: level 1 with the
                        body effect as mos6.c's functions (six set too; m_body) */
    int derived;       /* 1: NSUB read (ngspice's VTO, GAMMA, PHI from it: m_nsub) */
    double gamma, phi; /* the body effect's (m_nsub) */
    int meyer; /* 1: a level 1-3 card with TOX: its nsc_meyer follows in the block (m_mey), after
                  the nsc_mos6 when six */
} mos_par;

/* A LEVEL=6 card (not VDMOS): the power law of mos6.c, whose functions follow
 * the mos_par in the element's block (one flat block: m_size bytes). */
static int m_is6(const nsc_element *e)
{
    double lv = 1;
    return e->model && !e->model->vdmos && nsc_model_get(e->model, "level", &lv) && lv == 6;
}
/* A level 1-3 card (not VDMOS) with TOX: Meyer's gate charges (meyer.h) instead
 * of the constant Cox W Leff (LEVEL 2 and 3 with the level-1 saturation voltage). */
static int m_isMeyer(const nsc_element *e)
{
    double lv = 1, tox = 0;
    return e->model && !e->model->vdmos && nsc_model_get(e->model, "tox", &tox)
           && (!nsc_model_get(e->model, "level", &lv) || (lv >= 1 && lv <= 3));
}
/* A level 1-3 card (not VDMOS) that may have a body effect (GAMMA given and not
 * 0, or NSUB given) on an element whose bulk is not its source's node: room for
 * the nsc_mos6 of m_body (m_params decides). */
static int m_maybody(const nsc_element *e)
{
    double lv = 1, gam = 0, nsub = 0;
    if (!e->model || e->model->vdmos || e->node[3] == e->node[2]) return 0;
    if (nsc_model_get(e->model, "level", &lv) && !(lv >= 1 && lv <= 3)) return 0;
    return (nsc_model_get(e->model, "gamma", &gam) && gam != 0)
           || nsc_model_get(e->model, "nsub", &nsub);
}
static size_t m_size(const nsc_element *e)
{
    return sizeof(mos_par) + (m_is6(e) || m_maybody(e) ? sizeof(nsc_mos6) : 0)
           + (m_isMeyer(e) ? sizeof(nsc_meyer) : 0);
}
static const nsc_mos6 *m_six(const mos_par *p)
{
    return p && p->six ? (const nsc_mos6 *)(const void *)(p + 1) : NULL;
}
static const nsc_meyer *m_mey(const mos_par *p)
{
    if (!p || !p->meyer) return NULL;
    return p->six ? (const nsc_meyer *)(const void *)(m_six(p) + 1)
                  : (const nsc_meyer *)(const void *)(p + 1);
}

/* the branch unknowns of the nsc_mos6 (before Meyer's charges') */
static int m_nsix(const mos_par *p)
{
    return p->six ? nsc_m6_nbranch(m_six(p)) : 0;
}

/* The card's parameters (netlist.md), bits of the table's rows. */
typedef struct m_card {
    double level, vto, vt0, vth0, kp, cgso, cgdo, seg, tox, uo, u0, ld, cgbo, cbd, cbs, pb, mj, is,
        js, phi, gamma, lambda, nsub, nss, tpg;
} m_card;
enum {
    G_VTO = 1 << 1,
    G_VT0 = 1 << 2,
    G_VTH0 = 1 << 3,
    G_KP = 1 << 4,
    G_TOX = 1 << 8,
    G_UO = 1 << 9,
    G_U0 = 1 << 10,
    G_PHI = 1 << 19,
    G_GAMMA = 1 << 20,
    G_NSUB = 1 << 22,
    G_NSS = 1 << 23
};
#define M_P(f, def) \
    { \
#f, offsetof(m_card, f), def, 0 \
    }
static const nsc_par M_PAR[] = {
    M_P(level, 1), M_P(vto, 0),    M_P(vt0, 0),  M_P(vth0, 0),
    M_P(kp, 2e-5), M_P(cgso, 0),   M_P(cgdo, 0), { "segments", offsetof(m_card, seg), 0, 0 },
    M_P(tox, 0),   M_P(uo, 600),   M_P(u0, 600), M_P(ld, 0),
    M_P(cgbo, 0),  M_P(cbd, 0),    M_P(cbs, 0),  M_P(pb, 0.8),
    M_P(mj, 0.5),  M_P(is, 1e-14), M_P(js, 0),   M_P(phi, 0.6),
    M_P(gamma, 0), M_P(lambda, 0), M_P(nsub, 0), M_P(nss, 0),
    M_P(tpg, 1),
};
#define M_NPAR ((int)(sizeof M_PAR / sizeof M_PAR[0]))

/* The instance parameters W= L= (m), SPICE's DEFW DEFL unless given, m=
 * (transistors in parallel, 1 unless given: K, the capacitors and the junctions'
 * currents times m), AD= AS= (m^2, the junctions' areas for JS; 0 unless given). */
enum { M_W, M_L, M_M, M_AD, M_AS };
static const nsc_par M_INST[] = { { "w", 0, 100e-6, NSC_INST_LENGTH },
                                  { "l", 0, 100e-6, NSC_INST_LENGTH },
                                  { "m", 0, 1.0, NSC_INST_PARALLEL },
                                  { "ad", 0, 0, NSC_INST_AREA },
                                  { "as", 0, 0, NSC_INST_AREA } };

/* what the elaborator takes from a VDMOS card (cards_expand.c nsc_card_vdmos_model), from
 * a level 1-3 card (nsc_card_expand_rdrs) */
static const char *const known_vdmos[] = {
    "rd",     "rs",     "rg", "rb",  "is", "n", "bv", "cgs",
    "cgdmin", "cgdmax", "a",  "cjo", "vj", "m", "fc", NULL
}; /* cgdmin cgdmax a: NAME#cgd; cjo vj m fc: the body's CJO (cards_expand.c) */
static const char *const known_mos[] = {
    "rd", "rs", "lmin", "lmax", "wmin", "wmax", NULL
}; /* LMIN ...: bins (nl_model.c) */

static int cmp_desc(const void *x, const void *y)
{
    double u = *(const double *)x, v = *(const double *)y;
    return (u < v) - (u > v);
}

/* (PHI is read for Meyer's charges and the body effect only: ignored on the
 * cards without them; GAMMA, LAMBDA with the body effect only -- an element
 * whose bulk is on its source keeps the pairs and says GAMMA is ignored, as
 * before; NSUB, NSS, TPG where they set VTO, GAMMA, PHI, m_nsub) */
static int is_known(const nsc_model *m, const char *name, const mos_par *p)
{
    int six = p->six && !p->body, meyer = p->meyer;
    if (nsc_strieq(name, "phi") && !meyer && !p->six) return 0;
    if (nsc_strieq(name, "gamma") && !p->six) return 0;
    if (nsc_strieq(name, "lambda") && !p->six) return 0;
    if ((nsc_strieq(name, "nsub") || nsc_strieq(name, "nss") || nsc_strieq(name, "tpg"))
        && !p->derived)
        return 0;
    if (nsc_par_known(M_PAR, M_NPAR, 0, name) || nsc_swloss_param(name)
        || (six && nsc_m6_known(name)) || (p->body && m_six(p)->l2 && nsc_m2_known(name)))
        return 1;
    for (const char *const *k = m->vdmos ? known_vdmos : known_mos; *k; k++)
        if (nsc_strieq(name, *k)) return 1;
    return 0;
}

/* The capacitances of card k (model m) for width w, effective length l, Cox
 * (F/m^2, 0 without TOX or with Meyer's charges) into p, checked. The gate's
 * intrinsic charge as one constant where Meyer's charges are not used (m_isMeyer):
 * Cox W Leff from gate to source (Meyer's total in cut-off and at V_DS = 0; 2/3
 * of it in saturation; on a 15-inverter level-1 chain -7 % of ngspice's delay,
 * Meyer's charges +1.9 %). Overlaps
 * CGSO W, CGDO W, CGBO Leff. CBD, CBS: zero-bias junction capacitances, made
 * constants in m_fit. */
static nsc_status m_caps(const nsc_model *m, const m_card *k, double cox, double w, double l,
                         nsc_report *r, mos_par *p)
{
    if (!(k->cgso >= 0 && k->cgdo >= 0 && k->cgbo >= 0 && k->cbd >= 0 && k->cbs >= 0))
        return nsc_err(r, NSC_ENETLIST, &m->loc,
                       "MOS model '%s': CGSO, CGDO, CGBO, CBD and CBS must be >= 0", m->name);
    if (!(k->pb > 0 && k->mj >= 0 && k->mj < 1))
        return nsc_err(r, NSC_ENETLIST, &m->loc,
                       "MOS model '%s': PB = %g must be > 0 and MJ = %g in [0, 1)", m->name, k->pb,
                       k->mj);
    p->cgs = k->cgso * w + cox * w * l;
    p->cgd = k->cgdo * w;
    p->cgb = k->cgbo * l;
    p->cbd = k->cbd;
    p->cbs = k->cbs;
    p->pb = k->pb;
    p->mj = k->mj;
    return NSC_OK;
}

/* The bulk junctions of a level 1-3 card k (not VDMOS) for element e, m = mult
 * in parallel, into p (checked): I_sat = JS AD, JS AS with JS, AD, AS all > 0,
 * else IS (ngspice's MOS1-3), fitted by one line on m [10 mA, 1 A] (dev_q.c's
 * default; the fit follows the run, m_refit). */
#define M_VT (1.380649e-23 * 300.15 / 1.602176634e-19) /* kT/q, V (dev_d.c's) */
static nsc_status m_junctions(const nsc_element *e, const m_card *k, double mult, nsc_report *r,
                              mos_par *p)
{
    const nsc_model *m = e->model;
    double ad = e->ipar[M_AD], as = e->ipar[M_AS];
    p->junc = !m->vdmos && k->level >= 1 && k->level <= 3;
    if (!p->junc) return NSC_OK;
    if (!(k->is >= 0 && k->js >= 0 && ad >= 0 && as >= 0))
        return nsc_err(r, NSC_ENETLIST, &m->loc,
                       "MOS model '%s': IS = %g, JS = %g (AD, AS of %s) must be >= 0", m->name,
                       k->is, k->js, e->name);
    int area = k->js > 0 && ad > 0 && as > 0;
    if (!area && k->is == 0) p->junc = 0; /* no saturation current: no junction current */
    if (!p->junc) return NSC_OK;
    double isd = mult * (area ? k->js * ad : k->is), iss = mult * (area ? k->js * as : k->is);
    nsc_jfit_make(0.0, M_VT, isd, 0.0, mult * 10e-3, mult * 1.0, 1, &p->jd);
    nsc_jfit_make(0.0, M_VT, iss, 0.0, mult * 10e-3, mult * 1.0, 1, &p->js);
    return NSC_OK;
}

/* The body effect's parameters of a level 1-3 card k (given: its bits) into p
 * (gamma, phi; vto when NSUB sets it), as ngspice 39's MOS1-3 at TNOM = 27 C:
 * with Cox (EPSOX/TOX; levels 2 and 3 take TOX = 1e-7 m when not given, level 1
 * none) and NSUB (cm^-3) given, N = 1e6 NSUB (m^-3) > n_i = 1.45e16:
 *   PHI   = max(0.1, 2 Vt ln(N/n_i))                       unless given,
 *   GAMMA = sqrt(2 EPS_SI q N)/Cox, EPS_SI = 11.7 eps0       unless given,
 *   VTO   = VFB + p (GAMMA sqrt(PHI) + PHI)                  unless given, where
 *   VFB   = PHI_MS - 1e4 NSS q/Cox,  PHI_MS = W_g - (3.25 + Eg/2 + p PHI/2),
 *   W_g   = 3.25 + Eg/2 - p TPG Eg/2 (TPG = 0: 3.2),  Eg = 1.16 - 7.02e-4 T^2/(T + 1108)
 * (TPG +1: gate of the opposite type to the substrate, -1 the same, 0 aluminium).
 * Without NSUB (or Cox) GAMMA and PHI are the card's (0 and 0.6 by default). */
#define M_Q 1.602176634e-19 /* C */
#define M_TNOM 300.15       /* K */
static nsc_status m_nsub(const nsc_model *m, const m_card *k, unsigned given, mos_par *p)
{
    p->gamma = k->gamma, p->phi = k->phi;
    double tox = given & G_TOX ? k->tox : k->level == 2 || k->level == 3 ? 1e-7 : 0;
    p->derived = (given & G_NSUB) && tox > 0 && k->level >= 1 && k->level <= 3 && !m->vdmos;
    if (!p->derived) return NSC_OK;
    double cox = EPSOX / tox, n = k->nsub * 1e6, ni = 1.45e16, eg;
    if (!(n > ni)) return NSC_ENETLIST; /* (the message: m_params) */
    if (!(given & G_PHI)) p->phi = fmax(0.1, 2 * M_VT * log(n / ni));
    if (!(given & G_GAMMA)) p->gamma = sqrt(2 * 11.7 * 8.854214871e-12 * M_Q * n) / cox;
    if (!(given & (G_VTO | G_VT0 | G_VTH0))) {
        eg = 1.16 - 7.02e-4 * M_TNOM * M_TNOM / (M_TNOM + 1108);
        double wg = k->tpg != 0 ? 3.25 + 0.5 * eg - p->p * k->tpg * 0.5 * eg : 3.2;
        double vfb = wg - (3.25 + 0.5 * eg + p->p * 0.5 * p->phi) - k->nss * 1e4 * M_Q / cox;
        p->vto = vfb + p->p * (p->gamma * sqrt(p->phi) + p->phi);
    }
    return NSC_OK;
}

/* Element e's card read and checked into p (an nsc_dev_parse): VTO (else VT0,
 * VTH0, else from NSUB: m_nsub), KP (else UO EPSOX/TOX with TOX, UO else U0). */
static nsc_status m_params(const nsc_element *e, nsc_report *r, void *out)
{
    mos_par *p = out;
    const nsc_model *m = e->model;
    if (!m || (m->type != NSC_MOD_NMOS && m->type != NSC_MOD_PMOS))
        return nsc_err(r, NSC_ENETLIST, &e->loc,
                       "MOS transistor %s has no MOS model (NMOS or PMOS)", e->name);
    m_card k;
    unsigned given = nsc_par_read(m, M_PAR, M_NPAR, &k);
    double uo = given & G_UO ? k.uo : k.u0, seg = k.seg;
    p->p = m->type == NSC_MOD_NMOS ? 1.0 : -1.0;
    p->level = k.level;
    p->vto = given & G_VTO ? k.vto : given & G_VT0 ? k.vt0 : k.vth0; /* vth0: BSIM cards */
    p->kp = k.kp;
    if ((given & G_TOX) && !(k.tox > 0))
        return nsc_err(r, NSC_ENETLIST, &m->loc, "MOS model '%s': TOX = %g must be > 0", m->name,
                       k.tox);
    if (m_nsub(m, &k, given, p))
        return nsc_err(r, NSC_ENETLIST, &m->loc,
                       "MOS model '%s': NSUB = %g cm^-3 must exceed the intrinsic 1.45e10 cm^-3",
                       m->name, k.nsub);
    if (!(given & G_KP) && ((given & G_TOX) || k.level == 2))       /* level 2: TOX 1e-7 m */
        p->kp = uo * 1e-4 * EPSOX / (given & G_TOX ? k.tox : 1e-7); /* KP = mu Cox, UO cm^2/Vs */
    if (!(p->kp > 0))
        return nsc_err(r, NSC_ENETLIST, &m->loc, "MOS model '%s': KP = %g must be > 0", m->name,
                       p->kp);
    if (seg != floor(seg) || (seg != 0 && (seg < 3 || seg > NSC_PWL_MAXSEG)))
        return nsc_err(r, NSC_ENETLIST, &m->loc,
                       "MOS model '%s': SEGMENTS = %g must be an integer in 3..%d", m->name, seg,
                       NSC_PWL_MAXSEG);
    double w = e->ipar[M_W], l = e->ipar[M_L] - 2 * k.ld; /* SPICE's Leff = L - 2 LD */
    if (!(w > 0 && l > 0))
        return nsc_err(r, NSC_ENETLIST, &e->loc,
                       "MOS transistor %s: W and L - 2 LD must be > 0 (L = %g, LD = %g)", e->name,
                       e->ipar[M_L], k.ld);
    double mult = e->ipar[M_M] > 0 ? e->ipar[M_M]
                                   : 1.0; /* 0: an element made without its card (1) */
    p->nseg = (int)seg;
    p->K = p->kp * w / l * mult; /* K = m KP W/Leff (m in parallel) */
    double cox = given & G_TOX ? EPSOX / k.tox : 0;
    p->meyer = m_isMeyer(e); /* Cox W Leff as Meyer's charges, not in cgs */
    p->body = k.level >= 1 && k.level <= 3 && !m->vdmos && p->gamma != 0
              && e->node[3] != e->node[2]; /* (m_maybody made room for it) */
    if ((p->meyer || p->body) && !(p->phi > 0))
        return nsc_err(r, NSC_ENETLIST, &m->loc, "MOS model '%s': PHI = %g must be > 0", m->name,
                       p->phi);
    p->six = p->body; /* the nsc_mos6 first, then Meyer's (m_mey) */
    if (p->meyer)
        nsc_meyer_make(e->node, p->p, p->vto, cox * w * l * mult, p->phi,
                       (nsc_meyer *)(void *)((char *)(p + 1) + (p->six ? sizeof(nsc_mos6) : 0)));
    nsc_status s = m_caps(m, &k, p->meyer ? 0 : cox, w, l, r, p);
    p->cgs *= mult; /* and m times each capacitor */
    p->cgd *= mult;
    p->cgb *= mult;
    p->cbd *= mult;
    p->cbs *= mult;
    if (!s) s = m_junctions(e, &k, mult, r, p);
    if (!s && p->body) { /* the junctions are mos6.c's then */
        p->junc = 0;
        if (k.level == 2 && nsc_m2_usable(m)) /* Grove-Frohman (mos2.c), ngspice's Cox */
            return nsc_m6_level2(e, p->p, p->vto, p->kp, p->gamma, p->phi, k.lambda,
                                 EPSOX / (given & G_TOX ? k.tox : 1e-7), k.pb,
                                 p->derived ? k.nsub : 0, w, l, mult, r,
                                 (nsc_mos6 *)(void *)(p + 1));
        return nsc_m6_level1(e, p->p, p->vto, p->kp, p->gamma, p->phi, k.lambda, w, l, mult, r,
                             (nsc_mos6 *)(void *)(p + 1));
    }
    p->six = !s && k.level == 6 && !m->vdmos;
    if (p->six)
        s = nsc_m6_params(e, p->p, p->vto, given & G_TOX ? EPSOX / k.tox : 0, uo, w, l, mult, r,
                          (nsc_mos6 *)(void *)(p + 1));
    return s;
}

/* The levels |v| an independent voltage source w can apply (its DC value, the
 * two levels of PULSE and EXP, SIN's offset +- amplitude, PWL's values) added
 * to lv[*n < max], duplicates within NSC_PWL_ANCH dropped. */
static void wave_levels(const nsc_wave *w, double *lv, int *n, int max)
{
    double v[2 * M_MAXANCH + 3];
    int k = 0;
    v[k++] = w->dc;
    if ((w->kind == NSC_WAVE_PULSE || w->kind == NSC_WAVE_EXP) && w->np >= 2) {
        v[k++] = w->p[0];
        v[k++] = w->p[1];
    } else if (w->kind == NSC_WAVE_SIN && w->np >= 2) {
        v[k++] = w->p[0] + w->p[1];
        v[k++] = w->p[0] - w->p[1];
    } else if (w->kind == NSC_WAVE_PWL)
        for (int q = 1; q < w->np && k < (int)(sizeof v / sizeof v[0]); q += 2) v[k++] = w->p[q];
    for (int q = 0; q < k; q++) {
        double x = fabs(v[q]);
        int dup = 0;
        for (int i = 0; i < *n && !dup; i++) dup = fabs(lv[i] - x) <= NSC_PWL_ANCH * x;
        if (!dup && *n < max && isfinite(x)) lv[(*n)++] = x;
    }
}

/* A junction C(v) = C0 (1 + v/PB)^-MJ reverse-biased from 0 to V as one constant of
 * the same charge (the large-signal equivalent):
 *   K = Q(V)/(C0 V) = PB/((1 - MJ) V) ((1 + V/PB)^(1 - MJ) - 1),  1 at V = 0.
 * (A 15-inverter chain with these constants in ngspice is 0.2 % off the one with
 * its voltage-dependent CBD.) */
static double junction_keq(double v, double pb, double mj)
{
    return v > 0 ? pb / ((1 - mj) * v) * (pow(1 + v / pb, 1 - mj) - 1) : 1;
}

/* The gate drives of the circuit (the fit's anchors and range): the overdrive
 * x = L - p VTO of each level L (and of 0) of its independent voltage sources,
 * as a gate driven from a source referred to the transistor's source terminal
 * (a driver, a floating high-side drive, a PMOS from its rail) sees; those
 * >= M_XANCH, at most M_MAXANCH (the largest). Then the fit (fewer anchors
 * when the points exceed the table). */
static void m_fit(const nsc_circuit *c, mos_par *p)
{
    double lv[4 * M_MAXANCH];
    int nl = 0, na = 0;
    lv[nl++] = 0;
    for (int k = 0; k < c->nel; k++)
        if (c->el[k].kind == NSC_EL_V) wave_levels(&c->el[k].wave, lv, &nl, 4 * M_MAXANCH);
    qsort(lv, (size_t)nl, sizeof *lv, cmp_desc);
    p->top = M_XDEF;
    for (int k = 0; k < nl && na < M_MAXANCH && !p->nseg;
         k++) {                           /* SEGMENTS=n: n segments, no anchors */
        double x = lv[k] - p->p * p->vto; /* overdrive p (v_gs - VTO) at v_gs = p L */
        if (x >= M_XANCH) p->anch[na++] = x;
    }
    double sw = lv[0]; /* the largest level: the junctions' swing */
    p->cbd *= junction_keq(sw, p->pb, p->mj);
    p->cbs *= junction_keq(sw, p->pb, p->mj);
    if (p->six) {  /* LEVEL=6: no pairs (mos6.c) */
        p->nb = 0; /* (read by m_count: the priv block is malloc'd) */
        return;
    }
    while ((p->nb = nsc_pwl_sq_fit(p->nseg, M_XDEF, p->anch, na, p->b, p->a, NULL)) == -2) na--;
    p->nanch = na;
    for (int k = 0; k < na; k++) p->top = fmax(p->top, p->anch[k] * (1 + 2 * NSC_PWL_ANCH));
}

int nsc_mos_fit(const nsc_circuit *c, int ei, double *b, double *a, double *anch, int *nanch)
{
    const mos_par *p = c->el[ei].kind == NSC_EL_M ? c->el[ei].priv : NULL;
    if (!p) return -1;
    memcpy(b, p->b, (size_t)p->nb * sizeof *b);
    memcpy(a, p->a, (size_t)p->nb * sizeof *a);
    if (anch) memcpy(anch, p->anch, (size_t)p->nanch * sizeof *anch);
    if (nanch) *nanch = p->nanch;
    return p->nb;
}

/* The card read once and fitted to the circuit's drives (device.h bind). */
static void *m_bind(const nsc_circuit *c, int ei)
{
    mos_par *p = nsc_bind_parse(&c->el[ei], m_size(&c->el[ei]), m_params);
    if (p) m_fit(c, p);
    return p;
}

/* The constant capacitors of p between the terminals M_CT[k] (0 d, 1 g, 2 s, 3 b):
 * g-s, g-d, g-b, b-d, b-s (m_caps, m_fit); one whose terminals share a node is none. */
#define M_NCAP 5
static const int M_CT[M_NCAP][2] = { { 1, 2 }, { 1, 0 }, { 1, 3 }, { 3, 0 }, { 3, 2 } };
static void m_capvals(const nsc_element *e, const mos_par *p, double *cv)
{
    cv[0] = p->cgs, cv[1] = p->cgd, cv[2] = p->cgb, cv[3] = p->cbd, cv[4] = p->cbs;
    for (int k = 0; k < M_NCAP; k++)
        if (e->node[M_CT[k][0]] == e->node[M_CT[k][1]]) cv[k] = 0;
}

/* The pairs of the bulk junction between b and terminal t (0 d, 2 s): its fit's
 * nseg, 0 when there is none (no junctions, or b and t on one node). */
static int m_jn(const nsc_element *e, const mos_par *p, int t)
{
    return p->junc && e->node[3] != e->node[t] ? (t ? p->js.nseg : p->jd.nseg) : 0;
}

static nsc_status m_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    const mos_par *p = e->priv;
    if (!p) return nsc_bind_failed(e, m_size(e), m_params, ctx->r);
    const nsc_model *m = e->model;
    char ign[256] = "";
    size_t len = 0;
    for (int q = 0; q < m->npar; q++)
        if (!is_known(m, m->pname[q], p) && len + strlen(m->pname[q]) + 2 < sizeof ign)
            len += (size_t)snprintf(ign + len, sizeof ign - len, "%s%s", len ? " " : "",
                                    m->pname[q]);
    double level = p->level;
    if (m->vdmos) {
        if (len)
            nsc_warn(
                ctx->r, &m->loc,
                "VDMOS model '%s': parameters %s ignored (PWL Sah model: VTO=%g KP=%g, %d "
                "segments; RD RS RG resistors, body diode IS N RB, CJO VJ M FC, CGDMIN CGDMAX A)",
                m->name, ign, p->vto, p->kp, p->nb + 1);
    } else if (p->body && m_six(p)->l2) {
        nsc_warn(ctx->r, &m->loc,
                 "MOS model '%s': a LEVEL=2 card, simulated as level 2's equations (Grove-Frohman) "
                 "with the body effect (VTO=%g KP=%g GAMMA=%g PHI=%g; smooth functions)%s%s%s",
                 m->name, p->vto, p->kp, p->gamma, p->phi, len ? "; parameters " : "", ign,
                 len ? " ignored" : "");
    } else if (p->body) {
        if (len || (level != 1 && level != 3))
            nsc_warn(ctx->r, &m->loc,
                     "MOS model '%s': a LEVEL=%g card, simulated as level 1's equations with the "
                     "body effect (VTO=%g KP=%g GAMMA=%g PHI=%g; smooth functions)%s%s%s",
                     m->name, level, p->vto, p->kp, p->gamma, p->phi, len ? "; parameters " : "",
                     ign, len ? " ignored" : "");
    } else if (p->six) {
        if (len)
            nsc_warn(ctx->r, &m->loc,
                     "MOS model '%s': parameters %s ignored (LEVEL=6 power law: VTO=%g KC=%g NC=%g "
                     "KV=%g NV=%g)",
                     m->name, ign, m_six(p)->vto, m_six(p)->kc, m_six(p)->nc, m_six(p)->kv,
                     m_six(p)->nv);
    } else if (level != 1 && level != 3) /* LEVEL=2, BSIM's 8/49/54 ...: mapped */
        nsc_warn(ctx->r, &m->loc,
                 "MOS model '%s': a LEVEL=%g card, simulated as the PWL Sah model (VTO=%g "
                 "KP=%g, %d segments)%s%s%s",
                 m->name, level, p->vto, p->kp, p->nb + 1, len ? "; parameters " : "", ign,
                 len ? " ignored" : "");
    else if (len)
        nsc_warn(ctx->r, &m->loc,
                 "MOS model '%s': parameters %s ignored (PWL Sah model: VTO=%g KP=%g, "
                 "%d segments)",
                 m->name, ign, p->vto, p->kp, p->nb + 1);
    int d = e->node[0], s = e->node[2], b = e->node[3];
    int capmode = ctx->mode == NSC_ASM_TRAN ? NSC_LINK_NS : NSC_LINK_DC;
    need->npair = 2 * p->nb + m_jn(e, p, 0) + m_jn(e, p, 2);
    need->nbranch = (p->six ? nsc_m6_nbranch(m_six(p)) : 0) + (p->meyer ? m_mey(p)->nq : 0);
    nsc_dev_link(ctx, d, s, NSC_LINK_DC); /* the channel */
    nsc_dev_link(ctx, b, s, NSC_LINK_DC); /* body: unmodelled, not floating */
    double cv[M_NCAP];
    m_capvals(e, p, cv);
    for (int k = 0; k < M_NCAP; k++)
        if (cv[k] > 0) nsc_dev_link(ctx, e->node[M_CT[k][0]], e->node[M_CT[k][1]], capmode);
    /* the gate's charges tie nothing: their slopes vanish (Q_d in saturation,
     * all but the bulk's in cut-off), so a node they alone hold (a stack's
     * inner node, both transistors off at z = 0) gets its gmin (lcs_asm.c
     * place_gmin), as ngspice's gmin across every drain and source junction */
    for (int k = 0; p->meyer && k < m_mey(p)->nq; k++)
        nsc_dev_link(ctx, e->node[1], e->node[m_mey(p)->to[k]], NSC_LINK_DC);
    return NSC_OK;
}

/* Meyer's charges x_k = branch + k (meyer.h), rows 0 = -x_k + q_k(v) (the
 * Newton iteration's); TRAN: x_k' leaves g, enters terminal to[k]:
 * E[g][x_k] += 1, E[to_k][x_k] -= 1 (dropped in the static modes: open). */
static void m_meyer_stamp(nsc_builder *bld, const nsc_element *e, int ei, int branch,
                          const nsc_meyer *q)
{
    int in[3];
    for (int j = 0; j < q->nin; j++) in[j] = nsc_zn(e->node[q->term[j]]);
    for (int k = 0; k < q->nq; k++) {
        int x = branch + k;
        if (bld->mode == NSC_ASM_TRAN) {
            nsc_st(bld, NSC_ST_E, nsc_zn(e->node[1]), x, 1.0);
            nsc_st(bld, NSC_ST_E, nsc_zn(e->node[q->to[k]]), x, -1.0);
        }
        nsc_st_smooth_fn_at0(bld, ei, x, in, q->nin, nsc_meyer_charge,
                             &q->q[k]); /* C code: meyer.c */
    }
}

static nsc_status m_stamp(nsc_builder *bld, int ei, const nsc_dev_slots *sl)
{
    const nsc_element *e = &bld->c->el[ei];
    const mos_par *p = e->priv;
    if (!p) return nsc_bind_failed(e, m_size(e), m_params, bld->r);
    int d = e->node[0], g = e->node[1], s = e->node[2];
    for (int side = 0; side < 2; side++) {
        int x = side == 0 ? s : d;           /* x_side = p (v_g - v_x - VTO) */
        double dir = side == 0 ? 1.0 : -1.0; /* I_DS = sum c_j (mu_j - nu_j) */
        for (int j = 0; j < p->nb; j++) {
            int q = sl->pair + side * p->nb + j;
            double c = dir * p->p * 0.5 * p->K * p->a[j];
            nsc_st(bld, NSC_ST_C, q, nsc_zn(g), -p->p); /* y = mu - x + b_j */
            nsc_st(bld, NSC_ST_C, q, nsc_zn(x), p->p);
            nsc_st(bld, NSC_ST_D, q, q, 1.0);
            nsc_st_cont_ch(bld, q); /* mu = max(0, x - b_j): a continuous kink */
            nsc_st_e0(bld, q, p->p * p->vto + p->b[j]);
            nsc_st(bld, NSC_ST_B, nsc_zn(d), q, -c); /* c mu leaves d, enters s */
            nsc_st(bld, NSC_ST_B, nsc_zn(s), q, c);
        }
    }
    double cv[M_NCAP];
    m_capvals(e, p, cv);
    for (int k = 0; k < M_NCAP; k++)
        if (cv[k] > 0) nsc_st_cap(bld, e->node[M_CT[k][0]], e->node[M_CT[k][1]], cv[k]);
    if (p->six) nsc_m6_stamp(bld, ei, sl->branch, m_six(p));
    if (p->meyer) m_meyer_stamp(bld, e, ei, sl->branch + m_nsix(p), m_mey(p));
    int j = sl->pair + 2 * p->nb, b = e->node[3];
    for (int t = 0; t <= 2; t += 2) { /* the bulk junctions b -> t (NMOS) */
        if (!m_jn(e, p, t)) continue;
        nsc_st_pair(bld, p->p > 0 ? b : e->node[t], p->p > 0 ? e->node[t] : b, j);
        nsc_st_jfit(bld, t ? &p->js : &p->jd, j);
        j += m_jn(e, p, t);
    }
    return NSC_OK;
}

/* f += w times the current of the bulk junction b -> t (NMOS; t -> b PMOS) into t,
 * -p lambda_j (j its first pair): none without it. */
static nsc_status junction_current(const nsc_lcs *L, const nsc_element *e, int ei, const mos_par *p,
                                   int t, double w, nsc_lin *f)
{
    int j = L->el_pair[ei] + 2 * p->nb + (t ? m_jn(e, p, 0) : 0);
    return m_jn(e, p, t) ? nsc_lin_add(f, NSC_T_L, j, -w * p->p) : NSC_OK;
}

/* The current into terminal t (0 d, 1 g, 3 b) of e (element ei of L) through
 * the capacitors of p into f: the sum over those at t of C (v_t - v_other)',
 * and Meyer's charges' x_k' (the gate's), -x_k' (terminal to[k]'s). */
static nsc_status cap_current(const nsc_lcs *L, const nsc_element *e, int ei, const mos_par *p,
                              int t, nsc_lin *f)
{
    const nsc_meyer *q = m_mey(p);
    for (int k = 0; q && k < q->nq; k++)
        if ((t == 1 || t == q->to[k])
            && nsc_lin_add(f, NSC_T_DZ, L->el_branch[ei] + m_nsix(p) + k, t == 1 ? 1.0 : -1.0))
            return NSC_ENOMEM;
    double cv[M_NCAP];
    m_capvals(e, p, cv);
    for (int k = 0; k < M_NCAP; k++) {
        if (!(cv[k] > 0) || (M_CT[k][0] != t && M_CT[k][1] != t)) continue;
        int o = M_CT[k][0] == t ? M_CT[k][1] : M_CT[k][0];
        if (nsc_lin_add(f, NSC_T_DZ, nsc_zn(e->node[t]), cv[k])
            || nsc_lin_add(f, NSC_T_DZ, nsc_zn(e->node[o]), -cv[k]))
            return NSC_ENOMEM;
    }
    return NSC_OK;
}

/* I(M): the current into the drain terminal, I_DS + CGDO W (v_d - v_g)' + CBD (v_d - v_b)'
 * - p i_BD (the bulk junction's current leaves NMOS at the drain). */
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
    if (junction_current(L, e, ei, p, 0, 1.0, f)) return NSC_ENOMEM;
    if (p->six && nsc_m6_current(m_six(p), L->el_branch[ei], 0, 1.0, f)) return NSC_ENOMEM;
    if (L->mode != NSC_ASM_TRAN) return NSC_OK;
    return cap_current(L, e, ei, p, 0, f); /* + CGDO W (v_d - v_g)' + CBD (v_d - v_b)' */
}

/* Power, with the source as reference: v_ds i_d + v_gs i_g + v_bs i_b; i_d =
 * I_DS + its capacitors' currents (m_current), i_g, i_b those of the gate's and
 * the body's (cap_current). A port whose current has no term is left out. */
static nsc_status m_ports(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *v, nsc_lin *i,
                          int *np)
{
    const nsc_element *e = &c->el[ei];
    *np = 0;
    if (m_current(L, c, ei, &i[0])) return NSC_ENOMEM;
    int s = nsc_zn(e->node[2]);
    if (nsc_lin_add(&v[0], NSC_T_Z, nsc_zn(e->node[0]), 1.0)
        || nsc_lin_add(&v[0], NSC_T_Z, s, -1.0))
        return NSC_ENOMEM;
    const mos_par *p = e->priv;
    *np = 1;
    if (!p) return NSC_OK;
    for (int t = 1; t <= 3; t += 2) { /* the gate, the body */
        if (L->mode == NSC_ASM_TRAN && cap_current(L, e, ei, p, t, &i[*np])) return NSC_ENOMEM;
        if (t == 3
            && (junction_current(L, e, ei, p, 0, -1.0, &i[*np])
                || junction_current(L, e, ei, p, 2, -1.0, &i[*np])))
            return NSC_ENOMEM; /* + p (i_BD + i_BS) into b */
        if (t == 3 && p->six && nsc_m6_current(m_six(p), L->el_branch[ei], 3, 1.0, &i[*np]))
            return NSC_ENOMEM;
        if (i[*np].nterm == 0) continue;
        if (nsc_lin_add(&v[*np], NSC_T_Z, nsc_zn(e->node[t]), 1.0)
            || nsc_lin_add(&v[*np], NSC_T_Z, s, -1.0))
            return NSC_ENOMEM;
        (*np)++;
    }
    return NSC_OK;
}

/* The run's largest overdrive on each side: x = b_last + mu_last (the last pair's
 * multiplier is max(0, x - b_last)); beyond the fit's top the last chord goes on
 * and the square law drifts: warned with f(x)/x^2 - 1 there, when over 1 %. */
static void m_check(const nsc_lcs *L, const nsc_circuit *c, int ei, const double *lpk,
                    nsc_report *r)
{
    const nsc_element *e = &c->el[ei];
    const mos_par *p = e->priv;
    if (!p || p->nb < 1) return;
    double xp = 0;
    for (int side = 0; side < 2; side++)
        xp = fmax(xp, p->b[p->nb - 1] + lpk[L->el_pair[ei] + side * p->nb + p->nb - 1]);
    double dev = xp > 0 ? nsc_pwl_eval(p->nb, p->b, p->a, xp) / (xp * xp) - 1 : 0;
    if (xp > p->top * (1 + 1e-9) && fabs(dev) > 0.01)
        nsc_warn(
            r, &e->loc,
            "MOS transistor %s: its gate overdrive reached %.3g V, beyond the %.3g V its model "
            "'%s' was fitted to (the sources' levels); there the channel current is %+.1f %% off the square law",
            e->name, xp, p->top, e->model->name, 100 * dev);
    for (int t = 0, j = L->el_pair[ei] + 2 * p->nb; t <= 2; j += m_jn(e, p, t), t += 2) {
        if (!m_jn(e, p, t)) continue; /* (no pair j: lpk[j] may be past the end) */
        double off, ip = lpk[j];
        const nsc_jfit *f = t ? &p->js : &p->jd;
        if (!nsc_jfit_outside(f, ip, &off)) continue;
        char rg[64];
        nsc_jfit_range(f, rg, sizeof rg);
        nsc_warn(
            r, &e->loc,
            "MOS transistor %s: its peak bulk-%s junction current %.3g A is %s the range %s it "
            "was fitted on; there the fit is %.3g V off the SPICE junction (%.3g V inside)%s",
            e->name, t ? "source" : "drain", ip, ip > f->i2 ? "above" : "below", rg, off, f->err,
            p->jrefit ? " (it left the refitted ones too)" : "");
    }
}

/* The pairs m_check and m_refit read: each side's last channel segment (the
 * largest overdrive), each bulk junction's first pair (its current). A
 * 1000-stage chain tracks 4 000 peaks instead of its 40 000 pairs' (its fixed
 * steps' cost: issue 24). */
static void m_check_pairs(const nsc_lcs *L, const nsc_circuit *c, int ei, char *mark)
{
    const nsc_element *e = &c->el[ei];
    const mos_par *p = e->priv;
    if (!p) return;
    int j0 = L->el_pair[ei];
    for (int side = 0; side < 2 && p->nb >= 1; side++) mark[j0 + side * p->nb + p->nb - 1] = 1;
    for (int t = 0, j = j0 + 2 * p->nb; t <= 2; j += m_jn(e, p, t), t += 2)
        if (m_jn(e, p, t)) mark[j] = 1;
}

/* The bulk junctions' fits a run left remade on its currents (device.h refit),
 * by the fewest chords within 10 mV (at most 8), as the BJT's (dev_q.c). */
static int m_refit(const nsc_lcs *L, const nsc_circuit *c, int ei, const double *lpk, int complete,
                   nsc_report *r)
{
    (void)complete; /* (a peak is a peak, complete or not) */
    const nsc_element *e = &c->el[ei];
    mos_par *p = e->priv; /* (the element's own block) */
    if (!p || !p->junc) return 0;
    int n = 0;
    for (int t = 0, j = L->el_pair[ei] + 2 * p->nb; t <= 2; j += m_jn(e, p, t), t += 2) {
        nsc_jfit *f = t ? &p->js : &p->jd, old = *f;
        if (!m_jn(e, p, t) || !nsc_jfit_refit(f, lpk[j], 0, 8, 0.01)) continue;
        char a[64], b[64];
        nsc_jfit_range(&old, a, sizeof a);
        nsc_jfit_range(f, b, sizeof b);
        nsc_note(r, &e->loc,
                 "MOS transistor %s: its peak bulk-%s junction current %.3g A %s %s it was "
                 "fitted on: refitted by %d segment%s on %s (max error %.3g V), the run repeated",
                 e->name, t ? "source" : "drain", lpk[j], nsc_jfit_where(&old, lpk[j]), a, f->nseg,
                 f->nseg > 1 ? "s" : "", b, f->err);
        n = 1;
    }
    p->jrefit += n;
    return n;
}

/* m_refit's decision alone, on copies of the fits (device.h refit_due). */
static int m_refit_due(const nsc_lcs *L, const nsc_circuit *c, int ei, const double *lpk)
{
    const nsc_element *e = &c->el[ei];
    const mos_par *p = e->priv;
    if (!p || !p->junc) return 0;
    for (int t = 0, j = L->el_pair[ei] + 2 * p->nb; t <= 2; j += m_jn(e, p, t), t += 2) {
        nsc_jfit f = t ? p->js : p->jd;
        if (m_jn(e, p, t) && nsc_jfit_refit(&f, lpk[j], 0, 8, 0.01)) return 1;
    }
    return 0;
}

/* a VDMOS's .model card: the models of its parts (cards_expand.c) */
static nsc_status m_model_read(const nsc_device *d, const nsc_cardview *v, int mi)
{
    (void)d;
    return v->c->model[mi].vdmos ? nsc_card_vdmos_model(v, mi) : NSC_OK;
}

/* SPICE's defaults of its models' parameters (ngspice's; nl_model.c compares
 * a .model defined again with them) */
static const nsc_par M_DEFS[] = { { "vto", 0, 0, 0 },   { "kp", 0, 2e-5, 0 },  { "gamma", 0, 0, 0 },
                                  { "phi", 0, 0.6, 0 }, { "lambda", 0, 0, 0 }, { "rd", 0, 0, 0 },
                                  { "rs", 0, 0, 0 },    { NULL, 0, 0, 0 } };

/* gmin across bulk-drain and bulk-source, as mos1load.c (devif.h junctions). */
static int m_gmin_junctions(const nsc_element *e, int *a, int *b)
{
    a[0] = a[1] = e->node[3], b[0] = e->node[0], b[1] = e->node[2];
    return 2;
}

const nsc_device nsc_dev_m = {
    .model_defs = M_DEFS,
    .kind = NSC_EL_M,
    .what = "MOS transistors",
    .name = "MOS transistor",
    .letter = 'm',
    .card = NSC_CARD_OWN,
    .parse = nsc_card_model,
    .model_read = m_model_read,
    .card_nodes = 4,
    .card_opt = NSC_CARDOPT_VDMOS | NSC_CARDOPT_BINS | NSC_CARDOPT_SERIESR,
    .bind = m_bind,
    .inst = M_INST,
    .ninst = 5,
    .inst_unit = "m",
    .count = m_count,
    .stamp = m_stamp,
    .current = m_current,
    .check = m_check,
    .refit = m_refit,
    .refit_due = m_refit_due,
    .check_pairs = m_check_pairs,
    .pclass = NSC_PC_SEMI,
    .swloss = 1, /* on while its first channel pair is active */
    .swcap = 1,
    .ports = m_ports,
    .junctions = m_gmin_junctions,
    .ndc = 1,
    .dc = { { 0, 2 } }, /* drain - source */
    .port = { 0, 2 },
    .models = { { "nmos", NSC_MOD_NMOS },
                { "pmos", NSC_MOD_PMOS },
                { "vdmos", NSC_MOD_NMOS } }, /* VDMOS: PCHAN a PMOS */
    .model_what = "a MOS (NMOS/PMOS)",
    .current_param = "id",
    .pin = { 1, 2, -1, 2 }, /* I(x) drain -> source; gate and body carry others */
};
