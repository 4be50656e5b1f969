/* cmd_sweep.c -- `nscircuit sweep`: a parameter study (sweep.h) run as one
 * process per point, at most -j at a time, and `nscircuit sweep --merge`.
 *
 * The study reads the netlist once (a deck, netlist.h); a point's process,
 * forked, elaborates that deck with its overrides, runs it (run.h, as the
 * program does) and writes its result to a pipe (protocol below); the parent
 * collects the results in point order. A point that fails, crashes or is
 * killed only marks its own row (measures nan, status 3), so the study always
 * completes; the temporaries a killed point's waveform writer left are
 * removed. Rows do not depend on -j: each point is computed alone, from the
 * deck, by the same code.
 *
 * Result protocol (text, one item per line):
 *     nscircuit-point STATUS
 *     info T_PARSE T_RUN T_MEAS T_SETUP STEPS LCPS FACTORISATIONS
 *     m VALUE            (nmeas lines, C99 hex floats: exact)
 *     w WARNING          (any number)
 *     e ERROR            (at most one)
 *     end */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "output/out.h"
#include "analysis/sweep.h"
#include "output/out_sweep.h"

const char nsc_sweep_usage[] =
    "usage: nscircuit sweep circuit.cir [--param NAME=START:STOP:N ...] [options]\n"
    "       nscircuit sweep --merge TABLE... [-o PREFIX] [--csv] [--no-plot]\n"
    "\n"
    "Runs the netlist at every point of the Cartesian product of the swept parameters\n"
    "(--param ranges and the .step cards of the netlist), each point a full transient\n"
    "with its .meas cards evaluated (.meas ac on its .ac sweep), one process per\n"
    "point, and writes one row per point to PREFIX.sweep.dat: the parameters, the\n"
    "measures (.meas tran, then .meas ac), status (0 ok, 1 netlist\n"
    "error, 3 simulation failure; failed measures are nan) and the point's index.\n"
    "\n"
    "sweep options:\n"
    "  --param NAME=START:STOP:N   sweep a .param over N values (repeatable; the first\n"
    "                      parameter varies fastest); NAME=V1,V2,... a list;\n"
    "                      NAME=VALUE a fixed override\n"
    "  --log               geometric instead of even spacing of START:STOP:N\n"
    "  -j N                points run at once (default: the number of processors)\n"
    "  --shard K/N         run only the points i with i mod N = K-1 (cluster job K of N);\n"
    "                      default PREFIX: circuit.shardKofN\n"
    "  --merge             join shard tables (the arguments) into the whole study's table\n"
    "  -o PREFIX           outputs PREFIX.sweep.dat, .sweep.gp, .sweep.png (default: the\n"
    "                      netlist's name in the current directory)\n"
    "  --csv               also write PREFIX.sweep.csv\n"
    "  --keep-waves        also write each point's waveforms, PREFIX.waves/pNNNN.dat\n"
    "  --no-plot           do not render PREFIX.sweep.png (the script is still written)\n"
    "  --point-timeout S   a point running longer than S seconds is stopped and fails\n"
    "  --yes               run a study of more than 10000 points (else refused)\n"
    "  --steady            each point's periodic steady state (as a .pss card), started\n"
    "                      from the nearest finished point's; the .meas are over its\n"
    "                      steady period and two columns follow them: efficiency\n"
    "                      and losses (W), as --losses computes them\n"
    "  --period T          the steady state's period (implies --steady)\n"
    "  --cold              every steady point from its own operating point (rows then\n"
    "                      do not depend on -j or the order of the points)\n"
    "  -I DIR, --step, --tstop, --theta, --solver, --save, --stats, --progress, --quiet:\n"
    "                      as for a run\n"
    "\n"
    "exit status: 0 every point succeeded, 1 netlist error, 2 usage error or tables\n"
    "that do not merge, 3 some point failed (its row says which)\n";

static volatile sig_atomic_t stop_flag;
static void on_signal(int sig) { stop_flag = sig; }

static int fail(const char *fmt, const char *arg)
{
    return nsc_usage_error("nscircuit sweep", fmt, arg);
}

static int ncpu(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* ---- the outputs of a table ---- */

/* PREFIX.sweep.dat (+ .csv, .gp, .png; unit: of T's columns for the picture, or
 * NULL); 0 or the exit status of a write error */
static int write_outputs(const nsc_sweep_table *T, const char *const *unit, const char *prefix, int csv, int gp,
                         int png, int quiet)
{
    nsc_report r;
    nsc_report_init(&r);
    char *dat = nsc_asprintf("%s.sweep.dat", prefix), *cs = nsc_asprintf("%s.sweep.csv", prefix);
    char *gpp = nsc_asprintf("%s.sweep.gp", prefix), *pngp = nsc_asprintf("%s.sweep.png", prefix);
    nsc_status s = !dat || !cs || !gpp || !pngp ? nsc_oom(&r) : NSC_OK;
    if (!s) s = nsc_sweep_write(T, dat, 0, &r);
    if (!s && csv) s = nsc_sweep_write(T, cs, 1, &r);
    if (!s && gp) s = nsc_sweep_write_gp(T, unit, dat, gpp, pngp, &r);
    int rendered = 0;
    if (!s && gp && png) {
        nsc_report g;                                  /* no gnuplot: the table still stands */
        nsc_report_init(&g);
        if (nsc_render_gp(gpp, &g)) fprintf(stderr, "nscircuit: warning: no plot: %s\n", g.error ? g.error : "gnuplot failed");
        else rendered = 1;
        nsc_report_free(&g);
    }
    nsc_print_report(&r);
    if (!s && !quiet) {
        fprintf(stderr, "nscircuit: wrote %s", dat);
        if (csv) fprintf(stderr, ", %s", cs);
        if (gp) fprintf(stderr, ", %s", gpp);
        if (rendered) fprintf(stderr, ", %s", pngp);
        fputc('\n', stderr);
    }
    nsc_report_free(&r);
    free(dat); free(cs); free(gpp); free(pngp);
    return s ? nsc_exit_status(s) : 0;
}

/* 2 (printed) when an output PREFIX.sweep.{dat,csv,gp,png} is one of the inputs
 * in[nin] (the netlist, the merged tables), else 0 (3 out of memory). */
static int outputs_clash(const char *prefix, char *const *in, int nin)
{
    const char *suf[] = { ".sweep.dat", ".sweep.csv", ".sweep.gp", ".sweep.png" };
    for (int k = 0; k < 4; k++) {
        char *o = nsc_asprintf("%s%s", prefix, suf[k]);
        if (!o) return 3;
        int clash = nsc_output_is_input(&o, 1, in, nin) != NULL;
        if (clash) fprintf(stderr, "nscircuit: error: the output '%s' is an input of this study: choose another "
                                   "prefix with -o\n", o);
        free(o);
        if (clash) return 2;
    }
    return 0;
}

/* ---- a point's process ---- */

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

typedef struct study {
    const nsc_sweep_args *a;
    const nsc_deck *deck;   /* the netlist, read once: every point elaborates it */
    nsc_plan plan;
    int nmeas;
    char **meas;            /* [nmeas] names */
    char *wavedir;          /* PREFIX.waves or NULL */
    int wavewidth;
    int steady;             /* points run as periodic steady states: two more columns */
    nsc_pss_state *warm;    /* [nsel] steady: the state each finished point found (by position in sel) */
    long *sel;              /* [nsel] the points of this run */
    long nsel;
    int shard_k, shard_n;   /* 1/1: the whole study */
    nsc_deck *deck_own;     /* the deck when the study read it (else a->deck) */
    nsc_circuit *c;         /* the netlist with the fixed overrides */
    char *prefix;           /* of the outputs */
} study;

/* The columns a steady study adds after the measures. */
static const char *const steady_cols[] = { "efficiency", "losses" };

/* The steady state to start point sel[pos] from: the finished point nearest
 * before it in the run that differs from it only in the first axis (the
 * sweep's own neighbour), NULL if none has finished. */
static const nsc_pss_state *warm_for(const study *S, long pos)
{
    if (!S->warm || S->a->cold) return NULL;
    long n0 = S->plan.naxis > 0 ? S->plan.axis[0].n : 1, i = S->sel[pos];
    for (long j = pos - 1; j >= 0 && S->sel[j] / n0 == i / n0; j--)
        if (S->warm[j].z) return &S->warm[j];
    return NULL;
}

/* The state line protocol of a steady point: "s N M NSW PERIOD", "sz" N values,
 * "sl" M values, "ss" NSW digits. */
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

/* PREFIX.waves/pNNNN.dat, the waveforms of point i (new), or NULL without --keep-waves. */
static char *wave_path(const study *S, long i)
{
    return S->wavedir ? nsc_asprintf("%s/p%0*ld.dat", S->wavedir, S->wavewidth, i) : NULL;
}

/* In the child: run point i and write its result to fd. Never returns. Everything
 * it allocates is freed; what it inherited from the parent is left alone. */
static void point_child(const study *S, long pos, int fd)
{
    long i = S->sel[pos];
    const nsc_sweep_args *a = S->a;
    int np = S->plan.naxis, nov = a->nfixed + np;
    nsc_param_set *ov = nsc_calloc((size_t)nov + 1, sizeof *ov);
    double *pv = nsc_calloc((size_t)np + 1, sizeof *pv), *meas = nsc_calloc((size_t)S->nmeas + 3, sizeof *meas);
    char *wave = wave_path(S, i);
    if (!ov || !pv || !meas || (S->wavedir && !wave)) _exit(4);
    for (int k = 0; k < a->nfixed; k++) ov[k] = a->fixed[k];
    nsc_plan_point(&S->plan, i, pv);
    for (int k = 0; k < np; k++) {                     /* the point's values win over fixed ones */
        ov[a->nfixed + k].name = S->plan.axis[k].name;
        ov[a->nfixed + k].value = pv[k];
    }
    nsc_report r;
    nsc_report_init(&r);
    nsc_point_info info;
    nsc_point_steady ps;
    memset(&ps, 0, sizeof ps);
    ps.start = warm_for(S, pos);
    int nm = S->nmeas - (S->steady ? 2 : 0);           /* the .meas cards' */
    nsc_status s = nsc_point_run(S->deck, ov, nov, &a->cfg, nm, meas, wave, a->stats, NULL,
                                 S->steady ? &ps : NULL, &info, &r);
    if (S->steady) { meas[nm] = ps.efficiency; meas[nm + 1] = ps.losses; }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) _exit(4);
    fprintf(f, "nscircuit-point %d\ninfo %a %a %a %a %ld %ld %d\n", nsc_exit_status(s), info.t_parse, info.t_run,
            info.t_meas, info.t_setup, info.st.steps, info.st.lcps, info.st.factorizations);
    for (int k = 0; k < S->nmeas; k++) fprintf(f, "m %a\n", meas[k]);
    if (!s && S->steady) fprintf(f, "p %d %d %a\n", ps.iterations, ps.warm, ps.mu_abs);
    if (!s) put_state(f, &ps.end);
    for (int k = 0; k < r.nwarn; k++) put_line(f, 'w', r.warn[k]);
    if (r.error) put_line(f, 'e', r.error);
    fprintf(f, "end\n");
    int bad = fclose(f) || write_all(fd, text, len);
    close(fd);
    free(text);
    nsc_report_free(&r);
    free(ov); free(pv); free(meas); free(wave);
    nsc_pss_state_free(&ps.end);
    _exit(bad ? 4 : 0);                                /* not exit(): the parent's state is not ours to finish */
}

/* ---- the parent: jobs, results, messages ---- */

typedef struct job {
    long point;
    long pos;               /* its position in the run's points */
    pid_t pid;
    int fd;
    char *buf;
    size_t len, cap;
    double start;           /* nsc_now() when started */
    int timed_out;          /* killed for --point-timeout */
} job;

typedef struct collect {
    study *S;
    nsc_sweep_table T;
    char **seen;            /* warnings shown (text without the point) */
    int nseen, capseen;
    long repeated;          /* warnings not shown again */
    long failed;
    double t_parse, t_run, t_meas, t_setup, steps;
    long nres;
    long shoot, nwarm, nsteady;   /* steady points: shooting periods, warm starts, points */
    double mu_max;                /* the largest Floquet multiplier's modulus over them */
} collect;

/* "point 3 (l1=5e-06, c1=2.2e-05)" */
static char *point_label(const study *S, long i)
{
    double *v = nsc_calloc((size_t)S->plan.naxis + 1, sizeof *v);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = v ? open_memstream(&buf, &len) : NULL;
    if (!f) { free(v); return NULL; }
    nsc_plan_point(&S->plan, i, v);
    fprintf(f, "point %ld (", i);
    for (int k = 0; k < S->plan.naxis; k++) fprintf(f, "%s%s=%g", k ? ", " : "", S->plan.axis[k].name, v[k]);
    fputc(')', f);
    fclose(f);
    free(v);
    return buf;
}

/* 1 if w was seen before, else 0 (and w is remembered, up to 1000 texts) */
static int remember(collect *C, const char *w)
{
    for (int k = 0; k < C->nseen; k++)
        if (!strcmp(C->seen[k], w)) return 1;
    if (C->nseen < 1000 && !nsc_grow((void **)&C->seen, &C->capseen, C->nseen + 1, sizeof *C->seen) &&
        (C->seen[C->nseen] = nsc_strdup(w)))
        C->nseen++;
    return 0;
}

static void show_warning(collect *C, long i, const char *w)
{
    if (remember(C, w)) { C->repeated++; return; }
    char *lab = point_label(C->S, i);
    fprintf(stderr, "nscircuit: %s: %s\n", lab ? lab : "point", w);
    free(lab);
}

/* Parse a finished job's output (status of its process in wst) into a row. */
/* One line of put_state into x: counts checked before allocating (at most
 * NSC_STATE_MAX each), values and digits counted; a line that does not fit
 * leaves x empty (the next point starts cold). */
#define NSC_STATE_MAX 10000000
static void take_state(nsc_pss_state *x, char *line)
{
    char *p = line + 2, *e;
    if (!strncmp(line, "s ", 2)) {
        nsc_pss_state_free(x);
        nsc_pss_state y = { 0 };
        if (sscanf(p, "%d %d %d %la", &y.n, &y.m, &y.nsw, &y.period) != 4 || y.n < 0 || y.m < 0 || y.nsw < 0
            || y.n > NSC_STATE_MAX || y.m > NSC_STATE_MAX || y.nsw > NSC_STATE_MAX || !(y.period > 0))
            return;
        y.z = calloc((size_t)y.n + 1, sizeof(double));
        y.l = calloc((size_t)y.m + 1, sizeof(double));
        y.sw = calloc((size_t)y.nsw + 1, 1);
        if (y.z && y.l && y.sw) { *x = y; x->z[y.n] = 1; }  /* z[n] = 1: values still missing */
        else nsc_pss_state_free(&y);
        return;
    }
    /* x->z[x->n] counts the lines taken: 1 after "s", 2 after "sz", 3 after "sl", 4 after "sb" */
    if (!x->z) return;
    double got = x->z[x->n];
    if (!strncmp(line, "sb ", 3) && got == 3) {
        long nb = strtol(p, &e, 10), k = 0;
        if (e == p || nb < 0 || nb > 1000 || x->B || !(x->B = calloc((size_t)(nb * nb) + 1, sizeof(double)))) {
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
        return;
    }
    if (!strncmp(line, "ss ", 3) && got == 4) {
        int k = 0;
        for (; k < x->nsw && (p[1] == '0' || p[1] == '1'); k++, p++) x->sw[k] = p[1] == '1';
        if (k != x->nsw || p[1]) nsc_pss_state_free(x);
        else x->z[x->n] = 0;                           /* complete */
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

static nsc_status take_result(collect *C, const job *J, int wst)
{
    study *S = C->S;
    int np = S->plan.naxis, nm = S->nmeas;
    double *v = nsc_calloc((size_t)(np + nm) + 1, sizeof *v);
    if (!v) return NSC_ENOMEM;
    nsc_plan_point(&S->plan, J->point, v);
    for (int k = 0; k < nm; k++) v[np + k] = NAN;
    int status = -1, mk = 0, ended = 0;
    char *err = NULL;
    char *save = NULL;
    for (char *line = strtok_r(J->buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        double tp, tr, tm, ts, steps, mu;
        long lcps;
        int fz, it, warm;
        if (!strncmp(line, "nscircuit-point ", 16)) status = atoi(line + 16);
        else if (sscanf(line, "info %la %la %la %la %lf %ld %d", &tp, &tr, &tm, &ts, &steps, &lcps, &fz) == 7) {
            C->t_parse += tp; C->t_run += tr; C->t_meas += tm; C->t_setup += ts; C->steps += steps;
            C->nres++;
        } else if (!strncmp(line, "m ", 2) && mk < nm) v[np + mk++] = strtod(line + 2, NULL);
        else if (line[0] == 's' && S->warm) take_state(&S->warm[J->pos], line);
        else if (sscanf(line, "p %d %d %la", &it, &warm, &mu) == 3) {
            C->shoot += it;
            C->nwarm += warm != 0;
            C->nsteady++;
            if (mu > C->mu_max) C->mu_max = mu;                /* (NAN: not computed) */
        }
        else if (!strncmp(line, "w ", 2)) show_warning(C, J->point, line + 2);
        else if (!strncmp(line, "e ", 2)) err = line + 2;
        else if (!strcmp(line, "end")) ended = 1;
    }
    char why[160] = "";
    if (!ended || status < 0 || mk != nm) {           /* crashed, killed, or out of memory */
        if (J->timed_out) snprintf(why, sizeof why, "stopped after --point-timeout %g s", C->S->a->point_timeout);
        else if (WIFSIGNALED(wst)) snprintf(why, sizeof why, "the point's process was killed by signal %d (%s)",
                                       WTERMSIG(wst), strsignal(WTERMSIG(wst)));
        else snprintf(why, sizeof why, "the point's process ended without a result (exit status %d)",
                      WIFEXITED(wst) ? WEXITSTATUS(wst) : -1);
        err = why;
        status = 3;
        for (int k = 0; k < nm; k++) v[np + k] = NAN;
    }
    if (status) C->failed++;
    if (err) {
        char *lab = point_label(S, J->point);
        fprintf(stderr, "nscircuit: %s failed: %s\n", lab ? lab : "point", err);
        free(lab);
    }
    nsc_report r;
    nsc_report_init(&r);
    nsc_status s = nsc_sweep_table_add(&C->T, v, status, J->point, &r);
    nsc_report_free(&r);
    free(v);
    return s;
}

static void draw_progress(long done, long total, long failed, double t0, int *shown, int tty)
{
    double el = nsc_now() - t0;
    if (el < 1.0 && done < total) return;
    double f = total ? (double)done / (double)total : 1;
    char bar[31];
    int n = (int)(f * 30);
    for (int k = 0; k < 30; k++) bar[k] = k < n ? '#' : '.';
    bar[30] = 0;
    double left = done ? el * (double)(total - done) / (double)done : 0;
    fprintf(stderr, "\rnscircuit: sweep [%s] %ld/%ld points, %ld failed, %.0f s left  ", bar, done, total, failed, left);
    if (!tty) fputc('\n', stderr);
    *shown = 1;
}

/* The points running and the poll set of their pipes. */
typedef struct pool {
    job *J;
    struct pollfd *pf;
    int active, jobs;
} pool;

/* Start the point at position pos of the run in a new process whose output is
 * J[active]'s pipe: 0, or -1 when no process can be started. */
static int start_point(collect *C, pool *P, long pos)
{
    int p[2];
    if (pipe(p)) return -1;
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    pid_t parent = getpid();
    fflush(NULL);                                      /* nothing buffered is written twice */
    sigprocmask(SIG_BLOCK, &block, &old);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGKILL);              /* the study's process died: so do its points */
        if (getppid() != parent) _exit(4);             /* it died before prctl */
#endif
        sigprocmask(SIG_SETMASK, &old, NULL);
        close(p[0]);
        for (int k = 0; k < P->active; k++) { close(P->J[k].fd); free(P->J[k].buf); }
        free(P->J);
        free(P->pf);
        point_child(C->S, pos, p[1]);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(p[1]);
    if (pid < 0) { close(p[0]); return -1; }
    job *j = &P->J[P->active++];
    memset(j, 0, sizeof *j);
    j->pos = pos;
    j->point = C->S->sel[pos];
    j->pid = pid;
    j->fd = p[0];
    j->start = nsc_now();
    return 0;
}

/* After the process of point i ended without finishing (killed, crashed): the
 * temporaries its waveform writer left in PREFIX.waves (out.h: renamed into
 * place when complete) are removed; the process is gone, so they are stale. */
static void reap_point(const study *S, long i)
{
    char *w = wave_path(S, i);
    if (w) nsc_reap_stale(w);
    free(w);
}

/* Point J[k]'s pipe closed: wait for its process, take its row, free J[k]
 * (the last job takes its place). */
static void collect_point(collect *C, pool *P, int k)
{
    job *j = &P->J[k];
    close(j->fd);
    int wst = 0;
    while (waitpid(j->pid, &wst, 0) < 0 && errno == EINTR) {}
    if (!WIFEXITED(wst) || WEXITSTATUS(wst)) reap_point(C->S, j->point);
    if (!j->buf) j->buf = calloc(1, 1);
    if (j->buf) j->buf[j->len] = 0;
    if (j->buf) take_result(C, j, wst);
    free(j->buf);
    P->J[k] = P->J[P->active - 1];
    P->pf[k] = P->pf[P->active - 1];
    P->active--;
}

/* Read what the ready pipes hold (nr of them ready): the number of points
 * that finished. */
static long read_points(collect *C, pool *P, int nr)
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
        if (got > 0) { j->len += (size_t)got; continue; }
        collect_point(C, P, k);                        /* end of the point's output */
        k--;
        done++;
    }
    return done;
}

/* Kill the points over --point-timeout (their pipes close: collected then). */
static void time_out(const collect *C, pool *P)
{
    double lim = C->S->a->point_timeout;
    for (int k = 0; lim > 0 && k < P->active; k++)
        if (!P->J[k].timed_out && nsc_now() - P->J[k].start > lim) {
            kill(P->J[k].pid, SIGKILL);
            P->J[k].timed_out = 1;
        }
}

/* Interrupted: stop the running points, tidy what they were writing. */
static void stop_points(collect *C, pool *P)
{
    for (int k = 0; k < P->active; k++) {
        kill(P->J[k].pid, SIGTERM);
        close(P->J[k].fd);
        while (waitpid(P->J[k].pid, NULL, 0) < 0 && errno == EINTR) {}
        reap_point(C->S, P->J[k].point);
        free(P->J[k].buf);
    }
    P->active = 0;
}

/* Run the points sel[0..nsel) with at most jobs processes. Returns 0, 3 when no
 * process can be started, or 128+signal when interrupted. */
static int run_points(collect *C, const long *sel, long nsel, int jobs, int progress)
{
    pool P = { nsc_calloc((size_t)jobs, sizeof *P.J), nsc_calloc((size_t)jobs, sizeof *P.pf), 0, jobs };
    if (!P.J || !P.pf) { free(P.J); free(P.pf); return 3; }
    int shown = 0, tty = isatty(2), status = 0;
    long next = 0, done = 0;
    double t0 = nsc_now(), tdraw = 0;
    while (!stop_flag && (next < nsel || P.active > 0)) {
        while (P.active < jobs && next < nsel && !stop_flag && !start_point(C, &P, next)) next++;
        if (P.active <= 0) {                           /* cannot start any process */
            fprintf(stderr, "nscircuit: error: cannot start a process for a point: %s\n", strerror(errno));
            status = 3;
            break;
        }
        for (int k = 0; k < P.active; k++) { P.pf[k].fd = P.J[k].fd; P.pf[k].events = POLLIN; P.pf[k].revents = 0; }
        int nr = poll(P.pf, (nfds_t)P.active, 250);
        if (nr < 0 && errno != EINTR) break;
        time_out(C, &P);
        done += read_points(C, &P, nr);
        if (progress && (nsc_now() - tdraw > (tty ? 0.1 : 10) || done == nsel)) {
            draw_progress(done, nsel, C->failed, t0, &shown, tty);
            tdraw = nsc_now();
        }
    }
    if (shown && tty) fputs("\r\033[K", stderr);
    stop_points(C, &P);
    free(P.J);
    free(P.pf);
    return status ? status : stop_flag ? 128 + (int)stop_flag : 0;
}

/* ---- the study ---- */

/* An axis of the plan as a word: its name and values as numbers to 15
 * significant digits ("3n", parsed as 3 * 1e-9, and "3e-9" are one value,
 * though they differ in the last bit). */
static char *axis_word(const nsc_axis *x)
{
    size_t cap = strlen(x->name) + 32 * (size_t)x->n + 16, len;
    char *w = malloc(cap);
    if (!w) return NULL;
    len = (size_t)snprintf(w, cap, "axis %s %d", x->name, x->logscale);
    for (int i = 0; i < x->n && len < cap; i++) len += (size_t)snprintf(w + len, cap - len, " %.15g", x->val[i]);
    return w;
}

/* The words that define a study besides the bytes of its files (nsc_study_id):
 * the fixed values, the plan (its axes' values), --log, the run options. */
static char *study_of(const study *S)
{
    const nsc_sweep_args *a = S->a;
    int n = 0, cap = 2 * a->nfixed + S->plan.naxis + 8;
    char **w = nsc_calloc((size_t)cap, sizeof *w);
    if (!w) return NULL;
    for (int k = 0; k < a->nfixed; k++) w[n++] = nsc_asprintf("fixed %s=%.15g", a->fixed[k].name, a->fixed[k].value);
    for (int k = 0; k < S->plan.naxis; k++) w[n++] = axis_word(&S->plan.axis[k]);
    w[n++] = nsc_asprintf("log %d", a->logscale);      /* not the shard: shards share their study */
    w[n++] = nsc_asprintf("run %.17g %.17g %.17g %s %s", a->cfg.step, a->cfg.tstop, a->cfg.theta,
                          a->cfg.solver ? a->cfg.solver : "", a->cfg.save ? a->cfg.save : "");
    if (a->cfg.steady || a->cfg.period > 0) w[n++] = nsc_asprintf("steady %.17g", a->cfg.period);
    int ok = 1;
    for (int k = 0; k < n; k++) ok &= w[k] != NULL;
    char *const *files;
    int nfiles = nsc_deck_files(S->deck, &files);
    char *id = ok ? nsc_study_id(files, nfiles, w, n) : NULL;
    for (int k = 0; k < n; k++) free(w[k]);
    free(w);
    return id;
}

/* The units of the table's columns (the picture's labels): what each swept
 * parameter sets, what each .meas card measures, efficiency and losses of a
 * steady study ("1", W). NULL out of memory (the picture then has fewer units). */
static const char **column_units(const nsc_sweep_args *a, const nsc_circuit *c, const study *S)
{
    int np = S->plan.naxis;
    const char **u = nsc_calloc((size_t)(np + S->nmeas) + 1, sizeof *u);
    if (!u) return NULL;
    for (int k = 0; k < np; k++)
        u[k] = nsc_param_unit(S->deck, a->fixed, a->nfixed, c, S->plan.axis[k].name);
    int nm = c->job.nmeas + c->job.nacmeas;
    for (int k = 0; k < c->job.nmeas; k++) u[np + k] = nsc_meas_unit(c, k);
    for (int k = c->job.nmeas; k < nm; k++) u[np + k] = nsc_acmeas_unit(&c->job.acmeas[k - c->job.nmeas]);
    for (int k = nm; k < S->nmeas; k++) u[np + k] = k == nm ? "1" : "W";
    return u;
}

/* The plan of the study: the .step cards of S->c, the --param ranges, then the
 * fixed values of swept parameters (one-value axes). */
static nsc_status study_plan(study *S, nsc_report *rep)
{
    const nsc_sweep_args *a = S->a;
    nsc_status s = nsc_plan_steps(&S->plan, S->c, rep);
    for (int k = 0; !s && k < a->nrange; k++) {
        char *name;
        double *val;
        int n;
        if ((s = nsc_param_spec(a->range[k], a->logscale, &name, &val, &n, rep))) break;
        if (!nsc_circuit_has_param(S->c, name)) s = nsc_err(rep, NSC_ENETLIST, NULL, "--param %s: no .param named %s", a->range[k], name);
        else s = nsc_plan_set(&S->plan, name, val, n, a->logscale && n > 2, rep);
        free(name);
        free(val);
    }
    for (int k = 0; !s && k < a->nfixed; k++)           /* a fixed value of a swept parameter */
        for (int j = 0; !s && j < S->plan.naxis; j++)
            if (nsc_strieq(S->plan.axis[j].name, a->fixed[k].name))
                s = nsc_plan_set(&S->plan, S->plan.axis[j].name, &a->fixed[k].value, 1, 0, rep);
    if (!s && S->plan.naxis == 0)
        s = nsc_err(rep, NSC_EUSAGE, NULL, "nothing to sweep: give --param NAME=START:STOP:N or add a .step card");
    return s;
}

/* The study's netlist (its deck read once, or the caller's), its circuit with
 * the fixed overrides, the plan and the checks every point would repeat; the
 * messages printed, its warnings remembered (not shown again per point).
 * 0 or the exit status. */
static int study_read(study *S, collect *C)
{
    const nsc_sweep_args *a = S->a;
    nsc_report rep;
    nsc_report_init(&rep);
    nsc_status s = NSC_OK;
    S->deck = a->deck;
    if (!S->deck && !(s = nsc_deck_read(a->netlist, a->cfg.inc, &S->deck_own, &rep))) S->deck = S->deck_own;
    if (!s) s = nsc_deck_elab(S->deck, a->fixed, a->nfixed, &S->c, &rep);
    if (!s) s = study_plan(S, &rep);
    nsc_tran_opts o;
    if (!s) s = nsc_run_opts(S->c, &a->cfg, &o, &rep);
    if (!s) s = nsc_run_check(S->c, &a->cfg, &o, 0, &rep);
    if (!s && S->c->job.nmeas + S->c->job.nacmeas == 0)
        nsc_warn(&rep, NULL, "no .meas cards: the table holds the parameters and the status of each point");
    if (!s && S->c->job.has_op) nsc_note(&rep, &S->c->job.op_loc, "%s", ".op is not run at the points of a sweep");
    nsc_print_report(&rep);
    for (int k = 0; !s && k < rep.nwarn; k++) remember(C, rep.warn[k]);
    nsc_report_free(&rep);
    return s ? nsc_exit_status(s) : 0;
}

/* The columns after the parameters (the .meas cards', then efficiency and
 * losses of a steady study) and the points of this run (its shard): 0 or the
 * exit status. */
static int study_points(study *S)
{
    const nsc_sweep_args *a = S->a;
    const nsc_circuit *c = S->c;
    S->steady = nsc_run_steady(c, &a->cfg);
    int nm = c->job.nmeas + c->job.nacmeas;                     /* .meas tran, then .meas ac */
    S->nmeas = nm + (S->steady ? 2 : 0);
    if (!(S->meas = nsc_calloc((size_t)S->nmeas + 1, sizeof *S->meas))) return 3;
    for (int k = 0; k < nm; k++) S->meas[k] = k < c->job.nmeas ? c->job.meas[k].name : c->job.acmeas[k - c->job.nmeas].name;
    for (int k = 0; S->steady && k < 2; k++) S->meas[nm + k] = (char *)steady_cols[k];
    S->shard_k = a->shard_n ? a->shard_k : 1;
    S->shard_n = a->shard_n ? a->shard_n : 1;
    long npoint = S->plan.npoint;
    if (!(S->sel = nsc_calloc((size_t)(npoint / S->shard_n + 1), sizeof *S->sel))) return 3;
    for (long i = 0; i < npoint; i++)
        if (nsc_shard_has(i, S->shard_k, S->shard_n)) S->sel[S->nsel++] = i;
    if (S->steady && !(S->warm = nsc_calloc((size_t)S->nsel + 1, sizeof *S->warm))) return 3;
    if (S->nsel > NSC_SWEEP_CONFIRM && !a->yes) {
        fprintf(stderr, "nscircuit: error: %s: %ld points to run (more than %d): run them with 'nscircuit "
                        "sweep %s --yes', or split the study with --shard K/N\n", a->netlist, S->nsel, NSC_SWEEP_CONFIRM,
                a->netlist);
        return 2;
    }
    return 0;
}

/* The outputs' prefix (checked: no output is the netlist) and, with
 * --keep-waves, the waveforms' directory: 0 or the exit status. */
static int study_files(study *S)
{
    const nsc_sweep_args *a = S->a;
    char *st = nsc_stem(a->netlist);
    S->prefix = a->prefix ? nsc_strdup(a->prefix) : S->shard_n > 1 && st
              ? nsc_asprintf("%s.shard%dof%d", st, S->shard_k, S->shard_n) : st ? nsc_strdup(st) : NULL;
    free(st);
    if (!S->prefix) return 3;
    char *in1[] = { (char *)a->netlist };
    int status = outputs_clash(S->prefix, in1, 1);
    if (status || !a->keep_waves) return status;
    if (!(S->wavedir = nsc_asprintf("%s.waves", S->prefix))) return 3;
    if (mkdir(S->wavedir, 0777) && errno != EEXIST) {
        fprintf(stderr, "nscircuit: error: cannot create directory '%s': %s\n", S->wavedir, strerror(errno));
        return 1;
    }
    S->wavewidth = 4;
    for (long m = 10000; m < S->plan.npoint; m *= 10) S->wavewidth++;
    return 0;
}

/* The empty table of the run (its columns, the study's identity): 0 or 3. */
static int study_table(study *S, collect *C)
{
    char **pn = nsc_calloc((size_t)S->plan.naxis + 1, sizeof *pn);
    if (!pn) return 3;
    for (int k = 0; k < S->plan.naxis; k++) pn[k] = S->plan.axis[k].name;
    nsc_report rep;
    nsc_report_init(&rep);
    nsc_status s = nsc_sweep_table_init(&C->T, pn, S->plan.naxis, S->meas, S->nmeas, S->a->netlist, S->plan.npoint,
                                        S->shard_k, S->shard_n, &rep);
    free(pn);
    nsc_print_report(&rep);
    nsc_report_free(&rep);
    if (s) return 3;
    char *id = study_of(S);
    if (id) snprintf(C->T.study, sizeof C->T.study, "%s", id);
    free(id);
    return 0;
}

/* The points run, -j at a time, under the study's signal handlers: 0, 3, or
 * 128+signal when interrupted (the finished points' table then written). */
static int study_run(study *S, collect *C, int jobs)
{
    const nsc_sweep_args *a = S->a;
    if (!a->quiet && S->shard_n > 1)
        fprintf(stderr, "nscircuit: %s: %ld points (shard %d/%d of %ld), %d at a time\n", a->netlist, S->nsel,
                S->shard_k, S->shard_n, S->plan.npoint, jobs);
    else if (!a->quiet)
        fprintf(stderr, "nscircuit: %s: %ld points, %d at a time\n", a->netlist, S->nsel, jobs);
    struct sigaction sa, oint, oterm, ohup;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, &oint);
    sigaction(SIGTERM, &sa, &oterm);
    sigaction(SIGHUP, &sa, &ohup);
    int progress = !a->quiet && (a->progress || isatty(2));
    int rs = run_points(C, S->sel, S->nsel, jobs, progress);
    sigaction(SIGINT, &oint, NULL);
    sigaction(SIGTERM, &oterm, NULL);
    sigaction(SIGHUP, &ohup, NULL);
    if (rs > 128) {                                    /* the finished points, marked, then 128+signal */
        fprintf(stderr, "nscircuit: interrupted: %ld of %ld points done; the table holds them\n", C->T.nrow, S->nsel);
        C->T.partial = S->nsel;
        nsc_sweep_table_sort(&C->T);
        int ws = write_outputs(&C->T, NULL, S->prefix, a->csv, 0, 0, a->quiet);
        return ws ? ws : rs;
    }
    return rs;
}

/* The study's summary on stderr (--stats: the points' times). */
static void study_summary(const study *S, const collect *C, int jobs, double wall)
{
    const nsc_sweep_args *a = S->a;
    if (C->repeated && !a->quiet) fprintf(stderr, "nscircuit: %ld repeated warnings of other points not shown\n", C->repeated);
    if (a->quiet) return;
    struct rusage ru;                                  /* the points' processes, all waited for */
    double cpu = getrusage(RUSAGE_CHILDREN, &ru) ? 0 : (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
                 1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    fprintf(stderr, "nscircuit: %s: %ld points, %ld failed, -j %d, %.3f s (processor time of the points %.3f s)\n",
            a->netlist, S->nsel, C->failed, jobs, wall, cpu);
    if (a->stats && C->nres > 0) {
        double tot = C->t_parse + C->t_run + C->t_meas, n = (double)C->nres;
        fprintf(stderr, "nscircuit: per point (mean of %ld): read+elaborate %.3g ms, transient %.4g s (%.0f steps; "
                        "of which assembly + first factorisations %.3g ms), .meas %.3g ms\n",
                C->nres, 1e3 * C->t_parse / n, C->t_run / n, C->steps / n, 1e3 * C->t_setup / n, 1e3 * C->t_meas / n);
        fprintf(stderr, "nscircuit: what reuse across points could save at most: read+elaborate+assembly+first "
                        "factorisations = %.3g %% of the points' time (%.3f s of %.3f s)\n",
                tot > 0 ? 100 * (C->t_parse + C->t_setup) / tot : 0.0, C->t_parse + C->t_setup, tot);
    }
    if (a->stats && C->nsteady > 0)
        fprintf(stderr, "nscircuit: steady states: %ld of %ld points started from a neighbour's, %.3g shooting "
                        "periods per point; largest Floquet multiplier modulus %.3g\n", C->nwarm, C->nsteady,
                (double)C->shoot / (double)C->nsteady, C->mu_max);
}

static void study_free(study *S, collect *C)
{
    nsc_circuit_free(S->c);
    nsc_deck_free(S->deck_own);
    nsc_plan_free(&S->plan);
    for (long k = 0; S->warm && k < S->nsel; k++) nsc_pss_state_free(&S->warm[k]);
    free(S->warm);
    free(S->meas);
    free(S->wavedir);
    free(S->sel);
    free(S->prefix);
    nsc_sweep_table_free(&C->T);
    for (int k = 0; k < C->nseen; k++) free(C->seen[k]);
    free(C->seen);
}

int nsc_sweep(const nsc_sweep_args *a)
{
    study S;
    memset(&S, 0, sizeof S);
    S.a = a;
    nsc_plan_init(&S.plan);
    collect C;
    memset(&C, 0, sizeof C);
    C.S = &S;
    double t0 = nsc_now();
    int status = study_read(&S, &C);
    if (!status) status = study_points(&S);
    if (!status) status = study_files(&S);
    if (!status) status = study_table(&S, &C);
    int jobs = a->jobs > 0 ? a->jobs : ncpu();
    if (jobs > S.nsel) jobs = S.nsel > 0 ? (int)S.nsel : 1;
    if (!status) status = study_run(&S, &C, jobs);
    if (!status) {
        nsc_sweep_table_sort(&C.T);
        study_summary(&S, &C, jobs, nsc_now() - t0);
        const char **unit = S.shard_n == 1 ? column_units(a, S.c, &S) : NULL;
        status = write_outputs(&C.T, unit, S.prefix, a->csv, S.shard_n == 1, S.shard_n == 1 && !a->noplot, a->quiet);
        free(unit);
        if (!status && C.failed) status = 3;
    }
    study_free(&S, &C);
    return status;
}

/* ---- --merge ---- */

static int merge(char *const *paths, int n, const char *oprefix, int csv, int noplot, int quiet)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_sweep_table *part = nsc_calloc((size_t)n, sizeof *part), T;
    memset(&T, 0, sizeof T);
    int status = 0, nread = 0;
    char *prefix = NULL;
    if (!part) return 3;
    nsc_status s = NSC_OK;
    for (; !s && nread < n; nread++)
        if ((s = nsc_sweep_read(paths[nread], &part[nread], &r))) break;
    if (!s) s = nsc_sweep_merge(part, paths, n, &T, &r);
    nsc_print_report(&r);
    if (s) { status = s == NSC_ENOMEM ? 3 : 2; goto done; }
    prefix = oprefix ? nsc_strdup(oprefix) : nsc_stem(T.netlist);
    if (!prefix) { status = 3; goto done; }
    if ((status = outputs_clash(prefix, paths, n))) goto done;
    long failed = 0;
    for (long i = 0; i < T.nrow; i++) failed += T.status[i] != 0;
    if (!quiet) fprintf(stderr, "nscircuit: merged %d tables: %ld points of %s, %ld failed\n", n, T.nrow, T.netlist, failed);
    status = write_outputs(&T, NULL, prefix, csv, 1, !noplot, quiet);
    if (!status && failed) status = 3;
done:
    for (int k = 0; k < nread; k++) nsc_sweep_table_free(&part[k]);
    free(part);
    nsc_sweep_table_free(&T);
    nsc_report_free(&r);
    free(prefix);
    return status;
}

/* ---- options ---- */

enum { S_PARAM = 256, S_LOG, S_SHARD, S_MERGE, S_CSV, S_KEEP, S_NOPLOT,   /* the run's: NSC_RUN_LONGOPTS (cmd.h) */
       S_STATS, S_PROGRESS, S_QUIET, S_HELP, S_YES, S_PTIMEOUT, S_COLD };

/* The command line of `nscircuit sweep`. */
typedef struct sweep_cli {
    nsc_sweep_args a;
    nsc_param_set *fixed;   /* --param NAME=VALUE, [a.nfixed] */
    char **range;           /* the other --param, [a.nrange] */
    int merge_mode;         /* --merge */
    nsc_search_buf sb;      /* -I */
} sweep_cli;

/* --param arg: a fixed value (NAME=VALUE) or a range; -1, or 3 out of memory. */
static int take_param(sweep_cli *L, char *arg)
{
    char *eq = strchr(arg, '=');
    double v;
    if (eq && eq != arg && nsc_opt_number(eq + 1, &v) && !strchr(eq + 1, ',')) {   /* NAME=VALUE */
        nsc_param_set *nf = nsc_realloc_array(L->fixed, (size_t)L->a.nfixed + 1, sizeof *nf);
        if (!nf) return 3;
        L->fixed = nf;
        *eq = 0;
        L->fixed[L->a.nfixed].name = arg;
        L->fixed[L->a.nfixed++].value = v;
        return -1;
    }
    char **nr = nsc_realloc_array(L->range, (size_t)L->a.nrange + 1, sizeof *nr);
    if (!nr) return 3;
    L->range = nr;
    L->range[L->a.nrange++] = arg;
    return -1;
}

/* One option c with its argument into L: -1 to go on, else the exit status. */
static int take_option(sweep_cli *L, int c, char *arg, const char *word)
{
    nsc_sweep_args *a = &L->a;
    switch (c) {
    case 'o': a->prefix = arg; break;
    case 'I': if (nsc_search_add(&L->sb, arg)) return 3; break;
    case 'j': {
        char *e;
        long j = strtol(arg, &e, 10);
        if (e == arg || *e || j < 1 || j > 4096) return fail("-j needs a number of processes (1..4096), not '%s'", arg);
        a->jobs = (int)j;
        break;
    }
    case S_PARAM: return take_param(L, arg);
    case S_LOG: a->logscale = 1; break;
    case S_SHARD:
        if (!nsc_shard_parse(arg, &a->shard_k, &a->shard_n)) return fail("--shard needs K/N with 1 <= K <= N, not '%s'", arg);
        break;
    case S_MERGE: L->merge_mode = 1; break;
    case S_CSV: a->csv = 1; break;
    case S_KEEP: a->keep_waves = 1; break;
    case S_NOPLOT: a->noplot = 1; break;
    case S_PTIMEOUT:
        if (!nsc_opt_number(arg, &a->point_timeout) || a->point_timeout <= 0)
            return fail("--point-timeout needs a positive number of seconds, not '%s'", arg);
        break;
    case S_COLD: a->cold = 1; a->cfg.steady = 1; break;
    case S_STATS: a->stats = 1; break;
    case S_YES: a->yes = 1; break;
    case S_PROGRESS: a->progress = 1; break;
    case S_QUIET: a->quiet = 1; break;
    case S_HELP: fputs(nsc_sweep_usage, stdout); return 0;
    default:
        if (c >= NSC_RUNOPT_FIRST && c < NSC_RUNOPT_END) return nsc_run_option(&a->cfg, c, arg, "nscircuit sweep");
        return fail("unknown or incomplete option '%s'", word);
    }
    return -1;
}

int nsc_cmd_sweep(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "param", required_argument, 0, S_PARAM },   { "log", no_argument, 0, S_LOG },
        { "shard", required_argument, 0, S_SHARD },   { "merge", no_argument, 0, S_MERGE },
        { "csv", no_argument, 0, S_CSV },             { "keep-waves", no_argument, 0, S_KEEP },
        { "no-plot", no_argument, 0, S_NOPLOT },      NSC_RUN_LONGOPTS,
        { "stats", no_argument, 0, S_STATS },         { "progress", no_argument, 0, S_PROGRESS },
        { "quiet", no_argument, 0, S_QUIET },         { "help", no_argument, 0, S_HELP },
        { "yes", no_argument, 0, S_YES },             { "point-timeout", required_argument, 0, S_PTIMEOUT },
        { "cold", no_argument, 0, S_COLD },
        { 0, 0, 0, 0 }
    };
    sweep_cli L;
    memset(&L, 0, sizeof L);
    nsc_sweep_args *a = &L.a;
    int c, status = -1;
    optind = 1;
    opterr = 0;
    while (status < 0 && (c = getopt_long(argc, argv, "o:j:I:", longopts, NULL)) != -1)
        status = take_option(&L, c, optarg, argv[optind - 1]);
    if (status >= 0) goto out;
    if (L.merge_mode) {
        if (optind >= argc) status = fail("%s", "--merge needs the tables of the shards");
        else if (a->nrange || a->nfixed || a->shard_n || a->keep_waves)
            status = fail("%s", "--merge takes tables, -o, --csv, --no-plot and --quiet only");
        else status = merge(argv + optind, argc - optind, a->prefix, a->csv, a->noplot, a->quiet);
        goto out;
    }
    if (optind != argc - 1) { status = fail("%s", optind >= argc ? "no netlist given" : "more than one netlist given"); goto out; }
    a->netlist = argv[optind];
    a->fixed = L.fixed;
    a->range = L.range;
    if (!(a->cfg.inc = nsc_search_finish(&L.sb))) { status = 3; goto out; }
    status = nsc_sweep(a);
out:
    nsc_search_free(&L.sb);
    free(L.fixed);
    free(L.range);
    return status;
}
