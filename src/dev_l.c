/* dev_l.c -- inductor L n+ n- value [IC=i0], branch current i_L flowing a -> b.
 *
 * KCL: A[a][iL] -= 1, A[b][iL] += 1. Branch row:
 *   TRAN            : L i_L' = v_a - v_b   (E[iL][iL] = L, A[iL][a] = 1, A[iL][b] = -1)
 *   OP without IC=  : 0 = v_a - v_b        (short; E dropped in the static modes)
 *   OP with IC=, UIC: 0 = i_L - i0         (current source, i0 = IC= or 0)
 * An inductor that would close a loop of voltage sources and shorted inductors
 * at the operating point (an inductor across a source: no DC solution, SPICE's
 * "singular matrix") takes its IC= (else 0) as in UIC, with a note; the
 * transient is well posed (i_L' = v/L). flag = 1 marks it. */
#include "device.h"

static int is_source(nsc_asm_mode mode, const nsc_element *e)
{
    return mode == NSC_ASM_UIC || (mode == NSC_ASM_OP && e->has_ic);
}

static nsc_status l_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    int a = e->node[0], k = e->node[1];
    if (!(e->value > 0))                                     /* L i' = v: L = 0 is singular, L < 0 unstable */
        return nsc_err(ctx->r, NSC_ENETLIST, &e->loc, "inductor %s: inductance %g H must be positive", e->name,
                       e->value);
    need->nbranch = 1;
    if (ctx->mode == NSC_ASM_TRAN) {
        nsc_dev_link(ctx, a, k, NSC_LINK_NS);
    } else if (is_source(ctx->mode, e)) {
        nsc_dev_link(ctx, a, k, NSC_LINK_DC);
    } else if (nsc_dev_link(ctx, a, k, NSC_LINK_VD)) {
        need->flag = 1;                                      /* a current source of IC= (0) */
        nsc_note(ctx->r, &e->loc, "inductor %s closes a loop of voltage sources and inductors: the operating "
                 "point takes its current as %g A (IC=), not as a short", e->name, e->has_ic ? e->ic : 0.0);
    }
    return NSC_OK;
}

static nsc_status l_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    int a = e->node[0], k = e->node[1], br = s->branch;
    nsc_st_inc(b, a, k, br);
    if (is_source(b->mode, e) || s->flag) {
        nsc_st(b, NSC_ST_A, br, br, 1.0);                    /* 0 = i_L - i0 */
        nsc_st_s0(b, br, e->has_ic ? -e->ic : 0.0);
    } else {
        nsc_st(b, NSC_ST_E, br, br, e->value);               /* L i_L' = v_a - v_b */
        nsc_st_vrow(b, br, a, k, 1.0);
    }
    return NSC_OK;
}

static int l_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    return nsc_lin_add(f, NSC_T_Z, L->el_branch[ei], 1.0);
}

const nsc_device nsc_dev_l = {NSC_EL_L, "inductors", 0, l_count, l_stamp, l_current};
