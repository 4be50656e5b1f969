/* params.c -- what the devices share to read their cards (device.h): model
 * parameters through nsc_par tables, a card parser run silently by bind() and
 * again, for its message, by count(). Apart from the table (devices.c), which
 * names every device, so that no device depends on the table. */
#include "device.h"

#include <stdlib.h>

int nsc_swloss_param(const char *name)
{
    return nsc_strieq(name, "eon") || nsc_strieq(name, "eoff") || nsc_strieq(name, "vref")
           || nsc_strieq(name, "iref");
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
