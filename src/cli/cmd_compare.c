/* cmd_compare.c -- `nscircuit compare OURS REFERENCE`: read both files (rd_*.c),
 * compare them (cmp.c), print the table and the verdict, and with --plot draw
 * one overlay PNG per signal (gnuplot) with the difference trace below. */
#include "config.h"

#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "output/cmp.h"
#include "netlist/netlist.h"
#include "output/out.h"
#include "output/rd.h"

const char nsc_compare_usage[] =
    "usage: nscircuit compare OURS REFERENCE [options]\n"
    "\n"
    "Puts two waveform files on one time grid and prints, per signal, the max and RMS\n"
    "error (absolute and relative to the reference's range) and the shift of the\n"
    "switching instants. Files: nscircuit .dat/.csv, ngspice raw (ASCII or binary),\n"
    "ngspice wrdata columns. Names match case-insensitively; v(a,b) is also found as\n"
    "v(a) - v(b). AC tables (frequency; vdb in dB, vp in degrees) compare on log\n"
    "frequency, phases modulo 360; DC sweeps on the swept value, a nested sweep's\n"
    "inner sweeps each as its own curve keyed by the outer value.\n"
    "\n"
    "options:\n"
    "  --signals LIST      signals to compare, e.g. v(out),i(l1) (default: all common)\n"
    "  --from T, --to T    compare on [T, T] only (e.g. the steady state)\n"
    "  --tol T             bound on each signal's RMS error relative to the reference's\n"
    "                      range (default 0.01; '1%' also accepted)\n"
    "  --plot              overlay PNGs PREFIX.SIGNAL.png with the difference trace\n"
    "  -o PREFIX           prefix of the plot files (default OURS-vs-REFERENCE)\n"
    "  --quiet             print only the verdict\n"
    "\n"
    "exit status: 0 every signal within --tol, 1 some signal is not, 2 usage error,\n"
    "unreadable file or nothing to compare, 4 an output could not be written\n";

static int fail(const char *fmt, const char *arg)
{
    return nsc_usage_error("nscircuit compare", fmt, arg);
}


/* a signal name as part of a file name: "v(a,b)" -> "v_a_b" */
static char *file_part(const char *name)
{
    char *s = malloc(strlen(name) + 2), *d = s;
    if (!s) return NULL;
    for (const char *p = name; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (isalnum(c) || c == '.' || c == '-' || c == '+') *d++ = (char)c;
        else if (d > s && d[-1] != '_') *d++ = '_';
    }
    while (d > s && d[-1] == '_') d--;
    if (d == s) *d++ = 'x';
    *d = 0;
    return s;
}

static const char *kind_text(nsc_wfkind k)
{
    switch (k) {
    case NSC_WF_WRDATA: return "ngspice wrdata columns";
    case NSC_WF_RAW: return "ngspice raw, ASCII";
    case NSC_WF_RAWBIN: return "ngspice raw, binary";
    default: return "table";
    }
}

/* An AC table's decibels and degrees are printed as they are (no SI prefix). */
static int plain_unit(const char *name)
{
    return nsc_signame_ac(name) != 0;
}

static const char *unit_of(const char *name)
{
    if (plain_unit(name)) return nsc_signame_ac(name) == NSC_AC_DB ? "dB" : "deg";
    return name[0] == 'v' ? "V" : name[0] == 'i' ? "A" : "";
}

/* x in the unit of signal `name` ("12.5 mV", "-3.01 dB", "45 deg") */
static const char *val(double x, const char *name, char *buf, size_t n)
{
    if (!plain_unit(name)) return nsc_eng(x, unit_of(name), buf, n);
    snprintf(buf, n, "%.3g %s", x, unit_of(name));
    return buf;
}

/* The unit of a table's column 0: s, Hz, or the swept source's V or A. */
static const char *scale_unit(const nsc_waves *W)
{
    int sc = nsc_waves_scale(W);
    if (sc != NSC_SCALE_SWEEP) return sc == NSC_SCALE_TIME ? "s" : "Hz";
    return W->name[0][0] == 'v' ? "V" : W->name[0][0] == 'i' ? "A" : "";
}

static void describe(const char *label, const char *path, const nsc_waves *W, const nsc_wfinfo *in)
{
    char a[32], b[32];
    const char *u = scale_unit(W);
    printf("%-10s %s: %s, %d points, %s .. %s\n", label, path, kind_text(in->kind), W->nrow,
           nsc_eng(W->v[0], u, a, sizeof a),
           nsc_eng(W->v[(size_t)(W->nrow - 1) * W->ncol], u, b, sizeof b));
}

/* "+1.2 us" / "0 s" */
/* Without --from/--to, an input that did not complete (its run interrupted or
 * stopped, a truncated raw file) or covers less of the time than the other is a
 * failure: the errors printed hold for the common part only. 1 if so (printed). */
static int incomplete_input(const nsc_cmp *c, const nsc_waves *A, const nsc_waves *B,
                            const nsc_wfinfo *ia, const nsc_wfinfo *ib, const char *fo,
                            const char *fr, int whole, int quiet)
{
    if (!whole) return 0;
    const char *what = ia->incomplete ? fo : ib->incomplete ? fr : NULL;
    if (what) {
        printf("%sFAIL: %s is incomplete (its run did not complete or the file is truncated); "
               "compare a window with --from/--to\n",
               quiet ? "" : "\n", what);
        return 1;
    }
    double a0 = A->v[0],
           a1 = A->v[(size_t)(A->nrow - 1) * A->ncol]; /* (a downward DC sweep: a1 < a0) */
    double b0 = B->v[0], b1 = B->v[(size_t)(B->nrow - 1) * B->ncol];
    if (a1 < a0) {
        double x = a0;
        a0 = a1;
        a1 = x;
    }
    if (b1 < b0) {
        double x = b0;
        b0 = b1;
        b1 = x;
    }
    int lg = c->logx && fmin(a0, b0) > 0; /* AC: the share of decades covered */
    double span = lg ? log10(fmax(a1, b1) / fmin(a0, b0)) : fmax(a1, b1) - fmin(a0, b0);
    double common = lg ? log10(c->t1 / c->t0) : c->t1 - c->t0;
    double slack = 0.01 * span; /* a reference may start at 10 ps, ours at 0 */
    if (!(common >= span - slack)) {
        const char *u = scale_unit(A);
        printf(
            "%sFAIL: the files cover different %s (%s: %g .. %g %s, %s: %g .. %g %s); the errors hold for "
            "%.3g %% of it; compare a window with --from/--to\n",
            quiet ? "" : "\n",
            nsc_waves_scale(A) == NSC_SCALE_TIME   ? "times"
            : nsc_waves_scale(A) == NSC_SCALE_FREQ ? "frequencies"
                                                   : "sweep ranges",
            fo, a0, a1, u, fr, b0, b1, u, 100 * common / span);
        return 1;
    }
    return 0;
}

static const char *shift_text(double x, char *buf, size_t n)
{
    if (n < 2) return "";
    buf[0] = '+';
    nsc_eng(x, "s", buf + (x > 0), n - (x > 0));
    return buf;
}

/* x on the abscissa of c: "1.2 ms", "10 kHz", a swept value as it is */
static const char *scale_val(const nsc_cmp *c, double x, char *buf, size_t n)
{
    if (c->scale == NSC_SCALE_SWEEP) snprintf(buf, n, "%g", x);
    else nsc_eng(x, c->scale == NSC_SCALE_TIME ? "s" : "Hz", buf, n);
    return buf;
}

static void print_table(const nsc_cmp *c, double tol)
{
    int w = 6;
    for (int q = 0; q < c->nsig; q++) w = (int)fmax(w, (double)strlen(c->sig[q].name));
    printf("\n%-*s  %-11s  %-21s  %-21s  %-7s  %s\n", w, "signal", "ref range",
           "max error (of range)", "rms error (of range)", "verdict",
           "switching instants: matched, shift max / mean");
    for (int q = 0; q < c->nsig; q++) {
        const nsc_cmp_sig *s = &c->sig[q];
        const char *u = unit_of(s->name);
        char rg[32], me[32], re[32], col1[80], col2[80], sw[200], s1[32], s2[32], lv[32];
        val(s->range, s->name, rg, sizeof rg);
        snprintf(col1, sizeof col1, "%s  %.3g %%", val(s->max_err, s->name, me, sizeof me),
                 100 * s->max_err / s->scale);
        snprintf(col2, sizeof col2, "%s  %.3g %%", val(s->rms_err, s->name, re, sizeof re),
                 100 * s->rms_err / s->scale);
        if (s->nan_side) snprintf(col1, sizeof col1, "NaN"), snprintf(col2, sizeof col2, "NaN");
        if (c->scale != NSC_SCALE_TIME) snprintf(sw, sizeof sw, "-");
        else if (s->n_ref == 0 && s->n_ours == 0)
            snprintf(sw, sizeof sw, "none (no crossing of %s)",
                     nsc_eng(s->level, u, lv, sizeof lv));
        else {
            int k = snprintf(sw, sizeof sw, "%d/%d", s->n_matched, s->n_ref);
            if (s->n_ours != s->n_ref)
                k += snprintf(sw + k, sizeof sw - (size_t)k, " (ours has %d)", s->n_ours);
            if (s->n_matched)
                snprintf(sw + k, sizeof sw - (size_t)k, " at %s: %s / %s",
                         nsc_eng(s->level, u, lv, sizeof lv),
                         shift_text(s->shift_max, s1, sizeof s1),
                         shift_text(s->shift_mean, s2, sizeof s2));
        }
        printf("%-*s  %-11s  %-21s  %-21s  %-7s  %s\n", w, s->name, rg, col1, col2,
               s->rms_err <= tol * s->scale ? "ok" : "FAIL", sw);
    }
    for (int q = 0; q < c->nsig; q++) {
        const nsc_cmp_sig *s = &c->sig[q];
        if (strcmp(s->ours_src, s->name) || strcmp(s->ref_src, s->name))
            printf("  %s: ours %s, reference %s\n", s->name, s->ours_src, s->ref_src);
        if (s->range <= 0)
            printf("  %s: the reference is constant; relative errors are of its magnitude\n",
                   s->name);
        else if (s->scale != s->range) /* (cmp.h: a range within 1e-6 of the level) */
            printf("  %s: the reference's range %.3g is below 1e-6 of its magnitude %.3g:"
                   " relative errors are of its magnitude\n",
                   s->name, s->range, s->scale);
        if (s->nan_side) {
            char x[32];
            printf("  %s: NaN in %s at row %d (%s): its errors are NaN\n", s->name,
                   s->nan_side == 2 ? "the reference" : "ours", s->nan_row,
                   scale_val(c, s->t_nan, x, sizeof x));
        }
    }
}

/* Data on the grid: time, then ours, reference, difference per signal; the
 * inner sweeps of a nested DC sweep one after the other, a blank line
 * between two (gnuplot draws each as its own line). */
static nsc_status write_grid(const nsc_cmp_set *S, const char *path, nsc_report *r)
{
    nsc_afile a;
    nsc_status s = nsc_afile_open(&a, path, r);
    if (s) return s;
    const nsc_cmp *c0 = S->c[0];
    fprintf(a.f, "# %s",
            c0->scale == NSC_SCALE_TIME   ? "time"
            : c0->scale == NSC_SCALE_FREQ ? "frequency"
                                          : "sweep");
    for (int q = 0; q < c0->nsig; q++)
        fprintf(a.f, " ours:%s ref:%s diff:%s", c0->sig[q].name, c0->sig[q].name, c0->sig[q].name);
    fputc('\n', a.f);
    for (int k = 0; k < S->n; k++) {
        const nsc_cmp *c = S->c[k];
        size_t ng = (size_t)c->ngrid;
        if (k) fputc('\n', a.f);
        for (size_t i = 0; i < ng; i++) {
            fprintf(a.f, "%.12e", c->t[i]);
            for (int q = 0; q < c->nsig; q++) {
                double o = c->ours[q * ng + i], f = c->ref[q * ng + i];
                fprintf(a.f, " %.12e %.12e %.12e", o + 0.0, f + 0.0,
                        nsc_cmp_diff(c, q, o, f) + 0.0);
            }
            fputc('\n', a.f);
        }
    }
    return nsc_afile_close(&a, 1, r);
}

/* Over every inner sweep of S: the abscissa's ends, the largest |value| and
 * |difference| of signal q, its worst RMS error relative to the range. */
static void set_extent(const nsc_cmp_set *S, int q, double *t0, double *t1, double *m, double *d,
                       double *rel)
{
    *t0 = INFINITY, *t1 = -INFINITY, *m = *d = *rel = 0;
    for (int k = 0; k < S->n; k++) {
        const nsc_cmp *c = S->c[k];
        size_t ng = (size_t)c->ngrid;
        *t0 = fmin(*t0, c->t0);
        *t1 = fmax(*t1, c->t1);
        double e = c->sig[q].rms_err / c->sig[q].scale;
        *rel = isnan(e) || isnan(*rel) ? NAN : fmax(*rel, e);
        for (size_t i = 0; i < ng; i++) {
            *m = fmax(*m, fmax(fabs(c->ours[q * ng + i]), fabs(c->ref[q * ng + i])));
            *d = fmax(*d, fabs(nsc_cmp_diff(c, q, c->ours[q * ng + i], c->ref[q * ng + i])));
        }
    }
}

/* The abscissa of the plots: time in a prefixed unit; AC frequency in Hz on a
 * log axis; a sweep's value as it is. *lx: the gnuplot line setting the log axis. */
static void x_axis(const nsc_cmp *c, double t0, double t1, double *ts, const char **tu,
                   const char **xl, const char **lx)
{
    nsc_time_unit(fmax(fabs(t0), fabs(t1)), ts, tu);
    *xl = "time", *lx = "";
    if (c->scale == NSC_SCALE_TIME) return;
    *ts = 1, *tu = c->scale == NSC_SCALE_FREQ ? "Hz" : "swept value";
    *xl = c->scale == NSC_SCALE_FREQ ? "frequency" : "sweep";
    *lx = c->logx ? "set logscale x\n" : "";
}

/* One script per signal: overlay (top) and ours - reference (bottom). */
static nsc_status write_script(const nsc_cmp_set *S, int q, const char *datpath, const char *gppath,
                               const char *pngpath, const char *ours, const char *ref,
                               nsc_report *r)
{
    const nsc_cmp *c = S->c[0];
    const nsc_cmp_sig *s = &c->sig[q];
    const char *names[] = { datpath, gppath, pngpath };
    nsc_status ns = nsc_gp_names_check(names, 3, r);
    if (ns) return ns;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return nsc_oom(r);
    double ts, ys, ds, m, d, t0, t1, rel;
    const char *tu, *yp, *dp, *u = unit_of(s->name);
    const char *qty = s->name[0] == 'v' ? "voltage" : s->name[0] == 'i' ? "current" : "value";
    set_extent(S, q, &t0, &t1, &m, &d, &rel);
    const char *xl, *lx;
    x_axis(c, t0, t1, &ts, &tu, &xl, &lx);
    ys = nsc_unit_scale(m, &yp);
    ds = nsc_unit_scale(d, &dp);
    if (plain_unit(s->name)) { /* dB, degrees: as they are */
        ys = ds = 1, yp = dp = "";
        qty = !strcmp(u, "dB") ? "magnitude" : "phase";
    }
    int col = 2 + 3 * q;
    char title[512];
    snprintf(title, sizeof title,
             "%s: ours (%s) vs reference (%s); rms error %.3g %% of the reference range%s", s->name,
             nsc_base_name(ours), nsc_base_name(ref), 100 * rel,
             S->n > 1 ? " (the worst inner sweep)" : "");
    fprintf(f, "# gnuplot script written by nscircuit compare: gnuplot %s (in this directory)\n",
            nsc_base_name(gppath));
    nsc_gp_preamble(f, pngpath, datpath, 700);
    fprintf(f, "%sset xrange [%.10g:%.10g]\nset format y '%%g'\nset multiplot title ", lx, t0 * ts,
            t1 * ts);
    nsc_gp_quote(f, title);
    fprintf(f,
            "\nset tmargin at screen 0.93\nset bmargin at screen 0.40\n"
            "set format x ''\nunset xlabel\nset ylabel '%s (%s%s)'\n"
            "plot datafile using ($1*%.0e):($%d*%.0e) with lines lw 1.5 title 'ours', \\\n"
            "     datafile using ($1*%.0e):($%d*%.0e) with lines lw 1.5 dt 2 title 'reference'\n",
            qty, yp, u, ts, col, ys, ts, col + 1, ys);
    fprintf(
        f,
        "set tmargin at screen 0.36\nset bmargin at screen 0.08\n"
        "set format x '%%g'\nset xlabel '%s (%s)'\nset ylabel 'difference (%s%s)'\n"
        "plot datafile using ($1*%.0e):($%d*%.0e) with lines lw 1 lc rgb '#c00000' title 'ours - reference'\n"
        "unset multiplot\nset output\n",
        xl, tu, dp, u, ts, col + 2, ds);
    if (fclose(f)) {
        free(text);
        return nsc_oom(r);
    }
    nsc_status st = nsc_write_atomic(gppath, text, len, r);
    free(text);
    return st;
}

/* The script and picture of signal q: PREFIX.PART.gp, PREFIX.PART.png (new), or
 * NSC_ENOMEM. */
static nsc_status sig_files(const nsc_cmp *c, int q, const char *prefix, char **gp, char **png,
                            nsc_report *r)
{
    char *part = file_part(c->sig[q].name);
    *gp = part ? nsc_asprintf("%s.%s.gp", prefix, part) : NULL;
    *png = part ? nsc_asprintf("%s.%s.png", prefix, part) : NULL;
    free(part);
    return *gp && *png ? NSC_OK : nsc_oom(r);
}

/* Has signal q a finite value to draw in both files? (-inf dB everywhere:
 * a node without AC signal, has not) */
static int drawable(const nsc_cmp_set *S, int q)
{
    int fo = 0, fr = 0;
    for (int k = 0; k < S->n; k++) {
        const nsc_cmp *c = S->c[k];
        size_t ng = (size_t)c->ngrid;
        for (size_t i = 0; i < ng; i++) {
            fo |= isfinite(c->ours[q * ng + i]);
            fr |= isfinite(c->ref[q * ng + i]);
        }
    }
    return fo && fr;
}

static nsc_status plots(const nsc_cmp_set *S, const char *prefix, const char *ours, const char *ref,
                        int quiet, nsc_report *r)
{
    char *dat = nsc_asprintf("%s.dat", prefix);
    if (!dat) return nsc_oom(r);
    char *in[] = { (char *)ours, (char *)ref };
    const nsc_cmp *c = S->c[0];
    nsc_status s = NSC_OK;
    for (int q = -1; !s && q < c->nsig; q++) { /* no output may be an input: checked first */
        char *o[2] = { dat, NULL };
        if (q >= 0) s = sig_files(c, q, prefix, &o[0], &o[1], r);
        const char *clash = s ? NULL : nsc_output_is_input(o, q < 0 ? 1 : 2, in, 2);
        if (clash)
            s = nsc_err(r, NSC_EUSAGE, NULL,
                        "the output '%s' is one of the files compared: choose another "
                        "prefix with -o",
                        clash);
        if (q >= 0) {
            free(o[0]);
            free(o[1]);
        }
    }
    if (!s) s = write_grid(S, dat, r);
    if (!s && !quiet) printf("\nwrote %s", dat);
    for (int q = 0; !s && q < c->nsig; q++) {
        char *gp = NULL, *png = NULL;
        if (!drawable(S, q)) { /* (gnuplot: "all points y value undefined") */
            if (!quiet) printf(" (%s: no finite value, not plotted)", c->sig[q].name);
            continue;
        }
        s = sig_files(c, q, prefix, &gp, &png, r);
        if (!s) s = write_script(S, q, dat, gp, png, ours, ref, r);
        if (!s) s = nsc_render_gp(gp, r);
        if (!s && !quiet) printf(", %s", png);
        free(gp);
        free(png);
    }
    if (!quiet) printf("\n");
    free(dat);
    return s;
}

/* the names of --signals, split at commas outside parentheses */
static int split_list(char *list, char ***out)
{
    int n = 0, depth = 0;
    char **v = NULL;
    char *start = list;
    for (char *p = list;; p++) {
        if (*p == '(') depth++;
        if (*p == ')') depth--;
        if (*p == 0 || (*p == ',' && depth == 0)) {
            int end = *p == 0;
            *p = 0;
            while (isspace((unsigned char)*start)) start++;
            if (*start) {
                char **nv = realloc(v, sizeof *v * (size_t)(n + 1));
                if (!nv) {
                    free(v);
                    return -1;
                }
                v = nv;
                v[n++] = start;
            }
            if (end) break;
            start = p + 1;
        }
    }
    *out = v;
    return n;
}

enum { C_SIGNALS = 300, C_TOL, C_FROM, C_TO, C_PLOT, C_QUIET, C_HELP };

/* The command line of `nscircuit compare`. */
typedef struct compare_cli {
    char *signals;
    const char *prefix;
    double tol, from, to;
    int plot, quiet;
    const char *fo, *fr; /* OURS, REFERENCE */
} compare_cli;

/* The options into L: -1 to go on, else the exit status. */
static int compare_options(int argc, char **argv, compare_cli *L)
{
    static const struct option longopts[] = { { "signals", required_argument, 0, C_SIGNALS },
                                              { "tol", required_argument, 0, C_TOL },
                                              { "from", required_argument, 0, C_FROM },
                                              { "to", required_argument, 0, C_TO },
                                              { "plot", no_argument, 0, C_PLOT },
                                              { "quiet", no_argument, 0, C_QUIET },
                                              { "help", no_argument, 0, C_HELP },
                                              { 0, 0, 0, 0 } };
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': L->prefix = optarg; break;
        case C_SIGNALS: L->signals = optarg; break;
        case C_TOL: {
            char *q;
            L->tol = strtod(optarg, &q);
            if (q != optarg && *q == '%' && q[1] == 0) {
                L->tol /= 100;
                q++;
            }
            if (q == optarg || *q || !(L->tol >= 0) || !isfinite(L->tol))
                return fail("--tol needs a non-negative number, not '%s'", optarg);
            break;
        }
        case C_FROM:
        case C_TO:
            if (!nsc_parse_number(optarg, c == C_FROM ? &L->from : &L->to)
                || !isfinite(c == C_FROM ? L->from : L->to))
                return fail("--from / --to need a time, not '%s'", optarg);
            break;
        case C_PLOT: L->plot = 1; break;
        case C_QUIET: L->quiet = 1; break;
        case C_HELP: fputs(nsc_compare_usage, stdout); return 0;
        default: return fail("unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (argc - optind != 2)
        return fail("%s", argc - optind < 2 ? "need two files: OURS REFERENCE"
                                            : "more than two files given");
    L->fo = argv[optind];
    L->fr = argv[optind + 1];
    return -1;
}

/* A file without names (W, read from path) takes names[0..nnames), in order:
 * NSC_EUSAGE unless there is one per column. */
static nsc_status name_columns(nsc_waves *W, const char *path, char **names, int nnames,
                               nsc_report *rep)
{
    if (nnames != W->ncol - 1)
        return nsc_err(rep, NSC_EUSAGE, NULL,
                       "%s has no signal names: give its %d column names in order with "
                       "--signals (or write it with 'set wr_vecnames' in ngspice)",
                       path, W->ncol - 1);
    for (int j = 0; j < nnames; j++) {
        char *nm = nsc_strdup(names[j]);
        if (!nm) return nsc_oom(rep);
        free(W->name[j + 1]);
        W->name[j + 1] = nm;
    }
    return NSC_OK;
}

/* How method grids were built, for the "compared" line. */
static const char *grid_text(const nsc_cmp *c)
{
    return c->samples ? "ours' uniform rows; the reference interpolated"
           : c->logx
               ? "both tables' frequencies, each linear in log frequency between its own; phase errors "
                 "modulo 360 degrees"
           : c->scale == NSC_SCALE_SWEEP ? "both tables' sweep points, each linear between its own"
                                         : "both tables' time points, each linear between its own";
}

/* Inner sweep k of S: "sweep(i1) = 0.0005" (its outer value), "inner sweep 2
 * of 3" (a reference without outer values compared with one), "" (not nested). */
static const char *inner_label(const nsc_cmp_set *S, int k, char *buf, size_t n)
{
    if (S->n == 1) snprintf(buf, n, "%s", "");
    else if (S->outer && isfinite(S->key[k])) snprintf(buf, n, "%s = %g", S->outer, S->key[k]);
    else snprintf(buf, n, "inner sweep %d of %d", k + 1, S->n);
    return buf;
}

/* The "compared" line and the table of each inner sweep. */
static void print_set(const nsc_cmp_set *S, const nsc_waves *A, double tol)
{
    char a[32], b[32], lb[96];
    const char *u = scale_unit(A);
    const nsc_cmp *c = S->c[0];
    if (S->n == 1) {
        printf("%-10s %s .. %s, %d points (%s)\n", "compared", nsc_eng(c->t0, u, a, sizeof a),
               nsc_eng(c->t1, u, b, sizeof b), c->ngrid, grid_text(c));
        print_table(c, tol);
        return;
    }
    printf("%-10s a nested DC sweep: %d inner sweeps%s%s, each its own curve (%s)\n", "compared",
           S->n, S->outer ? " of " : "", S->outer ? S->outer : "", grid_text(c));
    for (int k = 0; k < S->n; k++) {
        c = S->c[k];
        printf("\n%s: %s .. %s, %d points\n", inner_label(S, k, lb, sizeof lb),
               nsc_eng(c->t0, u, a, sizeof a), nsc_eng(c->t1, u, b, sizeof b), c->ngrid);
        print_table(c, tol);
    }
}

/* How far signal s is from --tol: its RMS error relative to its scale; a
 * NaN the farthest. */
static double badness(const nsc_cmp_sig *s)
{
    return s->nan_side || isnan(s->rms_err) ? INFINITY : s->rms_err / s->scale;
}

/* "v(q): 1.2e-07 %", "v(q) at sweep(i1) = 0.001: ...", "v(in): NaN (row 2 of the reference)" */
static const char *worst_text(const nsc_cmp_set *S, int kw, const nsc_cmp_sig *w, char *buf,
                              size_t n)
{
    char lb[96];
    int k = snprintf(buf, n, "%s%s%s: ", w->name, S->n > 1 ? " at " : "",
                     inner_label(S, kw, lb, sizeof lb));
    if (w->nan_side)
        snprintf(buf + k, n - (size_t)k, "NaN (row %d of %s)", w->nan_row,
                 w->nan_side == 2 ? "the reference" : "ours");
    else snprintf(buf + k, n - (size_t)k, "%.3g %%", 100 * w->rms_err / w->scale);
    return buf;
}

/* The comparison on stdout (the table unless --quiet) and its verdict: 0 every
 * signal within --tol (in every inner sweep of a nested DC sweep), 1 not, or
 * an input that does not cover the range. */
static int verdict(const compare_cli *L, const nsc_cmp_set *S, const nsc_waves *A,
                   const nsc_waves *B, const nsc_wfinfo *ia, const nsc_wfinfo *ib)
{
    if (!L->quiet) {
        describe("ours", L->fo, A, ia);
        describe("reference", L->fr, B, ib);
        print_set(S, A, L->tol);
    }
    int nbad = 0, nsig = S->c[0]->nsig, kw = 0;
    const nsc_cmp_sig *worst = &S->c[0]->sig[0];
    for (int q = 0; q < nsig; q++) {
        int bad = 0;
        for (int k = 0; k < S->n; k++) {
            const nsc_cmp_sig *s = &S->c[k]->sig[q];
            bad |= !(s->rms_err <= L->tol * s->scale);
            if (badness(s) > badness(worst)) worst = s, kw = k;
        }
        nbad += bad;
    }
    char ws[256], each[64] = "";
    worst_text(S, kw, worst, ws, sizeof ws);
    if (S->n > 1) snprintf(each, sizeof each, " in each of the %d inner sweeps", S->n);
    int partial = incomplete_input(S->c[0], A, B, ia, ib, L->fo, L->fr,
                                   isinf(L->from) && isinf(L->to), L->quiet);
    if (nbad)
        printf(
            "%sFAIL: %d of %d signals above --tol %g %% (rms error of the reference range)%s; worst %s\n",
            L->quiet ? "" : "\n", nbad, nsig, 100 * L->tol, S->n > 1 ? " in some inner sweep" : "",
            ws);
    else if (!partial)
        printf(
            "%sPASS: all %d signals within --tol %g %% (rms error of the reference range)%s; worst %s\n",
            L->quiet ? "" : "\n", nsig, 100 * L->tol, each, ws);
    return nbad || partial ? 1 : 0;
}

/* --plot: PREFIX (default OURS-vs-REFERENCE) .gp/.png; status, or the exit
 * status of a failure (4 output, 3 out of memory or gnuplot, 2 other). */
static int compare_plot(const compare_cli *L, const nsc_cmp_set *cmp, int status, nsc_report *rep)
{
    char *pre = NULL;
    const char *prefix = L->prefix;
    if (!prefix) {
        char *so = nsc_stem(L->fo), *sr = nsc_stem(L->fr);
        pre = so && sr ? nsc_asprintf("%s-vs-%s", so, sr) : NULL;
        free(so);
        free(sr);
        if (!pre) {
            nsc_oom(rep);
            return 3;
        }
        prefix = pre;
    }
    nsc_status ps = plots(cmp, prefix, L->fo, L->fr, L->quiet, rep);
    if (ps) status = ps == NSC_EOUT ? 4 : nsc_exit_status(ps) == 3 ? 3 : 2;
    free(pre);
    return status;
}

int nsc_cmd_compare(int argc, char **argv)
{
    compare_cli L = { NULL, NULL, 0.01, -INFINITY, INFINITY, 0, 0, NULL, NULL };
    int status = compare_options(argc, argv, &L);
    if (status >= 0) return status;
    nsc_report rep;
    nsc_report_init(&rep);
    nsc_waves *A = NULL, *B = NULL;
    nsc_cmp_set *cmp = NULL;
    char **names = NULL;
    int nnames = 0;
    nsc_wfinfo ia, ib;
    status = 2;
    if (nsc_read_waves(L.fo, &A, &ia, &rep) || nsc_read_waves_scale(L.fr, ia.scale, &B, &ib, &rep))
        goto done;
    if (L.signals && (nnames = split_list(L.signals, &names)) <= 0) {
        status = nnames < 0 ? 3 : fail("empty --signals list%s", "");
        goto done;
    }
    if ((!ia.named && name_columns(A, L.fo, names, nnames, &rep))
        || (!ib.named && name_columns(B, L.fr, names, nnames, &rep)))
        goto done;
    if (ia.radians) nsc_waves_ac_degrees(A); /* (named now: its vp columns known) */
    if (ib.radians) nsc_waves_ac_degrees(B);
    if (nsc_compare_set(A, B, names, nnames, L.from, L.to, &cmp, &rep)) goto done;
    status = verdict(&L, cmp, A, B, &ia, &ib);
    if (L.plot) status = compare_plot(&L, cmp, status, &rep);
done:
    if (rep.error) fprintf(stderr, "%s\n", rep.error);
    nsc_report_free(&rep);
    nsc_waves_free(A);
    nsc_waves_free(B);
    nsc_cmp_set_free(cmp);
    free(names);
    return status;
}
