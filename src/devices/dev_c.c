/* dev_c.c -- capacitor C n+ n- value [IC=v0].
 *
 * TRAN: E[a][a] += C, E[a][b] -= C, E[b][a] -= C, E[b][b] += C (C (v_a - v_b)' leaves a).
 * Static modes: imposed as a voltage source of its initial voltage v0 (extra branch
 * i(c) flowing a -> b), or open:
 *   OP : imposed only when IC= is given (.ic node values are imposed by the assembler);
 *   UIC: always, v0 = IC= if given, else ic(a) - ic(b) from the .ic node values
 *        (ground and nodes without .ic count 0).
 * A capacitor whose nodes are already tied by voltage-defining branches is not
 * imposed (the loop would make the static matrix singular); its IC= is then
 * ignored with a warning. count() is latest (2) so that V/E/H/L are tied first. */
#include "device.h"

static nsc_status c_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    int a = e->node[0], k = e->node[1];
    if (e->value < 0)                                        /* an unstable mode: it ran to -inf rows */
        return nsc_err(ctx->r, NSC_ENETLIST, &e->loc, "capacitor %s: negative capacitance %g F is not supported",
                       e->name, e->value);
    int impose = ctx->mode == NSC_ASM_UIC || (ctx->mode == NSC_ASM_OP && e->has_ic);
    if (ctx->mode == NSC_ASM_TRAN) {
        nsc_dev_link(ctx, a, k, NSC_LINK_NS);
    } else if (!impose) {
        nsc_dev_link(ctx, a, k, NSC_LINK_DC);              /* open */
    } else if (nsc_dev_link(ctx, a, k, NSC_LINK_VD)) {
        nsc_dev_link(ctx, a, k, NSC_LINK_DC);
        if (e->has_ic)
            nsc_warn(ctx->r, &e->loc, "IC= of capacitor %s ignored: the operating point ties its terminals to "
                     "voltage sources (directly, or through inductors, shorts at DC, or other capacitors with IC=)",
                     e->name);
    } else {
        need->nextra = 1;
    }
    return NSC_OK;
}

static nsc_status c_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    int a = e->node[0], k = e->node[1];
    if (b->mode == NSC_ASM_TRAN) {
        nsc_st_cap(b, a, k, e->value);
    } else if (s->extra >= 0) {
        double v0 = e->has_ic ? e->ic : b->icv[a] - b->icv[k];
        nsc_st_inc(b, a, k, s->extra);                       /* i(c) leaves a, enters k */
        nsc_st_vrow(b, s->extra, a, k, 1.0);                 /* 0 = v_a - v_k - v0 */
        nsc_st_s0(b, s->extra, -v0);
    }
    return NSC_OK;
}

/* TRAN: C (v_a - v_b)' as C/h (dz_a - dz_b); static: the imposed branch, else 0. */
static nsc_status c_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    const nsc_element *e = &c->el[ei];
    if (L->mode != NSC_ASM_TRAN)
        return L->el_branch[ei] >= 0 ? nsc_lin_add(f, NSC_T_Z, L->el_branch[ei], 1.0) : NSC_OK;
    if (nsc_lin_add(f, NSC_T_DZ, nsc_zn(e->node[0]), e->value)) return NSC_ENOMEM;
    return nsc_lin_add(f, NSC_T_DZ, nsc_zn(e->node[1]), -e->value);
}

const nsc_device nsc_dev_c = {
    .kind = NSC_EL_C,
    .what = "capacitors",
    .name = "capacitor",
    .letter = 'c',
    .card = NSC_CARD_VALUE,
    .card_parasitic = 1,
    .late = 2,
    .count = c_count,
    .stamp = c_stamp,
    .current = c_current,
    .pclass = NSC_PC_STORE,
    .topo = NSC_TOPO_CAP,
    .value_unit = "F",
    .ic_unit = "V",
};
