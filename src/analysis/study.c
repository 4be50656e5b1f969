/* study.c -- a parameter study's points run as processes, at most -j at a
 * time, and their results collected (study.h: the result protocol). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "study.h"

void nsc_study_init(nsc_study *S)
{
    memset(S, 0, sizeof *S);
    nsc_plan_init(&S->plan);
}

void nsc_study_free(nsc_study *S)
{
    nsc_plan_free(&S->plan);
    for (long k = 0; S->warm && k < S->nsel; k++) nsc_pss_state_free(&S->warm[k]);
    free(S->warm);
    free(S->meas);
    free(S->wavedir);
    free(S->sel);
    nsc_study_init(S);
}

/* ---- the study's plan, columns, points and identity ---- */

nsc_status nsc_study_plan(nsc_study *S, const nsc_circuit *c, char *const *range, int nrange,
                          nsc_report *r)
{
    nsc_status s = nsc_plan_steps(&S->plan, c, r);
    for (int k = 0; !s && k < nrange; k++) {
        char *name;
        double *val;
        int n;
        if ((s = nsc_param_spec(range[k], S->logscale, &name, &val, &n, r))) break;
        if (!nsc_circuit_has_param(c, name))
            s = nsc_err(r, NSC_ENETLIST, NULL, "--param %s: no .param named %s", range[k], name);
        else s = nsc_plan_set(&S->plan, name, val, n, S->logscale && n > 2, r);
        free(name);
        free(val);
    }
    for (int k = 0; !s && k < S->nfixed; k++) /* a fixed value of a swept parameter */
        for (int j = 0; !s && j < S->plan.naxis; j++)
            if (nsc_strieq(S->plan.axis[j].name, S->fixed[k].name))
                s = nsc_plan_set(&S->plan, S->plan.axis[j].name, &S->fixed[k].value, 1, 0, r);
    if (!s && S->plan.naxis == 0)
        s = nsc_err(r, NSC_EUSAGE, NULL,
                    "nothing to sweep: give --param NAME=START:STOP:N or add a .step card");
    return s;
}

/* The columns a steady study adds after the measures. */
static const char *const steady_cols[] = { "efficiency", "losses" };

nsc_status nsc_study_columns(nsc_study *S, const nsc_circuit *c, int shard_k, int shard_n,
                             nsc_report *r)
{
    S->steady = nsc_run_steady(c, S->cfg);
    int nm = c->job.nmeas + c->job.nacmeas; /* .meas tran, then .meas ac */
    S->nmeas = nm + (S->steady ? 2 : 0);
    if (!(S->meas = nsc_calloc((size_t)S->nmeas + 1, sizeof *S->meas))) return nsc_oom(r);
    for (int k = 0; k < nm; k++)
        S->meas[k] = k < c->job.nmeas ? c->job.meas[k].name : c->job.acmeas[k - c->job.nmeas].name;
    for (int k = 0; S->steady && k < 2; k++) S->meas[nm + k] = (char *)steady_cols[k];
    long npoint = S->plan.npoint;
    if (!(S->sel = nsc_calloc((size_t)(npoint / shard_n + 1), sizeof *S->sel))) return nsc_oom(r);
    for (long i = 0; i < npoint; i++)
        if (nsc_shard_has(i, shard_k, shard_n)) S->sel[S->nsel++] = i;
    if (S->steady && !(S->warm = nsc_calloc((size_t)S->nsel + 1, sizeof *S->warm)))
        return nsc_oom(r);
    return NSC_OK;
}

nsc_status nsc_study_waves(nsc_study *S, const char *dir, nsc_report *r)
{
    if (!(S->wavedir = nsc_strdup(dir))) return nsc_oom(r);
    S->wavewidth = 4;
    for (long m = 10000; m < S->plan.npoint; m *= 10) S->wavewidth++;
    return NSC_OK;
}

char *nsc_study_wave_path(const nsc_study *S, long i)
{
    return S->wavedir ? nsc_asprintf("%s/p%0*ld.dat", S->wavedir, S->wavewidth, i) : NULL;
}

char *nsc_study_point_label(const nsc_study *S, long i)
{
    double *v = nsc_calloc((size_t)S->plan.naxis + 1, sizeof *v);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = v ? open_memstream(&buf, &len) : NULL;
    if (!f) {
        free(v);
        return NULL;
    }
    nsc_plan_point(&S->plan, i, v);
    fprintf(f, "point %ld (", i);
    for (int k = 0; k < S->plan.naxis; k++)
        fprintf(f, "%s%s=%g", k ? ", " : "", S->plan.axis[k].name, v[k]);
    fputc(')', f);
    fclose(f);
    free(v);
    return buf;
}

/* An axis of the plan as a word: its name and values as numbers to 15
 * significant digits ("3n", parsed as 3 * 1e-9, and "3e-9" are one value,
 * though they differ in the last bit). */
static char *axis_word(const nsc_axis *x)
{
    size_t cap = strlen(x->name) + 32 * (size_t)x->n + 16, len;
    char *w = malloc(cap);
    if (!w) return NULL;
    len = (size_t)snprintf(w, cap, "axis %s %d", x->name, x->logscale);
    for (int i = 0; i < x->n && len < cap; i++)
        len += (size_t)snprintf(w + len, cap - len, " %.15g", x->val[i]);
    return w;
}

char *nsc_study_identity(const nsc_study *S)
{
    const nsc_run_cfg *cfg = S->cfg;
    int n = 0, cap = 2 * S->nfixed + S->plan.naxis + 8;
    char **w = nsc_calloc((size_t)cap, sizeof *w);
    if (!w) return NULL;
    for (int k = 0; k < S->nfixed; k++)
        w[n++] = nsc_asprintf("fixed %s=%.15g", S->fixed[k].name, S->fixed[k].value);
    for (int k = 0; k < S->plan.naxis; k++) w[n++] = axis_word(&S->plan.axis[k]);
    w[n++] = nsc_asprintf("log %d", S->logscale); /* not the shard: shards share their study */
    w[n++] = nsc_asprintf("run %.17g %.17g %.17g %s %s", cfg->step, cfg->tstop, cfg->theta,
                          cfg->solver ? cfg->solver : "", cfg->save ? cfg->save : "");
    if (cfg->steady || cfg->period > 0) w[n++] = nsc_asprintf("steady %.17g", cfg->period);
    int ok = 1;
    for (int k = 0; k < n; k++) ok &= w[k] != NULL;
    char *const *files;
    int nfiles = nsc_deck_files(S->deck, &files);
    char *id = ok ? nsc_study_id(files, nfiles, w, n) : NULL;
    for (int k = 0; k < n; k++) free(w[k]);
    free(w);
    return id;
}

const char **nsc_study_units(const nsc_study *S, const nsc_circuit *c)
{
    int np = S->plan.naxis;
    const char **u = nsc_calloc((size_t)(np + S->nmeas) + 1, sizeof *u);
    if (!u) return NULL;
    for (int k = 0; k < np; k++)
        u[k] = nsc_param_unit(S->deck, S->fixed, S->nfixed, c, S->plan.axis[k].name);
    int nm = c->job.nmeas + c->job.nacmeas;
    for (int k = 0; k < c->job.nmeas; k++) u[np + k] = nsc_meas_unit(c, k);
    for (int k = c->job.nmeas; k < nm; k++)
        u[np + k] = nsc_acmeas_unit(&c->job.acmeas[k - c->job.nmeas]);
    for (int k = nm; k < S->nmeas; k++) u[np + k] = k == nm ? "1" : "W";
    return u;
}

nsc_status nsc_study_tally_init(const nsc_study *S, nsc_study_tally *C, const char *netlist,
                                int shard_k, int shard_n, nsc_report *r)
{
    memset(C, 0, sizeof *C);
    char **pn = nsc_calloc((size_t)S->plan.naxis + 1, sizeof *pn);
    if (!pn) return nsc_oom(r);
    for (int k = 0; k < S->plan.naxis; k++) pn[k] = S->plan.axis[k].name;
    nsc_status s = nsc_sweep_table_init(&C->T, pn, S->plan.naxis, S->meas, S->nmeas, netlist,
                                        S->plan.npoint, shard_k, shard_n, r);
    free(pn);
    if (s) return s;
    char *id = nsc_study_identity(S);
    if (id) snprintf(C->T.study, sizeof C->T.study, "%s", id);
    free(id);
    return NSC_OK;
}

void nsc_study_tally_free(nsc_study_tally *C)
{
    nsc_sweep_table_free(&C->T);
    memset(C, 0, sizeof *C);
}

/* ---- a point's process: the result protocol written ---- */

static void put_line(FILE *f, char tag, const char *msg)
{
    fprintf(f, "%c ", tag);
    for (const char *p = msg; *p; p++) fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
    fputc('\n', f);
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* The steady state to start point sel[pos] from: the finished point nearest
 * before it in the run that differs from it only in the first axis (the
 * sweep's own neighbour), NULL if none has finished. */
static const nsc_pss_state *warm_for(const nsc_study *S, long pos)
{
    if (!S->warm || S->cold) return NULL;
    long n0 = S->plan.naxis > 0 ? S->plan.axis[0].n : 1, i = S->sel[pos];
    for (long j = pos - 1; j >= 0 && S->sel[j] / n0 == i / n0; j--)
        if (S->warm[j].z) return &S->warm[j];
    return NULL;
}

/* The state line protocol of a steady point: "s N M NSW PERIOD", "sz" N values,
 * "sl" M values, "sb ND" ND*ND values, "ss" NSW digits. */
static void put_state(FILE *f, const nsc_pss_state *x)
{
    if (!x->z) return;
    fprintf(f, "s %d %d %d %a\nsz", x->n, x->m, x->nsw, x->period);
    for (int i = 0; i < x->n; i++) fprintf(f, " %a", x->z[i]);
    fputs("\nsl", f);
    for (int j = 0; j < x->m; j++) fprintf(f, " %a", x->l[j]);
    fprintf(f, "\nsb %d", x->nd);
    for (long k = 0; k < (long)x->nd * x->nd; k++) fprintf(f, " %a", x->B[k]);
    fputs("\nss ", f);
    for (int k = 0; k < x->nsw; k++) fputc(x->sw[k] ? '1' : '0', f);
    fputc('\n', f);
}

/* The result of a point (status s, measures meas[S->nmeas], ps when steady,
 * the messages of r) in the protocol into f. */
static void put_result(FILE *f, const nsc_study *S, nsc_status s, const nsc_point_info *info,
                       const double *meas, const nsc_point_steady *ps, const nsc_report *r)
{
    fprintf(f, "nscircuit-point %d\ninfo %a %a %a %a %ld %ld %d\n", nsc_exit_status(s),
            info->t_parse, info->t_run, info->t_meas, info->t_setup, info->st.steps, info->st.lcps,
            info->st.factorizations);
    for (int k = 0; k < S->nmeas; k++) fprintf(f, "m %a\n", meas[k]);
    if (!s && S->steady) fprintf(f, "p %d %d %a\n", ps->iterations, ps->warm, ps->mu_abs);
    if (!s) put_state(f, &ps->end);
    for (int k = 0; k < r->nwarn; k++) put_line(f, 'w', r->warn[k]);
    if (r->error) put_line(f, 'e', r->error);
    fprintf(f, "end\n");
}

/* In the child: run point sel[pos] and write its result to fd. Never returns
 * (_exit: the parent's state is not this process's to finish). Everything it
 * allocates is freed; what it inherited from the parent is left alone. */
static void point_child(const nsc_study *S, long pos, int fd)
{
    long i = S->sel[pos];
    int np = S->plan.naxis, nov = S->nfixed + np;
    nsc_param_set *ov = nsc_calloc((size_t)nov + 1, sizeof *ov);
    double *pv = nsc_calloc((size_t)np + 1, sizeof *pv),
           *meas = nsc_calloc((size_t)S->nmeas + 3, sizeof *meas);
    char *wave = nsc_study_wave_path(S, i);
    if (!ov || !pv || !meas || (S->wavedir && !wave)) _exit(4);
    for (int k = 0; k < S->nfixed; k++) ov[k] = S->fixed[k];
    nsc_plan_point(&S->plan, i, pv);
    for (int k = 0; k < np; k++) { /* the point's values win over fixed ones */
        ov[S->nfixed + k].name = S->plan.axis[k].name;
        ov[S->nfixed + k].value = pv[k];
    }
    nsc_report r;
    nsc_report_init(&r);
    nsc_point_info info;
    nsc_point_steady ps;
    memset(&ps, 0, sizeof ps);
    ps.start = warm_for(S, pos);
    int nm = S->nmeas - (S->steady ? 2 : 0); /* the .meas cards' */
    nsc_status s = nsc_point_run(S->deck, ov, nov, S->cfg, nm, meas, wave, S->profile, NULL,
                                 S->steady ? &ps : NULL, &info, &r);
    if (S->steady) {
        meas[nm] = ps.efficiency;
        meas[nm + 1] = ps.losses;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) _exit(4);
    put_result(f, S, s, &info, meas, &ps, &r);
    int bad = fclose(f) || write_all(fd, text, len);
    close(fd);
    free(text);
    nsc_report_free(&r);
    free(ov);
    free(pv);
    free(meas);
    free(wave);
    nsc_pss_state_free(&ps.end);
    _exit(bad ? 4 : 0);
}

/* ---- the calling process: the result protocol read ---- */

/* A point's process and what it wrote so far. */
typedef struct job {
    long point;
    long pos; /* its position in the run's points */
    pid_t pid;
    int fd;
    char *buf;
    size_t len, cap;
    double start;  /* nsc_now() when started */
    int timed_out; /* killed for point_timeout */
} job;

/* One line of put_state into x: counts checked before allocating (at most
 * NSC_STATE_MAX each), values and digits counted; a line that does not fit
 * leaves x empty (the next point starts cold). x->z[x->n] counts the lines
 * taken while x is incomplete. */
#define NSC_STATE_MAX 10000000
static void take_state_head(nsc_pss_state *x, const char *p)
{
    nsc_pss_state_free(x);
    nsc_pss_state y = { 0 };
    if (sscanf(p, "%d %d %d %la", &y.n, &y.m, &y.nsw, &y.period) != 4 || y.n < 0 || y.m < 0
        || y.nsw < 0 || y.n > NSC_STATE_MAX || y.m > NSC_STATE_MAX || y.nsw > NSC_STATE_MAX
        || !(y.period > 0))
        return;
    y.z = calloc((size_t)y.n + 1, sizeof(double));
    y.l = calloc((size_t)y.m + 1, sizeof(double));
    y.sw = calloc((size_t)y.nsw + 1, 1);
    if (y.z && y.l && y.sw) {
        *x = y;
        x->z[y.n] = 1;
    } /* z[n] = 1: values still missing */
    else
        nsc_pss_state_free(&y);
}

/* "sb ND" and ND*ND values (the third line after the head). */
static void take_state_b(nsc_pss_state *x, char *p)
{
    char *e;
    long nb = strtol(p, &e, 10), k = 0;
    if (e == p || nb < 0 || nb > 1000 || x->B
        || !(x->B = calloc((size_t)(nb * nb) + 1, sizeof(double)))) {
        nsc_pss_state_free(x);
        return;
    }
    x->nd = (int)nb;
    for (p = e; k < nb * nb; k++, p = e) {
        x->B[k] = strtod(p, &e);
        if (e == p || !isfinite(x->B[k])) break;
    }
    if (k != nb * nb || *p) nsc_pss_state_free(x);
    else x->z[x->n] = 4;
}

static void take_state(nsc_pss_state *x, char *line)
{
    char *p = line + 2, *e;
    if (!strncmp(line, "s ", 2)) {
        take_state_head(x, p);
        return;
    }
    /* x->z[x->n] counts the lines taken: 1 after "s", 2 after "sz", 3 after "sl", 4 after "sb" */
    if (!x->z) return;
    double got = x->z[x->n];
    if (!strncmp(line, "sb ", 3) && got == 3) {
        take_state_b(x, p);
        return;
    }
    if (!strncmp(line, "ss ", 3) && got == 4) {
        int k = 0;
        for (; k < x->nsw && (p[1] == '0' || p[1] == '1'); k++, p++) x->sw[k] = p[1] == '1';
        if (k != x->nsw || p[1]) nsc_pss_state_free(x);
        else x->z[x->n] = 0; /* complete */
        return;
    }
    int isz = !strncmp(line, "sz", 2) && got == 1, isl = !strncmp(line, "sl", 2) && got == 2, k = 0;
    int n = isz ? x->n : x->m;
    double *v = isz ? x->z : x->l;
    for (; (isz || isl) && k < n; k++, p = e) {
        v[k] = strtod(p, &e);
        if (e == p || !isfinite(v[k])) break;
    }
    if (!(isz || isl) || k != n || *p) nsc_pss_state_free(x);
    else x->z[x->n] = got + 1;
}

/* The lines of a finished job J into C and the row's values v[np + nmeas]:
 * *status (-1 when none came), *mk measures taken, *err the error line or
 * NULL; 1 when the result ended ("end"). */
static int take_lines(nsc_study *S, nsc_study_tally *C, const job *J, double *v, int *status,
                      int *mk, char **err)
{
    int np = S->plan.naxis, nm = S->nmeas, ended = 0;
    char *save = NULL;
    for (char *line = strtok_r(J->buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        double tp, tr, tm, ts, steps, mu;
        long lcps;
        int fz, it, warm;
        if (!strncmp(line, "nscircuit-point ", 16)) *status = atoi(line + 16);
        else if (sscanf(line, "info %la %la %la %la %lf %ld %d", &tp, &tr, &tm, &ts, &steps, &lcps,
                        &fz)
                 == 7) {
            C->t_parse += tp;
            C->t_run += tr;
            C->t_meas += tm;
            C->t_setup += ts;
            C->steps += steps;
            C->nres++;
        } else if (!strncmp(line, "m ", 2) && *mk < nm) v[np + (*mk)++] = strtod(line + 2, NULL);
        else if (line[0] == 's' && S->warm) take_state(&S->warm[J->pos], line);
        else if (sscanf(line, "p %d %d %la", &it, &warm, &mu) == 3) {
            C->shoot += it;
            C->nwarm += warm != 0;
            C->nsteady++;
            if (mu > C->mu_max) C->mu_max = mu; /* (NAN: not computed) */
        } else if (!strncmp(line, "w ", 2) && S->hooks.warning)
            S->hooks.warning(S->hooks.ctx, J->point, line + 2);
        else if (!strncmp(line, "e ", 2)) *err = line + 2;
        else if (!strcmp(line, "end")) ended = 1;
    }
    return ended;
}

/* A finished job's output (the status of its process in wst) as a row of C->T. */
static nsc_status take_result(nsc_study *S, nsc_study_tally *C, const job *J, int wst)
{
    int np = S->plan.naxis, nm = S->nmeas;
    double *v = nsc_calloc((size_t)(np + nm) + 1, sizeof *v);
    if (!v) return NSC_ENOMEM;
    nsc_plan_point(&S->plan, J->point, v);
    for (int k = 0; k < nm; k++) v[np + k] = NAN;
    int status = -1, mk = 0;
    char *err = NULL;
    int ended = take_lines(S, C, J, v, &status, &mk, &err);
    char why[160] = "";
    if (!ended || status < 0 || mk != nm) { /* crashed, killed, or out of memory */
        if (J->timed_out)
            snprintf(why, sizeof why, "stopped after --point-timeout %g s", S->point_timeout);
        else if (WIFSIGNALED(wst))
            snprintf(why, sizeof why, "the point's process was killed by signal %d (%s)",
                     WTERMSIG(wst), strsignal(WTERMSIG(wst)));
        else
            snprintf(why, sizeof why, "the point's process ended without a result (exit status %d)",
                     WIFEXITED(wst) ? WEXITSTATUS(wst) : -1);
        err = why;
        status = 3;
        for (int k = 0; k < nm; k++) v[np + k] = NAN;
    }
    if (status) C->failed++;
    if (err && S->hooks.failed) S->hooks.failed(S->hooks.ctx, J->point, err);
    nsc_report r;
    nsc_report_init(&r);
    nsc_status s = nsc_sweep_table_add(&C->T, v, status, J->point, &r);
    nsc_report_free(&r);
    free(v);
    return s;
}

/* ---- the pool of points' processes ---- */

/* The points running and the poll set of their pipes. */
typedef struct pool {
    nsc_study *S;
    nsc_study_tally *C;
    job *J;
    struct pollfd *pf;
    int active, jobs;
} pool;

/* Start the point at position pos of the run in a new process whose output is
 * J[active]'s pipe: 0, or -1 when no process can be started. */
static int start_point(pool *P, long pos)
{
    int p[2];
    if (pipe(p)) return -1;
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    pid_t parent = getpid();
    fflush(NULL); /* nothing buffered is written twice */
    sigprocmask(SIG_BLOCK, &block, &old);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGKILL);  /* the study's process died: so do its points */
        if (getppid() != parent) _exit(4); /* it died before prctl */
#endif
        sigprocmask(SIG_SETMASK, &old, NULL);
        close(p[0]);
        for (int k = 0; k < P->active; k++) {
            close(P->J[k].fd);
            free(P->J[k].buf);
        }
        free(P->J);
        free(P->pf);
        point_child(P->S, pos, p[1]);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return -1;
    }
    job *j = &P->J[P->active++];
    memset(j, 0, sizeof *j);
    j->pos = pos;
    j->point = P->S->sel[pos];
    j->pid = pid;
    j->fd = p[0];
    j->start = nsc_now();
    return 0;
}

/* After the process of point i ended without finishing (killed, crashed): the
 * temporaries its waveform writer left in the waveforms' directory (out.h:
 * renamed into place when complete) are removed; the process is gone, so they
 * are stale. */
static void reap_point(const nsc_study *S, long i)
{
    char *w = nsc_study_wave_path(S, i);
    if (w) nsc_reap_stale(w);
    free(w);
}

/* Point J[k]'s pipe closed: wait for its process, take its row, free J[k]
 * (the last job takes its place). */
static void collect_point(pool *P, int k)
{
    job *j = &P->J[k];
    close(j->fd);
    int wst = 0;
    while (waitpid(j->pid, &wst, 0) < 0 && errno == EINTR) {}
    if (!WIFEXITED(wst) || WEXITSTATUS(wst)) reap_point(P->S, j->point);
    if (!j->buf) j->buf = calloc(1, 1);
    if (j->buf) j->buf[j->len] = 0;
    if (j->buf) take_result(P->S, P->C, j, wst);
    free(j->buf);
    P->J[k] = P->J[P->active - 1];
    P->pf[k] = P->pf[P->active - 1];
    P->active--;
}

/* Read what the ready pipes hold (nr of them ready): the number of points
 * that finished. */
static long read_points(pool *P, int nr)
{
    long done = 0;
    for (int k = 0; nr > 0 && k < P->active; k++) {
        if (!P->pf[k].revents) continue;
        job *j = &P->J[k];
        if (j->len + 4097 > j->cap) {
            size_t cap = j->cap ? 2 * j->cap : 8192;
            char *nb = realloc(j->buf, cap);
            if (!nb) continue;
            j->buf = nb;
            j->cap = cap;
        }
        ssize_t got = read(j->fd, j->buf + j->len, j->cap - j->len - 1);
        if (got < 0 && errno == EINTR) continue;
        if (got > 0) {
            j->len += (size_t)got;
            continue;
        }
        collect_point(P, k); /* end of the point's output */
        k--;
        done++;
    }
    return done;
}

/* Kill the points over point_timeout (their pipes close: collected then). */
static void time_out(pool *P)
{
    double lim = P->S->point_timeout;
    for (int k = 0; lim > 0 && k < P->active; k++)
        if (!P->J[k].timed_out && nsc_now() - P->J[k].start > lim) {
            kill(P->J[k].pid, SIGKILL);
            P->J[k].timed_out = 1;
        }
}

/* Stopped: end the running points, tidy what they were writing. */
static void stop_points(pool *P)
{
    for (int k = 0; k < P->active; k++) {
        kill(P->J[k].pid, SIGTERM);
        close(P->J[k].fd);
        while (waitpid(P->J[k].pid, NULL, 0) < 0 && errno == EINTR) {}
        reap_point(P->S, P->J[k].point);
        free(P->J[k].buf);
    }
    P->active = 0;
}

nsc_status nsc_study_run(nsc_study *S, nsc_study_tally *C, int jobs, volatile sig_atomic_t *stop,
                         nsc_report *r)
{
    pool P = {
        S, C, nsc_calloc((size_t)jobs, sizeof *P.J), nsc_calloc((size_t)jobs, sizeof *P.pf), 0, jobs
    };
    if (!P.J || !P.pf) {
        free(P.J);
        free(P.pf);
        return nsc_oom(r);
    }
    nsc_status s = NSC_OK;
    long next = 0, done = 0, nsel = S->nsel;
    while (!(stop && *stop) && (next < nsel || P.active > 0)) {
        while (P.active < jobs && next < nsel && !(stop && *stop) && !start_point(&P, next)) next++;
        if (P.active <= 0) { /* cannot start any process */
            s = nsc_err(r, NSC_ESIM, NULL, "cannot start a process for a point: %s",
                        strerror(errno));
            break;
        }
        for (int k = 0; k < P.active; k++) {
            P.pf[k].fd = P.J[k].fd;
            P.pf[k].events = POLLIN;
            P.pf[k].revents = 0;
        }
        int nr = poll(P.pf, (nfds_t)P.active, 250);
        if (nr < 0 && errno != EINTR) break;
        time_out(&P);
        done += read_points(&P, nr);
        if (S->hooks.progress) S->hooks.progress(S->hooks.ctx, done, nsel, C->failed);
    }
    stop_points(&P);
    free(P.J);
    free(P.pf);
    return s;
}
