/* nl_pwl.h -- compile a behavioural source's expression (B n+ n- V=expr / I=expr)
 * into exact piecewise-linear form (devices/bprog.h nsc_bprog). Internal header.
 *
 * Accepted: sums and constant multiples of V(a), V(a,b), I(vsource) and
 * parameters; comparisons < > <= >= (an ideal relay: value 0 or 1, set-valued at
 * equality); && || ! on comparisons; c ? p : q and if(c, p, q) where p - q is a
 * constant; u() uramp() sgn() abs() min() max() limit(); a product of two
 * comparisons (their &&); smooth nonlinear subexpressions of V() and I()
 * (V(a)*V(b), tanh(V(x)), exp(), x^y: no time, no nonsmooth part inside) as
 * smooth functions (nsc_bsmooth, solved by Newton). Subexpressions of
 * parameters only are evaluated as numbers (any function). Everything else is
 * an error naming the offending subexpression: a product or a smooth function
 * of a nonsmooth part (V(a)*abs(V(b))), of unknowns and time, floor(V(x)), ==
 * or != of unknowns. `time` is an unknown whose smooth
 * functions (numbers, + - * / ^, the smooth ones of base/xfn.h) become the
 * program's own waveforms (tw, NSC_WAVE_EXPR); comparisons and the PWL
 * functions of them are relays and ramps like any other. */
#ifndef NSC_NL_PWL_H
#define NSC_NL_PWL_H

#include "circuit/circuit.h"
#include "devices/bprog.h"
#include "nl_expr.h"

typedef struct nl_pwl_env {
    const nl_env *ev; /* parameter lookup; file and where for messages */
    /* circuit index of the node named name (lower case), creating it if new */
    nsc_status (*node)(void *ctx, const char *name, const nl_expr *at, int *idx, nsc_report *r);
    /* I(name) is reference k of the program (prog->elref[k]): resolve it later */
    nsc_status (*branch)(void *ctx, const char *name, const nl_expr *at, int k, nsc_report *r);
    void *ctx;
    /* 1: the mirrored forms max(a, b) = a + ramp(b - a), min(a, b) = b - ramp(b - a),
     * abs(z) = z + 2 ramp(-z), uramp(z) = z + ramp(-z): the same function, the
     * other linear part (a B source reading its own output: nl_elab_el.c) */
    int mirror;
} nl_pwl_env;

/* *out = the program of x (NULL on error; free with nsc_bprog_free); elref[] = -1
 * until the caller resolves the references it was given through env->branch. */
nsc_status nl_pwl_compile(const nl_expr *x, const nl_pwl_env *env, nsc_bprog **out, nsc_report *r);

#endif
