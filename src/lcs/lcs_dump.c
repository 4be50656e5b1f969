/* lcs_dump.c -- nsc_lcs_dump: the LCS as Matrix Market files and names.txt.
 * Each file is written to a temporary "<dir>/.<name>.XXXXXX" created exclusively
 * (mkstemp: a planted symlink is never followed) and renamed: complete or absent. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lcs.h"

/* Dense column vector v[len] in Matrix Market array format. */
static int write_vec(FILE *f, const double *v, int len, const char *comment)
{
    if (fprintf(f, "%%%%MatrixMarket matrix array real general\n%% %s\n%d 1\n", comment, len) < 0)
        return -1;
    for (int k = 0; k < len; k++)
        if (fprintf(f, "%.17g\n", v[k]) < 0) return -1;
    return 0;
}

static int write_names(FILE *f, const nsc_lcs *L)
{
    const char *mode = L->mode == NSC_ASM_TRAN ? "tran" : L->mode == NSC_ASM_OP ? "op" : "uic";
    if (fprintf(f, "# mode %s\n# z: index (1-based) name\n", mode) < 0) return -1;
    for (int k = 0; k < L->n; k++)
        if (fprintf(f, "z %d %s\n", k + 1, L->zname[k]) < 0) return -1;
    for (int j = 0; j < L->m; j++)
        if (fprintf(f, "lambda %d %s\n", j + 1, L->pair_name[j]) < 0) return -1;
    for (int j = 0; j < L->nsrc; j++)
        if (fprintf(f, "w %d el%d\n", j + 1, L->src[j].el) < 0) return -1;
    for (int q = 0; q < L->ngmin; q++)
        if (fprintf(f, "gmin %d %s\n", L->gmin_node[q], L->zname[L->gmin_node[q] - 1]) < 0)
            return -1;
    return 0;
}

/* One file: kind 0 matrix, 1 vector, 2 names. */
static nsc_status dump_one(const nsc_lcs *L, const char *dir, const char *name, int kind,
                           const nsc_sparse *A, const double *v, int len, const char *comment,
                           nsc_report *r)
{
    char *tmp = nsc_asprintf("%s/.%s.XXXXXX", dir, name), *path = nsc_asprintf("%s/%s", dir, name);
    if (!tmp || !path) {
        free(tmp);
        free(path);
        return nsc_oom(r);
    }
    int fd = nsc_mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f && fd >= 0) close(fd);
    int bad = !f;
    if (f) {
        bad = kind == 0   ? nsc_sp_write_mm(A, f, comment)
              : kind == 1 ? write_vec(f, v, len, comment)
                          : write_names(f, L);
        bad = fclose(f) != 0 || bad;
    }
    if (!bad && rename(tmp, path) != 0) bad = 1;
    nsc_status st = NSC_OK;
    if (bad) {
        st = nsc_err(r, NSC_EOUT, NULL, "cannot write '%s': %s", path, strerror(errno));
        if (fd >= 0) remove(tmp);
    }
    free(tmp);
    free(path);
    return st;
}

nsc_status nsc_lcs_dump(const nsc_lcs *L, const char *dir, nsc_report *r)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return nsc_err(r, NSC_EOUT, NULL, "cannot create directory '%s': %s", dir, strerror(errno));
    struct {
        const char *name;
        const nsc_sparse *A;
        const char *comment;
    } mat[] = {
        { "E.mtx", L->E, "E: E z' = A z + B lambda + s(t)" },
        { "A.mtx", L->A, "A: E z' = A z + B lambda + s(t)" },
        { "B.mtx", L->B, "B: E z' = A z + B lambda + s(t)" },
        { "C.mtx", L->C, "C: y = C z + D lambda + e(t)" },
        { "D.mtx", L->D, "D: y = C z + D lambda + e(t)" },
        { "Ss.mtx", L->Ss, "Ss: s(t) = s0 + Ss w(t)" },
        { "Se.mtx", L->Se, "Se: e(t) = e0 + Se w(t)" },
    };
    nsc_status st;
    for (size_t q = 0; q < sizeof mat / sizeof mat[0]; q++)
        if ((st = dump_one(L, dir, mat[q].name, 0, mat[q].A, NULL, 0, mat[q].comment, r)))
            return st;
    if ((st = dump_one(L, dir, "s0.mtx", 1, NULL, L->s0, L->n, "s0: s(t) = s0 + Ss w(t)", r)))
        return st;
    if ((st = dump_one(L, dir, "e0.mtx", 1, NULL, L->e0, L->m, "e0: e(t) = e0 + Se w(t)", r)))
        return st;
    return dump_one(L, dir, "names.txt", 2, NULL, NULL, 0, NULL, r);
}
