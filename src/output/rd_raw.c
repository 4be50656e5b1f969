/* rd_raw.c -- ngspice raw files (ASCII and binary) -> nsc_waves.
 *
 * A raw file is a sequence of plots; each is a header of "Key: value" lines
 * (Title, Date, Plotname, Flags, No. Variables, No. Points, Dimensions, Command,
 * Option), a "Variables:" list ("\tindex\tname\ttype [param=value ...]") and a
 * "Values:" (per point: index, then one number per variable; complex "re,im")
 * or "Binary:" section (per point, one double per variable, two if complex).
 * The first real plot whose scale is time is returned. */
#include "rd.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cursor {
    const char *p, *end;
    int line;              /* lines consumed so far */
    const char *path;
} cursor;

typedef struct plot {
    char *title, *name;
    int complex_;
    int nvar, npoint;
    char **var, **type;    /* [nvar] */
    int truncated;         /* fewer points than No. Points */
} plot;

static void plot_clear(plot *pl)
{
    for (int k = 0; pl->var && pl->type && k < pl->nvar; k++) { free(pl->var[k]); free(pl->type[k]); }
    free(pl->var);
    free(pl->type);
    free(pl->name);
    pl->var = pl->type = NULL;
    pl->name = NULL;
    pl->nvar = pl->npoint = 0;
    pl->complex_ = pl->truncated = 0;
}

/* next line [*b, *e) without its "\r\n"; 0 at the end of the data */
static int next_line(cursor *c, const char **b, const char **e)
{
    if (c->p >= c->end) return 0;
    const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
    const char *q = nl ? nl : c->end;
    *b = c->p;
    c->p = nl ? nl + 1 : c->end;
    if (q > *b && q[-1] == '\r') q--;
    *e = q;
    c->line++;
    return 1;
}

/* line starts with key (case-insensitive); *v = the value after it, blanks skipped */
static int keyed(const char *b, const char *e, const char *key, const char **v)
{
    size_t n = strlen(key);
    if ((size_t)(e - b) < n) return 0;
    for (size_t k = 0; k < n; k++)
        if (tolower((unsigned char)b[k]) != key[k]) return 0;
    b += n;
    while (b < e && isspace((unsigned char)*b)) b++;
    *v = b;
    return 1;
}

static nsc_status bad(const cursor *c, nsc_report *r, const char *what)
{
    return nsc_err(r, NSC_EIO, NULL, "%s:%d: %s (not an ngspice raw file?)", c->path, c->line, what);
}

/* next blank-separated token of [*b, e) into [*tb, *te); 0 if none */
static int token(const char **b, const char *e, const char **tb, const char **te)
{
    const char *p = *b;
    while (p < e && isspace((unsigned char)*p)) p++;
    if (p == e) return 0;
    *tb = p;
    while (p < e && !isspace((unsigned char)*p)) p++;
    *te = p;
    *b = p;
    return 1;
}

/* ngspice names: "l1#branch" (current) -> "i(l1)", a bare node "out" (voltage) -> "v(out)" */
static char *var_name(const char *b, const char *e, const char *type)
{
    size_t n = (size_t)(e - b);
    if (memchr(b, '(', n)) return nsc_strndup(b, n);
    if (n > 7 && !strncmp(e - 7, "#branch", 7)) return nsc_asprintf("i(%.*s)", (int)(n - 7), b);
    if (!strcmp(type, "voltage")) return nsc_asprintf("v(%.*s)", (int)n, b);
    if (!strcmp(type, "current")) return nsc_asprintf("i(%.*s)", (int)n, b);
    return nsc_strndup(b, n);
}

/* A count in a header ("No. Variables:", "No. Points:"): a decimal integer
 * >= lo. Variables are checked against the bytes left (each takes a line of at
 * least 6: "\t0\tx\tt\n"), so no header allocates more than the file could fill. */
static nsc_status count(cursor *c, const char *v, const char *e, int lo, int *out, nsc_report *r)
{
    char buf[32];
    size_t n = (size_t)(e - v);
    while (n && isspace((unsigned char)v[n - 1])) n--;
    if (n == 0 || n >= sizeof buf) return bad(c, r, "a count that is not a number");
    memcpy(buf, v, n);
    buf[n] = 0;
    char *q;
    errno = 0;
    long x = strtol(buf, &q, 10);
    if (*q || errno || x < lo || x > INT32_MAX) return bad(c, r, "a count out of range");
    if (lo > 0 && (size_t)x > (size_t)(c->end - c->p) / 6) return bad(c, r, "No. Variables: more than the file holds");
    *out = (int)x;
    return NSC_OK;
}

/* "Variables:" then nvar lines (the first may follow on the same line) */
static nsc_status read_vars(cursor *c, const char *rest, const char *e, plot *pl, nsc_report *r)
{
    if (pl->nvar <= 0) return bad(c, r, "Variables: before a positive No. Variables");
    pl->var = nsc_calloc((size_t)pl->nvar, sizeof(char *));
    pl->type = nsc_calloc((size_t)pl->nvar, sizeof(char *));
    if (!pl->var || !pl->type) return nsc_oom(r);
    const char *b = rest;
    for (int k = 0; k < pl->nvar; k++) {
        const char *tb, *te, *nb, *ne, *yb, *ye;
        while (!token(&b, e, &tb, &te))
            if (!next_line(c, &b, &e)) return bad(c, r, "end of file in the Variables list");
        if (!token(&b, e, &nb, &ne) || !token(&b, e, &yb, &ye)) return bad(c, r, "variable line without name and type");
        pl->type[k] = nsc_strndup(yb, (size_t)(ye - yb));
        if (!pl->type[k]) return nsc_oom(r);
        nsc_strlower(pl->type[k]);
        pl->var[k] = var_name(nb, ne, pl->type[k]);
        if (!pl->var[k]) return nsc_oom(r);
        b = e;                                        /* options after the type are ignored */
    }
    return NSC_OK;
}

static double get_le(const unsigned char *p)
{
    uint64_t u = 0;
    for (int k = 7; k >= 0; k--) u = (u << 8) | p[k];
    double x;
    memcpy(&x, &u, 8);
    return x;
}

/* Binary section: npoint rows (fewer if the file is truncated). W == NULL skips. */
static nsc_status read_binary(cursor *c, plot *pl, nsc_waves *W, double *row, nsc_report *r)
{
    size_t width = pl->complex_ ? 16 : 8, rowbytes = width * (size_t)pl->nvar;
    size_t avail = (size_t)(c->end - c->p) / rowbytes, n = (size_t)pl->npoint;
    if (pl->npoint > 0 && n > avail) pl->truncated = 1;
    if (pl->npoint <= 0 || n > avail) n = avail;          /* count not updated: a killed run */
    const unsigned char *p = (const unsigned char *)c->p;
    for (size_t i = 0; W && i < n; i++) {
        for (int k = 0; k < pl->nvar; k++) row[k] = get_le(p + i * rowbytes + width * (size_t)k);
        if (nsc_waves_add(W, row)) return nsc_oom(r);
    }
    c->p += n * rowbytes;
    return NSC_OK;
}

/* Values section: per point an integer index then nvar numbers ("re,im" if complex).
 * Stops early, without error, at a non-number where a point should begin. */
static nsc_status read_ascii(cursor *c, plot *pl, nsc_waves *W, double *row, nsc_report *r)
{
    for (int i = 0; pl->npoint <= 0 || i < pl->npoint; i++) {      /* count 0: until the data ends */
        for (int k = -1; k < pl->nvar; k++) {
            const char *p = c->p;
            while (p < c->end && isspace((unsigned char)*p)) {
                if (*p == '\n') c->line++;
                p++;
            }
            if (p == c->end) {
                if (pl->npoint > 0 && i < pl->npoint) pl->truncated = 1;
                if (k == -1) { c->p = p; return NSC_OK; }            /* truncated: complete points kept */
                return bad(c, r, "end of file inside a point");
            }
            char buf[128];
            size_t n = 0;
            while (p + n < c->end && !isspace((unsigned char)p[n]) && n < sizeof buf - 1) n++;
            memcpy(buf, p, n);
            buf[n] = 0;
            char *q;
            errno = 0;
            double x = strtod(buf, &q);
            if (k == -1) {
                if (q == buf || *q) return NSC_OK;                     /* next plot's header */
            } else {
                if (q == buf || (*q && *q != ',')) return bad(c, r, "bad number in the Values section");
                row[k] = x;
            }
            c->p = p + n;
        }
        if (W && nsc_waves_add(W, row)) return nsc_oom(r);
    }
    return NSC_OK;
}

static int is_transient(const plot *pl)
{
    return !pl->complex_ && pl->nvar >= 1 && (!strcmp(pl->type[0], "time") || nsc_strieq(pl->var[0], "time"));
}

nsc_status nsc_read_raw(const char *path, const char *data, size_t len, nsc_waves **out,
                        nsc_wfinfo *info, nsc_report *r)
{
    *out = NULL;
    cursor c = { data, data + len, 0, path };
    plot pl = { 0 };
    char *title = NULL, *seen = NULL;
    double *row = NULL;
    nsc_waves *W = NULL;
    nsc_status s = NSC_OK;
    int binary = 0, nplot = 0;
    const char *b, *e, *v;
    while (!s && !W && next_line(&c, &b, &e)) {
        if (keyed(b, e, "title:", &v)) {
            free(title);
            if (!(title = nsc_strndup(v, (size_t)(e - v)))) s = nsc_oom(r);
        } else if (keyed(b, e, "plotname:", &v)) {
            plot_clear(&pl);
            if (!(pl.name = nsc_strndup(v, (size_t)(e - v)))) s = nsc_oom(r);
        } else if (keyed(b, e, "flags:", &v)) {
            const char *tb, *te;
            while (token(&v, e, &tb, &te))
                if (te - tb == 7 && !strncmp(tb, "complex", 7)) pl.complex_ = 1;
        } else if (keyed(b, e, "no. variables:", &v)) {
            if (pl.var) { s = bad(&c, r, "No. Variables: after the Variables list"); break; }
            s = count(&c, v, e, 1, &pl.nvar, r);
        } else if (keyed(b, e, "no. points:", &v)) {
            s = count(&c, v, e, 0, &pl.npoint, r);
        } else if (keyed(b, e, "variables:", &v)) {
            s = pl.var ? bad(&c, r, "a second Variables list in one plot") : read_vars(&c, v, e, &pl, r);
        } else if (keyed(b, e, "values:", &v) || keyed(b, e, "binary:", &v)) {
            binary = tolower((unsigned char)*b) == 'b';
            if (!pl.var) { s = bad(&c, r, "values before the Variables list"); break; }
            nplot++;
            if (is_transient(&pl)) {
                W = nsc_waves_new(pl.var + 1, pl.nvar - 1, title ? title : "");
                row = nsc_calloc((size_t)pl.nvar, sizeof(double));
                if (!W || !row) { s = nsc_oom(r); break; }
            } else {
                char *ns = nsc_asprintf("%s%s'%s'", seen ? seen : "", seen ? ", " : "", pl.name ? pl.name : "?");
                free(seen);
                if (!(seen = ns)) { s = nsc_oom(r); break; }
            }
            if (!row) row = nsc_calloc((size_t)pl.nvar, sizeof(double));
            if (!row) { s = nsc_oom(r); break; }
            s = binary ? read_binary(&c, &pl, W, row, r) : read_ascii(&c, &pl, W, row, r);
            if (W && pl.truncated && info) info->incomplete = 1;
            if (!W) { free(row); row = NULL; }
        } else if (keyed(b, e, "date:", &v) || keyed(b, e, "dimensions:", &v) || keyed(b, e, "command:", &v) ||
                   keyed(b, e, "option:", &v)) {
            continue;
        } else {
            const char *tb, *te, *q = b;
            if (token(&q, e, &tb, &te)) s = bad(&c, r, "unexpected line");
        }
    }
    if (!s && !W) {
        if (nplot == 0) s = nsc_err(r, NSC_EIO, NULL, "%s: no data (no Values: or Binary: section)", path);
        else s = nsc_err(r, NSC_EIO, NULL, "%s: no transient plot (real values against time); plots: %s", path,
                         seen ? seen : "none");
    }
    if (s) { nsc_waves_free(W); W = NULL; }
    else if (info) {
        info->kind = binary ? NSC_WF_RAWBIN : NSC_WF_RAW;
        info->named = 1;
    }
    *out = W;
    plot_clear(&pl);
    free(title);
    free(seen);
    free(row);
    return s;
}
