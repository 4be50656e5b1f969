/* path.c -- file names as the file system sees them (path.h). */
#define _DEFAULT_SOURCE /* realpath */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "path.h"

int nsc_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev
           && sa.st_ino == sb.st_ino;
}

const char *nsc_output_is_input(char *const *out, int nout, char *const *in, int nin)
{
    for (int i = 0; i < nout; i++)
        for (int j = 0; j < nin; j++)
            if (nsc_same_file(out[i], in[j])) return out[i];
    return NULL;
}

char *nsc_canon_path(const char *p)
{
    char *full = realpath(p, NULL); /* an existing file */
    if (full) return full;
    const char *slash = strrchr(p, '/');
    char *dir = slash ? nsc_strndup(p, slash == p ? 1 : (size_t)(slash - p)) : nsc_strdup(".");
    const char *base = slash ? slash + 1 : p;
    char *rdir = dir ? realpath(dir, NULL) : NULL;
    char cwd[PATH_MAX];
    if (rdir) full = nsc_asprintf("%s%s%s", rdir, strcmp(rdir, "/") ? "/" : "", base);
    else if (dir && p[0] != '/' && getcwd(cwd, sizeof cwd)) full = nsc_asprintf("%s/%s", cwd, p);
    else if (dir) full = nsc_strdup(p);
    free(dir);
    free(rdir);
    return full;
}

int nsc_same_path(const char *a, const char *b)
{
    if (nsc_same_file(a, b)) return 1;
    char *ca = nsc_canon_path(a), *cb = nsc_canon_path(b);
    int same = ca && cb ? !strcmp(ca, cb) : !strcmp(a, b);
    free(ca);
    free(cb);
    return same;
}

int nsc_path_under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (n > 0 && dir[n - 1] == '/') return !strncmp(path, dir, n); /* dir "/" */
    return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == 0);
}

nsc_status nsc_stream_status(FILE *f, const char *name, nsc_report *r)
{
    errno = 0;
    if (fflush(f) == 0 && !ferror(f)) return NSC_OK;
    int e = errno ? errno : EIO;
    clearerr(f);
    return nsc_err(r, NSC_EOUT, NULL, "cannot write to %s: %s", name, strerror(e));
}
