/* dev_e.c -- VCVS E n+ n- nc+ nc- gain, branch current i_E flowing a -> b:
 *   A[a][iE] -= 1, A[b][iE] += 1;  0 = v_a - v_b - gain (v_c - v_d). */
#include "cards.h"
#include "device.h"

static nsc_status e_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    need->nbranch = 1;
    if (nsc_dev_link(ctx, e->node[0], e->node[1], NSC_LINK_VD))
        return nsc_err(ctx->r, NSC_ENETLIST, &e->loc,
                       "controlled source %s closes a loop of voltage sources", e->name);
    return NSC_OK;
}

static nsc_status e_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    nsc_st_inc(b, e->node[0], e->node[1], s->branch);
    nsc_st_vrow(b, s->branch, e->node[0], e->node[1], 1.0);
    nsc_st_vrow(b, s->branch, e->node[2], e->node[3], -e->value);
    return NSC_OK;
}

static nsc_status e_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    return nsc_lin_add(f, NSC_T_Z, L->el_branch[ei], 1.0);
}

extern const nsc_device nsc_dev_etable, nsc_dev_bv; /* the devices of its other forms */
const nsc_device nsc_dev_e = {
    .kind = NSC_EL_E,
    .what = "VCVS",
    .name = "VCVS",
    .letter = 'e',
    .card = NSC_CARD_OWN,
    .parse = nsc_card_vctrl,
    .card_table = &nsc_dev_etable,
    .card_expr = &nsc_dev_bv, /* TABLE; VALUE= POLY() */
    .count = e_count,
    .stamp = e_stamp,
    .current = e_current,
    .pclass = NSC_PC_CONTROLLED,
    .ndc = 1,
    .dc = { { 0, 1 } },
    .topo = NSC_TOPO_VDEF,
    .value_unit = "1",
};
