/* dev_v.c -- independent voltage source V n+ n- wave, branch current i_V flowing
 * a -> b through the source (SPICE's I(V)):
 *   A[a][iV] -= 1, A[b][iV] += 1;  0 = v_a - v_b - V(t): A[iV][a] = 1, A[iV][b] = -1,
 *   Ss[iV][w] = -1. */
#include "cards.h"
#include "device.h"

static nsc_status v_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    need->nbranch = 1;
    need->nsrc = 1;
    if (nsc_dev_link(ctx, e->node[0], e->node[1], NSC_LINK_VD))
        return nsc_err(ctx->r, NSC_ENETLIST, &e->loc,
                       "voltage source %s closes a loop of voltage sources", e->name);
    return NSC_OK;
}

static nsc_status v_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    nsc_st_inc(b, e->node[0], e->node[1], s->branch);
    nsc_st_vrow(b, s->branch, e->node[0], e->node[1], 1.0);
    nsc_st(b, NSC_ST_SS, s->branch, s->src, -1.0); /* s[iV] = -V(t) */
    return NSC_OK;
}

static nsc_status v_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    return nsc_lin_add(f, NSC_T_Z, L->el_branch[ei], 1.0);
}

const nsc_device nsc_dev_v = {
    .kind = NSC_EL_V,
    .what = "voltage sources",
    .name = "voltage source",
    .letter = 'v',
    .card = NSC_CARD_OWN,
    .parse = nsc_card_source,
    .card_parasitic = 1,
    .count = v_count,
    .stamp = v_stamp,
    .current = v_current,
    .pclass = NSC_PC_SOURCE,
    .ndc = 1,
    .dc = { { 0, 1 } },
    .topo = NSC_TOPO_VDEF,
    .out_current = 1,
    .wave_unit = "V",
};
