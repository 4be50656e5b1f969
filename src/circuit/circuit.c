/* circuit.c -- ownership and lookups of the flat circuit (see circuit.h). */
#include "circuit.h"

#include <stdlib.h>

/* Frees what a job owns (nsc_circuit_free's second half). */
static void job_free(nsc_job *j)
{
    for (int k = 0; k < j->nctlout; k++) {
        free(j->ctlout[k].path);
        for (int q = 0; q < j->ctlout[k].nvec; q++) free(j->ctlout[k].vec[q]);
        free(j->ctlout[k].vec);
    }
    free(j->ctlout);
    for (int k = 0; k < j->nacout; k++) {
        free(j->acout[k].name);
        free(j->acout[k].p.name);
        free(j->acout[k].den.name);
    }
    free(j->acout);
    for (int k = 0; k < j->nacmeas; k++) {
        nsc_acmeas *m = &j->acmeas[k];
        char *own[] = { m->name,        m->sig.name,     m->sig.p.name,   m->when.name,
                        m->when.p.name, m->sig.den.name, m->when.den.name };
        for (size_t q = 0; q < sizeof own / sizeof own[0]; q++) free(own[q]);
    }
    free(j->acmeas);
    for (int k = 0; k < 2; k++) free(j->dc[k].param);
    for (int k = 0; k < j->ndcout; k++) free(j->dcout[k].name);
    free(j->dcout);
    for (int k = 0; k < j->nfour; k++) {
        for (int q = 0; q < j->four[k].nsig; q++) free(j->four[k].sig[q]);
        free(j->four[k].sig);
    }
    free(j->four);
    for (int k = 0; k < j->nxcol; k++) {
        free(j->xcol[k].name);
        free(j->xcol[k].sig.code);
        free(j->xcol[k].sig.text);
    }
    free(j->xcol);
    for (int k = 0; k < j->nsave; k++) free(j->save[k].name);
    free(j->save);
    for (int k = 0; j->meas && k < j->nmeas; k++) {
        nsc_meas *m = &j->meas[k];
        nsc_msig *sg[3] = { &m->sig, &m->trig.sig, &m->targ.sig };
        free(m->name);
        for (int q = 0; q < 3; q++) {
            free(sg[q]->code);
            free(sg[q]->text);
        }
    }
    free(j->meas);
    for (int k = 0; k < j->nmeas_probe; k++) free(j->meas_probe[k].name);
    free(j->meas_probe);
    for (int k = 0; k < j->nmeas_skipped; k++) free(j->meas_skipped[k]);
    free(j->meas_skipped);
    for (int k = 0; j->step && k < j->nstep; k++) {
        free(j->step[k].param);
        free(j->step[k].val);
    }
    free(j->step);
    for (int k = 0; k < j->nparam; k++) free(j->param[k]);
    free(j->param);
    free(j->param_val);
}

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
    free(c->ic_node);
    free(c->ic_val);
    free(c->ic_loc);
    job_free(&c->job);
    free(c);
}

int nsc_model_get(const nsc_model *m, const char *name, double *v)
{
    for (int k = m->npar - 1; k >= 0; k--) /* the last setting wins */
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
