/* main.c -- the nscircuit program: options, the pipeline, what the user sees.
 * Exit status (cli.md): 0 success, 1 netlist error, 2 usage error, 3 simulation failure.
 *
 * The transient records the outputs (.save / --save / defaults) and, after them,
 * the quantities the .meas cards read that are not outputs; the measures are
 * evaluated on the full table, then those extra columns are dropped, so the
 * output files hold exactly the requested outputs. */
#include "config.h"

#include <errno.h>
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
#include "lcs.h"
#include "meas.h"
#include "netlist.h"
#include "out.h"
#include "out_stream.h"
#include "stepper.h"
#include "sweep.h"

static volatile sig_atomic_t stop_flag;
static void on_signal(int sig) { stop_flag = sig; }

static const char usage_text[] =
    "usage: nscircuit [options] circuit.cir\n"
    "       nscircuit compare OURS REFERENCE [--signals LIST] [--tol T] [--plot] [-o PREFIX]\n"
    "       nscircuit sweep circuit.cir --param NAME=START:STOP:N [...] [-j N] [--shard K/N]\n"
    "\n"
    "Runs the analyses of a SPICE netlist (.tran, .op) with ideal, piecewise-linear\n"
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
    "  --theta T           theta of the scheme, 0.5 .. 1 (default .options theta or 0.5)\n"
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
    "  --load NAME         the load of the efficiency (default: the resistor absorbing\n"
    "                      the most); implies --losses\n"
    "  --events            also write circuit.events: the instants of every state change\n"
    "                      (adaptive steps locate them; fixed steps give step ends)\n"
    "  --progress          progress bar on stderr for runs longer than a second\n"
    "                      (default when stderr is a terminal)\n"
    "  --quiet             no summary, notes or progress bar on stderr\n"
    "  --threads N         threads formatting the output file (default: one per CPU, at most 8)\n"
    "  --version, --help\n"
    "\n"
    "exit status: 0 success, 1 netlist error, 2 usage error, 3 simulation failure\n";

static int usage_error(const char *fmt, const char *arg)
{
    return nsc_usage_error("nscircuit", fmt, arg);
}

static int exit_code(nsc_status s)
{
    return nsc_exit_status(s);
}

/* "dir/name.cir" -> "name" + suffix, in the current directory. */
static char *default_output(const char *netlist, const char *suffix)
{
    const char *b = strrchr(netlist, '/');
    b = b ? b + 1 : netlist;
    const char *dot = strrchr(b, '.');
    int len = dot && dot != b ? (int)(dot - b) : (int)strlen(b);
    return nsc_asprintf("%.*s%s", len, b, suffix);
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

/* ---- measures ---- */

/* Print "name = value" (stdout) and write the same lines to path. */
static nsc_status report_meas(const nsc_circuit *c, const nsc_meas_result *res, const char *netlist, const char *path,
                              nsc_report *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return nsc_err(r, NSC_ENOMEM, NULL, "out of memory");
    fprintf(f, "# .meas results of %s (nscircuit %s)\n", netlist, PACKAGE_VERSION);
    for (int k = 0; k < c->nmeas; k++) {
        if (res[k].ok) {
            printf("%s = %.9e\n", c->meas[k].name, res[k].value + 0.0);
            fprintf(f, "%s = %.12e\n", c->meas[k].name, res[k].value + 0.0);
        } else {
            printf("%s = failed\n", c->meas[k].name);
            fprintf(f, "%s = failed\n", c->meas[k].name);
            nsc_warn(r, &c->meas[k].loc, ".meas %s failed: %s", c->meas[k].name, res[k].why ? res[k].why : "");
        }
    }
    if (fclose(f)) { free(text); return nsc_err(r, NSC_ENOMEM, NULL, "out of memory"); }
    nsc_status s = nsc_write_atomic(path, text, len, r);
    free(text);
    return s;
}

/* The outputs of the netlist's .control blocks (wrdata, write) from W, whose
 * columns hold their vectors: a file that cannot be written is a warning in r
 * (as in ngspice), not a failed run. */
static void control_outputs(const nsc_circuit *c, const nsc_waves *W, int nout, nsc_report *r)
{
    for (int k = 0; k < c->nctlout; k++) {
        const nsc_ctlout *o = &c->ctlout[k];
        int *cols = nsc_calloc((size_t)o->nvec + 1, sizeof *cols), n = o->nvec;
        if (!cols) return;
        for (int j = 0; j < n; j++) cols[j] = nsc_waves_col(W, o->vec[j]);
        if (n == 0)                                    /* the run's outputs */
            for (; n < nout; n++) cols[n] = n + 1;
        nsc_waves *S = nsc_waves_select(W, cols, n);
        free(cols);
        nsc_report wr;
        nsc_report_init(&wr);
        nsc_status s = !S ? nsc_err(&wr, NSC_ENOMEM, NULL, "out of memory")
                     : o->raw ? nsc_write_raw(S, o->path, 0, 1, &wr)
                              : nsc_write_wrdata(S, c->ctl_singlescale, c->ctl_vecnames, o->path, &wr);
        const char *why = wr.error ? wr.error : "error", *pre = "nscircuit: error: ";
        if (!strncmp(why, pre, strlen(pre))) why += strlen(pre);
        if (s) nsc_warn(r, &o->loc, "%s %s not written: %s", o->raw ? "write" : "wrdata", o->path, why);
        nsc_report_free(&wr);
        nsc_waves_free(S);
    }
}

/* --losses: the table on stdout and in path. */
static nsc_status report_losses(const nsc_losses *Ls, const char *load, const char *netlist, const char *path,
                                nsc_report *r)
{
    nsc_loss_sum sum;
    nsc_losses_sum(Ls, load, &sum);                   /* (load was checked against the circuit) */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return nsc_err(r, NSC_ENOMEM, NULL, "out of memory");
    nsc_losses_print(f, Ls, &sum, netlist);
    if (fclose(f)) { free(text); return nsc_err(r, NSC_ENOMEM, NULL, "out of memory"); }
    fwrite(text, 1, len, stdout);
    nsc_status s = nsc_write_atomic(path, text, len, r);
    free(text);
    return s;
}

/* ---- writing ---- */

static const char *format_suffix(nsc_format f)
{
    return f == NSC_FMT_CSV ? ".csv" : f == NSC_FMT_RAW || f == NSC_FMT_RAWBIN ? ".raw" : ".dat";
}

static nsc_status write_table(const nsc_waves *W, nsc_format f, const char *path, int threads, nsc_report *r)
{
    switch (f) {
    case NSC_FMT_CSV: return nsc_write_csv(W, path, threads, r);
    case NSC_FMT_RAW: return nsc_write_raw(W, path, 0, threads, r);
    case NSC_FMT_RAWBIN: return nsc_write_raw(W, path, 1, threads, r);
    default: return nsc_write_dat(W, path, threads, r);
    }
}

enum { OPT_FORMAT = 256, OPT_PLOT, OPT_STEP, OPT_TSTOP, OPT_THETA, OPT_SOLVER, OPT_PARAM, OPT_SAVE,
       OPT_DUMP, OPT_STATS, OPT_EVENTS, OPT_STEADY, OPT_PERIOD, OPT_LOSSES, OPT_LOAD, OPT_PROGRESS, OPT_QUIET, OPT_THREADS, OPT_VERSION, OPT_HELP };

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "compare") == 0) return nsc_cmd_compare(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "sweep") == 0) return nsc_cmd_sweep(argc - 1, argv + 1);
    static const struct option longopts[] = {
        { "format", required_argument, 0, OPT_FORMAT }, { "plot", no_argument, 0, OPT_PLOT },
        { "step", required_argument, 0, OPT_STEP },     { "tstop", required_argument, 0, OPT_TSTOP },
        { "theta", required_argument, 0, OPT_THETA },   { "solver", required_argument, 0, OPT_SOLVER },
        { "param", required_argument, 0, OPT_PARAM },   { "save", required_argument, 0, OPT_SAVE },
        { "dump-lcs", required_argument, 0, OPT_DUMP }, { "stats", no_argument, 0, OPT_STATS },
        { "events", no_argument, 0, OPT_EVENTS },
        { "steady", no_argument, 0, OPT_STEADY },       { "period", required_argument, 0, OPT_PERIOD },
        { "losses", no_argument, 0, OPT_LOSSES },       { "load", required_argument, 0, OPT_LOAD },
        { "progress", no_argument, 0, OPT_PROGRESS },   { "quiet", no_argument, 0, OPT_QUIET },
        { "threads", required_argument, 0, OPT_THREADS },
        { "version", no_argument, 0, OPT_VERSION },     { "help", no_argument, 0, OPT_HELP },
        { 0, 0, 0, 0 }
    };
    const char *outpath = NULL, *format = NULL, *solver_name = NULL, *save = NULL, *dumpdir = NULL, *load = NULL;
    double step = 0, tstop = 0, theta = 0, period = 0;
    int steady = 0, losses = 0;
    int plot = 0, stats = 0, events = 0, quiet = 0, want_progress = 0, threads = 0;
    nsc_param_set *ov = NULL;
    int nov = 0;
    int c;
    static nsc_search_buf sb;                          /* -I, $NSCIRCUIT_PATH, the models dir */
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:I:", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': outpath = optarg; break;
        case 'I':
            if (nsc_search_add(&sb, optarg)) return 3;
            break;
        case OPT_FORMAT: format = optarg; break;
        case OPT_PLOT: plot = 1; break;
        case OPT_STEP:
            if (!nsc_opt_number(optarg, &step) || step <= 0) return usage_error("--step needs a positive time, not '%s'", optarg);
            break;
        case OPT_TSTOP:
            if (!nsc_opt_number(optarg, &tstop) || tstop <= 0) return usage_error("--tstop needs a positive time, not '%s'", optarg);
            break;
        case OPT_THETA:
            if (!nsc_opt_number(optarg, &theta) || theta < 0.5 || theta > 1) return usage_error("--theta must be in [0.5, 1], not '%s'", optarg);
            break;
        case OPT_SOLVER:
            if (nsc_solver_parse(optarg) < 0) return usage_error("unknown solver '%s' (auto, lemke, enum)", optarg);
            solver_name = optarg;
            break;
        case OPT_PARAM: {
            char *eq = strchr(optarg, '=');
            double v;
            if (!eq || eq == optarg || !nsc_opt_number(eq + 1, &v)) return usage_error("--param needs NAME=VALUE, not '%s'", optarg);
            nsc_param_set *nv = realloc(ov, sizeof *ov * (size_t)(nov + 1));
            if (!nv) return 3;
            ov = nv;
            *eq = 0;
            ov[nov].name = optarg;
            ov[nov].value = v;
            nov++;
            break;
        }
        case OPT_SAVE: save = optarg; break;
        case OPT_DUMP: dumpdir = optarg; break;
        case OPT_STATS: stats = 1; break;
        case OPT_EVENTS: events = 1; break;
        case OPT_STEADY: steady = 1; break;
        case OPT_LOSSES: losses = 1; break;
        case OPT_LOAD: load = optarg; losses = 1; break;
        case OPT_PERIOD:
            if (!nsc_opt_number(optarg, &period) || !(period > 0) || !isfinite(period))
                return usage_error("--period needs a positive time, not '%s'", optarg);
            steady = 1;
            break;
        case OPT_PROGRESS: want_progress = 1; break;
        case OPT_QUIET: quiet = 1; break;
        case OPT_THREADS: {
            double v;
            if (!nsc_opt_number(optarg, &v) || v < 1 || v > 1024 || v != (int)v)
                return usage_error("--threads needs a whole number from 1, not '%s'", optarg);
            threads = (int)v;
            break;
        }
        case OPT_VERSION: printf("nscircuit %s\n", PACKAGE_VERSION); return 0;
        case OPT_HELP: printf("%s\n%s", usage_text, nsc_sweep_usage); return 0;
        default:
            return usage_error("unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1) return usage_error("%s", optind >= argc ? "no netlist given" : "more than one netlist given");
    const char *netlist = argv[optind];
    nsc_format fmt = NSC_FMT_DAT;
    const char *fmtname = format;
    if (!fmtname && outpath) {
        const char *dot = strrchr(outpath, '.');
        fmtname = dot && nsc_strieq(dot, ".csv") ? "csv" : dot && nsc_strieq(dot, ".raw") ? "raw" : "dat";
    }
    if (fmtname) {
        if (nsc_strieq(fmtname, "dat")) fmt = NSC_FMT_DAT;
        else if (nsc_strieq(fmtname, "csv")) fmt = NSC_FMT_CSV;
        else if (nsc_strieq(fmtname, "raw")) fmt = NSC_FMT_RAW;
        else if (nsc_strieq(fmtname, "rawbin")) fmt = NSC_FMT_RAWBIN;
        else return usage_error("unknown format '%s' (dat, csv, raw, rawbin)", fmtname);
    }

    nsc_report rep;
    nsc_report_init(&rep);
    nsc_circuit *ckt = NULL;
    nsc_waves *W = NULL;
    nsc_probe *probes = NULL;
    nsc_meas_result *mres = NULL;
    nsc_stream *stream = NULL;
    int nprobe = 0, nout = 0;
    char *out = NULL, *dat = NULL, *gp = NULL, *png = NULL, *measpath = NULL, *evpath = NULL, *losspath = NULL;
    nsc_losses lossres = { 0, 0, 0, NULL };
    const nsc_search_path *inc = nsc_search_finish(&sb);
    nsc_status s = inc ? nsc_netlist_read_in(netlist, inc, ov, nov, &ckt, &rep) : nsc_err(&rep, NSC_ENOMEM, NULL, "out of memory");
    if (s) goto done;

    nsc_loc top = { ckt->nfiles > 0 ? ckt->files[0] : netlist, 1, 1 };
    if (ckt->nstep > 0 && !dumpdir) {                  /* a parameter study */
        nsc_circuit_free(ckt);
        ckt = NULL;
        nsc_sweep_args sa;
        memset(&sa, 0, sizeof sa);
        sa.netlist = netlist;
        out = outpath ? with_suffix(outpath, "") : NULL;
        sa.prefix = out;
        sa.cfg = (nsc_run_cfg){ step, tstop, theta, solver_name, save, inc, steady, period };
        sa.fixed = ov;
        sa.nfixed = nov;
        sa.csv = fmt == NSC_FMT_CSV;
        sa.stats = stats;
        sa.quiet = quiet;
        sa.progress = want_progress;
        nsc_report_free(&rep);                         /* its warnings come again from the study */
        int st = nsc_sweep(&sa);
        free(out);
        free(ov);
        nsc_search_free(&sb);
        return st;
    }
    nsc_run_cfg cfg = { step, tstop, theta, solver_name, save, inc, steady, period };
    steady = nsc_run_steady(ckt, &cfg);
    nsc_tran_opts o;
    if ((s = nsc_run_opts(ckt, &cfg, &o, &rep))) goto done;
    nsc_pss_opts po = nsc_run_pss_opts(ckt, &cfg);
    plot |= ckt->ctl_plot;                                    /* a .control block's plot: the PNG */
    if (steady) nsc_meas_steady_windows(ckt, &rep);
    nsc_pss_info pinfo;
    memset(&pinfo, 0, sizeof pinfo);

    if (dumpdir) {
        nsc_lcs *L = NULL;
        if (!(s = nsc_lcs_assemble(ckt, NSC_ASM_TRAN, o.gmin, &L, &rep))) s = nsc_lcs_dump(L, dumpdir, &rep);
        nsc_lcs_free(L);
        if (!s && !quiet) fprintf(stderr, "nscircuit: wrote the LCS of %s to %s/\n", netlist, dumpdir);
        goto done;
    }
    if (!ckt->has_tran && !ckt->has_op && !steady && tstop <= 0) {
        s = nsc_err(&rep, NSC_ENETLIST, &top, "no analysis: add a .tran, .op or .pss card, or give --tstop");
        goto done;
    }

    if (ckt->has_op) {
        nsc_waves *O = NULL;
        nsc_probe *dp = NULL;
        int ndp = 0;
        if (!(s = nsc_probes_default(ckt, &dp, &ndp, &rep)))    /* nodes, then i(v) i(l) i(d) */
            s = nsc_run_op(ckt, o.gmin, o.solver, dp, ndp, &O, &rep);
        nsc_probes_free(dp, ndp);
        if (s) goto done;
        printf("operating point of %s\n", netlist);
        for (int k = 1; k < O->ncol; k++) printf("  %-20s = % .10e\n", O->name[k], O->v[k]);
        nsc_waves_free(O);
    }
    if (o.tstop <= 0) {
        if (ckt->nmeas > 0) nsc_warn(&rep, &ckt->meas_loc, ".meas tran ignored: no transient analysis");
        goto done;
    }
    o.stop = &stop_flag;
    o.events = events;
    if ((s = nsc_run_probes(ckt, save, &probes, &nprobe, &nout, &rep))) goto done;

    out = outpath ? nsc_strdup(outpath) : default_output(netlist, format_suffix(fmt));
    dat = fmt == NSC_FMT_DAT ? nsc_strdup(out) : with_suffix(out, ".dat");   /* the data the script plots */
    gp = with_suffix(out, ".gp");
    png = with_suffix(out, ".png");
    measpath = with_suffix(out, ".meas");
    evpath = with_suffix(out, ".events");
    losspath = with_suffix(out, ".losses");
    if (!out || !dat || !gp || !png || !measpath || !evpath || !losspath) { s = nsc_err(&rep, NSC_ENOMEM, NULL, "out of memory"); goto done; }
    if (load && nsc_circuit_element(ckt, load) < 0) {
        s = nsc_err(&rep, NSC_EUSAGE, NULL, "--load %s: no such element in %s", load, netlist);
        goto done;
    }
    if (losses) o.losses = &lossres;
    {
        char *outs[] = { out, dat, gp, png, measpath, evpath, losspath };
        const char *clash = nsc_output_is_input(outs, 7, ckt->files, ckt->nfiles);
        if (clash) s = nsc_err(&rep, NSC_EUSAGE, NULL, "the output '%s' is an input of this run (the netlist or a "
                               "file it includes): choose another name with -o", clash);
        if (s) goto done;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);                           /* a closed terminal: keep the rows too */

    progress prog;
    memset(&prog, 0, sizeof prog);
    prog.tstop = o.tstop;
    prog.tty = isatty(2);
    if (!quiet && !steady && (want_progress || prog.tty)) {
        o.progress = progress_draw;
        o.progress_ctx = &prog;
    }
    if (!ckt->nxcol && (stream = nsc_stream_new(out, fmt, nout + 1, threads))) {   /* rows written while computed */
        o.rows = nsc_stream_rows;
        o.rows_ctx = stream;
    }
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &prog.t0);
    nsc_sim_stats st;
    s = steady ? nsc_run_pss(ckt, &o, &po, probes, nprobe, &W, &st, &pinfo, &rep)
               : nsc_run_tran(ckt, &o, probes, nprobe, &W, &st, &rep);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    progress_end(&prog);
    nsc_flush_warnings(&rep, quiet);                       /* diagnostics before the summary */
    double secs = seconds(&prog.t0, &t1);
    int wrote_meas = 0;
    if (W && W->nrow > 0) {
        nsc_report wr;
        nsc_report_init(&wr);
        nsc_status ws = ckt->nxcol ? nsc_meas_derive(ckt, &W, &nout, &wr) : NSC_OK;   /* .print {expr}, P() */
        if (!ws && ckt->nmeas > 0 && W->end == NSC_RUN_COMPLETE) {
            if (!(mres = nsc_calloc((size_t)ckt->nmeas, sizeof *mres))) ws = nsc_err(&wr, NSC_ENOMEM, NULL, "out of memory");
            if (!ws) ws = nsc_meas_eval(ckt, W, mres, &wr);
            if (!ws) ws = report_meas(ckt, mres, netlist, measpath, &wr);
            wrote_meas = !ws;
        } else if (ckt->nmeas > 0)
            nsc_warn(&wr, &ckt->meas_loc, ".meas not evaluated: the run did not complete");
        if (W->end == NSC_RUN_COMPLETE) control_outputs(ckt, W, nout, &wr);
        nsc_waves_keep(W, nout + 1);                       /* drop the columns only .meas reads */
        int streamed = 0;
        if (!ws && stream) ws = nsc_stream_finish(stream, W, &streamed, &wr);
        nsc_stream_free(stream);
        stream = NULL;
        if (!ws && !streamed) ws = write_table(W, fmt, out, threads, &wr);
        int need_dat = plot && fmt != NSC_FMT_DAT;         /* the script plots a .dat */
        if (!ws && need_dat) ws = nsc_write_dat(W, dat, threads, &wr);
        if (!ws && (fmt == NSC_FMT_DAT || plot)) ws = nsc_write_gp(W, dat, gp, png, &wr);
        if (!ws && plot && W->end == NSC_RUN_COMPLETE) ws = nsc_render_gp(gp, &wr);
        if (!ws && events) ws = nsc_write_events(W, evpath, &wr);
        if (!ws && losses && W->end == NSC_RUN_COMPLETE && !s) ws = report_losses(&lossres, load, netlist, losspath, &wr);
        for (int k = 0; k < wr.nwarn; k++) fprintf(stderr, "%s\n", wr.warn[k]);
        if (ws && !s) {                                    /* the first error of the run is the write error */
            nsc_print_report(&rep);
            nsc_report_free(&rep);
            rep.status = s = ws;
            rep.error = wr.error;
            wr.error = NULL;
        } else if (ws)
            fprintf(stderr, "%s\n", wr.error ? wr.error : "write failed");
        nsc_report_free(&wr);
    }
    if (stats && W)                                        /* cli.md: this first line is fixed */
        fprintf(stderr, "nscircuit: %s: steps: %ld accepted, %ld rejected; events: %ld located\n", netlist,
                st.steps, st.rejected, st.events);
    if (!quiet && W && steady)
        fprintf(stderr, "nscircuit: %s: periodic steady state, period %g s, from t = %g s: %d shooting periods "
                        "(%ld periods simulated in all); cycle-to-cycle change %.3g of peak-to-peak (worst: %s)\n",
                netlist, pinfo.period, pinfo.t0, pinfo.iterations, pinfo.periods_run, pinfo.residual, pinfo.worst_name);
    if (!quiet && W) {
        if (steady) fprintf(stderr, "nscircuit: %s: %ld steps in all", netlist, st.steps);
        else fprintf(stderr, "nscircuit: %s: %g s simulated in %ld steps", netlist, W->t_end, st.steps);
        if (o.adaptive || steady) fprintf(stderr, ", %ld switching events located", st.events);
        else if (!steady) fprintf(stderr, " of %g s", o.h);
        fprintf(stderr, ", %.3f s\n", secs);
        if (stats && o.adaptive)
            fprintf(stderr, "nscircuit: adaptive steps from %.3g to %.3g s (at most %g), %ld trials locating "
                            "events, %ld mode changes captured inside steps (chattering)\n",
                    st.hmin_used, st.hmax_used, o.h, st.locate_trials, st.captured);
        if (stats)
            fprintf(stderr, "nscircuit: %ld steps shortened at breakpoints, %ld solved in the previous mode, "
                            "%ld LCPs pivoted (%ld pivots)\n", st.short_steps, st.mode_hits, st.lcps, st.pivots);
        if (stats)
            fprintf(stderr, "nscircuit: unknowns n = %d, complementarity pairs m = %d, h = %g s, theta = %g, "
                            "W factorisations = %d, max LCP residual = %.3g\n",
                    st.n, st.m, o.h, o.theta, st.factorizations, st.max_residual);
        if (stats)
            fprintf(stderr, "nscircuit: mode hits %ld, misses %ld (%ld settled by the active set, %ld pivoted); "
                            "mode systems factored %ld, found in the mode cache %ld\n",
                    st.mode_hits, st.steps - st.mode_hits, st.active_set, st.lcps, st.mode_factor, st.mode_cached);
        if (W->end == NSC_RUN_COMPLETE && !s) {
            int gpw = fmt == NSC_FMT_DAT || plot;
            fprintf(stderr, "nscircuit: wrote %s", out);
            if (plot && fmt != NSC_FMT_DAT) fprintf(stderr, ", %s", dat);
            if (gpw) fprintf(stderr, ", %s", gp);
            if (plot) fprintf(stderr, ", %s", png);
            if (wrote_meas) fprintf(stderr, ", %s", measpath);
            if (events) fprintf(stderr, ", %s", evpath);
            if (losses) fprintf(stderr, ", %s", losspath);
            fputc('\n', stderr);
        }
    }
    if (W && W->end == NSC_RUN_INTERRUPTED) {
        if (!quiet) fprintf(stderr, "nscircuit: interrupted at t=%g s; %s holds the %d rows computed\n", W->t_end, out, W->nrow);
        nsc_flush_warnings(&rep, quiet);
        nsc_print_report(&rep);
        int sig = (int)stop_flag;
        nsc_stream_free(stream);
        nsc_report_free(&rep);
        nsc_waves_free(W);
        nsc_probes_free(probes, nprobe);
        nsc_meas_results_free(mres, ckt->nmeas);
        free(mres);
        nsc_circuit_free(ckt);
        free(out); free(dat); free(gp); free(png); free(measpath); free(evpath); free(losspath); free(ov);
        nsc_losses_free(&lossres);
        nsc_search_free(&sb);
        return 128 + (sig ? sig : SIGINT);
    }
done:
    nsc_stream_free(stream);
    nsc_flush_warnings(&rep, quiet);
    nsc_print_report(&rep);
    nsc_report_free(&rep);
    nsc_waves_free(W);
    nsc_probes_free(probes, nprobe);
    if (ckt) nsc_meas_results_free(mres, ckt->nmeas);
    free(mres);
    nsc_circuit_free(ckt);
    free(out);
    free(dat);
    free(gp);
    free(png);
    free(measpath);
    free(evpath);
    free(losspath);
    nsc_losses_free(&lossres);
    free(ov);
    nsc_search_free(&sb);
    return exit_code(s);
}
