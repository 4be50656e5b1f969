/* test_losses.c -- --losses (issue 14 item 2): every element's energy over the
 * steady period or a transient window, against closed forms, the energy
 * balance, EON/EOFF charged at the located events, and the refusals. */
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
TestSuite(losses, .init = setup, .fini = teardown);

typedef struct lrow {
    double p, psw, e;
    long on, off;
} lrow;

/* Run nscircuit ARGS with --losses -o tmp/NAME.dat; the text of tmp/NAME.losses. */
static char *losses_run(const char *args, const char *name)
{
    char cmd[4096], path[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s --quiet --losses -o %s/%s.dat %s 2>&1 >/dev/null", NSC_PROGRAM,
             tmp, name, args);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    free(out);
    snprintf(path, sizeof path, "%s/%s.losses", tmp, name);
    char *text = tu_read_file(path);
    cr_assert(text, "no %s", path);
    return text;
}

/* The row of element el in a .losses text. */
static lrow row_of(const char *text, const char *el)
{
    char key[64];
    snprintf(key, sizeof key, "\n  %s ", el);
    const char *s = strstr(text, key);
    cr_assert(s, "no row %s in\n%s", el, text);
    lrow r;
    char cls[32];
    cr_assert(sscanf(s + strlen(key), " %31s %lf %lf %lf %ld %ld", cls, &r.p, &r.psw, &r.e, &r.on,
                     &r.off)
                  == 6,
              "%s", s);
    return r;
}

/* The balance line's relative residual. */
static double balance_rel(const char *text)
{
    const char *s = strstr(text, "# balance: the elements' energies sum to");
    double e, rel;
    cr_assert(s && sscanf(s, "# balance: the elements' energies sum to %lf J, %lf", &e, &rel) == 2,
              "%s", text);
    return rel;
}

static int near(double x, double want, double rel)
{
    return fabs(x - want) <= rel * fabs(want);
}

/* tests/data/losses/buck_ron.cir in its periodic steady state: the switch's
 * conduction loss is RON I_rms^2 of the closed-form CCM waveform within 0.1 %
 * (measured 6.5e-6), the ideal diode's is zero, the elements' energies
 * balance to 1e-9 (measured 9e-14), and EON/EOFF, scaled by the blocking
 * voltage and the current at each located event, are charged once per
 * period each (measured 4e-7 and 4e-5 from the closed forms). */
Test(losses, buck_conduction_and_switching_losses_are_the_closed_forms)
{
    char args[1024];
    snprintf(args, sizeof args, "%s/losses/buck_ron.cir", NSC_REFDIR);
    char *text = losses_run(args, "buck");
    double D = 0.5, Vin = 12, R = 5, RON = 0.01, T = 1e-5, L = 1e-4, f = 1 / T;
    double Vo = D * Vin / (1 + D * RON / R), I = Vo / R, dI = (Vin - RON * I - Vo) * D * T / L;
    lrow s1 = row_of(text, "s1"), d1 = row_of(text, "d1"), rl = row_of(text, "rl"),
         v1 = row_of(text, "v1");
    cr_assert(near(s1.p, RON * D * (I * I + dI * dI / 12), 1e-3), "P(s1) = %.9g", s1.p);
    cr_assert(fabs(d1.p) <= 1e-12 * fabs(v1.p), "ideal diode dissipates %g W", d1.p);
    cr_assert(near(rl.p, Vo * Vo / R, 1e-3), "P(rl) = %.9g", rl.p);
    cr_assert(balance_rel(text) <= 1e-9, "%s", text);
    cr_assert(s1.on == 1 && s1.off == 1 && d1.on == 1 && d1.off == 1, "events %ld %ld %ld %ld",
              s1.on, s1.off, d1.on, d1.off);
    cr_assert(near(s1.psw, f * (1e-6 * (I - dI / 2) + 2e-6 * (I + dI / 2)), 1e-3), "Psw(s1) = %.9g",
              s1.psw);
    cr_assert(near(d1.psw, f * 0.5e-6 * (1 - RON * (I - dI / 2) / 12) * (I - dI / 2), 1e-3),
              "Psw(d1) = %.9g", d1.psw);
    double eff;
    const char *e = strstr(text, "efficiency ");
    cr_assert(e && sscanf(e, "efficiency %lf", &eff) == 1 && strstr(text, "# load rl "), "%s",
              text);
    cr_assert(near(eff, rl.p / (-v1.p + s1.psw + d1.psw), 1e-9), "efficiency %.9g", eff);
    free(text);
}

/* .meas names the powers (issue 14 item 2): P(x) / W(x) is the power x absorbs
 * (Xyce's P(), v(n+,n-) i(x)), in a measure or in an expression. Over the
 * steady period of tests/data/losses/buck_ron.cir, AVG P(S1) is the switch's
 * conduction loss RON D (I^2 + dI^2/12) within 0.5 % (measured 0.25 %: the
 * average is over the written rows, 50 ns apart, which cut the current's
 * jumps; --losses integrates the steps exactly), AVG P(RL) is Vo^2/R within
 * 1e-4, and the efficiency as a PARAM of the two. Before, `P(S1)` in .meas was
 * "expected V(node), V(a,b), I(element) or par('expression')". */
Test(losses, meas_names_the_powers)
{
    char path[1024], cmd[2048], *out = NULL;
    snprintf(path, sizeof path, "%s/losses/buck_ron.cir", NSC_REFDIR);
    char *net = tu_read_file(path), *end = net ? strstr(net, "\n.end") : NULL;
    cr_assert_not_null(end);
    end[1] = 0;
    snprintf(path, sizeof path, "%s/bm.cir", tmp);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(
        f,
        "%s.meas tran ps1 AVG P(S1)\n.meas tran prl AVG p(rl)\n.meas tran pin AVG par('-w(v1)')\n"
        ".meas tran eff PARAM='prl/pin'\n.end\n",
        net);
    fclose(f);
    free(net);
    snprintf(cmd, sizeof cmd, "cd %s && %s -o bm.dat bm.cir 2>&1", tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    double D = 0.5, Vin = 12, R = 5, RON = 0.01, T = 1e-5, L = 1e-4, v[4];
    double Vo = D * Vin / (1 + D * RON / R), I = Vo / R, dI = (Vin - RON * I - Vo) * D * T / L;
    const char *names[] = { "ps1 = ", "prl = ", "pin = ", "eff = " };
    for (int k = 0; k < 4; k++) {
        const char *p = strstr(out, names[k]);
        cr_assert(p && sscanf(p + 6, "%lf", &v[k]) == 1, "%s: %s", names[k], out);
    }
    cr_assert(near(v[0], RON * D * (I * I + dI * dI / 12), 5e-3), "AVG P(S1) = %.9g", v[0]);
    cr_assert(near(v[1], Vo * Vo / R, 1e-4), "AVG P(RL) = %.9g", v[1]);
    cr_assert(near(v[3], v[1] / v[2], 1e-9) && v[3] > 0.99 && v[3] < 1, "eff %.9g", v[3]);
    free(out);
}

/* tests/data/losses/rc_charge.cir: a transient window [1 ms, 5 ms] of an RC
 * charging from rest (tau = 1 ms): the resistor's, capacitor's and source's
 * energies are the closed forms within 1e-4 (measured 1.6e-5 adaptive, 1e-10
 * exact), the window's start falling inside a step (adaptive). The power is the
 * energy over the window to the table's 10 digits (each rounded: 1e-9). */
Test(losses, transient_window_energies_of_an_rc_are_the_closed_forms)
{
    char args[1024];
    snprintf(args, sizeof args, "%s/losses/rc_charge.cir", NSC_REFDIR);
    char *text = losses_run(args, "rc");
    double C = 1e-6, a = exp(-1.0), b = exp(-5.0);
    lrow r1 = row_of(text, "r1"), c1 = row_of(text, "c1"), v1 = row_of(text, "v1");
    cr_assert(near(r1.e, C / 2 * (a * a - b * b), 1e-4), "E(r1) = %.9g", r1.e);
    cr_assert(near(c1.e, C / 2 * ((1 - b) * (1 - b) - (1 - a) * (1 - a)), 1e-4), "E(c1) = %.9g",
              c1.e);
    cr_assert(near(v1.e, -C * (a - b), 1e-4), "E(v1) = %.9g", v1.e);
    cr_assert(near(r1.p, r1.e / 4e-3, 1e-9), "power = energy / window");
    cr_assert(balance_rel(text) <= 1e-9, "%s", text);
    free(text);
}

/* The converters of netlists/ in steady state: every element accounted for,
 * the balance to round-off, and the input power is the load's plus the
 * losses (the stored energy returns over a period: below 1e-6 of the input). */
Test(losses, converters_balance_in_steady_state)
{
    const char *const nets[] = { "boost", "cuk", "flyback" };
    for (int k = 0; k < 3; k++) {
        char args[1024];
        snprintf(args, sizeof args, "--steady %s/%s.cir", NSC_NETLISTS, nets[k]);
        char *text = losses_run(args, nets[k]);
        cr_assert(balance_rel(text) <= 1e-9, "%s: %s", nets[k], text);
        double pin, ps;
        const char *a = strstr(text, "# input (independent sources) "),
                   *b = strstr(text, "(switching), storage ");
        cr_assert(a && sscanf(a, "# input (independent sources) %lf", &pin) == 1 && b
                  && sscanf(b, "(switching), storage %lf", &ps) == 1);
        cr_assert(pin > 0 && fabs(ps) <= 1e-6 * pin, "%s: input %g W, storage %g W", nets[k], pin,
                  ps);
        free(text);
    }
}

/* Bad switching-energy data is a netlist error at the model card, an unknown
 * --load a usage error; neither writes a .losses file. */
Test(losses, refusals)
{
    char path[1024], cmd[4096], *out = NULL;
    snprintf(path, sizeof path, "%s/neg.cir", tmp);
    cr_assert_eq(tu_write_file(path, "neg\nV1 a 0 1\nS1 a b a 0 SWM\nR1 b 0 1\n"
                                     ".model SWM SW(VT=0.5 EON=-1u)\n.tran 1u 10u\n.end\n"),
                 0);
    snprintf(cmd, sizeof cmd, "cd %s && %s --losses neg.cir 2>&1", tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 1, "%s", out);
    cr_assert(strstr(out, "neg.cir:5:1: error: model 'swm': EON = -1e-06"), "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "cd %s && %s --load rx neg.cir 2>&1; ls", tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0);
    cr_assert(strstr(out, "--load rx: no such element") && !strstr(out, "neg.losses"), "%s", out);
    free(out);
}

/* The buck's closed forms at RON (as in the test above): the load's power and
 * the losses, conduction plus switching. */
static void buck_forms(double RON, double *pload, double *ploss)
{
    double D = 0.5, Vin = 12, R = 5, T = 1e-5, L = 1e-4, f = 1 / T;
    double Vo = D * Vin / (1 + D * RON / R), I = Vo / R, dI = (Vin - RON * I - Vo) * D * T / L;
    double Iv = I - dI / 2, Ip = I + dI / 2;
    *pload = Vo * Vo / R;
    *ploss = RON * D * (I * I + dI * dI / 12) + f * (1e-6 * Iv + 2e-6 * Ip)
             + f * 0.5e-6 * (1 - RON * Iv / 12) * Iv;
}

/* `nscircuit sweep --steady` of tests/data/losses/buck_ron.cir over RON: one
 * row per point with the efficiency and losses columns, both the closed forms
 * within 1e-3 (the losses) and 1e-5 (the efficiency); with -j 1 the second and
 * third points start from their neighbour's steady state, and their rows agree
 * with --cold ones (each from its own operating point) within 1e-6. */
Test(losses, steady_sweep_tabulates_efficiency_and_losses)
{
    char cmd[4096], path[1024], *out = NULL;
    const char *runs[] = { "", "--cold" };
    double eff[2][3], loss[2][3], ron[3] = { 5e-3, 10e-3, 20e-3 };
    for (int w = 0; w < 2; w++) {
        snprintf(
            cmd, sizeof cmd,
            "%s sweep %s/losses/buck_ron.cir --param ron=5m,10m,20m -j 1 --stats --no-plot %s -o %s/bs%d 2>&1",
            NSC_PROGRAM, NSC_REFDIR, runs[w], tmp, w);
        cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
        cr_assert(strstr(out, w ? "steady states: 0 of 3 points started from a neighbour's"
                                : "steady states: 2 of 3 points started from a neighbour's"),
                  "%s", out);
        free(out);
        snprintf(path, sizeof path, "%s/bs%d.sweep.dat", tmp, w);
        tu_table t;
        cr_assert_eq(tu_table_read(path, &t), 0);
        int ce = tu_table_col(&t, "efficiency"), cl = tu_table_col(&t, "losses");
        cr_assert(ce > 0 && cl > 0 && t.nrow == 3, "columns %d %d, %d rows", ce, cl, t.nrow);
        for (int k = 0; k < 3; k++) {
            double pl, ps;
            buck_forms(ron[k], &pl, &ps);
            eff[w][k] = TU_AT(&t, k, ce);
            loss[w][k] = TU_AT(&t, k, cl);
            cr_assert(near(loss[w][k], ps, 1e-3), "RON %g: losses %.9g W, closed form %.9g W",
                      ron[k], loss[w][k], ps);
            cr_assert(near(eff[w][k], pl / (pl + ps), 1e-5), "RON %g: efficiency %.9g", ron[k],
                      eff[w][k]);
        }
        tu_table_free(&t);
        /* the picture: efficiency in % and the losses in W against RON (the model's, in Ω) */
        snprintf(path, sizeof path, "%s/bs%d.sweep.gp", tmp, w);
        char *gp = tu_read_file(path);
        cr_assert(gp && strstr(gp, "set ylabel 'efficiency (%)'")
                      && strstr(gp, "set ylabel 'losses (mW)'")
                      && strstr(gp, "set xlabel 'ron (mΩ)'"),
                  "%s", gp ? gp : path);
        free(gp);
    }
    for (int k = 0; k < 3; k++)
        cr_assert(near(eff[0][k], eff[1][k], 1e-6) && near(loss[0][k], loss[1][k], 1e-6),
                  "warm and cold differ at %d", k);
}

/* A netlist with .step and .pss runs as a steady sweep (before: refused). */
Test(losses, step_with_pss_is_a_steady_sweep)
{
    char cmd[4096], path[1024], *out = NULL;
    snprintf(path, sizeof path, "%s/st.cir", tmp);
    char *src = NULL;
    snprintf(cmd, sizeof cmd, "%s/losses/buck_ron.cir", NSC_REFDIR);
    cr_assert((src = tu_read_file(cmd)));
    char *end = strstr(src, ".end");
    cr_assert(end);
    *end = 0;
    size_t len = strlen(src) + 128;
    char *text = malloc(len);
    cr_assert(text);
    snprintf(text, len,
             "%s.step param ron list 10m 20m\n.meas tran vo AVG v(out) FROM=0 TO=1u\n.end\n", src);
    cr_assert_eq(tu_write_file(path, text), 0);
    free(src);
    free(text);
    snprintf(cmd, sizeof cmd, "cd %s && %s --quiet st.cir 2>&1 && cat st.sweep.dat", tmp,
             NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "# ron vo efficiency losses status point"), "%s", out);
    double r, vo, e, l;
    const char *row = strstr(out, "\n1.000000000000e-02 ");
    cr_assert(row && sscanf(row, "%lf %lf %lf %lf", &r, &vo, &e, &l) == 4, "%s", out);
    double pl, ps;
    buck_forms(10e-3, &pl, &ps);
    cr_assert(near(vo * vo / 5, pl, 1e-3), "v(out) %g over the steady period (its window replaced)",
              vo);
    free(out);
}

/* The efficiency line's loads power and efficiency. */
static void load_line(const char *text, double *p, double *eff)
{
    const char *s = strstr(text, "\n# load");
    cr_assert(s, "%s", text);
    s = strchr(s + 1, ' ');
    const char *w = strstr(s, " W, efficiency ");
    cr_assert(w, "%s", text);
    while (w > s && w[-1] != ' ') w--; /* the power's start */
    cr_assert(sscanf(w, "%lf W, efficiency %lf", p, eff) == 2, "%s", text);
}

/* A current-sink load (issue 25 item 18: "input 5.137 W" where the input
 * delivers 15.10 W: the sink's absorbed power was taken off the input; `--load
 * rload,istep` was "no such element", a second --load replaced the first).
 * V1 = 10 V, R1 = 0.1 ohm to out, I1 = 5 A sink and Rload = 10 ohm at out:
 * v(out) = 95/10.1 V, V1 delivers 10 (5 + v/10) W, the loads take v (5 +
 * v/10) W, efficiency v/10 = 95/101. The default loads (the largest resistor
 * and every source absorbing), `--load rload,i1` and `--load rload --load i1`
 * give it; `--load rload` alone counts I1 apart ("sources absorbing"). */
Test(losses, current_sink_and_several_loads_count)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/sink.cir", tmp);
    cr_assert_eq(
        tu_write_file(
            path,
            "sink\nV1 in 0 10\nR1 in out 0.1\nI1 out 0 5\nRload out 0 10\n.tran 1u 10u\n.end\n"),
        0);
    double v = 95 / 10.1, pin = 10 * (5 + v / 10), pl = v * (5 + v / 10);
    const char *args[] = { "", "--load rload,i1", "--load rload --load I1" };
    for (int k = 0; k < 3; k++) {
        char a[1200];
        snprintf(a, sizeof a, "%s %s", args[k], path);
        char *text = losses_run(a, "sink");
        double p, eff, in;
        load_line(text, &p, &eff);
        const char *s = strstr(text, "# input (independent sources) ");
        cr_assert(s && sscanf(s, "# input (independent sources) %lf", &in) == 1);
        cr_assert(near(in, pin, 1e-9) && near(p, pl, 1e-9) && near(eff, 95.0 / 101, 1e-8),
                  "%s: input %.9g (%.9g), loads %.9g (%.9g), efficiency %.9g\n%s", args[k], in, pin,
                  p, pl, eff, text);
        cr_assert(strstr(text, "# loads rload, i1 "), "%s", text);
        free(text);
    }
    char a[1200];
    snprintf(a, sizeof a, "--load rload %s", path);
    char *text = losses_run(a, "sink");
    double p, eff, sink;
    load_line(text, &p, &eff);
    const char *s = strstr(text, ", sources absorbing ");
    cr_assert(s && sscanf(s, ", sources absorbing %lf", &sink) == 1, "%s", text);
    cr_assert(near(p, v * v / 10, 1e-9) && near(eff, v * v / 10 / pin, 1e-8)
                  && near(sink, 5 * v, 1e-9),
              "%s", text);
    free(text);
}

/* Turn-ons and turn-offs are counted for every diode (issue 25 item 18: 0
 * without EON/EOFF): a half-wave rectifier from SIN(0 10 1k) over [0.25 ms,
 * 10.25 ms] conducts from each zero crossing upwards (1, 2, ... 10 ms) to the
 * next downwards (0.5, 1.5, ... 9.5 ms): 10 of each. */
Test(losses, diodes_without_eon_count_their_switchings)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/hw.cir", tmp);
    cr_assert_eq(tu_write_file(path,
                               "hw\nV1 in 0 SIN(0 10 1k)\nD1 in out DI\nR1 out 0 1k\n.model DI D\n"
                               ".tran 1u 10.25m 0.25m\n.end\n"),
                 0);
    char *text = losses_run(path, "hw");
    lrow d = row_of(text, "d1");
    cr_assert(d.on == 10 && d.off == 10 && d.psw == 0, "%s", text);
    free(text);
}

/* A window over a start-up (issue 25 item 14: an efficiency of 3.91 without a
 * word): tests/data/losses/rc_charge.cir over [1 ms, 5 ms] stores
 * (C/2)((1 - b)^2 - (1 - a)^2) of the input C (a - b) (a = e^-1, b = e^-5):
 * a warning on stderr and in the table gives that energy and fraction; the
 * steady periods of netlists/boost.cir get none. */
Test(losses, storage_change_over_the_window_is_warned)
{
    char cmd[4096], *out = NULL;
    snprintf(cmd, sizeof cmd,
             "%s --quiet --losses -o %s/rc.dat %s/losses/rc_charge.cir 2>&1 >/dev/null",
             NSC_PROGRAM, tmp, NSC_REFDIR);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    double C = 1e-6, a = exp(-1.0), b = exp(-5.0);
    double stored = C / 2 * ((1 - b) * (1 - b) - (1 - a) * (1 - a)), in = C * (a - b), E, frac;
    const char *s = strstr(out, "nscircuit: warning: --losses: the stored energy changes by ");
    cr_assert(
        s
            && sscanf(
                   s,
                   "nscircuit: warning: --losses: the stored energy changes by %lf J over the window, %lf",
                   &E, &frac)
                   == 2,
        "%s", out);
    cr_assert(near(E, stored, 2e-3) && near(frac, stored / in, 2e-3), "%g J, %g (want %g J, %g)", E,
              frac, stored, stored / in);
    free(out);
    char path[1024];
    snprintf(path, sizeof path, "%s/rc.losses", tmp);
    char *text = tu_read_file(path);
    cr_assert(text && strstr(text, "\n# warning: the stored energy changes by "), "%s", text);
    free(text);
    snprintf(cmd, sizeof cmd,
             "%s --quiet --steady --losses -o %s/b.dat %s/boost.cir 2>&1 >/dev/null", NSC_PROGRAM,
             tmp, NSC_NETLISTS);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(!strstr(out, "stored energy"), "%s", out);
    free(out);
}

/* Capacitive turn-on loss from the devices' charge (issue 27 item 4): a
 * hard-switched half bridge (tests/data/losses/hb_coss.cir: 400 V, 100 kHz,
 * 0.2 A), whose low-side VDMOS turns on across its body's depletion CJO
 * (1 nF, VJ 0.8, M 0.5: a charge-based capacitor) charged to V = 400 V + the
 * clamp diode's 0.2 A x 1 mOhm, and charges the clamp diode's CJO = 100 pF
 * to V. Each turn-on dissipates in the channel the energy the output
 * capacitance holds, Eoss = int_0^V v C(v) dv = CJO VJ^2 ((2/3) w^1.5 - 2 w^0.5
 * + 4/3), w = 1 + V/VJ, and charging the diode's C from the supply through it,
 * C V^2 / 2; no EON/EOFF on the cards. The transistor's row in the periodic
 * steady state is f (Eoss + C V^2/2) within 1 % (measured +0.64 %: the
 * 0.2 A overlap during the 0.5 ns fall; before the restart's capacitor damping
 * was moved to it, -1.76 %, the rest in the capacitors' rows), counted once
 * per period, its "capacitive turn-on" part named, and the balance holds. */
Test(losses, capacitive_turn_on_loss_of_a_half_bridge)
{
    char args[1024];
    snprintf(args, sizeof args, "--steady %s/losses/hb_coss.cir", NSC_REFDIR);
    char *text = losses_run(args, "hb");
    double V = 400 + 0.2e-3, vj = 0.8, w = 1 + V / vj, f = 1e5;
    double eoss = 1e-9 * vj * vj * (2.0 / 3 * pow(w, 1.5) - 2 * sqrt(w) + 4.0 / 3),
           ech = 0.5 * 100e-12 * V * V;
    lrow m1 = row_of(text, "m1"), cj = row_of(text, "m1#cjo"), d1 = row_of(text, "d1");
    cr_assert(near(m1.p, f * (eoss + ech), 1e-2), "P(m1) = %.9g W, closed form %.9g W", m1.p,
              f * (eoss + ech));
    cr_assert(fabs(cj.p) + fabs(d1.p) < 5e-3 * m1.p, "P(m1#cjo) = %g, P(d1) = %g", cj.p, d1.p);
    cr_assert(m1.on == 1 && m1.off == 1 && m1.psw == 0, "%ld %ld %g", m1.on, m1.off, m1.psw);
    const char *s = strstr(text, "# of which capacitive turn-on losses");
    double pc;
    cr_assert(s && sscanf(strstr(s, ") ") + 2, "%lf", &pc) == 1 && pc > 0 && pc < m1.p, "%s", text);
    cr_assert(balance_rel(text) <= 1e-9, "%s", text);
    free(text);
}

/* Run nscircuit --losses --stats on tmp/NAME.cir (text net); the .losses text,
 * and *exact = 1 when the exact transient ran it throughout (its stats line). */
static char *losses_of(const char *name, const char *net, int *exact)
{
    char path[1024], cmd[4096], *out = NULL;
    snprintf(path, sizeof path, "%s/%s.cir", tmp, name);
    cr_assert_eq(tu_write_file(path, net), 0);
    snprintf(cmd, sizeof cmd, "cd %s && %s --stats --losses %s.cir 2>&1 >/dev/null", tmp,
             NSC_PROGRAM, name);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    *exact = strstr(out, "nscircuit: exact steps (the flow of each mode")
             != NULL; /* (not "exact steps to T, then") */
    free(out);
    snprintf(path, sizeof path, "%s/%s.losses", tmp, name);
    char *text = tu_read_file(path);
    cr_assert(text, "no %s", path);
    return text;
}

/* --losses in the exact transient (issue 24): an ideal half-wave rectifier,
 * V1 = SIN(0 10 1k) into D(VF=0) and R1 = 1k, over [0.25 ms, 10.25 ms]: the
 * resistor takes (100 V^2 / 1k) T/4 a period, 2.5e-4 J over the ten, the source
 * delivers it, the ideal diode none, ten turn-ons and turn-offs each. The flow
 * carries the sine exactly and each segment's energy is Simpson's over three of
 * its points: 1e-6 asked (measured 4e-10). Before, --losses left the exact
 * transient for the adaptive theta-scheme: 2.471e-4 J (1.2 % off; reltol 1e-5
 * 7.5e-4). */
Test(losses, exact_rectifier_energy_is_the_closed_form)
{
    int exact;
    char *text =
        losses_of("hwx",
                  "hw\nV1 in 0 SIN(0 10 1k)\nD1 in out DI\nR1 out 0 1k\n.model DI D(VF=0)\n"
                  ".options stepping=exact\n.tran 1u 10.25m 0.25m\n.end\n",
                  &exact);
    cr_assert(exact, "the exact transient did not run it");
    lrow r1 = row_of(text, "r1"), v1 = row_of(text, "v1"), d1 = row_of(text, "d1");
    cr_assert(near(r1.e, 2.5e-4, 1e-6) && near(v1.e, -2.5e-4, 1e-6), "E(r1) = %.12g, E(v1) = %.12g",
              r1.e, v1.e);
    cr_assert(fabs(d1.e) <= 1e-12 * r1.e && d1.on == 10 && d1.off == 10, "%s", text);
    cr_assert(balance_rel(text) <= 1e-9, "%s", text);
    free(text);
}

/* A switch S1 (EON = 1 uJ at VREF = 10 V) closes at 1 us from V1 = 10 V onto
 * C1 = 1 uF at 0 V (the gate's edge ends 0.5 ns after the threshold: a sliver
 * before the breakpoint). Whatever RON, charging C to V dissipates C V^2 / 2 =
 * 50 uJ in the switch: RON = 1 ohm over tau = 1 us (conduction), RON = 1 uohm
 * (tau = 1 ps) as a jump, which the implicit-Euler steps after the event
 * capture into the switch ("capacitive turn-on losses"); EON at 10 V blocked,
 * once. Both steppings, 1e-5 asked (measured, exact: 5e-6 at 1 ohm, the chord
 * tolerances' second order; 1e-9 at 1 uohm). Before the chain of implicit-Euler
 * substeps after an event, the exact transient's points inside the flow's
 * ringing first substeps gave 1.1 % too little in C1 and V1. */
Test(losses, switch_charging_a_capacitor_dissipates_half_cv2)
{
    const char *ron[] = { "1", "1u" }, *st[] = { "exact", "adaptive" };
    for (int k = 0; k < 4; k++) {
        char net[1024];
        snprintf(
            net, sizeof net,
            "swc\nV1 in 0 10\nS1 in a ctl 0 SWM\nC1 a 0 1u IC=0\nVc ctl 0 PULSE(0 1 1u 1n 1n 1 2)\n"
            ".model SWM SW(VT=0.5 RON=%s ROFF=1e9 EON=1u VREF=10)\n.options stepping=%s\n"
            ".tran 1u 50u UIC\n.end\n",
            ron[k % 2], st[k / 2]);
        int exact;
        char *text = losses_of("swc", net, &exact);
        cr_assert(exact == (k < 2), "%s: stepper", st[k / 2]);
        lrow s1 = row_of(text, "s1"), c1 = row_of(text, "c1"), v1 = row_of(text, "v1");
        cr_assert(near(s1.e, 50e-6 + 1e-6, 1e-5) && near(s1.psw * 50e-6, 1e-6, 1e-6) && s1.on == 1
                      && s1.off == 0,
                  "RON %s, %s: E(s1) = %.9g\n%s", ron[k % 2], st[k / 2], s1.e, text);
        cr_assert(near(c1.e, 50e-6, 1e-5) && near(v1.e, -100e-6, 1e-5), "RON %s, %s: %.9g %.9g",
                  ron[k % 2], st[k / 2], c1.e, v1.e);
        double pc;
        const char *s = strstr(text, "# of which capacitive turn-on losses");
        /* the jump: captured by the exact transient; the adaptive one resolves
         * it since session 16 (its first step after the event is error
         * controlled: RON C = 1 ps in fs steps), so the charge is its conduction */
        if (k == 1)
            cr_assert(s && sscanf(strstr(s, ") ") + 2, "%lf", &pc) == 1
                          && near(pc * 50e-6, 50e-6, 1e-2),
                      "%s", text);
        cr_assert(balance_rel(text) <= 1e-8, "%s", text);
        free(text);
    }
}

/* netlists/buck.cir over 20 us (`.tran 10n 20u UIC`, a start-up with 21
 * switching periods): the exact transient's table against fixed steps of 20 and
 * 40 ps (theta = 1/2, no event location: their error is first order in h, the
 * switching instants on the grid), extrapolated 2 E(20p) - E(40p): every
 * element holding more than 1e-3 of the input's energy within 1e-4 (measured
 * 1.6e-5 at most: l1; mp 1.2e-5, vin 7e-6), the others within 1e-6 of the
 * input's energy. (The adaptive stepper at reltol 1e-7 is 0.32 % off in mp:
 * the theta-scheme's pair currents are first order at the MOS segment changes.) */
Test(losses, exact_buck_table_agrees_with_extrapolated_fixed_steps)
{
    char path[1024], cmd[4096], *out = NULL;
    snprintf(path, sizeof path, "%s/buck.cir", NSC_NETLISTS);
    char *net = tu_read_file(path), *tr = net ? strstr(net, "\n.tran 10n 200u 0 50p UIC") : NULL;
    cr_assert_not_null(tr);
    memcpy(tr, "\n.tran 10n 20u UIC       ", 25); /* (same length: the TMAX blanked) */
    int exact;
    char *tx = losses_of("bk", net, &exact);
    cr_assert(exact, "the exact transient did not run it");
    free(net);
    const char *h[] = { "20p", "40p" };
    char *tf[2];
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd,
                 "cd %s && %s --quiet --losses --step %s -o bk%s.dat bk.cir 2>&1 >/dev/null", tmp,
                 NSC_PROGRAM, h[k], h[k]);
        cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
        free(out);
        snprintf(path, sizeof path, "%s/bk%s.losses", tmp, h[k]);
        cr_assert((tf[k] = tu_read_file(path)));
    }
    const char *el[] = { "vin", "mp",  "mn",  "dp",  "dn",  "l1", "c1", "rl",
                         "r12", "c11", "r11", "r21", "c21", "e1", "ro", "co" };
    double ein = fabs(row_of(tx, "vin").e);
    for (size_t j = 0; j < sizeof el / sizeof *el; j++) {
        double e = row_of(tx, el[j]).e, ref = 2 * row_of(tf[0], el[j]).e - row_of(tf[1], el[j]).e;
        double tol = fabs(ref) > 1e-3 * ein ? 1e-4 * fabs(ref) : 1e-6 * ein;
        cr_assert(fabs(e - ref) <= tol, "%s: exact %.9g J, extrapolated fixed steps %.9g J", el[j],
                  e, ref);
    }
    cr_assert(balance_rel(tx) <= 1e-9, "%s", tx);
    free(tx);
    free(tf[0]);
    free(tf[1]);
}

/* A capacitor's energy over a run from rest is C v(end)^2 / 2, whatever the
 * path: a rectifier (D with two fitted segments and RS) into 100 ohm || 10 uF
 * from SIN(0 10 1k) over 5 ms, only v(out) saved, both steppings, within 5e-4
 * of the value from the last row's v(out) (measured: exact 1.8e-5, adaptive
 * 1.1e-4). Before the segment after an event's chain took its own midpoint,
 * the exact transient gave 1.13e-3 J for 1.14e-4 J (a quadratic through two
 * points h0 apart, extrapolated over the step); before the step control read
 * the powers' chord too, 1.078e-4 J (C1's current after each turn-on settles
 * through RS in tens of ns, inside 25 us steps that v(out) allows). */
Test(losses, capacitor_energy_from_rest_is_half_cv2_through_a_rectifier)
{
    const char *st[] = { "exact", "adaptive" };
    for (int k = 0; k < 2; k++) {
        char net[1024], path[1024];
        snprintf(net, sizeof net,
                 "rc\nV1 in 0 SIN(0 10 1k)\nD1 in out DN\nR1 out 0 100\nC1 out 0 10u\n"
                 ".model DN D(IS=1e-15 N=0.01 RS=1m SEGMENTS=2 IMIN=10m IMAX=20)\n"
                 ".options stepping=%s\n.tran 1u 5m\n.save v(out)\n.end\n",
                 st[k]);
        int exact;
        char *text = losses_of("rcd", net, &exact);
        cr_assert(exact == (k == 0), "%s: stepper", st[k]);
        snprintf(path, sizeof path, "%s/rcd.dat", tmp);
        tu_table t;
        cr_assert_eq(tu_table_read(path, &t), 0);
        double v = TU_AT(&t, t.nrow - 1, 1), want = 0.5 * 10e-6 * v * v;
        tu_table_free(&t);
        lrow c1 = row_of(text, "c1");
        cr_assert(v > 4 && near(c1.e, want, 5e-4), "%s: E(c1) = %.9g J, C v^2/2 = %.9g J", st[k],
                  c1.e, want);
        cr_assert(balance_rel(text) <= 1e-9, "%s", text);
        free(text);
    }
}

/* An inductor cut by a switch: L1 = 1 mH carries 1 / (10 + RON) A until S1
 * opens at 1 ms into ROFF = 1 kOhm (tau = L / (R1 + ROFF) = 0.99 us). Closed
 * form over the run: L1's storage changes by 1/2 L (Iinf^2 - I0^2) =
 * -4.9985e-6 J and S1 dissipates RON I0^2 t_on + ROFF int i^2 = 5.544e-6 J.
 * The implicit-Euler step that follows the switch change (fixed steps) or the
 * event (every stepper) damps the inductor's current jump by 1/2 L di^2: it was
 * booked in L1's storage row (fixed 1 us steps: S1 4.32e-6 J, 22 % short; 10 us:
 * 1.53e-6 J; the adaptive stepper 4.91e-6 J), and it is the switch's: the
 * turn-off capture moves it there (hostile review, session 16). S1 within 1 %,
 * L1 within 1e-3, for fixed steps of 10 us and 1 us and both steppings. */
Test(losses, switch_cutting_an_inductor_dissipates_its_energy)
{
    const char *opt[] = { "--step 10u", "--step 1u", "", "" },
               *st[] = { "", "", "", ".options stepping=adaptive\n" };
    double i0 = 1 / (10 + 1e-3), iinf = 1 / (10 + 1e3), tau = 1e-3 / (10 + 1e3),
           toff = 1e-3 + 0.5e-9;
    double el = 0.5 * 1e-3 * (iinf * iinf - i0 * i0);
    double d = i0 - iinf, span = 1.5e-3 - toff; /* ROFF int (iinf + d e^(-s/tau))^2 ds */
    double es = 1e-3 * i0 * i0 * toff
                + 1e3
                      * (iinf * iinf * span + 2 * iinf * d * tau * (1 - exp(-span / tau))
                         + d * d * tau / 2 * (1 - exp(-2 * span / tau)));
    for (int k = 0; k < 4; k++) {
        char net[1024], path[1024], args[1200];
        snprintf(
            net, sizeof net,
            "lcut\nV1 in 0 1\nR1 in a 10\nL1 a b 1m\nS1 b 0 c 0 SWM\nVC c 0 PULSE(1 0 1m 1n 1n 10 20)\n"
            ".model SWM SW(VT=0.5 VH=0 RON=1m ROFF=1k)\n%s.tran 10u 1.5m\n.end\n",
            st[k]);
        snprintf(path, sizeof path, "%s/lcut%d.cir", tmp, k);
        cr_assert_eq(tu_write_file(path, net), 0);
        snprintf(args, sizeof args, "%s %s", opt[k], path);
        char name[16];
        snprintf(name, sizeof name, "lcut%d", k);
        char *text = losses_run(args, name);
        lrow s1 = row_of(text, "s1"), l1 = row_of(text, "l1");
        cr_assert(near(s1.e, es, 1e-2), "%d: E(s1) %.6g J, closed form %.6g J\n%s", k, s1.e, es,
                  text);
        cr_assert(near(l1.e, el, 1e-3), "%d: E(l1) %.6g J, closed form %.6g J\n%s", k, l1.e, el,
                  text);
        free(text);
    }
}
