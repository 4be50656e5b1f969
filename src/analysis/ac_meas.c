/* ac_meas.c -- the .meas ac cards on an AC sweep (smallsig.h): between two
 * frequencies a signal is interpolated linearly in f, as ngspice 39 does
 * (measured: FIND vdb AT=, WHEN vdb=, FIND vp WHEN agree with its meas to its
 * 7 printed digits); a phase across a +-180 degree wrap is unwrapped first. */
#include "smallsig.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The index of the probe named name in R, -1 if none. */
static int probe_of(const nsc_ac_result *R, const char *name)
{
    for (int q = 0; q < R->np; q++)
        if (!strcmp(R->name[q], name)) return q;
    return -1;
}

/* The signal o at frequency k of R (the part of p, or of p / den); *ok = 0
 * when R lacks its probe. */
static double sig_at(const nsc_ac_result *R, const nsc_acout *o, int k, int *ok)
{
    int q = probe_of(R, o->p.name), d = o->den.name ? probe_of(R, o->den.name) : -2;
    if (q < 0 || d == -1) {
        *ok = 0;
        return NAN;
    }
    return nsc_ac_part_ratio(R, k, q, d, o->part);
}

/* The value between points k and k+1 at fraction t, phase unwrapped. */
static double lerp(const nsc_acout *o, double a, double b, double t)
{
    if (o->part == NSC_ACP_PH && b - a > 180) b -= 360;
    if (o->part == NSC_ACP_PH && a - b > 180) b += 360;
    double v = a + t * (b - a);
    if (o->part == NSC_ACP_PH && v <= -180) v += 360;
    if (o->part == NSC_ACP_PH && v > 180) v -= 360;
    return v;
}

/* The first crossing of o = val: *k and the fraction *t of the interval; -1 if
 * none. A phase is unwrapped across each interval (b taken within 180 degrees
 * of a) and crosses val at any of val, val -+ 360: -180 is crossed where the
 * wrapped phase jumps from -179 to +179 (a gain margin's point). */
static int crossing(const nsc_ac_result *R, const nsc_acout *o, double val, int *k, double *t,
                    int *ok)
{
    for (int i = 0; i + 1 < R->nf && *ok; i++) {
        double a = sig_at(R, o, i, ok), b = sig_at(R, o, i + 1, ok);
        int ph = o->part == NSC_ACP_PH;
        if (ph) b = a + remainder(b - a, 360);
        for (int w = ph ? -1 : 0; w <= (ph ? 1 : 0); w++) {
            double v = val + 360 * w;
            if (a == v || ((a - v) * (b - v) < 0)) {
                *k = i;
                *t = (v - a) / (b - a);
                return 0;
            }
        }
    }
    if (*ok && R->nf > 0 && sig_at(R, o, R->nf - 1, ok) == val) { /* on the last point */
        *k = R->nf - 1;
        *t = 0;
        return 0;
    }
    return -1;
}

static double freq_at(const nsc_ac_result *R, int k, double t)
{
    return k + 1 < R->nf ? R->f[k] + t * (R->f[k + 1] - R->f[k]) : R->f[k];
}

/* One measure into res. */
static void acmeas_one(const nsc_ac_result *R, const nsc_acmeas *m, nsc_meas_result *res)
{
    int ok = 1, k = 0;
    double t = 0;
    res->ok = 0;
    if (m->type == NSC_ACM_MAX || m->type == NSC_ACM_MIN) {
        double best = sig_at(R, &m->sig, 0, &ok);
        for (int i = 1; i < R->nf && ok; i++) {
            double v = sig_at(R, &m->sig, i, &ok);
            best = m->type == NSC_ACM_MAX ? fmax(best, v) : fmin(best, v);
        }
        res->value = best;
    } else if (m->type == NSC_ACM_FIND_AT) {
        if (!(m->at >= R->f[0] && m->at <= R->f[R->nf - 1])) {
            res->why = nsc_asprintf("AT=%g is outside the sweep [%g, %g]", m->at, R->f[0],
                                    R->f[R->nf - 1]);
            return;
        }
        while (k + 2 < R->nf && R->f[k + 1] < m->at) k++;
        t = R->nf > 1 ? (m->at - R->f[k]) / (R->f[k + 1] - R->f[k]) : 0;
        res->value = R->nf > 1 ? lerp(&m->sig, sig_at(R, &m->sig, k, &ok),
                                      sig_at(R, &m->sig, k + 1, &ok), t)
                               : sig_at(R, &m->sig, 0, &ok);
    } else {
        if (crossing(R, &m->when, m->val, &k, &t, &ok)) {
            if (ok) res->why = nsc_asprintf("%s never reaches %g", m->when.name, m->val);
            if (ok) return;
        }
        if (m->type == NSC_ACM_WHEN) res->value = freq_at(R, k, t);
        else
            res->value = k + 1 < R->nf ? lerp(&m->sig, sig_at(R, &m->sig, k, &ok),
                                              sig_at(R, &m->sig, k + 1, &ok), t)
                                       : sig_at(R, &m->sig, k, &ok);
    }
    if (!ok) res->why = nsc_asprintf("a signal of .meas %s was not computed", m->name);
    res->ok = ok;
}

void nsc_acmeas_eval(const nsc_circuit *c, const nsc_ac_result *R, nsc_meas_result *res)
{
    for (int q = 0; q < c->job.nacmeas; q++) {
        memset(&res[q], 0, sizeof res[q]);
        acmeas_one(R, &c->job.acmeas[q], &res[q]);
    }
}

/* The distinct probes the .meas ac cards of c read (their signals, WHEN
 * signals and denominators), names copied, into *p, *np. */
static nsc_status acmeas_probes(const nsc_circuit *c, nsc_probe **p, int *np, nsc_report *r)
{
    *np = 0;
    if (!(*p = nsc_calloc(4 * (size_t)c->job.nacmeas + 1, sizeof **p))) return nsc_oom(r);
    for (int k = 0; k < 4 * c->job.nacmeas; k++) {
        const nsc_acout *o = k / 2 % 2 ? &c->job.acmeas[k / 4].when : &c->job.acmeas[k / 4].sig;
        const nsc_probe *q = k % 2 ? &o->den : &o->p;
        int dup = !q->name; /* a measure without a WHEN or a FIND */
        for (int j = 0; !dup && j < *np; j++) dup = !strcmp((*p)[j].name, q->name);
        if (dup) continue;
        (*p)[*np] = *q;
        if (!((*p)[*np].name = nsc_strdup(q->name))) return nsc_oom(r);
        (*np)++;
    }
    return NSC_OK;
}

nsc_status nsc_acmeas_run(const nsc_circuit *c, const nsc_tran_opts *o, const nsc_pss_opts *po,
                          double *val, nsc_report *r)
{
    for (int k = 0; k < c->job.nacmeas; k++) val[k] = NAN;
    if (!c->job.has_ac || c->job.nacmeas == 0) return NSC_OK;
    nsc_probe *p = NULL;
    int np = 0;
    nsc_ac_result *R = NULL;
    nsc_pss_info info;
    nsc_meas_result *res = NULL;
    nsc_status s = acmeas_probes(c, &p, &np, r);
    if (!s)
        s = po ? nsc_run_pac(c, o, po, p, np, &R, &info, r)
               : nsc_run_ac(c, o->gmin, o->solver, p, np, &R, r);
    if (!s && !(res = nsc_calloc((size_t)c->job.nacmeas + 1, sizeof *res))) s = nsc_oom(r);
    if (!s) {
        nsc_acmeas_eval(c, R, res);
        for (int k = 0; k < c->job.nacmeas; k++)
            if (res[k].ok) val[k] = res[k].value + 0.0;
            else
                nsc_warn(r, &c->job.acmeas[k].loc, ".meas %s failed: %s", c->job.acmeas[k].name,
                         res[k].why ? res[k].why : "");
        nsc_meas_results_free(res, c->job.nacmeas);
    }
    free(res);
    nsc_ac_result_free(R);
    nsc_waves_probes_free(p, np);
    return s;
}
