/* test_adaptive.c -- the adaptive, event-located transient (stepper_adapt.c,
 * netlist.md .tran) against converged fixed-step runs and analytic solutions. */
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

#define NSC_PI 3.14159265358979323846

TestSuite(adaptive, .init = setup, .fini = teardown);

/* Run the program on netlist text (written as NAME.cir) with extra options;
 * read NAME.dat into t; *acc = the accepted steps of --stats (when acc). */
static void run(const char *name, const char *text, const char *extra, tu_table *t, long *acc)
{
    char path[1024], cmd[4096], *out = NULL;
    snprintf(path, sizeof path, "%s/%s.cir", tmp, name);
    cr_assert_eq(tu_write_file(path, text), 0);
    snprintf(cmd, sizeof cmd, "cd %s && %s --stats %s -o %s.dat %s.cir 2>&1", tmp, NSC_PROGRAM,
             extra, name, name);
    int st = tu_run(cmd, &out);
    cr_assert_eq(st, 0, "exit %d: %s", st, out);
    if (acc) {
        const char *p = strstr(out, "steps: ");
        cr_assert(p && sscanf(p, "steps: %ld accepted", acc) == 1, "%s", out);
    }
    free(out);
    snprintf(path, sizeof path, "%s/%s.dat", tmp, name);
    cr_assert_eq(tu_table_read(path, t), 0, "cannot read %s", path);
}

/* RMS of (a - b) over b's rows, relative to b's range, column named sig in both (testutil). */
static double rms_rel(const tu_table *a, const tu_table *b, const char *sig)
{
    double e = tu_rms_rel(a, b, sig);
    cr_assert(!isnan(e), "%s", sig);
    return e;
}

static const char BRIDGE[] =
    "diode bridge fed by an LC tank\n"
    "L1 a b 10m IC=0\nC1 a b 1u IC=10\nD1 a p DI\nD2 b p DI\nD3 0 a DI\nD4 0 b DI\nR1 p 0 1k\n"
    ".model DI D(VF=0)\n.save v(a,b) i(l1) i(r1)\n";

/* The seed bridge against a converged fixed-step run (h = 10 ns; the fixed
 * scheme is first order here, its error ~6e-6 of range). With .options
 * stepsizelimit the step is at most TSTEP = 1 us (ngspice's rule): ~5100
 * steps, measured 1.3e-5 of range (5.8e-4 while the algebraic rows were taken
 * at t_k+1, the fixed scheme's first order). By default (no cap but span/50 =
 * 100 us; .options nostepsizelimit says the same) the error follows the
 * tolerances: RELTOL 1e-3 and TRTOL 1 (the default without a cap) give 0.39 %
 * to 0.72 % in 566 steps (TRTOL 7: 1.3 % to 2.3 % in ~470); RELTOL 1e-4 gives
 * 0.08 % to 0.16 % in ~1010 steps. The error is the LC tank's phase, which the
 * trapezoidal rule loses as N (w h)^3 / 12 over N steps: 1e-3 of range needs
 * h <~ 2 us here, ~2300 steps (issue 24's goal, 1000 steps at 1e-3, needs more
 * than a second-order scheme). */
static void bridge_case(const char *tran, const char *opts, double tol, long maxsteps)
{
    char text[2048];
    tu_table ad, ref;
    long acc;
    snprintf(text, sizeof text, "%s%s\n%s.options stepping=adaptive\n.end\n", BRIDGE, tran, opts);
    run("bridge", text, "", &ad, &acc);
    run("bridge_ref", text, "--step 10n", &ref, NULL);
    const char *sig[] = { "v(a,b)", "i(l1)", "i(r1)" };
    for (int k = 0; k < 3; k++) {
        double e = rms_rel(&ad, &ref, sig[k]);
        cr_log_info("bridge adaptive %s: %s RMS error %.3g of range, %ld steps", opts, sig[k], e,
                    acc);
        cr_expect(e < tol, "%s: RMS error %.3g of range", sig[k], e);
    }
    cr_expect(acc <= maxsteps, "%ld steps", acc);
    tu_table_free(&ad);
    tu_table_free(&ref);
}

Test(adaptive, bridge_stepsizelimit_caps_at_tstep)
{
    bridge_case(".tran 1u 5m UIC", ".options stepsizelimit\n", 1e-4, 5200);
}
Test(adaptive, bridge_default_tolerances)
{
    bridge_case(".tran 1u 5m UIC", "", 0.01, 650);
}
Test(adaptive, bridge_nostepsizelimit)
{
    bridge_case(".tran 1u 5m UIC", ".options nostepsizelimit\n", 0.01, 650);
}
Test(adaptive, bridge_tight_tolerances)
{
    bridge_case(".tran 1u 5m UIC", ".options reltol=1e-4\n", 2.5e-3, 1100);
}

/* A switch S closes when its control ramp crosses VT = 0.5 V at t = 0.5 ms
 * exactly: the capacitor then charges as 1 - exp(-(t - 0.5 ms)/tau). With the
 * state decided at the step's start the switch would close up to one step
 * (here hmax = 100 us) late; located, v(out) follows the analytic curve. */
Test(adaptive, switch_changes_state_at_the_located_crossing)
{
    tu_table t;
    run("sw",
        "switch closing on a ramp\nV1 in 0 1\nVc c 0 PWL(0 0 1m 1)\nS1 in x c 0 SMOD\nR1 x out 1k\n"
        "C1 out 0 100n\n.model SMOD SW(VT=0.5 VH=0 RON=1m ROFF=1e12)\n.tran 100u 1m UIC\n.end\n",
        "", &t, NULL);
    int co = tu_table_col(&t, "v(out)");
    double tau = (1e3 + 1e-3) * 100e-9, worst = 0;
    for (int i = 0; i < t.nrow; i++) {
        double tt = TU_AT(&t, i, 0), v = TU_AT(&t, i, co);
        double exact = tt <= 0.5e-3 ? 0 : 1 - exp(-(tt - 0.5e-3) / tau);
        worst = fmax(worst, fabs(v - exact));
    }
    cr_log_info("switch at the located crossing: max |v(out) - analytic| = %.3g V", worst);
    cr_assert(worst < 2e-3, "max error %g V", worst);
    tu_table_free(&t);
}

/* Chattering (a Zeno-like sequence): a switch with no hysteresis is on while
 * v(out) < 0.5 V and charges C towards 1 V; off, R discharges it. The exact
 * solution slides on v(out) = 0.5 V after t1 = tau_on ln 2 (Filippov); located
 * events would come ever closer. The run must end in a bounded number of steps
 * with v(out) held at 0.5 V. */
Test(adaptive, chattering_switch_does_not_stall)
{
    tu_table t;
    long acc;
    run("chat",
        "relay holding a capacitor at 0.5 V\nV1 in 0 1\nS1 in out 0 out SMOD\nC1 out 0 1u\nR1 out 0 1k\n"
        ".model SMOD SW(VT=-0.5 VH=0 RON=10 ROFF=1e12)\n.tran 10u 5m\n.end\n",
        "", &t, &acc);
    int co = tu_table_col(&t, "v(out)");
    double vmax = 0, vmin = 1;
    for (int i = 0; i < t.nrow; i++)
        if (TU_AT(&t, i, 0) > 1e-3) {
            vmax = fmax(vmax, TU_AT(&t, i, co));
            vmin = fmin(vmin, TU_AT(&t, i, co));
        }
    cr_log_info("chattering switch: %ld steps, v(out) in [%.6f, %.6f] after 1 ms", acc, vmin, vmax);
    cr_assert(acc < 100000, "%ld steps", acc);
    cr_assert(fabs(vmax - 0.5) < 0.01 && fabs(vmin - 0.5) < 0.01, "v(out) in [%g, %g]", vmin, vmax);
    tu_table_free(&t);
}

/* Read NAME.events of the last run into t[], dev d (only lines of device d),
 * state[]; returns the count. */
static int read_events(const char *name, const char *d, double *t, int *state, int max)
{
    char path[1024], line[512], dev[128];
    snprintf(path, sizeof path, "%s/%s.events", tmp, name);
    FILE *f = fopen(path, "r");
    cr_assert(f, "no %s", path);
    int n = 0;
    cr_assert(fgets(line, sizeof line, f) && line[0] == '#', "header of %s", path);
    while (fgets(line, sizeof line, f) && n < max) {
        double tt;
        int s;
        cr_assert_eq(sscanf(line, "%lf %127s %d", &tt, dev, &s), 3, "bad line: %s", line);
        if (strcmp(dev, d)) continue;
        t[n] = tt;
        state[n++] = s;
    }
    fclose(f);
    return n;
}

/* Half-wave rectifier, ideal diode, RC load, 10 V 50 Hz: the diode turns off
 * when its current Vp (sin wt / R + C w cos wt) reaches 0, at
 * w t_off = pi - atan(w R C), and on again when the source meets the decaying
 * capacitor voltage, Vp sin wt = Vp sin(w t_off) exp(-(t - t_off)/RC)
 * (solved here by bisection). The multiplier of the one-step problem is the
 * diode current's mean over the step: without predicting its zero the turn-off
 * was located ~h/2 late (37 us here, hmax = 100 us); now within 1 us. */
Test(adaptive, halfwave_diode_instants_match_the_analytic_ones)
{
    tu_table t;
    double ev[8];
    int st[8];
    run("hw",
        "half-wave rectifier with an RC load\nV1 in 0 SIN(0 10 50)\nD1 in out DI\nR1 out 0 1k\n"
        "C1 out 0 10u\n.model DI D(VF=0)\n.tran 100u 40m\n.end\n",
        "--events", &t, NULL);
    const double w = 2 * NSC_PI * 50, R = 1e3, C = 10e-6, tau = R * C;
    double toff = (NSC_PI - atan(w * R * C)) / w, voff = 10 * sin(w * toff);
    double a = 17.5e-3, b = 22.5e-3;
    for (int k = 0; k < 100; k++) {
        double c = (a + b) / 2, fa = 10 * sin(w * a) - voff * exp(-(a - toff) / tau);
        double fc = 10 * sin(w * c) - voff * exp(-(c - toff) / tau);
        if (fa * fc <= 0) b = c;
        else a = c;
    }
    double exact[3] = { toff, a, toff + 0.02 };
    int want[3] = { 0, 1, 0 };
    int n = read_events("hw", "d1", ev, st, 8);
    cr_assert_eq(n, 3, "%d state changes of d1", n);
    for (int k = 0; k < 3; k++) {
        cr_log_info("d1 -> %d at %.9f ms, analytic %.9f ms", st[k], ev[k] * 1e3, exact[k] * 1e3);
        cr_expect_eq(st[k], want[k]);
        cr_expect(fabs(ev[k] - exact[k]) < 1e-6, "event %d at %.9g s, analytic %.9g s", k, ev[k],
                  exact[k]);
    }
    tu_table_free(&t);
}

/* With fixed steps the file gives the end of the step in which d1 changed. */
Test(adaptive, events_of_fixed_steps_are_step_ends)
{
    tu_table t;
    double ev[8];
    int st[8];
    run("hwf",
        "half-wave rectifier with an RC load\nV1 in 0 SIN(0 10 50)\nD1 in out DI\nR1 out 0 1k\n"
        "C1 out 0 10u\n.model DI D(VF=0)\n.tran 100u 10m\n.end\n",
        "--events --step 10u", &t, NULL);
    const double w = 2 * NSC_PI * 50, toff = (NSC_PI - atan(w * 1e3 * 10e-6)) / w;
    int n = read_events("hwf", "d1", ev, st, 8);
    cr_assert_eq(n, 1, "%d state changes of d1", n);
    double k = ev[0] / 10e-6;
    cr_expect(fabs(k - round(k)) < 1e-6, "%.9g s is not a step end", ev[0]);
    cr_expect(ev[0] >= toff && ev[0] < toff + 2e-5, "turn-off at %.9g s, analytic %.9g s", ev[0],
              toff);
    tu_table_free(&t);
}

/* Run text with --stats and fixed steps h (the reference); RMS error of each
 * signal in sig[] against it must be below tol[]; returns the accepted steps. */
static long against_fixed(const char *name, const char *text, const char *h, const char *const *sig,
                          const double *tol, int nsig)
{
    tu_table ad, ref;
    long acc;
    char refname[64], opt[64];
    run(name, text, "", &ad, &acc);
    snprintf(refname, sizeof refname, "%s_ref", name);
    snprintf(opt, sizeof opt, "--step %s", h);
    run(refname, text, opt, &ref, NULL);
    for (int k = 0; k < nsig; k++) {
        double e = rms_rel(&ad, &ref, sig[k]);
        cr_log_info("%s: %s RMS error %.3g of range, %ld steps", name, sig[k], e, acc);
        cr_expect(e < tol[k], "%s: %s RMS error %.3g of range", name, sig[k], e);
    }
    tu_table_free(&ad);
    tu_table_free(&ref);
    return acc;
}

/* Issue 11's clock case: a 5 kHz clock with 1 ns edges into an RC and a
 * diode-capacitor load, 2 ms (10 periods), print step 10 us. Each edge is a
 * breakpoint, each diode turn-on and -off an event; the diode's turn-on dumps
 * C1 into C2 through RON = 1 ohm (30 ns). Reference: fixed 2 ns steps (1e6).
 * With TSTEP as the cap (.options stepsizelimit, ngspice's rule, as issue 11
 * measured it): 52 steps a period; v(a) 6.6e-4, v(out) 1.4e-4, i(d1) 1.1e-3 of
 * range. Without the cap (the default): 45 steps a period, v(a) 1.7e-3. */
Test(adaptive, clock_into_rc_and_diode)
{
    const char *sig[] = { "v(a)", "v(out)", "i(v1)", "i(d1)" };
    const double tol[] = { 1e-3, 1e-3, 1e-3, 2e-3 };
    long acc = against_fixed(
        "clk",
        "5 kHz clock with 1 ns edges into an RC and a diode load\n"
        "V1 clk 0 PULSE(0 5 0 1n 1n 99.999u 200u)\nR1 clk a 1k\nC1 a 0 47n\nD1 a out DL\n"
        "R2 out 0 10k\nC2 out 0 100n\n.model DL D(VF=0.7 RON=1)\n.tran 10u 2m\n"
        ".options stepsizelimit\n.end\n",
        "2n", sig, tol, 4);
    cr_expect(acc <= 10 * 200, "%ld steps for 10 periods", acc);
}

/* A PULSE source charging a capacitor through 1 ohm (tau = 1 ns) on a 1 us
 * print grid: the current is C dV/dt through the 10 ns edges (0.1 A at most),
 * then decays within ns. The trapezoidal rule alone, with steps >> tau, would
 * keep a +-0.1 A oscillation (factor -1 a step) for the whole run; the
 * capacitor's current must be the physical one: after 50 ns from an edge it
 * is below 1e-6 A, and at the middle of each edge's ramp it is C dV/dt. */
Test(adaptive, pulse_driven_capacitor_current_is_physical)
{
    tu_table t;
    run("pc",
        "PULSE into 1 ohm and 1 nF\nV1 in 0 PULSE(0 1 1u 10n 10n 5u 10u)\nR1 in a 1\nC1 a 0 1n\n"
        ".tran 1u 40u\n.save i(v1)\n.end\n",
        "", &t, NULL);
    int ci = tu_table_col(&t, "i(v1)");
    double worst = 0;
    for (int i = 0; i < t.nrow; i++) {
        double tt = fmod(TU_AT(&t, i, 0) - 1e-6 + 10e-6, 5e-6); /* time since the last edge */
        if (tt > 50e-9 && tt < 5e-6 - 1e-9) worst = fmax(worst, fabs(TU_AT(&t, i, ci)));
    }
    cr_log_info("PULSE into RC: |i(v1)| <= %.3g A away from the edges", worst);
    cr_expect(worst < 1e-6, "|i(v1)| = %g A away from the edges", worst);
    tu_table_free(&t);
}

/* The buck of netlists/buck.cir over 100 us without TMAX (hmax = span/50 = 2 us;
 * events located to 1e-3 TSTEP = 10 ps).
 * At t = 50.54 us its comparator's crossing is degenerate: the one-step problem
 * ending at the bracketed instant has no solution. The locator used to retreat
 * by 1/8 of the bracket, accept, and retry: a Zeno sequence of steps down to
 * 3e-17 s (192 rejected trials over 1 ms). Now the change is taken in a step of
 * 2 tol past the instant: no step below 1e-13 s. v(out) against 50 ps fixed steps. */
Test(adaptive, degenerate_crossing_takes_no_sliver_steps)
{
    char path[1024], *text = NULL, *out = NULL, cmd[4096];
    snprintf(path, sizeof path, "%s/netlists/buck.cir", NSC_TOP_SRCDIR);
    cr_assert((text = tu_read_file(path)), "cannot read %s", path);
    char *tr = strstr(text, ".tran 10n 200u 0 50p UIC");
    cr_assert(tr, "buck.cir's .tran changed");
    memcpy(tr, ".tran 10n 100u      UIC ", strlen(".tran 10n 200u 0 50p UIC"));
    char *end = strstr(text, "\n.end"); /* this stepper's case: the adaptive one */
    cr_assert(end, "buck.cir has no .end");
    *end = 0;
    size_t nfull = strlen(text) + 64;
    char *full = malloc(nfull);
    cr_assert(full);
    snprintf(full, nfull, "%s\n.options stepping=adaptive\n.end\n", text);
    free(text);
    text = full;
    snprintf(path, sizeof path, "%s/b.cir", tmp);
    cr_assert_eq(tu_write_file(path, text), 0);
    free(text);
    snprintf(cmd, sizeof cmd, "cd %s && %s --stats --save 'v(out)' -o b.dat b.cir 2>&1", tmp,
             NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    const char *p = strstr(out, "adaptive steps from ");
    double hmin_used = 0;
    long rej = -1;
    cr_assert(p && sscanf(p, "adaptive steps from %lf", &hmin_used) == 1, "%s", out);
    cr_assert((p = strstr(out, "accepted, ")) && sscanf(p, "accepted, %ld rejected", &rej) == 1,
              "%s", out);
    cr_log_info("buck 100 us: smallest step %g s, %ld rejected", hmin_used, rej);
    cr_expect(hmin_used >= 1e-13, "smallest step %g s", hmin_used);
    cr_expect(rej < 50, "%ld rejected trials", rej);
    free(out);
}

/* Run text (NAME.cir) with extra options; the program's output (stderr and
 * stdout: --stats, .meas) into *out (malloc'd), the rows into t. */
static void run_out(const char *name, const char *text, const char *extra, tu_table *t, char **out)
{
    char path[1024], cmd[4096];
    snprintf(path, sizeof path, "%s/%s.cir", tmp, name);
    cr_assert_eq(tu_write_file(path, text), 0);
    snprintf(cmd, sizeof cmd, "cd %s && %s --stats %s -o %s.dat %s.cir 2>&1", tmp, NSC_PROGRAM,
             extra, name, name);
    int st = tu_run(cmd, out);
    cr_assert_eq(st, 0, "exit %d: %s", st, *out);
    snprintf(path, sizeof path, "%s/%s.dat", tmp, name);
    cr_assert_eq(tu_table_read(path, t), 0, "cannot read %s", path);
}

/* The peak of v(out) for a trapezoidal pulse (0 -> V in tr, V for pw, V -> 0 in
 * tf = tr) into an RC of time constant tau, exactly: the ramp gives
 * v(tr) = V - V tau/tr (1 - e^(-tr/tau)), the flat top v_b = V + (v(tr) - V)
 * e^(-pw/tau); on the falling ramp u = V - a s (a = V/tr) the solution is
 * v = u + a tau + (v_b - V - a tau) e^(-s/tau), whose maximum is where v = u:
 * s* = tau ln((V + a tau - v_b) / (a tau)), v_max = V - a s*. */
static double rc_pulse_peak(double V, double tr, double pw, double tau)
{
    double a = V / tr, va = V - V * tau / tr * (1 - exp(-tr / tau)),
           vb = V + (va - V) * exp(-pw / tau);
    return V - a * tau * log((V + a * tau - vb) / (a * tau));
}

static const char PULSE_RC[] =
    "20 ns pulse into an RC of 10 ns\nV1 in 0 PULSE(0 10 0 1n 1n 20n)\nR1 in out 1k\nC1 out 0 10p\n"
    ".tran 1u 5u\n.meas tran vmax MAX v(out)\n";

/* Issue 24 item 5: rows where the waveform happens. A 20 ns pulse (1 ns edges)
 * into tau = 10 ns, .tran 1u 5u: the TSTEP grid held 6 rows and .meas MAX
 * v(out) said 2.6e-10 V. The rows are the accepted steps now (with rows inside
 * long steps): the analytic peak 8.7203 V is met by .meas within 0.5 % and by a
 * row within 2 %, and a straight line between rows is as close to the analytic
 * decay as the rows are, to RELTOL of the value (rows inside long steps). */
Test(adaptive, pulse_peak_is_in_the_rows_and_the_measure)
{
    char text[1024], *out = NULL;
    tu_table t;
    snprintf(text, sizeof text, "%s.end\n", PULSE_RC);
    run_out("pk", text, "", &t, &out);
    double peak = rc_pulse_peak(10, 1e-9, 20e-9, 10e-9), vmax = NAN, rowmax = -INFINITY;
    const char *p = strstr(out, "vmax = ");
    cr_assert(p && sscanf(p, "vmax = %lf", &vmax) == 1, "%s", out);
    int co = tu_table_col(&t, "v(out)");
    for (int i = 0; i < t.nrow; i++) rowmax = fmax(rowmax, TU_AT(&t, i, co));
    double v22 = NAN, at_rows = 0, between = 0; /* the decay after the pulse: v(22 ns) e^(-t/tau) */
    for (int i = 0; i < t.nrow; i++)            /* (a step ends on the breakpoint at 22 ns) */
        if (fabs(TU_AT(&t, i, 0) - 22e-9) < 1e-15) v22 = TU_AT(&t, i, co);
    cr_assert(isfinite(v22), "no row at 22 ns");
    for (int i = 0; i < t.nrow; i++)
        if (TU_AT(&t, i, 0) > 22e-9 && TU_AT(&t, i, 0) < 200e-9)
            at_rows = fmax(at_rows,
                           fabs(TU_AT(&t, i, co) - v22 * exp(-(TU_AT(&t, i, 0) - 22e-9) / 10e-9)));
    for (double x = 23e-9; x < 200e-9; x += 0.25e-9)
        between = fmax(between, fabs(tu_interp(&t, co, x) - v22 * exp(-(x - 22e-9) / 10e-9)));
    cr_log_info(
        "pulse into RC: analytic peak %.6f V, .meas %.6f V, largest row %.6f V, %d rows; decay: "
        "%.3g V off at the rows, %.3g V between them",
        peak, vmax, rowmax, t.nrow, at_rows, between);
    cr_expect(fabs(peak - 8.72034) < 1e-4, "analytic peak %g", peak); /* the 8.72 V */
    cr_expect(fabs(vmax - peak) < 5e-3 * peak, ".meas MAX %g V, analytic %g V", vmax, peak);
    cr_expect(fabs(rowmax - peak) < 2e-2 * peak, "largest row %g V, analytic %g V", rowmax, peak);
    cr_expect(between <= at_rows + 1e-3 * v22, "decay off by %g V between rows, %g V at them",
              between, at_rows);
    free(out);
    tu_table_free(&t);
}

/* .options interp: the rows are the TSTEP grid (6 rows, as ngspice's interp),
 * but .meas is computed on the accepted steps: MAX still finds the peak. */
Test(adaptive, interp_rows_on_the_grid_measures_on_the_steps)
{
    char text[1024], *out = NULL;
    tu_table t;
    snprintf(text, sizeof text, "%s.options interp\n.end\n", PULSE_RC);
    run_out("pki", text, "", &t, &out);
    double peak = rc_pulse_peak(10, 1e-9, 20e-9, 10e-9), vmax = NAN;
    const char *p = strstr(out, "vmax = ");
    cr_assert(p && sscanf(p, "vmax = %lf", &vmax) == 1, "%s", out);
    cr_expect_eq(t.nrow, 6, "%d rows", t.nrow);
    for (int i = 0; i < t.nrow; i++)
        cr_expect(fabs(TU_AT(&t, i, 0) - i * 1e-6) < 1e-15, "row %d at %g", i, TU_AT(&t, i, 0));
    cr_expect(fabs(vmax - peak) < 5e-3 * peak, ".meas MAX %g V on the steps, analytic %g V", vmax,
              peak);
    free(out);
    tu_table_free(&t);
}

/* Fixed steps keep the TSTEP grid of rows (6 here), and .meas is computed on
 * the steps (h = 1 ns): MAX finds the peak (2.6e-42 V on the rows before). */
Test(adaptive, fixed_steps_measure_on_the_steps)
{
    char text[1024], *out = NULL;
    tu_table t;
    snprintf(text, sizeof text, "%s.end\n", PULSE_RC);
    run_out("pkf", text, "--step 1n", &t, &out);
    double peak = rc_pulse_peak(10, 1e-9, 20e-9, 10e-9), vmax = NAN;
    const char *p = strstr(out, "vmax = ");
    cr_assert(p && sscanf(p, "vmax = %lf", &vmax) == 1, "%s", out);
    cr_expect_eq(t.nrow, 6, "%d rows", t.nrow);
    cr_expect(fabs(vmax - peak) < 5e-3 * peak, ".meas MAX %g V on the steps, analytic %g V", vmax,
              peak);
    free(out);
    tu_table_free(&t);
}

/* Issue 24 item 4: the largest step is TMAX when given, else (TSTOP -
 * TSTART)/50 (the default, LTspice's rule; .options nostepsizelimit says the
 * same: TSTEP does not cap it), or ngspice's min(TSTEP, span/50) with .options
 * stepsizelimit. --stats prints it. */
static double hmax_of(const char *tran, const char *opts)
{
    char text[512], *out = NULL;
    tu_table t;
    double h = NAN;
    snprintf(text, sizeof text,
             "RC\nV1 in 0 SIN(0 1 10k)\nR1 in out 1k\nC1 out 0 10n\n%s\n%s.end\n", tran, opts);
    run_out("hm", text, "", &t, &out);
    const char *p = strstr(out, "(at most ");
    cr_assert(p && sscanf(p, "(at most %lf", &h) == 1, "%s", out);
    free(out);
    tu_table_free(&t);
    return h;
}

Test(adaptive, largest_step_is_tmax_else_span_over_50)
{
    cr_expect_float_eq(hmax_of(".tran 1u 1m", ""), 20e-6, 1e-12); /* LTspice's rule */
    cr_expect_float_eq(hmax_of(".tran 1u 1m", ".options stepsizelimit\n"), 1e-6,
                       1e-12); /* ngspice's */
    cr_expect_float_eq(hmax_of(".tran 1u 1m", ".options nostepsizelimit\n"), 20e-6, 1e-12);
    cr_expect_float_eq(hmax_of(".tran 1u 1m 0.5m", ".options nostepsizelimit\n"), 10e-6, 1e-12);
    cr_expect_float_eq(hmax_of(".tran 1u 1m 0 5u", ".options nostepsizelimit\n"), 5e-6, 1e-12);
    cr_expect_float_eq(hmax_of(".tran 1u 1m 0 5u", ""), 5e-6,
                       1e-12); /* TMAX given: it, as in ngspice */
    cr_expect_float_eq(hmax_of(".tran 1u 1m", ".options stepsizelimit\n"), 1e-6, 1e-12);
    cr_expect_float_eq(hmax_of(".tran 100u 1m", ".options stepsizelimit\n"), 20e-6, 1e-12);
}

/* Issue 24 item 6: a PWL MOS in saturation carries an inductor's current into
 * a capacitor with ESR. The drain current is taken at the step's end, the
 * capacitor's row at the trapezoidal mean, so v(cx) rings +-(its error) step
 * after step and no shorter step damps it: the run failed at 2.7 ns ("the time
 * step fell below 7.2e-19 s (local error); largest local error in v(cx)"). The
 * rejection on a ringing unknown now switches to implicit Euler. Reference:
 * fixed steps of 1 ps (1e6; 10 ps agree with it to 1e-6 of range). Measured:
 * ~1700 steps, RMS errors 0.06 % (i(l1)) to 0.18 % (v(cx)) of range. */
Test(adaptive, ringing_mos_esr_capacitor_runs_and_matches_fixed_steps)
{
    static const char text[] =
        "adaptive steps collapse: PWL MOS in saturation carrying an inductor current, C with ESR across it\n"
        "V1 vin 0 5\nL1 vin sw 220u\nM1 sw gate 0 0 NM\nC1 sw cx 33u\nRC cx 0 50m\n"
        "Vg gate 0 SIN(4.3 0.7 10Meg 0 0 90)\n.model NM NMOS(VTO=3.6 KP=1.3)\n.tran 1n 1u\n"
        ".save v(sw) v(cx) i(l1) i(m1)\n.options stepping=adaptive\n.end\n";
    const char *sig[] = { "v(sw)", "v(cx)", "i(l1)", "i(m1)" };
    const double tol[] = { 3e-3, 3e-3, 3e-3, 3e-3 };
    long acc = against_fixed("ring", text, "1p", sig, tol, 4);
    cr_expect(acc < 5000, "%ld steps", acc);
}

/* .options chgtol given: the continuous kinks (lcs.h pair_cont: here the PWL
 * MOS channel segments of an 8-inverter chain, m = 336) are taken inside the
 * steps, their error held by kink_ratio against charge_tol, instead of
 * located. Measured (against 1 ps fixed steps, rows every 5 ps): CHGTOL =
 * 1e-16 C, 0 events located and 704 steps, v(n8) 1.9 % of range RMS; kinks
 * located (CHGTOL not given, as before, when chgtol was parsed and unused):
 * 1 032 events, 8 323 steps, 0.15 %. The price is the theta-scheme's first
 * order in the device currents, no longer hidden by a restart at each kink
 * (stepper_adapt.c kink_setup). */
Test(adaptive, chgtol_takes_continuous_kinks_inside_the_steps)
{
    char net[4096], *p;
    snprintf(net, sizeof net,
             "inverter chain\n.options stepping=adaptive chgtol=1e-16\n"
             ".model NM NMOS(LEVEL=1 VTO=1 KP=2e-5)\n.model PM PMOS(LEVEL=1 VTO=-1 KP=1e-5)\n"
             "VDD vdd 0 5\nVIN n0 0 PULSE(0 5 1n 1n 1n 20n 40n)\n");
    for (int k = 1; k <= 8; k++)
        snprintf(
            net + strlen(net), sizeof net - strlen(net),
            "MP%d n%d n%d vdd vdd PM W=2u L=1u\nMN%d n%d n%d 0 0 NM W=1u L=1u\nC%d n%d 0 20f\n", k,
            k, k - 1, k, k, k - 1, k, k);
    strcat(net, ".tran 5p 80n\n.save v(n8)\n.end\n");
    char path[1024], cmd[4096], *out = NULL;
    snprintf(path, sizeof path, "%s/kinks.cir", tmp);
    cr_assert_eq(tu_write_file(path, net), 0);
    snprintf(cmd, sizeof cmd, "cd %s && %s --stats -o kinks.dat kinks.cir 2>&1", tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    long acc = -1, ev = -1;
    cr_assert((p = strstr(out, "steps: ")) && sscanf(p, "steps: %ld accepted", &acc) == 1, "%s",
              out);
    cr_assert((p = strstr(out, "events: ")) && sscanf(p, "events: %ld located", &ev) == 1, "%s",
              out);
    cr_expect(strstr(out, "complementarity pairs m = 336"), "%s", out);
    free(out);
    cr_expect_eq(ev, 0, "%ld events located", ev);
    cr_expect(acc > 300 && acc < 1500, "%ld steps", acc);
    tu_table t, ref;
    snprintf(path, sizeof path, "%s/kinks.dat", tmp);
    cr_assert_eq(tu_table_read(path, &t), 0);
    p = strstr(net, "chgtol=1e-16");
    memcpy(p, "reltol=1e-3 ", 12); /* (the reference: fixed steps, chgtol unread) */
    run("kinks_ref", net, "--step 1p", &ref, NULL);
    double e = rms_rel(&t, &ref, "v(n8)");
    cr_log_info(
        "8-inverter chain, kinks inside the steps: %ld steps, v(n8) RMS %.3g of range against 1 ps",
        acc, e);
    cr_expect(e < 0.03, "v(n8) RMS %.3g of range", e);
    tu_table_free(&t);
    tu_table_free(&ref);
}

/* A segment's first step has an error estimate (first_ratio). An inductor
 * carrying 1/(R + RON) when its switch opens decays into ROFF with tau =
 * L/(R + ROFF) = 0.99 us; the first step after the event, 2 % of the 28 us
 * step before it, was 0.56 tau of implicit Euler taken unchecked: i(l1) 12 %
 * high for the rest of the decay, 7e-3 A (7 % of range) at worst (hostile
 * review, session 16). Closed form: i = Iinf + (I0 - Iinf) exp(-(t - toff) /
 * tau), toff = 1 ms + 0.5 ns (the control's 1 ns fall crosses VT = 0.5 there);
 * every row within 5e-3 of range (RELTOL 1e-3 a step, two implicit-Euler
 * restart steps: 1.8e-3 measured), in both steppings. */
Test(adaptive, first_step_after_an_event_is_error_controlled)
{
    const char *opt[] = { ".options stepping=adaptive\n", "" };
    for (int k = 0; k < 2; k++) {
        char text[512];
        snprintf(
            text, sizeof text,
            "inductor into an opened switch\nV1 in 0 1\nR1 in a 10\nL1 a b 1m\nS1 b 0 c 0 SWM\n"
            "VC c 0 PULSE(1 0 1m 1n 1n 10 20)\n.model SWM SW(VT=0.5 VH=0 RON=1m ROFF=1k)\n%s.tran 10u 1.5m\n.end\n",
            opt[k]);
        tu_table t;
        run("lo", text, "", &t, NULL);
        int ci = tu_table_col(&t, "i(l1)");
        double i0 = 1 / (10 + 1e-3), iinf = 1 / (10 + 1e3), tau = 1e-3 / (10 + 1e3),
               toff = 1e-3 + 0.5e-9, e = 0;
        for (int r = 0; r < t.nrow; r++) {
            double tt = TU_AT(&t, r, 0);
            double want = tt < toff ? i0 : iinf + (i0 - iinf) * exp(-(tt - toff) / tau);
            e = fmax(e, fabs(TU_AT(&t, r, ci) - want));
        }
        cr_assert_lt(e, 5e-3 * i0, "%s: i(l1) off the closed form by %g A",
                     k ? "default" : "adaptive", e);
        tu_table_free(&t);
    }
}

/* The 4-inverter chain of PWL MOS (netlists/inverter_chain.sh 4) below, run
 * with --stats: its trials (accepted, rejected, locating), located events,
 * and v(n4), v(n2) RMS of range against 5 ps fixed steps. */
typedef struct chain_run {
    long acc, rej, loc, ev;
    double e4, e2;
} chain_run;

static void chain4_run(chain_run *cr)
{
    static const char head[] =
        "chain of 4 PWL MOS inverters, 50 fF a stage\n"
        ".param cox={3.9*8.854214871e-12/20n} kpn={750e-4*cox} kpp={250e-4*cox} vdd=5\n"
        ".subckt inv in out vdd\nMP out in vdd vdd PM W=1u L=1u\nMN out in 0 0 NM W=1u L=1u\n"
        "CW out 0 50f\n.ends\n.model NM NMOS(LEVEL=1 VTO=1 KP={kpn})\n"
        ".model PM PMOS(LEVEL=1 VTO=-1 KP={kpp})\nVDD vdd 0 {vdd}\n"
        "VIN n0 0 PULSE(0 {vdd} 0.5u 10n 10n 0.5u 2u)\n"
        "X1 n0 n1 vdd inv\nX2 n1 n2 vdd inv\nX3 n2 n3 vdd inv\nX4 n3 n4 vdd inv\n"
        ".save v(n2) v(n4)\n";
    char text[2048], path[1024], cmd[4096], *out = NULL;
    snprintf(text, sizeof text, "%s.tran 20n 1.5u\n.end\n", head);
    snprintf(path, sizeof path, "%s/chain.cir", tmp);
    cr_assert_eq(tu_write_file(path, text), 0);
    snprintf(cmd, sizeof cmd, "cd %s && %s --stats -o chain.dat chain.cir 2>&1", tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    const char *p = strstr(out, "steps: "), *q = strstr(out, " trials locating events");
    cr_assert(p
                  && sscanf(p, "steps: %ld accepted, %ld rejected; events: %ld located", &cr->acc,
                            &cr->rej, &cr->ev)
                         == 3,
              "%s", out);
    while (q && q > out && q[-1] >= '0' && q[-1] <= '9') q--;
    cr_assert(q && sscanf(q, "%ld", &cr->loc) == 1, "%s", out);
    free(out);
    tu_table ad, ref;
    snprintf(path, sizeof path, "%s/chain.dat", tmp);
    cr_assert_eq(tu_table_read(path, &ad), 0);
    snprintf(text, sizeof text, "%s.tran 0.1n 1.5u\n.end\n", head);
    run("chain_ref", text, "--step 5p", &ref, NULL);
    cr->e4 = rms_rel(&ad, &ref, "v(n4)");
    cr->e2 = rms_rel(&ad, &ref, "v(n2)");
    cr_log_info("inverter chain: %ld steps, %ld rejected, %ld locating, %ld events; v(n4) %.3g, "
                "v(n2) %.3g",
                cr->acc, cr->rej, cr->loc, cr->ev, cr->e4, cr->e2);
    tu_table_free(&ad);
    tu_table_free(&ref);
}

/* The chain driven by a 10 ns edge each way: every MOS segment change is
 * located (an event) and the input ramp's segment changes come faster than
 * NSC_CHAT_H href, so chattering's implicit-Euler steps capture them. The
 * trials, bounded (issue 24, the cascade's trials): chattering ends once its
 * steps capture nothing (it held href = 20 ns of 0.2 ns steps: 606 steps),
 * and a trial of the event tolerance, a few ulps of t longer than it, is the
 * bracket's last (it was bracketed again, then bisected: 77 trials locating
 * 42 events). Measured 440 steps, 38 locating trials; v(n4), v(n2) 0.72 %,
 * 0.35 % of range RMS against 5 ps fixed steps (the same before). */
Test(adaptive, inverter_chain_edges_take_few_trials, .timeout = 60)
{
    chain_run cr;
    chain4_run(&cr);
    cr_expect(cr.acc <= 500, "%ld steps", cr.acc);
    cr_expect(cr.loc <= 50, "%ld trials locating events", cr.loc);
    cr_expect(cr.e4 < 0.01 && cr.e2 < 0.005, "v(n4) %.3g, v(n2) %.3g of range RMS", cr.e4, cr.e2);
}

/* The same chain: an event of continuous kinks only (MOS segment changes,
 * lcs.h pair_cont: no current jumps there) restarts no implicit-Euler steps
 * at 2 % of the last step; the history restarts and the next step is half
 * the one that found the event (stepper_adapt.c next_step). Measured (issue
 * 24, helper casc7): with the restarts 440 + 21 + 38 trials for 45 events
 * (11.1 an event), 528 mode systems factored; now 365 + 5 + 45 (9.2), 359;
 * v(n4), v(n2) 0.72 % / 0.35 % of range against 5 ps steps before, 0.74 % /
 * 0.36 % now. */
Test(adaptive, kink_events_restart_no_implicit_euler_steps, .timeout = 60)
{
    chain_run cr;
    chain4_run(&cr);
    long tr = cr.acc + cr.rej + cr.loc;
    cr_expect(cr.ev >= 40, "%ld events located", cr.ev);
    cr_expect(tr < 10 * cr.ev, "%ld trials for %ld events", tr, cr.ev);
    cr_expect(cr.e4 < 0.01 && cr.e2 < 0.005, "v(n4) %.3g, v(n2) %.3g of range RMS", cr.e4, cr.e2);
}
