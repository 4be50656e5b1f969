/* waves.c -- the output table and the probe lists that define its columns. */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "waves.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "devices/device.h"
#include "netlist/nl_probe.h"

/* rows held in memory at most (a spilled table) */
static long nsc_waves_cap(const nsc_waves *W)
{
    return nsc_spill_cap(W->sp);
}

/* the names of cols[0..n) of W (n = 0: every column but time) into names[] */
static void for_names(const nsc_waves *W, const int *cols, int n, char **names)
{
    int m = n > 0 ? n : W->ncol - 1;
    for (int k = 0; k < m; k++) names[k] = W->name[n > 0 ? cols[k] : k + 1];
}

nsc_waves *nsc_waves_new(char *const *names, int n, const char *title)
{
    nsc_waves *W = calloc(1, sizeof *W);
    if (!W) return NULL;
    W->ncol = n + 1;
    W->name = nsc_calloc((size_t)W->ncol, sizeof(char *));
    W->title = nsc_strdup(title ? title : "");
    if (!W->name || !W->title) {
        nsc_waves_free(W);
        return NULL;
    }
    W->name[0] = nsc_strdup("time");
    for (int k = 0; k < n; k++) W->name[k + 1] = nsc_strdup(names[k]);
    for (int k = 0; k < W->ncol; k++)
        if (!W->name[k]) {
            nsc_waves_free(W);
            return NULL;
        }
    return W;
}

int nsc_waves_add(nsc_waves *W, const double *row)
{
    if (W->sp && W->nrow - W->row0 == nsc_waves_cap(W) && nsc_spill_batch(W)) return -1;
    long m = W->nrow - W->row0; /* rows in memory */
    if (m == W->caprow) {
        long nc = W->caprow ? 2L * W->caprow : 1024;
        if (W->sp && nc > nsc_waves_cap(W)) nc = nsc_waves_cap(W);
        if (nc > 0x7fffffffL || W->nrow == 0x7fffffff) return -1;
        double *v = nsc_realloc_array(W->v, (size_t)nc * (size_t)W->ncol, sizeof(double));
        if (!v) return -1;
        W->v = v;
        W->caprow = (int)nc;
    }
    memcpy(W->v + (size_t)m * W->ncol, row, (size_t)W->ncol * sizeof(double));
    W->nrow++;
    return 0;
}

void nsc_waves_reserve(nsc_waves *W, long rows)
{
    if (W->sp && rows > nsc_waves_cap(W)) rows = nsc_waves_cap(W); /* never more than the bound */
    if (rows <= W->caprow || rows > 0x7fffffffL) return;
    size_t bytes = (size_t)rows * (size_t)W->ncol * sizeof(double);
    double *v = NULL;
#ifdef MADV_HUGEPAGE
    const size_t huge = (size_t)2 << 20;
    if (bytes >= 2 * huge) { /* 2 MiB pages: 512x fewer page faults while filling */
        bytes = (bytes + huge - 1) / huge * huge;
        v = aligned_alloc(huge, bytes);
        if (v) (void)madvise(v, bytes, MADV_HUGEPAGE);
    }
#endif
    if (!v) v = malloc(bytes);
    if (!v) return; /* not fatal: nsc_waves_add grows the table */
    if (W->nrow > W->row0)
        memcpy(v, W->v, (size_t)(W->nrow - W->row0) * (size_t)W->ncol * sizeof(double));
    free(W->v);
    W->v = v;
    W->caprow = (int)rows;
}

int nsc_waves_event(nsc_waves *W, double t, const char *dev, int on)
{
    if (W->nev == W->capev) {
        int nc = W->capev ? 2 * W->capev : 64;
        if (nc < 0) return -1;
        struct nsc_event *e = nsc_realloc_array(W->ev, (size_t)nc, sizeof *e);
        if (!e) return -1;
        W->ev = e;
        W->capev = nc;
    }
    char *d = nsc_strdup(dev);
    if (!d) return -1;
    W->ev[W->nev++] = (struct nsc_event){ t, d, on };
    return 0;
}

void nsc_waves_free(nsc_waves *W)
{
    if (!W) return;
    for (int k = 0; k < W->nev; k++) free(W->ev[k].dev);
    free(W->ev);
    for (int k = 0; W->name && k < W->ncol; k++) free(W->name[k]);
    free(W->name);
    free(W->v);
    nsc_spill_free(W->sp);
    free(W->end_msg);
    free(W->title);
    free(W);
}

void nsc_waves_keep(nsc_waves *W, int ncol)
{
    if (ncol >= W->ncol || ncol < 1) return;
    for (long i = 0; i < W->nrow - W->row0; i++) /* rows move forward: no overlap issue */
        memmove(W->v + (size_t)i * ncol, W->v + (size_t)i * W->ncol, (size_t)ncol * sizeof(double));
    for (int k = ncol; k < W->ncol; k++) free(W->name[k]);
    W->ncol = ncol;
    W->caprow = (int)(W->nrow - W->row0); /* capacity in rows of the new width is at least this */
}

int nsc_waves_col(const nsc_waves *W, const char *name)
{
    for (int k = 0; k < W->ncol; k++)
        if (nsc_strieq(W->name[k], name)) return k;
    return -1;
}

void nsc_waves_probes_free(nsc_probe *p, int n)
{
    for (int k = 0; p && k < n; k++) free(p[k].name);
    free(p);
}

static nsc_status add_probe(nsc_probe **p, int *n, int *cap, nsc_probe q, nsc_report *r)
{
    if (!q.name || nsc_grow((void **)p, cap, *n + 1, sizeof **p)) {
        free(q.name);
        return nsc_oom(r);
    }
    (*p)[(*n)++] = q;
    return NSC_OK;
}

/* One item "v(a)", "v(a,b)" or "i(x)" (case-insensitive, spaces allowed). */
static nsc_status parse_item(const nsc_circuit *c, const char *s, size_t len, nsc_probe *q,
                             nsc_report *r)
{
    char *t = nsc_strndup(s, len), *u = t;
    if (!t) return nsc_oom(r);
    /* squeeze blanks, lower case */
    char *d = t;
    for (char *p = t; *p; p++)
        if (!isspace((unsigned char)*p)) *d++ = (char)tolower((unsigned char)*p);
    *d = 0;
    memset(q, 0, sizeof *q);
    size_t L = strlen(t);
    nsc_status st = NSC_OK;
    if (L >= 4 && t[0] == 'p' && t[1] == '('
        && t[L - 1] == ')') { /* a derived column of the netlist stage */
        st = nsc_err(r, NSC_EUSAGE, NULL,
                     "output '%s': a power is a column of the netlist's .save or .print "
                     "(`.save %s`), not of --save",
                     t, t);
        goto out;
    }
    if (L < 4 || (t[0] != 'v' && t[0] != 'i') || t[1] != '(' || t[L - 1] != ')') {
        st = nsc_err(r, NSC_EUSAGE, NULL,
                     "bad output '%s' (expected v(node), v(n1,n2) or i(element))", t);
        goto out;
    }
    t[L - 1] = 0;
    char *arg = t + 2, *comma = strchr(arg, ',');
    const char *bad;
    q->kind = t[0] == 'v' ? NSC_PROBE_V : NSC_PROBE_I;
    nl_probe_fail why = q->kind == NSC_PROBE_I && comma
                            ? NL_PROBE_ELEMENT
                            : nl_probe_resolve(c, q->kind, arg, 0, q, &bad);
    if (q->kind == NSC_PROBE_V) {
        if (why) {
            st = nsc_err(r, NSC_EUSAGE, NULL, "output v(%s%s%s): unknown node '%s'", arg,
                         comma ? "," : "", comma ? comma + 1 : "", bad);
            goto out;
        }
        q->name = comma ? nsc_asprintf("v(%s,%s)", arg, comma + 1) : nsc_asprintf("v(%s)", arg);
    } else {
        if (why == NL_PROBE_ELEMENT) { /* (a coupling K, without current: nsc_lcs_probe's error) */
            q->el = -1;
            st = nsc_err(r, NSC_EUSAGE, NULL, "output i(%s): unknown element '%s'", arg, arg);
            goto out;
        }
        q->name = nsc_asprintf("i(%s)", arg);
    }
    if (!q->name) st = nsc_oom(r);
out:
    free(u);
    return st;
}

nsc_status nsc_waves_probes_parse(const nsc_circuit *c, const char *list, nsc_probe **probes,
                                  int *n, nsc_report *r)
{
    *probes = NULL;
    *n = 0;
    int cap = 0;
    const char *a, *b;
    for (const char *p = list; nsc_list_item(&p, &a, &b);) {
        while (a < b && isspace((unsigned char)*a)) a++;
        if (a == b) continue;
        nsc_probe q;
        nsc_status st = parse_item(c, a, (size_t)(b - a), &q, r);
        if (!st) st = add_probe(probes, n, &cap, q, r);
        if (st) {
            nsc_waves_probes_free(*probes, *n);
            *probes = NULL;
            *n = 0;
            return st;
        }
    }
    if (*n == 0) return nsc_err(r, NSC_EUSAGE, NULL, "empty output list '%s'", list);
    return NSC_OK;
}

nsc_status nsc_waves_probes_default(const nsc_circuit *c, nsc_probe **probes, int *n, nsc_report *r)
{
    *probes = NULL;
    *n = 0;
    int cap = 0;
    nsc_status st;
    for (int k = 1; k < c->nnode; k++) {
        if (strchr(c->node_name[k], '#')) continue; /* the program's own: l1#rser */
        nsc_probe q = {
            NSC_PROBE_V, { k, 0 }, -1, nsc_asprintf("v(%s)", c->node_name[k]), c->node_loc[k]
        };
        if ((st = add_probe(probes, n, &cap, q, r))) goto fail;
    }
    for (int e = 0; e < c->nel; e++) {
        const nsc_device *d = nsc_device_of(c->el[e].kind);
        if (!d || !d->out_current) continue;
        nsc_probe q = {
            NSC_PROBE_I, { 0, 0 }, e, nsc_asprintf("i(%s)", c->el[e].name), c->el[e].loc
        };
        if ((st = add_probe(probes, n, &cap, q, r))) goto fail;
    }
    return NSC_OK;
fail:
    nsc_waves_probes_free(*probes, *n);
    *probes = NULL;
    *n = 0;
    return st;
}

nsc_waves *nsc_waves_select(const nsc_waves *W, const int *cols, int n)
{
    int m = n > 0 ? n : W->ncol - 1;
    char **names = nsc_calloc((size_t)m + 1, sizeof *names);
    double *row = nsc_calloc((size_t)m + 1, sizeof *row);
    nsc_waves *S = NULL;
    nsc_wcur cur;
    int ok = !nsc_wcur_init(&cur, W);
    if (ok && names && row) {
        for_names(W, cols, n, names);
        S = nsc_waves_new(names, m, W->title);
        if (S && nsc_waves_spill_like(S, W)) {
            nsc_waves_free(S);
            S = NULL;
        }
    }
    free(names);
    for (long i = 0; S && i < W->nrow; i++) {
        const double *src = nsc_wcur_row(&cur, i);
        row[0] = src[0];
        for (int k = 0; k < m; k++) row[k + 1] = src[n > 0 ? cols[k] : k + 1];
        if (nsc_waves_add(S, row) || cur.err) {
            nsc_waves_free(S);
            S = NULL;
        }
    }
    nsc_wcur_free(&cur);
    free(row);
    if (S) {
        S->end = W->end;
        S->t_end = W->t_end;
    }
    return S;
}
