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
#include <stddef.h>

#include "cards.h"
#include "device.h"

enum { SW_T, SW_H, SW_RON, SW_ROFF, SW_ON, SW_OFF }; /* the rows of a kind's table */
#define SW_P(name, f, def) \
    { \
        name, offsetof(nsc_sw_par, f), def, 0 \
    }
static const nsc_par s_par[NSC_SW_NPAR] = {
    SW_P("vt", t, 0),         SW_P("vh", h, 0),   SW_P("ron", ron, 1),
    SW_P("roff", roff, 1e12), SW_P("von", on, 0), SW_P("voff", off, 0),
};

static nsc_status s_params(const nsc_element *e, nsc_report *r, void *out)
{
    return nsc_sw_params(e, &nsc_sw_voltage, r, out);
}

const nsc_sw_kind nsc_sw_voltage = {
    NSC_MOD_SW,
    "switch (SW)",
    s_par,
    "VH",
    "VT VH RON ROFF (VON VOFF ON OFF VHON VHOFF; EON EOFF VREF IREF)",
    s_params
};

nsc_status nsc_sw_params(const nsc_element *e, const nsc_sw_kind *k, nsc_report *r, nsc_sw_par *p)
{
    const nsc_model *m = e->model;
    if (!m || m->type != k->type)
        return nsc_err(r, NSC_ENETLIST, &e->loc, "switch %s has no %s model", e->name, k->model);
    unsigned given = nsc_par_read(m, k->par, NSC_SW_NPAR, p);
    if (k == &nsc_sw_voltage && nsc_model_get(m, "cntl_on", &p->on)
        && nsc_model_get(m, "cntl_off", &p->off)) {
        given |= 1u << SW_ON | 1u << SW_OFF; /* XSPICE's aswitch (its card gives defaults) */
        nsc_model_get(m, "r_on", &p->ron);
        nsc_model_get(m, "r_off", &p->roff);
    }
    if (!(given & 1u << SW_ON) && nsc_model_get(m, "on", &p->on))
        given |= 1u << SW_ON; /* Xyce's SWITCH */
    if (!(given & 1u << SW_OFF) && nsc_model_get(m, "off", &p->off)) given |= 1u << SW_OFF;
    if (!(given & 1u << SW_T) && (given & 1u << SW_ON) && (given & 1u << SW_OFF))
        p->t = 0.5 * (p->on + p->off); /* Xyce VSWITCH/ISWITCH: ideal at the mean */
    double hon, hoff;
    int ghon = k == &nsc_sw_voltage && nsc_model_get(m, "vhon", &hon);
    int ghoff = k == &nsc_sw_voltage && nsc_model_get(m, "vhoff", &hoff);
    if (ghon != ghoff)
        return nsc_err(r, NSC_ENETLIST, &m->loc, "switch model '%s': VHON and VHOFF go together",
                       m->name);
    if (ghon && !(hon >= hoff))
        return nsc_err(r, NSC_ENETLIST, &m->loc,
                       "switch model '%s': VHON = %g must be >= VHOFF = %g", m->name, hon, hoff);
    if (ghon) { /* on above VHON, off below VHOFF */
        p->t = 0.5 * (hon + hoff);
        p->h = 0.5 * (hon - hoff);
    }
    if (!(p->ron > 0 && isfinite(p->ron)) || !(p->roff > 0 && isfinite(p->roff)))
        return nsc_err(r, NSC_ENETLIST, &m->loc,
                       "switch model '%s': RON = %g and ROFF = %g must be finite and > 0", m->name,
                       p->ron, p->roff);
    if (!(p->h >= 0))
        return nsc_err(r, NSC_ENETLIST, &m->loc,
                       "switch model '%s': negative hysteresis %s = %g is not supported", m->name,
                       k->hname, p->h);
    return NSC_OK;
}

/* A parameter of XSPICE's aswitch in a model that has them (cards_xspice.c: its
 * CNTL_ON given or defaulted); LOG, the shape between, is warned there. */
static int is_aswitch_param(const nsc_model *m, const char *pn)
{
    static const char *const a[] = { "cntl_on", "cntl_off", "r_on", "r_off", "log" };
    double v;
    if (!nsc_model_get(m, "cntl_on", &v)) return 0;
    for (size_t q = 0; q < sizeof a / sizeof a[0]; q++)
        if (nsc_strieq(pn, a[q])) return 1;
    return 0;
}

/* One warning when e's model has parameters other than k's, naming the first;
 * LTspice's ILIMIT (the on-state current limit) says what is lost. */
static void sw_warn_ignored(const nsc_element *e, const nsc_sw_kind *k, nsc_report *r)
{
    const nsc_model *m = e->model;
    for (int q = 0; q < m->npar; q++) {
        const char *pn = m->pname[q];
        int ok = nsc_par_known(k->par, NSC_SW_NPAR, 0, pn) || nsc_swloss_param(pn)
                 || nsc_strieq(pn, "on") || nsc_strieq(pn, "off")
                 || (k == &nsc_sw_voltage && (nsc_strieq(pn, "vhon") || nsc_strieq(pn, "vhoff")))
                 || is_aswitch_param(m, pn);
        if (!ok) {
            int il = nsc_strieq(m->pname[q], "ilimit");
            nsc_warn(r, &m->loc,
                     "switch model '%s': parameters other than %s are ignored (%s first%s)",
                     m->name, k->known, m->pname[q],
                     il ? ": LTspice's current limit is not modelled, the on-state current "
                          "is limited by RON alone"
                        : "");
            return;
        }
    }
}

nsc_status nsc_sw_count(nsc_dev_ctx *ctx, int ei, const nsc_sw_kind *k)
{
    const nsc_element *e = &ctx->c->el[ei];
    if (!e->priv) return nsc_bind_failed(e, sizeof(nsc_sw_par), k->parse, ctx->r);
    sw_warn_ignored(e, k, ctx->r);
    nsc_dev_link(ctx, e->node[0], e->node[1], NSC_LINK_NS); /* always a finite conductance */
    return NSC_OK;
}

/* The card read once (lcs/devif.h bind). */
static void *s_bind(const nsc_circuit *c, int ei)
{
    return nsc_bind_parse(&c->el[ei], sizeof(nsc_sw_par), s_params);
}

static nsc_status s_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    return nsc_sw_count(ctx, ei, &nsc_sw_voltage);
}

static nsc_status s_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    const nsc_sw_par *p = e->priv;
    if (!p) return nsc_bind_failed(e, sizeof *p, s_params, b->r);
    nsc_st_switch(b, ei, e->node[0], e->node[1], 1.0 / p->roff, 1.0 / p->ron, e->node[2],
                  e->node[3], p->t + p->h, p->t - p->h);
    return NSC_OK;
}

/* I(S) = g(state) (v_a - v_k). */
static nsc_status s_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    return nsc_lin_add(f, NSC_T_SW, nsc_lcs_sw_of(L, ei), 1.0);
}

/* SPICE's defaults of its models' parameters (ngspice's; nl_model.c compares
 * a .model defined again with them) */
static const nsc_par S_DEFS[] = { { "vt", 0, 0, 0 },
                                  { "vh", 0, 0, 0 },
                                  { "ron", 0, 1, 0 },
                                  { "roff", 0, 1e12, 0 },
                                  { NULL, 0, 0, 0 } };

const nsc_device nsc_dev_s = {
    .model_defs = S_DEFS,
    .kind = NSC_EL_S,
    .what = "voltage-controlled switches",
    .name = "switch",
    .letter = 's',
    .card = NSC_CARD_OWN,
    .parse = nsc_card_model,
    .card_nodes = 4,
    .card_state = 1,
    .card_opt = NSC_CARDOPT_CONTROL, /* S n+ n- model CONTROL={expr} */
    .bind = s_bind,
    .count = s_count,
    .stamp = s_stamp,
    .current = s_current,
    .pclass = NSC_PC_SEMI,
    .swloss = 1,
    .swcap = 1,
    .ndc = 1,
    .dc = { { 0, 1 } },
    .models = { { "sw", NSC_MOD_SW },
                { "vswitch", NSC_MOD_SW, 1 },
                { "switch", NSC_MOD_SW, 1 },
                { "aswitch", NSC_MOD_SW, 1 } }, /* Xyce's; XSPICE's (an A card) */
    .model_what = "a switch (SW)",
};
