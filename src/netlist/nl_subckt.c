/* nl_subckt.c -- subcircuits: .subckt definitions (headers, sizes counted
 * before expansion) and X instances (a new scope: prefix, ports, parameters).
 *
 * Invariants: a definition is expanded at most once at a time (def.active:
 * recursion is an error), instances nest at most NL_MAXNEST deep, and at most
 * NL_MAXELEMENTS instances are expanded (E->ninst). */
#include "nl_elab.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const def *def_find(const elab *E, const def *d, const char *name)
{
    for (; d; d = d->parent) {
        int i;
        if (nl_hash_get(&d->subs, name, &i)) return E->defs[i];
    }
    return NULL;
}

/* ch->prefix = "<caller's prefix><instance name>." and ch->where, the
 * decoration of messages (at most 64 + 64 characters of the prefix), both in E->ar */
static nsc_status x_names(elab *E, const scope *sc, const char *inst, scope *ch)
{
    const char *pre = nle_cat(E, sc->prefix, inst);
    char *prefix = pre ? nl_alloc(&E->ar, strlen(pre) + 2) : NULL;
    if (!prefix) return nle_oom(E);
    sprintf(prefix, "%s.", pre);
    int np = (int)strlen(prefix) - 1; /* messages show at most 64 + 64 characters of it */
    char *where = nl_alloc(&E->ar, (size_t)np + 24);
    if (!where) return nle_oom(E);
    if (np <= 131) sprintf(where, " (in instance %.*s)", np, prefix);
    else sprintf(where, " (in instance %.64s...%.64s)", prefix, prefix + np - 64);
    ch->prefix = prefix;
    ch->where = where;
    return NSC_OK;
}

/* ports of d -> nodes f[1 .. 1+nport) of X card cd in the caller's scope sc */
/* The pin "<instance>:<port>" and "<instance>:<number>" (number from 1) of
 * instance prefix ("x1.") -> node, for the pin currents I(x1:d) of .save. */
static nsc_status x_pin(elab *E, const char *prefix, const char *port, int p, int node)
{
    size_t np = strlen(prefix) - 1;
    char *k1 = nl_alloc(&E->ar, np + strlen(port) + 2), *k2 = nl_alloc(&E->ar, np + 24);
    if (!k1 || !k2) return nle_oom(E);
    sprintf(k1, "%.*s:%s", (int)np, prefix, port);
    sprintf(k2, "%.*s:%d", (int)np, prefix, p + 1);
    int first = !nl_hash_get(&E->pins, k1, NULL); /* a repeated port name: its first port */
    return (first && nl_hash_put(&E->pins, k1, node)) || nl_hash_put(&E->pins, k2, node)
               ? nle_oom(E)
               : NSC_OK;
}

static nsc_status x_ports(elab *E, scope *sc, const nl_card *cd, const def *d, scope *ch)
{
    nsc_status st = NSC_OK;
    if (d->nport && !(ch->portnode = malloc((size_t)d->nport * sizeof *ch->portnode)))
        st = nle_oom(E);
    for (int p = 0; !st && p < d->nport; p++) {
        const nl_field *pf = &d->hdr->f[2 + p];
        const char *pk = nl_strndup(&E->ar, pf->u.s, strlen(pf->u.s), 1);
        if (!pk) st = nle_oom(E);
        else if (!(st = nle_node(E, sc, cd, &cd->f[1 + p], &ch->portnode[p]))
                 && !nl_hash_get(&ch->ports, pk, NULL)
                 && nl_hash_put(&ch->ports, pk, p)) /* a repeated port name: its first port */
            st = nle_oom(E);
        if (!st) st = x_pin(E, ch->prefix, pk, p, ch->portnode[p]);
    }
    return st;
}

/* The parameters of instance ch of d: fields f[i..] of X card cd (name=value,
 * evaluated in the caller's scope sc) or the header's defaults (evaluated in
 * ch), set in header order; sf names the subckt in messages. */
static nsc_status x_params(elab *E, scope *sc, const nl_card *cd, int i, const def *d,
                           const nl_field *sf, scope *ch)
{
    const nl_field *f = cd->f;
    int nh = d->hdr->nf;
    double *ovv = NULL; /* ovv[h]: instance value of header field h */
    char *given = NULL;
    nsc_status st = NSC_OK;
    if (cd->nf > i
        && (!(ovv = malloc((size_t)nh * sizeof *ovv)) || !(given = calloc((size_t)nh, 1))))
        st = nle_oom(E);
    for (int j = i; !st && j < cd->nf; j++) {
        if (nle_is_word(&f[j], "params:")) continue;
        int h;
        if (f[j].kind != NL_F_PAIR || f[j].sub[0].kind != NL_F_WORD) {
            st = nle_err(E, sc, cd, &f[j], "unexpected '%s' in instance %s (expected name=value)",
                         nle_ftext(&f[j]), f[0].u.s);
            break;
        }
        if (!nl_hash_get(&d->pars, f[j].sub[0].u.s, &h)) {
            st = nle_err(E, sc, cd, &f[j], "subckt '%s' has no parameter '%s' (instance %s)",
                         sf->u.s, f[j].sub[0].u.s, f[0].u.s);
            break;
        }
        if ((st = nle_value(E, sc, cd, &f[j].sub[1], &ovv[h]))) break;
        given[h] = 1;
    }
    for (int h = 2 + d->nport; !st && h < nh; h++) {
        const nl_field *hf = &d->hdr->f[h];
        if (hf->kind != NL_F_PAIR) continue;
        double v = 0;
        if (given && given[h]) v = ovv[h];
        else st = nle_value(E, ch, d->hdr, &hf->sub[1], &v);
        if (!st) {
            const char *pk = nle_cat(E, "", hf->sub[0].u.s);
            st = pk ? nle_param_set(E, ch, pk, v) : nle_oom(E);
        }
    }
    free(ovv);
    free(given);
    return st;
}

/* X: n1 n2 ... subname [params:] [name=value ...] */
nsc_status nle_card_x(elab *E, scope *sc, const nl_card *cd)
{
    const nl_field *f = cd->f;
    int npos = 0, i;
    for (i = 1; i < cd->nf && f[i].kind == NL_F_WORD && !nsc_strieq(f[i].u.s, "params:"); i++)
        npos++;
    if (npos < 1) return nle_err(E, sc, cd, NULL, "missing subckt name for instance %s", f[0].u.s);
    const nl_field *sf = &f[npos];
    const char *key = nle_cat(E, "", sf->u.s);
    if (!key) return nle_oom(E);
    def *d = (def *)def_find(E, sc->df, key);
    if (!d) return nle_err(E, sc, cd, sf, "unknown subckt '%s' for instance %s", sf->u.s, f[0].u.s);
    if (d->active) return nle_err(E, sc, cd, sf, "recursive subckt '%s'", sf->u.s);
    if (sc->depth >= NL_MAXNEST)
        return nle_err(E, sc, cd, sf, "subcircuits nested deeper than %d", NL_MAXNEST);
    if (++E->ninst > NL_MAXELEMENTS)
        return nle_err(E, sc, cd, NULL,
                       "circuit too large: more than %d subcircuit instances after expansion",
                       NL_MAXELEMENTS);
    if (npos - 1 != d->nport)
        return nle_err(E, sc, cd, NULL, "instance %s has %d node%s but subckt '%s' has %d port%s",
                       f[0].u.s, npos - 1, npos - 1 == 1 ? "" : "s", sf->u.s, d->nport,
                       d->nport == 1 ? "" : "s");
    scope ch = { 0 };
    ch.df = d;
    ch.depth = sc->depth + 1;
    for (ch.up = sc; ch.up && ch.up->df != d->parent; ch.up = ch.up->up)
        ;
    if (x_names(E, sc, f[0].u.s, &ch)) return E->r->status;
    nsc_status st = x_ports(E, sc, cd, d, &ch);
    if (!st) st = x_params(E, sc, cd, i, d, sf, &ch);
    if (!st) {
        d->active = 1;
        st = nle_scope_run(E, &ch);
        d->active = 0;
    }
    nle_scope_free(&ch);
    return st;
}

def *nle_def_new(elab *E, def *parent, const nl_card *hdr)
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

/* .subckt name port ... [params:] name=value ...: a new definition nested in
 * cur, in cur->subs; ports words (a repeated one warned: inside, the name is
 * its first port, as ngspice maps it), parameters name=value pairs. */
nsc_status nle_subckt_open(elab *E, def *cur, const nl_card *cd, def **out)
{
    const nl_field *f = cd->f;
    if (cd->nf < 2 || f[1].kind != NL_F_WORD)
        return nle_err(E, NULL, cd, NULL, "missing subckt name after .subckt");
    def *d = nle_def_new(E, cur, cd);
    const char *name = d ? nl_strndup(&E->ar, f[1].u.s, strlen(f[1].u.s), 1) : NULL;
    if (!name) return nle_oom(E);
    d->name = name;
    int old;
    if (nl_hash_get(&cur->subs, name, &old))
        return nle_err(E, NULL, cd, &f[1], "duplicate subckt '%s' (first defined at %s:%d)",
                       f[1].u.s, E->d->files[E->defs[old]->hdr->file],
                       E->defs[old]->hdr->f[0].line);
    if (nl_hash_put(&cur->subs, name, E->ndef - 1)) return nle_oom(E);
    int k = 2, params = 0;
    nl_hash ports = { 0 }; /* words are lower case */
    for (; k < cd->nf && f[k].kind == NL_F_WORD && !nsc_strieq(f[k].u.s, "params:"); k++) {
        if (nl_hash_get(&ports, f[k].u.s, NULL)) /* eSim's `?` no-connect pins */
            nle_warn(E, NULL, cd, &f[k],
                     "port '%s' repeated in .subckt %s: the name is its first port, this one "
                     "connects to nothing inside (as ngspice)",
                     f[k].u.s, f[1].u.s);
        else if (nl_hash_put(&ports, f[k].u.s, k)) {
            nl_hash_free(&ports);
            return nle_oom(E);
        }
        d->nport++;
    }
    nl_hash_free(&ports);
    for (; k < cd->nf; k++) {
        if (nle_is_word(&f[k], "params:") && !params) {
            params = 1;
            continue;
        }
        if (f[k].kind != NL_F_PAIR || f[k].sub[0].kind != NL_F_WORD)
            return nle_err(E, NULL, cd, &f[k],
                           "unexpected '%s' in .subckt %s (expected name=value)", nle_ftext(&f[k]),
                           f[1].u.s);
        if (nl_hash_put(&d->pars, f[k].sub[0].u.s, k)) return nle_oom(E);
    }
    *out = d;
    return NSC_OK;
}

/* The definition an X card of definition d names, or NULL (error reported by card_x). */
static def *x_def(const elab *E, const def *d, const nl_card *cd)
{
    int npos = 0;
    for (int i = 1;
         i < cd->nf && cd->f[i].kind == NL_F_WORD && !nsc_strieq(cd->f[i].u.s, "params:"); i++)
        npos++;
    return npos < 1 ? NULL : (def *)def_find(E, d, cd->f[npos].u.s);
}

/* d->nel, d->ninst = elements and subcircuit instances that one instance of d
 * expands to, counted before expanding anything (the subckt an X card names
 * does not depend on parameter values), so that a few lines nesting instances
 * of instances are rejected at once rather than after minutes. Lower bounds:
 * recursion and chains deeper than NL_MAXNEST count 0 (card_x reports them).
 * *over = the first card of d at which either count passes NL_MAXELEMENTS. */
void nle_def_size(const elab *E, def *d, int depth, const nl_card **over)
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
            nle_def_size(E, s, depth + 1, NULL);
            nel += s->nel;
            ninst += 1 + s->ninst;
        }
        if (over && !*over && (nel > NL_MAXELEMENTS || ninst > NL_MAXELEMENTS)) *over = cd;
    }
    d->nel = fmin(nel, 1e300);
    d->ninst = fmin(ninst, 1e300);
    d->sized = 2;
}
