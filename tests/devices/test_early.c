/* test_early.c -- the Early effect of bipolar transistors (dev_q.c q_early_fn:
 * VAF, VAR as Gummel-Poon's 1/q_b = 1 - v_BC/VAF - v_BE/VAR on the transport
 * current, a smooth function on the Newton iteration): operating points, gains
 * and an output characteristic against closed forms and ngspice 39
 * (tests/data/early, written for these tests; commands in tests/data/README.md). */
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
TestSuite(early, .init = setup, .fini = teardown, .timeout = 60);

static void near(double got, double want, double tol, const char *what)
{
    cr_assert(fabs(got - want) <= tol, "%s: %.9g, want %.9g (+-%g)", what, got, want, tol);
}

/* The value printed for name ("  v(c1)   =  4.28e+00") in out. */
static double op_value(const char *out, const char *name)
{
    char key[80];
    snprintf(key, sizeof key, "  %s ", name);
    const char *p = strstr(out, key), *eq = p ? strchr(p, '=') : NULL;
    cr_assert_not_null(eq, "%s not in\n%s", name, out);
    return strtod(eq + 1, NULL);
}

/* ngspice's printed "name = value" in tests/data/early/ce_op_ng.txt. */
static double ng_value(const char *ref, const char *name)
{
    char key[80];
    snprintf(key, sizeof key, "%s = ", name);
    const char *p = strstr(ref, key);
    cr_assert_not_null(p, "%s not in ce_op_ng.txt", name);
    return strtod(p + strlen(key), NULL);
}

/* The AC phasor of node n (its real part: the gains here are real) from the
 * .dat's vdb(n), vp(n) (degrees) at its one frequency. */
static double ac_real(const tu_table *t, const char *n)
{
    char db[32], ph[32];
    snprintf(db, sizeof db, "vdb(%s)", n);
    snprintf(ph, sizeof ph, "vp(%s)", n);
    int a = tu_table_col(t, db), b = tu_table_col(t, ph);
    cr_assert(a >= 0 && b >= 0, "no %s, %s", db, ph);
    return pow(10, TU_AT(t, 0, a) / 20) * cos(TU_AT(t, 0, b) * (3.14159265358979323846 / 180));
}

/* Current-fed CE stages (tests/data/early/ce_op.cir): NPN with VAF = 50, PNP
 * with VAF = 40, VAR = 20, IB = 10 uA, BF = 100 (i_F = BF IB = 1 mA: the base
 * current is i_F/BF, unchanged by q_b; less gmin's 1e-12 v_b at the base, a
 * node only the junctions hold), RC = 10k, 15 V. Closed forms given the
 * base voltages the run gives (the junction's fit sets v_BE, not q_b):
 *   NPN: v_c = 15 - RC i_F (1 + (v_c - v_b)/VAF);
 *   PNP (frame v_BC = v_c - v_b, v_BE = 15 - v_b): v_c = RC i_F (1 - (v_c - v_b)/VAF - (15 - v_b)/VAR);
 * AC (1 A into / out of each base, v_b its phasor): i_c = BF/q_b + i_F d(1/q_b), so
 *   NPN: v_c (1 + RC i_F/VAF) = -RC (BF/q_b - i_F v_b/VAF),
 *   PNP: v_c (1 + RC i_F/VAF) = RC (BF/q_b + i_F v_b (1/VAF + 1/VAR)).
 * Measured: both within 1e-9 of them; against ngspice 39 the operating points
 * 1.4 mV (NPN) and 4.9 mV (PNP: VAR on v_BE, 8 mV lower by the fit) off, the
 * gains -8.9255e5 vs -8.9242e5 (0.015 %) and 8.4405e5 vs 8.4414e5 (0.011 %);
 * without VAF (before: ignored) v(c1) = 5.0 V, the gain -1e6 (12 % off). */
Test(early, ce_stage_operating_point_and_gain)
{
    char cmd[2048], path[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "cd %s && %s -o ce_op.dat %s/early/ce_op.cir 2>&1", tmp, NSC_PROGRAM,
             NSC_REFDIR);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert_null(strstr(out, "ignored (vaf first)"), "%s", out);
    cr_assert_null(strstr(out, "ignored (var first)"), "%s", out);
    double RC = 10e3, G = 1e-12; /* gmin at the bases, which only the junctions hold */
    double b1 = op_value(out, "v(b1)"), c1 = op_value(out, "v(c1)");
    double b2 = op_value(out, "v(b2)"), c2 = op_value(out, "v(c2)");
    double IF1 = 100 * (10e-6 - G * b1), IF2 = 100 * (10e-6 + G * b2), IF = 1e-3;
    near(c1, (15 - RC * IF1 * (1 - b1 / 50)) / (1 + RC * IF1 / 50), 1e-9, "v(c1) closed form");
    near(c2, RC * IF2 * (1 + b2 / 40 - (15 - b2) / 20) / (1 + RC * IF2 / 40), 1e-9,
         "v(c2) closed form");
    double qi1 = 1 - (b1 - c1) / 50, qi2 = 1 - (c2 - b2) / 40 - (15 - b2) / 20; /* 1/q_b */
    tu_table t;
    snprintf(path, sizeof path, "%s/ce_op.dat", tmp);
    cr_assert_eq(tu_table_read(path, &t), 0);
    double g1 = ac_real(&t, "c1"), g2 = ac_real(&t, "c2"), vb1 = ac_real(&t, "b1"),
           vb2 = ac_real(&t, "b2");
    near(g1, -RC * (100 * qi1 - IF * vb1 / 50) / (1 + RC * IF / 50), 1e-6 * fabs(g1),
         "gain 1 closed form");
    near(g2, RC * (100 * qi2 + IF * vb2 * (1.0 / 40 + 1.0 / 20)) / (1 + RC * IF / 40),
         1e-6 * fabs(g2), "gain 2 closed form");
    snprintf(path, sizeof path, "%s/early/ce_op_ng.txt", NSC_REFDIR);
    char *ref = tu_read_file(path);
    cr_assert_not_null(ref);
    near(c1, ng_value(ref, "v(c1)"), 0.01, "v(c1) vs ngspice");
    near(c2, ng_value(ref, "v(c2)"), 0.01, "v(c2) vs ngspice");
    near(g1, ng_value(ref, "g1"), 1e-3 * fabs(g1), "gain 1 vs ngspice");
    near(g2, ng_value(ref, "g2"), 1e-3 * fabs(g2), "gain 2 vs ngspice");
    tu_table_free(&t);
    free(ref);
    free(out);
}

/* Runs tests/data/early/NAME.cir (.dc VC 0.5 10 0.5 at I_B = 10 uA, forward
 * active throughout, v_BE fixed, so -I(VC) = BF IB (1 + (V_CE - v_BE)/VAF)),
 * compares it with NAME_ng.txt (ngspice 39) within 0.2 % of range RMS and
 * checks every step's slope against BF (IB - gmin v_BE)/VAF (gmin at the base). */
static void outchar_slope(const char *name, double vaf)
{
    char cmd[2048], path[1024], *out = NULL;
    snprintf(cmd, sizeof cmd,
             "cd %s && %s -o %s.dat %s/early/%s.cir 2>&1 && %s compare %s.dat "
             "%s/early/%s_ng.txt --tol 0.002",
             tmp, NSC_PROGRAM, name, NSC_REFDIR, name, NSC_PROGRAM, name, NSC_REFDIR, name);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "PASS: all 1 signals within --tol 0.2 %"), "%s", out);
    tu_table t;
    snprintf(path, sizeof path, "%s/%s.dat", tmp, name);
    cr_assert_eq(tu_table_read(path, &t), 0);
    int c = tu_table_col(&t, "i(vc)");
    cr_assert(c >= 0 && t.nrow == 20, "%d rows", t.nrow);
    for (int r = 1; r < t.nrow; r++) {
        double dv = TU_AT(&t, r, 0) - TU_AT(&t, r - 1, 0);
        double s = -(TU_AT(&t, r, c) - TU_AT(&t, r - 1, c)) / dv;
        near(s, 100 * (10e-6 - 1e-12 * 0.7066) / vaf, 1e-13, "dI_C/dV_CE");
    }
    tu_table_free(&t);
    free(out);
}

/* The output characteristic at I_B = 10 uA (tests/data/early/outchar.cir):
 * a line of slope BF IB/VAF = 25 uA/V (measured to 1e-14 A/V); against
 * ngspice 39 0.085 % of range RMS (its v_BE 8 mV higher: 0.2 uA). */
Test(early, output_characteristic_slope_is_ic_over_vaf)
{
    outchar_slope("outchar", 40);
}

/* VAF = -40 (outchar_neg.cir): ngspice 39 runs it with 1/VAF = -1/40, I_C
 * falling as V_CE rises (slope -25 uA/V); main refused the card ("must be >= 0"). */
Test(early, negative_early_voltage_taken_as_ngspice)
{
    outchar_slope("outchar_neg", -40);
}

/* A CE amplifier whose gain r_o sets (tests/data/early/ce_early.cir: RC = 10k,
 * r_o ~ 40k, emitter bypassed, 2 mV in, gain ~ -210) over 5 ms against ngspice
 * 39: v(c) 1.48 % of range RMS, v(b) 0.065 % (before, VAF ignored: 14.5 %; the
 * same circuit without VAF in both: 1.12 %, the junction's fit). The smooth
 * correction on the Newton iteration: about 2 iterations per step (measured
 * 515 problems in 1035, at most 11), none failing. */
Test(early, amplifier_transient_matches_ngspice)
{
    char cmd[2048], *out = NULL;
    snprintf(cmd, sizeof cmd,
             "cd %s && %s --stats -o ce_early.dat %s/early/ce_early.cir 2>&1 && %s compare "
             "ce_early.dat %s/early/ce_early_ng.txt --tol 0.02",
             tmp, NSC_PROGRAM, NSC_REFDIR, NSC_PROGRAM, NSC_REFDIR);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "PASS: all 2 signals within --tol 2 %"), "%s", out);
    tu_newton n;
    cr_assert(tu_newton_stats(out, &n), "no Newton line in\n%s", out);
    cr_assert(n.nfail == 0 && n.per <= 2.5 && n.np > 400, "%ld problems, %g per, %ld failed", n.np,
              n.per, n.nfail);
    free(out);
}

/* The current gain of a current-fed NPN, collector held at 10 V, TF = 1 ns, VAF =
 * 20 (tests/data/early/tfac.cir, .ac 1..100 MHz) against ngspice 39's -i(vc)
 * (tfac_ng.txt): Gummel-Poon's diffusion charge TF i_F/q_b (dev_q.c: TF x_F +
 * TF w, w = x_F (1/q_b - 1) a second smooth row) and transport current i_F/q_b
 * share 1/q_b = 1.46, so above f_beta the gain is 1/(j w TF), 1.5915 at 100
 * MHz. Measured: magnitudes within 3e-5, phases within 1e-4 rad of ngspice's;
 * with the charge TF i_F the gain was 1/q_b = 1.46x higher (123.9 at 1 MHz
 * where ngspice has 107.7). */
Test(early, diffusion_charge_shares_q_b)
{
    char cmd[2048], path[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "cd %s && %s -o tfac.dat %s/early/tfac.cir 2>&1", tmp, NSC_PROGRAM,
             NSC_REFDIR);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    tu_table t;
    snprintf(path, sizeof path, "%s/tfac.dat", tmp);
    cr_assert_eq(tu_table_read(path, &t), 0);
    int a = tu_table_col(&t, "idb(vc)"), b = tu_table_col(&t, "ip(vc)");
    cr_assert(a >= 0 && b >= 0 && t.nrow == 5, "%d rows", t.nrow);
    snprintf(path, sizeof path, "%s/early/tfac_ng.txt", NSC_REFDIR);
    char *ref = tu_read_file(path);
    cr_assert_not_null(ref);
    int n = 0;
    for (char *line = strtok(ref, "\n"); line; line = strtok(NULL, "\n")) {
        int k;
        double f, mag, ph;
        if (sscanf(line, "%d %lf %lf %lf", &k, &f, &mag, &ph) != 4) continue;
        cr_assert(k < t.nrow && fabs(TU_AT(&t, k, 0) - f) <= 1e-6 * f, "frequency %g", f);
        double m = pow(10, TU_AT(&t, k, a) / 20); /* -i(vc): i(vc) + 180 degrees */
        double p = (TU_AT(&t, k, b) - 180) * (3.14159265358979323846 / 180);
        near(m, mag, 1e-3 * mag, "|i_c/i_b| vs ngspice");
        near(p, ph, 1e-3, "phase vs ngspice (rad)");
        n++;
    }
    cr_assert_eq(n, 5);
    double f = TU_AT(&t, 4, 0), m = pow(10, TU_AT(&t, 4, a) / 20);
    near(m, 1 / (2 * 3.14159265358979323846 * f * 1e-9), 1e-3 * m, "1/(w TF) at 100 MHz");
    tu_table_free(&t);
    free(ref);
    free(out);
}

/* The instants where column c of t rises through level x (linear between
 * rows) into r[0..max): how many. */
static int rises(const tu_table *t, int c, double x, double *r, int max)
{
    int n = 0;
    for (int k = 1; k < t->nrow && n < max; k++) {
        double a = TU_AT(t, k - 1, c), b = TU_AT(t, k, c), t0 = TU_AT(t, k - 1, 0);
        if (a < x && b >= x) r[n++] = t0 + (x - a) / (b - a) * (TU_AT(t, k, 0) - t0);
    }
    return n;
}

/* A BJT astable with VAF = 74 from its operating point (tests/data/early/
 * astable.cir: no .ic, no UIC): both NPNs saturated is an unstable equilibrium,
 * which ngspice 39 leaves through its own round-off (astable_ng.txt: v(c1)
 * rises through 2.5 V at 1.116, 2.560, 4.004 ms, periods 1444.1 and 1444.0
 * us). The theta-scheme that stands in for the exact flow (VAF is a smooth
 * element) starts moved by 1e-3 of its tolerances under SPICE's ceiling TSTEP
 * (stepper_adapt.c, Stand-in): measured periods 1445.9 us (+0.13 %). Before
 * (branch early): 66 steps, exit 0, no oscillation. */
Test(early, astable_leaves_its_unstable_operating_point)
{
    char cmd[2048], path[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "cd %s && %s -o astable.dat %s/early/astable.cir 2>&1", tmp,
             NSC_PROGRAM, NSC_REFDIR);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    snprintf(path, sizeof path, "%s/early/astable_ng.txt", NSC_REFDIR);
    char *ref = tu_read_file(path);
    cr_assert_not_null(ref);
    double r2 = ng_value(ref, "r2"), r3 = ng_value(ref, "r3"), r4 = ng_value(ref, "r4");
    tu_table t;
    snprintf(path, sizeof path, "%s/astable.dat", tmp);
    cr_assert_eq(tu_table_read(path, &t), 0);
    int c = tu_table_col(&t, "v(c1)");
    cr_assert(c >= 0);
    double r[8];
    int n = rises(&t, c, 2.5, r, 8);
    cr_assert(n >= 3, "v(c1) rose through 2.5 V %d times (%d rows): it did not oscillate", n,
              t.nrow);
    near(r[n - 1] - r[n - 2], r4 - r3, 5e-3 * (r4 - r3), "last period vs ngspice");
    near(r[n - 2] - r[n - 3], r3 - r2, 5e-3 * (r3 - r2), "period before vs ngspice");
    tu_table_free(&t);
    free(ref);
    free(out);
}

/* The peak-to-peak of column c of t over [t0, t1]. */
static double swing(const tu_table *t, int c, double t0, double t1)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < t->nrow; k++)
        if (TU_AT(t, k, 0) >= t0 && TU_AT(t, k, 0) <= t1) {
            lo = fmin(lo, TU_AT(t, k, c));
            hi = fmax(hi, TU_AT(t, k, c));
        }
    return hi - lo;
}

/* The CE amplifier of ce_early.cir at default transient settings (tests/data/
 * early/ce_tran.cir: .tran 2u 5m, no TMAX): v(c) swings 0.85 V on 8.5 V.
 * Measured against ngspice 39 (ce_tran_ng.txt): v(c) 1.84 % of range RMS, its
 * swing over 3..5 ms 0.8370 V against 0.8496 V (-1.5 %: the BE junction's
 * fit; 2 us fixed steps give 0.8366 V). Before (branch early): 3.47 % RMS and
 * +2.9 % (0.8741 V), steps of up to 60 us at theta = 1/2 whose mode of factor
 * -1 rang on v(c), an algebraic unknown, by up to 55 mV (the stand-in's
 * alg_ring now retries such a step with implicit Euler). */
Test(early, amplifier_at_default_steps_matches_ngspice)
{
    char cmd[2048], path[1024], *out = NULL;
    snprintf(cmd, sizeof cmd,
             "cd %s && %s -o ce_tran.dat %s/early/ce_tran.cir 2>&1 && %s compare ce_tran.dat "
             "%s/early/ce_tran_ng.txt --tol 0.025",
             tmp, NSC_PROGRAM, NSC_REFDIR, NSC_PROGRAM, NSC_REFDIR);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "PASS: all 2 signals within --tol 2.5 %"), "%s", out);
    tu_table t;
    snprintf(path, sizeof path, "%s/ce_tran.dat", tmp);
    cr_assert_eq(tu_table_read(path, &t), 0);
    int c = tu_table_col(&t, "v(c)");
    cr_assert(c >= 0);
    double s = swing(&t, c, 3e-3, 5e-3), ng = 0.849571; /* ce_tran_ng.txt's, over 3..5 ms */
    near(s, ng, 0.02 * ng, "v(c)'s swing vs ngspice");
    tu_table_free(&t);
    free(out);
}

/* A smooth circuit at a stable rest is not held at the stand-in's start
 * ceiling (TSTEP) for the whole run: a B-source multiplier at its operating
 * point over .tran 1u 200m took 204 809 steps (the ceiling released only when
 * the state moved, and a stable rest never moves); now the ceiling ends after
 * NSC_REST_STEPS (1000) steps: 1 060 steps. v(y) stays at its exact rest,
 * V(x) V(c) = 1 V * 2 V, to 1e-5 (the start kick moves it by 2e-6). */
Test(early, stable_rest_leaves_the_start_ceiling)
{
    char cmd[2048], path[1024], *out = NULL;
    snprintf(path, sizeof path, "%s/rest.cir", tmp);
    cr_assert_eq(tu_write_file(path, "B multiplier at rest\nV1 a 0 1\nV2 c 0 2\nR1 a x 1k\n"
                                     "C1 x 0 1u\nB1 y 0 V=V(x)*V(c)\nR2 y 0 1k\n"
                                     ".tran 1u 200m\n.save v(y)\n.end\n"),
                 0);
    snprintf(cmd, sizeof cmd, "cd %s && %s --stats -o rest.dat rest.cir 2>&1", tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    const char *p = strstr(out, "steps: ");
    cr_assert_not_null(p, "%s", out);
    long steps = strtol(p + 7, NULL, 10);
    cr_assert(steps > 0 && steps <= 1100, "%ld steps:\n%s", steps, out);
    tu_table t;
    snprintf(path, sizeof path, "%s/rest.dat", tmp);
    cr_assert_eq(tu_table_read(path, &t), 0);
    for (int k = 0; k < t.nrow; k++) /* (the start kick: 1e-3 of a tolerance) */
        near(TU_AT(&t, k, 1), 2.0, 1e-5, "v(y)");
    tu_table_free(&t);
    free(out);
}
