/* dev_etable.c -- piecewise-linear VCVS E n+ n- TABLE {V(c[,d])} = (x0,y0) (x1,y1) ...
 * (netlist.md), branch current i_E flowing a -> b:
 *
 *   0 = v_a - v_b - g(x),  x = v_c - v_d,
 *   g(x) = y0 + sum_k ds_k max(0, x - X_k) + sum_s dy_s H(x - X_s),
 *
 * constant beyond the end points; ds_k the slope change at a corner X_k, dy_s the
 * jump at a repeated x (an ideal vertical step: comparator, relay), H the
 * set-valued step (H(0) = [0, 1]). Pairs, in the order of the points:
 *   corner (one pair): mu = max(0, x - X): 0 <= mu _|_ mu - x + X >= 0,
 *     C[mu][c] = -1, C[mu][d] = +1, D = 1, e0 = X; g += ds mu: B[iE][mu] = -ds;
 *   step (two pairs, formulation.md §1: the normal cone of [0, |dy|]):
 *     0 <= u _|_ X - x + l >= 0,  0 <= l _|_ |dy| - u >= 0,
 *     so u = 0 for x < X, u = |dy| for x > X, u in [0, |dy|] at x = X (l = max(0, x - X));
 *     C[u][c] = -1, C[u][d] = +1, D[u][l] = 1, e0[u] = X; D[l][u] = -1, e0[l] = |dy|;
 *     g += sign(dy) u: B[iE][u] = -sign(dy).
 * Never a steep slope: a vertical step is exactly the two pairs. */
#include <math.h>

#include "device.h"

/* Walk the table: calls back corners (X, ds) and steps (X, dy) in x order.
 * Returns the number of pairs. */
typedef void (*tab_fn)(void *ctx, int step, double X, double d);

static int tab_walk(const nsc_etab *tab, tab_fn fn, void *ctx)
{
    const double *t = tab->xy;
    int n = tab->n, np = 0;
    double sl = 0; /* slope left of the current x */
    for (int i = 0; i < n;) {
        double X = t[2 * i];
        int last = i; /* last point at this x */
        if (i + 1 < n && t[2 * (i + 1)] == X) last = i + 1;
        double dy = t[2 * last + 1] - t[2 * i + 1];
        double sr = 0; /* slope right of X */
        if (last + 1 < n) sr = (t[2 * (last + 1) + 1] - t[2 * last + 1]) / (t[2 * (last + 1)] - X);
        if (sr != sl) {
            if (fn) fn(ctx, 0, X, sr - sl);
            np++;
        }
        if (dy != 0) {
            if (fn) fn(ctx, 1, X, dy);
            np += 2;
        }
        sl = sr;
        i = last + 1;
    }
    return np;
}

static nsc_status et_check(const nsc_element *e, nsc_report *r)
{
    const nsc_etab *t = e->priv;
    if (!t || t->n < 2)
        return nsc_err(r, NSC_ENETLIST, &e->loc, "TABLE of %s needs at least two points", e->name);
    for (int i = 1; i < t->n; i++)
        if (!(t->xy[2 * i] >= t->xy[2 * i - 2]) || (i >= 2 && t->xy[2 * i] == t->xy[2 * i - 4]))
            return nsc_err(r, NSC_ENETLIST, &e->loc,
                           "TABLE of %s: x must be non-decreasing, at most twice the same",
                           e->name);
    return NSC_OK;
}

static nsc_status et_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    nsc_status st = et_check(e, ctx->r);
    if (st) return st;
    need->nbranch = 1;
    need->npair = tab_walk(e->priv, NULL, NULL);
    if (nsc_dev_link(ctx, e->node[0], e->node[1], NSC_LINK_VD))
        return nsc_err(ctx->r, NSC_ENETLIST, &e->loc,
                       "controlled source %s closes a loop of voltage sources", e->name);
    return NSC_OK;
}

typedef struct et_ctx {
    nsc_builder *b;
    const nsc_element *e;
    int row, q; /* branch row, next pair */
} et_ctx;

static void et_pair(void *vctx, int step, double X, double d)
{
    et_ctx *k = vctx;
    nsc_builder *b = k->b;
    int c = nsc_zn(k->e->node[2]), dd = nsc_zn(k->e->node[3]), j = k->q;
    nsc_st(b, NSC_ST_C, j, c, -1.0); /* y = ... - x + X */
    nsc_st(b, NSC_ST_C, j, dd, 1.0);
    nsc_st_e0(b, j, X);
    if (!step) {
        nsc_st(b, NSC_ST_D, j, j, 1.0);     /* y = mu - x + X */
        nsc_st(b, NSC_ST_B, k->row, j, -d); /* g += ds mu */
        k->q += 1;
    } else {
        nsc_st(b, NSC_ST_D, j, j + 1, 1.0);  /* y_u = X - x + l */
        nsc_st(b, NSC_ST_D, j + 1, j, -1.0); /* y_l = |dy| - u */
        nsc_st_e0(b, j + 1, fabs(d));
        nsc_st(b, NSC_ST_B, k->row, j, d > 0 ? -1.0 : 1.0); /* g += sign(dy) u */
        k->q += 2;
    }
}

static nsc_status et_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    int row = s->branch;
    nsc_st_inc(b, e->node[0], e->node[1], row);
    nsc_st_vrow(b, row, e->node[0], e->node[1], 1.0); /* 0 = v_a - v_b - g(x) */
    const nsc_etab *t = e->priv;                      /* (the card's parser made it) */
    nsc_st_s0(b, row, -t->xy[1]);                     /* - y0 */
    nsc_st_exact(b, row);
    et_ctx k = { b, e, row, s->pair };
    tab_walk(t, et_pair, &k);
    return NSC_OK;
}

/* The points changed: their unit, the control's and the output's (V); "?" when
 * their number changed (devif.h priv_unit). */
static const char *et_priv_unit(const nsc_element *a, const nsc_element *b)
{
    const nsc_etab *ta = a->priv, *tb = b->priv;
    if (!ta || !tb) return ta == tb ? NULL : "?";
    if (ta->n != tb->n) return "?";
    for (int i = 0; i < 2 * ta->n; i++)
        if (ta->xy[i] != tb->xy[i]) return "V";
    return NULL;
}

static nsc_status et_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    return nsc_lin_add(f, NSC_T_Z, L->el_branch[ei], 1.0);
}

const nsc_device nsc_dev_etable = {
    .kind = NSC_EL_ETABLE,
    .what = "E TABLE sources (PWL VCVS)",
    .name = "VCVS",
    .count = et_count,
    .stamp = et_stamp,
    .current = et_current,
    .pclass = NSC_PC_CONTROLLED,
    .ndc = 1,
    .dc = { { 0, 1 } },
    .topo = NSC_TOPO_VDEF,
    .priv_unit = et_priv_unit,
};
