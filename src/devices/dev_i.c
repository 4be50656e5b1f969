/* dev_i.c -- independent current source I n+ n- wave, I(t) flowing a -> b inside
 * the source: s[a] -= I(t), s[b] += I(t) (Ss columns). */
#include "cards.h"
#include "device.h"

static nsc_status i_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    need->nsrc = 1;
    nsc_dev_link(ctx, e->node[0], e->node[1], NSC_LINK_DC);
    return NSC_OK;
}

static nsc_status i_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    nsc_st(b, NSC_ST_SS, nsc_zn(e->node[0]), s->src, -1.0);
    nsc_st(b, NSC_ST_SS, nsc_zn(e->node[1]), s->src, 1.0);
    return NSC_OK;
}

static nsc_status i_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    return nsc_lin_add(f, NSC_T_W, nsc_lcs_src_of(L, ei), 1.0);
}

const nsc_device nsc_dev_i = {
    .kind = NSC_EL_I,
    .what = "current sources",
    .name = "current source",
    .letter = 'i',
    .card = NSC_CARD_OWN,
    .parse = nsc_card_source,
    .count = i_count,
    .stamp = i_stamp,
    .current = i_current,
    .pclass = NSC_PC_SOURCE,
    .topo = NSC_TOPO_ISRC,
    .wave_unit = "A",
};
