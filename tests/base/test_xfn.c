/* test_xfn.c -- the registry of built-in functions (base/xfn.h): values against
 * closed forms and libm, the SPICE conventions at the ties, arities, classes and
 * the lists messages print. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "base/xfn.h"

static double call(const char *name, double a, double b, double c)
{
    int id = nsc_xfn_find(name);
    cr_assert(id >= 0, "%s not found", name);
    double x[NSC_XFN_MAXARGS] = { a, b, c };
    return nsc_xfn_at(id)->f(x);
}

Test(xfn, values)
{
    cr_assert_eq(call("sqrt", 2, 0, 0), sqrt(2));
    cr_assert_eq(call("ln", 10, 0, 0), log(10));
    cr_assert_eq(call("log", 10, 0, 0), log(10)); /* natural, as SPICE's log */
    cr_assert_eq(call("log10", 1000, 0, 0), 3);
    cr_assert_eq(call("pow", 2, 10, 0), 1024);
    cr_assert_float_eq(4 * call("atan2", 1, 1, 0), 3.14159265358979323846, 1e-15);
    cr_assert_float_eq(2 * call("asin", 1, 0, 0), 3.14159265358979323846, 1e-15);
    cr_assert_eq(call("abs", -3, 0, 0), 3);
    cr_assert_eq(call("floor", -1.5, 0, 0), -2);
    cr_assert_eq(call("ceil", -1.5, 0, 0), -1);
    cr_assert_eq(call("min", 1, -2, 0), -2);
    cr_assert_eq(call("max", 1, -2, 0), 1);
}

/* ngspice's B source: u(0) = 1/2, sgn(0) = 0; limit with its bounds either way */
Test(xfn, steps_ramps_and_ties)
{
    cr_assert_eq(call("u", -1e-300, 0, 0), 0);
    cr_assert_eq(call("u", 0, 0, 0), 0.5);
    cr_assert_eq(call("u", 1e-300, 0, 0), 1);
    cr_assert_eq(call("sgn", -5, 0, 0), -1);
    cr_assert_eq(call("sgn", 0, 0, 0), 0);
    cr_assert_eq(call("sgn", 5, 0, 0), 1);
    cr_assert_eq(call("uramp", -2, 0, 0), 0);
    cr_assert_eq(call("uramp", 2, 0, 0), 2);
    cr_assert_eq(call("limit", 5, 0, 1), 1);
    cr_assert_eq(call("limit", 5, 1, 0), 1);
    cr_assert_eq(call("limit", -5, 1, 0), 0);
    cr_assert_eq(call("limit", 0.25, 1, 0), 0.25);
    cr_assert_eq(call("if", 0, 1, 2), 2);
    cr_assert_eq(call("if", -0.1, 1, 2), 1);
}

Test(xfn, registry)
{
    cr_assert_eq(nsc_xfn_find("nosuch"), -1);
    cr_assert_eq(nsc_xfn_find("v"), -1); /* probes are not functions */
    for (int k = 0; k < nsc_xfn_count(); k++) {
        const nsc_xfn *f = nsc_xfn_at(k);
        cr_assert_eq(nsc_xfn_find(f->name), k, "%s twice", f->name);
        cr_assert(f->nargs >= 1 && f->nargs <= NSC_XFN_MAXARGS);
    }
    char buf[256];
    cr_assert_str_eq(nsc_xfn_names(NSC_XFN_SMOOTH, buf, sizeof buf),
                     "sqrt exp log ln log10 sin cos tan asin acos atan sinh cosh tanh pow atan2");
    cr_assert_str_eq(nsc_xfn_names(NSC_XFN_PWL, buf, sizeof buf),
                     "abs u uramp sgn min max limit if");
    cr_assert_str_eq(nsc_xfn_names(NSC_XFN_NUM, buf, sizeof buf), "floor ceil");
    cr_assert_str_eq(nsc_xfn_names(NSC_XFN_PWL, buf, 12), "abs u uramp"); /* whole names only */
    cr_assert_eq(nsc_xfn_at(nsc_xfn_find("if"))->unit, NSC_XFN_SELECT);
    cr_assert_eq(nsc_xfn_at(nsc_xfn_find("sgn"))->unit, NSC_XFN_SIGN);
    cr_assert_eq(nsc_xfn_at(nsc_xfn_find("limit"))->unit, NSC_XFN_SAME);
    cr_assert_eq(nsc_xfn_at(nsc_xfn_find("exp"))->unit, NSC_XFN_ONE);
}
