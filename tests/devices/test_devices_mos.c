/* test_devices_mos.c -- suite `devmos`: the PWL approximation of x^2 (default table
 * of formulation.md §1 and the SEGMENTS=n family) against x^2 with the error
 * bounds of its construction; the MOS stamps entry by entry against hand-derived
 * matrices (NMOS, PMOS, overlap capacitances); static I_DS(V_GS, V_DS) against the
 * level-1 square law within the PWL error; Lemke on MOS circuits against the
 * enumerative oracle; model errors and warnings. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices/device.h"
#include "devices/pwl_exp.h"
#include "devices/pwl_sq.h"
#include "netlist/netlist.h"
#include "analysis/stepper.h"
#include "testutil.h"

static nsc_lcs *assemble(const nsc_circuit *c, nsc_asm_mode mode, nsc_report *r)
{
    nsc_lcs *L = NULL;
    nsc_status s = nsc_lcs_assemble(c, mode, 1e-12, &L, r);
    cr_assert_eq(s, NSC_OK, "assemble failed: %s", r->error ? r->error : "?");
    return L;
}

/* The index of the circuit's first MOS transistor. */
static int mos_el(const nsc_circuit *c)
{
    for (int k = 0; k < c->nel; k++)
        if (c->el[k].kind == NSC_EL_M) return k;
    cr_assert_fail("no MOS transistor");
    return -1;
}

static double get(const nsc_sparse *S, int i, int j)
{
    return nsc_sp_get(S, i, j);
}

static int zindex(const nsc_lcs *L, const char *name)
{
    for (int k = 0; k < L->n; k++)
        if (!strcmp(L->zname[k], name)) return k;
    cr_assert_fail("no unknown %s", name);
    return -1;
}

/* |f(x) - x^2| allowed by the construction: eps x^2 on [0.1, X]; on [0, 0.1] the
 * chord c x, c = 0.1 (1 - eps), is at most c^2/4 above x^2 and 0.01 eps below. */
static double pwl_bound(double x, double eps)
{
    return x < 0.1 ? fmax(0.25 * pow(0.1 * (1 - eps), 2), 0.01 * eps) : eps * x * x;
}

/* The circuit's fit (nsc_pwl_sq_fit): |f - x^2| <= eps x^2 on [0.1, X] (f interpolates
 * x^2, or 0.9 x^2 below the lowest anchor's ladder), <= 0.1^2/4 on [0, 0.1]. */
static double fit_bound(double x, double eps)
{
    return x < 0.1 ? 0.0025 : eps * x * x;
}

#define PWL_X (0.1 * 38.24149252073782) /* X = 0.1 rho6^4, the top of the tables' range */

/* ================= the PWL table ================= */

/* The default table is formulation.md's: breakpoints 0, 0.1, 0.2487, 0.6185,
 * 1.5383 and segment slopes 0, 0.09, 0.314055, 0.780422, 1.94107, 4.82766. */
Test(devmos, pwl_default_table)
{
    double b[NSC_PWL_MAXSEG], a[NSC_PWL_MAXSEG], eps;
    int nb = nsc_pwl_sq(0, b, a, &eps);
    cr_assert_eq(nb, 5);
    cr_assert_eq(eps, 0.1);
    const double bref[] = { 0, 0.1, 0.2487, 0.6185, 1.5383 };
    const double sref[] = { 0, 0.09, 0.314055, 0.780422, 1.94107, 4.82766 };
    double slope = 0;
    for (int j = 0; j < nb; j++) {
        cr_assert_eq(b[j], bref[j]);
        cr_assert(a[j] > 0, "not convex at b[%d]", j);
        slope += a[j];
        cr_assert_float_eq(slope, sref[j + 1], 1e-15, "slope %d: %g", j + 1, slope);
    }
    /* f(0.1) = 0.009, f(0.2487) = 0.009 + 0.314055 * 0.1487 (hand) */
    cr_assert_float_eq(nsc_pwl_eval(nb, b, a, 0.1), 0.009, 1e-15);
    cr_assert_float_eq(nsc_pwl_eval(nb, b, a, 0.2487), 0.009 + 0.314055 * 0.1487, 1e-15);
    cr_assert_eq(nsc_pwl_eval(nb, b, a, -1.0), 0.0);
    cr_assert_eq(nsc_pwl_eval(nb, b, a, 0.0), 0.0);
    /* error bounds: relative 10 % on [0.1, 3.824] (the printed digits of the table
     * add < 0.1 %), 2.03e-3 absolute on [0, 0.1]; exact 0 below 0 */
    double X = 0.1 * pow((13 + sqrt(88.0)) / 9, 4), emax_rel = 0, emax_abs = 0;
    for (int k = 0; k <= 20000; k++) {
        double x = -0.5 + k * (X + 0.5) / 20000, f = nsc_pwl_eval(nb, b, a, x),
               e = fabs(f - fmax(x, 0) * fmax(x, 0));
        if (x <= 0) cr_assert_eq(f, 0.0);
        else if (x < 0.1) emax_abs = fmax(emax_abs, e);
        else emax_rel = fmax(emax_rel, e / (x * x));
    }
    cr_log_info(
        "default table: max relative error %.5f on [0.1, %.4f], max absolute %.3e on [0, 0.1]",
        emax_rel, X, emax_abs);
    cr_assert(emax_rel < 0.1 * 1.01 && emax_rel > 0.099, "relative error %g", emax_rel);
    cr_assert(emax_abs <= pwl_bound(0.05, 0.1) + 1e-15, "absolute error %g", emax_abs);
}

/* SEGMENTS = n: convex, relative error eps_n on [0.1, X] reached (equioscillation)
 * and decreasing with n; n = 6 reproduces the default table (0.05 % on b, 0.2 % on slopes). */
Test(devmos, pwl_segments_family)
{
    double b[NSC_PWL_MAXSEG], a[NSC_PWL_MAXSEG], b0[NSC_PWL_MAXSEG], a0[NSC_PWL_MAXSEG], eps,
        prev = 1;
    double X = 0.1 * pow((13 + sqrt(88.0)) / 9, 4);
    for (int n = 3; n <= NSC_PWL_MAXSEG; n++) {
        int nb = nsc_pwl_sq(n, b, a, &eps);
        cr_assert_eq(nb, n - 1);
        cr_assert(eps < prev, "eps not decreasing at n = %d", n);
        prev = eps;
        for (int j = 0; j < nb; j++) cr_assert(a[j] > 0, "n = %d: not convex", n);
        double emax = 0;
        for (int k = 0; k <= 4000; k++) {
            double x = k * X / 4000, e = fabs(nsc_pwl_eval(nb, b, a, x) - x * x);
            cr_assert(e <= pwl_bound(x, eps) * (1 + 1e-9) + 1e-15,
                      "n = %d x = %g: error %g > bound", n, x, e);
            if (x >= 0.1) emax = fmax(emax, e / (x * x));
        }
        cr_assert(emax > 0.97 * eps, "n = %d: error %g does not reach eps %g", n, emax, eps);
    }
    nsc_pwl_sq(6, b, a, &eps);
    int nb0 = nsc_pwl_sq(0, b0, a0, NULL);
    cr_assert_float_eq(eps, 0.1, 1e-12);
    for (int j = 0; j < nb0; j++) {
        cr_assert(fabs(b[j] - b0[j]) <= 5e-4 * b0[j], "b[%d] %g vs %g", j, b[j], b0[j]);
        cr_assert(fabs(a[j] - a0[j]) <= 2e-3 * a0[j], "a[%d] %g vs %g", j, a[j], a0[j]);
    }
    nsc_pwl_sq(20, b, a, &eps);
    cr_log_info("SEGMENTS=20: eps = %.5f", eps);
    cr_assert(eps < 0.006);
    cr_assert_eq(nsc_pwl_sq(2, b, a, NULL), -1);
    cr_assert_eq(nsc_pwl_sq(NSC_PWL_MAXSEG + 1, b, a, NULL), -1);
}

/* The circuit's fit (nsc_pwl_sq_fit) anchored at 1, 2, 4 and 9 V of overdrive:
 * convex, |f - x^2| <= eps x^2 on [0.1, 9.36] with eps <= 0.1 (x^2 <= f above the
 * lowest ladder point 0.7 V, where f interpolates x^2), and the triode current
 * f(a) - f(a - v) within 1.02 % of a^2 - (a - v)^2 for v <= 0.1 a at each anchor
 * (the default table: -38 % at a = 9, v = 0.1 a, where its range has ended; -23 %
 * at a = 1.3, v = 0.01 a); without anchors 7 breakpoints, one anchor at 2 V 11 (12
 * before the equioscillating points below the ladder). */
Test(devmos, fit_triode_at_the_anchors)
{
    double an[4] = { 1, 2, 4, 9 }, b[NSC_PWL_MAXSEG], a[NSC_PWL_MAXSEG], eps;
    int nb = nsc_pwl_sq_fit(0, PWL_X, an, 4, b, a, &eps);
    cr_assert(nb > 0 && eps <= 0.1, "nb %d eps %g", nb, eps);
    for (int j = 0; j < nb; j++)
        cr_assert(a[j] > 0 && (j == 0 || b[j] > b[j - 1]), "not convex at %d", j);
    for (int k = 0; k <= 20000; k++) {
        double x = 0.1 + k * (9.36 - 0.1) / 20000, f = nsc_pwl_eval(nb, b, a, x);
        double lo = x >= 0.7 ? 1 : 1 - eps;
        cr_assert(f >= lo * x * x * (1 - 1e-12) && f <= (1 + eps) * x * x * (1 + 1e-12),
                  "x = %g: f = %g", x, f);
    }
    for (int i = 0; i < 4; i++)
        for (int k = 1; k <= 1000; k++) {
            double x = an[i], v = 1e-4 * k * x, exact = x * x - (x - v) * (x - v);
            double rel = (nsc_pwl_eval(nb, b, a, x) - nsc_pwl_eval(nb, b, a, x - v)) / exact - 1;
            cr_assert(fabs(rel) <= 0.0102, "a = %g, v = %g: triode off by %g", x, v, rel);
        }
    double b0[NSC_PWL_MAXSEG], a0[NSC_PWL_MAXSEG]; /* the design table, for the record */
    int n0 = nsc_pwl_sq(0, b0, a0, NULL);
    double t9 = (nsc_pwl_eval(n0, b0, a0, 9) - nsc_pwl_eval(n0, b0, a0, 8.1)) / (81 - 8.1 * 8.1)
                - 1;
    double t1 = (nsc_pwl_eval(n0, b0, a0, 1.3) - nsc_pwl_eval(n0, b0, a0, 1.287))
                    / (1.69 - 1.287 * 1.287)
                - 1;
    cr_log_info("design table: triode %+.3f at 9 V, %+.3f at 1.3 V", t9, t1);
    cr_assert(t9 < -0.3 && t1 < -0.2);
    cr_assert_eq(nsc_pwl_sq_fit(0, PWL_X, NULL, 0, b, a, NULL), 7);
    cr_assert_eq(nsc_pwl_sq_fit(0, PWL_X, an + 1, 1, b, a, NULL), 11);
    cr_assert_eq(nsc_pwl_sq_fit(2, PWL_X, NULL, 0, b, a, NULL), -1);
}

/* The channel resistance of a level-1 NMOS (VTO = 1, KP = 20, RDS = 1/(KP (VGS -
 * VTO)) at low current) at VGS = 2, 3, 5, 10 V, one transistor per drive in one
 * circuit, 0.1 A each: within 1 % of the square law's V_DS = x - sqrt(x^2 -
 * 2 I/KP) (the design table gave 5.92 mOhm at 3, 5 and 10 V). */
Test(devmos, triode_follows_the_gate_drive)
{
    static const double vg[] = { 2, 3, 5, 10 };
    char net[1024];
    int len = snprintf(net, sizeof net, "t\n.model NM NMOS(LEVEL=1 VTO=1 KP=20)\n");
    for (int k = 0; k < 4; k++)
        len += snprintf(net + len, sizeof net - (size_t)len,
                        "VG%d g%d 0 %g\nI%d 0 d%d 0.1\nM%d d%d g%d 0 0 NM\n", k, k, vg[k], k, k, k,
                        k, k);
    snprintf(net + len, sizeof net - (size_t)len, ".op\n.end\n");
    nsc_circuit *c = tu_parse(net);
    nsc_report r;
    nsc_report_init(&r);
    nsc_waves *O = NULL;
    cr_assert_eq(nsc_stepper_op(c, 1e-12, NSC_SOLVER_AUTO, NULL, 0, &O, &r), NSC_OK, "%s",
                 r.error ? r.error : "");
    for (int k = 0; k < 4; k++) {
        char col[16];
        snprintf(col, sizeof col, "v(d%d)", k);
        double x = vg[k] - 1, sq = x - sqrt(x * x - 2 * 0.1 / 20), v = O->v[nsc_waves_col(O, col)];
        cr_log_info("VGS = %g V: %.4g mOhm, square law %.4g mOhm", vg[k], v / 0.1e-3, sq / 0.1e-3);
        cr_assert(fabs(v / sq - 1) < 0.01, "VGS = %g: %g V, square law %g V", vg[k], v, sq);
    }
    nsc_waves_free(O);
    nsc_report_free(&r);
    nsc_circuit_free(c);
}

/* ================= stamps ================= */

/* NMOS M1 d g s with K = KP W/L = 1e-4 * 2 = 2e-4, VTO = 0.7, SEGMENTS=4
 * (3 pairs per side), CGSO = 1e-9 F/m, CGDO = 2e-9 F/m, W = 2 um; the bulk on
 * ground: two bulk junctions (IS = 1e-14 by default), pairs 6 (b -> d) and 7
 * (b -> s), each a diode's pair with the one-line fit of Vt ln(1 + i/IS) on
 * 10 mA..1 A (issue 27 item 1). */
Test(devmos, nmos_stamp)
{
    nsc_circuit *c = tu_parse(
        "t\nVD d 0 1\nVG g 0 2\nVS s 0 0.1\nM1 d g s 0 NM W=2u L=1u\n"
        ".model NM NMOS(LEVEL=1 VTO=0.7 KP=1e-4 CGSO=1e-9 CGDO=2e-9 SEGMENTS=4)\n.tran 1n 1u\n.end\n");
    nsc_report r;
    nsc_report_init(&r);
    nsc_lcs *L = assemble(c, NSC_ASM_TRAN, &r);
    cr_assert_eq(r.nwarn, 0);
    double b[NSC_PWL_MAXSEG], a[NSC_PWL_MAXSEG];
    int nb = nsc_mos_fit(c, mos_el(c), b, a, NULL,
                         NULL); /* SEGMENTS=4: 3 breakpoints, no anchors */
    cr_assert_eq(nb, 3);
    cr_assert_eq(L->m, 8);
    int d = zindex(L, "v(d)"), g = zindex(L, "v(g)"), s = zindex(L, "v(s)");
    nsc_jfit jf;
    cr_assert_eq(nsc_jfit_make(0, 1.380649e-23 * 300.15 / 1.602176634e-19, 1e-14, 0, 10e-3, 1, 1,
                               &jf),
                 0);
    for (int q = 6; q < 8; q++) { /* y = v_t - v_b + VF + RON lambda, lambda into t */
        int t = q == 6 ? d : s;
        cr_assert_eq(get(L->C, q, t), 1.0);
        cr_assert_eq(get(L->B, t, q), 1.0);
        cr_assert_eq(get(L->C, q, g), 0.0);
        cr_assert_float_eq(get(L->D, q, q), jf.s[0], 1e-15);
        cr_assert_float_eq(L->e0[q], jf.vf[0], 1e-15);
    }
    cr_assert_float_eq(jf.vf[0], 0.7408, 1e-4);
    double K = 2e-4;
    for (int side = 0; side < 2; side++)
        for (int j = 0; j < nb; j++) {
            int q = side * nb + j, x = side ? d : s, other = side ? s : d;
            char name[16];
            snprintf(name, sizeof name, "m1#%d", q);
            cr_assert_str_eq(L->pair_name[q], name);
            /* y = mu - (v_g - v_x - VTO) + b_j */
            cr_assert_eq(get(L->C, q, g), -1.0);
            cr_assert_eq(get(L->C, q, x), 1.0);
            cr_assert_eq(get(L->C, q, other), 0.0);
            cr_assert_eq(get(L->D, q, q), 1.0);
            for (int k = 0; k < L->m; k++)
                if (k != q) cr_assert_eq(get(L->D, q, k), 0.0);
            cr_assert_float_eq(L->e0[q], 0.7 + b[j], 1e-15);
            /* I_DS = sum K/2 a_j (mu_j - nu_j), leaving d, entering s */
            double cj = (side ? -1 : 1) * 0.5 * K * a[j];
            cr_assert_float_eq(get(L->B, d, q), -cj, 1e-20);
            cr_assert_float_eq(get(L->B, s, q), cj, 1e-20);
            cr_assert_eq(get(L->B, g, q), 0.0);
        }
    /* overlap capacitances CGSO W = 2e-15 (g-s), CGDO W = 4e-15 (g-d) */
    cr_assert_float_eq(get(L->E, g, g), 6e-15, 1e-25);
    cr_assert_float_eq(get(L->E, g, s), -2e-15, 1e-25);
    cr_assert_float_eq(get(L->E, g, d), -4e-15, 1e-25);
    cr_assert_float_eq(get(L->E, d, d), 4e-15, 1e-25);
    cr_assert_float_eq(get(L->E, s, s), 2e-15, 1e-25);
    /* I(M1): the channel current plus CGDO W d(v_d - v_g)/dt */
    nsc_probe p = { NSC_PROBE_I, { 0, 0 }, 3, "i(m1)", { 0 } };
    nsc_lin f;
    cr_assert_eq(nsc_lcs_probe(L, c, &p, &f, &r), NSC_OK);
    double lam[8] = { 1, 2, 3, 0.5, 0.25, 0.125, 0.01, 0.02 }, z[16] = { 0 }, zp[16] = { 0 };
    z[d] = 1e-3;
    double want = 0.5 * K * (a[0] * (1 - 0.5) + a[1] * (2 - 0.25) + a[2] * (3 - 0.125))
                  + 4e-15 * 1e-3 / 1e-9 - 0.01; /* the b -> d junction's current leaves at d */
    cr_assert_float_eq(nsc_lin_eval(&f, z, lam, zp, 1e-9, NULL), want, 1e-18);
    nsc_lin_free(&f);
    nsc_lcs_free(L);
    /* OP: capacitors open, same pairs */
    L = assemble(c, NSC_ASM_OP, &r);
    cr_assert_eq(L->m, 8);
    cr_assert_eq(L->E->p[L->E->n], 0);
    nsc_lcs_free(L);
    nsc_report_free(&r);
    nsc_circuit_free(c);
}

/* Gate and junction charge: TOX = 20 nm gives C = Cox W Leff (W = 2 um, L = 1
 * um, LD = 0.1 um: Leff = 0.8 um, 2.7625 fF) as Meyer's charges (meyer.c): three
 * (the body b its own node, VB), each x_k' leaving g (E[g][x_k] = 1); at VG = 2,
 * VD = 5 (saturation, overdrive 1.3 V) Q_s = 2/3 C 1.3 with dQ_s/dv_g = 2/3 C,
 * Q_d = Q_b = 0. Constant capacitors: CGSO W gate-source, CGBO Leff gate-body;
 * CBD, CBS body-drain, body-source as the constants of their charge over the
 * circuit's largest level (VD's 5 V; PB = 0.8, MJ = 0.5: K = 1.6 (sqrt(7.25) -
 * 1)/5 = 0.541626). */
Test(devmos, gate_and_junction_capacitors)
{
    nsc_circuit *c = tu_parse(
        "t\nVD d 0 5\nVG g 0 2\nVB b 0 -1\nM1 d g 0 b NM W=2u L=1u\n"
        ".model NM NMOS(LEVEL=1 VTO=0.7 KP=1e-4 TOX=20n LD=0.1u CGSO=1e-9 CGBO=2e-9 CBD=3f "
        "CBS=4f SEGMENTS=4)\n.tran 1n 1u\n.end\n");
    nsc_report r;
    nsc_report_init(&r);
    nsc_lcs *L = assemble(c, NSC_ASM_TRAN, &r);
    cr_assert_eq(r.nwarn, 0, "%s", r.nwarn ? r.warn[0] : "");
    int d = zindex(L, "v(d)"), g = zindex(L, "v(g)"), b = zindex(L, "v(b)");
    double cox = 3.9 * 8.854214871e-12 / 20e-9, keq = 1.6 * (sqrt(1 + 5 / 0.8) - 1) / 5;
    cr_assert_float_eq(keq, 0.541626, 1e-6);
    cr_assert_float_eq(get(L->E, g, g), 2e-15 + 1.6e-15, 1e-27); /* CGSO W + CGBO Leff */
    double C = cox * 2e-6 * 0.8e-6, z[64] = { 0 }, q[3];
    cr_assert(L->n <= 64 && L->nsm == 3, "%d smooth rows", L->nsm);
    z[d] = 5, z[g] = 2, z[b] = -1;
    cr_assert_eq(nsc_lcs_smooth_at(L, z), 0); /* the charges s, d, b at the operating point: */
    for (int k = 0; k < 3; k++) {             /* q_k = s0 + J z there */
        const nsc_smooth *S = &L->sm[k];
        cr_assert_float_eq(get(L->E, g, S->row), 1.0, 1e-15);
        q[k] = L->s0[S->row];
        for (int j = 0; j < S->nin; j++) q[k] += get(L->A, S->row, S->in[j]) * z[S->in[j]];
    }
    cr_assert_float_eq(get(L->A, L->sm[0].row, g), 2.0 / 3 * C, 1e-24); /* Cgs */
    cr_assert_float_eq(q[0], 2.0 / 3 * C * 1.3, 1e-24);
    cr_assert(q[1] == 0 && q[2] == 0, "Q_d %g Q_b %g", q[1], q[2]);
    cr_assert_float_eq(get(L->E, g, b), -1.6e-15, 1e-27);
    cr_assert_float_eq(get(L->E, b, d), -3e-15 * keq, 1e-27);
    cr_assert_float_eq(get(L->E, b, b), 1.6e-15 + 7e-15 * keq, 1e-27);
    cr_assert_float_eq(get(L->E, d, d), 3e-15 * keq, 1e-27);
    cr_assert_float_eq(cox * 2e-6 * 0.8e-6, 2.7625e-15, 1e-19);
    /* the losses' ports: d-s (I_DS + CBD), g-s (the gate's capacitors), b-s (the body's) */
    nsc_lin v[NSC_MAXPORT] = { { 0 } }, i[NSC_MAXPORT] = { { 0 } };
    int np = 0;
    cr_assert_eq(nsc_device_of(NSC_EL_M)->ports(L, c, 3, v, i, &np), NSC_OK);
    cr_assert_eq(np, 3);
    for (int k = 0; k < np; k++) {
        nsc_lin_free(&v[k]);
        nsc_lin_free(&i[k]);
    }
    nsc_lcs_free(L);
    nsc_report_free(&r);
    nsc_circuit_free(c);
}

/* PMOS by symmetry: x = -(v_g - v_x - VTO), I_DS = -K/2 (f(x_s) - f(x_d)). */
Test(devmos, pmos_stamp)
{
    nsc_circuit *c = tu_parse("t\nVD d 0 1\nVG g 0 2\nVS s 0 3\nM1 d g s s PM W=10u L=2u\n"
                              ".model PM PMOS(LEVEL=3 VTO=-0.8 KP=3e-5)\n.tran 1n 1u\n.end\n");
    nsc_report r;
    nsc_report_init(&r);
    nsc_lcs *L = assemble(c, NSC_ASM_TRAN, &r);
    double b[NSC_PWL_MAXSEG], a[NSC_PWL_MAXSEG], an[8];
    int na, nb = nsc_mos_fit(c, mos_el(c), b, a, an, &na);
    /* the levels 1, 2, 3 V give the overdrives 0.2 (dropped), 1.2, 2.2 V */
    cr_assert(na == 2 && fabs(an[0] - 2.2) < 1e-12 && fabs(an[1] - 1.2) < 1e-12, "%d anchors", na);
    cr_assert_eq(L->m, 2 * nb + 1); /* the bulk on the source: the d -> b junction only */
    int d = zindex(L, "v(d)"), g = zindex(L, "v(g)"), s = zindex(L, "v(s)"), j = 2 * nb;
    cr_assert_eq(get(L->C, j, s), 1.0); /* y = v_b - v_d + ..., lambda d -> b */
    cr_assert_eq(get(L->C, j, d), -1.0);
    cr_assert_eq(get(L->B, d, j), -1.0);
    cr_assert_eq(get(L->B, s, j), 1.0);
    double K = 3e-5 * 5;
    for (int side = 0; side < 2; side++)
        for (int j = 0; j < nb; j++) {
            int q = side * nb + j, x = side ? d : s;
            cr_assert_eq(get(L->C, q, g), 1.0);
            cr_assert_eq(get(L->C, q, x), -1.0);
            cr_assert_float_eq(L->e0[q], 0.8 + b[j], 1e-15); /* p VTO + b_j = 0.8 + b_j */
            double cj = (side ? -1 : 1) * -0.5 * K * a[j];
            cr_assert_float_eq(get(L->B, d, q), -cj, 1e-20);
            cr_assert_float_eq(get(L->B, s, q), cj, 1e-20);
        }
    cr_assert_eq(L->E->p[L->E->n], 0); /* no overlap capacitance */
    nsc_lcs_free(L);
    nsc_report_free(&r);
    nsc_circuit_free(c);
}

/* ================= static I_DS ================= */

/* Many independent transistors in one operating point: each has its own gate and
 * drain sources, source grounded, IS = 0 (no bulk junction current: the channel alone). I_D = -i(vd_k). The PWL Sah current against
 * the level-1 square law I = K/2 (max(0, x_s)^2 - max(0, x_d)^2) (both signs of
 * V_DS: linear, saturation, reverse), within K/2 (|df(x_s)| + |df(x_d)|) with
 * |df| the table's error bound (relative 10 % / 2.03e-3 V^2), for overdrives in
 * the table's range [0, X]; beyond X the last slope continues and the error
 * grows (12.4 % at 4 V for the default table). PMOS mirrors NMOS. */
static void static_sweep(const char *type, double vto, int segments, const double *vgs, int ng,
                         const double *vds, int nd)
{
    double p = type[0] == 'N' ? 1 : -1, K = 2e-4 * 3;
    size_t cap = 64 * 1024;
    char *net = malloc(cap);
    int len = snprintf(net, cap, "sweep\n.model MM %s(LEVEL=1 VTO=%g KP=2e-4 IS=0%s)\n", type, vto,
                       segments ? " SEGMENTS=12" : "");
    for (int i = 0; i < ng; i++)
        for (int k = 0; k < nd; k++)
            len += snprintf(
                net + len, cap - (size_t)len,
                "VG%d_%d g%d_%d 0 %g\nVD%d_%d d%d_%d 0 %g\nM%d_%d d%d_%d g%d_%d 0 0 MM W=3u L=1u\n",
                i, k, i, k, p * vgs[i], i, k, i, k, p * vds[k], i, k, i, k, i, k);
    snprintf(net + len, cap - (size_t)len, ".op\n.end\n");
    nsc_circuit *c = tu_parse(net);
    free(net);
    nsc_report r;
    nsc_report_init(&r);
    nsc_waves *O = NULL;
    cr_assert_eq(nsc_stepper_op(c, 1e-12, NSC_SOLVER_AUTO, NULL, 0, &O, &r), NSC_OK, "%s",
                 r.error ? r.error : "");
    double b[NSC_PWL_MAXSEG], a[NSC_PWL_MAXSEG], eps, X = PWL_X, an[8];
    int na, nb = nsc_mos_fit(c, mos_el(c), b, a, an, &na);
    for (int k = 0; k < na; k++) X = fmax(X, an[k] * (1 + 2 * NSC_PWL_ANCH)); /* the fit's top */
    double b2[NSC_PWL_MAXSEG], a2[NSC_PWL_MAXSEG]; /* the same fit: its eps */
    cr_assert_eq(nsc_pwl_sq_fit(segments ? 12 : 0, PWL_X, an, na, b2, a2, &eps), nb);
    double worst = 0;
    int tested = 0;
    for (int i = 0; i < ng; i++)
        for (int k = 0; k < nd; k++) {
            char col[32];
            snprintf(col, sizeof col, "i(vd%d_%d)", i, k);
            int cc = nsc_waves_col(O, col);
            cr_assert(cc > 0, "no column %s", col);
            double id = -p * O->v[cc]; /* NMOS-equivalent drain current */
            double xs = vgs[i] - vto * p, xd = vgs[i] - vds[k] - vto * p;
            double sq = 0.5 * K * (pow(fmax(xs, 0), 2) - pow(fmax(xd, 0), 2));
            double pwl = 0.5 * K * (nsc_pwl_eval(nb, b, a, xs) - nsc_pwl_eval(nb, b, a, xd));
            double bound = 0.5 * K
                           * ((xs > 0 ? fit_bound(xs, eps) : 0)
                              + (xd > 0 ? fit_bound(xd, eps) : 0));
            cr_assert(fabs(id - pwl) <= 1e-9 * K + 1e-15, "%s VGS=%g VDS=%g: I = %g, table %g",
                      type, vgs[i], vds[k], id, pwl);
            if (xs > X || xd > X) continue;
            tested++;
            cr_assert(fabs(id - sq) <= bound * (1 + 1e-9) + 1e-15,
                      "%s VGS=%g VDS=%g: I = %g, square law %g, bound %g", type, vgs[i], vds[k], id,
                      sq, bound);
            if (fabs(sq) > 1e-6) worst = fmax(worst, fabs(id - sq) / fabs(sq));
        }
    cr_log_info("%s%s: %d points, worst relative deviation from the square law %.3f (eps %.3f)",
                type, segments ? " SEGMENTS=12" : "", tested, worst, eps);
    cr_assert(tested >= (ng * nd) / 2);
    nsc_waves_free(O);
    nsc_report_free(&r);
    nsc_circuit_free(c);
}

static const double sw_vgs[] = { 0, 0.5, 1.05, 1.3, 2, 2.6, 3.4, 4.5 };
static const double sw_vds[] = { -3, -1, -0.2, 0, 0.1, 0.5, 1, 2, 4 };
static const double fine_vgs[] = { 0.5, 1.3, 2.6, 4.2 };
static const double fine_vds[] = { -1, 0.1, 1, 3 };

Test(devmos, static_nmos_square_law)
{
    static_sweep("NMOS", 1.0, 0, sw_vgs, 8, sw_vds, 9);
}
Test(devmos, static_pmos_square_law)
{
    static_sweep("PMOS", -1.0, 0, sw_vgs, 8, sw_vds, 9);
}
Test(devmos, static_nmos_fine_table)
{
    static_sweep("NMOS", 0.7, 1, fine_vgs, 4, fine_vds, 4);
}

/* ================= solvers ================= */

/* Runs the netlist with the given solver; returns the table. */
static nsc_waves *tran(const char *text, const char *save, nsc_solver solver, double h,
                       double tstop)
{
    nsc_circuit *c = tu_parse(text);
    nsc_report r;
    nsc_report_init(&r);
    nsc_probe *p = NULL;
    int np = 0;
    cr_assert_eq(nsc_waves_probes_parse(c, save, &p, &np, &r), NSC_OK);
    nsc_tran_opts o = { 0 };
    o.tstep = h;
    o.tstop = tstop;
    o.h = h;
    o.theta = 0.5;
    o.gmin = 1e-12;
    o.uic = c->job.uic;
    o.solver = solver;
    nsc_waves *W = NULL;
    nsc_sim_stats st;
    nsc_status s = nsc_stepper_tran(c, &o, p, np, &W, &st, &r);
    cr_assert_eq(s, NSC_OK, "run failed (%s): %s", solver == NSC_SOLVER_LEMKE ? "lemke" : "enum",
                 r.error ? r.error : "?");
    nsc_waves_probes_free(p, np);
    nsc_report_free(&r);
    nsc_circuit_free(c);
    return W;
}

/* M = D + C W^-1 B is neither symmetric nor PSD with MOS; Lemke (no enumeration
 * fallback) must solve every step and agree with the enumerative oracle on an
 * inverter driving a source follower and a current mirror (SEGMENTS=4: 6 pairs
 * per transistor, 18 in all, small enough for enumeration; IS = 0: no bulk junctions). */
Test(devmos, lemke_on_mos_circuits)
{
    const char *net =
        "mos mix\nVDD vdd 0 5\nVIN in 0 PULSE(0 5 1n 2n 2n 5n 14n)\n"
        "MP out in vdd vdd PM W=2u L=1u\nMN out in 0 0 NM W=1u L=1u\nC1 out 0 20f\n"
        "MF vdd out src 0 NM W=1u L=1u\nRS src 0 20k\nCS src 0 5f\n"
        ".model NM NMOS(LEVEL=1 VTO=1 KP=1e-4 SEGMENTS=4 IS=0)\n.model PM PMOS(LEVEL=1 VTO=-1 KP=4e-5 SEGMENTS=4 IS=0)\n"
        ".tran 10p 20n\n.end\n";
    nsc_waves *A = tran(net, "v(out),v(src),i(mf)", NSC_SOLVER_LEMKE, 10e-12, 20e-9);
    nsc_waves *B = tran(net, "v(out),v(src),i(mf)", NSC_SOLVER_ENUM, 10e-12, 20e-9);
    cr_assert_eq(A->nrow, B->nrow);
    double emax = 0;
    for (int k = 0; k < A->nrow * A->ncol; k++)
        emax = fmax(emax, fabs(A->v[k] - B->v[k]) / (1 + fabs(B->v[k])));
    cr_assert(emax < 1e-9, "lemke vs enum: %g", emax);
    /* at 13 ns the input is low, out = 5 V and the follower's source sits
     * VT + sqrt(2 I/K) below: v = 4 - sqrt(v) with the square law (20k K = 2),
     * v = 2.438; the SEGMENTS=4 table (eps = 0.35) moves it by < 0.5 V */
    int row = (int)lround(13e-9 / 10e-12);
    double vo = A->v[row * A->ncol + 1], vs = A->v[row * A->ncol + 2];
    cr_assert(fabs(vo - 5) < 1e-3, "v(out) = %g", vo);
    cr_assert(fabs(vs - 2.438) < 0.5, "v(src) = %g", vs);
    nsc_waves_free(A);
    nsc_waves_free(B);
}

/* A gate driven beyond the fit (a B source's 20 V; the V sources' levels give
 * no anchor, the fit ends at 3.82 V of overdrive): the run warns with the
 * square law's error there (f(19)/19^2 - 1 = -71.1 %), a drive inside it does not. */
Test(devmos, overdrive_beyond_the_fit_warned)
{
    char *tmp = tu_tmpdir(), path[512], cmd[1024], *out = NULL;
    snprintf(path, sizeof path, "%s/o.cir", tmp);
    cr_assert_eq(
        tu_write_file(path,
                      "t\nVD d 0 1\nB1 g 0 V=20\nM1 d g 0 0 NM\n.model NM NMOS(VTO=1 KP=1e-4)\n"
                      ".tran 1n 10n\n.end\n"),
        0);
    snprintf(cmd, sizeof cmd, "cd %s && %s -o o.dat o.cir 2>&1", tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(
        strstr(
            out,
            "o.cir:4:1: warning: MOS transistor m1: its gate overdrive reached 19 V, beyond the 3.82 V "
            "its model 'nm' was fitted to (the sources' levels); there the channel current is "
            "-71.1 % off"),
        "%s", out);
    free(out);
    cr_assert_eq(
        tu_write_file(path, "t\nVD d 0 1\nVG g 0 20\nM1 d g 0 0 NM\n.model NM NMOS(VTO=1 KP=1e-4)\n"
                            ".tran 1n 10n\n.end\n"),
        0);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(!strstr(out, "warning"), "%s", out);
    free(out);
    tu_rmdir(tmp);
    free(tmp);
}

/* ================= RD, RS, LD ================= */

/* Level-1 cards with RD, RS (resistors to internal nodes m#d, m#s) and LD (Leff =
 * L - 2 LD), NMOS and PMOS, each fed a current: V(d) against ngspice 39 on the same
 * netlist (tests/data/mos_rdrs, README.md) within 0.1 %, and against the square law
 * by hand for M1 (K = 0.5, 1 A, VGS inside = 9.8 V: 0.2608 + 0.5 + 0.2 = 0.9608 V;
 * 0.8286 V before, RD RS ignored with a warning). */
Test(devmos, rd_rs_ld_as_ngspice)
{
    char path[512], *text, *ref;
    snprintf(path, sizeof path, "%s/mos_rdrs/rdrs.cir", NSC_REFDIR);
    cr_assert((text = tu_read_file(path)));
    snprintf(path, sizeof path, "%s/mos_rdrs/rdrs_ng.txt", NSC_REFDIR);
    cr_assert((ref = tu_read_file(path)));
    nsc_circuit *c = tu_parse(text);
    nsc_report r;
    nsc_report_init(&r);
    nsc_waves *O = NULL;
    cr_assert_eq(nsc_stepper_op(c, 1e-12, NSC_SOLVER_AUTO, NULL, 0, &O, &r), NSC_OK, "%s",
                 r.error ? r.error : "");
    cr_assert_eq(r.nwarn, 0, "%s", r.nwarn ? r.warn[0] : "");
    nsc_circuit *bad = NULL; /* RD < 0: the card's error */
    nsc_report rb;
    nsc_report_init(&rb);
    cr_assert_eq(nsc_netlist_read_string(
                     "t\nVG g 0 1\nM1 d g 0 0 MM\nR1 d 0 1\n.model MM NMOS(RD=-1)\n.op\n.end\n",
                     "t.cir", NULL, 0, &bad, &rb),
                 NSC_ENETLIST);
    cr_assert(rb.error
                  && strstr(rb.error, "t.cir:3:1: error: MOS model 'mm': rd = -1 must be >= 0"),
              "%s", rb.error ? rb.error : "");
    nsc_report_free(&rb);
    cr_assert(nsc_waves_col(O, "v(m1#d)") > 0 && nsc_waves_col(O, "v(m1#s)") > 0
              && nsc_waves_col(O, "v(m2#d)") < 0);
    for (int k = 1; k <= 3; k++) {
        char col[8], key[16];
        snprintf(col, sizeof col, "v(d%d)", k);
        snprintf(key, sizeof key, "v(d%d) =", k);
        const char *p = strstr(ref, key);
        cr_assert(p, "no %s", key);
        double ng = strtod(p + strlen(key), NULL), v = O->v[nsc_waves_col(O, col)];
        cr_log_info("%s = %.6g V, ngspice %.6g V", col, v, ng);
        cr_assert(fabs(v - ng) < 1e-3 * fabs(ng), "%s = %g V, ngspice %g V", col, v, ng);
    }
    double x = 7.8, vch = x - sqrt(x * x - 2 * 1 / 0.5);
    cr_assert(fabs(O->v[nsc_waves_col(O, "v(d1)")] - (vch + 0.7)) < 1e-3 * (vch + 0.7));
    nsc_waves_free(O);
    nsc_report_free(&r);
    nsc_circuit_free(c);
    free(text);
    free(ref);
}

/* A 15-inverter level-1 CMOS chain with TOX, CBD, CBS and overlaps
 * (tests/data/mos_chain): its delay against ngspice 39's (Meyer's gate
 * capacitances, the junctions' C(v)) on the same netlist within 3 % (measured
 * +1.9 %, +1.7 % with Meyer's charges, meyer.c; -7.5 % with a constant Cox W
 * Leff gate-source capacitor; 0.44 ns against 1.79 ns when TOX, CBD and CBS
 * were ignored). */
Test(devmos, inverter_chain_delay_from_the_charge)
{
    char cmd[1024], path[512], *out = NULL, *ref = NULL, *tmp = tu_tmpdir();
    snprintf(cmd, sizeof cmd, "%s -o %s/c.dat %s/mos_chain/chain15.cir 2>/dev/null", NSC_PROGRAM,
             tmp, NSC_REFDIR);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    snprintf(path, sizeof path, "%s/mos_chain/chain15_ng.txt", NSC_REFDIR);
    cr_assert((ref = tu_read_file(path)));
    static const char *const key[] = { "tpd = ", "tpd2 = " };
    for (int k = 0; k < 2; k++) {
        const char *a = strstr(out, key[k]), *b = strstr(ref, key[k]);
        cr_assert(a && b, "no %s in\n%s", key[k], out);
        double v = strtod(a + strlen(key[k]), NULL), ng = strtod(b + strlen(key[k]), NULL);
        cr_log_info("%s%.4g s, ngspice %.4g s (%+.1f %%)", key[k], v, ng, 100 * (v / ng - 1));
        cr_assert(fabs(v / ng - 1) < 0.03, "%s%g s, ngspice %g s", key[k], v, ng);
    }
    free(out);
    free(ref);
    tu_rmdir(tmp);
    free(tmp);
}

/* ================= model checks ================= */

static void model_err(const char *model, const char *what)
{
    char net[512];
    snprintf(net, sizeof net, "t\nVD d 0 1\nVG g 0 1\nM1 d g 0 0 MM\n%s\n.op\n.end\n", model);
    nsc_circuit *c = tu_parse(net);
    nsc_report r;
    nsc_report_init(&r);
    nsc_lcs *L = NULL;
    cr_assert_eq(nsc_lcs_assemble(c, NSC_ASM_OP, 1e-12, &L, &r), NSC_ENETLIST, "%s accepted",
                 model);
    cr_assert(r.error && strstr(r.error, what), "'%s' lacks '%s'", r.error ? r.error : "", what);
    cr_assert(strstr(r.error, "t.cir:5:"), "%s", r.error);
    nsc_report_free(&r);
    nsc_circuit_free(c);
}

Test(devmos, model_errors_and_warnings)
{
    model_err(".model MM NMOS(SEGMENTS=2)", "SEGMENTS = 2 must be an integer");
    model_err(".model MM NMOS(SEGMENTS=4.5)", "SEGMENTS = 4.5");
    model_err(".model MM PMOS(KP=-1)", "KP = -1 must be > 0");
    { /* LD leaving no channel: the element's error */
        nsc_circuit *c0 = tu_parse(
            "t\nVD d 0 1\nVG g 0 1\nM1 d g 0 0 MM L=1u\n.model MM NMOS(LD=0.6u)\n.op\n.end\n");
        nsc_report r0;
        nsc_report_init(&r0);
        nsc_lcs *L0 = NULL;
        cr_assert_eq(nsc_lcs_assemble(c0, NSC_ASM_OP, 1e-12, &L0, &r0), NSC_ENETLIST);
        cr_assert(r0.error
                      && strstr(r0.error,
                                "t.cir:4:1: error: MOS transistor m1: W and L - 2 LD must be > 0 "
                                "(L = 1e-06, LD = 6e-07)"),
                  "%s", r0.error ? r0.error : "");
        nsc_report_free(&r0);
        nsc_circuit_free(c0);
    }
    /* unmodelled level-1 parameters: one warning per model, naming them */
    nsc_circuit *c = tu_parse(
        "t\nVD d 0 1\nVG g 0 2\nM1 d g 0 0 MM\nM2 d g 0 0 MM\n"
        ".model MM NMOS(LEVEL=1 VTO=1 KP=1e-4 LAMBDA=0.02 GAMMA=0.4)\n.op\n.end\n");
    nsc_report r;
    nsc_report_init(&r);
    nsc_lcs *L = assemble(c, NSC_ASM_OP, &r);
    cr_assert_eq(r.nwarn, 1);
    cr_assert(strstr(r.warn[0],
                     "t.cir:6:1: warning: MOS model 'mm': parameters lambda gamma ignored"),
              "%s", r.warn[0]);
    nsc_lcs_free(L);
    nsc_report_free(&r);
    nsc_circuit_free(c);
    /* cards of other levels (issue 12 item 3; refused before): mapped onto the
     * PWL Sah model with one warning naming the level; BSIM's VTH0 is VTO */
    c = tu_parse(
        "t\nVD d 0 1\nVG g 0 2\nM1 d g 0 0 MM\n.model MM NMOS(LEVEL=49 VTH0=0.7 KP=1e-4 K1=0.5)\n.op\n.end\n");
    nsc_report_init(&r);
    L = assemble(c, NSC_ASM_OP, &r);
    cr_assert(
        r.nwarn == 1
            && strstr(r.warn[0],
                      "t.cir:5:1: warning: MOS model 'mm': a LEVEL=49 card, simulated as the "
                      "PWL Sah model (VTO=0.7 KP=0.0001, 11 segments); parameters k1 ignored"),
        "%s", r.nwarn ? r.warn[0] : "no warning");
    nsc_lcs_free(L);
    nsc_report_free(&r);
    nsc_circuit_free(c);
    /* KP from TOX and UO (SPICE): KP = UO 1e-4 3.9 eps0 / TOX */
    c = tu_parse(
        "t\nVD d 0 5\nVG g 0 3\nM1 d g 0 0 MM W=1u L=1u\n.model MM NMOS(VTO=1 TOX=20n UO=750)\n.op\n.end\n");
    nsc_report_init(&r);
    nsc_waves *O = NULL;
    cr_assert_eq(nsc_stepper_op(c, 1e-12, NSC_SOLVER_AUTO, NULL, 0, &O, &r), NSC_OK);
    double kp = 750e-4 * 3.9 * 8.854214871e-12 / 20e-9, b[NSC_PWL_MAXSEG], a[NSC_PWL_MAXSEG];
    int nb = nsc_mos_fit(c, mos_el(c), b, a, NULL, NULL);
    cr_assert_float_eq(-O->v[nsc_waves_col(O, "i(vd)")], 0.5 * kp * nsc_pwl_eval(nb, b, a, 2.0),
                       1e-15);
    /* VG's 3 V is an anchor: f(2) = 4 + (0.02 2)^2, the middle of the chord [1.96, 2.04] */
    cr_assert_float_eq(nsc_pwl_eval(nb, b, a, 2.0), 4.0016, 1e-12);
    nsc_waves_free(O);
    nsc_report_free(&r);
    nsc_circuit_free(c);
}
