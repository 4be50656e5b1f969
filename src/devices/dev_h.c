/* dev_h.c -- CCVS H n+ n- Vsense r, branch current i_H flowing a -> b:
 *   A[a][iH] -= 1, A[b][iH] += 1;  0 = v_a - v_b - r i_s (i_s: sense branch current). */
#include "cards.h"
#include "device.h"

static nsc_status h_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    need->nbranch = 1;
    if (e->ref[0] < 0 || e->ref[0] >= ctx->c->nel)
        return nsc_err(ctx->r, NSC_ENETLIST, &e->loc,
                       "controlled source %s has no sense voltage source", e->name);
    if (nsc_dev_link(ctx, e->node[0], e->node[1], NSC_LINK_VD))
        return nsc_err(ctx->r, NSC_ENETLIST, &e->loc,
                       "controlled source %s closes a loop of voltage sources", e->name);
    return NSC_OK;
}

static nsc_status h_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    int is = b->el_branch[e->ref[0]];
    if (is < 0)
        return nsc_err(b->r, NSC_ENETLIST, &e->loc,
                       "controlled source %s: sense element %s has no branch current", e->name,
                       b->c->el[e->ref[0]].name);
    nsc_st_inc(b, e->node[0], e->node[1], s->branch);
    nsc_st_vrow(b, s->branch, e->node[0], e->node[1], 1.0);
    nsc_st(b, NSC_ST_A, s->branch, is, -e->value); /* - r i_s */
    return NSC_OK;
}

static nsc_status h_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    return nsc_lin_add(f, NSC_T_Z, L->el_branch[ei], 1.0);
}

const nsc_device nsc_dev_h = {
    .kind = NSC_EL_H,
    .what = "CCVS",
    .name = "CCVS",
    .letter = 'h',
    .card = NSC_CARD_OWN,
    .parse = nsc_card_ictrl,
    .count = h_count,
    .stamp = h_stamp,
    .current = h_current,
    .pclass = NSC_PC_CONTROLLED,
    .ndc = 1,
    .dc = { { 0, 1 } },
    .topo = NSC_TOPO_VDEF,
    .value_unit = "Ω",
};
