/* cmd_util.c -- what the program's commands (main.c, cmd_*.c) share: option
 * values and the printing of a library report. */
#define _DEFAULT_SOURCE                       /* realpath */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "netlist/netlist.h"

int nsc_opt_number(const char *s, double *v)
{
    return nsc_parse_number(s, v) && isfinite(*v);
}

void nsc_print_report(const nsc_report *r)
{
    for (int k = 0; k < r->nwarn; k++) fprintf(stderr, "%s\n", r->warn[k]);
    if (r->error) fprintf(stderr, "%s\n", r->error);
}

void nsc_flush_warnings(nsc_report *r, int quiet)
{
    for (int k = 0; k < r->nwarn; k++) {
        if (!quiet || !strstr(r->warn[k], ": note: ")) fprintf(stderr, "%s\n", r->warn[k]);
        free(r->warn[k]);
    }
    r->nwarn = 0;
}

int nsc_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

const char *nsc_output_is_input(char *const *out, int nout, char *const *in, int nin)
{
    for (int i = 0; i < nout; i++)
        for (int j = 0; j < nin; j++)
            if (nsc_same_file(out[i], in[j])) return out[i];
    return NULL;
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
#ifndef NSC_TREE_MODELDIR
#define NSC_TREE_MODELDIR ""
#define NSC_TREE_BUILDDIR ""
#endif

/* The source tree's models/ when this program is the one its build tree made
 * (its directory is the configured build directory): `.include diodes.lib`
 * works in a clone before `make install`. NULL otherwise. */
static const char *tree_models(void)
{
    static char exe[PATH_MAX], top[PATH_MAX];
    if (!NSC_TREE_MODELDIR[0] || !realpath("/proc/self/exe", exe) || !realpath(NSC_TREE_BUILDDIR, top)) return NULL;
    char *slash = strrchr(exe, '/');
    if (!slash) return NULL;
    *slash = 0;
    struct stat sb;
    return strcmp(exe, top) == 0 && stat(NSC_TREE_MODELDIR, &sb) == 0 && S_ISDIR(sb.st_mode) ? NSC_TREE_MODELDIR : NULL;
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
    size_t extra = 3;                                  /* the models dirs, slack */
    for (const char *s = env; s && *s; s++) extra += *s == ':';
    const char **d = realloc(b->dirs, sizeof *d * ((size_t)n + extra + 1));
    if (!d) return NULL;
    b->dirs = d;
    char *save = NULL;
    if (b->env)                                        /* empty entries are skipped */
        for (char *t = strtok_r(b->env, ":", &save); t; t = strtok_r(NULL, ":", &save)) d[n++] = t;
    const char *tree = tree_models();
    if (tree) d[n++] = tree;                           /* before an older installed copy */
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
