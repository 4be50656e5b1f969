/* test_util.c -- diagnostics: message format, first error kept, warnings de-duplicated. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "base/util.h"

Test(util, error_format_and_first_error_wins)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_loc loc = { "rect.cir", 12, 5 };
    cr_assert_eq(nsc_err(&r, NSC_ENETLIST, &loc, "unknown model '%s' for diode %s", "dx", "d3"),
                 NSC_ENETLIST);
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

/* Temporaries left by a killed run (issue 16 item 8: SIGKILL left a 137 MB
 * one) are named "<path>.nsc-<host>-<pid>.XXXXXX" and removed by the next
 * run writing path when their process is gone; a live process's, another
 * host's, a symlink and other names stay. Before, temporaries were
 * "<path>.XXXXXX" and stayed for good. */
Test(util, stale_temporaries_of_dead_processes_are_removed)
{
    char *dir = tu_tmpdir(), path[512], name[700];
    snprintf(path, sizeof path, "%s/out.dat", dir);
    char *tmpl = nsc_tmp_template(path);
    cr_assert_not_null(tmpl);
    char *dash = strrchr(tmpl, '-'); /* "<path>.nsc-<host>-" */
    cr_assert_not_null(dash);
    dash[1] = 0;
    pid_t child = fork();
    if (child == 0) _exit(0);
    cr_assert(child > 0);
    waitpid(child, NULL, 0); /* a pid that is gone */
    const char *keep[3], *gone;
    char b0[700], b1[700], b2[700], b3[700], b4[700];
    snprintf(b0, sizeof b0, "%s%ld.AbC123", tmpl, (long)child);
    snprintf(b1, sizeof b1, "%s%ld.AbC123", tmpl, (long)getpid());
    snprintf(b2, sizeof b2, "%s.nsc-otherhost-%ld.AbC123", path, (long)child);
    snprintf(b3, sizeof b3, "%s%ld.AbC124", tmpl, (long)child);
    snprintf(b4, sizeof b4, "%s%ld.AbC12", tmpl, (long)child); /* not the form */
    gone = b0;
    keep[0] = b1;
    keep[1] = b2;
    keep[2] = b4;
    const char *all[] = { b0, b1, b2, b4 };
    for (int k = 0; k < 4; k++) cr_assert_eq(tu_write_file(all[k], "x"), 0, "%s", all[k]);
    snprintf(name, sizeof name, "%s/victim", dir);
    cr_assert_eq(tu_write_file(name, "v"), 0);
    cr_assert_eq(symlink(name, b3), 0); /* a stale-looking symlink */
    nsc_reap_stale(path);
    struct stat sb;
    cr_assert_neq(lstat(gone, &sb), 0, "%s stayed", gone);
    for (int k = 0; k < 3; k++) cr_assert_eq(lstat(keep[k], &sb), 0, "%s removed", keep[k]);
    cr_assert(lstat(b3, &sb) == 0 && S_ISLNK(sb.st_mode) && stat(name, &sb) == 0,
              "symlink or its target removed");
    free(tmpl);
    tu_rmdir(dir);
    free(dir);
}
