/* circuit.c -- ownership and lookups of the flat circuit (see circuit.h). */
#include "circuit.h"

#include <stdlib.h>

void nsc_circuit_free(nsc_circuit *c)
{
    if (!c) return;
    free(c->title);
    for (int k = 0; k < c->nfiles; k++) free(c->files[k]);
    free(c->files);
    for (int k = 0; k < c->nnode; k++) free(c->node_name[k]);
    free(c->node_name);
    free(c->node_loc);
    for (int k = 0; k < c->nel; k++) {
        free(c->el[k].name);
        free(c->el[k].wave.p);
        if (c->el[k].priv_free) c->el[k].priv_free(c->el[k].priv);
        else free(c->el[k].priv);
    }
    free(c->el);
    for (int k = 0; k < c->nmodel; k++) {
        nsc_model *m = &c->model[k];
        free(m->name);
        for (int j = 0; j < m->npar; j++) free(m->pname[j]);
        free(m->pname);
        free(m->pval);
    }
    free(c->model);
    for (int k = 0; k < c->job.nctlout; k++) {
        free(c->job.ctlout[k].path);
        for (int j = 0; j < c->job.ctlout[k].nvec; j++) free(c->job.ctlout[k].vec[j]);
        free(c->job.ctlout[k].vec);
    }
    free(c->job.ctlout);
    for (int k = 0; k < c->job.nacout; k++) { free(c->job.acout[k].name); free(c->job.acout[k].p.name); free(c->job.acout[k].den.name); }
    free(c->job.acout);
    for (int k = 0; k < c->job.nacmeas; k++) {
        nsc_acmeas *m = &c->job.acmeas[k];
        free(m->name); free(m->sig.name); free(m->sig.p.name); free(m->when.name); free(m->when.p.name);
        free(m->sig.den.name); free(m->when.den.name);
    }
    free(c->job.acmeas);
    for (int k = 0; k < 2; k++) free(c->job.dc[k].param);
    for (int k = 0; k < c->job.ndcout; k++) free(c->job.dcout[k].name);
    free(c->job.dcout);
    for (int k = 0; k < c->job.nfour; k++) {
        for (int j = 0; j < c->job.four[k].nsig; j++) free(c->job.four[k].sig[j]);
        free(c->job.four[k].sig);
    }
    free(c->job.four);
    for (int k = 0; k < c->job.nxcol; k++) {
        free(c->job.xcol[k].name);
        free(c->job.xcol[k].sig.code);
        free(c->job.xcol[k].sig.text);
    }
    free(c->job.xcol);
    free(c->ic_node);
    free(c->ic_val);
    free(c->ic_loc);
    for (int k = 0; k < c->job.nsave; k++) free(c->job.save[k].name);
    free(c->job.save);
    for (int k = 0; c->job.meas && k < c->job.nmeas; k++) {
        nsc_meas *m = &c->job.meas[k];
        nsc_msig *sg[3] = { &m->sig, &m->trig.sig, &m->targ.sig };
        free(m->name);
        for (int j = 0; j < 3; j++) { free(sg[j]->code); free(sg[j]->text); }
    }
    free(c->job.meas);
    for (int k = 0; k < c->job.nmeas_probe; k++) free(c->job.meas_probe[k].name);
    free(c->job.meas_probe);
    for (int k = 0; c->job.step && k < c->job.nstep; k++) { free(c->job.step[k].param); free(c->job.step[k].val); }
    free(c->job.step);
    for (int k = 0; k < c->job.nparam; k++) free(c->job.param[k]);
    free(c->job.param);
    free(c->job.param_val);
    free(c);
}

int nsc_model_get(const nsc_model *m, const char *name, double *v)
{
    for (int k = m->npar - 1; k >= 0; k--)            /* the last setting wins */
        if (nsc_strieq(m->pname[k], name)) {
            if (v) *v = m->pval[k];
            return 1;
        }
    return 0;
}

/* Linear scans: meant for a few lookups (command-line --save), not for loops. */
int nsc_circuit_node(const nsc_circuit *c, const char *name)
{
    if (nsc_strieq(name, "gnd")) return 0;
    for (int k = 0; k < c->nnode; k++)
        if (nsc_strieq(c->node_name[k], name)) return k;
    return -1;
}

int nsc_circuit_element(const nsc_circuit *c, const char *name)
{
    for (int k = 0; k < c->nel; k++)
        if (nsc_strieq(c->el[k].name, name)) return k;
    return -1;
}

int nsc_circuit_meas(const nsc_circuit *c, const char *name)
{
    for (int k = 0; k < c->job.nmeas; k++)
        if (nsc_strieq(c->job.meas[k].name, name)) return k;
    return -1;
}
