/* sweep.c -- parameter studies: one run's settings and columns, the plan, one
 * point, the result table, shards and merge, the plot (sweep.h). */
#include "sweep.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lcs/lcs.h"
#include "meas.h"
#include "solve/onestep.h"
#include "output/out.h"
#include "output/waves.h"

static nsc_status oom(nsc_report *r)
{
    return nsc_err(r, NSC_ENOMEM, NULL, "out of memory");
}

/* ---- one run ---- */

nsc_status nsc_run_opts(const nsc_circuit *c, const nsc_run_cfg *cfg, nsc_tran_opts *o, nsc_report *r)
{
    memset(o, 0, sizeof *o);
    nsc_loc top = { c->nfiles > 0 ? c->files[0] : "", c->nfiles > 0, 1 };
    double theta = cfg->theta > 0 ? cfg->theta : c->theta > 0 ? c->theta : 0.5;
    if (!(theta >= 0.5 && theta <= 1)) return nsc_err(r, NSC_ENETLIST, &top, "theta = %g outside [0.5, 1]", theta);
    int solver = nsc_solver_parse(cfg->solver ? cfg->solver : c->solver);
    if (solver < 0 && cfg->solver) return nsc_err(r, NSC_EUSAGE, NULL, "unknown solver '%s' (auto, lemke, enum)", cfg->solver);
    if (solver < 0) return nsc_err(r, NSC_ENETLIST, &top, "unknown solver '%s' in .options (auto, lemke, enum)", c->solver);
    o->theta = theta;
    o->solver = (nsc_solver)solver;
    o->gmin = c->gmin > 0 ? c->gmin : 1e-12;
    o->uic = c->uic;
    int steady = nsc_run_steady(c, cfg);
    if (!c->has_tran && !(cfg->tstop > 0) && !steady) return NSC_OK;
    o->tstop = cfg->tstop > 0 ? cfg->tstop : c->has_tran ? c->tstop : 1;   /* (the steady state sets its own) */
    o->tstep = c->has_tran ? c->tstep : 0;
    o->tstart = c->has_tran ? c->tstart : 0;
    o->adaptive = steady || (!(cfg->step > 0) && !c->stepping_fixed);
    /* the steady state is always adaptive: --step is its largest step, and a
     * stepping=fixed netlist's TMAX is its fixed step, not a ceiling */
    double tmax = cfg->step > 0 ? cfg->step : steady && c->stepping_fixed ? 0 : c->tmax;
    o->reltol = c->reltol > 0 ? c->reltol : 1e-3;        /* SPICE's defaults */
    o->abstol = c->abstol > 0 ? c->abstol : 1e-12;
    o->vntol = c->vntol > 0 ? c->vntol : 1e-6;
    o->trtol = c->trtol > 0 ? c->trtol : 7;
    if (o->adaptive && !(tmax > 0)) {                      /* ngspice: tmax = min(tstep, span / 50) */
        double span = o->tstop - o->tstart;                /* (span / 50 with nostepsizelimit, as ngspice's set) */
        o->h = o->tstep > 0 && o->tstep < span / 50 && !c->nostepsizelimit ? o->tstep : span / 50;
    } else
        o->h = tmax > 0 ? tmax : o->tstep;
    if (o->h <= 0) o->h = o->tstop / 1000;
    if (o->tstep <= 0) o->tstep = o->h;
    if (o->tstart >= o->tstop)
        return nsc_err(r, NSC_ENETLIST, &c->tran_loc, "tstart %g is not before tstop %g", o->tstart, o->tstop);
    if (o->tstop / o->h > 2e9) return nsc_err(r, NSC_ENETLIST, &c->tran_loc, "too many steps: tstop/h = %g", o->tstop / o->h);
    if (steady) {           /* the steady state's ceiling: T/50 (stepper_pss.c), or an explicit TMAX or --step
                               below it; TSTEP sets its rows only, span/50 has no meaning for it */
        o->h = tmax > 0 ? tmax : 0;
        if (!c->has_tran) o->tstep = 0;                    /* rows: T/200 */
    }
    return NSC_OK;
}

int nsc_run_steady(const nsc_circuit *c, const nsc_run_cfg *cfg)
{
    return cfg->steady || cfg->period > 0 || c->has_pss;
}

nsc_pss_opts nsc_run_pss_opts(const nsc_circuit *c, const nsc_run_cfg *cfg)
{
    nsc_pss_opts po = { cfg->period > 0 ? cfg->period : c->pss_period, c->pss_periods > 0 ? c->pss_periods : 1,
                        c->pss_warmup > 0 ? c->pss_warmup : 3, c->pss_maxit > 0 ? c->pss_maxit : 50,
                        c->pss_tol > 0 ? c->pss_tol : 1e-9, NULL, NULL };
    return po;
}

nsc_status nsc_run_probes(const nsc_circuit *c, const char *save, nsc_probe **probes, int *n, int *nout,
                          nsc_report *r)
{
    nsc_probe *p = NULL;
    int np = 0;
    nsc_status s;
    *probes = NULL;
    *n = *nout = 0;
    if (save) s = nsc_probes_parse(c, save, &p, &np, r);
    else if (c->nsave > 0) {
        s = NSC_OK;
        if (!(p = nsc_calloc((size_t)c->nsave, sizeof *p))) return oom(r);
        for (; np < c->nsave; np++) {
            p[np] = c->save[np];
            if (!(p[np].name = nsc_strdup(c->save[np].name))) { s = oom(r); break; }
        }
    } else
        s = nsc_probes_default(c, &p, &np, r);
    int no = np;
    if (!s) {                                          /* then the .meas probes that are not outputs */
        nsc_probe *q = nsc_realloc_array(p, (size_t)(np + c->nmeas_probe) + 1, sizeof *q);
        if (!q) s = oom(r);
        else p = q;
        for (int k = 0; !s && k < c->nmeas_probe; k++) {
            int dup = 0;
            for (int j = 0; j < np; j++) dup |= nsc_strieq(p[j].name, c->meas_probe[k].name);
            if (dup) continue;
            p[np] = c->meas_probe[k];
            if (!(p[np].name = nsc_strdup(c->meas_probe[k].name))) s = oom(r);
            else np++;
        }
    }
    if (s) {
        nsc_probes_free(p, np);
        return s;
    }
    *probes = p;
    *n = np;
    *nout = no;
    return NSC_OK;
}

int nsc_exit_status(nsc_status s)
{
    switch (s) {
    case NSC_OK: return 0;
    case NSC_ENETLIST: case NSC_EIO: return 1;
    case NSC_EUSAGE: return 2;
    case NSC_EOUT: return 4;
    default: return 3;
    }
}

/* ---- the plan ---- */

void nsc_plan_init(nsc_plan *p)
{
    memset(p, 0, sizeof *p);
    p->npoint = 1;
}

void nsc_plan_free(nsc_plan *p)
{
    for (int k = 0; k < p->naxis; k++) {
        free(p->axis[k].name);
        free(p->axis[k].val);
    }
    free(p->axis);
    nsc_plan_init(p);
}

nsc_status nsc_plan_set(nsc_plan *p, const char *name, const double *val, int n, int logscale, nsc_report *r)
{
    if (n < 1) return nsc_err(r, NSC_EUSAGE, NULL, "no values for parameter %s", name);
    int a = 0;
    while (a < p->naxis && !nsc_strieq(p->axis[a].name, name)) a++;
    double np = (double)n;                             /* points with the new axis */
    for (int k = 0; k < p->naxis; k++)
        if (k != a) np *= p->axis[k].n;
    if (np > (double)NSC_SWEEP_MAXPOINTS)
        return nsc_err(r, NSC_EUSAGE, NULL, "%.3g points in the study (at most %ld)", np, NSC_SWEEP_MAXPOINTS);
    double *v = nsc_calloc((size_t)n, sizeof *v);
    if (!v) return oom(r);
    memcpy(v, val, (size_t)n * sizeof *v);
    if (a == p->naxis) {
        nsc_axis *ax = nsc_realloc_array(p->axis, (size_t)p->naxis + 1, sizeof *ax);
        char *nm = nsc_strdup(name);
        if (!ax || !nm) { if (ax) p->axis = ax; free(nm); free(v); return oom(r); }
        p->axis = ax;
        memset(&ax[a], 0, sizeof *ax);
        ax[a].name = nsc_strlower(nm);
        p->naxis++;
    }
    free(p->axis[a].val);
    p->axis[a].val = v;
    p->axis[a].n = n;
    p->axis[a].logscale = logscale;
    p->npoint = (long)np;
    return NSC_OK;
}

int nsc_circuit_has_param(const nsc_circuit *c, const char *name)
{
    for (int k = 0; k < c->nparam; k++)
        if (nsc_strieq(c->param[k], name)) return 1;
    return 0;
}

/* geometric: n >= 3 values of one sign whose ratios agree and whose differences do not */
static int geometric(const double *v, int n)
{
    if (n < 3) return 0;
    for (int k = 0; k < n; k++)
        if (!(v[k] * v[0] > 0)) return 0;
    double q = v[1] / v[0], d = v[1] - v[0];
    int ratios = 1, diffs = 1;
    for (int k = 2; k < n; k++) {
        ratios &= fabs(v[k] / v[k - 1] - q) <= 1e-6 * fabs(q);
        diffs &= fabs((v[k] - v[k - 1]) - d) <= 1e-6 * fabs(d);
    }
    return ratios && !diffs;
}

nsc_status nsc_plan_steps(nsc_plan *p, const nsc_circuit *c, nsc_report *r)
{
    for (int k = 0; k < c->nstep; k++) {
        const nsc_step *st = &c->step[k];
        if (!nsc_circuit_has_param(c, st->param))
            return nsc_err(r, NSC_ENETLIST, &st->loc, ".step param %s: no .param named %s (add .param %s=...)",
                           st->param, st->param, st->param);
        nsc_status s = nsc_plan_set(p, st->param, st->val, st->nval, geometric(st->val, st->nval), r);
        if (s) return s;
    }
    return NSC_OK;
}

/* a number with SPICE suffix, the whole of s[0..n) */
static int number_n(const char *s, size_t n, double *v)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf) return 0;
    memcpy(buf, s, n);
    buf[n] = 0;
    return nsc_parse_number(buf, v) && isfinite(*v);
}

nsc_status nsc_param_spec(const char *text, int logscale, char **name, double **val, int *n, nsc_report *r)
{
    *name = NULL;
    *val = NULL;
    *n = 0;
    const char *eq = strchr(text, '=');
    if (!eq || eq == text) goto bad;
    for (const char *q = text; q < eq; q++)
        if (!isalnum((unsigned char)*q) && *q != '_' && *q != '.') goto bad;
    const char *spec = eq + 1, *c1 = strchr(spec, ':');
    double *v = NULL;
    int nv = 0;
    if (c1) {                                          /* START:STOP:N */
        const char *c2 = strchr(c1 + 1, ':');
        double a, b, cnt;
        if (!c2 || !number_n(spec, (size_t)(c1 - spec), &a) || !number_n(c1 + 1, (size_t)(c2 - c1 - 1), &b) ||
            !number_n(c2 + 1, strlen(c2 + 1), &cnt) || !(cnt >= 1 && cnt <= 1e7 && cnt == floor(cnt)))
            goto bad;
        if (logscale && !(a * b > 0))
            return nsc_err(r, NSC_EUSAGE, NULL, "--log needs START and STOP of one sign, not 0: '%s'", text);
        nv = (int)cnt;
        if (!(v = nsc_calloc((size_t)nv, sizeof *v))) return oom(r);
        for (int k = 0; k < nv; k++) {
            double f = nv > 1 ? (double)k / (nv - 1) : 0;
            v[k] = logscale ? a * pow(b / a, f) : a + (b - a) * f;   /* never accumulated */
        }
        if (nv > 1) v[nv - 1] = b;
    } else {                                           /* V1,V2,... */
        for (const char *q = spec;; q++) {
            const char *e = strchr(q, ',');
            size_t len = e ? (size_t)(e - q) : strlen(q);
            double x;
            if (!number_n(q, len, &x)) { free(v); goto bad; }
            double *nvv = nsc_realloc_array(v, (size_t)nv + 1, sizeof *v);
            if (!nvv) { free(v); return oom(r); }
            v = nvv;
            v[nv++] = x;
            if (!e) break;
            q = e;
        }
    }
    if (!(*name = nsc_strndup(text, (size_t)(eq - text)))) { free(v); return oom(r); }
    nsc_strlower(*name);
    *val = v;
    *n = nv;
    return NSC_OK;
bad:
    return nsc_err(r, NSC_EUSAGE, NULL, "--param needs NAME=START:STOP:N, NAME=V1,V2,... or NAME=VALUE, not '%s'", text);
}

void nsc_plan_point(const nsc_plan *p, long i, double *v)
{
    for (int k = 0; k < p->naxis; k++) {
        v[k] = p->axis[k].val[i % p->axis[k].n];     /* i = i_k + n_k (rest) */
        i /= p->axis[k].n;
    }
}

int nsc_shard_parse(const char *text, int *k, int *n)
{
    char *e;
    errno = 0;
    long a = strtol(text, &e, 10);
    if (e == text || *e != '/' || errno) return 0;
    const char *s = e + 1;
    long b = strtol(s, &e, 10);
    if (e == s || *e || errno || !(a >= 1 && a <= b && b <= 1000000)) return 0;
    *k = (int)a;
    *n = (int)b;
    return 1;
}

int nsc_shard_has(long i, int k, int n)
{
    return i % n == k - 1;
}

/* ---- one point ---- */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* seconds to assemble the LCS of c and build its first one-step problems (the
 * static one at t = 0 and the regular step's), what nsc_run_tran does before
 * its first step; errors are left to the run itself */
static double setup_time(const nsc_circuit *c, const nsc_tran_opts *o)
{
    nsc_report q;
    nsc_report_init(&q);
    double t0 = now();
    nsc_lcs *L = NULL, *L0 = NULL;
    nsc_onestep *P = NULL, *P0 = NULL;
    if (!nsc_lcs_assemble(c, NSC_ASM_TRAN, o->gmin, &L, &q) &&
        !nsc_lcs_assemble(c, o->uic ? NSC_ASM_UIC : NSC_ASM_OP, o->gmin, &L0, &q) &&
        !nsc_onestep_new(L0, 0.0, 1.0, &P0, &q))
        nsc_onestep_new(L, o->h, o->theta, &P, &q);
    double t = now() - t0;
    if (P) nsc_onestep_free(P);
    if (P0) nsc_onestep_free(P0);
    nsc_lcs_free(L);
    nsc_lcs_free(L0);
    nsc_report_free(&q);
    return t;
}

/* The steady state of a point (c mutable: its .meas windows become the steady
 * period), warm-started from ps->start, its efficiency and losses into ps. */
static nsc_status point_steady(nsc_circuit *c, const nsc_run_cfg *cfg, nsc_tran_opts *o, const nsc_probe *probes,
                               int np, nsc_waves **W, nsc_point_steady *ps, nsc_point_info *info, nsc_report *r)
{
    nsc_pss_opts po = nsc_run_pss_opts(c, cfg);
    nsc_losses L = { 0, 0, 0, NULL };
    nsc_pss_info pi;
    nsc_meas_steady_windows(c, r);
    if (ps) {
        po.start = ps->start;
        po.end = &ps->end;
        ps->efficiency = ps->losses = NAN;
        o->losses = &L;
    }
    nsc_status s = nsc_run_pss(c, o, &po, probes, np, W, &info->st, &pi, r);
    o->losses = NULL;
    nsc_loss_sum sum;
    if (ps && !s && *W && (*W)->end == NSC_RUN_COMPLETE && !nsc_losses_sum(&L, NULL, &sum)) {
        double dt = L.to - L.from, load = sum.load >= 0 ? L.row[sum.load].energy : NAN;
        ps->efficiency = sum.efficiency;
        ps->losses = dt > 0 ? (sum.input + sum.switching - load) / dt : NAN;
    }
    if (ps) { ps->iterations = pi.iterations; ps->warm = pi.warm; }
    nsc_losses_free(&L);
    return s;
}

nsc_status nsc_point_run(const char *netlist, const nsc_param_set *ov, int nov, const nsc_run_cfg *cfg,
                         int nmeas, double *meas, const char *wavepath, int profile,
                         volatile sig_atomic_t *stop, nsc_point_steady *ps, nsc_point_info *info, nsc_report *r)
{
    memset(info, 0, sizeof *info);
    for (int k = 0; k < nmeas; k++) meas[k] = NAN;
    nsc_circuit *c = NULL;
    nsc_probe *probes = NULL;
    nsc_waves *W = NULL;
    nsc_meas_result *res = NULL;
    int np = 0, nout = 0, nu = 0;
    nsc_param_set *u = nsc_calloc((size_t)nov + 1, sizeof *u);   /* ov, the last of each name */
    if (!u) return oom(r);
    for (int k = 0; k < nov; k++) {
        int later = 0;
        for (int j = k + 1; j < nov; j++) later |= nsc_strieq(ov[j].name, ov[k].name);
        if (!later) u[nu++] = ov[k];
    }
    double t0 = now();
    nsc_status s = nsc_netlist_read_in(netlist, cfg->inc, u, nu, &c, r);
    info->t_parse = now() - t0;
    free(u);
    if (s) return s;
    nsc_loc top = { c->nfiles > 0 ? c->files[0] : "", c->nfiles > 0, 1 };
    nsc_tran_opts o;
    if (c->nmeas != nmeas) {
        s = nsc_err(r, NSC_ENETLIST, &top, "%d .meas cards at this point, %d in the study", c->nmeas, nmeas);
        goto done;
    }
    if ((s = nsc_run_opts(c, cfg, &o, r))) goto done;
    if (o.tstop <= 0) { s = nsc_err(r, NSC_ENETLIST, &top, "no transient analysis: add a .tran card or give --tstop"); goto done; }
    o.stop = stop;
    if (!wavepath && c->nmeas_probe > 0) {            /* no waveform file: record what .meas reads only */
        if (!(probes = nsc_calloc((size_t)c->nmeas_probe, sizeof *probes))) { s = oom(r); goto done; }
        for (; np < c->nmeas_probe; np++) {
            probes[np] = c->meas_probe[np];
            if (!(probes[np].name = nsc_strdup(c->meas_probe[np].name))) { s = oom(r); goto done; }
        }
    } else if ((s = nsc_run_probes(c, cfg->save, &probes, &np, &nout, r)))
        goto done;
    if (profile) info->t_setup = setup_time(c, &o);
    t0 = now();
    s = nsc_run_steady(c, cfg) ? point_steady(c, cfg, &o, probes, np, &W, ps, info, r)
                               : nsc_run_tran(c, &o, probes, np, &W, &info->st, r);
    info->t_run = now() - t0;
    t0 = now();
    if (W && W->end == NSC_RUN_COMPLETE && nmeas > 0) {
        nsc_status ms = (res = nsc_calloc((size_t)nmeas, sizeof *res)) ? nsc_meas_eval(c, W, res, r) : oom(r);
        for (int k = 0; !ms && k < nmeas; k++) {
            if (res[k].ok) meas[k] = res[k].value + 0.0;
            else nsc_warn(r, &c->meas[k].loc, ".meas %s failed: %s", c->meas[k].name, res[k].why ? res[k].why : "");
        }
        if (ms && !s) s = ms;
    }
    if (wavepath && W && W->nrow > 0) {
        nsc_waves_keep(W, nout + 1);                   /* the outputs only */
        nsc_status ws = nsc_write_dat(W, wavepath, 1, r);   /* points run side by side: one thread each */
        if (ws && !s) s = ws;
    }
    info->t_meas = now() - t0;
done:
    if (res) nsc_meas_results_free(res, nmeas);
    free(res);
    nsc_waves_free(W);
    nsc_probes_free(probes, np);
    nsc_circuit_free(c);
    return s;
}

/* ---- the table ---- */

static int ncols(const nsc_sweep_table *T)
{
    return T->npar + T->nmeas;
}

nsc_status nsc_sweep_table_init(nsc_sweep_table *T, char *const *par, int npar, char *const *meas, int nmeas,
                                const char *netlist, long npoint, int shard_k, int shard_n, nsc_report *r)
{
    memset(T, 0, sizeof *T);
    const char *b = strrchr(netlist, '/');
    T->npar = npar;
    T->nmeas = nmeas;
    T->npoint = npoint;
    T->shard_k = shard_k;
    T->shard_n = shard_n;
    if (!(T->netlist = nsc_strdup(b ? b + 1 : netlist)) || !(T->name = nsc_calloc((size_t)(npar + nmeas) + 1, sizeof *T->name))) {
        nsc_sweep_table_free(T);
        return oom(r);
    }
    for (int k = 0; k < npar + nmeas; k++)
        if (!(T->name[k] = nsc_strdup(k < npar ? par[k] : meas[k - npar]))) {
            nsc_sweep_table_free(T);
            return oom(r);
        }
    return NSC_OK;
}

nsc_status nsc_sweep_table_add(nsc_sweep_table *T, const double *v, int status, long point, nsc_report *r)
{
    int nc = ncols(T);
    if (T->nrow == T->caprow) {
        long cap = T->caprow ? 2 * T->caprow : 64;
        double *nv = nsc_realloc_array(T->v, (size_t)cap * (size_t)(nc ? nc : 1), sizeof *nv);
        if (nv) T->v = nv;
        int *ns = nsc_realloc_array(T->status, (size_t)cap, sizeof *ns);
        if (ns) T->status = ns;
        long *npt = nsc_realloc_array(T->point, (size_t)cap, sizeof *npt);
        if (npt) T->point = npt;
        if (!nv || !ns || !npt) return oom(r);
        T->caprow = cap;
    }
    if (nc) memcpy(T->v + (size_t)T->nrow * (size_t)nc, v, (size_t)nc * sizeof *v);
    T->status[T->nrow] = status;
    T->point[T->nrow] = point;
    T->nrow++;
    return NSC_OK;
}

void nsc_sweep_table_free(nsc_sweep_table *T)
{
    for (int k = 0; T->name && k < ncols(T); k++) free(T->name[k]);
    free(T->name);
    free(T->netlist);
    free(T->v);
    free(T->status);
    free(T->point);
    memset(T, 0, sizeof *T);
}

void nsc_sweep_table_sort(nsc_sweep_table *T)
{
    int nc = ncols(T);
    for (long i = 1; i < T->nrow; i++) {              /* insertion sort: rows arrive nearly ordered */
        long j = i;
        while (j > 0 && T->point[j - 1] > T->point[j]) {
            long tp = T->point[j]; T->point[j] = T->point[j - 1]; T->point[j - 1] = tp;
            int ts = T->status[j]; T->status[j] = T->status[j - 1]; T->status[j - 1] = ts;
            double *a = T->v + (size_t)j * nc, *b = a - nc;
            for (int q = 0; q < nc; q++) { double t = a[q]; a[q] = b[q]; b[q] = t; }
            j--;
        }
    }
}

static void put_value(FILE *f, double x)
{
    if (isnan(x)) fputs("nan", f);
    else fprintf(f, "%.12e", x + 0.0);                 /* + 0.0: no "-0" */
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t k = 0; k < n; k++) h = (h ^ b[k]) * 0x100000001b3ULL;
    return h;
}

char *nsc_study_id(const char *netlist, char *const *words, int nwords)
{
    FILE *f = fopen(netlist, "rb");
    if (!f) return NULL;
    uint64_t h = 0xcbf29ce484222325ULL;
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) h = fnv1a(h, buf, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) return NULL;
    for (int k = 0; k < nwords; k++) h = fnv1a(h, words[k] ? words[k] : "", strlen(words[k] ? words[k] : "") + 1);
    return nsc_asprintf("%016llx", (unsigned long long)h);
}

nsc_status nsc_sweep_write(const nsc_sweep_table *T, const char *path, int csv, nsc_report *r)
{
    nsc_afile a;
    nsc_status s = nsc_afile_open(&a, path, r);
    if (s) return s;
    FILE *f = a.f;
    int nc = ncols(T);
    const char *sep = csv ? "," : " ";
    fputs(csv ? "" : "# ", f);
    for (int k = 0; k < nc; k++) fprintf(f, "%s%s", T->name[k], sep);
    fprintf(f, "status%spoint\n", sep);
    if (!csv) {
        fprintf(f, "# nscircuit sweep: points=%ld parameters=%d measures=%d", T->npoint, T->npar, T->nmeas);
        if (T->shard_n > 1) fprintf(f, " shard=%d/%d", T->shard_k, T->shard_n);
        if (T->study[0]) fprintf(f, " study=%s", T->study);
        fprintf(f, " netlist=%s\n", T->netlist);
        if (T->partial > 0) fprintf(f, "# interrupted: %ld of the %ld points of this run finished\n", T->nrow, T->partial);
    }
    for (long i = 0; i < T->nrow; i++) {
        const double *v = T->v + (size_t)i * (size_t)nc;
        for (int k = 0; k < nc; k++) {
            put_value(f, v[k]);
            fputs(sep, f);
        }
        fprintf(f, "%d%s%ld\n", T->status[i], sep, T->point[i]);
    }
    return nsc_afile_close(&a, 1, r);
}

/* next line of f into *line (without the newline); 0 at end of file */
static int next_line(FILE *f, char **line, size_t *cap)
{
    ssize_t n = getline(line, cap, f);
    if (n < 0) return 0;
    while (n > 0 && ((*line)[n - 1] == '\n' || (*line)[n - 1] == '\r')) (*line)[--n] = 0;
    return 1;
}

nsc_status nsc_sweep_read(const char *path, nsc_sweep_table *T, nsc_report *r)
{
    memset(T, 0, sizeof *T);
    FILE *f = fopen(path, "r");
    if (!f) return nsc_err(r, NSC_EIO, NULL, "cannot read '%s': %s", path, strerror(errno));
    char *line = NULL, **names = NULL;
    size_t cap = 0;
    int nn = 0, lineno = 0;
    double *v = NULL;
    nsc_status s = NSC_OK;
    /* line 1: the column names, ending with status point */
    lineno = 1;
    if (!next_line(f, &line, &cap) || strncmp(line, "# ", 2)) goto bad;
    char *save = NULL;
    for (char *tok = strtok_r(line + 2, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        char **nm = nsc_realloc_array(names, (size_t)nn + 1, sizeof *nm);
        if (!nm) { s = oom(r); goto out; }
        names = nm;
        if (!(names[nn] = nsc_strdup(tok))) { s = oom(r); goto out; }
        nn++;
    }
    if (nn < 3 || strcmp(names[nn - 2], "status") || strcmp(names[nn - 1], "point")) goto bad;
    /* line 2: "# nscircuit sweep: points=N parameters=P measures=M [shard=K/N] netlist=NAME" */
    lineno = 2;
    if (!next_line(f, &line, &cap)) goto bad;
    long npoint;
    int npar, nmeas, k = 1, n = 1, used = 0;
    if (sscanf(line, "# nscircuit sweep: points=%ld parameters=%d measures=%d %n", &npoint, &npar, &nmeas, &used) != 3 ||
        npar < 0 || nmeas < 0 || npar + nmeas != nn - 2 || npoint < 1)
        goto bad;
    const char *rest = line + used;
    if (!strncmp(rest, "shard=", 6)) {
        int u2 = 0;
        if (sscanf(rest, "shard=%d/%d %n", &k, &n, &u2) != 2 || !(k >= 1 && k <= n)) goto bad;
        rest += u2;
    }
    char study[17] = "";
    if (!strncmp(rest, "study=", 6)) {
        int u3 = 0;
        if (sscanf(rest, "study=%16[0-9a-f] %n", study, &u3) != 1 || strlen(study) != 16 || !u3) goto bad;
        rest += u3;
    }
    if (strncmp(rest, "netlist=", 8)) goto bad;
    for (const char *q = rest + 8; *q; q++)              /* a base name, as written: it names the merge's */
        if (*q == '/' || (unsigned char)*q < 32) goto bad;   /* outputs, never a path elsewhere */
    if ((s = nsc_sweep_table_init(T, names, npar, names + npar, nmeas, rest + 8, npoint, k, n, r))) goto out;
    memcpy(T->study, study, sizeof study);
    int nc = npar + nmeas;
    if (!(v = nsc_calloc((size_t)nc + 1, sizeof *v))) { s = oom(r); goto out; }
    while (next_line(f, &line, &cap)) {
        lineno++;
        char *p = line, *e;
        while (isspace((unsigned char)*p)) p++;
        long of;
        if (sscanf(p, "# interrupted: %*d of the %ld points", &of) == 1 && of > 0) T->partial = of;
        if (!*p || *p == '#') continue;
        for (int q = 0; q < nc; q++) {
            v[q] = strtod(p, &e);
            if (e == p || (*e && !isspace((unsigned char)*e))) goto bad;
            p = e;
        }
        long st = strtol(p, &e, 10);
        if (e == p || !isspace((unsigned char)*e)) goto bad;
        p = e;
        long pt = strtol(p, &e, 10);
        if (e == p) goto bad;
        while (isspace((unsigned char)*e)) e++;
        if (*e || st < 0 || st > 255 || pt < 0 || pt >= npoint) goto bad;
        if ((s = nsc_sweep_table_add(T, v, (int)st, pt, r))) goto out;
    }
    if (ferror(f)) s = nsc_err(r, NSC_EIO, NULL, "cannot read '%s'", path);
    goto out;
bad:
    s = nsc_err(r, NSC_EUSAGE, NULL, "%s:%d: not a table of nscircuit sweep", path, lineno);
out:
    fclose(f);
    free(line);
    for (int q = 0; q < nn; q++) free(names[q]);
    free(names);
    free(v);
    if (s) nsc_sweep_table_free(T);
    return s;
}

nsc_status nsc_sweep_merge(const nsc_sweep_table *part, char *const *path, int npart, nsc_sweep_table *out,
                           nsc_report *r)
{
    memset(out, 0, sizeof *out);
    if (npart < 1) return nsc_err(r, NSC_EUSAGE, NULL, "no tables to merge");
    const nsc_sweep_table *A = &part[0];
    int nc = ncols(A);
    for (int j = 1; j < npart; j++) {
        const nsc_sweep_table *B = &part[j];
        int same = B->npar == A->npar && B->nmeas == A->nmeas && B->npoint == A->npoint;
        for (int k = 0; same && k < nc; k++) same = !strcmp(A->name[k], B->name[k]);
        if (!same)
            return nsc_err(r, NSC_EUSAGE, NULL, "'%s' is not a shard of the study of '%s' (other columns or point count)",
                           path[j], path[0]);
    }
    for (int j = 0; j < npart; j++) {
        if (part[j].partial > 0)
            return nsc_err(r, NSC_EUSAGE, NULL, "'%s' was interrupted (%ld of its %ld points finished): run that shard "
                           "again", path[j], part[j].nrow, part[j].partial);
        if (strcmp(part[j].study, A->study))
            return nsc_err(r, NSC_EUSAGE, NULL, "'%s' is a shard of another study than '%s' (study %s, not %s: another "
                           "netlist, parameters or options)", path[j], path[0], part[j].study[0] ? part[j].study : "unknown",
                           A->study[0] ? A->study : "unknown");
    }
    long np = A->npoint, rows = 0;
    for (int j = 0; j < npart; j++) rows += part[j].nrow;
    if (rows < np)                                      /* before allocating by the header's count */
        return nsc_err(r, NSC_EUSAGE, NULL, "%ld of the %ld points are in none of the tables; a shard is missing "
                       "or incomplete", np - rows, np);
    long *from = nsc_calloc((size_t)np, sizeof *from);   /* 1 + part index + npart * row, 0: missing */
    if (!from) return oom(r);
    nsc_status s = NSC_OK;
    for (int j = 0; !s && j < npart; j++)
        for (long i = 0; !s && i < part[j].nrow; i++) {
            long pt = part[j].point[i];
            if (from[pt]) {
                int j0 = (int)((from[pt] - 1) % npart);
                s = nsc_err(r, NSC_EUSAGE, NULL, "point %ld is in '%s' and in '%s'", pt, path[j0], path[j]);
            } else
                from[pt] = 1 + j + (long)npart * i;
        }
    long missing = 0, first = -1;
    for (long i = 0; !s && i < np; i++)
        if (!from[i] && !missing++) first = i;
    if (!s && missing)
        s = nsc_err(r, NSC_EUSAGE, NULL, "%ld of the %ld points are in none of the tables (the first: point %ld); "
                    "a shard is missing or incomplete", missing, np, first);
    if (!s) s = nsc_sweep_table_init(out, A->name, A->npar, A->name + A->npar, A->nmeas, A->netlist, np, 1, 1, r);
    if (!s) memcpy(out->study, A->study, sizeof out->study);
    for (long i = 0; !s && i < np; i++) {
        const nsc_sweep_table *P = &part[(from[i] - 1) % npart];
        long row = (from[i] - 1) / npart;
        s = nsc_sweep_table_add(out, P->v + (size_t)row * nc, P->status[row], i, r);
    }
    free(from);
    if (s) nsc_sweep_table_free(out);
    return s;
}

/* ---- the plot ---- */

/* How a column is drawn: its values times scale, under label (new). */
typedef struct shown {
    double scale;
    char *label;
} shown;

/* The unit of a column when the caller knows none: the steady study's columns. */
static const char *default_unit(const char *name)
{
    return !strcmp(name, "efficiency") ? "1" : !strcmp(name, "losses") ? "W" : "";
}

/* The finite extremes of data column col (0-based; T's columns, then status). */
static void col_range(const nsc_sweep_table *T, int col, double *lo, double *hi)
{
    int nc = ncols(T);
    *lo = INFINITY;
    *hi = -INFINITY;
    for (long i = 0; i < T->nrow; i++) {
        double v = col < nc ? T->v[(size_t)i * nc + col] : T->status[i];
        if (isfinite(v)) { *lo = fmin(*lo, v); *hi = fmax(*hi, v); }
    }
    if (!(*lo <= *hi)) { *lo = 0; *hi = 1; }
}

/* The rules of nsc_sweep_write_gp's units: %, an SI prefix, or 10^3k. */
static shown show_of(const char *name, const char *unit, double lo, double hi)
{
    shown s = { 1, NULL };
    double m = fmax(fabs(lo), fabs(hi));
    const char *pre = "";
    if (!strcmp(unit, "1") && (!strncmp(name, "eff", 3) || !strcmp(name, "eta"))) {
        s.scale = 100;
        s.label = nsc_asprintf("%s (%%)", name);
    } else if (!strcmp(unit, "1")) {
        s.label = nsc_strdup(name);
    } else if (*unit) {
        s.scale = nsc_unit_scale(m, &pre);
        s.label = nsc_asprintf("%s (%s%s)", name, pre, unit);
    } else if (m == 0 || (m >= 1e-3 && m < 1e5)) {
        s.label = nsc_strdup(name);
    } else {
        s.scale = nsc_unit_scale(m, &pre);
        s.label = nsc_asprintf("%s (×1e%d)", name, (int)lround(-log10(s.scale)));
    }
    return s;
}

/* How column col (0-based; ncols(T): status) is shown. */
static shown show_col(const nsc_sweep_table *T, const char *const *unit, int col, double *lo, double *hi)
{
    col_range(T, col, lo, hi);
    if (col >= ncols(T)) return show_of("status", "", *lo, *hi);
    return show_of(T->name[col], unit ? unit[col] : default_unit(T->name[col]), *lo, *hi);
}

/* Blocks: runs of rows with the same values of parameters 1.. (axis 0 varies
 * fastest); bstart[0..nb] (bstart[nb] = nrow). NULL out of memory. */
static long *blocks(const nsc_sweep_table *T, long *nb)
{
    int nc = ncols(T);
    long *bstart = nsc_calloc((size_t)T->nrow + 1, sizeof *bstart);
    if (!bstart) return NULL;
    *nb = 0;
    for (long i = 0; i < T->nrow; i++) {
        int newb = i == 0;
        for (int k = 1; !newb && k < T->npar; k++)
            newb = T->v[(size_t)i * nc + k] != T->v[(size_t)(i - 1) * nc + k];
        if (newb) bstart[(*nb)++] = i;
    }
    bstart[*nb] = T->nrow;
    return bstart;
}

/* The curve title of a block: "vin=2.5 V rload=10 Ω" (the other parameters,
 * in their units when known, else as numbers). */
static void block_title(FILE *f, const nsc_sweep_table *T, const char *const *unit, long row)
{
    char *buf = NULL, eng[64];
    size_t bl = 0;
    FILE *g = open_memstream(&buf, &bl);
    for (int k = 1; g && k < T->npar; k++) {
        double v = T->v[(size_t)row * ncols(T) + k];
        const char *u = unit ? unit[k] : "";
        fprintf(g, "%s%s=", k > 1 ? " " : "", T->name[k]);
        if (*u && strcmp(u, "1") && isfinite(v)) fputs(nsc_eng(v, u, eng, sizeof eng), g);
        else fprintf(g, "%.6g", v);
    }
    if (g) fclose(g);
    fprintf(f, "title ");
    nsc_gp_quote(f, buf ? buf : "");
    free(buf);
}

/* One panel: column col against the first parameter, one curve per block. */
static void sweep_panel(FILE *f, const nsc_sweep_table *T, const char *const *unit, int col, const long *bstart,
                        long nb, double xscale)
{
    double lo, hi;
    shown y = show_col(T, unit, col, &lo, &hi);
    fprintf(f, "set ylabel ");
    nsc_gp_quote(f, y.label ? y.label : T->name[col < ncols(T) ? col : 0]);
    fputc('\n', f);
    nsc_gp_ticks(f, 'y', lo * y.scale, hi * y.scale, 5, 1);
    fprintf(f, "plot ");
    long shown_max = nb < 24 ? nb : 24;                /* curves with a title */
    for (long b = 0; b < nb; b++) {
        fprintf(f, "%sdatafile every ::%ld::%ld using ($1*%.0e):($%d*%.0e) with linespoints pt 7 ps 0.6 lw 1.5 ",
                b ? ", \\\n     " : "", bstart[b], bstart[b + 1] - 1, xscale, col + 1, y.scale);
        if (T->npar < 2 || b >= shown_max) fprintf(f, "%s", T->npar < 2 ? "notitle" : "lc rgb 'gray' notitle");
        else block_title(f, T, unit, bstart[b]);
    }
    if (nb == 0) fprintf(f, "datafile using ($1*%.0e):($%d*%.0e) with points notitle", xscale, col + 1, y.scale);
    fputc('\n', f);
    free(y.label);
}

/* A log axis: ticks at the swept values x0[0..n0) when there are at most 12
 * (a decade may hold none of gnuplot's), else gnuplot's own. */
static void log_ticks(FILE *f, const double *x0, long n0, double scale)
{
    fprintf(f, "set logscale x\nset format x '%%g'\n");
    if (n0 < 1 || n0 > 12) return;
    fprintf(f, "set xtics (");
    for (long i = 0; i < n0; i++) fprintf(f, "%s'%.4g' %.10g", i ? ", " : "", x0[i] * scale, x0[i] * scale);
    fprintf(f, ")\n");
}

/* The script's text: preamble, the first parameter's axis, the panels. */
static void sweep_script(FILE *f, const nsc_sweep_table *T, const char *const *unit, const long *bstart, long nb,
                         const double *x0, long n0, int logx, const char *gb, const char *pb, const char *db)
{
    int panels = T->nmeas ? T->nmeas : 1;
    fprintf(f, "# gnuplot script written by nscircuit sweep: gnuplot %s (in this directory)\n"
               "# each measure against the first parameter; change the terminal line for another format\n"
               "if (!exists(\"outfile\")) outfile = ", gb);
    nsc_gp_path(f, pb);
    fprintf(f, "\nset terminal pngcairo noenhanced size 900,%d font 'sans,10'\nset output outfile\ndatafile = ",
            80 + 260 * panels);
    nsc_gp_path(f, db);
    fprintf(f, "\nset grid\nset key outside right top Left reverse\nset lmargin at screen 0.11\n"
               "set rmargin at screen 0.78\nset autoscale xfix\nset offsets graph 0.03, graph 0.03, 0, 0\n");
    double xlo, xhi;
    shown x = show_col(T, unit, 0, &xlo, &xhi);
    if (logx) log_ticks(f, x0, n0, x.scale);
    else nsc_gp_ticks(f, 'x', xlo * x.scale, xhi * x.scale, 8, 0);
    fprintf(f, "set multiplot layout %d,1 title ", panels);
    char *title = nsc_asprintf("%s: %ld points%s", T->netlist, T->npoint, T->nrow < T->npoint ? " (part)" : "");
    nsc_gp_quote(f, title ? title : "");
    free(title);
    fputc('\n', f);
    for (int m = 0; m < panels; m++) {
        if (m == panels - 1) {
            fprintf(f, "set xlabel ");
            nsc_gp_quote(f, x.label ? x.label : T->name[0]);
            fputc('\n', f);
        }
        sweep_panel(f, T, unit, T->nmeas ? T->npar + m : ncols(T), bstart, nb, x.scale);
    }
    fprintf(f, "unset multiplot\nset output\n");
    free(x.label);
}

nsc_status nsc_sweep_write_gp(const nsc_sweep_table *T, const char *const *unit, const char *datpath,
                              const char *gppath, const char *pngpath, nsc_report *r)
{
    if (T->npar < 1) return nsc_err(r, NSC_EUSAGE, NULL, "a sweep table without parameters cannot be plotted");
    const char *names[] = { gppath, pngpath, datpath };
    nsc_status st = nsc_gp_names_check(names, 3, r);
    if (st) return st;
    long nb = 0, *bstart = blocks(T, &nb);
    double *x = nsc_calloc((size_t)T->nrow + 1, sizeof *x);
    if (!bstart || !x) { free(bstart); free(x); return oom(r); }
    long n0 = nb ? bstart[1] - bstart[0] : 0;
    for (long i = 0; i < n0; i++) x[i] = T->v[(size_t)i * ncols(T)];
    int logx = geometric(x, (int)(n0 < 1000000 ? n0 : 1000000));
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f) sweep_script(f, T, unit, bstart, nb, x, n0, logx, nsc_base_name(gppath), nsc_base_name(pngpath),
                        nsc_base_name(datpath));
    free(x);
    free(bstart);
    if (!f || fclose(f)) { free(text); return oom(r); }
    nsc_status s = nsc_write_atomic(gppath, text, len, r);
    free(text);
    return s;
}
