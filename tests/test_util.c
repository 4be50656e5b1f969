/* test_util.c -- diagnostics: message format, first error kept, warnings de-duplicated. */
#include <criterion/criterion.h>
#include <string.h>

#include "util.h"

Test(util, error_format_and_first_error_wins)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_loc loc = { "rect.cir", 12, 5 };
    cr_assert_eq(nsc_err(&r, NSC_ENETLIST, &loc, "unknown model '%s' for diode %s", "dx", "d3"), NSC_ENETLIST);
    cr_assert_str_eq(r.error, "rect.cir:12:5: error: unknown model 'dx' for diode d3");
    nsc_err(&r, NSC_ESIM, NULL, "second");
    cr_assert_eq(r.status, NSC_ENETLIST);
    cr_assert_str_eq(r.error, "rect.cir:12:5: error: unknown model 'dx' for diode d3");
    nsc_report_free(&r);
    nsc_err(&r, NSC_ESIM, NULL, "no position %d", 3);
    cr_assert_str_eq(r.error, "nscircuit: error: no position 3");
    nsc_report_free(&r);
}

Test(util, warnings_deduplicated)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_loc loc = { "a.cir", 3, 1 };
    for (int k = 0; k < 5; k++) nsc_warn(&r, &loc, "parameter %s ignored", "cjo");
    nsc_note(&r, NULL, "option %s ignored", "reltol");
    cr_assert_eq(r.nwarn, 2);
    cr_assert_str_eq(r.warn[0], "a.cir:3:1: warning: parameter cjo ignored");
    cr_assert_str_eq(r.warn[1], "nscircuit: note: option reltol ignored");
    cr_assert_eq(r.status, NSC_OK);
    nsc_report_free(&r);
}

Test(util, strings)
{
    cr_assert(nsc_strieq("MEG", "meg"));
    cr_assert(!nsc_strieq("me", "meg"));
    char s[] = "V(Out)";
    cr_assert_str_eq(nsc_strlower(s), "v(out)");
    int *a = NULL, cap = 0;
    cr_assert_eq(nsc_grow((void **)&a, &cap, 100, sizeof *a), 0);
    cr_assert_geq(cap, 100);
    free(a);
}
