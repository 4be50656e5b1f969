/* lcs_probe.c -- linear functionals of the solution: probes V(a[,b]) and I(x)
 * (through the device's current()), their evaluation. */
#include <stdlib.h>

#include "devif.h"

nsc_status nsc_lin_add(nsc_lin *f, nsc_termkind kind, int idx, double coef)
{
    if (idx < 0) return NSC_OK; /* ground */
    nsc_term *t = nsc_realloc_array(f->t, (size_t)f->nterm + 1, sizeof *t);
    if (!t) return NSC_ENOMEM;
    f->t = t;
    f->t[f->nterm++] = (nsc_term){ kind, idx, coef };
    return NSC_OK;
}

int nsc_lcs_src_of(const nsc_lcs *L, int el)
{
    for (int j = 0; j < L->nsrc; j++)
        if (L->src[j].el == el) return j;
    return -1;
}

int nsc_lcs_sw_of(const nsc_lcs *L, int el)
{
    for (int j = 0; j < L->nsw; j++)
        if (L->sw[j].el == el) return j;
    return -1;
}

void nsc_lin_free(nsc_lin *f)
{
    if (!f) return;
    free(f->t);
    f->t = NULL;
    f->nterm = 0;
}

nsc_status nsc_lcs_probe(const nsc_lcs *L, const nsc_circuit *c, const nsc_probe *p, nsc_lin *out,
                         nsc_report *r)
{
    out->nterm = 0;
    out->t = NULL;
    int ok = 0;
    if (p->kind == NSC_PROBE_V) {
        for (int q = 0; q < 2; q++)
            if (p->node[q] < 0 || p->node[q] >= c->nnode)
                return nsc_err(r, NSC_ENETLIST, &p->loc, "%s: no such node", p->name);
        ok = nsc_lin_add(out, NSC_T_Z, nsc_zn(p->node[0]), 1.0) == 0
             && nsc_lin_add(out, NSC_T_Z, nsc_zn(p->node[1]), -1.0) == 0; /* v_a - v_b */
    } else {
        if (p->el < 0 || p->el >= c->nel)
            return nsc_err(r, NSC_ENETLIST, &p->loc, "%s: no such element", p->name);
        const nsc_element *e = &c->el[p->el];
        const nsc_device *dev = nsc_devif_of(c, e->kind);
        if (!dev || !dev->current)
            return nsc_err(r, NSC_ENETLIST, &p->loc, "%s: %s has no current (%s)", p->name, e->name,
                           dev ? dev->what : "unknown element");
        ok = dev->current(L, c, p->el, out) == NSC_OK;
    }
    if (!ok) {
        nsc_lin_free(out);
        return nsc_err(r, NSC_ENOMEM, &p->loc, "out of memory");
    }
    return NSC_OK;
}

double nsc_lin_eval(const nsc_lin *f, const double *z, const double *lambda, const double *zprev,
                    double h, const double *w)
{
    return nsc_lin_eval_sw(f, NULL, NULL, z, lambda, zprev, h, w);
}

double nsc_lin_eval_sw(const nsc_lin *f, const nsc_lcs *L, const char *sw, const double *z,
                       const double *lambda, const double *zprev, double h, const double *w)
{
    double v;
    nsc_lin_eval_all(f, 1, L, sw, z, lambda, zprev, h, w, &v);
    return v;
}

/* Each functional's terms summed in order from 0 (one loop over all: a step's
 * probes cost their terms, not a call each). */
void nsc_lin_eval_all(const nsc_lin *f, int np, const nsc_lcs *L, const char *sw, const double *z,
                      const double *lambda, const double *zprev, double h, const double *w,
                      double *out)
{
    for (int q = 0; q < np; q++) {
        double v = 0;
        for (int k = 0; k < f[q].nterm; k++) {
            const nsc_term *t = &f[q].t[k];
            switch (t->kind) {
            case NSC_T_Z: v += t->coef * z[t->idx]; break;
            case NSC_T_L: v += t->coef * lambda[t->idx]; break;
            case NSC_T_DZ:
                if (zprev && h > 0) v += t->coef * (z[t->idx] - zprev[t->idx]) / h;
                break; /* dz/dt */
            case NSC_T_W: v += t->coef * w[t->idx]; break;
            case NSC_T_SW:
                if (L && t->idx < L->nsw) { /* g (v_a - v_k) in the present state */
                    const nsc_switch *S = &L->sw[t->idx];
                    double g = sw && sw[t->idx] ? S->g_on : S->g_off;
                    v += t->coef * g * ((S->a >= 0 ? z[S->a] : 0.0) - (S->k >= 0 ? z[S->k] : 0.0));
                }
                break;
            }
        }
        out[q] = v;
    }
}
