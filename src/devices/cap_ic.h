/* cap_ic.h -- what the two capacitors (dev_c.c: C n+ n- value; dev_cq.c: the
 * charge-based C='f(V)' / Q='q(V)') share in the static modes: imposed as a
 * voltage source of their initial voltage v0 (an extra branch i(c) flowing
 * a -> b), or open.
 *   OP : imposed only when IC= is given (.ic node values are imposed by the assembler);
 *   UIC: always, v0 = IC= if given, else ic(a) - ic(b) from the .ic node values
 *        (ground and nodes without .ic count 0).
 * A capacitor whose nodes are already tied by voltage-defining branches is not
 * imposed (the loop would make the static matrix singular); its IC= is then
 * ignored with a warning. Both devices count late (2) so that V/E/H/L are tied
 * first. Device-internal: only capacitor files include it. */
#ifndef NSC_CAP_IC_H
#define NSC_CAP_IC_H

#include "device.h"

/* The links of capacitor e in ctx->mode (TRAN: a state link; static: open or the
 * imposed source), asking need->nextra = 1 for the imposed branch. */
static inline void nsc_cap_ic_count(nsc_dev_ctx *ctx, const nsc_element *e, nsc_dev_need *need)
{
    int a = e->node[0], k = e->node[1];
    int impose = ctx->mode == NSC_ASM_UIC || (ctx->mode == NSC_ASM_OP && e->has_ic);
    if (ctx->mode == NSC_ASM_TRAN) {
        nsc_dev_link(ctx, a, k, NSC_LINK_NS);
    } else if (!impose) {
        nsc_dev_link(ctx, a, k, NSC_LINK_DC); /* open */
    } else if (nsc_dev_link(ctx, a, k, NSC_LINK_VD)) {
        nsc_dev_link(ctx, a, k, NSC_LINK_DC);
        if (e->has_ic)
            nsc_warn(
                ctx->r, &e->loc,
                "IC= of capacitor %s ignored: the operating point ties its terminals to "
                "voltage sources (directly, or through inductors, shorts at DC, or other capacitors with IC=)",
                e->name);
    } else {
        need->nextra = 1;
    }
}

/* The imposed branch `extra` (static modes): 0 = v_a - v_b - v0, its current
 * i(c) leaving a and entering b. */
static inline void nsc_cap_ic_stamp(nsc_builder *b, const nsc_element *e, int extra)
{
    int a = e->node[0], k = e->node[1];
    double v0 = e->has_ic ? e->ic : b->icv[a] - b->icv[k];
    nsc_st_inc(b, a, k, extra);       /* i(c) leaves a, enters k */
    nsc_st_vrow(b, extra, a, k, 1.0); /* 0 = v_a - v_k - v0 */
    nsc_st_s0(b, extra, -v0);
}

#endif
