/* devices.c -- the table element kind -> device (device.h). Adding a device is
 * adding dev_<x>.c and its line here (device.h: a worked example). */
#include "device.h"
#include "pwl_exp.h"

#include <stdlib.h>
#include <string.h>

extern const nsc_device nsc_dev_r, nsc_dev_c, nsc_dev_l, nsc_dev_k, nsc_dev_v, nsc_dev_i, nsc_dev_e,
    nsc_dev_etable, nsc_dev_g, nsc_dev_f, nsc_dev_h, nsc_dev_d, nsc_dev_m, nsc_dev_s, nsc_dev_bv,
    nsc_dev_bi, nsc_dev_w, nsc_dev_q, nsc_dev_cq, nsc_dev_j, nsc_dev_a, nsc_dev_aff,
    nsc_dev_lcouple;

static const nsc_device *const table[NSC_EL_NKINDS] = {
    [NSC_EL_R] = &nsc_dev_r,     [NSC_EL_C] = &nsc_dev_c,           [NSC_EL_L] = &nsc_dev_l,
    [NSC_EL_K] = &nsc_dev_k,     [NSC_EL_V] = &nsc_dev_v,           [NSC_EL_I] = &nsc_dev_i,
    [NSC_EL_E] = &nsc_dev_e,     [NSC_EL_ETABLE] = &nsc_dev_etable, [NSC_EL_G] = &nsc_dev_g,
    [NSC_EL_F] = &nsc_dev_f,     [NSC_EL_H] = &nsc_dev_h,           [NSC_EL_D] = &nsc_dev_d,
    [NSC_EL_M] = &nsc_dev_m,     [NSC_EL_S] = &nsc_dev_s,           [NSC_EL_BV] = &nsc_dev_bv,
    [NSC_EL_BI] = &nsc_dev_bi,   [NSC_EL_W] = &nsc_dev_w,           [NSC_EL_Q] = &nsc_dev_q,
    [NSC_EL_CQ] = &nsc_dev_cq,   [NSC_EL_J] = &nsc_dev_j,           [NSC_EL_A] = &nsc_dev_a,
    [NSC_EL_AFF] = &nsc_dev_aff, [NSC_EL_LCPL] = &nsc_dev_lcouple,
};

const nsc_device *nsc_device_of(nsc_elkind kind)
{
    return (unsigned)kind < NSC_EL_NKINDS ? table[kind] : NULL;
}

int nsc_model_default(nsc_modeltype t, const char *k, double *v)
{
    for (int q = 0; q < NSC_EL_NKINDS; q++)
        for (const nsc_par *p = table[q]->model_defs; p && nsc_dev_takes(table[q], t) && p->name;
             p++)
            if (!strcmp(p->name, k)) {
                *v = p->def;
                return 1;
            }
    return 0;
}

const nsc_device *nsc_device_of_letter(int c)
{
    c = c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
    for (int k = 0; c && k < NSC_EL_NKINDS; k++)
        if (table[k]->letter == c) return table[k];
    return NULL;
}

void nsc_dev_check(const nsc_lcs *L, const nsc_circuit *c, const double *lpk, nsc_report *r)
{
    for (int ei = 0; ei < c->nel; ei++) {
        const nsc_device *d = nsc_device_of(c->el[ei].kind);
        if (d && d->check && L->el_pair[ei] >= 0) d->check(L, c, ei, lpk, r);
    }
}

int nsc_dev_refit(const nsc_lcs *L, const nsc_circuit *c, const double *lpk, int complete,
                  nsc_report *r)
{
    int n = 0;
    for (int ei = 0; ei < c->nel; ei++) {
        const nsc_device *d = nsc_device_of(c->el[ei].kind);
        if (d && d->refit && L->el_pair[ei] >= 0) n += d->refit(L, c, ei, lpk, complete, r);
    }
    return n;
}

void nsc_dev_ac_tangent(const nsc_lcs *L, const nsc_circuit *c, const double *l, double *dD)
{
    for (int ei = 0; ei < c->nel; ei++) {
        const nsc_device *d = nsc_device_of(c->el[ei].kind);
        if (d && d->ac_tangent && L->el_pair[ei] >= 0) d->ac_tangent(L, c, ei, l, dD);
    }
}

int nsc_dev_refit_due(const nsc_lcs *L, const nsc_circuit *c, const double *lpk)
{
    int due = 0;
    for (int ei = 0; ei < c->nel; ei++) {
        const nsc_device *d = nsc_device_of(c->el[ei].kind);
        if (!d || !d->refit || L->el_pair[ei] < 0) continue;
        if (!d->refit_due) return -1;
        due |= d->refit_due(L, c, ei, lpk);
    }
    return due;
}

void nsc_devices_bind(nsc_circuit *c)
{
    c->dev = table;
    for (int ei = 0; ei < c->nel; ei++) {
        nsc_element *e = &c->el[ei];
        const nsc_device *d = nsc_device_of(e->kind);
        if (!d || !d->bind) continue; /* priv: what the card's parser made */
        if (e->priv_free) e->priv_free(e->priv);
        else free(e->priv);
        e->priv_free = NULL; /* bind() gives one flat block */
        e->priv = d->bind(c, ei);
    }
}

int nsc_dev_check_pairs(const nsc_lcs *L, const nsc_circuit *c, char *mark)
{
    for (int j = 0; j < L->m; j++) { /* a device without check_pairs: all its pairs */
        const nsc_device *d = nsc_device_of(c->el[L->pair_el[j]].kind);
        mark[j] = d && d->check && !d->check_pairs;
    }
    for (int ei = 0; ei < c->nel; ei++) {
        const nsc_device *d = nsc_device_of(c->el[ei].kind);
        if (d && d->check && d->check_pairs && L->el_pair[ei] >= 0) d->check_pairs(L, c, ei, mark);
    }
    int k = 0;
    for (int j = 0; j < L->m; j++) k += mark[j];
    return k;
}

void nsc_dev_seen(const nsc_lcs *L, const nsc_circuit *c, const double *l, const double *y,
                  double *lv)
{
    for (int j = 0; j < L->m; j++) {
        const nsc_device *d = nsc_device_of(c->el[L->pair_el[j]].kind);
        lv[j] = d && d->vseen && !(l[j] > 0) && y[j] > NSC_JFIT_YSEEN ? -y[j] : l[j];
    }
}
