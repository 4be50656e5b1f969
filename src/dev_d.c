/* dev_d.c -- ideal / piecewise-linear diode D anode cathode model,
 * .model name D(VF=0 RON=0 ROFF=inf):
 *   lambda = i_D (anode -> cathode): B[a][j] = -1, B[k][j] = +1;
 *   y = v_k - v_a + VF + RON lambda: C[j][k] = 1, C[j][a] = -1, D[j][j] = RON, e0[j] = VF;
 *   0 <= y _|_ lambda >= 0; a finite ROFF is a parallel resistor.
 * Other (SPICE) parameters are ignored for now with one warning per model. */
#include <math.h>
#include <string.h>

#include "device.h"

typedef struct diode_par {
    double vf, ron, roff; /* roff = INFINITY when not given */
} diode_par;

static nsc_status d_params(const nsc_element *e, nsc_report *r, diode_par *p)
{
    const nsc_model *m = e->model;
    if (!m || m->type != NSC_MOD_D)
        return nsc_err(r, NSC_ENETLIST, &e->loc, "diode %s has no diode model", e->name);
    p->vf = 0;
    p->ron = 0;
    p->roff = INFINITY;
    nsc_model_get(m, "vf", &p->vf);
    nsc_model_get(m, "ron", &p->ron);
    nsc_model_get(m, "roff", &p->roff);
    if (!(p->ron >= 0))
        return nsc_err(r, NSC_ENETLIST, &m->loc, "diode model '%s': RON = %g must be >= 0", m->name, p->ron);
    if (!(p->roff > 0))
        return nsc_err(r, NSC_ENETLIST, &m->loc, "diode model '%s': ROFF = %g must be > 0", m->name, p->roff);
    return NSC_OK;
}

static nsc_status d_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    diode_par p;
    nsc_status st = d_params(e, ctx->r, &p);
    if (st) return st;
    const nsc_model *m = e->model;
    for (int q = 0; q < m->npar; q++)
        if (!nsc_strieq(m->pname[q], "vf") && !nsc_strieq(m->pname[q], "ron") && !nsc_strieq(m->pname[q], "roff")) {
            nsc_warn(ctx->r, &m->loc, "diode model '%s': parameters other than VF RON ROFF are ignored "
                     "(ideal diode VF=%g RON=%g)", m->name, p.vf, p.ron);
            break;
        }
    need->npair = 1;
    nsc_dev_link(ctx, e->node[0], e->node[1], isfinite(p.roff) ? NSC_LINK_NS : NSC_LINK_DC);
    return NSC_OK;
}

static nsc_status d_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    diode_par p;
    nsc_status st = d_params(e, b->r, &p);
    if (st) return st;
    int a = e->node[0], k = e->node[1], j = s->pair;
    nsc_st_pair(b, a, k, j);                                 /* lambda leaves a, enters k */
    nsc_st(b, NSC_ST_D, j, j, p.ron);                        /* y += RON lambda */
    nsc_st_e0(b, j, p.vf);                                   /* y += VF */
    if (isfinite(p.roff)) nsc_st_g(b, a, k, 1.0 / p.roff);
    return NSC_OK;
}

/* I(D) = lambda + (v_a - v_k)/ROFF. */
static int d_current(const nsc_lcs *L, const nsc_circuit *c, int ei, nsc_lin *f)
{
    const nsc_element *e = &c->el[ei];
    diode_par p;
    nsc_report dummy;
    nsc_report_init(&dummy);
    nsc_status st = d_params(e, &dummy, &p);
    nsc_report_free(&dummy);
    if (nsc_lin_add(f, NSC_T_L, L->el_pair[ei], 1.0)) return -1;
    if (st == NSC_OK && isfinite(p.roff)) {
        if (nsc_lin_add(f, NSC_T_Z, nsc_zn(e->node[0]), 1.0 / p.roff)) return -1;
        if (nsc_lin_add(f, NSC_T_Z, nsc_zn(e->node[1]), -1.0 / p.roff)) return -1;
    }
    return 0;
}

const nsc_device nsc_dev_d = {NSC_EL_D, "diodes", 0, d_count, d_stamp, d_current};
