/* dev_aff.c -- XSPICE's flip-flops and latches (ngspice A cards), exact: the
 * stored bit is the state of a switch (lcs.h nsc_switch: decided from its
 * control at the end of each step, the crossing located), the logic around it
 * ideal relays as the gates' (dev_a.c):
 *   A d clk set reset out nout model        .model model d_dff | d_tff (t for d)
 *   A j k clk set reset out nout model      .model model d_jkff | d_srff (s r for j k)
 *   A d enable set reset out nout model     .model model d_dlatch
 *   A s r enable set reset out nout model   .model model d_srlatch
 * (set reset out nout may be NULL). The edge-triggered ones store on the
 * rising clock edge (XSPICE): a master latch open while clk = 0 takes the next
 * state (D; T xor q; J !q + !K q; S !R + q !S !R + q S R: S = R holds), a
 * slave open while clk = 1 takes the master's: at the edge both decide from
 * the same solution, the slave the master's old bit. A latch is the slave
 * alone, open while enable = 1 (d_srlatch takes S !R -> 1, R !S -> 0, else
 * holds). set (reset) forces the bit(s) to 1 (0) at once, asynchronously.
 * Inputs are digital nodes (0, 0.5, 1 V: dev_a.c) read against 0.75 (the
 * unknown level reads low, a quarter volt from the threshold); out = q,
 * nout = 1 - q as ideal voltage sources to ground, both unknown (0.5) while
 * set and reset are high, and for d_srlatch while S = R = 1 and enabled, as
 * XSPICE (at once: a path through relays from those inputs to the outputs);
 * the bit itself holds then (XSPICE stores the unknown state: it differs
 * afterwards, and where an SR flip-flop samples S = R = 1). The model's ic
 * (0 or 1) is the bit at the operating point. Delays and loads are not
 * modelled (cards_xspice.c warns).
 *
 * Element (cards_xspice.c): node[0] out, node[1] = 0, node[2] nout, node[3..]
 * the inputs in the card's order: data (one or two), clk or enable, set,
 * reset; ipar[0] bit 0 (1): out (nout) is NULL, its row then holds i = 0.
 * Unknowns: i_out, i_nout, then per latch (slave, then master) its bit's row
 * x and its control u:
 *   0 = 1 - g x            g = 1 off, 2 on (the switch between x's row and
 *                          ground: x = 1 or 1/2), q = 2 - 2x (ic = 1: 2x - 1,
 *                          so that off, the initial state, is ic)
 *   0 = -u + 1/2 + sg (A - B)/2    sg = +1 (ic = 0: on is 1), -1 (ic = 1)
 * and the switch is on above u = 3/4, off below 1/4, held between (u = 1/2).
 * A (go to 1) and B (go to 0) are relays (dev_a.c's pairs, H(z), eps 1e-12)
 * over 0/1 relays s r e (set reset enable) and d, the bit offered (a sum of
 * relays, d in {0, 1}; dl = 2d - 1, or P - N for S R: +1, -1, or 0 = hold):
 *   A = H(3s - 4r + e + dl - 3/2),  B = H(3r - 4s + e - dl - 3/2)
 * exclusive, each 1 exactly when set alone, reset alone or the open latch asks
 * for it; every combination is at least 1/2 from the threshold. */
#include <stddef.h>

#include <stdlib.h>

#include "device.h"

#define F_EPS 1e-12
#define F_MAXREL 20
#define F_MAXREF 6

/* One relay u = H(z), z = cz x_br (br >= 0, a branch of the element) + v(node)
 * (node > 0) + sum c[q] u_ref[q] - th. */
typedef struct f_rel {
    int node, br, nref, ref[F_MAXREF];
    double cz, c[F_MAXREF], th;
} f_rel;

/* An element's relays r[0 .. n) (a relay reads earlier ones); the requests
 * a[k], b[k] of latch k (0 slave, 1 master); q = qa + qb x; the outputs'
 * relays u[0 .. nu) (unknown) and o[0], o[1] (f_outputs). */
typedef struct f_prog {
    f_rel r[F_MAXREL];
    int n, nl, a[2], b[2], nu, u[2], o[2];
    double qa, qb, sg;
} f_prog;

typedef struct f_par {
    double ic;
} f_par;
static const nsc_par f_tab[] = { { "ic", offsetof(f_par, ic), 0, 0 } };

static int f_rel_add(f_prog *p, int node, int br, double cz, double th)
{
    p->r[p->n] = (f_rel){ .node = node, .br = br, .cz = cz, .th = th };
    return p->n++;
}

static void f_ref(f_prog *p, int k, int ref, double c)
{
    f_rel *r = &p->r[k];
    r->ref[r->nref] = ref;
    r->c[r->nref++] = c;
}

/* a relay on sum c[q] u_ref[q] - th over nref earlier relays */
static int f_rel_of(f_prog *p, int nref, const int *ref, const double *c, double th)
{
    int k = f_rel_add(p, 0, -1, 0, th);
    for (int q = 0; q < nref; q++) f_ref(p, k, ref[q], c[q]);
    return k;
}

/* The requests of latch k: A, B over s r, the enable e (ce u_e + e0) and the
 * bit offered dl = sum dc[q] u_d[q] + d0 (nd relays). */
static void f_latch(f_prog *p, int k, int s, int r, int e, double ce, double e0, const int *d,
                    const double *dc, int nd, double d0)
{
    for (int side = 0; side < 2; side++) { /* A: +dl, set; B: -dl, reset */
        double sd = side ? -1 : 1;
        int a = f_rel_add(p, 0, -1, 0, 1.5 - e0 - sd * d0);
        f_ref(p, a, side ? r : s, 3);
        f_ref(p, a, side ? s : r, -4);
        f_ref(p, a, e, ce);
        for (int q = 0; q < nd; q++) f_ref(p, a, d[q], sd * dc[q]);
        if (side) p->b[k] = a;
        else p->a[k] = a;
    }
}

/* the relays of the next state offered to the master from data relays i0 (i1)
 * and the bit qs: d[0..*nd) with weights dc, offset *d0 (dl = 2 d - 1, d the
 * sum of exclusive relays) */
static void f_next(f_prog *p, nsc_modeltype t, int i0, int i1, int qs, int *d, double *dc, int *nd,
                   double *d0)
{
    *d0 = -1;
    if (t == NSC_MOD_DDFF) { /* D */
        *nd = 1, d[0] = i0, dc[0] = 2;
        return;
    }
    *nd = 2;
    if (t == NSC_MOD_DTFF) { /* T !q + !T q */
        d[0] = f_rel_of(p, 2, (int[]){ i0, qs }, (double[]){ 1, -1 }, 0.5);
        d[1] = f_rel_of(p, 2, (int[]){ qs, i0 }, (double[]){ 1, -1 }, 0.5);
    } else if (t == NSC_MOD_DJKFF) { /* J !q + !K q */
        d[0] = f_rel_of(p, 2, (int[]){ i0, qs }, (double[]){ 1, -1 }, 0.5);
        d[1] = f_rel_of(p, 2, (int[]){ qs, i1 }, (double[]){ 1, -1 }, 0.5);
    } else { /* SR: S !R + q !S !R + q S R (S = R holds) */
        d[0] = f_rel_of(p, 2, (int[]){ i0, i1 }, (double[]){ 1, -1 }, 0.5);
        d[1] = f_rel_of(p, 3, (int[]){ qs, i0, i1 }, (double[]){ 1, -1, -1 }, 0.5);
        d[2] = f_rel_of(p, 3, (int[]){ qs, i0, i1 }, (double[]){ 1, 1, 1 }, 2.5);
        *nd = 3;
    }
    for (int q = 0; q < *nd; q++) dc[q] = 2;
}

/* The outputs' relays after the rest (q: the slave's bit relay): unknown U
 * (set and reset both high; for d_srlatch also S = R = 1 while enabled, the
 * inputs at i0 i0+1, enable e), then o[0] = q !U, o[1] = !q !U:
 *   out = U/2 + o[0], nout = U/2 + o[1]. */
static void f_outputs(f_prog *p, nsc_modeltype t, int q, int i0, int e, int s, int r)
{
    p->nu = 0;
    p->u[p->nu++] = f_rel_of(p, 2, (int[]){ s, r }, (double[]){ 1, 1 }, 1.5);
    if (t == NSC_MOD_DSRLATCH) /* e S R !s !r */
        p->u[p->nu++] = f_rel_of(p, 5, (int[]){ e, i0, i0 + 1, s, r },
                                 (double[]){ 1, 1, 1, -3, -3 }, 2.5);
    for (int k = 0; k < 2; k++) {
        int o = f_rel_add(p, 0, -1, 0, k ? -0.5 : 0.5); /* H(q - U - 1/2), H(-q - U + 1/2) */
        f_ref(p, o, q, k ? -1 : 1);
        for (int j = 0; j < p->nu; j++) f_ref(p, o, p->u[j], -1);
        p->o[k] = o;
    }
}

static void f_prog_of(const nsc_element *e, f_prog *p)
{
    f_par q;
    nsc_modeltype t = e->model ? e->model->type : NSC_MOD_DDLATCH;
    nsc_par_read(e->model, f_tab, 1, &q);
    int ic = q.ic > 0.5, two = t == NSC_MOD_DJKFF || t == NSC_MOD_DSRFF || t == NSC_MOD_DSRLATCH;
    int edge = t != NSC_MOD_DDLATCH && t != NSC_MOD_DSRLATCH, nin = e->nnode - 3;
    p->qa = ic ? -1 : 2, p->qb = ic ? 2 : -2, p->sg = ic ? -1 : 1;
    p->n = 0, p->nl = edge ? 2 : 1;
    for (int k = 0; k < nin; k++)
        f_rel_add(p, e->node[3 + k], -1, 0, 0.75); /* 1 only: U (0.5) reads 0 */
    int i0 = 0, i1 = two ? 1 : 0, c = two + 1, s = c + 1, r = c + 2, d[3], nd;
    int qs = f_rel_add(p, 0, 2, p->qb, 0.5 - p->qa); /* the bit: q - 1/2 */
    double dc[3], d0;
    if (!edge) {
        if (t == NSC_MOD_DDLATCH) nd = 1, d[0] = i0, dc[0] = 2, d0 = -1;
        else
            nd = 2, d[0] = f_rel_of(p, 2, (int[]){ i0, i1 }, (double[]){ 1, -1 }, 0.5), /* P - N */
                d[1] = f_rel_of(p, 2, (int[]){ i1, i0 }, (double[]){ 1, -1 }, 0.5), dc[0] = 1,
            dc[1] = -1, d0 = 0;
        f_latch(p, 0, s, r, c, 1, 0, d, dc, nd, d0);
    } else {
        int qm = f_rel_add(p, 0, 4, p->qb, 0.5 - p->qa);
        f_next(p, t, i0, i1, qs, d, dc, &nd, &d0);
        f_latch(p, 1, s, r, c, -1, 1, d, dc, nd, d0);              /* master: open at clk = 0 */
        f_latch(p, 0, s, r, c, 1, 0, &qm, (double[]){ 2 }, 1, -1); /* slave: open at clk = 1 */
    }
    f_outputs(p, t, qs, i0, c, s, r);
}

/* The element's relays and latches, built once from its model (its private data). */
static void *f_bind(const nsc_circuit *c, int ei)
{
    f_prog *p = malloc(sizeof *p);
    if (p) f_prog_of(&c->el[ei], p);
    return p;
}

static nsc_status f_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    const f_prog *p = e->priv;
    if (!p) return nsc_oom(ctx->r); /* f_bind cannot fail otherwise */
    need->nbranch = 2 + 2 * p->nl;
    need->npair = 2 * p->n;
    int null = (int)e->ipar[0];
    for (int k = 0; k < 2; k++)
        if (!(null >> k & 1) && nsc_dev_link(ctx, e->node[2 * k], 0, NSC_LINK_VD))
            return nsc_err(ctx->r, NSC_ENETLIST, &e->loc,
                           "XSPICE output of %s closes a loop of voltage sources "
                           "(two outputs drive node %s?)",
                           e->name, ctx->c->node_name[e->node[2 * k]]);
    return NSC_OK;
}

/* relay r at pairs j, j+1 (relay k at pairs p0 + 2k): y_j = l - z + eps u, y_l = 1 - u */
static void f_relay(nsc_builder *b, const f_rel *r, int br0, int p0, int j)
{
    if (r->node) nsc_st(b, NSC_ST_C, j, nsc_zn(r->node), -1.0);
    if (r->br >= 0) nsc_st(b, NSC_ST_C, j, br0 + r->br, -r->cz);
    for (int q = 0; q < r->nref; q++) nsc_st(b, NSC_ST_D, j, p0 + 2 * r->ref[q], -r->c[q]);
    nsc_st_e0(b, j, r->th);
    nsc_st(b, NSC_ST_D, j, j + 1, 1.0);
    nsc_st(b, NSC_ST_D, j, j, F_EPS);
    nsc_st(b, NSC_ST_D, j + 1, j, -1.0);
    nsc_st_e0(b, j + 1, 1.0);
}

/* output k (0 out, 1 nout) at row: 0 = v - U/2 - o[k] (f_outputs) */
static void f_output(nsc_builder *b, const nsc_element *e, const f_prog *p, int k, int row, int p0)
{
    nsc_st_exact(b, row);
    if ((int)e->ipar[0] >> k & 1) { /* NULL: i = 0 */
        nsc_st(b, NSC_ST_A, row, row, 1.0);
        return;
    }
    nsc_st_inc(b, e->node[2 * k], 0, row);
    nsc_st_vrow(b, row, e->node[2 * k], 0, 1.0);
    for (int j = 0; j < p->nu; j++) nsc_st(b, NSC_ST_B, row, p0 + 2 * p->u[j], -0.5);
    nsc_st(b, NSC_ST_B, row, p0 + 2 * p->o[k], -1.0);
}

static nsc_status f_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    const f_prog *p = e->priv;
    if (!p) return nsc_oom(b->r);
    int br = s->branch;
    for (int k = 0; k < 2; k++) f_output(b, e, p, k, br + k, s->pair);
    for (int k = 0; k < p->nl; k++) { /* latch k: x at br + 2 + 2k, u after it */
        int x = br + 2 + 2 * k, u = x + 1;
        nsc_st_exact(b, x);
        nsc_st_exact(b, u);
        nsc_st_s0(b, x, 1.0); /* 0 = 1 - g x (the switch adds -g) */
        nsc_st_switch_z(b, ei, x + 1, 0, 1.0, 2.0, u, -1, 0.75,
                        0.25); /* (circuit node x + 1 is z[x]) */
        nsc_st(b, NSC_ST_A, u, u, -1.0);
        nsc_st_s0(b, u, 0.5);
        nsc_st(b, NSC_ST_B, u, s->pair + 2 * p->a[k], 0.5 * p->sg);
        nsc_st(b, NSC_ST_B, u, s->pair + 2 * p->b[k], -0.5 * p->sg);
    }
    for (int k = 0; k < p->n; k++) f_relay(b, &p->r[k], br, s->pair, s->pair + 2 * k);
    return NSC_OK;
}

static nsc_status f_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    return nsc_lin_add(f, NSC_T_Z, L->el_branch[ei], 1.0);
}

const nsc_device nsc_dev_aff = {
    .kind = NSC_EL_AFF,
    .what = "XSPICE flip-flops and latches",
    .name = "XSPICE element",
    .card = NSC_CARD_NONE,
    .bind = f_bind,
    .count = f_count,
    .stamp = f_stamp,
    .current = f_current,
    .pclass = NSC_PC_CONTROLLED,
    .ndc = 2,
    .dc = { { 0, 1 }, { 2, 1 } }, /* out and nout to ground */
    .topo = NSC_TOPO_OTHER,       /* (two sources: VDEF has one pair) */
    .pin = { 1, -1, 2, 0 },       /* nout: not I(x) */
};
