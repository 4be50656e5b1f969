/* dev_c.c -- capacitor C n+ n- value [IC=v0].
 *
 * TRAN: E[a][a] += C, E[a][b] -= C, E[b][a] -= C, E[b][b] += C (C (v_a - v_b)' leaves a).
 * Static modes: imposed as a voltage source of its initial voltage v0, or open
 * (cap_ic.h, shared with the charge-based capacitor dev_cq.c). */
#include "cap_ic.h"
#include "cards.h"

static nsc_status c_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    if (e->value < 0) /* an unstable mode: it ran to -inf rows */
        return nsc_err(ctx->r, NSC_ENETLIST, &e->loc,
                       "capacitor %s: negative capacitance %g F is not supported", e->name,
                       e->value);
    nsc_cap_ic_count(ctx, e, need);
    return NSC_OK;
}

static nsc_status c_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    int a = e->node[0], k = e->node[1];
    if (b->mode == NSC_ASM_TRAN) {
        nsc_st_cap(b, a, k, e->value);
    } else if (s->extra >= 0) {
        nsc_cap_ic_stamp(b, e, s->extra);
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
    .card = NSC_CARD_OWN,
    .parse = nsc_card_value,
    .card_opt = NSC_CARDOPT_CHARGE | NSC_CARDOPT_MTIMES, /* Q=expr; m= multiplies C */
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
