/* dev_a.c -- XSPICE's digital gates and node bridges (ngspice A cards) as
 * ideal relays, exact in this method:
 *   A [in1 in2] out model    .model model d_and | d_nand | d_or | d_nor | d_xor | d_xnor
 *   A in out model           .model model d_inverter | d_buffer
 *   A [a1 ..] [d1 ..] model  .model model adc_bridge(in_low in_high)     analog -> digital
 *   A [d1 ..] [a1 ..] model  .model model dac_bridge(out_low out_high)   digital -> analog
 * Digital nodes are voltage nodes holding 0 (low) or 1 (high): a gate's output
 * and an adc_bridge's are ideal voltage sources to ground of 0 or 1 V, and a
 * gate or dac_bridge reads its inputs against 0.5. An adc_bridge reads its
 * analog input against (in_low + in_high)/2 (XSPICE's unknown state between
 * them is not kept); a dac_bridge's output is the ideal voltage source
 * out_low + (out_high - out_low) d. Delays (rise_delay fall_delay, t_rise
 * t_fall) and input_load are not modelled: its card's parser warns (cards_xspice.c
 * a_warn). The parser splits a card into elements of at most two inputs
 * each (a chain through internal digital nodes, ipar[0] = 1 on its inner
 * stages, which take the gate's non-inverted form AND OR XOR; a bridge's
 * vector into one element per bit).
 *
 * Element: node[0] the output, node[1] = 0 (ground), node[2..nnode) the inputs
 * (one or two). Unknowns: the output's branch current i (flowing out -> 0
 * inside), and per relay u = H(z) its two pairs (dev_b.c's step, eps = 1e-12):
 *   0 <= u _|_ l - z + eps u >= 0,   0 <= l _|_ 1 - u >= 0
 * so u = 0 for z <= 0 and u = 1 for z >= eps. Input k's relay: z = v_k - th.
 * A gate of two inputs adds relays on s = u_1 + u_2 (0, 1 or 2):
 *   AND: w = H(s - 1.5)   OR: w = H(s - 0.5)   XOR: w0 - w1, w_m = H(s - m - 0.5)
 * and the output row is 0 = v_out - lo - (hi - lo) g, g the gate's value (its
 * complement 1 - g for NAND NOR XNOR and the inverter). s is an integer away
 * from the thresholds, so only an input's own crossing passes through eps. */
#include <stddef.h>
#include <stdlib.h>

#include "cards.h"
#include "device.h"

#define A_EPS 1e-12

typedef enum a_fn { A_BUF, A_AND, A_OR, A_XOR } a_fn;

typedef struct a_par {
    double in_low, in_high, out_low, out_high, out_undef;
} a_par;

#define A_P(name, f, def) \
    { \
        name, offsetof(a_par, f), def, 0 \
    }
static const nsc_par a_tab[] = {
    A_P("in_low", in_low, 0.1),   A_P("in_high", in_high, 0.9),     A_P("out_low", out_low, 0),
    A_P("out_high", out_high, 1), A_P("out_undef", out_undef, 0.5),
};

/* One relay u = H(z), z = v(node[in]) (in >= 0) + sum c[q] u_ref[q] - th. */
typedef struct a_rel {
    int in, nref, ref[2];
    double c[2], th;
} a_rel;

/* An element's relays: r[0 .. n) in order (a relay reads earlier ones), the
 * output's lo = r[lo] and hi = r[hi]; inv: the output is 1 - d. */
#define A_MAXREL 10
typedef struct a_prog {
    a_rel r[A_MAXREL];
    int n, lo, hi, inv;
    double L, U, H; /* the output levels of 0, unknown, 1 */
} a_prog;

static int a_rel_in(a_prog *p, int in, double th)
{
    p->r[p->n] = (a_rel){ .in = in, .th = th };
    return p->n++;
}

static int a_rel_of(a_prog *p, int r1, double c1, int r2, double c2, double th)
{
    p->r[p->n] = (a_rel){ .in = -1, .nref = 2, .ref = { r1, r2 }, .c = { c1, c2 }, .th = th };
    return p->n++;
}

/* the relays of a two-input gate after its inputs' (lo_k = r[2k], hi_k = r[2k+1]) */
static void a_gate2(a_prog *p, a_fn fn)
{
    if (fn != A_XOR) { /* AND: min, OR: max (0 < U < 1) */
        double th = fn == A_AND ? 1.5 : 0.5;
        p->lo = a_rel_of(p, 0, 1, 2, 1, th);
        p->hi = a_rel_of(p, 1, 1, 3, 1, th);
        return;
    }
    int t1lo = a_rel_of(p, 0, 1, 3, -1, 0.5),
        t1hi = a_rel_of(p, 1, 1, 2, -1, 0.5); /* a AND NOT b */
    int t2lo = a_rel_of(p, 2, 1, 1, -1, 0.5),
        t2hi = a_rel_of(p, 3, 1, 0, -1, 0.5);   /* b AND NOT a */
    p->lo = a_rel_of(p, t1lo, 1, t2lo, 1, 0.5); /* OR of the two */
    p->hi = a_rel_of(p, t1hi, 1, t2hi, 1, 0.5);
}

static void a_prog_of(const nsc_element *e, a_prog *p)
{
    a_par q;
    nsc_modeltype t = e->model ? e->model->type : NSC_MOD_DBUF;
    unsigned given = nsc_par_read(e->model, a_tab, (int)(sizeof a_tab / sizeof a_tab[0]), &q);
    a_fn fn = t == NSC_MOD_DAND || t == NSC_MOD_DNAND   ? A_AND
              : t == NSC_MOD_DOR || t == NSC_MOD_DNOR   ? A_OR
              : t == NSC_MOD_DXOR || t == NSC_MOD_DXNOR ? A_XOR
                                                        : A_BUF;
    int nin = e->nnode - 2;
    double tlo = 0.25, thi = 0.75; /* a digital node: 0, 0.5 (U), 1 */
    if (t == NSC_MOD_ADC) {
        tlo = q.in_low;
        thi = q.in_high;
    }
    p->n = 0;
    p->inv = !e->ipar[0]
             && (t == NSC_MOD_DNAND || t == NSC_MOD_DNOR || t == NSC_MOD_DXNOR
                 || t == NSC_MOD_DINV);
    p->L = 0, p->U = 0.5, p->H = 1;
    if (t == NSC_MOD_DAC) { /* out_undef: their mean unless given */
        p->L = q.out_low, p->H = q.out_high;
        p->U = given & 16 || !(given & 12) ? q.out_undef : 0.5 * (q.out_low + q.out_high);
    }
    for (int k = 0; k < nin; k++) {
        a_rel_in(p, k, tlo);
        a_rel_in(p, k, thi);
    }
    p->lo = 0, p->hi = 1;
    if (nin == 2 && fn != A_BUF) a_gate2(p, fn);
}

/* The element's relays, built once from its model (its private data). */
static void *a_bind(const nsc_circuit *c, int ei)
{
    a_prog *p = malloc(sizeof *p);
    if (p) a_prog_of(&c->el[ei], p);
    return p;
}

static nsc_status a_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    const a_prog *p = e->priv;
    if (!p) return nsc_oom(ctx->r); /* a_bind cannot fail otherwise */
    need->nbranch = 1;
    need->npair = 2 * p->n;
    if (nsc_dev_link(ctx, e->node[0], 0, NSC_LINK_VD))
        return nsc_err(ctx->r, NSC_ENETLIST, &e->loc,
                       "XSPICE output of %s closes a loop of voltage sources "
                       "(two outputs drive node %s?)",
                       e->name, ctx->c->node_name[e->node[0]]);
    return NSC_OK;
}

/* relay r at pairs j, j+1 (relay k at pairs p0 + 2k): y_j = l - z + eps u, y_l = 1 - u */
static void a_relay(nsc_builder *b, const nsc_element *e, const a_rel *r, int p0, int j)
{
    if (r->in >= 0 && e->node[2 + r->in]) nsc_st(b, NSC_ST_C, j, nsc_zn(e->node[2 + r->in]), -1.0);
    for (int q = 0; q < r->nref; q++) nsc_st(b, NSC_ST_D, j, p0 + 2 * r->ref[q], -r->c[q]);
    nsc_st_e0(b, j, r->th);
    nsc_st(b, NSC_ST_D, j, j + 1, 1.0);
    nsc_st(b, NSC_ST_D, j, j, A_EPS);
    nsc_st(b, NSC_ST_D, j + 1, j, -1.0);
    nsc_st_e0(b, j + 1, 1.0);
}

/* 0 = v_out - v(lo, hi): v = L + (U - L) lo + (H - U) hi, or inverted
 * (d -> 1 - d: lo -> 1 - hi, hi -> 1 - lo) v = H - (H - U) lo - (U - L) hi */
static nsc_status a_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    const a_prog *p = e->priv;
    if (!p) return nsc_oom(b->r);
    int row = s->branch;
    nsc_st_inc(b, e->node[0], 0, row);
    nsc_st_exact(b, row);
    nsc_st_vrow(b, row, e->node[0], 0, 1.0);
    for (int k = 0; k < p->n; k++) a_relay(b, e, &p->r[k], s->pair, s->pair + 2 * k);
    double clo = p->inv ? p->H - p->U : p->U - p->L, chi = p->inv ? p->U - p->L : p->H - p->U;
    nsc_st(b, NSC_ST_B, row, s->pair + 2 * p->lo, p->inv ? clo : -clo);
    nsc_st(b, NSC_ST_B, row, s->pair + 2 * p->hi, p->inv ? chi : -chi);
    nsc_st_s0(b, row, p->inv ? -p->H : -p->L);
    return NSC_OK;
}

static nsc_status a_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    return nsc_lin_add(f, NSC_T_Z, L->el_branch[ei], 1.0);
}

const nsc_device nsc_dev_a = {
    .kind = NSC_EL_A,
    .what = "XSPICE gates and bridges",
    .name = "XSPICE element",
    .letter = 'a',
    .card = NSC_CARD_OWN,
    .parse = nsc_card_xspice,
    .bind = a_bind,
    .count = a_count,
    .stamp = a_stamp,
    .current = a_current,
    .pclass = NSC_PC_CONTROLLED,
    .ndc = 1,
    .dc = { { 0, 1 } },
    .topo = NSC_TOPO_VDEF,
    .pin = { 1, -1, 0, 0 },
    .models = { { "d_and", NSC_MOD_DAND, 1 },
                { "d_nand", NSC_MOD_DNAND, 1 },
                { "d_or", NSC_MOD_DOR, 1 },
                { "d_nor", NSC_MOD_DNOR, 1 },
                { "d_xor", NSC_MOD_DXOR, 1 },
                { "d_xnor", NSC_MOD_DXNOR, 1 },
                { "d_inverter", NSC_MOD_DINV, 1 },
                { "d_buffer", NSC_MOD_DBUF, 1 },
                { "adc_bridge", NSC_MOD_ADC, 1 },
                { "dac_bridge", NSC_MOD_DAC, 1 },
                /* the other code models an A card names: read by cards_xspice.c into other devices' elements */
                { "d_dff", NSC_MOD_DDFF, 1 },
                { "d_jkff", NSC_MOD_DJKFF, 1 },
                { "d_tff", NSC_MOD_DTFF, 1 },
                { "d_srff", NSC_MOD_DSRFF, 1 },
                { "d_dlatch", NSC_MOD_DDLATCH, 1 },
                { "d_srlatch", NSC_MOD_DSRLATCH, 1 },
                { "limit", NSC_MOD_LIMIT, 1 },
                { "core", NSC_MOD_CORE, 1 },
                { "lcouple", NSC_MOD_LCOUPLE, 1 } },
    .model_what =
        "an XSPICE gate or bridge (d_and d_nand d_or d_nor d_xor d_xnor d_inverter d_buffer adc_bridge dac_bridge)",
};
