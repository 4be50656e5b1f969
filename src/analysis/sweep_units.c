/* sweep_units.c -- the units of a sweep table's columns, for its picture
 * (sweep.h "units"): what a .param sets, what a .meas card measures. */
#include "sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "meas.h"
#include "base/xfn.h"
#include "devices/device.h"

/* ---- parameters: the elements whose values they set ---- */

/* Units of a changed field: "" none yet; a second, different one: "?" (a
 * parameter that sets values of several units has none). */
static void note_unit(const char **acc, const char *u)
{
    if (!**acc) *acc = u;
    else if (strcmp(*acc, u)) *acc = "?";
}

/* The unit of waveform parameter i of kind k whose values are in amp (V or A). */
static const char *wave_param_unit(nsc_wavekind k, int i, const char *amp)
{
    switch (k) {
    case NSC_WAVE_PULSE:
    case NSC_WAVE_EXP: return i < 2 ? amp : "s";
    case NSC_WAVE_SIN: return i < 2 ? amp : i == 2 ? "Hz" : i == 3 ? "s" : "?";
    case NSC_WAVE_PWL: return i % 2 ? amp : "s";
    default: return "?";
    }
}

static void wave_diff(const nsc_wave *a, const nsc_wave *b, const char *amp, const char **acc)
{
    if (a->kind != b->kind || a->np != b->np) {
        note_unit(acc, "?");
        return;
    }
    if (a->dc != b->dc) note_unit(acc, amp);
    for (int i = 0; i < a->np; i++)
        if (a->p[i] != b->p[i]) note_unit(acc, wave_param_unit(a->kind, i, amp));
}

/* The units of the fields of element a that differ in b (same kind). */
static void element_diff(const nsc_element *a, const nsc_element *b, const char **acc)
{
    const nsc_device *d = nsc_device_of(a->kind);
    if (!d) {
        note_unit(acc, "?");
        return;
    }
    if (d->value_unit && a->value != b->value) note_unit(acc, d->value_unit);
    if (a->has_ic != b->has_ic || a->ic != b->ic) note_unit(acc, d->ic_unit ? d->ic_unit : "?");
    if (d->wave_unit) wave_diff(&a->wave, &b->wave, d->wave_unit, acc);
    for (int q = 0; q < d->ninst; q++)
        if (a->ipar[q] != b->ipar[q]) note_unit(acc, d->inst_unit ? d->inst_unit : "?");
    const char *u = d->priv_unit ? d->priv_unit(a, b) : NULL; /* e.g. E TABLE's voltages */
    if (u) note_unit(acc, u);
}

/* The unit of a model card's parameter, by its SPICE name; "?" for others. */
static const char *model_param_unit(const char *p)
{
    static const char *const ohm[] = { "ron", "roff", "rs", "rd", "rg", "rb", "rds" };
    static const char *const volt[] = { "vt", "vh", "vf", "vto", "von", "voff", "bv", "vref" };
    static const char *const amp[] = { "it", "ih", "is", "ion", "ioff", "iref", "imin", "imax" };
    static const char *const joule[] = { "eon", "eoff" };
    for (size_t k = 0; k < sizeof ohm / sizeof *ohm; k++)
        if (!strcmp(p, ohm[k])) return "Ω";
    for (size_t k = 0; k < sizeof volt / sizeof *volt; k++)
        if (!strcmp(p, volt[k])) return "V";
    for (size_t k = 0; k < sizeof amp / sizeof *amp; k++)
        if (!strcmp(p, amp[k])) return "A";
    for (size_t k = 0; k < sizeof joule / sizeof *joule; k++)
        if (!strcmp(p, joule[k])) return "J";
    if (!strcmp(p, "tt")) return "s";
    return "?";
}

/* The unit of what changed from circuit a to b: "" nothing, "?" several or unknown. */
static const char *circuit_diff(const nsc_circuit *a, const nsc_circuit *b)
{
    const char *acc = "";
    if (a->nel != b->nel || a->nmodel != b->nmodel) return "?";
    for (int k = 0; k < a->nel; k++) {
        if (a->el[k].kind != b->el[k].kind) return "?";
        element_diff(&a->el[k], &b->el[k], &acc);
    }
    for (int k = 0; k < a->nmodel; k++) {
        if (a->model[k].npar != b->model[k].npar) return "?";
        for (int i = 0; i < a->model[k].npar; i++)
            if (a->model[k].pval[i] != b->model[k].pval[i])
                note_unit(&acc, model_param_unit(a->model[k].pname[i]));
    }
    if (a->job.tstep != b->job.tstep || a->job.tstop != b->job.tstop
        || a->job.tstart != b->job.tstart || a->job.tmax != b->job.tmax)
        note_unit(&acc, "s");
    return acc;
}

const char *nsc_param_unit(const nsc_deck *deck, const nsc_param_set *ov, int nov,
                           const nsc_circuit *c, const char *name)
{
    int k = 0;
    while (k < c->job.nparam && strcmp(c->job.param[k], name)) k++;
    if (k == c->job.nparam) return "";
    double v = c->job.param_val[k];
    nsc_param_set *o = nsc_calloc((size_t)nov + 1, sizeof *o);
    if (!o) return "";
    if (nov) memcpy(o, ov, (size_t)nov * sizeof *o);
    o[nov].name = c->job.param[k];
    o[nov].value = v != 0 ? v * 1.25 : 1; /* any other value: what it changes is what it sets */
    nsc_report r;
    nsc_report_init(&r);
    nsc_circuit *d = NULL;
    const char *u = "";
    if (nsc_deck_elab(deck, o, nov + 1, &d, &r) == NSC_OK) u = circuit_diff(c, d);
    nsc_circuit_free(d);
    nsc_report_free(&r);
    free(o);
    return strcmp(u, "?") ? u : "";
}

/* ---- measures: dimensions of their programs ---- */

/* Exponents of V, A and s; num: a bare number (takes the other operand's
 * dimension in a sum); ok = 0: unknown. */
typedef struct dim {
    int v, a, s, num, ok;
} dim;

static const dim NONE = { 0, 0, 0, 0, 0 };

static dim dim_sum(dim x, dim y)
{
    if (!x.ok || !y.ok) return NONE;
    if (x.num) return y;
    if (y.num) return x;
    return x.v == y.v && x.a == y.a && x.s == y.s ? x : NONE;
}

static dim dim_mul(dim x, dim y, int sign)
{
    if (!x.ok || !y.ok) return NONE;
    dim d = { x.v + sign * y.v, x.a + sign * y.a, x.s + sign * y.s, x.num && y.num, 1 };
    return d;
}

/* A call of built-in function id on operands of dimensions x[0 .. n), by its
 * unit rule (base/xfn.h). */
static dim dim_call(int id, const dim *x, int n)
{
    dim one = { 0, 0, 0, 0, 1 }, d = x[0];
    const nsc_xfn *f = nsc_xfn_at(id);
    if (f->unit == NSC_XFN_SIGN) return one;
    if (f->unit == NSC_XFN_SELECT) return dim_sum(x[1], x[2]);
    for (int k = 1; k < n; k++) d = dim_sum(d, x[k]);
    if (f->unit == NSC_XFN_SAME) return d;
    return d.ok && !d.v && !d.a && !d.s ? one : NONE; /* NSC_XFN_ONE */
}

/* The dimension of program s; prior[k]: of measure k. Each instruction's
 * operands st[n - pops .. n) (nsc_xpops) become its one result, at their first slot. */
static dim dim_of(const nsc_circuit *c, const nsc_msig *s, const dim *prior)
{
    const dim one = { 0, 0, 0, 0, 1 };
    dim st[64];
    int n = 0;
    for (int i = 0; i < s->ncode; i++) {
        const nsc_xinstr *in = &s->code[i];
        int pop = nsc_xpops(in);
        if (n < pop || (!pop && n == 64)
            || (in->op == NSC_XOP_CALL && (pop < 1 || pop > NSC_XFN_MAXARGS)))
            return NONE;
        dim *x = &st[n - pop];
        switch (in->op) {
        case NSC_XOP_NUM: *x = (dim){ 0, 0, 0, 1, 1 }; break; /* a bare number */
        case NSC_XOP_PROBE: {
            int isv = c->job.meas_probe[in->arg].kind == NSC_PROBE_V;
            *x = (dim){ isv, !isv, 0, 0, 1 };
            break;
        }
        case NSC_XOP_MEAS: *x = prior[in->arg]; break;
        case NSC_XOP_TIME: *x = (dim){ 0, 0, 1, 0, 1 }; break;
        case NSC_XOP_NEG: break;
        case NSC_XOP_ADD:
        case NSC_XOP_SUB: *x = dim_sum(x[0], x[1]); break;
        case NSC_XOP_MUL:
        case NSC_XOP_DIV: *x = dim_mul(x[0], x[1], in->op == NSC_XOP_MUL ? 1 : -1); break;
        case NSC_XOP_POW: *x = NONE; break;
        case NSC_XOP_CALL: *x = dim_call(in->arg, x, pop); break;
        case NSC_XOP_LT:
        case NSC_XOP_GT:
        case NSC_XOP_LE:
        case NSC_XOP_GE:
        case NSC_XOP_EQ:
        case NSC_XOP_NE:
            *x = dim_sum(x[0], x[1]).ok ? one : NONE; /* a comparison of one dimension: 1 or 0 */
            break;
        case NSC_XOP_AND:
        case NSC_XOP_OR:
        case NSC_XOP_NOT: *x = one; break;
        case NSC_XOP_COND: *x = dim_sum(x[1], x[2]); break;
        default: return NONE;
        }
        n += 1 - pop;
    }
    return n == 1 ? st[0] : NONE;
}

static const char *dim_name(dim d)
{
    static const struct {
        int v, a, s;
        const char *name;
    } known[] = {
        { 0, 0, 0, "1" },   { 1, 0, 0, "V" },   { 0, 1, 0, "A" }, { 1, 1, 0, "W" },
        { 1, -1, 0, "Ω" },  { -1, 1, 0, "S" },  { 0, 0, 1, "s" }, { 0, 0, -1, "Hz" },
        { 1, 0, 1, "V·s" }, { 0, 1, 1, "A·s" }, { 1, 1, 1, "J" },
    };
    if (!d.ok) return "";
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
        if (known[k].v == d.v && known[k].a == d.a && known[k].s == d.s) return known[k].name;
    return "";
}

/* The dimension of measure m given the dimensions found so far (prior[nmeas]). */
static dim meas_dim(const nsc_circuit *c, const nsc_meas *m, const dim *prior)
{
    dim s = { 0, 0, 1, 0, 1 };
    switch (m->type) {
    case NSC_MEAS_MIN_AT:
    case NSC_MEAS_MAX_AT:
    case NSC_MEAS_WHEN:
    case NSC_MEAS_TRIGTARG: return s;
    case NSC_MEAS_INTEG: return dim_mul(dim_of(c, &m->sig, prior), s, 1);
    default: return dim_of(c, &m->sig, prior);
    }
}

const char *nsc_meas_unit(const nsc_circuit *c, int k)
{
    if (k < 0 || k >= c->job.nmeas) return "";
    /* every measure's dimension: a PARAM may read any measure (a name measured
     * twice is read at its last card, which may follow it), so the others
     * first, then the PARAMs in order (as meas.c evaluates them) */
    dim *d = nsc_calloc((size_t)c->job.nmeas + 1, sizeof *d);
    if (!d) return "";
    for (int pass = 0; pass < 2; pass++)
        for (int j = 0; j < c->job.nmeas; j++)
            if ((c->job.meas[j].type == NSC_MEAS_PARAM) == pass)
                d[j] = meas_dim(c, &c->job.meas[j], d);
    const char *u = dim_name(d[k]);
    free(d);
    return u;
}

const char *nsc_acmeas_unit(const nsc_acmeas *m)
{
    if (m->type == NSC_ACM_WHEN) return "Hz";
    return m->sig.part == NSC_ACP_DB ? "dB" : m->sig.part == NSC_ACP_PH ? "deg" : "";
}
