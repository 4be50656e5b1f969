/* out_gp.c -- the gnuplot script of a waveform table, and rendering it to PNG. */
#include "out.h"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Names pasted into a script are data, never code: inside gnuplot's single
 * quotes only a quote is special (written twice); a control character (a
 * newline would end the string, or the comment line it is in) is refused. */
int nsc_gp_name_ok(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 32 || *s == 127) return 0;
    return 1;
}

void nsc_gp_path(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

nsc_status nsc_gp_names_check(const char *const *names, int n, nsc_report *r)
{
    for (int k = 0; k < n; k++)
        if (names[k] && !nsc_gp_name_ok(names[k]))
            return nsc_err(r, NSC_EOUT, NULL,
                           "cannot write a gnuplot script naming '%s': the name holds a control "
                           "character",
                           names[k]);
    return NSC_OK;
}

void nsc_gp_preamble(FILE *f, const char *pngpath, const char *datpath, int height)
{
    fputs("if (!exists(\"outfile\")) outfile = ", f);
    nsc_gp_path(f, nsc_base_name(pngpath));
    fprintf(f,
            "\nset terminal pngcairo noenhanced size 1000,%d font 'sans,10'\nset output "
            "outfile\nif (!exists(\"datafile\")) datafile = ",
            height);
    nsc_gp_path(f, nsc_base_name(datpath));
    fputs("\nset grid\n"
          "set key outside right top reverse Left\n"
          "set lmargin at screen 0.09\n"
          "set rmargin at screen 0.84\n",
          f);
}

/* Panel of a column: 'v' voltages, 'i' currents, 'o' other. */
static char kind_of(const char *name)
{
    if ((name[0] == 'v' || name[0] == 'V') && name[1] == '(') return 'v';
    if ((name[0] == 'i' || name[0] == 'I') && name[1] == '(') return 'i';
    return 'o';
}

void nsc_time_unit(double tmax, double *scale, const char **unit)
{
    static const char *const name[] = { "s", "ms", "µs", "ns", "ps" };
    int k = 0;
    tmax = fabs(tmax);
    while (k < 4 && tmax > 0 && tmax * pow(10, 3 * k) < 1) k++;
    *scale = pow(10, 3 * k);
    *unit = name[k];
}

double nsc_unit_scale(double maxabs, const char **prefix)
{
    static const char *const name[] = { "G", "M", "k", "", "m", "µ", "n", "p", "f" };
    int k = 3; /* 10^(3(3-k)) */
    if (maxabs > 0 && isfinite(maxabs)) {
        while (k > 0 && maxabs * pow(10, 3 * (k - 3)) >= 1000) k--;
        while (k < 8 && maxabs * pow(10, 3 * (k - 3)) < 1) k++;
    }
    *prefix = name[k];
    return pow(10, 3 * (k - 3));
}

void nsc_gp_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (int n = 0; s && *s && n < 200; s++, n++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '\'') fputc('\'', f); /* a quote inside '...' is written twice */
        fputc(ch < 32 ? ' ' : ch, f);
    }
    fputc('\'', f);
}

/* A panel: columns col[0..n) of one kind ('v' voltages, 'i' currents, 'o'
 * others), all switching (sw = 1) or none. */
typedef struct panel {
    char kind;
    int sw, n;
    int *col;
} panel;

#define MAXGROUPS 3 /* panels of one kind, by scale */
#define MAXPANELS (6 * MAXGROUPS)
#define SCALE_GAP 15.0 /* traces whose sizes differ more share no panel */

/* The size of a trace: its larger trimmed extreme, |qlo| or |qhi| (0: none). */
static double size_of(const nsc_trace_stat *s)
{
    return s->nfinite ? fmax(fabs(s->qlo), fabs(s->qhi)) : 0;
}

/* The group of each of the n columns col[] (one kind, switching or not) into
 * g[], by size: a column SCALE_GAP times smaller than the largest of its group
 * opens the next, at most MAXGROUPS (a 6 V output apart from a 120 V snubber
 * node, which would draw it flat); zero traces join the smallest. Groups are
 * numbered in the order of their first columns (the first saved quantity's
 * panel first). Returns the number of groups. */
static int scale_groups(const int *col, int n, const nsc_trace_stat *st, int *g)
{
    int ng = 0;
    for (int done = 0; done < n && ng < MAXGROUPS;) {
        double top = 0; /* the largest not grouped yet */
        for (int j = 0; j < n; j++)
            if (g[j] < 0) top = fmax(top, size_of(&st[col[j]]));
        for (int j = 0; j < n; j++)
            if (g[j] < 0
                && (size_of(&st[col[j]]) * SCALE_GAP >= top || ng == MAXGROUPS - 1 || top == 0)) {
                g[j] = ng;
                done++;
            }
        ng++;
    }
    for (int j = 0; j < n; j++)
        if (g[j] < 0) g[j] = ng - 1; /* (zero traces left) */
    int map[MAXGROUPS], next = 0;    /* numbered as their first columns come */
    for (int q = 0; q < ng; q++) map[q] = -1;
    for (int j = 0; j < n; j++)
        if (map[g[j]] < 0) map[g[j]] = next++;
    for (int j = 0; j < n; j++) g[j] = map[g[j]];
    return ng;
}

/* The panels of W, key ones first (voltages, currents, others), then the
 * switching ones in the same kind order; each kind split by scale_groups; a
 * panel exists when it has a column. cols holds room for ncol indices, g for
 * ncol groups. Returns the number of panels. */
static int make_panels(const nsc_waves *W, const nsc_trace_stat *st, int *cols, int *g, panel *P)
{
    static const char kinds[] = "vio";
    int np = 0, used = 0;
    for (int sw = 0; sw < 2; sw++)
        for (int j = 0; j < 3; j++) {
            int n = 0, *c = cols + used;
            for (int k = 1; k < W->ncol; k++)
                if (kind_of(W->name[k]) == kinds[j] && nsc_trace_switching(&st[k]) == sw)
                    c[n++] = k;
            for (int q = 0; q < n; q++) g[q] = -1;
            int ng = n ? scale_groups(c, n, st, g) : 0;
            int *sorted = c; /* c reordered group by group, in place */
            for (int q = 0, m = 0; q < ng; q++) {
                panel p = { kinds[j], sw, 0, sorted + m };
                for (int a = m; a < n; a++) /* stable: bring group q's columns to the front */
                    if (g[a] == q) {
                        int ca = c[a];
                        for (int b = a; b > m + p.n; b--) {
                            c[b] = c[b - 1];
                            g[b] = g[b - 1];
                        }
                        c[m + p.n] = ca;
                        g[m + p.n] = q;
                        p.n++;
                    }
                m += p.n;
                if (p.n) P[np++] = p;
            }
            used += n;
        }
    return np;
}

/* The statistics of a panel's traces together (nsc_robust_range reads only
 * the extremes and the quantiles: the union's are those of the panel). */
static nsc_trace_stat panel_stat(const panel *P, const nsc_trace_stat *st)
{
    nsc_trace_stat u = { INFINITY, -INFINITY, INFINITY, -INFINITY, 0, 0, 0, 0 };
    for (int j = 0; j < P->n; j++) {
        const nsc_trace_stat *s = &st[P->col[j]];
        if (!s->nfinite) continue;
        u.min = fmin(u.min, s->min);
        u.max = fmax(u.max, s->max);
        u.qlo = fmin(u.qlo, s->qlo);
        u.qhi = fmax(u.qhi, s->qhi);
        u.nfinite += s->nfinite;
    }
    return u;
}

/* "set label 1" naming the full range a clipped panel does not show. */
static void clipped_label(FILE *f, const panel *P, const nsc_trace_stat *st)
{
    nsc_trace_stat all = panel_stat(P, st);
    double fl = all.min, fh = all.max;
    const char *u = P->kind == 'v' ? "V" : P->kind == 'i' ? "A" : "";
    char a[64], b[64],
        *text = nsc_asprintf("clipped to the 0.5-99.5 %% range; the data span %s to %s",
                             nsc_eng(fl, u, a, sizeof a), nsc_eng(fh, u, b, sizeof b));
    fprintf(f, "set label 1 ");
    nsc_gp_quote(f, text ? text : "clipped");
    fprintf(f, " at graph 0.01, graph 0.94 left front\n");
    free(text);
}

/* The style of a panel's j-th trace, distinct for every j: gnuplot's 8 line
 * types, then 8 more colours, solid for the first 16, then each of the 16 in
 * dash type 2, 3, ... */
static void line_style(FILE *f, int j)
{
    static const char *const more[] = { "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
                                        "#17becf", "#000080", "#006400", "#ff00ff" };
    int c = j % 16, dash = j / 16 + 1;
    if (c < 8) fprintf(f, "lt %d", c + 1);
    else fprintf(f, "lt 1 lc rgb '%s'", more[c - 8]);
    if (dash > 1) fprintf(f, " dt %d", dash);
}

/* One panel: its y range by nsc_robust_range, scaled to a readable unit prefix;
 * traces drawn last column first, so the first (the netlist's first saved
 * quantity, usually the output) is drawn on top; `set key invert` lists them in
 * column order. Switching traces are drawn thinner. */
static void plot_panel(FILE *f, const nsc_waves *W, const panel *P, const nsc_trace_stat *st,
                       double tscale, int last, const char *tunit, int xdigits, long every)
{
    nsc_trace_stat u = panel_stat(P, st);
    int clipped;
    double lo, hi;
    nsc_robust_range(&u, 1, &lo, &hi, &clipped);
    const char *pre = "";
    double ys = P->kind == 'o' ? 1 : nsc_unit_scale(fmax(fabs(lo), fabs(hi)), &pre);
    const char *sw = P->sw ? "switching " : "";
    if (P->kind == 'v') fprintf(f, "set ylabel '%svoltage (%sV)'\n", sw, pre);
    else if (P->kind == 'i') fprintf(f, "set ylabel '%scurrent (%sA)'\n", sw, pre);
    else fprintf(f, "set ylabel '%svalue'\n", sw);
    nsc_gp_ticks(f, 'y', lo * ys, hi * ys, 7, 1);
    if (clipped) clipped_label(f, P, st);
    if (last) fprintf(f, "set format x '%%.%dg'\nset xlabel 'time (%s)'\n", xdigits, tunit);
    else fprintf(f, "set format x ''\nunset xlabel\n");
    fprintf(f, "plot ");
    for (int j = P->n - 1; j >= 0; j--) {
        int k = P->col[j];
        fprintf(f, "%sdatafile ", j == P->n - 1 ? "" : ", \\\n     ");
        if (every > 1) fprintf(f, "every %ld ", every); /* a preview: every k-th row */
        fprintf(f, "using ($1*%.0e):($%d*%.0e) with lines ", tscale, k + 1, ys);
        line_style(f, j);
        fprintf(f, " lw %s title ", P->sw ? "1" : "1.5");
        nsc_gp_quote(f, W->name[k]);
    }
    fputc('\n', f);
    if (clipped) fprintf(f, "unset label 1\n");
}

/* A title that fits the picture's width (1000 pixels: about 130 characters of
 * the 10-point font; a centred longer one is clipped on both sides): at most
 * MAXTITLE characters, a longer one cut with "...". */
#define MAXTITLE 110
static size_t utf8_chars(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t k = 0; k < n; k++) c += ((unsigned char)s[k] & 0xc0) != 0x80; /* lead bytes */
    return c;
}

static void gp_title(FILE *f, const char *title)
{
    size_t len = strlen(title), n = 0;
    if (utf8_chars(title, len) <= MAXTITLE) {
        nsc_gp_quote(f, title);
        return;
    }
    for (size_t c = 0; n < len; n++) /* n: the start of character MAXTITLE - 3 */
        if (((unsigned char)title[n] & 0xc0) != 0x80 && c++ == MAXTITLE - 3) break;
    char *t = nsc_asprintf("%.*s...", (int)n, title);
    nsc_gp_quote(f, t ? t : "");
    free(t);
}

/* The script's text: preamble, time axis, the panels (make_panels, plot_panel). */
static void write_script(FILE *f, const nsc_waves *W, const nsc_trace_stat *st, int *cols,
                         const char *datpath, const char *gppath, const char *pngpath, long every)
{
    panel P[MAXPANELS];
    int panels = make_panels(W, st, cols, cols + W->ncol, P);
    double t0 = W->nrow ? nsc_waves_at(W, 0, 0) : 0,
           t1 = W->nrow ? nsc_waves_at(W, W->nrow - 1, 0) : 1, ts;
    const char *tu;
    nsc_time_unit(fmax(fabs(t0), fabs(t1)), &ts, &tu);
    fprintf(
        f,
        "# gnuplot script written by nscircuit: gnuplot %s (in this directory)\n"
        "# change the terminal line for another format, e.g. set terminal svg\n"
        "# panels: voltages, currents, then the switching traces (%d or more jumps of half their\n"
        "# 0.5-99.5 %% range between rows, or 2 or more and back to the start); traces of one kind\n"
        "# %g times apart in size have panels of their own; a y range is the 0.5-99.5 %% range of its\n"
        "# data when that is under a third of the full range (a start-up spike is clipped and named),\n"
        "# else the full range\n",
        nsc_base_name(gppath), NSC_PLOT_SWITCH_JUMPS, SCALE_GAP);
    nsc_gp_preamble(f, pngpath, datpath, 80 + 260 * (panels ? panels : 1));
    fprintf(f, "set key invert\n");
    nsc_ticks tx = nsc_ticks_of(t0 * ts, t1 * ts, 8);
    if (t1 > t0)
        fprintf(f, "set xrange [%.10g:%.10g]\nset xtics %.10g\n", t0 * ts, t1 * ts, tx.step);
    fprintf(f, "set multiplot layout %d,1 title ", panels ? panels : 1);
    gp_title(f, W->title ? W->title : "");
    fputc('\n', f);
    if (every > 1)
        fprintf(f, "# a preview: every %ld-th of the %ld rows is drawn\n", every, (long)W->nrow);
    for (int p = 0; p < panels; p++)
        plot_panel(f, W, &P[p], st, ts, p == panels - 1, tu, tx.digits, every);
    if (!panels)
        fprintf(
            f,
            "set xlabel 'time (%s)'\nplot datafile using ($1*%.0e):($1*%.0e) with lines title 'time'\n",
            tu, ts, ts);
    fprintf(f, "unset multiplot\nset output\n");
}

nsc_status nsc_write_gp(const nsc_waves *W, const char *datpath, const char *gppath,
                        const char *pngpath, nsc_report *r)
{
    return nsc_write_gp_thin(W, datpath, gppath, pngpath, 0, r);
}

nsc_status nsc_write_gp_thin(const nsc_waves *W, const char *datpath, const char *gppath,
                             const char *pngpath, long maxrows, nsc_report *r)
{
    long every = maxrows > 0 && W->nrow > maxrows ? (W->nrow + maxrows - 1) / maxrows : 1;
    const char *names[] = { datpath, gppath, pngpath };
    nsc_status st = nsc_gp_names_check(names, 3, r);
    if (st) return st;
    nsc_trace_stat *stat = nsc_calloc((size_t)W->ncol + 1, sizeof *stat);
    int *cols = nsc_calloc(2 * (size_t)W->ncol + 1, sizeof *cols); /* columns, their groups */
    char *text = NULL;
    size_t len = 0;
    int got = stat && cols ? nsc_trace_stats(W, stat) : -1; /* -2: a spilled row unread */
    int e = errno;
    FILE *f = !got ? open_memstream(&text, &len) : NULL;
    if (f) write_script(f, W, stat, cols, datpath, gppath, pngpath, every);
    free(stat);
    free(cols);
    if (got == -2) return nsc_waves_read_error(W, e, r);
    if (!f || fclose(f)) {
        free(text);
        return nsc_oom(r);
    }
    nsc_status s = nsc_write_atomic(gppath, text, len, r);
    free(text);
    return s;
}

/* Runs gnuplot -e expr gpbase in dir, its standard error read into msg (len
 * bytes, *got of them kept); the exit status, or -1 when it could not start. */
static int run_gnuplot(const char *dir, const char *expr, const char *gpbase, char *msg, size_t len,
                       size_t *got)
{
    int pfd[2];
    if (pipe(pfd)) return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return -1;
    }
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
        }
        dup2(pfd[1], 2);
        close(pfd[0]);
        if (chdir(dir) == 0) execlp(NSC_GNUPLOT, NSC_GNUPLOT, "-e", expr, gpbase, (char *)NULL);
        fprintf(stderr, "cannot execute %s: %s", NSC_GNUPLOT, strerror(errno));
        _exit(127);
    }
    close(pfd[1]);
    ssize_t k;
    *got = 0;
    while ((k = read(pfd[0], msg + *got, len - 1 - *got)) > 0) *got += (size_t)k;
    char drain[256];
    while (read(pfd[0], drain, sizeof drain) > 0) {}
    msg[*got] = 0;
    close(pfd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* The temporary PNG tmpp (gnuplot's outfile) into place as dir/png when gnuplot
 * (exit status st, its message msg) wrote it; removed otherwise. */
static nsc_status keep_png(const char *gppath, const char *dir, const char *png, const char *tmpp,
                           int st, char *msg, nsc_report *r)
{
    nsc_status s = NSC_OK;
    int e = errno; /* run_gnuplot's, before the allocation */
    char *pngpath = nsc_asprintf("%s/%s", dir, png);
    struct stat sb;
    if (!pngpath) s = nsc_oom(r);
    else if (st < 0) s = nsc_err(r, NSC_EOUT, NULL, "cannot run gnuplot: %s", strerror(e));
    else if (st != 0 || stat(tmpp, &sb) != 0 || sb.st_size == 0) {
        for (char *p = msg; *p; p++)
            if (*p == '\n') *p = ' ';
        s = nsc_err(r, NSC_EOUT, NULL,
                    "gnuplot failed on '%s'%s%s (install gnuplot-nox for --plot)", gppath,
                    *msg ? ": " : "", msg);
    } else if (rename(tmpp, pngpath))
        s = nsc_err(r, NSC_EOUT, NULL, "cannot write '%s': %s", pngpath, strerror(errno));
    if (s) unlink(tmpp);
    free(pngpath);
    return s;
}

/* Rows i0 .. i1-1 as two rows: a at the run's first time, b at its last, each
 * column's smallest and largest value in the order they occur (NaN for a
 * column without a number in the run). w: 2 * nc doubles, at: 2 * nc longs. */
static void run_extremes(nsc_wcur *c, long i0, long i1, int nc, double *a, double *b, double *w,
                         long *at)
{
    double *lo = w, *hi = w + nc;
    long *ilo = at, *ihi = at + nc; /* where each extreme was last set */
    for (int j = 1; j < nc; j++) lo[j] = INFINITY, hi[j] = -INFINITY;
    for (long i = i0; i < i1; i++) {
        const double *row = nsc_wcur_row(c, i);
        if (i == i0) a[0] = row[0];
        b[0] = row[0];
        for (int j = 1; j < nc; j++) {
            if (row[j] < lo[j]) lo[j] = row[j], ilo[j] = i;
            if (row[j] > hi[j]) hi[j] = row[j], ihi[j] = i;
        }
    }
    for (int j = 1; j < nc; j++) {
        int minfirst = ilo[j] <= ihi[j];
        a[j] = lo[j] > hi[j] ? NAN : minfirst ? lo[j] : hi[j];
        b[j] = lo[j] > hi[j] ? NAN : minfirst ? hi[j] : lo[j];
    }
}

/* Runs of k = ceil(nrow / (NSC_GP_ENVELOPE / 2)) rows, each written as two
 * (run_extremes). A line through them covers every value the run takes, and a
 * pixel column spans several runs, so a ripple or a spike one row wide stays in
 * the picture while gnuplot reads at most NSC_GP_ENVELOPE rows a trace instead
 * of nrow (the 4 M rows of a 50 ps buck took it minutes). */
int nsc_gp_envelope(FILE *f, const nsc_waves *W)
{
    int nc = W->ncol;
    long runs = NSC_GP_ENVELOPE / 2, k = (W->nrow + runs - 1) / runs;
    double *a = nsc_calloc(4 * (size_t)nc, sizeof *a), *b = a ? a + nc : NULL;
    long *at = nsc_calloc(2 * (size_t)nc, sizeof *at);
    nsc_wcur c;
    int bad = !a || !at || nsc_wcur_init(&c, W);
    for (long i0 = 0; !bad && i0 < W->nrow; i0 += k) {
        run_extremes(&c, i0, i0 + k < W->nrow ? i0 + k : W->nrow, nc, a, b, b + nc, at);
        for (int r = 0; r < 2; r++)
            for (int j = 0; j < nc; j++)
                fprintf(f, j + 1 < nc ? "%.9g " : "%.9g\n", (r ? b : a)[j]);
    }
    if (a && at) {
        bad = bad || c.err != 0;
        nsc_wcur_free(&c);
    }
    free(a);
    free(at);
    return bad || ferror(f) ? -1 : 0;
}

/* The envelope of W into a file created exclusively beside the script
 * (dir/.NAME.env.XXXXXX): its path in *path, or NULL and the error. */
static nsc_status envelope_file(const char *dir, const char *png, const nsc_waves *W, char **path,
                                nsc_report *r)
{
    char *p = nsc_asprintf("%s/.%s.env.XXXXXX", dir, png);
    *path = NULL;
    if (!p) return nsc_oom(r);
    int fd = nsc_mkstemp(p);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0) close(fd), unlink(p);
        nsc_status s = nsc_err(r, NSC_EOUT, NULL, "cannot write '%s': %s", p, strerror(e));
        free(p);
        return s;
    }
    errno = 0;
    if (nsc_gp_envelope(f, W) | fclose(f)) { /* both run: the file is closed either way */
        nsc_status s = nsc_err(r, NSC_EOUT, NULL, "cannot write '%s': %s", p,
                               strerror(errno ? errno : EIO));
        unlink(p);
        free(p);
        return s;
    }
    *path = p;
    return NSC_OK;
}

nsc_status nsc_render_gp(const char *gppath, nsc_report *r)
{
    return nsc_render_gp_waves(gppath, NULL, r);
}

/* gnuplot -e "outfile='tmp'" script, run in the script's directory; tmp is
 * created exclusively (mkstemp) beside the PNG before gnuplot opens it, and
 * renamed into place only when gnuplot succeeded. A table W of more than
 * NSC_GP_ENVELOPE rows is drawn from its envelope (-e "datafile='env'", a
 * temporary file beside it, removed after gnuplot ran). */
nsc_status nsc_render_gp_waves(const char *gppath, const nsc_waves *W, nsc_report *r)
{
    char *dir = nsc_strdup(gppath);
    if (!dir) return nsc_oom(r);
    char *slash = strrchr(dir, '/');
    const char *gpbase = nsc_base_name(gppath);
    if (slash) *slash = 0;
    else strcpy(dir, ".");
    /* final PNG name: script name with .png */
    char *png = nsc_asprintf("%.*s.png",
                             (int)(strrchr(gpbase, '.') ? strrchr(gpbase, '.') - gpbase
                                                        : (long)strlen(gpbase)),
                             gpbase);
    char *tmpp = png ? nsc_asprintf("%s/.%s.XXXXXX", dir, png) : NULL, *tmp = NULL, *expr = NULL,
         *env = NULL;
    size_t elen = 0;
    FILE *ef = tmpp ? open_memstream(&expr, &elen) : NULL;
    nsc_status s = NSC_OK;
    int tfd = ef ? nsc_mkstemp(tmpp) : -1;
    if (!png || !tmpp || !ef) s = nsc_oom(r);
    else if (tfd < 0)
        s = nsc_err(r, NSC_EOUT, NULL, "cannot write '%s/%s': %s", dir, png, strerror(errno));
    if (s) {
        if (ef) fclose(ef);
        goto out;
    }
    close(tfd);
    tmp = (char *)nsc_base_name(tmpp);
    fputs("outfile=", ef);
    nsc_gp_path(ef, tmp);
    if (W && W->nrow > NSC_GP_ENVELOPE && !(s = envelope_file(dir, png, W, &env, r))) {
        fputs("; datafile=", ef);
        nsc_gp_path(ef, nsc_base_name(env));
    }
    if (fclose(ef) || !nsc_gp_name_ok(tmp) || s) {
        unlink(tmpp);
        if (!s) s = nsc_err(r, NSC_EOUT, NULL, "cannot write '%s'", png);
        goto out;
    }
    char msg[1024] = "";
    size_t got = 0;
    int st = run_gnuplot(dir, expr, gpbase, msg, sizeof msg, &got);
    s = keep_png(gppath, dir, png, tmpp, st, msg, r);
out:
    if (env) unlink(env);
    free(env);
    free(dir);
    free(png);
    free(tmpp);
    free(expr);
    return s;
}
