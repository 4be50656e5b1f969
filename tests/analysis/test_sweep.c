/* test_sweep.c -- parameter studies (sweep.h, nscircuit sweep): .step cards, the
 * plan and its shards, one point against the analytic RC response, the table
 * and --merge, the program (rows independent of -j, failed points, .step
 * netlists, per-point waveforms equal to plain runs), the buck inductor ripple
 * against (Vin - Vout) D / (L f), shards run by GNU parallel. */
#include <criterion/criterion.h>
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netlist/netlist.h"
#include "analysis/sweep.h"
#include "output/out_sweep.h"
#include "testutil.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

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

/* an RC low-pass driven by a 1 V step at t = 0: v(out) = 1 - exp(-t / (r c)) */
static const char RC[] = "RC step response\n"
                         ".param r=1k c=1u ts=10u hm=0\n"
                         "V1 in 0 PULSE(0 1 0 1n 1n 1 2)\n"
                         "R1 in out {r}\n"
                         "C1 out 0 {c}\n"
                         ".tran {ts} 5m 0 {hm}\n"
                         ".meas tran vend FIND v(out) AT=1m\n"
                         ".meas tran tau WHEN v(out)=0.6321205588\n"
                         ".options stepping=fixed\n"
                         ".end\n";

/* a new string: fmt with one string argument */
static char *fmt1(const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(fmt) + strlen(a) + strlen(b) + 64;
    char *s = malloc(n);
    cr_assert(s);
    snprintf(s, n, fmt, a, b);
    return s;
}

static char *write_rc(const char *name, const char *extra)
{
    char *path = fmt1("%s/%s", tmp, name);
    char text[2048];
    snprintf(text, sizeof text, "%.*s%s.end\n", (int)(sizeof RC - 6), RC, extra);
    cr_assert_eq(tu_write_file(path, text), 0);
    return path;
}

static int run(const char *fmt, const char *arg, char **out)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, fmt, arg);
    return tu_run(cmd, out);
}

static nsc_circuit *rd(const char *text, nsc_report *r)
{
    nsc_circuit *c = NULL;
    nsc_report_init(r);
    nsc_netlist_read_string(text, "t.cir", NULL, 0, &c, r);
    return c;
}

/* ---- units of the columns (the picture's labels) ---- */

Test(sweep, units_of_parameters_and_measures, .init = setup, .fini = teardown)
{
    static const char NL[] =
        "units\n"
        ".param rv=1k cv=1u lv=10u vin=5 per=10u f=1k both=2 unused=3 ron=10m\n"
        "V1 in 0 PULSE(0 {vin} 0 1n 1n 4u {per})\n"
        "V2 s 0 SIN(0 1 {f})\n"
        "R1 in a {rv}\n"
        "C1 a 0 {cv}\n"
        "L1 a b {lv}\n"
        "R2 b 0 {both}\n"
        "C2 b 0 {both*1u}\n"
        "S1 b c s 0 SW1\n"
        "R3 c 0 1\n"
        ".model SW1 SW(VT=0.5 RON={ron} ROFF=1e9)\n"
        ".tran 1u 100u\n"
        ".meas tran vavg AVG v(a) FROM=50u TO=100u\n"
        ".meas tran ipp PP i(l1)\n"
        ".meas tran pwr AVG par('v(a)*i(l1)')\n"
        ".meas tran r PARAM='vavg/ipp'\n"
        ".meas tran ratio PARAM='vavg/2/vavg'\n"
        ".meas tran tr WHEN v(a)=0.5\n"
        ".meas tran q INTEG i(l1)\n"
        ".meas tran dv AVG par('abs(v(a)-1)')\n"
        ".meas tran odd AVG par('v(a)+i(l1)')\n"
        ".meas tran lim AVG par('limit(v(a), 0, 1)')\n" /* the unit rules of base/xfn.h */
        ".meas tran st AVG par('u(v(a)-1)*sgn(i(l1))')\n"
        ".meas tran sel AVG par('if(v(a) > 1, i(l1), 0)')\n"
        ".meas tran bad AVG par('if(v(a) > 1, i(l1), v(a))')\n"
        ".end\n";
    char *path = fmt1("%s/%s", tmp, "u.cir");
    cr_assert_eq(tu_write_file(path, NL), 0);
    nsc_report r;
    nsc_report_init(&r);
    nsc_circuit *c = NULL;
    cr_assert_eq(nsc_netlist_read(path, NULL, 0, &c, &r), NSC_OK, "%s", r.error ? r.error : "");
    nsc_deck *deck = NULL;
    cr_assert_eq(nsc_deck_read(path, NULL, &deck, &r), NSC_OK);
    const char *par[][2] = { { "rv", "Ω" },  { "cv", "F" },   { "lv", "H" },  { "vin", "V" },
                             { "per", "s" }, { "f", "Hz" },   { "both", "" }, { "unused", "" },
                             { "ron", "Ω" }, { "nosuch", "" } };
    for (size_t k = 0; k < sizeof par / sizeof par[0]; k++)
        cr_assert_str_eq(nsc_param_unit(deck, NULL, 0, c, par[k][0]), par[k][1], "%s", par[k][0]);
    nsc_deck_free(deck);
    const char *meas[] = { "V", "A", "W", "Ω", "1", "s", "A·s", "V", "", "V", "1", "A", "" };
    cr_assert_eq(c->job.nmeas, 13);
    for (int k = 0; k < 13; k++)
        cr_assert_str_eq(nsc_meas_unit(c, k), meas[k], "%s", c->job.meas[k].name);
    nsc_circuit_free(c);
    nsc_report_free(&r);
    free(path);
}

/* The data a card's parser hands its device (nsc_element.priv: E TABLE's
 * points) are compared by the device (devif.h priv_unit): a parameter moving a
 * point is in V, one changing the number of points has no one unit. */
Test(sweep, units_of_a_devices_card_data, .init = setup, .fini = teardown)
{
    static const char NL[] = "units\n"
                             ".param th=0.5 y1=2 n=1\n"
                             "V1 a 0 1\n"
                             "E1 o 0 TABLE {V(a)} = (0 0) ({th} {y1}) (1 {y1})\n"
                             "R1 o 0 1k\n"
                             ".tran 1u 10u\n"
                             ".end\n";
    char *path = fmt1("%s/%s", tmp, "e.cir");
    cr_assert_eq(tu_write_file(path, NL), 0);
    nsc_report r;
    nsc_report_init(&r);
    nsc_circuit *c = NULL;
    cr_assert_eq(nsc_netlist_read(path, NULL, 0, &c, &r), NSC_OK, "%s", r.error ? r.error : "");
    nsc_deck *deck = NULL;
    cr_assert_eq(nsc_deck_read(path, NULL, &deck, &r), NSC_OK);
    cr_assert_str_eq(nsc_param_unit(deck, NULL, 0, c, "th"), "V");
    cr_assert_str_eq(nsc_param_unit(deck, NULL, 0, c, "y1"), "V");
    cr_assert_str_eq(nsc_param_unit(deck, NULL, 0, c, "n"), "");
    nsc_deck_free(deck);
    nsc_circuit_free(c);
    nsc_report_free(&r);
    free(path);
}

/* A merged table knows no netlist: the steady study's efficiency (in %) and
 * losses (W) keep their units, a parameter of unknown unit far from 1 is
 * scaled by 10^3k, a log axis ticks at the swept values. */
Test(sweep, merged_table_picture_units, .init = setup, .fini = teardown)
{
    char *par[] = { "lval" }, *meas[] = { "efficiency", "losses" };
    nsc_sweep_table T;
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(nsc_sweep_table_init(&T, par, 1, meas, 2, "b.cir", 3, 1, 1, &r), NSC_OK);
    double rows[3][3] = { { 5e-6, 0.95, 0.4 }, { 10e-6, 0.96, 0.3 }, { 20e-6, 0.97, 0.2 } };
    for (int i = 0; i < 3; i++) cr_assert_eq(nsc_sweep_table_add(&T, rows[i], 0, i, &r), NSC_OK);
    char *gp = fmt1("%s/%s", tmp, "m.sweep.gp"), *dat = fmt1("%s/%s", tmp, "m.sweep.dat"),
         *png = fmt1("%s/%s", tmp, "m.sweep.png");
    cr_assert_eq(nsc_sweep_write_gp(&T, NULL, dat, gp, png, &r), NSC_OK);
    char *s = tu_read_file(gp);
    cr_assert(s && strstr(s, "set ylabel 'efficiency (%)'")
                  && strstr(s, "using ($1*1e+06):($2*1e+02)"),
              "%s", s);
    cr_assert(strstr(s, "set ylabel 'losses (mW)'") && strstr(s, "set xlabel 'lval (×1e-6)'"), "%s",
              s);
    cr_assert(strstr(s, "set logscale x") && strstr(s, "set xtics ('5' 5, '10' 10, '20' 20)"), "%s",
              s);
    free(s);
    /* with units given: lval in µH */
    const char *unit[] = { "H", "1", "W" };
    cr_assert_eq(nsc_sweep_write_gp(&T, unit, dat, gp, png, &r), NSC_OK);
    s = tu_read_file(gp);
    cr_assert(s && strstr(s, "set xlabel 'lval (µH)'"), "%s", s);
    free(s);
    free(gp);
    free(dat);
    free(png);
    nsc_sweep_table_free(&T);
    nsc_report_free(&r);
}

/* ---- .step cards ---- */

Test(sweep, step_cards_values)
{
    nsc_report r;
    nsc_circuit *c = rd("steps\n.param a=1 b=1 c=1 d=1 k=2\nR1 1 0 {a+b+c+d}\n.tran 1 2\n"
                        ".step param a 1 2 0.25\n"
                        ".step dec param b 1 100 2\n"
                        ".step oct param C 1 8 1\n"
                        ".step param d list 3 {k*2} 1k\n"
                        ".step param e 5 1 -2\n",
                        &r);
    cr_assert(c, "%s", r.error);
    cr_assert_eq(c->job.nstep, 5);
    double a[] = { 1, 1.25, 1.5, 1.75, 2 }, b[] = { 1, sqrt(10), 10, sqrt(1000), 100 },
           cc[] = { 1, 2, 4, 8 }, d[] = { 3, 4, 1000 }, e[] = { 5, 3, 1 };
    const double *want[] = { a, b, cc, d, e };
    int n[] = { 5, 5, 4, 3, 3 };
    const char *name[] = { "a", "b", "c", "d", "e" };
    for (int k = 0; k < 5; k++) {
        cr_assert_str_eq(c->job.step[k].param, name[k]);
        cr_assert_eq(c->job.step[k].nval, n[k], "%s: %d values", name[k], c->job.step[k].nval);
        for (int j = 0; j < n[k]; j++)
            cr_assert_float_eq(c->job.step[k].val[j], want[k][j], 1e-12 * fabs(want[k][j]),
                               "%s[%d]", name[k], j);
        cr_assert_eq(c->job.step[k].loc.line, 5 + k);
    }
    /* the top-level parameters, in order */
    cr_assert_eq(c->job.nparam, 5);
    cr_assert_str_eq(c->job.param[4], "k");
    cr_assert_eq(c->job.param_val[4], 2);
    /* e is not a .param: the plan says so at its card */
    nsc_plan p;
    nsc_plan_init(&p);
    cr_assert_eq(nsc_plan_steps(&p, c, &r), NSC_ENETLIST);
    cr_assert_str_eq(r.error,
                     "t.cir:9:1: error: .step param e: no .param named e (add .param e=...)");
    cr_assert_eq(p.npoint, 5 * 5 * 4 * 3);
    nsc_plan_free(&p);
    nsc_circuit_free(c);
    nsc_report_free(&r);
}

Test(sweep, step_card_errors)
{
    static const struct {
        const char *card, *msg;
    } bad[] = {
        { ".step param r 1 2 0",
          "t.cir:4:19: error: increment 0 of .step does not lead from 1 to 2" },
        { ".step param r 1 2 -1",
          "t.cir:4:19: error: increment -1 of .step does not lead from 1 to 2" },
        { ".step r 1 2 1",
          "t.cir:4:7: error: only '.step [lin|dec|oct] param NAME ...' is supported" },
        { ".step param r 1 2", "t.cir:4:1: error: .step param r needs start, stop and increment" },
        { ".step param r list", "t.cir:4:1: error: .step param r list needs values" },
        { ".step dec param r 0 10 3", "t.cir:4:19: error: .step dec needs 0 < start <= stop" },
        { ".step oct param r 1 10 0.5",
          "t.cir:4:24: error: points per interval must be a positive integer" },
        { ".step param r 1 2 1\n.step param R list 1",
          "t.cir:5:13: error: second .step for parameter 'r' (first at line 4)" },
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char text[256];
        snprintf(text, sizeof text, "t\n.param r=1\nR1 1 0 {r}\n%s\n.tran 1 2\n", bad[k].card);
        nsc_report r;
        nsc_circuit *c = rd(text, &r);
        cr_assert_null(c, "%s", bad[k].card);
        cr_assert_str_eq(r.error, bad[k].msg);
        nsc_report_free(&r);
    }
}

/* ---- the plan ---- */

Test(sweep, plan_cartesian_product_axis0_fastest)
{
    nsc_plan p;
    nsc_plan_init(&p);
    nsc_report r;
    nsc_report_init(&r);
    double a[] = { 1, 2, 3 }, b[] = { 10, 20 }, b2[] = { 7, 8, 9, 10 };
    cr_assert_eq(nsc_plan_set(&p, "a", a, 3, 0, &r), NSC_OK);
    cr_assert_eq(nsc_plan_set(&p, "B", b, 2, 0, &r), NSC_OK);
    cr_assert_eq(p.npoint, 6);
    double v[2];
    nsc_plan_point(&p, 4, v); /* 4 = 1 + 3 * 1 */
    cr_assert_eq(v[0], 2);
    cr_assert_eq(v[1], 20);
    cr_assert_str_eq(p.axis[1].name, "b");
    cr_assert_eq(nsc_plan_set(&p, "b", b2, 4, 0, &r), NSC_OK); /* replaces, keeps its place */
    cr_assert_eq(p.naxis, 2);
    cr_assert_eq(p.npoint, 12);
    nsc_plan_point(&p, 11, v);
    cr_assert_eq(v[0], 3);
    cr_assert_eq(v[1], 10);
    double big[1] = { 0 };
    nsc_plan_free(&p);
    for (int k = 0; k < 3; k++) { /* 2000^3 > 1e9 points */
        double *many = calloc(2000, sizeof *many);
        char nm[2] = { (char)('x' + k), 0 };
        nsc_status s = nsc_plan_set(&p, nm, many, 2000, 0, &r);
        free(many);
        cr_assert_eq(s, k < 2 ? NSC_OK : NSC_EUSAGE);
    }
    cr_assert_str_eq(r.error, "nscircuit: error: 8e+09 points in the study (at most 1000000000)");
    (void)big;
    nsc_plan_free(&p);
    nsc_report_free(&r);
}

Test(sweep, param_specs)
{
    nsc_report r;
    nsc_report_init(&r);
    char *name;
    double *v;
    int n;
    cr_assert_eq(nsc_param_spec("Lval=5u:20u:4", 0, &name, &v, &n, &r), NSC_OK);
    cr_assert_str_eq(name, "lval");
    cr_assert_eq(n, 4);
    double lin[] = { 5e-6, 10e-6, 15e-6, 20e-6 };
    for (int k = 0; k < 4; k++) cr_assert_float_eq(v[k], lin[k], 1e-18);
    double stop;
    cr_assert(nsc_parse_number("20u", &stop));
    cr_assert_eq(v[3], stop); /* the end point exactly */
    free(name);
    free(v);
    cr_assert_eq(nsc_param_spec("r=1:1k:4", 1, &name, &v, &n, &r), NSC_OK);
    double geo[] = { 1, 10, 100, 1000 };
    for (int k = 0; k < 4; k++) cr_assert_float_eq(v[k], geo[k], 1e-12 * geo[k]);
    free(name);
    free(v);
    cr_assert_eq(nsc_param_spec("r=3,1k,2meg", 0, &name, &v, &n, &r), NSC_OK);
    cr_assert_eq(n, 3);
    cr_assert_eq(v[2], 2e6);
    free(name);
    free(v);
    cr_assert_eq(nsc_param_spec("r=7", 0, &name, &v, &n, &r), NSC_OK);
    cr_assert_eq(n, 1);
    cr_assert_eq(v[0], 7);
    free(name);
    free(v);
    const char *bad[] = { "r",      "=1:2:3", "r=1:2",  "r=1:2:0",  "r=1:2:2.5",
                          "r=1,,2", "r=x",    "r(1)=1", "r=1:2:3:4" };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        nsc_report q;
        nsc_report_init(&q);
        cr_assert_eq(nsc_param_spec(bad[k], 0, &name, &v, &n, &q), NSC_EUSAGE, "%s", bad[k]);
        cr_assert(strstr(q.error, bad[k]), "%s", q.error);
        nsc_report_free(&q);
    }
    cr_assert_eq(nsc_param_spec("r=-1:1:3", 1, &name, &v, &n, &r), NSC_EUSAGE);
    nsc_report_free(&r);
}

Test(sweep, shards_partition_the_points)
{
    int k, n;
    cr_assert(nsc_shard_parse("3/7", &k, &n));
    cr_assert_eq(k, 3);
    cr_assert_eq(n, 7);
    const char *bad[] = { "0/3", "4/3", "1/0", "1", "a/3", "1/3x", "-1/3", "" };
    for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++)
        cr_assert_not(nsc_shard_parse(bad[j], &k, &n), "%s", bad[j]);
    for (n = 1; n <= 5; n++)
        for (long i = 0; i < 40; i++) {
            int owners = 0;
            for (k = 1; k <= n; k++) owners += nsc_shard_has(i, k, n);
            cr_assert_eq(owners, 1);
            cr_assert(nsc_shard_has(i, (int)(i % n) + 1, n));
        }
}

/* ---- one point ---- */

Test(sweep, point_matches_the_analytic_rc_response, .init = setup, .fini = teardown)
{
    char *path = write_rc("rc.cir", "");
    nsc_param_set ov[] = { { "r", 2000 }, { "c", 0.5e-6 }, { "c", 2e-6 } }; /* the last c wins */
    nsc_run_cfg cfg = { 0 };
    double m[3];
    nsc_point_info info;
    nsc_report r;
    nsc_report_init(&r);
    nsc_deck *deck = NULL;
    cr_assert_eq(nsc_deck_read(path, NULL, &deck, &r), NSC_OK);
    cr_assert_eq(unlink(path), 0); /* points elaborate the deck, not the file */
    cr_assert_eq(nsc_point_run(deck, ov, 3, &cfg, 2, m, NULL, 1, NULL, NULL, &info, &r), NSC_OK,
                 "%s", r.error);
    double tau = 2000 * 2e-6;
    cr_assert_float_eq(m[0], 1 - exp(-1e-3 / tau), 1e-6); /* trapezoidal, h = tau / 400 */
    cr_assert_float_eq(m[1], tau, 1e-5 * tau);
    cr_assert_eq(info.st.steps, 501, "%ld", info.st.steps); /* 500 and the 1 ns rise of the step */
    cr_assert_gt(info.t_setup, 0);
    nsc_report_free(&r);
    /* a measure that fails is nan with a warning; the run is still ok */
    nsc_report_init(&r);
    ov[0].value = 1e4; /* tau = 20 ms > 5 ms */
    cr_assert_eq(nsc_point_run(deck, ov, 3, &cfg, 2, m, NULL, 0, NULL, NULL, &info, &r), NSC_OK);
    cr_assert(isnan(m[1]));
    cr_assert_float_eq(m[0], 1 - exp(-1e-3 / 20e-3), 1e-6);
    cr_assert_eq(r.nwarn, 1);
    cr_assert(strstr(r.warn[0], "rc.cir:8:1: warning: .meas tau failed"), "%s", r.warn[0]);
    nsc_report_free(&r);
    /* a netlist error at the point's values */
    nsc_report_init(&r);
    nsc_param_set bad[] = { { "ts", -1 } };
    cr_assert_eq(nsc_point_run(deck, bad, 1, &cfg, 2, m, NULL, 0, NULL, NULL, &info, &r),
                 NSC_ENETLIST);
    cr_assert(strstr(r.error, "tstep of .tran must be positive"), "%s", r.error);
    cr_assert(isnan(m[0]) && isnan(m[1]));
    nsc_report_free(&r);
    /* the study's measures must be the netlist's */
    nsc_report_init(&r);
    cr_assert_eq(nsc_point_run(deck, NULL, 0, &cfg, 3, m, NULL, 0, NULL, NULL, &info, &r),
                 NSC_ENETLIST);
    nsc_report_free(&r);
    nsc_deck_free(deck);
    free(path);
}

/* ---- the table ---- */

static void table(nsc_sweep_table *T, long npoint, int k, int n)
{
    char *par[] = { "r", "c" }, *meas[] = { "vend" };
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(nsc_sweep_table_init(T, par, 2, meas, 1, "dir/rc.cir", npoint, k, n, &r), NSC_OK);
    for (long i = 0; i < npoint; i++)
        if (nsc_shard_has(i, k, n)) {
            double v[3] = { (double)i, -0.0, i == 2 ? NAN : 1.0 / (double)(i + 1) };
            cr_assert_eq(nsc_sweep_table_add(T, v, i == 2 ? 3 : 0, i, &r), NSC_OK);
        }
    nsc_report_free(&r);
}

/* A table of 7 points (one failed: status 3, its measure NaN) written as text
 * and CSV, and read back. */
Test(sweep, table_round_trip, .init = setup, .fini = teardown)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_sweep_table whole, back;
    table(&whole, 7, 1, 1);
    char path[1024], wp[1024];
    snprintf(wp, sizeof wp, "%s/whole.sweep.dat", tmp);
    cr_assert_eq(nsc_sweep_write(&whole, wp, 0, &r), NSC_OK);
    char *text = tu_read_file(wp);
    cr_assert_str_eq(text, "# r c vend status point\n"
                           "# nscircuit sweep: points=7 parameters=2 measures=1 netlist=rc.cir\n"
                           "0.000000000000e+00 0.000000000000e+00 1.000000000000e+00 0 0\n"
                           "1.000000000000e+00 0.000000000000e+00 5.000000000000e-01 0 1\n"
                           "2.000000000000e+00 0.000000000000e+00 nan 3 2\n"
                           "3.000000000000e+00 0.000000000000e+00 2.500000000000e-01 0 3\n"
                           "4.000000000000e+00 0.000000000000e+00 2.000000000000e-01 0 4\n"
                           "5.000000000000e+00 0.000000000000e+00 1.666666666667e-01 0 5\n"
                           "6.000000000000e+00 0.000000000000e+00 1.428571428571e-01 0 6\n");
    free(text);
    cr_assert_eq(nsc_sweep_read(wp, &back, &r), NSC_OK, "%s", r.error);
    cr_assert_eq(back.nrow, 7);
    cr_assert_eq(back.npar, 2);
    cr_assert_eq(back.nmeas, 1);
    cr_assert_str_eq(back.netlist, "rc.cir");
    cr_assert(isnan(back.v[2 * 3 + 2]));
    cr_assert_eq(back.status[2], 3);
    cr_assert_eq(back.v[6 * 3 + 2], 1.428571428571e-01);
    nsc_sweep_table_free(&back);
    /* CSV */
    snprintf(path, sizeof path, "%s/whole.sweep.csv", tmp);
    cr_assert_eq(nsc_sweep_write(&whole, path, 1, &r), NSC_OK);
    text = tu_read_file(path);
    const char *csv =
        "r,c,vend,status,point\n0.000000000000e+00,0.000000000000e+00,1.000000000000e+00,0,0\n";
    cr_assert(!strncmp(text, csv, strlen(csv)), "%s", text);
    free(text);
    nsc_sweep_table_free(&whole);
    nsc_report_free(&r);
}

/* Three shards of that table, written and read back (out of order), merge into
 * the whole table; a missing shard, a shard twice, another study's and a table
 * that is not a sweep's are refused. */
Test(sweep, table_shards_merge, .init = setup, .fini = teardown)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_sweep_table whole, part[3], back, merged;
    table(&whole, 7, 1, 1);
    char path[1024], wp[1024];
    snprintf(wp, sizeof wp, "%s/whole.sweep.dat", tmp);
    cr_assert_eq(nsc_sweep_write(&whole, wp, 0, &r), NSC_OK);
    char *paths[3];
    for (int k = 0; k < 3; k++) {
        nsc_sweep_table t;
        table(&t, 7, 3 - k, 3);
        char nm[32];
        snprintf(nm, sizeof nm, "s%d.sweep.dat", 3 - k);
        paths[k] = fmt1("%s/%s", tmp, nm);
        cr_assert_eq(nsc_sweep_write(&t, paths[k], 0, &r), NSC_OK);
        nsc_sweep_table_free(&t);
        cr_assert_eq(nsc_sweep_read(paths[k], &part[k], &r), NSC_OK, "%s", r.error);
        cr_assert_eq(part[k].shard_k, 3 - k);
        cr_assert_eq(part[k].shard_n, 3);
    }
    cr_assert_eq(nsc_sweep_merge(part, paths, 3, &merged, &r), NSC_OK, "%s", r.error);
    snprintf(path, sizeof path, "%s/merged.sweep.dat", tmp);
    cr_assert_eq(nsc_sweep_write(&merged, path, 0, &r), NSC_OK);
    char *a = tu_read_file(wp), *b = tu_read_file(path);
    cr_assert_str_eq(b, a);
    free(a);
    free(b);
    nsc_sweep_table_free(&merged);
    nsc_report_free(&r);

    /* a missing shard, a shard twice, another study */
    nsc_report_init(&r);
    cr_assert_eq(nsc_sweep_merge(part, paths, 2, &merged, &r), NSC_EUSAGE);
    cr_assert_str_eq(r.error, "nscircuit: error: 3 of the 7 points are in none of the tables; "
                              "a shard is missing or incomplete");
    nsc_report_free(&r);
    nsc_report_init(&r);
    nsc_sweep_table twice[4] = { part[0], part[1], part[2], part[1] };
    char *tp[4] = { paths[0], paths[1], paths[2], paths[1] };
    cr_assert_eq(nsc_sweep_merge(twice, tp, 4, &merged, &r), NSC_EUSAGE);
    cr_assert(strstr(r.error, "point 1 is in"), "%s", r.error);
    nsc_report_free(&r);
    nsc_report_init(&r);
    nsc_sweep_table other;
    table(&other, 8, 1, 1);
    nsc_sweep_table mix[2] = { part[0], other };
    cr_assert_eq(nsc_sweep_merge(mix, paths, 2, &merged, &r), NSC_EUSAGE);
    cr_assert(strstr(r.error, "is not a shard of the study"), "%s", r.error);
    nsc_sweep_table_free(&other);
    nsc_report_free(&r);
    /* not a sweep table */
    nsc_report_init(&r);
    snprintf(path, sizeof path, "%s/x.dat", tmp);
    tu_write_file(path, "# time v(a)\n0 1\n");
    cr_assert_eq(nsc_sweep_read(path, &back, &r), NSC_EUSAGE);
    cr_assert(strstr(r.error, "x.dat:1: not a table of nscircuit sweep"), "%s", r.error);
    nsc_report_free(&r);
    for (int k = 0; k < 3; k++) {
        nsc_sweep_table_free(&part[k]);
        free(paths[k]);
    }
    nsc_sweep_table_free(&whole);
}

/* ---- the program ---- */

static char *file(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    return tu_read_file(path);
}

Test(sweep, program_rows_do_not_depend_on_jobs, .init = setup, .fini = teardown)
{
    char *nl = write_rc("rc.cir", "");
    char cmd[2048], *out = NULL;
    snprintf(
        cmd, sizeof cmd,
        "cd %s && %s sweep rc.cir --param r=500:2k:4 --param c=1u,2u -j 1 -o j1 --no-plot 2>&1",
        tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    free(out);
    snprintf(
        cmd, sizeof cmd,
        "cd %s && %s sweep rc.cir --param r=500:2k:4 --param c=1u,2u -j 5 -o j5 --quiet --csv 2>&1",
        tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert_str_eq(out, "");
    free(out);
    char *a = file("j1.sweep.dat"), *b = file("j5.sweep.dat");
    cr_assert(a && b);
    cr_assert_str_eq(a, b);
    free(a);
    free(b);
    char path[1024];
    snprintf(path, sizeof path, "%s/j5.sweep.dat", tmp);
    tu_table t;
    cr_assert_eq(tu_table_read(path, &t), 0);
    cr_assert_eq(t.nrow, 8);
    cr_assert_eq(t.ncol, 6);
    int cv = tu_table_col(&t, "vend"), ct = tu_table_col(&t, "tau"), cp = tu_table_col(&t, "point");
    for (int i = 0; i < 8; i++) {
        double r = 500 + 500 * (i % 4), c = i < 4 ? 1e-6 : 2e-6;
        cr_assert_eq(TU_AT(&t, i, 0), r);
        cr_assert_eq(TU_AT(&t, i, 1), c);
        cr_assert_eq(TU_AT(&t, i, cp), i);
        cr_assert_float_eq(TU_AT(&t, i, cv), 1 - exp(-1e-3 / (r * c)), 1e-5);
        cr_assert_float_eq(TU_AT(&t, i, ct), r * c, 1e-4 * r * c);
    }
    tu_table_free(&t);
    a = file("j5.sweep.csv");
    cr_assert(a && !strncmp(a, "r,c,vend,tau,status,point\n", 26));
    free(a);
    a = file("j1.sweep.gp");
    cr_assert(a && strstr(a, "every ::0::3 using ($1*1e-03):($3*1e+03)")
                  && strstr(a, "every ::4::7 using ($1*1e-03):($4*1e+03)") && strstr(a, "'c=2 uF'"),
              "%s", a);
    /* units: r sets a resistor (kΩ), vend is a voltage (mV), tau a time (ms) */
    cr_assert(strstr(a, "set xlabel 'r (kΩ)'") && strstr(a, "set ylabel 'vend (mV)'")
                  && strstr(a, "set ylabel 'tau (ms)'"),
              "%s", a);
    free(a);
    free(nl);
}

Test(sweep, program_failed_points_and_exit_status, .init = setup, .fini = teardown)
{
    char *nl = write_rc("rc.cir", "");
    char cmd[2048], *out = NULL;
    /* ts = -1 is a netlist error at points 1 and 3 only */
    snprintf(cmd, sizeof cmd,
             "cd %s && %s sweep rc.cir --param ts=10u,-1 --param r=1k,2k -j 2 --no-plot 2>&1", tmp,
             NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 3, "%s", out);
    cr_assert(
        strstr(
            out,
            "point 1 (ts=-1, r=1000) failed: rc.cir:6:7: error: tstep of .tran must be positive"),
        "%s", out);
    cr_assert(strstr(out, "4 points, 2 failed"), "%s", out);
    free(out);
    char path[1024];
    snprintf(path, sizeof path, "%s/rc.sweep.dat", tmp);
    tu_table t;
    cr_assert_eq(tu_table_read(path, &t), 0);
    cr_assert_eq(t.nrow, 4);
    int cs = tu_table_col(&t, "status");
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(TU_AT(&t, i, cs), i % 2 ? 1 : 0);
        cr_assert_eq(isnan(TU_AT(&t, i, 2)), i % 2);
    }
    tu_table_free(&t);
    /* errors before any point: exit 1 (netlist), 2 (usage) */
    const struct {
        const char *args;
        int status;
        const char *msg;
    } bad[] = {
        { "rc.cir --param q=1:2:3", 1, "--param q=1:2:3: no .param named q" },
        { "rc.cir", 2, "nothing to sweep" },
        { "rc.cir --param r=1:2", 2, "--param needs NAME=START:STOP:N" },
        { "rc.cir --param r=1:2:3 --shard 3/2", 2, "--shard needs K/N" },
        { "rc.cir --param r=1:2:3 -j 0", 2, "-j needs a number" },
        { "--merge", 2, "--merge needs the tables" },
        { "", 2, "no netlist given" },
        { "nosuch.cir --param r=1:2:3", 1, "cannot read 'nosuch.cir'" },
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        snprintf(cmd, sizeof cmd, "cd %s && %s sweep %s 2>&1", tmp, NSC_PROGRAM, bad[k].args);
        cr_assert_eq(tu_run(cmd, &out), bad[k].status, "%s: %s", bad[k].args, out);
        cr_assert(strstr(out, bad[k].msg), "%s: %s", bad[k].args, out);
        free(out);
    }
    cr_assert_eq(run("%s sweep --help", NSC_PROGRAM, &out), 0);
    cr_assert(strstr(out, "--shard K/N"));
    free(out);
    free(nl);
}

/* A point whose process dies (here killed by the CPU-time limit: SIGXCPU, then
 * SIGKILL) marks its own row; the others run. The limit is inherited by the
 * points; the parent itself only waits. */
Test(sweep, program_killed_point_marks_its_row, .init = setup, .fini = teardown)
{
    char *nl = write_rc("rc.cir", ""), cmd[2048], *out = NULL;
    /* point 0: h = 5 ps, 1e9 steps (output rows stay every 10 us): far beyond 2 s of CPU */
    snprintf(cmd, sizeof cmd,
             "cd %s && { ulimit -t 2; %s sweep rc.cir --param hm=5p,0 -j 1 --no-plot >log 2>&1; "
             "echo \"exit $?\"; cat log; }",
             tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "exit 3\n"), "%s", out);
    cr_assert(strstr(out, "point 0 (hm=5e-12) failed: the point's process was killed by signal"),
              "%s", out);
    free(out);
    char *t = file("rc.sweep.dat");
    cr_assert(t && strstr(t, "5.000000000000e-12 nan nan 3 0\n") && strstr(t, " 0 1\n"), "%s", t);
    free(t);
    free(nl);
}

Test(sweep, step_netlist_runs_as_a_sweep_and_keeps_waves, .init = setup, .fini = teardown)
{
    char *nl = write_rc("rcs.cir", ".step param r list 1k 2k\n"), *plain = write_rc("rc.cir", "");
    char cmd[2048], *out = NULL;
    /* the plain command runs the .step study; -o names the prefix */
    snprintf(cmd, sizeof cmd, "cd %s && %s -o st.dat rcs.cir 2>&1", tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    free(out);
    char *a = file("st.sweep.dat");
    const char *head =
        "# r vend tau status point\n# nscircuit sweep: points=2 parameters=1 measures=2 study=";
    cr_assert(a && !strncmp(a, head, strlen(head)), "%s", a);
    cr_assert(strstr(a, " netlist=rcs.cir\n1.000000000000e+03 6.32"), "%s", a);
    free(a);
    /* --keep-waves: each point's waveforms are those of a plain run at its values */
    snprintf(
        cmd, sizeof cmd,
        "cd %s && %s sweep rcs.cir --param c=1u,3u --keep-waves --no-plot --save 'v(out)' 2>&1 && "
        "%s --quiet --param r=2k --param c=3u --save 'v(out)' -o plain.dat rc.cir 2>&1",
        tmp, NSC_PROGRAM, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    free(out);
    a = file("rcs.waves/p0003.dat");
    char *b = file("plain.dat");
    cr_assert(a && b);
    cr_assert_str_eq(a, b);
    free(a);
    free(b);
    a = file("rcs.waves/p0000.dat");
    cr_assert(a && !strncmp(a, "# time v(out)\n", 14));
    free(a);
    free(nl);
    free(plain);
}

/* The buck converter of netlists/buck_sweep.cir (the PWM loop of buck.cir,
 * regulated at 1.8 V from 3 V after the 100 us reference ramp) at L = 5, 10,
 * 20 uH: the inductor ripple over the last 10 us falls as L grows and is
 * (Vin - Vout) D / (L f), D = Vout / Vin, f = 600 kHz, within 15 %. The step is
 * 1 ns instead of the netlist's 50 ps (a switching period is 1667 steps): the
 * ripple then differs from the 50 ps run by 0.1 % (1.0 % from the formula, which
 * ignores the switches' resistance), and the three points take 0.5 s. */
Test(sweep, buck_inductor_ripple_against_the_analytic_one, .init = setup, .fini = teardown)
{
    char cmd[2048], *out = NULL;
    snprintf(cmd, sizeof cmd, "cd %s && %s sweep %s/buck_sweep.cir --step 1n -j 2 --no-plot 2>&1",
             tmp, NSC_PROGRAM, NSC_NETLISTS);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    free(out);
    char path[1024];
    snprintf(path, sizeof path, "%s/buck_sweep.sweep.dat", tmp);
    tu_table t;
    cr_assert_eq(tu_table_read(path, &t), 0);
    cr_assert_eq(t.nrow, 3);
    int cl = tu_table_col(&t, "lval"), cr = tu_table_col(&t, "ripple"),
        cv = tu_table_col(&t, "vout"), ce = tu_table_col(&t, "eff");
    cr_assert(cl >= 0 && cr >= 0 && cv >= 0 && ce >= 0);
    double vin = 3, f = 600e3, L[] = { 5e-6, 10e-6, 20e-6 };
    for (int i = 0; i < 3; i++) {
        double vout = TU_AT(&t, i, cv), D = vout / vin, di = (vin - vout) * D / (L[i] * f);
        cr_assert_float_eq(TU_AT(&t, i, cl), L[i], 1e-18);
        cr_assert_float_eq(vout, 1.8, 0.01, "regulated: %g", vout);
        cr_assert_float_eq(TU_AT(&t, i, cr), di, 0.15 * di, "L = %g: ripple %g, analytic %g", L[i],
                           TU_AT(&t, i, cr), di);
        if (i) cr_assert_lt(TU_AT(&t, i, cr), TU_AT(&t, i - 1, cr));
        cr_assert(TU_AT(&t, i, ce) > 0.9 && TU_AT(&t, i, ce) < 1, "efficiency %g",
                  TU_AT(&t, i, ce));
    }
    tu_table_free(&t);
    /* the picture's units: lval sets L1 (H), ripple = PP i(l1) (A), vout = AVG v(out) (V),
     * pin = AVG -v*i (W), eff = pout/pin (a ratio, in %) */
    char *gp = file("buck_sweep.sweep.gp");
    cr_assert(gp && strstr(gp, "set xlabel 'lval (µH)'") && strstr(gp, "using ($1*1e+06):"), "%s",
              gp);
    cr_assert(strstr(gp, "set ylabel 'ripple (mA)'") && strstr(gp, "set ylabel 'vout (V)'")
                  && strstr(gp, "set ylabel 'pin (mW)'") && strstr(gp, "set ylabel 'eff (%)'"),
              "%s", gp);
    free(gp);
}

/* Shards run as separate commands (a shell loop, and GNU parallel standing in
 * for a cluster) merge into the table of the unsharded study, byte for byte. */
Test(sweep, shards_merge_to_the_unsharded_table, .init = setup, .fini = teardown)
{
    char *nl = write_rc("rc.cir", "");
    char cmd[4096], *out = NULL;
    const char *study = "rc.cir --param r=500:2k:4 --param c=1u:3u:3 --no-plot --quiet";
    snprintf(
        cmd, sizeof cmd,
        "cd %s && %s sweep %s -j 2 -o whole 2>/dev/null && "
        "for k in 1 2 3 4 5; do %s sweep %s -j 1 --shard $k/5 2>/dev/null || exit 1; done && "
        "%s sweep --merge --no-plot rc.shard5of5.sweep.dat rc.shard2of5.sweep.dat rc.shard1of5.sweep.dat "
        "rc.shard4of5.sweep.dat rc.shard3of5.sweep.dat 2>&1",
        tmp, NSC_PROGRAM, study, NSC_PROGRAM, study, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "merged 5 tables: 12 points of rc.cir, 0 failed"), "%s", out);
    free(out);
    char *a = file("whole.sweep.dat"), *b = file("rc.sweep.dat"),
         *s3 = file("rc.shard3of5.sweep.dat");
    cr_assert(a && b && s3);
    cr_assert_str_eq(b, a);
    cr_assert(strstr(s3, "shard=3/5 study=") && strstr(s3, " netlist=rc.cir\n"), "%s", s3);
    free(b);
    free(s3);
    /* a missing shard is an error */
    snprintf(cmd, sizeof cmd,
             "cd %s && %s sweep --merge -o bad rc.shard1of5.sweep.dat rc.shard2of5.sweep.dat 2>&1",
             tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 2, "%s", out);
    cr_assert(strstr(out, "points are in none of the tables"), "%s", out);
    free(out);
    if (tu_run("parallel --version >/dev/null 2>&1", NULL) != 0) {
        free(a);
        free(nl);
        cr_skip_test("GNU parallel is not installed (apt-get install parallel)");
    }
    snprintf(
        cmd, sizeof cmd,
        "cd %s && mkdir gp && cd gp && parallel --will-cite %s sweep ../%s --shard {}/3 ::: 1 2 3 2>/dev/null && "
        "%s sweep --merge --quiet --no-plot rc.shard*of3.sweep.dat 2>&1",
        tmp, NSC_PROGRAM, study, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    free(out);
    b = file("gp/rc.sweep.dat");
    cr_assert(b);
    cr_assert_str_eq(b, a);
    free(a);
    free(b);
    free(nl);
}

/* SIGINT, SIGTERM or SIGHUP during a study: the table holds the points that
 * finished, marked interrupted, the exit status is 128 + signal, and --merge
 * refuses it (before: "no table written", every finished point lost). Points of
 * about 0.35 s each (5 ms at h = 1 ns), one at a time, stopped after 1.2 s. */
Test(sweep, interrupted_study_keeps_finished_points, .init = setup, .fini = teardown,
     .timeout = 120)
{
    char *nl = write_rc("rc.cir", ""), cmd[2048], *out = NULL;
    const char *sig[] = { "INT", "HUP" };
    const int want[] = { 130, 129 };
    /* the time of one point on this build (sanitizers make it several times
     * slower): the study is stopped after about 2.5 points */
    snprintf(cmd, sizeof cmd,
             "cd %s && s=$(date +%%s%%N) && %s --param hm=1n --quiet -o one.dat rc.cir "
             ">/dev/null 2>&1; echo $(( ($(date +%%s%%N) - s) / 1000000 ))",
             tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0);
    double stop = 2.5 * atof(out) / 1000 + 0.2;
    free(out);
    for (int k = 0; k < 2; k++) {
        snprintf(
            cmd, sizeof cmd,
            "cd %s && rm -f rc.sweep.dat && timeout --preserve-status -s %s %.2f %s sweep rc.cir "
            "--param hm=1n:1n:20 --param r=1k:2k:2 -j 1 --no-plot --quiet 2>&1; echo \"exit $?\"",
            tmp, sig[k], stop, NSC_PROGRAM);
        cr_assert_eq(tu_run(cmd, &out), 0);
        char w[32];
        snprintf(w, sizeof w, "exit %d", want[k]);
        cr_assert(strstr(out, w) && strstr(out, "the table holds them"), "%s: %s", sig[k], out);
        free(out);
        char *t = file("rc.sweep.dat");
        cr_assert(t, "%s: no table", sig[k]);
        long done = -1, of = -1;
        const char *m = strstr(t, "# interrupted: ");
        cr_assert(m && sscanf(m, "# interrupted: %ld of the %ld points", &done, &of) == 2, "%s", t);
        cr_assert_eq(of, 40);
        cr_assert(done >= 1 && done < 40, "%ld done", done);
        long rows = 0;
        for (const char *p = t; (p = strchr(p, '\n')); p++) rows += p[1] && p[1] != '#';
        cr_assert_eq(rows, done, "%s", t);
        free(t);
    }
    snprintf(cmd, sizeof cmd, "cd %s && %s sweep --merge -o m rc.sweep.dat 2>&1", tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 2, "%s", out);
    cr_assert(strstr(out, "'rc.sweep.dat' was interrupted"), "%s", out);
    free(out);
    free(nl);
}

/* Shards of two studies with the same columns do not merge: the study identity
 * (the netlist's bytes, parameters, options) is in every shard's header (before:
 * merged, exit 0). The same shards of one study still merge. */
Test(sweep, shards_of_another_study_do_not_merge, .init = setup, .fini = teardown)
{
    char *nl = write_rc("rc.cir", ""), cmd[2048], *out = NULL;
    const char *args = "--param r=1k:2k:4 --no-plot --quiet -j 1";
    snprintf(
        cmd, sizeof cmd,
        "cd %s && %s sweep rc.cir %s --shard 1/2 && %s sweep rc.cir %s --shard 2/2 && "
        "%s sweep rc.cir %s --tstop 4m --shard 2/2 -o other && sed -i 's/C1 out 0 {c}/C1 out 0 {c*1.01}/' rc.cir && "
        "%s sweep rc.cir %s --shard 2/2 -o edited 2>&1",
        tmp, NSC_PROGRAM, args, NSC_PROGRAM, args, NSC_PROGRAM, args, NSC_PROGRAM, args);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    free(out);
    const char *bad[] = { "other.sweep.dat", "edited.sweep.dat" };
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd,
                 "cd %s && %s sweep --merge --no-plot -o m rc.shard1of2.sweep.dat %s 2>&1", tmp,
                 NSC_PROGRAM, bad[k]);
        cr_assert_eq(tu_run(cmd, &out), 2, "%s", out);
        cr_assert(strstr(out, "is a shard of another study"), "%s", out);
        free(out);
    }
    snprintf(
        cmd, sizeof cmd,
        "cd %s && %s sweep --merge --no-plot -o m rc.shard1of2.sweep.dat rc.shard2of2.sweep.dat 2>&1",
        tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    free(out);
    free(nl);
}

/* Killing the study's process (SIGKILL: no handler runs) takes its running
 * points with it (PR_SET_PDEATHSIG); before, they ran on as orphans. Each point
 * takes about 1.4 s (2e7 steps): the check, 1 s after the start, sees them. */
Test(sweep, killed_study_leaves_no_points_running, .init = setup, .fini = teardown, .timeout = 120)
{
    char *nl = write_rc("orphan_probe.cir", ""), cmd[2048], *out = NULL;
    snprintf(cmd, sizeof cmd,
             "cd %s && { %s sweep %s --param hm=0.25n:0.25n:8 -j 2 --no-plot --quiet "
             ">/dev/null 2>&1 & pid=$!; sleep 0.5; kill -9 $pid; wait $pid 2>/dev/null; sleep 0.5; "
             "pgrep -f '^%s sweep %s' | wc -l; }",
             tmp, NSC_PROGRAM, nl, NSC_PROGRAM, nl);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert_eq(atoi(out), 0, "points still running: %s", out);
    free(out);
    free(nl);
}

/* --point-timeout stops a point that runs too long (its row fails with the
 * reason; the others stand), and a study of more than 10000 points needs --yes
 * (before: a 1e6-point study started without a word). */
Test(sweep, point_timeout_and_size_guard, .init = setup, .fini = teardown, .timeout = 60)
{
    char *nl = write_rc("rc.cir", ""), cmd[2048], *out = NULL;
    /* point 0: 5e8 steps (minutes on any build), point 1: 5e5 (well under 5 s, sanitizers included) */
    snprintf(cmd, sizeof cmd,
             "cd %s && %s sweep rc.cir --param hm=0.01n,10n --point-timeout 5 -j 2 --no-plot 2>&1",
             tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 3, "%s", out);
    cr_assert(strstr(out, "point 0 (hm=1e-11) failed: stopped after --point-timeout 5 s"), "%s",
              out);
    free(out);
    char *t = file("rc.sweep.dat");
    cr_assert(t && strstr(t, "1.000000000000e-11 nan nan 3 0\n"), "%s", t);
    cr_assert(strstr(t, "1.000000000000e-08 6.32") && strstr(t, " 0 1\n"), "%s",
              t); /* 1 - 1/e at 1 ms */
    free(t);
    snprintf(cmd, sizeof cmd,
             "cd %s && rm -f rc.sweep.dat && %s sweep rc.cir --param r=1:2:10001 --no-plot 2>&1",
             tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 2, "%s", out);
    cr_assert(strstr(out, "10001 points to run (more than 10000)") && strstr(out, "--yes"), "%s",
              out);
    free(out);
    cr_assert_null(file("rc.sweep.dat"));
    /* with --yes it starts (stopped after 1 s: an interrupted table) */
    snprintf(
        cmd, sizeof cmd,
        "cd %s && timeout --preserve-status -s INT 1 %s sweep rc.cir --param r=1:2:10001 --yes "
        "--no-plot --quiet 2>&1; echo \"exit $?\"",
        tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "exit 130"), "%s", out);
    free(out);
    t = file("rc.sweep.dat");
    cr_assert(t && strstr(t, "of the 10001 points of this run finished"), "%s", t ? t : "no table");
    free(t);
    free(nl);
}

/* The study reads its netlist once: a netlist rewritten while the points run
 * (here as soon as the study announces them, during the first of two slow
 * points) changes no row; the table is that of the netlist as it was read. */
Test(sweep, program_points_use_the_netlist_as_read, .init = setup, .fini = teardown)
{
    char *nl = write_rc("rc.cir", ""), cmd[4096], *out = NULL;
    const char *study = "sweep rc.cir --param c=1u,2u --tstop 0.4 --step 100n -j 1 --no-plot";
    char *ref = fmt1("%s/%s", tmp, "ref");
    cr_assert_eq(mkdir(ref, 0777), 0);
    free(ref);
    snprintf(
        cmd, sizeof cmd,
        "cd %s && cp rc.cir ref/ && : >log && { %s %s 2>log & pid=$!; "
        "while ! grep -q 'points, 1 at a time' log; do sleep 0.01; done; "
        "sed -i 's/r=1k/r=3k/' rc.cir; wait $pid; echo \"exit $?\"; } && cd ref && %s %s --quiet",
        tmp, NSC_PROGRAM, study, NSC_PROGRAM, study);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "exit 0\n"), "%s", out);
    free(out);
    char *now = file("rc.cir"), *a = file("rc.sweep.dat"), *b = file("ref/rc.sweep.dat");
    cr_assert(now && strstr(now, "r=3k"), "the netlist was not rewritten: %s", now);
    cr_assert(a && b);
    cr_assert_str_eq(a, b); /* r = 1k: vend = 1 - exp(-1m / (1k c)) */
    cr_assert(strstr(a, "1.000000000000e-06 6.3212"), "%s", a);
    free(now);
    free(a);
    free(b);
    free(nl);
}

/* --keep-waves: a point killed while writing its waveforms (here by the file
 * size limit, SIGXFSZ, in the middle of the write) leaves no temporary of the
 * writer (pNNNN.dat.nsc-HOST-PID.XXXXXX) in PREFIX.waves; its row is failed. */
Test(sweep, program_killed_point_leaves_no_temporaries, .init = setup, .fini = teardown)
{
    char *nl = write_rc("rc.cir", ""), cmd[2048], *out = NULL;
    snprintf(cmd, sizeof cmd,
             "cd %s && { (ulimit -f 8; %s sweep rc.cir --param c=1u,2u -j 1 --keep-waves "
             "--no-plot --save 'v(out)' >log 2>&1); echo \"exit $?\"; cat log; ls -a rc.waves; }",
             tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "exit 3\n"), "%s", out);
    cr_assert(strstr(out, "point 0 (c=1e-06) failed: the point's process was killed by signal 25"),
              "%s", out);
    cr_assert(!strstr(out, ".nsc-"), "temporaries left: %s", out);
    free(out);
    char *t = file("rc.sweep.dat");
    cr_assert(t && strstr(t, "1.000000000000e-06 nan nan 3 0\n"), "%s", t);
    free(t);
    free(nl);
}

/* The study identity covers the included files' bytes and the plan's values as
 * numbers (issue 25 item 6): shards run with -I directories whose inc.lib
 * differ (R2 1k vs 2k) do not merge; shards whose --param ranges are written
 * 1n:3n:3 and 1e-9:3e-9:3 are one study and merge. Before, the -I shards merged
 * silently (exit 0) and the second pair was refused as another study. */
Test(sweep, study_identity_covers_includes_and_values, .init = setup, .fini = teardown)
{
    char cmd[4096], *out = NULL, path[1024];
    const char *net =
        "inc\n.param c=1n\n.include inc.lib\nV1 in 0 PULSE(0 1 0)\nR1 in out 1k\nC1 out 0 {c}\n"
        ".tran 1u 20u\n.meas tran vend FIND v(out) AT=20u\n.end\n";
    snprintf(path, sizeof path, "%s/inc.cir", tmp);
    cr_assert_eq(tu_write_file(path, net), 0);
    const char *dir[] = { "a", "b" }, *lib[] = { "R2 out 0 1k\n", "R2 out 0 2k\n" };
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s", tmp, dir[k]);
        cr_assert_eq(mkdir(path, 0700), 0);
        snprintf(path, sizeof path, "%s/%s/inc.lib", tmp, dir[k]);
        cr_assert_eq(tu_write_file(path, lib[k]), 0);
    }
    const char *args = "--no-plot --quiet -j 1";
    snprintf(cmd, sizeof cmd,
             "cd %s && %s sweep inc.cir -I a --param c=1n:3n:3 %s --shard 1/2 -o ia && "
             "%s sweep inc.cir -I b --param c=1n:3n:3 %s --shard 2/2 -o ib && "
             "%s sweep inc.cir -I a --param c=1e-9:3e-9:3 %s --shard 2/2 -o ie 2>&1",
             tmp, NSC_PROGRAM, args, NSC_PROGRAM, args, NSC_PROGRAM, args);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd,
             "cd %s && %s sweep --merge --no-plot -o m1 ia.sweep.dat ib.sweep.dat 2>&1", tmp,
             NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 2, "%s", out);
    cr_assert(strstr(out, "is a shard of another study"), "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd,
             "cd %s && %s sweep --merge --no-plot -o m2 ia.sweep.dat ie.sweep.dat 2>&1", tmp,
             NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    free(out);
}

/* A PARAM reading a name measured twice reads its last card, which may follow
 * the PARAM (issue 28 item 3): its unit is that measure's (V), and the unit
 * pass reads no measure beyond those it sized for (it read past its array). */
Test(sweep, unit_of_a_param_reading_a_later_measure)
{
    nsc_report r;
    nsc_circuit *c = rd("t\nV1 x 0 SIN(0 1 1k)\nR1 x 0 1k\n.tran 1u 2m\n.meas tran a MAX v(x)\n"
                        ".meas tran p param='a*2'\n.meas tran a MIN v(x)\n.end\n",
                        &r);
    cr_assert(c, "%s", r.error ? r.error : "");
    cr_assert_eq(c->job.nmeas, 3);
    cr_assert_str_eq(nsc_meas_unit(c, 1), "V");
    cr_assert_str_eq(nsc_meas_unit(c, 2), "V");
    nsc_circuit_free(c);
    nsc_report_free(&r);
}

/* Issue 29: the .meas ac cards of a study are columns of its table, after
 * the .meas tran ones, each point's evaluated on its own .ac sweep at its
 * operating point: an RC (r swept, c = 1u) whose transfer is 1 / (1 + j w r
 * c): at 1 kHz (a point of `dec 10`) |H| in dB and its phase in degrees,
 * exactly (1e-9: the complex solve's round-off); the step response's .meas
 * tran beside them as in program_rows_do_not_depend_on_jobs. Without a .tran
 * card the study runs the AC alone (before: "no transient analysis"; with
 * one, the .meas ac cards were dropped from the table). Units: dB, deg. */
Test(sweep, meas_ac_columns_at_the_operating_point, .init = setup, .fini = teardown)
{
    static const char net[] =
        "RC, step and AC\n.param r=1k\nV1 in 0 PULSE(0 1 0 1n 1n 1 2) AC 1\nR1 in out {r}\n"
        "C1 out 0 1u\n%s.options stepping=fixed\n.ac dec 10 10 100k\n"
        ".meas ac g1k FIND vdb(out) AT=1k\n.meas ac p1k FIND vp(out) AT=1k\n.end\n";
    static const char *const tran[] = { ".tran 10u 5m\n.meas tran vend FIND v(out) AT=1m\n", "" };
    for (int k = 0; k < 2; k++) {
        char text[1024], path[1024], cmd[2048], *out = NULL;
        snprintf(text, sizeof text, net, tran[k]);
        snprintf(path, sizeof path, "%s/ac%d.cir", tmp, k);
        cr_assert_eq(tu_write_file(path, text), 0);
        snprintf(cmd, sizeof cmd,
                 "cd %s && %s sweep ac%d.cir --param r=500:2k:4 -j 2 -o s%d --quiet 2>&1", tmp,
                 NSC_PROGRAM, k, k);
        cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
        free(out);
        snprintf(path, sizeof path, "%s/s%d.sweep.dat", tmp, k);
        tu_table t;
        cr_assert_eq(tu_table_read(path, &t), 0);
        cr_assert_eq(t.nrow, 4);
        cr_assert_eq(t.ncol, k ? 5 : 6);
        int cg = tu_table_col(&t, "g1k"), cp = tu_table_col(&t, "p1k"),
            cv = tu_table_col(&t, "vend");
        cr_assert(cg == (k ? 1 : 2) && cp == cg + 1 && cv == (k ? -1 : 1), "columns %d %d %d", cv,
                  cg, cp);
        for (int i = 0; i < 4; i++) {
            double r = 500 + 500 * i, wrc = 2 * M_PI * 1e3 * r * 1e-6;
            cr_assert_float_eq(TU_AT(&t, i, cg), -10 * log10(1 + wrc * wrc), 1e-9, "r %g", r);
            cr_assert_float_eq(TU_AT(&t, i, cp), -atan(wrc) * 180 / M_PI, 1e-7, "r %g", r);
            if (!k) cr_assert_float_eq(TU_AT(&t, i, cv), 1 - exp(-1e-3 / (r * 1e-6)), 1e-5);
        }
        tu_table_free(&t);
        char gpn[32];
        snprintf(gpn, sizeof gpn, "s%d.sweep.gp", k);
        char *gp = file(gpn);
        cr_assert(gp && strstr(gp, "set ylabel 'g1k (dB)'") && strstr(gp, "set ylabel 'p1k (deg)'"),
                  "%s", gp);
        free(gp);
    }
}

/* A steady study's .meas ac are those of the periodic AC around each
 * point's steady state: the open-loop buck of tests/data/pac/buck_open.cir
 * over Vin, whose control-to-output at 1 kHz is Vin (TR + TF)/(T Vm) Z2 /
 * (s L + R0 + Z2) (test_pac.c; within 0.01 dB there), here 20 log10 of it. */
Test(sweep, meas_ac_in_a_steady_study_is_the_periodic_ac, .init = setup, .fini = teardown)
{
    char *text = tu_read_file(NSC_TOP_SRCDIR "/tests/data/pac/buck_open.cir");
    cr_assert(text);
    char *end = strstr(text, ".end");
    cr_assert(end);
    char net[4096], path[1024], cmd[2048], *out = NULL;
    snprintf(net, sizeof net, "%.*s.meas ac g1k FIND vdb(out) AT=1k\n.end\n", (int)(end - text),
             text);
    free(text);
    snprintf(path, sizeof path, "%s/bo.cir", tmp);
    cr_assert_eq(tu_write_file(path, net), 0);
    snprintf(
        cmd, sizeof cmd,
        "cd %s && %s sweep bo.cir --steady --param vin=6,12,24 -j 1 -o s --quiet --no-plot 2>&1",
        tmp, NSC_PROGRAM);
    cr_assert_eq(tu_run(cmd, &out), 0, "%s", out);
    free(out);
    snprintf(path, sizeof path, "%s/s.sweep.dat", tmp);
    tu_table t;
    cr_assert_eq(tu_table_read(path, &t), 0);
    cr_assert_eq(t.nrow, 3);
    int cg = tu_table_col(&t, "g1k");
    cr_assert_eq(cg, 1);
    for (int i = 0; i < 3; i++) {
        double vin = TU_AT(&t, i, 0), w = 2 * M_PI * 1e3;
        double complex zc = 1 / (I * w * 47e-6) + 0.02, z2 = 2 * zc / (2 + zc);
        double complex h = vin * (8e-6 + 1e-6) / 10e-6 * z2 / (I * w * 22e-6 + 0.05 + z2);
        cr_assert(fabs(TU_AT(&t, i, cg) - 20 * log10(cabs(h))) <= 0.01,
                  "vin %g: %.9g dB, closed form %.9g", vin, TU_AT(&t, i, cg), 20 * log10(cabs(h)));
    }
    tu_table_free(&t);
}
