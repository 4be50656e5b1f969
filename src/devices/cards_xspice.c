/* cards_xspice.c -- the A card (XSPICE code models) read through the card view
 * (lcs/card.h; the A device's parse(), dev_a.c) into elements of the A
 * device (devices/dev_a.c: the gates d_and d_nand d_or d_nor d_xor d_xnor
 * d_inverter d_buffer and the bridges adc_bridge dac_bridge) and of the AFF
 * device (devices/dev_aff.c: d_dff d_jkff d_tff d_srff d_dlatch d_srlatch, A
 * and its ports as plain nodes, a_ff):
 *   A port port model    a port a node or a vector [ n1 n2 ... ]
 * The lexer keeps '[' and ']' inside words ("[a", "b", "]" or "[a]"): the
 * ports are read from the words' text. A gate of more than two inputs becomes
 * a chain of two-input elements through internal digital nodes <name>#k (the
 * inner stages AND OR XOR, ipar[0] = 1; the last one the gate's own function);
 * a bridge of n bits n elements <name>, <name>#1, ... The analog switch
 * aswitch is an S element (dev_s.c), on at the mean of its two control levels;
 * the zener a D element (dev_d.c reads its card as SPICE's BV IBV IS N). */
#include "cards.h"
#include "device.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define A_MAXN 32
#define A_NAMELEN 128

/* The ports of a card: nodes n[first[p] .. first[p] + cnt[p]) of port p (vec[p]: written [ ]). */
typedef struct a_ports {
    nsc_cfield n[A_MAXN];
    char buf[A_MAXN][A_NAMELEN];
    int first[3], cnt[3], vec[3];
    int np, nn;
} a_ports;

/* a new port p (vector or not) at the end of P; error past two */
static nsc_status a_port(const nsc_cardview *v, const nsc_cfield *f, a_ports *P, int vec)
{
    if (P->np == 2)
        return nsc_card_err(v, f, "XSPICE element %s: more than an input and an output port",
                            v->f[0].u.s);
    P->first[P->np] = P->nn;
    P->cnt[P->np] = 0;
    P->vec[P->np++] = vec;
    return NSC_OK;
}

/* one node name t[b..e) of word f into P (in the last port) */
static nsc_status a_node(const nsc_cardview *v, const nsc_cfield *f, a_ports *P, const char *t,
                         size_t b, size_t e)
{
    if (P->nn == A_MAXN || e - b >= A_NAMELEN)
        return nsc_card_err(v, f, "XSPICE element %s: more than %d nodes or too long a name",
                            v->f[0].u.s, A_MAXN);
    if (t[b] == '~' || t[b] == '%')
        return nsc_card_err(
            v, f,
            "XSPICE element %s: '%s': inverted inputs (~) and port types (%%) are not "
            "supported (use d_inverter, or a node)",
            v->f[0].u.s, t);
    memcpy(P->buf[P->nn], t + b, e - b);
    P->buf[P->nn][e - b] = 0;
    P->n[P->nn] = *f;
    P->n[P->nn].kind = NSC_CF_WORD;
    P->n[P->nn].nsub = 0;
    P->n[P->nn].u.s = P->buf[P->nn];
    P->cnt[P->np - 1]++;
    P->nn++;
    return NSC_OK;
}

/* the ports of card cd: its words between the name and the model */
static nsc_status a_split(const nsc_cardview *v, a_ports *P)
{
    int open = 0;
    P->np = P->nn = 0;
    for (int i = 1; i < v->nf - 1; i++) {
        const nsc_cfield *f = &v->f[i];
        if (f->kind != NSC_CF_WORD)
            return nsc_card_err(v, f, "XSPICE element %s: unexpected '%s' (a node or [ nodes ])",
                                v->f[0].u.s, nsc_card_text(f));
        const char *t = f->u.s;
        size_t len = strlen(t), lb = t[0] == '[', rb = len > lb && t[len - 1] == ']';
        if (lb && open) return nsc_card_err(v, f, "XSPICE element %s: unexpected '['", v->f[0].u.s);
        nsc_status st = lb ? a_port(v, f, P, 1) : NSC_OK;
        if (st) return st;
        open |= (int)lb;
        if (len - rb > lb) {
            st = open ? NSC_OK : a_port(v, f, P, 0);
            if (st || (st = a_node(v, f, P, t, lb, len - rb))) return st;
        }
        if (rb && !open)
            return nsc_card_err(v, f, "XSPICE element %s: unexpected ']'", v->f[0].u.s);
        if (rb) open = 0;
    }
    if (open) return nsc_card_err(v, NULL, "XSPICE element %s: missing ']'", v->f[0].u.s);
    return NSC_OK;
}

/* one element named full: output out, inputs in[0..nin) (1 or 2), an inner stage when inner */
static nsc_status a_part(const nsc_cardview *v, const char *full, int out, const int *in, int nin,
                         int inner)
{
    int el;
    nsc_status st = v->op->element_named(v, NSC_EL_A, full, &el);
    if (st) return st;
    nsc_element *e = &v->c->el[el];
    e->nnode = 2 + nin;
    e->node[0] = out;
    e->node[1] = 0;
    for (int k = 0; k < nin; k++) e->node[2 + k] = in[k];
    e->ipar[0] = inner;
    return v->op->model(v, &v->f[v->nf - 1], el);
}

/* a gate of inputs in[0..nin) into out: a chain of two-input stages */
static nsc_status a_gate(const nsc_cardview *v, const char *full, const int *in, int nin, int out)
{
    char nm[A_NAMELEN + 16];
    int prev = in[0];
    if (nin == 1) return a_part(v, full, out, in, 1, 0);
    for (int k = 1; k < nin - 1; k++) { /* prev op in[k] -> node <name>#k */
        int two[2] = { prev, in[k] }, node;
        snprintf(nm, sizeof nm, "%s#%d", full, k);
        nsc_status st = v->op->node_new(v, nm, &v->f[0], &node);
        if (st || (st = a_part(v, nm, node, two, 2, 1))) return st;
        prev = node;
    }
    int two[2] = { prev, in[nin - 1] };
    return a_part(v, full, out, two, 2, 0);
}

/* The warning, once per run (at the first A card of a gate, bridge, flip-flop
 * or latch): what the ideal form leaves out. */
static void a_warn(const nsc_cardview *v, int m, int el0)
{
    for (int i = 0; i < el0; i++)
        if (v->c->el[i].kind == NSC_EL_A || v->c->el[i].kind == NSC_EL_AFF) return;
    const nsc_model *mo = &v->c->model[m];
    static const char *const dl[] = { "rise_delay", "fall_delay", "t_rise", "t_fall" };
    double mx = 0, x;
    for (int q = mo->type == NSC_MOD_DAC ? 2 : 0, q1 = q + 2; q < q1; q++) {
        x = 1e-9; /* XSPICE's default delays: 1 ns */
        nsc_model_get(mo, dl[q], &x);
        if (x > mx) mx = x;
    }
    if (el0 < v->c->nel && v->c->el[el0].kind == NSC_EL_AFF)
        nsc_card_warn(v, &v->f[v->nf - 1],
                      "XSPICE flip-flops, latches, gates and bridges switch without delay: "
                      "the delays of their models (%g s in '%s') and their loads are not modelled",
                      mx, v->f[v->nf - 1].u.s);
    else
        nsc_card_warn(v, &v->f[v->nf - 1],
                      "XSPICE gates and bridges switch without delay: the delays and rise "
                      "times of their models (%g s in '%s') and input_load are not modelled",
                      mx, v->f[v->nf - 1].u.s);
}

/* ---- XSPICE flip-flops and latches (dev_aff.c) ---- */

/* The ports of flip-flop or latch type t, as XSPICE names them; *nd: its data inputs. */
static const char *ff_ports(nsc_modeltype t, int *nd)
{
    *nd = t == NSC_MOD_DJKFF || t == NSC_MOD_DSRFF || t == NSC_MOD_DSRLATCH ? 2 : 1;
    switch (t) {
    case NSC_MOD_DDFF: return "d clk set reset out nout";
    case NSC_MOD_DJKFF: return "j k clk set reset out nout";
    case NSC_MOD_DTFF: return "t clk set reset out nout";
    case NSC_MOD_DSRFF: return "s r clk set reset out nout";
    case NSC_MOD_DDLATCH: return "d enable set reset out nout";
    default: return "s r enable set reset out nout";
    }
}

/* A flip-flop or latch card: its nd + 5 ports plain nodes, set reset out nout
 * may be NULL (an input NULL reads low: node 0), into element AFF (circuit.h). */
static nsc_status a_ff(const nsc_cardview *v, int m, const char *full)
{
    int nd, el, nodes[7], null = 0, el0 = v->c->nel;
    nsc_status st;
    const char *names = ff_ports(v->c->model[m].type, &nd);
    int np = nd + 5;
    if (v->nf != np + 2)
        return nsc_card_err(v, NULL,
                            "XSPICE flip-flop or latch %s: expected %d nodes (%s) and the model",
                            v->f[0].u.s, np, names);
    for (int q = 0; q < np; q++) {
        const nsc_cfield *f = &v->f[1 + q];
        if (f->kind != NSC_CF_WORD || strpbrk(f->u.s, "[]~%"))
            return nsc_card_err(v, f, "XSPICE element %s: '%s': expected a node (ports: %s)",
                                v->f[0].u.s, nsc_card_text(f), names);
        nodes[q] = 0;
        if (q > nd && nsc_strieq(f->u.s, "null")) null |= q >= nd + 3 ? 1 << (q - nd - 3) : 0;
        else if ((st = v->op->node(v, f, &nodes[q]))) return st;
    }
    if ((st = v->op->element_named(v, NSC_EL_AFF, full, &el))) return st;
    nsc_element *e = &v->c->el[el];
    e->nnode = 3 + nd + 3;
    e->node[0] = nodes[np - 2], e->node[1] = 0, e->node[2] = nodes[np - 1];
    for (int q = 0; q < nd + 3; q++) e->node[3 + q] = nodes[q];
    e->ipar[0] = null;
    int first = 1;
    for (int q = 0; q < el && first; q++) first = v->op->model_of(v, q) != m;
    v->op->model_link(v, el, m); /* (its type checked by the caller) */
    a_warn(v, m, el0);
    double ic = 0;
    if (nsc_model_get(&v->c->model[m], "ic", &ic) && ic != 0
        && ic != 1) /* XSPICE: 2 the unknown state */
        return nsc_card_err(v, &v->f[v->nf - 1],
                            "XSPICE flip-flop or latch %s: model '%s' has ic = %g: 0 or 1 "
                            "here (the unknown state is not modelled)",
                            v->f[0].u.s, v->c->model[m].name, ic);
    if (first && v->c->model[m].type == NSC_MOD_DSRFF) /* one per model */
        nsc_card_warn(v, &v->f[v->nf - 1],
                      "XSPICE d_srff '%s': S = R = 1 at a clock edge holds the bit here; "
                      "XSPICE gives the unknown state",
                      v->c->model[m].name);
    if (first && v->c->model[m].type == NSC_MOD_DSRLATCH) /* one per model */
        nsc_card_warn(
            v, &v->f[v->nf - 1],
            "XSPICE d_srlatch '%s': an input between its adc_bridge's in_low and "
            "in_high reads 0 here and the bit holds; XSPICE stores the unknown state then (S falling slowly with "
            "R low leaves it unknown)",
            v->c->model[m].name);
    return NSC_OK;
}

/* the elements of a card of n bridges (ports of n nodes each) or one gate */
static nsc_status a_elements(const nsc_cardview *v, const a_ports *P, const int *nd,
                             nsc_modeltype t, const char *full)
{
    char nm[A_NAMELEN + 16];
    if (t == NSC_MOD_ADC || t == NSC_MOD_DAC) {
        if (P->cnt[0] != P->cnt[1])
            return nsc_card_err(v, NULL,
                                "XSPICE bridge %s: %d inputs and %d outputs (one output per input)",
                                v->f[0].u.s, P->cnt[0], P->cnt[1]);
        for (int k = 0; k < P->cnt[0]; k++) {
            if (t == NSC_MOD_DAC
                && nd[P->first[1] + k] == 0) { /* ground: nothing to drive (ngspice runs it) */
                nsc_card_warn(v, &P->n[P->first[1] + k],
                              "XSPICE dac_bridge %s: output %d is ground; "
                              "it drives nothing and is left out",
                              v->f[0].u.s, k + 1);
                continue;
            }
            snprintf(nm, sizeof nm, k ? "%s#%d" : "%s", full, k);
            nsc_status st = a_part(v, nm, nd[P->first[1] + k], &nd[P->first[0] + k], 1, 0);
            if (st) return st;
        }
        return NSC_OK;
    }
    if (P->cnt[1] != 1)
        return nsc_card_err(v, NULL, "XSPICE gate %s: expected one output node", v->f[0].u.s);
    if ((t == NSC_MOD_DINV || t == NSC_MOD_DBUF) && P->cnt[0] != 1)
        return nsc_card_err(v, NULL, "XSPICE %s %s: expected one input node",
                            t == NSC_MOD_DINV ? "inverter" : "buffer", v->f[0].u.s);
    return a_gate(v, full, &nd[P->first[0]], P->cnt[0], nd[P->first[1]]);
}

/* ---- XSPICE aswitch: A cntl (out+ out-) model, as an S element (dev_s.c) ---- */

/* A differential port written without parentheses, "%vd n+ n-" (ngspice reads
 * the two fields after %vd or %gd as the pair): *i at the type, then past n-.
 * Two nodes and a field after them are required ("%vd a y lim": y is the
 * pair's n-, the output is missing, as ngspice says). */
static nsc_status diff_port(const nsc_cardview *v, int *i, int *nd, const char *what)
{
    const nsc_cfield *t = &v->f[*i];
    if (*i + 3 >= v->nf || v->f[*i + 2].kind != NSC_CF_WORD)
        return nsc_card_err(
            v, t,
            "XSPICE %s %s: port type '%s' takes two nodes, n+ n- or (n+ n-), and the "
            "card ends before its other port and model",
            what, v->f[0].u.s, t->u.s);
    *i += 3;
    nsc_status st = v->op->node(v, &v->f[*i - 2], &nd[0]);
    return st ? st : v->op->node(v, &v->f[*i - 1], &nd[1]);
}

/* The nodes of an aswitch port: a node (to ground) or (n+ n-), after an
 * optional %v %vd %gd; nd[0], nd[1]. *i: the port's first field, then past it.
 * After %vd or %gd the pair may also be two bare nodes, as in ngspice. */
static nsc_status asw_port(const nsc_cardview *v, int *i, int group_only, int *nd, const char *what)
{
    const nsc_cfield *f = &v->f[*i];
    if (f->kind == NSC_CF_WORD && f->u.s[0] == '%') {
        if (!nsc_strieq(f->u.s, "%v") && !nsc_strieq(f->u.s, "%vd") && !nsc_strieq(f->u.s, "%gd"))
            return nsc_card_err(v, f,
                                "XSPICE %s %s: port type '%s' is not supported (%%v %%vd %%gd)",
                                what, v->f[0].u.s, f->u.s);
        if (!nsc_strieq(f->u.s, "%v") && *i + 1 < v->nf && v->f[*i + 1].kind == NSC_CF_WORD)
            return diff_port(v, i, nd, what);
        f = &v->f[++*i];
    }
    if (*i >= v->nf - 1)
        return nsc_card_err(v, NULL, "XSPICE %s %s: expected %s", what, v->f[0].u.s,
                            strcmp(what, "aswitch") ? "an input and an output"
                                                    : "a control and (out+ out-)");
    ++*i;
    if (f->kind == NSC_CF_GROUP && f->nsub == 2 && f->sub[0].kind == NSC_CF_WORD
        && f->sub[1].kind == NSC_CF_WORD) {
        nsc_status st = v->op->node(v, &f->sub[0], &nd[0]);
        return st ? st : v->op->node(v, &f->sub[1], &nd[1]);
    }
    if (group_only || f->kind != NSC_CF_WORD)
        return nsc_card_err(v, f, "XSPICE %s %s: expected %s, found '%s'", what, v->f[0].u.s,
                            group_only ? "(out+ out-)" : "a node or (n+ n-)", nsc_card_text(f));
    nd[1] = 0;
    return v->op->node(v, f, &nd[0]);
}

/* The two ports of an aswitch, limit, lcouple card from field 1 (a[2], b[2];
 * the second (out+ out-) when group_b), then the model and nothing else. */
static nsc_status two_ports(const nsc_cardview *v, int group_b, int *a, int *b, const char *what)
{
    int i = 1;
    nsc_status st = asw_port(v, &i, 0, a, what);
    if (st || (st = asw_port(v, &i, group_b, b, what))) return st;
    if (i != v->nf - 1)
        return nsc_card_err(v, &v->f[i], "XSPICE %s %s: unexpected '%s'", what, v->f[0].u.s,
                            nsc_card_text(&v->f[i]));
    return NSC_OK;
}

/* XSPICE's defaults into aswitch model m where its card leaves them out
 * (CNTL_OFF 0, CNTL_ON 1, R_OFF 1e12, R_ON 1: read by dev_s.c). */
static nsc_status asw_defaults(const nsc_cardview *v, int m)
{
    static const char *const nm[] = { "cntl_off", "cntl_on", "r_off", "r_on" };
    static const double dv[] = { 0, 1, 1e12, 1 };
    for (int q = 0; q < 4; q++) {
        double x;
        nsc_status st = nsc_model_get(&v->c->model[m], nm[q], &x)
                            ? NSC_OK
                            : v->op->model_set(v, m, nm[q], dv[q]);
        if (st) return st;
    }
    return NSC_OK;
}

/* An aswitch card: a voltage-controlled switch between out+ and out- on at the
 * mean of CNTL_OFF and CNTL_ON (its resistance between them, exponential with
 * LOG, is not modelled: a warning per model). */
static nsc_status a_switch(const nsc_cardview *v, int m, const char *full)
{
    int el, c[2], o[2];
    nsc_status st = two_ports(v, 1, c, o, "aswitch");
    if (st || (st = v->op->element_named(v, NSC_EL_S, full, &el))) return st;
    nsc_element *e = &v->c->el[el];
    e->nnode = 4;
    e->node[0] = o[0], e->node[1] = o[1], e->node[2] = c[0], e->node[3] = c[1];
    double lo = 0, hi = 1;
    int first = 1;
    for (int q = 0; q < el && first; q++) first = v->op->model_of(v, q) != m;
    if ((st = asw_defaults(v, m)) || (st = v->op->model(v, &v->f[v->nf - 1], el))) return st;
    const nsc_model *mo = &v->c->model[m];
    nsc_model_get(mo, "cntl_off", &lo);
    nsc_model_get(mo, "cntl_on", &hi);
    if (first) /* one warning per model */
        nsc_card_warn(v, &v->f[v->nf - 1],
                      "XSPICE aswitch '%s' switches ideally at %g, the mean of cntl_off "
                      "and cntl_on: its resistance between them is not modelled",
                      v->f[v->nf - 1].u.s, 0.5 * (lo + hi));
    return NSC_OK;
}

/* ---- XSPICE limit: A in out model, as an E TABLE (dev_etable.c) ---- */

/* A limit card: out = gain (in + in_offset) held within out_lower_limit ..
 * out_upper_limit (gain 1 and in_offset 0 by default; the limits have none), the table of its two corners
 * (y = lo at x = lo/gain - in_offset, y = hi at x = hi/gain - in_offset; gain < 0
 * swaps them), constant beyond; in and out a node or (n+ n-) (%v %vd). The
 * rounding of the corners over limit_range is not modelled (a warning per model). */
static nsc_status a_limit(const nsc_cardview *v, int m, const char *full)
{
    int el, c[2], o[2];
    nsc_status st = two_ports(v, 0, c, o, "limit");
    if (st) return st;
    const nsc_model *mo = &v->c->model[m];
    double g = 1, off = 0, lo = 0, hi = 0, rng = 1e-6;
    nsc_model_get(mo, "gain", &g);
    nsc_model_get(mo, "in_offset", &off);
    int given = nsc_model_get(mo, "out_lower_limit", &lo)
                && nsc_model_get(mo, "out_upper_limit", &hi);
    nsc_model_get(mo, "limit_range", &rng);
    if (!given) /* (ngspice: "Parameter on model has no default") */
        return nsc_card_err(v, &v->f[v->nf - 1],
                            "XSPICE limit %s: model '%s' must give out_lower_limit and "
                            "out_upper_limit (they have no default)",
                            v->f[0].u.s, mo->name);
    if (!(g != 0 && isfinite(g)) || !(lo < hi))
        return nsc_card_err(v, &v->f[v->nf - 1],
                            "XSPICE limit %s: gain = %g must be finite and nonzero and "
                            "out_lower_limit = %g below out_upper_limit = %g",
                            v->f[0].u.s, g, lo, hi);
    int first = 1;
    for (int q = 0; q < v->c->nel && first; q++) first = v->op->model_of(v, q) != m;
    if ((st = v->op->element_named(v, NSC_EL_ETABLE, full, &el))) return st;
    nsc_element *e = &v->c->el[el];
    e->nnode = 4;
    e->node[0] = o[0], e->node[1] = o[1], e->node[2] = c[0], e->node[3] = c[1];
    v->op->model_link(v, el, m); /* (read here; marks the model's elements) */
    nsc_etab *t = malloc(sizeof *t + 4 * sizeof(double));
    if (!t) return v->op->oom(v);
    double x0 = lo / g - off, x1 = hi / g - off;
    t->n = 2;
    t->xy[0] = g > 0 ? x0 : x1, t->xy[1] = g > 0 ? lo : hi;
    t->xy[2] = g > 0 ? x1 : x0, t->xy[3] = g > 0 ? hi : lo;
    e->priv = t;
    if (first)
        nsc_card_warn(v, &v->f[v->nf - 1],
                      "XSPICE limit '%s' clips with sharp corners: its rounding over "
                      "limit_range (%g) is not modelled",
                      mo->name, rng);
    return NSC_OK;
}

/* ---- XSPICE lcouple and core: a winding (dev_lcouple.c) and its core ---- */

/* A lcouple card: A (a b) (m+ m-) model, each port a node (to ground) or a pair. */
static nsc_status a_lcouple(const nsc_cardview *v, int m, const char *full)
{
    int el, l[2], mm[2];
    nsc_status st = two_ports(v, 0, l, mm, "lcouple");
    if (st || (st = v->op->element_named(v, NSC_EL_LCPL, full, &el))) return st;
    nsc_element *e = &v->c->el[el];
    e->nnode = 4;
    e->node[0] = l[0], e->node[1] = l[1], e->node[2] = mm[0], e->node[3] = mm[1];
    e->value = 1;
    nsc_model_get(&v->c->model[m], "num_turns", &e->value);
    v->op->model_link(v, el, m); /* (its type checked by the caller) */
    return NSC_OK;
}

/* The core's .model card (pwl mode) does not parse (its [ ] vectors): read
 * from its text here, words split at space , ( ) [ ] =. */
#define CORE_MAXPT 64
typedef struct core_card {
    double h[CORE_MAXPT], b[CORE_MAXPT], area, len;
    int nh, nb;
} core_card;

/* the next word of t from *p into w (size bytes): 1, or 0 at the end */
static int core_word(const char *t, size_t *p, char *w, size_t size)
{
    size_t i = *p, n = 0;
    while (t[i]
           && (isspace((unsigned char)t[i]) || t[i] == ','
               || (t[i] == '+' && (!t[i + 1] || isspace((unsigned char)t[i + 1])))))
        i++;
    if (!t[i]) return 0;
    if (strchr("()[]=", t[i])) w[n++] = t[i++];
    else
        while (t[i] && !isspace((unsigned char)t[i]) && !strchr("()[]=,", t[i])) {
            if (n + 1 < size) w[n++] = t[i];
            i++;
        }
    w[n] = 0;
    *p = i;
    return 1;
}

/* 1 and *x when word w reads as a number (SPICE's: 1k, 10u; the view's op->number) */
static int core_number(const nsc_cardview *v, const char *w, double *x)
{
    const nsc_cfield f = { .kind = NSC_CF_WORD, .u.s = w };
    return v->op->number(v, &f, x);
}

/* the values after "name =" : one number or [ numbers ] into x (at most CORE_MAXPT); their count, -1: bad */
static int core_values(const nsc_cardview *v, const char *t, size_t *p, double *x)
{
    char w[64];
    int n = 0;
    if (!core_word(t, p, w, sizeof w) || strcmp(w, "=") || !core_word(t, p, w, sizeof w)) return -1;
    if (strcmp(w, "[")) return core_number(v, w, x) ? 1 : -1;
    while (core_word(t, p, w, sizeof w) && strcmp(w, "]"))
        if (n == CORE_MAXPT || !core_number(v, w, &x[n++])) return -1;
    return n;
}

/* core card text t read into k (XSPICE's area 1, length 1); NULL, or what is wrong */
static const char *core_read(const nsc_cardview *v, const char *t, core_card *k)
{
    char w[64];
    size_t p = 0;
    double one[CORE_MAXPT];
    k->nh = k->nb = 0, k->area = k->len = 1;
    for (int q = 0; q < 3; q++) core_word(t, &p, w, sizeof w); /* .model NAME core */
    while (core_word(t, &p, w, sizeof w)) {
        if (!strcmp(w, "(") || !strcmp(w, ")")) continue;
        int h = nsc_strieq(w, "h_array"), b = nsc_strieq(w, "b_array");
        int n = core_values(v, t, &p, h ? k->h : b ? k->b : one);
        if (n < 0) return "expected name = value or name = [ values ]";
        if (h) k->nh = n;
        else if (b) k->nb = n;
        else if (n == 1 && nsc_strieq(w, "area")) k->area = one[0];
        else if (n == 1 && nsc_strieq(w, "length")) k->len = one[0];
        else if (nsc_strieq(w, "mode") && !(n == 1 && one[0] == 1))
            return "mode other than 1 (pwl: hysteresis) is not supported";
    }
    if (k->nh < 2 || k->nh != k->nb)
        return "H_array and B_array must give the same number (at least two) of values";
    for (int q = 1; q < k->nh; q++)
        if (!(k->h[q] > k->h[q - 1]) || !(k->b[q] > k->b[q - 1]))
            return "H_array and B_array must increase";
    if (!(k->area > 0) || !(k->len > 0)) return "area and length must be positive";
    return NULL;
}

/* A core card (pwl mode): A (m+ m-) model (or A m model), the flux m+ -> m-
 * through it phi = area B(mmf / length), B the line through H_array B_array,
 * extended by its end segments: an E TABLE <name>#b of B against the mmf and a
 * G of area from it. input_domain's rounding and fraction are not modelled. */
static nsc_status a_core(const nsc_cardview *v, const char *text, const char *mname,
                         const char *full)
{
    int el, nd[2], i = 1, bn;
    core_card k;
    const char *bad = core_read(v, text, &k);
    if (bad)
        return nsc_card_err(v, &v->f[v->nf - 1], "XSPICE core %s: model '%s': %s", v->f[0].u.s,
                            mname, bad);
    nsc_status st = asw_port(v, &i, 0, nd, "core");
    if (st) return st;
    if (i != v->nf - 1)
        return nsc_card_err(v, &v->f[i], "XSPICE core %s: unexpected '%s'", v->f[0].u.s,
                            nsc_card_text(&v->f[i]));
    char nm[A_NAMELEN + 4];
    snprintf(nm, sizeof nm, "%s#b", full);
    if ((st = v->op->node_new(v, nm, &v->f[0], &bn))
        || (st = v->op->element_named(v, NSC_EL_ETABLE, nm, &el)))
        return st;
    nsc_element *e = &v->c->el[el];
    e->nnode = 4;
    e->node[0] = bn, e->node[1] = 0, e->node[2] = nd[0], e->node[3] = nd[1];
    nsc_etab *t = malloc(sizeof *t + sizeof(double) * 2 * ((size_t)k.nh + 2));
    if (!t) return v->op->oom(v);
    int n = k.nh;
    double span = k.h[n - 1] - k.h[0]; /* the end slopes, 1000 spans on */
    t->n = n + 2;
    t->xy[0] = (k.h[0] - 1e3 * span) * k.len;
    t->xy[1] = k.b[0] - 1e3 * span * (k.b[1] - k.b[0]) / (k.h[1] - k.h[0]);
    for (int q = 0; q < n; q++) t->xy[2 + 2 * q] = k.h[q] * k.len, t->xy[3 + 2 * q] = k.b[q];
    t->xy[2 * n + 2] = (k.h[n - 1] + 1e3 * span) * k.len;
    t->xy[2 * n + 3] = k.b[n - 1]
                       + 1e3 * span * (k.b[n - 1] - k.b[n - 2]) / (k.h[n - 1] - k.h[n - 2]);
    e->priv = t;
    if ((st = v->op->element_named(v, NSC_EL_G, full, &el))) return st;
    e = &v->c->el[el];
    e->nnode = 4;
    e->node[0] = nd[0], e->node[1] = nd[1], e->node[2] = bn, e->node[3] = 0;
    e->value = k.area;
    nsc_card_warn(v, &v->f[v->nf - 1],
                  "XSPICE core %s: the B-H curve's corners are sharp here; XSPICE rounds "
                  "them over input_domain (default 0.01 of the segment), not modelled",
                  v->f[0].u.s);
    return NSC_OK;
}

/* 1 when .model text t is of type core */
static int is_core_text(const char *t)
{
    char w[64];
    size_t p = 0;
    for (int q = 0; q < 3; q++)
        if (!core_word(t, &p, w, sizeof w)) return 0;
    return nsc_strieq(w, "core");
}

/* 1 when model m was written as XSPICE's code model `type` (an alias of another device's type). */
static int is_codemodel(const nsc_cardview *v, int m, const char *type)
{
    const char *w = v->op->model_word(v, m);
    return w && nsc_strieq(w, type);
}

/* A zener card: A (a k) model or A a k model, the diode D of model m (dev_d.c
 * reads the zener's parameters) from a to k. */
static nsc_status a_zener(const nsc_cardview *v, const char *full)
{
    int el, nd[2];
    const nsc_cfield *f = &v->f[1];
    if (v->nf == 3 && f->kind == NSC_CF_GROUP && f->nsub == 2 && f->sub[0].kind == NSC_CF_WORD
        && f->sub[1].kind == NSC_CF_WORD)
        f = f->sub;
    else if (v->nf != 4 || f[0].kind != NSC_CF_WORD || f[1].kind != NSC_CF_WORD
             || f[0].u.s[0] == '%')
        return nsc_card_err(v, NULL, "XSPICE zener %s: expected (a k) or a k, then the model",
                            v->f[0].u.s);
    nsc_status st;
    if ((st = v->op->node(v, &f[0], &nd[0])) || (st = v->op->node(v, &f[1], &nd[1]))
        || (st = v->op->element_named(v, NSC_EL_D, full, &el)))
        return st;
    nsc_element *e = &v->c->el[el];
    const nsc_device *dev = nsc_device_of(NSC_EL_D);
    e->nnode = 2;
    e->node[0] = nd[0], e->node[1] = nd[1];
    for (int q = 0; q < dev->ninst; q++) e->ipar[q] = dev->inst[q].def;
    return v->op->model(v, &v->f[v->nf - 1], el);
}

/* The bridges and gates of an A card whose model the A device takes (dev_a.c):
 * its ports split, their nodes, the elements (model m). */
static nsc_status a_gates(const nsc_cardview *v, int m, const char *full)
{
    a_ports P;
    int el0 = v->c->nel, nd[A_MAXN];
    nsc_status st = a_split(v, &P);
    if (st) return st;
    if (P.np != 2 || !P.cnt[0] || !P.cnt[1])
        return nsc_card_err(v, NULL, "XSPICE element %s: expected an input port and an output port",
                            v->f[0].u.s);
    for (int q = 0; q < P.nn; q++)
        if ((st = v->op->node(v, &P.n[q], &nd[q]))) return st;
    if ((st = a_elements(v, &P, nd, v->c->model[m].type, full))) return st;
    a_warn(v, m, el0);
    return NSC_OK;
}

nsc_status nsc_card_xspice(const nsc_device *d, const nsc_cardview *v)
{
    const nsc_cfield *mf = &v->f[v->nf - 1];
    const char *nm = v->nf < 3 ? NULL : v->op->name(v);
    char full[A_NAMELEN];
    if (v->nf >= 3 && !nm) return v->op->oom(v);
    snprintf(full, sizeof full, "%s", nm ? nm : "");
    int m = v->nf < 3 ? -1 : v->op->model_index(v, mf);
    if (m >= 0 && v->c->model[m].type == NSC_MOD_SW && is_codemodel(v, m, "aswitch"))
        return a_switch(v, m, full);
    if (m >= 0 && v->c->model[m].type == NSC_MOD_D && is_codemodel(v, m, "zener"))
        return a_zener(v, full);
    if (m >= 0 && v->c->model[m].type >= NSC_MOD_DDFF && v->c->model[m].type <= NSC_MOD_DSRLATCH)
        return a_ff(v, m, full);
    if (m >= 0 && v->c->model[m].type == NSC_MOD_LIMIT) return a_limit(v, m, full);
    if (m >= 0 && v->c->model[m].type == NSC_MOD_LCOUPLE) return a_lcouple(v, m, full);
    if (m >= 0 && v->c->model[m].type == NSC_MOD_CORE)
        return nsc_card_err(
            v, mf,
            "XSPICE core %s: model '%s' gives no H_array and B_array (the pwl mode's "
            "B-H curve)",
            v->f[0].u.s, v->c->model[m].name);
    const char *mname = NULL, *text = m < 0 && v->nf >= 3 ? v->op->model_text(v, mf, &mname) : NULL;
    if (text && is_core_text(text)) return a_core(v, text, mname, full);
    if (v->nf < 4)
        return nsc_card_err(v, NULL, "XSPICE element %s: expected an input, an output and a model",
                            v->f[0].u.s);
    if (m < 0 || !nsc_dev_takes(d, v->c->model[m].type)) {
        int el; /* the model's own message (nl_model.c) */
        nsc_status st = v->op->element_named(v, d->kind, full, &el);
        if (!st) st = v->op->model(v, mf, el);
        return st ? st : nsc_card_err(v, mf, "XSPICE element %s: bad model", v->f[0].u.s);
    }
    return a_gates(v, m, full);
}
