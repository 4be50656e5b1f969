/* cards.c -- element cards read through the card view (lcs/card.h): the view's
 * helpers, and the parsers of the forms several devices share: independent
 * sources V I (waveforms PULSE SIN EXP PWL, DC, AC, LTspice's Rser=) and the
 * current-controlled sources F H.
 *
 * Invariants: each card makes one element of its device's kind (plus what the
 * view's ops make: an Rser= resistor); every message is located at the field
 * it is about, through the view. */
#include "cards.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

nsc_status nsc_card_err(const nsc_cardview *v, const nsc_cfield *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nsc_status st = v->op->verr(v, f, fmt, ap);
    va_end(ap);
    return st;
}

void nsc_card_warn(const nsc_cardview *v, const nsc_cfield *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    v->op->vwarn(v, f, fmt, ap);
    va_end(ap);
}

const char *nsc_card_text(const nsc_cfield *f)
{
    switch (f->kind) {
    case NSC_CF_WORD:
    case NSC_CF_STRING:
    case NSC_CF_CALL: return f->u.s;
    case NSC_CF_EXPR: return "{...}";
    case NSC_CF_GROUP: return "(...)";
    default: return f->sub[0].kind == NSC_CF_WORD ? f->sub[0].u.s : "=";
    }
}

int nsc_card_is_word(const nsc_cfield *f, const char *w)
{
    return f->kind == NSC_CF_WORD && nsc_strieq(f->u.s, w);
}

const char *nsc_card_key(const nsc_cfield *f, char *k, size_t cap)
{
    if (f->kind != NSC_CF_PAIR || f->sub[0].kind != NSC_CF_WORD) return NULL;
    snprintf(k, cap, "%s", f->sub[0].u.s);
    return nsc_strlower(k);
}

nsc_status nsc_card_parasitic(const nsc_cardview *v, const nsc_cfield *f, const char *kk, double *x)
{
    nsc_status st = v->op->value(v, &f->sub[1], x);
    if (st) return st;
    if (!strcmp(kk, "rpar") ? !(*x > 0) : !(*x >= 0))
        return nsc_card_err(v, f, "%s= of %s must be %s (%g)", f->sub[0].u.s, v->f[0].u.s,
                            !strcmp(kk, "rpar") ? "positive" : "zero or positive", *x);
    return NSC_OK;
}

nsc_status nsc_card_mult(const nsc_cardview *v, const nsc_cfield *f, double *m)
{
    nsc_status st = v->op->value(v, &f->sub[1], m);
    if (st) return st;
    if (!(*m > 0 && isfinite(*m)))
        return nsc_card_err(v, f, "m= of %s must be positive (%g)", v->f[0].u.s, *m);
    return NSC_OK;
}

/* ---- V I: independent sources ---- */

/* The numbers of a waveform's arguments: the numeric values of fields f[0..n)
 * (groups flattened) appended to v[nv] (capacity *cap), PAIR fields to pairs. */
typedef struct wargs {
    double *v;
    int nv, cap;
    const nsc_cfield **pair;
    int npair, cappair;
} wargs;

static nsc_status flatten(const nsc_cardview *V, const nsc_cfield *f, int n, wargs *a)
{
    nsc_status st;
    for (int i = 0; i < n; i++) {
        if (f[i].kind == NSC_CF_GROUP) {
            if ((st = flatten(V, f[i].sub, f[i].nsub, a))) return st;
        } else if (f[i].kind == NSC_CF_PAIR) {
            if (nsc_grow((void **)&a->pair, &a->cappair, a->npair + 1, sizeof *a->pair))
                return V->op->oom(V);
            a->pair[a->npair++] = &f[i];
        } else {
            if (nsc_grow((void **)&a->v, &a->cap, a->nv + 1, sizeof *a->v)) return V->op->oom(V);
            if ((st = V->op->value(V, &f[i], &a->v[a->nv]))) return st;
            a->nv++;
        }
    }
    return NSC_OK;
}

/* w's kind from its name (lower case lname, upper case uname for messages) and
 * its count of values checked; *maxn the most it takes */
static nsc_status wave_kind(const nsc_cardview *V, const nsc_cfield *at, nsc_wave *w,
                            const char *lname, const char *uname, int nv, int *maxn)
{
    const char *el = V->f[0].u.s;
    if (!strcmp(lname, "pulse")) w->kind = NSC_WAVE_PULSE, *maxn = 8; /* ngspice: NP 8th */
    else if (!strcmp(lname, "sin") || !strcmp(lname, "sine")) w->kind = NSC_WAVE_SIN, *maxn = 6;
    else if (!strcmp(lname, "exp")) w->kind = NSC_WAVE_EXP, *maxn = 6;
    else w->kind = NSC_WAVE_PWL, *maxn = 1 << 30;
    if (nv < 2) return nsc_card_err(V, at, "%s of %s needs at least 2 values", uname, el);
    if (nv > *maxn) return nsc_card_err(V, at, "too many values in %s of %s", uname, el);
    if (w->kind == NSC_WAVE_PWL && nv % 2)
        return nsc_card_err(V, at, "PWL of %s needs time-value pairs (odd number of values)", el);
    return NSC_OK;
}

/* a PWL's r= td= (pairs a->pair) applied to its values: times shifted by td,
 * non-decreasing, the repeat time within them */
static nsc_status wave_pwl(const nsc_cardview *V, const nsc_cfield *at, nsc_wave *w,
                           const char *uname, wargs *a)
{
    double td = 0, *v = a->v;
    char key[32];
    nsc_status st;
    for (int i = 0; i < a->npair; i++) {
        const char *k = nsc_card_key(a->pair[i], key, sizeof key);
        double x;
        if (w->kind == NSC_WAVE_PWL && k && (!strcmp(k, "r") || !strcmp(k, "td"))) {
            if ((st = V->op->value(V, &a->pair[i]->sub[1], &x))) return st;
            if (!strcmp(k, "r")) w->repeat = x;
            else td = x;
        } else
            return nsc_card_err(V, a->pair[i], "unexpected '%s' in %s of %s",
                                nsc_card_text(a->pair[i]), uname, V->f[0].u.s);
    }
    if (w->kind != NSC_WAVE_PWL) return NSC_OK;
    for (int i = 0; i < a->nv; i += 2) v[i] += td;
    for (int i = 2; i < a->nv; i += 2)
        if (v[i] < v[i - 2])
            return nsc_card_err(V, at, "PWL times of %s must be non-decreasing (%g after %g)",
                                V->f[0].u.s, v[i], v[i - 2]);
    if (w->repeat != -1) {
        if (!(w->repeat >= 0 && w->repeat < v[a->nv - 2]))
            return nsc_card_err(V, at, "PWL repeat time r=%g of %s must be in [0, last time)",
                                w->repeat, V->f[0].u.s);
        w->repeat += td;
    }
    return NSC_OK;
}

/* waveform `name` of element el with argument fields f[0..na) (+ trailing
 * r=/td= pairs extra[0..nextra)); w->ngiven the values given */
static nsc_status wave(const nsc_cardview *V, const nsc_cfield *at, int el, const char *name,
                       const nsc_cfield *f, int na, const nsc_cfield *const *extra, int nextra)
{
    wargs a = { 0 };
    nsc_status st = flatten(V, f, na, &a);
    for (int i = 0; !st && i < nextra; i++) {
        if (nsc_grow((void **)&a.pair, &a.cappair, a.npair + 1, sizeof *a.pair)) st = V->op->oom(V);
        else a.pair[a.npair++] = extra[i];
    }
    nsc_wave *w = &V->c->el[el].wave;
    char lname[16], uname[16]; /* lower case to match, upper for messages */
    snprintf(lname, sizeof lname, "%s", name);
    nsc_strlower(lname);
    size_t k = 0;
    for (; lname[k]; k++) uname[k] = (char)toupper((unsigned char)lname[k]);
    uname[k] = 0;
    int maxn = 0;
    if (!st) st = wave_kind(V, at, w, lname, uname, a.nv, &maxn);
    if (!st) st = wave_pwl(V, at, w, uname, &a);
    free(a.pair);
    if (!st && w->kind != NSC_WAVE_PWL) { /* room for the defaults */
        double *p = nsc_realloc_array(a.v, (size_t)maxn, sizeof *p);
        if (p) a.v = p;
        else st = V->op->oom(V);
    }
    if (st) {
        free(a.v);
        return st;
    }
    w->np = a.nv;
    w->p = a.v;
    w->ngiven = a.nv;
    return NSC_OK;
}

static int is_wave_name(const char *s)
{
    return nsc_strieq(s, "pulse") || nsc_strieq(s, "sin") || nsc_strieq(s, "sine")
           || nsc_strieq(s, "exp") || nsc_strieq(s, "pwl");
}

static int is_bad_wave(const char *s)
{
    static const char *const bad[] = { "sffm", "am", "trnoise", "trrandom", "pat", "dcop" };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        if (nsc_strieq(s, bad[k])) return 1;
    return 0;
}

/* AC mag [phase] at field *i of source el's card: the values that follow (AC
 * alone: magnitude 1, phase 0, as ngspice); *i then at the last one read. */
static nsc_status vi_ac(const nsc_cardview *V, int el, int *i)
{
    const nsc_cfield *f = V->f;
    double x;
    int j = *i + 1;
    while (j < V->nf && j <= *i + 2 && (f[j].kind == NSC_CF_EXPR || V->op->number(V, &f[j], &x)))
        j++;
    double ac[2] = { 1, 0 };
    nsc_status st;
    for (int q = *i + 1; q < j; q++)
        if ((st = V->op->value(V, &f[q], &ac[q - *i - 1]))) return st;
    V->c->el[el].ac_mag = ac[0];
    V->c->el[el].ac_phase = ac[1];
    *i = j - 1;
    return NSC_OK;
}

/* The waveform at field *i of source el's card, PULSE(...) or PULSE v1 v2 ...
 * without parentheses, then PWL's r= td=; *i then at its last field. */
static nsc_status vi_wave(const nsc_cardview *V, int el, int *i)
{
    const nsc_cfield *f = V->f, *args, *extra[4];
    int na, nextra = 0, j;
    char key[64];
    const char *kk;
    if (f[*i].kind == NSC_CF_CALL) {
        args = f[*i].sub;
        na = f[*i].nsub;
        j = *i + 1;
    } else {
        args = &f[*i + 1];
        for (j = *i + 1; j < V->nf && f[j].kind != NSC_CF_PAIR && !nsc_card_is_word(&f[j], "dc")
                         && !nsc_card_is_word(&f[j], "ac");
             j++)
            ;
        na = j - *i - 1;
    }
    while (j < V->nf && nextra < 4 && (kk = nsc_card_key(&f[j], key, sizeof key))
           && (!strcmp(kk, "r") || !strcmp(kk, "td")))
        extra[nextra++] = &f[j++];
    nsc_status st = wave(V, &f[*i], el, f[*i].u.s, args, na, extra, nextra);
    if (st) return st;
    *i = j - 1;
    return NSC_OK;
}

/* What a source card's fields after its nodes set: its DC value, its wave, the
 * Rser= given (field *fser, value *rser). */
typedef struct vi_read {
    int have_dc, have_wave;
    double dc, rser;
    const nsc_cfield *fser;
} vi_read;

/* field *i of source el's card (d's) into *s; *i then at the last field read */
static nsc_status vi_field(const nsc_device *d, const nsc_cardview *V, int el, int *i, vi_read *s)
{
    const nsc_cfield *f = V->f, *g = &f[*i];
    char key[64];
    const char *kk = nsc_card_key(g, key, sizeof key);
    if (kk && d->card_parasitic && !strcmp(kk, "rser")) { /* LTspice */
        s->fser = g;
        return nsc_card_parasitic(V, g, kk, &s->rser);
    }
    if (kk && d->card_parasitic && !strcmp(kk, "cpar")) {
        nsc_card_warn(V, g, "parameter '%s' of %s %s ignored (not supported)", kk, d->name,
                      f[0].u.s);
        return NSC_OK;
    }
    if (nsc_card_is_word(g, "dc")) {
        if (*i + 1 >= V->nf) return nsc_card_err(V, g, "missing value after DC in %s", f[0].u.s);
        s->have_dc = 1;
        return V->op->value(V, &f[++*i], &s->dc);
    }
    if (nsc_card_is_word(g, "ac")) return vi_ac(V, el, i);
    if ((g->kind == NSC_CF_CALL || g->kind == NSC_CF_WORD)
        && (is_wave_name(g->u.s) || is_bad_wave(g->u.s))) {
        if (is_bad_wave(g->u.s))
            return nsc_card_err(V, g, "waveform '%s' is not supported", g->u.s);
        if (s->have_wave) return nsc_card_err(V, g, "second waveform in %s", f[0].u.s);
        s->have_wave = 1;
        return vi_wave(V, el, i);
    }
    if (g->kind != NSC_CF_PAIR && !s->have_dc && !s->have_wave) {
        s->have_dc = 1;
        return V->op->value(V, g, &s->dc);
    }
    return nsc_card_err(V, g, "unexpected '%s' in %s %s", nsc_card_text(g), d->name, f[0].u.s);
}

nsc_status nsc_card_source(const nsc_device *d, const nsc_cardview *V)
{
    int el;
    nsc_status st = V->op->element(V, d->kind, &el);
    if (st || (st = V->op->nodes(V, el, 2))) return st;
    vi_read s = { 0 };
    for (int i = 3; i < V->nf; i++)
        if ((st = vi_field(d, V, el, &i, &s))) return st;
    nsc_element *e = &V->c->el[el];
    if (!s.have_wave) e->wave.kind = NSC_WAVE_DC;
    if (!s.have_dc && !s.have_wave)
        nsc_card_warn(V, NULL, "%s %s has no value, 0 assumed", d->name, V->f[0].u.s);
    e->wave.dc = s.dc;
    e->wave.dc_from_wave = s.have_wave && !s.have_dc; /* dc = wave(0), set with the defaults */
    return s.rser > 0 ? V->op->series_r(V, s.fser, el, s.rser) : NSC_OK;
}

/* ---- F H: current-controlled sources ---- */

nsc_status nsc_card_ictrl(const nsc_device *d, const nsc_cardview *V)
{
    const nsc_cfield *f = V->f;
    int el;
    nsc_status st = V->op->element(V, d->kind, &el);
    if (st) return st;
    if (V->nf > 3 && (f[3].kind == NSC_CF_WORD || f[3].kind == NSC_CF_CALL)
        && nsc_strieq(f[3].u.s, "poly"))
        return nsc_card_err(V, &f[3], "POLY form of %s is not supported", f[0].u.s);
    if ((st = V->op->nodes(V, el, 2))) return st;
    if (V->nf < 5)
        return nsc_card_err(V, NULL, "%s %s needs a sense voltage source and a gain", d->name,
                            f[0].u.s);
    if (V->nf > 5)
        return nsc_card_err(V, &f[5], "unexpected '%s' in %s %s", nsc_card_text(&f[5]), d->name,
                            f[0].u.s);
    double x;
    if ((st = V->op->ref(V, &f[3], el, 0)) || (st = V->op->value(V, &f[4], &x))) return st;
    V->c->el[el].value = x;
    return NSC_OK;
}

/* ---- R C L: n+ n- value ---- */

/* What a value card's fields after its nodes set: the value (have), LTspice's
 * parasitics par[] (rser rpar cpar; Rser= at field fser), a resistor model's
 * factor, m= (devices in parallel). */
typedef struct rcl_read {
    int have, rm;
    double par[3], scale, mult;
    const nsc_cfield *fser;
} rcl_read;

/* field i of value card V (device d, element el) into *s */
static nsc_status rcl_field(const nsc_device *d, const nsc_cardview *V, int el, int i, rcl_read *s)
{
    const nsc_cfield *f = &V->f[i];
    const char vname[2] = { d->letter, 0 }; /* R=, C=, L= */
    char key[64];
    const char *kk = nsc_card_key(f, key, sizeof key);
    nsc_status st;
    if (d->card_opt & NSC_CARDOPT_RMODEL && !s->rm && i <= 4) { /* R n+ n- [MODEL] value [MODEL] */
        if ((st = V->op->res_model(V, f, &s->rm, &s->scale)) || s->rm) return st;
    }
    if (f->kind == NSC_CF_PAIR && !kk)
        return nsc_card_err(V, f, "unexpected '%s' in %s %s", nsc_card_text(f), d->name,
                            V->f[0].u.s);
    int pk = !kk || !d->card_parasitic ? -1
             : !strcmp(kk, "rser")     ? 0
             : !strcmp(kk, "rpar")     ? 1
             : !strcmp(kk, "cpar")     ? 2
                                       : -1;
    nsc_element *e = &V->c->el[el];
    if (pk >= 0) {
        if (pk == 0) s->fser = f;
        return nsc_card_parasitic(V, f, kk, &s->par[pk]);
    }
    if (kk && !strcmp(kk, "ic") && d->ic_unit) {
        e->has_ic = 1;
        return V->op->value(V, &f->sub[1], &e->ic);
    }
    if ((kk && !strcmp(kk, vname) && !s->have) || (!kk && !s->have)) {
        s->have = 1;
        return V->op->value(V, kk ? &f->sub[1] : f, &e->value);
    }
    if (kk && !strcmp(kk, "m")) return nsc_card_mult(V, f, &s->mult);
    if (kk) {
        nsc_card_warn(V, f, "parameter '%s' of %s %s ignored", kk, d->name, V->f[0].u.s);
        return NSC_OK;
    }
    return nsc_card_err(V, f, "unexpected '%s' in %s %s", nsc_card_text(f), d->name, V->f[0].u.s);
}

nsc_status nsc_card_value(const nsc_device *d, const nsc_cardview *V)
{
    int el;
    nsc_status st = V->op->element(V, d->kind, &el);
    if (st || (st = V->op->nodes(V, el, 2))) return st;
    rcl_read s = { 0, 0, { 0, 0, 0 }, 1, 1, NULL };
    for (int i = 3; i < V->nf; i++)
        if ((st = rcl_field(d, V, el, i, &s))) return st;
    if (!s.have) return nsc_card_err(V, NULL, "missing value for %s %s", d->name, V->f[0].u.s);
    nsc_element *e = &V->c->el[el];
    e->value *= d->card_opt & NSC_CARDOPT_MTIMES
                    ? s.scale * s.mult
                    : s.scale / s.mult; /* m in parallel: R/m, C m, L/m */
    int n0 = e->node[0], n1 = e->node[1];
    double rser = s.par[0] / s.mult, rpar = s.par[1] / s.mult, cpar = s.par[2] * s.mult;
    if (rser > 0 && (st = V->op->series_r(V, s.fser, el, rser))) return st;
    if (rpar > 0 && (st = V->op->parasitic(V, el, "rpar", NSC_EL_R, rpar, n0, n1))) return st;
    if (cpar > 0 && (st = V->op->parasitic(V, el, "cpar", NSC_EL_C, cpar, n0, n1))) return st;
    return NSC_OK;
}

/* ---- D M S W J: nodes [vsense] model [name=value | words] ---- */

int nsc_card_inst_par(const nsc_device *d, const char *kk)
{
    for (int q = 0; q < d->ninst; q++)
        if (!strcmp(kk, d->inst[q].name)) return q;
    return -1;
}

/* ngspice's `.option scale`: an instance parameter that is a length (flag
 * NSC_INST_LENGTH: MOS W= L=) times V->scale, an area (AD= AS=) times its square. */
static double inst_scale(const nsc_cardview *V, const nsc_par *t)
{
    return t->flags & NSC_INST_LENGTH ? V->scale
           : t->flags & NSC_INST_AREA ? V->scale * V->scale
                                      : 1;
}

/* The model of el named by f[mi]: a name that is not a model names a bin
 * chosen by the instance's L, W (given and scaled, else the defaults; d's
 * instance parameters "l" "w"). */
static nsc_status binned_model(const nsc_device *d, const nsc_cardview *V, int mi, int el)
{
    const nsc_cfield *f = V->f;
    if (V->op->model_index(V, &f[mi]) >= 0) return V->op->model(V, &f[mi], el);
    double lw[2] = { d->inst[nsc_card_inst_par(d, "l")].def,
                     d->inst[nsc_card_inst_par(d, "w")].def };
    char key[64];
    nsc_status st;
    for (int i = mi + 1; i < V->nf; i++) {
        const char *kk = nsc_card_key(&f[i], key, sizeof key);
        int j = kk && !strcmp(kk, "l") ? 0 : kk && !strcmp(kk, "w") ? 1 : -1;
        if (j >= 0 && (st = V->op->value(V, &f[i].sub[1], &lw[j]))) return st;
        if (j >= 0) lw[j] *= V->scale;
    }
    return V->op->model_bin(V, &f[mi], el, lw[0], lw[1]);
}

/* The CONTROL= field of a switch card, NULL when none. */
static const nsc_cfield *control_field(const nsc_cardview *V)
{
    char key[16];
    for (int i = 3; i < V->nf; i++) {
        const char *kk = nsc_card_key(&V->f[i], key, sizeof key);
        if (kk && !strcmp(kk, "control")) return &V->f[i];
    }
    return NULL;
}

/* The nodes of a model card: *n of them before the model name (W: n+ n-
 * vsense), *skip fields between (ngspice's VDMOS thermal nodes), *vm the
 * VDMOS model's index when the card is a VDMOS's (d g s [x] model), else -1. */
static void model_shape(const nsc_device *d, const nsc_cardview *V, int *n, int *skip, int *vm)
{
    const nsc_cfield *f = V->f;
    int vdmos = d->card_opt & NSC_CARDOPT_VDMOS;
    *n = d->card_nodes + d->card_sense;
    *skip = 0;
    *vm = vdmos && V->nf >= 5 ? V->op->model_index(V, &f[4]) : -1;
    if (*vm >= 0 && V->c->model[*vm].vdmos) *n = 3; /* M d g s VDMOSMODEL */
    else if (vdmos && V->nf >= 6 && (*vm = V->op->model_index(V, &f[5])) >= 0
             && V->c->model[*vm].vdmos) {
        *n = 3;    /* M d g s x VDMOSMODEL: ngspice's */
        *skip = 1; /* 4th and 5th are thermal nodes */
        nsc_card_warn(V, &f[4], "the fourth node of VDMOS %s is not used (its body is its source)",
                      f[0].u.s);
    } else *vm = -1;
}

/* field i (after the model) of model card V, element el of device d */
static nsc_status model_field(const nsc_device *d, const nsc_cardview *V, int el, int i)
{
    const nsc_cfield *f = V->f;
    char key[64];
    const char *kk = nsc_card_key(&f[i], key, sizeof key);
    int q = kk ? nsc_card_inst_par(d, kk) : -1;
    if (q >= 0) {
        double x;
        nsc_status st = V->op->value(V, &f[i].sub[1], &x);
        if (st) return st;
        if (!(x > 0)) return nsc_card_err(V, &f[i], "%s of %s must be positive", kk, f[0].u.s);
        V->c->el[el].ipar[q] = x * inst_scale(V, &d->inst[q]);
    } else if (kk)
        nsc_card_warn(V, &f[i], "parameter '%s' of %s %s ignored", kk, d->name, f[0].u.s);
    else if (d->card_state && f[i].kind == NSC_CF_WORD
             && (nsc_strieq(f[i].u.s, "on") || nsc_strieq(f[i].u.s, "off"))) {
        V->c->el[el].has_ic = 1; /* the state the static problem starts from */
        V->c->el[el].ic = nsc_strieq(f[i].u.s, "on");
    } else if (f[i].kind == NSC_CF_WORD || f[i].kind == NSC_CF_EXPR)
        nsc_card_warn(V, &f[i], "'%s' of %s %s ignored", nsc_card_text(&f[i]), d->name, f[0].u.s);
    else
        return nsc_card_err(V, &f[i], "unexpected '%s' in %s %s", nsc_card_text(&f[i]), d->name,
                            f[0].u.s);
    return NSC_OK;
}

nsc_status nsc_card_model(const nsc_device *d, const nsc_cardview *V)
{
    const nsc_cfield *f = V->f, *xf = d->card_opt & NSC_CARDOPT_CONTROL ? control_field(V) : NULL;
    if (xf) return nsc_card_control(d, V, xf);
    int n, skip, vm, el;
    model_shape(d, V, &n, &skip, &vm);
    nsc_status st = V->op->element(V, d->kind, &el);
    if (st || (st = V->op->nodes(V, el, d->card_sense ? d->card_nodes : n))) return st;
    if (vm >= 0) {
        V->c->el[el].nnode = 4;
        V->c->el[el].node[3] = V->c->el[el].node[2];
    }
    if (d->card_sense && V->nf < n + 1)
        return nsc_card_err(V, NULL, "missing sense voltage source for switch %s", f[0].u.s);
    if (d->card_sense && (st = V->op->ref(V, &f[n], el, 0))) return st;
    if (V->nf < n + 2)
        return nsc_card_err(V, NULL, "missing model name for %s %s", d->name, f[0].u.s);
    if ((st = d->card_opt & NSC_CARDOPT_BINS ? binned_model(d, V, n + 1 + skip, el)
                                             : V->op->model(V, &f[n + 1 + skip], el)))
        return st;
    for (int q = 0; q < d->ninst; q++) V->c->el[el].ipar[q] = d->inst[q].def;
    if (vm >= 0 ? (st = nsc_card_expand_vdmos(V, el, vm))
                : d->card_opt & NSC_CARDOPT_SERIESR && (st = nsc_card_expand_rdrs(V, el)))
        return st;
    for (int i = n + 2 + skip; i < V->nf; i++)
        if ((st = model_field(d, V, el, i))) return st;
    return V->op->parallel(V, el); /* RD RS / (AREA m) ... */
}
