/* test_xcode.c -- the evaluator of compiled expressions (base/xcode.h): each
 * load and operator on hand-written programs against hand computations. */
#include <criterion/criterion.h>
#include <math.h>

#include "base/xcode.h"
#include "base/xfn.h"

#define I(op, arg, nargs, num) ((nsc_xinstr){ op, arg, nargs, num })

Test(xcode, loads_and_arithmetic)
{
    const double probe[] = { 3, 5 }, meas[] = { 7, NAN };
    nsc_xload ld = { 0.5, probe, meas };
    double st[8];
    /* (t * p1 - p0) / 2 + m0 ^ 2 = (2.5 - 3) / 2 + 49 = 48.75 */
    const nsc_xinstr a[] = { I(NSC_XOP_TIME, 0, 0, 0), I(NSC_XOP_PROBE, 1, 0, 0),
                             I(NSC_XOP_MUL, 0, 0, 0),  I(NSC_XOP_PROBE, 0, 0, 0),
                             I(NSC_XOP_SUB, 0, 0, 0),  I(NSC_XOP_NUM, 0, 0, 2),
                             I(NSC_XOP_DIV, 0, 0, 0),  I(NSC_XOP_MEAS, 0, 0, 0),
                             I(NSC_XOP_NUM, 0, 0, 2),  I(NSC_XOP_POW, 0, 0, 0),
                             I(NSC_XOP_ADD, 0, 0, 0) };
    cr_assert_eq(nsc_xdepth(a, 11), 3);
    cr_assert_eq(nsc_xrun(a, 11, &ld, st), 48.75);
    const nsc_xinstr b[] = { I(NSC_XOP_MEAS, 1, 0, 0),
                             I(NSC_XOP_NEG, 0, 0, 0) }; /* a failed measure */
    cr_assert(isnan(nsc_xrun(b, 2, &ld, st)));
    const nsc_xinstr two[] = { I(NSC_XOP_NUM, 0, 0, 1),
                               I(NSC_XOP_NUM, 0, 0, 2) }; /* not one value */
    cr_assert(isnan(nsc_xrun(two, 2, &ld, st)));
    const nsc_xinstr div0[] = { I(NSC_XOP_NUM, 0, 0, 1), I(NSC_XOP_NUM, 0, 0, 0),
                                I(NSC_XOP_DIV, 0, 0, 0) };
    cr_assert(isinf(nsc_xrun(div0, 3, &ld, st))); /* no check: inf passes */
}

Test(xcode, logic_select_and_calls)
{
    const double probe[] = { -1, 2 };
    nsc_xload ld = { 0, probe, NULL };
    double st[8];
    /* p0 < p1 && !(p0 >= 0) ? limit(p1, 0, 1) : 9  ->  1 */
    const nsc_xinstr a[] = {
        I(NSC_XOP_PROBE, 0, 0, 0), I(NSC_XOP_PROBE, 1, 0, 0),
        I(NSC_XOP_LT, 0, 0, 0),    I(NSC_XOP_PROBE, 0, 0, 0),
        I(NSC_XOP_NUM, 0, 0, 0),   I(NSC_XOP_GE, 0, 0, 0),
        I(NSC_XOP_NOT, 0, 0, 0),   I(NSC_XOP_AND, 0, 0, 0),
        I(NSC_XOP_PROBE, 1, 0, 0), I(NSC_XOP_NUM, 0, 0, 0),
        I(NSC_XOP_NUM, 0, 0, 1),   I(NSC_XOP_CALL, nsc_xfn_find("limit"), 3, 0),
        I(NSC_XOP_NUM, 0, 0, 9),   I(NSC_XOP_COND, 0, 0, 0)
    };
    cr_assert_eq(nsc_xdepth(a, 14), 4);
    cr_assert_eq(nsc_xrun(a, 14, &ld, st), 1);
    const nsc_xinstr b[] = {
        I(NSC_XOP_PROBE, 0, 0, 0), I(NSC_XOP_PROBE, 1, 0, 0), I(NSC_XOP_EQ, 0, 0, 0),
        I(NSC_XOP_PROBE, 0, 0, 0), I(NSC_XOP_PROBE, 0, 0, 0), I(NSC_XOP_NE, 0, 0, 0),
        I(NSC_XOP_OR, 0, 0, 0),    I(NSC_XOP_NUM, 0, 0, 3),   I(NSC_XOP_NUM, 0, 0, 4),
        I(NSC_XOP_COND, 0, 0, 0)
    }; /* 0 || 0 ? 3 : 4 */
    cr_assert_eq(nsc_xrun(b, 10, &ld, st), 4);
    const nsc_xinstr c[] = { I(NSC_XOP_NUM, 0, 0, 3),
                             I(NSC_XOP_NUM, 0, 0, 4),
                             I(NSC_XOP_CALL, nsc_xfn_find("atan2"), 2, 0),
                             I(NSC_XOP_PROBE, 0, 0, 0),
                             I(NSC_XOP_GT, 0, 0, 0),
                             I(NSC_XOP_NUM, 0, 0, 2),
                             I(NSC_XOP_LE, 0, 0, 0) };
    cr_assert_eq(nsc_xrun(c, 7, &ld, st), 1); /* (atan2(3,4) > -1) <= 2 */
    cr_assert_eq(nsc_xdepth(NULL, 0), 0);
}

/* nsc_xrun_grad: forward-mode gradients of hand-written programs against
 * their derivatives computed by hand (closed forms). */
Test(xcode, gradient_of_arithmetic)
{
    double st[8], dst[16], g[2];
    const double p[] = { 3, 0.5 };
    /* f = x*y / (1 + x^2) - y^3: df/dx = y (1 - x^2)/(1 + x^2)^2, df/dy = x/(1 + x^2) - 3 y^2 */
    const nsc_xinstr a[] = { I(NSC_XOP_PROBE, 0, 0, 0), I(NSC_XOP_PROBE, 1, 0, 0),
                             I(NSC_XOP_MUL, 0, 0, 0),   I(NSC_XOP_NUM, 0, 0, 1),
                             I(NSC_XOP_PROBE, 0, 0, 0), I(NSC_XOP_NUM, 0, 0, 2),
                             I(NSC_XOP_POW, 0, 0, 0),   I(NSC_XOP_ADD, 0, 0, 0),
                             I(NSC_XOP_DIV, 0, 0, 0),   I(NSC_XOP_PROBE, 1, 0, 0),
                             I(NSC_XOP_NUM, 0, 0, 3),   I(NSC_XOP_POW, 0, 0, 0),
                             I(NSC_XOP_SUB, 0, 0, 0),   I(NSC_XOP_NEG, 0, 0, 0) };
    double f = nsc_xrun_grad(a, 14, p, 2, st, dst, g);
    cr_assert_float_eq(f, -(1.5 / 10 - 0.125), 1e-15);
    cr_assert_float_eq(g[0], -(0.5 * (1 - 9) / 100.0), 1e-15);
    cr_assert_float_eq(g[1], -(3 / 10.0 - 0.75), 1e-15);
    /* x^y with both varying: d/dx = y x^(y-1), d/dy = x^y ln x */
    const nsc_xinstr b[] = { I(NSC_XOP_PROBE, 0, 0, 0), I(NSC_XOP_PROBE, 1, 0, 0),
                             I(NSC_XOP_POW, 0, 0, 0) };
    f = nsc_xrun_grad(b, 3, p, 2, st, dst, g);
    cr_assert_float_eq(f, sqrt(3), 1e-15);
    cr_assert_float_eq(g[0], 0.5 / sqrt(3), 1e-15);
    cr_assert_float_eq(g[1], sqrt(3) * log(3), 1e-15);
    /* a negative base to a constant power: no ln term (d/dx (-2)^2 = -4) */
    const double q[] = { -2 };
    const nsc_xinstr c[] = { I(NSC_XOP_PROBE, 0, 0, 0), I(NSC_XOP_NUM, 0, 0, 2),
                             I(NSC_XOP_POW, 0, 0, 0) };
    cr_assert_eq(nsc_xrun_grad(c, 3, q, 1, st, dst, g), 4);
    cr_assert_eq(g[0], -4);
    /* loads other than NUM and PROBE: no gradient */
    const nsc_xinstr d[] = { I(NSC_XOP_TIME, 0, 0, 0) };
    cr_assert(isnan(nsc_xrun_grad(d, 1, q, 1, st, dst, g)) && isnan(g[0]));
    /* comparisons and ! are 0/1 with gradient 0 */
    const nsc_xinstr e[] = { I(NSC_XOP_PROBE, 0, 0, 0), I(NSC_XOP_NUM, 0, 0, 0),
                             I(NSC_XOP_LT, 0, 0, 0), I(NSC_XOP_NOT, 0, 0, 0) };
    cr_assert_eq(nsc_xrun_grad(e, 3, q, 1, st, dst, g), 1);
    cr_assert_eq(g[0], 0);
    cr_assert_eq(nsc_xrun_grad(e, 4, q, 1, st, dst, g), 0);
    cr_assert_eq(g[0], 0);
}

/* c ? a : b takes the chosen branch's value and gradient (the other may be
 * NaN: not read): f = x > 1 ? x^2 y : sqrt(1 - x) + y, at (2, 3) and (0.5, 3) */
Test(xcode, gradient_of_a_choice)
{
    int sq = nsc_xfn_find("sqrt");
    const nsc_xinstr c[] = {
        I(NSC_XOP_PROBE, 0, 0, 0), I(NSC_XOP_NUM, 0, 0, 1),   I(NSC_XOP_GT, 0, 0, 0),
        I(NSC_XOP_PROBE, 0, 0, 0), I(NSC_XOP_PROBE, 0, 0, 0), I(NSC_XOP_MUL, 0, 0, 0),
        I(NSC_XOP_PROBE, 1, 0, 0), I(NSC_XOP_MUL, 0, 0, 0),   I(NSC_XOP_NUM, 0, 0, 1),
        I(NSC_XOP_PROBE, 0, 0, 0), I(NSC_XOP_SUB, 0, 0, 0),   I(NSC_XOP_CALL, sq, 1, 0),
        I(NSC_XOP_PROBE, 1, 0, 0), I(NSC_XOP_ADD, 0, 0, 0),   I(NSC_XOP_COND, 0, 0, 0)
    };
    double st[8], dst[16], g[2];
    const double p[] = { 2, 3 }, r[] = { 0.5, 3 };
    cr_assert_float_eq(nsc_xrun_grad(c, 15, p, 2, st, dst, g), 12, 1e-15);
    cr_assert_float_eq(g[0], 12, 1e-15); /* 2 x y */
    cr_assert_float_eq(g[1], 4, 1e-15);  /* x^2 */
    cr_assert_float_eq(nsc_xrun_grad(c, 15, r, 2, st, dst, g), sqrt(0.5) + 3, 1e-15);
    cr_assert_float_eq(g[0], -0.5 / sqrt(0.5), 1e-15);
    cr_assert_float_eq(g[1], 1, 1e-15);
}

/* Every smooth function of the registry has a derivative, and it matches
 * the function's own central difference (an oracle independent of the rule)
 * at interior points of its domain; PWL and numeric functions have none. */
Test(xcode, smooth_functions_derivatives)
{
    const double x0[] = { 0.3, 0.7 };
    for (int k = 0; k < nsc_xfn_count(); k++) {
        const nsc_xfn *f = nsc_xfn_at(k);
        if (f->cls != NSC_XFN_SMOOTH) {
            cr_assert_null(f->df, "%s", f->name);
            continue;
        }
        cr_assert_not_null(f->df, "%s", f->name);
        double d[NSC_XFN_MAXARGS];
        f->df(x0, d);
        for (int a = 0; a < f->nargs; a++) {
            double xp[2] = { x0[0], x0[1] }, xm[2] = { x0[0], x0[1] }, h = 1e-6;
            xp[a] += h;
            xm[a] -= h;
            double fd = (f->f(xp) - f->f(xm)) / (2 * h);
            cr_assert(fabs(d[a] - fd) < 1e-8 * (1 + fabs(fd)), "%s d/dx%d: %.12g, difference %.12g",
                      f->name, a, d[a], fd);
        }
    }
    /* through the program: tanh'(x) = 1 - tanh^2, times the inner derivative 3 */
    int id = nsc_xfn_find("tanh");
    const nsc_xinstr t[] = { I(NSC_XOP_NUM, 0, 0, 3), I(NSC_XOP_PROBE, 0, 0, 0),
                             I(NSC_XOP_MUL, 0, 0, 0), I(NSC_XOP_CALL, id, 1, 0) };
    double st[4], dst[4], g[1];
    const double p[] = { 0.2 };
    cr_assert_float_eq(nsc_xrun_grad(t, 4, p, 1, st, dst, g), tanh(0.6), 1e-15);
    cr_assert_float_eq(g[0], 3 * (1 - tanh(0.6) * tanh(0.6)), 1e-15);
}

/* The operands each instruction pops (nsc_xpops): its stack effect is 1 - pops,
 * so a program of one value has effects summing to 1 (checked against nsc_xrun
 * leaving one value); the depths after each instruction of 1 2 3 6 + sqrt ?: neg,
 * 1 2 3 4 3 3 1 1 by hand, peak at 4. */
Test(xcode, operand_counts)
{
    const struct {
        nsc_xinstr in;
        int pops;
    } T[] = {
        { I(NSC_XOP_NUM, 0, 0, 1), 0 },   { I(NSC_XOP_TIME, 0, 0, 0), 0 },
        { I(NSC_XOP_PROBE, 0, 0, 0), 0 }, { I(NSC_XOP_MEAS, 0, 0, 0), 0 },
        { I(NSC_XOP_NEG, 0, 0, 0), 1 },   { I(NSC_XOP_NOT, 0, 0, 0), 1 },
        { I(NSC_XOP_ADD, 0, 0, 0), 2 },   { I(NSC_XOP_POW, 0, 0, 0), 2 },
        { I(NSC_XOP_NE, 0, 0, 0), 2 },    { I(NSC_XOP_OR, 0, 0, 0), 2 },
        { I(NSC_XOP_COND, 0, 0, 0), 3 },  { I(NSC_XOP_CALL, 0, 1, 0), 1 },
        { I(NSC_XOP_CALL, 0, 3, 0), 3 },
    };
    for (size_t k = 0; k < sizeof T / sizeof T[0]; k++)
        cr_assert_eq(nsc_xpops(&T[k].in), T[k].pops, "%zu", k);
    int sq = nsc_xfn_find("sqrt");
    const nsc_xinstr a[] = { I(NSC_XOP_NUM, 0, 0, 1),  I(NSC_XOP_NUM, 0, 0, 2),
                             I(NSC_XOP_NUM, 0, 0, 3),  I(NSC_XOP_NUM, 0, 0, 6),
                             I(NSC_XOP_ADD, 0, 0, 0),  I(NSC_XOP_CALL, sq, 1, 0),
                             I(NSC_XOP_COND, 0, 0, 0), I(NSC_XOP_NEG, 0, 0, 0) };
    int sum = 0;
    for (int k = 0; k < 8; k++) sum += 1 - nsc_xpops(&a[k]);
    cr_assert_eq(sum, 1);
    cr_assert_eq(nsc_xdepth(a, 8), 4);
    double st[8];
    nsc_xload ld = { 0, NULL, NULL };
    cr_assert_eq(nsc_xrun(a, 8, &ld, st), -2); /* -(1 ? 2 : sqrt(3 + 6)) */
}
