/* nl_dot_ac.c -- the cards of the analyses at the operating point (issue 29):
 * .ac, .dc, .print ac, .print dc, .meas ac (netlist.md). nle_card_dot hands
 * them to nle_small_card when met; they are read by nle_resolve_small once
 * every element and node is known (a card may name an element defined later). */
#include "nl_elab.h"
#include "nl_meas.h"
#include "devices/device.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int is_meas(const nl_card *cd)
{
    return nle_head_is(cd, ".meas") || nle_head_is(cd, ".measure");
}

/* The cards of this file: .ac, .dc, .print ac|dc, .meas ac, .four. */
static int small_card(const nl_card *cd)
{
    int second_ac = cd->nf > 1 && (nle_is_word(&cd->f[1], "ac"));
    return nle_head_is(cd, ".ac") || nle_head_is(cd, ".dc") || (is_meas(cd) && second_ac)
           || nle_head_is(cd, ".four")
           || (nle_head_is(cd, ".print")
               && (second_ac || (cd->nf > 1 && nle_is_word(&cd->f[1], "dc"))));
}

nsc_status nle_small_card(elab *E, scope *sc, const nl_card *cd, int *taken)
{
    *taken = small_card(cd);
    if (!*taken) return NSC_OK;
    if (sc->up) {
        nle_warn(E, sc, cd, NULL, "%s inside .subckt ignored", cd->f[0].u.s);
        return NSC_OK;
    }
    if (nsc_grow((void **)&E->small, &E->capsmall, E->nsmall + 1, sizeof *E->small))
        return nle_oom(E);
    E->small[E->nsmall++] = (int)(cd - E->d->card);
    return NSC_OK;
}

/* A positive whole number of points at field f. */
static nsc_status count_field(elab *E, scope *sc, const nl_card *cd, const nl_field *f, int *n)
{
    double v;
    if (nle_value(E, sc, cd, f, &v)) return E->r->status;
    if (!(v >= 1 && v <= 1e7) || v != floor(v))
        return nle_err(E, NULL, cd, f,
                       "the number of points must be a whole number from 1, not '%s'",
                       nle_ftext(f));
    *n = (int)v;
    return NSC_OK;
}

/* .ac dec|oct|lin n fstart fstop */
static nsc_status card_ac(elab *E, scope *sc, const nl_card *cd)
{
    nsc_circuit *c = E->c;
    const nl_field *f = cd->f;
    if (cd->nf != 5)
        return nle_err(E, NULL, cd, NULL, "expected .ac dec|oct|lin points fstart fstop");
    nsc_acsweep sweep, *a = &sweep;
    if (nle_is_word(&f[1], "dec")) a->kind = NSC_AC_DEC;
    else if (nle_is_word(&f[1], "oct")) a->kind = NSC_AC_OCT;
    else if (nle_is_word(&f[1], "lin")) a->kind = NSC_AC_LIN;
    else
        return nle_err(E, NULL, cd, &f[1], "expected dec, oct or lin after .ac, found '%s'",
                       nle_ftext(&f[1]));
    if (count_field(E, sc, cd, &f[2], &a->n) || nle_value(E, sc, cd, &f[3], &a->fstart)
        || nle_value(E, sc, cd, &f[4], &a->fstop))
        return E->r->status;
    if (!(a->fstart > 0))
        return nle_err(E, NULL, cd, &f[3], "the start frequency must be positive, not %g",
                       a->fstart);
    if (!(a->fstop >= a->fstart))
        return nle_err(E, NULL, cd, &f[4], "the stop frequency %g is below the start frequency %g",
                       a->fstop, a->fstart);
    a->loc = nl_field_loc(E->d, cd, &f[0]);
    if (c->job.has_ac) {
        nle_warn(E, NULL, cd, NULL, "second .ac card ignored (the first one runs)");
        return NSC_OK;
    }
    c->job.ac = sweep;
    c->job.has_ac = 1;
    return NSC_OK;
}

/* The swept quantity named by field f of a .dc card: an element (d->el), else
 * a top-level .param (d->el = -1, d->param; an element of that name wins, as
 * in ngspice, whose .dc knows no .param, with a warning that says so). */
static nsc_status dc_target_of(elab *E, const nl_card *cd, const nl_field *f, nsc_dcsweep *d)
{
    if (f->kind != NL_F_WORD)
        return nle_err(E, NULL, cd, f, "expected a source, resistor or .param name, found '%s'",
                       nle_ftext(f));
    if (nle_is_word(f, "param") || nle_is_word(f, "temp"))
        return nle_err(E, NULL, cd, f,
                       ".dc %s is not supported: sweep a V or I source, a resistor or a top-level "
                       ".param by its name (.dc rload 1k 10k 1k)",
                       f->u.s);
    const char *k = nle_cat(E, "", f->u.s);
    if (!k) return nle_oom(E);
    if (nl_hash_get(&E->els, k, &d->el)) {
        nsc_elkind kind = E->c->el[d->el].kind;
        if (kind != NSC_EL_V && kind != NSC_EL_I && kind != NSC_EL_R)
            return nle_err(E, NULL, cd, f,
                           ".dc sweeps a V or I source, a resistor or a .param, not '%s'", f->u.s);
        for (int j = 0; j < E->c->job.nparam; j++)
            if (nsc_strieq(E->c->job.param[j], f->u.s))
                nle_warn(E, NULL, cd, f,
                         ".dc %s sweeps the element %s; the top-level .param %s of the same name "
                         "keeps its value",
                         f->u.s, E->c->el[d->el].name, f->u.s);
        return NSC_OK;
    }
    d->el = -1;
    for (int j = 0; j < E->c->job.nparam; j++)
        if (nsc_strieq(E->c->job.param[j], f->u.s))
            return (d->param = nsc_strdup(k)) ? NSC_OK : nle_oom(E);
    return nle_err(E, NULL, cd, f, "unknown element or top-level .param '%s' in .dc", f->u.s);
}

/* One sweep SRC start stop step at field i of a .dc card. */
static nsc_status dc_sweep(elab *E, scope *sc, const nl_card *cd, int i, nsc_dcsweep *d)
{
    const nl_field *f = cd->f;
    if (dc_target_of(E, cd, &f[i], d)) return E->r->status;
    nsc_elkind kind = d->el >= 0 ? E->c->el[d->el].kind : NSC_EL_V;
    if (nle_value(E, sc, cd, &f[i + 1], &d->start) || nle_value(E, sc, cd, &f[i + 2], &d->stop)
        || nle_value(E, sc, cd, &f[i + 3], &d->step))
        return E->r->status;
    if (d->step == 0 || (d->stop - d->start) * d->step < 0)
        return nle_err(E, NULL, cd, &f[i + 3], "the step %g does not go from %g to %g", d->step,
                       d->start, d->stop);
    if ((d->stop - d->start) / d->step > 1e7)
        return nle_err(E, NULL, cd, &f[i + 3], "more than 10^7 .dc points");
    if (kind == NSC_EL_R && (d->start <= 0 || d->stop <= 0))
        return nle_err(E, NULL, cd, &f[i + 1], "a swept resistance must stay positive");
    d->loc = nl_field_loc(E->d, cd, &f[0]);
    return NSC_OK;
}

/* .dc [lin] SRC start stop step [SRC2 start2 stop2 step2] */
static nsc_status card_dc(elab *E, scope *sc, const nl_card *cd)
{
    nsc_circuit *c = E->c;
    if (c->job.ndc > 0) {
        nle_warn(E, NULL, cd, NULL, "second .dc card ignored (the first one runs)");
        return NSC_OK;
    }
    int i = cd->nf > 1 && nle_is_word(&cd->f[1], "lin") ? 2 : 1; /* LTspice's optional LIN */
    int nf = cd->nf - i;
    if (nf != 4 && nf != 8)
        return nle_err(E, NULL, cd, NULL,
                       "expected .dc source start stop step [source2 start2 stop2 step2]");
    for (int k = 0; k < nf / 4; k++)
        if (dc_sweep(E, sc, cd, i + 4 * k, &c->job.dc[k])) return E->r->status;
    if (nf == 8
        && (c->job.dc[0].param
                ? c->job.dc[1].param && !strcmp(c->job.dc[0].param, c->job.dc[1].param)
                : c->job.dc[0].el == c->job.dc[1].el))
        return nle_err(E, NULL, cd, &cd->f[i + 4], "the same %s swept twice",
                       c->job.dc[0].param ? ".param" : "element");
    c->job.ndc = nf / 4;
    return NSC_OK;
}

/* node name field -> node index */
static nsc_status node_of(elab *E, const nl_card *cd, const nl_field *f, int *n)
{
    if (f->kind != NL_F_WORD)
        return nle_err(E, NULL, cd, f, "expected a node name, found '%s'", nle_ftext(f));
    char *in = nsc_strdup(f->u.s);
    nsc_probe p;
    if (!in) return nle_oom(E);
    nl_probe_fail why = nle_probe(E, NSC_PROBE_V, in, 0, &p, NULL);
    free(in);
    if (why) return nle_err(E, NULL, cd, f, "unknown node '%s'", f->u.s);
    *n = p.node[0];
    return NSC_OK;
}

/* The part of an output name after its v or i: "" (*part = -1), db, p, r, i, m. */
static int part_of(const char *suffix)
{
    static const char *const sfx[] = { "db", "p", "r", "i", "m" };
    if (!*suffix) return -1;
    for (int k = 0; k < 5; k++)
        if (nsc_strieq(suffix, sfx[k])) return k; /* = nsc_acpart */
    return -2;
}

/* An output field: V(a[,b]) or I(x) with an optional part (vdb vp vr vi vm, idb
 * ip ir ii im) or a bare node name, into o (names new); *part -1 when none. */
static nsc_status out_field(elab *E, const nl_card *cd, const nl_field *f, nsc_acout *o, int *part)
{
    memset(o, 0, sizeof *o);
    nsc_circuit *c = E->c;
    int n0 = 0, n1 = 0;
    *part = -1;
    o->p.loc = nl_field_loc(E->d, cd, f);
    if (f->kind == NL_F_WORD) {
        if (node_of(E, cd, f, &n0)) return E->r->status;
        o->p.kind = NSC_PROBE_V;
        o->p.node[0] = n0;
        o->p.name = nsc_asprintf("v(%s)", c->node_name[n0]);
        return o->p.name ? NSC_OK : nle_oom(E);
    }
    char head = f->kind == NL_F_CALL ? (char)(f->u.s[0] | 0x20) : 0;
    *part = head ? part_of(f->u.s + 1) : -2;
    if (*part == -2 || (head != 'v' && head != 'i') || f->nsub < 1
        || f->nsub > (head == 'v' ? 2 : 1))
        return nle_err(
            E, NULL, cd, f,
            "unsupported output '%s' in %s (V(n), V(a,b), I(x), VDB VP VR VI VM, IDB IP ...)",
            nle_ftext(f), cd->f[0].u.s);
    if (head == 'v') {
        if (node_of(E, cd, &f->sub[0], &n0) || (f->nsub == 2 && node_of(E, cd, &f->sub[1], &n1)))
            return E->r->status;
        o->p.kind = NSC_PROBE_V;
        o->p.node[0] = n0;
        o->p.node[1] = n1;
        o->p.name = f->nsub == 1 ? nsc_asprintf("v(%s)", c->node_name[n0])
                                 : nsc_asprintf("v(%s,%s)", c->node_name[n0], c->node_name[n1]);
    } else {
        char *k = nsc_strdup(f->sub[0].kind == NL_F_WORD ? f->sub[0].u.s : "");
        nsc_probe p;
        if (!k) return nle_oom(E);
        nl_probe_fail why = nle_probe(E, NSC_PROBE_I, k, 0, &p, NULL);
        if (why == NL_PROBE_ELEMENT)
            nle_err(E, NULL, cd, &f->sub[0], "unknown element '%s'", nle_ftext(&f->sub[0]));
        else if (why) nle_err(E, NULL, cd, &f->sub[0], "%s has no current", k);
        free(k);
        if (why) return E->r->status;
        o->p.kind = NSC_PROBE_I;
        o->p.el = p.el;
        o->p.name = nsc_asprintf("i(%s)", c->el[p.el].name);
    }
    return o->p.name ? NSC_OK : nle_oom(E);
}

/* o's column name for part: "vdb(out)", "ip(v1)" (the probe's name with the
 * part), "vdb(out)/v(fb)" with a denominator. */
static nsc_status out_name(elab *E, nsc_acout *o, int part)
{
    static const char *const sfx[] = { "db", "p", "r", "i", "m" };
    o->part = (nsc_acpart)part;
    o->name = nsc_asprintf("%c%s%s%s%s", o->p.name[0], sfx[part], o->p.name + 1,
                           o->den.name ? "/" : "", o->den.name ? o->den.name : "");
    return o->name ? NSC_OK : nle_oom(E);
}

/* 1 when f is a denominator `/v(x)` or `/i(x)` (the lexer's call "/v"). */
static int is_den(const nl_field *f)
{
    return f->kind == NL_F_CALL && f->u.s[0] == '/'
           && (nsc_strieq(f->u.s + 1, "v") || nsc_strieq(f->u.s + 1, "i"));
}

/* The denominator at f (is_den) into o->den (its name new). */
static nsc_status den_field(elab *E, const nl_card *cd, const nl_field *f, nsc_acout *o)
{
    nl_field g = *f;
    g.u.s = f->u.s + 1; /* "/v" -> "v" */
    nsc_acout d;
    int part;
    if (out_field(E, cd, &g, &d, &part)) return E->r->status;
    o->den = d.p;
    return NSC_OK;
}

static nsc_status acout_add(elab *E, const nsc_acout *o)
{
    nsc_circuit *c = E->c;
    nsc_acout *a = nsc_realloc_array(c->job.acout, (size_t)c->job.nacout + 1, sizeof *a);
    if (!a) return nle_oom(E);
    c->job.acout = a;
    c->job.acout[c->job.nacout] = *o;
    c->job.acout[c->job.nacout].name = NULL;
    c->job.acout[c->job.nacout].den.name = NULL;
    if (!(c->job.acout[c->job.nacout].p.name = nsc_strdup(o->p.name))) return nle_oom(E);
    c->job.nacout++;
    if (o->den.name && !(c->job.acout[c->job.nacout - 1].den.name = nsc_strdup(o->den.name)))
        return nle_oom(E);
    if (!(c->job.acout[c->job.nacout - 1].name = nsc_strdup(o->name))) return nle_oom(E);
    return NSC_OK;
}

/* .print ac OUT...: a plain V(x) / I(x) is its dB and phase; .print dc OUT...: probes */
static nsc_status card_print(elab *E, const nl_card *cd)
{
    int ac = nle_is_word(&cd->f[1], "ac");
    nsc_circuit *c = E->c;
    for (int i = 2; i < cd->nf; i++) {
        nsc_acout o;
        int part;
        if (nle_output_missing(E, cd, &cd->f[i], 0)) {
            i += ac && i + 1 < cd->nf && is_den(&cd->f[i + 1]); /* and its denominator */
            continue;
        }
        nsc_status s = out_field(E, cd, &cd->f[i], &o, &part);
        if (!s && ac && i + 1 < cd->nf && is_den(&cd->f[i + 1])) {
            if (part < 0)
                s = nle_err(E, NULL, cd, &cd->f[i],
                            "'%s': name the part of the ratio (vdb, vp, ...)",
                            nle_ftext(&cd->f[i]));
            if (!s) s = den_field(E, cd, &cd->f[++i], &o);
        }
        if (!s && !ac && part >= 0)
            s = nle_err(E, NULL, cd, &cd->f[i], "'%s' is an AC output, not a .print dc one",
                        nle_ftext(&cd->f[i]));
        if (!s && !ac) {
            nsc_probe *p = nsc_realloc_array(c->job.dcout, (size_t)c->job.ndcout + 1, sizeof *p);
            if (!p) s = nle_oom(E);
            else {
                c->job.dcout = p;
                c->job.dcout[c->job.ndcout++] = o.p;
                o.p.name = NULL;
            }
        }
        for (int k = 0; ac && !s && k < (part < 0 ? 2 : 1); k++)
            if (!(s = out_name(E, &o, part < 0 ? k : part))) {
                s = acout_add(E, &o);
                free(o.name);
                o.name = NULL;
            }
        free(o.p.name);
        free(o.den.name);
        if (s) return s;
    }
    return NSC_OK;
}

/* An AC signal with its part at field f, for .meas ac; with den (NULL: none)
 * its denominator `/v(x)`. A signal without a part (v(x), i(x)) is its real
 * part, as ngspice 39 measures it (FIND v(out) = FIND vr(out) there), with a
 * warning: a user may have meant the magnitude. */
static nsc_status meas_signal(elab *E, const nl_card *cd, const nl_field *f, const nl_field *den,
                              nsc_acout *o)
{
    int part;
    if (out_field(E, cd, f, o, &part)) return E->r->status;
    if (part < 0) {
        nle_warn(E, NULL, cd, f,
                 "'%s' in .meas ac is its real part (vr), as ngspice measures it; vm, vdb or vp "
                 "for the magnitude or phase",
                 o->p.name);
        part = NSC_ACP_RE;
    }
    if (den && den_field(E, cd, den, o)) return E->r->status;
    return out_name(E, o, part);
}

/* The signal at f[*i] with its denominator if f[*i + 1] is one; *i past them. */
static nsc_status meas_sig_at(elab *E, const nl_card *cd, int *i, nsc_acout *o)
{
    const nl_field *f = &cd->f[*i],
                   *den = *i + 1 < cd->nf && is_den(&cd->f[*i + 1]) ? &cd->f[*i + 1] : NULL;
    *i += den ? 2 : 1;
    return meas_signal(E, cd, f, den, o);
}

/* The fields of WHEN's `sig=val` at f[i]: 1 (a pair), 2 for `sig/v(x)=val`
 * (the signal, then a pair whose key is the denominator), 0 if neither. */
static int when_at(const nl_card *cd, int i)
{
    if (i < cd->nf && cd->f[i].kind == NL_F_PAIR) return 1;
    return i + 1 < cd->nf && cd->f[i].kind == NL_F_CALL && cd->f[i + 1].kind == NL_F_PAIR
                   && is_den(&cd->f[i + 1].sub[0])
               ? 2
               : 0;
}

/* WHEN's signal and value at f[*i] (when_at); *i past them. */
static nsc_status meas_when(elab *E, scope *sc, const nl_card *cd, int *i, nsc_acout *o,
                            double *val)
{
    int k = when_at(cd, *i);
    const nl_field *f = &cd->f[*i], *pair = &cd->f[*i + k - 1];
    *i += k;
    if (meas_signal(E, cd, k == 1 ? &f->sub[0] : f, k == 1 ? NULL : &pair->sub[0], o))
        return E->r->status;
    return nle_value(E, sc, cd, &pair->sub[1], val);
}

/* A .meas ac form not measured here (FROM/TO, TRIG/TARG, AVG, RMS, the n-th
 * crossing ...): the card's measure (the last one) dropped with a warning at
 * field f; the run goes on, as ngspice's does past a measure it cannot make (a
 * measure is an output: it does not change the circuit; issue 28). */
static nsc_status meas_skip(elab *E, const nl_card *cd, const nl_field *f, const char *what)
{
    nsc_job *j = &E->c->job;
    nsc_acmeas *m = &j->acmeas[--j->nacmeas];
    nle_warn(E, NULL, cd, f, ".meas ac %s not measured: unsupported %s", m->name, what);
    char *own[] = { m->name,        m->sig.name,     m->sig.p.name,   m->when.name,
                    m->when.p.name, m->sig.den.name, m->when.den.name };
    for (size_t q = 0; q < sizeof own / sizeof own[0]; q++) free(own[q]);
    return NSC_OK;
}

/* .meas ac NAME FIND sig AT=f | WHEN sig=val | FIND sig WHEN sig2=val | MAX sig | MIN sig */
static nsc_status card_meas(elab *E, scope *sc, const nl_card *cd)
{
    nsc_circuit *c = E->c;
    const nl_field *f = cd->f;
    if (cd->nf < 4 || f[2].kind != NL_F_WORD)
        return nle_err(E, NULL, cd, NULL, "expected .meas ac name FIND|WHEN|MAX|MIN ...");
    nsc_acmeas *a = nsc_realloc_array(c->job.acmeas, (size_t)c->job.nacmeas + 1, sizeof *a);
    if (!a) return nle_oom(E);
    c->job.acmeas = a;
    nsc_acmeas *m = &a[c->job.nacmeas++];
    memset(m, 0, sizeof *m);
    m->loc = nl_field_loc(E->d, cd, &f[0]);
    if (!(m->name = nsc_strdup(f[2].u.s))) return nle_oom(E);
    nsc_strlower(m->name);
    int i = 4, n = cd->nf;
    if ((nle_is_word(&f[3], "max") || nle_is_word(&f[3], "min")) && n >= 5) {
        m->type = nle_is_word(&f[3], "max") ? NSC_ACM_MAX : NSC_ACM_MIN;
        if (meas_sig_at(E, cd, &i, &m->sig)) return E->r->status;
    } else if (nle_is_word(&f[3], "find") && n >= 6) {
        if (meas_sig_at(E, cd, &i, &m->sig)) return E->r->status;
        if (i < n && f[i].kind == NL_F_PAIR && nle_is_word(&f[i].sub[0], "at")) {
            m->type = NSC_ACM_FIND_AT;
            if (nle_value(E, sc, cd, &f[i].sub[1], &m->at)) return E->r->status;
            i++;
        } else if (i < n && nle_is_word(&f[i], "when") && when_at(cd, i + 1)) {
            m->type = NSC_ACM_FIND_WHEN;
            i++;
            if (meas_when(E, sc, cd, &i, &m->when, &m->val)) return E->r->status;
        } else
            return nle_err(E, NULL, cd, &f[i < n ? i : n - 1],
                           "FIND needs AT=frequency or WHEN signal=value");
    } else if (nle_is_word(&f[3], "when") && when_at(cd, 4)) {
        m->type = NSC_ACM_WHEN;
        if (meas_when(E, sc, cd, &i, &m->when, &m->val)) return E->r->status;
    } else
        return meas_skip(E, cd, &f[3],
                         "form (FIND sig AT=f, WHEN sig=val, FIND sig WHEN sig=val, MAX sig, "
                         "MIN sig are)");
    for (; i < n; i++) { /* the first crossing: CROSS=1 RISE=1 FALL=1 accepted */
        char key[16];
        const char *k = nle_pair_key(&f[i], key, sizeof key);
        double v = 0;
        if (k && (!strcmp(k, "cross") || !strcmp(k, "rise") || !strcmp(k, "fall"))
            && m->type != NSC_ACM_FIND_AT && f[i].sub[1].kind == NL_F_WORD
            && nsc_parse_number(f[i].sub[1].u.s, &v) && v == 1)
            continue;
        const char *name = k ? k : f[i].kind == NL_F_WORD ? f[i].u.s : "";
        char *what = nsc_asprintf("option '%s' (here only the first crossing is measured: "
                                  "CROSS=1, RISE=1, FALL=1)",
                                  name);
        nsc_status s = what ? meas_skip(E, cd, &f[i], what) : nle_oom(E);
        free(what);
        return s;
    }
    return NSC_OK;
}

/* .four freq out...: the outputs become recorded columns (nl_meas_column) */
static nsc_status card_four(elab *E, scope *sc, const nl_card *cd)
{
    nsc_circuit *c = E->c;
    if (cd->nf < 3) return nle_err(E, NULL, cd, NULL, "expected .four frequency output...");
    nsc_four *a = nsc_realloc_array(c->job.four, (size_t)c->job.nfour + 1, sizeof *a);
    if (!a) return nle_oom(E);
    c->job.four = a;
    nsc_four *F = &a[c->job.nfour++];
    memset(F, 0, sizeof *F);
    F->loc = nl_field_loc(E->d, cd, &cd->f[0]);
    if (nle_value(E, sc, cd, &cd->f[1], &F->f)) return E->r->status;
    if (!(F->f > 0))
        return nle_err(E, NULL, cd, &cd->f[1], "the .four frequency must be positive, not %g",
                       F->f);
    if (!(F->sig = nsc_calloc((size_t)cd->nf, sizeof *F->sig))) return nle_oom(E);
    for (int i = 2; i < cd->nf; i++) {
        nsc_acout o;
        int part, idx;
        if (out_field(E, cd, &cd->f[i], &o, &part)) return E->r->status;
        nsc_status s = part >= 0
                           ? nle_err(E, NULL, cd, &cd->f[i], "'%s' in .four: V(n), V(a,b) or I(x)",
                                     nle_ftext(&cd->f[i]))
                       : o.p.kind == NSC_PROBE_V
                           ? nl_meas_column(c, NSC_PROBE_V, c->node_name[o.p.node[0]],
                                            o.p.node[1] ? c->node_name[o.p.node[1]] : NULL, o.p.loc,
                                            &idx, E->r)
                           : nl_meas_column(c, NSC_PROBE_I, c->el[o.p.el].name, NULL, o.p.loc, &idx,
                                            E->r);
        if (!s) F->sig[F->nsig++] = o.p.name;
        else free(o.p.name);
        if (s) return s;
    }
    return NSC_OK;
}

nsc_status nle_resolve_small(elab *E, scope *top)
{
    for (int k = 0; k < E->nsmall; k++) {
        const nl_card *cd = &E->d->card[E->small[k]];
        nsc_status s = nle_head_is(cd, ".ac")     ? card_ac(E, top, cd)
                       : nle_head_is(cd, ".dc")   ? card_dc(E, top, cd)
                       : is_meas(cd)              ? card_meas(E, top, cd)
                       : nle_head_is(cd, ".four") ? card_four(E, top, cd)
                                                  : card_print(E, cd);
        if (s) return s;
    }
    return NSC_OK;
}
