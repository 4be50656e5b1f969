/* test_jfet.c -- the JFET (devices/dev_j.c: NJF, PJF level 1 on the smooth
 * elements' Newton iteration; issue 27 item 3) on netlists of tests/data/jfet/
 * against ngspice 39 runs of the same cards. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static char *tmp;
static void setup(void)
{
    tmp = tu_tmpdir();
    cr_assert(tmp);
}
static void teardown(void)
{
    tu_rmdir(tmp);
    free(tmp);
}
TestSuite(jfet, .init = setup, .fini = teardown);

/* The output characteristics (dc.cir: an NJF with RD RS and AREA=2, and a PJF
 * seeing the same voltages mirrored, VD -3 .. 10 V through saturation, the
 * linear region, cutoff and the reverse mode with a forward gate-drain
 * junction) against ngspice 39's sweep of the same cards (dc_ng.txt): every
 * current within 1e-6 of its column's range + 1 pA (measured 1e-7). */
Test(jfet, dc_sweep_vs_ngspice)
{
    char cmd[2048], path[1024], *o = NULL;
    snprintf(path, sizeof path, "%s/o.dat", tmp);
    snprintf(cmd, sizeof cmd, "%s -o %s %s/jfet/dc.cir 2>&1", NSC_PROGRAM, path, NSC_REFDIR);
    cr_assert_eq(tu_run(cmd, &o), 0, "%s", o);
    free(o);
    tu_table t;
    cr_assert_eq(tu_table_read(path, &t), 0);
    cr_assert_eq(t.nrow, 371);
    snprintf(path, sizeof path, "%s/jfet/dc_ng.txt", NSC_REFDIR);
    FILE *f = fopen(path, "r");
    cr_assert(f);
    double ng[371][5], range[4] = { 0 };
    cr_assert_eq(fscanf(f, "%*[^\n]"), 0); /* the header */
    for (int i = 0; i < 371; i++)
        for (int k = 0; k < 5; k++) {
            cr_assert_eq(fscanf(f, "%lf", &ng[i][k]), 1);
            if (k) range[k - 1] = fmax(range[k - 1], fabs(ng[i][k]));
        }
    fclose(f);
    cr_assert(range[0] > 0.5 && range[2] > 0.1, "%g %g", range[0], range[2]); /* both conduct */
    for (int i = 0; i < 371; i++) {
        cr_assert(fabs(TU_AT(&t, i, 0) - ng[i][0]) < 1e-9);
        for (int k = 0; k < 4; k++)
            cr_assert(fabs(TU_AT(&t, i, k + 2) - ng[i][k + 1]) <= 1e-6 * range[k] + 1e-12,
                      "row %d (VD %g, VG %g) column %s: %.9g, ngspice %.9g", i, TU_AT(&t, i, 0),
                      TU_AT(&t, i, 1), t.name[k + 2], TU_AT(&t, i, k + 2), ng[i][k + 1]);
    }
    tu_table_free(&t);
}

/* A common-source NJF stage driven through cutoff and into slight gate
 * conduction, and a PJF follower with CGS CGD (depletion charges) driven by a
 * pulse into 20 pF (amp.cir) against ngspice 39 (amp_ng.txt; reltol 1e-6, 10 ns
 * steps): with 2 ns fixed steps within 1e-4 of range RMS (measured 2.6e-5);
 * adaptive within 2e-3 (measured 6.8e-4). Newton iterations per step at most 4
 * on average (measured 3.1 fixed, 3.8 adaptive). */
Test(jfet, transient_vs_ngspice)
{
    const char *opt[2] = { "--step 2n", "" }, *tol[2] = { "1e-4", "2e-3" };
    for (int k = 0; k < 2; k++) {
        char cmd[4096], *out = NULL;
        snprintf(cmd, sizeof cmd,
                 "cd %s && %s --stats %s -o a.dat %s/jfet/amp.cir 2>&1 && %s compare a.dat "
                 "%s/jfet/amp_ng.txt --tol %s 2>&1",
                 tmp, NSC_PROGRAM, opt[k], NSC_REFDIR, NSC_PROGRAM, NSC_REFDIR, tol[k]);
        cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
        cr_assert(strstr(out, "PASS: all 4 signals"), "%s", out);
        tu_newton nw;
        cr_assert(tu_newton_stats(out, &nw), "%s", out);
        const char *s = strstr(out, "Newton");
        cr_assert(nw.nfail == 0 && nw.per <= 4, "%s", s);
        free(out);
    }
}

/* A JFET card naming a MOS model: refused, at the card. */
Test(jfet, wrong_model_type)
{
    char cmd[2048], *out = NULL, path[1024];
    snprintf(path, sizeof path, "%s/j.cir", tmp);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs("wrong model\n.model m1 NMOS(VTO=1)\nV1 d 0 5\nJ1 d 0 0 m1\n.op\n.end\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", NSC_PROGRAM, path);
    cr_assert_neq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(
        strstr(
            out,
            "j.cir:4:10: error: model 'm1' of JFET j1 is NMOS model, not a JFET (NJF/PJF) model"),
        "%s", out);
    free(out);
}
