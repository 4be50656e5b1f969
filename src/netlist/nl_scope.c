/* nl_scope.c -- what every card of a scope uses: messages located at a field
 * and decorated with the instance, field texts and names, parameter values,
 * nodes, elements and forward references to elements.
 *
 * Invariants: E->c->node_loc has the capacity of E->c->node_name (E->capnode),
 * E->elmodel that of E->c->el (E->capel); E->nodes and E->els
 * map every full name to its index; names are lower case. */
#include "nl_elab.h"
#include "devices/cards.h"
#include "devices/device.h"
#include "devices/bprog.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

nsc_status nle_oom(elab *E)
{
    return nsc_oom(E->r);
}

/* the message of fmt and the location of field f of card cd (its first field if f is NULL) */
static nsc_loc vmsg(const elab *E, const nl_card *cd, const nl_field *f, char *msg, size_t n,
                    const char *fmt, va_list ap)
{
    vsnprintf(msg, n, fmt, ap);
    return nl_field_loc(E->d, cd, f ? f : &cd->f[0]);
}

nsc_status nle_verr(elab *E, const scope *sc, const nl_card *cd, const nl_field *f, const char *fmt,
                    va_list ap)
{
    char msg[512];
    nsc_loc loc = vmsg(E, cd, f, msg, sizeof msg, fmt, ap);
    return nsc_err(E->r, NSC_ENETLIST, &loc, "%s%s", msg, sc && sc->where ? sc->where : "");
}

nsc_status nle_err(elab *E, const scope *sc, const nl_card *cd, const nl_field *f, const char *fmt,
                   ...)
{
    va_list ap;
    va_start(ap, fmt);
    nsc_status st = nle_verr(E, sc, cd, f, fmt, ap);
    va_end(ap);
    return st;
}

void nle_vwarn(elab *E, const scope *sc, const nl_card *cd, const nl_field *f, const char *fmt,
               va_list ap)
{
    char msg[512];
    nsc_loc loc = vmsg(E, cd, f, msg, sizeof msg, fmt, ap);
    nsc_warn(E->r, &loc, "%s%s", msg, sc && sc->where ? sc->where : "");
}

void nle_warn(elab *E, const scope *sc, const nl_card *cd, const nl_field *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nle_vwarn(E, sc, cd, f, fmt, ap);
    va_end(ap);
}

void nle_note(elab *E, const nl_card *cd, const nl_field *f, const char *fmt, const char *arg)
{
    nsc_loc loc = nl_field_loc(E->d, cd, f ? f : &cd->f[0]);
    nsc_note(E->r, &loc, fmt, arg);
}

/* the card view's helpers (devices/cards.c): one reading of a field */
const char *nle_ftext(const nl_field *f)
{
    return nsc_card_text(f);
}

int nle_is_word(const nl_field *f, const char *w)
{
    return nsc_card_is_word(f, w);
}

const char *nle_pair_key(const nl_field *f, char *k, size_t cap)
{
    return nsc_card_key(f, k, cap);
}

/* E->buf = a b (b in lower case) */
const char *nle_cat(elab *E, const char *a, const char *b)
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

int nle_scope_lookup(void *ctx, const char *name, double *v)
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

nsc_status nle_param_set(elab *E, scope *sc, const char *name, double v)
{
    int i;
    if (nl_hash_get(&sc->params, name, &i)) {
        sc->pval[i] = v;
        return NSC_OK;
    }
    const char *key = nl_strndup(&E->ar, name, strlen(name), 1);
    if (!key || nsc_grow((void **)&sc->pval, &sc->cappar, sc->npar + 1, sizeof *sc->pval)
        || nl_hash_put(&sc->params, key, sc->npar))
        return nle_oom(E);
    sc->pval[sc->npar++] = v;
    return NSC_OK;
}

int nle_is_ident(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_') return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.') return 0;
    return 1;
}

/* *v = numeric value of field f: a number, {expr}, a bare expression, or a .param name */
nsc_status nle_value(elab *E, scope *sc, const nl_card *cd, const nl_field *f, double *v)
{
    if (f->kind == NL_F_EXPR) {
        nl_env env = { nle_scope_lookup, sc, E->d->files[cd->file], sc->where, E->funcs, E->nfunc };
        return nl_expr_eval(f->u.x, &env, v, E->r);
    }
    if (f->kind == NL_F_GROUP && f->nsub == 1) return nle_value(E, sc, cd, &f->sub[0], v);
    if (f->kind != NL_F_WORD)
        return nle_err(E, sc, cd, f, "expected a value, found '%s'", nle_ftext(f));
    if (nsc_parse_number(f->u.s, v)) {
        if (!isfinite(*v))
            return nle_err(E, sc, cd, f, "value is not finite (overflow): '%s'", f->u.s);
        return NSC_OK;
    }
    if (nle_is_ident(f->u.s)) {
        const char *k = nle_cat(E, "", f->u.s);
        if (!k) return nle_oom(E);
        if (nle_scope_lookup(sc, k, v)) return NSC_OK;
        return nle_err(E, sc, cd, f, "bad value '%s' (not a number or a .param name)", f->u.s);
    }
    return nle_err(E, sc, cd, f, "bad number '%s'", f->u.s);
}

nsc_status nle_node_new(elab *E, const char *name, const nl_card *cd, const nl_field *f, int *idx)
{
    nsc_circuit *c = E->c;
    int cap = E->capnode;
    if (c->nnode >= NL_MAXELEMENTS)
        return nle_err(E, NULL, cd, f,
                       "circuit too large: more than %d nodes after subcircuit expansion",
                       NL_MAXELEMENTS);
    if (nsc_grow((void **)&c->node_name, &cap, c->nnode + 1, sizeof *c->node_name))
        return nle_oom(E);
    if (cap != E->capnode) { /* node_loc has the same capacity */
        nsc_loc *nl = nsc_realloc_array(c->node_loc, (size_t)cap, sizeof *nl);
        if (!nl) return nle_oom(E);
        c->node_loc = nl;
        E->capnode = cap;
    }
    char *s = nsc_strdup(name);
    if (!s) return nle_oom(E);
    c->node_name[c->nnode] = s;
    c->node_loc[c->nnode] = cd ? nl_field_loc(E->d, cd, f) : (nsc_loc){ NULL, 0, 0 };
    if (nl_hash_put(&E->nodes, s, c->nnode)) return nle_oom(E);
    *idx = c->nnode++;
    return NSC_OK;
}

/* full name of node `name` seen in scope sc (ports mapped, ground and .global kept) */
const char *nle_node_fullname(elab *E, const scope *sc, const char *name)
{
    const char *k = nle_cat(E, "", name);
    if (!k) return NULL;
    if (!strcmp(k, "0") || !strcmp(k, "gnd")) return "0";
    int i;
    if (nl_hash_get(&sc->ports, k, &i)) return E->c->node_name[sc->portnode[i]];
    if (nl_hash_get(&E->globals, k, &i)) return k;
    return nle_cat(E, sc->prefix, name);
}

/* E's names for the probe resolver (nl_probe.h nl_names); gnd is node 0 */
static int names_node(void *ctx, const char *name)
{
    int n;
    if (!strcmp(name, "gnd")) return 0;
    return nl_hash_get(&((elab *)ctx)->nodes, name, &n) ? n : -1;
}

static int names_element(void *ctx, const char *name)
{
    int el;
    return nl_hash_get(&((elab *)ctx)->els, name, &el) ? el : -1;
}

nl_probe_fail nle_probe(elab *E, nsc_probekind kind, char *in, int opts, nsc_probe *p,
                        const char **bad)
{
    nl_names nm = { names_node, names_element, E };
    memset(p, 0, sizeof *p);
    return nl_probe_resolve_in(E->c, &nm, kind, in, opts, p, bad);
}

/* *idx = node of field f (a word) in scope sc, created when new */
nsc_status nle_node(elab *E, scope *sc, const nl_card *cd, const nl_field *f, int *idx)
{
    if (f->kind != NL_F_WORD)
        return nle_err(E, sc, cd, f, "expected a node name, found '%s'", nle_ftext(f));
    const char *full = nle_node_fullname(E, sc, f->u.s);
    if (!full) return nle_oom(E);
    int owner;
    if (E->inodes.n && nl_hash_get(&E->inodes, full, &owner))
        return nle_err(E, sc, cd, f, "node '%s' is the internal node of Rser= of %s", f->u.s,
                       E->c->el[owner].name);
    if (nl_hash_get(&E->nodes, full, idx)) return NSC_OK;
    return nle_node_new(E, full, cd, f, idx);
}

const char *nle_kind_name(nsc_elkind k)
{
    return nsc_device_of(k)->name;
}

/* New element of kind k named full (prefix included) for card cd; *idx its index. */
nsc_status nle_element_named(elab *E, scope *sc, const nl_card *cd, nsc_elkind k, const char *full,
                             int *idx)
{
    nsc_circuit *c = E->c;
    int cap = E->capel;
    if (c->nel >= NL_MAXELEMENTS)
        return nle_err(E, sc, cd, NULL,
                       "circuit too large: more than %d elements after subcircuit expansion",
                       NL_MAXELEMENTS);
    if (nsc_grow((void **)&c->el, &cap, c->nel + 1, sizeof *c->el)) return nle_oom(E);
    if (cap != E->capel) { /* elmodel: same capacity as el */
        int *em = nsc_realloc_array(E->elmodel, (size_t)cap, sizeof *em);
        if (!em) return nle_oom(E);
        E->elmodel = em;
        E->capel = cap;
    }
    int old;
    if (nl_hash_get(&E->els, full, &old)) {
        const nsc_loc *l = &c->el[old].loc;
        return nle_err(E, sc, cd, NULL, "duplicate element name '%s' (first defined at %s:%d)",
                       full, l->file, l->line);
    }
    nsc_element *e = &c->el[c->nel];
    memset(e, 0, sizeof *e);
    if (!(e->name = nsc_strdup(full))) return nle_oom(E);
    e->kind = k;
    e->ref[0] = e->ref[1] = -1;
    e->wave.repeat = -1;
    e->loc = nl_field_loc(E->d, cd, &cd->f[0]);
    E->elmodel[c->nel] = -1;
    *idx = c->nel++;
    if (nl_hash_put(&E->els, e->name, *idx)) return nle_oom(E);
    return NSC_OK;
}

/* New element of kind k named by card cd's head in scope sc; *idx its index. */
nsc_status nle_element_new(elab *E, scope *sc, const nl_card *cd, nsc_elkind k, int *idx)
{
    const char *full = nle_cat(E, sc->prefix, cd->f[0].u.s);
    return full ? nle_element_named(E, sc, cd, k, full, idx) : nle_oom(E);
}

/* nodes f[1..n] of the card into element el; error when missing */
nsc_status nle_nodes(elab *E, scope *sc, const nl_card *cd, int el, int n)
{
    nsc_element *e = &E->c->el[el];
    if (cd->nf < n + 1)
        return nle_err(E, sc, cd, NULL, "missing nodes for %s %s", nle_kind_name(e->kind),
                       cd->f[0].u.s);
    e->nnode = n;
    for (int k = 0; k < n; k++) {
        int i;
        if (nle_node(E, sc, cd, &cd->f[k + 1], &i)) return E->r->status;
        E->c->el[el].node[k] = i;
    }
    return NSC_OK;
}

/* reference to element name (field f) resolved at the end */
nsc_status nle_fixup_add(elab *E, scope *sc, const nl_card *cd, const nl_field *f, int el, int slot)
{
    if (f->kind != NL_F_WORD)
        return nle_err(E, sc, cd, f, "expected an element name, found '%s'", nle_ftext(f));
    const char *full = nle_cat(E, sc->prefix, f->u.s);
    if (!full || nsc_grow((void **)&E->fix, &E->capfix, E->nfix + 1, sizeof *E->fix))
        return nle_oom(E);
    fixup *x = &E->fix[E->nfix];
    if (!(x->name = nsc_strdup(full))) return nle_oom(E);
    x->el = el;
    x->slot = slot;
    x->term = -1;
    x->cd = cd;
    x->f = f;
    x->where = sc->where;
    E->nfix++;
    return NSC_OK;
}

void nle_scope_free(scope *s)
{
    nl_hash_free(&s->params);
    nl_hash_free(&s->models);
    nl_hash_free(&s->othermodels);
    nl_hash_free(&s->ports);
    free(s->pval);
    free(s->portnode);
}

int nle_head_is(const nl_card *cd, const char *w)
{
    return nsc_strieq(cd->f[0].u.s, w);
}

/* The program of element e when it holds one (B source, charge capacitor CQ),
 * else NULL: the node indices of its terms and smooth inputs. */
static nsc_bprog *node_prog(const nsc_element *e)
{
    if (e->kind == NSC_EL_CQ) return e->priv;
    return nsc_bprog_of(e);
}

/* Each node index n in the element terminals and programs -> map[n]. */
static void renumber_elements(nsc_circuit *c, const int *map)
{
    for (int k = 0; k < c->nel; k++) {
        nsc_element *e = &c->el[k];
        for (int j = 0; j < e->nnode; j++) e->node[j] = map[e->node[j]];
        nsc_bprog *p = node_prog(e);
        for (int t = 0; p && t < p->nterm; t++)
            if (p->term[t].kind == NSC_BT_V) p->term[t].idx = map[p->term[t].idx];
        for (int q = 0; p && q < p->nsm; q++)
            for (int t = 0; t < p->sm[q].nin; t++)
                if (p->sm[q].in[t].kind == NSC_BT_V) p->sm[q].in[t].idx = map[p->sm[q].in[t].idx];
    }
}

/* h rebuilt with the entries whose node map[] keeps (map >= 0), renumbered. */
static nsc_status rehash_nodes(elab *E, nl_hash *h, const int *map)
{
    nl_hash nh = { 0 };
    for (size_t i = 0; i < h->cap; i++)
        if (h->s[i].key && map[h->s[i].val] >= 0
            && nl_hash_put(&nh, h->s[i].key, map[h->s[i].val])) {
            nl_hash_free(&nh);
            return nle_oom(E);
        }
    nl_hash_free(h);
    *h = nh;
    return NSC_OK;
}

/* used[n] = 1 when an element terminal or program reads node n (ground always). */
static void nodes_used(const nsc_circuit *c, char *used)
{
    used[0] = 1;
    for (int k = 0; k < c->nel; k++) {
        const nsc_element *e = &c->el[k];
        for (int j = 0; j < e->nnode; j++) used[e->node[j]] = 1;
        const nsc_bprog *p = node_prog(e);
        for (int t = 0; p && t < p->nterm; t++)
            if (p->term[t].kind == NSC_BT_V) used[p->term[t].idx] = 1;
        for (int q = 0; p && q < p->nsm; q++)
            for (int t = 0; t < p->sm[q].nin; t++)
                if (p->sm[q].in[t].kind == NSC_BT_V) used[p->sm[q].in[t].idx] = 1;
    }
}

/* Nodes that no element touches and no program reads exist only through an X
 * card whose subcircuit leaves that port unconnected (KiCad's and eSim's `?`
 * no-connect pin, a spare pin of a vendor model): ngspice's flattened circuit
 * has no such node. Each is dropped with a warning and the others keep their
 * order (indices renumbered), so a circuit without one is unchanged; before,
 * "no DC path to ground" refused the netlist (issue 28). Runs after every
 * element card and before anything resolves a node name (.save, .ic, .ac). */
nsc_status nle_drop_loose_nodes(elab *E)
{
    nsc_circuit *c = E->c;
    char *used = calloc((size_t)c->nnode + 1, 1);
    int *map = used ? malloc(((size_t)c->nnode + 1) * sizeof *map) : NULL;
    if (!map) {
        free(used);
        return nle_oom(E);
    }
    nodes_used(c, used);
    int n = 0;
    for (int k = 0; k < c->nnode; k++) {
        map[k] = used[k] ? n++ : -1;
        if (!used[k])
            nsc_warn(
                E->r, c->node_loc[k].line > 0 ? &c->node_loc[k] : NULL,
                "node '%s' connects to no element (a subcircuit port left unconnected inside): left out",
                c->node_name[k]);
    }
    nsc_status st = NSC_OK;
    if (n < c->nnode) {
        renumber_elements(c, map);
        st = rehash_nodes(E, &E->nodes, map);
        if (!st) st = rehash_nodes(E, &E->pins, map);
        for (int k = 0; k < c->nnode; k++) {
            if (map[k] < 0) free(c->node_name[k]);
            else {
                c->node_name[map[k]] = c->node_name[k];
                c->node_loc[map[k]] = c->node_loc[k];
            }
        }
        c->nnode = n;
    }
    free(used);
    free(map);
    return st;
}
