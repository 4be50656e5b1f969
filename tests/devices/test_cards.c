/* test_cards.c -- a device's own card parser behind the card view (lcs/card.h,
 * devices/cards.c, devices/cards_expr.c): driven here by a stand-in for the
 * netlist stage (plain fields, numbers read by strtod, elements appended to a
 * bare circuit, errors formatted `file:line:col: error:`, expressions as their
 * text: built ones written out in full, compiled ones recorded), so that what
 * the parser reads and says is the device file's alone; the netlist's own view
 * is checked through whole netlists (tests/bad, the elab suite). */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices/bprog.h"
#include "devices/cards.h"
#include "devices/device.h"

/* the stand-in's state: the circuit built, the references asked for, the last
 * message; the expressions it built (their text, freed at the end), the text
 * of the last one compiled and its mirror flag; cancel: 1 the first compile of
 * each expression gives a program that reads its own output V(1,2) with gain
 * 1 (the mirrored one does not), 2 both do */
typedef struct stub {
    nsc_circuit c;
    const char *ref[2];
    char msg[256];
    int nwarn;
    char *built[64];
    int nbuilt;
    char compiled[256];
    int mirror, ncompile, cancel;
} stub;

static nsc_status s_verr(const nsc_cardview *v, const nsc_cfield *f, const char *fmt, va_list ap)
{
    stub *s = v->ctx;
    const nsc_cfield *at = f ? f : &v->f[0];
    int n = snprintf(s->msg, sizeof s->msg, "t.cir:%d:%d: error: ", at->line, at->col);
    vsnprintf(s->msg + n, sizeof s->msg - (size_t)n, fmt, ap);
    return NSC_ENETLIST;
}

static void s_vwarn(const nsc_cardview *v, const nsc_cfield *f, const char *fmt, va_list ap)
{
    stub *s = v->ctx;
    (void)f;
    vsnprintf(s->msg, sizeof s->msg, fmt, ap);
    s->nwarn++;
}

static nsc_status s_oom(const nsc_cardview *v)
{
    (void)v;
    return NSC_ENOMEM;
}

static int s_number(const nsc_cardview *v, const nsc_cfield *f, double *x)
{
    char *end;
    (void)v;
    if (f->kind != NSC_CF_WORD) return 0;
    *x = strtod(f->u.s, &end);
    return end != f->u.s && !*end;
}

static nsc_status s_value(const nsc_cardview *v, const nsc_cfield *f, double *x)
{
    return s_number(v, f, x) ? NSC_OK : nsc_card_err(v, f, "not a number '%s'", nsc_card_text(f));
}

static nsc_status s_element(const nsc_cardview *v, nsc_elkind k, int *el)
{
    nsc_circuit *c = v->c;
    nsc_element *e = realloc(c->el, sizeof *e * (size_t)(c->nel + 1));
    cr_assert(e);
    c->el = e;
    memset(&e[c->nel], 0, sizeof *e);
    e[c->nel].kind = k;
    e[c->nel].wave.repeat = -1;
    *el = c->nel++;
    return NSC_OK;
}

static nsc_status s_nodes(const nsc_cardview *v, int el, int n)
{
    if (v->nf < n + 1) return nsc_card_err(v, NULL, "missing nodes");
    v->c->el[el].nnode = n;
    for (int k = 0; k < n; k++) v->c->el[el].node[k] = k + 1;
    return NSC_OK;
}

static nsc_status s_ref(const nsc_cardview *v, const nsc_cfield *f, int el, int slot)
{
    ((stub *)v->ctx)->ref[slot] = f->u.s;
    v->c->el[el].ref[slot] = slot;
    return NSC_OK;
}

/* an expression of the stand-in is its text (a char array behind the opaque pointer) */
static struct nl_expr *s_text(stub *s, char *t)
{
    cr_assert(t && s->nbuilt < 64);
    s->built[s->nbuilt++] = t;
    return (struct nl_expr *)t;
}

static struct nl_expr *s_x_num(const nsc_cardview *v, const nsc_cfield *at, double c)
{
    (void)at;
    return s_text(v->ctx, nsc_asprintf("%g", c));
}

static struct nl_expr *s_x_volt(const nsc_cardview *v, const nsc_cfield *at, const char *p,
                                const char *m)
{
    (void)at;
    return s_text(v->ctx, nsc_asprintf("V(%s,%s)", p, m));
}

static struct nl_expr *s_x_op(const nsc_cardview *v, const nsc_cfield *at, int op,
                              struct nl_expr *a, struct nl_expr *b)
{
    (void)at;
    return s_text(v->ctx, nsc_asprintf("(%s%c%s)", (char *)a, op, (char *)b));
}

/* the expression's text recorded; its program empty, or v(1) - v(2) (cancel) */
static nsc_status s_compile(const nsc_cardview *v, const nsc_cfield *f, int el, int mirror,
                            nsc_bprog **p)
{
    stub *s = v->ctx;
    (void)el;
    cr_assert_eq(f->kind, NSC_CF_EXPR);
    snprintf(s->compiled, sizeof s->compiled, "%s", (const char *)f->u.x);
    s->mirror = mirror;
    s->ncompile++;
    *p = calloc(1, sizeof **p);
    cr_assert(*p);
    if (s->cancel == 2 || (s->cancel == 1 && !mirror)) {
        nsc_bterm *t = calloc(2, sizeof *t);
        cr_assert(t);
        t[0] = (nsc_bterm){ NSC_BT_V, 1, 1.0 };
        t[1] = (nsc_bterm){ NSC_BT_V, 2, -1.0 };
        (*p)->term = t;
        (*p)->nterm = (*p)->out.nt = 2;
    }
    return NSC_OK;
}

/* a model by its name (recorded as a reference in slot 1) */
static nsc_status s_model(const nsc_cardview *v, const nsc_cfield *f, int el)
{
    (void)el;
    ((stub *)v->ctx)->ref[1] = f->u.s;
    return NSC_OK;
}

/* an internal node is node 9 */
static nsc_status s_inode(const nsc_cardview *v, const nsc_cfield *f, int el, const char *what,
                          const char *of, int *n)
{
    (void)v, (void)f, (void)el, (void)what, (void)of;
    *n = 9;
    return NSC_OK;
}

/* a parasitic: an element of kind k from n0 to n1 */
static nsc_status s_parasitic(const nsc_cardview *v, int el, const char *what, nsc_elkind k,
                              double x, int n0, int n1)
{
    int p;
    (void)el, (void)what;
    nsc_status st = s_element(v, k, &p);
    v->c->el[p] = (nsc_element){ .kind = k, .nnode = 2, .node = { n0, n1 }, .value = x };
    return st;
}

/* {V(c)} is node 7 (the nodes of an element are 1, 2, ..), any other field none */
static nsc_status s_vnodes(const nsc_cardview *v, const nsc_cfield *f, int nd[2], int *n)
{
    (void)v;
    *n = 0;
    if (f->kind == NSC_CF_EXPR && !strcmp((const char *)f->u.x, "v(c)")) nd[(*n)++] = 7;
    return NSC_OK;
}

static const nsc_cardops STUB_OPS = {
    .verr = s_verr,
    .vwarn = s_vwarn,
    .oom = s_oom,
    .number = s_number,
    .value = s_value,
    .element = s_element,
    .nodes = s_nodes,
    .ref = s_ref,
    .model = s_model,
    .inode = s_inode,
    .parasitic = s_parasitic,
    .compile = s_compile,
    .vnodes = s_vnodes,
    .x_num = s_x_num,
    .x_volt = s_x_volt,
    .x_op = s_x_op,
};

#define X(text, col) \
    { \
        NSC_CF_EXPR, 1, col, 0, { .x = (struct nl_expr *)(text) }, NULL \
    }
#define W(text, col) \
    { \
        NSC_CF_WORD, 1, col, 0, { text }, NULL \
    }

/* card f[0..nf) read by the device of kind k through the stand-in view */
static nsc_status read_card(stub *s, nsc_elkind k, const nsc_cfield *f, int nf)
{
    nsc_cardview v = { f, nf, &s->c, 1.0, &STUB_OPS, s };
    const nsc_device *d = nsc_device_of(k);
    cr_assert(d->card == NSC_CARD_OWN && d->parse);
    return d->parse(d, &v);
}

static void stub_free(stub *s)
{
    for (int k = 0; k < s->c.nel; k++) {
        free(s->c.el[k].wave.p);
        if (s->c.el[k].priv_free) s->c.el[k].priv_free(s->c.el[k].priv);
        else free(s->c.el[k].priv);
    }
    free(s->c.el);
    for (int k = 0; k < s->nbuilt; k++) free(s->built[k]);
}

/* K la lb 0.5: one coupling element, k = 0.5, its inductors asked for by name
 * in slots 0 and 1; k = 1.5 is refused at the coefficient's column. */
Test(cards, coupling_is_read_by_its_device_through_the_view)
{
    stub s = { 0 };
    nsc_cfield f[] = { W("k1", 1), W("la", 4), W("lb", 7), W("0.5", 10) };
    cr_assert_eq(read_card(&s, NSC_EL_K, f, 4), NSC_OK);
    cr_assert_eq(s.c.nel, 1);
    cr_assert_eq(s.c.el[0].kind, NSC_EL_K);
    cr_assert_float_eq(s.c.el[0].value, 0.5, 0);
    cr_assert_str_eq(s.ref[0], "la");
    cr_assert_str_eq(s.ref[1], "lb");
    f[3].u.s = "1.5";
    cr_assert_eq(read_card(&s, NSC_EL_K, f, 4), NSC_ENETLIST);
    cr_assert_str_eq(s.msg, "t.cir:1:10: error: coupling coefficient 1.5 of k1 is not in (0, 1]");
    stub_free(&s);
}

/* V a 0 PULSE(0 5 1u): a pulse of 3 given values (the rest are defaults,
 * filled by the netlist stage once TSTOP is known), its DC from the wave at
 * t = 0; PULSE(0) alone is refused at the waveform's field. */
Test(cards, source_wave_is_read_by_its_device_through_the_view)
{
    stub s = { 0 };
    nsc_cfield args[] = { W("0", 14), W("5", 16), W("1e-6", 18) };
    nsc_cfield f[] = {
        W("v1", 1), W("a", 4), W("0", 6), { NSC_CF_CALL, 1, 8, 3, { "pulse" }, args }
    };
    cr_assert_eq(read_card(&s, NSC_EL_V, f, 4), NSC_OK);
    const nsc_wave *w = &s.c.el[0].wave;
    cr_assert_eq(w->kind, NSC_WAVE_PULSE);
    cr_assert_eq(w->np, 3);
    cr_assert_eq(w->ngiven, 3);
    cr_assert(w->dc_from_wave);
    cr_assert_float_eq(w->p[1], 5.0, 0);
    cr_assert_float_eq(w->p[2], 1e-6, 0);
    f[3].nsub = 1;
    cr_assert_eq(read_card(&s, NSC_EL_V, f, 4), NSC_ENETLIST);
    cr_assert_str_eq(s.msg, "t.cir:1:8: error: PULSE of v1 needs at least 2 values");
    stub_free(&s);
}

/* F n+ n- vsense 2 3: the extra field is refused where it stands, by the
 * device's name from the table ("current-controlled current source"). */
Test(cards, ictrl_refuses_an_extra_field_where_it_stands)
{
    stub s = { 0 };
    nsc_cfield f[] = { W("f1", 1), W("a", 4), W("0", 6), W("vs", 8), W("2", 11), W("3", 13) };
    cr_assert_eq(read_card(&s, NSC_EL_F, f, 6), NSC_ENETLIST);
    char want[200];
    snprintf(want, sizeof want, "t.cir:1:13: error: unexpected '3' in %s f1",
             nsc_device_of(NSC_EL_F)->name);
    cr_assert_str_eq(s.msg, want);
    cr_assert_float_eq(s.c.el[0].value, 0.0, 0); /* nothing read past the refusal */
    f[5] = f[4];
    cr_assert_eq(read_card(&s, NSC_EL_F, f, 5), NSC_OK);
    cr_assert_float_eq(s.c.el[1].value, 2.0, 0);
    cr_assert_str_eq(s.ref[0], "vs");
    stub_free(&s);
}

/* E n+ n- POLY(2) a 0 c 0 1 2 3 0 5: the behavioural source of
 * 1 + 2 x1 + 3 x2 + 0 x1^2 + 5 x1 x2 (x1 = V(a,0), x2 = V(c,0)): the
 * monomials of degree 2 in SPICE's order (x1^2, x1 x2, x2^2), a zero
 * coefficient's left out, built through the view's builders; a field that is
 * not a node where a control node is due is refused where it stands. */
Test(cards, poly_is_built_in_spice_order_by_its_device)
{
    stub s = { 0 };
    nsc_cfield n2[] = { W("2", 13) };
    nsc_cfield f[] = { W("e1", 1), W("b", 4),  W("0", 6),  { NSC_CF_CALL, 1, 8, 1, { "poly" }, n2 },
                       W("a", 16), W("0", 18), W("c", 20), W("0", 22),
                       W("1", 24), W("2", 26), W("3", 28), W("0", 30),
                       W("5", 32) };
    cr_assert_eq(read_card(&s, NSC_EL_E, f, 13), NSC_OK);
    cr_assert_eq(s.c.el[0].kind, NSC_EL_BV);
    cr_assert_eq(s.c.el[0].nnode, 2);
    cr_assert_str_eq(s.compiled, "(((1+(2*V(a,0)))+(3*V(c,0)))+((5*V(a,0))*V(c,0)))");
    cr_assert(s.c.el[0].priv && s.c.el[0].priv_free == nsc_bprog_free);
    nsc_cfield g[] = { W("g1", 1), W("b", 4),
                       W("0", 6),  f[3],
                       W("a", 16), W("0", 18),
                       W("c", 20), { NSC_CF_STRING, 1, 22, 0, { "x" }, NULL } };
    cr_assert_eq(read_card(&s, NSC_EL_G, g, 8), NSC_ENETLIST);
    cr_assert_str_eq(s.msg, "t.cir:1:22: error: POLY(2) of g1 needs 4 control nodes");
    stub_free(&s);
}

/* E b 0 TABLE {V(c)}=(0,0) (1,2): an E TABLE element, its control node its
 * node 2, its points its data; x values that go back are refused at the TABLE
 * word, a control that is not V() at the control, a G TABLE at the word. */
Test(cards, etable_is_read_by_its_device_errors_at_the_right_field)
{
    stub s = { 0 };
    nsc_cfield p0[] = { W("0", 22), W("0", 24) }, p1[] = { W("1", 28), W("2", 30) };
    nsc_cfield ctl[] = { X("v(c)", 14), { NSC_CF_GROUP, 1, 21, 2, { NULL }, p0 } };
    nsc_cfield f[] = { W("e1", 1),
                       W("b", 4),
                       W("0", 6),
                       W("table", 8),
                       { NSC_CF_PAIR, 1, 14, 2, { NULL }, ctl },
                       { NSC_CF_GROUP, 1, 27, 2, { NULL }, p1 } };
    cr_assert_eq(read_card(&s, NSC_EL_E, f, 6), NSC_OK);
    const nsc_element *e = &s.c.el[0];
    cr_assert_eq(e->kind, NSC_EL_ETABLE);
    cr_assert_eq(e->nnode, 4);
    cr_assert_eq(e->node[2], 7);
    const nsc_etab *t = e->priv;
    cr_assert_eq(t->n, 2);
    cr_assert_float_eq(t->xy[2], 1.0, 0);
    cr_assert_float_eq(t->xy[3], 2.0, 0);
    p1[0].u.s = "-1";
    cr_assert_eq(read_card(&s, NSC_EL_E, f, 6), NSC_ENETLIST);
    cr_assert_str_eq(s.msg,
                     "t.cir:1:8: error: TABLE x values of e1 must be non-decreasing (-1 after 0)");
    ctl[0].u.x = (struct nl_expr *)"i(v1)";
    cr_assert_eq(read_card(&s, NSC_EL_E, f, 6), NSC_ENETLIST);
    cr_assert_str_eq(
        s.msg, "t.cir:1:14: error: TABLE of e1: the control must be {V(node)} or {V(node,node)}");
    f[0].u.s = "g1";
    cr_assert_eq(read_card(&s, NSC_EL_G, f, 6), NSC_ENETLIST);
    cr_assert_str_eq(s.msg, "t.cir:1:8: error: TABLE form is supported for E only, not for g1");
    stub_free(&s);
}

/* B b 0 V={v(a)*2} junk: a behavioural voltage source whose program is the
 * expression compiled (junk ignored with a warning), I= a current source; a
 * key other than V I is refused at the pair, a value that is no expression at
 * the value. A program that reads its own output V(b,c) with gain 1 is
 * compiled again in the mirrored forms and kept, refused at the expression
 * when that one does too. */
Test(cards, behavioural_source_compiles_its_expression_through_the_view)
{
    stub s = { 0 };
    char *names[] = { "0", "b", "c" };
    s.c.node_name = names;
    nsc_cfield kv[] = { W("v", 8), X("v(a)*2", 10) };
    nsc_cfield f[] = {
        W("b1", 1), W("b", 4), W("0", 6), { NSC_CF_PAIR, 1, 8, 2, { NULL }, kv }, W("junk", 19)
    };
    cr_assert_eq(read_card(&s, NSC_EL_BV, f, 5), NSC_OK);
    cr_assert_eq(s.c.el[0].kind, NSC_EL_BV);
    cr_assert_str_eq(s.compiled, "v(a)*2");
    cr_assert_eq(s.nwarn, 1);
    cr_assert_str_eq(s.msg, "behavioural source b1: 'junk' is ignored");
    kv[0].u.s = "i";
    cr_assert_eq(read_card(&s, NSC_EL_BV, f, 4), NSC_OK);
    cr_assert_eq(s.c.el[1].kind, NSC_EL_BI);
    kv[0].u.s = "x";
    cr_assert_eq(read_card(&s, NSC_EL_BV, f, 4), NSC_ENETLIST);
    cr_assert_str_eq(s.msg, "t.cir:1:8: error: behavioural source b1: expected V=expr or I=expr "
                            "after the two nodes");
    kv[0].u.s = "v";
    kv[1] = (nsc_cfield)W("3", 10);
    cr_assert_eq(read_card(&s, NSC_EL_BV, f, 4), NSC_ENETLIST);
    cr_assert_str_eq(s.msg,
                     "t.cir:1:10: error: behavioural source b1: expected an expression, found '3'");
    kv[1] = (nsc_cfield)X("v(b)", 10);
    s.cancel = 1;
    s.ncompile = 0;
    cr_assert_eq(read_card(&s, NSC_EL_BV, f, 4), NSC_OK);
    cr_assert_eq(s.ncompile, 2);
    cr_assert_eq(s.mirror, 1);
    cr_assert_eq(((const nsc_bprog *)s.c.el[3].priv)->nterm, 0); /* the mirrored program kept */
    s.cancel = 2;
    cr_assert_eq(read_card(&s, NSC_EL_BV, f, 4), NSC_ENETLIST);
    cr_assert(!strncmp(s.msg,
                       "t.cir:1:10: error: behavioural source b1 reads its own output V(b,c) with "
                       "gain 1",
                       80));
    cr_assert_null(s.c.el[4].priv);
    s.c.node_name = NULL;
    stub_free(&s);
}

/* G b 0 a 0 1m: a VCCS of gain 1e-3 on four nodes; without the gain refused at
 * the card's head, by the device's name. */
Test(cards, vccs_gain_is_read_by_its_device)
{
    stub s = { 0 };
    nsc_cfield f[] = { W("g1", 1), W("b", 4), W("0", 6), W("a", 8), W("0", 10), W("1e-3", 12) };
    cr_assert_eq(read_card(&s, NSC_EL_G, f, 6), NSC_OK);
    cr_assert_eq(s.c.el[0].kind, NSC_EL_G);
    cr_assert_eq(s.c.el[0].nnode, 4);
    cr_assert_float_eq(s.c.el[0].value, 1e-3, 0);
    cr_assert_eq(read_card(&s, NSC_EL_G, f, 5), NSC_ENETLIST);
    char want[200];
    snprintf(want, sizeof want, "t.cir:1:1: error: missing gain for %s g1",
             nsc_device_of(NSC_EL_G)->name);
    cr_assert_str_eq(s.msg, want);
    stub_free(&s);
}

/* S b 0 sw on CONTROL={v(a)>0.5}: a switch on four nodes, its control the
 * internal node (9) that a behavioural voltage source to ground drives to the
 * expression, initially on; without a model before CONTROL= refused at the
 * card's head. */
Test(cards, control_switch_is_a_switch_a_behavioural_source_drives)
{
    stub s = { 0 };
    nsc_cfield kv[] = { W("control", 15), X("v(a)>0.5", 23) };
    nsc_cfield f[] = { W("s1", 1), W("b", 4),   W("0", 6),
                       W("sw", 8), W("on", 11), { NSC_CF_PAIR, 1, 15, 2, { NULL }, kv } };
    cr_assert_eq(read_card(&s, NSC_EL_S, f, 6), NSC_OK);
    cr_assert_eq(s.c.nel, 2);
    const nsc_element *e = &s.c.el[0], *b = &s.c.el[1];
    cr_assert_eq(e->kind, NSC_EL_S);
    cr_assert_eq(e->nnode, 4);
    cr_assert(e->node[2] == 9 && e->node[3] == 0);
    cr_assert(e->has_ic && e->ic == 1);
    cr_assert_str_eq(s.ref[1], "sw");
    cr_assert(b->kind == NSC_EL_BV && b->node[0] == 9 && b->node[1] == 0);
    cr_assert_str_eq(s.compiled, "v(a)>0.5");
    cr_assert(b->priv);
    f[3] = f[5];
    cr_assert_eq(read_card(&s, NSC_EL_S, f, 4), NSC_ENETLIST);
    cr_assert_str_eq(s.msg, "t.cir:1:1: error: missing model name for switch s1");
    stub_free(&s);
}
