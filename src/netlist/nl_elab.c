/* nl_elab.c -- elaboration: deck (cards) -> flat nsc_circuit (see circuit.h).
 *
 * The cards are first sorted into definitions: the top level and each
 * .subckt ... .ends (nested definitions are local to the enclosing one).
 * An instance of a definition is a scope: its hierarchical prefix ("x1.x2."),
 * its port -> node map, its .param values and its .model cards. Names are
 * looked up lexically: a scope, then the scope of the enclosing definition's
 * instance, up to the top level. A scope is elaborated in three passes over its
 * cards: .param (in order, so later ones may use earlier ones), .model, then
 * elements and X instances in card order (X recursing into a new scope).
 * Lookups use hash tables, so the whole is linear in the size of the
 * flattened circuit. References that may point forward (K -> L, F/H -> V,
 * .ic and .save nodes, models of elements) are resolved at the end. */
#include "netlist.h"
#include "nl_deck.h"
#include "nl_meas.h"
#include "nl_pwl.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NL_MAXNEST 1000 /* subcircuit instances nested deeper are an error */

/* A definition: the top level (hdr == NULL) or a .subckt. */
typedef struct def {
    const char *name;       /* lower case */
    const nl_card *hdr;     /* the .subckt card */
    struct def *parent;
    int *body;              /* its own cards (not those of nested definitions) */
    int nbody, capbody;
    nl_hash subs;           /* nested definitions: name -> index in elab.defs */
    nl_hash pars;           /* parameter name -> index of its field in hdr->f */
    int nport;              /* ports are hdr->f[2 .. 2+nport) */
    int active;             /* being expanded (recursion check) */
    int sized;              /* def_size: 0 not yet, 1 in progress, 2 done */
    double nel, ninst;      /* elements and instances one instance expands to */
} def;

/* An instance of a definition. */
typedef struct scope {
    const def *df;
    struct scope *up;       /* instance of df->parent */
    const char *prefix;     /* "x1.x2." or "" */
    const char *where;      /* " (in instance x1.x2)" or "" */
    int depth;
    nl_hash params;         /* name -> index in pval */
    double *pval;
    int npar, cappar;
    nl_hash models;         /* local name -> index in circuit->model */
    nl_hash othermodels;    /* local name -> card of a .model of a type not supported (an error once used) */
    nl_hash ports;          /* port name -> index in portnode */
    int *portnode;
} scope;

/* A reference resolved at the end: element el's ref[slot] = element named name. */
typedef struct fixup {
    int el, slot;
    int term;               /* >= 0: B source's I() reference el->bsrc->elref[term] instead */
    char *name;
    const nl_card *cd;
    const nl_field *f;
    const char *where;
} fixup;

/* .ic V(name)=value, resolved at the end */
typedef struct icfix {
    char *node;
    double v;
    const nl_card *cd;
    const nl_field *f;
    const char *where;
} icfix;

typedef struct elab {
    nl_deck *d;
    nsc_report *r;
    nsc_circuit *c;
    nl_arena ar;            /* scope names, parameter names */
    def **defs;
    int ndef, capdef;
    nl_hash nodes, els, globals, probes;
    nl_hash inodes;         /* internal node of an Rser= ("l1#rser") -> its element */
    int capnode, capel, capmodel, capsave, capic;
    int *elmodel;           /* [nel] model index of D/M/S, else -1 */
    int *model_card;        /* [capmodel] the card of each model (duplicates are compared with it) */
    nl_func *funcs;         /* .func and .param f(x)= definitions, every scope's (one namespace) */
    int nfunc, capfunc;
    char *ctl_unrun;        /* .control commands not run, "plot, print, let" (one note at the end) */
    int ctl_first;          /* the card of the first of them */
    int *wgiven;            /* [nel] waveform fields given (V/I), to fill defaults */
    fixup *fix;
    int nfix, capfix;
    icfix *ic;
    int nic, capic2;
    int *save;              /* top-level .save/.print cards */
    int nsavecard, capsavecard;
    const nsc_param_set *ov;
    int nov;
    char *ovused;
    char *buf;              /* name buffer */
    size_t capbuf;
    long ninst;             /* subcircuit instances expanded (<= NL_MAXELEMENTS) */
    int capstep;            /* capacity of circuit->step */
} elab;

static nsc_status scope_run(elab *E, scope *sc);
static nsc_status b_compile(elab *E, scope *sc, const nl_card *cd, int el, const nl_field *x, int from);

/* ---- messages ---- */

static nsc_status oom(elab *E)
{
    return nsc_err(E->r, NSC_ENOMEM, NULL, "out of memory");
}

/* the message of fmt and the location of field f of card cd (its first field if f is NULL) */
static nsc_loc vmsg(const elab *E, const nl_card *cd, const nl_field *f, char *msg, size_t n, const char *fmt,
                    va_list ap)
{
    vsnprintf(msg, n, fmt, ap);
    return nl_field_loc(E->d, cd, f ? f : &cd->f[0]);
}

/* error at field f of card cd, decorated with the instance */
static nsc_status err(elab *E, const scope *sc, const nl_card *cd, const nl_field *f, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static nsc_status err(elab *E, const scope *sc, const nl_card *cd, const nl_field *f, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    nsc_loc loc = vmsg(E, cd, f, msg, sizeof msg, fmt, ap);
    va_end(ap);
    return nsc_err(E->r, NSC_ENETLIST, &loc, "%s%s", msg, sc && sc->where ? sc->where : "");
}

/* warning at field f of card cd, decorated with the instance */
static void warn(elab *E, const scope *sc, const nl_card *cd, const nl_field *f, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void warn(elab *E, const scope *sc, const nl_card *cd, const nl_field *f, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    nsc_loc loc = vmsg(E, cd, f, msg, sizeof msg, fmt, ap);
    va_end(ap);
    nsc_warn(E->r, &loc, "%s%s", msg, sc && sc->where ? sc->where : "");
}

static void note(elab *E, const nl_card *cd, const nl_field *f, const char *fmt, const char *arg)
{
    nsc_loc loc = nl_field_loc(E->d, cd, f ? f : &cd->f[0]);
    nsc_note(E->r, &loc, fmt, arg);
}

/* text of a field for messages */
static const char *ftext(const nl_field *f)
{
    switch (f->kind) {
    case NL_F_WORD:
    case NL_F_STRING:
    case NL_F_CALL: return f->u.s;
    case NL_F_EXPR: return "{...}";
    case NL_F_GROUP: return "(...)";
    default: return f->sub[0].kind == NL_F_WORD ? f->sub[0].u.s : "=";
    }
}

static int is_word(const nl_field *f, const char *w)
{
    return f->kind == NL_F_WORD && nsc_strieq(f->u.s, w);
}

/* key of a PAIR field in lower case into E->buf, or NULL if the key is not a word */
static const char *pair_key(const nl_field *f, char *k, size_t cap)
{
    if (f->kind != NL_F_PAIR || f->sub[0].kind != NL_F_WORD) return NULL;
    snprintf(k, cap, "%s", f->sub[0].u.s);
    return nsc_strlower(k);
}

/* ---- names ---- */

/* E->buf = a b (b in lower case) */
static const char *cat(elab *E, const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    if (na + nb + 1 > E->capbuf) {
        size_t cap = (na + nb + 1) * 2;
        char *p = realloc(E->buf, cap);
        if (!p) return NULL;
        E->buf = p;
        E->capbuf = cap;
    }
    memcpy(E->buf, a, na);
    for (size_t k = 0; k <= nb; k++) E->buf[na + k] = (char)tolower((unsigned char)b[k]);
    return E->buf;
}

/* ---- parameters ---- */

static int scope_lookup(void *ctx, const char *name, double *v)
{
    for (const scope *s = ctx; s; s = s->up) {
        int i;
        if (nl_hash_get(&s->params, name, &i)) {
            *v = s->pval[i];
            return 1;
        }
    }
    return 0;
}

static nsc_status param_set(elab *E, scope *sc, const char *name, double v)
{
    int i;
    if (nl_hash_get(&sc->params, name, &i)) {
        sc->pval[i] = v;
        return NSC_OK;
    }
    const char *key = nl_strndup(&E->ar, name, strlen(name), 1);
    if (!key || nsc_grow((void **)&sc->pval, &sc->cappar, sc->npar + 1, sizeof *sc->pval) ||
        nl_hash_put(&sc->params, key, sc->npar))
        return oom(E);
    sc->pval[sc->npar++] = v;
    return NSC_OK;
}

static int is_ident(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_') return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.') return 0;
    return 1;
}

/* *v = numeric value of field f: a number, {expr}, a bare expression, or a .param name */
static nsc_status value(elab *E, scope *sc, const nl_card *cd, const nl_field *f, double *v)
{
    if (f->kind == NL_F_EXPR) {
        nl_env env = { scope_lookup, sc, E->d->files[cd->file], sc->where, E->funcs, E->nfunc, 0 };
        return nl_expr_eval(f->u.x, &env, v, E->r);
    }
    if (f->kind == NL_F_GROUP && f->nsub == 1) return value(E, sc, cd, &f->sub[0], v);
    if (f->kind != NL_F_WORD) return err(E, sc, cd, f, "expected a value, found '%s'", ftext(f));
    if (nsc_parse_number(f->u.s, v)) {
        if (!isfinite(*v)) return err(E, sc, cd, f, "value is not finite (overflow): '%s'", f->u.s);
        return NSC_OK;
    }
    if (is_ident(f->u.s)) {
        const char *k = cat(E, "", f->u.s);
        if (!k) return oom(E);
        if (scope_lookup(sc, k, v)) return NSC_OK;
        return err(E, sc, cd, f, "bad value '%s' (not a number or a .param name)", f->u.s);
    }
    return err(E, sc, cd, f, "bad number '%s'", f->u.s);
}

/* ---- nodes and elements ---- */

static nsc_status node_new(elab *E, const char *name, const nl_card *cd, const nl_field *f, int *idx)
{
    nsc_circuit *c = E->c;
    int cap = E->capnode;
    if (c->nnode >= NL_MAXELEMENTS)
        return err(E, NULL, cd, f, "circuit too large: more than %d nodes after subcircuit expansion", NL_MAXELEMENTS);
    if (nsc_grow((void **)&c->node_name, &cap, c->nnode + 1, sizeof *c->node_name)) return oom(E);
    if (cap != E->capnode) {                           /* node_loc has the same capacity */
        nsc_loc *nl = nsc_realloc_array(c->node_loc, (size_t)cap, sizeof *nl);
        if (!nl) return oom(E);
        c->node_loc = nl;
        E->capnode = cap;
    }
    char *s = nsc_strdup(name);
    if (!s) return oom(E);
    c->node_name[c->nnode] = s;
    c->node_loc[c->nnode] = cd ? nl_field_loc(E->d, cd, f) : (nsc_loc){ NULL, 0, 0 };
    if (nl_hash_put(&E->nodes, s, c->nnode)) return oom(E);
    *idx = c->nnode++;
    return NSC_OK;
}

/* full name of node `name` seen in scope sc (ports mapped, ground and .global kept) */
static const char *node_fullname(elab *E, const scope *sc, const char *name)
{
    const char *k = cat(E, "", name);
    if (!k) return NULL;
    if (!strcmp(k, "0") || !strcmp(k, "gnd")) return "0";
    int i;
    if (nl_hash_get(&sc->ports, k, &i)) return E->c->node_name[sc->portnode[i]];
    if (nl_hash_get(&E->globals, k, &i)) return k;
    return cat(E, sc->prefix, name);
}

/* *idx = node of field f (a word) in scope sc, created when new */
static nsc_status node(elab *E, scope *sc, const nl_card *cd, const nl_field *f, int *idx)
{
    if (f->kind != NL_F_WORD) return err(E, sc, cd, f, "expected a node name, found '%s'", ftext(f));
    const char *full = node_fullname(E, sc, f->u.s);
    if (!full) return oom(E);
    int owner;
    if (E->inodes.n && nl_hash_get(&E->inodes, full, &owner))
        return err(E, sc, cd, f, "node '%s' is the internal node of Rser= of %s", f->u.s, E->c->el[owner].name);
    if (nl_hash_get(&E->nodes, full, idx)) return NSC_OK;
    return node_new(E, full, cd, f, idx);
}

static const char *kind_name(nsc_elkind k)
{
    static const char *const names[] = { "resistor", "capacitor", "inductor", "coupling",
                                         "voltage source", "current source", "VCVS", "VCVS",
                                         "VCCS", "CCCS", "CCVS", "diode", "MOS transistor", "switch",
                                         "behavioural source", "behavioural source", "switch",
                                         "bipolar transistor" };
    return names[k];
}

/* New element of kind k named full (prefix included) for card cd; *idx its index. */
static nsc_status element_named(elab *E, scope *sc, const nl_card *cd, nsc_elkind k, const char *full, int *idx)
{
    nsc_circuit *c = E->c;
    int cap = E->capel;
    if (c->nel >= NL_MAXELEMENTS)
        return err(E, sc, cd, NULL, "circuit too large: more than %d elements after subcircuit expansion", NL_MAXELEMENTS);
    if (nsc_grow((void **)&c->el, &cap, c->nel + 1, sizeof *c->el)) return oom(E);
    if (cap != E->capel) {                             /* elmodel, wgiven: same capacity as el */
        int *em = nsc_realloc_array(E->elmodel, (size_t)cap, sizeof *em);
        if (em) E->elmodel = em;
        int *wg = em ? nsc_realloc_array(E->wgiven, (size_t)cap, sizeof *wg) : NULL;
        if (!wg) return oom(E);
        E->wgiven = wg;
        E->capel = cap;
    }
    int old;
    if (nl_hash_get(&E->els, full, &old)) {
        const nsc_loc *l = &c->el[old].loc;
        return err(E, sc, cd, NULL, "duplicate element name '%s' (first defined at %s:%d)", full, l->file, l->line);
    }
    nsc_element *e = &c->el[c->nel];
    memset(e, 0, sizeof *e);
    if (!(e->name = nsc_strdup(full))) return oom(E);
    e->kind = k;
    e->ref[0] = e->ref[1] = -1;
    e->wave.repeat = -1;
    e->loc = nl_field_loc(E->d, cd, &cd->f[0]);
    E->elmodel[c->nel] = -1;
    E->wgiven[c->nel] = 0;
    *idx = c->nel++;
    if (nl_hash_put(&E->els, e->name, *idx)) return oom(E);
    return NSC_OK;
}

/* New element of kind k named by card cd's head in scope sc; *idx its index. */
static nsc_status element_new(elab *E, scope *sc, const nl_card *cd, nsc_elkind k, int *idx)
{
    const char *full = cat(E, sc->prefix, cd->f[0].u.s);
    return full ? element_named(E, sc, cd, k, full, idx) : oom(E);
}

/* nodes f[1..n] of the card into element el; error when missing */
static nsc_status nodes(elab *E, scope *sc, const nl_card *cd, int el, int n)
{
    nsc_element *e = &E->c->el[el];
    if (cd->nf < n + 1) return err(E, sc, cd, NULL, "missing nodes for %s %s", kind_name(e->kind), cd->f[0].u.s);
    e->nnode = n;
    for (int k = 0; k < n; k++) {
        int i;
        if (node(E, sc, cd, &cd->f[k + 1], &i)) return E->r->status;
        E->c->el[el].node[k] = i;
    }
    return NSC_OK;
}

/* reference to element name (field f) resolved at the end */
static nsc_status fixup_add(elab *E, scope *sc, const nl_card *cd, const nl_field *f, int el, int slot)
{
    if (f->kind != NL_F_WORD) return err(E, sc, cd, f, "expected an element name, found '%s'", ftext(f));
    const char *full = cat(E, sc->prefix, f->u.s);
    if (!full || nsc_grow((void **)&E->fix, &E->capfix, E->nfix + 1, sizeof *E->fix)) return oom(E);
    fixup *x = &E->fix[E->nfix];
    if (!(x->name = nsc_strdup(full))) return oom(E);
    x->el = el;
    x->slot = slot;
    x->term = -1;
    x->cd = cd;
    x->f = f;
    x->where = sc->where;
    E->nfix++;
    return NSC_OK;
}

/* model named by field f for element el (resolved now: models of a scope come first) */
static nsc_status model_ref(elab *E, scope *sc, const nl_card *cd, const nl_field *f, int el)
{
    if (f->kind != NL_F_WORD) return err(E, sc, cd, f, "expected a model name, found '%s'", ftext(f));
    const char *k = cat(E, "", f->u.s);
    if (!k) return oom(E);
    int m = -1, other = -1;
    for (const scope *s = sc; s && m < 0 && other < 0; s = s->up)
        if (!nl_hash_get(&s->models, k, &m) && !nl_hash_get(&s->othermodels, k, &other)) m = other = -1;
    nsc_element *e = &E->c->el[el];
    if (other >= 0) {
        const nl_card *mc = &E->d->card[other];
        nsc_loc l = nl_field_loc(E->d, mc, &mc->f[2]);
        return err(E, sc, cd, f, "model '%s' of %s %s has unsupported type '%s' (%s:%d; supported: D NMOS PMOS VDMOS SW CSW NPN PNP)",
                   f->u.s, kind_name(e->kind), cd->f[0].u.s, mc->f[2].u.s, l.file, l.line);
    }
    if (m < 0) return err(E, sc, cd, f, "unknown model '%s' for %s %s", f->u.s, kind_name(e->kind), cd->f[0].u.s);
    nsc_modeltype t = E->c->model[m].type;
    int ok = e->kind == NSC_EL_D ? t == NSC_MOD_D
           : e->kind == NSC_EL_M ? (t == NSC_MOD_NMOS || t == NSC_MOD_PMOS)
           : e->kind == NSC_EL_W ? t == NSC_MOD_CSW
           : e->kind == NSC_EL_Q ? (t == NSC_MOD_NPN || t == NSC_MOD_PNP)
                                 : t == NSC_MOD_SW;
    if (!ok) {
        static const char *const tn[] = { "D", "NMOS", "PMOS", "SW", "CSW", "NPN", "PNP" };
        const char *want = e->kind == NSC_EL_D ? "a diode (D)" : e->kind == NSC_EL_M ? "a MOS (NMOS/PMOS)"
                         : e->kind == NSC_EL_W ? "a current switch (CSW)"
                         : e->kind == NSC_EL_Q ? "a bipolar (NPN/PNP)" : "a switch (SW)";
        return err(E, sc, cd, f, "model '%s' of %s %s is %s model, not %s model", f->u.s, kind_name(e->kind),
                   cd->f[0].u.s, tn[t], want);
    }
    E->elmodel[el] = m;
    return NSC_OK;
}

/* ---- element cards ---- */

/* LTspice's parasitics Rser= (V L C), Rpar= Cpar= (L C) are elements of their
 * own, named after their element ("l1#rser", "x1.c2#cpar"): '#' cannot start a
 * node or element name of another card kind, and a clash with a user's name is
 * an error (element_named, node). */

/* element "<el>#<what>" of kind k and value v from node n0 to n1 */
static nsc_status parasitic(elab *E, scope *sc, const nl_card *cd, int el, const char *what, nsc_elkind k, double v,
                            int n0, int n1)
{
    char *name = nsc_asprintf("%s#%s", E->c->el[el].name, what);
    if (!name) return oom(E);
    int p;
    nsc_status st = element_named(E, sc, cd, k, name, &p);
    free(name);
    if (st) return st;
    nsc_element *e = &E->c->el[p];
    e->nnode = 2;
    e->node[0] = n0;
    e->node[1] = n1;
    e->value = v;
    return NSC_OK;
}

/* Rser = r in series with element el (field f): el's n- moves to a new node
 * "<el>#rser", the resistor joins it to n-; the current through el is the resistor's */
static nsc_status series_r(elab *E, scope *sc, const nl_card *cd, const nl_field *f, int el, double r)
{
    char *name = nsc_asprintf("%s#rser", E->c->el[el].name);
    if (!name) return oom(E);
    int n, old;
    nsc_status st = NSC_OK;
    if (nl_hash_get(&E->nodes, name, &old))
        st = err(E, sc, cd, f, "node '%s' of the netlist clashes with the internal node of Rser= of %s", name,
                 cd->f[0].u.s);
    else if (!(st = node_new(E, name, cd, f, &n)) && nl_hash_put(&E->inodes, E->c->node_name[n], el))
        st = oom(E);
    free(name);
    if (st) return st;
    int nm = E->c->el[el].node[1];
    E->c->el[el].node[1] = n;
    return parasitic(E, sc, cd, el, "rser", NSC_EL_R, r, n, nm);
}

/* *v = value of the parasitic pair f (key kk) of element el; Rser >= 0, Rpar > 0, Cpar >= 0 */
static nsc_status parasitic_value(elab *E, scope *sc, const nl_card *cd, const nl_field *f, const char *kk, double *v)
{
    if (value(E, sc, cd, &f->sub[1], v)) return E->r->status;
    if (!strcmp(kk, "rpar") ? !(*v > 0) : !(*v >= 0))
        return err(E, sc, cd, f, "%s= of %s must be %s (%g)", f->sub[0].u.s, cd->f[0].u.s,
                   !strcmp(kk, "rpar") ? "positive" : "zero or positive", *v);
    return NSC_OK;
}

/* the parasitics given (0 = none) of element el */
static nsc_status parasitics(elab *E, scope *sc, const nl_card *cd, int el, const nl_field *fser, double rser,
                             double rpar, double cpar)
{
    int n0 = E->c->el[el].node[0], n1 = E->c->el[el].node[1];
    if (rser > 0 && series_r(E, sc, cd, fser, el, rser)) return E->r->status;
    if (rpar > 0 && parasitic(E, sc, cd, el, "rpar", NSC_EL_R, rpar, n0, n1)) return E->r->status;
    if (cpar > 0 && parasitic(E, sc, cd, el, "cpar", NSC_EL_C, cpar, n0, n1)) return E->r->status;
    return NSC_OK;
}

/* R C L: n+ n- value [IC=v] [name=value ...]; L C also Rser= Rpar= Cpar= */
static nsc_status card_rcl(elab *E, scope *sc, const nl_card *cd, nsc_elkind k)
{
    int el;
    if (element_new(E, sc, cd, k, &el) || nodes(E, sc, cd, el, 2)) return E->r->status;
    const char *vname = k == NSC_EL_R ? "r" : k == NSC_EL_C ? "c" : "l";
    int have = 0;
    double v, par[3] = { 0, 0, 0 };                    /* rser rpar cpar */
    const nl_field *fser = NULL;
    char key[64];
    for (int i = 3; i < cd->nf; i++) {
        const nl_field *f = &cd->f[i];
        const char *kk = pair_key(f, key, sizeof key);
        if (f->kind == NL_F_PAIR && !kk) return err(E, sc, cd, f, "unexpected '%s' in %s %s", ftext(f), kind_name(k), cd->f[0].u.s);
        int pk = !kk || k == NSC_EL_R ? -1 : !strcmp(kk, "rser") ? 0 : !strcmp(kk, "rpar") ? 1 : !strcmp(kk, "cpar") ? 2 : -1;
        if (pk >= 0) {
            if (parasitic_value(E, sc, cd, f, kk, &par[pk])) return E->r->status;
            if (pk == 0) fser = f;
        } else if (kk && !strcmp(kk, "ic") && k != NSC_EL_R) {
            if (value(E, sc, cd, &f->sub[1], &v)) return E->r->status;
            E->c->el[el].has_ic = 1;
            E->c->el[el].ic = v;
        } else if (kk && !strcmp(kk, vname) && !have) {
            if (value(E, sc, cd, &f->sub[1], &v)) return E->r->status;
            E->c->el[el].value = v;
            have = 1;
        } else if (kk) {
            warn(E, sc, cd, f, "parameter '%s' of %s %s ignored", kk, kind_name(k), cd->f[0].u.s);
        } else if (!have) {
            if (value(E, sc, cd, f, &v)) return E->r->status;
            E->c->el[el].value = v;
            have = 1;
        } else
            return err(E, sc, cd, f, "unexpected '%s' in %s %s", ftext(f), kind_name(k), cd->f[0].u.s);
    }
    if (!have) return err(E, sc, cd, NULL, "missing value for %s %s", kind_name(k), cd->f[0].u.s);
    return parasitics(E, sc, cd, el, fser, par[0], par[1], par[2]);
}

/* K: L1 L2 k */
static nsc_status card_k(elab *E, scope *sc, const nl_card *cd)
{
    int el;
    if (element_new(E, sc, cd, NSC_EL_K, &el)) return E->r->status;
    if (cd->nf < 4) return err(E, sc, cd, NULL, "coupling %s needs two inductors and a coefficient", cd->f[0].u.s);
    if (cd->nf > 4) {
        if (cd->f[3].kind == NL_F_WORD && tolower((unsigned char)cd->f[3].u.s[0]) == 'l')
            return err(E, sc, cd, &cd->f[3], "coupling %s: more than two inductors are not supported", cd->f[0].u.s);
        return err(E, sc, cd, &cd->f[4], "unexpected '%s' in coupling %s", ftext(&cd->f[4]), cd->f[0].u.s);
    }
    double k;
    if (fixup_add(E, sc, cd, &cd->f[1], el, 0) || fixup_add(E, sc, cd, &cd->f[2], el, 1) ||
        value(E, sc, cd, &cd->f[3], &k))
        return E->r->status;
    if (!(k > 0 && k <= 1))
        return err(E, sc, cd, &cd->f[3], "coupling coefficient %g of %s is not in (0, 1]", k, cd->f[0].u.s);
    E->c->el[el].value = k;
    return NSC_OK;
}

/* append the numeric values of fields (groups flattened) to *v; PAIR fields to *pairs */
static nsc_status flatten(elab *E, scope *sc, const nl_card *cd, const nl_field *f, int n, double **v, int *nv,
                          int *cap, const nl_field ***pairs, int *npair, int *cappair)
{
    for (int i = 0; i < n; i++) {
        if (f[i].kind == NL_F_GROUP) {
            if (flatten(E, sc, cd, f[i].sub, f[i].nsub, v, nv, cap, pairs, npair, cappair)) return E->r->status;
        } else if (f[i].kind == NL_F_PAIR && pairs) {
            if (nsc_grow((void **)pairs, cappair, *npair + 1, sizeof **pairs)) return oom(E);
            (*pairs)[(*npair)++] = &f[i];
        } else {
            if (nsc_grow((void **)v, cap, *nv + 1, sizeof **v)) return oom(E);
            if (value(E, sc, cd, &f[i], &(*v)[*nv])) return E->r->status;
            (*nv)++;
        }
    }
    return NSC_OK;
}

/* waveform `name` with argument fields a[0..na) (+ trailing r=/td= pairs) */
static nsc_status wave(elab *E, scope *sc, const nl_card *cd, const nl_field *at, int el, const char *name,
                       const nl_field *a, int na, const nl_field *const *extra, int nextra)
{
    double *v = NULL;
    int nv = 0, cap = 0, npair = 0, cappair = 0;
    const nl_field **pairs = NULL;
    nsc_status st = flatten(E, sc, cd, a, na, &v, &nv, &cap, &pairs, &npair, &cappair);
    for (int i = 0; !st && i < nextra; i++) {
        if (nsc_grow((void **)&pairs, &cappair, npair + 1, sizeof *pairs)) st = oom(E);
        else pairs[npair++] = extra[i];
    }
    nsc_wave *w = &E->c->el[el].wave;
    char lname[16], uname[16];                         /* lower case to match, upper for messages */
    snprintf(lname, sizeof lname, "%s", name);
    nsc_strlower(lname);
    size_t k = 0;
    for (; lname[k]; k++) uname[k] = (char)toupper((unsigned char)lname[k]);
    uname[k] = 0;
    name = uname;
    int maxn = 0;
    if (!st) {
        if (!strcmp(lname, "pulse")) w->kind = NSC_WAVE_PULSE, maxn = 8;  /* ngspice: NP 8th */
        else if (!strcmp(lname, "sin") || !strcmp(lname, "sine")) w->kind = NSC_WAVE_SIN, maxn = 6;
        else if (!strcmp(lname, "exp")) w->kind = NSC_WAVE_EXP, maxn = 6;
        else w->kind = NSC_WAVE_PWL, maxn = 1 << 30;
        if (nv < 2) st = err(E, sc, cd, at, "%s of %s needs at least 2 values", name, cd->f[0].u.s);
        else if (nv > maxn) st = err(E, sc, cd, at, "too many values in %s of %s", name, cd->f[0].u.s);
        else if (w->kind == NSC_WAVE_PWL && nv % 2)
            st = err(E, sc, cd, at, "PWL of %s needs time-value pairs (odd number of values)", cd->f[0].u.s);
    }
    double td = 0;
    char key[32];
    for (int i = 0; !st && i < npair; i++) {
        const char *k = pair_key(pairs[i], key, sizeof key);
        double x;
        if (w->kind == NSC_WAVE_PWL && k && (!strcmp(k, "r") || !strcmp(k, "td"))) {
            if (!(st = value(E, sc, cd, &pairs[i]->sub[1], &x))) {
                if (!strcmp(k, "r")) w->repeat = x;
                else td = x;
            }
        } else
            st = err(E, sc, cd, pairs[i], "unexpected '%s' in %s of %s", ftext(pairs[i]), name, cd->f[0].u.s);
    }
    if (!st && w->kind == NSC_WAVE_PWL) {
        for (int i = 0; i < nv; i += 2) v[i] += td;
        for (int i = 2; i < nv && !st; i += 2)
            if (v[i] < v[i - 2])
                st = err(E, sc, cd, at, "PWL times of %s must be non-decreasing (%g after %g)", cd->f[0].u.s, v[i], v[i - 2]);
        if (!st && w->repeat != -1) {
            if (!(w->repeat >= 0 && w->repeat < v[nv - 2]))
                st = err(E, sc, cd, at, "PWL repeat time r=%g of %s must be in [0, last time)", w->repeat, cd->f[0].u.s);
            else
                w->repeat += td;
        }
    }
    free(pairs);
    if (st) {
        free(v);
        return st;
    }
    w->np = nv;
    if (w->kind != NSC_WAVE_PWL) {                     /* room for the defaults */
        double *p = nsc_realloc_array(v, (size_t)maxn, sizeof *p);
        if (!p) {
            free(v);
            return oom(E);
        }
        v = p;
    }
    w->p = v;
    E->wgiven[el] = nv;
    return NSC_OK;
}

static int is_wave_name(const char *s)
{
    return nsc_strieq(s, "pulse") || nsc_strieq(s, "sin") || nsc_strieq(s, "sine") || nsc_strieq(s, "exp")
           || nsc_strieq(s, "pwl");
}

static int is_bad_wave(const char *s)
{
    static const char *const bad[] = { "sffm", "am", "trnoise", "trrandom", "pat", "dcop" };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        if (nsc_strieq(s, bad[k])) return 1;
    return 0;
}

/* V I: n+ n- [DC] [v] [AC mag [phase]] [PULSE|SIN|EXP|PWL(...)] */
static nsc_status card_vi(elab *E, scope *sc, const nl_card *cd, nsc_elkind k)
{
    int el;
    if (element_new(E, sc, cd, k, &el) || nodes(E, sc, cd, el, 2)) return E->r->status;
    int have_dc = 0, have_wave = 0;
    double dc = 0;
    const nl_field *f = cd->f, *fser = NULL;
    const nl_field *extra[4];
    double rser = 0;
    char key[64];
    for (int i = 3; i < cd->nf; i++) {
        const char *kk = pair_key(&f[i], key, sizeof key);
        if (kk && k == NSC_EL_V && !strcmp(kk, "rser")) {     /* LTspice */
            if (parasitic_value(E, sc, cd, &f[i], kk, &rser)) return E->r->status;
            fser = &f[i];
            continue;
        }
        if (kk && k == NSC_EL_V && !strcmp(kk, "cpar")) {
            warn(E, sc, cd, &f[i], "parameter '%s' of %s %s ignored (not supported)", kk, kind_name(k), f[0].u.s);
            continue;
        }
        if (is_word(&f[i], "dc")) {
            if (i + 1 >= cd->nf) return err(E, sc, cd, &f[i], "missing value after DC in %s", f[0].u.s);
            if (value(E, sc, cd, &f[++i], &dc)) return E->r->status;
            have_dc = 1;
        } else if (is_word(&f[i], "ac")) {
            double x;                                  /* AC mag [phase]: the values that follow */
            int j = i + 1;
            while (j < cd->nf && j <= i + 2 &&
                   (f[j].kind == NL_F_EXPR || (f[j].kind == NL_F_WORD && nsc_parse_number(f[j].u.s, &x))))
                j++;
            note(E, cd, &f[i], "AC specification of %s ignored (no AC analysis)", f[0].u.s);
            i = j - 1;
        } else if ((f[i].kind == NL_F_CALL || f[i].kind == NL_F_WORD) && (is_wave_name(f[i].u.s) || is_bad_wave(f[i].u.s))) {
            if (is_bad_wave(f[i].u.s)) return err(E, sc, cd, &f[i], "waveform '%s' is not supported", f[i].u.s);
            if (have_wave) return err(E, sc, cd, &f[i], "second waveform in %s", f[0].u.s);
            const nl_field *args;
            int na, nextra = 0, j;
            if (f[i].kind == NL_F_CALL) {
                args = f[i].sub;
                na = f[i].nsub;
                j = i + 1;
            } else {                                   /* PULSE v1 v2 ... without parentheses */
                args = &f[i + 1];
                for (j = i + 1; j < cd->nf && f[j].kind != NL_F_PAIR && !is_word(&f[j], "dc") && !is_word(&f[j], "ac"); j++)
                    ;
                na = j - i - 1;
            }
            while (j < cd->nf && nextra < 4 && (kk = pair_key(&f[j], key, sizeof key)) && (!strcmp(kk, "r") || !strcmp(kk, "td")))
                extra[nextra++] = &f[j++];                     /* PWL's r= td= */
            if (wave(E, sc, cd, &f[i], el, f[i].u.s, args, na, extra, nextra)) return E->r->status;
            have_wave = 1;
            i = j - 1;
        } else if (f[i].kind == NL_F_PAIR) {
            return err(E, sc, cd, &f[i], "unexpected '%s' in %s %s", ftext(&f[i]), kind_name(k), f[0].u.s);
        } else if (!have_dc && !have_wave) {
            if (value(E, sc, cd, &f[i], &dc)) return E->r->status;
            have_dc = 1;
        } else
            return err(E, sc, cd, &f[i], "unexpected '%s' in %s %s", ftext(&f[i]), kind_name(k), f[0].u.s);
    }
    nsc_element *e = &E->c->el[el];
    if (!have_wave) e->wave.kind = NSC_WAVE_DC;
    if (!have_dc && !have_wave) warn(E, sc, cd, NULL, "%s %s has no value, 0 assumed", kind_name(k), f[0].u.s);
    e->wave.dc = dc;
    if (have_wave && !have_dc) E->wgiven[el] = -E->wgiven[el] - 1; /* dc = wave(0), set with the defaults */
    return rser > 0 ? series_r(E, sc, cd, fser, el, rser) : NSC_OK;
}

/* TABLE {V(a[,b])} = (x1,y1) (x2,y2) ... starting at f[i] (the TABLE word) */
static nsc_status card_etable(elab *E, scope *sc, const nl_card *cd, int el, int i)
{
    const nl_field *f = cd->f;
    nsc_element *e = &E->c->el[el];
    e->kind = NSC_EL_ETABLE;
    if (i + 1 >= cd->nf) return err(E, sc, cd, &f[i], "missing {V(node)} after TABLE in %s", f[0].u.s);
    const nl_field *ctl = &f[i + 1], *first = NULL;
    if (ctl->kind == NL_F_PAIR) {
        first = &ctl->sub[1];
        ctl = &ctl->sub[0];
    }
    const nl_expr *x = ctl->kind == NL_F_EXPR ? ctl->u.x : NULL;
    int okctl = x && x->op == NL_X_CALL && !strcmp(x->name, "v") && x->nargs >= 1 && x->nargs <= 2;
    for (const nl_expr *a = okctl ? x->a : NULL; a; a = a->next)
        if (a->op != NL_X_PARAM && a->op != NL_X_NUM) okctl = 0;
    if (!okctl) return err(E, sc, cd, ctl, "TABLE of %s: the control must be {V(node)} or {V(node,node)}", f[0].u.s);
    int k = 2;
    for (const nl_expr *a = x->a; a; a = a->next, k++) {
        const char *full = node_fullname(E, sc, a->name);
        int idx;
        if (!full) return oom(E);
        if (!nl_hash_get(&E->nodes, full, &idx) && node_new(E, full, cd, ctl, &idx)) return E->r->status;
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
        st = err(E, sc, cd, &f[i], "TABLE of %s needs at least two (x,y) points", f[0].u.s);
    for (int j = 2; !st && j < nv; j += 2) {
        if (v[j] < v[j - 2])
            st = err(E, sc, cd, &f[i], "TABLE x values of %s must be non-decreasing (%g after %g)", f[0].u.s, v[j], v[j - 2]);
        else if (j >= 4 && v[j] == v[j - 2] && v[j] == v[j - 4])
            st = err(E, sc, cd, &f[i], "TABLE of %s has more than two points at x = %g", f[0].u.s, v[j]);
    }
    if (st) {
        free(v);
        return st;
    }
    e = &E->c->el[el];
    e->table = v;
    e->ntable = nv / 2;
    return NSC_OK;
}

/* E G: n+ n- nc+ nc- gain | E: n+ n- TABLE ... */
static nsc_status card_eg(elab *E, scope *sc, const nl_card *cd, nsc_elkind k)
{
    const nl_field *f = cd->f;
    int el;
    if (element_new(E, sc, cd, k, &el)) return E->r->status;
    if (cd->nf > 3) {
        const nl_field *g = &f[3];
        const char *w = g->kind == NL_F_WORD || g->kind == NL_F_CALL ? g->u.s
                      : g->kind == NL_F_PAIR && g->sub[0].kind == NL_F_WORD ? g->sub[0].u.s : "";
        if (nsc_strieq(w, "table")) {
            if (k != NSC_EL_E) return err(E, sc, cd, g, "TABLE form is supported for E only, not for %s", f[0].u.s);
            if (nodes(E, sc, cd, el, 2)) return E->r->status;
            return card_etable(E, sc, cd, el, 3);
        }
        /* PSpice E/G VALUE={expr}, ngspice vol='expr' / cur='expr': a B source */
        int isval = nsc_strieq(w, "value") || nsc_strieq(w, "vol") || nsc_strieq(w, "cur");
        if (isval && (g->kind == NL_F_PAIR || (cd->nf > 4 && f[4].kind == NL_F_EXPR))) {
            if (nodes(E, sc, cd, el, 2)) return E->r->status;
            E->c->el[el].kind = k == NSC_EL_E ? NSC_EL_BV : NSC_EL_BI;
            return b_compile(E, sc, cd, el, g->kind == NL_F_PAIR ? &g->sub[1] : &f[4], g->kind == NL_F_PAIR ? 4 : 5);
        }
        if (isval || nsc_strieq(w, "poly") || nsc_strieq(w, "laplace") || nsc_strieq(w, "freq"))
            return err(E, sc, cd, g, "%s form of %s is not supported", w, f[0].u.s);
    }
    if (nodes(E, sc, cd, el, 4)) return E->r->status;
    if (cd->nf < 6) return err(E, sc, cd, NULL, "missing gain for %s %s", kind_name(k), f[0].u.s);
    if (cd->nf > 6) return err(E, sc, cd, &f[6], "unexpected '%s' in %s %s", ftext(&f[6]), kind_name(k), f[0].u.s);
    double v;
    if (value(E, sc, cd, &f[5], &v)) return E->r->status;
    E->c->el[el].value = v;
    return NSC_OK;
}

/* F H: n+ n- Vsense gain */
static nsc_status card_fh(elab *E, scope *sc, const nl_card *cd, nsc_elkind k)
{
    const nl_field *f = cd->f;
    int el;
    if (element_new(E, sc, cd, k, &el)) return E->r->status;
    if (cd->nf > 3 && (f[3].kind == NL_F_WORD || f[3].kind == NL_F_CALL) && nsc_strieq(f[3].u.s, "poly"))
        return err(E, sc, cd, &f[3], "POLY form of %s is not supported", f[0].u.s);
    if (nodes(E, sc, cd, el, 2)) return E->r->status;
    if (cd->nf < 5) return err(E, sc, cd, NULL, "%s %s needs a sense voltage source and a gain", kind_name(k), f[0].u.s);
    if (cd->nf > 5) return err(E, sc, cd, &f[5], "unexpected '%s' in %s %s", ftext(&f[5]), kind_name(k), f[0].u.s);
    double v;
    if (fixup_add(E, sc, cd, &f[3], el, 0) || value(E, sc, cd, &f[4], &v)) return E->r->status;
    E->c->el[el].value = v;
    return NSC_OK;
}

/* D: a k model [area] [off] [...]; M: d g s b model [W= L= ...]; S: n+ n- nc+ nc- model [on|off] */
/* The model named by field f in scope sc (or an enclosing one), -1 if none. */
static int model_named(elab *E, const scope *sc, const nl_field *f)
{
    const char *k = f->kind == NL_F_WORD ? cat(E, "", f->u.s) : NULL;
    int m = -1;
    for (const scope *s = sc; k && s && m < 0; s = s->up)
        if (!nl_hash_get(&s->models, k, &m)) m = -1;
    return m;
}

/* A VDMOS transistor (3 terminals, the body at the source): RD, RS, RG of its
 * model as resistors NAME#rd ... to internal nodes NAME#d, NAME#s, NAME#g, and
 * the body diode NAME#body (model MODEL#body) across the external terminals. */
static nsc_status vdmos_expand(elab *E, scope *sc, const nl_card *cd, int el, int mi)
{
    static const char *const rn[] = { "rd", "rg", "rs" }, *const in[] = { "d", "g", "s" };
    int ext[3];
    for (int t = 0; t < 3; t++) ext[t] = E->c->el[el].node[t];
    for (int t = 0; t < 3; t++) {
        double r = 0;
        if (!nsc_model_get(&E->c->model[mi], rn[t], &r) || r == 0) continue;
        if (!(r > 0)) return err(E, sc, cd, NULL, "VDMOS model '%s': %s = %g must be >= 0", E->c->model[mi].name, rn[t], r);
        char *name = nsc_asprintf("%s#%s", E->c->el[el].name, in[t]);
        int nd, old;
        nsc_status st = !name ? oom(E) : nl_hash_get(&E->nodes, name, &old)
                        ? err(E, sc, cd, NULL, "node '%s' of the netlist clashes with an internal node of VDMOS %s", name,
                              cd->f[0].u.s) : node_new(E, name, cd, &cd->f[0], &nd);
        free(name);
        if (st) return st;
        E->c->el[el].node[t] = nd;
        if (t == 2 && E->c->el[el].node[3] == ext[2]) E->c->el[el].node[3] = nd;   /* the body is the source */
        if ((st = parasitic(E, sc, cd, el, rn[t], NSC_EL_R, r, ext[t], nd))) return st;
    }
    char *bm = nsc_asprintf("%s#body", E->c->model[mi].name);
    int b = -1, dm = -1;
    for (int k = 0; bm && k < E->c->nmodel && dm < 0; k++)
        if (!strcmp(E->c->model[k].name, bm)) dm = k;
    free(bm);
    if (dm < 0) return oom(E);
    int pchan = E->c->model[mi].type == NSC_MOD_PMOS;
    nsc_status st = parasitic(E, sc, cd, el, "body", NSC_EL_D, 0, pchan ? ext[0] : ext[2], pchan ? ext[2] : ext[0]);
    if (st) return st;
    b = E->c->nel - 1;
    E->elmodel[b] = dm;
    return NSC_OK;
}

static nsc_status card_dms(elab *E, scope *sc, const nl_card *cd, nsc_elkind k)
{
    const nl_field *f = cd->f;
    int n = k == NSC_EL_D ? 2 : k == NSC_EL_W ? 3 : 4, el;           /* W: n+ n- vsense */
    int vm = k == NSC_EL_M && cd->nf >= 5 ? model_named(E, sc, &f[4]) : -1, skip = 0;
    if (vm >= 0 && E->c->model[vm].vdmos) n = 3;                 /* M d g s VDMOSMODEL */
    else if (k == NSC_EL_M && cd->nf >= 6 && (vm = model_named(E, sc, &f[5])) >= 0 && E->c->model[vm].vdmos) {
        n = 3;                                                    /* M d g s x VDMOSMODEL: ngspice's */
        skip = 1;                                                 /* 4th and 5th are thermal nodes */
        warn(E, sc, cd, &f[4], "the fourth node of VDMOS %s is not used (its body is its source)", f[0].u.s);
    } else
        vm = -1;
    if (element_new(E, sc, cd, k, &el) || nodes(E, sc, cd, el, k == NSC_EL_W ? 2 : n)) return E->r->status;
    if (vm >= 0) {
        E->c->el[el].nnode = 4;
        E->c->el[el].node[3] = E->c->el[el].node[2];
    }
    if (k == NSC_EL_W && cd->nf < 4) return err(E, sc, cd, NULL, "missing sense voltage source for switch %s", f[0].u.s);
    if (k == NSC_EL_W && fixup_add(E, sc, cd, &f[3], el, 0)) return E->r->status;
    if (cd->nf < n + 2) return err(E, sc, cd, NULL, "missing model name for %s %s", kind_name(k), f[0].u.s);
    if (model_ref(E, sc, cd, &f[n + 1 + skip], el)) return E->r->status;
    if (k == NSC_EL_M) E->c->el[el].w = E->c->el[el].l = 100e-6; /* SPICE DEFW, DEFL */
    if (vm >= 0 && vdmos_expand(E, sc, cd, el, vm)) return E->r->status;
    char key[64];
    for (int i = n + 2 + skip; i < cd->nf; i++) {
        const char *kk = pair_key(&f[i], key, sizeof key);
        if (k == NSC_EL_M && kk && (!strcmp(kk, "w") || !strcmp(kk, "l"))) {
            double v;
            if (value(E, sc, cd, &f[i].sub[1], &v)) return E->r->status;
            if (!(v > 0)) return err(E, sc, cd, &f[i], "%s of %s must be positive", kk, f[0].u.s);
            if (kk[0] == 'w') E->c->el[el].w = v;
            else E->c->el[el].l = v;
        } else if (kk)
            warn(E, sc, cd, &f[i], "parameter '%s' of %s %s ignored", kk, kind_name(k), f[0].u.s);
        else if ((k == NSC_EL_S || k == NSC_EL_W) && f[i].kind == NL_F_WORD &&
                 (nsc_strieq(f[i].u.s, "on") || nsc_strieq(f[i].u.s, "off"))) {
            E->c->el[el].has_ic = 1;                         /* the state the static problem starts from */
            E->c->el[el].ic = nsc_strieq(f[i].u.s, "on");
        } else if (f[i].kind == NL_F_WORD || f[i].kind == NL_F_EXPR)
            warn(E, sc, cd, &f[i], "'%s' of %s %s ignored", ftext(&f[i]), kind_name(k), f[0].u.s);
        else
            return err(E, sc, cd, &f[i], "unexpected '%s' in %s %s", ftext(&f[i]), kind_name(k), f[0].u.s);
    }
    return NSC_OK;
}

/* A bipolar transistor's RC, RB, RE (divided by AREA, e->value) as resistors
 * NAME#rc ... from the terminals to internal nodes NAME#c ..., which become
 * the element's (dev_q.c's intrinsic transistor). */
static nsc_status bjt_expand(elab *E, scope *sc, const nl_card *cd, int el)
{
    static const char *const rn[] = { "rc", "rb", "re" }, *const in[] = { "c", "b", "e" }, *const un[] = { "RC", "RB", "RE" };
    const nsc_model *m = &E->c->model[E->elmodel[el]];
    for (int t = 0; t < 3; t++) {
        double r = 0;
        if (!nsc_model_get(m, rn[t], &r) || r == 0) continue;
        if (!(r > 0)) return err(E, sc, cd, NULL, "bipolar model '%s' of %s: %s = %g must be >= 0", m->name, cd->f[0].u.s, un[t], r);
        char *name = nsc_asprintf("%s#%s", E->c->el[el].name, in[t]);
        int nd, old, ext = E->c->el[el].node[t];
        nsc_status st = !name ? oom(E) : nl_hash_get(&E->nodes, name, &old)
                        ? err(E, sc, cd, NULL, "node '%s' of the netlist clashes with an internal node of %s", name,
                              cd->f[0].u.s) : node_new(E, name, cd, &cd->f[0], &nd);
        free(name);
        if (st) return st;
        E->c->el[el].node[t] = nd;
        if ((st = parasitic(E, sc, cd, el, rn[t], NSC_EL_R, r / E->c->el[el].value, ext, nd))) return st;
    }
    return NSC_OK;
}

/* Q: c b e [s] model [area] [AREA=a] [off] [...] (ngspice). The fourth node is
 * the substrate when f[4] names no model and f[5] is a name: read, not
 * connected (no substrate junction), with a warning. */
static nsc_status card_q(elab *E, scope *sc, const nl_card *cd)
{
    const nl_field *f = cd->f;
    double v;
    int el, n = cd->nf >= 6 && model_named(E, sc, &f[4]) < 0 && f[5].kind == NL_F_WORD
                && !nsc_parse_number(f[5].u.s, &v) && !is_word(&f[5], "off") ? 4 : 3;
    if (element_new(E, sc, cd, NSC_EL_Q, &el) || nodes(E, sc, cd, el, 3)) return E->r->status;
    if (cd->nf < n + 2) return err(E, sc, cd, NULL, "missing model name for %s %s", kind_name(NSC_EL_Q), f[0].u.s);
    if (n == 4) warn(E, sc, cd, &f[4], "the substrate node of %s is not connected (no substrate junction)", f[0].u.s);
    if (model_ref(E, sc, cd, &f[n + 1], el)) return E->r->status;
    E->c->el[el].value = 1.0;                                 /* AREA */
    char key[64];
    for (int i = n + 2; i < cd->nf; i++) {
        const char *kk = pair_key(&f[i], key, sizeof key);
        int area = kk ? !strcmp(kk, "area") : i == n + 2 && f[i].kind != NL_F_PAIR && !is_word(&f[i], "off");
        if (area) {
            if (value(E, sc, cd, kk ? &f[i].sub[1] : &f[i], &v)) return E->r->status;
            if (!(v > 0)) return err(E, sc, cd, &f[i], "area of %s must be positive (%g)", f[0].u.s, v);
            E->c->el[el].value = v;
        } else if (kk)
            warn(E, sc, cd, &f[i], "parameter '%s' of %s %s ignored", kk, kind_name(NSC_EL_Q), f[0].u.s);
        else if (f[i].kind == NL_F_WORD || f[i].kind == NL_F_EXPR)
            warn(E, sc, cd, &f[i], "'%s' of %s %s ignored", ftext(&f[i]), kind_name(NSC_EL_Q), f[0].u.s);
        else
            return err(E, sc, cd, &f[i], "unexpected '%s' in %s %s", ftext(&f[i]), kind_name(NSC_EL_Q), f[0].u.s);
    }
    return bjt_expand(E, sc, cd, el);
}

/* ---- subcircuit instances ---- */

static const def *def_find(const elab *E, const def *d, const char *name)
{
    for (; d; d = d->parent) {
        int i;
        if (nl_hash_get(&d->subs, name, &i)) return E->defs[i];
    }
    return NULL;
}

static void scope_free(scope *s)
{
    nl_hash_free(&s->params);
    nl_hash_free(&s->models);
    nl_hash_free(&s->othermodels);
    nl_hash_free(&s->ports);
    free(s->pval);
    free(s->portnode);
}

/* X: n1 n2 ... subname [params:] [name=value ...] */
static nsc_status card_x(elab *E, scope *sc, const nl_card *cd)
{
    const nl_field *f = cd->f;
    int npos = 0, i;
    for (i = 1; i < cd->nf && f[i].kind == NL_F_WORD && !nsc_strieq(f[i].u.s, "params:"); i++) npos++;
    if (npos < 1) return err(E, sc, cd, NULL, "missing subckt name for instance %s", f[0].u.s);
    const nl_field *sf = &f[npos];
    const char *key = cat(E, "", sf->u.s);
    if (!key) return oom(E);
    def *d = (def *)def_find(E, sc->df, key);
    if (!d) return err(E, sc, cd, sf, "unknown subckt '%s' for instance %s", sf->u.s, f[0].u.s);
    if (d->active) return err(E, sc, cd, sf, "recursive subckt '%s'", sf->u.s);
    if (sc->depth >= NL_MAXNEST) return err(E, sc, cd, sf, "subcircuits nested deeper than %d", NL_MAXNEST);
    if (++E->ninst > NL_MAXELEMENTS)
        return err(E, sc, cd, NULL, "circuit too large: more than %d subcircuit instances after expansion", NL_MAXELEMENTS);
    if (npos - 1 != d->nport)
        return err(E, sc, cd, NULL, "instance %s has %d node%s but subckt '%s' has %d port%s", f[0].u.s, npos - 1,
                   npos - 1 == 1 ? "" : "s", sf->u.s, d->nport, d->nport == 1 ? "" : "s");
    scope ch = { 0 };
    ch.df = d;
    ch.depth = sc->depth + 1;
    for (ch.up = sc; ch.up && ch.up->df != d->parent; ch.up = ch.up->up)
        ;
    const char *pre = cat(E, sc->prefix, f[0].u.s);
    char *prefix = pre ? nl_alloc(&E->ar, strlen(pre) + 2) : NULL;
    if (!prefix) return oom(E);
    sprintf(prefix, "%s.", pre);
    int np = (int)strlen(prefix) - 1;                  /* messages show at most 64 + 64 characters of it */
    char *where = nl_alloc(&E->ar, (size_t)np + 24);
    if (!where) return oom(E);
    if (np <= 131) sprintf(where, " (in instance %.*s)", np, prefix);
    else sprintf(where, " (in instance %.64s...%.64s)", prefix, prefix + np - 64);
    ch.prefix = prefix;
    ch.where = where;
    nsc_status st = NSC_OK;
    /* ports -> nodes of the caller */
    if (d->nport && !(ch.portnode = malloc((size_t)d->nport * sizeof *ch.portnode))) st = oom(E);
    for (int p = 0; !st && p < d->nport; p++) {
        const nl_field *pf = &d->hdr->f[2 + p];
        const char *pk = nl_strndup(&E->ar, pf->u.s, strlen(pf->u.s), 1);
        if (!pk) st = oom(E);
        else if (!(st = node(E, sc, cd, &f[1 + p], &ch.portnode[p])) && nl_hash_put(&ch.ports, pk, p)) st = oom(E);
    }
    /* instance parameters, evaluated in the caller's scope: ovv[h] for header field h */
    int nh = d->hdr->nf;
    double *ovv = NULL;
    char *given = NULL;
    if (!st && cd->nf > i && (!(ovv = malloc((size_t)nh * sizeof *ovv)) || !(given = calloc((size_t)nh, 1))))
        st = oom(E);
    for (int j = i; !st && j < cd->nf; j++) {
        if (is_word(&f[j], "params:")) continue;
        int h;
        if (f[j].kind != NL_F_PAIR || f[j].sub[0].kind != NL_F_WORD) {
            st = err(E, sc, cd, &f[j], "unexpected '%s' in instance %s (expected name=value)", ftext(&f[j]), f[0].u.s);
            break;
        }
        if (!nl_hash_get(&d->pars, f[j].sub[0].u.s, &h)) {
            st = err(E, sc, cd, &f[j], "subckt '%s' has no parameter '%s' (instance %s)", sf->u.s, f[j].sub[0].u.s, f[0].u.s);
            break;
        }
        if ((st = value(E, sc, cd, &f[j].sub[1], &ovv[h]))) break;
        given[h] = 1;
    }
    /* subckt parameters: instance value or default, in header order */
    for (int h = 2 + d->nport; !st && h < nh; h++) {
        const nl_field *hf = &d->hdr->f[h];
        if (hf->kind != NL_F_PAIR) continue;
        double v = 0;
        if (given && given[h]) v = ovv[h];
        else st = value(E, &ch, d->hdr, &hf->sub[1], &v);
        if (!st) {
            const char *pk = cat(E, "", hf->sub[0].u.s);
            st = pk ? param_set(E, &ch, pk, v) : oom(E);
        }
    }
    free(ovv);
    free(given);
    if (!st) {
        d->active = 1;
        st = scope_run(E, &ch);
        d->active = 0;
    }
    scope_free(&ch);
    return st;
}

/* ---- dot cards ---- */

/* .param name=value ... */
static nsc_status card_param(elab *E, scope *sc, const nl_card *cd)
{
    char kb[256];
    for (int i = 1; i < cd->nf; i++) {
        const nl_field *f = &cd->f[i];
        const char *k = pair_key(f, kb, sizeof kb);
        if (!k) {
            if (f->kind == NL_F_PAIR && f->sub[0].kind == NL_F_CALL) continue;   /* a function (funcs_collect) */
            return err(E, sc, cd, f, "expected name=value in .param, found '%s'", ftext(f));
        }
        double v;
        int o = -1;
        if (!sc->up)                                   /* --param overrides a top-level .param */
            for (int j = 0; j < E->nov; j++)
                if (nsc_strieq(E->ov[j].name, k)) o = j;
        if (o >= 0) {
            v = E->ov[o].value;
            E->ovused[o] = 1;
        } else if (value(E, sc, cd, &f->sub[1], &v))
            return E->r->status;
        if (param_set(E, sc, k, v)) return E->r->status;
    }
    return NSC_OK;
}

/* A new, zeroed model of card cd at c->model[c->nmodel] (not yet counted:
 * the caller increments nmodel); NULL out of memory. */
static nsc_model *model_new(elab *E, const nl_card *cd)
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
static nsc_status model_set(elab *E, nsc_model *m, int *cap, const char *name, double v)
{
    if (nsc_grow((void **)&m->pname, cap, m->npar + 1, sizeof *m->pname)) return oom(E);
    double *pv = nsc_realloc_array(m->pval, (size_t)*cap, sizeof *pv);
    if (!pv) return oom(E);
    m->pval = pv;
    if (!(m->pname[m->npar] = nsc_strdup(name))) return oom(E);
    m->pval[m->npar++] = v;
    return NSC_OK;
}

/* model parameters (PAIR fields, possibly inside parentheses) */
static nsc_status model_params(elab *E, scope *sc, const nl_card *cd, const nl_field *f, int n, nsc_model *m,
                               int *cap)
{
    char kb[256];
    for (int i = 0; i < n; i++) {
        if (f[i].kind == NL_F_GROUP) {
            if (model_params(E, sc, cd, f[i].sub, f[i].nsub, m, cap)) return E->r->status;
            continue;
        }
        if (m->vdmos && f[i].kind == NL_F_WORD && (nsc_strieq(f[i].u.s, "pchan") || nsc_strieq(f[i].u.s, "nchan")))
            continue;                                  /* VDMOS's polarity flags (card_model) */
        const char *k = pair_key(&f[i], kb, sizeof kb);
        const nl_field *vf = k ? &f[i].sub[1] : NULL;
        double nv;                                     /* vendors' "IS 1e-14 N 1.05": name, then value */
        if (!k && f[i].kind == NL_F_WORD && is_ident(f[i].u.s) && i + 1 < n
            && ((f[i + 1].kind == NL_F_WORD && nsc_parse_number(f[i + 1].u.s, &nv)) || f[i + 1].kind == NL_F_EXPR)) {
            snprintf(kb, sizeof kb, "%s", f[i].u.s);
            k = nsc_strlower(kb);
            vf = &f[++i];
        }
        if (!k) return err(E, sc, cd, &f[i], "expected name=value in .model %s, found '%s'", cd->f[1].u.s, ftext(&f[i]));
        double v;
        if (vf->kind == NL_F_EXPR && vf->u.x->op == NL_X_PARAM && !scope_lookup(sc, vf->u.x->name, &v)) {
            warn(E, sc, cd, &f[i], "non-numeric parameter '%s' of model %s ignored", k, cd->f[1].u.s);
            continue;
        }
        if (value(E, sc, cd, vf, &v) || model_set(E, m, cap, k, v)) return E->r->status;
    }
    return NSC_OK;
}

/* The value of expression field f in scope sc, NAN when it does not evaluate. */
static double expr_value(elab *E, scope *sc, const nl_card *cd, const nl_field *f)
{
    nsc_report scratch;
    nsc_report_init(&scratch);
    nl_env env = { scope_lookup, sc, E->d->files[cd->file], sc->where, E->funcs, E->nfunc, 0 };
    double v = NAN;
    if (nl_expr_eval(f->u.x, &env, &v, &scratch)) v = NAN;
    nsc_report_free(&scratch);
    return v;
}

/* 1 when the fields of cards ca, cb from index 1 on are the same words, values
 * and groups (case aside; expressions by value): a library included twice
 * defines its models twice, identically. */
static int same_fields(elab *E, scope *sc, const nl_card *ca, const nl_field *a, int na, const nl_card *cb,
                       const nl_field *b, int nb)
{
    if (na != nb) return 0;
    for (int i = 0; i < na; i++) {
        double x, y;
        if ((a[i].kind == NL_F_EXPR || b[i].kind == NL_F_EXPR)) {     /* values: {0.1*2} is 0.2 */
            x = a[i].kind == NL_F_EXPR ? expr_value(E, sc, ca, &a[i]) : a[i].kind == NL_F_WORD && nsc_parse_number(a[i].u.s, &x) ? x : NAN;
            y = b[i].kind == NL_F_EXPR ? expr_value(E, sc, cb, &b[i]) : b[i].kind == NL_F_WORD && nsc_parse_number(b[i].u.s, &y) ? y : NAN;
            if (!(x == y)) return 0;
            continue;
        }
        if (a[i].kind != b[i].kind) return 0;
        if (a[i].kind == NL_F_WORD && nsc_parse_number(a[i].u.s, &x) && nsc_parse_number(b[i].u.s, &y)) {
            if (!(x == y)) return 0;
            continue;
        }
        if ((a[i].kind == NL_F_WORD || a[i].kind == NL_F_STRING || a[i].kind == NL_F_CALL)
            && !nsc_strieq(a[i].u.s, b[i].u.s))
            return 0;
        if (a[i].nsub && !same_fields(E, sc, ca, a[i].sub, a[i].nsub, cb, b[i].sub, b[i].nsub)) return 0;
    }
    return 1;
}

/* 1 when the fields (and their groups) hold the bare word w */
static int has_word(const nl_field *f, int n, const char *w)
{
    for (int i = 0; i < n; i++)
        if ((f[i].kind == NL_F_WORD && nsc_strieq(f[i].u.s, w)) || (f[i].nsub && f[i].kind != NL_F_PAIR && has_word(f[i].sub, f[i].nsub, w)))
            return 1;
    return 0;
}

/* A VDMOS card (LTspice's, ngspice's): the channel is the PWL Sah model of VTO
 * and KP (W = L, as the element's default 100 um: K = KP); CGS and the mean of
 * CGDMIN and CGDMAX (the PWL model's capacitors are constant) become CGSO and
 * CGDO per the default width; RD, RS, RG are resistors at the element (vdmos_expand);
 * the body diode is a diode model NAME#body of IS (1e-14), N (1), RS = RB and
 * BV (its avalanche, the diode's Zener branch), source to drain (drain to
 * source with PCHAN). */
static nsc_status vdmos_model(elab *E, scope *sc, const nl_card *cd, int mi, const char *local, int *cap)
{
    nsc_circuit *c = E->c;
    double cgs = 0, cmin = 0, cmax = 0, is = 1e-14, n = 1, rb = 0, w = 100e-6, v;
    nsc_model *m = &c->model[mi];
    int hmin = nsc_model_get(m, "cgdmin", &cmin), hmax = nsc_model_get(m, "cgdmax", &cmax);
    if (nsc_model_get(m, "cgs", &cgs) && !nsc_model_get(m, "cgso", &v) && model_set(E, m, cap, "cgso", cgs / w))
        return E->r->status;
    if ((hmin || hmax) && !nsc_model_get(m, "cgdo", &v)
        && model_set(E, m, cap, "cgdo", (hmin && hmax ? 0.5 * (cmin + cmax) : hmin ? cmin : cmax) / w))
        return E->r->status;
    nsc_model_get(m, "is", &is);
    nsc_model_get(m, "n", &n);
    nsc_model_get(m, "rb", &rb);
    nsc_model *d = model_new(E, cd);
    if (!d) return oom(E);
    d->name = nsc_asprintf("%s#body", c->model[mi].name);
    d->type = NSC_MOD_D;
    d->loc = c->model[mi].loc;
    c->nmodel++;
    int dcap = 0;
    char *key = nsc_asprintf("%s#body", local);
    nsc_status st = !d->name || !key ? oom(E) : NSC_OK;
    if (!st) st = model_set(E, d, &dcap, "is", is);
    if (!st) st = model_set(E, d, &dcap, "n", n);
    if (!st && rb > 0) st = model_set(E, d, &dcap, "rs", rb);
    double bv;                                          /* the body diode's avalanche: its Zener branch */
    if (!st && nsc_model_get(&c->model[mi], "bv", &bv)) st = model_set(E, d, &dcap, "bv", bv);
    char *lk = key ? nl_strndup(&E->ar, key, strlen(key), 0) : NULL;
    if (!st && (!lk || nl_hash_put(&sc->models, lk, c->nmodel - 1))) st = oom(E);
    free(key);
    return st;
}

/* .model name type[(]p=v ...[)] */
static nsc_status card_model(elab *E, scope *sc, const nl_card *cd)
{
    const nl_field *f = cd->f;
    if (cd->nf < 3 || f[1].kind != NL_F_WORD || (f[2].kind != NL_F_WORD && f[2].kind != NL_F_CALL))
        return err(E, sc, cd, cd->nf < 2 ? NULL : &f[cd->nf < 3 ? 1 : 2], ".model needs a name and a type");
    /* Xyce's VSWITCH / ISWITCH are SW / CSW (dev_s.c, dev_w.c) */
    static const char *const types[] = { "d", "nmos", "pmos", "sw", "csw", "vswitch", "iswitch", "vdmos", "npn", "pnp" };
    static const nsc_modeltype tt[] = { NSC_MOD_D, NSC_MOD_NMOS, NSC_MOD_PMOS, NSC_MOD_SW, NSC_MOD_CSW, NSC_MOD_SW,
                                        NSC_MOD_CSW, NSC_MOD_NMOS, NSC_MOD_NPN, NSC_MOD_PNP };
    int t = -1, vdmos = nsc_strieq(f[2].u.s, "vdmos");
    for (int k = 0; k < 10; k++)
        if (nsc_strieq(f[2].u.s, types[k])) t = (int)tt[k];
    if (vdmos && has_word(f + 2, cd->nf - 2, "pchan")) t = NSC_MOD_PMOS;
    const char *lk = cat(E, "", f[1].u.s);
    char *local = lk ? nl_strndup(&E->ar, lk, strlen(lk), 0) : NULL;
    if (!local) return oom(E);
    int old, ocard = -1;
    if (nl_hash_get(&sc->othermodels, local, &old)) ocard = old;
    else if (nl_hash_get(&sc->models, local, &old)) ocard = E->model_card[old];
    if (ocard >= 0) {
        const nl_card *oc = &E->d->card[ocard];
        if (same_fields(E, sc, oc, oc->f + 1, oc->nf - 1, cd, f + 1, cd->nf - 1)) return NSC_OK;   /* the same card twice */
        nsc_loc l = nl_field_loc(E->d, oc, &oc->f[0]);
        return err(E, sc, cd, &f[1], "duplicate model '%s' with other parameters (first defined at %s:%d)",
                   f[1].u.s, l.file, l.line);
    }
    /* a type not supported (NJF, PJF, a code model, ...) is an error only for
     * an element that uses it: a library's unused models need not be supported */
    if (t < 0) return nl_hash_put(&sc->othermodels, local, (int)(cd - E->d->card)) ? oom(E) : NSC_OK;
    nsc_circuit *c = E->c;
    nsc_model *m = model_new(E, cd);
    if (!m) return oom(E);
    const char *full = cat(E, sc->prefix, f[1].u.s);
    if (!full || !(m->name = nsc_strdup(full))) return oom(E);
    m->type = (nsc_modeltype)t;
    m->loc = nl_field_loc(E->d, cd, &f[0]);
    m->vdmos = vdmos;
    c->nmodel++;
    int cap = 0;
    if (f[2].kind == NL_F_CALL && model_params(E, sc, cd, f[2].sub, f[2].nsub, m, &cap)) return E->r->status;
    if (model_params(E, sc, cd, f + 3, cd->nf - 3, m, &cap)) return E->r->status;
    if (nl_hash_put(&sc->models, local, c->nmodel - 1)) return oom(E);
    return vdmos ? vdmos_model(E, sc, cd, c->nmodel - 1, local, &cap) : NSC_OK;
}

/* .tran tstep tstop [tstart [tmax]] [UIC] */
#define NL_TRAN_ROWS 1000   /* output rows of a .tran without a print step */

static nsc_status card_tran(elab *E, scope *sc, const nl_card *cd)
{
    nsc_circuit *c = E->c;
    double v[4] = { 0, 0, 0, 0 };
    int n = 0, uic = 0;
    for (int i = 1; i < cd->nf; i++) {
        if (is_word(&cd->f[i], "uic")) uic = 1;
        else if (is_word(&cd->f[i], "startup") || is_word(&cd->f[i], "steady") || is_word(&cd->f[i], "nodiscard"))
            note(E, cd, &cd->f[i], "LTspice's .tran keyword '%s' ignored", ftext(&cd->f[i]));
        else if (n == 4) return err(E, sc, cd, &cd->f[i], "unexpected '%s' in .tran", ftext(&cd->f[i]));
        else if (value(E, sc, cd, &cd->f[i], &v[n++])) return E->r->status;
    }
    if (n < 1) return err(E, sc, cd, NULL, ".tran needs tstep and tstop (or tstop alone)");
    /* LTspice's ".tran TSTOP" and Xyce's ".tran 0 TSTOP": no print step; rows
     * every (tstop - tstart) / NL_TRAN_ROWS (README, man page) */
    int auto_step = n == 1 || v[0] == 0;
    if (n == 1) v[1] = v[0], v[0] = 0;
    if (!(v[0] >= 0)) return err(E, sc, cd, &cd->f[1], "tstep of .tran must be positive");
    if (!(v[1] > 0)) return err(E, sc, cd, &cd->f[n == 1 ? 1 : 2], "tstop of .tran must be positive");
    if (n > 2 && !(v[2] >= 0 && v[2] < v[1])) return err(E, sc, cd, &cd->f[3], "tstart of .tran must be in [0, tstop)");
    if (n > 3 && !(v[3] >= 0)) return err(E, sc, cd, &cd->f[4], "tmax of .tran must not be negative");
    if (auto_step) {
        v[0] = (v[1] - v[2]) / NL_TRAN_ROWS;
        char msg[120];
        snprintf(msg, sizeof msg, ".tran without a print step: rows every (tstop - tstart) / %d = %g s", NL_TRAN_ROWS, v[0]);
        note(E, cd, NULL, "%s", msg);
    }
    if (c->has_tran) warn(E, sc, cd, NULL, "second .tran replaces the first");
    c->has_tran = 1;
    c->tstep = v[0];
    c->tstop = v[1];
    c->tstart = v[2];
    c->tmax = v[3];
    c->uic = uic;
    c->tran_loc = nl_field_loc(E->d, cd, &cd->f[0]);
    return NSC_OK;
}

/* .ic V(node)=value ... */
static nsc_status card_ic(elab *E, scope *sc, const nl_card *cd)
{
    for (int i = 1; i < cd->nf; i++) {
        const nl_field *f = &cd->f[i];
        const nl_field *k = f->kind == NL_F_PAIR ? &f->sub[0] : NULL;
        if (!k || k->kind != NL_F_CALL || !nsc_strieq(k->u.s, "v") || k->nsub != 1 || k->sub[0].kind != NL_F_WORD)
            return err(E, sc, cd, f, "expected V(node)=value in .ic, found '%s'", ftext(f));
        double v;
        if (value(E, sc, cd, &f->sub[1], &v)) return E->r->status;
        const char *full = node_fullname(E, sc, k->sub[0].u.s);
        if (!full || nsc_grow((void **)&E->ic, &E->capic2, E->nic + 1, sizeof *E->ic)) return oom(E);
        icfix *x = &E->ic[E->nic];
        if (!(x->node = nsc_strdup(full))) return oom(E);
        x->v = v;
        x->cd = cd;
        x->f = &k->sub[0];
        x->where = sc->where;
        E->nic++;
    }
    return NSC_OK;
}

/* The field of a SPICE tolerance option (reltol abstol vntol chgtol trtol), NULL otherwise. */
static double *tolerance_option(nsc_circuit *c, const char *k)
{
    return !strcmp(k, "reltol") ? &c->reltol : !strcmp(k, "abstol") ? &c->abstol : !strcmp(k, "vntol") ? &c->vntol
         : !strcmp(k, "chgtol") ? &c->chgtol : !strcmp(k, "trtol") ? &c->trtol : NULL;
}

/* .options name=value ... */
static nsc_status card_options(elab *E, scope *sc, const nl_card *cd)
{
    nsc_circuit *c = E->c;
    char kb[64];
    for (int i = 1; i < cd->nf; i++) {
        const nl_field *f = &cd->f[i];
        const char *k = pair_key(f, kb, sizeof kb);
        double v;
        if (k && !strcmp(k, "theta")) {
            if (value(E, sc, cd, &f->sub[1], &v)) return E->r->status;
            if (!(v >= 0.5 && v <= 1)) return err(E, sc, cd, f, "theta = %g is not in [0.5, 1]", v);
            c->theta = v;
        } else if (k && !strcmp(k, "gmin")) {
            if (value(E, sc, cd, &f->sub[1], &v)) return E->r->status;
            if (!(v >= 0)) return err(E, sc, cd, f, "gmin must not be negative");
            c->gmin = v;
        } else if (k && !strcmp(k, "solver")) {
            const nl_field *vf = &f->sub[1];
            const char *s = vf->kind == NL_F_WORD || vf->kind == NL_F_STRING ? vf->u.s
                          : vf->kind == NL_F_EXPR && vf->u.x->op == NL_X_PARAM ? vf->u.x->name : NULL;
            if (!s || !*s || strlen(s) >= sizeof c->solver) return err(E, sc, cd, vf, "bad solver name in .options");
            snprintf(c->solver, sizeof c->solver, "%s", s);
            nsc_strlower(c->solver);
        } else if (k && !strcmp(k, "stepping")) {
            const nl_field *vf = &f->sub[1];
            const char *s = vf->kind == NL_F_WORD || vf->kind == NL_F_STRING ? vf->u.s
                          : vf->kind == NL_F_EXPR && vf->u.x->op == NL_X_PARAM ? vf->u.x->name : NULL;
            if (s && !strcmp(s, "fixed")) c->stepping_fixed = 1;
            else if (s && !strcmp(s, "adaptive")) c->stepping_fixed = 0;
            else return err(E, sc, cd, vf, "stepping must be 'adaptive' or 'fixed'");
        } else if (!k && f->kind == NL_F_WORD && nsc_strieq(f->u.s, "nostepsizelimit")) {
            c->nostepsizelimit = 1;                      /* ngspice's 'set nostepsizelimit' */
        } else if (k && tolerance_option(c, k)) {
            if (value(E, sc, cd, &f->sub[1], &v)) return E->r->status;
            if (!(v > 0) || !isfinite(v)) return err(E, sc, cd, f, "%s must be positive", k);
            if (!strcmp(k, "trtol") && v < 1) return err(E, sc, cd, f, "trtol = %g must be at least 1", v);
            if (!strcmp(k, "reltol") && v >= 1) return err(E, sc, cd, f, "reltol = %g must be below 1", v);
            *tolerance_option(c, k) = v;
        } else
            note(E, cd, f, "option '%s' ignored", k ? k : ftext(f));
    }
    return NSC_OK;
}

/* .pss [period=T] [periods=N] [warmup=N] [maxit=N] [tol=X]: the periodic
 * steady state (stepper_pss.c) instead of the transient. ngspice's positional
 * form (an oscillator's guessed frequency, ...) is not that analysis. */
static nsc_status card_pss(elab *E, scope *sc, const nl_card *cd)
{
    nsc_circuit *c = E->c;
    char kb[64];
    c->has_pss = 1;
    c->pss_loc = nl_field_loc(E->d, cd, &cd->f[0]);
    for (int i = 1; i < cd->nf; i++) {
        const nl_field *f = &cd->f[i];
        const char *k = pair_key(f, kb, sizeof kb);
        double v;
        if (!k) {
            warn(E, sc, cd, f, "positional .pss arguments (ngspice's oscillator analysis) ignored: the steady state "
                 "is the driven one, over the sources' period");
            break;
        }
        if (value(E, sc, cd, &f->sub[1], &v)) return E->r->status;
        int whole = v >= 1 && v <= 10000 && v == floor(v);
        if (!strcmp(k, "period")) {
            if (!(v > 0) || !isfinite(v)) return err(E, sc, cd, f, ".pss period must be a positive time");
            c->pss_period = v;
        } else if (!strcmp(k, "periods") || !strcmp(k, "warmup") || !strcmp(k, "maxit")) {
            if (!whole) return err(E, sc, cd, f, ".pss %s must be a whole number from 1 to 10000", k);
            *(!strcmp(k, "periods") ? &c->pss_periods : !strcmp(k, "warmup") ? &c->pss_warmup : &c->pss_maxit) = (int)v;
        } else if (!strcmp(k, "tol")) {
            if (!(v > 0 && v < 1)) return err(E, sc, cd, f, ".pss tol must be in (0, 1)");
            c->pss_tol = v;
        } else
            return err(E, sc, cd, f, "unknown .pss parameter '%s' (period, periods, warmup, maxit, tol)", k);
    }
    return NSC_OK;
}

/* ---- scopes ---- */

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
    return f ? node(B->E, B->sc, B->cd, f, idx) : oom(B->E);
}

static nsc_status b_branch(void *ctx, const char *name, const nl_expr *at, int k, nsc_report *r)
{
    bctx *B = ctx;
    nl_field *f = b_field(B, name, at);
    (void)r;
    if (!f) return oom(B->E);
    nsc_status st = fixup_add(B->E, B->sc, B->cd, f, B->el, 0);
    if (!st) B->E->fix[B->E->nfix - 1].term = k;
    return st;
}

/* element el's expression x compiled (fields from `from` on are ignored with a warning) */
static nsc_status b_compile(elab *E, scope *sc, const nl_card *cd, int el, const nl_field *x, int from)
{
    if (x->kind != NL_F_EXPR)
        return err(E, sc, cd, x, "%s %s: expected an expression, found '%s'", kind_name(E->c->el[el].kind),
                   cd->f[0].u.s, ftext(x));
    for (int q = from; q < cd->nf; q++)
        warn(E, sc, cd, &cd->f[q], "%s %s: '%s' is ignored", kind_name(E->c->el[el].kind), cd->f[0].u.s,
             ftext(&cd->f[q]));
    nl_env env = { scope_lookup, sc, E->d->files[cd->file], sc->where, E->funcs, E->nfunc, 0 };
    bctx B = { E, sc, cd, el };
    nl_pwl_env pe = { &env, b_node, b_branch, &B };
    nsc_bprog *p;
    nsc_status st = nl_pwl_compile(x->u.x, &pe, &p, E->r);
    if (!st) E->c->el[el].bsrc = p;
    return st;
}

static nsc_status card_b(elab *E, scope *sc, const nl_card *cd)
{
    char k[8];
    const nl_field *f = cd->nf >= 4 ? &cd->f[3] : NULL;
    const char *key = f ? pair_key(f, k, sizeof k) : NULL;
    if (!key || (strcmp(key, "v") && strcmp(key, "i")))
        return err(E, sc, cd, f, "behavioural source %s: expected V=expr or I=expr after the two nodes", cd->f[0].u.s);
    int el;
    nsc_status st = element_new(E, sc, cd, key[0] == 'v' ? NSC_EL_BV : NSC_EL_BI, &el);
    if (st || (st = nodes(E, sc, cd, el, 2))) return st;
    return b_compile(E, sc, cd, el, &f->sub[1], 4);
}

static int head_is(const nl_card *cd, const char *w)
{
    return nsc_strieq(cd->f[0].u.s, w);
}

static const char *const UNSUPPORTED_EL[26] = {
    ['a' - 'a'] = "XSPICE code models (A)",
    ['j' - 'a'] = "JFETs (J)", ['n' - 'a'] = "numerical devices (N)", ['o' - 'a'] = "lossy transmission lines (O)",
    ['p' - 'a'] = "coupled transmission lines (P)",
    ['t' - 'a'] = "transmission lines (T)", ['u' - 'a'] = "uniform RC lines (U)",
    ['y' - 'a'] = "transmission lines (Y)",
    ['z' - 'a'] = "MESFETs (Z)",
};

/* what to use instead of each (issue 12: a refusal says what to do) */
static const char *const UNSUPPORTED_USE[26] = {
    ['a' - 'a'] = "a B source (comparators, limiters, logic as PWL expressions) or an E TABLE",
    ['j' - 'a'] = "a MOS transistor (NMOS/PMOS, LEVEL=1: VTO, KP) or a switch",
    ['n' - 'a'] = "the compact D, Q or M models",
    ['o' - 'a'] = "an RLC ladder of sections (R, L, C per unit length times the section's length)",
    ['p' - 'a'] = "ladders of L and C sections coupled by K",
    ['t' - 'a'] = "an LC ladder of n sections, L = Z0 TD/n and C = TD/(Z0 n) each",
    ['u' - 'a'] = "an RC ladder of sections",
    ['y' - 'a'] = "an LC ladder of n sections, L = Z0 TD/n and C = TD/(Z0 n) each",
    ['z' - 'a'] = "a MOS transistor (NMOS, LEVEL=1) or a switch",
};

static nsc_status card_element(elab *E, scope *sc, const nl_card *cd)
{
    int ch = tolower((unsigned char)cd->f[0].u.s[0]);
    switch (ch) {
    case 'r': return card_rcl(E, sc, cd, NSC_EL_R);
    case 'c': return card_rcl(E, sc, cd, NSC_EL_C);
    case 'l': return card_rcl(E, sc, cd, NSC_EL_L);
    case 'k': return card_k(E, sc, cd);
    case 'v': return card_vi(E, sc, cd, NSC_EL_V);
    case 'i': return card_vi(E, sc, cd, NSC_EL_I);
    case 'e': return card_eg(E, sc, cd, NSC_EL_E);
    case 'g': return card_eg(E, sc, cd, NSC_EL_G);
    case 'f': return card_fh(E, sc, cd, NSC_EL_F);
    case 'h': return card_fh(E, sc, cd, NSC_EL_H);
    case 'd': return card_dms(E, sc, cd, NSC_EL_D);
    case 'm': return card_dms(E, sc, cd, NSC_EL_M);
    case 's': return card_dms(E, sc, cd, NSC_EL_S);
    case 'w': return card_dms(E, sc, cd, NSC_EL_W);
    case 'q': return card_q(E, sc, cd);
    case 'x': return card_x(E, sc, cd);
    case 'b': return card_b(E, sc, cd);
    default:
        if (ch >= 'a' && ch <= 'z' && UNSUPPORTED_EL[ch - 'a'])
            return err(E, sc, cd, NULL, "unsupported element %s: %s are not supported; use %s", cd->f[0].u.s,
                       UNSUPPORTED_EL[ch - 'a'], UNSUPPORTED_USE[ch - 'a']);
        return err(E, sc, cd, NULL, "unknown element type '%c' (card '%s')", cd->f[0].u.s[0], cd->f[0].u.s);
    }
}

#define NL_MAXSTEP 10000000 /* values of one .step card */

/* .step [lin|dec|oct] param NAME start stop incr|n  /  .step param NAME list v1 v2 ...
 * (circuit.h nsc_step); values are evaluated in the top scope */
static nsc_status card_step(elab *E, scope *sc, const nl_card *cd)
{
    nsc_circuit *c = E->c;
    const nl_field *f = cd->f;
    int i = 1, scale = 0;                              /* 0 lin, 10 dec, 2 oct */
    if (i < cd->nf && (is_word(&f[i], "lin") || is_word(&f[i], "dec") || is_word(&f[i], "oct")))
        scale = is_word(&f[i], "lin") ? 0 : is_word(&f[i], "dec") ? 10 : 2, i++;
    if (i >= cd->nf || !is_word(&f[i], "param"))
        return err(E, sc, cd, i < cd->nf ? &f[i] : NULL, "only '.step [lin|dec|oct] param NAME ...' is supported");
    if (++i >= cd->nf || f[i].kind != NL_F_WORD || !is_ident(f[i].u.s))
        return err(E, sc, cd, i < cd->nf ? &f[i] : NULL, ".step param needs a parameter name");
    const nl_field *nf = &f[i++];
    for (int k = 0; k < c->nstep; k++)
        if (nsc_strieq(c->step[k].param, nf->u.s))
            return err(E, sc, cd, nf, "second .step for parameter '%s' (first at line %d)", nf->u.s, c->step[k].loc.line);
    int list = i < cd->nf && is_word(&f[i], "list");
    if (list && scale) return err(E, sc, cd, &f[i], ".step %s cannot take a list", scale == 10 ? "dec" : "oct");
    int nv = cd->nf - i - list;
    if (list ? nv < 1 : nv != 3)
        return err(E, sc, cd, NULL, list ? ".step param %s list needs values" : ".step param %s needs start, stop and %s",
                   nf->u.s, scale ? "points per interval" : "increment");
    if (list && nv > NL_MAXSTEP) return err(E, sc, cd, NULL, "more than %d values in .step", NL_MAXSTEP);
    double a[3];
    if (!list)
        for (int k = 0; k < 3; k++)
            if (value(E, sc, cd, &f[i + k], &a[k])) return E->r->status;
    double n = 0;                                      /* number of values */
    if (list) n = nv;
    else if (!scale) {
        if (!(a[2] != 0) || (a[1] - a[0]) / a[2] < 0)
            return err(E, sc, cd, &f[i + 2], "increment %g of .step does not lead from %g to %g", a[2], a[0], a[1]);
        n = floor((a[1] - a[0]) / a[2] + 1e-9) + 1;
    } else {
        if (!(a[0] > 0 && a[1] >= a[0]))
            return err(E, sc, cd, &f[i], ".step %s needs 0 < start <= stop", scale == 10 ? "dec" : "oct");
        if (!(a[2] >= 1 && a[2] == floor(a[2]))) return err(E, sc, cd, &f[i + 2], "points per interval must be a positive integer");
        n = floor(a[2] * log(a[1] / a[0]) / log(scale) + 1e-9) + 1;
    }
    if (!(n <= NL_MAXSTEP)) return err(E, sc, cd, NULL, "more than %d values in .step", NL_MAXSTEP);
    if (nsc_grow((void **)&c->step, &E->capstep, c->nstep + 1, sizeof *c->step)) return oom(E);
    nsc_step *s = &c->step[c->nstep];
    memset(s, 0, sizeof *s);
    if (!c->nstep++) c->step_loc = nl_field_loc(E->d, cd, &f[0]);
    s->loc = nl_field_loc(E->d, cd, &f[0]);
    if (!(s->param = nsc_strdup(nf->u.s)) || !(s->val = nsc_calloc((size_t)n, sizeof *s->val))) return oom(E);
    nsc_strlower(s->param);
    for (int k = 0; k < (int)n; k++) {
        if (list) {
            if (value(E, sc, cd, &f[i + 1 + k], &s->val[k])) return E->r->status;
        } else
            s->val[k] = !scale ? a[0] + k * a[2] : a[0] * pow(scale, k / a[2]);   /* never accumulated */
        s->nval++;
    }
    return NSC_OK;
}

/* A .control command not run: its name joins the one note. */
static nsc_status ctl_unrun(elab *E, const nl_card *cd, const char *cmd)
{
    if (E->ctl_unrun && strstr(E->ctl_unrun, cmd)) return NSC_OK;
    char *t = E->ctl_unrun ? nsc_asprintf("%s, %s", E->ctl_unrun, cmd) : nsc_strdup(cmd);
    if (!t) return oom(E);
    if (!E->ctl_unrun) E->ctl_first = (int)(cd - E->d->card);
    free(E->ctl_unrun);
    E->ctl_unrun = t;
    return NSC_OK;
}

/* wrdata FILE VEC... / write FILE [VEC...]: an output of the run (nsc_ctlout);
 * a vector is V(a), V(a,b), I(x) or a node name (its voltage); `all` or none:
 * the run's outputs. */
static nsc_status ctl_output(elab *E, const nl_card *cd, int raw)
{
    const nl_field *f = cd->f;
    if (cd->nf < 3 || (f[2].kind != NL_F_WORD && f[2].kind != NL_F_STRING)) return ctl_unrun(E, cd, raw ? "write" : "wrdata");
    nsc_circuit *c = E->c;
    nsc_ctlout *o = nsc_realloc_array(c->ctlout, (size_t)c->nctlout + 1, sizeof *o);
    if (!o) return oom(E);
    c->ctlout = o;
    o = &c->ctlout[c->nctlout];
    memset(o, 0, sizeof *o);
    o->raw = raw;
    o->loc = nl_field_loc(E->d, cd, &f[1]);
    if (!(o->path = nsc_strdup(f[2].u.s)) || !(o->vec = calloc((size_t)cd->nf + 1, sizeof *o->vec))) {
        c->nctlout++;
        return oom(E);
    }
    c->nctlout++;
    for (int i = 3; i < cd->nf; i++) {
        const nl_field *v = &f[i];
        const char *a = NULL, *b = NULL;
        nsc_probekind kind = NSC_PROBE_V;
        if (v->kind == NL_F_WORD && nsc_strieq(v->u.s, "all")) { o->nvec = 0; break; }
        if (v->kind == NL_F_WORD) a = v->u.s;
        else if (v->kind == NL_F_CALL && (nsc_strieq(v->u.s, "v") || nsc_strieq(v->u.s, "i")) && v->nsub >= 1
                 && v->nsub <= 2 && v->sub[0].kind == NL_F_WORD && (v->nsub == 1 || v->sub[1].kind == NL_F_WORD)) {
            kind = nsc_strieq(v->u.s, "i") ? NSC_PROBE_I : NSC_PROBE_V;
            a = v->sub[0].u.s;
            b = v->nsub == 2 ? v->sub[1].u.s : NULL;
        }
        if (!a) return err(E, NULL, cd, v, "%s: expected V(node), I(source) or a node name, found '%s'",
                           raw ? "write" : "wrdata", ftext(v));
        int k;
        if (nl_meas_column(c, kind, a, b, nl_field_loc(E->d, cd, v), &k, E->r)) return E->r->status;
        if (!(o->vec[o->nvec++] = nsc_strdup(c->meas_probe[k].name))) return oom(E);
    }
    return NSC_OK;
}

/* A .control command (nl_deck.c control_line: ".ctl COMMAND ARGS"): tran, op
 * and meas as their dot cards; wrdata and write as outputs; set wr_singlescale
 * / wr_vecnames; plot draws the outputs' PNG; run, quit, exit need nothing;
 * anything else is named in one note (not run). */
static nsc_status card_ctl(elab *E, scope *sc, const nl_card *cd)
{
    if (cd->nf < 2 || cd->f[1].kind != NL_F_WORD) return NSC_OK;
    const char *cmd = cd->f[1].u.s;
    if (!strcmp(cmd, "?")) return ctl_unrun(E, cd, cd->nf > 2 ? cd->f[2].u.s : "?");
    nl_card sub = { cd->f + 1, cd->nf - 1, cd->file };      /* COMMAND ARGS as a card */
    nsc_circuit *c = E->c;
    if (nsc_strieq(cmd, "tran")) return card_tran(E, sc, &sub);
    if (nsc_strieq(cmd, "op")) {
        c->has_op = 1;
        c->op_loc = nl_field_loc(E->d, cd, &cd->f[1]);
        return NSC_OK;
    }
    if (nsc_strieq(cmd, "meas") || nsc_strieq(cmd, "measure")) {
        nl_env env = { scope_lookup, sc, E->d->files[cd->file], sc->where, E->funcs, E->nfunc, 0 };
        return nl_meas_card(c, E->d, &sub, &env, E->r);
    }
    if (nsc_strieq(cmd, "wrdata") || nsc_strieq(cmd, "write")) return ctl_output(E, cd, nsc_strieq(cmd, "write"));
    if (nsc_strieq(cmd, "set") || nsc_strieq(cmd, "unset")) {
        for (int i = 2; i < cd->nf; i++) {
            int on = nsc_strieq(cmd, "set");
            if (is_word(&cd->f[i], "wr_singlescale")) c->ctl_singlescale = on;
            else if (is_word(&cd->f[i], "wr_vecnames")) c->ctl_vecnames = on;
        }
        return NSC_OK;
    }
    if (nsc_strieq(cmd, "plot")) { c->ctl_plot = 1; return NSC_OK; }
    if (nsc_strieq(cmd, "run") || nsc_strieq(cmd, "quit") || nsc_strieq(cmd, "exit")) return NSC_OK;
    return ctl_unrun(E, cd, cmd);
}

static nsc_status card_dot(elab *E, scope *sc, const nl_card *cd)
{
    if (head_is(cd, ".ctl")) return card_ctl(E, sc, cd);
    static const char *const top_only[] = { ".tran", ".op", ".options", ".option", ".opt", ".save", ".print",
                                            ".step", ".meas", ".measure", ".pss" };
    static const char *const noted[] = { ".nodeset", ".temp", ".width", ".plot", ".probe", ".title" };
    /* other analyses, and cards of other dialects that do not change the
     * transient: skipped with a warning naming the card (a netlist written for
     * ngspice, LTspice or Xyce runs its .tran); without .tran/.op the run fails */
    static const char *const analyses[] = { ".ac", ".dc", ".tf", ".noise", ".disto", ".pz", ".sens", ".sp",
                                            ".four", ".hb", ".backanno" };
    static const char *const unsup[] = { ".if", ".elseif", ".else", ".endif", ".csparam", ".data",
                                         ".endd", ".connect", ".alter", ".spiceinit" };
    if (head_is(cd, ".param") || head_is(cd, ".model") || head_is(cd, ".subckt") || head_is(cd, ".ends") ||
        head_is(cd, ".global") || head_is(cd, ".func"))
        return NSC_OK;                                 /* handled in other passes */
    if (head_is(cd, ".ic")) return card_ic(E, sc, cd);
    for (size_t k = 0; k < sizeof top_only / sizeof top_only[0]; k++)
        if (head_is(cd, top_only[k])) {
            if (sc->up) {
                warn(E, sc, cd, NULL, "%s inside .subckt ignored", top_only[k]);
                return NSC_OK;
            }
            nsc_circuit *c = E->c;
            switch (k) {
            case 0: return card_tran(E, sc, cd);
            case 1:
                c->has_op = 1;
                c->op_loc = nl_field_loc(E->d, cd, &cd->f[0]);
                return NSC_OK;
            case 2: case 3: case 4: return card_options(E, sc, cd);
            case 5: case 6:
                if (nsc_grow((void **)&E->save, &E->capsavecard, E->nsavecard + 1, sizeof *E->save)) return oom(E);
                E->save[E->nsavecard++] = (int)(cd - E->d->card);
                return NSC_OK;
            case 7: return card_step(E, sc, cd);
            case 10: return card_pss(E, sc, cd);
            default: {
                nl_env env = { scope_lookup, sc, E->d->files[cd->file], sc->where, E->funcs, E->nfunc, 0 };
                return nl_meas_card(c, E->d, cd, &env, E->r);
            }
            }
        }
    for (size_t k = 0; k < sizeof noted / sizeof noted[0]; k++)
        if (head_is(cd, noted[k])) {
            note(E, cd, NULL, "%s ignored", noted[k]);
            return NSC_OK;
        }
    for (size_t k = 0; k < sizeof analyses / sizeof analyses[0]; k++)
        if (head_is(cd, analyses[k])) {
            warn(E, sc, cd, NULL, "%s card skipped: %s", analyses[k],
                 k + 1 < sizeof analyses / sizeof analyses[0] ? "only the transient (.tran, .op, .pss) is simulated"
                                                              : "LTspice's annotation has no effect here");
            return NSC_OK;
        }
    for (size_t k = 0; k < sizeof unsup / sizeof unsup[0]; k++)
        if (head_is(cd, unsup[k])) return err(E, sc, cd, NULL, "unsupported card '%s'", cd->f[0].u.s);
    return err(E, sc, cd, NULL, "unknown card '%s'", cd->f[0].u.s);
}

/* Elaborate the cards of scope sc: .param, then .model, then the rest. */
static nsc_status scope_run(elab *E, scope *sc)
{
    const def *d = sc->df;
    for (int pass = 0; pass < 3; pass++)
        for (int k = 0; k < d->nbody; k++) {
            const nl_card *cd = &E->d->card[d->body[k]];
            int isparam = head_is(cd, ".param"), ismodel = head_is(cd, ".model");
            nsc_status st = NSC_OK;
            if (pass == 0 && isparam) st = card_param(E, sc, cd);
            else if (pass == 1 && ismodel) st = card_model(E, sc, cd);
            else if (pass == 2 && !isparam && !ismodel)
                st = cd->f[0].u.s[0] == '.' ? card_dot(E, sc, cd) : card_element(E, sc, cd);
            if (st) return st;
        }
    return NSC_OK;
}

/* ---- definitions ---- */

static def *def_new(elab *E, def *parent, const nl_card *hdr)
{
    def *d = calloc(1, sizeof *d);
    if (!d || nsc_grow((void **)&E->defs, &E->capdef, E->ndef + 1, sizeof *E->defs)) {
        free(d);
        return NULL;
    }
    d->parent = parent;
    d->hdr = hdr;
    E->defs[E->ndef++] = d;
    return d;
}

/* The definition an X card of definition d names, or NULL (error reported by card_x). */
static def *x_def(const elab *E, const def *d, const nl_card *cd)
{
    int npos = 0;
    for (int i = 1; i < cd->nf && cd->f[i].kind == NL_F_WORD && !nsc_strieq(cd->f[i].u.s, "params:"); i++) npos++;
    return npos < 1 ? NULL : (def *)def_find(E, d, cd->f[npos].u.s);
}

/* d->nel, d->ninst = elements and subcircuit instances that one instance of d
 * expands to, counted before expanding anything (the subckt an X card names
 * does not depend on parameter values), so that a few lines nesting instances
 * of instances are rejected at once rather than after minutes. Lower bounds:
 * recursion and chains deeper than NL_MAXNEST count 0 (card_x reports them).
 * *over = the first card of d at which either count passes NL_MAXELEMENTS. */
static void def_size(const elab *E, def *d, int depth, const nl_card **over)
{
    if (d->sized || depth > NL_MAXNEST) return;
    d->sized = 1;
    double nel = 0, ninst = 0;
    for (int k = 0; k < d->nbody; k++) {
        const nl_card *cd = &E->d->card[d->body[k]];
        int ch = tolower((unsigned char)cd->f[0].u.s[0]);
        if (ch == '.') continue;
        if (ch != 'x') nel += 1;
        else {
            def *s = x_def(E, d, cd);
            if (!s) continue;
            def_size(E, s, depth + 1, NULL);
            nel += s->nel;
            ninst += 1 + s->ninst;
        }
        if (over && !*over && (nel > NL_MAXELEMENTS || ninst > NL_MAXELEMENTS)) *over = cd;
    }
    d->nel = fmin(nel, 1e300);
    d->ninst = fmin(ninst, 1e300);
    d->sized = 2;
}

/* Sort cards into definitions; check .subckt headers; collect .global names. */
static nsc_status build_defs(elab *E)
{
    def *top = def_new(E, NULL, NULL), *cur = top;
    if (!top) return oom(E);
    top->name = "";
    for (int i = 0; i < E->d->ncard; i++) {
        const nl_card *cd = &E->d->card[i];
        if (head_is(cd, ".subckt")) {
            const nl_field *f = cd->f;
            if (cd->nf < 2 || f[1].kind != NL_F_WORD) return err(E, NULL, cd, NULL, "missing subckt name after .subckt");
            def *d = def_new(E, cur, cd);
            const char *name = d ? nl_strndup(&E->ar, f[1].u.s, strlen(f[1].u.s), 1) : NULL;
            if (!name) return oom(E);
            d->name = name;
            int old;
            if (nl_hash_get(&cur->subs, name, &old))
                return err(E, NULL, cd, &f[1], "duplicate subckt '%s' (first defined at %s:%d)", f[1].u.s,
                           E->d->files[E->defs[old]->hdr->file], E->defs[old]->hdr->f[0].line);
            if (nl_hash_put(&cur->subs, name, E->ndef - 1)) return oom(E);
            int k = 2, params = 0;
            nl_hash ports = { 0 };                     /* words are lower case */
            for (; k < cd->nf && f[k].kind == NL_F_WORD && !nsc_strieq(f[k].u.s, "params:"); k++) {
                if (nl_hash_get(&ports, f[k].u.s, NULL)) {
                    nl_hash_free(&ports);
                    return err(E, NULL, cd, &f[k], "duplicate port '%s' in .subckt %s", f[k].u.s, f[1].u.s);
                }
                if (nl_hash_put(&ports, f[k].u.s, k)) {
                    nl_hash_free(&ports);
                    return oom(E);
                }
                d->nport++;
            }
            nl_hash_free(&ports);
            for (; k < cd->nf; k++) {
                if (is_word(&f[k], "params:") && !params) { params = 1; continue; }
                if (f[k].kind != NL_F_PAIR || f[k].sub[0].kind != NL_F_WORD)
                    return err(E, NULL, cd, &f[k], "unexpected '%s' in .subckt %s (expected name=value)", ftext(&f[k]), f[1].u.s);
                if (nl_hash_put(&d->pars, f[k].sub[0].u.s, k)) return oom(E);
            }
            cur = d;
        } else if (head_is(cd, ".ends")) {
            if (cur == top) return err(E, NULL, cd, NULL, ".ends without .subckt");
            if (cd->nf > 1 && cd->f[1].kind == NL_F_WORD && !nsc_strieq(cd->f[1].u.s, cur->name))
                warn(E, NULL, cd, &cd->f[1], ".ends %s closes .subckt %s", cd->f[1].u.s, cur->name);
            cur = cur->parent;
        } else {
            if (head_is(cd, ".global"))
                for (int k = 1; k < cd->nf; k++) {
                    if (cd->f[k].kind != NL_F_WORD) return err(E, NULL, cd, &cd->f[k], "expected a node name in .global");
                    const char *g = nl_strndup(&E->ar, cd->f[k].u.s, strlen(cd->f[k].u.s), 1);
                    if (!g || nl_hash_put(&E->globals, g, 1)) return oom(E);
                }
            if (nsc_grow((void **)&cur->body, &cur->capbody, cur->nbody + 1, sizeof *cur->body)) return oom(E);
            cur->body[cur->nbody++] = i;
        }
    }
    if (cur != top) return err(E, NULL, cur->hdr, NULL, "missing .ends for .subckt %s", cur->hdr->f[1].u.s);
    return NSC_OK;
}

/* ---- final resolution ---- */

static nsc_status resolve_refs(elab *E)
{
    nsc_circuit *c = E->c;
    for (int k = 0; k < E->nfix; k++) {
        fixup *x = &E->fix[k];
        nsc_element *e = &c->el[x->el];
        const char *nm = x->cd->f[0].u.s;
        scope s = { 0 };
        s.where = x->where;
        int t;
        if (!nl_hash_get(&E->els, x->name, &t))
            return err(E, &s, x->cd, x->f, "unknown element '%s' in %s %s", x->f->u.s, kind_name(e->kind), nm);
        if (e->kind == NSC_EL_K && c->el[t].kind != NSC_EL_L)
            return err(E, &s, x->cd, x->f, "coupling %s: '%s' is not an inductor", nm, x->f->u.s);
        if (e->kind != NSC_EL_K && c->el[t].kind != NSC_EL_V)
            return err(E, &s, x->cd, x->f, "%s %s: '%s' is not a voltage source", kind_name(e->kind), nm, x->f->u.s);
        if (x->term >= 0) {
            e->bsrc->elref[x->term] = t;
            continue;
        }
        e->ref[x->slot] = t;
        if (e->kind == NSC_EL_K && x->slot == 1 && e->ref[0] == t)
            return err(E, &s, x->cd, x->f, "coupling %s couples '%s' with itself", nm, x->f->u.s);
    }
    for (int k = 0; k < c->nel; k++)
        if (E->elmodel[k] >= 0) c->el[k].model = &c->model[E->elmodel[k]];
    return NSC_OK;
}

/* SPICE defaults of omitted waveform fields; dc = value at t = 0 when no DC given */
/* SPICE's defaults for the omitted fields of each source's waveform, with
 * ngspice's semantics for degenerate ones (netlist.md): PULSE PW = 0 means TSTOP;
 * PER omitted or 0 means TSTOP, and ngspice wraps only when t - TD > PER, so
 * such a pulse never repeats within the run: per = 0 here (no repeat; with
 * per = TSTOP the value at t = TSTOP fell back to V1). TR = TF = 0 stay ideal
 * edges. Negative PULSE durations are errors (they were accepted). */
static nsc_status wave_defaults(elab *E)
{
    nsc_circuit *c = E->c;
    double ts = c->has_tran ? c->tstep : 0, te = c->has_tran ? c->tstop : 1e30;
    for (int k = 0; k < c->nel; k++) {
        nsc_wave *w = &c->el[k].wave;
        if (c->el[k].kind != NSC_EL_V && c->el[k].kind != NSC_EL_I) continue;
        int g = E->wgiven[k], setdc = g < 0;
        if (g < 0) g = -g - 1;
        double *p = w->p;
        switch (w->kind) {
        case NSC_WAVE_PULSE: {
            const double d[7] = { 0, 0, 0, ts, ts, te, 0 };
            for (int i = g; i < 7; i++) p[i] = d[i];
            w->np = 7;
            const char *field[] = { "TR", "TF", "PW", "PER" };
            for (int i = 3; i < 7; i++)
                if (p[i] < 0)
                    return nsc_err(E->r, NSC_ENETLIST, &c->el[k].loc, "PULSE of %s: negative %s = %g", c->el[k].name,
                                   field[i - 3], p[i]);
            if (p[5] == 0) p[5] = te;                     /* ngspice: PW = 0 is TSTOP */
            if (g >= 8 && !(p[7] >= 0 && p[7] == floor(p[7]) && p[7] < 1e15))
                return nsc_err(E->r, NSC_ENETLIST, &c->el[k].loc,
                               "PULSE of %s: NP = %g must be a whole number of pulses (0: unlimited)", c->el[k].name, p[7]);
            if (g >= 8 && p[7] > 0) w->np = 8;            /* ngspice's NP pulses, then V1 (KiCad writes 0) */
            break;
        }
        case NSC_WAVE_SIN: {
            const double d[6] = { 0, 0, c->has_tran ? 1 / te : 0, 0, 0, 0 };
            for (int i = g; i < 6; i++) p[i] = d[i];
            w->np = 6;
            break;
        }
        case NSC_WAVE_EXP: {
            if (g < 3) p[2] = 0;
            if (g < 4) p[3] = ts;
            if (g < 5) p[4] = p[2] + ts;
            if (g < 6) p[5] = ts;
            w->np = 6;
            break;
        }
        default:
            break;
        }
        if (setdc) w->dc = nsc_wave_eval(w, 0);
    }
    return NSC_OK;
}

static nsc_status resolve_ic(elab *E)
{
    nsc_circuit *c = E->c;
    if (!E->nic) return NSC_OK;
    c->ic_node = malloc((size_t)E->nic * sizeof *c->ic_node);
    c->ic_val = malloc((size_t)E->nic * sizeof *c->ic_val);
    c->ic_loc = malloc((size_t)E->nic * sizeof *c->ic_loc);
    if (!c->ic_node || !c->ic_val || !c->ic_loc) return oom(E);
    for (int k = 0; k < E->nic; k++) {
        icfix *x = &E->ic[k];
        int n;
        scope s = { 0 };
        s.where = x->where;
        if (!nl_hash_get(&E->nodes, x->node, &n))
            return err(E, &s, x->cd, x->f, "unknown node '%s' in .ic", x->f->u.s);
        c->ic_node[c->nic] = n;
        c->ic_val[c->nic] = x->v;
        c->ic_loc[c->nic] = nl_field_loc(E->d, x->cd, x->f);
        c->nic++;
    }
    return NSC_OK;
}

static nsc_status probe_add(elab *E, nsc_probekind kind, int n0, int n1, int el, const char *name, nsc_loc loc)
{
    nsc_circuit *c = E->c;
    if (nl_hash_get(&E->probes, name, NULL)) return NSC_OK;    /* already saved */
    if (nsc_grow((void **)&c->save, &E->capsave, c->nsave + 1, sizeof *c->save)) return oom(E);
    nsc_probe *p = &c->save[c->nsave];
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->node[0] = n0;
    p->node[1] = n1;
    p->el = el;
    p->loc = loc;
    if (!(p->name = nsc_strdup(name))) return oom(E);
    if (nl_hash_put(&E->probes, p->name, c->nsave)) return oom(E);
    c->nsave++;
    return NSC_OK;
}

static nsc_status save_node(elab *E, const nl_card *cd, const nl_field *f, int *n)
{
    if (f->kind != NL_F_WORD) return err(E, NULL, cd, f, "expected a node name, found '%s'", ftext(f));
    const char *k = cat(E, "", f->u.s);
    if (!k) return oom(E);
    if (!strcmp(k, "gnd")) k = "0";
    if (!nl_hash_get(&E->nodes, k, n)) return err(E, NULL, cd, f, "unknown node '%s' in %s", f->u.s, cd->f[0].u.s);
    return NSC_OK;
}

/* The top-level .params of the circuit (c->param), after elaboration. */
static int top_lookup(void *ctx, const char *name, double *v)
{
    const nsc_circuit *c = ctx;
    for (int k = 0; k < c->nparam; k++)
        if (!strcmp(c->param[k], name)) { *v = c->param_val[k]; return 1; }
    return 0;
}

/* A derived output column (circuit.h xcol) of program sig, named name (taken). */
static nsc_status xcol_add(elab *E, char *name, nsc_msig *sig)
{
    nsc_circuit *c = E->c;
    struct nsc_xcol *x = nsc_realloc_array(c->xcol, (size_t)c->nxcol + 1, sizeof *x);
    if (!x || !name) { free(name); free(sig->code); free(sig->text); return oom(E); }
    c->xcol = x;
    c->xcol[c->nxcol].name = name;
    c->xcol[c->nxcol++].sig = *sig;
    return NSC_OK;
}

/* Xyce's .print fields: FORMAT= PRECISION= WIDTH= FILE= DELIMITER= (noted,
 * ignored), {expr} and P(x) / W(x) (the power v(n+,n-) i(x); a MOS
 * transistor's v(d,s) i(d)) as derived columns. 1 when f was one of them, 0
 * when not, -1 on error. */
static int xyce_print(elab *E, const nl_card *cd, const nl_field *f)
{
    static const char *const opts[] = { "format", "precision", "width", "file", "delimiter", "timewidth",
                                        "timescalefactor", "filter" };
    char kb[64];
    const char *k = pair_key(f, kb, sizeof kb);
    for (size_t q = 0; k && q < sizeof opts / sizeof opts[0]; q++)
        if (!strcmp(k, opts[q])) {
            note(E, cd, f, "Xyce .print option %s= ignored (the outputs are -o's)", k);
            return 1;
        }
    nsc_circuit *c = E->c;
    nsc_msig sig;
    if (f->kind == NL_F_EXPR) {
        nl_env env = { top_lookup, c, E->d->files[cd->file], "", E->funcs, E->nfunc, 0 };
        if (nl_meas_signal(c, E->d, cd, &env, f, &sig, E->r)) return -1;
        return xcol_add(E, nsc_asprintf("{%s}", sig.text), &sig) ? -1 : 1;
    }
    if (f->kind != NL_F_CALL || !(nsc_strieq(f->u.s, "p") || nsc_strieq(f->u.s, "w")) || f->nsub != 1
        || f->sub[0].kind != NL_F_WORD)
        return 0;
    const char *en = cat(E, "", f->sub[0].u.s);
    int el;
    if (!en) { oom(E); return -1; }
    if (!nl_hash_get(&E->els, en, &el) || c->el[el].nnode < 2 || c->el[el].kind == NSC_EL_K) {
        err(E, NULL, cd, &f->sub[0], "%s(%s): no element with two terminals named %s", f->u.s, f->sub[0].u.s, f->sub[0].u.s);
        return -1;
    }
    const nsc_element *e = &c->el[el];
    if (e->kind == NSC_EL_Q) {                           /* two ports: --losses has its power */
        err(E, NULL, cd, &f->sub[0], "%s(%s): not available for a bipolar transistor (its power is in --losses)",
            f->u.s, f->sub[0].u.s);
        return -1;
    }
    int np = e->kind == NSC_EL_M ? 2 : 1;                /* the port: n+ n-, or a MOS's d s */
    nsc_loc loc = nl_field_loc(E->d, cd, f);
    int kv, ki;
    if (nl_meas_column(c, NSC_PROBE_V, c->node_name[e->node[0]], c->node_name[e->node[np]], loc, &kv, E->r)
        || nl_meas_column(c, NSC_PROBE_I, e->name, NULL, loc, &ki, E->r))
        return -1;
    memset(&sig, 0, sizeof sig);
    sig.code = calloc(3, sizeof *sig.code);
    if (!sig.code) { oom(E); return -1; }
    sig.code[0] = (nsc_minstr){ NSC_MOP_PROBE, kv, 0, 0 };   /* v(port) i(x) * */
    sig.code[1] = (nsc_minstr){ NSC_MOP_PROBE, ki, 0, 0 };
    sig.code[2] = (nsc_minstr){ NSC_MOP_MUL, 0, 0, 0 };
    sig.ncode = 3;
    sig.text = nsc_asprintf("p(%s)", e->name);
    return xcol_add(E, nsc_asprintf("p(%s)", e->name), &sig) ? -1 : 1;
}

/* .save / .print [tran] V(a) V(a,b) I(x) node ... */
static nsc_status resolve_save(elab *E)
{
    nsc_circuit *c = E->c;
    for (int s = 0; s < E->nsavecard; s++) {
        const nl_card *cd = &E->d->card[E->save[s]];
        int i = 1;
        if (head_is(cd, ".print") && cd->nf > 1 && cd->f[1].kind == NL_F_WORD) {
            if (nsc_strieq(cd->f[1].u.s, "tran")) i = 2;
            else if (nsc_strieq(cd->f[1].u.s, "ac") || nsc_strieq(cd->f[1].u.s, "dc") || nsc_strieq(cd->f[1].u.s, "op") ||
                     nsc_strieq(cd->f[1].u.s, "noise")) {
                note(E, cd, &cd->f[1], ".print %s ignored", cd->f[1].u.s);
                continue;
            }
        }
        for (; i < cd->nf; i++) {
            const nl_field *f = &cd->f[i];
            nsc_loc loc = nl_field_loc(E->d, cd, f);
            int n0, n1 = 0;
            char *name = NULL;
            nsc_status st;
            int xk = xyce_print(E, cd, f);                  /* Xyce's options and derived columns */
            if (xk < 0) return E->r->status;
            if (xk > 0) continue;
            if (f->kind == NL_F_WORD && (nsc_strieq(f->u.s, "all") || nsc_strieq(f->u.s, "allv") || nsc_strieq(f->u.s, "alli"))) {
                note(E, cd, f, "'%s' in .save ignored (default outputs)", f->u.s);
                continue;
            }
            if (f->kind == NL_F_WORD && f->u.s[0] != '@') {       /* a bare node name */
                if (save_node(E, cd, f, &n0)) return E->r->status;
                name = nsc_asprintf("v(%s)", c->node_name[n0]);
                st = name ? probe_add(E, NSC_PROBE_V, n0, 0, -1, name, loc) : oom(E);
            } else if (f->kind == NL_F_CALL && nsc_strieq(f->u.s, "v") && (f->nsub == 1 || f->nsub == 2)) {
                if (save_node(E, cd, &f->sub[0], &n0) || (f->nsub == 2 && save_node(E, cd, &f->sub[1], &n1)))
                    return E->r->status;
                name = f->nsub == 1 ? nsc_asprintf("v(%s)", c->node_name[n0])
                                    : nsc_asprintf("v(%s,%s)", c->node_name[n0], c->node_name[n1]);
                st = name ? probe_add(E, NSC_PROBE_V, n0, n1, -1, name, loc) : oom(E);
            } else if (f->kind == NL_F_CALL && nsc_strieq(f->u.s, "i") && f->nsub == 1 && f->sub[0].kind == NL_F_WORD) {
                const char *k = cat(E, "", f->sub[0].u.s);
                int el;
                if (!k) return oom(E);
                if (!nl_hash_get(&E->els, k, &el))
                    return err(E, NULL, cd, &f->sub[0], "unknown element '%s' in %s", f->sub[0].u.s, cd->f[0].u.s);
                if (c->el[el].kind == NSC_EL_K)
                    return err(E, NULL, cd, &f->sub[0], "I(%s): a coupling has no current", f->sub[0].u.s);
                name = nsc_asprintf("i(%s)", c->el[el].name);
                st = name ? probe_add(E, NSC_PROBE_I, 0, 0, el, name, loc) : oom(E);
            } else
                return err(E, NULL, cd, f, "unsupported output '%s' in %s (use V(n), V(a,b), I(element))", ftext(f), cd->f[0].u.s);
            free(name);
            if (st) return st;
        }
    }
    return NSC_OK;
}

/* ---- driver ---- */

static void elab_free(elab *E)
{
    for (int k = 0; k < E->ndef; k++) {
        free(E->defs[k]->body);
        nl_hash_free(&E->defs[k]->subs);
        nl_hash_free(&E->defs[k]->pars);
        free(E->defs[k]);
    }
    free(E->defs);
    nl_hash_free(&E->nodes);
    nl_hash_free(&E->els);
    nl_hash_free(&E->globals);
    nl_hash_free(&E->probes);
    nl_hash_free(&E->inodes);
    free(E->elmodel);
    free(E->wgiven);
    for (int k = 0; k < E->nfix; k++) free(E->fix[k].name);
    free(E->fix);
    for (int k = 0; k < E->nic; k++) free(E->ic[k].node);
    free(E->ic);
    free(E->save);
    free(E->ovused);
    free(E->buf);
    free(E->model_card);
    for (int k = 0; k < E->nfunc; k++) free(E->funcs[k].formal);
    free(E->funcs);
    free(E->ctl_unrun);
    nl_arena_free(&E->ar);
}

/* circuit->param, param_val: the top scope's parameters in definition order */
static nsc_status top_params(elab *E, const scope *top)
{
    nsc_circuit *c = E->c;
    if (top->npar == 0) return NSC_OK;
    if (!(c->param = nsc_calloc((size_t)top->npar, sizeof *c->param)) ||
        !(c->param_val = nsc_calloc((size_t)top->npar, sizeof *c->param_val)))
        return oom(E);
    c->nparam = top->npar;
    for (size_t k = 0; k < top->params.cap; k++) {
        const nl_slot *sl = &top->params.s[k];
        if (sl->key && !(c->param[sl->val] = nsc_strdup(sl->key))) return oom(E);
        if (sl->key) c->param_val[sl->val] = top->pval[sl->val];
    }
    return NSC_OK;
}

/* One user function: head is the CALL field name(a, b, ...), body its EXPR. */
static nsc_status func_add(elab *E, const nl_card *cd, const nl_field *head, const nl_field *body)
{
    const nl_expr *bx = body && body->kind == NL_F_EXPR ? body->u.x : NULL;
    double num;
    if (body && body->kind == NL_F_WORD && (is_ident(body->u.s) || nsc_parse_number(body->u.s, &num))) {
        nl_expr *x = nl_expr_new(&E->ar, is_ident(body->u.s) ? NL_X_PARAM : NL_X_NUM, body->line, body->col, NULL, NULL);
        if (!x || !(x->name = nl_strndup(&E->ar, body->u.s, strlen(body->u.s), x->op == NL_X_PARAM))) return oom(E);
        x->num = num;
        bx = x;                                         /* a bare name or number: f(x)=x */
    }
    if (!bx)
        return err(E, NULL, cd, body ? body : head, "the body of function '%s' must be an expression in braces: "
                   "%s(...) {expr}", head->u.s, head->u.s);
    char *name = nl_strndup(&E->ar, head->u.s, strlen(head->u.s), 1);
    if (!name) return oom(E);
    for (int k = 0; k < E->nfunc; k++)
        if (!strcmp(E->funcs[k].name, name)) return err(E, NULL, cd, head, "function '%s' defined twice", head->u.s);
    if (nsc_grow((void **)&E->funcs, &E->capfunc, E->nfunc + 1, sizeof *E->funcs)) return oom(E);
    nl_func *fn = &E->funcs[E->nfunc];
    *fn = (nl_func){ name, 0, calloc((size_t)head->nsub + 1, sizeof(char *)), bx };
    if (!fn->formal) return oom(E);
    E->nfunc++;
    for (int k = 0; k < head->nsub; k++) {
        const nl_field *a = &head->sub[k];
        const char *an = a->kind == NL_F_WORD ? a->u.s : a->kind == NL_F_EXPR && a->u.x->op == NL_X_PARAM ? a->u.x->name : NULL;
        if (!an || !is_ident(an)) return err(E, NULL, cd, a, "expected an argument name in function '%s'", head->u.s);
        if (!(fn->formal[fn->nformal++] = nl_strndup(&E->ar, an, strlen(an), 1))) return oom(E);
    }
    return NSC_OK;
}

/* Every .func name(a, b) {body} (also `= {body}`) and .param name(a, b) = {body}
 * of the deck, before any expression is evaluated. */
static nsc_status funcs_collect(elab *E)
{
    for (int c = 0; c < E->d->ncard; c++) {
        const nl_card *cd = &E->d->card[c];
        if (head_is(cd, ".func")) {
            const nl_field *f = cd->nf > 1 ? &cd->f[1] : NULL;
            if (f && f->kind == NL_F_PAIR && f->sub[0].kind == NL_F_CALL) { if (func_add(E, cd, &f->sub[0], &f->sub[1])) return E->r->status; }
            else if (f && f->kind == NL_F_CALL) { if (func_add(E, cd, f, cd->nf > 2 ? &cd->f[2] : NULL)) return E->r->status; }
            else return err(E, NULL, cd, f, "expected .func name(arguments) {expression}");
        } else if (head_is(cd, ".param")) {
            for (int i = 1; i < cd->nf; i++)
                if (cd->f[i].kind == NL_F_PAIR && cd->f[i].sub[0].kind == NL_F_CALL
                    && func_add(E, cd, &cd->f[i].sub[0], &cd->f[i].sub[1]))
                    return E->r->status;
        }
    }
    return NSC_OK;
}

static nsc_status elaborate(elab *E)
{
    nsc_circuit *c = E->c;
    c->theta = 0.5;
    c->gmin = 1e-12;
    strcpy(c->solver, "auto");
    int g;
    if (node_new(E, "0", NULL, NULL, &g)) return E->r->status;
    if (E->nov && !(E->ovused = calloc((size_t)E->nov, 1))) return oom(E);
    if (funcs_collect(E) || build_defs(E)) return E->r->status;
    const nl_card *over = NULL;
    def_size(E, E->defs[0], 0, &over);
    if (over)
        return err(E, NULL, over, NULL, "circuit too large: %.3g elements and %.3g subcircuit instances after expansion "
                   "(limit %d each)", E->defs[0]->nel, E->defs[0]->ninst, NL_MAXELEMENTS);
    scope top = { 0 };
    top.df = E->defs[0];
    top.prefix = "";
    top.where = "";
    nsc_status st = NSC_OK;
    /* pass 0 of the top scope first, to check --param before anything else */
    for (int k = 0; !st && k < top.df->nbody; k++) {
        const nl_card *cd = &E->d->card[top.df->body[k]];
        if (head_is(cd, ".param")) st = card_param(E, &top, cd);
    }
    for (int j = 0; !st && j < E->nov; j++)
        if (!E->ovused[j]) st = nsc_err(E->r, NSC_ENETLIST, NULL, "no .param named %s", E->ov[j].name);
    /* then .model and the rest (re-running .param passes is harmless but skipped) */
    for (int pass = 1; !st && pass < 3; pass++)
        for (int k = 0; !st && k < top.df->nbody; k++) {
            const nl_card *cd = &E->d->card[top.df->body[k]];
            int isparam = head_is(cd, ".param"), ismodel = head_is(cd, ".model");
            if (pass == 1 && ismodel) st = card_model(E, &top, cd);
            else if (pass == 2 && !isparam && !ismodel)
                st = cd->f[0].u.s[0] == '.' ? card_dot(E, &top, cd) : card_element(E, &top, cd);
        }
    if (!st) st = top_params(E, &top);
    if (!st && E->ctl_unrun)
        note(E, &E->d->card[E->ctl_first], NULL, ".control commands not run: %s", E->ctl_unrun);
    scope_free(&top);
    if (st) return st;
    if (c->nel == 0) {
        nsc_loc loc = { E->d->nfiles ? E->d->files[0] : NULL, 1, 1 };
        return nsc_err(E->r, NSC_ENETLIST, &loc, "netlist has no elements");
    }
    if (resolve_refs(E) || resolve_ic(E) || resolve_save(E) || nl_meas_resolve(c, E->r)) return E->r->status;
    return wave_defaults(E);
}

/* deck -> circuit. The circuit gets copies of the deck's file names and is
 * elaborated from a view of the deck holding them, so that its locations
 * (nsc_loc.file) point into c->files; the deck is not changed (elaboration only
 * reads it) and may be elaborated again. */
static nsc_status from_deck(const nl_deck *d, const nsc_param_set *ov, int nov, nsc_circuit **out, nsc_report *r)
{
    nsc_circuit *c = calloc(1, sizeof *c);
    if (!c || !(c->title = nsc_strdup(d->title ? d->title : ""))
        || !(c->files = calloc((size_t)d->nfiles + 1, sizeof *c->files))) {
        if (c) free(c->title);
        free(c);
        return nsc_err(r, NSC_ENOMEM, NULL, "out of memory");
    }
    for (; c->nfiles < d->nfiles; c->nfiles++)
        if (!(c->files[c->nfiles] = nsc_strdup(d->files[c->nfiles]))) {
            nsc_circuit_free(c);
            return nsc_err(r, NSC_ENOMEM, NULL, "out of memory");
        }
    nl_deck view = *d;
    view.files = c->files;
    elab E = { 0 };
    E.d = &view;
    E.r = r;
    E.c = c;
    E.ov = ov;
    E.nov = nov;
    nsc_status st = elaborate(&E);
    elab_free(&E);
    if (st) {
        nsc_circuit_free(c);                           /* messages are already formatted */
        return st;
    }
    *out = c;
    return NSC_OK;
}

nsc_status nsc_netlist_read(const char *path, const nsc_param_set *ov, int nov, nsc_circuit **out, nsc_report *r)
{
    return nsc_netlist_read_in(path, NULL, ov, nov, out, r);
}

nsc_status nsc_netlist_read_in(const char *path, const nsc_search_path *inc, const nsc_param_set *ov, int nov,
                               nsc_circuit **out, nsc_report *r)
{
    nl_deck d = { 0 };
    *out = NULL;
    nsc_status st = nl_deck_read_file(&d, path, inc, r);
    if (!st) st = from_deck(&d, ov, nov, out, r);
    nl_deck_free(&d);
    return st;
}

nsc_status nsc_deck_read(const char *path, const nsc_search_path *inc, nsc_deck **out, nsc_report *r)
{
    nl_deck *d = calloc(1, sizeof *d);
    *out = NULL;
    if (!d) return nsc_err(r, NSC_ENOMEM, NULL, "out of memory");
    nsc_status st = nl_deck_read_file(d, path, inc, r);
    if (st) nsc_deck_free(d);
    else *out = d;
    return st;
}

nsc_status nsc_deck_elab(const nsc_deck *d, const nsc_param_set *ov, int nov, nsc_circuit **out, nsc_report *r)
{
    *out = NULL;
    return from_deck(d, ov, nov, out, r);
}

void nsc_deck_free(nsc_deck *d)
{
    if (d) nl_deck_free(d);
    free(d);
}

nsc_status nsc_netlist_read_string(const char *text, const char *name, const nsc_param_set *ov, int nov,
                                   nsc_circuit **out, nsc_report *r)
{
    nl_deck d = { 0 };
    *out = NULL;
    nsc_status st = nl_deck_read_string(&d, text, name, NULL, r);
    if (!st) st = from_deck(&d, ov, nov, out, r);
    nl_deck_free(&d);
    return st;
}
