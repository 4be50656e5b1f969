/* test_mos_gamma.c -- the body effect of level 1-3 MOS cards (dev_m.c: GAMMA,
 * PHI, and VTO, GAMMA, PHI derived from NSUB, NSS, TPG as ngspice does; the
 * level-1 equations as mos6.c's smooth functions when the bulk is off the
 * source) on netlists of tests/data/mos_gamma/ against ngspice 39 runs of the
 * same cards (README.md there) and the square law's closed form. */
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
TestSuite(mosgamma, .init = setup, .fini = teardown, .timeout = 120);

/* ngspice's wrdata table (a header line, then nrow rows of ncol numbers) into v[nrow][ncol] */
static void read_ng(const char *name, int nrow, int ncol, double *v)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/mos_gamma/%s", NSC_REFDIR, name);
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s", path);
    cr_assert_eq(fscanf(f, "%*[^\n]"), 0);
    for (int i = 0; i < nrow * ncol; i++)
        cr_assert_eq(fscanf(f, "%lf", &v[i]), 1, "%s value %d", name, i);
    fclose(f);
}

/* netlist mos_gamma/NAME.cir run (.dc, .ac) into t: nrow rows, each warning
 * (one at least) saying warn (NULL: no warning) */
static void run_dc(const char *name, int nrow, tu_table *t, const char *warn)
{
    char cmd[2048], path[1024], *o = NULL;
    snprintf(path, sizeof path, "%s/o.dat", tmp);
    snprintf(cmd, sizeof cmd, "%s -o %s %s/mos_gamma/%s.cir 2>&1", NSC_PROGRAM, path, NSC_REFDIR,
             name);
    cr_assert_eq(tu_run(cmd, &o), 0, "%s", o);
    const char *w = strstr(o, "warning");
    cr_assert(warn ? w != NULL : !w, "%s", o);
    for (; w; w = strstr(w + 1, "warning")) {
        const char *eol = strchr(w, '\n'), *x = strstr(w, warn);
        cr_assert(x && (!eol || x < eol), "%s", o);
    }
    free(o);
    cr_assert_eq(tu_table_read(path, t), 0);
    cr_assert_eq(t->nrow, nrow);
}

/* every column of t within tol of its range of ngspice's ng[nrow][ncol] */
static void expect_columns(const tu_table *t, const double *ng, int nrow, int ncol, double tol)
{
    for (int k = 1; k < ncol; k++) {
        double range = 0;
        for (int i = 0; i < nrow; i++) range = fmax(range, fabs(ng[i * ncol + k]));
        cr_assert(range > 0);
        for (int i = 0; i < nrow; i++) {
            cr_assert(fabs(TU_AT(t, i, 0) - ng[i * ncol]) < 1e-9);
            cr_assert(fabs(TU_AT(t, i, k) - ng[i * ncol + k]) <= tol * range,
                      "row %d (sweep %g) column %s: %.9g, ngspice %.9g", i, ng[i * ncol],
                      t->name[k], TU_AT(t, i, k), ng[i * ncol + k]);
        }
    }
}

/* Three NMOS whose bulk is swept from +0.4 V (forward, ngspice's linearised
 * sqrt) to -5 V below their grounded sources: saturation, triode, and the
 * drain below the source (the lower side is the source: the threshold follows
 * V_BD); LAMBDA at work. vsb.cir against ngspice 39: each current within 1e-5 of
 * its range (measured 4e-8). On main GAMMA was ignored (warned): i(vd1) 2.3x
 * ngspice's at V_SB = 5 V. */
Test(mosgamma, vsb_sweep_vs_ngspice)
{
    enum { NR = 109, NC = 4 };
    static double ng[NR * NC];
    read_ng("vsb_ng.txt", NR, NC, ng);
    tu_table t;
    run_dc("vsb", NR, &t, NULL);
    expect_columns(&t, ng, NR, NC, 1e-5);
    /* the body effect is there: V_SB = 5 V takes i(vd1) to less than half its V_SB = 0 value */
    cr_assert(fabs(ng[(NR - 1) * NC + 1]) < 0.5 * fabs(ng[8 * NC + 1]), "%g %g",
              ng[(NR - 1) * NC + 1], ng[8 * NC + 1]);
    tu_table_free(&t);
}

/* A follower into 100 uA (bulk at ground, V_SB = v(s)) and a two-NMOS stack
 * (the upper one's V_SB = v(m)), the gate swept 2..9 V (follow.cir):
 * v(s) within 1e-6 V of ngspice 39 (measured 4e-8), the stack's current
 * (10 - v(d3))/20k within 1 % of ngspice's (the lower NMOS, bulk on its source,
 * keeps the PWL fit: measured 0.3 %), and the follower against the square law:
 * V_G - v(s) - V_T(v(s)) = sqrt(2 I/K) with V_T = VTO + GAMMA (sqrt(PHI + v(s)) -
 * sqrt(PHI)) within 1e-6 V (the threshold's shift, 0.77 V at V_G = 6 V). */
Test(mosgamma, follower_and_stack_vs_ngspice)
{
    enum { NR = 71, NC = 4 };
    static double ng[NR * NC];
    read_ng("follow_ng.txt", NR, NC, ng);
    tu_table t;
    run_dc("follow", NR, &t, /* M2, its bulk on its source: the pairs */
           "warning: MOS model 'nf': parameters gamma phi ignored (PWL Sah model");
    const double vto = 0.8, gam = 0.6, phi = 0.7, K = 50e-6 * 20 / 2, I = 100e-6;
    int checked = 0;
    for (int i = 0; i < NR; i++) {
        double vg = ng[i * NC], vs = TU_AT(&t, i, 1);
        cr_assert(fabs(vs - ng[i * NC + 1]) < 1e-6, "V_G %g: v(s) %.9g, ngspice %.9g", vg, vs,
                  ng[i * NC + 1]);
        double id = (10 - TU_AT(&t, i, 3)) / 20e3, idn = (10 - ng[i * NC + 3]) / 20e3;
        if (idn > 1e-6)
            cr_assert(fabs(id - idn) <= 0.01 * idn, "V_G %g: I_D %g, ngspice %g", vg, id, idn);
        if (vs > 0.5) { /* the follower conducts its 100 uA in saturation */
            double vt = vto + gam * (sqrt(phi + vs) - sqrt(phi));
            cr_assert(fabs(vg - vs - vt - sqrt(2 * I / K)) < 1e-6, "V_G %g: v(s) %.9g", vg, vs);
            checked++;
        }
    }
    cr_assert(checked > 40, "%d", checked);
    tu_table_free(&t);
}

/* VTO, GAMMA, PHI from NSUB, NSS, TPG (nsub.cir: an NMOS with TPG = 1 and PHI
 * derived, a PMOS with TPG = -1 and PHI given, bulks reverse-biased, the gate
 * swept): both currents within 1e-5 of their range of ngspice 39's (measured
 * 4e-8); the same cards as LEVEL=2 (mapped: their warning names the values)
 * give ngspice's `showmod` values: nn VTO 0.0994357 GAMMA 0.456935 PHI 0.633172,
 * pp VTO -1.57823 GAMMA 0.746171. On main NSUB was ignored (VTO = 0). */
Test(mosgamma, nsub_derived_vs_ngspice)
{
    enum { NR = 101, NC = 3 };
    static double ng[NR * NC];
    read_ng("nsub_ng.txt", NR, NC, ng);
    tu_table t;
    run_dc("nsub", NR, &t, NULL);
    expect_columns(&t, ng, NR, NC, 1e-5);
    tu_table_free(&t);
    char cmd[2048], *o = NULL;
    snprintf(
        cmd, sizeof cmd,
        "sed 's/LEVEL=1/LEVEL=2/' %s/mos_gamma/nsub.cir > %s/n2.cir && %s -o %s/o2.dat %s/n2.cir 2>&1",
        NSC_REFDIR, tmp, NSC_PROGRAM, tmp, tmp);
    cr_assert_eq(tu_run(cmd, &o), 0, "%s", o);
    const char *name[2] = { "'nn'", "'pp'" };
    const double want[2][3] = { { 0.0994357, 0.456935, 0.633172 }, { -1.57823, 0.746171, 0.7 } };
    for (int k = 0; k < 2; k++) {
        const char *w = strstr(o, name[k]);
        double v[3];
        cr_assert(w && (w = strstr(w, "with the body effect (VTO=")), "%s", o);
        cr_assert_eq(sscanf(w, "with the body effect (VTO=%lf KP=%*s GAMMA=%lf PHI=%lf", &v[0],
                            &v[1], &v[2]),
                     3, "%s", w);
        for (int j = 0; j < 3; j++) /* showmod's 6 digits; VTO within 1e-6 V */
            cr_assert(fabs(v[j] - want[k][j]) <= 1e-6 + 1e-6 * fabs(want[k][j]), "%s: %s", name[k],
                      w);
    }
    free(o);
}

/* NSUB at or below the intrinsic density (ngspice: "Nsub < Ni"): refused at the card. */
Test(mosgamma, nsub_below_intrinsic_refused)
{
    char cmd[2048], *out = NULL, path[1024];
    snprintf(path, sizeof path, "%s/m.cir", tmp);
    cr_assert_eq(tu_write_file(path, "low nsub\n.model nl NMOS(LEVEL=1 TOX=50n NSUB=1e9)\n"
                                     "V1 d 0 5\nVB b 0 -1\nM1 d d 0 b nl\n.op\n.end\n"),
                 0);
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", NSC_PROGRAM, path);
    cr_assert_eq(tu_run(cmd, &out), 1, "%s", out);
    cr_assert(strstr(out, "m.cir:2:1: error: MOS model 'nl': NSUB = 1e+09 cm^-3 must exceed"), "%s",
              out);
    free(out);
}

/* The follower's small-signal gain gm/(gm + gmb + 1/R) with CS = 1 pF (ac.cir):
 * the body's transconductance gmb = gm GAMMA/(2 sqrt(PHI + V_SB)) from the
 * smooth functions' Jacobian at the operating point. Against ngspice 39
 * (ac_ng.txt, vdb(s) and vp(s) in degrees): within 1e-4 dB and 1e-3 degrees at
 * every frequency (measured 1.1e-5 dB, 3.2e-5 degrees); -2.023 dB at 1 kHz
 * (main, no gmb: -0.687 dB). */
Test(mosgamma, follower_gain_vs_ngspice)
{
    enum { NR = 31, NC = 3 };
    static double ng[NR * NC];
    read_ng("ac_ng.txt", NR, NC, ng);
    tu_table t;
    run_dc("ac", NR, &t, NULL);
    for (int i = 0; i < NR; i++) {
        cr_assert(fabs(TU_AT(&t, i, 0) / ng[i * NC] - 1) < 1e-6);
        cr_assert(fabs(TU_AT(&t, i, 1) - ng[i * NC + 1]) < 1e-4
                      && fabs(TU_AT(&t, i, 2) - ng[i * NC + 2]) < 1e-3,
                  "%g Hz: %.7g dB %.7g deg, ngspice %.7g dB %.7g deg", ng[i * NC], TU_AT(&t, i, 1),
                  TU_AT(&t, i, 2), ng[i * NC + 1], ng[i * NC + 2]);
    }
    cr_assert(fabs(ng[1] + 2.0231) < 1e-3, "%g", ng[1]);
    tu_table_free(&t);
}

/* LEVEL=2 cards with the body effect run level 2's own equations (mos2.c:
 * Grove-Frohman as ngspice 39's MOS2, the short channel's XJ, mobility falling
 * with UCRIT UEXP, the 3/2-power bulk charge, the depletion width's channel
 * shortening, DELTA, LAMBDA), against ngspice 39 runs of the same cards
 * (l2_*_ng.txt): every current within 1e-6 of its column's range (measured
 * 3e-8 .. 1.2e-7). On main they ran level 1's equations: 10 .. 67 % of the range
 * off (ucrit uexp xj ignored). The warning names level 2's equations. */
static void level2_vs_ngspice(const char *name, int nrow, int ncol)
{
    char ref[256];
    double *ng = malloc(sizeof(double) * (size_t)(nrow * ncol));
    cr_assert(ng);
    snprintf(ref, sizeof ref, "%s_ng.txt", name);
    read_ng(ref, nrow, ncol, ng);
    tu_table t;
    run_dc(name, nrow, &t, "simulated as level 2's equations (Grove-Frohman) with the body effect");
    expect_columns(&t, ng, nrow, ncol, 1e-6);
    tu_table_free(&t);
    free(ng);
}

/* two NMOS (V_GS 2.5 V and 6 V: below and above UCRIT's overdrive, 1.5 V),
 * bulk at -2 V, the drain swept -2..10 V: the drain below the source, triode,
 * saturation with the depletion width's shortening (l2_vds.cir) */
Test(mosgamma, level2_drain_sweep_vs_ngspice)
{
    level2_vs_ngspice("l2_vds", 241, 3);
}

/* the bulk swept +0.4..-8 V: an NMOS in saturation, in triode, with its drain
 * below the source; one with LAMBDA and DELTA (no XJ); a PMOS (TPG -1, bulk
 * mirrored above its source) in saturation (l2_vsb.cir) */
Test(mosgamma, level2_vsb_sweep_vs_ngspice)
{
    level2_vs_ngspice("l2_vsb", 85, 6);
}

/* the gate swept 0..8 V at V_DS 5 V and 0.2 V, bulk at -2 V: cutoff, the
 * threshold with the body effect and XJ's shared charge, mobility falling
 * above 1.5 V of overdrive; a card with neither KP nor TOX (i(vd3)): KP = UO
 * EPSOX/1e-7 m = 2.07189e-05 as ngspice's MOS2 (main: 2e-5, 3.5 % low)
 * (l2_vgs.cir) */
Test(mosgamma, level2_gate_sweep_vs_ngspice)
{
    level2_vs_ngspice("l2_vgs", 161, 4);
    char cmd[2048], *o = NULL;
    snprintf(cmd, sizeof cmd, "%s -o %s/o.dat %s/mos_gamma/l2_vgs.cir 2>&1", NSC_PROGRAM, tmp,
             NSC_REFDIR);
    cr_assert_eq(tu_run(cmd, &o), 0, "%s", o);
    const char *w = strstr(o, "'n2k'");
    cr_assert(w && strstr(w, "(VTO=0.6 KP=2.07189e-05 GAMMA=0.5"), "%s", o);
    free(o);
}
