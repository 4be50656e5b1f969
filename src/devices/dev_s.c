/* dev_s.c -- voltage-controlled switch S n+ n- nc+ nc- model,
 * .model name SW(VT=0 VH=0 RON=1 ROFF=1e12), ngspice semantics with ideal switching
 * (netlist.md): a conductance 1/RON (on) or 1/ROFF (off) between n+ and n-; on when
 * v(nc+) - v(nc-) > VT + VH, off when < VT - VH, unchanged in between; with VH = 0
 * and the control exactly at VT, off in the transient and on at the operating
 * point, as ngspice 39 (nsc_lcs_switch_update). The state
 * for the step t_k -> t_k+1 is decided from the control voltage at t_k (lcs.h
 * nsc_switch: A holds 1/ROFF, the on state adds 1/RON - 1/ROFF), so the control
 * may be any node voltage of the circuit, including one the switch itself drives.
 * Initially off, or on with the card's ON keyword (ngspice: the state for the
 * operating point); the static problems (OP, UIC) iterate the decision to a fixed
 * point, so the initial state matters when the control starts inside the
 * hysteresis band. Xyce's VSWITCH(VON VOFF RON ROFF), smooth between VOFF and
 * VON there, switches ideally at their mean (VH = 0). */
#include <math.h>

#include "device.h"

const nsc_sw_kind nsc_sw_voltage = { NSC_MOD_SW, "switch (SW)", "vt", "vh", "von", "voff", "VH",
                                     "VT VH RON ROFF (VON VOFF; EON EOFF VREF IREF)" };

nsc_status nsc_sw_params(const nsc_element *e, const nsc_sw_kind *k, nsc_report *r, nsc_sw_par *p)
{
    const nsc_model *m = e->model;
    if (!m || m->type != k->type) return nsc_err(r, NSC_ENETLIST, &e->loc, "switch %s has no %s model", e->name, k->model);
    *p = (nsc_sw_par){ 0, 0, 1, 1e12 };
    double on, off;                                   /* Xyce VSWITCH/ISWITCH: ideal at the mean */
    if (nsc_model_get(m, k->on, &on) && nsc_model_get(m, k->off, &off)) p->t = 0.5 * (on + off);
    nsc_model_get(m, k->t, &p->t);
    nsc_model_get(m, k->h, &p->h);
    nsc_model_get(m, "ron", &p->ron);
    nsc_model_get(m, "roff", &p->roff);
    if (!(p->ron > 0 && isfinite(p->ron)) || !(p->roff > 0 && isfinite(p->roff)))
        return nsc_err(r, NSC_ENETLIST, &m->loc, "switch model '%s': RON = %g and ROFF = %g must be finite and > 0",
                       m->name, p->ron, p->roff);
    if (!(p->h >= 0))
        return nsc_err(r, NSC_ENETLIST, &m->loc, "switch model '%s': negative hysteresis %s = %g is not supported",
                       m->name, k->hname, p->h);
    return NSC_OK;
}

/* One warning when e's model has parameters other than k's, naming the first;
 * LTspice's ILIMIT (the on-state current limit) says what is lost. */
static void sw_warn_ignored(const nsc_element *e, const nsc_sw_kind *k, nsc_report *r)
{
    const nsc_model *m = e->model;
    const char *known[] = { k->t, k->h, "ron", "roff", k->on, k->off };
    for (int q = 0; q < m->npar; q++) {
        int ok = 0;
        for (int j = 0; j < 6; j++) ok |= nsc_strieq(m->pname[q], known[j]);
        ok |= nsc_swloss_param(m->pname[q]);
        if (!ok) {
            int il = nsc_strieq(m->pname[q], "ilimit");
            nsc_warn(r, &m->loc, "switch model '%s': parameters other than %s are ignored (%s first%s)", m->name,
                     k->known, m->pname[q], il ? ": LTspice's current limit is not modelled, the on-state current "
                     "is limited by RON alone" : "");
            return;
        }
    }
}

nsc_status nsc_sw_count(nsc_dev_ctx *ctx, int ei, const nsc_sw_kind *k)
{
    const nsc_element *e = &ctx->c->el[ei];
    nsc_sw_par p;
    nsc_status st = nsc_sw_params(e, k, ctx->r, &p);
    if (st) return st;
    sw_warn_ignored(e, k, ctx->r);
    nsc_dev_link(ctx, e->node[0], e->node[1], NSC_LINK_NS);   /* always a finite conductance */
    return NSC_OK;
}

static nsc_status s_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    return nsc_sw_count(ctx, ei, &nsc_sw_voltage);
}

static nsc_status s_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    nsc_sw_par p;
    nsc_status st = nsc_sw_params(e, &nsc_sw_voltage, b->r, &p);
    if (st) return st;
    nsc_st_switch(b, ei, e->node[0], e->node[1], 1.0 / p.roff, 1.0 / p.ron, e->node[2], e->node[3],
                  p.t + p.h, p.t - p.h);
    return NSC_OK;
}

/* I(S) = g(state) (v_a - v_k). */
static nsc_status s_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    return nsc_lin_add(f, NSC_T_SW, nsc_lcs_sw_of(L, ei), 1.0);
}

const nsc_device nsc_dev_s = {
    .kind = NSC_EL_S,
    .what = "voltage-controlled switches",
    .letter = 's',
    .card = NSC_CARD_MODEL,
    .count = s_count,
    .stamp = s_stamp,
    .current = s_current,
    .pclass = NSC_PC_SEMI,
    .swloss = 1,
    .ndc = 1, .dc = {{0, 1}},
};
