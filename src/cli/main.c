/* main.c -- the nscircuit program: options, the pipeline, what the user sees.
 * Exit status (cli.md): 0 success, 1 netlist error, 2 usage error, 3 simulation failure.
 *
 * The transient records the outputs (.save / --save / defaults) and, after them,
 * the quantities the .meas cards read that are not outputs; the measures are
 * evaluated on the full table, then those extra columns are dropped, so the
 * output files hold exactly the requested outputs. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "lcs/lcs.h"
#include "analysis/meas.h"
#include "netlist/netlist.h"
#include "output/out.h"
#include "output/out_stream.h"
#include "analysis/run.h"
#include "analysis/stepper.h"
#include "base/blas_env.h"

NSC_BLAS_ONE_THREAD

static volatile sig_atomic_t stop_flag;
static void on_signal(int sig)
{
    stop_flag = sig;
}

static const char usage_text[] =
    "usage: nscircuit [options] circuit.cir\n"
    "       nscircuit compare OURS REFERENCE [--signals LIST] [--tol T] [--plot] [-o PREFIX]\n"
    "       nscircuit sweep circuit.cir --param NAME=START:STOP:N [...] [-j N] [--shard K/N]\n"
    "\n"
    "Runs the analyses of a SPICE netlist (.tran, .op, .pss, .ac, .dc, .four) with ideal, piecewise-linear\n"
    "switching devices solved as complementarity problems, writes the waveforms and\n"
    "evaluates the .meas cards. A netlist with .step cards runs as `nscircuit sweep`.\n"
    "See nscircuit(1).\n"
    "\n"
    "options:\n"
    "  -I DIR              look for .include/.lib files in DIR (repeatable; after the\n"
    "                      including file's directory, before $NSCIRCUIT_PATH and\n"
    "                      the installed models directory)\n"
    "  -o FILE             output file (default: circuit.dat in the current directory);\n"
    "                      its suffix picks the format (.csv, .raw) unless --format\n"
    "  --format FMT        dat | csv | raw (ngspice raw, ASCII) | rawbin (binary)\n"
    "  --plot              also render circuit.png with gnuplot\n"
    "  --step H            scheme step (overrides .tran tmax / tstep)\n"
    "  --tstop T           final time (overrides .tran)\n"
    "  --theta T           theta of the scheme, 0.5 .. 1 (default .options theta or 0.5;\n"
    "                      runs the theta-scheme, not the exact transient)\n"
    "  --solver NAME       auto | lemke | enum\n"
    "  --param NAME=VALUE  override a .param (repeatable)\n"
    "  --save LIST         outputs, e.g. v(out),v(a,b),i(l1)\n"
    "  --dump-lcs DIR      write E A B C D s e (Matrix Market) and stop\n"
    "  --stats             detailed solver statistics\n"
    "  --steady            periodic steady state instead of the transient (as .pss):\n"
    "                      the outputs hold steady periods of the sources' common period\n"
    "  --period T          the steady state's period (default: the sources')\n"
    "  --losses            also print and write circuit.losses: every element's average\n"
    "                      power over the written window (the steady periods with\n"
    "                      --steady), EON/EOFF switching losses, balance, efficiency\n"
    "  --load NAME[,NAME]  the loads of the efficiency, any elements (repeatable;\n"
    "                      default: the resistor absorbing the most and every\n"
    "                      independent source absorbing power); implies --losses\n"
    "  --events            also write circuit.events: the instants of every state change\n"
    "                      (adaptive steps locate them; fixed steps give step ends)\n"
    "  --progress          progress bar on stderr for runs longer than a second\n"
    "                      (default when stderr is a terminal)\n"
    "  --quiet             no summary, notes or progress bar on stderr\n"
    "  --safe-control      for netlists not trusted: their .control blocks may write\n"
    "                      only in (or below) the netlist's directory or the current\n"
    "                      directory (a file elsewhere is refused with a warning;\n"
    "                      without the option it is written with a note)\n"
    "  --threads N         threads formatting the output file (default: one per CPU, at most 8)\n"
    "  --version, --help\n"
    "\n"
    "exit status: 0 success, 1 netlist error, 2 usage error, 3 simulation failure,\n"
    "4 an output (or standard output) could not be written\n";

static int usage_error(const char *fmt, const char *arg)
{
    return nsc_usage_error("nscircuit", fmt, arg);
}

/* "dir/name.cir" -> "name" + suffix, in the current directory. */
static char *default_output(const char *netlist, const char *suffix)
{
    char *stem = nsc_stem(netlist), *out = stem ? nsc_asprintf("%s%s", stem, suffix) : NULL;
    free(stem);
    return out;
}

/* path with its suffix replaced by suffix ("out/r.dat" -> "out/r.gp"). */
static char *with_suffix(const char *path, const char *suffix)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');
    int len = dot && (!slash || dot > slash + 1) ? (int)(dot - path) : (int)strlen(path);
    return nsc_asprintf("%.*s%s", len, path, suffix);
}

/* ---- progress bar: stderr, after the first second, at most 10 redraws a second ---- */

typedef struct progress {
    double tstop;
    struct timespec t0, last;
    int shown, tty;
} progress;

static double seconds(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + 1e-9 * (double)(b->tv_nsec - a->tv_nsec);
}

static void progress_draw(double t, void *ctx)
{
    progress *p = ctx;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double el = seconds(&p->t0, &now);
    if (el < 1.0 || (p->shown && seconds(&p->last, &now) < 0.1)) return;
    p->last = now;
    p->shown = 1;
    double f = p->tstop > 0 ? fmin(fmax(t / p->tstop, 0), 1) : 0;
    char bar[31], ts[32];
    int n = (int)(f * 30);
    for (int k = 0; k < 30; k++) bar[k] = k < n ? '#' : '.';
    bar[30] = 0;
    double left = f > 0 ? el * (1 - f) / f : 0.0;
    fprintf(stderr, "\rnscircuit: [%s] %3.0f %%  t = %-10s  %.*f s left  ", bar, 100 * f,
            nsc_eng(t, "s", ts, sizeof ts), left < 10 ? 1 : 0, left);
}

static void progress_end(progress *p)
{
    if (p->shown) fputs(p->tty ? "\r\033[K" : "\n", stderr);
    p->shown = 0;
}

/* ---- losses ---- */

/* --losses: the table on stdout and in path, with the loads named
 * load[0..nload) (0: the default ones); a warning in r when the window is not
 * a steady one (the stored energy changes). */
static nsc_status report_losses(const nsc_losses *Ls, char *const *load, int nload,
                                const char *netlist, const char *path, nsc_report *r)
{
    nsc_loss_sum sum;
    int bad = nsc_losses_sum(Ls, load, nload, &sum);
    if (bad) {
        nsc_loss_sum_free(&sum);
        return bad < 0 ? nsc_oom(r)
                       : nsc_err(r, NSC_EUSAGE, NULL, "--load %s: %s has no power (a coupling?)",
                                 load[bad - 1], load[bad - 1]);
    }
    if (sum.unsteady)
        nsc_warn(
            r, NULL,
            "--losses: the stored energy changes by %.3g J over the window, %.3g of the input: the "
            "window is not a steady state and the efficiency counts what the capacitors and inductors gave or "
            "took (use --steady, or a later tstart)",
            sum.stored, sum.stored / (sum.input + sum.switching));
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        nsc_loss_sum_free(&sum);
        return nsc_oom(r);
    }
    nsc_losses_print(f, Ls, &sum, netlist);
    nsc_loss_sum_free(&sum);
    if (fclose(f)) {
        free(text);
        return nsc_oom(r);
    }
    fwrite(text, 1, len, stdout);
    nsc_status s = nsc_stdout_status(r);
    if (!s) s = nsc_write_atomic(path, text, len, r);
    free(text);
    return s;
}

/* ---- writing ---- */


enum {
    OPT_FORMAT = 256,
    OPT_PLOT,
    OPT_PARAM, /* the run's options: NSC_RUN_LONGOPTS (cmd.h) */
    OPT_DUMP,
    OPT_STATS,
    OPT_EVENTS,
    OPT_LOSSES,
    OPT_LOAD,
    OPT_PROGRESS,
    OPT_SAFE_CONTROL,
    OPT_QUIET,
    OPT_THREADS,
    OPT_VERSION,
    OPT_HELP
};

/* ---- the program's run: options -> netlist -> analysis -> outputs ---- */

/* The command line. */
typedef struct cli {
    const char *netlist, *outpath, *format, *dumpdir;
    nsc_run_cfg cfg; /* --step --tstop --theta --solver --save --steady --period (inc: run_cfg) */
    char **load;     /* --load NAME[,NAME...] (repeatable): [nload] */
    int nload;
    int losses, plot, stats, events, quiet, progress, threads;
    int plot_preview; /* the PNG is a .control block's plot (not --plot): drawn thinned */
    int safe_control; /* --safe-control: .control writes only below the netlist's or the current directory */
    nsc_param_set *ov; /* --param overrides */
    int nov;
    nsc_format fmt;
    nsc_search_buf sb; /* -I, $NSCIRCUIT_PATH, the models dir */
} cli;

/* One run: what it holds (freed by job_free). */
typedef struct job {
    nsc_report rep;
    nsc_deck *deck; /* the netlist read */
    nsc_run R;      /* the run (run.h): circuit, settings, columns, rows, measures */
    nsc_stream *stream;
    const cli *C;                                  /* the options (stream_restart) */
    char *out, *dat, *gp, *png, *meas, *ev, *loss; /* the output files */
    nsc_losses lossres;
    double secs;
    int wrote_meas;
} job;

/* The names of arg ("rload,i1") appended to C->load (pointers into arg, split
 * in place); 0, or -1 out of memory. */
static int add_loads(cli *C, char *arg)
{
    char *save = NULL;
    for (char *t = strtok_r(arg, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char **v = realloc(C->load, sizeof *v * (size_t)(C->nload + 1));
        if (!v) return -1;
        C->load = v;
        C->load[C->nload++] = t;
    }
    return 0;
}

/* One option c with its argument into C: -1 to go on, else the exit status. */
static int take_option(cli *C, int c, char *arg, const char *word)
{
    double v;
    switch (c) {
    case 'o': C->outpath = arg; break;
    case 'I':
        if (nsc_search_add(&C->sb, arg)) return 3;
        break;
    case OPT_FORMAT: C->format = arg; break;
    case OPT_PLOT: C->plot = 1; break;
    case OPT_PARAM: {
        char *eq = strchr(arg, '=');
        if (!eq || eq == arg || !nsc_opt_number(eq + 1, &v))
            return usage_error("--param needs NAME=VALUE, not '%s'", arg);
        nsc_param_set *nv = realloc(C->ov, sizeof *C->ov * (size_t)(C->nov + 1));
        if (!nv) return 3;
        C->ov = nv;
        *eq = 0;
        C->ov[C->nov++] = (nsc_param_set){ arg, v };
        break;
    }
    case OPT_DUMP: C->dumpdir = arg; break;
    case OPT_STATS: C->stats = 1; break;
    case OPT_EVENTS: C->events = 1; break;
    case OPT_LOSSES: C->losses = 1; break;
    case OPT_LOAD:
        if (add_loads(C, arg)) return 3;
        C->losses = 1;
        break;
    case OPT_PROGRESS: C->progress = 1; break;
    case OPT_QUIET: C->quiet = 1; break;
    case OPT_SAFE_CONTROL: C->safe_control = 1; break;
    case OPT_THREADS:
        if (!nsc_opt_number(arg, &v) || v < 1 || v > 1024 || v != (int)v)
            return usage_error("--threads needs a whole number from 1, not '%s'", arg);
        C->threads = (int)v;
        break;
    case OPT_VERSION: printf("nscircuit %s\n", PACKAGE_VERSION); return 0;
    case OPT_HELP: printf("%s\n%s", usage_text, nsc_sweep_usage); return 0;
    default:
        if (c >= NSC_RUNOPT_FIRST && c < NSC_RUNOPT_END)
            return nsc_run_option(&C->cfg, c, arg, "nscircuit");
        return usage_error("unknown or incomplete option '%s'", word);
    }
    return -1;
}

/* The command line into C: -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, cli *C)
{
    static const struct option longopts[] = { { "format", required_argument, 0, OPT_FORMAT },
                                              { "plot", no_argument, 0, OPT_PLOT },
                                              NSC_RUN_LONGOPTS,
                                              { "param", required_argument, 0, OPT_PARAM },
                                              { "dump-lcs", required_argument, 0, OPT_DUMP },
                                              { "stats", no_argument, 0, OPT_STATS },
                                              { "events", no_argument, 0, OPT_EVENTS },
                                              { "losses", no_argument, 0, OPT_LOSSES },
                                              { "load", required_argument, 0, OPT_LOAD },
                                              { "progress", no_argument, 0, OPT_PROGRESS },
                                              { "quiet", no_argument, 0, OPT_QUIET },
                                              { "safe-control", no_argument, 0, OPT_SAFE_CONTROL },
                                              { "threads", required_argument, 0, OPT_THREADS },
                                              { "version", no_argument, 0, OPT_VERSION },
                                              { "help", no_argument, 0, OPT_HELP },
                                              { 0, 0, 0, 0 } };
    int c, st;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:I:", longopts, NULL)) != -1)
        if ((st = take_option(C, c, optarg, argv[optind - 1])) >= 0) return st;
    if (optind != argc - 1)
        return usage_error("%s",
                           optind >= argc ? "no netlist given" : "more than one netlist given");
    C->netlist = argv[optind];
    int f = C->format    ? nsc_format_named(C->format) /* -o NAME.csv: csv (out.h) */
            : C->outpath ? nsc_format_of_suffix(strrchr(C->outpath, '.'))
                         : NSC_FMT_DAT;
    if (f < 0 && C->format) {
        char names[256] = "";
        for (int k = 0; k < NSC_FMT_N; k++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "",
                     nsc_formats[k].name);
        char msg[320];
        snprintf(msg, sizeof msg, "unknown format '%%s' (%s)", names);
        return usage_error(msg, C->format);
    }
    C->fmt = f < 0 ? NSC_FMT_DAT : (nsc_format)f;
    return -1;
}

static nsc_run_cfg run_cfg(const cli *C, const nsc_search_path *inc)
{
    nsc_run_cfg cfg = C->cfg;
    cfg.inc = inc;
    cfg.raw = nsc_formats[C->fmt].raw; /* .ac and .dc record every vector into a raw file */
    return cfg;
}

/* A netlist with .step cards: the parameter study (sweep.h), its exit status. */
static int run_study(const cli *C, const nsc_search_path *inc, const nsc_deck *deck)
{
    nsc_sweep_args sa;
    memset(&sa, 0, sizeof sa);
    sa.netlist = C->netlist;
    sa.deck = deck;
    char *prefix = C->outpath ? with_suffix(C->outpath, "") : NULL;
    sa.prefix = prefix;
    sa.cfg = run_cfg(C, inc);
    sa.fixed = C->ov;
    sa.nfixed = C->nov;
    sa.csv = nsc_formats[C->fmt].sep == ','; /* a CSV run: the study's table in CSV too */
    sa.stats = C->stats;
    sa.quiet = C->quiet;
    sa.progress = C->progress;
    int st = nsc_sweep(&sa);
    free(prefix);
    return st;
}

/* .op: the operating point (run.c's line), printed on stdout by the line. */
static nsc_status run_op(job *J, const cli *C)
{
    const nsc_analysis *an = &nsc_analyses[NSC_AN_OP];
    nsc_ctl_dest d = { stdout, "standard output", NULL, 0, C->netlist, C->safe_control };
    nsc_status s = an->run(&J->R, &J->rep);
    return s ? s : an->print(&J->R, &d, &J->rep);
}

/* The files the run writes into outs[7] (the .control blocks' must not be
 * one of them); their number. */
static int run_outputs(const job *J, const cli *C, char **outs)
{
    int n = 0;
    outs[n++] = J->out;
    if (C->plot && !nsc_formats[C->fmt].gnuplot) outs[n++] = J->dat;
    if (nsc_formats[C->fmt].gnuplot || C->plot) outs[n++] = J->gp;
    if (C->plot) outs[n++] = J->png;
    if (J->R.c->job.nmeas > 0) outs[n++] = J->meas;
    if (C->events) outs[n++] = J->ev;
    if (C->losses) outs[n++] = J->loss;
    return n;
}

/* .ac and .dc: their files beside the transient's (issue 29). */
static nsc_status run_small(job *J, const cli *C)
{
    const nsc_circuit *c = J->R.c;
    nsc_small_args a = { C->netlist,
                         C->outpath,
                         C->cfg.save,
                         C->fmt,
                         C->plot,
                         C->quiet,
                         J->R.o.tstop > 0 || (c->job.has_ac && c->job.ndc > 0),
                         J->R.o.tstop > 0 };
    nsc_status s = nsc_cli_small(&a, &J->R, &J->rep);
    nsc_flush_warnings(&J->rep, C->quiet);
    return s;
}

/* The output files' names, checked: none is an input of the run, --load names
 * an element. */
static nsc_status output_names(job *J, const cli *C)
{
    J->out = C->outpath ? nsc_strdup(C->outpath)
                        : default_output(C->netlist, nsc_formats[C->fmt].suffix);
    J->dat = nsc_formats[C->fmt].gnuplot
                 ? nsc_strdup(J->out)
                 : with_suffix(J->out, ".dat"); /* the data the script plots */
    J->gp = with_suffix(J->out, ".gp");
    J->png = with_suffix(J->out, ".png");
    J->meas = with_suffix(J->out, ".meas");
    J->ev = with_suffix(J->out, ".events");
    J->loss = with_suffix(J->out, ".losses");
    if (!J->out || !J->dat || !J->gp || !J->png || !J->meas || !J->ev || !J->loss)
        return nsc_oom(&J->rep);
    for (int k = 0; k < C->nload; k++)
        if (nsc_circuit_element(J->R.c, C->load[k]) < 0)
            return nsc_err(&J->rep, NSC_EUSAGE, NULL, "--load %s: no such element in %s",
                           C->load[k], C->netlist);
    char *outs[] = { J->out, J->dat, J->gp, J->png, J->meas, J->ev, J->loss };
    const char *clash = nsc_output_is_input(outs, 7, J->R.c->files, J->R.c->nfiles);
    if (clash)
        return nsc_err(&J->rep, NSC_EUSAGE, NULL,
                       "the output '%s' is an input of this run (the netlist or a "
                       "file it includes): choose another name with -o",
                       clash);
    int n = run_outputs(J, C, outs);
    for (int i = 0; i < n; i++) /* -o x.gp: the table would be the script */
        for (int j = i + 1; j < n; j++)
            if (nsc_same_path(outs[i], outs[j]))
                return nsc_err(
                    &J->rep, NSC_EUSAGE, NULL,
                    "two outputs of this run would be the same file '%s' "
                    "(the table, script, .meas, .losses ...): choose another name with -o",
                    outs[j]);
    return NSC_OK;
}

/* The rows the run keeps in memory, the others in a temporary file beside the
 * output (waves.h): about 4 M values (32 MiB), or $NSCIRCUIT_MEM_ROWS rows. */
static nsc_status memory_bound(job *J)
{
    const char *env = getenv("NSCIRCUIT_MEM_ROWS");
    char *end = NULL;
    long rows = env ? strtol(env, &end, 10) : ((long)4 << 20) / (J->R.nprobe + 1);
    if (env && (end == env || *end || rows < 1))
        return nsc_err(&J->rep, NSC_EUSAGE, NULL,
                       "NSCIRCUIT_MEM_ROWS must be a whole number of rows from 1, not '%s'", env);
    J->R.o.mem_rows = rows > 0 ? rows : 1;
    J->R.o.spill_near = J->out;
    return NSC_OK;
}

/* The transient or the steady state, its rows streamed to the output when
 * possible, a progress bar on a terminal. */
/* The run is repeated with remade fits (nsc_tran_opts.rerun): the rows streamed
 * so far are void, a new stream takes the new run's. */
static void stream_restart(void *ctx)
{
    job *J = ctx;
    nsc_stream_free(J->stream);
    J->stream = nsc_stream_new(J->out, J->C->fmt, J->R.nout + 1, J->C->threads);
    J->R.o.rows_ctx = J->stream;
    if (!J->stream) J->R.o.rows = NULL;
}

static nsc_status run_analysis(job *J, const cli *C, int steady)
{
    nsc_status s = memory_bound(J);
    if (s) return s;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL); /* a closed terminal: keep the rows too */
    progress prog;
    memset(&prog, 0, sizeof prog);
    prog.tstop = J->R.o.tstop;
    prog.tty = isatty(2);
    if (!C->quiet && !steady && (C->progress || prog.tty)) {
        J->R.o.progress = progress_draw;
        J->R.o.progress_ctx = &prog;
    }
    if (!J->R.c->job.nxcol
        && (J->stream = nsc_stream_new(J->out, C->fmt, J->R.nout + 1, C->threads))) {
        J->R.o.rows = nsc_stream_rows; /* rows written while computed */
        J->R.o.rows_ctx = J->stream;
        J->C = C;
        J->R.o.rerun = stream_restart;
        J->R.o.rerun_ctx = J;
    }
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &prog.t0);
    s = nsc_run_analysis(&J->R, &J->rep);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    progress_end(&prog);
    J->secs = seconds(&prog.t0, &t1);
    return s;
}

/* The measures, the .control outputs, the table, script, PNG, events and
 * losses from the run's rows; NSC_OK or the first write error (in wr). */
static nsc_status write_results(job *J, const cli *C, nsc_status s, nsc_report *wr)
{
    nsc_circuit *ckt = J->R.c;
    nsc_waves *W;
    int done = J->R.W->end == NSC_RUN_COMPLETE;
    nsc_status ws = ckt->job.nxcol ? nsc_meas_derive(ckt, &J->R.W, &J->R.nout, wr)
                                   : NSC_OK; /* .print {expr}, P() */
    W = J->R.W;
    char *outs[7];
    int nouts = run_outputs(J, C, outs);
    nsc_ctl_dest cd = { stdout, "standard output", outs, nouts, C->netlist, C->safe_control };
    if (!ws && ckt->job.nmeas > 0 && done) {
        ws = nsc_run_measure(&J->R, wr);
        if (!ws) ws = nsc_run_meas_print(&J->R, &cd, J->meas, wr); /* stdout and STEM.meas */
        J->wrote_meas = !ws;
    } else if (ckt->job.nmeas > 0)
        nsc_warn(wr, &ckt->job.meas_loc, ".meas not evaluated: the run did not complete");
    if (!ws && done) ws = nsc_run_control(&J->R, &cd, wr); /* .control: wrdata, write, print */
    if (!ws && done && ckt->job.nfour)
        ws = nsc_cli_four(ckt, W, J->out, wr); /* .four (cmd_small.c) */
    nsc_waves_keep(W, J->R.nout + 1);          /* drop the columns only .meas reads */
    int streamed = 0;
    if (!ws && J->stream) ws = nsc_stream_finish(J->stream, W, &streamed, wr);
    nsc_stream_free(J->stream);
    J->stream = NULL;
    if (!ws && !streamed) ws = nsc_formats[C->fmt].write(W, J->out, C->threads, wr);
    int need_dat = C->plot && !nsc_formats[C->fmt].gnuplot; /* the script plots a .dat */
    if (!ws && need_dat) ws = nsc_write_dat(W, J->dat, C->threads, wr);
    if (!ws && (nsc_formats[C->fmt].gnuplot || C->plot))
        ws = nsc_write_gp_thin(W, J->dat, J->gp, J->png, C->plot_preview ? NSC_GP_PREVIEW_ROWS : 0,
                               wr);
    if (!ws && C->plot && done) ws = nsc_render_gp_waves(J->gp, C->plot_preview ? NULL : W, wr);
    if (!ws && C->events) ws = nsc_write_events(W, J->ev, wr);
    if (!ws && C->losses && done && !s)
        ws = report_losses(&J->lossres, C->load, C->nload, C->netlist, J->loss, wr);
    return ws;
}

/* The --stats lines after the summary's. */
static void print_stats(const nsc_sim_stats *st, const nsc_tran_opts *o)
{
    if (st->exact == 2)
        fprintf(stderr,
                "nscircuit: exact steps to %.9g s (%ld flows built), then "
                "adaptive\n",
                st->exact_until, st->flows);
    if (st->exact == 1)
        fprintf(
            stderr,
            "nscircuit: exact steps (the flow of each mode; %ld flows built) from %.3g to %.3g s "
            "(at most %g), %ld events located on the flow",
            st->flows, st->hmin_used, st->hmax_used, o->h, st->locate_trials);
    if (st->exact == 1 && st->kinks) /* (stepper_exact.c kink) */
        fprintf(stderr,
                ", %ld continuous kinks crossed without an event step (%ld trial points "
                "bracketing them and the events)\n",
                st->kinks, st->bracket_trials);
    else if (st->exact == 1) fprintf(stderr, "\n");
    else if (o->adaptive)
        fprintf(stderr,
                "nscircuit: adaptive steps from %.3g to %.3g s (at most %g), %ld trials locating "
                "events, %ld mode changes captured inside steps (chattering)\n",
                st->hmin_used, st->hmax_used, o->h, st->locate_trials, st->captured);
    if (st->passes)
        fprintf(stderr,
                "nscircuit: %d transient pass%s before this one (fits remade after each; %d "
                "stopped early), %.3g s simulated in them\n",
                st->passes, st->passes > 1 ? "es" : "", st->passes_early, st->passes_time);
    fprintf(stderr,
            "nscircuit: %ld steps shortened at breakpoints, %ld solved in the previous mode, "
            "%ld LCPs pivoted (%ld pivots)\n",
            st->short_steps, st->mode_hits, st->lcps, st->pivots);
    fprintf(stderr,
            "nscircuit: unknowns n = %d, complementarity pairs m = %d, h = %g s, theta = %g, "
            "W factorisations = %d, max LCP residual = %.3g\n",
            st->n, st->m, o->h, o->theta, st->factorizations, st->max_residual);
    fprintf(stderr,
            "nscircuit: mode hits %ld, misses %ld (%ld settled by the active set, %ld pivoted); "
            "mode systems factored %ld, found in the mode cache %ld\n",
            st->mode_hits, st->steps - st->mode_hits, st->active_set, st->lcps, st->mode_factor,
            st->mode_cached);
    if (st->nl_solves)
        fprintf(
            stderr,
            "nscircuit: Newton (smooth functions): %ld problems solved in %ld iterations (%.2f per "
            "problem, at most %d), %ld not converged; %ld iterations kept the last factors "
            "(chord), %.2f mode systems factored per iteration\n",
            st->nl_solves, st->nl_iters, (double)st->nl_iters / (double)st->nl_solves, st->nl_maxit,
            st->nl_fails, st->nl_chords,
            st->nl_iters ? (double)st->mode_factor / (double)st->nl_iters : 0.0);
}

/* The summary on stderr (cli.md: the --stats first line is fixed). */
static void print_summary(const job *J, const cli *C, int steady, nsc_status s)
{
    const nsc_sim_stats *st = &J->R.st;
    const nsc_waves *W = J->R.W;
    const char *nl = C->netlist;
    if (C->stats)
        fprintf(stderr, "nscircuit: %s: steps: %ld accepted, %ld rejected; events: %ld located\n",
                nl, st->steps, st->rejected, st->events);
    if (C->quiet) return;
    if (steady) {
        const nsc_pss_info *I = &J->R.pinfo;
        char mu[96] = "not computed (a step's sensitivity failed)";
        if (I->floquet && I->mu_im > 0)
            snprintf(mu, sizeof mu, "%.3g%+.3gi (modulus %.3g)", I->mu_re, I->mu_im, I->mu_abs);
        else if (I->floquet) snprintf(mu, sizeof mu, "%.3g", I->mu_re);
        fprintf(
            stderr,
            "nscircuit: %s: periodic steady state, period %g s, from t = %g s: %d shooting periods "
            "(%ld periods simulated in all); cycle-to-cycle change %.3g of peak-to-peak (worst: %s); "
            "largest Floquet multiplier %s\n",
            nl, I->period, I->t0, I->iterations, I->periods_run, I->residual, I->worst_name, mu);
    }
    if (steady) fprintf(stderr, "nscircuit: %s: %ld steps in all", nl, st->steps);
    else fprintf(stderr, "nscircuit: %s: %g s simulated in %ld steps", nl, W->t_end, st->steps);
    if (J->R.o.adaptive || steady) fprintf(stderr, ", %ld switching events located", st->events);
    else fprintf(stderr, " of %g s", J->R.o.h);
    fprintf(stderr, ", %.3f s\n", J->secs);
    if (C->stats) print_stats(st, &J->R.o);
    if (W->end != NSC_RUN_COMPLETE || s) return;
    fprintf(stderr, "nscircuit: wrote %s", J->out);
    if (C->plot && !nsc_formats[C->fmt].gnuplot) fprintf(stderr, ", %s", J->dat);
    if (nsc_formats[C->fmt].gnuplot || C->plot) fprintf(stderr, ", %s", J->gp);
    if (C->plot) fprintf(stderr, ", %s", J->png);
    if (J->wrote_meas) fprintf(stderr, ", %s", J->meas);
    if (C->events) fprintf(stderr, ", %s", J->ev);
    if (C->losses) fprintf(stderr, ", %s", J->loss);
    fputc('\n', stderr);
}

/* A single run of the netlist read into J->R.c: settings, .op, the transient
 * or the steady state, the outputs. */
static nsc_status run_netlist(job *J, cli *C, const nsc_search_path *inc)
{
    nsc_circuit *ckt = J->R.c;
    nsc_run_cfg cfg = run_cfg(C, inc);
    nsc_status s = nsc_run_setup(&J->R, &cfg, &J->rep);
    if (s) return s;
    int steady = J->R.steady;
    C->plot_preview = !C->plot && ckt->job.ctl_plot; /* a batch run's plot: a cheap preview */
    C->plot |= ckt->job.ctl_plot;                    /* a .control block's plot: the PNG */
    if (C->dumpdir) {
        nsc_lcs *L = NULL;
        if (!(s = nsc_lcs_assemble(ckt, NSC_ASM_TRAN, J->R.o.gmin, &L, &J->rep)))
            s = nsc_lcs_dump(L, C->dumpdir, &J->rep);
        nsc_lcs_free(L);
        if (!s && !C->quiet)
            fprintf(stderr, "nscircuit: wrote the LCS of %s to %s/\n", C->netlist, C->dumpdir);
        return s;
    }
    if ((s = nsc_run_check(ckt, &cfg, &J->R.o, 1, &J->rep))) return s;
    /* the analyses in nsc_analyses' order (run.h): .op, .ac/.dc, then the steady state or the transient */
    if (nsc_analyses[NSC_AN_OP].asked(&J->R) && (s = run_op(J, C))) return s;
    if ((nsc_analyses[NSC_AN_AC].asked(&J->R) || nsc_analyses[NSC_AN_DC].asked(&J->R))
        && (s = run_small(J, C)))
        return s; /* (cmd_small.c) */
    if (!nsc_analyses[NSC_AN_PSS].asked(&J->R) && !nsc_analyses[NSC_AN_TRAN].asked(&J->R)) {
        if (ckt->job.nmeas > 0)
            nsc_warn(&J->rep, &ckt->job.meas_loc, ".meas tran ignored: no transient analysis");
        if (ckt->job.nfour > 0)
            nsc_warn(&J->rep, &ckt->job.four[0].loc, ".four ignored: no transient analysis");
        nsc_run_control_none(ckt, &J->rep);
        return NSC_OK;
    }
    J->R.o.stop = &stop_flag;
    J->R.o.events = C->events;
    if ((s = nsc_run_columns(&J->R, 0, &J->rep)) || (s = output_names(J, C))) return s;
    if (C->losses) J->R.o.losses = &J->lossres;
    s = run_analysis(J, C, steady);
    nsc_flush_warnings(&J->rep, C->quiet); /* diagnostics before the summary */
    if (J->R.W && J->R.W->nrow > 0) {
        nsc_report wr;
        nsc_report_init(&wr);
        nsc_status ws = write_results(J, C, s, &wr);
        for (int k = 0; k < wr.nwarn; k++) fprintf(stderr, "%s\n", wr.warn[k]);
        if (ws && !s) { /* the first error of the run is the write error */
            nsc_print_report(&J->rep);
            nsc_report_free(&J->rep);
            J->rep.status = s = ws;
            J->rep.error = wr.error;
            wr.error = NULL;
        } else if (ws) fprintf(stderr, "%s\n", wr.error ? wr.error : "write failed");
        nsc_report_free(&wr);
    }
    if (!s && J->R.W && J->R.W->end == NSC_RUN_COMPLETE && (ckt->job.has_ac || ckt->job.ndc)
        && nsc_formats[C->fmt].raw) { /* one raw file, every plot */
        nsc_small_args a = { C->netlist, C->outpath, C->cfg.save, C->fmt, C->plot, C->quiet, 1, 1 };
        s = nsc_cli_raw_merge(&a, ckt, J->out,
                              ckt->job.has_tran ? ckt->job.tran_loc.line : ckt->job.pss_loc.line,
                              &J->rep);
    }
    if (J->R.W) print_summary(J, C, steady, s);
    return s;
}

static void job_free(job *J)
{
    nsc_stream_free(J->stream);
    nsc_report_free(&J->rep);
    nsc_run_free(&J->R);
    nsc_deck_free(J->deck);
    free(J->out);
    free(J->dat);
    free(J->gp);
    free(J->png);
    free(J->meas);
    free(J->ev);
    free(J->loss);
    nsc_losses_free(&J->lossres);
}

int main(int argc, char **argv)
{
    nsc_heap_hugepages();
    if (argc > 1 && strcmp(argv[1], "compare") == 0) return nsc_cmd_compare(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "sweep") == 0) return nsc_cmd_sweep(argc - 1, argv + 1);
    static cli C;
    int st = parse_options(argc, argv, &C);
    if (st >= 0) {
        free(C.ov);
        free(C.load);
        nsc_search_free(&C.sb);
        return st;
    }
    job J;
    memset(&J, 0, sizeof J);
    nsc_report_init(&J.rep);
    const nsc_search_path *inc = nsc_search_finish(&C.sb);
    nsc_status s = inc ? nsc_deck_read(C.netlist, inc, &J.deck, &J.rep) : nsc_oom(&J.rep);
    if (!s) s = nsc_run_circuit(&J.R, J.deck, C.ov, C.nov, &J.rep);
    if (!s && J.R.c->job.nstep > 0 && !C.dumpdir) { /* a parameter study, of the deck read */
        nsc_deck *deck = J.deck;
        J.deck = NULL;
        job_free(&J); /* (its warnings come again from the study) */
        st = run_study(&C, inc, deck);
        nsc_deck_free(deck);
    } else {
        if (!s) s = run_netlist(&J, &C, inc);
        const nsc_waves *W = J.R.W;
        int interrupted = W && W->end == NSC_RUN_INTERRUPTED;
        if (interrupted && !C.quiet)
            fprintf(stderr, "nscircuit: interrupted at t=%g s; %s holds the %d rows computed\n",
                    W->t_end, J.out, W->nrow);
        nsc_flush_warnings(&J.rep, C.quiet);
        nsc_print_report(&J.rep);
        st = interrupted ? 128 + (stop_flag ? (int)stop_flag : SIGINT) : nsc_exit_status(s);
        job_free(&J);
    }
    free(C.ov);
    free(C.load);
    nsc_search_free(&C.sb);
    return st;
}
