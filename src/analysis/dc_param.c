/* dc_param.c -- the DC sweep over top-level .params (smallsig.h): a .param's
 * value reaches every expression of the netlist, so each of its values
 * elaborates the deck again, the value an override; the operating points of
 * that circuit (its element sweep, when one runs inside the .param's) are
 * nsc_run_dc's. */
#include "smallsig.h"
#include "stepper_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct dc_params {
    const nsc_deck *d;
    const nsc_param_set *ov;
    int nov;
    const nsc_circuit *c;
    double gmin;
    nsc_solver solver;
    nsc_dc_probes_fn probes;
    void *ctx;
} dc_params;

/* Sweep k of ck held at x (one value). */
static void dc_hold(nsc_circuit *ck, int k, double x)
{
    ck->job.dc[k].start = ck->job.dc[k].stop = x;
    ck->job.dc[k].step = 1;
}

/* W += the rows of Wk (the same columns); Wk's end when it did not complete. */
static nsc_status dc_append(nsc_waves *W, const nsc_waves *Wk, nsc_report *r)
{
    if (Wk->ncol != W->ncol)
        return nsc_err(r, NSC_ESIM, NULL, ".dc: a point's outputs differ from the first's");
    for (long i = 0; i < Wk->nrow; i++)
        if (nsc_waves_add(W, Wk->v + (size_t)i * Wk->ncol)) return nsc_waves_add_error(W, r);
    if (Wk->end != NSC_RUN_COMPLETE && !W->end_msg) {
        W->end = Wk->end;
        if (Wk->end_msg && !(W->end_msg = nsc_strdup(Wk->end_msg))) return nsc_oom(r);
    }
    return NSC_OK;
}

/* One elaboration: the .params of c's sweeps at x[k] (sweep 0 too unless
 * whole0: then its element sweep runs whole), an element's outer sweep held at
 * x[1] unless whole0; its rows appended to *W (the first table is *W). */
static nsc_status dc_param_point(const dc_params *P, const double *x, int whole0, nsc_waves **W,
                                 nsc_report *r)
{
    const nsc_circuit *c = P->c;
    nsc_param_set *ov = nsc_calloc((size_t)P->nov + 2, sizeof *ov);
    if (!ov) return nsc_oom(r);
    int n = P->nov, k1 = -1;
    if (P->nov) memcpy(ov, P->ov, sizeof *ov * (size_t)P->nov);
    for (int k = whole0 ? 1 : 0; k < c->job.ndc;
         k++) { /* the sweep's value wins over a --param of it */
        if (c->job.dc[k].el >= 0) continue;
        int j = 0;
        while (j < n && !nsc_strieq(ov[j].name, c->job.dc[k].param)) j++;
        if (j == n) n++;
        ov[j] = (nsc_param_set){ c->job.dc[k].param, x[k] };
        if (k1 < 0) k1 = k;
    }
    nsc_circuit *ck = NULL;
    nsc_probe *p = NULL;
    int np = 0;
    nsc_waves *Wk = NULL;
    nsc_status s = nsc_deck_elab(P->d, ov, n, &ck, r);
    for (int k = whole0 ? 1 : 0; !s && k < ck->job.ndc; k++) dc_hold(ck, k, x[k]);
    if (!s) s = P->probes(ck, P->ctx, &p, &np, r);
    if (!s)
        s = nsc_run_dc(ck, P->gmin, P->solver, p, np, &Wk, r); /* (its rows also when it failed) */
    if (Wk && !*W) {
        *W = Wk;
        Wk = NULL;
    } else if (Wk) {
        nsc_status sa = dc_append(*W, Wk, r);
        s = s ? s : sa;
    }
    if (s == NSC_ENETLIST && k1 >= 0)
        nsc_warn(r, &c->job.dc[0].loc, ".dc stopped: the netlist with %s = %g", c->job.dc[k1].param,
                 x[k1]);
    nsc_waves_free(Wk);
    nsc_waves_probes_free(p, np);
    nsc_circuit_free(ck);
    free(ov);
    return s;
}

nsc_status nsc_run_dc_params(const nsc_deck *d, const nsc_param_set *ov, int nov,
                             const nsc_circuit *c, double gmin, nsc_solver solver,
                             nsc_dc_probes_fn probes, void *ctx, nsc_waves **out, nsc_report *r)
{
    *out = NULL;
    dc_params P = { d, ov, nov, c, gmin, solver, probes, ctx };
    int two = c->job.ndc > 1,
        whole0 = c->job.dc[0].el >= 0; /* an element's inner sweep runs whole */
    int n0 = whole0 ? 1 : nsc_dc_count(&c->job.dc[0]), n1 = two ? nsc_dc_count(&c->job.dc[1]) : 1;
    nsc_status s = NSC_OK;
    for (int o = 0; !s && o < n1; o++)
        for (int i = 0; !s && i < n0; i++) {
            double x[2] = { c->job.dc[0].start + i * c->job.dc[0].step,
                            two ? c->job.dc[1].start + o * c->job.dc[1].step : 0 };
            s = dc_param_point(&P, x, whole0, out, r);
        }
    if (s && *out && (*out)->end == NSC_RUN_COMPLETE) {
        (*out)->end = NSC_RUN_FAILED;
        (*out)->end_msg = nsc_end_msg(r, "no operating point");
    }
    return s;
}
