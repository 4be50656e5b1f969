/* test_sweep.c -- parameter studies (sweep.h, nscircuit sweep). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"
#include "testutil.h"

Test(sweep, plan_cartesian_product_axis0_fastest)
{
    nsc_plan p;
    nsc_plan_init(&p);
    nsc_report r;
    nsc_report_init(&r);
    double a[] = { 1, 2, 3 }, b[] = { 10, 20 };
    cr_assert_eq(nsc_plan_set(&p, "a", a, 3, 0, &r), NSC_OK);
    cr_assert_eq(nsc_plan_set(&p, "B", b, 2, 0, &r), NSC_OK);
    cr_assert_eq(p.npoint, 6);
    double v[2];
    nsc_plan_point(&p, 4, v);                          /* 4 = 1 + 3 * 1 */
    cr_assert_eq(v[0], 2);
    cr_assert_eq(v[1], 20);
    cr_assert_str_eq(p.axis[1].name, "b");
    nsc_plan_free(&p);
    nsc_report_free(&r);
}
