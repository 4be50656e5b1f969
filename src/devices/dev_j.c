/* dev_j.c -- JFET J d g s model [AREA=a] [m=x], .model NAME NJF|PJF
 * (SPICE's level 1, Shichman-Hodges as ngspice 39 with B = 1): VTO (-2 V),
 * BETA (1e-4 A/V^2), LAMBDA (0), IS (1e-14 A), N (1), RD RS (ohms: resistors
 * to internal nodes, cards_expand.c, divided by AREA m), CGS CGD (F, 0), PB (1 V),
 * FC (0.5). BETA IS CGS CGD scale by AREA m. Other parameters are ignored with
 * a warning (B only when != 1).
 *
 * Every current is a smooth function of the terminal voltages (lcs.h
 * nsc_smooth, solved by the Newton iteration of the one-step problem), built
 * here as code (base/xcode.h) whose PROBEs are the terminals' voltages; with
 * p = +1 (NJF) or -1 (PJF), vds = p (v_d - v_s), vgs = p (v_g - v_s),
 * vgd = p (v_g - v_d):
 *   u0, the channel d -> s:  p id,  id = F(vgs - VTO, vds) for vds >= 0,
 *        -F(vgd - VTO, -vds) below (the terminals' roles swap), where
 *        F(g, x) = 0 (g <= 0), BETA x (2g - x)(1 + LAMBDA x) (x < g),
 *        BETA g^2 (1 + LAMBDA x) (else): C^1 where the regions meet;
 *   u1, u2, the gate junctions g -> s and g -> d:
 *        p (IS (e(vgs / (N Vt)) - 1) + GMIN vgs), e(x) = exp(x) up to x = 40,
 *        then exp(40)(1 + x - 40) (C^1; no overflow while Newton searches);
 *   u3, u4 (CGS, CGD > 0): the charges of the gate junctions (Vt at 300.15 K;
 *        M = 1/2), q(v) = 2 PB C0 (1 - sqrt(1 - v/PB)) for v < FC PB, above it
 *        SPICE's linear extension of the capacitance, integrated:
 *        C0 (F1 + (F3 (v - FC PB) + (v^2 - (FC PB)^2)/(4 PB)) / F2),
 *        F1 = 2 PB (1 - sqrt(1 - FC)), F2 = (1 - FC)^1.5, F3 = 1 - 1.5 FC;
 *        their time derivative leaves g (E[g][u] = 1), enters s (d): charge
 *        conservation as dev_cq.c; static modes: open.
 * Each u_k is a branch unknown with its row 0 = -u_k + f_k(v_d, v_g, v_s);
 * the currents enter the KCL rows (nsc_st_inc). I(j) is the drain terminal's
 * current, into the drain: u0 - u2 - u4'. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cards.h"
#include "device.h"
#include "base/xfn.h"

#define VT_300 (1.380649e-23 * 300.15 / 1.602176634e-19) /* kT/q, V */
#define J_GMIN 1e-12                                     /* S across each gate junction, as SPICE */
#define J_XMAX 40.0                                      /* the junctions' exponent, linear above */
#define J_NF 5                                           /* functions: channel, gs, gd, qgs, qgd */
#define J_MAXCODE 160                                    /* instructions of one function */

typedef struct j_card {
    double vto, beta, lambda, is, n, rd, rs, cgs, cgd, pb, fc, b;
} j_card;
#define J_P(f, def) \
    { \
#f, offsetof(j_card, f), def, 0 \
    }
static const nsc_par J_PAR[] = {
    J_P(vto, -2), J_P(beta, 1e-4), J_P(lambda, 0), J_P(is, 1e-14), J_P(n, 1),    J_P(rd, 0),
    J_P(rs, 0),   J_P(cgs, 0),     J_P(cgd, 0),    J_P(pb, 1),     J_P(fc, 0.5), J_P(b, 1),
};
#define J_NPAR ((int)(sizeof J_PAR / sizeof J_PAR[0]))

/* instance parameters: AREA, m (ipar[0], ipar[1]; nl_elab_el.c divides RD RS by them) */
static const nsc_par J_INST[] = { { "area", 0, 1.0, NSC_INST_PARALLEL },
                                  { "m", 0, 1.0, NSC_INST_PARALLEL } };

/* The element's functions: code[k][0 .. ncode[k]) (0: none), PROBE q = v of
 * terminal term[q] (d g s), nin of them (distinct, not ground). */
typedef struct jfet_par {
    int nin, term[3];
    int ncode[J_NF];
    nsc_xinstr code[J_NF][J_MAXCODE];
} jfet_par;

/* ---- code building ---- */
typedef struct jb {
    nsc_xinstr *c;
    int n;
    int probe[3]; /* PROBE index of terminal d g s, -1: ground (0 V) */
    double p;     /* polarity */
} jb;

static void op(jb *B, nsc_xop o)
{
    if (B->n < J_MAXCODE) B->c[B->n++] = (nsc_xinstr){ o, 0, 0, 0 };
}
static void num(jb *B, double x)
{
    if (B->n < J_MAXCODE) B->c[B->n++] = (nsc_xinstr){ NSC_XOP_NUM, 0, 0, x };
}
static void call(jb *B, const char *f)
{
    if (B->n < J_MAXCODE) B->c[B->n++] = (nsc_xinstr){ NSC_XOP_CALL, nsc_xfn_find(f), 1, 0 };
}

/* p (v_a - v_b), terminals a, b */
static void vab(jb *B, int a, int b)
{
    if (B->probe[a] >= 0 && B->n < J_MAXCODE)
        B->c[B->n++] = (nsc_xinstr){ NSC_XOP_PROBE, B->probe[a], 0, 0 };
    else num(B, 0);
    if (B->probe[b] >= 0 && B->n < J_MAXCODE)
        B->c[B->n++] = (nsc_xinstr){ NSC_XOP_PROBE, B->probe[b], 0, 0 };
    else num(B, 0);
    op(B, NSC_XOP_SUB);
    if (B->p < 0) op(B, NSC_XOP_NEG);
}

/* g = p(v_g - v_c) - VTO (c: the source s, or d in reverse); x = s * vds (s = +-1) */
static void gst(jb *B, int c, double vto)
{
    vab(B, 1, c);
    num(B, vto);
    op(B, NSC_XOP_SUB);
}
static void xds(jb *B, double s)
{
    vab(B, 0, 2);
    if (s < 0) op(B, NSC_XOP_NEG);
}

/* F(g, x) of the header (rev: the reverse region's g, x) */
static void chan_f(jb *B, const j_card *k, int rev)
{
    int c = rev ? 0 : 2;
    double s = rev ? -1 : 1;
    gst(B, c, k->vto);
    num(B, 0);
    op(B, NSC_XOP_GT); /* g > 0 */
    xds(B, s);
    gst(B, c, k->vto);
    op(B, NSC_XOP_LT); /* x < g */
    xds(B, s);
    gst(B, c, k->vto);
    num(B, 2);
    op(B, NSC_XOP_MUL);
    xds(B, s);
    op(B, NSC_XOP_SUB);
    op(B, NSC_XOP_MUL); /* x (2g - x) */
    gst(B, c, k->vto);
    gst(B, c, k->vto);
    op(B, NSC_XOP_MUL); /* g^2 */
    op(B, NSC_XOP_COND);
    num(B, k->beta);
    op(B, NSC_XOP_MUL);
    xds(B, s);
    num(B, k->lambda);
    op(B, NSC_XOP_MUL);
    num(B, 1);
    op(B, NSC_XOP_ADD);
    op(B, NSC_XOP_MUL); /* (1 + LAMBDA x) */
    num(B, 0);
    op(B, NSC_XOP_COND);
}

/* u0 = p id */
static void channel(jb *B, const j_card *k)
{
    xds(B, 1);
    num(B, 0);
    op(B, NSC_XOP_GE);
    chan_f(B, k, 0);
    chan_f(B, k, 1);
    op(B, NSC_XOP_NEG);
    op(B, NSC_XOP_COND);
    if (B->p < 0) op(B, NSC_XOP_NEG);
}

/* the junction g -> c: p (IS (e(v/(N Vt)) - 1) + GMIN v), v = p (v_g - v_c) */
static void junction(jb *B, const j_card *k, int c)
{
    double nvt = k->n * VT_300, e40 = exp(J_XMAX);
    vab(B, 1, c);
    num(B, nvt);
    op(B, NSC_XOP_DIV);
    num(B, J_XMAX);
    op(B, NSC_XOP_LT);
    vab(B, 1, c);
    num(B, nvt);
    op(B, NSC_XOP_DIV);
    call(B, "exp");
    vab(B, 1, c);
    num(B, nvt);
    op(B, NSC_XOP_DIV);
    num(B, 1 - J_XMAX);
    op(B, NSC_XOP_ADD);
    num(B, e40);
    op(B, NSC_XOP_MUL);
    op(B, NSC_XOP_COND);
    num(B, 1);
    op(B, NSC_XOP_SUB);
    num(B, k->is);
    op(B, NSC_XOP_MUL);
    vab(B, 1, c);
    num(B, J_GMIN);
    op(B, NSC_XOP_MUL);
    op(B, NSC_XOP_ADD);
    if (B->p < 0) op(B, NSC_XOP_NEG);
}

/* the charge of the junction g - c of zero-bias capacitance c0 (header) */
static void charge(jb *B, const j_card *k, int c, double c0)
{
    double pb = k->pb, fcpb = k->fc * pb, f1 = 2 * pb * (1 - sqrt(1 - k->fc)),
           f2 = pow(1 - k->fc, 1.5), f3 = 1 - 1.5 * k->fc;
    vab(B, 1, c);
    num(B, fcpb);
    op(B, NSC_XOP_LT);
    num(B, 1);
    num(B, 1);
    vab(B, 1, c);
    num(B, pb);
    op(B, NSC_XOP_DIV);
    op(B, NSC_XOP_SUB);
    call(B, "sqrt");
    op(B, NSC_XOP_SUB);
    num(B, 2 * pb * c0);
    op(B, NSC_XOP_MUL); /* 2 PB C0 (1 - sqrt(1 - v/PB)) */
    vab(B, 1, c);
    num(B, fcpb);
    op(B, NSC_XOP_SUB);
    num(B, f3);
    op(B, NSC_XOP_MUL);
    vab(B, 1, c);
    vab(B, 1, c);
    op(B, NSC_XOP_MUL);
    num(B, fcpb * fcpb);
    op(B, NSC_XOP_SUB);
    num(B, 4 * pb);
    op(B, NSC_XOP_DIV);
    op(B, NSC_XOP_ADD);
    num(B, f2);
    op(B, NSC_XOP_DIV);
    num(B, f1);
    op(B, NSC_XOP_ADD);
    num(B, c0);
    op(B, NSC_XOP_MUL);
    op(B, NSC_XOP_COND);
    if (B->p < 0) op(B, NSC_XOP_NEG);
}

/* ---- binding ---- */

/* The card of element e checked into p's functions: an nsc_dev_parse. */
static nsc_status j_params(const nsc_element *e, nsc_report *r, void *out)
{
    jfet_par *P = out;
    const nsc_model *m = e->model;
    if (!m || (m->type != NSC_MOD_NJF && m->type != NSC_MOD_PJF))
        return nsc_err(r, NSC_ENETLIST, &e->loc, "JFET %s has no JFET model (NJF or PJF)", e->name);
    j_card k;
    nsc_par_read(m, J_PAR, J_NPAR, &k);
    double am = e->ipar[0] * e->ipar[1];
    if (!(k.beta > 0 && k.is >= 0 && k.n > 0 && k.lambda >= 0 && k.cgs >= 0 && k.cgd >= 0
          && k.pb > 0 && k.fc >= 0 && k.fc < 1 && isfinite(k.vto)))
        return nsc_err(r, NSC_ENETLIST, &m->loc,
                       "JFET model '%s': need BETA > 0, N > 0, PB > 0, IS LAMBDA CGS CGD "
                       ">= 0, 0 <= FC < 1",
                       m->name);
    k.beta *= am;
    k.is *= am;
    memset(P, 0, sizeof *P);
    jb B = { NULL, 0, { -1, -1, -1 }, m->type == NSC_MOD_NJF ? 1.0 : -1.0 };
    for (int t = 0; t < 3; t++) { /* the inputs: distinct, not ground */
        int q = 0;
        while (q < P->nin && e->node[P->term[q]] != e->node[t]) q++;
        if (e->node[t] && q == P->nin) P->term[P->nin++] = t;
        B.probe[t] = e->node[t] ? q : -1;
    }
    const double c0[2] = { k.cgs * am, k.cgd * am };
    for (int f = 0; f < J_NF; f++) {
        B.c = P->code[f];
        B.n = 0;
        if (f == 0) channel(&B, &k);
        else if (f < 3) junction(&B, &k, f == 1 ? 2 : 0);
        else if (c0[f - 3] > 0) charge(&B, &k, f == 3 ? 2 : 0, c0[f - 3]);
        if (B.n >= J_MAXCODE)
            return nsc_err(r, NSC_ENETLIST, &e->loc, "JFET %s: code too long", e->name);
        P->ncode[f] = B.n;
    }
    return NSC_OK;
}

static void *j_bind(const nsc_circuit *c, int ei)
{
    return nsc_bind_parse(&c->el[ei], sizeof(jfet_par), j_params);
}

/* ---- the interface ---- */

static nsc_status j_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    const jfet_par *P = e->priv;
    if (!P) return nsc_bind_failed(e, sizeof *P, j_params, ctx->r);
    const nsc_model *m = e->model;
    for (int q = 0; q < m->npar; q++)
        if (!nsc_par_known(J_PAR, J_NPAR, 0, m->pname[q])
            || (!strcmp(m->pname[q], "b") && m->pval[q] != 1)) {
            nsc_warn(ctx->r, &m->loc,
                     "JFET model '%s': parameters other than VTO BETA LAMBDA IS N RD RS CGS CGD PB "
                     "FC (and B = 1) are ignored (%s first)",
                     m->name, m->pname[q]);
            break;
        }
    need->nbranch = 3 + (P->ncode[3] > 0) + (P->ncode[4] > 0);
    nsc_dev_link(ctx, e->node[0], e->node[2], NSC_LINK_DC);
    nsc_dev_link(ctx, e->node[1], e->node[2], NSC_LINK_DC);
    return NSC_OK;
}

/* The unknowns in order: u0 d -> s, u1 g -> s, u2 g -> d, then the charges qgs, qgd given */
static nsc_status j_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    const jfet_par *P = e->priv;
    int d = e->node[0], g = e->node[1], so = e->node[2], in[3], u = s->branch;
    for (int q = 0; q < P->nin; q++) in[q] = nsc_zn(e->node[P->term[q]]);
    for (int f = 0; f < J_NF; f++) {
        if (!P->ncode[f]) continue;
        int to = f == 0 || f == 1 || f == 3 ? so : d, from = f == 0 ? d : g;
        if (f < 3) nsc_st_inc(b, from, to, u); /* the current u leaves `from`, enters `to` */
        else if (b->mode == NSC_ASM_TRAN) {
            nsc_st(b, NSC_ST_E, nsc_zn(from), u, 1.0); /* u' leaves g */
            nsc_st(b, NSC_ST_E, nsc_zn(to), u, -1.0);
        }
        nsc_st_smooth_at0(b, ei, u, in, P->nin, P->code[f], P->ncode[f]);
        u++;
    }
    return NSC_OK;
}

/* the drain terminal's current (into the drain): u0 - u2 - qgd' */
static nsc_status j_drain(const nsc_lcs *L, const jfet_par *P, int ei, nsc_lin *f)
{
    int u = L->el_branch[ei];
    if (nsc_lin_add(f, NSC_T_Z, u, 1.0) || nsc_lin_add(f, NSC_T_Z, u + 2, -1.0)) return NSC_ENOMEM;
    if (P->ncode[4] && L->mode == NSC_ASM_TRAN)
        return nsc_lin_add(f, NSC_T_DZ, u + 3 + (P->ncode[3] > 0), -1.0);
    return NSC_OK;
}

static nsc_status j_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    const jfet_par *P = c->el[ei].priv;
    return P ? j_drain(L, P, ei, f) : NSC_OK;
}

/* two ports against the source: (V(d, s), the drain's current), (V(g, s), the gate's: u1 + u2 + qgs' + qgd') */
static nsc_status j_ports(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *v, nsc_lin *i,
                          int *np)
{
    const nsc_element *e = &c->el[ei];
    const jfet_par *P = e->priv;
    int u = L->el_branch[ei], tran = L->mode == NSC_ASM_TRAN, sz = nsc_zn(e->node[2]);
    *np = 0;
    if (!P) return NSC_OK;
    if (j_drain(L, P, ei, &i[0]) || nsc_lin_add(&i[1], NSC_T_Z, u + 1, 1.0)
        || nsc_lin_add(&i[1], NSC_T_Z, u + 2, 1.0))
        return NSC_ENOMEM;
    for (int q = 0, x = u + 3; q < 2; q++)
        if (P->ncode[3 + q] && tran && nsc_lin_add(&i[1], NSC_T_DZ, x++, 1.0)) return NSC_ENOMEM;
    for (int t = 0; t < 2; t++)
        if (nsc_lin_add(&v[t], NSC_T_Z, nsc_zn(e->node[t == 0 ? 0 : 1]), 1.0)
            || nsc_lin_add(&v[t], NSC_T_Z, sz, -1.0))
            return NSC_ENOMEM;
    *np = 2;
    return NSC_OK;
}

/* SPICE's defaults of its models' parameters (ngspice's; nl_model.c compares
 * a .model defined again with them) */
static const nsc_par J_DEFS[] = {
    { "vto", 0, -2, 0 }, { "beta", 0, 1e-4, 0 }, { "lambda", 0, 0, 0 }, { "is", 0, 1e-14, 0 },
    { "n", 0, 1, 0 },    { "rd", 0, 0, 0 },      { "rs", 0, 0, 0 },     { "cgs", 0, 0, 0 },
    { "cgd", 0, 0, 0 },  { "pb", 0, 1, 0 },      { "fc", 0, 0.5, 0 },   { NULL, 0, 0, 0 }
};

/* gmin across gate-drain and gate-source, as jfetload.c (devif.h junctions). */
static int j_junctions(const nsc_element *e, int *a, int *b)
{
    a[0] = a[1] = e->node[1], b[0] = e->node[0], b[1] = e->node[2];
    return 2;
}

const nsc_device nsc_dev_j = {
    .model_defs = J_DEFS,
    .kind = NSC_EL_J,
    .what = "JFETs",
    .name = "JFET",
    .letter = 'j',
    .card = NSC_CARD_OWN,
    .parse = nsc_card_model,
    .card_nodes = 3,
    .card_opt = NSC_CARDOPT_SERIESR, /* RD RS */
    .bind = j_bind,
    .inst = J_INST,
    .ninst = 2,
    .count = j_count,
    .stamp = j_stamp,
    .current = j_current,
    .pclass = NSC_PC_SEMI,
    .ports = j_ports,
    .junctions = j_junctions,
    .no_power = "a JFET (its power is in --losses)",
    .ndc = 2,
    .dc = { { 0, 2 }, { 1, 2 } },
    .models = { { "njf", NSC_MOD_NJF }, { "pjf", NSC_MOD_PJF } },
    .model_what = "a JFET (NJF/PJF)",
    .pin = { 1, 2, -1 }, /* I(x) drain -> source; the gate carries others */
};
