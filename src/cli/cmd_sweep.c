/* cmd_sweep.c -- `nscircuit sweep`: a parameter study (sweep.h) run as one
 * process per point, at most -j at a time (study.h: the pool and its result
 * protocol), and `nscircuit sweep --merge`.
 *
 * Here: the command line, the study's files (the outputs' prefix, the
 * waveforms' directory), its signals (an interrupted study writes the table
 * of its finished points) and what it shows: each point's warnings once per
 * text, its failures, the progress line, the summary. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "cmd.h"
#include "output/out.h"
#include "analysis/study.h"
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
static void on_signal(int sig)
{
    stop_flag = sig;
}

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
static int write_outputs(const nsc_sweep_table *T, const char *const *unit, const char *prefix,
                         int csv, int gp, int png, int quiet)
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
        nsc_report g; /* no gnuplot: the table still stands */
        nsc_report_init(&g);
        if (nsc_render_gp(gpp, &g))
            fprintf(stderr, "nscircuit: warning: no plot: %s\n",
                    g.error ? g.error : "gnuplot failed");
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
    free(dat);
    free(cs);
    free(gpp);
    free(pngp);
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
        if (clash)
            fprintf(stderr,
                    "nscircuit: error: the output '%s' is an input of this study: choose another "
                    "prefix with -o\n",
                    o);
        free(o);
        if (clash) return 2;
    }
    return 0;
}

/* ---- the study: what the program shows of it ---- */

/* A study run by the program: the library's study (study.h) and what the
 * program adds (the outputs' prefix, the messages shown). */
typedef struct study {
    nsc_study st;
    nsc_study_tally C;
    const nsc_sweep_args *a;
    nsc_deck *deck_own;   /* the deck when the study read it (else a->deck) */
    nsc_circuit *c;       /* the netlist with the fixed overrides */
    char *prefix;         /* of the outputs */
    int shard_k, shard_n; /* 1/1: the whole study */
    char **seen;          /* warnings shown (text without the point) */
    int nseen, capseen;
    long repeated;            /* warnings not shown again */
    int progress, tty, shown; /* the progress line: drawn, on a terminal, shown */
    double t0, tdraw;         /* when the points started, when the progress line was drawn */
} study;

/* 1 if w was seen before, else 0 (and w is remembered, up to 1000 texts) */
static int remember(study *S, const char *w)
{
    for (int k = 0; k < S->nseen; k++)
        if (!strcmp(S->seen[k], w)) return 1;
    if (S->nseen < 1000 && !nsc_grow((void **)&S->seen, &S->capseen, S->nseen + 1, sizeof *S->seen)
        && (S->seen[S->nseen] = nsc_strdup(w)))
        S->nseen++;
    return 0;
}

/* The study's hooks (study.h): a point's warning, once per text. */
static void show_warning(void *ctx, long i, const char *w)
{
    study *S = ctx;
    if (remember(S, w)) {
        S->repeated++;
        return;
    }
    char *lab = nsc_study_point_label(&S->st, i);
    fprintf(stderr, "nscircuit: %s: %s\n", lab ? lab : "point", w);
    free(lab);
}

/* A point failed. */
static void show_failure(void *ctx, long i, const char *why)
{
    study *S = ctx;
    char *lab = nsc_study_point_label(&S->st, i);
    fprintf(stderr, "nscircuit: %s failed: %s\n", lab ? lab : "point", why);
    free(lab);
}

/* The progress line: on a terminal every 0.1 s, redrawn in place; else a line
 * every 10 s; after 1 s only, and when the last point is done. */
static void show_progress(void *ctx, long done, long total, long failed)
{
    study *S = ctx;
    if (!S->progress || (nsc_now() - S->tdraw <= (S->tty ? 0.1 : 10) && done != total)) return;
    S->tdraw = nsc_now();
    double el = nsc_now() - S->t0;
    if (el < 1.0 && done < total) return;
    double f = total ? (double)done / (double)total : 1;
    char bar[31];
    int n = (int)(f * 30);
    for (int k = 0; k < 30; k++) bar[k] = k < n ? '#' : '.';
    bar[30] = 0;
    double left = done ? el * (double)(total - done) / (double)done : 0;
    fprintf(stderr, "\rnscircuit: sweep [%s] %ld/%ld points, %ld failed, %.0f s left  ", bar, done,
            total, failed, left);
    if (!S->tty) fputc('\n', stderr);
    S->shown = 1;
}

/* The study's netlist (its deck read once, or the caller's), its circuit with
 * the fixed overrides, the plan and the checks every point would repeat; the
 * messages printed, its warnings remembered (not shown again per point).
 * 0 or the exit status. */
static int study_read(study *S)
{
    const nsc_sweep_args *a = S->a;
    nsc_report rep;
    nsc_report_init(&rep);
    nsc_status s = NSC_OK;
    S->st.deck = a->deck;
    if (!S->st.deck && !(s = nsc_deck_read(a->netlist, a->cfg.inc, &S->deck_own, &rep)))
        S->st.deck = S->deck_own;
    if (!s) s = nsc_deck_elab(S->st.deck, a->fixed, a->nfixed, &S->c, &rep);
    if (!s) s = nsc_study_plan(&S->st, S->c, a->range, a->nrange, &rep);
    nsc_tran_opts o;
    if (!s) s = nsc_run_opts(S->c, &a->cfg, &o, &rep);
    if (!s) s = nsc_run_check(S->c, &a->cfg, &o, 0, &rep);
    if (!s && S->c->job.nmeas + S->c->job.nacmeas == 0)
        nsc_warn(&rep, NULL,
                 "no .meas cards: the table holds the parameters and the status of each point");
    if (!s && S->c->job.has_op)
        nsc_note(&rep, &S->c->job.op_loc, "%s", ".op is not run at the points of a sweep");
    nsc_print_report(&rep);
    for (int k = 0; !s && k < rep.nwarn; k++) remember(S, rep.warn[k]);
    nsc_report_free(&rep);
    return s ? nsc_exit_status(s) : 0;
}

/* The columns after the parameters and the points of this run (its shard),
 * at most NSC_SWEEP_CONFIRM without --yes: 0 or the exit status. */
static int study_points(study *S)
{
    const nsc_sweep_args *a = S->a;
    S->shard_k = a->shard_n ? a->shard_k : 1;
    S->shard_n = a->shard_n ? a->shard_n : 1;
    nsc_report rep;
    nsc_report_init(&rep);
    nsc_status s = nsc_study_columns(&S->st, S->c, S->shard_k, S->shard_n, &rep);
    nsc_report_free(&rep);
    if (s) return 3;
    if (S->st.nsel > NSC_SWEEP_CONFIRM && !a->yes) {
        fprintf(stderr,
                "nscircuit: error: %s: %ld points to run (more than %d): run them with 'nscircuit "
                "sweep %s --yes', or split the study with --shard K/N\n",
                a->netlist, S->st.nsel, NSC_SWEEP_CONFIRM, a->netlist);
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
    S->prefix = a->prefix              ? nsc_strdup(a->prefix)
                : S->shard_n > 1 && st ? nsc_asprintf("%s.shard%dof%d", st, S->shard_k, S->shard_n)
                : st                   ? nsc_strdup(st)
                                       : NULL;
    free(st);
    if (!S->prefix) return 3;
    char *in1[] = { (char *)a->netlist };
    int status = outputs_clash(S->prefix, in1, 1);
    if (status || !a->keep_waves) return status;
    char *dir = nsc_asprintf("%s.waves", S->prefix);
    if (!dir) return 3;
    if (mkdir(dir, 0777) && errno != EEXIST) {
        fprintf(stderr, "nscircuit: error: cannot create directory '%s': %s\n", dir,
                strerror(errno));
        status = 1;
    }
    nsc_report rep;
    nsc_report_init(&rep);
    if (!status && nsc_study_waves(&S->st, dir, &rep)) status = 3;
    nsc_report_free(&rep);
    free(dir);
    return status;
}

/* The empty table of the run (its columns, the study's identity): 0 or 3. */
static int study_table(study *S)
{
    nsc_report rep;
    nsc_report_init(&rep);
    nsc_status s = nsc_study_tally_init(&S->st, &S->C, S->a->netlist, S->shard_k, S->shard_n, &rep);
    nsc_print_report(&rep);
    nsc_report_free(&rep);
    return s ? 3 : 0;
}

/* The points run, -j at a time, under the study's signal handlers: 0, 3, or
 * 128+signal when interrupted (the finished points' table then written). */
static int study_run(study *S, int jobs)
{
    const nsc_sweep_args *a = S->a;
    if (!a->quiet && S->shard_n > 1)
        fprintf(stderr, "nscircuit: %s: %ld points (shard %d/%d of %ld), %d at a time\n",
                a->netlist, S->st.nsel, S->shard_k, S->shard_n, S->st.plan.npoint, jobs);
    else if (!a->quiet)
        fprintf(stderr, "nscircuit: %s: %ld points, %d at a time\n", a->netlist, S->st.nsel, jobs);
    struct sigaction sa, oint, oterm, ohup;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, &oint);
    sigaction(SIGTERM, &sa, &oterm);
    sigaction(SIGHUP, &sa, &ohup);
    S->progress = !a->quiet && (a->progress || isatty(2));
    S->tty = isatty(2);
    S->t0 = nsc_now();
    nsc_report rep;
    nsc_report_init(&rep);
    nsc_status s = nsc_study_run(&S->st, &S->C, jobs, &stop_flag, &rep);
    nsc_print_report(&rep);
    nsc_report_free(&rep);
    if (S->shown && S->tty) fputs("\r\033[K", stderr);
    sigaction(SIGINT, &oint, NULL);
    sigaction(SIGTERM, &oterm, NULL);
    sigaction(SIGHUP, &ohup, NULL);
    int rs = s ? 3 : stop_flag ? 128 + (int)stop_flag : 0;
    if (rs > 128) { /* the finished points, marked, then 128+signal */
        fprintf(stderr, "nscircuit: interrupted: %ld of %ld points done; the table holds them\n",
                S->C.T.nrow, S->st.nsel);
        S->C.T.partial = S->st.nsel;
        nsc_sweep_table_sort(&S->C.T);
        int ws = write_outputs(&S->C.T, NULL, S->prefix, a->csv, 0, 0, a->quiet);
        return ws ? ws : rs;
    }
    return rs;
}

/* The study's summary on stderr (--stats: the points' times). */
static void study_summary(const study *S, int jobs, double wall)
{
    const nsc_sweep_args *a = S->a;
    const nsc_study_tally *C = &S->C;
    if (S->repeated && !a->quiet)
        fprintf(stderr, "nscircuit: %ld repeated warnings of other points not shown\n",
                S->repeated);
    if (a->quiet) return;
    struct rusage ru; /* the points' processes, all waited for */
    double cpu = getrusage(RUSAGE_CHILDREN, &ru)
                     ? 0
                     : (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec
                           + 1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    fprintf(
        stderr,
        "nscircuit: %s: %ld points, %ld failed, -j %d, %.3f s (processor time of the points %.3f s)\n",
        a->netlist, S->st.nsel, C->failed, jobs, wall, cpu);
    if (a->stats && C->nres > 0) {
        double tot = C->t_parse + C->t_run + C->t_meas, n = (double)C->nres;
        fprintf(
            stderr,
            "nscircuit: per point (mean of %ld): read+elaborate %.3g ms, transient %.4g s (%.0f steps; "
            "of which assembly + first factorisations %.3g ms), .meas %.3g ms\n",
            C->nres, 1e3 * C->t_parse / n, C->t_run / n, C->steps / n, 1e3 * C->t_setup / n,
            1e3 * C->t_meas / n);
        fprintf(
            stderr,
            "nscircuit: what reuse across points could save at most: read+elaborate+assembly+first "
            "factorisations = %.3g %% of the points' time (%.3f s of %.3f s)\n",
            tot > 0 ? 100 * (C->t_parse + C->t_setup) / tot : 0.0, C->t_parse + C->t_setup, tot);
    }
    if (a->stats && C->nsteady > 0)
        fprintf(
            stderr,
            "nscircuit: steady states: %ld of %ld points started from a neighbour's, %.3g shooting "
            "periods per point; largest Floquet multiplier modulus %.3g\n",
            C->nwarm, C->nsteady, (double)C->shoot / (double)C->nsteady, C->mu_max);
}

static void study_free(study *S)
{
    nsc_circuit_free(S->c);
    nsc_deck_free(S->deck_own);
    nsc_study_free(&S->st);
    free(S->prefix);
    nsc_study_tally_free(&S->C);
    for (int k = 0; k < S->nseen; k++) free(S->seen[k]);
    free(S->seen);
}

int nsc_sweep(const nsc_sweep_args *a)
{
    study S;
    memset(&S, 0, sizeof S);
    S.a = a;
    nsc_study_init(&S.st);
    S.st.cfg = &a->cfg;
    S.st.fixed = a->fixed;
    S.st.nfixed = a->nfixed;
    S.st.logscale = a->logscale;
    S.st.cold = a->cold;
    S.st.profile = a->stats;
    S.st.point_timeout = a->point_timeout;
    S.st.hooks = (nsc_study_hooks){ &S, show_warning, show_failure, show_progress };
    double t0 = nsc_now();
    int status = study_read(&S);
    if (!status) status = study_points(&S);
    if (!status) status = study_files(&S);
    if (!status) status = study_table(&S);
    int jobs = a->jobs > 0 ? a->jobs : ncpu();
    if (jobs > S.st.nsel) jobs = S.st.nsel > 0 ? (int)S.st.nsel : 1;
    if (!status) status = study_run(&S, jobs);
    if (!status) {
        nsc_sweep_table_sort(&S.C.T);
        study_summary(&S, jobs, nsc_now() - t0);
        const char **unit = S.shard_n == 1 ? nsc_study_units(&S.st, S.c) : NULL;
        status = write_outputs(&S.C.T, unit, S.prefix, a->csv, S.shard_n == 1,
                               S.shard_n == 1 && !a->noplot, a->quiet);
        free(unit);
        if (!status && S.C.failed) status = 3;
    }
    study_free(&S);
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
    if (s) {
        status = s == NSC_ENOMEM ? 3 : 2;
        goto done;
    }
    prefix = oprefix ? nsc_strdup(oprefix) : nsc_stem(T.netlist);
    if (!prefix) {
        status = 3;
        goto done;
    }
    if ((status = outputs_clash(prefix, paths, n))) goto done;
    long failed = 0;
    for (long i = 0; i < T.nrow; i++) failed += T.status[i] != 0;
    if (!quiet)
        fprintf(stderr, "nscircuit: merged %d tables: %ld points of %s, %ld failed\n", n, T.nrow,
                T.netlist, failed);
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

enum {
    S_PARAM = 256,
    S_LOG,
    S_SHARD,
    S_MERGE,
    S_CSV,
    S_KEEP,
    S_NOPLOT, /* the run's: NSC_RUN_LONGOPTS (cmd.h) */
    S_STATS,
    S_PROGRESS,
    S_QUIET,
    S_HELP,
    S_YES,
    S_PTIMEOUT,
    S_COLD
};

/* The command line of `nscircuit sweep`. */
typedef struct sweep_cli {
    nsc_sweep_args a;
    nsc_param_set *fixed; /* --param NAME=VALUE, [a.nfixed] */
    char **range;         /* the other --param, [a.nrange] */
    int merge_mode;       /* --merge */
    nsc_search_buf sb;    /* -I */
} sweep_cli;

/* --param arg: a fixed value (NAME=VALUE) or a range; -1, or 3 out of memory. */
static int take_param(sweep_cli *L, char *arg)
{
    char *eq = strchr(arg, '=');
    double v;
    if (eq && eq != arg && nsc_opt_number(eq + 1, &v) && !strchr(eq + 1, ',')) { /* NAME=VALUE */
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
    case 'I':
        if (nsc_search_add(&L->sb, arg)) return 3;
        break;
    case 'j': {
        char *e;
        long j = strtol(arg, &e, 10);
        if (e == arg || *e || j < 1 || j > 4096)
            return fail("-j needs a number of processes (1..4096), not '%s'", arg);
        a->jobs = (int)j;
        break;
    }
    case S_PARAM: return take_param(L, arg);
    case S_LOG: a->logscale = 1; break;
    case S_SHARD:
        if (!nsc_shard_parse(arg, &a->shard_k, &a->shard_n))
            return fail("--shard needs K/N with 1 <= K <= N, not '%s'", arg);
        break;
    case S_MERGE: L->merge_mode = 1; break;
    case S_CSV: a->csv = 1; break;
    case S_KEEP: a->keep_waves = 1; break;
    case S_NOPLOT: a->noplot = 1; break;
    case S_PTIMEOUT:
        if (!nsc_opt_number(arg, &a->point_timeout) || a->point_timeout <= 0)
            return fail("--point-timeout needs a positive number of seconds, not '%s'", arg);
        break;
    case S_COLD:
        a->cold = 1;
        a->cfg.steady = 1;
        break;
    case S_STATS: a->stats = 1; break;
    case S_YES: a->yes = 1; break;
    case S_PROGRESS: a->progress = 1; break;
    case S_QUIET: a->quiet = 1; break;
    case S_HELP: fputs(nsc_sweep_usage, stdout); return 0;
    default:
        if (c >= NSC_RUNOPT_FIRST && c < NSC_RUNOPT_END)
            return nsc_run_option(&a->cfg, c, arg, "nscircuit sweep");
        return fail("unknown or incomplete option '%s'", word);
    }
    return -1;
}

int nsc_cmd_sweep(int argc, char **argv)
{
    static const struct option longopts[] = { { "param", required_argument, 0, S_PARAM },
                                              { "log", no_argument, 0, S_LOG },
                                              { "shard", required_argument, 0, S_SHARD },
                                              { "merge", no_argument, 0, S_MERGE },
                                              { "csv", no_argument, 0, S_CSV },
                                              { "keep-waves", no_argument, 0, S_KEEP },
                                              { "no-plot", no_argument, 0, S_NOPLOT },
                                              NSC_RUN_LONGOPTS,
                                              { "stats", no_argument, 0, S_STATS },
                                              { "progress", no_argument, 0, S_PROGRESS },
                                              { "quiet", no_argument, 0, S_QUIET },
                                              { "help", no_argument, 0, S_HELP },
                                              { "yes", no_argument, 0, S_YES },
                                              { "point-timeout", required_argument, 0, S_PTIMEOUT },
                                              { "cold", no_argument, 0, S_COLD },
                                              { 0, 0, 0, 0 } };
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
    if (optind != argc - 1) {
        status = fail("%s", optind >= argc ? "no netlist given" : "more than one netlist given");
        goto out;
    }
    a->netlist = argv[optind];
    a->fixed = L.fixed;
    a->range = L.range;
    if (!(a->cfg.inc = nsc_search_finish(&L.sb))) {
        status = 3;
        goto out;
    }
    status = nsc_sweep(a);
out:
    nsc_search_free(&L.sb);
    free(L.fixed);
    free(L.range);
    return status;
}
