/* util.c -- diagnostics and allocation helpers (see util.h). */
#include "util.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

void nsc_report_init(nsc_report *r)
{
    memset(r, 0, sizeof *r);
}

void nsc_report_free(nsc_report *r)
{
    if (!r) return;
    free(r->error);
    for (int k = 0; k < r->nwarn; k++) free(r->warn[k]);
    free(r->warn);
    memset(r, 0, sizeof *r);
}

void nsc_report_trim(nsc_report *r, int n0)
{
    while (r->nwarn > n0) free(r->warn[--r->nwarn]);
}

void nsc_report_take(nsc_report *r, nsc_report *src)
{
    char **w = nsc_realloc_array(r->warn, (size_t)(r->nwarn + src->nwarn) + 1, sizeof *w);
    if (!w) return;
    r->warn = w;
    r->capwarn = r->nwarn + src->nwarn + 1;
    for (int k = 0; k < src->nwarn; k++) r->warn[r->nwarn++] = src->warn[k];
    src->nwarn = 0;
}

static char *vformat(const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (n < 0) return NULL;
    char *s = malloc((size_t)n + 1);
    if (s) vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *nsc_asprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vformat(fmt, ap);
    va_end(ap);
    return s;
}

/* "file:line:col: kind: body" or "nscircuit: kind: body" */
static char *prefixed(const nsc_loc *loc, const char *kind, const char *body)
{
    if (loc && loc->line > 0)
        return nsc_asprintf("%s:%d:%d: %s: %s", loc->file ? loc->file : "<input>", loc->line,
                            loc->col > 0 ? loc->col : 1, kind, body);
    return nsc_asprintf("nscircuit: %s: %s", kind, body);
}

nsc_status nsc_err(nsc_report *r, nsc_status st, const nsc_loc *loc, const char *fmt, ...)
{
    if (!r || r->status != NSC_OK) return st;
    va_list ap;
    va_start(ap, fmt);
    char *body = vformat(fmt, ap);
    va_end(ap);
    r->status = st;
    r->error = body ? prefixed(loc, "error", body) : NULL;
    free(body);
    return st;
}

static void add_line(nsc_report *r, const nsc_loc *loc, const char *kind, const char *fmt,
                     va_list ap)
{
    char *body = vformat(fmt, ap);
    if (!body) return;
    char *line = prefixed(loc, kind, body);
    free(body);
    if (!line) return;
    for (int k = 0; k < r->nwarn; k++)
        if (strcmp(r->warn[k], line) == 0) {
            free(line);
            return;
        }
    if (nsc_grow((void **)&r->warn, &r->capwarn, r->nwarn + 1, sizeof *r->warn)) {
        free(line);
        return;
    }
    r->warn[r->nwarn++] = line;
}

void nsc_warn(nsc_report *r, const nsc_loc *loc, const char *fmt, ...)
{
    if (!r) return;
    va_list ap;
    va_start(ap, fmt);
    add_line(r, loc, "warning", fmt, ap);
    va_end(ap);
}

void nsc_note(nsc_report *r, const nsc_loc *loc, const char *fmt, ...)
{
    if (!r) return;
    va_list ap;
    va_start(ap, fmt);
    add_line(r, loc, "note", fmt, ap);
    va_end(ap);
}

void *nsc_calloc(size_t n, size_t size)
{
    return calloc(n ? n : 1, size ? size : 1);
}

void *nsc_realloc_array(void *p, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) return NULL;
    size_t bytes = n * size;
    return realloc(p, bytes ? bytes : 1);
}

char *nsc_strdup(const char *s)
{
    return s ? nsc_strndup(s, strlen(s)) : NULL;
}

char *nsc_strndup(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *nsc_strlower(char *s)
{
    for (char *p = s; p && *p; p++) *p = (char)tolower((unsigned char)*p);
    return s;
}

int nsc_strieq(const char *a, const char *b)
{
    if (!a || !b) return a == b;
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
    return *a == *b;
}

int nsc_grow(void **arr, int *cap, int need, size_t sz)
{
    if (need <= *cap) return 0;
    if (need < 0) return -1;
    long long nc = *cap > 0 ? *cap : 8;
    while (nc < need) nc *= 2;
    if (nc > 0x7fffffff) nc = need;
    void *p = nsc_realloc_array(*arr, (size_t)nc, sz);
    if (!p) return -1;
    *arr = p;
    *cap = (int)nc;
    return 0;
}

int nsc_uf_find(int *uf, int x)
{
    while (uf[x] >= 0) {
        if (uf[uf[x]] >= 0) uf[x] = uf[uf[x]]; /* path halving */
        x = uf[x];
    }
    return x;
}

void nsc_uf_union(int *uf, int a, int b)
{
    a = nsc_uf_find(uf, a);
    b = nsc_uf_find(uf, b);
    if (a == b) return;
    if (uf[a] > uf[b]) {
        int t = a;
        a = b;
        b = t;
    } /* a: the larger tree */
    uf[a] += uf[b];
    uf[b] = a;
}

int nsc_mkstemp(char *tmpl)
{
    int fd = mkstemp(tmpl);
    if (fd >= 0) { /* mkstemp's 0600 -> what open(2) would give: 0666 & ~umask */
        mode_t um = umask(0);
        umask(um);
        (void)fchmod(fd, 0666 & ~um);
    }
    return fd;
}

/* This host's name as nsc_tmp_template writes it. */
static void host_tag(char *buf, size_t n)
{
    char h[256] = "";
    if (gethostname(h, sizeof h - 1)) h[0] = 0;
    size_t k = 0;
    for (; h[k] && k < 32 && k + 1 < n; k++)
        buf[k] = isalnum((unsigned char)h[k]) || h[k] == '-' ? h[k] : '_';
    buf[k] = 0;
}

char *nsc_tmp_template(const char *path)
{
    char host[40];
    host_tag(host, sizeof host);
    return nsc_asprintf("%s.nsc-%s-%ld.XXXXXX", path, host, (long)getpid());
}

/* The pid of a name "<prefix><digits>.<6 characters>", or -1. */
static long stale_pid(const char *name, const char *prefix)
{
    size_t lp = strlen(prefix);
    if (strncmp(name, prefix, lp)) return -1;
    const char *p = name + lp, *q = p;
    while (*q >= '0' && *q <= '9') q++;
    if (q == p || q - p > 9 || *q != '.' || strlen(q + 1) != 6) return -1;
    return strtol(p, NULL, 10);
}

void nsc_reap_stale(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? nsc_strndup(path, (size_t)(slash - path + 1)) : nsc_strdup(".");
    char host[40];
    host_tag(host, sizeof host);
    char *prefix = nsc_asprintf("%s.nsc-%s-", slash ? slash + 1 : path, host);
    DIR *d = dir && prefix ? opendir(dir) : NULL;
    for (struct dirent *de; d && (de = readdir(d));) {
        long pid = stale_pid(de->d_name, prefix);
        struct stat sb;
        if (pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        if (fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) || !S_ISREG(sb.st_mode)
            || sb.st_uid != geteuid())
            continue;
        unlinkat(dirfd(d), de->d_name, 0);
    }
    if (d) closedir(d);
    free(dir);
    free(prefix);
}

nsc_status nsc_oom(nsc_report *r)
{
    return nsc_err(r, NSC_ENOMEM, NULL, "out of memory");
}

double nsc_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

const char *nsc_base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

char *nsc_stem(const char *path)
{
    const char *b = nsc_base_name(path), *dot = strrchr(b, '.');
    return nsc_strndup(b, dot && dot != b ? (size_t)(dot - b) : strlen(b));
}

int nsc_list_item(const char **p, const char **a, const char **b)
{
    const char *q = *p;
    if (!q) return 0;
    *a = q;
    for (int depth = 0; *q && !(*q == ',' && depth == 0); q++) depth += (*q == '(') - (*q == ')');
    *b = q;
    *p = *q ? q + 1 : NULL;
    return 1;
}

int nsc_geometric(const double *v, int n)
{
    if (n < 3) return 0;
    for (int k = 0; k < n; k++)
        if (!(v[k] * v[0] > 0)) return 0;
    double q = v[1] / v[0], d = v[1] - v[0];
    int ratios = 1, diffs = 1;
    for (int k = 2; k < n; k++) {
        ratios &= fabs(v[k] / v[k - 1] - q) <= 1e-6 * fabs(q);
        diffs &= fabs((v[k] - v[k - 1]) - d) <= 1e-6 * fabs(d);
    }
    return ratios && !diffs;
}
