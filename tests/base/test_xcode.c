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
    const nsc_xinstr a[] = { I(NSC_XOP_TIME, 0, 0, 0), I(NSC_XOP_PROBE, 1, 0, 0), I(NSC_XOP_MUL, 0, 0, 0),
                             I(NSC_XOP_PROBE, 0, 0, 0), I(NSC_XOP_SUB, 0, 0, 0), I(NSC_XOP_NUM, 0, 0, 2),
                             I(NSC_XOP_DIV, 0, 0, 0), I(NSC_XOP_MEAS, 0, 0, 0), I(NSC_XOP_NUM, 0, 0, 2),
                             I(NSC_XOP_POW, 0, 0, 0), I(NSC_XOP_ADD, 0, 0, 0) };
    cr_assert_eq(nsc_xdepth(a, 11), 3);
    cr_assert_eq(nsc_xrun(a, 11, &ld, st), 48.75);
    const nsc_xinstr b[] = { I(NSC_XOP_MEAS, 1, 0, 0), I(NSC_XOP_NEG, 0, 0, 0) };  /* a failed measure */
    cr_assert(isnan(nsc_xrun(b, 2, &ld, st)));
    const nsc_xinstr two[] = { I(NSC_XOP_NUM, 0, 0, 1), I(NSC_XOP_NUM, 0, 0, 2) };  /* not one value */
    cr_assert(isnan(nsc_xrun(two, 2, &ld, st)));
    const nsc_xinstr div0[] = { I(NSC_XOP_NUM, 0, 0, 1), I(NSC_XOP_NUM, 0, 0, 0), I(NSC_XOP_DIV, 0, 0, 0) };
    cr_assert(isinf(nsc_xrun(div0, 3, &ld, st)));                      /* no check: inf passes */
}

Test(xcode, logic_select_and_calls)
{
    const double probe[] = { -1, 2 };
    nsc_xload ld = { 0, probe, NULL };
    double st[8];
    /* p0 < p1 && !(p0 >= 0) ? limit(p1, 0, 1) : 9  ->  1 */
    const nsc_xinstr a[] = { I(NSC_XOP_PROBE, 0, 0, 0), I(NSC_XOP_PROBE, 1, 0, 0), I(NSC_XOP_LT, 0, 0, 0),
                             I(NSC_XOP_PROBE, 0, 0, 0), I(NSC_XOP_NUM, 0, 0, 0), I(NSC_XOP_GE, 0, 0, 0),
                             I(NSC_XOP_NOT, 0, 0, 0), I(NSC_XOP_AND, 0, 0, 0), I(NSC_XOP_PROBE, 1, 0, 0),
                             I(NSC_XOP_NUM, 0, 0, 0), I(NSC_XOP_NUM, 0, 0, 1),
                             I(NSC_XOP_CALL, nsc_xfn_find("limit"), 3, 0), I(NSC_XOP_NUM, 0, 0, 9),
                             I(NSC_XOP_COND, 0, 0, 0) };
    cr_assert_eq(nsc_xdepth(a, 14), 4);
    cr_assert_eq(nsc_xrun(a, 14, &ld, st), 1);
    const nsc_xinstr b[] = { I(NSC_XOP_PROBE, 0, 0, 0), I(NSC_XOP_PROBE, 1, 0, 0), I(NSC_XOP_EQ, 0, 0, 0),
                             I(NSC_XOP_PROBE, 0, 0, 0), I(NSC_XOP_PROBE, 0, 0, 0), I(NSC_XOP_NE, 0, 0, 0),
                             I(NSC_XOP_OR, 0, 0, 0), I(NSC_XOP_NUM, 0, 0, 3), I(NSC_XOP_NUM, 0, 0, 4),
                             I(NSC_XOP_COND, 0, 0, 0) };                 /* 0 || 0 ? 3 : 4 */
    cr_assert_eq(nsc_xrun(b, 10, &ld, st), 4);
    const nsc_xinstr c[] = { I(NSC_XOP_NUM, 0, 0, 3), I(NSC_XOP_NUM, 0, 0, 4),
                             I(NSC_XOP_CALL, nsc_xfn_find("atan2"), 2, 0), I(NSC_XOP_PROBE, 0, 0, 0),
                             I(NSC_XOP_GT, 0, 0, 0), I(NSC_XOP_NUM, 0, 0, 2), I(NSC_XOP_LE, 0, 0, 0) };
    cr_assert_eq(nsc_xrun(c, 7, &ld, st), 1);                         /* (atan2(3,4) > -1) <= 2 */
    cr_assert_eq(nsc_xdepth(NULL, 0), 0);
}
