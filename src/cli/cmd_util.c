/* cmd_util.c -- what the program's commands (main.c, cmd_*.c) share: option
 * values and the printing of a library report. */
#define _DEFAULT_SOURCE /* realpath */
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cmd.h"
#include "netlist/netlist.h"
#include "solve/la_dense.h"

int nsc_opt_number(const char *s, double *v)
{
    return nsc_parse_number(s, v) && isfinite(*v);
}

int nsc_run_option(nsc_run_cfg *cfg, int c, const char *arg, const char *cmd)
{
    switch (c) {
    case NSC_RUNOPT_STEP:
        if (!nsc_opt_number(arg, &cfg->step) || cfg->step <= 0)
            return nsc_usage_error(cmd, "--step needs a positive time, not '%s'", arg);
        break;
    case NSC_RUNOPT_TSTOP:
        if (!nsc_opt_number(arg, &cfg->tstop) || cfg->tstop <= 0)
            return nsc_usage_error(cmd, "--tstop needs a positive time, not '%s'", arg);
        break;
    case NSC_RUNOPT_THETA:
        if (!nsc_opt_number(arg, &cfg->theta) || cfg->theta < 0.5 || cfg->theta > 1)
            return nsc_usage_error(cmd, "--theta must be in [0.5, 1], not '%s'", arg);
        break;
    case NSC_RUNOPT_SOLVER:
        if (nsc_solver_parse(arg) < 0)
            return nsc_usage_error(cmd, "unknown solver '%s' (auto, lemke, enum)", arg);
        cfg->solver = arg;
        break;
    case NSC_RUNOPT_SAVE: cfg->save = arg; break;
    case NSC_RUNOPT_STEADY: cfg->steady = 1; break;
    case NSC_RUNOPT_PERIOD:
        if (!nsc_opt_number(arg, &cfg->period) || !(cfg->period > 0) || !isfinite(cfg->period))
            return nsc_usage_error(cmd, "--period needs a positive time, not '%s'", arg);
        if (cfg->period < NSC_PERIOD_MIN)
            return nsc_usage_error(
                cmd,
                "--period %s is shorter than the shortest period nscircuit's steps resolve "
                "(1e-90 s)",
                arg);
        cfg->steady = 1;
        break;
    }
    return -1;
}

void nsc_print_report(const nsc_report *r)
{
    for (int k = 0; k < r->nwarn; k++) fprintf(stderr, "%s\n", r->warn[k]);
    if (r->error) fprintf(stderr, "%s\n", r->error);
    const char *e = r->error ? nsc_dense_load_error() : NULL;
    if (e) fprintf(stderr, "nscircuit: note: LAPACK/BLAS not used (%s)\n", e);
}

void nsc_flush_warnings(nsc_report *r, int quiet)
{
    for (int k = 0; k < r->nwarn; k++) {
        if (!quiet || !strstr(r->warn[k], ": note: ")) fprintf(stderr, "%s\n", r->warn[k]);
        free(r->warn[k]);
    }
    r->nwarn = 0;
}

nsc_status nsc_stdout_status(nsc_report *r)
{
    return nsc_stream_status(stdout, "standard output", r);
}

int nsc_usage_error(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: error: ", cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry '%s --help'.\n", cmd);
    return 2;
}

/* ---- include search path ---- */

#ifndef NSC_MODELDIR
#define NSC_MODELDIR ""
#endif

/* The source tree's models/ when this program is the build tree's (not
 * installed: the installed models may be missing or older), else "". */
static const char *source_models(void)
{
#if defined(NSC_SRC_MODELDIR) && defined(NSC_BUILD_PROGRAM)
    char *self = realpath("/proc/self/exe", NULL), *built = realpath(NSC_BUILD_PROGRAM, NULL);
    int same = self && built && !strcmp(self, built);
    free(self);
    free(built);
    return same ? NSC_SRC_MODELDIR : "";
#else
    return "";
#endif
}

int nsc_search_add(nsc_search_buf *b, const char *dir)
{
    const char **d = realloc(b->dirs, sizeof *d * (size_t)(b->ncli + 1));
    if (!d) return -1;
    b->dirs = d;
    d[b->ncli++] = dir;
    return 0;
}

const nsc_search_path *nsc_search_finish(nsc_search_buf *b)
{
    const char *env = getenv("NSCIRCUIT_PATH");
    int n = b->ncli;
    if (env && !(b->env = strdup(env))) return NULL;
    size_t extra = 3; /* the models dirs, slack */
    for (const char *s = env; s && *s; s++) extra += *s == ':';
    const char **d = realloc(b->dirs, sizeof *d * ((size_t)n + extra + 1));
    if (!d) return NULL;
    b->dirs = d;
    char *save = NULL;
    if (b->env) /* empty entries are skipped */
        for (char *t = strtok_r(b->env, ":", &save); t; t = strtok_r(NULL, ":", &save)) d[n++] = t;
    const char *src = source_models();
    if (src[0]) d[n++] = src; /* before the installed ones */
    if (NSC_MODELDIR[0]) d[n++] = NSC_MODELDIR;
    b->path.dir = d;
    b->path.ndir = n;
    return &b->path;
}

void nsc_search_free(nsc_search_buf *b)
{
    free(b->dirs);
    free(b->env);
    memset(b, 0, sizeof *b);
}

/* The heap in transparent huge pages. A run's memory is mostly the problem
 * cache's factorisations and work arrays (~10 MB for the 15-inverter cascade),
 * allocated once and touched at once; in 4 KiB pages each first touch is a page
 * fault (2 900 of them in that run, at 5-10 us each on a virtual machine: a third
 * of its processor time), in 2 MiB pages a few. So the main arena's first
 * growth is NSC_HEAP_PAD (M_TOP_PAD; blocks up to that size come from the heap,
 * not from mmap) and that span is marked MADV_HUGEPAGE, the way glibc's own
 * glibc.malloc.hugetlb=1 tunable marks each growth. Then the pad is glibc's
 * default again, so an address-space limit (`ulimit -v`) is met as late as
 * without this (where even the first growth does not fit, it is skipped), and
 * the top chunk is never trimmed (M_TRIM_THRESHOLD twice the pad). The heap's
 * start is not 2 MiB-aligned: the span below the first boundary (up to 2 MiB,
 * 450 faults on average) is held by one block never written (heap_filler), so
 * that the run's blocks start in huge pages. Growth past the first span gets
 * ordinary pages. Where the kernel has no transparent huge pages (or they are
 * "never") madvise fails and nothing changes but the padding; the values stored
 * are the same either way. Under an address-space limit (`ulimit -v`) nothing is
 * set: a run that fills it must still write its rows and its note (test
 * e2e/out_of_memory_mid_run_is_marked failed one run in two with the heap kept
 * untrimmed). The process's own choice: the library never sets malloc's
 * options. */
#define NSC_HEAP_PAD (32u << 20)
static void *volatile heap_filler; /* (volatile: a store nothing reads is otherwise dropped) */
void nsc_heap_hugepages(void)
{
#if defined(M_TOP_PAD) && defined(MADV_HUGEPAGE)
    struct rlimit as;
    if (getrlimit(RLIMIT_AS, &as) || as.rlim_cur != RLIM_INFINITY) return; /* (below) */
    if (!mallopt(M_TOP_PAD, (int)NSC_HEAP_PAD) || !mallopt(M_MMAP_THRESHOLD, (int)NSC_HEAP_PAD)
        || !mallopt(M_TRIM_THRESHOLD, 2 * (int)NSC_HEAP_PAD))
        return;
    char *lo = sbrk(0);
    char *volatile p = malloc(1 << 20); /* past the first top chunk: grows by the pad */
    char *hi = sbrk(0);
    uintptr_t huge = (uintptr_t)2 << 20, at = (uintptr_t)p;
    free(p);                       /* into the top chunk, kept (below M_TRIM_THRESHOLD) */
    mallopt(M_TOP_PAD, 128 << 10); /* later growth by what is asked, as glibc's default */
    if (!p || lo == (char *)-1 || hi == (char *)-1 || hi <= lo || at < (uintptr_t)lo) return;
    uintptr_t a = ((uintptr_t)lo + huge - 1) & ~(huge - 1), b = (uintptr_t)hi & ~(huge - 1);
    if (b <= a || madvise((void *)a, b - a, MADV_HUGEPAGE)) return;
    if (a > at) heap_filler = malloc(a - at); /* from the top chunk, at p: ends near a */
#endif
}
