/* test_models.c -- the include search path (-I, NSCIRCUIT_PATH, the search
 * path of nsc_netlist_read_in) and the libraries of models/. The netlist in
 * tests/data/include/netlist includes parts.lib, which lives in libs/ (sets
 * rtop = 3k, so V(out) = 10 V * 1k / 4k = 2.5 V) and in libs2/ (an error). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netlist/netlist.h"
#include "testutil.h"

#define INCDIR NSC_TOP_SRCDIR "/tests/data/include"
#define MAIN INCDIR "/netlist/main.cir"

static nsc_status read_with(const char *const *dirs, int n, nsc_report *r)
{
    nsc_search_path p = { dirs, n };
    nsc_circuit *c = NULL;
    nsc_report_init(r);
    nsc_status st = nsc_netlist_read_in(MAIN, &p, NULL, 0, &c, r);
    nsc_circuit_free(c);
    return st;
}

Test(models, search_path_in_order)
{
    nsc_report r;
    const char *first[] = { INCDIR "/nowhere", INCDIR "/libs", INCDIR "/libs2" };
    cr_assert_eq(read_with(first, 3, &r), NSC_OK, "%s", r.error);
    nsc_report_free(&r);
    const char *second[] = { INCDIR "/libs2", INCDIR "/libs" };
    cr_assert_eq(read_with(second, 2, &r), NSC_ENETLIST); /* libs2/parts.lib is read: its error */
    cr_assert(strstr(r.error, "libs2/parts.lib:3:1:"), "%s", r.error);
    nsc_report_free(&r);
}

Test(models, missing_include_names_every_directory)
{
    nsc_report r;
    const char *dirs[] = { "/no/such/a", "/no/such/b" };
    cr_assert_eq(read_with(dirs, 2, &r), NSC_ENETLIST);
    cr_assert(
        strstr(r.error,
               "main.cir:3:10: error: cannot open include file 'parts.lib': not found in " INCDIR
               "/netlist, /no/such/a, /no/such/b"),
        "%s", r.error);
    nsc_report_free(&r);
    nsc_circuit *c = NULL; /* no search path: as before, the file's directory */
    nsc_report_init(&r);
    cr_assert_eq(nsc_netlist_read(MAIN, NULL, 0, &c, &r), NSC_ENETLIST);
    cr_assert(strstr(r.error, "not found in " INCDIR "/netlist"), "%s", r.error);
    nsc_report_free(&r);
}

/* the CLI: the operating point V(out) = 2.5 V proves libs/parts.lib was read */
static void run_ok(const char *env, const char *opts)
{
    char cmd[2048], *out = NULL;
    snprintf(cmd, sizeof cmd, "cd /tmp && env -u NSCIRCUIT_PATH %s %s %s -o /dev/null %s 2>&1", env,
             NSC_PROGRAM, opts, MAIN);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s: %s", cmd, out);
    cr_assert(strstr(out, "v(out)               =  2.5000000000e+00"), "%s: %s", cmd, out);
    free(out);
}

Test(models, cli_I_and_NSCIRCUIT_PATH)
{
    run_ok("", "-I " INCDIR "/libs");
    run_ok("", "-I /no/such -I " INCDIR "/libs -I " INCDIR "/libs2");
    run_ok("NSCIRCUIT_PATH=:/no/such::" INCDIR "/libs:" INCDIR "/libs2", "");
    run_ok("NSCIRCUIT_PATH=" INCDIR "/libs2", "-I " INCDIR "/libs"); /* -I before the environment */
    char cmd[2048], *out = NULL;
    snprintf(
        cmd, sizeof cmd,
        "cd /tmp && env -u NSCIRCUIT_PATH NSCIRCUIT_PATH=/no/env %s -I /no/opt -o /dev/null %s 2>&1",
        NSC_PROGRAM, MAIN);
    cr_assert_eq(tu_run(cmd, &out), 1, "%s", out);
    cr_assert(strstr(out, "not found in " INCDIR "/netlist, /no/opt, /no/env"), "%s", out);
    free(out);
}

/* the libraries of models/ through -I: a value read from the first .op line naming it */
static double op_value(const char *out, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, "  %s ", name);
    const char *p = strstr(out, key);
    cr_assert(p, "no %s in\n%s", name, out);
    return strtod(strchr(p, '=') + 1, NULL);
}

Test(models, libraries_run)
{
    static const char net[] =
        "lib check\n.include ideal.lib\n.include diodes.lib\n.include mosfets.lib\n"
        "I1 0 a 10m\nD1 a 0 D1N4148\n"            /* Shockley: 1.75 Vt ln(10m/2.5n) + 0.57*10m */
        "VG g 0 10\nI4 0 d 1\nX1 d g 0 IRF540N\n" /* on: RD 33.6 m + channel */
        "I6 0 f 1\nX3 0 0 f IRF540N\n" /* body diode: SPICE IS=1.57n RS=44m, 3 segments */
        "V7 p 0 1\nX7 p 0 q COMPARATOR VOH=3.3\nD7 q r DIDEAL\nR7 r 0 1k\n"
        "V8 n 0 -1\nX8 n 0 u COMPARATOR\n"
        "V9 c 0 1\nS9 c s c 0 SWIDEAL\nR9 s 0 999\n" /* 1 mOhm in series with 999 Ohm */
        "I10 0 k 3\nD10 k 0 D1N5819\nI11 0 m 1\nD11 m 0 DMUR160\nI12 0 w 1\nD12 w 0 DMURS120\n"
        "I13 0 z 2\nD13 z 0 DC3D02060\nI14 0 y 1\nD14 y 0 D1N4007\n"
        "X20 0 g 0 IRFZ44N\nX21 0 g 0 IRF3205\nX22 0 g 0 BSC0902NS\nX23 0 g 0 SI2302\n.op\n.end\n";
    char *dir = tu_tmpdir(), path[512], cmd[2048], *out = NULL;
    snprintf(path, sizeof path, "%s/lib.cir", dir);
    cr_assert_eq(tu_write_file(path, net), 0);
    snprintf(cmd, sizeof cmd, "env -u NSCIRCUIT_PATH %s -I %s/models -o /dev/null %s 2>/dev/null",
             NSC_PROGRAM, NSC_TOP_SRCDIR, path);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    double vt = 1.380649e-23 * 300.15 / 1.602176634e-19;
    double shockley = 1.75 * vt * log(10e-3 / 2.5e-9 + 1) + 0.57 * 10e-3;
    cr_assert(fabs(op_value(out, "v(a)") - shockley) < 0.05, "1N4148 %g vs %g",
              op_value(out, "v(a)"), shockley);
    double body = vt * log1p(1 / 1.57e-9)
                  + 0.044; /* 0.568 V; the fit within 10.7 mV (3 lines, 10 mA..32 A) */
    cr_assert(fabs(op_value(out, "v(f)") - body) < 0.0108, "body diode %g vs %g",
              op_value(out, "v(f)"), body);
    /* RD + the square law's triode: 13.8 (7 v - v^2/2) = 1 A; 44.0 mV, the data sheet's RDS(on); the fit
     * anchored at VG's 7 V of overdrive (1.0179 V at 16 A before, 63.6 mV here) */
    double vch = 7 - sqrt(49 - 2 / 13.8), vd = op_value(out, "v(d)");
    cr_assert(fabs(vd - (0.0336 + vch)) < 0.005 * (0.0336 + vch),
              "IRF540N on %g V at 1 A, square law %g", vd, 0.0336 + vch);
    cr_assert(fabs(op_value(out, "v(q)") - 3.3) < 1e-9 && fabs(op_value(out, "v(u)")) < 1e-9);
    cr_assert(fabs(op_value(out, "v(r)") - 3.3) < 1e-9);
    cr_assert(fabs(op_value(out, "v(s)") - 999 / 999.001) < 1e-9, "switch %g",
              op_value(out, "v(s)"));
    free(out);
    tu_rmdir(dir);
    free(dir);
}

/* models/mosfets.lib's parts at their data sheets' RDS(on) point (X1) and at a
 * lower drive (X2) against ngspice 39 on the same netlist (tests/data/mosfets_on,
 * README.md): within 1 % (the goal: 3 %). Before the fit followed the gate drive:
 * IRF540N +44 %, IRFZ44N +124 %, IRF3205 +123 %, BSC0902NS +200 %, Si2302 +11 %. */
Test(models, mosfets_on_state_against_ngspice)
{
    static const char *const part[] = { "IRF540N", "IRFZ44N", "IRF3205", "BSC0902NS", "SI2302" };
    const char *dir = NSC_TOP_SRCDIR "/tests/data/mosfets_on";
    for (int k = 0; k < 5; k++) {
        char cmd[2048], path[512], *out = NULL, *ref = NULL;
        snprintf(cmd, sizeof cmd, "%s -o /dev/null %s/%s.cir 2>/dev/null", NSC_PROGRAM, dir,
                 part[k]);
        cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
        snprintf(path, sizeof path, "%s/%s_ng.txt", dir, part[k]);
        ref = tu_read_file(path);
        cr_assert(ref, "no %s", path);
        for (int n = 1; n <= 2; n++) {
            char name[8], key[16];
            snprintf(name, sizeof name, "v(d%d)", n);
            snprintf(key, sizeof key, "v(d%d) =", n);
            const char *r = strstr(ref, key);
            cr_assert(r, "no %s in %s", key, path);
            double ng = strtod(r + strlen(key), NULL), v = op_value(out, name);
            cr_log_info("%s %s: %.5g V, ngspice %.5g V (%+.2f %%)", part[k], name, v, ng,
                        100 * (v / ng - 1));
            cr_assert(fabs(v - ng) < 0.01 * ng, "%s %s: %g V, ngspice %g V", part[k], name, v, ng);
        }
        free(out);
        free(ref);
    }
}

/* models/diodes.lib's 1N4148 in a half-wave rectifier against ngspice-39 on the
 * same netlist (tests/data/models_1n4148/README.md): RMS difference of V(out)
 * 0.19 % of its range with the card's 4 segments on 100 uA..2 A (1.8 % with
 * the single line on 10 mA..1 A it had before). */
Test(models, d1n4148_against_ngspice)
{
    const char *dir = NSC_TOP_SRCDIR "/tests/data/models_1n4148";
    char *tmp = tu_tmpdir(), cmd[2048], *out = NULL, path[512];
    snprintf(cmd, sizeof cmd, "%s -o %s/hw.dat %s/halfwave.cir 2>&1", NSC_PROGRAM, tmp, dir);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    free(out);
    snprintf(path, sizeof path, "%s/hw.dat", tmp);
    tu_table t;
    cr_assert_eq(tu_table_read(path, &t), 0);
    int col = tu_table_col(&t, "v(out)");
    cr_assert(col > 0);
    snprintf(path, sizeof path, "%s/ngspice_vout.txt", dir);
    FILE *f = fopen(path, "r");
    cr_assert(f);
    double tt, v, se = 0, lo = 1e9, hi = -1e9;
    int n = 0;
    while (fscanf(f, "%lf %lf", &tt, &v) == 2) {
        double d = tu_interp(&t, col, tt) - v;
        se += d * d;
        lo = fmin(lo, v);
        hi = fmax(hi, v);
        n++;
    }
    fclose(f);
    cr_assert(n > 500 && hi - lo > 4, "%d rows, range %g", n, hi - lo);
    double rms = sqrt(se / n) / (hi - lo);
    cr_assert(rms < 0.005, "RMS %g of range", rms);
    cr_log_info("1N4148 half-wave vs ngspice: RMS %.4f of range\n", rms);
    tu_table_free(&t);
    tu_rmdir(tmp);
    free(tmp);
}

/* 1 when a warning of r holds text */
static int warned(const nsc_report *r, const char *text)
{
    for (int k = 0; k < r->nwarn; k++)
        if (strstr(r->warn[k], text)) return 1;
    return 0;
}

/* A lone '+' inside a .model card (a vendor library's stray continuation
 * mark) is ignored with a warning at it, as ngspice ignores it ("unrecognized
 * parameter (+)"): the parameters after it are read (KP = 100u here). A card
 * that still does not parse without it keeps its first message. A '+' inside
 * an expression is not touched (the card parses as written). */
Test(models, lone_plus_inside_a_model_card)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_circuit *c = NULL;
    cr_assert_eq(nsc_netlist_read_string("lp\nV1 a 0 5\nR1 a d 1k\nM1 d d 0 0 NM\n"
                                         ".model NM NMOS (LEVEL=1 VTO=1 + KP=100u)\n.op\n.end\n",
                                         "lp.cir", NULL, 0, &c, &r),
                 NSC_OK, "%s", r.error);
    cr_assert(warned(&r, "lp.cir:5:31: warning: a lone '+' inside a .model card is ignored"),
              "%d warnings", r.nwarn);
    const nsc_model *m = NULL;
    for (int k = 0; k < c->nmodel; k++)
        if (!strcmp(c->model[k].name, "nm")) m = &c->model[k];
    cr_assert(m);
    double kp = 0;
    cr_assert(nsc_model_get(m, "kp", &kp) && fabs(kp - 100e-6) < 1e-18, "kp %g", kp);
    nsc_circuit_free(c);
    nsc_report_free(&r);
    nsc_report_init(&r);
    c = NULL;
    cr_assert_eq(nsc_netlist_read_string("lp\nV1 a 0 5\nR1 a d 1k\nM1 d d 0 0 NM\n"
                                         ".model NM NMOS (LEVEL=1 VTO=1 + KP=)\n.op\n.end\n",
                                         "lp.cir", NULL, 0, &c, &r),
                 NSC_ENETLIST);
    cr_assert(strstr(r.error, "model 'nm' of MOS transistor m1 cannot be read: lp.cir:5:"), "%s",
              r.error);
    nsc_circuit_free(c);
    nsc_report_free(&r);
    nsc_report_init(&r);
    c = NULL;
    cr_assert_eq(
        nsc_netlist_read_string("lp\n.param v0=1\nV1 a 0 5\nR1 a d 1k\nM1 d d 0 0 NM\n"
                                ".model NM NMOS (LEVEL=1 VTO={v0 + 0.5} KP=100u)\n.op\n.end\n",
                                "lp.cir", NULL, 0, &c, &r),
        NSC_OK, "%s", r.error);
    cr_assert(!warned(&r, "lone"));
    nsc_circuit_free(c);
    nsc_report_free(&r);
}

/* The rows of ngspice's wrdata table (a header line, then rows of ncol numbers) at
 * path into t (names from its header): 0 ok. */
static int read_wrdata(const char *path, int ncol, tu_table *t)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    memset(t, 0, sizeof *t);
    t->ncol = ncol;
    int c;
    while ((c = fgetc(f)) != EOF && c != '\n') {}
    size_t cap = 0;
    double x;
    while (fscanf(f, "%lf", &x) == 1) {
        if ((size_t)t->nrow * (size_t)ncol + (size_t)(ncol) > cap)
            t->v = realloc(t->v, (cap = cap * 2 + 1024) * sizeof x);
        t->v[t->nrow * ncol + (c = 0)] = x;
        for (int k = 1; k < ncol; k++)
            if (fscanf(f, "%lf", &t->v[t->nrow * ncol + k]) != 1) return fclose(f), -1;
        t->nrow++;
    }
    fclose(f);
    return t->nrow ? 0 : -1;
}

/* XSPICE's aswitch (issue 28: eSim's SCR is one) as an ideal switch at the mean
 * of cntl_off and cntl_on (tests/data/aswitch/asw.cir: a single-ended control
 * with given levels, a %vd one with the defaults), under both steppings, against
 * ngspice 39 on the same cards (asw_ng.txt): the controls move between their
 * models' two levels, where ngspice's resistance is r_off and r_on, so away from
 * the 1 us edges every signal is within 0.1 % of its range (measured 0.04 %).
 * Failed before: "model 'sw1' of XSPICE element a1 has unsupported type". */
Test(models, xspice_aswitch_vs_ngspice)
{
    static const char *const sig[] = { "v(b)", "v(d)", "i(v1)" }, *const mode[] = { "exact",
                                                                                    "adaptive" };
    static const double edge[] = { 1e-3, 2e-3, 3e-3, 4e-3 };
    tu_table ng, t;
    cr_assert_eq(read_wrdata(NSC_REFDIR "/aswitch/asw_ng.txt", 4, &ng), 0);
    char *dir = tu_tmpdir(), path[512], cmd[2048], *out = NULL;
    snprintf(path, sizeof path, "%s/o.dat", dir);
    for (int s = 0; s < 2; s++) {
        snprintf(
            cmd, sizeof cmd,
            "cd %s && sed 's/^.tran/.options stepping=%s\\n.tran/' %s/aswitch/asw.cir > a.cir && "
            "%s -o %s a.cir 2>&1",
            dir, mode[s], NSC_REFDIR, NSC_PROGRAM, path);
        cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
        cr_assert(strstr(out, "aswitch 'sw1' switches ideally at 1,")
                      && strstr(out, "'sw2' switches ideally at 0.5,"),
                  "%s", out);
        free(out);
        cr_assert_eq(tu_table_read(path, &t), 0);
        for (int k = 0; k < 3; k++) {
            int c = tu_table_col(&t, sig[k]);
            double range = 0;
            cr_assert(c > 0, "%s", sig[k]);
            for (int i = 0; i < ng.nrow; i++) range = fmax(range, fabs(TU_AT(&ng, i, k + 1)));
            cr_assert(range > 4e-3, "%s %g", sig[k], range);
            for (int i = 0; i < ng.nrow; i++) {
                double x = TU_AT(&ng, i, 0), near = 1;
                for (int j = 0; j < 4; j++) near = fmin(near, fabs(x - edge[j]));
                if (near < 20e-6) continue; /* the edges: 1 us, rows 10 us apart */
                cr_assert(fabs(tu_interp(&t, c, x) - TU_AT(&ng, i, k + 1)) <= 1e-3 * range,
                          "%s %s at %g: %g, ngspice %g", mode[s], sig[k], x, tu_interp(&t, c, x),
                          TU_AT(&ng, i, k + 1));
            }
        }
        tu_table_free(&t);
    }
    free(ng.v);
    tu_rmdir(dir);
    free(dir);
}

/* XSPICE's zener (issue 28: eSim's 7805 and 7812 regulators hold two each) as
 * the diode of SPICE's BV IBV IS N from V_BREAKDOWN I_BREAKDOWN I_SAT N_FORWARD
 * (tests/data/zener/zen.cir: a 5.6 V clamp through 1k and a forward one through
 * 2k, `A a k` and `A (a k)`, swept 0..12 V) against ngspice 39 (zen_ng.txt): the
 * PWL fits' errors (forward within 10 mV on 100 uA..100 A, open below; the
 * breakdown one line on 10 mA..1 A) bound it: measured max 1.89 % of range on
 * v(a), 5.71 % on v(b) (at the smallest currents), 0.83 % on i(vin). Failed
 * before: "model 'z56' of XSPICE element a1 has unsupported type 'zener'". */
Test(models, xspice_zener_vs_ngspice)
{
    static const char *const sig[] = { "v(a)", "v(b)", "i(vin)" };
    static const double maxerr[] = { 0.025, 0.07, 0.012 }, rmserr[] = { 0.01, 0.02, 0.005 };
    tu_table ng, t;
    cr_assert_eq(read_wrdata(NSC_REFDIR "/zener/zen_ng.txt", 4, &ng), 0);
    cr_assert_eq(ng.nrow, 121);
    char *dir = tu_tmpdir(), path[512], cmd[2048], *out = NULL;
    snprintf(path, sizeof path, "%s/o.dat", dir);
    snprintf(cmd, sizeof cmd, "%s -o %s %s/zener/zen.cir 2>&1", NSC_PROGRAM, path, NSC_REFDIR);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "Zener VZ=5.608") && !strstr(out, "ignored"), "%s", out);
    free(out);
    cr_assert_eq(tu_table_read(path, &t), 0);
    cr_assert_eq(t.nrow, ng.nrow);
    for (int k = 0; k < 3; k++) {
        int c = tu_table_col(&t, sig[k]);
        double range = 0, mx = 0, ss = 0;
        cr_assert(c > 0, "%s", sig[k]);
        for (int i = 0; i < ng.nrow; i++) range = fmax(range, fabs(TU_AT(&ng, i, k + 1)));
        for (int i = 0; i < ng.nrow; i++) {
            cr_assert(fabs(TU_AT(&t, i, 0) - TU_AT(&ng, i, 0)) < 1e-9);
            double d = fabs(TU_AT(&t, i, c) - TU_AT(&ng, i, k + 1));
            mx = fmax(mx, d);
            ss += d * d;
        }
        cr_assert(mx <= maxerr[k] * range && sqrt(ss / ng.nrow) <= rmserr[k] * range,
                  "%s: max %g, rms %g of range %g", sig[k], mx / range, sqrt(ss / ng.nrow) / range,
                  range);
    }
    tu_table_free(&t);
    free(ng.v);
    tu_rmdir(dir);
    free(dir);
}

/* XSPICE flip-flops (dev_aff.c) against the count they must keep, an oracle of
 * their own: a synchronous 4-bit counter of d_jkff (J = K = the AND of the
 * lower bits, eSim's 4_bit_JK_ff) and a 3-bit ripple counter of d_tff (each
 * clocked by the last one's nout), under both steppings; a quarter period after
 * the n-th rising clock edge the outputs hold n mod 16 and n mod 8 exactly (0
 * or 1 V each). Refused before: "model 'jk' of XSPICE element a2 has
 * unsupported type 'd_jkff'". */
Test(models, xspice_counters_count_clock_edges)
{
    static const char *const mode[] = { "exact", "adaptive" };
    static const char *const q[] = {
        "v(q0)", "v(q1)", "v(q2)", "v(q3)", "v(r0)", "v(r1)", "v(r2)"
    };
    char *dir = tu_tmpdir(), path[512], cmd[4096], *out = NULL;
    snprintf(path, sizeof path, "%s/o.dat", dir);
    for (int s = 0; s < 2; s++) {
        snprintf(
            cmd, sizeof cmd,
            "cd %s && printf '%%s\\n' '* counters' 'v1 clk 0 pulse(0 5 0.5u 10n 10n 0.5u 1u)' "
            "'vh hi 0 5' 'a1 [clk hi] [c one] adc1' 'a2 one one c null null q0 q0b jk' "
            "'a3 q0 q0 c null null q1 q1b jk' 'a4 [q0 q1] a01 and2' 'a5 a01 a01 c null null q2 q2b jk' "
            "'a6 [a01 q2] a012 and2' 'a7 a012 a012 c null null q3 q3b jk' 'a8 one c null null r0 r0b tff' "
            "'a9 one r0b null null r1 r1b tff' 'a10 one r1b null null r2 r2b tff' "
            "'.model adc1 adc_bridge(in_low=1 in_high=2)' '.model jk d_jkff' '.model tff d_tff' "
            "'.model and2 d_and' '.options stepping=%s' '.tran 10n 20u' '.end' > c.cir && %s -o %s c.cir 2>&1",
            dir, mode[s], NSC_PROGRAM, path);
        cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
        free(out);
        tu_table t;
        cr_assert_eq(tu_table_read(path, &t), 0);
        int col[7];
        for (int k = 0; k < 7; k++) cr_assert((col[k] = tu_table_col(&t, q[k])) > 0, "%s", q[k]);
        for (int n = 0; n <= 19; n++) { /* edges at 0.5 + k us (the adc: 4 ns on) */
            double x = n ? 0.75e-6 + (n - 1) * 1e-6 : 0.25e-6;
            int sync = 0, ripple = 0;
            for (int k = 0; k < 7; k++) {
                double v = tu_interp(&t, col[k], x);
                cr_assert(fabs(v) < 1e-9 || fabs(v - 1) < 1e-9, "%s %s at %g: %g", mode[s], q[k], x,
                          v);
                if (k < 4) sync += (v > 0.5) << k;
                else ripple += (v > 0.5) << (k - 4);
            }
            cr_assert_eq(sync, n % 16, "%s at %g", mode[s], x);
            cr_assert_eq(ripple, n % 8, "%s at %g", mode[s], x);
        }
        tu_table_free(&t);
    }
    tu_rmdir(dir);
    free(dir);
}
