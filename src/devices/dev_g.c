/* dev_g.c -- VCCS G n+ n- nc+ nc- gm: current gm (v_c - v_d) flowing a -> b inside
 * the source (A[a][c] -= gm, A[a][d] += gm, A[b][c] += gm, A[b][d] -= gm). */
#include "cards.h"
#include "device.h"

static nsc_status g_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    int a = e->node[0], k = e->node[1], cp = e->node[2], cm = e->node[3];
    int conductance = (a == cp && k == cm && e->value > 0) || (a == cm && k == cp && e->value < 0);
    nsc_dev_link(ctx, a, k, conductance ? NSC_LINK_NS : NSC_LINK_DC);
    return NSC_OK;
}

static nsc_status g_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    nsc_st_vccs(b, e->node[0], e->node[1], e->node[2], e->node[3], e->value);
    return NSC_OK;
}

static nsc_status g_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    const nsc_element *e = &c->el[ei];
    if (nsc_lin_add(f, NSC_T_Z, nsc_zn(e->node[2]), e->value)) return NSC_ENOMEM;
    return nsc_lin_add(f, NSC_T_Z, nsc_zn(e->node[3]), -e->value);
}

extern const nsc_device nsc_dev_bi; /* the device of its VALUE= form */
const nsc_device nsc_dev_g = {
    .kind = NSC_EL_G,
    .what = "VCCS",
    .name = "VCCS",
    .letter = 'g',
    .card = NSC_CARD_OWN,
    .parse = nsc_card_vctrl,
    .card_expr = &nsc_dev_bi, /* VALUE= POLY() */
    .count = g_count,
    .stamp = g_stamp,
    .current = g_current,
    .pclass = NSC_PC_CONTROLLED,
    .topo = NSC_TOPO_ISRC,
    .value_unit = "S",
};
