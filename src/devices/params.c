/* params.c -- what the devices share to read their cards (device.h): model
 * parameters through nsc_par tables, a card parser run silently by bind() and
 * again, for its message, by count(). Apart from the table (devices.c), which
 * names every device, so that no device depends on the table. */
#include "device.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

enum { SWL_EON, SWL_EOFF, SWL_VREF, SWL_IREF, SWL_N };
static const nsc_par swloss_par[SWL_N] = {
    [SWL_EON] = { "eon", offsetof(nsc_swloss, eon), 0, 0 },
    [SWL_EOFF] = { "eoff", offsetof(nsc_swloss, eoff), 0, 0 },
    [SWL_VREF] = { "vref", offsetof(nsc_swloss, vref), 0, 0 },
    [SWL_IREF] = { "iref", offsetof(nsc_swloss, iref), 0, 0 },
};

int nsc_swloss_param(const char *name)
{
    return nsc_par_known(swloss_par, SWL_N, 0, name);
}

nsc_status nsc_swloss_read(const nsc_model *m, nsc_swloss *p, nsc_report *r)
{
    unsigned given = nsc_par_read(m, swloss_par, SWL_N, p);
    if (!(given & (1u << SWL_EON | 1u << SWL_EOFF)))
        return NSC_OK; /* no energies: nothing to check */
    if (!(p->eon >= 0 && isfinite(p->eon)) || !(p->eoff >= 0 && isfinite(p->eoff)))
        return nsc_err(r, NSC_ENETLIST, &m->loc,
                       "model '%s': EON = %g and EOFF = %g must be finite and >= 0 (joules)",
                       m->name, p->eon, p->eoff);
    int hv = (given >> SWL_VREF) & 1, hi = (given >> SWL_IREF) & 1;
    if ((hv && !(p->vref > 0 && isfinite(p->vref))) || (hi && !(p->iref > 0 && isfinite(p->iref))))
        return nsc_err(r, NSC_ENETLIST, &m->loc, "model '%s': VREF and IREF must be finite and > 0",
                       m->name);
    return NSC_OK;
}

unsigned nsc_par_read(const nsc_model *m, const nsc_par *t, int n, void *dst)
{
    unsigned given = 0;
    for (int k = 0; k < n; k++) {
        double *v = (double *)((char *)dst + t[k].off);
        *v = t[k].def;
        if (m && nsc_model_get(m, t[k].name, v)) given |= 1u << k;
    }
    return given;
}

int nsc_par_known(const nsc_par *t, int n, unsigned skip, const char *name)
{
    for (int k = 0; k < n; k++)
        if (!(t[k].flags & skip) && nsc_strieq(name, t[k].name)) return 1;
    return 0;
}

void *nsc_bind_parse(const nsc_element *e, size_t size, nsc_dev_parse parse)
{
    void *p = malloc(size);
    nsc_report quiet;
    nsc_report_init(&quiet);
    if (p && parse(e, &quiet, p)) {
        free(p);
        p = NULL;
    }
    nsc_report_free(&quiet);
    return p;
}

nsc_status nsc_bind_failed(const nsc_element *e, size_t size, nsc_dev_parse parse, nsc_report *r)
{
    void *p = malloc(size);
    nsc_status st = p ? parse(e, r, p) : NSC_ENOMEM;
    free(p);
    return st ? (st == NSC_ENOMEM && !r->status ? nsc_oom(r) : st) : nsc_oom(r);
}
