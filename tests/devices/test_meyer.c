/* test_meyer.c -- Meyer's gate charge of level 1-3 MOS cards with TOX
 * (devices/meyer.c; issue 27 item 1) on netlists of tests/data/meyer/ against
 * ngspice 39 runs of the same circuits. Both circuits have smooth charges, so
 * the default transient is the adaptive one (outside the exact stepper's scope). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices/meyer.h"
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
    snprintf(
        cmd, sizeof cmd,
        "cd %s && %s -o r.dat %s/meyer/ramp.cir 2>&1 && %s compare r.dat %s/meyer/ramp_ng.txt "
        "--from 0.2n --signals 'i(vgn),i(vgp)' --tol 0.005 2>&1 && %s compare r.dat %s/meyer/ramp_ng.txt "
        "--from 0.2n --signals 'i(vd)' --tol 0.03 2>&1",
        tmp, NSC_PROGRAM, NSC_REFDIR, NSC_PROGRAM, NSC_REFDIR, NSC_PROGRAM, NSC_REFDIR);
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
    static const double ng[2] = { 1.641693e-09, 1.635526e-09 }; /* chain_ng.cir's tpd, tpd2 */
    static const char *const key[2] = { "tpd = ", "tpd2 = " };
    char cmd[4096], *out = NULL;
    snprintf(
        cmd, sizeof cmd,
        "cd %s && %s --stats -o c.dat %s/meyer/chain.cir 2>&1 && %s compare c.dat "
        "%s/meyer/chain_ng.txt --signals 'v(n5)' --tol 0.015 2>&1 && %s compare c.dat %s/meyer/chain_ng.txt "
        "--signals 'v(n15)' --tol 0.06 2>&1",
        tmp, NSC_PROGRAM, NSC_REFDIR, NSC_PROGRAM, NSC_REFDIR, NSC_PROGRAM, NSC_REFDIR);
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

/* Runs tests/data/meyer/cir (its .meas prints "per = ...") and asserts the
 * period within rel of ngspice 39's ng. */
static void period_vs_ngspice(const char *cir, double ng, double rel)
{
    char cmd[4096], *out = NULL;
    snprintf(cmd, sizeof cmd, "cd %s && %s -o p.dat %s/meyer/%s 2>&1", tmp, NSC_PROGRAM, NSC_REFDIR,
             cir);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    double d = after(out, "per = ");
    cr_log_info("%s: per = %.5g s, ngspice %.5g s (%+.2f %%)", cir, d, ng, 100 * (d / ng - 1));
    cr_assert(fabs(d / ng - 1) < rel, "%s: per = %g s, ngspice %g s\n%s", cir, d, ng, out);
    free(out);
}

/* A three-stage CMOS ring oscillator whose only capacitance is Meyer's gate
 * charge (ring.cir) against ngspice 39 (ring_ng.cir, 2 ps steps, reltol 1e-5:
 * 30 periods from the 10th rising crossing of v(a) at 1.5 V, 11.56522 ns).
 * Its start, every node at 0 V, has a_s = a_d on every transistor, where the
 * bulk charge's q_b(max(a_s, a_d)) has a kink: its slope given all to the
 * drain side made each node's capacitance C (v_g - v_d)', a cyclic matrix
 * whose rows sum to zero, and the first transient matrix singular (the run
 * stopped at t = 0). The 30 periods within 2 % (measured +0.28 %). */
Test(meyer, ring_oscillator_of_gate_charges_vs_ngspice, .timeout = 300)
{
    static const double ng = 1.156522e-08; /* ring_ng.cir's per */
    period_vs_ngspice("ring.cir", ng, 0.02);
}

/* A ring of three CMOS NAND gates, the other input at vdd (nand.cir: Meyer's
 * gate charge its only capacitance) against ngspice 39 (nand_ng.cir, 2 ps
 * steps, reltol 1e-5: 10 periods of v(a) from its 5th rising crossing of 1.5
 * V, 4.867453 ns). The inner node of each NMOS stack is held only by the
 * charges of its two transistors, all of whose slopes vanish at z = 0 (both
 * in cut-off at V_DS = 0: the bulk's charge leaves through the bulk); the
 * charges were linked as ties of the matrix, so that node got no gmin and the
 * first transient matrix was singular (the run stopped at t = 0). The 10
 * periods within 3 % (measured -1.23 %). */
Test(meyer, nand_ring_with_stacked_nodes_vs_ngspice, .timeout = 300)
{
    static const double ng = 4.867453e-09; /* nand_ng.cir's per */
    period_vs_ngspice("nand.cir", ng, 0.03);
}

/* The chord (onestep_nl.h NSC_NL_CHORD): a Newton iteration whose slopes are
 * within 1e-3 of those W holds keeps W's factors and every mode system's. The
 * chain of chain.cir at 5 ps fixed steps before its input's first edge
 * (0.45 ns: every gate at a rail, each Meyer capacitance constant): at most 0.2
 * mode systems factored per iteration (measured 8 in 92 iterations; 97 with a
 * relinearisation at every iteration); its adaptive run to 1.5 ns at most 0.9
 * (measured 0.75; 1.12 without the chord) in at most 1.7 iterations a problem
 * (measured 1.54; 1.47 without; 1.66 since MOS segment events restart no
 * implicit-Euler steps, whose tiny steps converged in one iteration: 5 978
 * problems in 9 320 iterations before, 4 065 in 6 752 after, issue 24
 * casc7); and the whole chain at 5 ps steps within 3 %
 * of ngspice's delays (+1.0 %, +1.1 %, as with a relinearisation at every
 * iteration) at most 0.9 factored per iteration (measured 0.76; 1.22 without). */
static void chord_run(const char *opts, double fmax, double pmax, int delays)
{
    char cmd[4096], *out = NULL;
    snprintf(cmd, sizeof cmd, "cd %s && %s --stats --threads 1 %s -o q.dat %s/meyer/chain.cir 2>&1",
             tmp, NSC_PROGRAM, opts, NSC_REFDIR);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    tu_newton nw;
    cr_assert(tu_newton_stats(out, &nw), "%s", out);
    cr_log_info("%s: %ld iterations, %ld chords, %.3f factored per iteration, %.2f a problem", opts,
                nw.nit, nw.nchord, nw.fper, nw.per);
    cr_assert(nw.nfail == 0 && nw.nchord > 0 && nw.fper >= 0 && nw.fper <= fmax && nw.per <= pmax,
              "%s: %s", opts, strstr(out, "Newton"));
    for (int k = 0; delays && k < 2; k++) {
        static const double ng[2] = { 1.641693e-09, 1.635526e-09 }; /* chain_ng.cir's tpd, tpd2 */
        double d = after(out, k ? "tpd2 = " : "tpd = ");
        cr_assert(fabs(d / ng[k] - 1) < 0.03, "%g s, ngspice %g s\n%s", d, ng[k], out);
    }
    free(out);
}

Test(meyer, chord_keeps_the_factors_while_the_slopes_hold, .timeout = 300)
{
    chord_run("--step 5p --tstop 0.45n", 0.2, 1.1, 0);
    chord_run("--tstop 1.5n", 0.9, 1.7, 0);
    chord_run("--step 5p", 0.9, 2.0, 1);
}

/* PHI <= 0 on a card with Meyer's charges: refused at the card (its depletion
 * region's width); the same PHI on a card without TOX is ignored with the
 * warning that names it (no charges read it). */
Test(meyer, bad_phi)
{
    char cmd[2048], path[1024], *out = NULL;
    snprintf(path, sizeof path, "%s/m.cir", tmp);
    cr_assert_eq(tu_write_file(
                     path, "bad phi\n.model n1 NMOS(LEVEL=1 VTO=1 KP=50u TOX=20n PHI=0)\nV1 d 0 5\n"
                           "M1 d d 0 0 n1\n.tran 1n 10n\n.end\n"),
                 0);
    snprintf(cmd, sizeof cmd, "%s -o %s/m.dat %s 2>&1", NSC_PROGRAM, tmp, path);
    cr_assert_neq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "m.cir:2:1: error: MOS model 'n1': PHI = 0 must be > 0"), "%s", out);
    free(out);
    cr_assert_eq(tu_write_file(path,
                               "phi unread\n.model n1 NMOS(LEVEL=1 VTO=1 KP=50u PHI=0)\nV1 d 0 5\n"
                               "M1 d d 0 0 n1\n.tran 1n 10n\n.end\n"),
                 0);
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
    tu_ac_mag_vs_ngspice(tmp, "meyer/ac.cir", "meyer/ac_ng.txt", 21, 1e-6, "|v(d)|");
}

/* Meyer's capacitances (meyer.c's header; C = 1, PHI = phi) at the larger
 * overdrive u and the other w: cap[0] Cgs, cap[1] Cgd, cap[2] Cgb. */
static void meyer_caps(double u, double w, double phi, double cap[3])
{
    cap[0] = cap[1] = cap[2] = 0;
    if (u <= -phi) cap[2] = 1;
    else if (u <= -phi / 2) cap[2] = -u / phi;
    else if (u <= 0) cap[2] = -u / phi, cap[0] = 2.0 / 3 + 4 * u / (3 * phi);
    else if (w <= 0) cap[0] = 2.0 / 3;
    else
        cap[0] = 2.0 / 3 * (1 - w * w / ((u + w) * (u + w))),
        cap[1] = 2.0 / 3 * (1 - u * u / ((u + w) * (u + w)));
}

/* The sum of the charges of m at x (v_d v_g v_s: d g s b on nodes 1 2 3 4) and its gradient */
static double gate_charge(const nsc_meyer *m, const double x[3], double g[3])
{
    double q = 0, gk[3];
    g[0] = g[1] = g[2] = 0;
    for (int k = 0; k < m->nq; k++) {
        q += nsc_meyer_charge(&m->q[k], x, gk);
        for (int j = 0; j < 3; j++) g[j] += gk[j];
    }
    return q;
}

/* The C closed forms of Meyer's charges (nsc_meyer_charge, meyer.c) on a grid
 * of an NMOS's v_g and v_d (v_s = 0.2 V; VTO 0.7, PHI 0.6, C = 1 F) in all five
 * regions and both modes: the gate charge's derivatives are Meyer's
 * capacitances (dQ_g/dv_g = Cgs + Cgd + Cgb, and -dQ_g/dv_s = Cgs, -dQ_g/dv_d =
 * Cgd above threshold; the source the side of the larger overdrive) within
 * 1e-12; each charge's gradient within 1e-7 of central differences (h = 1e-6 V;
 * points within 1e-4 V of a region's edge skipped); in the triode Q_s + Q_d =
 * 2/3 (A^2 + A B + B^2)/(A + B) within 1e-14; a PMOS's charges (VTO -0.7) at v
 * are minus the NMOS's at -v, its gradient the NMOS's. */
Test(meyer, charges_are_meyers_capacitances)
{
    static const int node[4] = { 1, 2, 3, 4 };
    const double phi = 0.6, vs = 0.2;
    nsc_meyer n, p;
    nsc_meyer_make(node, 1, 0.7, 1.0, phi, &n);
    nsc_meyer_make(node, -1, -0.7, 1.0, phi, &p);
    cr_assert(n.nq == 3 && n.nin == 3 && n.term[0] == 0 && n.term[1] == 1 && n.term[2] == 2);
    int checked[5] = { 0 };
    for (double vg = -1.5; vg < 3.5; vg += 0.01371)
        for (double vd = -1; vd < 3.5; vd += 0.0973) {
            double x[3] = { vd, vg, vs }, as = vg - vs - 0.7, ad = vg - vd - 0.7;
            double u = fmax(as, ad), w = fmin(as, ad), e = 1e-4, cap[3], g[3], gp[3];
            if (fabs(u) < e || fabs(w) < e || fabs(u + phi / 2) < e || fabs(u + phi) < e
                || fabs(u - w) < e)
                continue;
            meyer_caps(u, w, phi, cap);
            double q = gate_charge(&n, x, g), mx[3] = { -vd, -vg, -vs };
            double cs = as > ad ? cap[0] : cap[1], cd = as > ad ? cap[1] : cap[0];
            checked[u <= -phi ? 0 : u <= -phi / 2 ? 1 : u <= 0 ? 2 : w <= 0 ? 3 : 4]++;
            cr_assert(fabs(g[1] - (cap[0] + cap[1] + cap[2])) < 1e-12, "vg %g vd %g: dQg/dvg %.15g",
                      vg, vd, g[1]);
            if (u > 0)
                cr_assert(fabs(-g[2] - cs) < 1e-12 && fabs(-g[0] - cd) < 1e-12, "vg %g vd %g", vg,
                          vd);
            if (w > 0)
                cr_assert(fabs(q - 2.0 / 3 * (u * u + u * w + w * w) / (u + w)) < 1e-14,
                          "vg %g vd %g", vg, vd);
            cr_assert(fabs(gate_charge(&p, mx, gp) + q) < 1e-14, "PMOS at vg %g vd %g", -vg, -vd);
            for (int j = 0; j < 3; j++)
                cr_assert(fabs(gp[j] - g[j]) < 1e-14, "PMOS at vg %g vd %g", -vg, -vd);
            for (int k = 0; k < 3; k++) { /* each charge's gradient: central differences */
                double gk[3], t[3];
                nsc_meyer_charge(&n.q[k], x, gk);
                for (int j = 0; j < 3; j++) {
                    double xp[3] = { x[0], x[1], x[2] }, xm[3] = { x[0], x[1], x[2] }, h = 1e-6;
                    xp[j] += h, xm[j] -= h;
                    double fd = (nsc_meyer_charge(&n.q[k], xp, t)
                                 - nsc_meyer_charge(&n.q[k], xm, t))
                                / (2 * h);
                    cr_assert(fabs(gk[j] - fd) < 1e-7,
                              "q_%d at vg %g vd %g: d/dx_%d %.12g, differences %.12g", k, vg, vd, j,
                              gk[j], fd);
                }
            }
        }
    for (int r = 0; r < 5; r++) cr_assert(checked[r] > 50, "region %d: %d points", r, checked[r]);
}

/* At V_DS = 0 below threshold (a_s = a_d: the kink of q_b(max(a_s, a_d)))
 * the bulk charge's slope is split evenly between source and drain, the mean
 * of its one-sided slopes: an NMOS (VTO 0.7, PHI 0.6, C = 1 F) at v_d = v_s =
 * 0.2 V and v_g in each region below threshold has dQ_b/dv_d = dQ_b/dv_s =
 * -q_b'(u)/2 (1/2 at u <= -PHI, -u/(2 PHI) to -PHI/2, (u/(3 PHI) + 2/3)/2
 * to 0) within 1e-15; before, all of it on the drain (singular ring.cir). */
Test(meyer, bulk_slope_is_split_at_vds_zero)
{
    static const int node[4] = { 1, 2, 3, 4 };
    const double phi = 0.6;
    nsc_meyer n;
    nsc_meyer_make(node, 1, 0.7, 1.0, phi, &n);
    static const double vgs[3] = { -0.5, 0.3, 0.6 }; /* u = -1.2, -0.4, -0.1 */
    for (int r = 0; r < 3; r++) {
        double x[3] = { 0.2, 0.2 + vgs[r], 0.2 }, g[3], u = vgs[r] - 0.7;
        double du = u <= -phi ? 1 : u <= -phi / 2 ? -u / phi : u / (3 * phi) + 2.0 / 3;
        nsc_meyer_charge(&n.q[2], x, g);
        cr_assert(fabs(g[0] + du / 2) < 1e-15 && fabs(g[2] + du / 2) < 1e-15
                      && fabs(g[1] - du) < 1e-15,
                  "u %g: d/dv_d %g d/dv_g %g d/dv_s %g", u, g[0], g[1], g[2]);
    }
}

/* A circuit at rest stays at rest: a level-1 NMOS with TOX in saturation (V_GS
 * 3 V into 10k from 10 V, every source DC, the bulk on the source, then on -3 V
 * and with GAMMA: the smooth body effect), default transient. The stand-in's
 * start kick (stepper_adapt.c rest_start) moved Meyer's charges, functions of
 * the voltages, and the drain answered by jumping to the saturation edge:
 * v(d) 5.9984 -> 1.948 V at the first step, back within 1 ps (main). Now the
 * charges are moved with the node voltages (q at v + dv, dv 1e-3 of their
 * tolerances): every row's v(d) within 1e-6 V of the operating point's
 * 5.9984 V (K/2 (2 - 1)^2 = 400 uA through 10k: 6 V less the PWL fit's 1.6 mV). */
Test(meyer, dc_start_stays_at_rest)
{
    const char *bulk[3] = { "0 nm", "bb nm", "bb ng" };
    for (int k = 0; k < 3; k++) {
        char cmd[2048], path[1024], net[512], *out = NULL;
        snprintf(net, sizeof net,
                 "at rest\nVDD dd 0 10\nVG g 0 3\nVBB bb 0 -3\nRB bb 0 1meg\nR1 dd d 10k\n"
                 "M1 d g 0 %s W=100u L=10u\n.model nm NMOS(LEVEL=1 VTO=1 KP=20u TOX=50n)\n"
                 ".model ng NMOS(LEVEL=1 VTO=1 KP=20u TOX=50n GAMMA=0.5 PHI=0.7)\n"
                 ".tran 1n 100n\n.end\n",
                 bulk[k]);
        snprintf(path, sizeof path, "%s/r.cir", tmp);
        cr_assert_eq(tu_write_file(path, net), 0);
        snprintf(cmd, sizeof cmd, "%s --quiet -o %s/r.dat %s 2>&1", NSC_PROGRAM, tmp, path);
        cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
        free(out);
        snprintf(path, sizeof path, "%s/r.dat", tmp);
        tu_table t;
        cr_assert_eq(tu_table_read(path, &t), 0);
        int d = tu_table_col(&t, "v(d)");
        cr_assert(d > 0 && t.nrow > 10);
        double v0 = TU_AT(&t, 0, d);
        if (k < 2) cr_assert(fabs(v0 - 5.9984) < 1e-4, "%g", v0);
        double dev = 0;
        for (int i = 0; i < t.nrow; i++) dev = fmax(dev, fabs(TU_AT(&t, i, d) - v0));
        cr_log_info("bulk %s: v(d) at most %.3g V off its start", bulk[k], dev);
        for (int i = 0; i < t.nrow; i++)
            cr_assert(fabs(TU_AT(&t, i, d) - v0) < 1e-6, "bulk %s, t = %g: v(d) %.9g, at 0 %.9g",
                      bulk[k], TU_AT(&t, i, 0), TU_AT(&t, i, d), v0);
        tu_table_free(&t);
    }
}

/* A three-stage CMOS ring whose storage is Meyer's gate charges and the
 * CGSO/CGDO overlaps (ring_ov.cir, TSTEP 0.1 ns: rev9's ring) starts from its
 * balance (every node at 2.4335 V) as ngspice 39's does (ring_ov_ng.cir, 2 ps
 * steps, reltol 1e-5: 20 periods of v(a) from its 5th rising crossing of
 * 2.5 V, 26.90843 ns). With the charges not kicked at all the run stayed at
 * 2.433 V for 100 ns: the node voltages' kick decayed, as at 0.1 ns fixed
 * steps (50 ps ones oscillate) -- the charge rows are exact, the channel's
 * current enters at the step's end, and steps of h |s| > 1 damp the unstable
 * mode s as implicit Euler would; the start's ceiling is TSTEP / 8. Within 3 %
 * (measured +1.06 %). */
Test(meyer, overlap_ring_starts_from_its_balance_vs_ngspice, .timeout = 300)
{
    static const double ng = 2.690843e-08; /* ring_ov_ng.cir's per */
    period_vs_ngspice("ring_ov.cir", ng, 0.03);
}
