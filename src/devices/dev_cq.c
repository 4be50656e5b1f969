/* dev_cq.c -- charge-based capacitor C n+ n- C='f(V)' | Q='q(V)' [IC=v0]
 * (the card: netlist/nl_qcap.c; its charge q(v), v = v_a - v_b, is the smooth
 * function sm[0] of the element's program (its priv, devices/bprog.h) of the inputs V(n+), V(n-)).
 *
 * One branch unknown x = the charge, in every mode:
 *   0 = -x + q(v_a, v_b)          (nsc_st_smooth: the Newton iteration, onestep_nl.c)
 *   TRAN: E[a][x] += 1, E[b][x] -= 1: x' leaves a, enters b (the KCL rows), so
 *         the scheme integrates the charge: (x1 - x0)/h is the step's current
 *         and the charge it moves is x1 - x0 = q(v1) - q(v0) exactly (charge
 *         conservation, whatever q).
 *   Static modes: open (E dropped; x the charge at the solution), or imposed
 *         as dev_c.c (cap_ic.h): a voltage source of IC= (OP) / IC= or the .ic
 *         values (UIC), its current an extra branch.
 * .ac: the row linearised at the operating point, q'(v0) dv: the small-signal
 * capacitance. */
#include "cap_ic.h"
#include "bprog.h"

#include <stdlib.h>

static nsc_status cq_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    need->nbranch = 1; /* the charge */
    nsc_cap_ic_count(ctx, e, need);
    return NSC_OK;
}

static nsc_status cq_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    const nsc_bsmooth *f = &((const nsc_bprog *)e->priv)->sm[0]; /* (its priv: nl_qcap.c) */
    int a = e->node[0], k = e->node[1], x = s->branch, in[2];
    if (b->mode == NSC_ASM_TRAN) {
        nsc_st(b, NSC_ST_E, nsc_zn(a), x, 1.0); /* x' leaves a */
        nsc_st(b, NSC_ST_E, nsc_zn(k), x, -1.0);
    } else if (s->extra >= 0) {
        nsc_cap_ic_stamp(b, e, s->extra);
    }
    for (int q = 0; q < f->nin; q++) in[q] = nsc_zn(f->in[q].idx);
    nsc_st_smooth_at0(b, ei, x, in, f->nin, f->code, f->ncode); /* 0 = -x + q(v) */
    return NSC_OK;
}

/* TRAN: x' as (x1 - x0)/h; static: the imposed branch, else 0 */
static nsc_status cq_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    int x = L->el_branch[ei];
    (void)c;
    if (L->mode == NSC_ASM_TRAN) return nsc_lin_add(f, NSC_T_DZ, x, 1.0);
    for (int k = 0; k < L->n; k++) /* the extra branch, when imposed */
        if (L->z_el[k] == ei && k != x) return nsc_lin_add(f, NSC_T_Z, k, 1.0);
    return NSC_OK;
}

const nsc_device nsc_dev_cq = {
    .kind = NSC_EL_CQ,
    .what = "capacitors",
    .name = "capacitor",
    .late = 2,
    .count = cq_count,
    .stamp = cq_stamp,
    .current = cq_current,
    .pclass = NSC_PC_STORE,
    .topo = NSC_TOPO_CAP,
    .ic_unit = "V",
};
