/* dev_lcouple.c -- XSPICE's winding lcouple (ngspice A card `A (a b) (m+ m-)
 * model`, .model model lcouple(num_turns=N)), exact: a winding of N turns
 * between an electrical port (a b) and a magnetic one (m+ m-), where a
 * magnetic node's voltage is a magnetomotive force (A) and a current a flux
 * (Wb); XSPICE's core (cards_xspice.c: an E TABLE and a G) closes the magnetic
 * loop. Branch i (the winding's current, a -> b) and phi (the flux it drives
 * out of m+ into the magnetic circuit, m- -> m+ through it):
 *   N phi' = v_a - v_b           (E[i][phi] = N: Faraday's law)
 *   0 = v_m+ - v_m- - N i        (the winding's mmf)
 * so a core of flux phi = f(mmf) makes it an inductor of L = N^2 f' (two
 * windings on one core, a transformer). The element: node[0..1] a b,
 * node[2..3] m+ m-, value N (XSPICE's default 1). */
#include "device.h"

static nsc_status lc_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    need->nbranch = 2;
    if (!(e->value > 0))
        return nsc_err(ctx->r, NSC_ENETLIST, &e->loc,
                       "XSPICE lcouple %s: num_turns = %g must be positive", e->name, e->value);
    if (ctx->mode == NSC_ASM_TRAN)
        nsc_dev_link(ctx, e->node[0], e->node[1], NSC_LINK_NS); /* i from phi and the circuit */
    else if (nsc_dev_link(ctx, e->node[0], e->node[1], NSC_LINK_VD)) /* static: v_a = v_b */
        return nsc_err(ctx->r, NSC_ENETLIST, &e->loc,
                       "XSPICE lcouple %s closes a loop of voltage sources "
                       "(a short at DC)",
                       e->name);
    if (nsc_dev_link(ctx, e->node[2], e->node[3], NSC_LINK_VD))
        return nsc_err(ctx->r, NSC_ENETLIST, &e->loc,
                       "XSPICE lcouple %s: its mmf closes a loop of voltage "
                       "sources in the magnetic circuit",
                       e->name);
    return NSC_OK;
}

static nsc_status lc_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    int i = s->branch, phi = i + 1;
    nsc_st_inc(b, e->node[0], e->node[1], i);
    nsc_st(b, NSC_ST_E, i, phi, e->value); /* N phi' = v_a - v_b */
    nsc_st_vrow(b, i, e->node[0], e->node[1], 1.0);
    nsc_st_inc(b, e->node[3], e->node[2], phi);       /* phi: m- -> m+ through it */
    nsc_st_vrow(b, phi, e->node[2], e->node[3], 1.0); /* 0 = v_m+ - v_m- - N i */
    nsc_st(b, NSC_ST_A, phi, i, -e->value);
    nsc_st_exact(b, phi);
    return NSC_OK;
}

static nsc_status lc_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    return nsc_lin_add(f, NSC_T_Z, L->el_branch[ei], 1.0);
}

const nsc_device nsc_dev_lcouple = {
    .kind = NSC_EL_LCPL,
    .what = "XSPICE windings (lcouple)",
    .name = "XSPICE winding",
    .card = NSC_CARD_NONE,
    .count = lc_count,
    .stamp = lc_stamp,
    .current = lc_current,
    .pclass = NSC_PC_CONTROLLED,
    .ndc = 2,
    .dc = { { 0, 1 }, { 2, 3 } },
    .topo = NSC_TOPO_OTHER, /* (an inductor's class has one pair) */
    .pin = { 1, -1, 2, 2 },
};
