/* dev_w.c -- current-controlled switch W n+ n- vsense model (ngspice),
 * .model name CSW(IT=0 IH=0 RON=1 ROFF=1e12), or Xyce's ISWITCH(ION IOFF RON
 * ROFF): as the S switch (dev_s.c) with the control u = i(vsense), the current
 * through the sense voltage source (n+ -> n- inside it): on when u > IT + IH,
 * off when u < IT - IH, unchanged in between; decided at t_k for the step,
 * the crossing located by the adaptive stepper. Xyce's ISWITCH, smooth between
 * IOFF and ION there, switches ideally at their mean here (IH = 0). */
#include <math.h>

#include "device.h"

typedef struct w_par {
    double it, ih, ron, roff;
} w_par;

static nsc_status w_params(const nsc_element *e, nsc_report *r, w_par *p)
{
    const nsc_model *m = e->model;
    if (!m || m->type != NSC_MOD_CSW)
        return nsc_err(r, NSC_ENETLIST, &e->loc, "switch %s has no current-switch (CSW) model", e->name);
    *p = (w_par){ 0, 0, 1, 1e12 };
    double on, off;
    if (nsc_model_get(m, "ion", &on) && nsc_model_get(m, "ioff", &off)) p->it = 0.5 * (on + off);
    nsc_model_get(m, "it", &p->it);
    nsc_model_get(m, "ih", &p->ih);
    nsc_model_get(m, "ron", &p->ron);
    nsc_model_get(m, "roff", &p->roff);
    if (!(p->ron > 0 && isfinite(p->ron)) || !(p->roff > 0 && isfinite(p->roff)))
        return nsc_err(r, NSC_ENETLIST, &m->loc, "switch model '%s': RON = %g and ROFF = %g must be finite and > 0",
                       m->name, p->ron, p->roff);
    if (!(p->ih >= 0))
        return nsc_err(r, NSC_ENETLIST, &m->loc, "switch model '%s': negative hysteresis IH = %g is not supported",
                       m->name, p->ih);
    return NSC_OK;
}

static nsc_status w_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    w_par p;
    nsc_status st = w_params(e, ctx->r, &p);
    if (st) return st;
    const nsc_model *m = e->model;
    static const char *const known[] = { "it", "ih", "ron", "roff", "ion", "ioff" };
    for (int q = 0; q < m->npar; q++) {
        int ok = 0;
        for (int k = 0; k < 6; k++) ok |= nsc_strieq(m->pname[q], known[k]);
        if (!ok) {
            nsc_warn(ctx->r, &m->loc, "switch model '%s': parameters other than IT IH RON ROFF (ION IOFF) are ignored",
                     m->name);
            break;
        }
    }
    nsc_dev_link(ctx, e->node[0], e->node[1], NSC_LINK_NS);   /* always a finite conductance */
    return NSC_OK;
}

static nsc_status w_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    w_par p;
    nsc_status st = w_params(e, b->r, &p);
    if (st) return st;
    nsc_st_switch_z(b, ei, e->node[0], e->node[1], 1.0 / p.roff, 1.0 / p.ron, b->el_branch[e->ref[0]], -1,
                    p.it + p.ih, p.it - p.ih);
    return NSC_OK;
}

/* I(W) = g(state) (v_a - v_k). */
static int w_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    return nsc_lin_add(f, NSC_T_SW, nsc_lcs_sw_of(L, ei), 1.0);
}

const nsc_device nsc_dev_w = {NSC_EL_W, "current-controlled switches", 0, w_count, w_stamp, w_current};
