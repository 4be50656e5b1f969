/* nl_probe.c -- the one probe resolver (nl_probe.h). */
#include "nl_probe.h"

#include <ctype.h>
#include <string.h>

#include "devices/device.h"

const char *nl_flat_name(const char *s)
{
    const char *last = strrchr(s, '.');
    if (s[0] && s[1] == '.' && last && last > s + 1
        && tolower((unsigned char)last[1]) == tolower((unsigned char)s[0]))
        return s + 2;
    return s;
}

static int node_of(const nsc_circuit *c, const nl_names *nm, const char *name)
{
    return nm ? nm->node(nm->ctx, name) : nsc_circuit_node(c, name);
}

/* Element named name, else (flat) ngspice's flattened form of it; -1 if none. */
static int element_named(const nsc_circuit *c, const nl_names *nm, const char *name, int flat)
{
    int el = nm ? nm->element(nm->ctx, name) : nsc_circuit_element(c, name);
    if (el >= 0 || !flat || nl_flat_name(name) == name) return el;
    return nm ? nm->element(nm->ctx, nl_flat_name(name))
              : nsc_circuit_element(c, nl_flat_name(name));
}

int nl_probe_element(const nsc_circuit *c, const nl_names *nm, const char *name)
{
    return element_named(c, nm, name, 1);
}

/* V(@x): node[0..1] across x's port (n+ n-, or its device's port: a MOS's d s). */
static nl_probe_fail port(const nsc_circuit *c, const nl_names *nm, const char *x, nsc_probe *p)
{
    int el = element_named(c, nm, x, 1);
    const nsc_element *e = el >= 0 ? &c->el[el] : NULL;
    const nsc_device *d = e ? nsc_device_of(e->kind) : NULL;
    if (!e || e->nnode < 2 || !d || !d->current) return NL_PROBE_NOPORT;
    nsc_tpair t = nsc_dev_port(d);
    p->node[0] = e->node[t.a];
    p->node[1] = e->node[t.b];
    return NL_PROBE_OK;
}

nl_probe_fail nl_probe_resolve(const nsc_circuit *c, nsc_probekind kind, char *in, int opts,
                               nsc_probe *p, const char **bad)
{
    return nl_probe_resolve_in(c, NULL, kind, in, opts, p, bad);
}

nl_probe_fail nl_probe_resolve_in(const nsc_circuit *c, const nl_names *nm, nsc_probekind kind,
                                  char *in, int opts, nsc_probe *p, const char **bad)
{
    const char *dummy;
    if (!bad) bad = &dummy;
    *bad = in;
    if (kind == NSC_PROBE_V && in[0] == '@' && (opts & NL_PROBE_PORT)) {
        *bad = in + 1;
        return port(c, nm, in + 1, p);
    }
    if (kind == NSC_PROBE_V) {
        char *comma = strchr(in, ',');
        if (comma) *comma = 0;
        p->node[0] = node_of(c, nm, in);
        p->node[1] = comma ? node_of(c, nm, comma + 1) : 0;
        if (p->node[0] >= 0 && p->node[1] >= 0) return NL_PROBE_OK;
        *bad = p->node[0] < 0 ? in : comma + 1;
        return NL_PROBE_NODE;
    }
    p->el = element_named(c, nm, in, opts & NL_PROBE_FLAT);
    if (p->el < 0) return NL_PROBE_ELEMENT;
    const nsc_device *d = nsc_device_of(c->el[p->el].kind);
    return d && d->current ? NL_PROBE_OK : NL_PROBE_NOCURRENT;
}

int nl_probe_kind(const nl_expr *e)
{
    if (e->op != NL_X_CALL) return -1;
    return !strcmp(e->name, "v") ? NSC_PROBE_V : !strcmp(e->name, "i") ? NSC_PROBE_I : -1;
}

int nl_probe_reads(const nl_expr *e, int time)
{
    if (!e) return 0;
    if (e->op == NL_X_PARAM) return time && !strcmp(e->name, "time");
    if (e->op == NL_X_CALL) {
        if (nl_probe_kind(e) >= 0 && e->nargs >= 1) return 1;
        for (const nl_expr *a = e->a; a; a = a->next)
            if (nl_probe_reads(a, time)) return 1;
        return 0;
    }
    return nl_probe_reads(e->a, time) || nl_probe_reads(e->b, time) || nl_probe_reads(e->c, time);
}

/* a name in V()/I(): an identifier or a number token */
static const char *arg_name(const nl_expr *a)
{
    if (a && (a->op == NL_X_PARAM || (a->op == NL_X_NUM && a->name))) return a->name;
    return NULL;
}

int nl_probe_args(const nl_expr *e, const char **a, const char **b)
{
    *a = e->nargs >= 1 ? arg_name(e->a) : NULL;
    *b = e->nargs == 2 ? arg_name(e->a->next) : NULL;
    return *a && (e->nargs == 1 || (e->nargs == 2 && *b && nl_probe_kind(e) == NSC_PROBE_V));
}
