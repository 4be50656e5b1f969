/* xfn.c -- the built-in functions of expressions (see xfn.h). */
#include "xfn.h"

#include <math.h>
#include <string.h>

static double f_sqrt(const double *x)
{
    return sqrt(x[0]);
}
static double f_exp(const double *x)
{
    return exp(x[0]);
}
static double f_log(const double *x)
{
    return log(x[0]);
}
static double f_log10(const double *x)
{
    return log10(x[0]);
}
static double f_sin(const double *x)
{
    return sin(x[0]);
}
static double f_cos(const double *x)
{
    return cos(x[0]);
}
static double f_tan(const double *x)
{
    return tan(x[0]);
}
static double f_asin(const double *x)
{
    return asin(x[0]);
}
static double f_acos(const double *x)
{
    return acos(x[0]);
}
static double f_atan(const double *x)
{
    return atan(x[0]);
}
static double f_sinh(const double *x)
{
    return sinh(x[0]);
}
static double f_cosh(const double *x)
{
    return cosh(x[0]);
}
static double f_tanh(const double *x)
{
    return tanh(x[0]);
}
static double f_pow(const double *x)
{
    return pow(x[0], x[1]);
}
static double f_atan2(const double *x)
{
    return atan2(x[0], x[1]);
}
/* derivatives of the smooth ones: d[i] = df/dx_i */
static void d_sqrt(const double *x, double *d)
{
    d[0] = 0.5 / sqrt(x[0]);
}
static void d_exp(const double *x, double *d)
{
    d[0] = exp(x[0]);
}
static void d_log(const double *x, double *d)
{
    d[0] = 1 / x[0];
}
static void d_log10(const double *x, double *d)
{
    d[0] = 1 / (x[0] * log(10.0));
}
static void d_sin(const double *x, double *d)
{
    d[0] = cos(x[0]);
}
static void d_cos(const double *x, double *d)
{
    d[0] = -sin(x[0]);
}
static void d_tan(const double *x, double *d)
{
    double c = cos(x[0]);
    d[0] = 1 / (c * c);
}
static void d_asin(const double *x, double *d)
{
    d[0] = 1 / sqrt(1 - x[0] * x[0]);
}
static void d_acos(const double *x, double *d)
{
    d[0] = -1 / sqrt(1 - x[0] * x[0]);
}
static void d_atan(const double *x, double *d)
{
    d[0] = 1 / (1 + x[0] * x[0]);
}
static void d_sinh(const double *x, double *d)
{
    d[0] = cosh(x[0]);
}
static void d_cosh(const double *x, double *d)
{
    d[0] = sinh(x[0]);
}
static void d_tanh(const double *x, double *d)
{
    double t = tanh(x[0]);
    d[0] = 1 - t * t;
}
static void d_pow(const double *x, double *d) /* a^b: b a^(b-1), a^b ln a (0 at a = 0) */
{
    d[0] = x[1] == 0 ? 0 : x[1] * pow(x[0], x[1] - 1);
    d[1] = x[0] > 0 ? pow(x[0], x[1]) * log(x[0]) : 0;
}
static void d_atan2(const double *x, double *d) /* atan2(y, x): (x, -y) / (x^2 + y^2) */
{
    double r2 = x[0] * x[0] + x[1] * x[1];
    d[0] = x[1] / r2;
    d[1] = -x[0] / r2;
}
static double f_abs(const double *x)
{
    return fabs(x[0]);
}
static double f_u(const double *x)
{
    return x[0] > 0 ? 1 : x[0] < 0 ? 0 : 0.5;
} /* ngspice's B source: u(0) = 1/2 */
static double f_uramp(const double *x)
{
    return x[0] > 0 ? x[0] : 0;
}
static double f_sgn(const double *x)
{
    return (x[0] > 0) - (x[0] < 0);
} /* sgn(0) = 0 */
static double f_min(const double *x)
{
    return fmin(x[0], x[1]);
}
static double f_max(const double *x)
{
    return fmax(x[0], x[1]);
}
static double f_limit(const double *x) /* x[0] clipped to [min(lo, hi), max(lo, hi)] */
{
    return fmin(fmax(x[0], fmin(x[1], x[2])), fmax(x[1], x[2]));
}
static double f_if(const double *x)
{
    return x[0] != 0 ? x[1] : x[2];
}
static double f_floor(const double *x)
{
    return floor(x[0]);
}
static double f_ceil(const double *x)
{
    return ceil(x[0]);
}

/* The order within a class is the order messages list them in. */
static const nsc_xfn FN[] = {
    { "sqrt", 1, NSC_XFN_SMOOTH, NSC_XFN_ONE, f_sqrt, d_sqrt },
    { "exp", 1, NSC_XFN_SMOOTH, NSC_XFN_ONE, f_exp, d_exp },
    { "log", 1, NSC_XFN_SMOOTH, NSC_XFN_ONE, f_log, d_log },
    { "ln", 1, NSC_XFN_SMOOTH, NSC_XFN_ONE, f_log, d_log },
    { "log10", 1, NSC_XFN_SMOOTH, NSC_XFN_ONE, f_log10, d_log10 },
    { "sin", 1, NSC_XFN_SMOOTH, NSC_XFN_ONE, f_sin, d_sin },
    { "cos", 1, NSC_XFN_SMOOTH, NSC_XFN_ONE, f_cos, d_cos },
    { "tan", 1, NSC_XFN_SMOOTH, NSC_XFN_ONE, f_tan, d_tan },
    { "asin", 1, NSC_XFN_SMOOTH, NSC_XFN_ONE, f_asin, d_asin },
    { "acos", 1, NSC_XFN_SMOOTH, NSC_XFN_ONE, f_acos, d_acos },
    { "atan", 1, NSC_XFN_SMOOTH, NSC_XFN_ONE, f_atan, d_atan },
    { "sinh", 1, NSC_XFN_SMOOTH, NSC_XFN_ONE, f_sinh, d_sinh },
    { "cosh", 1, NSC_XFN_SMOOTH, NSC_XFN_ONE, f_cosh, d_cosh },
    { "tanh", 1, NSC_XFN_SMOOTH, NSC_XFN_ONE, f_tanh, d_tanh },
    { "pow", 2, NSC_XFN_SMOOTH, NSC_XFN_ONE, f_pow, d_pow },
    { "atan2", 2, NSC_XFN_SMOOTH, NSC_XFN_ONE, f_atan2, d_atan2 },
    { "abs", 1, NSC_XFN_PWL, NSC_XFN_SAME, f_abs, NULL },
    { "u", 1, NSC_XFN_PWL, NSC_XFN_SIGN, f_u, NULL },
    { "uramp", 1, NSC_XFN_PWL, NSC_XFN_SAME, f_uramp, NULL },
    { "sgn", 1, NSC_XFN_PWL, NSC_XFN_SIGN, f_sgn, NULL },
    { "min", 2, NSC_XFN_PWL, NSC_XFN_SAME, f_min, NULL },
    { "max", 2, NSC_XFN_PWL, NSC_XFN_SAME, f_max, NULL },
    { "limit", 3, NSC_XFN_PWL, NSC_XFN_SAME, f_limit, NULL },
    { "if", 3, NSC_XFN_PWL, NSC_XFN_SELECT, f_if, NULL },
    { "floor", 1, NSC_XFN_NUM, NSC_XFN_SAME, f_floor, NULL },
    { "ceil", 1, NSC_XFN_NUM, NSC_XFN_SAME, f_ceil, NULL },
};
enum { NFN = sizeof FN / sizeof FN[0] };

int nsc_xfn_find(const char *name)
{
    for (int k = 0; k < NFN; k++)
        if (!strcmp(name, FN[k].name)) return k;
    return -1;
}

const nsc_xfn *nsc_xfn_at(int id)
{
    return &FN[id];
}

int nsc_xfn_count(void)
{
    return NFN;
}

char *nsc_xfn_names(nsc_xfn_class cls, char *buf, size_t size)
{
    size_t n = 0;
    if (!size) return buf;
    buf[0] = 0;
    for (int k = 0; k < NFN; k++) {
        size_t L = strlen(FN[k].name);
        if (FN[k].cls != cls) continue;
        if (n + (n > 0) + L + 1 > size) break;
        if (n > 0) buf[n++] = ' ';
        memcpy(buf + n, FN[k].name, L + 1); /* with its terminating 0 */
        n += L;
    }
    return buf;
}
