/* dc.c -- the DC sweep (smallsig.h): the operating point at each value of one
 * or two swept sources or resistances, each from the previous point's mode. */
#include "smallsig.h"
#include "stepper_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int nsc_dc_count(const nsc_dcsweep *s)
{
    double q = (s->stop - s->start) / s->step; /* step has the sign of stop - start */
    return q > 0 ? (int)floor(q + 1e-9) + 1 : 1;
}

/* The swept quantity of sweep k: a source's DC value, a resistance; NULL for
 * a .param (held at its value by the elaboration: nsc_run_dc_params). */
static double *dc_target(nsc_circuit *c, int k)
{
    if (k >= c->job.ndc || c->job.dc[k].el < 0) return NULL;
    nsc_element *e = &c->el[c->job.dc[k].el];
    return e->kind == NSC_EL_R ? &e->value : &e->wave.dc;
}

/* Set sweep k's element to x (a .param's sweep: nothing to set). */
static void dc_set(nsc_circuit *c, int k, double x)
{
    double *t = dc_target(c, k);
    if (t) *t = x;
}

/* What sweep k sweeps: the element's or the .param's name. */
static const char *dc_name(const nsc_circuit *c, int k)
{
    return c->job.dc[k].el >= 0 ? c->el[c->job.dc[k].el].name : c->job.dc[k].param;
}

/* ngspice's name of the sweep variable (a .param: "sweep(name)", ngspice's
 * .dc has none) */
static char *dc_scale_name(const nsc_circuit *c)
{
    if (c->job.dc[0].el < 0) return nsc_asprintf("sweep(%s)", c->job.dc[0].param);
    nsc_elkind k = c->el[c->job.dc[0].el].kind;
    return nsc_strdup(k == NSC_EL_V ? "v-sweep" : k == NSC_EL_I ? "i-sweep" : "res-sweep");
}

/* The table: the sweep column(s) then the probes. */
static nsc_status dc_table(const nsc_circuit *c, const nsc_probe *p, int np, nsc_waves **out,
                           nsc_report *r)
{
    int outer = c->job.ndc > 1;
    char **names = nsc_calloc((size_t)np + 2, sizeof *names);
    if (!names) return nsc_oom(r);
    char *oname = outer ? nsc_asprintf("sweep(%s)", dc_name(c, 1)) : NULL;
    if (outer) names[0] = oname;
    for (int k = 0; k < np; k++) names[outer + k] = p[k].name;
    nsc_waves *W = (!outer || oname) ? nsc_waves_new(names, np + outer, c->title) : NULL;
    free(oname);
    free(names);
    char *scale = dc_scale_name(c);
    if (!W || !scale) {
        nsc_waves_free(W);
        free(scale);
        return nsc_oom(r);
    }
    free(W->name[0]);
    W->name[0] = scale;
    *out = W;
    return NSC_OK;
}

/* The state of a sweep: the operating point's workspace (its LCS rebuilt per
 * point when a resistance is swept; the switch states kept), the probes'
 * functionals. */
typedef struct dc_run {
    nsc_circuit *c;
    double gmin;
    nsc_solver solver;
    const nsc_probe *p;
    int np;
    nsc_opws op;
    nsc_lin *f;
    char *last;  /* [m] the previous point's mode, across rebuilds (NULL before one) */
    double *lpk; /* [m] each pair's peak multiplier over the points (nsc_op_fits) */
} dc_run;

static void dc_release(dc_run *D)
{
    for (int k = 0; D->f && k < D->np; k++) nsc_lin_free(&D->f[k]);
    free(D->f);
    D->f = NULL;
    nsc_opws_release(&D->op);
}

/* (Re)build the LCS of the present element values, keeping the switch states. */
static nsc_status dc_build(dc_run *D, nsc_report *r)
{
    dc_release(D);
    nsc_status s = nsc_opws_build(&D->op, D->c, D->gmin, r);
    if (s) return s;
    const nsc_lcs *L = D->op.L;
    if (!(D->f = nsc_calloc((size_t)D->np + 1, sizeof *D->f))) return nsc_oom(r);
    for (int k = 0; k < D->np; k++)
        if ((s = nsc_lcs_probe(L, D->c, &D->p[k], &D->f[k], r))) return s;
    nsc_onestep *P; /* a rebuilt LCS starts from the last mode */
    if (D->last && !(s = nsc_pcache_get(&D->op.cache, 0.0, 1.0, D->op.sw, 0, &P, NULL, r)))
        nsc_onestep_set_mode(P, D->last);
    return s;
}

/* One point: the operating point, the row (sweep values first). */
static nsc_status dc_point(dc_run *D, int first, const double *x, int nx, nsc_waves *W, double *row,
                           nsc_report *r)
{
    nsc_opws *O = &D->op;
    const nsc_lcs *L = O->L;
    O->jgmin = 1; /* a point held by gmin alone: ngspice's answer, the sweep goes on */
    nsc_status s = nsc_opws_point(O, D->c, D->solver, D->gmin, first, r);
    if (s) return s;
    if (!D->last && !(D->last = nsc_calloc((size_t)L->m + 1, 1))) return nsc_oom(r);
    if (!D->lpk && !(D->lpk = nsc_calloc((size_t)2 * L->m + 1, sizeof *D->lpk))) return nsc_oom(r);
    memcpy(D->last, O->mode, (size_t)L->m);
    double *lv = D->lpk + L->m; /* the point's (nsc_op_seen: junctions' voltages too) */
    nsc_op_seen(L, D->c, O->z, O->l, O->e, lv);
    for (int j = 0; j < L->m; j++) D->lpk[j] = first || lv[j] > D->lpk[j] ? lv[j] : D->lpk[j];
    memcpy(row, x, sizeof(double) * (size_t)nx);
    for (int k = 0; k < D->np; k++)
        row[nx + k] = nsc_lin_eval_sw(&D->f[k], L, O->sw, O->z, O->l, NULL, 0, O->w);
    return nsc_waves_add(W, row) ? nsc_waves_add_error(W, r) : NSC_OK;
}

/* Every point, inner sweep fastest; the swept values set in c. */
static nsc_status dc_points(dc_run *D, nsc_waves *W, nsc_report *r)
{
    nsc_circuit *c = D->c;
    int n0 = nsc_dc_count(&c->job.dc[0]), n1 = c->job.ndc > 1 ? nsc_dc_count(&c->job.dc[1]) : 1;
    int resist = 0;
    for (int k = 0; k < c->job.ndc; k++)
        resist |= c->job.dc[k].el >= 0 && c->el[c->job.dc[k].el].kind == NSC_EL_R;
    double *row = nsc_calloc((size_t)W->ncol + 1, sizeof *row);
    if (!row) return nsc_oom(r);
    nsc_status s = NSC_OK;
    for (int o = 0; !s && o < n1; o++)
        for (int i = 0; !s && i < n0; i++) {
            double x[2] = { c->job.dc[0].start + i * c->job.dc[0].step,
                            c->job.ndc > 1 ? c->job.dc[1].start + o * c->job.dc[1].step : 0 };
            dc_set(c, 0, x[0]);
            dc_set(c, 1, x[1]);
            if (resist || !D->op.L) s = dc_build(D, r); /* a resistance is in A: assemble again */
            if (!s) s = dc_point(D, o == 0 && i == 0, x, c->job.ndc, W, row, r);
            if (s == NSC_ESIM && c->job.ndc > 1)
                nsc_warn(r, &c->job.dc[0].loc, ".dc stopped at %s = %g, %s = %g", dc_name(c, 0),
                         x[0], dc_name(c, 1), x[1]);
            else if (s == NSC_ESIM)
                nsc_warn(r, &c->job.dc[0].loc, ".dc stopped at %s = %g", dc_name(c, 0), x[0]);
        }
    free(row);
    return s;
}

typedef struct dc_ctx {
    nsc_circuit *c;
    double gmin;
    nsc_solver solver;
    const nsc_probe *p;
    int np;
    nsc_waves **out;
} dc_ctx;

/* One pass of the sweep (nsc_fitted): its table in *out, unless it remade
 * fits that its points' peaks left (then *again, no table). */
static nsc_status dc_pass(void *ctx, nsc_report *notes, int *again, nsc_report *r)
{
    dc_ctx *x = ctx;
    nsc_circuit *c = x->c;
    nsc_waves *W = NULL;
    nsc_status s = dc_table(c, x->p, x->np, &W, r);
    dc_run D;
    memset(&D, 0, sizeof D);
    D.c = c;
    D.gmin = x->gmin;
    D.solver = x->solver;
    D.p = x->p;
    D.np = x->np;
    if (!s) s = dc_points(&D, W, r);
    *again = !s && D.op.L && D.lpk && nsc_op_fits(D.op.L, c, D.lpk, 0, notes, r);
    dc_release(&D);
    nsc_opws_free(&D.op);
    free(D.last);
    free(D.lpk);
    if (*again) {
        nsc_waves_free(W);
        W = NULL;
    }
    if (s && W) {
        W->end = NSC_RUN_FAILED;
        W->end_msg = nsc_end_msg(r, "no operating point");
    }
    *x->out = W;
    return s;
}

nsc_status nsc_run_dc(nsc_circuit *c, double gmin, nsc_solver solver, const nsc_probe *p, int np,
                      nsc_waves **out, nsc_report *r)
{
    *out = NULL;
    for (int k = 0; k < c->job.ndc; k++)
        if (c->job.dc[k].el < 0 && nsc_dc_count(&c->job.dc[k]) > 1)
            return nsc_err(r, NSC_EUSAGE, &c->job.dc[k].loc,
                           ".dc over the .param %s: nsc_run_dc_params runs it", c->job.dc[k].param);
    double keep[2] = { dc_target(c, 0) ? *dc_target(c, 0) : 0,
                       dc_target(c, 1) ? *dc_target(c, 1) : 0 };
    dc_ctx x = { c, gmin, solver, p, np, out };
    nsc_status s = nsc_fitted(dc_pass, &x, r);
    dc_set(c, 1, keep[1]);
    dc_set(c, 0, keep[0]);
    return s;
}
