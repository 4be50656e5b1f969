/* test_source_wave.c -- independent-source waveforms against hand-computed values,
 * and their breakpoints. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "circuit/circuit.h"
#include "netlist/netlist.h"
#include "devices/bprog.h"

static void near(double a, double b)
{
    cr_assert(fabs(a - b) <= 1e-9 * fabs(b) + 1e-15, "%.17g != %.17g", a, b);
}

static nsc_wave mk(nsc_wavekind k, double *p, int np, double repeat)
{
    nsc_wave w = { .kind = k, .p = p, .np = np, .repeat = repeat };
    return w;
}

/* The corners of w in (0, tstop], one at a time (nsc_wave_next_corner), are
 * want[0..n), in order. A query steps just past each corner: the same corner of
 * two periods may differ by an ulp. */
static void bps(const nsc_wave *w, double tstop, const double *want, int n)
{
    double t = 0;
    int k = 0;
    for (;;) {
        t = nsc_wave_next_corner(w, k ? t + 1e-12 * fabs(t) : t);
        if (!(t <= tstop)) break;
        cr_assert(k < n, "an extra corner %.17g", t);
        near(t, want[k++]);
    }
    cr_assert_eq(k, n, "%d corners, want %d", k, n);
}

Test(wave, pulse)
{
    double p[7] = { 0, 5, 1e-6, 1e-6, 2e-6, 3e-6, 10e-6 }; /* v1 v2 td tr tf pw per */
    nsc_wave w = mk(NSC_WAVE_PULSE, p, 7, -1);
    near(nsc_wave_eval(&w, 0), 0);
    near(nsc_wave_eval(&w, 1e-6), 0);
    near(nsc_wave_eval(&w, 1.5e-6), 2.5);
    near(nsc_wave_eval(&w, 2e-6), 5);
    near(nsc_wave_eval(&w, 4.9e-6), 5);
    near(nsc_wave_eval(&w, 6e-6), 2.5);
    near(nsc_wave_eval(&w, 7e-6), 0);
    near(nsc_wave_eval(&w, 9e-6), 0);
    near(nsc_wave_eval(&w, 11.5e-6), 2.5); /* second period */
    near(nsc_wave_eval(&w, 21.5e-6), 2.5);
    near(nsc_wave_eval(&w, 25.5e-6), 3.75);
    const double want[] = { 1e-6, 2e-6, 5e-6, 7e-6, 11e-6, 12e-6, 15e-6 };
    bps(&w, 16e-6, want, 7);
}

Test(wave, pulse_ideal_edges_no_repeat)
{
    double p[7] = { 0, 1, 1, 0, 0, 2, 0 };
    nsc_wave w = mk(NSC_WAVE_PULSE, p, 7, -1);
    near(nsc_wave_eval(&w, 0.999), 0);
    near(nsc_wave_eval(&w, 1), 1);
    near(nsc_wave_eval(&w, 2.999), 1);
    near(nsc_wave_eval(&w, 3), 0);
    near(nsc_wave_eval(&w, 100), 0);
    const double want[] = { 1, 3 };
    bps(&w, 10, want, 2);
}

Test(wave, sine_damped_delayed_phase)
{
    double p[6] = { 1, 2, 1e3, 1e-3, 100, 90 }; /* vo va f td theta phase */
    nsc_wave w = mk(NSC_WAVE_SIN, p, 6, -1);
    near(nsc_wave_eval(&w, 0), 3); /* vo + va sin(phase) before td */
    near(nsc_wave_eval(&w, 0.5e-3), 3);
    near(nsc_wave_eval(&w, 1.25e-3), 1); /* sin(pi/2 + pi/2) = 0 */
    near(nsc_wave_eval(&w, 1.5e-3), 1 - 2 * exp(-0.05));
    double q[6] = { 0, 1, 50, 0, 0, 0 };
    nsc_wave s = mk(NSC_WAVE_SIN, q, 6, -1);
    near(nsc_wave_eval(&s, 5e-3), 1);
    near(nsc_wave_eval(&s, 1.0 / 300), sin(2 * 3.14159265358979323846 * 50 / 300));
    const double want[] = { 1e-3 };
    bps(&w, 1, want, 1);
    bps(&s, 1, NULL, 0);
}

Test(wave, exponential)
{
    double p[6] = { 0, 1, 1e-6, 2e-6, 5e-6, 1e-6 }; /* v1 v2 td1 tau1 td2 tau2 */
    nsc_wave w = mk(NSC_WAVE_EXP, p, 6, -1);
    near(nsc_wave_eval(&w, 0), 0);
    near(nsc_wave_eval(&w, 1e-6), 0);
    near(nsc_wave_eval(&w, 3e-6), 1 - exp(-1));
    near(nsc_wave_eval(&w, 5e-6), 1 - exp(-2));
    near(nsc_wave_eval(&w, 6e-6), (1 - exp(-2.5)) - (1 - exp(-1)));
    const double want[] = { 1e-6, 5e-6 };
    bps(&w, 1, want, 2);
    bps(&w, 2e-6, want, 1);
}

Test(wave, pwl_with_vertical_step)
{
    double p[10] = { 0, 0, 1, 1, 1, 3, 2, 3, 4, -1 };
    nsc_wave w = mk(NSC_WAVE_PWL, p, 10, -1);
    near(nsc_wave_eval(&w, -1), 0);
    near(nsc_wave_eval(&w, 0.5), 0.5);
    near(nsc_wave_eval(&w, 0.999), 0.999);
    near(nsc_wave_eval(&w, 1), 3); /* right-continuous at the step */
    near(nsc_wave_eval(&w, 3), 1);
    near(nsc_wave_eval(&w, 5), -1);
    const double want[] = { 1, 2, 4 };
    bps(&w, 10, want, 3);
}

Test(wave, pwl_repeat)
{
    double p[6] = { 0, 0, 1, 1, 2, 0 };
    nsc_wave w = mk(NSC_WAVE_PWL, p, 6, 0); /* r=0: period 2 */
    near(nsc_wave_eval(&w, 2.5), 0.5);
    near(nsc_wave_eval(&w, 3), 1);
    near(nsc_wave_eval(&w, 3.5), 0.5);
    near(nsc_wave_eval(&w, 4), 0);
    near(nsc_wave_eval(&w, 101), 1);
    const double want[] = { 1, 2, 3, 4, 5 };
    bps(&w, 5, want, 5);
    double q[8] = { 0, 0, 1, 1, 2, 0, 3, 2 };
    nsc_wave v = mk(NSC_WAVE_PWL, q, 8, 1); /* r=1: (1, 3] repeats, period 2 */
    near(nsc_wave_eval(&v, 3.5), 0.5);
    near(nsc_wave_eval(&v, 4.5), 1);
    near(nsc_wave_eval(&v, 5), 1);
    const double want2[] = { 1, 2, 3, 4, 5, 6 };
    bps(&v, 6, want2, 6);
}

Test(wave, dc)
{
    nsc_wave w = mk(NSC_WAVE_DC, NULL, 0, -1);
    w.dc = 4.5;
    near(nsc_wave_eval(&w, 0), 4.5);
    near(nsc_wave_eval(&w, 1e3), 4.5);
    bps(&w, 1, NULL, 0);
}

Test(wave, defaults_from_tran)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_circuit *c = NULL;
    cr_assert_eq(nsc_netlist_read_string(
                     "t\nV1 a 0 PULSE(0 1)\nV2 b 0 SIN(0 1)\nV3 c 0 EXP(0 1)\n.tran 1u 10u\n",
                     "t.cir", NULL, 0, &c, &r),
                 NSC_OK);
    const nsc_wave *p = &c->el[0].wave;
    near(nsc_wave_eval(p, 0.5e-6), 0.5); /* tr = tstep */
    near(nsc_wave_eval(p, 5e-6), 1);     /* pw = tstop */
    near(nsc_wave_eval(p, 10e-6), 1);    /* ngspice: per = tstop, wrapped only past it: */
    near(nsc_wave_eval(p, 10.5e-6), 1);  /* no repeat (it fell to 0 at tstop) */
    const nsc_wave *s = &c->el[1].wave;  /* freq = 1/tstop */
    near(nsc_wave_eval(s, 2.5e-6), 1);
    const nsc_wave *e = &c->el[2].wave; /* tau1 = tstep, td2 = tstep */
    near(nsc_wave_eval(e, 0.5e-6), 1 - exp(-0.5));
    near(nsc_wave_eval(e, 2e-6), (1 - exp(-2)) - (1 - exp(-1)));
    nsc_circuit_free(c);
    nsc_report_free(&r);
}

/* Corners generated one at a time need no list: a 1 ps PULSE over 1 s (1e12
 * periods; the list was capped at 1e7 periods, 320 MB a source) answers in
 * O(1) anywhere, with overlapping periods (tr + pw + tf > per) in order. */
Test(wave, next_corner_far_out_and_overlapping)
{
    double p[7] = { 0, 1, 0, 0.2e-12, 0.2e-12, 0.3e-12, 1e-12 };
    nsc_wave w = mk(NSC_WAVE_PULSE, p, 7, -1);
    double t = 0.7 - 1e-13, c = nsc_wave_next_corner(&w, t);
    cr_assert(c > t && c - t <= 1e-12, "%.17g after %.17g", c, t);
    double q[7] = {
        0, 1, 1e-6, 3e-6, 3e-6, 2e-6, 5e-6
    }; /* corners of period k overlap period k+1 */
    nsc_wave v = mk(NSC_WAVE_PULSE, q, 7, -1);
    double prev = 0;
    for (int k = 0; k < 40; k++) {
        double x = nsc_wave_next_corner(&v, prev);
        cr_assert(x > prev && x < 1e-4, "corner %d: %g after %g", k, x, prev);
        prev = x;
    }
    const double want[] = { 1e-6,  4e-6,  6e-6,  9e-6,  11e-6, 14e-6,
                            16e-6, 19e-6, 21e-6, 24e-6, 26e-6, 29e-6 };
    prev = 0;
    for (int k = 0; k < 12; k++) {                     /* the same corner of two periods may */
        prev = nsc_wave_next_corner(&v, prev + 1e-12); /* differ by an ulp: queries step past it */
        near(prev, want[k]);
    }
}

/* Whether T is a period of a waveform nsc_wave_period cannot tell (issue 25
 * item 10: `--period 0.7m` on a B source's sin(2 pi 1k time) ran without a
 * word): sampled at t and t + T. sin(2 pi 1k t) repeats after 1 ms and 2 ms,
 * not 0.7 ms or 0.5 ms (sin(x + pi) = -sin x); its square repeats after 0.5 ms;
 * a damped SIN and a ramp of time repeat after no T. */
Test(wave, sampled_period_of_functions_of_time)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_circuit *c = NULL;
    cr_assert_eq(
        nsc_netlist_read_string("t\nB1 a 0 V=sin(2*pi*1k*time)\nB2 b 0 V=sin(2*pi*1k*time)^2\n"
                                "B3 c 0 V=time*1k\nV1 d 0 SIN(0 1 1k 0 100)\n.tran 1u 10m\n",
                                "t.cir", NULL, 0, &c, &r),
        NSC_OK, "%s", r.error);
    const nsc_wave *s = &nsc_bprog_of(&c->el[0])->tw[0], *s2 = &nsc_bprog_of(&c->el[1])->tw[0],
                   *ramp = &nsc_bprog_of(&c->el[2])->tw[0];
    double since;
    cr_assert_eq(nsc_wave_period(s, &since), -1); /* not known periodic */
    cr_assert(nsc_wave_repeats(s, 1e-3, 0) && nsc_wave_repeats(s, 2e-3, 3e-3));
    cr_assert(!nsc_wave_repeats(s, 0.7e-3, 0) && !nsc_wave_repeats(s, 0.5e-3, 0));
    cr_assert(nsc_wave_repeats(s2, 0.5e-3, 0) && !nsc_wave_repeats(s2, 0.3e-3, 0));
    cr_assert(!nsc_wave_repeats(ramp, 1e-3, 0));
    cr_assert(!nsc_wave_repeats(&c->el[3].wave, 1e-3, 0)); /* damped: e^{-100 t} */
    nsc_circuit_free(c);
    nsc_report_free(&r);
}
