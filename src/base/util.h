/* util.h -- status codes, diagnostics (errors and warnings), allocation helpers.
 *
 * Library code never prints and never exits: every stage takes an nsc_report*
 * and records at most one error (the first) and any number of warnings.
 * The program (main.c) decides what the user sees. */
#ifndef NSC_UTIL_H
#define NSC_UTIL_H

#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

/* Status codes; the numeric values are the program's exit statuses. */
typedef enum nsc_status {
    NSC_OK = 0,
    NSC_ENETLIST = 1, /* parse / elaboration / ill-posed circuit: file:line:col */
    NSC_EUSAGE = 2,   /* bad command line */
    NSC_ESIM = 3,     /* simulation failure: time, devices, residual */
    NSC_ENOMEM = 4,   /* out of memory (reported with exit status 3 by main) */
    NSC_EIO = 5,      /* cannot read an input file (exit status 1 by main) */
    NSC_EOUT = 6      /* an output could not be written (exit status 4, cli.md) */
} nsc_status;

/* A source position. file points into an interned string owned by the deck
 * (lives as long as the nsc_deck / nsc_circuit); line and col are 1-based;
 * line == 0 means "no position". */
typedef struct nsc_loc {
    const char *file;
    int line, col;
} nsc_loc;

/* Diagnostics collected by the library. error is a complete message line
 * without trailing newline, e.g. "rect.cir:12:5: error: unknown model 'DX' for diode D3". */
typedef struct nsc_report {
    nsc_status status; /* NSC_OK until the first error */
    char *error;       /* first error message (malloc'd) or NULL */
    char **warn;       /* warning lines "file:line:col: warning: ..." (malloc'd) */
    int nwarn, capwarn;
} nsc_report;

void nsc_report_init(nsc_report *r);
void nsc_report_free(nsc_report *r);
/* r's warnings after the first n0 dropped (a pass that is made again). */
void nsc_report_trim(nsc_report *r, int n0);
/* src's warnings moved to the end of r's (src keeps none); on out of memory
 * they stay in src (the notes are lost, not the run). */
void nsc_report_take(nsc_report *r, nsc_report *src);
/* Record an error (only the first is kept; later ones are ignored).
 * With loc && loc->line > 0 the message is prefixed "file:line:col: error: ",
 * else "nscircuit: error: ". Returns st so callers can write `return nsc_err(...)`. */
nsc_status nsc_err(nsc_report *r, nsc_status st, const nsc_loc *loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* nsc_err(r, NSC_ENOMEM, NULL, "out of memory"): the one out-of-memory report. */
nsc_status nsc_oom(nsc_report *r);
/* Record a warning ("...: warning: ..."); identical messages are stored once. */
void nsc_warn(nsc_report *r, const nsc_loc *loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Same as nsc_warn but "note" instead of "warning" (e.g. ignored SPICE options). */
void nsc_note(nsc_report *r, const nsc_loc *loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Allocation: return NULL on failure (callers report NSC_ENOMEM). */
void *nsc_calloc(size_t n, size_t size);
void *nsc_realloc_array(void *p, size_t n, size_t size); /* overflow-checked realloc */
char *nsc_strdup(const char *s);
char *nsc_strndup(const char *s, size_t n);
char *nsc_strlower(char *s);                  /* in place; returns s */
int nsc_strieq(const char *a, const char *b); /* case-insensitive equality */
char *nsc_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Growable array helper: ensure *cap >= need, elements of size sz.
 * Returns 0 on success, -1 on allocation failure (array untouched). */
int nsc_grow(void **arr, int *cap, int need, size_t sz);

/* Union-find over 0 .. n-1: uf[x] < 0 at a root (minus the tree's size), else
 * x's parent; start with every uf[x] = -1. Path halving, union by size. */
int nsc_uf_find(int *uf, int x);
void nsc_uf_union(int *uf, int a, int b);

/* A temporary created exclusively from tmpl ("...XXXXXX", rewritten in place:
 * mkstemp, so a planted symlink is never followed), with the mode open(2) would
 * give a new file (0666 & ~umask, not mkstemp's 0600). The descriptor, or -1. */
int nsc_mkstemp(char *tmpl);

/* The template of a temporary beside path, "<path>.nsc-<host>-<pid>.XXXXXX"
 * (host: this machine's name, [A-Za-z0-9-] kept, others '_', 32 at most), so
 * that a later run can tell whose it was; new (NULL out of memory). */
char *nsc_tmp_template(const char *path);
/* Remove the temporaries of path that processes of this host left when killed
 * (SIGKILL, a crash): names of nsc_tmp_template's form whose pid is gone
 * (kill(pid, 0) fails with ESRCH), regular files of this user only, found and
 * removed relative to the directory's descriptor (no symlink followed). Other
 * hosts' temporaries (a shared disk) and live processes' are kept. Errors are
 * ignored: this only tidies. */
void nsc_reap_stale(const char *path);

/* Seconds on the monotonic clock (differences of two calls are durations). */
double nsc_now(void);
/* The part of p after its last '/'. */
const char *nsc_base_name(const char *p);
/* "dir/name.cir" -> "name" (new; NULL on ENOMEM): the file name without its
 * folder and its last extension (a leading dot is not an extension). */
char *nsc_stem(const char *path);

/* Whether v[0..n) are geometric: n >= 3 values of one sign whose ratios agree
 * and whose differences do not (a .step or --log axis: plots use a log axis). */
int nsc_geometric(const double *v, int n);

/* The next item of the comma-separated list at *p, where commas inside
 * parentheses do not separate (v(a,b), p(x)): [*a, *b), blanks kept; *p moves
 * past its comma, to NULL after the last item. 0 when *p is NULL (the list is
 * done), else 1 (an empty list is one empty item). */
int nsc_list_item(const char **p, const char **a, const char **b);

/* The first index j' >= j below m where the flags a[] and b[] differ (m if
 * none), eight at a time where they agree (a mode's active set against
 * another's). */
static inline int nsc_flags_next_diff(const char *a, const char *b, int j, int m)
{
    for (; j + 8 <= m; j += 8) {
        uint64_t u, v;
        memcpy(&u, a + j, 8);
        memcpy(&v, b + j, 8);
        if (u != v) break;
    }
    while (j < m && a[j] == b[j]) j++;
    return j;
}

#endif
