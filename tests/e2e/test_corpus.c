/* test_corpus.c -- the dialect corpus of tests/corpus (issue 12 item "corpus"):
 * netlists written in the idioms of ngspice, LTspice, Xyce and KiCad's
 * exporter, each run as written and compared with ngspice 39's waveform
 * (tests/corpus/README.md says how each reference was made).
 *
 * corpus/netlists runs one line of tests/corpus/MANIFEST per parameter:
 *   match   nscircuit exits 0 and `nscircuit compare` says PASS at the line's
 *           tolerance on the line's signals;
 *   xfail   a known defect: it runs, and the comparison still FAILs;
 *   refused nscircuit exits 1 with the line's FILE:LINE:COL: error: message and
 *           writes no output.
 * corpus/manifest_lists_every_netlist keeps the manifest and the folders in
 * step; corpus/pulse_np_is_the_number_of_pulses checks the one construct the
 * corpus found missing (ngspice's 8th PULSE value, which KiCad writes). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"

#define CORPUS NSC_TOP_SRCDIR "/tests/corpus"

typedef struct centry {
    char net[128];    /* DIR/NAME.cir, relative to tests/corpus */
    char outcome[16]; /* match, xfail, refused */
    char tol[16];
    char signals[256];
    char opts
        [128]; /* "" or the words of an .options card added to the run ("stepsizelimit interp") */
    char msg[512]; /* refused: the expected message */
    int line;      /* in MANIFEST */
} centry;

/* The entries of MANIFEST (malloc'd array), their number in *n; -1 on a bad line. */
static centry *read_manifest(int *n)
{
    FILE *f = fopen(CORPUS "/MANIFEST", "r");
    *n = -1;
    if (!f) return NULL;
    centry *v = NULL;
    int cap = 0, k = 0, ln = 0;
    char buf[2048];
    while (fgets(buf, sizeof buf, f)) {
        ln++;
        buf[strcspn(buf, "\r\n")] = 0;
        const char *s = buf + strspn(buf, " \t");
        if (!*s || *s == '#') continue;
        if (k == cap) v = realloc(v, sizeof *v * (size_t)(cap = cap ? 2 * cap : 32));
        centry *e = &v[k];
        memset(e, 0, sizeof *e);
        e->line = ln;
        int used = 0;
        if (sscanf(s, "%127s %15s %15s %n", e->net, e->outcome, e->tol, &used) != 3 || !s[used]) {
            fclose(f);
            free(v);
            return NULL;
        }
        if (!strcmp(e->outcome, "refused")) snprintf(e->msg, sizeof e->msg, "%s", s + used);
        else if (sscanf(s + used, "%255s %127s", e->signals, e->opts) < 1
                 || (e->opts[0] && strncmp(e->opts, "options=", 8))) {
            fclose(f);
            free(v);
            return NULL;
        }
        if (e->opts[0]) { /* options=a,b -> "a b" */
            memmove(e->opts, e->opts + 8, strlen(e->opts + 8) + 1);
            for (char *c = e->opts; *c; c++)
                if (*c == ',') *c = ' ';
        }
        k++;
    }
    fclose(f);
    *n = k;
    return v;
}

static void free_params(struct criterion_test_params *crp)
{
    cr_free(crp->params);
}

ParameterizedTestParameters(corpus, netlists)
{
    int n;
    centry *v = read_manifest(&n);
    if (n <= 0) { /* the manifest test reports it */
        free(v);
        return cr_make_param_array(centry, NULL, 0, NULL);
    }
    centry *p = cr_malloc(sizeof *p * (size_t)n);
    memcpy(p, v, sizeof *p * (size_t)n);
    free(v);
    return cr_make_param_array(centry, p, (size_t)n, free_params);
}

ParameterizedTest(centry *e, corpus, netlists, .timeout = 60)
{
    char *tmp = tu_tmpdir(), cmd[4096], dir[256], name[128], *out = NULL;
    cr_assert(tmp);
    snprintf(dir, sizeof dir, "%s", e->net);
    char *slash = strrchr(dir, '/');
    cr_assert(slash, "MANIFEST:%d: %s is not DIR/NAME.cir", e->line, e->net);
    *slash = 0;
    snprintf(name, sizeof name, "%s", slash + 1);
    cr_assert(strlen(name) > 4 && !strcmp(name + strlen(name) - 4, ".cir"), "MANIFEST:%d: %s",
              e->line, e->net);
    name[strlen(name) - 4] = 0;
    if (!strcmp(e->outcome, "refused")) {
        snprintf(cmd, sizeof cmd, "cd %s/%s && %s -o %s/ours.dat %s.cir 2>&1", CORPUS, dir,
                 NSC_PROGRAM, tmp, name);
        int st = tu_run(cmd, &out);
        cr_expect_eq(st, 1, "%s: exit status %d, not 1 (a netlist error)\n%s", e->net, st, out);
        cr_expect(strstr(out, e->msg), "%s: no '%s' in\n%s", e->net, e->msg, out);
        struct stat sb;
        snprintf(cmd, sizeof cmd, "%s/ours.dat", tmp);
        cr_expect(stat(cmd, &sb) != 0, "%s: an output was written after the error", e->net);
    } else {
        cr_assert(!strcmp(e->outcome, "match") || !strcmp(e->outcome, "xfail"),
                  "MANIFEST:%d: outcome '%s'", e->line, e->outcome);
        if (e->opts[0]) /* the netlist with the line's .options, its folder searched */
            snprintf(
                cmd, sizeof cmd,
                "cd %s && awk 'BEGIN{IGNORECASE=1} /^\\.end[ \t]*$/ {print \".options %s\"; e=1} {print} "
                "END{if (!e) print \".options %s\"}' %s/%s > %s.cir && %s --quiet -I %s/%s -o ours.dat %s.cir 2>&1",
                tmp, e->opts, e->opts, CORPUS, e->net, name, NSC_PROGRAM, CORPUS, dir, name);
        else
            snprintf(cmd, sizeof cmd, "cd %s && %s --quiet -o ours.dat %s/%s 2>&1", tmp,
                     NSC_PROGRAM, CORPUS, e->net);
        int st = tu_run(cmd, &out);
        cr_assert_eq(st, 0, "%s: nscircuit exit status %d\n%s", e->net, st, out);
        free(out);
        out = NULL;
        snprintf(cmd, sizeof cmd,
                 "%s compare %s/ours.dat %s/%s/%s_ng.txt --signals '%s' --tol %s 2>&1", NSC_PROGRAM,
                 tmp, CORPUS, dir, name, e->signals, e->tol);
        st = tu_run(cmd, &out);
        int nsig = 1;
        for (const char *s = e->signals; *s; s++) nsig += *s == ',';
        char pass[64];
        snprintf(pass, sizeof pass, "PASS: all %d signals within --tol",
                 nsig); /* as compare says it */
        if (!strcmp(e->outcome, "match"))
            cr_expect(st == 0 && strstr(out, pass), "%s against ngspice (status %d):\n%s", e->net,
                      st, out);
        else
            cr_expect(
                st == 1 && strstr(out, "FAIL:"),
                "%s (xfail) now agrees with ngspice: the defect is fixed, make it a match line\n%s",
                e->net, out);
    }
    free(out);
    tu_rmdir(tmp);
    free(tmp);
}

/* Every DIR/NAME.cir of the corpus (not the _ng twins) is in MANIFEST, every
 * match/xfail line has its reference, and the corpus covers the four dialects. */
Test(corpus, manifest_lists_every_netlist)
{
    int n;
    centry *v = read_manifest(&n);
    cr_assert(v && n >= 20, "MANIFEST unreadable or short (%d entries)", n);
    const char *dirs[] = { "ngspice", "ltspice", "xyce", "kicad" };
    for (size_t d = 0; d < 4; d++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", CORPUS, dirs[d]);
        DIR *dp = opendir(path);
        cr_assert(dp, "no %s", path);
        int count = 0;
        for (struct dirent *de; (de = readdir(dp));) {
            size_t l = strlen(de->d_name);
            if (de->d_name[0] == '.' || l < 5 || strcmp(de->d_name + l - 4, ".cir")
                || (l > 7 && !strcmp(de->d_name + l - 7, "_ng.cir")))
                continue;
            char net[300];
            snprintf(net, sizeof net, "%s/%s", dirs[d], de->d_name);
            int found = 0;
            for (int k = 0; k < n; k++) found |= !strcmp(v[k].net, net);
            cr_expect(found, "%s is not in MANIFEST", net);
            count++;
        }
        closedir(dp);
        cr_expect(count >= 3, "only %d netlists in %s", count, dirs[d]);
    }
    for (int k = 0; k < n; k++) {
        if (!strcmp(v[k].outcome, "refused")) continue;
        char ref[512];
        snprintf(ref, sizeof ref, "%s/%.*s_ng.txt", CORPUS, (int)(strlen(v[k].net) - 4), v[k].net);
        struct stat sb;
        cr_expect(stat(ref, &sb) == 0, "MANIFEST:%d: no reference %s (tests/corpus/mkref.sh)",
                  v[k].line, ref);
    }
    free(v);
}

/* ngspice's PULSE(V1 V2 TD TR TF PW PER NP): NP pulses, then V1; NP = 0 is
 * unlimited, which KiCad's exporter writes. Refused before ("too many values
 * in PULSE of v1"); kicad/buck_kicad.cir has it. */
Test(corpus, pulse_np_is_the_number_of_pulses)
{
    char *tmp = tu_tmpdir(), path[1024], cmd[2048], *out = NULL;
    cr_assert(tmp);
    const char *np[] = { "", "0", "2" };
    const double want[] = { 2.5, 2.5, 1.0 }; /* 5 V, half of each period; 2 of 5 periods */
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/p.cir", tmp);
        char net[512];
        snprintf(net, sizeof net,
                 "np\nV1 a 0 PULSE( 0 5 0 0 0 5u 10u %s )\nR1 a 0 1k\n.tran 0.1u 50u\n"
                 ".meas tran vavg AVG v(a)\n.meas tran vlast FIND v(a) AT=42u\n.end\n",
                 np[k]);
        cr_assert_eq(tu_write_file(path, net), 0);
        snprintf(cmd, sizeof cmd, "cd %s && %s p.cir 2>&1", tmp, NSC_PROGRAM);
        cr_assert_eq(tu_run(cmd, &out), 0, "NP '%s':\n%s", np[k], out);
        const char *a = strstr(out, "vavg = "), *b = strstr(out, "vlast = ");
        cr_assert(a && b, "%s", out);
        double avg = strtod(a + 7, NULL), last = strtod(b + 8, NULL);
        cr_expect(avg > want[k] - 0.02 && avg < want[k] + 0.02, "NP '%s': average %g, want %g",
                  np[k], avg, want[k]);
        cr_expect_eq(last, k == 2 ? 0 : 5, "NP '%s': v(a) at 42 us = %g", np[k], last);
        free(out);
    }
    snprintf(path, sizeof path, "%s/p.cir", tmp);
    cr_assert_eq(
        tu_write_file(path,
                      "np\nV1 a 0 PULSE(0 5 0 0 0 5u 10u 1.5)\nR1 a 0 1k\n.tran 0.1u 50u\n.end\n"),
        0);
    snprintf(cmd, sizeof cmd, "cd %s && %s p.cir 2>&1", tmp, NSC_PROGRAM);
    cr_expect_eq(tu_run(cmd, &out), 1, "%s", out);
    cr_expect(strstr(out,
                     "p.cir:2:1: error: PULSE of v1: NP = 1.5 must be a whole number of pulses"),
              "%s", out);
    free(out);
    tu_rmdir(tmp);
    free(tmp);
}
