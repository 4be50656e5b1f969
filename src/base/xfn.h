/* xfn.h -- the built-in functions of every expression: one registry read by
 * .param values (nl_expr.c), B sources (nl_pwl.c, their waveforms of time in
 * source_wave.c), .meas and derived .print columns (nl_meas.c, meas.c) and the
 * units of a sweep's measures (sweep_units.c), so each accepts the same names.
 *
 * A function has a fixed arity, a class that says what a B source may do with
 * it, and a unit rule that says the dimension of its value. */
#ifndef NSC_XFN_H
#define NSC_XFN_H

#include <stddef.h>

typedef enum nsc_xfn_class {
    NSC_XFN_SMOOTH, /* smooth: of time, a B source's waveform (NSC_WAVE_EXPR) */
    NSC_XFN_PWL,    /* piecewise-linear: exact of V() and I() in a B source (nl_pwl.c) */
    NSC_XFN_NUM     /* of numbers only (floor, ceil: discontinuous steps) */
} nsc_xfn_class;

typedef enum nsc_xfn_unit {
    NSC_XFN_SAME,  /* the common dimension of its operands (abs, min, limit ...) */
    NSC_XFN_ONE,   /* dimensionless operands, a dimensionless value (sqrt, sin, pow ...) */
    NSC_XFN_SIGN,  /* any operand, a dimensionless value (u, sgn) */
    NSC_XFN_SELECT /* if(c, a, b): the common dimension of a and b */
} nsc_xfn_unit;

#define NSC_XFN_MAXARGS 3

typedef struct nsc_xfn {
    const char *name; /* lower case */
    int nargs;        /* 1 .. NSC_XFN_MAXARGS */
    nsc_xfn_class cls;
    nsc_xfn_unit unit;
    double (*f)(const double *x); /* value at x[0 .. nargs) (no check: NaN, inf pass) */
    /* the smooth ones (NULL for the others): the partial derivatives
     * d[i] = df/dx_i at x[0 .. nargs) (the Newton iteration of a B source's
     * smooth function of unknowns, xcode.c nsc_xrun_grad) */
    void (*df)(const double *x, double *d);
} nsc_xfn;

/* The id (>= 0) of the built-in function name (lower case), -1 if none. */
int nsc_xfn_find(const char *name);

/* The function of id (0 <= id < nsc_xfn_count()). */
const nsc_xfn *nsc_xfn_at(int id);
int nsc_xfn_count(void);

/* The names of the functions of class cls, in the registry's order, separated
 * by single blanks, into buf[size] (truncated to fit); buf. */
char *nsc_xfn_names(nsc_xfn_class cls, char *buf, size_t size);

#endif
