/* run.c -- one run of a netlist (run.h): its settings, its columns, the
 * analysis and the .meas cards, the path the program and sweep points share. */
#include "run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the netlist's first line, where errors about the whole run point */
static nsc_loc top_loc(const nsc_circuit *c)
{
    nsc_loc top = { c->nfiles > 0 ? c->files[0] : "", c->nfiles > 0, 1 };
    return top;
}


nsc_status nsc_run_opts(const nsc_circuit *c, const nsc_run_cfg *cfg, nsc_tran_opts *o,
                        nsc_report *r)
{
    memset(o, 0, sizeof *o);
    nsc_loc top = top_loc(c);
    double theta = cfg->theta > 0 ? cfg->theta : c->job.theta > 0 ? c->job.theta : 0.5;
    if (!(theta >= 0.5 && theta <= 1))
        return nsc_err(r, NSC_ENETLIST, &top, "theta = %g outside [0.5, 1]", theta);
    int solver = nsc_solver_parse(cfg->solver ? cfg->solver : c->job.solver);
    if (solver < 0 && cfg->solver)
        return nsc_err(r, NSC_EUSAGE, NULL, "unknown solver '%s' (auto, lemke, enum)", cfg->solver);
    if (solver < 0)
        return nsc_err(r, NSC_ENETLIST, &top, "unknown solver '%s' in .options (auto, lemke, enum)",
                       c->job.solver);
    o->theta = theta;
    o->solver = (nsc_solver)solver;
    o->gmin = c->job.gmin > 0 ? c->job.gmin : 1e-12;
    o->uic = c->job.uic;
    int steady = nsc_run_steady(c, cfg);
    if (!c->job.has_tran && !(cfg->tstop > 0) && !steady) return NSC_OK;
    o->tstop = cfg->tstop > 0    ? cfg->tstop
               : c->job.has_tran ? c->job.tstop
                                 : 1; /* (the steady state sets its own) */
    o->tstep = c->job.has_tran ? c->job.tstep : 0;
    o->tstart = c->job.has_tran ? c->job.tstart : 0;
    o->adaptive = steady || (!(cfg->step > 0) && !c->job.stepping_fixed);
    /* the exact flow has no theta: by default a theta asked for (--theta,
     * .options theta=) selects the theta-scheme's adaptive steps */
    int theta_asked = cfg->theta > 0 || c->job.theta_given;
    o->exact = o->adaptive && !steady
               && (c->job.stepping_exact == 2 || (c->job.stepping_exact == 1 && !theta_asked));
    /* the steady state is always adaptive: --step is its largest step, and a
     * stepping=fixed netlist's TMAX is its fixed step, not a ceiling */
    double tmax = cfg->step > 0 ? cfg->step : steady && c->job.stepping_fixed ? 0 : c->job.tmax;
    o->reltol = c->job.reltol > 0 ? c->job.reltol : 1e-3; /* SPICE's defaults */
    o->abstol = c->job.abstol > 0 ? c->job.abstol : 1e-12;
    o->vntol = c->job.vntol > 0 ? c->job.vntol : 1e-6;
    /* CHGTOL given: the charge error a step may make at a continuous kink,
     * which is then taken inside the step instead of located (stepper_adapt.c
     * kink_setup, charge_tol); not given (0): kinks are located. The local
     * error of smooth steps keeps its voltage tolerances. */
    o->chgtol = c->job.chgtol > 0 ? c->job.chgtol : 0;
    /* The ceiling of adaptive steps (netlist.md .tran): TMAX; else (default,
     * LTspice's rule) span / 50, TSTEP only the print step and the first
     * step's scale; .options stepsizelimit: ngspice's min(TSTEP, span / 50).
     * TRTOL: ngspice's 7 where a ceiling near the print step bounds the steps
     * (stepsizelimit, TMAX, the steady state's T/200); LTspice's 1 without
     * one: with 7 the local error allowed per step (7e-3 of the value) let a
     * lightly damped RLC drift 5 % of its range in phase over 7 periods
     * (tests/corpus rlc_pwl; 1.3 % with 1, 0.05 % capped at TSTEP). */
    int capped = !o->adaptive || tmax > 0 || steady || c->job.stepsizelimit;
    o->trtol = c->job.trtol > 0 ? c->job.trtol : capped ? 7 : 1;
    if (o->adaptive && !(tmax > 0)) {
        double span = o->tstop - o->tstart;
        o->h = o->tstep > 0 && o->tstep < span / 50 && c->job.stepsizelimit ? o->tstep : span / 50;
    } else o->h = tmax > 0 ? tmax : o->tstep;
    if (o->h <= 0) o->h = o->tstop / 1000;
    if (o->tstep <= 0) o->tstep = o->h;
    o->href = o->adaptive && o->tstep < o->h ? o->tstep
                                             : o->h; /* the first step's scale (stepper_adapt.c) */
    o->interp = c->job.interp;
    o->last_row = !steady;
    if (o->tstart >= o->tstop)
        return nsc_err(r, NSC_ENETLIST, &c->job.tran_loc, "tstart %g is not before tstop %g",
                       o->tstart, o->tstop);
    if (o->tstop / o->h > 2e9)
        return nsc_err(r, NSC_ENETLIST, &c->job.tran_loc, "too many steps: tstop/h = %g",
                       o->tstop / o->h);
    if (o->tstop - o->tstart < NSC_PERIOD_MIN) /* products of its steps would underflow: NaN rows */
        return nsc_err(r, NSC_ENETLIST, &c->job.tran_loc,
                       "the run's span %g s is shorter than nscircuit's steps resolve "
                       "(%g s)",
                       o->tstop - o->tstart, NSC_PERIOD_MIN);
    if (steady) { /* the steady state's ceiling: T/200 (stepper_pss.c), or an explicit TMAX or --step
                               below it; TSTEP sets its rows only, span/50 has no meaning for it */
        o->h = tmax > 0 ? tmax : 0;
        if (!c->job.has_tran) o->tstep = 0; /* rows: T/200 */
    }
    return NSC_OK;
}

int nsc_run_steady(const nsc_circuit *c, const nsc_run_cfg *cfg)
{
    return cfg->steady || cfg->period > 0 || c->job.has_pss;
}

nsc_pss_opts nsc_run_pss_opts(const nsc_circuit *c, const nsc_run_cfg *cfg)
{
    nsc_pss_opts po = { cfg->period > 0 ? cfg->period : c->job.pss_period,
                        c->job.pss_periods > 0 ? c->job.pss_periods : 1,
                        c->job.pss_warmup > 0 ? c->job.pss_warmup : 3,
                        c->job.pss_maxit > 0 ? c->job.pss_maxit : 50,
                        c->job.pss_tol > 0 ? c->job.pss_tol : 1e-9,
                        NULL,
                        NULL,
                        NULL };
    return po;
}

/* A copy of src[0..n) with its own names into *out (*nout of them: all, or
 * those copied before running out of memory, for nsc_waves_probes_free). */
static nsc_status probes_dup(const nsc_probe *src, int n, nsc_probe **out, int *nout, nsc_report *r)
{
    nsc_probe *p = nsc_calloc((size_t)n + 1, sizeof *p);
    *out = p;
    *nout = 0;
    if (!p) return nsc_oom(r);
    for (; *nout < n; (*nout)++) {
        p[*nout] = src[*nout];
        if (!(p[*nout].name = nsc_strdup(src[*nout].name))) return nsc_oom(r);
    }
    return NSC_OK;
}

nsc_status nsc_run_probes(const nsc_circuit *c, const char *save, nsc_probe **probes, int *n,
                          int *nout, nsc_report *r)
{
    nsc_probe *p = NULL;
    int np = 0;
    nsc_status s;
    *probes = NULL;
    *n = *nout = 0;
    int nxout = 0; /* derived output columns (not .control lets) */
    for (int k = 0; k < c->job.nxcol; k++) nxout += c->job.xcol[k].pos >= 0;
    if (save && !*save) s = NSC_OK; /* --save of P() columns only */
    else if (save) s = nsc_waves_probes_parse(c, save, &p, &np, r);
    else if (c->job.nsave > 0 || nxout > 0) /* .print {expr} alone: its columns only */
        s = probes_dup(c->job.save, c->job.nsave, &p, &np, r);
    else s = nsc_waves_probes_default(c, &p, &np, r);
    int no = np;
    if (!s) { /* then the .meas probes that are not outputs */
        nsc_probe *q = nsc_realloc_array(p, (size_t)(np + c->job.nmeas_probe) + 1, sizeof *q);
        if (!q) s = nsc_oom(r);
        else p = q;
        for (int k = 0; !s && k < c->job.nmeas_probe; k++) {
            int dup = 0;
            for (int j = 0; j < np; j++) dup |= nsc_strieq(p[j].name, c->job.meas_probe[k].name);
            if (dup) continue;
            p[np] = c->job.meas_probe[k];
            if (!(p[np].name = nsc_strdup(c->job.meas_probe[k].name))) s = nsc_oom(r);
            else np++;
        }
    }
    if (s) {
        nsc_waves_probes_free(p, np);
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
    case NSC_ENETLIST:
    case NSC_EIO: return 1;
    case NSC_EUSAGE: return 2;
    case NSC_EOUT: return 4;
    default: return 3;
    }
}

nsc_status nsc_run_check(const nsc_circuit *c, const nsc_run_cfg *cfg, const nsc_tran_opts *o,
                         int with_op, nsc_report *r)
{
    nsc_loc top = top_loc(c);
    if (with_op && !c->job.has_tran && !c->job.has_op && !nsc_run_steady(c, cfg) && cfg->tstop <= 0
        && !c->job.has_ac && !c->job.ndc)
        return nsc_err(r, NSC_ENETLIST, &top,
                       "no analysis: add a .tran, .op, .pss, .ac or .dc card, or give --tstop");
    if (!with_op && o->tstop <= 0
        && !(c->job.has_ac && c->job.nacmeas > 0)) /* (a study's .meas ac: sweep.c) */
        return nsc_err(r, NSC_ENETLIST, &top,
                       "no transient analysis: add a .tran card or give --tstop");
    return NSC_OK;
}

/* ---- the steps of a run ---- */

void nsc_run_init(nsc_run *R)
{
    memset(R, 0, sizeof *R);
}

void nsc_run_free(nsc_run *R)
{
    nsc_waves_free(R->W);
    nsc_waves_free(R->Wm);
    nsc_waves_free(R->op);
    nsc_ac_result_free(R->ac);
    nsc_waves_probes_free(R->acp, R->nacp);
    nsc_waves_free(R->dc);
    nsc_waves_probes_free(R->dcp, R->ndcp);
    nsc_waves_probes_free(R->probes, R->nprobe);
    if (R->mres) nsc_meas_results_free(R->mres, R->c->job.nmeas);
    free(R->mres);
    nsc_circuit_free(R->c);
    nsc_run_init(R);
}

nsc_status nsc_run_circuit(nsc_run *R, const nsc_deck *d, const nsc_param_set *ov, int nov,
                           nsc_report *r)
{
    R->deck = d;
    R->ov = ov;
    R->nov = nov;
    return nsc_deck_elab(d, ov, nov, &R->c, r);
}

/* --tstop replaces the card's TSTOP: the source fields that default to it (SIN's
 * frequency 1/TSTOP, PULSE's PW and PER) follow the run's, as in ngspice. */
static void retime_sources(nsc_circuit *c, double tstop)
{
    if (!c->job.has_tran || tstop == c->job.tstop) return;
    for (int k = 0; k < c->nel; k++)
        if (c->el[k].kind == NSC_EL_V || c->el[k].kind == NSC_EL_I)
            nsc_wave_defaults(&c->el[k].wave, c->job.tstep, tstop, 1);
}

nsc_status nsc_run_setup(nsc_run *R, const nsc_run_cfg *cfg, nsc_report *r)
{
    R->cfg = *cfg;
    R->steady = nsc_run_steady(R->c, cfg);
    nsc_status s = nsc_run_opts(R->c, cfg, &R->o, r);
    if (s) return s;
    if (cfg->tstop > 0) retime_sources(R->c, cfg->tstop);
    R->po = nsc_run_pss_opts(R->c, cfg);
    if (R->steady) nsc_meas_steady_windows(R->c, r);
    return NSC_OK;
}

/* --save replaces the netlist's outputs: its derived output columns (.save's
 * P(x), pin currents, .print {expr}: xcol pos >= 0) dropped, the .control lets
 * (pos < 0) kept. */
static void drop_output_cols(nsc_circuit *c)
{
    int k = 0;
    for (int j = 0; j < c->job.nxcol; j++)
        if (c->job.xcol[j].pos < 0) c->job.xcol[k++] = c->job.xcol[j];
        else {
            free(c->job.xcol[j].name);
            free(c->job.xcol[j].sig.code);
            free(c->job.xcol[j].sig.text);
        }
    c->job.nxcol = k;
}

/* --save's items P(x) (what .save p(x) does) made derived output columns of R->c
 * (nsc_power_output, each after the items before it), the netlist's own dropped
 * (drop_output_cols); the other items, in order, into *rest (malloc'd; "" when
 * none; NULL when save is). */
static nsc_status save_powers(nsc_run *R, const char *save, char **rest, nsc_report *r)
{
    *rest = NULL;
    if (!save) return NSC_OK;
    drop_output_cols(R->c);
    size_t n = strlen(save);
    char *out = nsc_calloc(n + 1, 1), *o = out;
    if (!out) return nsc_oom(r);
    int pos = 0;
    nsc_status st = NSC_OK;
    const char *a, *b;
    for (const char *p = save; !st && nsc_list_item(&p, &a, &b);) {
        while (a < b && (*a == ' ' || *a == '\t')) a++; /* the item [a, b), blanks trimmed */
        while (b > a && (b[-1] == ' ' || b[-1] == '\t')) b--;
        if (b - a > 3 && (*a == 'p' || *a == 'P') && a[1] == '(' && b[-1] == ')') {
            char *name = nsc_strndup(a + 2, (size_t)(b - a - 3));
            st = name ? nsc_power_output(R->c, name, pos, r) : nsc_oom(r);
            free(name);
        } else if (b > a) {
            o += sprintf(o, "%s%.*s", o > out ? "," : "", (int)(b - a), a);
            pos++;
        }
    }
    if (st) free(out);
    else *rest = out;
    return st;
}

nsc_status nsc_run_columns(nsc_run *R, int meas_only, nsc_report *r)
{
    const nsc_circuit *c = R->c;
    if (!meas_only || c->job.nmeas_probe == 0) {
        char *rest;
        nsc_status s = save_powers(R, R->cfg.save, &rest, r);
        if (!s) s = nsc_run_probes(c, rest, &R->probes, &R->nprobe, &R->nout, r);
        free(rest);
        return s;
    }
    return probes_dup(c->job.meas_probe, c->job.nmeas_probe, &R->probes, &R->nprobe, r);
}

/* The transient, repeated while its junctions' fits follow the run: a complete
 * run whose peak currents left the fits of the diodes and bipolar transistors
 * (those whose range the card does not fix) remakes them on the currents seen
 * (nsc_dev_refit; a note each) and is made again, its rows, measures and
 * warnings replacing the first's; at most NSC_REFITS_GSTEP - 1 times, the last
 * run warning as before about any fit it still leaves (nsc_dev_check). A run
 * that stays inside its fits is made once, exactly as without this loop. A run
 * that failed (NSC_ESIM: its steps collapsed, or a step's pairs failed their
 * check, stepper_int.h nsc_step_pairs) after leaving its fits remakes them on
 * the currents up to the failure (stepper.c tran_free), and the error gives
 * way to the next pass. eSim's LM741 circuits: the default fits, 10 mA..1 A by
 * one line, make its uA junctions switches whose steps collapse (exit 3
 * without this); their fits settle in 4..7 passes. So does the LM741 of
 * tests/data/bjt/opamp741_tran.cir without a failure: each refit covers at
 * most twice the run's peak, and its input pair's fits settle in the 6th pass
 * (after 3 passes q7 carried 14.8 uA on a fit ending at 2.2 uA: 13.3 % of
 * range off ngspice; 0.24 % once settled). Its passes used to be 3 unless one
 * failed, so the outcome hung on Lemke's failing on a refit pass (the BLAS's
 * rounding); a transient now has NSC_REFITS_GSTEP passes whenever its fits
 * keep moving. A failure that remade no fit, or on the last pass, is the error.
 * A pass before the last may stop early once its fits were left and its
 * peaks stopped rising (nsc_tran_opts.refit_early, stepper_exact.c
 * fits_watch): such a pass is one more, at most NSC_REFITS_EARLY of them. */
static nsc_status tran_fit_pass(void *ctx, nsc_report *notes, int *again, nsc_report *r)
{
    nsc_run *R = ctx;
    R->o.refit = notes;
    R->o.refit_early = notes && R->tran_early < NSC_REFITS_EARLY;
    nsc_status s = nsc_stepper_tran(R->c, &R->o, R->probes, R->nprobe, &R->W, &R->st, r);
    R->o.refit = NULL;
    R->o.refit_early = 0;
    int early = !s && R->st.refit_stop > 0;
    R->st.passes = R->tran_passes, R->st.passes_early = R->tran_early;
    R->st.passes_time = R->tran_time;
    if (s == NSC_ESIM && notes && notes->nwarn > 0) { /* failed outside fits it remade */
        free(r->error);
        r->error = NULL;
        r->status = s = NSC_OK;
    }
    *again = !s && notes && notes->nwarn > 0;
    if (*again) {
        R->tran_passes++;
        R->tran_time += R->W ? R->W->t_end : 0;
        R->tran_early += early;
        R->tran_npass += early; /* (besides the NSC_REFITS_GSTEP) */
        nsc_waves_free(R->W);
        nsc_waves_free(R->Wm);
        R->W = R->Wm = NULL;
        if (R->o.rerun) R->o.rerun(R->o.rerun_ctx);
    }
    return s;
}

static nsc_status run_tran_fitted(nsc_run *R, nsc_report *r)
{
    R->tran_npass = NSC_REFITS_GSTEP;
    R->tran_passes = R->tran_early = 0;
    R->tran_time = 0;
    return nsc_fitted_n(tran_fit_pass, R, &R->tran_npass, r);
}

nsc_status nsc_run_op(nsc_run *R, nsc_report *r)
{
    nsc_probe *dp = NULL;
    int ndp = 0;
    nsc_status s = nsc_waves_probes_default(R->c, &dp, &ndp, r); /* nodes, then i(v) i(l) i(d) */
    if (!s) s = nsc_stepper_op(R->c, R->o.gmin, R->o.solver, dp, ndp, &R->op, r);
    nsc_waves_probes_free(dp, ndp);
    return s;
}

static nsc_status run_pss(nsc_run *R, nsc_report *r)
{
    return nsc_run_pss(R->c, &R->o, &R->po, R->probes, R->nprobe, &R->W, &R->st, &R->pinfo, r);
}

static nsc_status run_tran(nsc_run *R, nsc_report *r)
{
    nsc_waves **steps = R->o.steps; /* rows on the tstep grid: .meas on the steps */
    if (R->c->job.nmeas > 0 && (!R->o.adaptive || R->o.interp)) R->o.steps = &R->Wm;
    nsc_status s = run_tran_fitted(R, r);
    R->o.steps = steps;
    return s;
}

/* The probes of the AC run: the outputs (--save's, else the defaults unless
 * .print ac names columns and all is 0; *nout of them, first), then the
 * .print ac ones and those the .meas ac cards read; distinct. */
static nsc_status ac_probes(const nsc_circuit *c, const char *save, int all, nsc_probe **p, int *np,
                            int *nout, nsc_report *r)
{
    nsc_probe *d = NULL;
    int nd = 0;
    nsc_status s = save                    ? nsc_waves_probes_parse(c, save, &d, &nd, r)
                   : c->job.nacout && !all ? NSC_OK
                                           : nsc_waves_probes_default(c, &d, &nd, r);
    int nq = nd + 2 * c->job.nacout + 4 * c->job.nacmeas; /* each signal's probe and denominator */
    *p = s ? NULL : nsc_calloc((size_t)nq + 1, sizeof **p);
    *np = *nout = 0;
    if (!s && !*p) s = nsc_oom(r);
    for (int k = 0; !s && k < nq; k++) {
        int j = k - nd;
        const nsc_acout *o = k < nd                  ? NULL
                             : j < 2 * c->job.nacout ? &c->job.acout[j / 2]
                             : (j - 2 * c->job.nacout) / 2 % 2
                                 ? &c->job.acmeas[(j - 2 * c->job.nacout) / 4].when
                                 : &c->job.acmeas[(j - 2 * c->job.nacout) / 4].sig;
        const nsc_probe *q = k < nd ? &d[k] : j % 2 ? &o->den : &o->p;
        if (!q->name) continue; /* a measure without a WHEN or without a FIND */
        int dup = 0;
        for (int j = 0; j < *np; j++) dup |= !strcmp((*p)[j].name, q->name);
        if (dup) continue;
        (*p)[*np] = *q;
        if (!((*p)[*np].name = nsc_strdup(q->name))) s = nsc_oom(r);
        else (*np)++;
        if (k < nd) *nout = *np;
    }
    nsc_waves_probes_free(d, nd);
    return s;
}

/* .ac: at the operating point, or around the steady state (nsc_run_pac) when the run is one. */
static nsc_status run_ac(nsc_run *R, nsc_report *r)
{
    nsc_status s = ac_probes(R->c, R->cfg.save, R->cfg.raw, &R->acp, &R->nacp, &R->nacout, r);
    nsc_pss_info pi;
    if (!s)
        s = R->steady ? nsc_run_pac(R->c, &R->o, &R->po, R->acp, R->nacp, &R->ac, &pi, r)
                      : nsc_run_ac(R->c, R->o.gmin, R->o.solver, R->acp, R->nacp, &R->ac, r);
    return s;
}

/* The outputs of the DC sweep: --save's, else .print dc's, else .save/.print's,
 * else the defaults; a raw file (all) holds the defaults first, as ngspice's. */
static nsc_status dc_probes(const nsc_circuit *c, const char *save, int all, nsc_probe **p, int *np,
                            nsc_report *r)
{
    nsc_probe *d = NULL, *q = NULL;
    int nd = 0, nq = 0, own = save != NULL;
    nsc_status s = all || (!save && !c->job.ndcout && !c->job.nsave)
                       ? nsc_waves_probes_default(c, &d, &nd, r)
                       : NSC_OK;
    if (!s && save) s = nsc_waves_probes_parse(c, save, &q, &nq, r);
    else if (!s) {
        q = c->job.ndcout ? c->job.dcout : c->job.save;
        nq = c->job.ndcout ? c->job.ndcout : c->job.nsave;
    }
    *p = s ? NULL : nsc_calloc((size_t)(nd + nq) + 1, sizeof **p);
    *np = 0;
    if (!s && !*p) s = nsc_oom(r);
    for (int k = 0; !s && k < nd + nq; k++) {
        const nsc_probe *x = k < nd ? &d[k] : &q[k - nd];
        int dup = 0;
        for (int j = 0; j < *np; j++) dup |= !strcmp((*p)[j].name, x->name);
        if (dup) continue;
        (*p)[*np] = *x;
        if (!((*p)[*np].name = nsc_strdup(x->name))) s = nsc_oom(r);
        else (*np)++;
    }
    nsc_waves_probes_free(d, nd);
    if (own) nsc_waves_probes_free(q, nq);
    return s;
}

/* The outputs of a point's circuit of a .dc over a .param (ctx: the run). */
static nsc_status dc_probes_of(const nsc_circuit *c, void *ctx, nsc_probe **p, int *np,
                               nsc_report *r)
{
    const nsc_run *R = ctx;
    return dc_probes(c, R->cfg.save, R->cfg.raw, p, np, r);
}

/* .dc: the sweep's rows in R->dc, also those made before it failed. */
static nsc_status run_dc(nsc_run *R, nsc_report *r)
{
    const nsc_circuit *c = R->c;
    nsc_status s = dc_probes(c, R->cfg.save, R->cfg.raw, &R->dcp, &R->ndcp, r);
    int param = c->job.dc[0].el < 0 || (c->job.ndc > 1 && c->job.dc[1].el < 0);
    if (s || !param)
        return s ? s : nsc_run_dc(R->c, R->o.gmin, R->o.solver, R->dcp, R->ndcp, &R->dc, r);
    if (!R->deck)
        return nsc_err(r, NSC_EUSAGE, &c->job.dc[0].loc,
                       ".dc over a .param needs the netlist's deck (nsc_run_circuit)");
    return nsc_run_dc_params(R->deck, R->ov, R->nov, c, R->o.gmin, R->o.solver, dc_probes_of, R,
                             &R->dc, r);
}

static int asks_op(const nsc_run *R)
{
    return R->c->job.has_op;
}
static int asks_ac(const nsc_run *R)
{
    return R->c->job.has_ac;
}
static int asks_dc(const nsc_run *R)
{
    return R->c->job.ndc > 0;
}
static int asks_pss(const nsc_run *R)
{
    return R->steady && R->o.tstop > 0;
}
static int asks_tran(const nsc_run *R)
{
    return !R->steady && R->o.tstop > 0;
}

const nsc_analysis nsc_analyses[NSC_AN_N] = {
    [NSC_AN_OP] = { "op", asks_op, nsc_run_op, nsc_run_op_print },
    [NSC_AN_AC] = { "ac", asks_ac, run_ac, NULL },
    [NSC_AN_DC] = { "dc", asks_dc, run_dc, NULL },
    [NSC_AN_PSS] = { "pss", asks_pss, run_pss, NULL },
    [NSC_AN_TRAN] = { "tran", asks_tran, run_tran, NULL },
};

nsc_status nsc_run_analysis(nsc_run *R, nsc_report *r)
{
    return nsc_analyses[R->steady ? NSC_AN_PSS : NSC_AN_TRAN].run(R, r);
}

nsc_status nsc_run_measure(nsc_run *R, nsc_report *r)
{
    const nsc_circuit *c = R->c;
    if (c->job.nmeas == 0 || !R->W || R->W->end != NSC_RUN_COMPLETE) return NSC_OK;
    if (!(R->mres = nsc_calloc((size_t)c->job.nmeas, sizeof *R->mres))) return nsc_oom(r);
    nsc_status s = nsc_meas_eval(c, R->Wm ? R->Wm : R->W, R->mres, r);
    for (int k = 0; !s && k < c->job.nmeas; k++)
        if (!R->mres[k].ok)
            nsc_warn(r, &c->job.meas[k].loc, ".meas %s failed: %s", c->job.meas[k].name,
                     R->mres[k].why ? R->mres[k].why : "");
    return s;
}
