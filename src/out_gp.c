/* out_gp.c -- the gnuplot script of a waveform table, and rendering it to PNG. */
#include "out.h"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Panel of a column: 'v' voltages, 'i' currents, 'o' other. */
static char kind_of(const char *name)
{
    if ((name[0] == 'v' || name[0] == 'V') && name[1] == '(') return 'v';
    if ((name[0] == 'i' || name[0] == 'I') && name[1] == '(') return 'i';
    return 'o';
}

static void plot_panel(FILE *f, const nsc_waves *W, char kind, const char *ylabel)
{
    fprintf(f, "set ylabel '%s'\nplot ", ylabel);
    int first = 1;
    for (int k = 1; k < W->ncol; k++) {
        if (kind_of(W->name[k]) != kind) continue;
        fprintf(f, "%sdatafile using 1:%d with lines lw 1.5 title '%s'", first ? "" : ", \\\n     ",
                k + 1, W->name[k]);
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
    if (panels == 0) panels = 1;
    /* the title is user text: printable, at most 100 characters, and inside a
     * single-quoted gnuplot string, where a quote is written twice */
    char title[256];
    int tl = 0;
    for (const char *p = W->title ? W->title : ""; *p && tl < 200 && p - W->title < 100; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch == '\'') title[tl++] = '\'';
        title[tl++] = ch < 32 ? ' ' : (char)ch;
    }
    title[tl] = 0;
    fprintf(f,
            "# gnuplot script written by nscircuit: gnuplot %s (in this directory)\n"
            "# change the terminal line for another format, e.g. set terminal svg\n"
            "if (!exists(\"outfile\")) outfile = '%s'\n"
            "set terminal pngcairo noenhanced size 1000,%d font 'sans,10'\n"
            "set output outfile\n"
            "datafile = '%s'\n"
            "set grid\n"
            "set key outside right top\n"
            "set format x '%%.3g'\n"
            "set multiplot layout %d,1 title '%s'\n"
            "set xlabel 'time (s)'\n",
            base_name(gppath), base_name(pngpath), 120 + 300 * panels, base_name(datpath), panels,
            title);
    if (nv) plot_panel(f, W, 'v', "voltage (V)");
    if (ni) plot_panel(f, W, 'i', "current (A)");
    if (no) plot_panel(f, W, 'o', "value");
    if (!nv && !ni && !no) fprintf(f, "plot datafile using 1:1 with lines title 'time'\n");
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
    const char *gpbase = base_name(gppath);
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
