/* test_cards.c -- a device's own card parser behind the card view (lcs/card.h,
 * devices/cards.c): driven here by a stand-in for the netlist stage (plain
 * fields, numbers read by strtod, elements appended to a bare circuit, errors
 * formatted `file:line:col: error:`), so that what the parser reads and says
 * is the device file's alone; the netlist's own view is checked through whole
 * netlists (tests/bad, the elab suite). */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices/cards.h"
#include "devices/device.h"

/* the stand-in's state: the circuit built, the references asked for, the last message */
typedef struct stub {
    nsc_circuit c;
    const char *ref[2];
    char msg[256];
    int nwarn;
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

static const nsc_cardops STUB_OPS = {
    .verr = s_verr,
    .vwarn = s_vwarn,
    .oom = s_oom,
    .number = s_number,
    .value = s_value,
    .element = s_element,
    .nodes = s_nodes,
    .ref = s_ref,
};

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
    for (int k = 0; k < s->c.nel; k++) free(s->c.el[k].wave.p);
    free(s->c.el);
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
