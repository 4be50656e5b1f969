/* cards_expr.c -- the card forms whose fields are expressions, read through the
 * card view (lcs/card.h) like every other card: the controlled sources E G
 * (n+ n- nc+ nc- gain; E's TABLE; VALUE= and POLY(n), which make a behavioural
 * source), the behavioural source B (V=expr, I=expr) and Xyce's generic switch
 * S n+ n- model CONTROL={expr} (a switch a B source drives). The netlist stage
 * only compiles an expression for them (op->compile: the program of
 * devices/bprog.h, plain data) and builds one from fields (op->x_*: POLY); what
 * each field means and every message about it are here.
 *
 * Invariants: each card makes one element, of the device's kind or of the kind
 * its form makes (card_table: E TABLE; card_expr: B V= for E, B I= for G and B's
 * I=); an element whose form is an expression keeps its program in its priv
 * (freed by nsc_bprog_free); E TABLE's points in its priv (device.h nsc_etab). */
#include "bprog.h"
#include "cards.h"
#include "device.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 1 when V-type source e's program p holds the output voltage v(n+) - v(n-)
 * with gain 1 in its linear part: in its row 0 = v(n+) - v(n-) - out the own
 * voltage cancels (B1 a 0 V=-abs(V(a))+V(b) as 2 ramp(v(a)) - v(a) ...: a
 * singular matrix) */
static int self_cancels(const nsc_element *e, const nsc_bprog *p)
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

/* the error of a program that reads its own output (self_cancels) */
static nsc_status self_cancel_err(const nsc_cardview *v, const nsc_cfield *x, int el)
{
    const nsc_element *e = &v->c->el[el];
    return nsc_card_err(
        v, x,
        "behavioural source %s reads its own output V(%s%s%s) with gain 1 outside "
        "its nonsmooth functions: it cancels from the source's equation, which then does not "
        "determine it",
        v->f[0].u.s, v->c->node_name[e->node[0]], e->node[1] ? "," : "",
        e->node[1] ? v->c->node_name[e->node[1]] : "");
}

nsc_status nsc_card_program(const nsc_cardview *v, const nsc_cfield *x, int el, int from)
{
    const char *what = nsc_device_of(v->c->el[el].kind)->name;
    if (x->kind != NSC_CF_EXPR)
        return nsc_card_err(v, x, "%s %s: expected an expression, found '%s'", what, v->f[0].u.s,
                            nsc_card_text(x));
    for (int q = from; q < v->nf; q++)
        nsc_card_warn(v, &v->f[q], "%s %s: '%s' is ignored", what, v->f[0].u.s,
                      nsc_card_text(&v->f[q]));
    nsc_bprog *p;
    nsc_status st = v->op->compile(v, x, el, 0, &p);
    if (!st && self_cancels(&v->c->el[el], p)) { /* the mirrored forms may keep it */
        nsc_bprog_free(p);
        if (!(st = v->op->compile(v, x, el, 1, &p)) && self_cancels(&v->c->el[el], p)) {
            nsc_bprog_free(p);
            return self_cancel_err(v, x, el);
        }
    }
    if (!st) {
        v->c->el[el].priv = p; /* the device's data (devices/bprog.h) */
        v->c->el[el].priv_free = nsc_bprog_free;
    }
    return st;
}

/* ---- B n+ n- V=expr | I=expr ---- */

nsc_status nsc_card_behav(const nsc_device *d, const nsc_cardview *v)
{
    char k[8];
    const nsc_cfield *f = v->nf >= 4 ? &v->f[3] : NULL;
    const char *key = f ? nsc_card_key(f, k, sizeof k) : NULL;
    if (!key || (strcmp(key, "v") && strcmp(key, "i")))
        return nsc_card_err(v, f,
                            "behavioural source %s: expected V=expr or I=expr after the two nodes",
                            v->f[0].u.s);
    int el;
    nsc_status st = v->op->element(v, key[0] == 'v' ? d->kind : d->card_expr->kind, &el);
    if (st || (st = v->op->nodes(v, el, 2))) return st;
    return nsc_card_program(v, &f->sub[1], el, 4);
}

/* ---- S n+ n- model [ON|OFF] CONTROL={expr} ---- */

/* Xyce's generic switch: the switch of dev_s.c whose control is the internal
 * node <el>#ctl (to ground), which a behavioural source <el>#ctl drives to
 * V = expr. */
nsc_status nsc_card_control(const nsc_device *d, const nsc_cardview *v, const nsc_cfield *xf)
{
    const nsc_cfield *f = v->f;
    int el, n;
    nsc_status st = v->op->element(v, d->kind, &el);
    if (st || (st = v->op->nodes(v, el, 2))) return st;
    if (v->nf < 4 || &f[3] == xf)
        return nsc_card_err(v, NULL, "missing model name for switch %s", f[0].u.s);
    if ((st = v->op->model(v, &f[3], el))) return st;
    for (int i = 4; i < v->nf; i++) {
        if (&f[i] == xf) continue;
        if (nsc_card_is_word(&f[i], "on") || nsc_card_is_word(&f[i], "off")) {
            v->c->el[el].has_ic = 1; /* the state the static problem starts from */
            v->c->el[el].ic = nsc_card_is_word(&f[i], "on");
        } else nsc_card_warn(v, &f[i], "'%s' of switch %s ignored", nsc_card_text(&f[i]), f[0].u.s);
    }
    if ((st = v->op->inode(v, xf, el, "ctl", "CONTROL= of ", &n))) return st;
    nsc_element *e = &v->c->el[el];
    e->nnode = 4;
    e->node[2] = n;
    e->node[3] = 0;
    if ((st = v->op->parasitic(v, el, "ctl", NSC_EL_BV, 0, n, 0))) return st;
    return nsc_card_program(v, &xf->sub[1], v->c->nel - 1, v->nf);
}

/* ---- E TABLE {V(a[,b])} = (x1,y1) (x2,y2) ... ---- */

/* append the values of fields f[0..n) (groups flattened) to *xy (*nv of *cap) */
static nsc_status table_values(const nsc_cardview *v, const nsc_cfield *f, int n, double **xy,
                               int *nv, int *cap)
{
    nsc_status st;
    for (int i = 0; i < n; i++) {
        if (f[i].kind == NSC_CF_GROUP) {
            if ((st = table_values(v, f[i].sub, f[i].nsub, xy, nv, cap))) return st;
            continue;
        }
        if (nsc_grow((void **)xy, cap, *nv + 1, sizeof **xy)) return v->op->oom(v);
        if ((st = v->op->value(v, &f[i], &(*xy)[*nv]))) return st;
        (*nv)++;
    }
    return NSC_OK;
}

/* the points xy[0 .. nv) of TABLE field at of the card: at least two, x
 * non-decreasing, at most two points at one x (a step) */
static nsc_status table_check(const nsc_cardview *v, const nsc_cfield *at, const double *xy, int nv)
{
    const char *nm = v->f[0].u.s;
    if (nv < 4 || nv % 2)
        return nsc_card_err(v, at, "TABLE of %s needs at least two (x,y) points", nm);
    for (int j = 2; j < nv; j += 2) {
        if (xy[j] < xy[j - 2])
            return nsc_card_err(v, at, "TABLE x values of %s must be non-decreasing (%g after %g)",
                                nm, xy[j], xy[j - 2]);
        if (j >= 4 && xy[j] == xy[j - 2] && xy[j] == xy[j - 4])
            return nsc_card_err(v, at, "TABLE of %s has more than two points at x = %g", nm, xy[j]);
    }
    return NSC_OK;
}

/* element el (nodes n+ n- read) a table of kind `kind` from field i (the TABLE
 * word): its control's nodes its nodes 2 and 3, its points its priv */
static nsc_status table(const nsc_cardview *v, int el, int i, nsc_elkind kind)
{
    const nsc_cfield *f = v->f;
    v->c->el[el].kind = kind;
    if (i + 1 >= v->nf)
        return nsc_card_err(v, &f[i], "missing {V(node)} after TABLE in %s", f[0].u.s);
    const nsc_cfield *ctl = &f[i + 1], *first = NULL;
    if (ctl->kind == NSC_CF_PAIR) { /* {V(a)}=(x1,y1) ...: the first point after '=' */
        first = &ctl->sub[1];
        ctl = &ctl->sub[0];
    }
    int nd[2], n;
    nsc_status st = v->op->vnodes(v, ctl, nd, &n);
    if (st) return st;
    if (!n)
        return nsc_card_err(v, ctl, "TABLE of %s: the control must be {V(node)} or {V(node,node)}",
                            f[0].u.s);
    for (int k = 0; k < n; k++) v->c->el[el].node[2 + k] = nd[k];
    v->c->el[el].nnode = 4;
    double *xy = NULL;
    int nv = 0, cap = 0;
    if (first) st = table_values(v, first, 1, &xy, &nv, &cap);
    if (!st) st = table_values(v, &f[i + 2], v->nf - i - 2, &xy, &nv, &cap);
    if (!st) st = table_check(v, &f[i], xy, nv);
    nsc_etab *t = st ? NULL : malloc(sizeof *t + sizeof(double) * (size_t)nv);
    if (t) {
        t->n = nv / 2;
        memcpy(t->xy, xy, sizeof(double) * (size_t)nv);
    }
    free(xy);
    if (st || !t) return st ? st : v->op->oom(v);
    v->c->el[el].priv = t; /* the device's data (device.h nsc_etab) */
    return NSC_OK;
}

/* ---- E G n+ n- POLY(n) nc1+ nc1- ... c0 c1 ... ---- */

/* c x_t[0] x_t[1] ... x_t[d-1], x_k = V(node[2k], node[2k+1]) (a monomial of a
 * POLY; at: the POLY field) */
static struct nl_expr *poly_mono(const nsc_cardview *v, const nsc_cfield *at, double c,
                                 const int *t, int d, const char *const *node)
{
    const nsc_cardops *o = v->op;
    struct nl_expr *x = o->x_op(v, at, '*', o->x_num(v, at, c),
                                o->x_volt(v, at, node[2 * t[0]], node[2 * t[0] + 1]));
    for (int q = 1; q < d && x; q++)
        x = o->x_op(v, at, '*', x, o->x_volt(v, at, node[2 * t[q]], node[2 * t[q] + 1]));
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

#define POLY_MAXDEG 32

/* *n and node[0 .. 2n) = POLY(n)'s control node pairs from field *i on (also
 * as groups (a, b)); *i after them. g: the POLY field. */
static nsc_status poly_nodes(const nsc_cardview *v, const nsc_cfield *g, int *i, int *n,
                             const char **node)
{
    const nsc_cfield *f = v->f;
    double nd;
    nsc_status st = NSC_OK;
    if (g->kind != NSC_CF_CALL || g->nsub != 1 || (st = v->op->value(v, &g->sub[0], &nd)))
        return st ? st : nsc_card_err(v, g, "expected POLY(n) in %s", f[0].u.s);
    if (!(nd >= 1 && nd <= 64 && nd == floor(nd)))
        return nsc_card_err(v, g, "POLY(%g) of %s: n must be 1 to 64", nd, f[0].u.s);
    int k = 0;
    *n = (int)nd;
    for (; *i < v->nf && k < 2 * *n; (*i)++) {
        const nsc_cfield *q = &f[*i];
        if (q->kind == NSC_CF_GROUP && q->nsub == 2 && q->sub[0].kind == NSC_CF_WORD
            && q->sub[1].kind == NSC_CF_WORD) {
            node[k++] = q->sub[0].u.s;
            node[k++] = q->sub[1].u.s;
        } else if (q->kind == NSC_CF_WORD) node[k++] = q->u.s;
        else break;
    }
    if (k < 2 * *n)
        return nsc_card_err(v, *i < v->nf ? &f[*i] : g, "POLY(%d) of %s needs %d control nodes", *n,
                            f[0].u.s, 2 * *n);
    if (v->nf - *i < 1) return nsc_card_err(v, g, "POLY(%d) of %s: no coefficients", *n, f[0].u.s);
    return NSC_OK;
}

/* E G: n+ n- POLY(n) nc1+ nc1- ... ncn+ ncn- c0 c1 ... (pairs also as (a, b)):
 * SPICE's polynomial of the n control voltages x_k, a B source of
 * c0 + c1 x1 + ... + cn xn + (degree 2: x1^2, x1 x2, .., x1 xn, x2^2, ..)
 * + (degree 3: x1^3, x1^2 x2, ..): the monomials of each degree in the
 * lexicographic order of their nondecreasing index tuples, as SPICE2 and
 * ngspice 39. The affine part is exact, the higher degrees a smooth function
 * (nl_pwl.c, solved by Newton). One coefficient is c0, as ngspice 39 reads it
 * (SPICE2 took it as c1). Field i is the POLY call. */
static nsc_status poly(const nsc_device *d, const nsc_cardview *v, int el, int i)
{
    const nsc_cfield *f = v->f, *g = &f[i];
    const char *node[128];
    int n = 0;
    i++;
    nsc_status st = poly_nodes(v, g, &i, &n, node);
    if (st) return st;
    int nc = v->nf - i;
    struct nl_expr *x = NULL; /* c0 + ... (nc >= 1: made at j = 0) */
    int t[POLY_MAXDEG] = { 0 },
        dg = 1; /* the monomial of coefficient j >= 1: x_t[0] .. x_t[dg-1] */
    for (int j = 0; j < nc; j++) {
        double c;
        if ((st = v->op->value(v, &f[i + j], &c))) return st;
        if (j == 0) {
            x = v->op->x_num(v, g, c);
            if (!x) return v->op->oom(v);
            continue;
        }
        if (j <= n) t[0] = j - 1;                      /* degree 1: x_j */
        else if (j == n + 1 || !poly_next(t, dg, n)) { /* the first monomial of the next degree */
            if (++dg > POLY_MAXDEG)
                return nsc_card_err(v, &f[i + j],
                                    "POLY(%d) of %s: coefficient %d is of degree above %d", n,
                                    f[0].u.s, j, POLY_MAXDEG);
            memset(t, 0, sizeof t);
        }
        if (c != 0 && !(x = v->op->x_op(v, g, '+', x, poly_mono(v, g, c, t, dg, node))))
            return v->op->oom(v);
    }
    nsc_cfield xf = { NSC_CF_EXPR, g->line, g->col, 0, { NULL }, NULL };
    xf.u.x = x;
    v->c->el[el].kind = d->card_expr->kind; /* B V= (E), B I= (G) */
    return nsc_card_program(v, &xf, el, v->nf);
}

/* ---- E G n+ n- nc+ nc- gain, and the forms above ---- */

/* the word that names the form of a card whose field 3 is g ("" when none) */
static const char *form_word(const nsc_cfield *g)
{
    return g->kind == NSC_CF_WORD || g->kind == NSC_CF_CALL          ? g->u.s
           : g->kind == NSC_CF_PAIR && g->sub[0].kind == NSC_CF_WORD ? g->sub[0].u.s
                                                                     : "";
}

/* the forms named by field 3 (TABLE, VALUE= vol= cur=, POLY): *done = 1 when
 * it named one (read, or refused) */
static nsc_status vctrl_form(const nsc_device *d, const nsc_cardview *v, int el, int *done)
{
    const nsc_cfield *f = v->f, *g = &f[3];
    const char *w = form_word(g);
    nsc_status st;
    *done = 1;
    if (nsc_strieq(w, "table")) {
        if (!d->card_table)
            return nsc_card_err(v, g, "TABLE form is supported for E only, not for %s", f[0].u.s);
        return (st = v->op->nodes(v, el, 2)) ? st : table(v, el, 3, d->card_table->kind);
    }
    /* PSpice E/G VALUE={expr}, ngspice vol='expr' / cur='expr': a B source */
    int isval = nsc_strieq(w, "value") || nsc_strieq(w, "vol") || nsc_strieq(w, "cur");
    if (d->card_expr && isval
        && (g->kind == NSC_CF_PAIR || (v->nf > 4 && f[4].kind == NSC_CF_EXPR))) {
        if ((st = v->op->nodes(v, el, 2))) return st;
        v->c->el[el].kind = d->card_expr->kind;
        return nsc_card_program(v, g->kind == NSC_CF_PAIR ? &g->sub[1] : &f[4], el,
                                g->kind == NSC_CF_PAIR ? 4 : 5);
    }
    if (d->card_expr && nsc_strieq(w, "poly") && g->kind == NSC_CF_CALL)
        return (st = v->op->nodes(v, el, 2)) ? st : poly(d, v, el, 3);
    if (isval || nsc_strieq(w, "poly") || nsc_strieq(w, "laplace") || nsc_strieq(w, "freq"))
        return nsc_card_err(v, g, "%s form of %s is not supported", w, f[0].u.s);
    *done = 0;
    return NSC_OK;
}

nsc_status nsc_card_vctrl(const nsc_device *d, const nsc_cardview *v)
{
    const nsc_cfield *f = v->f;
    int el, done = 0;
    nsc_status st = v->op->element(v, d->kind, &el);
    if (!st && v->nf > 3) st = vctrl_form(d, v, el, &done);
    if (st || done) return st;
    if ((st = v->op->nodes(v, el, 4))) return st;
    if (v->nf < 6) return nsc_card_err(v, NULL, "missing gain for %s %s", d->name, f[0].u.s);
    if (v->nf > 6)
        return nsc_card_err(v, &f[6], "unexpected '%s' in %s %s", nsc_card_text(&f[6]), d->name,
                            f[0].u.s);
    double g;
    if ((st = v->op->value(v, &f[5], &g))) return st;
    v->c->el[el].value = g;
    return NSC_OK;
}
