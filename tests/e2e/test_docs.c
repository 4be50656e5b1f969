/* test_docs.c -- every command the documentation shows runs as written
 * (tests/docs/doc_commands.sh: README.md, netlists/README.md, the man page's
 * EXAMPLES, in a scratch copy of the tree). Issue 25 item 20: the README's
 * `nscircuit --steady` (no such command in a clone), netlists/README.md's
 * ../main/ paths and `.include diodes.lib` before `make install` failed. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* ~1.5 min of processor time (sweeps, the pictures' script); not in a
 * sanitizer build, where the same program runs the suite's own cases and CI
 * runs the examples under valgrind. */
Test(docs, commands_run_as_written, .timeout = 1500)
{
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test(
        "sanitizer build: the documentation's commands run in the plain build's make check");
#else
    char cmd[4096], *out = NULL;
    setenv("NSC_TEST_DEADLINE", "1400", 1);
    snprintf(cmd, sizeof cmd, "sh %s/tests/docs/doc_commands.sh %s %s 2>&1", NSC_TOP_SRCDIR,
             NSC_TOP_SRCDIR, NSC_TOP_BUILDDIR);
    int rc = tu_run(cmd, &out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, " 0 failed"), "%s", out);
    free(out);
#endif
}
