/* testutil.c -- see testutil.h. */
#include "testutil.h"

#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "netlist/netlist.h"
#include "base/blas_env.h"

/* Before any library initialiser (see blas_env.h): the BLAS single-threaded in
 * this binary and every program it runs. No output may depend on the clock: the
 * raw files' Date: line follows SOURCE_DATE_EPOCH, set in main's environment
 * here (environ is final by now) and so in every program a test runs. */
NSC_BLAS_ONE_THREAD

__attribute__((constructor)) static void tu_fixed_date(void)
{
    setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
}

int tu_table_read(const char *path, tu_table *t)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    size_t vcap = 0;
    while ((len = getline(&line, &cap, f)) >= 0) {
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '#') {
            if (t->ncol == 0 && t->name == NULL) {
                char *save = NULL;
                for (char *w = strtok_r(p + 1, " \t\r\n", &save); w;
                     w = strtok_r(NULL, " \t\r\n", &save)) {
                    t->name = realloc(t->name, sizeof(char *) * (size_t)(t->ncol + 1));
                    t->name[t->ncol++] = strdup(w);
                }
            }
            continue;
        }
        if (*p == '\n' || *p == 0 || *p == '\r') continue;
        int k = 0;
        char *end;
        for (;;) {
            double x = strtod(p, &end);
            if (end == p) break;
            if ((size_t)t->nrow * (size_t)t->ncol + (size_t)k + 1 > vcap) {
                vcap = vcap ? 2 * vcap : 1024;
                t->v = realloc(t->v, vcap * sizeof(double));
            }
            t->v[(size_t)t->nrow * (size_t)t->ncol + (size_t)k] = x;
            k++;
            p = end;
        }
        if (t->ncol == 0) t->ncol = k;
        if (k != t->ncol) {
            free(line);
            fclose(f);
            return -2;
        }
        t->nrow++;
    }
    free(line);
    fclose(f);
    return 0;
}

void tu_table_free(tu_table *t)
{
    for (int k = 0; k < t->ncol && t->name; k++) free(t->name[k]);
    free(t->name);
    free(t->v);
    memset(t, 0, sizeof *t);
}

int tu_table_col(const tu_table *t, const char *name)
{
    for (int k = 0; k < t->ncol && t->name; k++)
        if (strcasecmp(t->name[k], name) == 0) return k;
    return -1;
}

/* The command runs in its own process group under a deadline: a hung program
 * (or a grandchild it left) is killed with the whole group, and the call
 * returns -1 with "[tu_run: timed out]" in the output, so no test can hang
 * the suite whatever the child does (Criterion's own .timeout kills the test,
 * not the shell's children). NSC_TEST_DEADLINE (seconds) overrides 300. */
static int run_deadline(void)
{
    const char *e = getenv("NSC_TEST_DEADLINE");
    int s = e ? atoi(e) : 0;
    return s > 0 ? s : 300;
}

static void append(char **buf, size_t *n, size_t *cap, const char *b, size_t k)
{
    if (*n + k + 1 > *cap) {
        while (*n + k + 1 > *cap) *cap *= 2;
        *buf = realloc(*buf, *cap);
    }
    memcpy(*buf + *n, b, k);
    *n += k;
    (*buf)[*n] = 0;
}

int tu_run(const char *cmd, char **out)
{
    int fd[2];
    if (pipe(fd) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        dup2(fd[1], STDOUT_FILENO);
        close(fd[0]);
        close(fd[1]);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    close(fd[1]);
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap), b[4096];
    buf[0] = 0;
    time_t end = time(NULL) + run_deadline();
    int timed_out = 0;
    for (;;) {
        struct pollfd pf = { fd[0], POLLIN, 0 };
        int left = (int)(end - time(NULL));
        if (left <= 0) {
            timed_out = 1;
            break;
        }
        int r = poll(&pf, 1, left * 1000);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            timed_out = 1;
            break;
        }
        ssize_t got = read(fd[0], b, sizeof b);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        append(&buf, &n, &cap, b, (size_t)got);
    }
    if (timed_out) kill(-pid, SIGKILL);
    close(fd[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    if (timed_out) {
        const char *m = "\n[tu_run: timed out; process group killed]\n";
        append(&buf, &n, &cap, m, strlen(m));
    }
    if (out) *out = buf;
    else free(buf);
    if (timed_out) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int tu_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs(text, f);
    return fclose(f);
}

char *tu_tmpdir(void)
{
    char tmpl[] = "/tmp/nsc_test_XXXXXX";
    char *d = mkdtemp(tmpl);
    return d ? strdup(d) : NULL;
}

void tu_rmdir(const char *dir)
{
    if (!dir || strncmp(dir, "/tmp/nsc_test_", 14) != 0) return;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) { /* best effort */
    }
}

char *tu_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = 0;
    fclose(f);
    return s;
}

struct nsc_circuit *tu_parse(const char *text)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_circuit *c = NULL;
    nsc_status s = nsc_netlist_read_string(text, "t.cir", NULL, 0, &c, &r);
    cr_assert_eq(s, NSC_OK, "parse failed: %s", r.error ? r.error : "?");
    nsc_report_free(&r);
    return c;
}

double tu_interp(const tu_table *t, int col, double x)
{
    int lo = 0, hi = t->nrow - 1;
    if (x <= TU_AT(t, 0, 0)) return TU_AT(t, 0, col);
    if (x >= TU_AT(t, hi, 0)) return TU_AT(t, hi, col);
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (TU_AT(t, mid, 0) <= x) lo = mid;
        else hi = mid;
    }
    double a = (x - TU_AT(t, lo, 0)) / (TU_AT(t, hi, 0) - TU_AT(t, lo, 0));
    return (1 - a) * TU_AT(t, lo, col) + a * TU_AT(t, hi, col);
}

double tu_rms_rel(const tu_table *a, const tu_table *b, const char *sig)
{
    int ca = tu_table_col(a, sig), cb = tu_table_col(b, sig);
    if (ca < 1 || cb < 1 || b->nrow < 1) return NAN;
    double lo = INFINITY, hi = -INFINITY, s = 0;
    for (int i = 0; i < b->nrow; i++) {
        double v = TU_AT(b, i, cb), d = tu_interp(a, ca, TU_AT(b, i, 0)) - v;
        lo = fmin(lo, v);
        hi = fmax(hi, v);
        s += d * d;
    }
    return sqrt(s / b->nrow) / (hi - lo);
}

int tu_newton_stats(const char *out, tu_newton *n)
{
    const char *s = out ? strstr(out, "Newton (smooth functions): ") : NULL;
    const char *c = s ? strstr(s, "not converged; ") : NULL;
    n->nchord = -1;
    n->fper = -1;
    if (c
        && sscanf(c,
                  "not converged; %ld iterations kept the last factors (chord), %lf mode systems "
                  "factored per iteration",
                  &n->nchord, &n->fper)
               != 2)
        n->nchord = -1, n->fper = -1;
    return s
           && sscanf(
                  s,
                  "Newton (smooth functions): %ld problems solved in %ld iterations (%lf per problem, at "
                  "most %d), %ld not converged",
                  &n->np, &n->nit, &n->per, &n->maxit, &n->nfail)
                  == 5;
}

void tu_ac_mag_vs_ngspice(const char *dir, const char *cir, const char *ng, int nrow, double rel,
                          const char *name)
{
    char cmd[2048], path[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "cd %s && %s -o a.dat %s/%s 2>&1", dir, NSC_PROGRAM, NSC_REFDIR, cir);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    free(out);
    tu_table t;
    snprintf(path, sizeof path, "%s/a.dat", dir);
    cr_assert_eq(tu_table_read(path, &t), 0);
    snprintf(path, sizeof path, "%s/%s", NSC_REFDIR, ng);
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s", path);
    cr_assert_eq(fscanf(f, "%*[^\n]"), 0);
    cr_assert_eq(t.nrow, nrow);
    for (int i = 0; i < t.nrow; i++) {
        double fr, m;
        cr_assert_eq(fscanf(f, "%lf %lf", &fr, &m), 2);
        cr_assert(fabs(TU_AT(&t, i, 0) / fr - 1) < 1e-7, "row %d: %g Hz, ngspice %g Hz", i,
                  TU_AT(&t, i, 0), fr);
        cr_assert(fabs(TU_AT(&t, i, 1) / m - 1) < rel, "%g Hz: %s %.9g, ngspice %.9g", fr, name,
                  TU_AT(&t, i, 1), m);
    }
    fclose(f);
    tu_table_free(&t);
}
