/* test_mos6.c -- LEVEL=6 MOS cards (devices/mos6.c: Sakurai-Newton's power law
 * on the smooth elements' Newton iteration; issue 27 item 1) on netlists of
 * tests/data/mos6/ against ngspice 39 runs of the same cards. */
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
TestSuite(mos6, .init = setup, .fini = teardown);

/* ngspice's wrdata table (a header line, then nrow rows of ncol numbers) into v[nrow][ncol] */
static void read_ng(const char *name, int nrow, int ncol, double *v)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s%s", NSC_REFDIR, strchr(name, '/') ? "" : "mos6/", name);
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s", path);
    cr_assert_eq(fscanf(f, "%*[^\n]"), 0);
    for (int i = 0; i < nrow * ncol; i++)
        cr_assert_eq(fscanf(f, "%lf", &v[i]), 1, "%s value %d", name, i);
    fclose(f);
}

/* The transfer curve of a CMOS inverter (into 200k), an NMOS follower and an
 * NMOS whose drain is below its source (the reverse mode), bodies at ground
 * (GAMMA, GAMMA1, SIGMA, LAMBDA1 at work), dc.cir against ngspice 39 (dc_ng.txt):
 * every column within 1e-5 of its range (measured 7.5e-7). */
Test(mos6, dc_sweep_vs_ngspice)
{
    enum { NR = 133, NC = 5 };
    char cmd[2048], path[1024], *o = NULL;
    snprintf(path, sizeof path, "%s/o.dat", tmp);
    snprintf(cmd, sizeof cmd, "%s -o %s %s/mos6/dc.cir 2>&1", NSC_PROGRAM, path, NSC_REFDIR);
    cr_assert_eq(tu_run(cmd, &o), 0, "%s", o);
    cr_assert(!strstr(o, "warning"), "%s", o);
    free(o);
    tu_table t;
    cr_assert_eq(tu_table_read(path, &t), 0);
    cr_assert_eq(t.nrow, NR);
    static double ng[NR][NC];
    double range[NC] = { 0 };
    read_ng("dc_ng.txt", NR, NC, &ng[0][0]);
    for (int i = 0; i < NR; i++)
        for (int k = 1; k < NC; k++) range[k] = fmax(range[k], fabs(ng[i][k]));
    cr_assert(range[1] > 3 && range[2] > 1 && range[3] > 1, "%g %g %g", range[1], range[2],
              range[3]);
    for (int i = 0; i < NR; i++) {
        cr_assert(fabs(TU_AT(&t, i, 0) - ng[i][0]) < 1e-9);
        for (int k = 1; k < NC; k++)
            cr_assert(fabs(TU_AT(&t, i, k) - ng[i][k]) <= 1e-5 * range[k],
                      "row %d (VIN %g) column %s: %.9g, "
                      "ngspice %.9g",
                      i, ng[i][0], t.name[k], TU_AT(&t, i, k), ng[i][k]);
    }
    tu_table_free(&t);
}

/* the first time after t0 at which column c of the rows (time in column 0)
 * crosses level x, linear between rows; NAN if none */
static double crossing(const double *v, int nrow, int ncol, int c, double t0, double x)
{
    for (int i = 1; i < nrow; i++) {
        double a = v[(i - 1) * ncol + c] - x, b = v[i * ncol + c] - x, ta = v[(i - 1) * ncol],
               tb = v[i * ncol];
        if (ta >= t0 && a * b <= 0 && a != b) return ta + (tb - ta) * a / (a - b);
    }
    return NAN;
}

/* Three CMOS inverters in a chain (inv.cir: 30 fF loads, CGSO CGDO) against
 * ngspice 39 (inv_ng.txt; 5 ps steps, reltol 1e-6), under both steppings: every
 * signal within 0.2 % of range RMS (measured 0.03 %), the chain's delays (the
 * last output's 50 % crossings after the input's rising and falling edges)
 * within 1 % of ngspice's (measured 0.2 ps of 0.59 ns), Newton iterations at most
 * 4 per step on average (measured 3.05). */
Test(mos6, inverter_chain_vs_ngspice)
{
    enum { NR = 8071, NC = 5 };
    static double ng[NR * NC];
    read_ng("inv_ng.txt", NR, NC, ng);
    const char *mode[2] = { "exact", "adaptive" };
    for (int k = 0; k < 2; k++) {
        char cmd[4096], *out = NULL, path[1024];
        snprintf(
            cmd, sizeof cmd,
            "cd %s && sed 's/^.tran/.options stepping=%s\\n.tran/' %s/mos6/inv.cir > i.cir && %s "
            "--stats -o a.dat i.cir 2>&1 && %s compare a.dat %s/mos6/inv_ng.txt --tol 0.2 2>&1",
            tmp, mode[k], NSC_REFDIR, NSC_PROGRAM, NSC_PROGRAM, NSC_REFDIR);
        cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
        cr_assert(strstr(out, "PASS: all 4 signals"), "%s", out);
        tu_newton nw;
        cr_assert(tu_newton_stats(out, &nw), "%s", out);
        const char *s = strstr(out, "Newton");
        cr_assert(nw.nfail == 0 && nw.per <= 4, "%s", s);
        free(out);
        tu_table t;
        snprintf(path, sizeof path, "%s/a.dat", tmp);
        cr_assert_eq(tu_table_read(path, &t), 0);
        for (int e = 0; e < 2; e++) { /* the input's edges at 2 ns and 10.3 ns */
            double t0 = e ? 10.3e-9 : 2e-9;
            double dn = crossing(ng, NR, NC, 3, t0, 1.65) - t0,
                   d = crossing(t.v, t.nrow, t.ncol, 3, t0, 1.65) - t0;
            cr_assert(dn > 0.2e-9 && fabs(d - dn) <= 0.01 * dn,
                      "%s, edge %d: delay %g s, ngspice %g s", mode[k], e, d, dn);
        }
        tu_table_free(&t);
    }
}

/* A LEVEL=6 card with KV = 0: refused at the card. */
Test(mos6, bad_card)
{
    char cmd[2048], *out = NULL, path[1024];
    snprintf(path, sizeof path, "%s/m.cir", tmp);
    cr_assert_eq(tu_write_file(path, "bad level 6\n.model n6 NMOS(LEVEL=6 VTO=1 KV=0)\nV1 d 0 5\n"
                                     "M1 d d 0 0 n6\n.op\n.end\n"),
                 0);
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", NSC_PROGRAM, path);
    cr_assert_neq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out,
                     "m.cir:2:1: error: MOS model 'n6' (LEVEL=6): need KV, NV, KC, NC, PHI > 0"),
              "%s", out);
    free(out);
}

/* A LEVEL=6 gate chain whose operating point starts from every channel and
 * junction of its last inverter off (off.cir: a NAND3-like stack, a
 * transmission gate, two inverters, all driven from one pulse) against ngspice
 * 39 (off_ng.txt; 0.1 ns steps, reltol 1e-5) under both steppings. The
 * static Newton's full update threw v(out) to 2.4e4 V and the run stopped at
 * t = 0 ("node 'out' has no path for the current driven into it"); with the
 * update limited (src/solve/onestep_nl.c newton()) the operating point is the
 * circuit's: v(out) at t = 0 within 1 mV of ngspice's 5 V, every signal within
 * 0.5 % of range RMS (measured 0.0775 %), no Newton failure. */
Test(mos6, all_off_start_vs_ngspice)
{
    const char *mode[2] = { "exact", "adaptive" };
    for (int k = 0; k < 2; k++) {
        char cmd[4096], *out = NULL, path[1024];
        snprintf(
            cmd, sizeof cmd,
            "cd %s && sed 's/^.tran/.options stepping=%s\\n.tran/' %s/mos6/off.cir > o.cir && %s "
            "--stats -o a.dat o.cir 2>&1 && %s compare a.dat %s/mos6/off_ng.txt --tol 0.5 2>&1",
            tmp, mode[k], NSC_REFDIR, NSC_PROGRAM, NSC_PROGRAM, NSC_REFDIR);
        cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
        cr_assert(strstr(out, "PASS: all 4 signals"), "%s", out);
        tu_newton nw;
        cr_assert(tu_newton_stats(out, &nw), "%s", out);
        const char *s = strstr(out, "Newton");
        cr_assert(nw.nfail == 0, "%s", s);
        free(out);
        tu_table t;
        snprintf(path, sizeof path, "%s/a.dat", tmp);
        cr_assert_eq(tu_table_read(path, &t), 0);
        int c = tu_table_col(&t, "v(out)");
        cr_assert(c > 0 && t.nrow > 0 && TU_AT(&t, 0, 0) == 0);
        cr_assert(fabs(TU_AT(&t, 0, c) - 4.99999998) <= 1e-3, "%s: v(out) at t = 0 %g V", mode[k],
                  TU_AT(&t, 0, c));
        tu_table_free(&t);
    }
}

/* Model binning (issue 28): mosbin/bin.cir's transistors name "nb", a name only
 * its bins nb.1 nb.2 nb.3 (LMIN LMAX WMIN WMAX, each its own VTO) carry, with W
 * and L in microns under `.option scale=1e-6`; one W sits on the edge two bins
 * share (the first defined is taken, as ngspice 39 takes it). Against ngspice
 * 39 on bin_ng.cir, where each transistor names its bin and metres (ngspice
 * bins BSIM cards only): every column within 1e-5 of its range (measured
 * 1.5e-7; a wrong bin is off by volts). Failed before: "unknown model 'nb'". */
Test(mos6, binned_models_under_option_scale_vs_ngspice)
{
    enum { NR = 133, NC = 6 };
    char cmd[2048], path[1024], *o = NULL;
    snprintf(path, sizeof path, "%s/o.dat", tmp);
    snprintf(cmd, sizeof cmd, "%s -o %s %s/mosbin/bin.cir 2>&1", NSC_PROGRAM, path, NSC_REFDIR);
    cr_assert_eq(tu_run(cmd, &o), 0, "%s", o);
    cr_assert(!strstr(o, "warning") && !strstr(o, "ignored"), "%s", o);
    free(o);
    tu_table t;
    cr_assert_eq(tu_table_read(path, &t), 0);
    cr_assert_eq(t.nrow, NR);
    cr_assert_eq(t.ncol, NC);
    static double ng[NR][NC];
    double range[NC] = { 0 };
    read_ng("mosbin/bin_ng.txt", NR, NC, &ng[0][0]);
    for (int i = 0; i < NR; i++)
        for (int k = 1; k < NC; k++) range[k] = fmax(range[k], fabs(ng[i][k]));
    for (int i = 0; i < NR; i++) {
        cr_assert(fabs(TU_AT(&t, i, 0) - ng[i][0]) < 1e-9);
        for (int k = 1; k < NC; k++)
            cr_assert(fabs(TU_AT(&t, i, k) - ng[i][k]) <= 1e-5 * range[k],
                      "row %d (VIN %g) column %s: %.9g, "
                      "ngspice %.9g",
                      i, ng[i][0], t.name[k], TU_AT(&t, i, k), ng[i][k]);
    }
    tu_table_free(&t);
}
