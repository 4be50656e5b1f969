/* dev_w.c -- current-controlled switch W n+ n- vsense model (ngspice),
 * .model name CSW(IT=0 IH=0 RON=1 ROFF=1e12), or Xyce's ISWITCH(ION IOFF RON
 * ROFF): as the S switch (dev_s.c) with the control u = i(vsense), the current
 * through the sense voltage source (n+ -> n- inside it): on when u > IT + IH,
 * off when u < IT - IH, unchanged in between; decided at t_k for the step,
 * the crossing located by the adaptive stepper. Xyce's ISWITCH, smooth between
 * IOFF and ION there, switches ideally at their mean here (IH = 0). */
#include <stddef.h>

#include "cards.h"
#include "device.h"

#define W_P(name, f, def) \
    { \
        name, offsetof(nsc_sw_par, f), def, 0 \
    }
static const nsc_par w_par[NSC_SW_NPAR] = {
    /* T H RON ROFF ON OFF (nsc_sw_kind) */
    W_P("it", t, 0),         W_P("ih", h, 0),   W_P("ron", ron, 1),
    W_P("roff", roff, 1e12), W_P("ion", on, 0), W_P("ioff", off, 0),
};

static nsc_status w_params(const nsc_element *e, nsc_report *r, void *out);
static const nsc_sw_kind w_kind = { NSC_MOD_CSW,
                                    "current-switch (CSW)",
                                    w_par,
                                    "IH",
                                    "IT IH RON ROFF (ION IOFF; EON EOFF VREF IREF)",
                                    w_params };

static nsc_status w_params(const nsc_element *e, nsc_report *r, void *out)
{
    return nsc_sw_params(e, &w_kind, r, out);
}

/* The card read once (device.h bind). */
static void *w_bind(const nsc_circuit *c, int ei)
{
    return nsc_bind_parse(&c->el[ei], sizeof(nsc_sw_par), w_params);
}

static nsc_status w_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    return nsc_sw_count(ctx, ei, &w_kind);
}

static nsc_status w_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    const nsc_sw_par *p = e->priv;
    if (!p) return nsc_bind_failed(e, sizeof *p, w_params, b->r);
    nsc_st_switch_z(b, ei, e->node[0], e->node[1], 1.0 / p->roff, 1.0 / p->ron,
                    b->el_branch[e->ref[0]], -1, p->t + p->h, p->t - p->h);
    return NSC_OK;
}

/* I(W) = g(state) (v_a - v_k). */
static nsc_status w_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    return nsc_lin_add(f, NSC_T_SW, nsc_lcs_sw_of(L, ei), 1.0);
}

/* SPICE's defaults of its models' parameters (ngspice's; nl_model.c compares
 * a .model defined again with them) */
static const nsc_par W_DEFS[] = { { "it", 0, 0, 0 },
                                  { "ih", 0, 0, 0 },
                                  { "ron", 0, 1, 0 },
                                  { "roff", 0, 1e12, 0 },
                                  { NULL, 0, 0, 0 } };

const nsc_device nsc_dev_w = {
    .model_defs = W_DEFS,
    .kind = NSC_EL_W,
    .what = "current-controlled switches",
    .name = "switch",
    .letter = 'w',
    .card = NSC_CARD_OWN,
    .parse = nsc_card_model,
    .card_nodes = 2,
    .card_sense = 1,
    .card_state = 1,
    .bind = w_bind,
    .count = w_count,
    .stamp = w_stamp,
    .current = w_current,
    .pclass = NSC_PC_SEMI,
    .swloss = 1,
    .swcap = 1,
    .ndc = 1,
    .dc = { { 0, 1 } },
    .models = { { "csw", NSC_MOD_CSW }, { "iswitch", NSC_MOD_CSW, 1 } }, /* Xyce's ISWITCH */
    .model_what = "a current switch (CSW)",
};
