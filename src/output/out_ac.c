/* out_ac.c -- the outputs of the analyses at the operating point (issue 29):
 * the AC table (dB, degrees), ngspice's complex AC raw, the Bode script, and
 * the DC sweep's raw file and script. Declared in out_ac.h. */
#include "out.h"
#include "out_ac.h"
#include "out_fmt.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

double nsc_ac_part(nsc_acpart part, double re, double im)
{
    switch (part) {
    case NSC_ACP_DB: return 20 * log10(hypot(re, im));
    case NSC_ACP_PH: return atan2(im, re) * (180 / M_PI);
    case NSC_ACP_RE: return re;
    case NSC_ACP_IM: return im;
    default: return hypot(re, im);
    }
}

double nsc_ac_part_ratio(const nsc_ac_result *R, int k, int q, int d, nsc_acpart part)
{
    size_t o = (size_t)k * (size_t)R->np;
    double re = R->re[o + (size_t)q], im = R->im[o + (size_t)q];
    if (d < 0) return nsc_ac_part(part, re, im);
    double dr = R->re[o + (size_t)d], di = R->im[o + (size_t)d], den = dr * dr + di * di;
    return nsc_ac_part(part, (re * dr + im * di) / den,
                       (im * dr - re * di) / den); /* (re + j im) / (dr + j di) */
}

void nsc_ac_result_free(nsc_ac_result *R)
{
    if (!R) return;
    for (int k = 0; k < R->np; k++) free(R->name[k]);
    free(R->name);
    free(R->f);
    free(R->re);
    free(R->im);
    free(R->title);
    free(R);
}

/* The header's words for the table's non-phase columns into buf: each part
 * present, "magnitudes in dB" alone where every one is a dB magnitude (vdb,
 * idb; the default table), so that a vm column is never said to be in dB. */
static const char *ac_units(const nsc_accol *col, int ncol, char *buf, size_t len)
{
    static const char *const word[] = { "magnitudes in dB", "", "real parts", "imaginary parts",
                                        "linear magnitudes" };
    static const char *const sfx[] = { " (vdb, idb)", "", " (vr, ir)", " (vi, ii)", " (vm, im)" };
    int has[NSC_ACP_MAG + 1] = { 0 }, n = 0;
    for (int k = 0; k < ncol; k++) n += !has[col[k].part]++ && col[k].part != NSC_ACP_PH;
    if (n == 0 || (n == 1 && has[NSC_ACP_DB])) return "magnitudes in dB";
    buf[0] = 0;
    for (int p = 0, w = 0; p <= NSC_ACP_MAG; p++)
        if (has[p] && p != NSC_ACP_PH)
            w += snprintf(buf + w, len - (size_t)w, "%s%s%s", w ? ", " : "", word[p], sfx[p]);
    return buf;
}

/* The AC table with separator sep: ' ' (.dat: names in a comment line, then
 * the units line) or ',' (CSV: the names as the header). */
static nsc_status ac_table(const nsc_ac_result *R, const nsc_accol *col, int ncol, const char *path,
                           char sep, nsc_report *r)
{
    nsc_afile a;
    nsc_status s = nsc_afile_open(&a, path, r);
    if (s) return s;
    fputs(sep == ' ' ? "# frequency" : "frequency", a.f);
    for (int k = 0; k < ncol; k++) fprintf(a.f, "%c%s", sep, col[k].name);
    char ubuf[160];
    const char *units = ac_units(col, ncol, ubuf, sizeof ubuf);
    if (sep == ' ' && R->fhalf > 0)
        fprintf(
            a.f,
            "\n# periodic small-signal AC around the steady state, valid up to fs/2 = %g Hz: %s, "
            "phases in degrees (ngspice's vp is in radians)",
            R->fhalf, units);
    else if (sep == ' ')
        fprintf(a.f,
                "\n# AC small-signal analysis at the operating point: %s, phases in degrees "
                "(ngspice's vp is in radians)",
                units);
    fputc('\n', a.f);
    char buf[40];
    for (int i = 0; i < R->nf; i++) {
        fwrite(buf, 1, (size_t)nsc_fmt_e(buf, R->f[i], 12), a.f);
        for (int k = 0; k < ncol; k++) {
            fputc(sep, a.f);
            double v = nsc_ac_part_ratio(R, i, col[k].probe, col[k].den, col[k].part);
            fwrite(buf, 1, (size_t)nsc_fmt_e(buf, v + 0.0, 12), a.f);
        }
        fputc('\n', a.f);
    }
    return nsc_afile_close(&a, 1, r);
}

nsc_status nsc_write_ac_dat(const nsc_ac_result *R, const nsc_accol *col, int ncol,
                            const char *path, nsc_report *r)
{
    return ac_table(R, col, ncol, path, ' ', r);
}

nsc_status nsc_write_ac_csv(const nsc_ac_result *R, const nsc_accol *col, int ncol,
                            const char *path, nsc_report *r)
{
    return ac_table(R, col, ncol, path, ',', r);
}

/* ngspice's type of a variable */
static const char *var_type(const char *name)
{
    return (name[0] == 'i' || name[0] == 'I') && name[1] == '(' ? "current" : "voltage";
}

/* x as 8 little-endian bytes */
static void put_le(FILE *f, double x)
{
    unsigned char b[8];
    uint64_t u;
    memcpy(&u, &x, 8);
    for (int k = 0; k < 8; k++) b[k] = (unsigned char)(u >> (8 * k));
    fwrite(b, 1, 8, f);
}

static void put_value(FILE *f, int binary, double x)
{
    char buf[40];
    if (binary) put_le(f, x + 0.0);
    else fwrite(buf, 1, (size_t)nsc_fmt_e(buf, x + 0.0, 15), f);
}

/* The header lines ngspice 39 writes, up to "Values:" / "Binary:". */
static void raw_head(FILE *f, const char *title, const char *plot, const char *flags, int nvar,
                     int npt, int binary)
{
    char date[64];
    nsc_raw_date(date, sizeof date);
    fputs("Title: ", f);
    for (const char *p = title ? title : ""; *p; p++) fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
    fprintf(f,
            "\nDate: %s\nPlotname: %s\nFlags: %s\nNo. Variables: %d\nNo. Points: %d\nVariables:\n",
            date, plot, flags, nvar, npt);
}

nsc_status nsc_write_ac_raw(const nsc_ac_result *R, const char *path, int binary, nsc_report *r)
{
    nsc_afile a;
    nsc_status s = nsc_afile_open(&a, path, r);
    if (s) return s;
    raw_head(a.f, R->title, "AC Analysis", "complex", R->np + 1, R->nf, binary);
    fputs("\t0\tfrequency\tfrequency\tgrid=3\n", a.f);
    for (int k = 0; k < R->np; k++)
        fprintf(a.f, "\t%d\t%s\t%s\n", k + 1, R->name[k], var_type(R->name[k]));
    fputs(binary ? "Binary:\n" : "Values:\n", a.f);
    for (int i = 0; i < R->nf; i++) { /* per point: frequency, 0 then re, im of each */
        if (!binary) fprintf(a.f, " %d\t", i);
        put_value(a.f, binary, R->f[i]);
        if (!binary) fputc(',', a.f);
        put_value(a.f, binary, 0);
        if (!binary) fputc('\n', a.f);
        for (int k = 0; k < R->np; k++) {
            size_t q = (size_t)i * R->np + k;
            if (!binary) fputc('\t', a.f);
            put_value(a.f, binary, R->re[q]);
            if (!binary) fputc(',', a.f);
            put_value(a.f, binary, R->im[q]);
            if (!binary) fputc('\n', a.f);
        }
        if (!binary) fputc('\n', a.f);
    }
    return nsc_afile_close(&a, 1, r);
}

nsc_status nsc_write_dc_raw(const nsc_waves *W, const char *path, int binary, nsc_report *r)
{
    nsc_afile a;
    nsc_status s = nsc_afile_open(&a, path, r);
    if (s) return s;
    raw_head(a.f, W->title, "DC transfer characteristic", "real", W->ncol, W->nrow, binary);
    for (int k = 0; k < W->ncol; k++)
        fprintf(a.f, "\t%d\t%s\t%s\n", k, W->name[k],
                k == 0 ? (W->name[0][0] == 'i' ? "current" : "voltage") : var_type(W->name[k]));
    fputs(binary ? "Binary:\n" : "Values:\n", a.f);
    for (int i = 0; i < W->nrow; i++) {
        if (!binary) fprintf(a.f, " %d", i);
        for (int k = 0; k < W->ncol; k++) {
            if (!binary) fputc('\t', a.f);
            put_value(a.f, binary, nsc_waves_at(W, i, k));
            if (!binary) fputc('\n', a.f);
        }
        if (!binary) fputc('\n', a.f);
    }
    return nsc_afile_close(&a, 1, r);
}

/* A panel of the Bode script: the columns of part p (phase: 1) against frequency;
 * nothing when part p has no column (gnuplot refuses a panel of no points). */
static int bode_panel(FILE *f, const nsc_accol *col, int ncol, int phase)
{
    int n = 0;
    for (int k = 0; k < ncol; k++) {
        if ((col[k].part == NSC_ACP_PH) != phase) continue;
        fputs(n ? ", \\\n     " : "plot ", f);
        fprintf(f, "datafile using 1:%d with lines lw 1.5 title ", k + 2);
        nsc_gp_quote(f, col[k].name);
        n++;
    }
    if (n) fputc('\n', f);
    return n;
}

/* A panel with no column at all (a script of no outputs): empty axes; a fixed y
 * range, since gnuplot stops on "all points y value undefined" when it autoscales. */
static void empty_panel(FILE *f)
{
    fputs("unset key\nset yrange [-1:1]\nplot 1/0 notitle\n", f);
}

/* A script is written to memory, then into place atomically: the names
 * checked and the stream opened (script_begin), closed and written (script_end). */
typedef struct script {
    FILE *f;
    char *text;
    size_t len;
} script;

static nsc_status script_begin(script *S, const char *datpath, const char *gppath,
                               const char *pngpath, nsc_report *r)
{
    const char *names[] = { datpath, gppath, pngpath };
    memset(S, 0, sizeof *S);
    nsc_status st = nsc_gp_names_check(names, 3, r);
    if (st) return st;
    S->f = open_memstream(&S->text, &S->len);
    return S->f ? NSC_OK : nsc_oom(r);
}

static nsc_status script_end(script *S, const char *gppath, nsc_report *r)
{
    nsc_status st = fclose(S->f) ? nsc_oom(r) : nsc_write_atomic(gppath, S->text, S->len, r);
    free(S->text);
    return st;
}

nsc_status nsc_write_ac_gp(const nsc_accol *col, int ncol, const char *datpath, const char *gppath,
                           const char *pngpath, nsc_report *r)
{
    script S;
    nsc_status st = script_begin(&S, datpath, gppath, pngpath, r);
    if (st) return st;
    FILE *f = S.f;
    int nph = 0; /* panels: magnitude (the non-phase parts) when any, phase when any */
    for (int k = 0; k < ncol; k++) nph += col[k].part == NSC_ACP_PH;
    int panels = (ncol > nph) + (nph > 0);
    nsc_gp_preamble(f, pngpath, datpath, 800);
    fprintf(
        f,
        "# Bode plot: magnitude (dB, or the other non-phase parts) and phase (degrees) over a log "
        "frequency axis\nset multiplot layout %d,1\nset logscale x\nset format x '%%g'\nset xlabel "
        "'frequency (Hz)'\nset ylabel 'magnitude (dB)'\n",
        panels ? panels : 1);
    if (!bode_panel(f, col, ncol, 0) && !nph) empty_panel(f);
    if (nph) fputs("set ylabel 'phase (degrees)'\nset ytics 45\n", f);
    bode_panel(f, col, ncol, 1);
    fputs("unset multiplot\n", f);
    return script_end(&S, gppath, r);
}

nsc_status nsc_write_dc_gp(const nsc_waves *W, int nsweep, const char *datpath, const char *gppath,
                           const char *pngpath, nsc_report *r)
{
    script S;
    nsc_status st = script_begin(&S, datpath, gppath, pngpath, r);
    if (st) return st;
    FILE *f = S.f;
    int n0 = 1; /* a nested sweep: one line per outer value */
    while (nsweep > 1 && n0 < W->nrow && nsc_waves_at(W, n0, 1) == nsc_waves_at(W, 0, 1)) n0++;
    if (nsweep < 2) n0 = W->nrow > 0 ? W->nrow : 1;
    int nblock = (W->nrow + n0 - 1) / n0 > 0 ? (W->nrow + n0 - 1) / n0 : 1;
    int ni = 0; /* panels: voltages (every name not a current) when any, currents when any */
    for (int k = nsweep; k < W->ncol; k++) ni += W->name[k][0] == 'i';
    int nv = W->ncol - nsweep - ni;
    nsc_gp_preamble(f, pngpath, datpath, 700);
    fprintf(
        f,
        "# DC sweep: each output over the swept value (column 1)\nset multiplot layout %d,1\nset "
        "xlabel ",
        (nv > 0) + (ni > 0) ? (nv > 0) + (ni > 0) : 1);
    nsc_gp_quote(f, W->name[0]);
    for (int pass = 0; pass < 2; pass++) { /* voltages, then currents */
        if (!(pass ? ni : nv)) continue;
        fprintf(f, "\nset ylabel '%s'\n", pass ? "current (A)" : "voltage (V)");
        int n = 0;
        for (int k = nsweep; k < W->ncol; k++) {
            if ((W->name[k][0] == 'i') != pass) continue;
            fputs(n++ ? ", \\\n     " : "plot ", f);
            fprintf(
                f,
                "for [b=0:%d] datafile every ::b*%d::b*%d+%d using 1:%d with lines lw 1.5 lc %d title (b ? '' : ",
                nblock - 1, n0, n0, n0 - 1, k + 1, k);
            nsc_gp_quote(f, W->name[k]);
            fputc(')', f);
        }
    }
    if (!nv && !ni) fputc('\n', f), empty_panel(f);
    fputs("\nunset multiplot\n", f);
    return script_end(&S, gppath, r);
}
