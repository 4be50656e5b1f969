/* test_cli.c -- the program's interface: --help and compare --help list exactly
 * the options of the man page nscircuit.1, --version, usage errors. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* the long options ("--name") of text, groff's "\-\-" read as "--"; *n of them */
static int options_of(const char *text, char opts[][32], int cap)
{
    int n = 0;
    for (const char *p = text; *p; p++) {
        int groff = !strncmp(p, "\\-\\-", 4);
        if (!groff && strncmp(p, "--", 2)) continue;
        const char *q = p + (groff ? 4 : 2), *s = q;
        char name[32];
        int k = 0;
        while (k < 31
               && (isalnum((unsigned char)*q) || *q == '-' || (q[0] == '\\' && q[1] == '-'))) {
            if (*q == '\\') q++;
            name[k++] = *q++;
        }
        name[k] = 0;
        p = q - 1;
        if (k == 0 || q == s) continue;
        int dup = 0;
        for (int j = 0; j < n; j++) dup |= !strcmp(opts[j], name);
        if (!dup && n < cap) strcpy(opts[n++], name);
    }
    return n;
}

static int has(char opts[][32], int n, const char *name)
{
    for (int j = 0; j < n; j++)
        if (!strcmp(opts[j], name)) return 1;
    return 0;
}

Test(cli, help_matches_the_man_page)
{
    char *man = tu_read_file(NSC_TOP_SRCDIR "/nscircuit.1");
    cr_assert(man, "no nscircuit.1");
    char *help = NULL, *chelp = NULL;
    cr_assert_eq(tu_run(NSC_PROGRAM " --help", &help), 0);
    cr_assert_eq(tu_run(NSC_PROGRAM " compare --help", &chelp), 0);
    static char m[128][32], h[128][32], c[128][32];
    int nm = options_of(man, m, 128), nh = options_of(help, h, 128), nc = options_of(chelp, c, 128);
    cr_assert(nh >= 14 && nc >= 6, "%d %d", nh, nc);
    for (int k = 0; k < nh; k++)
        cr_assert(has(m, nm, h[k]), "--%s of --help is not in nscircuit.1", h[k]);
    for (int k = 0; k < nc; k++)
        cr_assert(has(m, nm, c[k]), "--%s of compare --help is not in nscircuit.1", c[k]);
    for (int k = 0; k < nm; k++)
        cr_assert(has(h, nh, m[k]) || has(c, nc, m[k]), "--%s of nscircuit.1 is in neither --help",
                  m[k]);
    cr_assert(strstr(man, ".TH NSCIRCUIT 1") && strstr(man, ".SH EXIT STATUS"));
    free(man);
    free(help);
    free(chelp);
}

Test(cli, version_and_usage_errors)
{
    char *out = NULL;
    cr_assert_eq(tu_run(NSC_PROGRAM " --version", &out), 0);
    cr_assert(!strncmp(out, "nscircuit ", 10), "%s", out);
    free(out);
    const char *bad[] = {
        "",        "--format xyz x.cir", "--nosuch x.cir",       "--theta 2 x.cir",
        "compare", "compare a",          "compare --tol -1 a b", "compare --from x a b"
    };
    for (int k = 0; k < 8; k++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "%s %s 2>&1", NSC_PROGRAM, bad[k]);
        cr_assert_eq(tu_run(cmd, &out), 2, "'%s': %s", bad[k], out);
        cr_assert(strstr(out, "error"), "'%s': %s", bad[k], out);
        free(out);
    }
}

/* .op prints circuit quantities, not solver variables: a diode's current i(d1)
 * (it printed the multiplier "l(d1)" before), the inductor's and the source's.
 * Analytic: VF = 0.7 V in series with 1 kOhm from 5 V, the inductor a DC short,
 * so i = 4.3 mA, v(b) = 0.7 V; i(v1) = -4.3 mA (SPICE's sign: into the + node). */
Test(cli, op_prints_device_currents)
{
    char *dir = tu_tmpdir(), *cmd = NULL, *out = NULL;
    cr_assert_not_null(dir);
    char path[512];
    snprintf(path, sizeof path, "%s/op.cir", dir);
    cr_assert_eq(tu_write_file(path, "op currents\nV1 a 0 5\nR1 a b 1k\nD1 b c DV\nL1 c 0 1m\n"
                                     "C1 b 0 1u\n.model DV D(VF=0.7)\n.op\n.end\n"),
                 0);
    cmd = malloc(strlen(path) + 64);
    sprintf(cmd, "'%s' '%s'", NSC_PROGRAM, path);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out ? out : "");
    cr_assert_null(strstr(out, "l(d1)"), "%s", out);
    const char *want[][2] = { { "v(b)", "7.0000000000e-01" },
                              { "i(d1)", "4.3000000000e-03" },
                              { "i(l1)", "4.3000000000e-03" },
                              { "i(v1)", "-4.3000000000e-03" } };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        const char *p = strstr(out, want[k][0]);
        cr_assert_not_null(p, "%s missing in:\n%s", want[k][0], out);
        double v = strtod(strchr(p, '=') + 1, NULL);
        cr_assert_float_eq(v, strtod(want[k][1], NULL), 1e-12, "%s = %g", want[k][0], v);
    }
    free(cmd);
    free(out);
    tu_rmdir(dir);
    free(dir);
}

/* Diagnostics come before the run's summary ("wrote ..." came first before), and
 * --quiet drops notes but keeps warnings. */
Test(cli, warnings_before_summary_and_quiet_hides_notes)
{
    char *dir = tu_tmpdir(), *out = NULL;
    cr_assert_not_null(dir);
    char path[512], cmd[1400];
    snprintf(path, sizeof path, "%s/w.cir", dir);
    cr_assert_eq(tu_write_file(path, "w\nV1 a 0 SIN(0 5 1k)\nR1 a b 1k\nC1 b 0 1u\n.options foo=1\n"
                                     ".tran 10u 1m\n.meas tran vm avg v(b) from=0 to=1m\n"
                                     ".meas tran never when v(b)=100\n.end\n"),
                 0);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' w.cir 2>&1 >/dev/null", dir, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out ? out : "");
    const char *note = strstr(out, "note: option 'foo' ignored"), *wrote = strstr(out, "wrote ");
    cr_assert(note && wrote && note < wrote, "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' --quiet w.cir 2>&1 >/dev/null", dir, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out ? out : "");
    cr_assert_null(strstr(out, "note:"), "%s", out);
    cr_assert_null(strstr(out, "wrote "), "%s", out);
    free(out);
    tu_rmdir(dir);
    free(dir);
}

/* The built ./nscircuit is the program itself, not libtool's wrapper script
 * (about 70 ms of shell before main on every run and every sweep point): the
 * library is a convenience library linked in statically. */
Test(cli, built_program_is_the_real_binary)
{
    char *bin = tu_read_file(NSC_PROGRAM);
    cr_assert_not_null(bin);
    cr_assert(!memcmp(bin,
                      "\x7f"
                      "ELF",
                      4),
              "%s is not an ELF binary: %.40s", NSC_PROGRAM, bin);
    free(bin);
}

/* The netlist the README shows is the shipped netlists/rectifier.cir, line for
 * line (the README's version had a floating node n and v(p,n): it did not run
 * as shown). */
Test(cli, readme_rectifier_is_the_shipped_netlist)
{
    char *readme = tu_read_file(NSC_TOP_SRCDIR "/README.md");
    char *net = tu_read_file(NSC_NETLISTS "/rectifier.cir");
    cr_assert(readme && net);
    const char *b = strstr(readme, "\n    Diode bridge rectifier fed by an LC tank");
    cr_assert_not_null(b, "the README shows no rectifier netlist");
    b++;
    size_t n = 0;
    char *shown = malloc(strlen(b) + 1);
    for (const char *p = b; *p;) { /* the indented block, indent removed */
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 0 || strncmp(p, "    ", 4)) break;
        memcpy(shown + n, p + 4, len - 4);
        n += len - 4;
        shown[n++] = '\n';
        p += len + (e != NULL);
    }
    shown[n] = 0;
    cr_assert_str_eq(shown, net);
    free(shown);
    free(readme);
    free(net);
}
