/* The stage folders of src/ are a layering (README "Layout", issue 26 item 4):
 * tests/check_layers.sh passes on this tree and its build, and fails, naming
 * the file, the line and the include (or the symbol), on copies of the tree
 * into which a break of the layering has been put: an upward include, a
 * cycle of headers, an upward call, a folder outside the order, a header that
 * does not compile alone. Every copy is in a fresh temporary directory. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define SCRIPT NSC_TOP_SRCDIR "/tests/check_layers.sh"

/* A copy of the sources of src/ (*.c *.h *.y *.l, no objects) in dir/src. */
static void copy_src(const char *dir)
{
    char cmd[2048];
    snprintf(
        cmd, sizeof cmd,
        "mkdir -p '%s/src' && cd '%s/src' && find . -name '*.[chyl]' -print0 | xargs -0 cp --parents -t '%s/src'",
        dir, NSC_TOP_SRCDIR, dir);
    cr_assert_eq(tu_run(cmd, NULL), 0, "%s", cmd);
}

/* Run the script with options on dir/src; its exit status, output into *out. */
static int check(const char *dir, const char *opts, char **out)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "bash '%s' %s '%s/src' 2>&1", SCRIPT, opts, dir);
    return tu_run(cmd, out);
}

/* Put line (and a newline) before the first line of dir/src/rel. */
static void prepend(const char *dir, const char *rel, const char *line)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/src/%s", dir, rel);
    char *old = tu_read_file(path);
    cr_assert_not_null(old, "%s", path);
    char *text = malloc(strlen(old) + strlen(line) + 2);
    sprintf(text, "%s\n%s", line, old);
    cr_assert_eq(tu_write_file(path, text), 0);
    free(text);
    free(old);
}

Test(layers, this_tree_is_a_layering)
{
    char *out = NULL, cmd[2048];
    snprintf(cmd, sizeof cmd, "bash '%s' --symbols '%s' '%s/src' 2>&1", SCRIPT, NSC_TOP_BUILDDIR,
             NSC_TOP_SRCDIR);
    int rc = tu_run(cmd, &out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_str_empty(out, "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "bash '%s' --graph '%s/src' 2>&1", SCRIPT, NSC_TOP_SRCDIR);
    cr_assert_eq(tu_run(cmd, &out), 0);
    cr_assert_not_null(strstr(out, "  devices -> lcs: "), "%s",
                       out); /* the devices write through stamp.h */
    cr_assert_null(strstr(out, "  lcs -> devices"), "%s", out); /* and the assembler names none */
    cr_assert_null(strstr(out, "  netlist -> analysis"), "%s", out);
    free(out);
}

Test(layers, an_upward_include_is_refused)
{
    char *dir = tu_tmpdir(), *out = NULL;
    copy_src(dir);
    cr_assert_eq(check(dir, "", &out), 0, "%s", out); /* the copy passes as it is */
    free(out);
    prepend(dir, "netlist/nl_deck.c", "#include \"analysis/run.h\"");
    cr_assert_eq(check(dir, "", &out), 1);
    cr_assert_str_eq(
        out,
        "src/netlist/nl_deck.c:1: includes \"analysis/run.h\": netlist may include only "
        "earlier stages (base circuit lcs devices netlist solve output analysis cli), not analysis\n");
    free(out);
    tu_rmdir(dir);
    free(dir);
}

/* A header that includes one of its includers: a cycle, even within one stage
 * (include guards make it compile, in one order only). */
Test(layers, a_cycle_of_headers_is_refused)
{
    char *dir = tu_tmpdir(), *out = NULL;
    copy_src(dir);
    prepend(dir, "lcs/lcs.h", "#include \"lcs/stamp.h\""); /* stamp.h includes lcs.h */
    cr_assert_eq(check(dir, "", &out), 1);
    cr_assert_str_eq(out, "headers include each other in a cycle:\n  lcs/lcs.h lcs/stamp.h\n", "%s",
                     out);
    free(out);
    tu_rmdir(dir);
    free(dir);
}

Test(layers, a_folder_outside_the_order_is_refused)
{
    char *dir = tu_tmpdir(), *out = NULL, path[1024];
    copy_src(dir);
    snprintf(path, sizeof path, "mkdir '%s/src/extra'", dir);
    cr_assert_eq(tu_run(path, NULL), 0);
    snprintf(path, sizeof path, "%s/src/extra/x.c", dir);
    cr_assert_eq(tu_write_file(path, "#include \"base/util.h\"\n"), 0);
    cr_assert_eq(check(dir, "", &out), 1);
    cr_assert_str_eq(out, "src/extra/x.c: stage 'extra' is not in the layering "
                          "(base circuit lcs devices netlist solve output analysis cli)\n");
    free(out);
    tu_rmdir(dir);
    free(dir);
}

/* A call upward without an include (a declaration written in the caller): the
 * objects of a small tree say it. */
Test(layers, an_upward_call_is_refused)
{
    char *dir = tu_tmpdir(), *out = NULL, cmd[4096];
    snprintf(
        cmd, sizeof cmd,
        "cd '%s' && mkdir -p src/base src/cli build/src/base/.libs build/src/cli"
        " && printf 'int nsc_main_helper(void);\\nint nsc_base_f(void) { return nsc_main_helper(); }\\n' > src/base/f.c"
        " && printf 'int nsc_main_helper(void) { return 1; }\\n' > src/cli/main.c"
        " && cc -c src/base/f.c -o build/src/base/.libs/f.o && cc -c src/cli/main.c -o build/src/cli/nscircuit-main.o",
        dir);
    cr_assert_eq(tu_run(cmd, NULL), 0, "%s", cmd);
    cr_assert_eq(check(dir, "", &out), 0, "%s", out); /* no include: the includes pass */
    free(out);
    snprintf(cmd, sizeof cmd, "--symbols '%s/build'", dir);
    cr_assert_eq(check(dir, cmd, &out), 1);
    cr_assert_str_eq(
        out, "src/base/f.c: uses nsc_main_helper of src/cli/main.c: base may use only earlier "
             "stages, not cli\n");
    free(out);
    tu_rmdir(dir);
    free(dir);
}

Test(layers, a_header_that_does_not_compile_alone_is_refused)
{
    char *dir = tu_tmpdir(), *out = NULL, path[1024];
    snprintf(path, sizeof path, "mkdir -p '%s/src/base'", dir);
    cr_assert_eq(tu_run(path, NULL), 0);
    snprintf(path, sizeof path, "%s/src/base/a.h", dir);
    cr_assert_eq(tu_write_file(path, "#include <stddef.h>\nsize_t nsc_a(void);\n"), 0);
    snprintf(path, sizeof path, "%s/src/base/b.h", dir);
    cr_assert_eq(tu_write_file(path, "size_t nsc_b(void);   /* size_t: no include */\n"), 0);
    cr_assert_eq(check(dir, "--headers cc", &out), 1);
    cr_assert_not_null(strstr(out, "src/base/b.h does not compile alone:"), "%s", out);
    cr_assert_null(strstr(out, "src/base/a.h"), "%s", out);
    free(out);
    tu_rmdir(dir);
    free(dir);
}
