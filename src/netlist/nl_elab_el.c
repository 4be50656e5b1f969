/* nl_elab_el.c -- element cards: each handed to its device's own parser
 * through the card view (lcs/card.h; the view's services are here: values,
 * nodes, elements, references, models, parasitics, expansions), but for the
 * variants this stage builds itself (R's value that reads time, C's Q=, S's
 * CONTROL=) and the cards whose forms are expressions: E G (gain, TABLE,
 * VALUE=, POLY) and B (PWL programs of nl_pwl.c); and the refusal of the
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

/* append the numeric values of fields (groups flattened) to *v; PAIR fields to *pairs */
static nsc_status flatten(elab *E, scope *sc, const nl_card *cd, const nl_field *f, int n,
                          double **v, int *nv, int *cap, const nl_field ***pairs, int *npair,
                          int *cappair)
{
    for (int i = 0; i < n; i++) {
        if (f[i].kind == NL_F_GROUP) {
            if (flatten(E, sc, cd, f[i].sub, f[i].nsub, v, nv, cap, pairs, npair, cappair))
                return E->r->status;
        } else if (f[i].kind == NL_F_PAIR && pairs) {
            if (nsc_grow((void **)pairs, cappair, *npair + 1, sizeof **pairs)) return nle_oom(E);
            (*pairs)[(*npair)++] = &f[i];
        } else {
            if (nsc_grow((void **)v, cap, *nv + 1, sizeof **v)) return nle_oom(E);
            if (nle_value(E, sc, cd, &f[i], &(*v)[*nv])) return E->r->status;
            (*nv)++;
        }
    }
    return NSC_OK;
}

/* TABLE {V(a[,b])} = (x1,y1) (x2,y2) ... starting at f[i] (the TABLE word) */
static nsc_status card_etable(elab *E, scope *sc, const nl_card *cd, int el, int i, nsc_elkind kind)
{
    const nl_field *f = cd->f;
    nsc_element *e = &E->c->el[el];
    e->kind = kind;
    if (i + 1 >= cd->nf)
        return nle_err(E, sc, cd, &f[i], "missing {V(node)} after TABLE in %s", f[0].u.s);
    const nl_field *ctl = &f[i + 1], *first = NULL;
    if (ctl->kind == NL_F_PAIR) {
        first = &ctl->sub[1];
        ctl = &ctl->sub[0];
    }
    const nl_expr *x = ctl->kind == NL_F_EXPR ? ctl->u.x : NULL;
    int okctl = x && x->op == NL_X_CALL && !strcmp(x->name, "v") && x->nargs >= 1 && x->nargs <= 2;
    for (const nl_expr *a = okctl ? x->a : NULL; a; a = a->next)
        if (a->op != NL_X_PARAM && a->op != NL_X_NUM) okctl = 0;
    if (!okctl)
        return nle_err(E, sc, cd, ctl,
                       "TABLE of %s: the control must be {V(node)} or {V(node,node)}", f[0].u.s);
    int k = 2;
    for (const nl_expr *a = x->a; a; a = a->next, k++) {
        const char *full = nle_node_fullname(E, sc, a->name);
        int idx;
        if (!full) return nle_oom(E);
        if (!nl_hash_get(&E->nodes, full, &idx) && nle_node_new(E, full, cd, ctl, &idx))
            return E->r->status;
        e = &E->c->el[el];
        e->node[k] = idx;
    }
    e->nnode = 4;
    double *v = NULL;
    int nv = 0, cap = 0;
    nsc_status st = NSC_OK;
    if (first) st = flatten(E, sc, cd, first, 1, &v, &nv, &cap, NULL, NULL, NULL);
    if (!st) st = flatten(E, sc, cd, &f[i + 2], cd->nf - i - 2, &v, &nv, &cap, NULL, NULL, NULL);
    if (!st && (nv < 4 || nv % 2))
        st = nle_err(E, sc, cd, &f[i], "TABLE of %s needs at least two (x,y) points", f[0].u.s);
    for (int j = 2; !st && j < nv; j += 2) {
        if (v[j] < v[j - 2])
            st = nle_err(E, sc, cd, &f[i],
                         "TABLE x values of %s must be non-decreasing (%g after %g)", f[0].u.s,
                         v[j], v[j - 2]);
        else if (j >= 4 && v[j] == v[j - 2] && v[j] == v[j - 4])
            st = nle_err(E, sc, cd, &f[i], "TABLE of %s has more than two points at x = %g",
                         f[0].u.s, v[j]);
    }
    nsc_etab *t = st ? NULL : malloc(sizeof *t + sizeof(double) * (size_t)nv);
    if (t) {
        t->n = nv / 2;
        memcpy(t->xy, v, sizeof(double) * (size_t)nv);
    }
    free(v);
    if (st || !t) return st ? st : nle_oom(E);
    E->c->el[el].priv = t; /* the device's data (device.h nsc_etab) */
    return NSC_OK;
}

/* x = a + b (a may be NULL), in the elaboration's arena; NULL out of memory
 * (b NULL: a term that could not be made) */
static nl_expr *poly_add(elab *E, nl_expr *a, nl_expr *b, int line, int col)
{
    return a && b ? nl_expr_new(&E->ar, NL_X_ADD, line, col, a, b) : b;
}

/* c * V(p, m) (a node pair of a POLY) */
static nl_expr *poly_term(elab *E, double c, const char *p, const char *m, int line, int col)
{
    nl_expr *k = nl_expr_new(&E->ar, NL_X_NUM, line, col, NULL, NULL);
    nl_expr *a = nl_expr_new(&E->ar, NL_X_PARAM, line, col, NULL, NULL);
    nl_expr *b = nl_expr_new(&E->ar, NL_X_PARAM, line, col, NULL, NULL);
    nl_expr *v = a && b ? nl_expr_new(&E->ar, NL_X_CALL, line, col, a, NULL) : NULL;
    if (!k || !v) return NULL;
    k->num = c;
    a->name = p;
    b->name = m;
    a->next = b;
    v->name = "v";
    v->nargs = 2;
    return nl_expr_new(&E->ar, NL_X_MUL, line, col, k, v);
}

/* c x_t[0] x_t[1] ... x_t[d-1], x_k = V(node[2k], node[2k+1]) (a monomial of a POLY) */
static nl_expr *poly_mono(elab *E, double c, const int *t, int d, const char *const *node, int line,
                          int col)
{
    nl_expr *x = poly_term(E, c, node[2 * t[0]], node[2 * t[0] + 1], line, col);
    for (int q = 1; q < d && x; q++) {
        nl_expr *v = poly_term(E, 1.0, node[2 * t[q]], node[2 * t[q] + 1], line, col);
        x = v ? nl_expr_new(&E->ar, NL_X_MUL, line, col, x, v) : NULL;
    }
    return x;
}

/* t[0..d) <- the next nondecreasing tuple over 0..n-1 in lexicographic order
 * (SPICE's order of a POLY's monomials of one degree); 0 after the last */
static int poly_next(int *t, int d, int n)
{
    int q = d - 1;
    while (q >= 0 && t[q] == n - 1) q--;
    if (q < 0) return 0;
    t[q]++;
    for (int r = q + 1; r < d; r++) t[r] = t[q];
    return 1;
}

#define NL_POLY_MAXDEG 32

/* E G: n+ n- POLY(n) nc1+ nc1- ... ncn+ ncn- c0 c1 ... (pairs also as (a, b)):
 * SPICE's polynomial of the n control voltages x_k, a B source of
 * c0 + c1 x1 + ... + cn xn + (degree 2: x1^2, x1 x2, .., x1 xn, x2^2, ..)
 * + (degree 3: x1^3, x1^2 x2, ..): the monomials of each degree in the
 * lexicographic order of their nondecreasing index tuples, as SPICE2 and
 * ngspice 39. The affine part is exact, the higher degrees a smooth function
 * (nl_pwl.c, solved by Newton). One coefficient is c0, as ngspice 39 reads it
 * (SPICE2 took it as c1). Field i is the POLY call. */
static nsc_status card_poly(elab *E, scope *sc, const nl_card *cd, int el, int i)
{
    const nl_field *f = cd->f, *g = &f[i];
    double nd;
    if (g->kind != NL_F_CALL || g->nsub != 1 || nle_value(E, sc, cd, &g->sub[0], &nd))
        return E->r->status ? E->r->status
                            : nle_err(E, sc, cd, g, "expected POLY(n) in %s", f[0].u.s);
    if (!(nd >= 1 && nd <= 64 && nd == floor(nd)))
        return nle_err(E, sc, cd, g, "POLY(%g) of %s: n must be 1 to 64", nd, f[0].u.s);
    int n = (int)nd, k = 0;
    const char *node[128];
    for (i++; i < cd->nf && k < 2 * n; i++) { /* the control node pairs */
        const nl_field *q = &f[i];
        if (q->kind == NL_F_GROUP && q->nsub == 2 && q->sub[0].kind == NL_F_WORD
            && q->sub[1].kind == NL_F_WORD) {
            node[k++] = q->sub[0].u.s;
            node[k++] = q->sub[1].u.s;
        } else if (q->kind == NL_F_WORD) node[k++] = q->u.s;
        else break;
    }
    if (k < 2 * n)
        return nle_err(E, sc, cd, i < cd->nf ? &f[i] : g, "POLY(%d) of %s needs %d control nodes",
                       n, f[0].u.s, 2 * n);
    int nc = cd->nf - i;
    if (nc < 1) return nle_err(E, sc, cd, g, "POLY(%d) of %s: no coefficients", n, f[0].u.s);
    nl_expr *x = nl_expr_new(&E->ar, NL_X_NUM, g->line, g->col, NULL, NULL);
    if (!x) return nle_oom(E);
    int t[NL_POLY_MAXDEG] = { 0 },
        d = 1; /* the monomial of coefficient j >= 1: x_t[0] .. x_t[d-1] */
    for (int j = 0; j < nc; j++) {
        double v;
        if (nle_value(E, sc, cd, &f[i + j], &v)) return E->r->status;
        if (j == 0) {
            x->num = v;
            continue;
        }
        if (j <= n) t[0] = j - 1;                     /* degree 1: x_j */
        else if (j == n + 1 || !poly_next(t, d, n)) { /* the first monomial of the next degree */
            if (++d > NL_POLY_MAXDEG)
                return nle_err(E, sc, cd, &f[i + j],
                               "POLY(%d) of %s: coefficient %d is of degree above %d", n, f[0].u.s,
                               j, NL_POLY_MAXDEG);
            memset(t, 0, sizeof t);
        }
        if (v != 0
            && !(x = poly_add(E, x, poly_mono(E, v, t, d, node, g->line, g->col), g->line, g->col)))
            return nle_oom(E);
    }
    nl_field xf = { NL_F_EXPR, g->line, g->col, 0, { NULL }, NULL };
    xf.u.x = x;
    E->c->el[el].kind = nsc_device_of(E->c->el[el].kind)->card_expr->kind; /* B V= (E), B I= (G) */
    return b_compile(E, sc, cd, el, &xf, cd->nf);
}

/* E G: n+ n- nc+ nc- gain | E: n+ n- TABLE ... */
static nsc_status card_eg(elab *E, scope *sc, const nl_card *cd, const nsc_device *dev)
{
    const nl_field *f = cd->f;
    nsc_elkind k = dev->kind;
    int el;
    if (nle_element_new(E, sc, cd, k, &el)) return E->r->status;
    if (cd->nf > 3) {
        const nl_field *g = &f[3];
        const char *w = g->kind == NL_F_WORD || g->kind == NL_F_CALL          ? g->u.s
                        : g->kind == NL_F_PAIR && g->sub[0].kind == NL_F_WORD ? g->sub[0].u.s
                                                                              : "";
        if (nsc_strieq(w, "table")) {
            if (!dev->card_table)
                return nle_err(E, sc, cd, g, "TABLE form is supported for E only, not for %s",
                               f[0].u.s);
            if (nle_nodes(E, sc, cd, el, 2)) return E->r->status;
            return card_etable(E, sc, cd, el, 3, dev->card_table->kind);
        }
        /* PSpice E/G VALUE={expr}, ngspice vol='expr' / cur='expr': a B source */
        int isval = nsc_strieq(w, "value") || nsc_strieq(w, "vol") || nsc_strieq(w, "cur");
        if (dev->card_expr && isval
            && (g->kind == NL_F_PAIR || (cd->nf > 4 && f[4].kind == NL_F_EXPR))) {
            if (nle_nodes(E, sc, cd, el, 2)) return E->r->status;
            E->c->el[el].kind = dev->card_expr->kind;
            return b_compile(E, sc, cd, el, g->kind == NL_F_PAIR ? &g->sub[1] : &f[4],
                             g->kind == NL_F_PAIR ? 4 : 5);
        }
        if (dev->card_expr && nsc_strieq(w, "poly") && g->kind == NL_F_CALL)
            return nle_nodes(E, sc, cd, el, 2) ? E->r->status : card_poly(E, sc, cd, el, 3);
        if (isval || nsc_strieq(w, "poly") || nsc_strieq(w, "laplace") || nsc_strieq(w, "freq"))
            return nle_err(E, sc, cd, g, "%s form of %s is not supported", w, f[0].u.s);
    }
    if (nle_nodes(E, sc, cd, el, 4)) return E->r->status;
    if (cd->nf < 6)
        return nle_err(E, sc, cd, NULL, "missing gain for %s %s", nle_kind_name(k), f[0].u.s);
    if (cd->nf > 6)
        return nle_err(E, sc, cd, &f[6], "unexpected '%s' in %s %s", nle_ftext(&f[6]),
                       nle_kind_name(k), f[0].u.s);
    double v;
    if (nle_value(E, sc, cd, &f[5], &v)) return E->r->status;
    E->c->el[el].value = v;
    return NSC_OK;
}

/* Xyce's generic switch S n+ n- model [ON|OFF] CONTROL={expr} (field xf): the
 * switch of dev_s.c whose control is the internal node <el>#ctl (to ground),
 * which a B source <el>#ctl drives to V = expr. */
static nsc_status card_s_control(elab *E, scope *sc, const nl_card *cd, const nl_field *xf)
{
    const nl_field *f = cd->f;
    int el, n;
    if (nle_element_new(E, sc, cd, NSC_EL_S, &el) || nle_nodes(E, sc, cd, el, 2))
        return E->r->status;
    if (cd->nf < 4 || &f[3] == xf)
        return nle_err(E, sc, cd, NULL, "missing model name for switch %s", f[0].u.s);
    if (nle_model_ref(E, sc, cd, &f[3], el)) return E->r->status;
    for (int i = 4; i < cd->nf; i++) {
        if (&f[i] == xf) continue;
        if (nle_is_word(&f[i], "on") || nle_is_word(&f[i], "off")) {
            E->c->el[el].has_ic = 1; /* the state the static problem starts from */
            E->c->el[el].ic = nle_is_word(&f[i], "on");
        } else nle_warn(E, sc, cd, &f[i], "'%s' of switch %s ignored", nle_ftext(&f[i]), f[0].u.s);
    }
    if (internal_node(E, sc, cd, xf, el, "ctl", "CONTROL= of ", &n)) return E->r->status;
    E->c->el[el].nnode = 4;
    E->c->el[el].node[2] = n;
    E->c->el[el].node[3] = 0;
    if (nle_parasitic(E, sc, cd, el, "ctl", NSC_EL_BV, 0, n, 0)) return E->r->status;
    return b_compile(E, sc, cd, E->c->nel - 1, &xf->sub[1], cd->nf);
}

/* The CONTROL= field of a switch card, NULL when none. */
static const nl_field *control_field(const nl_card *cd)
{
    char key[16];
    for (int i = 3; i < cd->nf; i++) {
        const char *kk = nle_pair_key(&cd->f[i], key, sizeof key);
        if (kk && !strcmp(kk, "control")) return &cd->f[i];
    }
    return NULL;
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

/* B n+ n- V=expr | I=expr: the expression compiled to an exact PWL program
 * (nl_pwl.c); node names in V() resolve in the card's scope, I() names are
 * voltage sources resolved at the end (fixups). */
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

/* 1 when V-type source e's program p holds the output voltage v(n+) - v(n-)
 * with gain 1 in its linear part: in its row 0 = v(n+) - v(n-) - out the own
 * voltage cancels (B1 a 0 V=-abs(V(a))+V(b) as 2 ramp(v(a)) - v(a) ...: a
 * singular matrix) */
static int b_self_cancels(const nsc_element *e, const nsc_bprog *p)
{
    if (nsc_device_of(e->kind)->topo != NSC_TOPO_VDEF || e->node[0] == e->node[1])
        return 0; /* B V= */
    double g[2] = { 0, 0 };
    for (int k = p->out.t0; k < p->out.t0 + p->out.nt; k++)
        for (int q = 0; q < 2; q++)
            if (p->term[k].kind == NSC_BT_V && p->term[k].idx == e->node[q] && e->node[q])
                g[q] = p->term[k].coef;
    return (!e->node[0] || fabs(1 - g[0]) <= 1e-12) && (!e->node[1] || fabs(1 + g[1]) <= 1e-12);
}

/* element el's expression x compiled (fields from `from` on are ignored with a warning) */
static nsc_status b_compile(elab *E, scope *sc, const nl_card *cd, int el, const nl_field *x,
                            int from)
{
    if (x->kind != NL_F_EXPR)
        return nle_err(E, sc, cd, x, "%s %s: expected an expression, found '%s'",
                       nle_kind_name(E->c->el[el].kind), cd->f[0].u.s, nle_ftext(x));
    for (int q = from; q < cd->nf; q++)
        nle_warn(E, sc, cd, &cd->f[q], "%s %s: '%s' is ignored", nle_kind_name(E->c->el[el].kind),
                 cd->f[0].u.s, nle_ftext(&cd->f[q]));
    nl_env env = { nle_scope_lookup, sc, E->d->files[cd->file], sc->where, E->funcs, E->nfunc };
    bctx B = { E, sc, cd, el };
    nl_pwl_env pe = { &env, b_node, b_branch, &B, 0 };
    nsc_bprog *p;
    nsc_status st = nl_pwl_compile(x->u.x, &pe, &p, E->r);
    if (!st && b_self_cancels(&E->c->el[el], p)) { /* the mirrored forms may keep it */
        nsc_bprog_free(p);
        pe.mirror = 1;
        if (!(st = nl_pwl_compile(x->u.x, &pe, &p, E->r)) && b_self_cancels(&E->c->el[el], p)) {
            nsc_bprog_free(p);
            return nle_err(
                E, sc, cd, x,
                "behavioural source %s reads its own output V(%s%s%s) with gain 1 outside "
                "its nonsmooth functions: it cancels from the source's equation, which then does not "
                "determine it",
                cd->f[0].u.s, E->c->node_name[E->c->el[el].node[0]],
                E->c->el[el].node[1] ? "," : "",
                E->c->el[el].node[1] ? E->c->node_name[E->c->el[el].node[1]] : "");
        }
    }
    if (!st) {
        E->c->el[el].priv = p; /* the device's data (devices/bprog.h) */
        E->c->el[el].priv_free = nsc_bprog_free;
    }
    return st;
}

static nsc_status card_b(elab *E, scope *sc, const nl_card *cd, const nsc_device *d)
{
    char k[8];
    const nl_field *f = cd->nf >= 4 ? &cd->f[3] : NULL;
    const char *key = f ? nle_pair_key(f, k, sizeof k) : NULL;
    if (!key || (strcmp(key, "v") && strcmp(key, "i")))
        return nle_err(E, sc, cd, f,
                       "behavioural source %s: expected V=expr or I=expr after the two nodes",
                       cd->f[0].u.s);
    int el;
    nsc_status st = nle_element_new(E, sc, cd, key[0] == 'v' ? d->kind : d->card_expr->kind, &el);
    if (st || (st = nle_nodes(E, sc, cd, el, 2))) return st;
    return b_compile(E, sc, cd, el, &f->sub[1], 4);
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

static nsc_status v_expand(const nsc_cardview *v, int el, int how, int mi)
{
    const view_ctx *x = v->ctx;
    return how == NSC_EXPAND_VDMOS  ? nle_vdmos_expand(x->E, x->sc, x->cd, el, mi)
           : how == NSC_EXPAND_RDRS ? nle_mos_expand(x->E, x->sc, x->cd, el)
                                    : nle_bjt_expand(x->E, x->sc, x->cd, el);
}

static nsc_status v_parallel(const nsc_cardview *v, int el)
{
    const view_ctx *x = v->ctx;
    return parallel_expanded(x->E, nsc_device_of(x->E->c->el[el].kind), el);
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
    .series_r = v_series_r,
    .parasitic = v_parasitic,
    .expand = v_expand,
    .parallel = v_parallel,
};

/* Card cd read by its device d's own parser through the view; the variants of
 * its card that stand for parts this stage builds (card_opt: a resistor that
 * reads time, a charge Q=, a switch's CONTROL=) first. */
static nsc_status card_own(elab *E, scope *sc, const nl_card *cd, const nsc_device *d)
{
    const nl_field *tv = d->card_opt & NSC_CARDOPT_TIMESW ? time_value(cd) : NULL;
    if (tv) return card_r_time(E, sc, cd, tv);
    int isq;
    const nl_field *qv = d->card_opt & NSC_CARDOPT_CHARGE ? nle_cq_field(cd, &isq) : NULL;
    if (qv) return nle_card_cq(E, sc, cd, qv, isq);
    const nl_field *xf = d->card_opt & NSC_CARDOPT_CONTROL ? control_field(cd) : NULL;
    if (xf) return card_s_control(E, sc, cd, xf);
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
    case NSC_CARD_VCTRL: return card_eg(E, sc, cd, d);
    case NSC_CARD_BEHAV: return card_b(E, sc, cd, d);
    case NSC_CARD_XSPICE: return nle_card_a(E, sc, cd);
    case NSC_CARD_NONE: break;
    }
    if (ch == 'x') return nle_card_x(E, sc, cd);
    if (ch >= 'a' && ch <= 'z' && UNSUPPORTED_EL[ch - 'a'])
        return nle_err(E, sc, cd, NULL, "unsupported element %s: %s are not supported; use %s",
                       cd->f[0].u.s, UNSUPPORTED_EL[ch - 'a'], UNSUPPORTED_USE[ch - 'a']);
    return nle_err(E, sc, cd, NULL, "unknown element type '%c' (card '%s')", cd->f[0].u.s[0],
                   cd->f[0].u.s);
}
