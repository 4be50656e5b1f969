/* test_pac.c -- the periodic small-signal AC around the steady state (issue 29
 * item 3, pac.c) against closed forms. */
#include <criterion/criterion.h>
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "analysis/smallsig.h"
#include "analysis/run.h"
#include "circuit/circuit.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

TestSuite(pac);

/* The periodic AC of c for the probes in list; r's warnings are the caller's. */
static nsc_ac_result *pac_of(nsc_circuit *c, const char *list, nsc_report *r)
{
    nsc_probe *p = NULL;
    int np = 0;
    nsc_run_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.steady = 1;
    nsc_tran_opts o;
    cr_assert_eq(nsc_run_opts(c, &cfg, &o, r), NSC_OK, "%s", r->error);
    nsc_pss_opts po = nsc_run_pss_opts(c, &cfg);
    cr_assert_eq(nsc_waves_probes_parse(c, list, &p, &np, r), NSC_OK, "%s", r->error);
    nsc_ac_result *R = NULL;
    nsc_pss_info info;
    cr_assert_eq(nsc_run_pac(c, &o, &po, p, np, &R, &info, r), NSC_OK, "%s", r->error);
    nsc_waves_probes_free(p, np);
    return R;
}

static double complex at(const nsc_ac_result *R, int k, int q)
{
    return R->re[(size_t)k * R->np + q] + I * R->im[(size_t)k * R->np + q];
}

/* dB within tdb and degrees within tdeg of h at every point. */
static void assert_bode(const nsc_ac_result *R, int q, double complex (*h)(double f), double tdb, double tdeg)
{
    for (int k = 0; k < R->nf; k++) {
        double complex x = at(R, k, q), want = h(R->f[k]);
        double db = 20 * log10(cabs(x)) - 20 * log10(cabs(want));
        double ph = remainder(carg(x / want) * 180 / M_PI, 360);
        cr_assert(fabs(db) <= tdb, "f %g: %.9g dB off the closed form", R->f[k], db);
        cr_assert(fabs(ph) <= tdeg, "f %g: %.9g deg off the closed form", R->f[k], ph);
    }
}

static double complex rc_h(double f) { return 1 / (1 + I * 2 * M_PI * f * 1e3 * 1e-6); }

/* A linear RC (1k, 1u) beside a periodic source it does not see: the periodic
 * AC is the plain transfer 1 / (1 + j w R C); the steps' trapezoidal rule
 * (T/200) leaves (w h)^2 / 12 of phase, 3e-4 dB at 45 kHz. */
Test(pac, linear_rc_is_the_closed_form)
{
    nsc_circuit *c = tu_parse("rc\nVc in 0 DC 0.4 AC 1\nR1 in out 1k\nC1 out 0 1u\n"
                              "Vp p 0 PULSE(0 1 0 1u 1u 3u 10u)\nRp p 0 1k\n.pss\n.ac dec 10 100 45k\n.end\n");
    nsc_report r;
    nsc_report_init(&r);
    nsc_ac_result *R = pac_of(c, "v(out)", &r);
    cr_assert_eq(R->nf, 27);
    cr_assert_float_eq(R->fhalf, 50e3, 1e-9);
    assert_bode(R, 0, rc_h, 1e-3, 1e-3);
    cr_assert_eq(r.nwarn, 0);
    nsc_ac_result_free(R);
    nsc_report_free(&r);
    nsc_circuit_free(c);
}

/* The open-loop PWM buck of tests/data/pac/buck_open.cir: Vin 12, the switch
 * on while the sawtooth (rise TR 8u, top 1u, fall TF 1u, T 10u, 0..Vm = 1) is
 * below v(ctl) = 0.4, switch and diode both R0 = 0.05, L 22u, C 47u + ESR
 * 0.02, load 2. Both ramp edges cross the control, so the switch node's
 * perturbation per volt of control is Vin (TR + TF) / (T Vm) impulses per
 * period, whose component at f is exactly that average: v(out) / v(ctl) =
 * Vin (TR + TF) / (T Vm) Z2 / (s L + R0 + Z2), Z2 = RL || (1/(sC) + ESR),
 * and v(out,x) (the capacitor's own voltage) that times (1/(sC)) / (1/(sC) + ESR).
 * Before the flip's saltation took the diode's new mode (nsc_onestep_sens_flip)
 * the time shift went through the inductor held by ROFF: 52.5 dB for 20.5. */
static double complex buck_zc(double f) { return 1 / (I * 2 * M_PI * f * 47e-6) + 0.02; }
static double complex buck_h(double f)
{
    double complex s = I * 2 * M_PI * f, zc = buck_zc(f), z2 = 2 * zc / (2 + zc);
    return 12 * (8e-6 + 1e-6) / 10e-6 * z2 / (s * 22e-6 + 0.05 + z2);
}
static double complex buck_hx(double f) { return buck_h(f) * (buck_zc(f) - 0.02) / buck_zc(f); }

Test(pac, open_loop_buck_is_the_averaged_transfer)
{
    char *text = tu_read_file(NSC_TOP_SRCDIR "/tests/data/pac/buck_open.cir");
    cr_assert(text);
    nsc_circuit *c = tu_parse(text);
    free(text);
    nsc_report r;
    nsc_report_init(&r);
    nsc_ac_result *R = pac_of(c, "v(out),v(out,x)", &r);
    cr_assert_eq(R->nf, 27);
    cr_assert_float_eq(R->f[0], 100, 1e-9);                  /* fs / 1000 .. 0.45 fs */
    cr_assert_float_eq(R->f[R->nf - 1], 45e3, 1e-6);
    assert_bode(R, 0, buck_h, 0.01, 0.1);
    assert_bode(R, 1, buck_hx, 0.01, 0.1);
    nsc_ac_result_free(R);
    nsc_report_free(&r);
    nsc_circuit_free(c);
}

/* Above fs/2 the result is still computed, with a warning that says so. */
Test(pac, above_half_the_switching_frequency_warns)
{
    nsc_circuit *c = tu_parse("rc\nVc in 0 DC 0.4 AC 1\nR1 in out 1k\nC1 out 0 1u\n"
                              "Vp p 0 PULSE(0 1 0 1u 1u 3u 10u)\nRp p 0 1k\n.pss\n.ac lin 2 10k 60k\n.end\n");
    nsc_report r;
    nsc_report_init(&r);
    nsc_ac_result *R = pac_of(c, "v(out)", &r);
    cr_assert_eq(r.nwarn, 1);
    cr_assert(strstr(r.warn[0], "1 frequency above fs/2 = 50000 Hz"), "%s", r.warn[0]);
    assert_bode(R, 0, rc_h, 1e-3, 1e-2);
    nsc_ac_result_free(R);
    nsc_report_free(&r);
    nsc_circuit_free(c);
}
