/* pwl_sq.c -- the convex piecewise-linear approximation of f(x) = max(0, x)^2 of
 * the PWL MOS model (device.h, formulation.md §1).
 *
 * Construction (relative-error equioscillation): on a geometric grid
 * b, rho b, the chord of (1 - eps) x^2 has slope (1 - eps)(1 + rho) b and its
 * largest ratio to x^2, reached at x = 2 rho b/(1 + rho), is
 * (1 - eps)(1 + rho)^2/(4 rho); setting it to 1 + eps gives
 *     (1 + eps)/(1 - eps) = (1 + rho)^2/(4 rho),
 * so the chords stay within [1 - eps, 1 + eps] x^2 on [b1, X]. The design
 * documents' table is this construction with b1 = 0.1, eps = 0.1
 * (9 rho^2 - 26 rho + 9 = 0, rho = 2.4868) and 4 geometric segments. */
#include <math.h>

#include "device.h"

/* Breakpoints and slopes of the six segments (formulation.md §1). */
static const double def_b[5] = {0, 0.1, 0.2487, 0.6185, 1.5383};
static const double def_s[6] = {0, 0.09, 0.314055, 0.780422, 1.94107, 4.82766};

int nsc_pwl_sq(int nseg, double *b, double *a, double *eps)
{
    if (nseg == 0) {
        for (int j = 0; j < 5; j++) {
            b[j] = def_b[j];
            a[j] = def_s[j + 1] - def_s[j];                   /* slope increase at b_j */
        }
        if (eps) *eps = 0.1;
        return 5;
    }
    if (nseg < 3 || nseg > NSC_PWL_MAXSEG) return -1;
    double rho6 = (13.0 + sqrt(88.0)) / 9.0;                 /* 9 rho^2 - 26 rho + 9 = 0 */
    double X = NSC_PWL_X0 * pow(rho6, 4);                    /* top of the default's range */
    double rho = pow(X / NSC_PWL_X0, 1.0 / (nseg - 2));
    double g = (1 + rho) * (1 + rho) / (4 * rho);            /* (1 + eps)/(1 - eps) */
    double e = (g - 1) / (g + 1);
    int nb = nseg - 1;
    double prev = 0;                                          /* slope left of b_j */
    b[0] = 0;
    for (int j = 1; j < nb; j++) b[j] = NSC_PWL_X0 * pow(rho, j - 1);
    for (int j = 0; j < nb; j++) {
        double s = j == 0 ? (1 - e) * NSC_PWL_X0             /* chord of (1-eps) x^2 on [0, b1] */
                          : (1 - e) * (1 + rho) * b[j];      /* chord on [b_j, rho b_j] */
        a[j] = s - prev;
        prev = s;
    }
    if (eps) *eps = e;
    return nb;
}

double nsc_pwl_eval(int nb, const double *b, const double *a, double x)
{
    double f = 0;
    for (int j = 0; j < nb; j++)
        if (x > b[j]) f += a[j] * (x - b[j]);                /* f = sum a_j max(0, x - b_j) */
    return f;
}
