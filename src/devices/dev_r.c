/* dev_r.c -- resistor R n+ n- value: conductance G = 1/R between n+ and n-. */
#include "cards.h"
#include "device.h"

static nsc_status r_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    if (!(e->value != 0))
        return nsc_err(ctx->r, NSC_ENETLIST, &e->loc, "resistor %s has zero resistance", e->name);
    nsc_dev_link(ctx, e->node[0], e->node[1], NSC_LINK_NS);
    return NSC_OK;
}

static nsc_status r_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    nsc_st_g(b, e->node[0], e->node[1], 1.0 / e->value); /* i(a->b) = (v_a - v_b)/R */
    return NSC_OK;
}

static nsc_status r_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    const nsc_element *e = &c->el[ei];
    if (nsc_lin_add(f, NSC_T_Z, nsc_zn(e->node[0]), 1.0 / e->value)) return NSC_ENOMEM;
    return nsc_lin_add(f, NSC_T_Z, nsc_zn(e->node[1]), -1.0 / e->value);
}

const nsc_device nsc_dev_r = {
    .kind = NSC_EL_R,
    .what = "resistors",
    .name = "resistor",
    .letter = 'r',
    .card = NSC_CARD_OWN,
    .parse = nsc_card_value,
    .card_opt = NSC_CARDOPT_TIMESW
                | NSC_CARDOPT_RMODEL, /* R=cond ? R1 : R2; R n+ n- [MODEL] value */
    .count = r_count,
    .stamp = r_stamp,
    .current = r_current,
    .pclass = NSC_PC_RESISTOR,
    .ndc = 1,
    .dc = { { 0, 1 } },
    .value_unit = "Ω",
};
