/* dev_b.c -- behavioural sources B n+ n- V=expr and B n+ n- I=expr, their
 * expression compiled to an exact PWL program (bprog.h nsc_bprog, by nl_pwl.c:
 * the element's private data, made by its card's parser; no bind()).
 * One branch unknown i (flowing n+ -> n- inside the source) and, per auxiliary
 * value a_k of the program, its complementarity pairs (in program order):
 *
 *   V=:  0 = v_a - v_b - out          I=:  0 = -i + out
 *   ramp a_k = mu = max(0, z):  0 <= mu _|_ mu - z >= 0          (D = 1)
 *   step a_k = u = H(z):        0 <= u _|_ l - z + eps u >= 0,
 *                               0 <= l _|_ 1 - u >= 0             (D = [eps 1; -1 0])
 *     so u = 0 for z <= 0, u = 1 for z >= eps, u = z/eps between, l = max(0, z - eps):
 *     the two pairs of the E TABLE vertical step (dev_etable.c) with |dy| = 1,
 *     made strict as SPICE's comparisons (0 at a tie: a sawtooth and a duty
 *     command both 0 at the operating point leave a PWM switch open) and
 *     unique by eps = NSC_STEP_EPS (1e-12 of z's unit; nl_pwl.c writes >= as
 *     1 - H);
 * z and out affine in node voltages (A / C), voltage-source branch currents
 * (A / C), earlier auxiliaries (B / D), the program's smooth functions of
 * time, the element's own sources w_k (Ss / Se), and its smooth functions of
 * unknowns s_k (nsc_bsmooth), each a further branch unknown u_k after i:
 *
 *   0 = -u_k + s_k(inputs)      (nsc_st_smooth: linearised by Newton, onestep_nl.c)
 *
 * A program without them stamps exactly what it did before they existed. */
#include <stdlib.h>

#include "cards.h"
#include "device.h"
#include "bprog.h"

#define NSC_STEP_EPS 1e-12

void nsc_bprog_free(void *vp)
{
    nsc_bprog *p = vp;
    if (!p) return;
    free(p->term);
    free(p->op);
    free(p->elref);
    for (int k = 0; k < p->ntw; k++) free(p->tw[k].code);
    free(p->tw);
    for (int k = 0; k < p->nsm; k++) {
        free(p->sm[k].code);
        free(p->sm[k].in);
    }
    free(p->sm);
    free(p);
}

/* pair index of each auxiliary: pairof[k] (caller frees); NULL on ENOMEM */
static int *pairs_of(const nsc_bprog *p, int first, int *npair)
{
    int *po = malloc(sizeof *po * ((size_t)p->nop + 1)), j = first;
    if (!po) return NULL;
    for (int k = 0; k < p->nop; k++) {
        po[k] = j;
        j += p->op[k].step ? 2 : 1;
    }
    *npair = j - first;
    return po;
}

static nsc_status b_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    const nsc_bprog *p = e->priv; /* (the card's parser compiled it) */
    int np = 0;
    int *po = pairs_of(p, 0, &np);
    if (!po) return nsc_oom(ctx->r);
    free(po);
    need->nbranch = 1 + p->nsm; /* i, then u_k */
    need->npair = np;
    need->nsrc = p->ntw; /* its functions of time */
    if (e->kind == NSC_EL_BI) {
        nsc_dev_link(ctx, e->node[0], e->node[1], NSC_LINK_DC);
        return NSC_OK;
    }
    if (nsc_dev_link(ctx, e->node[0], e->node[1], NSC_LINK_VD))
        return nsc_err(ctx->r, NSC_ENETLIST, &e->loc,
                       "behavioural source %s closes a loop of voltage sources", e->name);
    return NSC_OK;
}

/* s * (terms of f) into row `row`: z terms into Mz (the smooth functions'
 * unknowns u_k at z index sm0 + k), auxiliaries into Ml, the functions of time
 * (sources src0 + k) into Mw */
static void st_terms(nsc_builder *b, const nsc_bprog *p, const int *po, nsc_stmat Mz, nsc_stmat Ml,
                     nsc_stmat Mw, int src0, int sm0, int row, const nsc_baff *f, double s)
{
    for (int k = f->t0; k < f->t0 + f->nt; k++) {
        const nsc_bterm *t = &p->term[k];
        double x = s * t->coef;
        if (t->kind == NSC_BT_V) nsc_st(b, Mz, row, nsc_zn(t->idx), x);
        else if (t->kind == NSC_BT_I) nsc_st(b, Mz, row, b->el_branch[p->elref[t->idx]], x);
        else if (t->kind == NSC_BT_W) nsc_st(b, Mw, row, src0 + t->idx, x);
        else if (t->kind == NSC_BT_S) nsc_st(b, Mz, row, sm0 + t->idx, x);
        else nsc_st(b, Ml, row, po[t->idx], x);
    }
}

/* the smooth functions' rows 0 = -u_k + s_k(inputs), u_k = z[branch + 1 + k] */
static nsc_status b_stamp_smooth(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_bprog *p = b->c->el[ei].priv;
    for (int k = 0; k < p->nsm; k++) {
        const nsc_bsmooth *f = &p->sm[k];
        int *in = malloc(sizeof *in * ((size_t)f->nin + 1));
        if (!in) {
            b->nomem = 1;
            return NSC_OK;
        }
        for (int q = 0; q < f->nin; q++)
            in[q] = f->in[q].kind == NSC_BT_V ? nsc_zn(f->in[q].idx)
                                              : b->el_branch[p->elref[f->in[q].idx]];
        nsc_st_smooth(b, ei, s->branch + 1 + k, in, f->nin, f->code, f->ncode);
        free(in);
    }
    return NSC_OK;
}

static nsc_status b_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    const nsc_bprog *p = e->priv;
    int row = s->branch, np;
    int *po = pairs_of(p, s->pair, &np);
    if (!po) {
        b->nomem = 1;
        return NSC_OK;
    }
    nsc_st_inc(b, e->node[0], e->node[1], row);
    nsc_st_exact(b, row);
    if (e->kind == NSC_EL_BV) {
        nsc_st_vrow(b, row, e->node[0], e->node[1], 1.0); /* 0 = v_a - v_b - out */
        st_terms(b, p, po, NSC_ST_A, NSC_ST_B, NSC_ST_SS, s->src, s->branch + 1, row, &p->out,
                 -1.0);
        nsc_st_s0(b, row, -p->out.c);
    } else {
        nsc_st(b, NSC_ST_A, row, row, -1.0); /* 0 = -i + out */
        st_terms(b, p, po, NSC_ST_A, NSC_ST_B, NSC_ST_SS, s->src, s->branch + 1, row, &p->out, 1.0);
        nsc_st_s0(b, row, p->out.c);
    }
    for (int k = 0; k < p->nop; k++) {
        int j = po[k];
        st_terms(b, p, po, NSC_ST_C, NSC_ST_D, NSC_ST_SE, s->src, s->branch + 1, j, &p->op[k].arg,
                 -1.0); /* y_j = ... - z */
        nsc_st_e0(b, j, -p->op[k].arg.c);
        if (!p->op[k].step) {
            nsc_st(b, NSC_ST_D, j, j, 1.0); /* y = mu - z */
        } else {
            nsc_st(b, NSC_ST_D, j, j + 1, 1.0); /* y_u = l - z + eps u */
            nsc_st(b, NSC_ST_D, j, j, NSC_STEP_EPS);
            nsc_st(b, NSC_ST_D, j + 1, j, -1.0); /* y_l = 1 - u */
            nsc_st_e0(b, j + 1, 1.0);
        }
    }
    free(po);
    return b_stamp_smooth(b, ei, s);
}

/* A relay (step a_k) whose argument reads the source's own output voltage
 * directly, left strictly between 0 and 1 (beyond 1e-6) at a step's end: no
 * value of the output is consistent (V = V(q) < 0.5 ? 1 : 0 on node q: 1 makes
 * it 0 and 0 makes it 1), and the eps-regularised relay holds it at its
 * threshold (q at 0.4999999999995). A sliding mode through dynamics does not
 * read the output directly; a relay of hysteresis holds 0 or 1. */
static nsc_status b_step_check(const nsc_lcs *L, const nsc_circuit *c, int ei, const double *l,
                               double t, nsc_report *r)
{
    const nsc_element *e = &c->el[ei];
    const nsc_bprog *p = e->priv;
    if (e->kind != NSC_EL_BV) return NSC_OK;
    for (int k = 0, j = L->el_pair[ei]; k < p->nop; j += p->op[k++].step ? 2 : 1) {
        if (!p->op[k].step || !(l[j] > 1e-6 && l[j] < 1 - 1e-6)) continue;
        const nsc_baff *f = &p->op[k].arg;
        int self = 0;
        for (int q = f->t0; q < f->t0 + f->nt; q++)
            self |= p->term[q].kind == NSC_BT_V && p->term[q].idx
                    && (p->term[q].idx == e->node[0] || p->term[q].idx == e->node[1]);
        if (self)
            return nsc_err(
                r, NSC_ESIM, &e->loc,
                "time %.9g s: behavioural source %s has no consistent value: its output "
                "V(%s) enters a comparison that flips whenever the output follows it (a relay in negative "
                "feedback without delay: give it hysteresis, or a delay through an RC)",
                t, e->name, c->node_name[e->node[0]]);
    }
    return NSC_OK;
}

static nsc_status b_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    return nsc_lin_add(f, NSC_T_Z, L->el_branch[ei], 1.0);
}

static const nsc_wave *b_wave(const nsc_circuit *c, int ei, int q)
{
    return &((const nsc_bprog *)c->el[ei].priv)->tw[q];
}

extern const nsc_device nsc_dev_bi;
const nsc_device nsc_dev_bv = {
    .kind = NSC_EL_BV,
    .what = "behavioural voltage source",
    .name = "behavioural source",
    .letter = 'b',
    .card = NSC_CARD_OWN,
    .parse = nsc_card_behav,
    .card_expr = &nsc_dev_bi, /* B n+ n- I=expr */
    .count = b_count,
    .stamp = b_stamp,
    .current = b_current,
    .pclass = NSC_PC_CONTROLLED,
    .wave = b_wave,
    .step_check = b_step_check,
    .ndc = 1,
    .dc = { { 0, 1 } },
    .topo = NSC_TOPO_VDEF,
};
const nsc_device nsc_dev_bi = {
    .kind = NSC_EL_BI,
    .what = "behavioural current source",
    .name = "behavioural source",
    .count = b_count,
    .stamp = b_stamp,
    .current = b_current,
    .pclass = NSC_PC_CONTROLLED,
    .wave = b_wave,
    .topo = NSC_TOPO_ISRC,
};
