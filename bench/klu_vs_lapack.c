/* bench/klu_vs_lapack.c -- the crossover of issue 24 item 1 ("a dense LU path for
 * small systems where it is faster than KLU"): KLU (a fresh pivoting factorisation
 * with a given analysis; a refactorisation; a solve) against LAPACK dgetrf + dgetrs
 * on an n x n circuit-like matrix (a node chain with a few long-range couplings,
 * ~3 entries a column), per factor + solve. Run by `bash bench/run.sh . lu`. */
#include <klu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
void dgetrf_(int *, int *, double *, int *, int *, int *);
void dgetrs_(char *, int *, int *, double *, int *, int *, double *, int *, int *);
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(void)
{
    int ns[] = {4, 8, 12, 17, 24, 32, 48, 64, 96, 128, 200};
    for (int q = 0; q < 11; q++) {
        int n = ns[q];
        double *Ad = calloc((size_t)n * n, sizeof(double));
        for (int i = 0; i < n; i++) {
            Ad[i + i * n] = 4 + 0.01 * i;
            if (i > 0) Ad[i + (i - 1) * n] = -1;
            if (i + 1 < n) Ad[i + (i + 1) * n] = -1.1;
            if (i % 5 == 0 && i + n / 2 < n) { Ad[i + (i + n / 2) * n] = -0.5; Ad[(i + n / 2) + i * n] = -0.5; }
        }
        int *Ap = malloc(sizeof(int) * (n + 1)), *Ai = malloc(sizeof(int) * n * n); double *Ax = malloc(sizeof(double) * n * n);
        int nz = 0;
        for (int j = 0; j < n; j++) { Ap[j] = nz; for (int i = 0; i < n; i++) if (Ad[i + j * n] != 0) { Ai[nz] = i; Ax[nz++] = Ad[i + j * n]; } }
        Ap[n] = nz;
        klu_common c; klu_defaults(&c);
        klu_symbolic *S = klu_analyze(n, Ap, Ai, &c);
        double *b = malloc(sizeof(double) * n), *M = malloc(sizeof(double) * n * n); int *ip = malloc(sizeof(int) * n);
        int reps = 200000 / n + 100;
        double t0 = now();
        for (int r = 0; r < reps; r++) {                 /* fresh numeric factorisation (pivoting) + solve */
            klu_numeric *N = klu_factor(Ap, Ai, Ax, S, &c);
            for (int i = 0; i < n; i++) b[i] = 1;
            klu_solve(S, N, n, 1, b, &c);
            klu_free_numeric(&N, &c);
        }
        double tk = (now() - t0) / reps;
        klu_numeric *N = klu_factor(Ap, Ai, Ax, S, &c);
        t0 = now();
        for (int r = 0; r < reps; r++) { klu_refactor(Ap, Ai, Ax, S, N, &c); for (int i = 0; i < n; i++) b[i] = 1; klu_solve(S, N, n, 1, b, &c); }
        double tr = (now() - t0) / reps;
        t0 = now();
        for (int r = 0; r < reps; r++) {
            memcpy(M, Ad, sizeof(double) * n * n);
            int info, one = 1; char tr_ = 'N';
            dgetrf_(&n, &n, M, &n, ip, &info);
            for (int i = 0; i < n; i++) b[i] = 1;
            dgetrs_(&tr_, &n, &one, M, &n, ip, b, &n, &info);
        }
        double td = (now() - t0) / reps;
        t0 = now();
        for (int r = 0; r < reps; r++) { for (int i = 0; i < n; i++) b[i] = 1; klu_solve(S, N, n, 1, b, &c); }
        double ts = (now() - t0) / reps;
        printf("n %3d nnz %4d: KLU factor+solve %7.2f us, refactor+solve %7.2f us, solve %6.2f us | LAPACK getrf+getrs %7.2f us\n",
               n, nz, 1e6 * tk, 1e6 * tr, 1e6 * ts, 1e6 * td);
    }
    return 0;
}
