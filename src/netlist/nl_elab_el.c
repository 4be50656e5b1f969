/* nl_elab_el.c -- element cards: each handed to its device's own parser
 * through the card view (lcs/card.h; the view's services are here: values,
 * nodes, elements, references, models, parasitics, expansions, and the
 * expressions: a field's expression compiled to a behavioural source's
 * program, nl_pwl.c, or built from fields), but for the variants this stage
 * builds itself (R's value that reads time, C's Q=); and the refusal of the
 * letters not supported.
 *
 * Invariants: each card makes one element (plus its parasitics "<el>#..."),
 * named prefix + its head; references to other elements (K -> L, F H W and
 * B's I() -> V) are fixups resolved by nl_elab.c; models are resolved now
 * (the .model pass of a scope comes first). */
#include "nl_elab.h"
#include "devices/cards.h"
#include "devices/device.h"
#include "nl_pwl.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static nsc_status b_compile(elab *E, scope *sc, const nl_card *cd, int el, const nl_field *x,
                            int from);

/* LTspice's parasitics Rser= (V L C), Rpar= Cpar= (L C) are elements of their
 * own, named after their element ("l1#rser", "x1.c2#cpar"): '#' cannot start a
 * node or element name of another card kind, and a clash with a user's name is
 * an error (element_named, node). */
/* element "<el>#<what>" of kind k and value v from node n0 to n1 */
nsc_status nle_parasitic(elab *E, scope *sc, const nl_card *cd, int el, const char *what,
                         nsc_elkind k, double v, int n0, int n1)
{
    char *name = nsc_asprintf("%s#%s", E->c->el[el].name, what);
    if (!name) return nle_oom(E);
    int p;
    nsc_status st = nle_element_named(E, sc, cd, k, name, &p);
    free(name);
    if (st) return st;
    nsc_element *e = &E->c->el[p];
    e->nnode = 2;
    e->node[0] = n0;
    e->node[1] = n1;
    e->value = v;
    return NSC_OK;
}

/* *n = a new internal node "<el>#<what>" of element el (an error when the
 * netlist has a node of that name) */
static nsc_status internal_node(elab *E, scope *sc, const nl_card *cd, const nl_field *f, int el,
                                const char *what, const char *of, int *n)
{
    char *name = nsc_asprintf("%s#%s", E->c->el[el].name, what);
    if (!name) return nle_oom(E);
    int old;
    nsc_status st = NSC_OK;
    if (nl_hash_get(&E->nodes, name, &old))
        st = nle_err(E, sc, cd, f,
                     "node '%s' of the netlist clashes with the internal node of %s%s", name, of,
                     cd->f[0].u.s);
    else if (!(st = nle_node_new(E, name, cd, f, n))
             && nl_hash_put(&E->inodes, E->c->node_name[*n], el))
        st = nle_oom(E);
    free(name);
    return st;
}

/* Rser = r in series with element el (field f): el's n- moves to a new node
 * "<el>#rser", the resistor joins it to n-; the current through el is the resistor's */
static nsc_status series_r(elab *E, scope *sc, const nl_card *cd, const nl_field *f, int el,
                           double r)
{
    int n;
    nsc_status st = internal_node(E, sc, cd, f, el, "rser", "Rser= of ", &n);
    if (st) return st;
    int nm = E->c->el[el].node[1];
    E->c->el[el].node[1] = n;
    return nle_parasitic(E, sc, cd, el, "rser", NSC_EL_R, r, n, nm);
}

/* 1 when expression x reads `time` */
static int uses_time(const nl_expr *x)
{
    for (; x; x = x->next)
        if ((x->op == NL_X_PARAM && !strcmp(x->name, "time")) || uses_time(x->a) || uses_time(x->b)
            || (x->op == NL_X_COND && uses_time(x->c)))
            return 1;
    return 0;
}

/* The value field of resistor card cd when it is an expression that reads
 * `time` (R n+ n- {expr} or R=expr), else NULL. */
static const nl_field *time_value(const nl_card *cd)
{
    char key[8];
    for (int i = 3; i < cd->nf; i++) {
        const nl_field *f = &cd->f[i];
        const char *kk = nle_pair_key(f, key, sizeof key);
        const nl_field *v = !kk ? f : !strcmp(kk, "r") ? &f->sub[1] : NULL;
        if (v) return v->kind == NL_F_EXPR && uses_time(v->u.x) ? v : NULL;
    }
    return NULL;
}

/* A resistor whose value is a piecewise-constant function of time, R =
 * cond(time) ? R1 : R2 (a load step; ngspice's behavioural resistor): the
 * switch of dev_s.c named after it, RON = R1 and ROFF = R2, its control the
 * internal node <el>#ctl that a B source drives to cond (1 or 0: a relay of
 * time, located as an event) against VT = 0.5. */
static nsc_status card_r_time(elab *E, scope *sc, const nl_card *cd, const nl_field *vf)
{
    const nl_expr *x = vf->u.x;
    int el, n;
    double r[2];
    if (x->op != NL_X_COND)
        return nle_err(E, sc, cd, vf,
                       "resistor %s: a value that reads time must be cond ? R1 : R2 (constants "
                       "R1, R2: a piecewise-constant load)",
                       cd->f[0].u.s);
    nl_field xf[3] = { { NL_F_EXPR, vf->line, vf->col, 0, { NULL }, NULL } };
    xf[2] = xf[1] = xf[0];
    xf[0].u.x = x->b;
    xf[1].u.x = x->c;
    xf[2].u.x = x->a;
    for (int q = 0; q < 2; q++) {
        if (nle_value(E, sc, cd, &xf[q], &r[q])) return E->r->status;
        if (!(r[q] > 0 && isfinite(r[q])))
            return nle_err(E, sc, cd, vf, "resistor %s: its values must be finite and > 0 (%g)",
                           cd->f[0].u.s, r[q]);
    }
    if (nle_element_new(E, sc, cd, NSC_EL_S, &el) || nle_nodes(E, sc, cd, el, 2))
        return E->r->status;
    for (int i = 3; i < cd->nf; i++)
        if (&cd->f[i] != vf && !(cd->f[i].kind == NL_F_PAIR && &cd->f[i].sub[1] == vf))
            nle_warn(E, sc, cd, &cd->f[i], "'%s' of resistor %s ignored", nle_ftext(&cd->f[i]),
                     cd->f[0].u.s);
    if (internal_node(E, sc, cd, vf, el, "ctl", "the value of ", &n)) return E->r->status;
    nsc_element *e = &E->c->el[el];
    e->nnode = 4;
    e->node[2] = n;
    e->node[3] = 0;
    nsc_model *m = nle_model_new(E, cd);
    int cap = 0, mi = E->c->nmodel;
    if (!m || !(m->name = nsc_asprintf("%s#sw", e->name))) return nle_oom(E);
    m->type = NSC_MOD_SW;
    m->loc = nl_field_loc(E->d, cd, vf);
    E->c->nmodel++;
    if (nle_model_set(E, m, &cap, "ron", r[0]) || nle_model_set(E, m, &cap, "roff", r[1])
        || nle_model_set(E, m, &cap, "vt", 0.5))
        return E->r->status;
    E->elmodel[el] = mi;
    if (nle_parasitic(E, sc, cd, el, "ctl", NSC_EL_BV, 0, n, 0)) return E->r->status;
    return b_compile(E, sc, cd, E->c->nel - 1, &xf[2], cd->nf);
}

/* The devices in parallel of el (the product P of its instance parameters
 * flagged NSC_INST_PARALLEL: m; a JFET's AREA m) carried to the elements its
 * card expanded into (el+1 ..: RD RS RG, a VDMOS's body diode and its CJO): P
 * divides the resistors and multiplies the charge; an element with an instance
 * parameter m takes el's (the body diode). */
static nsc_status parallel_expanded(elab *E, const nsc_device *dev, int el)
{
    double m = 1;
    for (int q = 0; q < dev->ninst; q++)
        if (dev->inst[q].flags & NSC_INST_PARALLEL) m *= E->c->el[el].ipar[q];
    int qe = nsc_card_inst_par(dev, "m");
    for (int p = el + 1; m != 1 && p < E->c->nel; p++) {
        nsc_element *x = &E->c->el[p];
        const nsc_device *d = nsc_device_of(x->kind);
        int qm = nsc_card_inst_par(d, "m");
        if (d->pclass == NSC_PC_RESISTOR) x->value /= m;
        else if (x->kind == NSC_EL_CQ && nle_cq_scale(E, p, m))
            return E->r->status; /* the body's CJO */
        else if (qm >= 0 && qe >= 0) x->ipar[qm] = E->c->el[el].ipar[qe];
    }
    return NSC_OK;
}

/* ---- the card view (lcs/card.h): a card read by its device's parse() ---- */

/* what the view's ops read: the elaboration, the card and its scope */
typedef struct view_ctx {
    elab *E;
    scope *sc;
    const nl_card *cd;
} view_ctx;

static nsc_status v_err(const nsc_cardview *v, const nsc_cfield *f, const char *fmt, va_list ap)
{
    const view_ctx *x = v->ctx;
    return nle_verr(x->E, x->sc, x->cd, f, fmt, ap);
}

static void v_warn(const nsc_cardview *v, const nsc_cfield *f, const char *fmt, va_list ap)
{
    const view_ctx *x = v->ctx;
    nle_vwarn(x->E, x->sc, x->cd, f, fmt, ap);
}

static nsc_status v_oom(const nsc_cardview *v)
{
    return nle_oom(((const view_ctx *)v->ctx)->E);
}

static int v_number(const nsc_cardview *v, const nsc_cfield *f, double *y)
{
    (void)v;
    return f->kind == NL_F_WORD && nsc_parse_number(f->u.s, y);
}

static nsc_status v_value(const nsc_cardview *v, const nsc_cfield *f, double *y)
{
    const view_ctx *x = v->ctx;
    return nle_value(x->E, x->sc, x->cd, f, y);
}

static nsc_status v_element(const nsc_cardview *v, nsc_elkind k, int *el)
{
    const view_ctx *x = v->ctx;
    return nle_element_new(x->E, x->sc, x->cd, k, el);
}

static nsc_status v_nodes(const nsc_cardview *v, int el, int n)
{
    const view_ctx *x = v->ctx;
    return nle_nodes(x->E, x->sc, x->cd, el, n);
}

static nsc_status v_ref(const nsc_cardview *v, const nsc_cfield *f, int el, int slot)
{
    const view_ctx *x = v->ctx;
    return nle_fixup_add(x->E, x->sc, x->cd, f, el, slot);
}

static nsc_status v_model(const nsc_cardview *v, const nsc_cfield *f, int el)
{
    const view_ctx *x = v->ctx;
    return nle_model_ref(x->E, x->sc, x->cd, f, el);
}

static nsc_status v_model_bin(const nsc_cardview *v, const nsc_cfield *f, int el, double l,
                              double w)
{
    const view_ctx *x = v->ctx;
    return nle_model_ref_lw(x->E, x->sc, x->cd, f, el, l, w);
}

static int v_model_index(const nsc_cardview *v, const nsc_cfield *f)
{
    const view_ctx *x = v->ctx;
    return nle_model_named(x->E, x->sc, f);
}

static nsc_status v_res_model(const nsc_cardview *v, const nsc_cfield *f, int *is, double *scale)
{
    const view_ctx *x = v->ctx;
    int rm = nle_res_model(x->E, x->sc, x->cd, f, scale);
    *is = rm > 0;
    return rm < 0 ? x->E->r->status : NSC_OK;
}

static nsc_status v_inode(const nsc_cardview *v, const nsc_cfield *f, int el, const char *what,
                          const char *of, int *n)
{
    const view_ctx *x = v->ctx;
    return internal_node(x->E, x->sc, x->cd, f, el, what, of, n);
}

static nsc_status v_series_r(const nsc_cardview *v, const nsc_cfield *f, int el, double r)
{
    const view_ctx *x = v->ctx;
    return series_r(x->E, x->sc, x->cd, f, el, r);
}

static nsc_status v_parasitic(const nsc_cardview *v, int el, const char *what, nsc_elkind k,
                              double y, int n0, int n1)
{
    const view_ctx *x = v->ctx;
    return nle_parasitic(x->E, x->sc, x->cd, el, what, k, y, n0, n1);
}

static int v_node_exists(const nsc_cardview *v, const char *full)
{
    int old;
    return nl_hash_get(&((const view_ctx *)v->ctx)->E->nodes, full, &old);
}

static nsc_status v_charge(const nsc_cardview *v, int el, const nsc_xinstr *code, int n)
{
    return nle_cq_code(((const view_ctx *)v->ctx)->E, el, code, n);
}

/* model from's name + suffix, its location, known in the scope as the .model
 * card's name + suffix */
static nsc_status v_model_new(const nsc_cardview *v, int from, const char *suffix, nsc_modeltype t,
                              int *mi)
{
    const view_ctx *x = v->ctx;
    elab *E = x->E;
    nsc_model *m = nle_model_new(E, x->cd);
    if (!m) return nle_oom(E);
    m->name = nsc_asprintf("%s%s", E->c->model[from].name, suffix);
    m->type = t;
    m->loc = E->c->model[from].loc;
    *mi = E->c->nmodel++;
    const char *lk = m->name ? nle_cat(E, "", x->cd->f[1].u.s) : NULL;
    char *key = lk ? nsc_asprintf("%s%s", lk, suffix) : NULL;
    char *ak = key ? nl_strndup(&E->ar, key, strlen(key), 0) : NULL;
    free(key);
    return !ak || nl_hash_put(&x->sc->models, ak, *mi) ? nle_oom(E) : NSC_OK;
}

static const char *v_name(const nsc_cardview *v)
{
    const view_ctx *x = v->ctx;
    return nle_cat(x->E, x->sc->prefix, x->cd->f[0].u.s);
}

static nsc_status v_element_named(const nsc_cardview *v, nsc_elkind k, const char *full, int *el)
{
    const view_ctx *x = v->ctx;
    return nle_element_named(x->E, x->sc, x->cd, k, full, el);
}

static nsc_status v_node(const nsc_cardview *v, const nsc_cfield *f, int *n)
{
    const view_ctx *x = v->ctx;
    return nle_node(x->E, x->sc, x->cd, f, n);
}

static nsc_status v_node_new(const nsc_cardview *v, const char *full, const nsc_cfield *f, int *n)
{
    const view_ctx *x = v->ctx;
    return nle_node_new(x->E, full, x->cd, f, n);
}

static int v_model_of(const nsc_cardview *v, int el)
{
    return ((const view_ctx *)v->ctx)->E->elmodel[el];
}

static void v_model_link(const nsc_cardview *v, int el, int m)
{
    ((const view_ctx *)v->ctx)->E->elmodel[el] = m;
}

static nsc_status v_model_set(const nsc_cardview *v, int m, const char *name, double y)
{
    elab *E = ((const view_ctx *)v->ctx)->E;
    int cap = E->c->model[m].npar; /* (its arrays' capacity unknown: grown) */
    return nle_model_set(E, &E->c->model[m], &cap, name, y);
}

static const char *v_model_word(const nsc_cardview *v, int m)
{
    const elab *E = ((const view_ctx *)v->ctx)->E;
    const nl_card *mc = &E->d->card[E->model_card[m]];
    return mc->nf > 2 && (mc->f[2].kind == NL_F_WORD || mc->f[2].kind == NL_F_CALL) ? mc->f[2].u.s
                                                                                    : NULL;
}

static const char *v_model_text(const nsc_cardview *v, const nsc_cfield *f, const char **name)
{
    const view_ctx *x = v->ctx;
    const nl_card *mc = nle_model_unparsed(x->E, x->sc, f);
    if (!mc) return NULL;
    *name = mc->f[1].u.s;
    return mc->f[3].u.s;
}

static nsc_status v_parallel(const nsc_cardview *v, int el)
{
    const view_ctx *x = v->ctx;
    return parallel_expanded(x->E, nsc_device_of(x->E->c->el[el].kind), el);
}

/* the expression's V() nodes and I() references (nl_pwl_env's node and
 * branch): resolved in the card's scope, I() after every card (fixups) */
typedef struct bctx {
    elab *E;
    scope *sc;
    const nl_card *cd;
    int el;
} bctx;

static nl_field *b_field(bctx *B, const char *name, const nl_expr *at)
{
    nl_field *f = nl_alloc(&B->E->ar, sizeof *f);
    if (f) *f = (nl_field){ NL_F_WORD, at->line, at->col, 0, { name }, NULL };
    return f;
}

static nsc_status b_node(void *ctx, const char *name, const nl_expr *at, int *idx, nsc_report *r)
{
    bctx *B = ctx;
    nl_field *f = b_field(B, name, at);
    (void)r;
    return f ? nle_node(B->E, B->sc, B->cd, f, idx) : nle_oom(B->E);
}

static nsc_status b_branch(void *ctx, const char *name, const nl_expr *at, int k, nsc_report *r)
{
    bctx *B = ctx;
    nl_field *f = b_field(B, name, at);
    (void)r;
    if (!f) return nle_oom(B->E);
    nsc_status st = nle_fixup_add(B->E, B->sc, B->cd, f, B->el, 0);
    if (!st) B->E->fix[B->E->nfix - 1].term = k;
    return st;
}

/* the expression of f compiled to a program (nl_pwl.c) for element el */
static nsc_status v_compile(const nsc_cardview *v, const nsc_cfield *f, int el, int mirror,
                            nsc_bprog **p)
{
    const view_ctx *x = v->ctx;
    elab *E = x->E;
    nl_env env = { nle_scope_lookup, x->sc,    E->d->files[x->cd->file],
                   x->sc->where,     E->funcs, E->nfunc };
    bctx B = { E, x->sc, x->cd, el };
    nl_pwl_env pe = { &env, b_node, b_branch, &B, mirror };
    return nl_pwl_compile(f->u.x, &pe, p, E->r);
}

static nsc_status v_vnodes(const nsc_cardview *v, const nsc_cfield *f, int nd[2], int *n)
{
    const view_ctx *c = v->ctx;
    elab *E = c->E;
    const nl_expr *x = f->kind == NL_F_EXPR ? f->u.x : NULL;
    int ok = x && x->op == NL_X_CALL && !strcmp(x->name, "v") && x->nargs >= 1 && x->nargs <= 2;
    for (const nl_expr *a = ok ? x->a : NULL; a; a = a->next)
        if (a->op != NL_X_PARAM && a->op != NL_X_NUM) ok = 0;
    *n = 0;
    for (const nl_expr *a = ok ? x->a : NULL; a; a = a->next) {
        const char *full = nle_node_fullname(E, c->sc, a->name);
        int idx;
        if (!full) return nle_oom(E);
        if (!nl_hash_get(&E->nodes, full, &idx) && nle_node_new(E, full, c->cd, f, &idx))
            return E->r->status;
        nd[(*n)++] = idx;
    }
    return NSC_OK;
}

static nl_expr *v_x_num(const nsc_cardview *v, const nsc_cfield *at, double c)
{
    elab *E = ((const view_ctx *)v->ctx)->E;
    nl_expr *k = nl_expr_new(&E->ar, NL_X_NUM, at->line, at->col, NULL, NULL);
    if (k) k->num = c;
    return k;
}

static nl_expr *v_x_volt(const nsc_cardview *v, const nsc_cfield *at, const char *p, const char *m)
{
    elab *E = ((const view_ctx *)v->ctx)->E;
    nl_expr *a = nl_expr_new(&E->ar, NL_X_PARAM, at->line, at->col, NULL, NULL);
    nl_expr *b = nl_expr_new(&E->ar, NL_X_PARAM, at->line, at->col, NULL, NULL);
    nl_expr *x = a && b ? nl_expr_new(&E->ar, NL_X_CALL, at->line, at->col, a, NULL) : NULL;
    if (!x) return NULL;
    a->name = p;
    b->name = m;
    a->next = b;
    x->name = "v";
    x->nargs = 2;
    return x;
}

static nl_expr *v_x_op(const nsc_cardview *v, const nsc_cfield *at, int op, nl_expr *a, nl_expr *b)
{
    elab *E = ((const view_ctx *)v->ctx)->E;
    return a && b ? nl_expr_new(&E->ar, op == '+' ? NL_X_ADD : NL_X_MUL, at->line, at->col, a, b)
                  : NULL;
}

static const nsc_cardops VIEW_OPS = {
    .verr = v_err,
    .vwarn = v_warn,
    .oom = v_oom,
    .number = v_number,
    .value = v_value,
    .element = v_element,
    .nodes = v_nodes,
    .ref = v_ref,
    .model = v_model,
    .model_bin = v_model_bin,
    .model_index = v_model_index,
    .res_model = v_res_model,
    .inode = v_inode,
    .series_r = v_series_r,
    .parasitic = v_parasitic,
    .node_exists = v_node_exists,
    .charge = v_charge,
    .model_new = v_model_new,
    .name = v_name,
    .element_named = v_element_named,
    .node = v_node,
    .node_new = v_node_new,
    .model_of = v_model_of,
    .model_link = v_model_link,
    .model_set = v_model_set,
    .model_word = v_model_word,
    .model_text = v_model_text,
    .parallel = v_parallel,
    .compile = v_compile,
    .vnodes = v_vnodes,
    .x_num = v_x_num,
    .x_volt = v_x_volt,
    .x_op = v_x_op,
};

/* element el's program: the expression field x of card cd compiled through the
 * view (cards_expr.c; the fields from `from` on ignored with a warning) */
static nsc_status b_compile(elab *E, scope *sc, const nl_card *cd, int el, const nl_field *x,
                            int from)
{
    view_ctx c = { E, sc, cd };
    nsc_cardview v = { cd->f, cd->nf, E->c, E->scale, &VIEW_OPS, &c };
    return nsc_card_program(&v, x, el, from);
}

nsc_status nle_model_read(elab *E, scope *sc, const nl_card *cd, int mi)
{
    view_ctx x = { E, sc, cd };
    nsc_cardview v = { cd->f, cd->nf, E->c, E->scale, &VIEW_OPS, &x };
    for (int k = 0; k < NSC_EL_NKINDS; k++) {
        const nsc_device *d = nsc_device_of((nsc_elkind)k);
        nsc_status st = d->model_read && nsc_dev_takes(d, E->c->model[mi].type)
                            ? d->model_read(d, &v, mi)
                            : NSC_OK;
        if (st) return st;
    }
    return NSC_OK;
}

/* Card cd read by its device d's own parser through the view; the variants of
 * its card that stand for parts this stage builds (card_opt: a resistor that
 * reads time, a charge Q=) first. */
static nsc_status card_own(elab *E, scope *sc, const nl_card *cd, const nsc_device *d)
{
    const nl_field *tv = d->card_opt & NSC_CARDOPT_TIMESW ? time_value(cd) : NULL;
    if (tv) return card_r_time(E, sc, cd, tv);
    int isq;
    const nl_field *qv = d->card_opt & NSC_CARDOPT_CHARGE ? nle_cq_field(cd, &isq) : NULL;
    if (qv) return nle_card_cq(E, sc, cd, qv, isq);
    view_ctx x = { E, sc, cd };
    nsc_cardview v = { cd->f, cd->nf, E->c, E->scale, &VIEW_OPS, &x };
    return d->parse(d, &v);
}

static const char *const UNSUPPORTED_EL[26] = {
    ['n' - 'a'] = "numerical devices (N)",
    ['o' - 'a'] = "lossy transmission lines (O)",
    ['p' - 'a'] = "coupled transmission lines (P)",
    ['t' - 'a'] = "transmission lines (T)",
    ['u' - 'a'] = "uniform RC lines (U)",
    ['y' - 'a'] = "transmission lines (Y)",
    ['z' - 'a'] = "MESFETs (Z)",
};

/* what to use instead of each (issue 12: a refusal says what to do) */
static const char *const UNSUPPORTED_USE[26] = {
    ['n' - 'a'] = "the compact D, Q or M models",
    ['o' - 'a'] = "an RLC ladder of sections (R, L, C per unit length times the section's length)",
    ['p' - 'a'] = "ladders of L and C sections coupled by K",
    ['t' - 'a'] = "an LC ladder of n sections, L = Z0 TD/n and C = TD/(Z0 n) each",
    ['u' - 'a'] = "an RC ladder of sections",
    ['y' - 'a'] = "an LC ladder of n sections, L = Z0 TD/n and C = TD/(Z0 n) each",
    ['z' - 'a'] = "a MOS transistor (NMOS, LEVEL=1) or a switch",
};

/* An element card: its form from the device table (the device whose letter
 * starts it), X an instance of a subcircuit; else refused, saying what to use. */
nsc_status nle_card_element(elab *E, scope *sc, const nl_card *cd)
{
    int ch = tolower((unsigned char)cd->f[0].u.s[0]);
    const nsc_device *d = nsc_device_of_letter(ch);
    switch (d ? d->card : NSC_CARD_NONE) {
    case NSC_CARD_OWN: return card_own(E, sc, cd, d);
    case NSC_CARD_NONE: break;
    }
    if (ch == 'x') return nle_card_x(E, sc, cd);
    if (ch >= 'a' && ch <= 'z' && UNSUPPORTED_EL[ch - 'a'])
        return nle_err(E, sc, cd, NULL, "unsupported element %s: %s are not supported; use %s",
                       cd->f[0].u.s, UNSUPPORTED_EL[ch - 'a'], UNSUPPORTED_USE[ch - 'a']);
    return nle_err(E, sc, cd, NULL, "unknown element type '%c' (card '%s')", cd->f[0].u.s[0],
                   cd->f[0].u.s);
}
