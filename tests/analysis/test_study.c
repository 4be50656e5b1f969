/* test_study.c -- a study's points run as processes (study.h) through the
 * library alone: the rows against the analytic RC step response, a failing
 * point's row and message (through the hooks, nothing printed), a point killed
 * for its time limit, and a study stopped before its first point. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/study.h"
#include "netlist/netlist.h"
#include "testutil.h"

/* an RC low-pass driven by a 1 V step at t = 0: v(out) = 1 - exp(-t / (r c));
 * the third measure never happens (a warning of every point that runs) */
static const char RC[] = "RC step response\n"
                         ".param r=1k c=1u ts=10u hm=0\n"
                         "V1 in 0 PULSE(0 1 0 1n 1n 1 2)\n"
                         "R1 in out {r}\n"
                         "C1 out 0 {c}\n"
                         ".tran {ts} 5m 0 {hm}\n"
                         ".meas tran vend FIND v(out) AT=1m\n"
                         ".meas tran tau WHEN v(out)=0.6321205588\n"
                         ".meas tran never WHEN v(out)=5\n"
                         ".options stepping=fixed\n"
                         ".end\n";

/* What the hooks saw. */
typedef struct seen {
    long failed[8], warned[8];
    char why[8][256];
    int nfailed, nwarned;
    long calls, last_done, last_total;
} seen;

static void on_warning(void *ctx, long i, const char *w)
{
    seen *H = ctx;
    if (H->nwarned < 8 && strstr(w, ".meas never failed")) H->warned[H->nwarned++] = i;
}

static void on_failed(void *ctx, long i, const char *why)
{
    seen *H = ctx;
    if (H->nfailed < 8) {
        snprintf(H->why[H->nfailed], sizeof H->why[0], "%s", why);
        H->failed[H->nfailed++] = i;
    }
}

static void on_progress(void *ctx, long done, long total, long failed)
{
    seen *H = ctx;
    H->calls++;
    H->last_done = done;
    H->last_total = total;
}

static char *tmp;
static nsc_deck *deck;
static nsc_circuit *ckt;
static nsc_run_cfg cfg;
static nsc_study S;
static nsc_study_tally C;
static seen H;

/* The study of RC over the ranges range[0..nrange), its tally, hooks into H. */
static void setup_study(char *const *range, int nrange)
{
    tmp = tu_tmpdir();
    cr_assert(tmp);
    char path[1024];
    snprintf(path, sizeof path, "%s/rc.cir", tmp);
    cr_assert_eq(tu_write_file(path, RC), 0);
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(nsc_deck_read(path, NULL, &deck, &r), NSC_OK, "%s", r.error);
    cr_assert_eq(nsc_deck_elab(deck, NULL, 0, &ckt, &r), NSC_OK, "%s", r.error);
    memset(&cfg, 0, sizeof cfg);
    memset(&H, 0, sizeof H);
    nsc_study_init(&S);
    S.deck = deck;
    S.cfg = &cfg;
    S.hooks = (nsc_study_hooks){ &H, on_warning, on_failed, on_progress };
    cr_assert_eq(nsc_study_plan(&S, ckt, range, nrange, &r), NSC_OK, "%s", r.error);
    cr_assert_eq(nsc_study_columns(&S, ckt, 1, 1, &r), NSC_OK);
    cr_assert_eq(nsc_study_tally_init(&S, &C, path, 1, 1, &r), NSC_OK);
    nsc_report_free(&r);
}

static void teardown(void)
{
    nsc_study_tally_free(&C);
    nsc_study_free(&S);
    nsc_circuit_free(ckt);
    nsc_deck_free(deck);
    tu_rmdir(tmp);
    free(tmp);
}

/* The row of point i (the rows come in the order the points finished). */
static const double *row_of(long i, int *status)
{
    for (long k = 0; k < C.T.nrow; k++)
        if (C.T.point[k] == i) {
            *status = C.T.status[k];
            return C.T.v + k * (C.T.npar + C.T.nmeas);
        }
    cr_assert_fail("no row of point %ld", i);
    return NULL;
}

/* ts = -1 (a netlist error) at points 1 and 3 only: their rows say status 1,
 * nan measures; the others hold the analytic response; every message came
 * through the hooks. */
Test(study, rows_failures_and_warnings_through_the_hooks, .fini = teardown)
{
    char *range[] = { "ts=10u,-1", "r=1k,2k" };
    setup_study(range, 2);
    cr_assert_eq(S.plan.npoint, 4);
    cr_assert_eq(S.nmeas, 3);
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(nsc_study_run(&S, &C, 2, NULL, &r), NSC_OK, "%s", r.error);
    nsc_report_free(&r);
    cr_assert_eq(C.T.nrow, 4);
    cr_assert_eq(C.failed, 2);
    cr_assert_eq(C.nres, 4); /* every point reported its times */
    for (long i = 0; i < 4; i++) {
        int st;
        const double *v = row_of(i, &st);
        double ts = i % 2 ? -1 : 10e-6, R = i < 2 ? 1e3 : 2e3, c = 1e-6;
        cr_assert_float_eq(v[0], ts, 1e-15); /* (10u: 10 * 1e-6, not 1e-5) */
        cr_assert_eq(v[1], R);
        if (i % 2) {
            cr_assert_eq(st, 1);
            cr_assert(isnan(v[2]) && isnan(v[3]) && isnan(v[4]));
            continue;
        }
        cr_assert_eq(st, 0);
        cr_assert_float_eq(v[2], 1 - exp(-1e-3 / (R * c)), 1e-5); /* v(out) at 1 ms */
        cr_assert_float_eq(v[3], R * c, 1e-4 * R * c);            /* 63.2 % at t = RC */
        cr_assert(isnan(v[4]));
    }
    cr_assert_eq(H.nfailed, 2);
    for (int k = 0; k < 2; k++) {
        cr_assert(H.failed[k] == 1 || H.failed[k] == 3);
        cr_assert(strstr(H.why[k], "tstep of .tran must be positive"), "%s", H.why[k]);
    }
    cr_assert_eq(H.nwarned, 2); /* the points that ran */
    cr_assert(H.warned[0] % 2 == 0 && H.warned[1] % 2 == 0);
    cr_assert(H.calls > 0);
    cr_assert_eq(H.last_done, 4);
    cr_assert_eq(H.last_total, 4);
}

/* A point beyond point_timeout is killed: its row fails (status 3) with the
 * reason; the other point runs. */
Test(study, point_over_its_time_limit_is_killed, .fini = teardown, .timeout = 60)
{
    char *range[] = { "hm=5p,0" }; /* point 0: 1e9 steps of 5 ps */
    setup_study(range, 1);
    S.point_timeout = 0.5;
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(nsc_study_run(&S, &C, 1, NULL, &r), NSC_OK);
    nsc_report_free(&r);
    cr_assert_eq(C.T.nrow, 2);
    int st0, st1;
    const double *v0 = row_of(0, &st0), *v1 = row_of(1, &st1);
    cr_assert_eq(st0, 3);
    cr_assert(isnan(v0[1]));
    cr_assert_eq(st1, 0);
    cr_assert_float_eq(v1[1], 1 - exp(-1.0), 1e-5);
    cr_assert_eq(H.nfailed, 1);
    cr_assert_eq(H.failed[0], 0);
    cr_assert(strstr(H.why[0], "stopped after --point-timeout 0.5 s"), "%s", H.why[0]);
}

/* A stop flag already set: no point starts, the table stays empty. */
Test(study, stopped_study_runs_no_point, .fini = teardown)
{
    char *range[] = { "r=1k,2k,3k" };
    setup_study(range, 1);
    volatile sig_atomic_t stop = 1;
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(nsc_study_run(&S, &C, 2, &stop, &r), NSC_OK);
    nsc_report_free(&r);
    cr_assert_eq(C.T.nrow, 0);
    cr_assert_eq(H.nfailed, 0);
}
