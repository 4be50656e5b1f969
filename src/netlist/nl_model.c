/* nl_model.c -- .model cards (types, parameters, duplicates) and the models
 * elements name.
 *
 * Invariants: E->model_card[k] is the card of E->c->model[k]; a scope's
 * models map its local (lower-case) names to model indices, the models of a
 * type not supported map to their card (an error only when an element uses
 * one). A model defined again in a scope keeps its first card (ngspice),
 * with a warning when the values differ once defaults are filled in. */
#include "nl_elab.h"
#include "devices/device.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the .model types: the device table's (devif.h models) ---- */

/* The q-th .model type name of element kind k's device, NULL past its last. */
static const nsc_modname *model_name(int k, int q)
{
    const nsc_modname *n = q < NSC_MAXMODNAME ? &nsc_device_of((nsc_elkind)k)->models[q] : NULL;
    return n && n->name ? n : NULL;
}

/* The type of .model type name s, -1 when no device takes it. */
static int type_of_name(const char *s)
{
    const nsc_modname *n;
    for (int k = 0; k < NSC_EL_NKINDS; k++)
        for (int q = 0; (n = model_name(k, q)) != NULL; q++)
            if (nsc_strieq(s, n->name)) return (int)n->type;
    return -1;
}

/* name upper case at buf + at (buf: size bytes in all); the new length. */
static size_t put_upper(char *buf, size_t size, size_t at, const char *name)
{
    for (const char *p = name; *p && at + 1 < size; p++)
        buf[at++] = (char)toupper((unsigned char)*p);
    buf[at] = 0;
    return at;
}

/* Type t's name in messages into buf: its first name in the table, upper case ("NMOS"). */
static const char *type_name(nsc_modeltype t, char *buf, size_t size)
{
    const nsc_modname *n;
    for (int alias = 0; alias < 2; alias++) /* a type of aliases only: the first */
        for (int k = 0; k < NSC_EL_NKINDS; k++)
            for (int q = 0; (n = model_name(k, q)) != NULL; q++)
                if (n->type == t && n->alias == alias) {
                    put_upper(buf, size, 0, n->name);
                    return buf;
                }
    snprintf(buf, size, "?");
    return buf;
}

/* The supported types, "D NMOS PMOS VDMOS ..." (table order, aliases left out), into buf. */
static const char *supported(char *buf, size_t size)
{
    const nsc_modname *n;
    size_t at = 0;
    buf[0] = 0;
    for (int k = 0; k < NSC_EL_NKINDS; k++)
        for (int q = 0; (n = model_name(k, q)) != NULL; q++)
            if (!n->alias)
                at = put_upper(buf, size, at ? put_upper(buf, size, at, " ") : 0, n->name);
    return buf;
}

/* model named by field f for element el (resolved now: models of a scope come
 * first); lw: the MOS instance's L, W (metres, scaled) for a binned model, else NULL. */
static nsc_status model_ref(elab *E, scope *sc, const nl_card *cd, const nl_field *f, int el,
                            const double *lw)
{
    if (f->kind != NL_F_WORD)
        return nle_err(E, sc, cd, f, "expected a model name, found '%s'", nle_ftext(f));
    const char *k = nle_cat(E, "", f->u.s);
    if (!k) return nle_oom(E);
    int m = -1, other = -1;
    for (const scope *s = sc; s && m < 0 && other < 0; s = s->up)
        if (!nl_hash_get(&s->models, k, &m) && !nl_hash_get(&s->othermodels, k, &other))
            m = other = -1;
    nsc_element *e = &E->c->el[el];
    if (other >= 0) {
        const nl_card *mc = &E->d->card[other];
        nsc_loc l = nl_field_loc(E->d, mc, &mc->f[2]);
        if (mc->f[2].kind == NL_F_STRING) /* a card that did not parse (nl_deck.c deferred_card) */
            return nle_err(E, sc, cd, f, "model '%s' of %s %s cannot be read: %s:%d:%d: %s", f->u.s,
                           nle_kind_name(e->kind), cd->f[0].u.s, l.file, l.line, l.col,
                           mc->f[2].u.s);
        char ts[128];
        return nle_err(E, sc, cd, f,
                       "model '%s' of %s %s has unsupported type '%s' (%s:%d; supported: %s)",
                       f->u.s, nle_kind_name(e->kind), cd->f[0].u.s, mc->f[2].u.s, l.file, l.line,
                       supported(ts, sizeof ts));
    }
    if (m < 0 && lw && nle_model_bin(E, sc, cd, f, lw[0], lw[1], &m)) return E->r->status;
    if (m < 0)
        return nle_err(E, sc, cd, f, "unknown model '%s' for %s %s", f->u.s, nle_kind_name(e->kind),
                       cd->f[0].u.s);
    nsc_modeltype t = E->c->model[m].type;
    const nsc_device *d = nsc_device_of(e->kind);
    if (!nsc_dev_takes(d, t)) { /* (devif.h models) */
        char tn[16];
        return nle_err(E, sc, cd, f, "model '%s' of %s %s is %s model, not %s model", f->u.s,
                       nle_kind_name(e->kind), cd->f[0].u.s, type_name(t, tn, sizeof tn),
                       d->model_what);
    }
    E->elmodel[el] = m;
    return NSC_OK;
}

nsc_status nle_model_ref(elab *E, scope *sc, const nl_card *cd, const nl_field *f, int el)
{
    return model_ref(E, sc, cd, f, el, NULL);
}

nsc_status nle_model_ref_lw(elab *E, scope *sc, const nl_card *cd, const nl_field *f, int el,
                            double l, double w)
{
    const double lw[2] = { l, w };
    return model_ref(E, sc, cd, f, el, lw);
}

/* ---- model binning (ngspice): .model NAME.1, NAME.2 ... each for a range of L, W ---- */

/* Parameter name of model m (lower case), def when not given. */
static double model_value(const nsc_model *m, const char *name, double def)
{
    for (int j = 0; j < m->npar; j++)
        if (nsc_strieq(m->pname[j], name)) return m->pval[j];
    return def;
}

/* 1 when key is name "." digits (a bin of model name), else 0. */
static int is_bin_of(const char *key, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(key, name, n) || key[n] != '.' || !key[n + 1]) return 0;
    for (const char *p = key + n + 1; *p; p++)
        if (!isdigit((unsigned char)*p)) return 0;
    return 1;
}

/* v (metres) in [lo, hi] within 1 nm, ngspice 39's rule as measured on BSIM4
 * bins (W = WMAX + 0.9 nm is in the bin, W = WMIN - 1 nm is not; a W two bins
 * share goes to the first one defined). */
static int in_bin(double v, double lo, double hi)
{
    return v > lo - 1e-9 && v < hi + 1e-9;
}

/* The model of the innermost scope from sc out that defines bins of the model
 * named by f (a name that is not itself a model): its first NAME.K (K digits)
 * with LMIN <= l <= LMAX and WMIN <= w <= WMAX (metres, in_bin; a bound not
 * given is open). *m = -1 when
 * no scope defines a bin; an error when some do and none holds l, w. */
nsc_status nle_model_bin(elab *E, scope *sc, const nl_card *cd, const nl_field *f, double l,
                         double w, int *m)
{
    *m = -1;
    if (f->kind != NL_F_WORD) return NSC_OK;
    const char *k = nle_cat(E, "", f->u.s);
    if (!k) return nle_oom(E);
    int nbin = 0;
    for (const scope *s = sc; s && !nbin; s = s->up)
        for (size_t j = 0; j < s->models.cap; j++) {
            const nl_slot *sl = &s->models.s[j];
            if (!sl->key || !is_bin_of(sl->key, k)) continue;
            const nsc_model *md = &E->c->model[sl->val];
            nbin++;
            if (in_bin(l, model_value(md, "lmin", 0), model_value(md, "lmax", INFINITY))
                && in_bin(w, model_value(md, "wmin", 0), model_value(md, "wmax", INFINITY))
                && (*m < 0 || sl->val < *m))
                *m = sl->val; /* two bins holding l, w: the first defined */
        }
    if (nbin && *m < 0)
        return nle_err(E, sc, cd, f,
                       "no bin of model '%s' (%d %s.N cards) holds L = %g m, W = %g m "
                       "(LMIN <= L <= LMAX, WMIN <= W <= WMAX)",
                       f->u.s, nbin, f->u.s, l, w);
    return NSC_OK;
}

/* The model named by field f in scope sc (or an enclosing one), -1 if none. */
int nle_model_named(elab *E, const scope *sc, const nl_field *f)
{
    const char *k = f->kind == NL_F_WORD ? nle_cat(E, "", f->u.s) : NULL;
    int m = -1;
    for (const scope *s = sc; k && s && m < 0; s = s->up)
        if (!nl_hash_get(&s->models, k, &m)) m = -1;
    return m;
}

const nl_card *nle_model_unparsed(elab *E, const scope *sc, const nl_field *f)
{
    const char *k = f->kind == NL_F_WORD ? nle_cat(E, "", f->u.s) : NULL;
    int m = -1, other = -1;
    for (const scope *s = sc; k && s && m < 0 && other < 0; s = s->up)
        if (!nl_hash_get(&s->models, k, &m) && !nl_hash_get(&s->othermodels, k, &other))
            m = other = -1;
    const nl_card *mc = other >= 0 ? &E->d->card[other] : NULL;
    return mc && mc->nf == 4 && mc->f[2].kind == NL_F_STRING ? mc
                                                             : NULL; /* (nl_deck.c deferred_card) */
}

/* A new, zeroed model of card cd at c->model[c->nmodel] (not yet counted:
 * the caller increments nmodel); NULL out of memory. */
nsc_model *nle_model_new(elab *E, const nl_card *cd)
{
    nsc_circuit *c = E->c;
    if (nsc_grow((void **)&c->model, &E->capmodel, c->nmodel + 1, sizeof *c->model)) return NULL;
    int *mc = nsc_realloc_array(E->model_card, (size_t)E->capmodel, sizeof *mc);
    if (!mc) return NULL;
    E->model_card = mc;
    mc[c->nmodel] = (int)(cd - E->d->card);
    memset(&c->model[c->nmodel], 0, sizeof *c->model);
    return &c->model[c->nmodel];
}

/* Append parameter name = v to model m (cap: its arrays' capacity). */
nsc_status nle_model_set(elab *E, nsc_model *m, int *cap, const char *name, double v)
{
    if (nsc_grow((void **)&m->pname, cap, m->npar + 1, sizeof *m->pname)) return nle_oom(E);
    double *pv = nsc_realloc_array(m->pval, (size_t)*cap, sizeof *pv);
    if (!pv) return nle_oom(E);
    m->pval = pv;
    if (!(m->pname[m->npar] = nsc_strdup(name))) return nle_oom(E);
    m->pval[m->npar++] = v;
    return NSC_OK;
}

/* model parameters (PAIR fields, possibly inside parentheses) */
static nsc_status model_params(elab *E, scope *sc, const nl_card *cd, const nl_field *f, int n,
                               nsc_model *m, int *cap)
{
    char kb[256];
    for (int i = 0; i < n; i++) {
        if (f[i].kind == NL_F_GROUP) {
            if (model_params(E, sc, cd, f[i].sub, f[i].nsub, m, cap)) return E->r->status;
            continue;
        }
        if (m->vdmos && f[i].kind == NL_F_WORD
            && (nsc_strieq(f[i].u.s, "pchan") || nsc_strieq(f[i].u.s, "nchan")))
            continue; /* VDMOS's polarity flags (card_model) */
        const char *k = nle_pair_key(&f[i], kb, sizeof kb);
        const nl_field *vf = k ? &f[i].sub[1] : NULL;
        double nv; /* vendors' "IS 1e-14 N 1.05": name, then value */
        if (!k && f[i].kind == NL_F_WORD && nle_is_ident(f[i].u.s) && i + 1 < n
            && ((f[i + 1].kind == NL_F_WORD && nsc_parse_number(f[i + 1].u.s, &nv))
                || f[i + 1].kind == NL_F_EXPR)) {
            snprintf(kb, sizeof kb, "%s", f[i].u.s);
            k = nsc_strlower(kb);
            vf = &f[++i];
        }
        if (!k)
            return nle_err(E, sc, cd, &f[i], "expected name=value in .model %s, found '%s'",
                           cd->f[1].u.s, nle_ftext(&f[i]));
        double v;
        if (vf->kind == NL_F_EXPR && vf->u.x->op == NL_X_PARAM
            && !nle_scope_lookup(sc, vf->u.x->name, &v)) {
            nle_warn(E, sc, cd, &f[i], "non-numeric parameter '%s' of model %s ignored", k,
                     cd->f[1].u.s);
            continue;
        }
        if (nle_value(E, sc, cd, vf, &v) || nle_model_set(E, m, cap, k, v)) return E->r->status;
    }
    return NSC_OK;
}

/* The value of expression field f in scope sc, NAN when it does not evaluate. */
static double expr_value(elab *E, scope *sc, const nl_card *cd, const nl_field *f)
{
    nsc_report scratch;
    nsc_report_init(&scratch);
    nl_env env = { nle_scope_lookup, sc, E->d->files[cd->file], sc->where, E->funcs, E->nfunc };
    double v = NAN;
    if (nl_expr_eval(f->u.x, &env, &v, &scratch)) v = NAN;
    nsc_report_free(&scratch);
    return v;
}

/* 1 when the fields of cards ca, cb from index 1 on are the same words, values
 * and groups (case aside; expressions by value): a library included twice
 * defines its models twice, identically. */
static int same_fields(elab *E, scope *sc, const nl_card *ca, const nl_field *a, int na,
                       const nl_card *cb, const nl_field *b, int nb)
{
    if (na != nb) return 0;
    for (int i = 0; i < na; i++) {
        double x, y;
        if ((a[i].kind == NL_F_EXPR || b[i].kind == NL_F_EXPR)) { /* values: {0.1*2} is 0.2 */
            x = a[i].kind == NL_F_EXPR ? expr_value(E, sc, ca, &a[i])
                : a[i].kind == NL_F_WORD && nsc_parse_number(a[i].u.s, &x) ? x
                                                                           : NAN;
            y = b[i].kind == NL_F_EXPR ? expr_value(E, sc, cb, &b[i])
                : b[i].kind == NL_F_WORD && nsc_parse_number(b[i].u.s, &y) ? y
                                                                           : NAN;
            if (!(x == y)) return 0;
            continue;
        }
        if (a[i].kind != b[i].kind) return 0;
        if (a[i].kind == NL_F_WORD && nsc_parse_number(a[i].u.s, &x)
            && nsc_parse_number(b[i].u.s, &y)) {
            if (!(x == y)) return 0;
            continue;
        }
        if ((a[i].kind == NL_F_WORD || a[i].kind == NL_F_STRING || a[i].kind == NL_F_CALL)
            && !nsc_strieq(a[i].u.s, b[i].u.s))
            return 0;
        if (a[i].nsub && !same_fields(E, sc, ca, a[i].sub, a[i].nsub, cb, b[i].sub, b[i].nsub))
            return 0;
    }
    return 1;
}

/* 1 when the fields (and their groups) hold the bare word w */
static int has_word(const nl_field *f, int n, const char *w)
{
    for (int i = 0; i < n; i++)
        if ((f[i].kind == NL_F_WORD && nsc_strieq(f[i].u.s, w))
            || (f[i].nsub && f[i].kind != NL_F_PAIR && has_word(f[i].sub, f[i].nsub, w)))
            return 1;
    return 0;
}

/* The type of .model card cd (-1: no device takes it), *vdmos when it is a VDMOS. */
static int model_type(const nl_card *cd, int *vdmos)
{
    const nl_field *f = cd->f;
    /* Xyce's VSWITCH / ISWITCH are SW / CSW (dev_s.c, dev_w.c), its generic SWITCH an SW */
    int t = type_of_name(f[2].u.s);
    *vdmos = nsc_strieq(f[2].u.s, "vdmos");
    if (*vdmos && has_word(f + 2, cd->nf - 2, "pchan")) t = NSC_MOD_PMOS;
    return t;
}

/* SPICE's default of parameter k of a model of type t: LEVEL 1 and TNOM 27 of
 * any, else the device's own (nsc_model_default: its model_defs); 0 when not
 * known. */
static int model_default(int t, const char *k, double *v)
{
    if (!strcmp(k, "level") || !strcmp(k, "tnom")) {
        *v = k[0] == 'l' ? 1 : 27;
        return 1;
    }
    return nsc_model_default((nsc_modeltype)t, k, v);
}

/* The value of parameter k in m (the last one given), else its default; 0 when neither. */
static int param_or_default(const nsc_model *m, int t, const char *k, double *v)
{
    for (int i = m->npar - 1; i >= 0; i--)
        if (!strcmp(m->pname[i], k)) {
            *v = m->pval[i];
            return 1;
        }
    return model_default(t, k, v);
}

/* 1 when models a and b of type t hold the same values, in any order, a
 * parameter given in one only counting as its default in the other. */
static int same_values(const nsc_model *a, const nsc_model *b, int t)
{
    for (int pass = 0; pass < 2; pass++) {
        const nsc_model *x = pass ? b : a, *y = pass ? a : b;
        for (int i = 0; i < x->npar; i++) {
            double u, w;
            if (!param_or_default(x, t, x->pname[i], &u) || !param_or_default(y, t, x->pname[i], &w)
                || !(u == w))
                return 0;
        }
    }
    return 1;
}

/* The parameters of .model card cd (read in scope sc) into *m (zeroed first). */
static nsc_status card_values(elab *E, scope *sc, const nl_card *cd, nsc_model *m)
{
    int cap = 0, vdmos;
    memset(m, 0, sizeof *m);
    model_type(cd, &vdmos);
    m->vdmos = vdmos;
    const nl_field *f = cd->f;
    if (f[2].kind == NL_F_CALL && model_params(E, sc, cd, f[2].sub, f[2].nsub, m, &cap))
        return E->r->status;
    return model_params(E, sc, cd, f + 3, cd->nf - 3, m, &cap);
}

static void values_free(nsc_model *m)
{
    for (int i = 0; i < m->npar; i++) free(m->pname[i]);
    free(m->pname);
    free(m->pval);
}

/* .model cd defines again the model of card oc (same scope and name): the
 * first one stays (as in ngspice), with a warning when the two differ once
 * their defaults are filled in (issue 28 item 6). */
static nsc_status model_again(elab *E, scope *sc, const nl_card *oc, const nl_card *cd)
{
    if (same_fields(E, sc, oc, oc->f + 1, oc->nf - 1, cd, cd->f + 1, cd->nf - 1))
        return NSC_OK; /* the same card twice */
    int va, vb, t = model_type(oc, &va), same = t >= 0 && t == model_type(cd, &vb) && va == vb;
    if (same) {
        nsc_model a, b;
        nsc_status st = card_values(E, sc, oc, &a);
        if (!st) st = card_values(E, sc, cd, &b);
        else memset(&b, 0, sizeof b);
        same = !st && same_values(&a, &b, t);
        values_free(&a);
        values_free(&b);
        if (st) return st;
    }
    if (!same) {
        nsc_loc l = nl_field_loc(E->d, oc, &oc->f[0]);
        nle_warn(E, sc, cd, &cd->f[1],
                 "model '%s' defined again with other parameters: the first one (%s:%d) is kept, "
                 "as ngspice does",
                 cd->f[1].u.s, l.file, l.line);
    }
    return NSC_OK;
}

/* .model name type[(]p=v ...[)] */
nsc_status nle_card_model(elab *E, scope *sc, const nl_card *cd)
{
    const nl_field *f = cd->f;
    if (cd->nf < 3 || f[1].kind != NL_F_WORD
        || (f[2].kind != NL_F_WORD && f[2].kind != NL_F_CALL && f[2].kind != NL_F_STRING))
        return nle_err(E, sc, cd, cd->nf < 2 ? NULL : &f[cd->nf < 3 ? 1 : 2],
                       ".model needs a name and a type");
    int vdmos, t = model_type(cd, &vdmos);
    const char *lk = nle_cat(E, "", f[1].u.s);
    char *local = lk ? nl_strndup(&E->ar, lk, strlen(lk), 0) : NULL;
    if (!local) return nle_oom(E);
    int old, ocard = -1;
    if (nl_hash_get(&sc->othermodels, local, &old)) ocard = old;
    else if (nl_hash_get(&sc->models, local, &old)) ocard = E->model_card[old];
    if (ocard >= 0) return model_again(E, sc, &E->d->card[ocard], cd);
    /* a type not supported (NJF, PJF, a code model, ...) is an error only for
     * an element that uses it: a library's unused models need not be supported */
    if (t < 0)
        return nl_hash_put(&sc->othermodels, local, (int)(cd - E->d->card)) ? nle_oom(E) : NSC_OK;
    nsc_circuit *c = E->c;
    nsc_model *m = nle_model_new(E, cd);
    if (!m) return nle_oom(E);
    const char *full = nle_cat(E, sc->prefix, f[1].u.s);
    if (!full || !(m->name = nsc_strdup(full))) return nle_oom(E);
    m->type = (nsc_modeltype)t;
    m->loc = nl_field_loc(E->d, cd, &f[0]);
    m->vdmos = vdmos;
    c->nmodel++;
    int cap = 0;
    if (f[2].kind == NL_F_CALL && model_params(E, sc, cd, f[2].sub, f[2].nsub, m, &cap))
        return E->r->status;
    if (model_params(E, sc, cd, f + 3, cd->nf - 3, m, &cap)) return E->r->status;
    if (nl_hash_put(&sc->models, local, c->nmodel - 1)) return nle_oom(E);
    return nle_model_read(E, sc, cd, c->nmodel - 1);
}

/* A resistor .model (PSpice's RES, ngspice's R) named by word field f, seen
 * from scope sc: 1 and *scale = R * (1 + TC1 dT + TC2 dT^2), dT = 27 - TNOM
 * (the run is at 27 C; TNOM defaults to 27, so TC1 TC2 act only through it);
 * 0 when f names no such model; -1 on error (reported). R multiplies the
 * element's value as in PSpice (default 1); ngspice ignores it (warned). */
int nle_res_model(elab *E, scope *sc, const nl_card *cd, const nl_field *f, double *scale)
{
    const char *k = f->kind == NL_F_WORD ? nle_cat(E, "", f->u.s) : NULL;
    int card = -1;
    for (const scope *s = sc; k && s && card < 0; s = s->up)
        if (!nl_hash_get(&s->othermodels, k, &card)) card = -1;
    if (card < 0) return 0;
    const nl_card *mc = &E->d->card[card];
    if (!nsc_strieq(mc->f[2].u.s, "res") && !nsc_strieq(mc->f[2].u.s, "r")) return 0;
    nsc_model m;
    if (card_values(E, sc, mc, &m)) {
        values_free(&m);
        return -1;
    }
    double r = 1, tc1 = 0, tc2 = 0, tnom = 27;
    for (int i = 0; i < m.npar; i++) {
        double v = m.pval[i];
        if (!strcmp(m.pname[i], "r")) r = v;
        else if (!strcmp(m.pname[i], "tc1")) tc1 = v;
        else if (!strcmp(m.pname[i], "tc2")) tc2 = v;
        else if (!strcmp(m.pname[i], "tnom")) tnom = v;
        else
            nle_warn(E, sc, mc, &mc->f[1], "parameter '%s' of resistor model %s ignored",
                     m.pname[i], mc->f[1].u.s);
    }
    values_free(&m);
    if (r != 1)
        nle_warn(
            E, sc, cd, f,
            "R=%g of resistor model %s multiplies the value of %s (PSpice); ngspice ignores it", r,
            mc->f[1].u.s, cd->f[0].u.s);
    double dt = 27 - tnom;
    *scale = r * (1 + tc1 * dt + tc2 * dt * dt);
    if (!(*scale > 0) || !isfinite(*scale)) {
        nle_err(E, sc, cd, f, "resistor model %s scales %s by %g", mc->f[1].u.s, cd->f[0].u.s,
                *scale);
        return -1;
    }
    return 1;
}
