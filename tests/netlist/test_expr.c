/* test_expr.c -- expressions and .param: operators, precedence, functions,
 * parameter chains, --param overrides, evaluation errors. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netlist/netlist.h"
#include "devices/bprog.h"

#define M_PI 3.14159265358979323846

static nsc_report R;

/* value of R1 = {expr} after the given .param lines */
static double ev(const char *params, const char *expr)
{
    char text[2048];
    snprintf(text, sizeof text, "t\n%s\nR1 a 0 {%s}\n", params, expr);
    nsc_circuit *c = NULL;
    nsc_report_init(&R);
    cr_assert_eq(nsc_netlist_read_string(text, "t.cir", NULL, 0, &c, &R), NSC_OK, "%s: %s", expr,
                 R.error);
    double v = c->el[0].value;
    nsc_circuit_free(c);
    nsc_report_free(&R);
    return v;
}

static void near(double a, double b)
{
    cr_assert(fabs(a - b) <= 1e-12 * fabs(b) + 1e-300, "%.17g != %.17g", a, b);
}

Test(expr, arithmetic_and_precedence)
{
    near(ev("", "1+2*3"), 7);
    near(ev("", "(1+2)*3"), 9);
    near(ev("", "2^3^2"), 64);  /* left-associative as ngspice 39: .param p={2^3^2} gives 64 */
    near(ev("", "4^0.5^2"), 4); /* (4^0.5)^2; ngspice 39 .param gives 4 */
    near(ev("", "2**3"), 8);
    near(ev("", "-2^2"), -4);  /* unary minus below ^ */
    near(ev("", "10-4-3"), 3); /* left-associative */
    near(ev("", "12/4/3"), 1);
    near(ev("", "--3"), 3);
    near(ev("", "+3"), 3);
    near(ev("", "2k*3meg"), 6e9); /* suffixes inside expressions */
    near(ev("", "1.5e-3*2"), 3e-3);
    near(ev("", "10uF*2"), 20e-6);
}

Test(expr, functions_and_pi)
{
    near(ev("", "sqrt(16)"), 4);
    near(ev("", "exp(1)"), exp(1));
    near(ev("", "log(100)"), log(100)); /* SPICE log is the natural log */
    near(ev("", "ln(2)"), log(2));
    near(ev("", "sin(pi/2)"), 1);
    near(ev("", "cos(0)"), 1);
    near(ev("", "tan(pi/4)"), tan(M_PI / 4));
    near(ev("", "abs(-3)"), 3);
    near(ev("", "min(2, -5)"), -5);
    near(ev("", "max(2, -5)"), 2);
    near(ev("", "pow(2, 10)"), 1024);
    near(ev("", "PI"), M_PI);
    near(ev("", "Max(1,Sqrt(9))"), 3);
}

/* Comparisons, logic, ?: and the PWL functions of B sources evaluated as
 * numbers in .param (SPICE: a nonzero value is true; u(0) = 1/2 and sgn(0) = 0
 * as ngspice 39's B source: `B5 e 0 V=u(0)` gives 0.5 with `ngspice -b`). */
/* min(x) and max(x) of one argument are x, as ngspice 39 takes them (max(3) = 3;
 * issue 28: an ngspice example's `.param cap_val = 'max(icap_calc(1,2,3,4))'`),
 * in values and in a B source (its PWL program: the term 2 V(a)). */
Test(expr, min_max_of_one_argument_is_the_argument)
{
    near(ev("", "max(-5)"), -5);
    near(ev(".func f(a,b) {2*a*sqrt(b)}", "min(f(1,4))"), 4);
    nsc_circuit *c = NULL;
    nsc_report_init(&R);
    cr_assert_eq(nsc_netlist_read_string("t\nV1 a 0 1\nB1 o 0 V=min(2*V(a))\nR1 o 0 1\n", "t.cir",
                                         NULL, 0, &c, &R),
                 NSC_OK, "%s", R.error);
    const nsc_bprog *p = nsc_bprog_of(&c->el[1]);
    cr_assert(p && p->nterm == 1 && p->term[0].kind == NSC_BT_V
              && p->term[0].idx == nsc_circuit_node(c, "a"));
    near(p->term[0].coef, 2);
    nsc_circuit_free(c);
    nsc_report_free(&R);
}

Test(expr, comparisons_logic_and_pwl_functions)
{
    near(ev("", "2>1"), 1);
    near(ev("", "2<1"), 0);
    near(ev("", "1>=1"), 1);
    near(ev("", "1<=0.5"), 0);
    near(ev("", "3==3"), 1);
    near(ev("", "3!=3"), 0);
    near(ev("", "1 && 0"), 0);
    near(ev("", "1 || 0"), 1);
    near(ev("", "!0"), 1);
    near(ev("", "!(2>1)"), 0);
    near(ev("", "1+1>1 ? 10 : 20"), 10);  /* + binds tighter than >, > than ?: */
    near(ev("", "0 ? 1 : 0 ? 2 : 3"), 3); /* ?: is right-associative */
    near(ev("", "1 || 0 && 0"), 1);       /* && binds tighter than || */
    near(ev("", "1 < 2 == 1"), 1);        /* < binds tighter than == */
    near(ev("", "u(2)+u(0)+u(-1)"), 1.5);
    near(ev("", "uramp(-2)+uramp(3)"), 3);
    near(ev("", "sgn(-4)+10*sgn(0)+100*sgn(5)"), 99);
    near(ev("", "limit(7,0,5)"), 5);
    near(ev("", "limit(-7,0,5)"), 0);
    near(ev("", "limit(3,5,0)"), 3); /* the median of the three (LTspice) */
    near(ev("", "if(0, 1, 2)"), 2);
    near(ev(".param a = 2 > 1 ? 4 : 5", "a"),
         4); /* bare .param value with blanks around operators */
}

Test(expr, param_chains)
{
    near(ev(".param a=2 b=2*a c={a+b}\n.param d = 'c**2' e = d - 1", "e"), 35);
    near(ev(".param rval=1k", "rval*2"), 2000);
    near(ev(".param x=1\n.param x=5", "x"), 5); /* later definition wins */
    near(ev(".PARAM Big=3", "big"), 3);
}

Test(expr, bare_param_name_as_value)
{
    nsc_circuit *c = NULL;
    nsc_report_init(&R);
    cr_assert_eq(nsc_netlist_read_string("t\n.param rl=47\nR1 a 0 rl\n", "t.cir", NULL, 0, &c, &R),
                 NSC_OK, "%s", R.error);
    near(c->el[0].value, 47);
    nsc_circuit_free(c);
    nsc_report_free(&R);
}

Test(expr, param_override)
{
    nsc_param_set ov[] = { { "A", 10 } };
    nsc_circuit *c = NULL;
    nsc_report_init(&R);
    cr_assert_eq(nsc_netlist_read_string("t\n.param a=2 b={a*3}\nR1 x 0 {b}\n", "t.cir", ov, 1, &c,
                                         &R),
                 NSC_OK);
    near(c->el[0].value, 30);
    nsc_circuit_free(c);
    nsc_report_free(&R);
    nsc_param_set bad[] = { { "zz", 1 } };
    cr_assert_eq(nsc_netlist_read_string("t\n.param a=2\nR1 x 0 {a}\n", "t.cir", bad, 1, &c, &R),
                 NSC_ENETLIST);
    cr_assert_null(c);
    cr_assert_str_eq(R.error, "nscircuit: error: no .param named zz");
    nsc_report_free(&R);
}

static void bad(const char *params, const char *expr, const char *msg)
{
    char text[2048];
    snprintf(text, sizeof text, "t\n%s\nR1 a 0 %s\n", params, expr);
    nsc_circuit *c = NULL;
    nsc_report_init(&R);
    cr_assert_eq(nsc_netlist_read_string(text, "t.cir", NULL, 0, &c, &R), NSC_ENETLIST,
                 "accepted %s", expr);
    cr_assert_null(c);
    cr_assert_str_eq(R.error, msg);
    nsc_report_free(&R);
}

Test(expr, errors)
{
    bad("", "{x}", "t.cir:3:9: error: undefined parameter 'x'");
    bad("", "{1/0}", "t.cir:3:10: error: division by zero");
    bad(".param z=0", "{1/(z*2)}", "t.cir:3:10: error: division by zero");
    bad("", "{1e308*10}", "t.cir:3:14: error: value is not finite (overflow)");
    bad("", "{exp(1000)}", "t.cir:3:9: error: value is not finite (overflow)");
    bad("", "{sqrt(-1)}", "t.cir:3:9: error: value is not finite (NaN)");
    bad("", "{log(0)}", "t.cir:3:9: error: value is not finite (overflow)");
    bad("", "1e999", "t.cir:3:8: error: value is not finite (overflow): '1e999'");
    bad("", "nan", "t.cir:3:8: error: bad value 'nan' (not a number or a .param name)");
    bad("", "inf", "t.cir:3:8: error: bad value 'inf' (not a number or a .param name)");
    bad("", "1x2", "t.cir:3:8: error: bad number '1x2'");
    bad("", "{foo(1)}", "t.cir:3:9: error: unknown function 'foo'");
    bad("", "{max(1,2,3)}", "t.cir:3:9: error: function 'max' takes 2 arguments");
    bad("", "{sqrt(1,2)}", "t.cir:3:9: error: function 'sqrt' takes 1 argument");
    bad(".param a=1 b=c", "1", "t.cir:2:14: error: undefined parameter 'c'");
    bad(".param b=a a=1", "1", "t.cir:2:10: error: undefined parameter 'a'"); /* order matters */
    bad(".param f(x)=x", "{f(1,2)}", "t.cir:3:9: error: function 'f' takes 1 argument, not 2");
    bad(".param f(x)=x+", "1",
        "t.cir:2:13: error: the body of function 'f' must be an expression in braces: f(...) {expr}");
    bad(".param 5", "1", "t.cir:2:8: error: expected name=value in .param, found '5'");
}

/* A netlist of user functions f0 .. fn (malloc'd): f0(x) = x + 1 and, with
 * chain, f_k(x) = f_{k-1}(x) + 1 + ... + 1 (pad ones: a body `pad` deep
 * around the inner call), else f_k(x) = f_{k-1}(x) + f_{k-1}(x) (a body of 3
 * nodes calling twice); then `use`, a card calling fn. */
static char *funcs_netlist(int n, int chain, int pad, const char *use)
{
    size_t cap = (size_t)(n + 1) * (64 + 2 * (size_t)pad) + 256;
    char *t = malloc(cap), *p = t;
    cr_assert(t);
    p += sprintf(p, "t\n.func f0(x) {x+1}\n");
    for (int k = 1; k <= n; k++) {
        if (chain) {
            p += sprintf(p, ".func f%d(x) {f%d(x)", k, k - 1);
            for (int j = 0; j < pad; j++) p += sprintf(p, "+1");
            p += sprintf(p, "}\n");
        } else p += sprintf(p, ".func f%d(x) {f%d(x)+f%d(x)}\n", k, k - 1, k - 1);
    }
    sprintf(p, use, n);
    return t;
}

static void funcs_bad(int n, int chain, int pad, const char *use, const char *msg)
{
    char *text = funcs_netlist(n, chain, pad, use);
    nsc_circuit *c = NULL;
    nsc_report_init(&R);
    cr_assert_eq(nsc_netlist_read_string(text, "t.cir", NULL, 0, &c, &R), NSC_ENETLIST,
                 "accepted %s", use);
    cr_assert_null(c);
    cr_assert_str_eq(R.error, msg);
    nsc_report_free(&R);
    free(text);
}

/* Issue 25 item 1: 33 nested calls, each body 1 990 deep (under the parser's
 * 2 000), nest 65 000 deep once inlined: SIGSEGV before (the recursion of the
 * evaluation, or of the inlining into a B source, overflowed the stack); now
 * an error at the call, in .param, in an element value and in a B source. The
 * same chain 1 level deep per body (f_33(x) = x + 1 + 33 * 1) still evaluates. */
Test(expr, functions_nested_too_deep_once_inlined)
{
    const char *msg =
        "t.cir:36:%d: error: calls of 'f33' nest deeper than 2000 levels once inlined (the limit of an "
        "expression's depth)";
    char want[256];
    snprintf(want, sizeof want, msg, 11);
    funcs_bad(33, 1, 1990, ".param p={f%d(1)}\nR1 a 0 {p}\n", want);
    snprintf(want, sizeof want, msg, 9);
    funcs_bad(33, 1, 1990, "R1 a 0 {f%d(1)}\n", want);
    snprintf(want, sizeof want, msg, 11);
    funcs_bad(33, 1, 1990, "B1 a 0 V={f%d(V(b))}\nR1 a 0 1\nR2 b 0 1\n", want);
    char *text = funcs_netlist(33, 1, 1,
                               ".param p={f%d(1)}\nR1 a 0 {p}\nB1 b 0 V={f33(V(a))}\nR2 b 0 1\n");
    nsc_circuit *c = NULL;
    nsc_report_init(&R);
    cr_assert_eq(nsc_netlist_read_string(text, "t.cir", NULL, 0, &c, &R), NSC_OK, "%s", R.error);
    near(c->el[0].value, 1 + 1 + 33);
    const nsc_bprog *p = nsc_bprog_of(&c->el[1]); /* v(a) + 34 */
    cr_assert(p->out.nt == 1 && p->term[p->out.t0].coef == 1);
    near(p->out.c, 34);
    nsc_circuit_free(c);
    nsc_report_free(&R);
    free(text);
}

/* Issue 25 item 2: f_k = f_{k-1}(x) + f_{k-1}(x) over 60 levels is 2^60
 * evaluations in .param (a hang before) and 2^60 nodes inlined into a B
 * source (memory doubling per level before): an error at the call once the
 * inlined expression passes 10^6 nodes. 10 levels still work: f_10(x) =
 * 2^10 (x + 1), in .param and as the B source's program 1024 v(a) + 1024. */
Test(expr, functions_inlined_too_large)
{
    const char *msg =
        "t.cir:63:%d: error: calls of 'f60' expand to more than 1000000 operations once inlined "
        "(functions calling functions several times?)";
    char want[256];
    snprintf(want, sizeof want, msg, 11);
    funcs_bad(60, 0, 0, ".param p={f%d(1)}\nR1 a 0 {p}\n", want);
    funcs_bad(60, 0, 0, "B1 a 0 V={f%d(V(b))}\nR1 a 0 1\nR2 b 0 1\n", want);
    char *text = funcs_netlist(10, 0, 0,
                               ".param p={f%d(2)}\nR1 a 0 {p}\nB1 b 0 V={f10(V(a))}\nR2 b 0 1\n");
    nsc_circuit *c = NULL;
    nsc_report_init(&R);
    cr_assert_eq(nsc_netlist_read_string(text, "t.cir", NULL, 0, &c, &R), NSC_OK, "%s", R.error);
    near(c->el[0].value, 1024 * 3);
    const nsc_bprog *p = nsc_bprog_of(&c->el[1]);
    cr_assert(p->out.nt == 1 && p->term[p->out.t0].coef == 1024);
    near(p->out.c, 1024);
    nsc_circuit_free(c);
    nsc_report_free(&R);
    free(text);
}

/* A user function named as a built-in replaces it in every expression, with a
 * warning (issue 25 item 12; ngspice 39 applies `.func abs(x) {x+10}` in .param,
 * abs(-3) = 7, but not in a B source): R1 = abs(-3) = -3 + 10. */
Test(expr, function_over_a_builtin_is_warned)
{
    nsc_circuit *c = NULL;
    nsc_report_init(&R);
    cr_assert_eq(nsc_netlist_read_string("t\n.func abs(x) {x+10}\nR1 a 0 {abs(-3)}\nV1 a 0 1\n",
                                         "t.cir", NULL, 0, &c, &R),
                 NSC_OK, "%s", R.error);
    near(c->el[0].value, 7);
    cr_assert(R.nwarn == 1
                  && !strcmp(R.warn[0],
                             "t.cir:2:7: warning: function 'abs' replaces the built-in abs() in "
                             "every expression"),
              "%d: %s", R.nwarn, R.nwarn ? R.warn[0] : "");
    nsc_circuit_free(c);
    nsc_report_free(&R);
}

/* the netlist "t\n<params>\nR1 a 0 {p}\n" fails with exactly msg */
static void param_bad(const char *params, const char *msg)
{
    char text[1024];
    snprintf(text, sizeof text, "t\n%s\nR1 a 0 {p}\n", params);
    nsc_circuit *c = NULL;
    nsc_report_init(&R);
    cr_assert_eq(nsc_netlist_read_string(text, "t.cir", NULL, 0, &c, &R), NSC_ENETLIST,
                 "accepted %s", params);
    cr_assert_null(c);
    cr_assert_str_eq(R.error, msg);
    nsc_report_free(&R);
}

/* Issue 26 item 1: a .param value is compiled and run by the evaluator of B
 * sources and .meas (base/xcode.h nsc_xrun_check), its values checked. What
 * fails in the branch ?: does not choose is no error (an undefined name, a
 * division by zero, an unknown function, as the tree evaluation before); the
 * first failure in evaluation order is the one reported, at its position. */
Test(expr, param_errors_where_the_value_is_used)
{
    near(ev(".param p={0 ? undefx : 1}", "p"), 1);
    near(ev(".param p={0 ? 1/0 : 2}", "p"), 2);
    near(ev(".param p={1 ? 3 : foo(1)}", "p"), 3);
    near(ev(".param p={0 ? sin(1, 2) : 4}", "p"), 4);
    near(ev(".param p={0 ? sqrt(-1) : 5}", "p"), 5);
    param_bad(".param p={1 ? 1/0 : 2}", "t.cir:2:16: error: division by zero");
    param_bad(".param p={(1/0) ? 1 : 2}", "t.cir:2:13: error: division by zero");
    param_bad(".param p={undefx + 1/0}", "t.cir:2:11: error: undefined parameter 'undefx'");
    param_bad(".param p={1/0 + undefx}", "t.cir:2:12: error: division by zero");
    param_bad(".param p={2 + foo(1)}", "t.cir:2:15: error: unknown function 'foo'");
    param_bad(".param p={2 * sin(1, 2)}", "t.cir:2:15: error: function 'sin' takes 1 argument");
    param_bad(".param p={1 + sqrt(-1)}", "t.cir:2:15: error: value is not finite (NaN)");
    param_bad(".param p={1 + 1e308*10}", "t.cir:2:20: error: value is not finite (overflow)");
    param_bad(".func g(x, y) {x/y}\n.param p={2*g(1, 1) + g(3, 0)}",
              "t.cir:2:17: error: division by zero");
}

/* Issue 26 item 1: user functions in .param are inlined as in a B source
 * (nl_expr_expand) before the value is compiled. Two consequences where the
 * tree evaluation differed: an argument the body does not use is not
 * evaluated (ngspice 39 agrees: `.func f(x) {1}` `.param p={f(1/0)}` prints
 * v(a) = 1 for `V1 a 0 {p}`, `ngspice -b` with `op` and `print v(a)` in a
 * .control block; the tree evaluation said "division by zero"), and a
 * recursive function is refused even with a base case (ngspice 39 ends with
 * a segmentation fault on `.func fact(n) {n<=1 ? 1 : n*fact(n-1)}`; the tree
 * evaluation gave 120 through its lazy ?:), as B sources refuse it. */
Test(expr, param_user_functions_inlined_as_in_b_sources)
{
    near(ev(".func f(x) {1}\n.param p={f(1/0)}", "p"), 1);
    near(ev(".func f(x, y) {x*y+x}\n.param q=3\n.param p={f(q, 2)}", "p"), 9);
    param_bad(".func fact(n) {n<=1 ? 1 : n*fact(n-1)}\n.param p={fact(5)}",
              "t.cir:2:29: error: calls of 'fact' nested too deeply (a recursive function?)");
    param_bad(".func f(x) {x}\n.param p={1/0 + f(1, 2)}",
              "t.cir:3:17: error: function 'f' takes 1 argument, not 2");
}
