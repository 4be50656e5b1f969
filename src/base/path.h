/* path.h -- file names as the file system sees them: whether two names are
 * one file, a name made absolute, whether a file lies below a directory; and
 * whether what was written to a stream reached it. What a run uses to keep its
 * outputs off its inputs (the program's files, a .control block's writes). */
#ifndef NSC_PATH_H
#define NSC_PATH_H

#include <stdio.h>
#include "base/util.h"

/* Whether paths a and b both exist and are the same file (device and inode). */
int nsc_same_file(const char *a, const char *b);
/* The first of the outputs out[nout] that is one of the inputs in[nin] (the
 * same file, under any name), else NULL: a run must never overwrite what it
 * reads (nscircuit -o rc.cir rc.cir, a netlist named net.gp). */
const char *nsc_output_is_input(char *const *out, int nout, char *const *in, int nin);

/* p as an absolute path, the symbolic links of its directory resolved (of p
 * itself too when it exists): malloc'd, NULL out of memory. */
char *nsc_canon_path(const char *p);
/* Whether the paths a and b name the same file, existing or not. */
int nsc_same_path(const char *a, const char *b);
/* Whether the canonical path lies in the canonical directory dir or below it. */
int nsc_path_under(const char *path, const char *dir);

/* NSC_OK, or NSC_EOUT (exit 4, cli.md) in r, "cannot write to NAME: why", when
 * what was written to f could not be (a full disk, a closed pipe): f is
 * flushed and its error indicator cleared. name: f's name in that message
 * ("standard output"). */
nsc_status nsc_stream_status(FILE *f, const char *name, nsc_report *r);

#endif
