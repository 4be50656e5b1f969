/* test_sparse_mlcp.c -- suite `smlcp`: the one-step problem's sparse machinery
 * (onestep.h): the mode systems with separable pairs eliminated solve the MLCP
 * (checked on the sparse equations themselves and against enumeration on the
 * dense LCP); the block pivoting fallback (no dense M) against dense Lemke; the
 * incremental mode check against the full check (bitwise), and the pairs it
 * lists as changed against every change; the affine maps of
 * small problems against sparse solves; a 1000-stage inverter chain (20 000
 * pairs) without any dense matrix; KLU refactorisation against a fresh factorisation. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netlist/netlist.h"
#include "solve/onestep_int.h"
#include "solve/onestep_mode.h"
#include "solve/onestep_map.h"
#include "analysis/stepper.h"
#include "testutil.h"

static nsc_lcs *assemble(const nsc_circuit *c)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_lcs *L = NULL;
    nsc_status s = nsc_lcs_assemble(c, NSC_ASM_TRAN, 1e-12, &L, &r);
    cr_assert_eq(s, NSC_OK, "assemble failed: %s", r.error ? r.error : "?");
    nsc_report_free(&r);
    return L;
}

static nsc_onestep *problem(const nsc_lcs *L, double h)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_onestep *P = NULL;
    cr_assert_eq(nsc_onestep_new(L, &(nsc_onestep_opts){ .h = h, .theta = 0.5 }, &P, &r), NSC_OK,
                 "%s", r.error ? r.error : "?");
    nsc_report_free(&r);
    return P;
}

/* An N-stage CMOS inverter chain (netlists/inverter_chain.sh), h = 1 ps. */
static char *chain(int N)
{
    size_t cap = 2048 + (size_t)N * 64, len = 0;
    char *t = malloc(cap);
    cr_assert(t);
    len += (size_t)snprintf(
        t + len, cap - len,
        "chain\n.param cox={3.9*8.854214871e-12/20n}\n"
        ".subckt inv in out vdd\nMP out in vdd vdd PM W=1u L=1u\nMN out in 0 0 NM W=1u L=1u\nCW out 0 50f\n.ends\n"
        ".model NM NMOS(LEVEL=1 VTO=1 KP={750e-4*cox} SEGMENTS=6 IS=0)\n"
        ".model PM PMOS(LEVEL=1 VTO=-1 KP={250e-4*cox} SEGMENTS=6 IS=0)\n"
        "VDD vdd 0 5\nVIN n0 0 PULSE(0 5 0.1n 0.1n 0.1n 2n 5n)\n");
    for (int i = 1; i <= N; i++)
        len += (size_t)snprintf(t + len, cap - len, "X%d n%d n%d vdd inv\n", i, i - 1, i);
    snprintf(t + len, cap - len, ".tran 5p 1n 0 1p\n.end\n");
    return t;
}

/* Mixed pairs: a PWL MOS (separable), a diode with RON (separable), ideal diodes
 * (D = 0) and an ideal comparator step (coupled pairs). The MOS cards here and in
 * chain() say SEGMENTS=6 (5 pairs a side, small enough to enumerate; the default
 * fit anchored at the sources' levels has 13 a side at 5 V), IS=0 (no bulk
 * junction pairs: the channel's only). */
#define MIXED \
    "mixed\n" \
    "V1 a 0 SIN(0 3 1Meg)\nR1 a b 100\nC1 b 0 1n\nD1 b c DR\nR2 c 0 1k\nC2 c 0 2n\n" \
    "D2 0 b DI\nM1 d b 0 0 NM W=10u L=1u\nR3 vdd d 2k\nV2 vdd 0 5\nC3 d 0 100p\n" \
    "E1 g 0 TABLE {V(c,d)} = (0,0) (0,2)\nR4 g 0 1k\nD3 g c DI\n" \
    ".model DR D(RON=5)\n.model DI D(VF=0)\n.model NM NMOS(LEVEL=1 VTO=0.5 KP=1e-4 SEGMENTS=6 IS=0)\n.tran 1n 1u\n.end\n"

/* ||W z1 - B l - r||_inf relative to the terms, and the complementarity of
 * y = C z1 + D l + e1 with l: returns the worst of both. */
static double mlcp_error(const nsc_onestep *P, const double *z1, const double *l, const double *e1)
{
    int n = P->n, m = P->m;
    double *res = calloc((size_t)n + 1, sizeof(double)),
           *scale = calloc((size_t)n + 1, sizeof(double));
    double *y = calloc((size_t)m + 1, sizeof(double)), *ys = calloc((size_t)m + 1, sizeof(double));
    cr_assert(res && scale && y && ys);
    for (int i = 0; i < n; i++) {
        res[i] = -P->st.r[i];
        scale[i] = fabs(P->st.r[i]);
    }
    for (int j = 0; j < n; j++)
        for (int k = P->st.W->p[j]; k < P->st.W->p[j + 1]; k++) {
            res[P->st.W->i[k]] += P->st.W->x[k] * z1[j];
            scale[P->st.W->i[k]] += fabs(P->st.W->x[k] * z1[j]);
        }
    for (int j = 0; j < m; j++)
        for (int k = P->st.B->p[j]; k < P->st.B->p[j + 1]; k++) {
            res[P->st.B->i[k]] -= P->st.B->x[k] * l[j];
            scale[P->st.B->i[k]] += fabs(P->st.B->x[k] * l[j]);
        }
    double worst = 0;
    for (int i = 0; i < n; i++) worst = fmax(worst, fabs(res[i]) / (scale[i] + 1e-30));
    const nsc_lcs *L = P->L;
    for (int i = 0; i < m; i++) {
        y[i] = e1[i];
        ys[i] = fabs(e1[i]);
    }
    for (int j = 0; j < n; j++)
        for (int k = L->C->p[j]; k < L->C->p[j + 1]; k++) {
            y[L->C->i[k]] += L->C->x[k] * z1[j];
            ys[L->C->i[k]] += fabs(L->C->x[k] * z1[j]);
        }
    for (int j = 0; j < m; j++)
        for (int k = L->D->p[j]; k < L->D->p[j + 1]; k++) {
            y[L->D->i[k]] += L->D->x[k] * l[j];
            ys[L->D->i[k]] += fabs(L->D->x[k] * l[j]);
        }
    for (int i = 0; i < m; i++) {
        double s = ys[i] + fabs(l[i]) + 1e-30;
        cr_assert(l[i] >= 0, "l[%d] = %g < 0", i, l[i]);
        worst = fmax(worst, fmax(-y[i], 0.0) / s);       /* y >= 0 */
        worst = fmax(worst, fabs(fmin(l[i], y[i])) / s); /* l _|_ y */
    }
    free(res);
    free(scale);
    free(y);
    free(ys);
    return worst;
}

static unsigned rng = 12345;
static double urand(void)
{
    rng = rng * 1103515245u + 12345u;
    return (double)((rng >> 8) & 0xffffff) / 16777216.0;
}

/* Random states z0 (node voltages in [-1, 6] V, branch currents in [-1, 1] mA)
 * and times; the one-step problem from a cold start (auto: the active-set
 * iteration from every pair open) solves the MLCP, and agrees with enumeration
 * on the dense LCP (unique solutions here: M is a P-matrix). */
static void solve_random(const char *net, int trials, int with_enum)
{
    nsc_circuit *c = tu_parse(net);
    nsc_lcs *L = assemble(c);
    int n = L->n, m = L->m;
    double *z0 = calloc((size_t)n, sizeof(double)), *z1 = calloc((size_t)n, sizeof(double));
    double *z2 = calloc((size_t)n, sizeof(double)), *l = calloc((size_t)m, sizeof(double));
    double *l2 = calloc((size_t)m, sizeof(double)), *s0 = calloc((size_t)n, sizeof(double));
    double *s1 = calloc((size_t)n, sizeof(double)), *e1 = calloc((size_t)m, sizeof(double));
    double *e0 = calloc((size_t)m, sizeof(double));
    for (int t = 0; t < trials; t++) {
        nsc_onestep *P = problem(L, 1e-9), *Q = problem(L, 1e-9);
        for (int i = 0; i < n; i++)
            z0[i] = i < L->nnode_z ? -1 + 7 * urand() : 1e-3 * (2 * urand() - 1);
        double tk = 1e-6 * urand();
        nsc_lcs_sources(L, tk, NULL, s0, e0);
        nsc_lcs_sources(L, tk + 1e-9, NULL, s1, e1);
        nsc_step_info info;
        cr_assert_eq(nsc_onestep_solve(P, NSC_SOLVER_AUTO, z0, s0, s1, e1, z1, l, &info), 0);
        double err = mlcp_error(P, z1, l, e1);
        cr_assert(err < 1e-10, "trial %d: MLCP error %g", t, err);
        if (with_enum) {
            cr_assert_eq(nsc_onestep_solve(Q, NSC_SOLVER_ENUM, z0, s0, s1, e1, z2, l2, &info), 0);
            for (int i = 0; i < n; i++)
                cr_assert(fabs(z1[i] - z2[i]) <= 1e-9 * (1 + fabs(z2[i])),
                          "trial %d z[%d]: %.15g vs %.15g", t, i, z1[i], z2[i]);
            for (int i = 0; i < m; i++)
                cr_assert(fabs(l[i] - l2[i]) <= 1e-9 * (1e-3 + fabs(l2[i])),
                          "trial %d l[%d]: %g vs %g", t, i, l[i], l2[i]);
        }
        nsc_onestep_free(P);
        nsc_onestep_free(Q);
    }
    free(z0);
    free(z1);
    free(z2);
    free(l);
    free(l2);
    free(s0);
    free(s1);
    free(e1);
    free(e0);
    nsc_lcs_free(L);
    nsc_circuit_free(c);
}

Test(smlcp, pair_kinds)
{
    nsc_circuit *c = tu_parse(MIXED);
    nsc_lcs *L = assemble(c);
    nsc_onestep *P = problem(L, 1e-9);
    int nsep = 0;
    for (int j = 0; j < L->m; j++) {
        const char *name = L->pair_name[j];
        int want = name[0] == 'm' || !strcmp(name, "d1"); /* MOS segments, RON = 5 */
        cr_assert_eq(P->pat.sep[j], want, "pair %s", name);
        if (want) cr_assert_float_eq(P->pat.dinv[j], name[0] == 'm' ? 1.0 : 0.2, 1e-15);
        nsep += P->pat.sep[j];
    }
    cr_assert_eq(P->pat.nn, L->m - nsep);
    nsc_onestep_free(P);
    nsc_lcs_free(L);
    nsc_circuit_free(c);
}

Test(smlcp, mixed_pairs_solve_the_mlcp)
{
    solve_random(MIXED, 60, 1);
}

Test(smlcp, chain_modes_solve_the_mlcp)
{
    char *t = chain(4); /* 80 pairs: too many to enumerate */
    solve_random(t, 20, 0);
    free(t);
}

/* The block path (dense_mmax = 0: no dense M) gives dense Lemke's solution. */
static void block_vs_dense(const char *net, int trials)
{
    nsc_circuit *c = tu_parse(net);
    nsc_lcs *L = assemble(c);
    int n = L->n, m = L->m;
    double *z0 = calloc((size_t)n, sizeof(double)), *z1 = calloc((size_t)n, sizeof(double));
    double *z2 = calloc((size_t)n, sizeof(double)), *l = calloc((size_t)m, sizeof(double));
    double *l2 = calloc((size_t)m, sizeof(double)), *s0 = calloc((size_t)n, sizeof(double));
    double *s1 = calloc((size_t)n, sizeof(double)), *e1 = calloc((size_t)m, sizeof(double));
    double *e0 = calloc((size_t)m, sizeof(double));
    int pivoted = 0;
    for (int t = 0; t < trials; t++) {
        nsc_onestep *P = problem(L, 1e-9), *Q = problem(L, 1e-9);
        Q->dn.dense_mmax = 0;
        for (int i = 0; i < n; i++)
            z0[i] = i < L->nnode_z ? -1 + 7 * urand() : 1e-3 * (2 * urand() - 1);
        double tk = 1e-6 * urand();
        nsc_lcs_sources(L, tk, NULL, s0, e0);
        nsc_lcs_sources(L, tk + 1e-9, NULL, s1, e1);
        nsc_step_info i1, i2;
        cr_assert_eq(nsc_onestep_solve(P, NSC_SOLVER_LEMKE, z0, s0, s1, e1, z1, l, &i1), 0);
        int bad = nsc_onestep_solve(Q, NSC_SOLVER_LEMKE, z0, s0, s1, e1, z2, l2, &i2);
        cr_assert_eq(bad, 0, "trial %d: %s, %d pivots", t, nsc_lcp_strstatus(i2.st), i2.iter);
        cr_assert_null(Q->dn.M);
        cr_assert_null(Q->dn.WiB);
        pivoted += i2.lcp_solved;
        cr_assert(mlcp_error(Q, z2, l2, e1) < 1e-10);
        for (int i = 0; i < n; i++)
            cr_assert(fabs(z1[i] - z2[i]) <= 1e-9 * (1 + fabs(z1[i])),
                      "trial %d z[%d]: %.15g vs %.15g", t, i, z1[i], z2[i]);
        for (int i = 0; i < m; i++)
            cr_assert(fabs(l[i] - l2[i]) <= 1e-9 * (1e-3 + fabs(l[i])), "trial %d l[%d]: %g vs %g",
                      t, i, l[i], l2[i]);
        nsc_onestep_free(P);
        nsc_onestep_free(Q);
    }
    cr_assert(pivoted > trials / 2, "the block path pivoted %d times in %d trials", pivoted,
              trials);
    free(z0);
    free(z1);
    free(z2);
    free(l);
    free(l2);
    free(s0);
    free(s1);
    free(e1);
    free(e0);
    nsc_lcs_free(L);
    nsc_circuit_free(c);
}

Test(smlcp, block_pivoting_matches_dense_lemke)
{
    block_vs_dense(MIXED, 40);
    char *t = chain(3);
    block_vs_dense(t, 20);
    free(t);
}

/* The state of chain() at rest into z: v(vdd) = 5 V, v(n_i) = 5 V for odd i. */
static void chain_rest(const nsc_lcs *L, double *z)
{
    int stage;
    for (int k = 0; k < L->n; k++) {
        if (!strcmp(L->zname[k], "v(vdd)")) z[k] = 5;
        if (sscanf(L->zname[k], "v(n%d)", &stage) == 1) z[k] = stage % 2 ? 5 : 0;
    }
}

/* Transient steps of circuit text from z = 0 (rest: chain_rest's state) on
 * two problems: P as built, Q modified by tweak; returns max |z_P - z_Q| /
 * (1 + |z_P|) over the steps and the same for l; *same_modes counts steps
 * with equal active sets. */
static int twin_rest;
static void twin_steps(const char *net, double h, int steps, void (*tweak)(nsc_onestep *),
                       double *dz, double *dl, int *same_modes, nsc_onestep **keepP)
{
    nsc_circuit *c = tu_parse(net);
    nsc_lcs *L = assemble(c);
    int n = L->n, m = L->m, ns = L->nsrc;
    nsc_onestep *P = problem(L, h), *Q = problem(L, h);
    tweak(Q);
    double *za = calloc((size_t)n, sizeof(double)), *zb = calloc((size_t)n, sizeof(double));
    double *ya = calloc((size_t)n, sizeof(double)), *yb = calloc((size_t)n, sizeof(double));
    double *la = calloc((size_t)m, sizeof(double)), *lb = calloc((size_t)m, sizeof(double));
    double *w0 = calloc((size_t)ns + 1, sizeof(double)),
           *w1 = calloc((size_t)ns + 1, sizeof(double));
    if (twin_rest) {
        chain_rest(L, za);
        chain_rest(L, zb);
    }
    *dz = *dl = 0;
    *same_modes = 0;
    for (int k = 0; k < steps; k++) {
        for (int j = 0; j < ns; j++) {
            w0[j] = nsc_wave_eval(L->src[j].wave, k * h);
            w1[j] = nsc_wave_eval(L->src[j].wave, (k + 1) * h);
        }
        nsc_step_info ia, ib;
        cr_assert_eq(nsc_onestep_step(P, NSC_SOLVER_AUTO, za, w0, w1, ya, la, &ia), 0, "step %d",
                     k);
        cr_assert_eq(nsc_onestep_step(Q, NSC_SOLVER_AUTO, zb, w0, w1, yb, lb, &ib), 0, "step %d",
                     k);
        for (int i = 0; i < n; i++) *dz = fmax(*dz, fabs(ya[i] - yb[i]) / (1 + fabs(ya[i])));
        for (int i = 0; i < m; i++) *dl = fmax(*dl, fabs(la[i] - lb[i]) / (1e-3 + fabs(la[i])));
        *same_modes += memcmp(P->mc.prev, Q->mc.prev, (size_t)m) == 0;
        memcpy(za, ya, sizeof(double) * (size_t)n);
        memcpy(zb, yb, sizeof(double) * (size_t)n);
    }
    free(za);
    free(zb);
    free(ya);
    free(yb);
    free(la);
    free(lb);
    free(w0);
    free(w1);
    if (keepP) *keepP = P;
    else nsc_onestep_free(P);
    nsc_onestep_free(Q);
    if (!keepP) nsc_lcs_free(L);
    nsc_circuit_free(c);
}

static void no_incremental(nsc_onestep *Q)
{
    Q->inc.track = 0;
}

/* A 30-stage chain (600 pairs, too many for affine maps): the incremental check evaluates only the pairs
 * whose inputs changed, and gives bitwise the full check's z and l. */
Test(smlcp, incremental_check_is_exact)
{
    char *t = chain(30);
    double dz, dl;
    int same;
    nsc_onestep *P;
    twin_rest = 1;
    twin_steps(t, 1e-12, 3000, no_incremental, &dz, &dl, &same, &P);
    twin_rest = 0;
    cr_assert(P->inc.track && P->inc.ok, "the incremental check was not used");
    cr_assert_eq(dz, 0.0, "z differs by %g", dz);
    cr_assert_eq(dl, 0.0, "l differs by %g", dl);
    cr_assert_eq(same, 3000);
    const nsc_lcs *L = P->L;
    nsc_onestep_free(P);
    nsc_lcs_free((nsc_lcs *)L);
    free(t);
}

/* The same chain at 0.1 ns steps, where on most steps twenty nodes or more
 * move and their columns of C mark every pair: the step's check is then the
 * full one (onestep_mode.c changed_z), which must leave the incremental
 * check's reference (zref, mref, the caller's l) as an accepted incremental
 * check would; the steps where few nodes move take the incremental check from
 * it. z, l and the modes bitwise those of full checks only. */
Test(smlcp, full_check_where_most_nodes_move_is_exact)
{
    char *t = chain(30);
    double dz, dl;
    int same;
    nsc_onestep *P;
    twin_rest = 1;
    twin_steps(t, 2e-11, 1000, no_incremental, &dz, &dl, &same, &P);
    twin_rest = 0;
    cr_assert(P->inc.track && P->inc.ok, "the incremental check was not used");
    cr_assert_eq(dz, 0.0, "z differs by %g", dz);
    cr_assert_eq(dl, 0.0, "l differs by %g", dl);
    cr_assert_eq(same, 1000);
    const nsc_lcs *L = P->L;
    nsc_onestep_free(P);
    nsc_lcs_free((nsc_lcs *)L);
    free(t);
}

/* Q without sorted runs: rsort cleared and the full check's unit lists made
 * as unit_lists makes them then (every srun is rsort: check_all does not test
 * it again), each run's head among the other heads (their order is free:
 * check_all's results are per pair). */
static void no_sorted_runs(nsc_onestep *Q)
{
    memset(Q->pat.rsort, 0, (size_t)Q->m);
    for (int u = 0; u < Q->pat.nsrun; u++) Q->pat.other[Q->pat.nother++] = Q->pat.srun[u].i0;
    Q->pat.nsrun = 0;
}

/* The full check's sorted runs (onestep_mode.c run_sorted: a PWL MOS side's
 * segments, e0 nondecreasing, checked at the boundary of their active prefix)
 * against the pair-by-pair loop (rsort cleared): a 30-stage chain at 20 ps
 * steps from rest (every node moves: full checks), its edges flipping
 * segments (boundaries that fail and fall back). z, l and the modes bitwise
 * equal at each of 1000 steps. */
Test(smlcp, sorted_run_check_is_exact)
{
    char *t = chain(30);
    double dz, dl;
    int same;
    nsc_onestep *P;
    twin_rest = 1;
    twin_steps(t, 2e-11, 1000, no_sorted_runs, &dz, &dl, &same, &P);
    twin_rest = 0;
    int heads = 0, modes = 0;
    for (int i = 0; i < P->m; i++) heads += P->pat.rsort[i];
    cr_assert_eq(heads, 120, "%d sorted runs (4 a stage: each transistor's two sides)", heads);
    for (int s = 0; s < NSC_MODE_CACHE; s++) { /* each cached mode's prefixes: its mask's */
        const nsc_mode *M = &P->mc.modes[s];
        if (!M->mask) continue;
        modes++;
        for (int i = 0; i < P->m; i++) {
            if (!P->pat.rsort[i]) continue;
            int end = P->pat.runend[i], k = 0, pre = 0;
            while (i + k < end && M->mask[i + k]) k++;
            pre = k;
            for (int j = i + k; j < end; j++)
                if (M->mask[j]) pre = NSC_PRE_NONE;
            cr_assert_eq(M->pre[i], pre, "mode %d, run %d: prefix %d, its mask's %d", s, i,
                         M->pre[i], pre);
        }
    }
    cr_assert(modes > 10, "%d modes cached", modes);
    cr_assert_eq(dz, 0.0, "z differs by %g", dz);
    cr_assert_eq(dl, 0.0, "l differs by %g", dl);
    cr_assert_eq(same, 1000);
    const nsc_lcs *L = P->L;
    nsc_onestep_free(P);
    nsc_lcs_free((nsc_lcs *)L);
    free(t);
}

/* A mode's key carried across problems (nsc_onestep_mode_key, set_mode_key:
 * the adaptive stepper's guess for a problem of another step size): a
 * 30-stage chain stepped 600 times at 20 ps from rest by P; at each step Q and
 * R (10 ps, one problem each) take P's mode, Q with its key and R without,
 * and step from P's start. The key each keeps is its mode's hash wherever it
 * is kept, and Q's z, l, mode and cache counts are bitwise R's (the key only
 * spares the hash; the cache's lookups and evictions are the same). */
Test(smlcp, carried_mode_key_steps_as_the_hash)
{
    char *t = chain(30);
    nsc_circuit *c = tu_parse(t);
    nsc_lcs *L = assemble(c);
    int n = L->n, m = L->m, ns = L->nsrc;
    nsc_onestep *P = problem(L, 2e-11), *Q = problem(L, 1e-11), *R = problem(L, 1e-11);
    double *z0 = calloc((size_t)n, sizeof(double)), *z1 = calloc((size_t)n, sizeof(double));
    double *zq = calloc((size_t)n, sizeof(double)), *zr = calloc((size_t)n, sizeof(double));
    double *l = calloc((size_t)m, sizeof(double)), *lq = calloc((size_t)m, sizeof(double));
    double *lr = calloc((size_t)m, sizeof(double));
    double *w0 = calloc((size_t)ns + 1, sizeof(double)),
           *w1 = calloc((size_t)ns + 1, sizeof(double));
    double *wq = calloc((size_t)ns + 1, sizeof(double));
    chain_rest(L, z0);
    int kept = 0, changed = 0;
    for (int k = 0; k < 600; k++) {
        for (int j = 0; j < ns; j++) {
            w0[j] = nsc_wave_eval(L->src[j].wave, k * 2e-11);
            w1[j] = nsc_wave_eval(L->src[j].wave, (k + 1) * 2e-11);
            wq[j] = nsc_wave_eval(L->src[j].wave, k * 2e-11 + 1e-11);
        }
        nsc_step_info info;
        if (k > 0) { /* P's mode at t_k */
            const char *mode = nsc_onestep_mode(P);
            uint64_t key = nsc_onestep_mode_key(P);
            cr_assert_eq(key, nsc_mode_key(P, mode), "step %d: the key kept is not the mode's", k);
            nsc_onestep_set_mode_key(Q, mode, key);
            nsc_onestep_set_mode(R, mode);
            cr_assert(Q->mc.prevkey_ok && Q->mc.prevkey == nsc_mode_key(Q, Q->mc.prev),
                      "step %d: Q's key", k);
            memcpy(lq, l, sizeof(double) * (size_t)m);
            memcpy(lr, l, sizeof(double) * (size_t)m);
            cr_assert_eq(nsc_onestep_step(Q, NSC_SOLVER_AUTO, z0, w0, wq, zq, lq, &info), 0,
                         "step %d", k);
            cr_assert_eq(nsc_onestep_step(R, NSC_SOLVER_AUTO, z0, w0, wq, zr, lr, &info), 0,
                         "step %d", k);
            cr_assert(memcmp(zq, zr, sizeof(double) * (size_t)n) == 0, "step %d: z differs", k);
            cr_assert(memcmp(lq, lr, sizeof(double) * (size_t)m) == 0, "step %d: l differs", k);
            cr_assert(memcmp(nsc_onestep_mode(Q), nsc_onestep_mode(R), (size_t)m) == 0,
                      "step %d: modes differ", k);
            cr_assert_eq(nsc_onestep_nfactor(Q), nsc_onestep_nfactor(R), "step %d", k);
            cr_assert_eq(nsc_onestep_ncached(Q), nsc_onestep_ncached(R), "step %d", k);
            kept += P->mc.prevkey_ok;
            for (int q = 0; q < 2; q++) { /* a key kept is its mode's */
                const nsc_onestep *S = q ? R : Q;
                cr_assert(!S->mc.prevkey_ok || S->mc.prevkey == nsc_mode_key(S, S->mc.prev),
                          "step %d", k);
            }
        }
        cr_assert_eq(nsc_onestep_step(P, NSC_SOLVER_AUTO, z0, w0, w1, z1, l, &info), 0, "step %d",
                     k);
        if (k > 0 && memcmp(nsc_onestep_mode(P), nsc_onestep_mode(Q), (size_t)m)) changed++;
        memcpy(z0, z1, sizeof(double) * (size_t)n);
    }
    cr_assert(changed > 10, "only %d steps changed mode: the test saw few lookups", changed);
    cr_assert(kept > 500, "P kept its mode's key at %d of 599 steps", kept);
    free(z0);
    free(z1);
    free(zq);
    free(zr);
    free(l);
    free(lq);
    free(lr);
    free(w0);
    free(w1);
    free(wq);
    nsc_onestep_free(P);
    nsc_onestep_free(Q);
    nsc_onestep_free(R);
    nsc_lcs_free(L);
    nsc_circuit_free(c);
    free(t);
}

/* nsc_onestep_changed (the stepper's peak multipliers use it): a 30-stage
 * chain (600 pairs, incremental check) stepped 3000 times at 1 ps from rest
 * (the input's edges run down it); every pair
 * it does not list keeps bitwise the l it had before the step, and the list is
 * short (what the step's check evaluated), not every pair. */
#define SETTLE 5000
Test(smlcp, changed_pairs_cover_every_change)
{
    char *t = chain(30);
    nsc_circuit *c = tu_parse(t);
    nsc_lcs *L = assemble(c);
    int n = L->n, m = L->m, ns = L->nsrc;
    nsc_onestep *P = problem(L, 1e-12);
    double *z0 = calloc((size_t)n, sizeof(double)), *z1 = calloc((size_t)n, sizeof(double));
    double *l = calloc((size_t)m, sizeof(double)), *lb = calloc((size_t)m, sizeof(double));
    double *w0 = calloc((size_t)ns + 1, sizeof(double)),
           *w1 = calloc((size_t)ns + 1, sizeof(double));
    char *listed = calloc((size_t)m, 1);
    int stage;
    for (int k = 0; k < n; k++) { /* at rest: v(n_i) = 5 V for odd i */
        if (!strcmp(L->zname[k], "v(vdd)")) z0[k] = 5;
        if (sscanf(L->zname[k], "v(n%d)", &stage) == 1) z0[k] = stage % 2 ? 5 : 0;
    }
    long listed_steps = 0, listed_pairs = 0, changed = 0;
    for (int k = -SETTLE; k < 3000; k++) { /* k < 0: the sources held at t = 0 */
        for (int j = 0; j < ns; j++) {
            w0[j] = nsc_wave_eval(L->src[j].wave, k < 0 ? 0.0 : k * 1e-12);
            w1[j] = nsc_wave_eval(L->src[j].wave, k < 0 ? 0.0 : (k + 1) * 1e-12);
        }
        memcpy(lb, l, sizeof(double) * (size_t)m);
        nsc_step_info info;
        cr_assert_eq(nsc_onestep_step(P, NSC_SOLVER_AUTO, z0, w0, w1, z1, l, &info), 0, "step %d",
                     k);
        const int *ch;
        int nch = nsc_onestep_changed(P, &ch);
        if (k < 0) {
            memcpy(z0, z1, sizeof(double) * (size_t)n);
            continue;
        }
        if (nch < 0) {
            cr_assert_null(ch);
        } else {
            listed_steps++;
            listed_pairs += nch;
            memset(listed, 0, (size_t)m);
            for (int q = 0; q < nch; q++) {
                cr_assert(ch[q] >= 0 && ch[q] < m);
                listed[ch[q]] = 1;
            }
            for (int i = 0; i < m; i++) {
                changed += memcmp(&l[i], &lb[i], sizeof(double)) != 0;
                cr_assert(listed[i] || memcmp(&l[i], &lb[i], sizeof(double)) == 0,
                          "step %d: pair %d changed %.17g -> %.17g, not listed", k, i, lb[i], l[i]);
            }
        }
        memcpy(z0, z1, sizeof(double) * (size_t)n);
    }
    cr_assert(listed_steps > 2900, "only %ld of 3000 steps listed their pairs", listed_steps);
    cr_assert(changed > 0, "no listed step changed any l: the test saw nothing");
    cr_assert(listed_pairs < listed_steps * (m / 4), "%ld pairs listed in %ld steps of %d pairs",
              listed_pairs, listed_steps, m);
    free(z0);
    free(z1);
    free(l);
    free(lb);
    free(w0);
    free(w1);
    free(listed);
    nsc_onestep_free(P);
    nsc_lcs_free(L);
    nsc_circuit_free(c);
    free(t);
}

static void no_map(nsc_onestep *Q)
{
    nsc_map_free(Q->map);
    Q->map = NULL;
}

/* The buck of netlists/ (24 pairs): steps by the affine maps of its modes agree
 * with sparse solves to round-off, mode for mode. */
Test(smlcp, affine_map_matches_sparse_solves)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/netlists/buck.cir", NSC_TOP_SRCDIR);
    FILE *f = fopen(path, "rb");
    cr_assert(f, "%s", path);
    static char text[1 << 16];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = 0;
    double dz, dl;
    int same;
    nsc_onestep *P;
    twin_steps(text, 50e-12, 40000, no_map, &dz, &dl, &same,
               &P); /* 2 us: the soft start's first PWM periods */
    int maps = 0;
    for (int k = 0; k < NSC_MODE_CACHE; k++) maps += P->mc.modes[k].G != NULL;
    cr_assert(P->map && maps > 0, "no affine map was built");
    cr_assert(dz < 1e-9, "z differs by %g", dz);
    cr_assert(dl < 1e-7, "l differs by %g", dl);
    cr_assert_eq(same, 40000);
    const nsc_lcs *L = P->L;
    nsc_onestep_free(P);
    nsc_lcs_free((nsc_lcs *)L);
}

/* 1000 stages, 20 000 pairs: the transient runs without forming any dense
 * matrix (no M, no W^-1 B, no Lemke tableau); the first stage switches. */
Test(smlcp, large_chain_no_dense_matrices)
{
    char *t = chain(1000);
    nsc_circuit *c = tu_parse(t);
    nsc_lcs *L = assemble(c);
    cr_assert_eq(L->m, 20000);
    int n = L->n, m = L->m, ns = L->nsrc;
    nsc_onestep *P = problem(L, 1e-12);
    cr_assert(P->inc.track);
    double *z0 = calloc((size_t)n, sizeof(double)), *z1 = calloc((size_t)n, sizeof(double));
    double *l = calloc((size_t)m, sizeof(double)), *w0 = calloc((size_t)ns, sizeof(double));
    double *w1 = calloc((size_t)ns, sizeof(double));
    int in = -1, out1 = -1, stage;
    for (int k = 0; k < n; k++) { /* at rest: v(n_i) = 5 V for odd i */
        if (!strcmp(L->zname[k], "v(n0)")) in = k;
        if (!strcmp(L->zname[k], "v(n1)")) out1 = k;
        if (!strcmp(L->zname[k], "v(vdd)")) z0[k] = 5;
        if (sscanf(L->zname[k], "v(n%d)", &stage) == 1) z0[k] = stage % 2 ? 5 : 0;
    }
    double v1_before = 0;
    for (int k = 0; k < 800; k++) { /* 0.8 ns: the input rises at 0.1-0.2 ns */
        for (int j = 0; j < ns; j++) {
            w0[j] = nsc_wave_eval(L->src[j].wave, k * 1e-12);
            w1[j] = nsc_wave_eval(L->src[j].wave, (k + 1) * 1e-12);
        }
        nsc_step_info info;
        cr_assert_eq(nsc_onestep_step(P, NSC_SOLVER_AUTO, z0, w0, w1, z1, l, &info), 0, "step %d",
                     k);
        memcpy(z0, z1, sizeof(double) * (size_t)n);
        if (k == 90) v1_before = z0[out1];
    }
    cr_assert_null(P->dn.M);
    cr_assert_null(P->dn.WiB);
    cr_assert_null(P->dn.ws);
    cr_assert_null(P->map);
    cr_assert_float_eq(z0[in], 5.0, 1e-9);
    cr_assert(v1_before > 4.9 && z0[out1] < 1.0, "stage 1 did not switch: %g -> %g V", v1_before,
              z0[out1]);
    free(z0);
    free(z1);
    free(l);
    free(w0);
    free(w1);
    nsc_onestep_free(P);
    nsc_lcs_free(L);
    nsc_circuit_free(c);
    free(t);
}

/* nsc_onestep_renew: a problem of step h1 that has stepped (modes cached, a
 * mode guess, maps built), made in place the problem of h2, then steps bit for
 * bit as a problem built for h2: the buck (maps, switches off) and MIXED (ideal
 * diodes, a comparator step); a static problem (h = 0) is not renewed. */
static void renew_vs_new(const char *net, double h1, double h2, int steps)
{
    nsc_circuit *c = tu_parse(net);
    nsc_lcs *L = assemble(c);
    int n = L->n, m = L->m, ns = L->nsrc;
    nsc_onestep *P = problem(L, h1), *Q = problem(L, h2);
    double *za = calloc((size_t)n, sizeof(double)), *zb = calloc((size_t)n, sizeof(double));
    double *ya = calloc((size_t)n, sizeof(double)), *yb = calloc((size_t)n, sizeof(double));
    double *la = calloc((size_t)m + 1, sizeof(double)), *lb = calloc((size_t)m + 1, sizeof(double));
    double *w0 = calloc((size_t)ns + 1, sizeof(double)),
           *w1 = calloc((size_t)ns + 1, sizeof(double));
    nsc_step_info ia, ib;
    for (int k = 0; k < steps; k++) { /* P's history at h1 */
        for (int j = 0; j < ns; j++) {
            w0[j] = nsc_wave_eval(L->src[j].wave, k * h1);
            w1[j] = nsc_wave_eval(L->src[j].wave, (k + 1) * h1);
        }
        cr_assert_eq(nsc_onestep_step(P, NSC_SOLVER_AUTO, za, w0, w1, ya, la, &ia), 0, "step %d",
                     k);
        memcpy(za, ya, sizeof(double) * (size_t)n);
    }
    cr_assert(P->mc.nmodes > 0);
    cr_assert_eq(nsc_onestep_renew(P, h2), 0);
    cr_assert(nsc_onestep_h(P) == h2);
    memcpy(zb, za, sizeof(double) * (size_t)n);
    memcpy(lb, la, sizeof(double) * (size_t)m);
    double t0 = steps * h1;
    for (int k = 0; k < steps; k++) { /* both at h2 from the same state */
        for (int j = 0; j < ns; j++) {
            w0[j] = nsc_wave_eval(L->src[j].wave, t0 + k * h2);
            w1[j] = nsc_wave_eval(L->src[j].wave, t0 + (k + 1) * h2);
        }
        int a = nsc_onestep_step(P, NSC_SOLVER_AUTO, za, w0, w1, ya, la, &ia);
        int b = nsc_onestep_step(Q, NSC_SOLVER_AUTO, zb, w0, w1, yb, lb, &ib);
        cr_assert_eq(a, b, "step %d", k);
        cr_assert_eq(memcmp(ya, yb, sizeof(double) * (size_t)n), 0, "step %d: z differs", k);
        cr_assert_eq(memcmp(la, lb, sizeof(double) * (size_t)m), 0, "step %d: l differs", k);
        cr_assert_eq(ia.mode_hit, ib.mode_hit, "step %d", k);
        cr_assert_eq(ia.iter, ib.iter, "step %d", k);
        memcpy(za, ya, sizeof(double) * (size_t)n);
        memcpy(zb, yb, sizeof(double) * (size_t)n);
    }
    cr_assert_eq(nsc_onestep_nfactor(P), nsc_onestep_nfactor(Q));
    cr_assert_eq(nsc_onestep_ncached(P), nsc_onestep_ncached(Q));
    free(za);
    free(zb);
    free(ya);
    free(yb);
    free(la);
    free(lb);
    free(w0);
    free(w1);
    nsc_onestep_free(P);
    nsc_onestep_free(Q);
    nsc_onestep *S = problem(L, 0.0);
    cr_assert_eq(nsc_onestep_renew(S, 1e-9), -1);
    nsc_onestep_free(S);
    nsc_lcs_free(L);
    nsc_circuit_free(c);
}

Test(smlcp, renewed_problem_steps_as_a_new_one)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/netlists/buck.cir", NSC_TOP_SRCDIR);
    FILE *f = fopen(path, "rb");
    cr_assert(f, "%s", path);
    static char text[1 << 16];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = 0;
    renew_vs_new(text, 1e-9, 0.37e-9, 3000);
    renew_vs_new(MIXED, 1e-9, 2.5e-9, 400);
}

/* A problem built by copying a sibling's pattern structures (nsc_onestep_opts.like,
 * what the stepper's cache does for each new step size) is the one built without it
 * bit for bit: the sibling S stepped `steps` times at h1 and renewed to h3 (its
 * work arrays used, its Wb refreshed by nsc_mode_renew), then Q copied from it
 * and R built from scratch at h2; Wb's values equal, and both stepped from S's
 * state give the same z, l, modes and factorisations. Q shares S's pattern
 * arrays (not copies: nsc_os_pat.share) and keeps them once S is freed, before
 * it steps (the sanitizer build sees any use after free). */
/* Q made like S shares S's pattern arrays (and keeps them once S is freed:
 * frees S) and holds what R, made anew, holds. */
static void like_shares(nsc_onestep *S, const nsc_onestep *Q, const nsc_onestep *R, int n)
{
    cr_assert(nsc_mode_like(R, S), "the copy was not taken (patterns differ)");
    cr_assert(Q->pat.ccoef == S->pat.ccoef && Q->pat.srun == S->pat.srun && Q->pat.hs == S->pat.hs
                  && *Q->pat.share == 2,
              "the pattern arrays are not shared");
    cr_assert(Q->pat.Wb != S->pat.Wb && R->pat.share != S->pat.share);
    nsc_onestep_free(S); /* Q keeps the arrays it shares */
    cr_assert_eq(*Q->pat.share, 1);
    cr_assert_eq(Q->pat.Wb->p[n], R->pat.Wb->p[n]);
    cr_assert_eq(memcmp(Q->pat.Wb->x, R->pat.Wb->x, sizeof(double) * (size_t)R->pat.Wb->p[n]), 0,
                 "Wb's values differ");
    cr_assert_eq(Q->pat.npos, R->pat.npos);
    cr_assert_eq(memcmp(Q->pat.ccoef, R->pat.ccoef,
                        sizeof(double) * (size_t)R->pat.pc[R->pat.npos]),
                 0, "contributions differ");
}

static void like_vs_new(const char *net, double h1, double h2, double h3, int steps)
{
    nsc_circuit *c = tu_parse(net);
    nsc_lcs *L = assemble(c);
    int n = L->n, m = L->m, ns = L->nsrc;
    nsc_report r;
    nsc_report_init(&r);
    nsc_onestep *S = NULL, *Q = NULL, *R = NULL;
    cr_assert_eq(nsc_onestep_new(L, &(nsc_onestep_opts){ .h = h1, .theta = 0.5, .theta_alg = 0.5 },
                                 &S, &r),
                 NSC_OK);
    double *za = calloc((size_t)n, sizeof(double)), *zb = calloc((size_t)n, sizeof(double));
    double *ya = calloc((size_t)n, sizeof(double)), *yb = calloc((size_t)n, sizeof(double));
    double *la = calloc((size_t)m + 1, sizeof(double)), *lb = calloc((size_t)m + 1, sizeof(double));
    double *w0 = calloc((size_t)ns + 1, sizeof(double)),
           *w1 = calloc((size_t)ns + 1, sizeof(double));
    nsc_step_info ia, ib;
    for (int k = 0; k < steps; k++) { /* S's history at h1 */
        for (int j = 0; j < ns; j++) {
            w0[j] = nsc_wave_eval(L->src[j].wave, k * h1);
            w1[j] = nsc_wave_eval(L->src[j].wave, (k + 1) * h1);
        }
        cr_assert_eq(nsc_onestep_step(S, NSC_SOLVER_AUTO, za, w0, w1, ya, la, &ia), 0, "step %d",
                     k);
        memcpy(za, ya, sizeof(double) * (size_t)n);
    }
    cr_assert_eq(nsc_onestep_renew(S, h3), 0);
    cr_assert_eq(nsc_onestep_new(L,
                                 &(nsc_onestep_opts){
                                     .h = h2, .theta = 0.5, .theta_alg = 0.5, .like = S },
                                 &Q, &r),
                 NSC_OK);
    cr_assert_eq(nsc_onestep_new(L, &(nsc_onestep_opts){ .h = h2, .theta = 0.5, .theta_alg = 0.5 },
                                 &R, &r),
                 NSC_OK);
    like_shares(S, Q, R, n);
    S = NULL;
    memcpy(zb, za, sizeof(double) * (size_t)n);
    memcpy(lb, la, sizeof(double) * (size_t)m);
    double t0 = steps * h1;
    for (int k = 0; k < steps; k++) { /* both at h2 from the same state */
        for (int j = 0; j < ns; j++) {
            w0[j] = nsc_wave_eval(L->src[j].wave, t0 + k * h2);
            w1[j] = nsc_wave_eval(L->src[j].wave, t0 + (k + 1) * h2);
        }
        int a = nsc_onestep_step(Q, NSC_SOLVER_AUTO, za, w0, w1, ya, la, &ia);
        int b = nsc_onestep_step(R, NSC_SOLVER_AUTO, zb, w0, w1, yb, lb, &ib);
        cr_assert_eq(a, b, "step %d", k);
        cr_assert_eq(memcmp(ya, yb, sizeof(double) * (size_t)n), 0, "step %d: z differs", k);
        cr_assert_eq(memcmp(la, lb, sizeof(double) * (size_t)m), 0, "step %d: l differs", k);
        cr_assert_eq(ia.mode_hit, ib.mode_hit, "step %d", k);
        cr_assert_eq(ia.iter, ib.iter, "step %d", k);
        memcpy(za, ya, sizeof(double) * (size_t)n);
        memcpy(zb, yb, sizeof(double) * (size_t)n);
    }
    cr_assert_eq(nsc_onestep_nfactor(Q), nsc_onestep_nfactor(R));
    cr_assert_eq(nsc_onestep_ncached(Q), nsc_onestep_ncached(R));
    nsc_onestep_free(S);
    nsc_onestep_free(Q);
    nsc_onestep_free(R);
    nsc_report_free(&r);
    free(za);
    free(zb);
    free(ya);
    free(yb);
    free(la);
    free(lb);
    free(w0);
    free(w1);
    nsc_lcs_free(L);
    nsc_circuit_free(c);
}

Test(smlcp, copied_setup_steps_as_a_new_one)
{
    char *t = chain(30);
    like_vs_new(t, 1e-12, 0.7e-12, 2e-12, 2000);
    free(t);
    like_vs_new(MIXED, 1e-9, 2.5e-9, 0.5e-9, 400);
}

/* The shared analyses (nsc_klu_syms): two matrices of one pattern, different
 * values, factored through the cache share one analysis and give bitwise the
 * solutions of private factorisations; another pattern gets its own; the
 * factorisations outlive the cache; past NSC_KLU_SYMS patterns the oldest are
 * dropped, and are analysed again when met again. */
static nsc_sparse *tridiag(int n, double a, int full)
{
    nsc_sparse *T = nsc_sp_new(n, n, 3 * n + 1, 1);
    for (int i = 0; i < n; i++) {
        nsc_sp_entry(T, i, i, 4 + a * i);
        if (i > 0) nsc_sp_entry(T, i, i - 1, -1 - a);
        if (i + 1 < n) nsc_sp_entry(T, i, i + 1, -1 + a);
        if (full && i > 1) nsc_sp_entry(T, i, 0, 0.5);
    }
    nsc_sparse *A = nsc_sp_compress(T);
    nsc_sp_free(T);
    return A;
}

Test(smlcp, klu_shared_analysis_is_exact)
{
    nsc_klu_syms *S = nsc_klu_syms_new();
    cr_assert(S);
    nsc_sparse *A1 = tridiag(30, 0.1, 0), *A2 = tridiag(30, 0.3, 0), *A3 = tridiag(30, 0.1, 1);
    nsc_sparse *A[3] = { A1, A2, A3 };
    nsc_klu *Fs[3], *Fp[3];
    int sing;
    for (int k = 0; k < 3; k++) {
        Fs[k] = nsc_klu_factor_in(S, A[k], &sing);
        Fp[k] = nsc_klu_factor(A[k], &sing);
        cr_assert(Fs[k] && Fp[k]);
    }
    long made, found;
    nsc_klu_syms_counts(S, &made, &found);
    cr_assert_eq(made, 2);
    cr_assert_eq(found, 1);
    nsc_klu_syms_free(S); /* the factorisations keep theirs */
    for (int k = 0; k < 3; k++) {
        double x[30], y[30];
        for (int i = 0; i < 30; i++) x[i] = y[i] = sin(i + 1.0);
        cr_assert_eq(nsc_klu_solve(Fs[k], x, 1), 0);
        cr_assert_eq(nsc_klu_solve(Fp[k], y, 1), 0);
        cr_assert_eq(memcmp(x, y, sizeof x), 0, "matrix %d: shared and private analyses differ", k);
        double r[30] = { 0 }; /* A x = b */
        for (int j = 0; j < 30; j++)
            for (int q = A[k]->p[j]; q < A[k]->p[j + 1]; q++) r[A[k]->i[q]] += A[k]->x[q] * x[j];
        for (int i = 0; i < 30; i++) cr_assert_float_eq(r[i], sin(i + 1.0), 1e-13);
        nsc_klu_free(Fs[k]);
        nsc_klu_free(Fp[k]);
    }
    S = nsc_klu_syms_new();
    for (int k = 0; k < NSC_KLU_SYMS + 2; k++) { /* k + 2 unknowns: a pattern each */
        nsc_sparse *B = tridiag(k + 2, 0.2, 0);
        nsc_klu *F = nsc_klu_factor_in(S, B, &sing);
        cr_assert(F);
        nsc_klu_free(F);
        nsc_sp_free(B);
    }
    nsc_sparse *B = tridiag(2, 0.2, 0), *Bl = tridiag(NSC_KLU_SYMS + 3, 0.2, 0);
    nsc_klu *F1 = nsc_klu_factor_in(S, B, &sing), *F2 = nsc_klu_factor_in(S, Bl, &sing);
    cr_assert(F1 && F2);
    nsc_klu_syms_counts(S, &made, &found);
    cr_assert_eq(made, NSC_KLU_SYMS + 3, "made %ld", made); /* the first one was dropped */
    cr_assert_eq(found, 1);                                 /* the last one was kept */
    nsc_klu_free(F1);
    nsc_klu_free(F2);
    nsc_sp_free(B);
    nsc_sp_free(Bl);
    nsc_klu_syms_free(S);
    nsc_sp_free(A1);
    nsc_sp_free(A2);
    nsc_sp_free(A3);
}

/* KLU: refactoring in place (same pattern, new values) and refactoring with
 * new pivots give the solution of a fresh factorisation. */
Test(smlcp, klu_refactor_equals_factor)
{
    nsc_sparse *T = nsc_sp_new(4, 4, 16, 1);
    double a[4][4] = { { 4, 1, 0, 0 }, { 1, 5, 2, 0 }, { 0, 2, 6, 1 }, { 1, 0, 1, 3 } };
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            if (a[i][j] != 0) nsc_sp_entry(T, i, j, a[i][j]);
    nsc_sparse *A = nsc_sp_compress(T);
    int sing;
    nsc_klu *F = nsc_klu_factor(A, &sing);
    cr_assert(F);
    for (int k = 0; k < A->p[4]; k++) A->x[k] *= 1.0 + 0.1 * k; /* new values, same pattern */
    nsc_klu *G = nsc_klu_factor(A, &sing);
    double b1[4] = { 1, 2, 3, 4 }, b2[4] = { 1, 2, 3, 4 }, b3[4] = { 1, 2, 3, 4 };
    cr_assert_eq(nsc_klu_refactor(F, A), 0);
    cr_assert_eq(nsc_klu_solve(F, b1, 1), 0);
    cr_assert_eq(nsc_klu_solve(G, b2, 1), 0);
    cr_assert_eq(nsc_klu_factor_num(F, A), 0);
    cr_assert_eq(nsc_klu_solve(F, b3, 1), 0);
    for (int i = 0; i < 4; i++) {
        cr_assert_float_eq(b1[i], b2[i], 1e-14);
        cr_assert_float_eq(b3[i], b2[i], 1e-14);
    }
    double r[4] = { 0 }; /* A x = (1 2 3 4) */
    for (int j = 0; j < 4; j++)
        for (int k = A->p[j]; k < A->p[j + 1]; k++) r[A->i[k]] += A->x[k] * b2[j];
    for (int i = 0; i < 4; i++) cr_assert_float_eq(r[i], i + 1.0, 1e-13);
    cr_assert(nsc_klu_rcondest(F, A) > 0.01);
    nsc_klu_free(F);
    nsc_klu_free(G);
    nsc_sp_free(A);
    nsc_sp_free(T);
}

/* A buck's half-bridge (netlists/buck.cir's power stage: PWL MOS with their
 * bulk junctions, each beside an explicit body diode VF = 0.8 V) driven by a
 * 600 kHz gate with 1 ps edges, stepped at 10 ns from rest (no affine maps:
 * every step a sparse solve, checked against its own r): at each edge one
 * transistor turns off through its segments while the other turns on through
 * its own, its junction and the diode beside it, 9-10 modes of the active-set
 * iteration. Every step settles without pivoting (with at most 8 modes before
 * pivoting, one edge of 17 fell back to Lemke here; 620 trials of the buck's
 * default adaptive run) and solves the MLCP. */
Test(smlcp, half_bridge_edges_settle_without_pivoting)
{
    const char *net =
        "half bridge\nVin vdd 0 3\nMP sw g vdd vdd PMOD W=100u L=100u\nMN sw g 0 0 NMOD W=100u L=100u\n"
        "DP sw vdd DB\nDN 0 sw DB\nL1 sw out 10u\nC1 out 0 22u\nRL out 0 10\n"
        "Vg g 0 PULSE(0 3 0.5u 1p 1p 0.8333u 1.6667u)\n"
        ".model NMOD NMOS(LEVEL=1 VTO=2 KP=10)\n.model PMOD PMOS(LEVEL=1 VTO=-2 KP=10)\n.model DB D(VF=0.8)\n"
        ".tran 10n 14u UIC\n.end\n";
    nsc_circuit *c = tu_parse(net);
    nsc_lcs *L = assemble(c);
    int n = L->n, m = L->m, ns = L->nsrc, pivoted = 0, edges = 0;
    double h = 10e-9;
    nsc_onestep *P = problem(L, h);
    no_map(P);
    double *z0 = calloc((size_t)n, sizeof(double)), *z1 = calloc((size_t)n, sizeof(double));
    double *l = calloc((size_t)m, sizeof(double)), *e1 = calloc((size_t)m, sizeof(double));
    double *w0 = calloc((size_t)ns + 1, sizeof(double)),
           *w1 = calloc((size_t)ns + 1, sizeof(double));
    double *s1 = calloc((size_t)n, sizeof(double));
    char *mode0 = calloc((size_t)m + 1, 1);
    cr_assert(z0 && z1 && l && e1 && w0 && w1 && s1 && mode0);
    for (int k = 0; k < 1400; k++) {
        int gate = 0;
        for (int j = 0; j < ns; j++) {
            w0[j] = nsc_wave_eval(L->src[j].wave, k * h);
            w1[j] = nsc_wave_eval(L->src[j].wave, (k + 1) * h);
            gate |= w1[j] != w0[j];
        }
        nsc_step_info info;
        cr_assert_eq(nsc_onestep_step(P, NSC_SOLVER_AUTO, z0, w0, w1, z1, l, &info), 0, "step %d",
                     k);
        pivoted += info.lcp_solved;
        nsc_lcs_sources(L, (k + 1) * h, NULL, s1, e1);
        double err = mlcp_error(P, z1, l, e1);
        cr_assert(err < 1e-10, "step %d: MLCP error %g", k, err);
        if (k > 0 && gate && memcmp(mode0, nsc_onestep_mode(P), (size_t)m)) edges++;
        memcpy(mode0, nsc_onestep_mode(P), (size_t)m);
        memcpy(z0, z1, sizeof(double) * (size_t)n);
    }
    cr_assert(edges >= 12, "%d switching edges", edges);
    cr_assert_eq(pivoted, 0, "%d of %d edges pivoted", pivoted, edges);
    nsc_onestep_free(P);
    free(z0);
    free(z1);
    free(l);
    free(e1);
    free(w0);
    free(w1);
    free(s1);
    free(mode0);
    nsc_lcs_free(L);
    nsc_circuit_free(c);
}

/* A feed-forward matrix (the inverter chain's shape): unknown k depends on a
 * few earlier ones, rows and columns scrambled so that only KLU's block
 * triangular form finds the order; couple2 adds a 2x2 block (its scope ends). */
static nsc_sparse *feedforward(int n, double a, int couple2)
{
    nsc_sparse *T = nsc_sp_new(n, n, 4 * n + 2, 1);
    for (int k = 0; k < n; k++) {
        int r = (7 * k + 3) % n, c = (11 * k + 5) % n; /* (n prime to 7 and 11) */
        nsc_sp_entry(T, r, c, 3.0 + a * sin(k + 1.0));
        for (int d = 1; d <= 3 && k - d * d >= 0; d++)
            nsc_sp_entry(T, r, (11 * (k - d * d) + 5) % n, -0.7 + a * cos(k * d + 0.5));
    }
    if (couple2)
        nsc_sp_entry(T, 3, (11 * 10 + 5) % n,
                     0.25); /* row of k = 10 -> column of k = 10's successor */
    nsc_sparse *A = nsc_sp_compress(T);
    nsc_sp_free(T);
    return A;
}

/* nsc_klu_solve with one right-hand side (la_klu.c inc_solve recomputes only
 * the unknowns whose inputs changed when the diagonal blocks are 1x1) gives
 * bitwise klu_solve's solution (two right-hand sides: KLU's own loop, each
 * column computed as alone) over a sequence of right-hand sides that change in
 * one, a few or no entries, after a refactorisation with new values (the last
 * solve is stale then) and after new pivots; A x = b holds. */
static void inc_sequence(nsc_klu *F, const nsc_sparse *A, int n, int seed)
{
    double *b = calloc((size_t)n, sizeof(double)), *x = calloc((size_t)n, sizeof(double));
    double *y = calloc(2 * (size_t)n, sizeof(double));
    for (int i = 0; i < n; i++) b[i] = cos(i + seed);
    for (int s = 0; s < 40; s++) {
        int nch = s % 4 == 0 ? 0 : s % 4 == 1 ? 1 : 5;
        for (int c = 0; c < nch; c++) b[(s * 13 + c * 29 + seed) % n] += 0.01 * (c + 1);
        memcpy(x, b, (size_t)n * sizeof(double));
        memcpy(y, b, (size_t)n * sizeof(double));
        memcpy(y + n, b, (size_t)n * sizeof(double));
        cr_assert_eq(nsc_klu_solve(F, x, 1), 0);
        cr_assert_eq(nsc_klu_solve(F, y, 2), 0);
        cr_assert_eq(memcmp(x, y, (size_t)n * sizeof(double)), 0, "solve %d differs from KLU's", s);
        for (int i = 0; i < n; i++) { /* (A x)_i = b_i */
            double r = 0;
            for (int j = 0; j < n; j++)
                for (int q = A->p[j]; q < A->p[j + 1]; q++)
                    if (A->i[q] == i) r += A->x[q] * x[j];
            cr_assert_float_eq(r, b[i], 1e-12, "row %d of solve %d", i, s);
        }
    }
    free(b);
    free(x);
    free(y);
}

Test(smlcp, klu_incremental_solve_is_klus)
{
    int n = 101, sing;
    for (int couple2 = 0; couple2 <= 1; couple2++) {
        nsc_sparse *A = feedforward(n, 0.3, couple2);
        nsc_klu *F = nsc_klu_factor(A, &sing);
        cr_assert(F);
        inc_sequence(F, A, n, 1);
        for (int k = 0; k < A->p[n]; k++) A->x[k] *= 1.0 + 0.01 * (k % 7); /* same pattern */
        cr_assert_eq(nsc_klu_refactor(F, A), 0);
        inc_sequence(F, A, n, 2);
        for (int k = 0; k < A->p[n]; k++) A->x[k] *= 1.0 - 0.02 * (k % 5);
        cr_assert_eq(nsc_klu_factor_num(F, A), 0); /* new pivots */
        inc_sequence(F, A, n, 3);
        nsc_klu_free(F);
        nsc_sp_free(A);
    }
}
