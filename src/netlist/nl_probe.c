/* nl_probe.c -- the one probe resolver (nl_probe.h). */
#include "nl_probe.h"

#include <ctype.h>
#include <string.h>

#include "devices/device.h"

const char *nl_flat_name(const char *s)
{
    const char *last = strrchr(s, '.');
    if (s[0] && s[1] == '.' && last && last > s + 1 && tolower((unsigned char)last[1]) == tolower((unsigned char)s[0]))
        return s + 2;
    return s;
}

/* Element named name in c, else (flat) ngspice's flattened form of it; -1 if none. */
static int element_named(const nsc_circuit *c, const char *name, int flat)
{
    int el = nsc_circuit_element(c, name);
    return el >= 0 || !flat || nl_flat_name(name) == name ? el : nsc_circuit_element(c, nl_flat_name(name));
}

/* V(@x): node[0..1] across x's port (n+ n-, or its device's port: a MOS's d s). */
static nl_probe_fail port(const nsc_circuit *c, const char *x, nsc_probe *p)
{
    int el = element_named(c, x, 1);
    const nsc_element *e = el >= 0 ? &c->el[el] : NULL;
    const nsc_device *d = e ? nsc_device_of(e->kind) : NULL;
    if (!e || e->nnode < 2 || !d || !d->current) return NL_PROBE_NOPORT;
    nsc_tpair t = nsc_dev_port(d);
    p->node[0] = e->node[t.a];
    p->node[1] = e->node[t.b];
    return NL_PROBE_OK;
}

nl_probe_fail nl_probe_resolve(const nsc_circuit *c, nsc_probekind kind, char *in, int opts, nsc_probe *p,
                               const char **bad)
{
    const char *dummy;
    if (!bad) bad = &dummy;
    *bad = in;
    if (kind == NSC_PROBE_V && in[0] == '@' && (opts & NL_PROBE_PORT)) {
        *bad = in + 1;
        return port(c, in + 1, p);
    }
    if (kind == NSC_PROBE_V) {
        char *comma = strchr(in, ',');
        if (comma) *comma = 0;
        p->node[0] = nsc_circuit_node(c, in);
        p->node[1] = comma ? nsc_circuit_node(c, comma + 1) : 0;
        if (p->node[0] >= 0 && p->node[1] >= 0) return NL_PROBE_OK;
        *bad = p->node[0] < 0 ? in : comma + 1;
        return NL_PROBE_NODE;
    }
    p->el = element_named(c, in, opts & NL_PROBE_FLAT);
    if (p->el < 0) return NL_PROBE_ELEMENT;
    const nsc_device *d = nsc_device_of(c->el[p->el].kind);
    return d && d->current ? NL_PROBE_OK : NL_PROBE_NOCURRENT;
}
