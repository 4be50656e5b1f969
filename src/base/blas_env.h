/* blas_env.h -- the program does not depend on the BLAS's threading.
 *
 * nscircuit's dense systems are small (the LCP's M, a Schur complement): a
 * threaded BLAS gains nothing on them and costs much (threads spinning in
 * sched_yield on a two-core machine). Worse, OpenBLAS starts its worker threads
 * in its library constructor, before main(); each allocates a 32-128 MB buffer
 * and retries for ever when the address space is full (`ulimit -v`), and
 * exit() then joins it: the process hangs, and SIGTERM cannot end it.
 *
 * (The libraries are loaded at the first dense call since session 23, la_dense.c,
 * so that constructor runs then, reading the environment of that moment; the
 * re-execution below costs ~4 ms of start, LAPACK no longer being loaded with
 * the program. It stays: a library must not change the process's environment.)
 *
 * The only lever is the environment OpenBLAS reads in that constructor, and
 * setenv() before it is not enough: the C library's own initialiser, which runs
 * after the executable's .preinit_array and before OpenBLAS's, resets environ
 * to the process's original block. So the executable's .preinit_array (run by
 * the dynamic loader before any library initialiser) checks that block, and
 * when OPENBLAS_NUM_THREADS is not 1 it re-executes the program once
 * (/proc/self/exe, same argv) with OPENBLAS_NUM_THREADS, GOTO_NUM_THREADS and
 * BLIS_NUM_THREADS set to 1: no BLAS thread ever starts. Programs the run
 * starts (sweep workers) inherit the setting and are not re-executed. Under
 * valgrind (its preload library in LD_PRELOAD) nothing is re-executed, since
 * the new image would run outside valgrind; where the re-execution fails (no
 * /proc) the run goes on as it is.
 *
 * Use: NSC_BLAS_ONE_THREAD once in a file of the executable itself (a static
 * archive drops unreferenced members; a shared object has no .preinit_array). */
#ifndef NSC_BLAS_ENV_H
#define NSC_BLAS_ENV_H

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline int nsc_env_is(char *const *envp, const char *var, const char *val)
{
    size_t n = strlen(var);
    for (char *const *e = envp; e && *e; e++)
        if (!strncmp(*e, var, n) && (*e)[n] == '=') return val ? !strcmp(*e + n + 1, val) : 1;
    return 0;
}

static inline void nsc_blas_one_thread(int argc, char **argv, char **envp)
{
    (void)argc;
    static char *set[] = { "OPENBLAS_NUM_THREADS=1", "GOTO_NUM_THREADS=1", "BLIS_NUM_THREADS=1" };
    const int nset = (int)(sizeof set / sizeof set[0]);
    if (!argv || !envp || nsc_env_is(envp, "OPENBLAS_NUM_THREADS", "1")) return;
    for (char *const *e = envp; *e; e++)
        if (!strncmp(*e, "LD_PRELOAD=", 11) && strstr(*e, "vgpreload")) return;
    size_t n = 0;
    while (envp[n]) n++;
    char **env = malloc((n + (size_t)nset + 1) * sizeof *env);
    if (!env) return;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int drop = 0;
        for (int j = 0; j < nset; j++) drop |= !strncmp(envp[i], set[j], strlen(set[j]) - 1);
        if (!drop) env[k++] = envp[i];
    }
    for (int j = 0; j < nset; j++) env[k++] = set[j];
    env[k] = NULL;
    execve("/proc/self/exe", argv, env);
    free(env); /* not re-executed: go on as we are */
}

#define NSC_BLAS_ONE_THREAD \
    static void nsc_blas_preinit(int argc, char **argv, char **envp) \
    { \
        nsc_blas_one_thread(argc, argv, envp); \
    } \
    __attribute__((section(".preinit_array"), used)) static void ( \
        *nsc_blas_preinit_ptr)(int, char **, char **) = nsc_blas_preinit;

#endif
