/* out_sweep.c -- the picture of a parameter study: the gnuplot script of its
 * table (out_sweep.h). */
#include "out_sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"

static int ncols(const nsc_sweep_table *T)
{
    return T->npar + T->nmeas;
}

/* ---- the plot ---- */

/* How a column is drawn: its values times scale, under label (new). */
typedef struct shown {
    double scale;
    char *label;
} shown;

/* The unit of a column when the caller knows none: the steady study's columns. */
static const char *default_unit(const char *name)
{
    return !strcmp(name, "efficiency") ? "1" : !strcmp(name, "losses") ? "W" : "";
}

/* The finite extremes of data column col (0-based; T's columns, then status). */
static void col_range(const nsc_sweep_table *T, int col, double *lo, double *hi)
{
    int nc = ncols(T);
    *lo = INFINITY;
    *hi = -INFINITY;
    for (long i = 0; i < T->nrow; i++) {
        double v = col < nc ? T->v[(size_t)i * nc + col] : T->status[i];
        if (isfinite(v)) {
            *lo = fmin(*lo, v);
            *hi = fmax(*hi, v);
        }
    }
    if (!(*lo <= *hi)) {
        *lo = 0;
        *hi = 1;
    }
}

/* The rules of nsc_sweep_write_gp's units: %, an SI prefix, or 10^3k. */
static shown show_of(const char *name, const char *unit, double lo, double hi)
{
    shown s = { 1, NULL };
    double m = fmax(fabs(lo), fabs(hi));
    const char *pre = "";
    if (!strcmp(unit, "1") && (!strncmp(name, "eff", 3) || !strcmp(name, "eta"))) {
        s.scale = 100;
        s.label = nsc_asprintf("%s (%%)", name);
    } else if (!strcmp(unit, "1")) {
        s.label = nsc_strdup(name);
    } else if (*unit) {
        s.scale = nsc_unit_scale(m, &pre);
        s.label = nsc_asprintf("%s (%s%s)", name, pre, unit);
    } else if (m == 0 || (m >= 1e-3 && m < 1e5)) {
        s.label = nsc_strdup(name);
    } else {
        s.scale = nsc_unit_scale(m, &pre);
        s.label = nsc_asprintf("%s (×1e%d)", name, (int)lround(-log10(s.scale)));
    }
    return s;
}

/* How column col (0-based; ncols(T): status) is shown. */
static shown show_col(const nsc_sweep_table *T, const char *const *unit, int col, double *lo,
                      double *hi)
{
    col_range(T, col, lo, hi);
    if (col >= ncols(T)) return show_of("status", "", *lo, *hi);
    return show_of(T->name[col], unit ? unit[col] : default_unit(T->name[col]), *lo, *hi);
}

/* Blocks: runs of rows with the same values of parameters 1.. (axis 0 varies
 * fastest); bstart[0..nb] (bstart[nb] = nrow). NULL out of memory. */
static long *blocks(const nsc_sweep_table *T, long *nb)
{
    int nc = ncols(T);
    long *bstart = nsc_calloc((size_t)T->nrow + 1, sizeof *bstart);
    if (!bstart) return NULL;
    *nb = 0;
    for (long i = 0; i < T->nrow; i++) {
        int newb = i == 0;
        for (int k = 1; !newb && k < T->npar; k++)
            newb = T->v[(size_t)i * nc + k] != T->v[(size_t)(i - 1) * nc + k];
        if (newb) bstart[(*nb)++] = i;
    }
    bstart[*nb] = T->nrow;
    return bstart;
}

/* The curve title of a block: "vin=2.5 V rload=10 Ω" (the other parameters,
 * in their units when known, else as numbers). */
static void block_title(FILE *f, const nsc_sweep_table *T, const char *const *unit, long row)
{
    char *buf = NULL, eng[64];
    size_t bl = 0;
    FILE *g = open_memstream(&buf, &bl);
    for (int k = 1; g && k < T->npar; k++) {
        double v = T->v[(size_t)row * ncols(T) + k];
        const char *u = unit ? unit[k] : "";
        fprintf(g, "%s%s=", k > 1 ? " " : "", T->name[k]);
        if (*u && strcmp(u, "1") && isfinite(v)) fputs(nsc_eng(v, u, eng, sizeof eng), g);
        else fprintf(g, "%.6g", v);
    }
    if (g) fclose(g);
    fprintf(f, "title ");
    nsc_gp_quote(f, buf ? buf : "");
    free(buf);
}

/* One panel: column col against the first parameter, one curve per block. */
static void sweep_panel(FILE *f, const nsc_sweep_table *T, const char *const *unit, int col,
                        const long *bstart, long nb, double xscale)
{
    double lo, hi;
    shown y = show_col(T, unit, col, &lo, &hi);
    fprintf(f, "set ylabel ");
    nsc_gp_quote(f, y.label ? y.label : T->name[col < ncols(T) ? col : 0]);
    fputc('\n', f);
    nsc_gp_ticks(f, 'y', lo * y.scale, hi * y.scale, 5, 1);
    fprintf(f, "plot ");
    long shown_max = nb < 24 ? nb : 24; /* curves with a title */
    for (long b = 0; b < nb; b++) {
        fprintf(
            f,
            "%sdatafile every ::%ld::%ld using ($1*%.0e):($%d*%.0e) with linespoints pt 7 ps 0.6 lw 1.5 ",
            b ? ", \\\n     " : "", bstart[b], bstart[b + 1] - 1, xscale, col + 1, y.scale);
        if (T->npar < 2 || b >= shown_max)
            fprintf(f, "%s", T->npar < 2 ? "notitle" : "lc rgb 'gray' notitle");
        else block_title(f, T, unit, bstart[b]);
    }
    if (nb == 0)
        fprintf(f, "datafile using ($1*%.0e):($%d*%.0e) with points notitle", xscale, col + 1,
                y.scale);
    fputc('\n', f);
    free(y.label);
}

/* A log axis: ticks at the swept values x0[0..n0) when there are at most 12
 * (a decade may hold none of gnuplot's), else gnuplot's own. */
static void log_ticks(FILE *f, const double *x0, long n0, double scale)
{
    fprintf(f, "set logscale x\nset format x '%%g'\n");
    if (n0 < 1 || n0 > 12) return;
    fprintf(f, "set xtics (");
    for (long i = 0; i < n0; i++)
        fprintf(f, "%s'%.4g' %.10g", i ? ", " : "", x0[i] * scale, x0[i] * scale);
    fprintf(f, ")\n");
}

/* The script's text: preamble, the first parameter's axis, the panels. */
static void sweep_script(FILE *f, const nsc_sweep_table *T, const char *const *unit,
                         const long *bstart, long nb, const double *x0, long n0, int logx,
                         const char *gb, const char *pb, const char *db)
{
    int panels = T->nmeas ? T->nmeas : 1;
    fprintf(
        f,
        "# gnuplot script written by nscircuit sweep: gnuplot %s (in this directory)\n"
        "# each measure against the first parameter; change the terminal line for another format\n"
        "if (!exists(\"outfile\")) outfile = ",
        gb);
    nsc_gp_path(f, pb);
    fprintf(
        f,
        "\nset terminal pngcairo noenhanced size 900,%d font 'sans,10'\nset output outfile\ndatafile = ",
        80 + 260 * panels);
    nsc_gp_path(f, db);
    fprintf(
        f,
        "\nset grid\nset key outside right top Left reverse\nset lmargin at screen 0.11\n"
        "set rmargin at screen 0.78\nset autoscale xfix\nset offsets graph 0.03, graph 0.03, 0, 0\n");
    double xlo, xhi;
    shown x = show_col(T, unit, 0, &xlo, &xhi);
    if (logx) log_ticks(f, x0, n0, x.scale);
    else nsc_gp_ticks(f, 'x', xlo * x.scale, xhi * x.scale, 8, 0);
    fprintf(f, "set multiplot layout %d,1 title ", panels);
    char *title = nsc_asprintf("%s: %ld points%s", T->netlist, T->npoint,
                               T->nrow < T->npoint ? " (part)" : "");
    nsc_gp_quote(f, title ? title : "");
    free(title);
    fputc('\n', f);
    for (int m = 0; m < panels; m++) {
        if (m == panels - 1) {
            fprintf(f, "set xlabel ");
            nsc_gp_quote(f, x.label ? x.label : T->name[0]);
            fputc('\n', f);
        }
        sweep_panel(f, T, unit, T->nmeas ? T->npar + m : ncols(T), bstart, nb, x.scale);
    }
    fprintf(f, "unset multiplot\nset output\n");
    free(x.label);
}

nsc_status nsc_sweep_write_gp(const nsc_sweep_table *T, const char *const *unit,
                              const char *datpath, const char *gppath, const char *pngpath,
                              nsc_report *r)
{
    if (T->npar < 1)
        return nsc_err(r, NSC_EUSAGE, NULL, "a sweep table without parameters cannot be plotted");
    const char *names[] = { gppath, pngpath, datpath };
    nsc_status st = nsc_gp_names_check(names, 3, r);
    if (st) return st;
    long nb = 0, *bstart = blocks(T, &nb);
    double *x = nsc_calloc((size_t)T->nrow + 1, sizeof *x);
    if (!bstart || !x) {
        free(bstart);
        free(x);
        return nsc_oom(r);
    }
    long n0 = nb ? bstart[1] - bstart[0] : 0;
    for (long i = 0; i < n0; i++) x[i] = T->v[(size_t)i * ncols(T)];
    int logx = nsc_geometric(x, (int)(n0 < 1000000 ? n0 : 1000000));
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f)
        sweep_script(f, T, unit, bstart, nb, x, n0, logx, nsc_base_name(gppath),
                     nsc_base_name(pngpath), nsc_base_name(datpath));
    free(x);
    free(bstart);
    if (!f || fclose(f)) {
        free(text);
        return nsc_oom(r);
    }
    nsc_status s = nsc_write_atomic(gppath, text, len, r);
    free(text);
    return s;
}
