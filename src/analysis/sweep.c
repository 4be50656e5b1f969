/* sweep.c -- parameter studies: the plan, one point, the result table, shards
 * and merge (sweep.h). Its picture is written by src/output/out_sweep.c. */
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
#include "smallsig.h"
#include "solve/onestep.h"
#include "output/out.h"
#include "output/waves.h"

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

nsc_status nsc_plan_set(nsc_plan *p, const char *name, const double *val, int n, int logscale,
                        nsc_report *r)
{
    if (n < 1) return nsc_err(r, NSC_EUSAGE, NULL, "no values for parameter %s", name);
    int a = 0;
    while (a < p->naxis && !nsc_strieq(p->axis[a].name, name)) a++;
    double np = (double)n; /* points with the new axis */
    for (int k = 0; k < p->naxis; k++)
        if (k != a) np *= p->axis[k].n;
    if (np > (double)NSC_SWEEP_MAXPOINTS)
        return nsc_err(r, NSC_EUSAGE, NULL, "%.3g points in the study (at most %ld)", np,
                       NSC_SWEEP_MAXPOINTS);
    double *v = nsc_calloc((size_t)n, sizeof *v);
    if (!v) return nsc_oom(r);
    memcpy(v, val, (size_t)n * sizeof *v);
    if (a == p->naxis) {
        nsc_axis *ax = nsc_realloc_array(p->axis, (size_t)p->naxis + 1, sizeof *ax);
        char *nm = nsc_strdup(name);
        if (!ax || !nm) {
            if (ax) p->axis = ax;
            free(nm);
            free(v);
            return nsc_oom(r);
        }
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
    for (int k = 0; k < c->job.nparam; k++)
        if (nsc_strieq(c->job.param[k], name)) return 1;
    return 0;
}

nsc_status nsc_plan_steps(nsc_plan *p, const nsc_circuit *c, nsc_report *r)
{
    for (int k = 0; k < c->job.nstep; k++) {
        const nsc_step *st = &c->job.step[k];
        if (!nsc_circuit_has_param(c, st->param))
            return nsc_err(r, NSC_ENETLIST, &st->loc,
                           ".step param %s: no .param named %s (add .param %s=...)", st->param,
                           st->param, st->param);
        nsc_status s = nsc_plan_set(p, st->param, st->val, st->nval,
                                    nsc_geometric(st->val, st->nval), r);
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

nsc_status nsc_param_spec(const char *text, int logscale, char **name, double **val, int *n,
                          nsc_report *r)
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
    if (c1) { /* START:STOP:N */
        const char *c2 = strchr(c1 + 1, ':');
        double a, b, cnt;
        if (!c2 || !number_n(spec, (size_t)(c1 - spec), &a)
            || !number_n(c1 + 1, (size_t)(c2 - c1 - 1), &b)
            || !number_n(c2 + 1, strlen(c2 + 1), &cnt)
            || !(cnt >= 1 && cnt <= 1e7 && cnt == floor(cnt)))
            goto bad;
        if (logscale && !(a * b > 0))
            return nsc_err(r, NSC_EUSAGE, NULL,
                           "--log needs START and STOP of one sign, not 0: '%s'", text);
        nv = (int)cnt;
        if (!(v = nsc_calloc((size_t)nv, sizeof *v))) return nsc_oom(r);
        for (int k = 0; k < nv; k++) {
            double f = nv > 1 ? (double)k / (nv - 1) : 0;
            v[k] = logscale ? a * pow(b / a, f) : a + (b - a) * f; /* never accumulated */
        }
        if (nv > 1) v[nv - 1] = b;
    } else { /* V1,V2,... */
        for (const char *q = spec;; q++) {
            const char *e = strchr(q, ',');
            size_t len = e ? (size_t)(e - q) : strlen(q);
            double x;
            if (!number_n(q, len, &x)) {
                free(v);
                goto bad;
            }
            double *nvv = nsc_realloc_array(v, (size_t)nv + 1, sizeof *v);
            if (!nvv) {
                free(v);
                return nsc_oom(r);
            }
            v = nvv;
            v[nv++] = x;
            if (!e) break;
            q = e;
        }
    }
    if (!(*name = nsc_strndup(text, (size_t)(eq - text)))) {
        free(v);
        return nsc_oom(r);
    }
    nsc_strlower(*name);
    *val = v;
    *n = nv;
    return NSC_OK;
bad:
    return nsc_err(r, NSC_EUSAGE, NULL,
                   "--param needs NAME=START:STOP:N, NAME=V1,V2,... or NAME=VALUE, not '%s'", text);
}

void nsc_plan_point(const nsc_plan *p, long i, double *v)
{
    for (int k = 0; k < p->naxis; k++) {
        v[k] = p->axis[k].val[i % p->axis[k].n]; /* i = i_k + n_k (rest) */
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

/* seconds to assemble the LCS of c and build its first one-step problems (the
 * static one at t = 0 and the regular step's), what nsc_stepper_tran does before
 * its first step; errors are left to the run itself */
static double setup_time(const nsc_circuit *c, const nsc_tran_opts *o)
{
    nsc_report q;
    nsc_report_init(&q);
    double t0 = nsc_now();
    nsc_lcs *L = NULL, *L0 = NULL;
    nsc_onestep *P = NULL, *P0 = NULL;
    if (!nsc_lcs_assemble(c, NSC_ASM_TRAN, o->gmin, &L, &q)
        && !nsc_lcs_assemble(c, o->uic ? NSC_ASM_UIC : NSC_ASM_OP, o->gmin, &L0, &q)
        && !nsc_onestep_new(L0, &(nsc_onestep_opts){ .theta = 1.0 }, &P0, &q))
        nsc_onestep_new(L, &(nsc_onestep_opts){ .h = o->h, .theta = o->theta }, &P, &q);
    double t = nsc_now() - t0;
    if (P) nsc_onestep_free(P);
    if (P0) nsc_onestep_free(P0);
    nsc_lcs_free(L);
    nsc_lcs_free(L0);
    nsc_report_free(&q);
    return t;
}

/* The steady state of a point (R set up, its columns chosen), warm-started
 * from ps->start, its efficiency and losses into ps. */
static nsc_status point_steady(nsc_run *R, nsc_point_steady *ps, nsc_report *r)
{
    nsc_losses L = { 0, 0, 0, NULL };
    if (ps) {
        R->po.start = ps->start;
        R->po.end = &ps->end;
        ps->efficiency = ps->losses = NAN;
        R->o.losses = &L;
    }
    nsc_status s = nsc_run_analysis(R, r);
    R->o.losses = NULL;
    nsc_loss_sum sum;
    memset(&sum, 0, sizeof sum);
    if (ps && !s && R->W && R->W->end == NSC_RUN_COMPLETE && !nsc_losses_sum(&L, NULL, 0, &sum)) {
        double dt = L.to - L.from, load = sum.nload > 0 ? sum.loads : NAN;
        ps->efficiency = sum.efficiency;
        ps->losses = dt > 0 ? (sum.input + sum.switching - load) / dt : NAN;
    }
    nsc_loss_sum_free(&sum);
    if (ps) {
        ps->iterations = R->pinfo.iterations;
        ps->warm = R->pinfo.warm;
        ps->mu_abs = R->pinfo.floquet ? R->pinfo.mu_abs : NAN;
    }
    nsc_losses_free(&L);
    return s;
}

/* R->c = deck with the overrides ov[0..nov), the last of each name, and its
 * settings; the circuit must have nmeas .meas cards. */
static nsc_status point_setup(nsc_run *R, const nsc_deck *deck, const nsc_param_set *ov, int nov,
                              const nsc_run_cfg *cfg, int nmeas, nsc_point_info *info,
                              nsc_report *r)
{
    int nu = 0;
    nsc_param_set *u = nsc_calloc((size_t)nov + 1, sizeof *u);
    if (!u) return nsc_oom(r);
    for (int k = 0; k < nov; k++) {
        int later = 0;
        for (int j = k + 1; j < nov; j++) later |= nsc_strieq(ov[j].name, ov[k].name);
        if (!later) u[nu++] = ov[k];
    }
    double t0 = nsc_now();
    nsc_status s = nsc_run_circuit(R, deck, u, nu, r);
    info->t_parse = nsc_now() - t0;
    free(u);
    if (s) return s;
    nsc_loc top = { R->c->nfiles > 0 ? R->c->files[0] : "", R->c->nfiles > 0, 1 };
    if (R->c->job.nmeas + R->c->job.nacmeas != nmeas)
        return nsc_err(r, NSC_ENETLIST, &top, "%d .meas cards at this point, %d in the study",
                       R->c->job.nmeas + R->c->job.nacmeas, nmeas);
    if ((s = nsc_run_setup(R, cfg, r))) return s;
    return nsc_run_check(R->c, cfg, &R->o, 0, r);
}

/* The measures of a point's run into meas[], its outputs into wavepath. */
static nsc_status point_results(nsc_run *R, nsc_status s, double *meas, const char *wavepath,
                                nsc_report *r)
{
    nsc_status ms = nsc_run_measure(R, r);
    for (int k = 0; !ms && R->mres && k < R->c->job.nmeas; k++)
        if (R->mres[k].ok) meas[k] = R->mres[k].value + 0.0;
    if (ms && !s) s = ms;
    if (wavepath && R->W && R->W->nrow > 0) {
        nsc_waves_keep(R->W, R->nout + 1); /* the outputs only */
        nsc_status ws = nsc_write_dat(R->W, wavepath, 1,
                                      r); /* points run side by side: one thread each */
        if (ws && !s) s = ws;
    }
    return s;
}

/* The .meas ac cards of a point into val (nsc_acmeas_run): around its
 * steady state when it is one (started from the state its run found, ps->end:
 * one shooting period), else at its operating point. */
static nsc_status point_ac(nsc_run *R, nsc_point_steady *ps, double *val, nsc_report *r)
{
    if (!R->steady) return nsc_acmeas_run(R->c, &R->o, NULL, val, r);
    nsc_pss_opts po = R->po;
    if (ps && ps->end.z) po.start = &ps->end;
    po.end = NULL;
    return nsc_acmeas_run(R->c, &R->o, &po, val, r);
}

nsc_status nsc_point_run(const nsc_deck *deck, const nsc_param_set *ov, int nov,
                         const nsc_run_cfg *cfg, int nmeas, double *meas, const char *wavepath,
                         int profile, volatile sig_atomic_t *stop, nsc_point_steady *ps,
                         nsc_point_info *info, nsc_report *r)
{
    memset(info, 0, sizeof *info);
    for (int k = 0; k < nmeas; k++) meas[k] = NAN;
    nsc_run R;
    nsc_run_init(&R);
    nsc_status s = point_setup(&R, deck, ov, nov, cfg, nmeas, info, r);
    int tran = !s && (R.steady || R.o.tstop > 0); /* else only .ac with .meas ac (nsc_run_check) */
    if (tran)
        s = nsc_run_columns(&R, !wavepath, r); /* no waveform file: record what .meas reads only */
    if (!s) {
        R.o.stop = stop;
        if (profile && tran) info->t_setup = setup_time(R.c, &R.o);
        double t0 = nsc_now();
        if (tran) s = R.steady ? point_steady(&R, ps, r) : nsc_run_analysis(&R, r);
        info->t_run = nsc_now() - t0;
        info->st = R.st;
        t0 = nsc_now();
        if (tran) s = point_results(&R, s, meas, wavepath, r);
        if (!s && R.c->job.nacmeas > 0) s = point_ac(&R, ps, meas + R.c->job.nmeas, r);
        info->t_meas = nsc_now() - t0;
    }
    nsc_run_free(&R);
    return s;
}

/* ---- the table ---- */

static int ncols(const nsc_sweep_table *T)
{
    return T->npar + T->nmeas;
}

nsc_status nsc_sweep_table_init(nsc_sweep_table *T, char *const *par, int npar, char *const *meas,
                                int nmeas, const char *netlist, long npoint, int shard_k,
                                int shard_n, nsc_report *r)
{
    memset(T, 0, sizeof *T);
    const char *b = strrchr(netlist, '/');
    T->npar = npar;
    T->nmeas = nmeas;
    T->npoint = npoint;
    T->shard_k = shard_k;
    T->shard_n = shard_n;
    if (!(T->netlist = nsc_strdup(b ? b + 1 : netlist))
        || !(T->name = nsc_calloc((size_t)(npar + nmeas) + 1, sizeof *T->name))) {
        nsc_sweep_table_free(T);
        return nsc_oom(r);
    }
    for (int k = 0; k < npar + nmeas; k++)
        if (!(T->name[k] = nsc_strdup(k < npar ? par[k] : meas[k - npar]))) {
            nsc_sweep_table_free(T);
            return nsc_oom(r);
        }
    return NSC_OK;
}

nsc_status nsc_sweep_table_add(nsc_sweep_table *T, const double *v, int status, long point,
                               nsc_report *r)
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
        if (!nv || !ns || !npt) return nsc_oom(r);
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
    for (long i = 1; i < T->nrow; i++) { /* insertion sort: rows arrive nearly ordered */
        long j = i;
        while (j > 0 && T->point[j - 1] > T->point[j]) {
            long tp = T->point[j];
            T->point[j] = T->point[j - 1];
            T->point[j - 1] = tp;
            int ts = T->status[j];
            T->status[j] = T->status[j - 1];
            T->status[j - 1] = ts;
            double *a = T->v + (size_t)j * nc, *b = a - nc;
            for (int q = 0; q < nc; q++) {
                double t = a[q];
                a[q] = b[q];
                b[q] = t;
            }
            j--;
        }
    }
}

static void put_value(FILE *f, double x)
{
    if (isnan(x)) fputs("nan", f);
    else fprintf(f, "%.12e", x + 0.0); /* + 0.0: no "-0" */
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t k = 0; k < n; k++) h = (h ^ b[k]) * 0x100000001b3ULL;
    return h;
}

/* h extended by the bytes of the file at path, then its length (so the
 * boundary between two files counts); 0 when it cannot be read. */
static int hash_file(uint64_t *h, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char buf[8192];
    size_t n;
    unsigned long long len = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        *h = fnv1a(*h, buf, n);
        len += n;
    }
    int bad = ferror(f);
    fclose(f);
    *h = fnv1a(*h, &len, sizeof len);
    return !bad;
}

char *nsc_study_id(char *const *files, int nfiles, char *const *words, int nwords)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int k = 0; k < nfiles; k++)
        if (!hash_file(&h, files[k])) return NULL;
    for (int k = 0; k < nwords; k++)
        h = fnv1a(h, words[k] ? words[k] : "", strlen(words[k] ? words[k] : "") + 1);
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
        fprintf(f, "# nscircuit sweep: points=%ld parameters=%d measures=%d", T->npoint, T->npar,
                T->nmeas);
        if (T->shard_n > 1) fprintf(f, " shard=%d/%d", T->shard_k, T->shard_n);
        if (T->study[0]) fprintf(f, " study=%s", T->study);
        fprintf(f, " netlist=%s\n", T->netlist);
        if (T->partial > 0)
            fprintf(f, "# interrupted: %ld of the %ld points of this run finished\n", T->nrow,
                    T->partial);
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

/* Line 2 of a table: "# nscircuit sweep: points=N parameters=P measures=M
 * [shard=K/N] [study=HEX] netlist=NAME" with P + M = nn - 2 columns: T
 * initialised with the names[0..nn-2); NSC_EUSAGE (no message) if it is not. */
static nsc_status read_header(const char *line, char **names, int nn, nsc_sweep_table *T,
                              nsc_report *r)
{
    long npoint;
    int npar, nmeas, k = 1, n = 1, used = 0;
    if (sscanf(line, "# nscircuit sweep: points=%ld parameters=%d measures=%d %n", &npoint, &npar,
               &nmeas, &used)
            != 3
        || npar < 0 || nmeas < 0 || npar + nmeas != nn - 2 || npoint < 1)
        return NSC_EUSAGE;
    const char *rest = line + used;
    if (!strncmp(rest, "shard=", 6)) {
        int u2 = 0;
        if (sscanf(rest, "shard=%d/%d %n", &k, &n, &u2) != 2 || !(k >= 1 && k <= n))
            return NSC_EUSAGE;
        rest += u2;
    }
    char study[17] = "";
    if (!strncmp(rest, "study=", 6)) {
        int u3 = 0;
        if (sscanf(rest, "study=%16[0-9a-f] %n", study, &u3) != 1 || strlen(study) != 16 || !u3)
            return NSC_EUSAGE;
        rest += u3;
    }
    if (strncmp(rest, "netlist=", 8)) return NSC_EUSAGE;
    for (const char *q = rest + 8; *q; q++) /* a base name, as written: it names the merge's */
        if (*q == '/' || (unsigned char)*q < 32)
            return NSC_EUSAGE; /* outputs, never a path elsewhere */
    nsc_status s = nsc_sweep_table_init(T, names, npar, names + npar, nmeas, rest + 8, npoint, k, n,
                                        r);
    if (!s) memcpy(T->study, study, sizeof study);
    return s;
}

/* A row of T's table: nc values, status, point (v[nc] scratch); 1 if it is one
 * (added to T, *s its status), 0 if not. */
static int read_row(char *p, double *v, int nc, nsc_sweep_table *T, nsc_status *s, nsc_report *r)
{
    char *e;
    for (int q = 0; q < nc; q++) {
        v[q] = strtod(p, &e);
        if (e == p || (*e && !isspace((unsigned char)*e))) return 0;
        p = e;
    }
    long st = strtol(p, &e, 10);
    if (e == p || !isspace((unsigned char)*e)) return 0;
    p = e;
    long pt = strtol(p, &e, 10);
    if (e == p) return 0;
    while (isspace((unsigned char)*e)) e++;
    if (*e || st < 0 || st > 255 || pt < 0 || pt >= T->npoint) return 0;
    *s = nsc_sweep_table_add(T, v, (int)st, pt, r);
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
        if (!nm) {
            s = nsc_oom(r);
            goto out;
        }
        names = nm;
        if (!(names[nn] = nsc_strdup(tok))) {
            s = nsc_oom(r);
            goto out;
        }
        nn++;
    }
    if (nn < 3 || strcmp(names[nn - 2], "status") || strcmp(names[nn - 1], "point")) goto bad;
    lineno = 2;
    if (!next_line(f, &line, &cap)) goto bad;
    if ((s = read_header(line, names, nn, T, r))) {
        if (s == NSC_EUSAGE) goto bad;
        goto out;
    }
    int nc = T->npar + T->nmeas;
    if (!(v = nsc_calloc((size_t)nc + 1, sizeof *v))) {
        s = nsc_oom(r);
        goto out;
    }
    while (!s && next_line(f, &line, &cap)) {
        lineno++;
        char *p = line;
        while (isspace((unsigned char)*p)) p++;
        long of;
        if (sscanf(p, "# interrupted: %*d of the %ld points", &of) == 1 && of > 0) T->partial = of;
        if (!*p || *p == '#') continue;
        if (!read_row(p, v, nc, T, &s, r)) goto bad;
    }
    if (!s && ferror(f)) s = nsc_err(r, NSC_EIO, NULL, "cannot read '%s'", path);
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

nsc_status nsc_sweep_merge(const nsc_sweep_table *part, char *const *path, int npart,
                           nsc_sweep_table *out, nsc_report *r)
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
            return nsc_err(
                r, NSC_EUSAGE, NULL,
                "'%s' is not a shard of the study of '%s' (other columns or point count)", path[j],
                path[0]);
    }
    for (int j = 0; j < npart; j++) {
        if (part[j].partial > 0)
            return nsc_err(r, NSC_EUSAGE, NULL,
                           "'%s' was interrupted (%ld of its %ld points finished): run that shard "
                           "again",
                           path[j], part[j].nrow, part[j].partial);
        if (strcmp(part[j].study, A->study))
            return nsc_err(r, NSC_EUSAGE, NULL,
                           "'%s' is a shard of another study than '%s' (study %s, not %s: another "
                           "netlist, parameters or options)",
                           path[j], path[0], part[j].study[0] ? part[j].study : "unknown",
                           A->study[0] ? A->study : "unknown");
    }
    long np = A->npoint, rows = 0;
    for (int j = 0; j < npart; j++) rows += part[j].nrow;
    if (rows < np) /* before allocating by the header's count */
        return nsc_err(r, NSC_EUSAGE, NULL,
                       "%ld of the %ld points are in none of the tables; a shard is missing "
                       "or incomplete",
                       np - rows, np);
    long *from = nsc_calloc((size_t)np,
                            sizeof *from); /* 1 + part index + npart * row, 0: missing */
    if (!from) return nsc_oom(r);
    nsc_status s = NSC_OK;
    for (int j = 0; !s && j < npart; j++)
        for (long i = 0; !s && i < part[j].nrow; i++) {
            long pt = part[j].point[i];
            if (from[pt]) {
                int j0 = (int)((from[pt] - 1) % npart);
                s = nsc_err(r, NSC_EUSAGE, NULL, "point %ld is in '%s' and in '%s'", pt, path[j0],
                            path[j]);
            } else from[pt] = 1 + j + (long)npart * i;
        }
    long missing = 0, first = -1;
    for (long i = 0; !s && i < np; i++)
        if (!from[i] && !missing++) first = i;
    if (!s && missing)
        s = nsc_err(r, NSC_EUSAGE, NULL,
                    "%ld of the %ld points are in none of the tables (the first: point %ld); "
                    "a shard is missing or incomplete",
                    missing, np, first);
    if (!s)
        s = nsc_sweep_table_init(out, A->name, A->npar, A->name + A->npar, A->nmeas, A->netlist, np,
                                 1, 1, r);
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
