/* dev_l.c -- inductor L n+ n- value [IC=i0], branch current i_L flowing a -> b.
 *
 * KCL: A[a][iL] -= 1, A[b][iL] += 1. Branch row:
 *   TRAN            : L i_L' = v_a - v_b   (E[iL][iL] = L, A[iL][a] = 1, A[iL][b] = -1)
 *   OP without IC=  : 0 = v_a - v_b        (short; E dropped in the static modes)
 *   OP with IC=, UIC: 0 = i_L - i0         (current source, i0 = IC= or 0)
 * An inductor that would close a loop of voltage sources and shorted inductors
 * at the operating point (an inductor across a source: no DC solution, SPICE's
 * "singular matrix") takes its IC= (else 0) as in UIC, with a note; the
 * transient is well posed (i_L' = v/L). flag = 1 marks it. A node held by
 * .ic V(n) at the operating point is such a source (lcs_asm.c hold_ic_nodes):
 * an inductor whose short would tie it to voltage sources starts at IC= (0 A),
 * with a warning (issue 28: ngspice's 1e10 S hold gives 1e10 x the difference).
 * Dually, an inductor that would be imposed as a current source while it is in a
 * cut-set of current sources and imposed inductors (in series with a current
 * source) has its current fixed by them: it is a short instead, with a note
 * (or a warning when its IC= is dropped); flag = 2 marks it. */
#include <stdlib.h>

#include "cards.h"
#include "device.h"

static int is_source(nsc_asm_mode mode, const nsc_element *e)
{
    return mode == NSC_ASM_UIC || (mode == NSC_ASM_OP && e->has_ic);
}

/* Join in uf the terminals between which element e passes a current in the
 * static mode, other than current sources and imposed inductors: its device's
 * DC pairs (device table: R, V, E, H, E TABLE, B V=, D, S, W, MOS d-s, JFET,
 * bipolar junctions), an imposed capacitor (UIC, or IC= at OP), a shorted
 * inductor. (A list of kinds here had missed B V=, W, J and Q: an inductor in
 * series with a B V= source was "in a cut-set of current sources" and started
 * at its DC current under UIC instead of 0 A.) */
static void static_paths(const nsc_dev_ctx *ctx, const nsc_element *e, int *uf)
{
    const nsc_device *d = nsc_device_of(e->kind);
    if (!d) return;
    if (d->topo == NSC_TOPO_CAP) {
        if (ctx->mode == NSC_ASM_UIC || e->has_ic) nsc_uf_union(uf, e->node[0], e->node[1]);
    } else if (d->topo == NSC_TOPO_IND) {
        if (!is_source(ctx->mode, e)) nsc_uf_union(uf, e->node[0], e->node[1]);
    } else {
        for (int k = 0; k < d->ndc; k++) nsc_uf_union(uf, e->node[d->dc[k].a], e->node[d->dc[k].b]);
    }
}

/* 1 if imposed inductor ei is in a cut-set of current sources and imposed
 * inductors, the earlier such inductors (element order) being shorts already;
 * -1 out of memory. O(elements) per inductor. */
static int in_current_cutset(const nsc_dev_ctx *ctx, int ei)
{
    const nsc_circuit *c = ctx->c;
    int nn = c->nnode, *uf = malloc(sizeof(int) * ((size_t)nn + 1)), cut = 0;
    if (!uf) return -1;
    for (int k = 0; k < nn; k++) uf[k] = -1;
    for (int k = 1; k < nn; k++)
        if (ctx->mode == NSC_ASM_OP && ctx->has_icv[k]) nsc_uf_union(uf, k, 0);
    for (int e = 0; e < c->nel; e++) static_paths(ctx, &c->el[e], uf);
    for (int e = 0; e <= ei; e++) {
        const nsc_element *x = &c->el[e];
        if (x->kind != NSC_EL_L || !is_source(ctx->mode, x)) continue;
        cut = nsc_uf_find(uf, x->node[0]) != nsc_uf_find(uf, x->node[1]);
        if (cut) nsc_uf_union(uf, x->node[0], x->node[1]); /* made a short */
    }
    free(uf);
    return cut;
}

static nsc_status l_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    int a = e->node[0], k = e->node[1];
    if (!(e->value > 0)) /* L i' = v: L = 0 is singular, L < 0 unstable */
        return nsc_err(ctx->r, NSC_ENETLIST, &e->loc,
                       "inductor %s: inductance %g H must be positive", e->name, e->value);
    need->nbranch = 1;
    if (ctx->mode == NSC_ASM_TRAN) {
        nsc_dev_link(ctx, a, k, NSC_LINK_NS);
    } else if (is_source(ctx->mode, e) && !(need->flag = in_current_cutset(ctx, ei))) {
        nsc_dev_link(ctx, a, k, NSC_LINK_DC);
    } else if (need->flag < 0) {
        return nsc_oom(ctx->r);
    } else if (need->flag == 1) {
        need->flag = 2; /* a short: the sources fix i_L */
        nsc_dev_link(ctx, a, k, NSC_LINK_VD);
        if (e->has_ic)
            nsc_warn(ctx->r, &e->loc,
                     "IC= of inductor %s ignored: a cut-set of current sources and inductors "
                     "fixes its current",
                     e->name);
        else
            nsc_note(ctx->r, &e->loc,
                     "inductor %s is in a cut-set of current sources and inductors: its "
                     "initial current is theirs, not 0 A",
                     e->name);
    } else if (nsc_dev_link(ctx, a, k, NSC_LINK_VD)) {
        need->flag = 1; /* a current source of IC= (0) */
        int held = ctx->mode == NSC_ASM_OP && (ctx->has_icv[a] || ctx->has_icv[k])
                       ? (ctx->has_icv[a] ? a : k)
                       : -1;
        if (held >= 0)
            nsc_warn(
                ctx->r, &e->loc,
                "inductor %s ties the node of .ic V(%s) to voltage sources at the operating "
                "point: the node is held at its .ic value and the inductor starts at %g A (IC=), as with "
                "UIC (ngspice's answer there is not finite: 1e10 S times the difference)",
                e->name, ctx->c->node_name[held], e->has_ic ? e->ic : 0.0);
        else
            nsc_note(ctx->r, &e->loc,
                     "inductor %s closes a loop of voltage sources and inductors: the operating "
                     "point takes its current as %g A (IC=), not as a short",
                     e->name, e->has_ic ? e->ic : 0.0);
    }
    return NSC_OK;
}

static nsc_status l_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    int a = e->node[0], k = e->node[1], br = s->branch;
    nsc_st_inc(b, a, k, br);
    if ((is_source(b->mode, e) && s->flag != 2) || s->flag == 1) {
        nsc_st(b, NSC_ST_A, br, br, 1.0); /* 0 = i_L - i0 */
        nsc_st_s0(b, br, e->has_ic ? -e->ic : 0.0);
    } else {
        nsc_st(b, NSC_ST_E, br, br, e->value); /* L i_L' = v_a - v_b */
        nsc_st_vrow(b, br, a, k, 1.0);
    }
    return NSC_OK;
}

static nsc_status l_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    return nsc_lin_add(f, NSC_T_Z, L->el_branch[ei], 1.0);
}

const nsc_device nsc_dev_l = {
    .kind = NSC_EL_L,
    .what = "inductors",
    .name = "inductor",
    .letter = 'l',
    .card = NSC_CARD_OWN,
    .parse = nsc_card_value,
    .card_parasitic = 1,
    .late =
        1, /* after V/E/H/B: a loop of sources closed by an inductor is the inductor's (a note) */
    .count = l_count,
    .stamp = l_stamp,
    .current = l_current,
    .pclass = NSC_PC_STORE,
    .ndc = 1,
    .dc = { { 0, 1 } },
    .topo = NSC_TOPO_IND,
    .out_current = 1,
    .value_unit = "H",
    .ic_unit = "A",
};
