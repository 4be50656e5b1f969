/* rd_raw.c -- ngspice raw files (ASCII and binary) -> nsc_waves.
 *
 * A raw file is a sequence of plots; each is a header of "Key: value" lines
 * (Title, Date, Plotname, Flags, No. Variables, No. Points, Dimensions, Command,
 * Option), a "Variables:" list ("\tindex\tname\ttype [param=value ...]") and a
 * "Values:" (per point: index, then one number per variable; complex "re,im")
 * or "Binary:" section (per point, one double per variable, two if complex).
 * The plot returned is the first of the scale asked for (nsc_read_raw_scale; any: a transient, else AC, else DC): a
 * transient (real, its scale time), an AC analysis (complex, its scale
 * frequency: each complex variable X becomes two columns, its magnitude in dB
 * and its phase in degrees, named as ngspice's vdb(X) and vp(X)), or a DC
 * sweep (real, any other scale). */
#include "rd.h"
#include "cmp.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct cursor {
    const char *p, *end;
    int line; /* lines consumed so far */
    const char *path;
} cursor;

typedef struct plot {
    char *title, *name;
    int complex_;
    int nvar, npoint;
    char **var, **type; /* [nvar] */
    int truncated;      /* fewer points than No. Points */
} plot;

static void plot_clear(plot *pl)
{
    for (int k = 0; pl->var && pl->type && k < pl->nvar; k++) {
        free(pl->var[k]);
        free(pl->type[k]);
    }
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
    return nsc_err(r, NSC_EIO, NULL, "%s:%d: %s (not an ngspice raw file?)", c->path, c->line,
                   what);
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

/* ngspice names: "l1#branch" (current) -> "i(l1)", a bare node "out" (voltage) -> "v(out)";
 * "v(sweep(i1))" -> "sweep(i1)" (a nested .dc's outer column as ngspice writes
 * back the file it loaded: a voltage's name not v(...) gets v( )). */
static char *var_name(const char *b, const char *e, const char *type)
{
    size_t n = (size_t)(e - b);
    if (n > 10 && !strncasecmp(b, "v(sweep(", 8) && e[-1] == ')' && e[-2] == ')')
        return nsc_strndup(b + 2, n - 3);
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
    if (lo > 0 && (size_t)x > (size_t)(c->end - c->p) / 6)
        return bad(c, r, "No. Variables: more than the file holds");
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
        if (!token(&b, e, &nb, &ne) || !token(&b, e, &yb, &ye))
            return bad(c, r, "variable line without name and type");
        pl->type[k] = nsc_strndup(yb, (size_t)(ye - yb));
        if (!pl->type[k]) return nsc_oom(r);
        nsc_strlower(pl->type[k]);
        pl->var[k] = var_name(nb, ne, pl->type[k]);
        if (!pl->var[k]) return nsc_oom(r);
        b = e; /* options after the type are ignored */
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

/* The plot's scale (NSC_SCALE_*), or -1 for a kind not read (complex against
 * anything but frequency; ngspice's operating point, one point, not a sweep). */
static int plot_scale(const plot *pl)
{
    if (pl->nvar < 1 || (pl->name && nsc_strieq(pl->name, "operating point"))) return -1;
    if (pl->complex_)
        return !strcmp(pl->type[0], "frequency") || nsc_strieq(pl->var[0], "frequency")
                   ? NSC_SCALE_FREQ
                   : -1;
    return !strcmp(pl->type[0], "time") || nsc_strieq(pl->var[0], "time") ? NSC_SCALE_TIME
                                                                          : NSC_SCALE_SWEEP;
}

/* An AC variable's two column names: "v(x)" -> vdb(x), vp(x); "i(x)" -> idb(x),
 * ip(x); another name n -> db(n), ph(n). NULL (out of memory) in either. */
static void ac_names(const char *var, char **db, char **ph)
{
    char *c = nsc_signame_canon(var);
    *db = *ph = NULL;
    if (!c) return;
    if ((c[0] == 'v' || c[0] == 'i') && c[1] == '(') {
        *db = nsc_asprintf("%cdb%s", c[0], c + 1);
        *ph = nsc_asprintf("%cp%s", c[0], c + 1);
    } else {
        *db = nsc_asprintf("db(%s)", c);
        *ph = nsc_asprintf("ph(%s)", c);
    }
    free(c);
}

/* Variable k of an AC plot that is real though written complex ("x,0.0"):
 * ngspice's `write f.raw vdb(x) vp(x)` types them decibel (1: dB as they are)
 * and phase (2: radians). 0: a complex variable. */
static int ac_real(const plot *pl, int k)
{
    return !strcmp(pl->type[k], "decibel") ? 1 : !strcmp(pl->type[k], "phase") ? 2 : 0;
}

/* The table of plot pl: its variables as read, or (AC) the scale then the dB
 * and phase columns of each complex variable, one column of each real one
 * (ac_real). NULL when out of memory. */
static nsc_waves *plot_table(const plot *pl, const char *title)
{
    if (!pl->complex_) { /* (a sweep's scale keeps its name) */
        nsc_waves *T = nsc_waves_new(pl->var + 1, pl->nvar - 1, title);
        char *s0 = T && plot_scale(pl) == NSC_SCALE_SWEEP ? nsc_strdup(pl->var[0]) : NULL;
        if (s0) {
            free(T->name[0]);
            T->name[0] = nsc_strlower(s0);
        } else if (T && plot_scale(pl) == NSC_SCALE_SWEEP) {
            nsc_waves_free(T);
            T = NULL;
        }
        return T;
    }
    int n = 0;
    for (int k = 1; k < pl->nvar; k++) n += ac_real(pl, k) ? 1 : 2;
    char **names = nsc_calloc((size_t)n + 1, sizeof(char *));
    nsc_waves *W = NULL;
    int ok = names != NULL;
    for (int k = 1, j = 0; ok && k < pl->nvar; k++) {
        if (ac_real(pl, k)) ok = (names[j++] = nsc_signame_canon(pl->var[k])) != NULL;
        else {
            ac_names(pl->var[k], &names[j], &names[j + 1]);
            ok = names[j] && names[j + 1];
            j += 2;
        }
    }
    if (ok && (W = nsc_waves_new(names, n, title))) {
        free(W->name[0]);
        if (!(W->name[0] = nsc_strdup("frequency"))) {
            nsc_waves_free(W);
            W = NULL;
        }
    }
    for (int k = 0; names && k < n; k++) free(names[k]);
    free(names);
    return W;
}

/* Append point row (re, im pairs when complex) to W: AC as 20 log10 |x| and
 * arg x in degrees (a zero magnitude: -inf dB, as ngspice's vdb); a real
 * variable (ac_real) its real part, a phase's radians in degrees. -1 out of memory. */
static int add_point(const plot *pl, nsc_waves *W, const double *row, double *out)
{
    if (!pl->complex_) return nsc_waves_add(W, row);
    const double deg = 180 / 3.14159265358979323846;
    out[0] = row[0];
    for (int k = 1, j = 1; k < pl->nvar; k++) {
        double re = row[2 * k], im = row[2 * k + 1];
        int real = ac_real(pl, k);
        if (real) out[j++] = real == 2 ? re * deg : re;
        else {
            out[j++] = 20 * log10(hypot(re, im));
            out[j++] = atan2(im, re) * deg;
        }
    }
    return nsc_waves_add(W, out);
}

/* Binary section: npoint rows (fewer if the file is truncated). W == NULL skips. */
static nsc_status read_binary(cursor *c, plot *pl, nsc_waves *W, double *row, nsc_report *r)
{
    size_t width = pl->complex_ ? 16 : 8, rowbytes = width * (size_t)pl->nvar;
    size_t avail = (size_t)(c->end - c->p) / rowbytes, n = (size_t)pl->npoint;
    if (pl->npoint > 0 && n > avail) pl->truncated = 1;
    if (pl->npoint <= 0 || n > avail) n = avail; /* count not updated: a killed run */
    const unsigned char *p = (const unsigned char *)c->p;
    double *out = row + 2 * (size_t)pl->nvar;
    for (size_t i = 0; W && i < n; i++) {
        for (int k = 0; k < pl->nvar; k++) {
            const unsigned char *x = p + i * rowbytes + width * (size_t)k;
            row[pl->complex_ ? 2 * k : k] = get_le(x);
            if (pl->complex_) row[2 * k + 1] = get_le(x + 8);
        }
        if (add_point(pl, W, row, out)) return nsc_oom(r);
    }
    c->p += n * rowbytes;
    return NSC_OK;
}

/* Values section: per point an integer index then nvar numbers ("re,im" if complex).
 * Stops early, without error, at a non-number where a point should begin. */
static nsc_status read_ascii(cursor *c, plot *pl, nsc_waves *W, double *row, nsc_report *r)
{
    for (int i = 0; pl->npoint <= 0 || i < pl->npoint; i++) { /* count 0: until the data ends */
        for (int k = -1; k < pl->nvar; k++) {
            const char *p = c->p;
            while (p < c->end && isspace((unsigned char)*p)) {
                if (*p == '\n') c->line++;
                p++;
            }
            if (p == c->end) {
                if (pl->npoint > 0 && i < pl->npoint) pl->truncated = 1;
                if (k == -1) {
                    c->p = p;
                    return NSC_OK;
                } /* truncated: complete points kept */
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
                if (q == buf || *q) return NSC_OK; /* next plot's header */
            } else if (pl->complex_) {             /* "re,im" */
                char *q2;
                row[2 * k] = x;
                row[2 * k + 1] = *q == ',' ? strtod(q + 1, &q2) : 0;
                if (q == buf || *q != ',' || q2 == q + 1 || *q2)
                    return bad(c, r, "bad complex number in the Values section");
            } else {
                if (q == buf || (*q && *q != ','))
                    return bad(c, r, "bad number in the Values section");
                row[k] = x;
            }
            c->p = p + n;
        }
        if (W && add_point(pl, W, row, row + 2 * (size_t)pl->nvar)) return nsc_oom(r);
    }
    return NSC_OK;
}

static nsc_status no_plot(const char *path, int scale, const char *seen, nsc_report *r)
{
    return nsc_err(r, NSC_EIO, NULL, "%s: no %s plot; plots: %s", path,
                   scale < 0 ? "transient, AC or DC sweep (real values against time, complex "
                               "against frequency, real against a swept value)"
                   : scale == NSC_SCALE_TIME ? "transient (real values against time)"
                   : scale == NSC_SCALE_FREQ ? "AC (complex values against frequency)"
                                             : "DC sweep (real values against a swept value)",
                   seen ? seen : "none");
}

/* What scan has read so far: the title, the names of the plots passed over,
 * the table of the plot it keeps (W) and its scale (got), the row buffer. */
typedef struct scanned {
    char *title, *seen;
    double *row;
    nsc_waves *W;
    int binary, nplot, got;
} scanned;

/* A Values: or Binary: section of plot pl (line b): read into a new table when
 * its scale is `scale`, else read past with its name added to S->seen. */
static nsc_status values(cursor *c, plot *pl, const char *b, int scale, scanned *S,
                         nsc_wfinfo *info, nsc_report *r)
{
    S->binary = tolower((unsigned char)*b) == 'b';
    if (!pl->var) return bad(c, r, "values before the Variables list");
    S->nplot++;
    int ps = plot_scale(pl);
    if (ps >= 0 && ps == scale) {
        S->got = ps;
        S->W = plot_table(pl, S->title ? S->title : "");
        S->row = nsc_calloc(4 * (size_t)pl->nvar, sizeof(double)); /* (re, im) pairs; the AC row */
        if (!S->W || !S->row) return nsc_oom(r);
    } else {
        char *ns = nsc_asprintf("%s%s'%s'", S->seen ? S->seen : "", S->seen ? ", " : "",
                                pl->name ? pl->name : "?");
        free(S->seen);
        if (!(S->seen = ns)) return nsc_oom(r);
    }
    if (!S->row) S->row = nsc_calloc(4 * (size_t)pl->nvar, sizeof(double));
    if (!S->row) return nsc_oom(r);
    nsc_status s = S->binary ? read_binary(c, pl, S->W, S->row, r)
                             : read_ascii(c, pl, S->W, S->row, r);
    if (S->W && pl->truncated && info) info->incomplete = 1;
    if (!S->W) {
        free(S->row);
        S->row = NULL;
    }
    return s;
}

/* One header line b..e of the file: the plot's title, name, flags, counts,
 * variables, or a values section (values()); lines it ignores; an error for
 * anything else. */
static nsc_status header_line(cursor *c, plot *pl, const char *b, const char *e, int scale,
                              scanned *S, nsc_wfinfo *info, nsc_report *r)
{
    const char *v, *tb, *te;
    if (keyed(b, e, "title:", &v)) {
        free(S->title);
        return (S->title = nsc_strndup(v, (size_t)(e - v))) ? NSC_OK : nsc_oom(r);
    }
    if (keyed(b, e, "plotname:", &v)) {
        plot_clear(pl);
        return (pl->name = nsc_strndup(v, (size_t)(e - v))) ? NSC_OK : nsc_oom(r);
    }
    if (keyed(b, e, "flags:", &v)) {
        while (token(&v, e, &tb, &te))
            if (te - tb == 7 && !strncmp(tb, "complex", 7)) pl->complex_ = 1;
        return NSC_OK;
    }
    if (keyed(b, e, "no. variables:", &v))
        return pl->var ? bad(c, r, "No. Variables: after the Variables list")
                       : count(c, v, e, 1, &pl->nvar, r);
    if (keyed(b, e, "no. points:", &v)) return count(c, v, e, 0, &pl->npoint, r);
    if (keyed(b, e, "variables:", &v))
        return pl->var ? bad(c, r, "a second Variables list in one plot")
                       : read_vars(c, v, e, pl, r);
    if (keyed(b, e, "values:", &v) || keyed(b, e, "binary:", &v))
        return values(c, pl, b, scale, S, info, r);
    if (keyed(b, e, "date:", &v) || keyed(b, e, "dimensions:", &v) || keyed(b, e, "command:", &v)
        || keyed(b, e, "option:", &v))
        return NSC_OK;
    const char *q = b;
    return token(&q, e, &tb, &te) ? bad(c, r, "unexpected line") : NSC_OK;
}

/* The first plot of scale `scale` (NSC_SCALE_*; -1 none: the error listing
 * the plots) into *out; with none_ok, a file without such a plot is NSC_OK and
 * *out NULL. */
static nsc_status scan(const char *path, const char *data, size_t len, int scale, int none_ok,
                       nsc_waves **out, nsc_wfinfo *info, nsc_report *r)
{
    *out = NULL;
    cursor c = { data, data + len, 0, path };
    plot pl = { 0 };
    scanned S = { NULL, NULL, NULL, NULL, 0, 0, -1 };
    nsc_status s = NSC_OK;
    const char *b, *e;
    while (!s && !S.W && next_line(&c, &b, &e)) s = header_line(&c, &pl, b, e, scale, &S, info, r);
    if (!s && !S.W && !(none_ok && S.nplot > 0)) {
        if (S.nplot == 0)
            s = nsc_err(r, NSC_EIO, NULL, "%s: no data (no Values: or Binary: section)", path);
        else s = no_plot(path, scale, S.seen, r);
    }
    if (s) {
        nsc_waves_free(S.W);
        S.W = NULL;
    } else if (info && S.W) {
        info->kind = S.binary ? NSC_WF_RAWBIN : NSC_WF_RAW;
        info->named = 1;
        info->scale = S.got;
    }
    *out = S.W;
    plot_clear(&pl);
    free(S.title);
    free(S.seen);
    free(S.row);
    return s;
}

nsc_status nsc_read_raw_scale(const char *path, const char *data, size_t len, int scale,
                              nsc_waves **out, nsc_wfinfo *info, nsc_report *r)
{
    if (scale >= 0) return scan(path, data, len, scale, 0, out, info, r);
    for (int want = NSC_SCALE_TIME; want <= NSC_SCALE_SWEEP; want++) { /* a transient first */
        nsc_status s = scan(path, data, len, want, 1, out, info, r);
        if (s || *out) return s;
    }
    return scan(path, data, len, -1, 0, out, info, r);
}

nsc_status nsc_read_raw(const char *path, const char *data, size_t len, nsc_waves **out,
                        nsc_wfinfo *info, nsc_report *r)
{
    return nsc_read_raw_scale(path, data, len, -1, out, info, r);
}
