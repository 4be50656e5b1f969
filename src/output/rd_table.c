/* rd_table.c -- text tables (nscircuit .dat/.csv, ngspice wrdata) -> nsc_waves,
 * and the entry point that picks the reader by content. */
#include "rd.h"
#include "cmp.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

nsc_status nsc_read_file(const char *path, char **data, size_t *len, nsc_report *r)
{
    *data = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return nsc_err(r, NSC_EIO, NULL, "cannot read '%s': %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0, k;
    char *buf = malloc(cap + 1);
    while (buf && (k = fread(buf + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            char *nb = cap < ((size_t)1 << 40) ? realloc(buf, 2 * cap + 1) : NULL;
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    int err = ferror(f), e = errno;
    fclose(f);
    if (!buf) return nsc_err(r, NSC_ENOMEM, NULL, "out of memory reading '%s'", path);
    if (err) {
        free(buf);
        return nsc_err(r, NSC_EIO, NULL, "cannot read '%s': %s", path, strerror(e));
    }
    buf[n] = 0;
    *data = buf;
    *len = n;
    return NSC_OK;
}

/* Fields of one line: separated by blanks, or by ',' / ';' outside parentheses
 * (so v(a,b) is one name); a field that begins with '"' is quoted as RFC 4180
 * has it (a CSV header's "v(p,n)", "" a quote inside) and ends at its closing
 * quote. Returns the count, fields [b[k], e[k]) (quotes included: unquote). */
static int split(const char *p, const char *end, const char **b, const char **e, int cap)
{
    int n = 0;
    while (p < end) {
        while (p < end && (isspace((unsigned char)*p) || *p == ',' || *p == ';')) p++;
        if (p == end) break;
        const char *s = p;
        int depth = 0;
        if (*p == '"') { /* quoted: to the closing quote */
            for (p++; p < end; p++)
                if (*p == '"' && p + 1 < end && p[1] == '"') p++; /* "" */
                else if (*p == '"') {
                    p++;
                    break;
                }
        } else
            for (; p < end && !isspace((unsigned char)*p); p++) {
                if (*p == '(') depth++;
                else if (*p == ')') depth--;
                else if ((*p == ',' || *p == ';') && depth <= 0) break;
            }
        if (n < cap) {
            b[n] = s;
            e[n] = p;
        }
        n++;
    }
    return n;
}

/* The field [b, e) without its RFC 4180 quotes ("" -> "): malloc'd, NULL ENOMEM. */
static char *unquote(const char *b, const char *e)
{
    if (e - b < 2 || *b != '"' || e[-1] != '"') return nsc_strndup(b, (size_t)(e - b));
    char *t = malloc((size_t)(e - b)), *q = t;
    for (const char *p = b + 1; t && p < e - 1; p++) {
        *q++ = *p;
        if (*p == '"' && p + 1 < e - 1 && p[1] == '"') p++;
    }
    if (t) *q = 0;
    return t;
}

static int is_number(const char *b, const char *e, double *x)
{
    char buf[128];
    size_t n = (size_t)(e - b);
    if (n == 0 || n >= sizeof buf) return 0;
    memcpy(buf, b, n);
    buf[n] = 0;
    char *q;
    *x = strtod(buf, &q);
    return *q == 0 && q != buf;
}

/* The notes nscircuit writes when a run did not complete: a line "# interrupted
 * at ..." or "# stopped ..." in a table, "[interrupted at" / "[stopped" in a raw
 * file's Title (out_dat.c, out_raw.c). */
static int has(const char *p, size_t n, const char *what)
{
    size_t m = strlen(what);
    for (size_t k = 0; k + m <= n; k++)
        if (!memcmp(p + k, what, m)) return 1;
    return 0;
}

/* A growable row-major table of numbers, nc columns. */
typedef struct grid {
    int nc, nrow, cap;
    double *v;
} grid;

static int grid_add(grid *g, const double *row)
{
    if (g->nrow == g->cap) {
        int nc = g->cap ? 2 * g->cap : 1024;
        double *v = nc > 0 ? nsc_realloc_array(g->v, (size_t)nc * (size_t)g->nc, sizeof(double))
                           : NULL;
        if (!v) return -1;
        g->v = v;
        g->cap = nc;
    }
    memcpy(g->v + (size_t)g->nrow * g->nc, row, (size_t)g->nc * sizeof(double));
    g->nrow++;
    return 0;
}

/* wrdata pairs: an even number (>= 4) of columns whose even ones all hold time */
static int is_pairs(const grid *T, char **hdr, int nh)
{
    int nc = T->nc;
    if (nc < 4 || nc % 2) return 0;
    if (nh == nc) {
        for (int k = 2; k < nc; k += 2)
            if (!nsc_strieq(hdr[k], hdr[0])) return 0;
        return 1;
    }
    for (int i = 0; i < T->nrow; i++)
        for (int k = 2; k < nc; k += 2)
            if (T->v[(size_t)i * nc + k] != T->v[(size_t)i * nc]) return 0;
    return T->nrow > 0;
}

enum { MAXF = 4096 };

/* A table being read: the fields of the current line (fb/fe, MAXF each), the
 * names (the first non-numeric line, else the first comment line), the rows. */
typedef struct tread {
    const char *path;
    const char **fb, **fe;
    char **hdr;
    int nh, hdr_comment;
    int degrees; /* a comment says "phases in degrees" (nscircuit's AC .dat) */
    int want;    /* NSC_SCALE_* asked for (the other file's), -1 none */
    int commas;  /* a line has a comma (a CSV: not ngspice's wrdata) */
    grid T;      /* the columns as in the file */
    double *row; /* [T.nc] */
    nsc_report *r;
} tread;

/* Line `line`'s n fields, not numbers: a header (kept when it is the names). */
static nsc_status header_line(tread *R, int line, int n, int comment, int numeric)
{
    if (comment && (R->hdr || R->T.nc || n < 2 || numeric)) return NSC_OK;
    if (!comment && (R->T.nc || (R->hdr && !R->hdr_comment)))
        return nsc_err(R->r, NSC_EIO, NULL, "%s:%d: not a number: '%.*s'", R->path, line,
                       (int)(R->fe[0] - R->fb[0]), R->fb[0]);
    for (int k = 0; k < R->nh; k++) free(R->hdr[k]);
    free(R->hdr);
    R->nh = 0;
    R->hdr_comment = comment;
    if (!(R->hdr = nsc_calloc((size_t)n, sizeof *R->hdr))) return nsc_oom(R->r);
    for (; R->nh < n; R->nh++)
        if (!(R->hdr[R->nh] = unquote(R->fb[R->nh], R->fe[R->nh]))) return nsc_oom(R->r);
    return NSC_OK;
}

/* May column k hold -inf? In an AC table (column 0 named frequency) a dB
 * column (vdb(x), idb(x), db(x)): a zero magnitude, as nscircuit's .dat writes
 * a node without AC signal (a DC supply). */
static int minus_inf_ok(const tread *R, int k, double x)
{
    if (!(isinf(x) && x < 0) || k == 0 || R->nh != R->T.nc
        || nsc_scale_of_name(R->hdr[0]) != NSC_SCALE_FREQ)
        return 0;
    return nsc_signame_ac(R->hdr[k]) == NSC_AC_DB;
}

/* Line `line`'s n fields, numbers: a row (every row as many as the first,
 * finite but for minus_inf_ok and a signal's NaN: a value the run could not
 * give, e.g. a ratio by a zero current; cmp.c names it; the scale, column 1,
 * always finite). */
static nsc_status number_line(tread *R, int line, int n)
{
    if (!R->T.nc) {
        if (n < 2)
            return nsc_err(R->r, NSC_EIO, NULL, "%s:%d: need a time column and at least one signal",
                           R->path, line);
        R->T.nc = n;
        if (!(R->row = nsc_calloc((size_t)n, sizeof *R->row))) return nsc_oom(R->r);
    }
    if (n != R->T.nc)
        return nsc_err(R->r, NSC_EIO, NULL, "%s:%d: %d columns, the first row has %d", R->path,
                       line, n, R->T.nc);
    for (int k = 0; k < n; k++)
        if (!is_number(R->fb[k], R->fe[k], &R->row[k])
            || !(isfinite(R->row[k]) || (k > 0 && isnan(R->row[k]))
                 || minus_inf_ok(R, k, R->row[k])))
            return nsc_err(R->r, NSC_EIO, NULL, "%s:%d: column %d: not a finite number: '%.*s'",
                           R->path, line, k + 1, (int)(R->fe[k] - R->fb[k]), R->fb[k]);
    return grid_add(&R->T, R->row) ? nsc_oom(R->r) : NSC_OK;
}

/* Every line of data[0..len): comments, the names, the rows. */
static nsc_status read_lines(tread *R, const char *data, size_t len)
{
    const char *p = data, *end = data + len;
    nsc_status s = NSC_OK;
    for (int line = 1; !s && p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end, *b = p;
        p = nl ? nl + 1 : end;
        while (b < e && isspace((unsigned char)*b)) b++;
        if (b == e) continue;
        int comment = *b == '#' || *b == '*' || *b == ';' || *b == '%';
        if (comment) b++;
        if (comment && has(b, (size_t)(e - b), "phases in degrees")) R->degrees = 1;
        if (!comment && memchr(b, ',', (size_t)(e - b))) R->commas = 1;
        int n = split(b, e, R->fb, R->fe, MAXF);
        if (n > MAXF)
            return nsc_err(R->r, NSC_EIO, NULL, "%s:%d: more than %d columns", R->path, line, MAXF);
        double x;
        int numeric = n > 0 && is_number(R->fb[0], R->fe[0], &x);
        s = comment || !numeric ? header_line(R, line, n, comment, numeric)
                                : number_line(R, line, n);
    }
    if (!s && R->T.nrow == 0)
        s = nsc_err(R->r, NSC_EIO, NULL, "%s: no rows of numbers (not a waveform table?)", R->path);
    return s;
}

/* The scale of column 0 named first, given the scale asked for (want): a name
 * that is neither time nor frequency nor a sweep's ("v-sweep", "v(v-sweep)")
 * -- "t", "x" -- is a transient when a transient is asked for, as every
 * table was before AC and DC outputs were told apart. AC is never guessed (its
 * phases' unit hangs on it). */
static int scale_wanted(const char *first, int want)
{
    int sc = nsc_scale_of_name(first);
    if (sc == NSC_SCALE_SWEEP && want == NSC_SCALE_TIME && !strstr(first, "sweep"))
        return NSC_SCALE_TIME;
    return sc;
}

/* Every phase column (vp/ip/ph) of W within [-pi, pi], atan2's range? */
static int phases_within_pi(const nsc_waves *W)
{
    for (int c = 1; c < W->ncol; c++)
        for (int i = 0; nsc_signame_ac(W->name[c]) == NSC_AC_PHASE && i < W->nrow; i++)
            if (!(fabs(W->v[(size_t)i * W->ncol + c]) <= 3.14159265358979323846 * (1 + 1e-9)))
                return 0;
    return 1;
}

void nsc_waves_ac_degrees(nsc_waves *W)
{
    if (!phases_within_pi(W)) return; /* (a phase beyond pi: degrees already) */
    for (int c = 1; c < W->ncol; c++)
        if (nsc_signame_ac(W->name[c]) == NSC_AC_PHASE)
            for (int i = 0; i < W->nrow; i++)
                W->v[(size_t)i * W->ncol + c] *= 180 / 3.14159265358979323846;
}

/* Column 0's name and scale: from its name (scale_wanted), or for a table
 * without names the scale asked for when it is AC or a sweep (ngspice's
 * wrdata without wr_vecnames), else a transient. An AC table's phases may be
 * radians -- ngspice's wrdata of vp(x): blank-separated, without nscircuit's
 * .dat comment "phases in degrees" -- and then are converted to degrees, as
 * every AC table compared holds them (nsc_waves_ac_degrees; an unnamed table
 * once its columns are named: info->radians). */
static nsc_status set_scale(tread *R, nsc_waves *W, int named, nsc_wfinfo *info)
{
    int scale = named ? scale_wanted(R->hdr[0], R->want)
                : R->want == NSC_SCALE_FREQ || R->want == NSC_SCALE_SWEEP ? R->want
                                                                          : NSC_SCALE_TIME;
    int may_radians = scale == NSC_SCALE_FREQ && !R->degrees && !R->commas;
    if (info) {
        info->scale = scale;
        info->radians = may_radians && !named;
    }
    if (scale != NSC_SCALE_TIME) {
        char *nm = named ? nsc_strdup(R->hdr[0])
                         : nsc_strdup(scale == NSC_SCALE_FREQ ? "frequency" : "sweep");
        if (!nm) return nsc_oom(R->r);
        nsc_strlower(nm);
        free(W->name[0]);
        W->name[0] = nm;
    }
    if (may_radians && named) nsc_waves_ac_degrees(W);
    return NSC_OK;
}

/* The table read as nsc_waves: time (or frequency, a swept value) and one
 * column per signal (ngspice's wrdata pairs: every other column); names from
 * the header, else y1, y2, .... */
static nsc_status to_waves(tread *R, nsc_waves **out, nsc_wfinfo *info)
{
    int named = R->nh == R->T.nc;
    int pairs = is_pairs(&R->T, named ? R->hdr : NULL, named ? R->nh : 0);
    int nsig = pairs ? R->T.nc / 2 : R->T.nc - 1;
    char **names = nsc_calloc((size_t)nsig, sizeof *names);
    nsc_waves *W = NULL;
    nsc_status s = names ? NSC_OK : nsc_oom(R->r);
    for (int j = 0; !s && j < nsig; j++) {
        int col = pairs ? 2 * j + 1 : j + 1;
        names[j] = named ? nsc_strdup(R->hdr[col]) : nsc_asprintf("y%d", j + 1);
        if (!names[j]) s = nsc_oom(R->r);
    }
    if (!s && !(W = nsc_waves_new(names, nsig, ""))) s = nsc_oom(R->r);
    for (int i = 0; !s && i < R->T.nrow; i++) {
        const double *src = R->T.v + (size_t)i * R->T.nc;
        R->row[0] = src[0];
        for (int j = 0; j < nsig; j++) R->row[j + 1] = src[pairs ? 2 * j + 1 : j + 1];
        if (nsc_waves_add(W, R->row)) s = nsc_oom(R->r);
    }
    if (!s && info) {
        info->kind = pairs ? NSC_WF_WRDATA : NSC_WF_TABLE;
        info->named = named;
    }
    if (!s) s = set_scale(R, W, named, info);
    for (int j = 0; names && j < nsig; j++) free(names[j]);
    free(names);
    if (s) {
        nsc_waves_free(W);
        W = NULL;
    }
    *out = W;
    return s;
}

/* nsc_read_table with the scale asked for (want, NSC_SCALE_* or -1: scale_wanted) */
static nsc_status read_table_scale(const char *path, const char *data, size_t len, int want,
                                   nsc_waves **out, nsc_wfinfo *info, nsc_report *r)
{
    *out = NULL;
    tread R = { path, NULL, NULL, NULL, 0, 0, 0, want, 0, { 0, 0, 0, NULL }, NULL, r };
    R.fb = malloc(2 * MAXF * sizeof *R.fb);
    if (!R.fb) return nsc_oom(r);
    R.fe = R.fb + MAXF;
    nsc_status s = read_lines(&R, data, len);
    if (!s) s = to_waves(&R, out, info);
    for (int k = 0; k < R.nh; k++) free(R.hdr[k]);
    free(R.hdr);
    free(R.T.v);
    free(R.row);
    free(R.fb);
    return s;
}

nsc_status nsc_read_table(const char *path, const char *data, size_t len, nsc_waves **out,
                          nsc_wfinfo *info, nsc_report *r)
{
    return read_table_scale(path, data, len, -1, out, info, r);
}

static int end_marked(const char *data, size_t len)
{
    const char *p = data, *end = data + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;
        size_t n = (size_t)(e - p);
        if ((n >= 13 && !strncmp(p, "# interrupted", 13))
            || (n >= 9 && !strncmp(p, "# stopped", 9)))
            return 1;
        if (n >= 6 && !strncasecmp(p, "title:", 6)
            && (has(p, n, "[interrupted at") || has(p, n, "[stopped")))
            return 1;
        if (n && (isdigit((unsigned char)*p) || strchr("+-.", *p))) break; /* the rows begin */
        if ((n >= 7 && !strncasecmp(p, "values:", 7)) || (n >= 7 && !strncasecmp(p, "binary:", 7)))
            break;
        if (!nl) break;
        p = nl + 1;
    }
    return 0;
}

nsc_status nsc_read_waves(const char *path, nsc_waves **out, nsc_wfinfo *info, nsc_report *r)
{
    return nsc_read_waves_scale(path, -1, out, info, r);
}

nsc_status nsc_read_waves_scale(const char *path, int scale, nsc_waves **out, nsc_wfinfo *info,
                                nsc_report *r)
{
    char *data;
    size_t len;
    *out = NULL;
    nsc_status s = nsc_read_file(path, &data, &len, r);
    if (s) return s;
    const char *p = data;
    nsc_wfinfo local;
    if (!info) info = &local;
    memset(info, 0, sizeof *info);
    while (p < data + len && isspace((unsigned char)*p)) p++;
    if (!strncasecmp(p, "title:", 6) || !strncasecmp(p, "plotname:", 9))
        s = nsc_read_raw_scale(path, data, len, scale, out, info, r);
    else s = read_table_scale(path, data, len, scale, out, info, r);
    if (!s && end_marked(data, len)) info->incomplete = 1;
    free(data);
    return s;
}
