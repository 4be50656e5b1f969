/* test_meyer.c -- Meyer's gate charge of level 1-3 MOS cards with TOX
 * (devices/meyer.c; issue 27 item 1) on netlists of tests/data/meyer/ against
 * ngspice 39 runs of the same circuits. Both circuits have smooth charges, so
 * the default transient is the adaptive one (outside the exact stepper's scope). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static char *tmp;
static void setup(void) { tmp = tu_tmpdir(); cr_assert(tmp); }
static void teardown(void) { tu_rmdir(tmp); free(tmp); }
TestSuite(meyer, .init = setup, .fini = teardown);

/* The value after key in text (NAN when absent). */
static double after(const char *text, const char *key)
{
    const char *a = text ? strstr(text, key) : NULL;
    return a ? strtod(a + strlen(key), NULL) : NAN;
}

/* An NMOS (drain at 1.5 V) and a PMOS (source 4 V, drain 0) whose gates ramp at
 * 0.7 V/ns through cut-off, depletion, the sub-threshold ramp, saturation and
 * the triode (ramp.cir, 5 ps steps at most) against ngspice 39 (ramp_ng.txt,
 * 2 ps steps, from 0.2 ns: ngspice's first step carries a 75 mA spike through
 * CGDO from its initial point): the gate currents i = dQ_g/dt within 0.5 % of
 * their range RMS (measured 0.16 %, 0.15 %; the constant Cox W Leff gate-source
 * capacitor before: 18.6 %, 27.2 %), the NMOS's drain current (Meyer's
 * gate-drain share, which no charge reproduces exactly: meyer.c) within 3 %
 * (measured 1.8 %; before: 44.6 %). */
Test(meyer, gate_current_of_a_ramped_gate_vs_ngspice)
{
    char cmd[4096], *out = NULL;
    snprintf(cmd, sizeof cmd, "cd %s && %s -o r.dat %s/meyer/ramp.cir 2>&1 && %s compare r.dat %s/meyer/ramp_ng.txt "
             "--from 0.2n --signals 'i(vgn),i(vgp)' --tol 0.005 2>&1 && %s compare r.dat %s/meyer/ramp_ng.txt "
             "--from 0.2n --signals 'i(vd)' --tol 0.03 2>&1", tmp, NSC_PROGRAM, NSC_REFDIR, NSC_PROGRAM, NSC_REFDIR,
             NSC_PROGRAM, NSC_REFDIR);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "PASS: all 2 signals") && strstr(out, "PASS: all 1 signals"), "%s", out);
    free(out);
}

/* Fifteen level-1 CMOS inverters with TOX, PHI, CGSO CGDO CGBO, CBD CBS
 * (chain.cir) against ngspice 39 (chain_ng.txt, 2 ps steps, reltol 1e-5; its
 * delays printed by chain_ng.cir's meas): both edges' delays from n0 to n15
 * within 3 % (measured +1.6 %, +1.7 %; the constant Cox W Leff before: -7.4 %,
 * -6.9 %), v(n5) within 1.5 % and v(n15) within 6 % of their ranges RMS
 * (measured 0.77 %, 4.1 %; before 3.7 %, 9.7 % over 16 ns), Newton iterations
 * at most 2 per step on average (measured 1.45). */
Test(meyer, inverter_chain_delay_vs_ngspice)
{
    static const double ng[2] = { 1.641693e-09, 1.635526e-09 };   /* chain_ng.cir's tpd, tpd2 */
    static const char *const key[2] = { "tpd = ", "tpd2 = " };
    char cmd[4096], *out = NULL;
    snprintf(cmd, sizeof cmd, "cd %s && %s --stats -o c.dat %s/meyer/chain.cir 2>&1 && %s compare c.dat "
             "%s/meyer/chain_ng.txt --signals 'v(n5)' --tol 0.015 2>&1 && %s compare c.dat %s/meyer/chain_ng.txt "
             "--signals 'v(n15)' --tol 0.06 2>&1", tmp, NSC_PROGRAM, NSC_REFDIR, NSC_PROGRAM, NSC_REFDIR, NSC_PROGRAM,
             NSC_REFDIR);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "PASS: all 1 signals within --tol 1.5 %"), "%s", out);
    cr_assert(strstr(out, "PASS: all 1 signals within --tol 6 %"), "%s", out);
    for (int k = 0; k < 2; k++) {
        double d = after(out, key[k]);
        cr_log_info("%s%.4g s, ngspice %.4g s (%+.2f %%)", key[k], d, ng[k], 100 * (d / ng[k] - 1));
        cr_assert(fabs(d / ng[k] - 1) < 0.03, "%s%g s, ngspice %g s\n%s", key[k], d, ng[k], out);
    }
    tu_newton nw;
    cr_assert(tu_newton_stats(out, &nw), "%s", out);
    cr_assert(nw.nfail == 0 && nw.per <= 2, "%s", strstr(out, "Newton"));
    free(out);
}

/* PHI <= 0 on a card with Meyer's charges: refused at the card (its depletion
 * region's width); the same PHI on a card without TOX is ignored with the
 * warning that names it (no charges read it). */
Test(meyer, bad_phi)
{
    char cmd[2048], path[1024], *out = NULL;
    snprintf(path, sizeof path, "%s/m.cir", tmp);
    cr_assert_eq(tu_write_file(path, "bad phi\n.model n1 NMOS(LEVEL=1 VTO=1 KP=50u TOX=20n PHI=0)\nV1 d 0 5\n"
                                     "M1 d d 0 0 n1\n.tran 1n 10n\n.end\n"), 0);
    snprintf(cmd, sizeof cmd, "%s -o %s/m.dat %s 2>&1", NSC_PROGRAM, tmp, path);
    cr_assert_neq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "m.cir:2:1: error: MOS model 'n1': PHI = 0 must be > 0"), "%s", out);
    free(out);
    cr_assert_eq(tu_write_file(path, "phi unread\n.model n1 NMOS(LEVEL=1 VTO=1 KP=50u PHI=0)\nV1 d 0 5\n"
                                     "M1 d d 0 0 n1\n.tran 1n 10n\n.end\n"), 0);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "m.cir:2:1: warning: MOS model 'n1': parameters phi ignored"), "%s", out);
    free(out);
}

/* A common-source stage fed through 100k (ac.cir, CGDO): .ac linearises Meyer's
 * charges at the operating point (saturation: Cgs = 2/3 Cox W L, Cgd = CGDO W,
 * the Miller pole), against ngspice 39 (ac_ng.txt): |v(d)| at the 21
 * frequencies within 1e-6 (measured 1e-8; the constant Cox W Leff gate-source
 * capacitor before: 22 % low at 158 MHz, 29 % at 1 GHz). */
Test(meyer, ac_pole_of_the_gate_charge_vs_ngspice)
{
    char cmd[2048], path[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "cd %s && %s -o a.dat %s/meyer/ac.cir 2>&1", tmp, NSC_PROGRAM, NSC_REFDIR);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    free(out);
    tu_table t;
    snprintf(path, sizeof path, "%s/a.dat", tmp);
    cr_assert_eq(tu_table_read(path, &t), 0);
    snprintf(path, sizeof path, "%s/meyer/ac_ng.txt", NSC_REFDIR);
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s", path);
    cr_assert_eq(fscanf(f, "%*[^\n]"), 0);
    cr_assert_eq(t.nrow, 21);
    for (int i = 0; i < t.nrow; i++) {
        double fr, m;
        cr_assert_eq(fscanf(f, "%lf %lf", &fr, &m), 2);
        cr_assert(fabs(t.v[i * t.ncol] / fr - 1) < 1e-7, "row %d: %g Hz, ngspice %g Hz", i, t.v[i * t.ncol], fr);
        cr_assert(fabs(t.v[i * t.ncol + 1] / m - 1) < 1e-6, "%g Hz: |v(d)| %.9g, ngspice %.9g", fr, t.v[i * t.ncol + 1], m);
    }
    fclose(f);
    tu_table_free(&t);
}
