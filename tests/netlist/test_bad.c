/* test_bad.c -- hostile and wrong netlists.
 *
 * bad/corpus: tests/bad/NAME.cir holds one error class; NAME.expect holds the
 * program's exit status on its first line, then its exact stderr. The program
 * runs from inside tests/bad (so messages show the bare file name) with -o into
 * a temporary directory, which must stay empty: no output after an error.
 *
 * fuzz_regress: inputs that once crashed, hung or leaked (tests/fuzz/regress,
 * found by the libFuzzer harness, see tests/fuzz/README.md) and generated
 * hostile inputs too big to keep as files: they must give either a circuit or
 * one error line, never a crash, and quickly (elaboration is linear). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lcs/lcs.h"
#include "netlist/netlist.h"
#include "testutil.h"

#define BADDIR NSC_TOP_SRCDIR "/tests/bad"
#define REGRESSDIR NSC_TOP_SRCDIR "/tests/fuzz/regress"

/* Ill-posed circuits not detected yet: their .expect holds the message they
 * should give. Each must still FAIL its check; once one passes, the check exists
 * and the name must leave this list. (Empty: lcs_topo.c detects them all.) */
static const char *const XFAIL[] = {
    NULL,
};

static int is_xfail(const char *name)
{
    for (size_t k = 0; k < sizeof XFAIL / sizeof XFAIL[0]; k++)
        if (XFAIL[k] && !strcmp(name, XFAIL[k])) return 1;
    return 0;
}

static int cmpstr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the files in dir ending with suffix (without it when strip). */
static char **list_dir(const char *dir, const char *suffix, int strip, int *n)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "cannot open %s", dir);
    char **v = NULL;
    int cap = 0;
    *n = 0;
    size_t ls = strlen(suffix);
    for (struct dirent *e; (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (e->d_name[0] == '.' || l < ls || strcmp(e->d_name + l - ls, suffix)) continue;
        if (*n == cap) v = realloc(v, sizeof *v * (size_t)(cap = cap ? 2 * cap : 64));
        v[(*n)++] = strip ? strndup(e->d_name, l - ls) : strdup(e->d_name);
    }
    closedir(d);
    qsort(v, (size_t)*n, sizeof *v, cmpstr);
    return v;
}

static void free_list(char **v, int n)
{
    for (int k = 0; k < n; k++) free(v[k]);
    free(v);
}

/* Run the program on tests/bad/NAME.cir; 1 if status and stderr are as expected. */
static int run_bad(const char *name, const char *tmp, char **why)
{
    char path[4096], cmd[8192];
    snprintf(path, sizeof path, "%s/%s.expect", BADDIR, name);
    char *exp = tu_read_file(path);
    if (!exp) {
        *why = strdup("no .expect file");
        return 0;
    }
    int want = atoi(exp);
    char *at = strstr(exp, "@MODELDIR@"); /* the models directories searched: the */
    if (at) {                             /* build tree's program reads the source tree's first */
        const char *dirs = NSC_TOP_SRCDIR "/models, " NSC_MODELDIR;
        char *e = malloc(strlen(exp) + strlen(dirs) + 1);
        cr_assert(e);
        sprintf(e, "%.*s%s%s", (int)(at - exp), exp, dirs, at + 10);
        free(exp);
        exp = e;
    }
    const char *msg = strchr(exp, '\n');
    msg = msg ? msg + 1 : "";
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' -o '%s/out.dat' '%s.cir' 2>&1 >/dev/null", BADDIR,
             NSC_PROGRAM, tmp, name);
    char *out = NULL;
    int got = tu_run(cmd, &out);
    /* compare without the final newline(s) */
    size_t lo = strlen(out), le = strlen(msg);
    while (lo && out[lo - 1] == '\n') out[--lo] = 0;
    while (le && msg[le - 1] == '\n') le--;
    int ok = got == want && lo == le && !strncmp(out, msg, le);
    struct stat sb;
    snprintf(path, sizeof path, "%s/out.dat", tmp);
    int wrote = stat(path, &sb) == 0;
    if (ok && want != 0 && wrote) ok = 0;
    if (!ok) {
        size_t n = strlen(out) + le + 256;
        *why = malloc(n);
        snprintf(*why, n, "exit %d (expected %d)%s\n  got:      %s\n  expected: %.*s", got, want,
                 want != 0 && wrote ? ", output file written" : "", out, (int)le, msg);
    }
    remove(path);
    snprintf(path, sizeof path, "%s/out.gp", tmp);
    remove(path);
    free(out);
    free(exp);
    return ok;
}

Test(bad, corpus, .timeout = 120)
{
    int n, ne;
    char **cir = list_dir(BADDIR, ".cir", 1, &n);
    char **expect = list_dir(BADDIR, ".expect", 1, &ne);
    cr_assert_geq(n, 50, "tests/bad holds %d netlists", n);
    cr_expect_eq(n, ne, "%d .cir files but %d .expect files", n, ne);
    char *tmp = tu_tmpdir();
    int nx = 0;
    for (int k = 0; k < n; k++) {
        char *why = NULL;
        int ok = run_bad(cir[k], tmp, &why);
        if (is_xfail(cir[k])) {
            nx++;
            cr_expect(!ok, "%s.cir is now detected as expected: remove it from XFAIL in test_bad.c",
                      cir[k]);
        } else cr_expect(ok, "%s.cir: %s", cir[k], why ? why : "");
        free(why);
    }
    int nxfail = 0;
    for (size_t k = 0; k < sizeof XFAIL / sizeof XFAIL[0]; k++) nxfail += XFAIL[k] != NULL;
    cr_expect_eq(nx, nxfail, "an XFAIL name has no netlist");
    tu_rmdir(tmp);
    free(tmp);
    free_list(cir, n);
    free_list(expect, ne);
}

/* ---- fuzzing regressions ---- */

/* Read, elaborate and (when it elaborates) assemble in every mode; returns the
 * status of the read and checks the report's invariants. */
static nsc_status survive(const char *text, const char *path, char **error)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_circuit *c = NULL;
    nsc_status st = text ? nsc_netlist_read_string(text, "fuzz.cir", NULL, 0, &c, &r)
                         : nsc_netlist_read(path, NULL, 0, &c, &r);
    cr_assert((st == NSC_OK) == (c != NULL), "%s: status %d, circuit %p", path, st, (void *)c);
    cr_assert((st == NSC_OK) == (r.error == NULL), "%s: status %d, error %s", path, st,
              r.error ? r.error : "(none)");
    if (r.error) {
        cr_assert(strstr(r.error, "error: ") && !strchr(r.error, '\n'),
                  "%s: malformed message '%s'", path, r.error);
        cr_assert(st == NSC_ENETLIST || st == NSC_EIO, "%s: status %d (%s)", path, st, r.error);
    }
    static const nsc_asm_mode modes[] = { NSC_ASM_TRAN, NSC_ASM_OP, NSC_ASM_UIC };
    for (int k = 0; c && k < 3; k++) {
        nsc_report ar;
        nsc_report_init(&ar);
        nsc_lcs *L = NULL;
        nsc_status as = nsc_lcs_assemble(c, modes[k], 1e-12, &L, &ar);
        cr_assert((as == NSC_OK) == (ar.error == NULL), "%s: assembler status %d", path, as);
        nsc_lcs_free(L);
        nsc_report_free(&ar);
    }
    if (error) *error = r.error ? strdup(r.error) : NULL;
    nsc_circuit_free(c);
    nsc_report_free(&r);
    return st;
}

Test(fuzz_regress, corpus, .timeout = 120)
{
    int n;
    char **f = list_dir(REGRESSDIR, "", 0, &n);
    cr_assert_geq(n, 1);
    for (int k = 0; k < n; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", REGRESSDIR, f[k]);
        survive(NULL, path, NULL);
    }
    free_list(f, n);
}

/* smallest power of 2 >= n: the capacity of a buffer of rep/add */
static size_t cap2(size_t n)
{
    size_t c = 64;
    while (c < n) c *= 2;
    return c;
}

/* s repeated n times into a growing buffer (capacity doubled: linear even
 * where realloc always copies, as under AddressSanitizer) */
static void rep(char **b, size_t *len, const char *s, long n)
{
    size_t l = strlen(s), need = *len + l * (size_t)n + 1;
    if (!*b || need > cap2(*len + 1)) *b = realloc(*b, cap2(need));
    for (long k = 0; k < n; k++, *len += l) memcpy(*b + *len, s, l);
    (*b)[*len] = 0;
}

static void add(char **b, size_t *len, const char *fmt, ...)
{
    char t[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t, sizeof t, fmt, ap);
    va_end(ap);
    rep(b, len, t, 1);
}

/* The sanitizer build's slowdown of these parses (AddressSanitizer: 2-6x; the
 * 20 000 ports took 0.87 s plain, 5.2 s sanitized on a loaded machine, over
 * the budget of 5): the budgets guard against blow-ups (a quadratic pass over
 * 100 000 fields), not against a constant factor. */
#if defined(__SANITIZE_ADDRESS__)
#define GEN_SLOWDOWN 4.0
#else
#define GEN_SLOWDOWN 1.0
#endif

/* The generated netlist must fail with a message containing want (or succeed
 * when want is NULL) within a CPU-time budget (times GEN_SLOWDOWN). */
static void expect_gen(const char *what, char *text, const char *want, double budget)
{
    budget *= GEN_SLOWDOWN;
    clock_t t0 = clock();
    char *err = NULL;
    nsc_status st = survive(text, what, &err);
    double t = (double)(clock() - t0) / CLOCKS_PER_SEC;
    if (want)
        cr_expect(st != NSC_OK && err && strstr(err, want), "%s: got '%s', expected '...%s...'",
                  what, err ? err : "(success)", want);
    else cr_expect(st == NSC_OK, "%s: %s", what, err ? err : "");
    cr_expect(t < budget, "%s took %.2f s of CPU", what, t);
    free(err);
    free(text);
}

Test(fuzz_regress, long_lines, .timeout = 120)
{
    char *b = NULL;
    size_t n = 0;
    add(&b, &n, "t\nR1 a 0 "); /* a 100 000-digit number */
    rep(&b, &n, "9", 100000);
    add(&b, &n, "\n.op\n");
    expect_gen("long number", b, "value is not finite (overflow)", 5);
    b = NULL, n = 0;
    add(&b, &n, "t\nR"); /* a 100 000-character name */
    rep(&b, &n, "q", 100000);
    add(&b, &n, " a 0 1\nV1 a 0 1\n.op\n");
    expect_gen("long name", b, NULL, 5);
    b = NULL, n = 0;
    add(&b, &n, "t\nV1 a 0 PWL("); /* 50 000 PWL values */
    for (int k = 0; k < 25000; k++) add(&b, &n, "%d %d ", k, k % 2);
    add(&b, &n, ")\nR1 a 0 1\n.tran 1 10\n");
    expect_gen("long PWL", b, NULL, 5);
    b = NULL, n = 0;
    add(&b, &n, "t\n.subckt s"); /* 20 000 ports, twice */
    for (int k = 0; k < 20000; k++) add(&b, &n, " p%d", k);
    add(&b, &n, "\nR1 p0 p1 1\n.ends\nX1");
    for (int k = 0; k < 20000; k++) add(&b, &n, " n%d", k);
    add(&b, &n, " s\nR1 n0 0 1\n.op\n");
    expect_gen("20000 ports", b, NULL, 5);
    b = NULL, n = 0;
    add(&b, &n, "t\n.subckt s a b params:"); /* 15 000 parameters, twice */
    for (int k = 0; k < 15000; k++) add(&b, &n, " q%d=1", k);
    add(&b, &n, "\nR1 a b {q1}\n.ends\nX1 a 0 s");
    for (int k = 0; k < 15000; k++) add(&b, &n, " q%d=2", k);
    add(&b, &n, "\n.op\n");
    expect_gen("15000 parameters", b, NULL, 5);
    b = NULL, n = 0;
    add(&b, &n, "t\nR1 a 0 1\n"); /* 100 000 continuation lines */
    rep(&b, &n, "+ \n", 100000);
    add(&b, &n, "+ x\n.op\n");
    expect_gen("continuations", b, "100003:3: error: unexpected 'x' in resistor r1", 5);
    b = NULL, n = 0;
    add(&b, &n, "t\n.param a=1"); /* 100 000 blanks in a bare expression */
    rep(&b, &n, " ", 100000);
    add(&b, &n, "+ 2\nR1 x 0 {a}\n.op\n");
    expect_gen("blanks", b, NULL, 5);
}

Test(fuzz_regress, deep_nesting, .timeout = 120)
{
    char *b = NULL;
    size_t n = 0;
    add(&b, &n, "t\nR1 a 0 "); /* parentheses around a value */
    rep(&b, &n, "(", 100000);
    add(&b, &n, "1");
    rep(&b, &n, ")", 100000);
    expect_gen("parentheses", b, "card too deeply nested", 5);
    const char *ops[] = { "(", "-", "2^", "sqrt(" };
    for (int k = 0; k < 4; k++) { /* expressions */
        b = NULL, n = 0;
        add(&b, &n, "t\nR1 a 0 {");
        rep(&b, &n, ops[k], 100000);
        add(&b, &n, "1");
        if (ops[k][strlen(ops[k]) - 1] == '(') rep(&b, &n, ")", 100000);
        add(&b, &n, "}\n.op\n");
        expect_gen(ops[k], b, "nested", 5);
    }
    b = NULL, n = 0; /* 5000 nested definitions */
    add(&b, &n, "t\n");
    for (int k = 0; k < 5000; k++) add(&b, &n, ".subckt s%d a b\n", k);
    add(&b, &n, "R1 a b 1\n");
    rep(&b, &n, ".ends\n", 5000);
    add(&b, &n, "V1 a 0 1\nR1 a 0 1\n.op\n");
    expect_gen("nested definitions", b, NULL, 5);
    b = NULL, n = 0; /* a chain of 1200 instances */
    add(&b, &n, "t\n");
    for (int k = 0; k < 1200; k++) add(&b, &n, ".subckt s%d a b\nX1 a b s%d\n.ends\n", k, k + 1);
    add(&b, &n, ".subckt s1200 a b\nR1 a b 1\n.ends\nX1 a 0 s0\n.op\n");
    expect_gen("instance chain", b, "subcircuits nested deeper than 1000", 5);
    b = NULL, n = 0; /* a cycle of 3 definitions */
    add(&b, &n,
        "t\n.subckt a p\nX1 p b\n.ends\n.subckt b p\nX1 p c\n.ends\n.subckt c p\nX1 p a\n.ends\nX1 n a\n.op\n");
    expect_gen("subckt cycle", b, "recursive subckt 'a'", 5);
    b = NULL, n = 0; /* 10^15 resistors from 200 lines */
    add(&b, &n, "t\n.subckt s0 a b\nR1 a b 1\n.ends\n");
    for (int k = 1; k <= 15; k++) {
        add(&b, &n, ".subckt s%d a b\n", k);
        for (int j = 0; j < 10; j++) add(&b, &n, "X%d a b s%d\n", j, k - 1);
        add(&b, &n, ".ends\n");
    }
    add(&b, &n, "X1 a 0 s15\n.op\n");
    expect_gen("exponential subckt", b, "circuit too large: 1e+15 elements", 1);
    b = NULL, n = 0; /* 10^15 empty instances */
    add(&b, &n, "t\n.subckt s0 a b\n.ends\n");
    for (int k = 1; k <= 15; k++) {
        add(&b, &n, ".subckt s%d a b\n", k);
        for (int j = 0; j < 10; j++) add(&b, &n, "X%d a b s%d\n", j, k - 1);
        add(&b, &n, ".ends\n");
    }
    add(&b, &n, "X1 a 0 s15\nR1 a 0 1\n.op\n");
    expect_gen("exponential empty subckt", b, "subcircuit instances after expansion", 1);
}

Test(fuzz_regress, includes, .timeout = 120)
{
    char *dir = tu_tmpdir(), p[4096], t[256];
    for (int k = 0; k < 40; k++) { /* each file includes the next twice: 2^40 reads */
        snprintf(p, sizeof p, "%s/inc%d.cir", dir, k);
        if (k < 39)
            snprintf(t, sizeof t, ".include \"inc%d.cir\"\n.include 'inc%d.cir'\nR%d a 0 1\n",
                     k + 1, k + 1, k);
        else snprintf(t, sizeof t, "Rz a 0 1\n");
        cr_assert_eq(tu_write_file(p, t), 0);
    }
    snprintf(p, sizeof p, "%s/main.cir", dir);
    cr_assert_eq(tu_write_file(p, "t\n.include \"inc0.cir\"\n.op\n"), 0);
    char *err = NULL;
    clock_t t0 = clock();
    cr_expect_eq(survive(NULL, p, &err), NSC_ENETLIST);
    cr_expect(err && strstr(err, "netlist too large: more than 10000 file reads"), "%s",
              err ? err : "(success)");
    cr_expect((double)(clock() - t0) / CLOCKS_PER_SEC < 5);
    free(err);
    snprintf(p, sizeof p, "%s/dev.cir", dir); /* not a regular file: no endless read */
    cr_assert_eq(tu_write_file(p, "t\n.include \"/dev/zero\"\nR1 a 0 1\n.op\n"), 0);
    cr_expect_eq(survive(NULL, p, &err), NSC_ENETLIST);
    char want[4200];
    snprintf(want, sizeof want,
             "%s:2:10: error: cannot open include file '/dev/zero': not a regular file", p);
    cr_expect_str_eq(err ? err : "", want);
    free(err);
    snprintf(p, sizeof p, "%s/bin.cir", dir); /* every byte value, NUL included */
    FILE *fp = fopen(p, "wb");
    for (int r = 0; r < 64; r++)
        for (int c = 0; c < 256; c++) fputc((c * 7 + r) & 255, fp);
    fclose(fp);
    cr_expect_eq(survive(NULL, p, NULL), NSC_ENETLIST);
    tu_rmdir(dir);
    free(dir);
}

/* Elaboration is linear: 10 times the elements costs about 10 times the CPU
 * time (the best of 3 runs; quadratic would be 100). */
static double elab_time(int n)
{
    char *b = NULL;
    size_t len = 0;
    add(&b, &len, "chain\nV1 n0 0 1\n");
    for (int k = 0; k < n; k++) add(&b, &len, "R%d n%d n%d 1k\n", k, k, k + 1);
    add(&b, &len, "R%d n%d 0 1k\n.op\n", n, n);
    double best = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        nsc_report r;
        nsc_report_init(&r);
        nsc_circuit *c = NULL;
        clock_t t0 = clock();
        cr_assert_eq(nsc_netlist_read_string(b, "chain.cir", NULL, 0, &c, &r), NSC_OK);
        double t = (double)(clock() - t0) / CLOCKS_PER_SEC;
        cr_assert_eq(c->nel, n + 2);
        if (t < best) best = t;
        nsc_circuit_free(c);
        nsc_report_free(&r);
    }
    free(b);
    return best;
}

Test(fuzz_regress, linear_size, .timeout = 120)
{
    double t1 = elab_time(10000), t2 = elab_time(100000);
    cr_expect(t2 < 30 * t1 + 0.05, "10^4 elements: %.3f s, 10^5: %.3f s", t1, t2);
}
