/* out_gp.c -- the gnuplot script of a waveform table, and rendering it to PNG. */
#include "out.h"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *nsc_base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

void nsc_gp_preamble(FILE *f, const char *pngpath, const char *datpath, int height)
{
    fprintf(f,
            "if (!exists(\"outfile\")) outfile = '%s'\n"
            "set terminal pngcairo noenhanced size 1000,%d font 'sans,10'\n"
            "set output outfile\n"
            "datafile = '%s'\n"
            "set grid\n"
            "set key outside right top reverse Left\n"
            "set lmargin at screen 0.09\n"
            "set rmargin at screen 0.84\n",
            nsc_base_name(pngpath), height, nsc_base_name(datpath));
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
    int k = 3;                                             /* 10^(3(3-k)) */
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
        if (ch == '\'') fputc('\'', f);                    /* a quote inside '...' is written twice */
        fputc(ch < 32 ? ' ' : ch, f);
    }
    fputc('\'', f);
}

/* One panel: the columns of one kind, scaled to a readable unit prefix. */
static void plot_panel(FILE *f, const nsc_waves *W, char kind, double tscale, int last, const char *tunit)
{
    double m = 0;
    for (int k = 1; k < W->ncol; k++)
        if (kind_of(W->name[k]) == kind)
            for (int i = 0; i < W->nrow; i++) m = fmax(m, fabs(W->v[(size_t)i * W->ncol + k]));
    const char *pre;
    double ys = kind == 'o' ? 1 : nsc_unit_scale(m, &pre);
    if (kind == 'v') fprintf(f, "set ylabel 'voltage (%sV)'\n", pre);
    else if (kind == 'i') fprintf(f, "set ylabel 'current (%sA)'\n", pre);
    else fprintf(f, "set ylabel 'value'\n");
    if (last) fprintf(f, "set format x '%%g'\nset xlabel 'time (%s)'\n", tunit);
    else fprintf(f, "set format x ''\nunset xlabel\n");
    fprintf(f, "plot ");
    int first = 1;
    for (int k = 1; k < W->ncol; k++) {
        if (kind_of(W->name[k]) != kind) continue;
        fprintf(f, "%sdatafile using ($1*%.0e):($%d*%.0e) with lines lw 1.5 title ", first ? "" : ", \\\n     ",
                tscale, k + 1, ys);
        nsc_gp_quote(f, W->name[k]);
        first = 0;
    }
    fputc('\n', f);
}

nsc_status nsc_write_gp(const nsc_waves *W, const char *datpath, const char *gppath,
                        const char *pngpath, nsc_report *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return nsc_err(r, NSC_ENOMEM, NULL, "out of memory");
    int nv = 0, ni = 0, no = 0;
    for (int k = 1; k < W->ncol; k++) {
        char c = kind_of(W->name[k]);
        nv += c == 'v';
        ni += c == 'i';
        no += c == 'o';
    }
    int panels = (nv > 0) + (ni > 0) + (no > 0);
    double t0 = W->nrow ? W->v[0] : 0, t1 = W->nrow ? W->v[(size_t)(W->nrow - 1) * W->ncol] : 1, ts;
    const char *tu;
    nsc_time_unit(fmax(fabs(t0), fabs(t1)), &ts, &tu);
    fprintf(f,
            "# gnuplot script written by nscircuit: gnuplot %s (in this directory)\n"
            "# change the terminal line for another format, e.g. set terminal svg\n",
            nsc_base_name(gppath));
    nsc_gp_preamble(f, pngpath, datpath, 80 + 280 * (panels ? panels : 1));
    fprintf(f, "set format y '%%g'\n");
    if (t1 > t0) fprintf(f, "set xrange [%.10g:%.10g]\n", t0 * ts, t1 * ts);
    fprintf(f, "set multiplot layout %d,1 title ", panels ? panels : 1);
    nsc_gp_quote(f, W->title ? W->title : "");
    fputc('\n', f);
    int done = 0;
    if (nv) plot_panel(f, W, 'v', ts, ++done == panels, tu);
    if (ni) plot_panel(f, W, 'i', ts, ++done == panels, tu);
    if (no) plot_panel(f, W, 'o', ts, ++done == panels, tu);
    if (!panels) fprintf(f, "set xlabel 'time (%s)'\nplot datafile using ($1*%.0e):($1*%.0e) with lines title 'time'\n", tu, ts, ts);
    fprintf(f, "unset multiplot\nset output\n");
    if (fclose(f)) { free(text); return nsc_err(r, NSC_ENOMEM, NULL, "out of memory"); }
    nsc_status s = nsc_write_atomic(gppath, text, len, r);
    free(text);
    return s;
}

/* gnuplot -e "outfile='tmp'" script, run in the script's directory; the PNG is
 * renamed into place only when gnuplot succeeded. */
nsc_status nsc_render_gp(const char *gppath, nsc_report *r)
{
    char *dir = nsc_strdup(gppath);
    if (!dir) return nsc_err(r, NSC_ENOMEM, NULL, "out of memory");
    char *slash = strrchr(dir, '/');
    const char *gpbase = nsc_base_name(gppath);
    if (slash) *slash = 0; else strcpy(dir, ".");
    /* final PNG name: script name with .png */
    char *png = nsc_asprintf("%.*s.png", (int)(strrchr(gpbase, '.') ? strrchr(gpbase, '.') - gpbase : (long)strlen(gpbase)), gpbase);
    char *tmp = png ? nsc_asprintf(".%s.%ld.tmp", png, (long)getpid()) : NULL;
    char *expr = tmp ? nsc_asprintf("outfile='%s'", tmp) : NULL;
    if (!png || !tmp || !expr) { free(dir); free(png); free(tmp); free(expr); return nsc_err(r, NSC_ENOMEM, NULL, "out of memory"); }
    int pfd[2];
    nsc_status s = NSC_OK;
    if (pipe(pfd)) { s = nsc_err(r, NSC_EIO, NULL, "cannot run gnuplot: %s", strerror(errno)); goto out; }
    pid_t pid = fork();
    if (pid < 0) { close(pfd[0]); close(pfd[1]); s = nsc_err(r, NSC_EIO, NULL, "cannot run gnuplot: %s", strerror(errno)); goto out; }
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) { dup2(null, 0); dup2(null, 1); }
        dup2(pfd[1], 2);
        close(pfd[0]);
        if (chdir(dir) == 0) execlp(NSC_GNUPLOT, NSC_GNUPLOT, "-e", expr, gpbase, (char *)NULL);
        fprintf(stderr, "cannot execute %s: %s", NSC_GNUPLOT, strerror(errno));
        _exit(127);
    }
    close(pfd[1]);
    char msg[1024];
    size_t got = 0;
    ssize_t k;
    while ((k = read(pfd[0], msg + got, sizeof msg - 1 - got)) > 0) got += (size_t)k;
    char drain[256];
    while (read(pfd[0], drain, sizeof drain) > 0) {}
    msg[got] = 0;
    close(pfd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    char *tmppath = nsc_asprintf("%s/%s", dir, tmp), *pngpath = nsc_asprintf("%s/%s", dir, png);
    if (!tmppath || !pngpath) s = nsc_err(r, NSC_ENOMEM, NULL, "out of memory");
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || access(tmppath, F_OK) != 0) {
        for (char *p = msg; *p; p++) if (*p == '\n') *p = ' ';
        s = nsc_err(r, NSC_EIO, NULL, "gnuplot failed on '%s'%s%s (install gnuplot-nox for --plot)",
                    gppath, got ? ": " : "", msg);
        unlink(tmppath);
    } else if (rename(tmppath, pngpath)) {
        s = nsc_err(r, NSC_EIO, NULL, "cannot write '%s': %s", pngpath, strerror(errno));
        unlink(tmppath);
    }
    free(tmppath);
    free(pngpath);
out:
    free(dir);
    free(png);
    free(tmp);
    free(expr);
    return s;
}
