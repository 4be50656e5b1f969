/* dev_f.c -- CCCS F n+ n- Vsense gain: current gain i_s flowing a -> b inside the
 * source, i_s the branch current of the sense element (a voltage source, or any
 * element with a branch unknown): A[a][is] -= gain, A[b][is] += gain. */
#include "cards.h"
#include "device.h"

static nsc_status f_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    if (e->ref[0] < 0 || e->ref[0] >= ctx->c->nel)
        return nsc_err(ctx->r, NSC_ENETLIST, &e->loc,
                       "controlled source %s has no sense voltage source", e->name);
    nsc_dev_link(ctx, e->node[0], e->node[1], NSC_LINK_DC);
    return NSC_OK;
}

static nsc_status f_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    int is = b->el_branch[e->ref[0]];
    if (is < 0)
        return nsc_err(b->r, NSC_ENETLIST, &e->loc,
                       "controlled source %s: sense element %s has no branch current", e->name,
                       b->c->el[e->ref[0]].name);
    nsc_st(b, NSC_ST_A, nsc_zn(e->node[0]), is, -e->value);
    nsc_st(b, NSC_ST_A, nsc_zn(e->node[1]), is, e->value);
    return NSC_OK;
}

static nsc_status f_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    return nsc_lin_add(f, NSC_T_Z, L->el_branch[c->el[ei].ref[0]], c->el[ei].value);
}

const nsc_device nsc_dev_f = {
    .kind = NSC_EL_F,
    .what = "CCCS",
    .name = "CCCS",
    .letter = 'f',
    .card = NSC_CARD_OWN,
    .parse = nsc_card_ictrl,
    .count = f_count,
    .stamp = f_stamp,
    .current = f_current,
    .pclass = NSC_PC_CONTROLLED,
    .topo = NSC_TOPO_ISRC,
    .value_unit = "1",
};
