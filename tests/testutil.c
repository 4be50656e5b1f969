/* testutil.c -- see testutil.h. */
#include "testutil.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "netlist/netlist.h"

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
                for (char *w = strtok_r(p + 1, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
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
        if (k != t->ncol) { free(line); fclose(f); return -2; }
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

int tu_run(const char *cmd, char **out)
{
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, p)) > 0) {
        n += got;
        if (cap - n < 2) { cap *= 2; buf = realloc(buf, cap); }
    }
    buf[n] = 0;
    int st = pclose(p);
    if (out) *out = buf; else free(buf);
    if (st == -1) return -1;
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
    if (system(cmd)) { /* best effort */ }
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
        if (TU_AT(t, mid, 0) <= x) lo = mid; else hi = mid;
    }
    double a = (x - TU_AT(t, lo, 0)) / (TU_AT(t, hi, 0) - TU_AT(t, lo, 0));
    return (1 - a) * TU_AT(t, lo, col) + a * TU_AT(t, hi, col);
}
