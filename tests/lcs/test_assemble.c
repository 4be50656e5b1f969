/* test_assemble.c -- suites `devices` (each stamp entry by entry against hand-derived
 * dense matrices) and `assemble` (layout, modes, gmin, probes, errors, dump).
 * Circuits are built in memory (tc_* below), independent of the parser. */
#include <criterion/criterion.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuit/circuit.h"
#include "lcs/lcs.h"
#include "devices/cards.h"
#include "devices/device.h"
#include "base/sparse.h"
#include "testutil.h"

/* ---- in-memory circuits ---- */

static const char *tc_file = "t.cir";

static nsc_circuit *tc_new(void)
{
    nsc_circuit *c = calloc(1, sizeof *c);
    c->title = strdup("test");
    c->nnode = 1;
    c->node_name = calloc(64, sizeof(char *));
    c->node_loc = calloc(64, sizeof(nsc_loc));
    c->node_name[0] = strdup("0");
    c->el = calloc(64, sizeof(nsc_element));
    c->model = calloc(8, sizeof(nsc_model));
    c->ic_node = calloc(16, sizeof(int));
    c->ic_val = calloc(16, sizeof(double));
    c->ic_loc = calloc(16, sizeof(nsc_loc));
    c->job.theta = 0.5;
    c->job.gmin = 1e-12;
    return c;
}

static int tc_node(nsc_circuit *c, const char *name, nsc_loc loc)
{
    if (!strcmp(name, "0")) return 0;
    for (int k = 1; k < c->nnode; k++)
        if (!strcmp(c->node_name[k], name)) return k;
    c->node_name[c->nnode] = strdup(name);
    c->node_loc[c->nnode] = loc;
    return c->nnode++;
}

/* Element on line 2 + index, nodes given as names (NULL: unused). */
static nsc_element *tc_el(nsc_circuit *c, nsc_elkind kind, const char *name, const char *n0,
                          const char *n1, const char *n2, const char *n3, double value)
{
    nsc_element *e = &c->el[c->nel];
    e->kind = kind;
    e->name = strdup(name);
    e->loc = (nsc_loc){ tc_file, c->nel + 2, 1 };
    e->ref[0] = e->ref[1] = -1;
    const char *nn[4] = { n0, n1, n2, n3 };
    for (int q = 0; q < 4 && nn[q]; q++) e->node[e->nnode++] = tc_node(c, nn[q], e->loc);
    e->value = value;
    e->wave.kind = NSC_WAVE_DC;
    e->wave.dc = value;
    e->wave.repeat = -1;
    c->nel++;
    return e;
}

static const nsc_model *tc_model(nsc_circuit *c, const char *name, const char *pars)
{
    nsc_model *m = &c->model[c->nmodel++];
    m->name = strdup(name);
    m->type = NSC_MOD_D;
    m->loc = (nsc_loc){ tc_file, 100 + c->nmodel, 1 };
    m->pname = calloc(8, sizeof(char *));
    m->pval = calloc(8, sizeof(double));
    char buf[256];
    snprintf(buf, sizeof buf, "%s", pars);
    for (char *t = strtok(buf, " "); t; t = strtok(NULL, " ")) {
        char *eq = strchr(t, '=');
        *eq = 0;
        m->pname[m->npar] = strdup(t);
        m->pval[m->npar++] = strtod(eq + 1, NULL);
    }
    return m;
}

static void tc_ic(nsc_circuit *c, const char *node, double v)
{
    nsc_loc loc = { tc_file, 200 + c->nic, 1 };
    c->ic_node[c->nic] = tc_node(c, node, loc);
    c->ic_val[c->nic] = v;
    c->ic_loc[c->nic++] = loc;
}

static void tc_free(nsc_circuit *c)
{
    for (int k = 0; k < c->nnode; k++) free(c->node_name[k]);
    for (int k = 0; k < c->nel; k++) {
        free(c->el[k].name);
        free(c->el[k].priv);
    }
    for (int k = 0; k < c->nmodel; k++) {
        for (int q = 0; q < c->model[k].npar; q++) free(c->model[k].pname[q]);
        free(c->model[k].pname);
        free(c->model[k].pval);
        free(c->model[k].name);
    }
    free(c->model);
    free(c->el);
    free(c->node_name);
    free(c->node_loc);
    free(c->ic_node);
    free(c->ic_val);
    free(c->ic_loc);
    free(c->title);
    free(c);
}

/* ---- dense checks ---- */

#define TOL 1e-12

/* Dense matrix M (rows x cols, row-major ref) equals the CSC matrix S. */
static void check_dense(const nsc_sparse *S, int rows, int cols, const double *ref,
                        const char *what)
{
    cr_assert_eq(S->m, rows, "%s: rows %d != %d", what, S->m, rows);
    cr_assert_eq(S->n, cols, "%s: cols %d != %d", what, S->n, cols);
    double *d = nsc_sp_dense(S);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            double got = d[(size_t)j * rows + i], want = ref[i * cols + j];
            cr_assert(fabs(got - want) <= TOL * (1 + fabs(want)), "%s(%d,%d) = %g, expected %g",
                      what, i, j, got, want);
        }
    free(d);
}

static void check_zero(const nsc_sparse *S, const char *what)
{
    double *d = nsc_sp_dense(S);
    for (int k = 0; k < S->m * S->n; k++) cr_assert_eq(d[k], 0.0, "%s not zero at %d", what, k);
    free(d);
}

static void check_vec(const double *v, int n, const double *ref, const char *what)
{
    for (int k = 0; k < n; k++)
        cr_assert(fabs(v[k] - ref[k]) <= TOL * (1 + fabs(ref[k])), "%s[%d] = %g, expected %g", what,
                  k, v[k], ref[k]);
}

/* Solve the n x n row-major system M x = b in place (partial pivoting); b holds nrhs
 * columns (row-major n x nrhs). Returns 0, -1 if singular. */
static int gauss(double *M, double *b, int n, int nrhs)
{
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(M[i * n + k]) > fabs(M[p * n + k])) p = i;
        if (M[p * n + k] == 0) return -1;
        for (int j = 0; j < n; j++) {
            double t = M[k * n + j];
            M[k * n + j] = M[p * n + j];
            M[p * n + j] = t;
        }
        for (int j = 0; j < nrhs; j++) {
            double t = b[k * nrhs + j];
            b[k * nrhs + j] = b[p * nrhs + j];
            b[p * nrhs + j] = t;
        }
        for (int i = k + 1; i < n; i++) {
            double f = M[i * n + k] / M[k * n + k];
            for (int j = k; j < n; j++) M[i * n + j] -= f * M[k * n + j];
            for (int j = 0; j < nrhs; j++) b[i * nrhs + j] -= f * b[k * nrhs + j];
        }
    }
    for (int k = n - 1; k >= 0; k--)
        for (int j = 0; j < nrhs; j++) {
            double s = b[k * nrhs + j];
            for (int i = k + 1; i < n; i++) s -= M[k * n + i] * b[i * nrhs + j];
            b[k * nrhs + j] = s / M[k * n + k];
        }
    return 0;
}

/* Row-major dense copy of a CSC matrix. */
static double *rowmajor(const nsc_sparse *S)
{
    double *d = nsc_sp_dense(S), *r = calloc((size_t)S->m * S->n + 1, sizeof(double));
    for (int i = 0; i < S->m; i++)
        for (int j = 0; j < S->n; j++) r[i * S->n + j] = d[(size_t)j * S->m + i];
    free(d);
    return r;
}

/* Linear static solve 0 = A z + s (no pairs): z. */
static double *static_solve(const nsc_lcs *L, double t)
{
    double *A = rowmajor(L->A), *s = calloc((size_t)L->n, sizeof(double)),
           *e = calloc((size_t)L->m + 1, sizeof(double));
    double *w = calloc((size_t)L->nsrc + 1, sizeof(double));
    nsc_lcs_sources(L, t, w, s, e);
    for (int k = 0; k < L->n; k++) s[k] = -s[k]; /* A z = -s */
    cr_assert_eq(gauss(A, s, L->n, 1), 0, "static matrix singular");
    free(A);
    free(e);
    free(w);
    return s;
}

/* A circuit built by hand, its cards (perhaps changed since) bound as the
 * elaborator binds them, then assembled. */
static nsc_status bind_assemble(nsc_circuit *c, nsc_asm_mode mode, double gmin, nsc_lcs **L,
                                nsc_report *r)
{
    nsc_devices_bind(c);
    return nsc_lcs_assemble(c, mode, gmin, L, r);
}

static nsc_lcs *assemble_ok(nsc_circuit *c, nsc_asm_mode mode, double gmin)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_lcs *L = NULL;
    nsc_status st = bind_assemble(c, mode, gmin, &L, &r);
    cr_assert_eq(st, NSC_OK, "assemble failed: %s", r.error ? r.error : "?");
    cr_assert_not_null(L);
    nsc_report_free(&r);
    return L;
}

/* Assembly must fail with status st and a message containing each of the strings. */
static void assemble_err(nsc_circuit *c, nsc_asm_mode mode, const char *s1, const char *s2)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_lcs *L = NULL;
    nsc_status st = bind_assemble(c, mode, 1e-12, &L, &r);
    cr_assert_eq(st, NSC_ENETLIST, "expected an error");
    cr_assert_null(L);
    cr_assert_not_null(r.error);
    cr_assert(strstr(r.error, s1), "message '%s' lacks '%s'", r.error, s1);
    if (s2) cr_assert(strstr(r.error, s2), "message '%s' lacks '%s'", r.error, s2);
    nsc_report_free(&r);
}

static int find_z(const nsc_lcs *L, const char *name)
{
    for (int k = 0; k < L->n; k++)
        if (!strcmp(L->zname[k], name)) return k;
    cr_assert_fail("no unknown %s", name);
    return -1;
}

/* ================= devices ================= */

/* The device table (device.h) is what every stage asks: each kind has its
 * entry, and the topology fields agree with the class (a capacitor or current
 * source conducts nowhere at DC; a voltage-defining branch or an inductor
 * conducts n+ n-), with terminals inside the first four (a MOS's d-s 0-2, an
 * XSPICE winding's magnetic port 2-3). */
Test(devices, table_is_complete_and_consistent)
{
    for (int k = 0; k < NSC_EL_NKINDS; k++) {
        const nsc_device *d = nsc_device_of((nsc_elkind)k);
        cr_assert(d && (int)d->kind == k && d->what && d->count, "kind %d", k);
        cr_assert(d->ndc >= 0 && d->ndc <= 2, "%s", d->what);
        for (int q = 0; q < d->ndc; q++)
            cr_assert(d->dc[q].a != d->dc[q].b && d->dc[q].a >= 0 && d->dc[q].b >= 0
                          && d->dc[q].a < 4 && d->dc[q].b < 4,
                      "%s", d->what);
        if (d->topo == NSC_TOPO_CAP || d->topo == NSC_TOPO_ISRC)
            cr_assert_eq(d->ndc, 0, "%s", d->what);
        if (d->topo == NSC_TOPO_VDEF || d->topo == NSC_TOPO_IND)
            cr_assert(d->ndc == 1 && d->dc[0].a == 0 && d->dc[0].b == 1, "%s", d->what);
        nsc_tpair port = nsc_dev_port(d);
        cr_assert(port.a != port.b, "%s", d->what);
    }
    cr_assert_eq(nsc_device_of(NSC_EL_NKINDS), NULL);
    nsc_tpair pm = nsc_dev_port(nsc_device_of(NSC_EL_M)),
              pr = nsc_dev_port(nsc_device_of(NSC_EL_R));
    cr_assert(pm.a == 0 && pm.b == 2, "a MOS's port is d-s");
    cr_assert(pr.a == 0 && pr.b == 1, "unset: n+ n-");
}

/* Card letters come from the table too: a letter names at most one device,
 * each device with a letter has a card form and each form a letter, the
 * lookup ignores case, and X (subcircuits), T, A name no device. */
Test(devices, card_letters_name_one_device_each)
{
    int seen[26] = { 0 };
    for (int k = 0; k < NSC_EL_NKINDS; k++) {
        const nsc_device *d = nsc_device_of((nsc_elkind)k);
        cr_assert((d->letter != 0) == (d->card != NSC_CARD_NONE), "%s", d->what);
        cr_assert((d->card == NSC_CARD_OWN) == (d->parse != NULL), "%s", d->what);
        if (!d->letter) continue;
        cr_assert(d->letter >= 'a' && d->letter <= 'z' && !seen[d->letter - 'a']++, "%s: '%c'",
                  d->what, d->letter);
        cr_assert(nsc_device_of_letter(d->letter) == d
                      && nsc_device_of_letter(d->letter - 'a' + 'A') == d,
                  "%s", d->what);
    }
    for (const char *l = "rclkviegfhdmswqba"; *l; l++)
        cr_assert(seen[*l - 'a'], "'%c' has no device", *l);
    cr_assert(!nsc_device_of_letter('x') && !nsc_device_of_letter('t') && !nsc_device_of_letter(0));
}

Test(devices, resistor)
{
    nsc_circuit *c = tc_new();
    tc_el(c, NSC_EL_R, "r1", "a", "b", NULL, NULL, 2.0);
    tc_el(c, NSC_EL_R, "r2", "b", "0", NULL, NULL, 4.0);
    nsc_lcs *L = assemble_ok(c, NSC_ASM_TRAN, 1e-12);
    cr_assert_eq(L->n, 2);
    cr_assert_eq(L->m, 0);
    double A[] = { -0.5, 0.5, 0.5, -0.75 };
    check_dense(L->A, 2, 2, A, "A");
    check_zero(L->E, "E");
    cr_assert_eq(L->ngmin, 0);
    cr_assert_str_eq(L->zname[0], "v(a)");
    cr_assert_str_eq(L->zname[1], "v(b)");
    nsc_lcs_free(L);
    tc_free(c);
}

Test(devices, capacitor)
{
    nsc_circuit *c = tc_new();
    tc_el(c, NSC_EL_C, "c1", "a", "b", NULL, NULL, 3e-6);
    tc_el(c, NSC_EL_C, "c2", "b", "0", NULL, NULL, 1e-6);
    tc_el(c, NSC_EL_R, "r1", "a", "0", NULL, NULL, 1e3);
    tc_el(c, NSC_EL_R, "r2", "b", "0", NULL, NULL, 1e6); /* b needs a DC path (lcs_topo.c) */
    nsc_lcs *L = assemble_ok(c, NSC_ASM_TRAN, 1e-12);
    double E[] = { 3e-6, -3e-6, -3e-6, 4e-6 };
    double A[] = { -1e-3, 0, 0, -1e-6 };
    check_dense(L->E, 2, 2, E, "E");
    check_dense(L->A, 2, 2, A, "A");
    cr_assert_eq(L->ngmin, 0, "capacitors tie b to ground in TRAN");
    nsc_lcs_free(L);
    tc_free(c);
}

Test(devices, inductor)
{
    nsc_circuit *c = tc_new();
    tc_el(c, NSC_EL_L, "l1", "a", "b", NULL, NULL, 1e-3);
    tc_el(c, NSC_EL_R, "r1", "a", "0", NULL, NULL, 1.0);
    tc_el(c, NSC_EL_R, "r2", "b", "0", NULL, NULL, 2.0);
    nsc_lcs *L = assemble_ok(c, NSC_ASM_TRAN, 1e-12);
    cr_assert_eq(L->n, 3);
    cr_assert_str_eq(L->zname[2], "i(l1)");
    cr_assert_eq(L->el_branch[0], 2);
    cr_assert_eq(L->z_el[2], 0);
    cr_assert_eq(L->z_el[0], -1);
    /* z = v(a) v(b) i(l1) */
    double A[] = { -1, 0, -1, 0, -0.5, 1, 1, -1, 0 };
    double E[] = { 0, 0, 0, 0, 0, 0, 0, 0, 1e-3 };
    check_dense(L->A, 3, 3, A, "A");
    check_dense(L->E, 3, 3, E, "E");
    nsc_lcs_free(L);
    tc_free(c);
}

Test(devices, mutual_inductance)
{
    nsc_circuit *c = tc_new();
    tc_el(c, NSC_EL_L, "l1", "a", "0", NULL, NULL, 4e-3);
    tc_el(c, NSC_EL_L, "l2", "b", "0", NULL, NULL, 9e-3);
    nsc_element *k = tc_el(c, NSC_EL_K, "k1", NULL, NULL, NULL, NULL, 0.5);
    k->ref[0] = 0;
    k->ref[1] = 1;
    tc_el(c, NSC_EL_R, "r1", "a", "0", NULL, NULL, 1.0);
    tc_el(c, NSC_EL_R, "r2", "b", "0", NULL, NULL, 1.0);
    nsc_lcs *L = assemble_ok(c, NSC_ASM_TRAN, 1e-12);
    /* z = v(a) v(b) i(l1) i(l2); M = 0.5 sqrt(4e-3 * 9e-3) = 3e-3 */
    double E[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4e-3, 3e-3, 0, 0, 3e-3, 9e-3 };
    check_dense(L->E, 4, 4, E, "E");
    nsc_lcs_free(L);
    /* static modes: no E at all */
    L = assemble_ok(c, NSC_ASM_OP, 1e-12);
    cr_assert_eq(L->E->p[L->E->n], 0);
    nsc_lcs_free(L);
    /* K naming a resistor is an error */
    c->el[2].ref[1] = 3;
    assemble_err(c, NSC_ASM_TRAN, "t.cir:4:1: error:", "k1");
    tc_free(c);
}

Test(devices, voltage_source)
{
    nsc_circuit *c = tc_new();
    tc_el(c, NSC_EL_V, "v1", "a", "b", NULL, NULL, 5.0);
    tc_el(c, NSC_EL_R, "r1", "a", "0", NULL, NULL, 1.0);
    tc_el(c, NSC_EL_R, "r2", "b", "0", NULL, NULL, 4.0);
    nsc_lcs *L = assemble_ok(c, NSC_ASM_TRAN, 1e-12);
    cr_assert_eq(L->n, 3);
    cr_assert_eq(L->nsrc, 1);
    cr_assert_eq(L->src[0].el, 0);
    cr_assert_eq(L->src[0].wave, &c->el[0].wave);
    double A[] = { -1, 0, -1, 0, -0.25, 1, 1, -1, 0 };
    double Ss[] = { 0, 0, -1 };
    check_dense(L->A, 3, 3, A, "A");
    check_dense(L->Ss, 3, 1, Ss, "Ss");
    check_zero(L->E, "E");
    double s[3], w[1], e[1];
    nsc_lcs_sources(L, 0.0, w, s, e);
    cr_assert_eq(w[0], 5.0);
    double sref[] = { 0, 0, -5 };
    check_vec(s, 3, sref, "s");
    /* 5 V across 1 + 4 ohm: 1 A flows b -> a through the source, I(V1) = -1 */
    double *z = static_solve(L, 0.0);
    double zref[] = { 1.0, -4.0, -1.0 };
    check_vec(z, 3, zref, "z");
    free(z);
    nsc_lcs_free(L);
    tc_free(c);
}

Test(devices, current_source)
{
    nsc_circuit *c = tc_new();
    tc_el(c, NSC_EL_I, "i1", "a", "b", NULL, NULL, 2e-3);
    tc_el(c, NSC_EL_R, "r1", "a", "0", NULL, NULL, 1e3);
    tc_el(c, NSC_EL_R, "r2", "b", "0", NULL, NULL, 1e3);
    nsc_lcs *L = assemble_ok(c, NSC_ASM_TRAN, 1e-12);
    cr_assert_eq(L->n, 2);
    double Ss[] = { -1, 1 };
    check_dense(L->Ss, 2, 1, Ss, "Ss");
    /* 2 mA pulled out of a, pushed into b: v(a) = -2 V, v(b) = +2 V */
    double *z = static_solve(L, 0.0);
    double zref[] = { -2.0, 2.0 };
    check_vec(z, 2, zref, "z");
    free(z);
    nsc_lcs_free(L);
    tc_free(c);
}

Test(devices, diode)
{
    nsc_circuit *c = tc_new();
    nsc_element *d = tc_el(c, NSC_EL_D, "d1", "a", "k", NULL, NULL, 0);
    d->model = tc_model(c, "dm", "vf=0.7 ron=0.1 roff=1e6 is=1e-14");
    tc_el(c, NSC_EL_R, "r1", "a", "0", NULL, NULL, 1.0);
    tc_el(c, NSC_EL_R, "r2", "k", "0", NULL, NULL, 1.0);
    nsc_report r;
    nsc_report_init(&r);
    nsc_lcs *L = NULL;
    cr_assert_eq(bind_assemble(c, NSC_ASM_TRAN, 1e-12, &L, &r), NSC_OK);
    cr_assert_eq(r.nwarn, 1);
    cr_assert(strstr(r.warn[0], "t.cir:101:1: warning:") && strstr(r.warn[0], "dm"), "%s",
              r.warn[0]);
    nsc_report_free(&r);
    cr_assert_eq(L->m, 1);
    cr_assert_str_eq(L->pair_name[0], "d1");
    cr_assert_eq(L->pair_el[0], 0);
    cr_assert_eq(L->el_pair[0], 0);
    double B[] = { -1, 1 };
    double C[] = { -1, 1 };
    double D[] = { 0.1 };
    double A[] = { -1 - 1e-6, 1e-6, 1e-6, -1 - 1e-6 };
    check_dense(L->B, 2, 1, B, "B");
    check_dense(L->C, 1, 2, C, "C");
    check_dense(L->D, 1, 1, D, "D");
    check_dense(L->A, 2, 2, A, "A");
    cr_assert_eq(L->e0[0], 0.7);
    cr_assert_eq(L->pair_cont[0], 0); /* a card's VF/RON: an event (lcs.h pair_cont) */
    nsc_lcs_free(L);
    /* no parameters: SPICE's diode (IS = 1e-14, N = 1; netlist.md), fitted with
     * a warning (it was an ideal 0 V diode); no ROFF. The default fit covers
     * 100 uA..100 A by the fewest chords within 10 mV of v = Vt ln(1 + i/IS):
     * six (one a decade: the chord of Vt ln i over a decade sags 16 mV at its
     * tangent point, raised by half, +-8 mV), as a concave sum, one pair each:
     * y_0 = v_k - v_a + e0[0] + D00 i - sum_q c_q mu_q, mu_q = max(0, i - e0[q]). */
    c->model[0].npar = 0;
    nsc_report_init(&r);
    cr_assert_eq(bind_assemble(c, NSC_ASM_TRAN, 1e-12, &L, &r), NSC_OK);
    cr_assert(r.nwarn == 1
                  && strstr(r.warn[0],
                            "SPICE parameters fitted by 6 segments on 100 uA..100 A: VF=0.597"),
              "%s", r.nwarn ? r.warn[0] : "no warning");
    nsc_report_free(&r);
    cr_assert_eq(L->m, 6);
    double vt = 1.380649e-23 * 300.15 / 1.602176634e-19, emax = -1, emin = 1;
    for (int k = 0; k <= 6000; k++) {
        double i = 1e-4 * pow(1e6, k / 6000.0), v = L->e0[0] + nsc_sp_get(L->D, 0, 0) * i;
        for (int q = 1; q < 6; q++) v += nsc_sp_get(L->D, 0, q) * fmax(0, i - L->e0[q]);
        double e = v - vt * log1p(i / 1e-14);
        emax = fmax(emax, e);
        emin = fmin(emin, e);
    }
    cr_assert(emax > 0.0079 && emax < 0.0081 && fabs(emax + emin) < 2e-3 * emax, "%g %g", emin,
              emax);
    double A2[] = { -1, 0, 0, -1 };
    check_dense(L->A, 2, 2, A2, "A");
    for (int q = 0; q < 6; q++)
        cr_assert_eq(L->pair_cont[q], 1, "pair %d", q); /* fitted: continuous kinks */
    nsc_lcs_free(L);
    c->model[0].npar = 4;
    tc_free(c);
}

Test(devices, vcvs)
{
    nsc_circuit *c = tc_new();
    tc_el(c, NSC_EL_R, "r1", "c", "0", NULL, NULL, 1.0);
    tc_el(c, NSC_EL_E, "e1", "a", "b", "c", "0", 3.0);
    tc_el(c, NSC_EL_R, "r2", "a", "b", NULL, NULL, 2.0);
    tc_el(c, NSC_EL_R, "r3", "b", "0", NULL, NULL, 2.0);
    nsc_lcs *L = assemble_ok(c, NSC_ASM_TRAN, 1e-12);
    /* z = v(c) v(a) v(b) i(e1) */
    cr_assert_str_eq(L->zname[3], "i(e1)");
    double A[] = { -1, 0, 0, 0, 0, -0.5, 0.5, -1, 0, 0.5, -1, 1, -3, 1, -1, 0 };
    check_dense(L->A, 4, 4, A, "A");
    nsc_lcs_free(L);
    tc_free(c);
}

Test(devices, vccs)
{
    nsc_circuit *c = tc_new();
    tc_el(c, NSC_EL_R, "r1", "c", "d", NULL, NULL, 1.0);
    tc_el(c, NSC_EL_R, "r0", "d", "0", NULL, NULL, 1.0);
    tc_el(c, NSC_EL_G, "g1", "a", "b", "c", "d", 0.25);
    tc_el(c, NSC_EL_R, "r2", "a", "0", NULL, NULL, 1.0);
    tc_el(c, NSC_EL_R, "r3", "b", "0", NULL, NULL, 1.0);
    nsc_lcs *L = assemble_ok(c, NSC_ASM_TRAN, 1e-12);
    /* z = v(c) v(d) v(a) v(b); 0.25 (v_c - v_d) leaves a, enters b */
    double A[] = { -1, 1, 0, 0, 1, -2, 0, 0, -0.25, 0.25, -1, 0, 0.25, -0.25, 0, -1 };
    check_dense(L->A, 4, 4, A, "A");
    nsc_lcs_free(L);
    tc_free(c);
}

Test(devices, cccs_ccvs)
{
    nsc_circuit *c = tc_new();
    tc_el(c, NSC_EL_V, "vs", "a", "0", NULL, NULL, 1.0);
    tc_el(c, NSC_EL_R, "r1", "a", "0", NULL, NULL, 1.0);
    nsc_element *f = tc_el(c, NSC_EL_F, "f1", "b", "0", NULL, NULL, 2.0);
    f->ref[0] = 0;
    tc_el(c, NSC_EL_R, "r2", "b", "0", NULL, NULL, 1.0);
    nsc_element *h = tc_el(c, NSC_EL_H, "h1", "d", "0", NULL, NULL, 5.0);
    h->ref[0] = 0;
    tc_el(c, NSC_EL_R, "r3", "d", "0", NULL, NULL, 1.0);
    nsc_lcs *L = assemble_ok(c, NSC_ASM_TRAN, 1e-12);
    /* z = v(a) v(b) v(d) i(vs) i(h1) */
    cr_assert_str_eq(L->zname[3], "i(vs)");
    cr_assert_str_eq(L->zname[4], "i(h1)");
    double A[] = {
        -1, 0, 0, -1, 0, 0, -1, 0, -2, 0, 0, 0, -1, 0, -1, 1, 0, 0, 0, 0, 0, 0, 1, -5, 0
    };
    check_dense(L->A, 5, 5, A, "A");
    /* i(vs) = -1 A; F: -2 A leaves b -> v(b) = +2 V ... */
    double *z = static_solve(L, 0.0);
    double zref[] = { 1.0, 2.0, -5.0, -1.0, 5.0 };
    check_vec(z, 5, zref, "z");
    free(z);
    nsc_lcs_free(L);
    /* sense element without a branch current */
    c->el[2].ref[0] = 1;
    assemble_err(c, NSC_ASM_TRAN, "t.cir:4:1: error:", "f1");
    tc_free(c);
}

/* ================= assemble ================= */

/* The design documents' bridge with n = ground: L1 a b 10m, C1 a b 1u, D1 a p,
 * D2 b p, D3 0 a, D4 0 b, R1 p 0 1k. z = v(a) v(b) v(p) i(l1). */
static nsc_circuit *bridge(void)
{
    nsc_circuit *c = tc_new();
    const nsc_model *m = tc_model(c, "di", "vf=0");
    tc_el(c, NSC_EL_L, "l1", "a", "b", NULL, NULL, 10e-3)->has_ic = 1;
    nsc_element *cap = tc_el(c, NSC_EL_C, "c1", "a", "b", NULL, NULL, 1e-6);
    cap->has_ic = 1;
    cap->ic = 10.0;
    tc_el(c, NSC_EL_D, "d1", "a", "p", NULL, NULL, 0)->model = m;
    tc_el(c, NSC_EL_D, "d2", "b", "p", NULL, NULL, 0)->model = m;
    tc_el(c, NSC_EL_D, "d3", "0", "a", NULL, NULL, 0)->model = m;
    tc_el(c, NSC_EL_D, "d4", "0", "b", NULL, NULL, 0)->model = m;
    tc_el(c, NSC_EL_R, "r1", "p", "0", NULL, NULL, 1e3);
    return c;
}

/* M = C W^-1 B of the bridge's L (4 x 4), W = E/h - Theta A (theta on rows
 * with E entries, 1 elsewhere), row-major into M; returns max |M_ij|. */
static double bridge_m(const nsc_lcs *L, double h, double th, double M[16])
{
    double *Ed = rowmajor(L->E), *Ad = rowmajor(L->A), *Bd = rowmajor(L->B), *Cd = rowmajor(L->C);
    double W[16], X[16], mmax = 0;
    for (int i = 0; i < 4; i++) {
        int dyn = 0;
        for (int j = 0; j < 4; j++) dyn |= Ed[i * 4 + j] != 0;
        for (int j = 0; j < 4; j++)
            W[i * 4 + j] = Ed[i * 4 + j] / h - (dyn ? th : 1.0) * Ad[i * 4 + j];
    }
    memcpy(X, Bd, sizeof X);
    cr_assert_eq(gauss(W, X, 4, 4), 0); /* X = W^-1 B */
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double s = 0;
            for (int k = 0; k < 4; k++) s += Cd[i * 4 + k] * X[k * 4 + j];
            M[i * 4 + j] = s;
            if (fabs(s) > mmax) mmax = fabs(s);
        }
    free(Ed);
    free(Ad);
    free(Bd);
    free(Cd);
    return mmax;
}

/* The bridge's M is positive semidefinite: M x0 = 0 for x0 = (1,-1,1,-1)
 * (B x0 = 0: the circulating bridge current), and the Cholesky factorization of
 * M + eps I succeeds. */
static void bridge_m_psd(const double M[16], double mmax)
{
    double x0[4] = { 1, -1, 1, -1 };
    for (int i = 0; i < 4; i++) {
        double s = 0;
        for (int j = 0; j < 4; j++) s += M[i * 4 + j] * x0[j];
        cr_assert(fabs(s) <= 1e-12 * mmax, "M x0 = %g", s);
    }
    double Ch[16];
    memcpy(Ch, M, sizeof Ch);
    for (int i = 0; i < 4; i++) Ch[i * 4 + i] += 1e-9 * mmax;
    for (int k = 0; k < 4; k++) {
        cr_assert_gt(Ch[k * 4 + k], 0, "M not PSD (pivot %d)", k);
        double d = sqrt(Ch[k * 4 + k]);
        for (int i = k; i < 4; i++) Ch[i * 4 + k] /= d;
        for (int i = k + 1; i < 4; i++)
            for (int j = k + 1; j <= i; j++) Ch[i * 4 + j] -= Ch[i * 4 + k] * Ch[j * 4 + k];
    }
}

Test(assemble, bridge_tran_matrices_and_gmin)
{
    nsc_circuit *c = bridge();
    double gmin = 1e-3; /* large: M's entries stay resolvable */
    nsc_lcs *L = assemble_ok(c, NSC_ASM_TRAN, gmin);
    cr_assert_eq(L->n, 4);
    cr_assert_eq(L->m, 4);
    cr_assert_eq(L->nnode_z, 3);
    cr_assert_str_eq(L->zname[3], "i(l1)");
    double B[] = { -1, 0, 1, 0, 0, -1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0 };
    check_dense(L->B, 4, 4, B, "B");
    nsc_sparse *Bt = nsc_sp_transpose(L->B);
    nsc_sparse *diff = nsc_sp_add(L->C, Bt, 1, -1); /* C - B^T = 0 */
    check_zero(diff, "C - B^T");
    check_zero(L->D, "D");
    for (int j = 0; j < 4; j++) cr_assert_eq(L->e0[j], 0.0);
    double Cc = 1e-6, Ll = 10e-3;
    double E[] = { Cc, -Cc, 0, 0, -Cc, Cc, 0, 0, 0, 0, 0, 0, 0, 0, 0, Ll };
    double A[] = { -gmin, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1e-3, 0, 1, -1, 0, 0 };
    check_dense(L->E, 4, 4, E, "E");
    check_dense(L->A, 4, 4, A, "A");
    /* one gmin, at a: {a, b} is tied together by L and C, to ground only through diodes */
    cr_assert_eq(L->ngmin, 1);
    cr_assert_str_eq(c->node_name[L->gmin_node[0]], "a");

    /* M = D + C W^-1 B (D = 0 above) */
    double h = 1e-6, th = 0.5, M[16], mmax = bridge_m(L, h, th, M);
    /* hand value: on (a, b) the Schur complement is S = k [1 -1; -1 1] + g e_a e_a^T with
     * g = th gmin, k = C/h + th^2 h / L: S^-1 = [1/g 1/g; 1/g 1/g + 1/k], so
     * M(d3,d3) = (S^-1)_aa = 1/g and M(d3,d4) = (S^-1)_ab = 1/g, M(d4,d4) = 1/g + 1/k */
    double kk = Cc / h + th * th * h / Ll;
    double m33 = 1 / (th * gmin);
    cr_assert(fabs(M[2 * 4 + 2] - m33) <= 1e-12 * m33, "M33 = %.17g, expected %.17g", M[10], m33);
    double m34 = 1 / (th * gmin);          /* (S^-1)_ab */
    double m44 = 1 / (th * gmin) + 1 / kk; /* (S^-1)_bb */
    cr_assert(fabs(M[3 * 4 + 3] - m44) <= 1e-12 * m33, "M44 = %.17g, expected %.17g", M[15], m44);
    cr_assert(fabs(M[2 * 4 + 3] - m34) <= 1e-12 * m33, "M34 = %.17g, expected %.17g", M[11], m34);
    /* M(d1,d1) = (S^-1)_aa + (S^-1)_pp, p: 1/G = 1000 (theta 1, algebraic row) */
    cr_assert(fabs(M[0] - (m33 + 1e3)) <= 1e-12 * m33, "M11 = %.17g", M[0]);
    for (int i = 0; i < 4; i++) /* symmetric */
        for (int j = 0; j < 4; j++)
            cr_assert(fabs(M[i * 4 + j] - M[j * 4 + i]) <= 1e-12 * mmax, "M not symmetric at %d,%d",
                      i, j);
    bridge_m_psd(M, mmax);
    nsc_sp_free(Bt);
    nsc_sp_free(diff);
    nsc_lcs_free(L);
    tc_free(c);
}

Test(assemble, bridge_uic)
{
    nsc_circuit *c = bridge();
    c->el[0].ic = 0.25; /* L1 IC=0.25 */
    nsc_lcs *L = assemble_ok(c, NSC_ASM_UIC, 1e-12);
    /* z = v(a) v(b) v(p) i(l1) | i(c1) */
    cr_assert_eq(L->n, 5);
    cr_assert_eq(L->m, 4);
    cr_assert_str_eq(L->zname[4], "i(c1)");
    cr_assert_eq(L->el_branch[1], 4);
    cr_assert_eq(L->z_el[4], 1);
    check_zero(L->E, "E");
    double A[] = { -1e-12, 0, 0, -1, -1, 0, 0, 0, 1,  1, 0, 0, -1e-3,
                   0,      0, 0, 0,  0,  1, 0, 1, -1, 0, 0, 0 };
    check_dense(L->A, 5, 5, A, "A");
    double s0[] = { 0, 0, 0, -0.25, -10 };
    check_vec(L->s0, 5, s0, "s0");
    cr_assert_eq(L->ngmin, 1);
    nsc_lcs_free(L);
    tc_free(c);
}

/* V1 in 0 5; R1 in out 1k; C1 out 0 1u; L1 out x 1m; R2 x 0 2k */
static nsc_circuit *rcl(void)
{
    nsc_circuit *c = tc_new();
    tc_el(c, NSC_EL_V, "v1", "in", "0", NULL, NULL, 5.0);
    tc_el(c, NSC_EL_R, "r1", "in", "out", NULL, NULL, 1e3);
    tc_el(c, NSC_EL_C, "c1", "out", "0", NULL, NULL, 1e-6);
    tc_el(c, NSC_EL_L, "l1", "out", "x", NULL, NULL, 1e-3);
    tc_el(c, NSC_EL_R, "r2", "x", "0", NULL, NULL, 2e3);
    return c;
}

Test(assemble, op_plain)
{
    nsc_circuit *c = rcl();
    nsc_lcs *L = assemble_ok(c, NSC_ASM_OP, 1e-12);
    /* z = v(in) v(out) v(x) i(v1) i(l1): capacitor open, inductor shorted */
    cr_assert_eq(L->n, 5);
    check_zero(L->E, "E");
    double A[] = { -1e-3, 1e-3, 0, -1, 0, 1e-3, -1e-3, 0, 0, -1, 0, 0, -0.5e-3,
                   0,     1,    1, 0,  0, 0,    0,     0, 1, -1, 0, 0 };
    check_dense(L->A, 5, 5, A, "A");
    cr_assert_eq(L->ngmin, 0);
    double *z = static_solve(L, 0.0); /* divider 1k / 2k */
    double zref[] = { 5.0, 5.0 * 2 / 3, 5.0 * 2 / 3, -5.0 / 3e3, 5.0 / 3e3 };
    check_vec(z, 5, zref, "z");
    free(z);
    nsc_lcs_free(L);
    tc_free(c);
}

Test(assemble, op_with_ic)
{
    nsc_circuit *c = rcl();
    c->el[2].has_ic = 1; /* C1 IC=2 */
    c->el[2].ic = 2.0;
    c->el[3].has_ic = 1; /* L1 IC=1m */
    c->el[3].ic = 1e-3;
    tc_ic(c, "x", 7.0);   /* .ic V(x)=7 */
    tc_ic(c, "out", 3.0); /* conflicts with C1 IC=: ignored */
    nsc_report r;
    nsc_report_init(&r);
    nsc_lcs *L = NULL;
    cr_assert_eq(bind_assemble(c, NSC_ASM_OP, 1e-12, &L, &r), NSC_OK);
    cr_assert_eq(r.nwarn, 1);
    cr_assert(strstr(r.warn[0], "t.cir:201:1: warning: .ic V(out) ignored"), "%s", r.warn[0]);
    nsc_report_free(&r);
    /* z = v(in) v(out) v(x) i(v1) i(l1) | i(c1) i(.ic:x) */
    cr_assert_eq(L->n, 7);
    cr_assert_str_eq(L->zname[5], "i(c1)");
    cr_assert_str_eq(L->zname[6], "i(.ic:x)");
    cr_assert_eq(L->z_el[6], -1);
    double A[] = { -1e-3, 1e-3, 0, -1, 0, 0, 0, 1e-3, -1e-3, 0, 0, -1, -1, 0, 0, 0, -0.5e-3,
                   0,     1,    0, -1, 1, 0, 0, 0,    0,     0, 0, 0,  0,  0, 0, 1, 0,
                   0,     0,    1, 0,  0, 0, 0, 0,    0,     0, 1, 0,  0,  0, 0 };
    check_dense(L->A, 7, 7, A, "A");
    double s0[] = { 0, 0, 0, 0, -1e-3, -2, -7 };
    check_vec(L->s0, 7, s0, "s0");
    double *z = static_solve(L, 0.0);
    /* v(out) = 2, v(x) = 7, i(l1) = 1 mA; i(c1) = (5-2)/1k - 1m = 2 mA; i(.ic) = 1m - 7/2k */
    double zref[] = { 5, 2, 7, -3e-3, 1e-3, 2e-3, 1e-3 - 3.5e-3 };
    check_vec(z, 7, zref, "z");
    free(z);
    nsc_lcs_free(L);
    tc_free(c);
}

Test(assemble, uic_rlc)
{
    nsc_circuit *c = rcl();
    tc_el(c, NSC_EL_C, "c2", "x", "y", NULL, NULL, 1e-6); /* no IC=: from .ic */
    tc_el(c, NSC_EL_R, "r3", "y", "0", NULL, NULL, 1e3);
    tc_el(c, NSC_EL_C, "c3", "x", "y", NULL, NULL, 1e-6); /* across C2 (a loop): not imposed */
    tc_ic(c, "x", 4.0);
    tc_ic(c, "y", 1.5);
    c->el[3].has_ic = 1;
    c->el[3].ic = -2e-3;
    nsc_report r;
    nsc_report_init(&r);
    nsc_lcs *L = NULL;
    cr_assert_eq(bind_assemble(c, NSC_ASM_UIC, 1e-12, &L, &r), NSC_OK);
    cr_assert_eq(r.nwarn, 0);
    nsc_report_free(&r);
    /* z = v(in) v(out) v(x) v(y) i(v1) i(l1) | i(c1) i(c2) */
    cr_assert_eq(L->n, 8);
    cr_assert_str_eq(L->zname[6], "i(c1)");
    cr_assert_str_eq(L->zname[7], "i(c2)");
    cr_assert_eq(L->el_branch[7], -1);
    check_zero(L->E, "E");
    double s0[] = { 0, 0, 0, 0, 0, 2e-3, 0, -2.5 }; /* c1: 0 V, c2: 4 - 1.5 */
    check_vec(L->s0, 8, s0, "s0");
    double *z = static_solve(L, 0.0);
    /* v(out) = 0 (c1), i(l1) = -2 mA, c2 imposes v(x) - v(y) = 2.5 with x-y fed by
     * -2 mA through L1 into x: KCL x: -v(x)/2k + i(l1) - i(c2) = 0, y: i(c2) - v(y)/1k = 0 */
    double vy = (-2e-3 - 2.5 / 2e3) / (1 / 2e3 + 1e-3), vx = vy + 2.5;
    cr_assert(fabs(z[1]) < 1e-12);
    cr_assert(fabs(z[2] - vx) < 1e-9, "v(x) = %g, expected %g", z[2], vx);
    cr_assert(fabs(z[3] - vy) < 1e-9);
    cr_assert(fabs(z[5] + 2e-3) < 1e-15);
    free(z);
    nsc_lcs_free(L);
    /* the same circuit in TRAN: no extra branches, layout prefix of the static one */
    L = assemble_ok(c, NSC_ASM_TRAN, 1e-12);
    cr_assert_eq(L->n, 6);
    cr_assert_str_eq(L->zname[5], "i(l1)");
    nsc_lcs_free(L);
    tc_free(c);
}

Test(assemble, probes)
{
    nsc_circuit *c = tc_new();
    tc_el(c, NSC_EL_V, "v1", "a", "0", NULL, NULL, 5.0);
    tc_el(c, NSC_EL_R, "r1", "a", "b", NULL, NULL, 1e3);
    nsc_element *d = tc_el(c, NSC_EL_D, "d1", "b", "0", NULL, NULL, 0);
    d->model = tc_model(c, "dm", "vf=0 roff=1e6");
    tc_el(c, NSC_EL_C, "c1", "b", "0", NULL, NULL, 2e-6);
    tc_el(c, NSC_EL_I, "i1", "b", "0", NULL, NULL, 1e-3);
    nsc_element *k = tc_el(c, NSC_EL_K, "k1", NULL, NULL, NULL, NULL, 0.5);
    k->ref[0] = k->ref[1] = 0;
    nsc_lcs *L = NULL;
    c->nel--; /* assemble without K */
    L = assemble_ok(c, NSC_ASM_TRAN, 1e-12);
    c->nel++;
    /* z = v(a) v(b) i(v1); lambda = d1; w = v1, i1 */
    double z[3] = { 5, 1, -4e-3 }, zp[3] = { 5, 0.9, 0 }, lam[1] = { 2e-3 }, w[2] = { 5, 1e-3 },
           h = 1e-3;
    struct {
        nsc_probekind kind;
        int n0, n1, el;
        double want;
    } P[] = {
        { NSC_PROBE_V, 1, 0, -1, 5.0 },
        { NSC_PROBE_V, 1, 2, -1, 4.0 },
        { NSC_PROBE_I, 0, 0, 0, -4e-3 },             /* I(V1) = branch current a -> 0 */
        { NSC_PROBE_I, 0, 0, 1, 4e-3 },              /* I(R1) = (5 - 1)/1k */
        { NSC_PROBE_I, 0, 0, 2, 2e-3 + 1e-6 },       /* I(D1) = lambda + v/ROFF */
        { NSC_PROBE_I, 0, 0, 3, 2e-6 * 0.1 / 1e-3 }, /* I(C1) = C dv/dt */
        { NSC_PROBE_I, 0, 0, 4, 1e-3 },              /* I(I1) = w */
    };
    for (size_t q = 0; q < sizeof P / sizeof P[0]; q++) {
        nsc_probe p = {
            P[q].kind, { P[q].n0, P[q].n1 }, P[q].el, (char *)"p", { tc_file, 300, 1 }
        };
        nsc_lin f;
        nsc_report r;
        nsc_report_init(&r);
        cr_assert_eq(nsc_lcs_probe(L, c, &p, &f, &r), NSC_OK);
        double v = nsc_lin_eval(&f, z, lam, zp, h, w);
        cr_assert(fabs(v - P[q].want) <= 1e-12 * (1 + fabs(P[q].want)),
                  "probe %zu = %g, expected %g", q, v, P[q].want);
        if (P[q].el == 3) cr_assert_eq(nsc_lin_eval(&f, z, lam, NULL, h, w), 0.0); /* t = 0 */
        nsc_lin_free(&f);
        nsc_report_free(&r);
    }
    /* I(K) has no current */
    nsc_probe pk = { NSC_PROBE_I, { 0, 0 }, 5, (char *)"i(k1)", { tc_file, 300, 7 } };
    nsc_lin f;
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(nsc_lcs_probe(L, c, &pk, &f, &r), NSC_ENETLIST);
    cr_assert(strstr(r.error, "t.cir:300:7: error: i(k1)"), "%s", r.error);
    nsc_report_free(&r);
    nsc_lcs_free(L);
    tc_free(c);
}

Test(assemble, probe_static_capacitor)
{
    nsc_circuit *c = rcl();
    c->el[2].has_ic = 1;
    c->el[2].ic = 1.0;
    nsc_lcs *L = assemble_ok(c, NSC_ASM_OP, 1e-12);
    nsc_probe p = { NSC_PROBE_I, { 0, 0 }, 2, (char *)"i(c1)", { tc_file, 300, 1 } };
    nsc_lin f;
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(nsc_lcs_probe(L, c, &p, &f, &r), NSC_OK);
    cr_assert_eq(f.nterm, 1);
    cr_assert_eq(f.t[0].kind, NSC_T_Z);
    cr_assert_eq(f.t[0].idx, find_z(L, "i(c1)"));
    double *z = static_solve(L, 0.0);
    /* (5 - 1)/1k into out, 1/2k out through L1 and R2: the capacitor takes the rest */
    cr_assert(fabs(nsc_lin_eval(&f, z, NULL, NULL, 0, NULL) - (4e-3 - 0.5e-3)) < 1e-12);
    free(z);
    nsc_lin_free(&f);
    nsc_report_free(&r);
    nsc_lcs_free(L);
    tc_free(c);
}

/* An element of no known kind (a corrupt circuit) is reported by the assembler,
 * after the topology check, which asks the device table of every element. */
Test(assemble, error_unknown_kind)
{
    nsc_circuit *c = tc_new();
    tc_el(c, NSC_EL_V, "v1", "a", "0", NULL, NULL, 1.0);
    tc_el(c, NSC_EL_R, "r1", "a", "0", NULL, NULL, 1.0)->kind = NSC_EL_NKINDS;
    assemble_err(c, NSC_ASM_TRAN, "unknown element kind of r1", NULL);
    tc_free(c);
}

Test(assemble, error_no_dc_path)
{
    nsc_circuit *c = tc_new();
    tc_el(c, NSC_EL_V, "v1", "a", "0", NULL, NULL, 1.0);
    tc_el(c, NSC_EL_R, "r1", "a", "b", NULL, NULL, 1.0);
    tc_el(c, NSC_EL_R, "r2", "f", "g", NULL, NULL, 1.0); /* f, g float */
    assemble_err(c, NSC_ASM_TRAN, "t.cir:4:1: error: node 'f' has no DC path to ground", NULL);
    tc_free(c);
    /* a node reached only through a capacitor (or current sources) has no DC path */
    c = tc_new();
    tc_el(c, NSC_EL_V, "v1", "a", "0", NULL, NULL, 1.0);
    tc_el(c, NSC_EL_C, "c1", "a", "b", NULL, NULL, 1e-6);
    assemble_err(c, NSC_ASM_TRAN, "t.cir:3:1: error: node 'b' has no DC path to ground", NULL);
    tc_free(c);
    /* a node reached only through a diode gets gmin, not an error; a control input only: error */
    c = tc_new();
    tc_el(c, NSC_EL_V, "v1", "a", "0", NULL, NULL, 1.0);
    tc_el(c, NSC_EL_D, "d1", "a", "b", NULL, NULL, 0)->model = tc_model(c, "dm", "vf=0");
    tc_el(c, NSC_EL_C, "c1", "b", "c", NULL, NULL, 1e-6);
    tc_el(c, NSC_EL_R, "r2", "c", "b", NULL, NULL, 1e3);
    nsc_lcs *L = assemble_ok(c, NSC_ASM_TRAN, 1e-9);
    cr_assert_eq(L->ngmin, 1, "{b, c} is one component (C1, R2): one gmin");
    cr_assert_eq(L->gmin_node[0], 2);
    cr_assert_eq(nsc_sp_get(L->A, 1, 1), -1e-9 - 1e-3);
    cr_assert_eq(nsc_sp_get(L->A, 2, 2), -1e-3);
    nsc_lcs_free(L);
    /* OP: the capacitor is open, {b, c} is still one component through R2 (one gmin) */
    L = assemble_ok(c, NSC_ASM_OP, 1e-9);
    cr_assert_eq(L->ngmin, 1);
    nsc_lcs_free(L);
    tc_el(c, NSC_EL_E, "e1", "o", "0", "q", "0", 2.0);
    tc_el(c, NSC_EL_R, "r1", "o", "0", NULL, NULL, 1.0);
    assemble_err(c, NSC_ASM_TRAN, "t.cir:6:1: error: node 'q' has no DC path to ground", NULL);
    tc_free(c);
}

Test(assemble, error_unsupported_and_loops)
{
    nsc_circuit *c = tc_new();
    tc_el(c, NSC_EL_R, "r1", "d", "0", NULL, NULL, 1.0);
    tc_el(c, NSC_EL_R, "r9", "g", "0", NULL, NULL, 1.0);
    nsc_element *m = tc_el(c, NSC_EL_M, "m1", "d", "g", "0", "0", 0);
    m->loc.col = 3;
    assemble_err(c, NSC_ASM_TRAN, "t.cir:4:3: error: MOS transistor m1 has no MOS model", NULL);
    m->kind = NSC_EL_S;
    assemble_err(c, NSC_ASM_TRAN, "switch m1 has no switch (SW) model", NULL);
    m->kind = NSC_EL_ETABLE;
    assemble_err(c, NSC_ASM_OP, "TABLE of m1 needs at least two points", NULL);
    tc_free(c);
    c = tc_new();
    tc_el(c, NSC_EL_V, "v1", "a", "0", NULL, NULL, 1.0);
    tc_el(c, NSC_EL_V, "v2", "a", "0", NULL, NULL, 2.0);
    assemble_err(c, NSC_ASM_TRAN, "t.cir:3:1: error: voltage source v2 closes a loop", NULL);
    tc_free(c);
    c = tc_new();
    tc_el(c, NSC_EL_V, "v1", "a", "0", NULL, NULL, 1.0);
    tc_el(c, NSC_EL_L, "l1", "a", "0", NULL, NULL, 1e-3);
    nsc_lcs *L = assemble_ok(c, NSC_ASM_TRAN, 1e-12); /* fine in TRAN */
    nsc_lcs_free(L);
    /* in OP an inductor across a source has no DC solution as a short: it takes
     * its IC= (0) as a current source, with a note (it was an error) */
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(bind_assemble(c, NSC_ASM_OP, 1e-12, &L, &r), NSC_OK, "%s", r.error ? r.error : "");
    cr_assert(r.nwarn == 1
                  && strstr(r.warn[0],
                            "note: inductor l1 closes a loop of voltage sources and inductors"),
              "%s", r.nwarn ? r.warn[0] : "no note");
    int br = L->el_branch[1];
    cr_assert_float_eq(nsc_sp_get(L->A, br, br), 1.0, 0); /* 0 = i_L - 0 */
    cr_assert_float_eq(L->s0[br], 0.0, 0);
    nsc_lcs_free(L);
    nsc_report_free(&r);
    c->el[1].has_ic = 1; /* IC=: a current source in OP */
    c->el[1].ic = 0.25;
    L = assemble_ok(c, NSC_ASM_OP, 1e-12);
    cr_assert_float_eq(L->s0[L->el_branch[1]], -0.25, 0);
    nsc_lcs_free(L);
    tc_free(c);
}

Test(assemble, dump_files)
{
    nsc_circuit *c = bridge();
    nsc_lcs *L = assemble_ok(c, NSC_ASM_TRAN, 1e-12);
    char *dir = tu_tmpdir();
    char sub[4096];
    snprintf(sub, sizeof sub, "%s/lcs", dir);
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(nsc_lcs_dump(L, sub, &r), NSC_OK);
    const char *files[] = { "E.mtx",  "A.mtx",  "B.mtx",  "C.mtx",  "D.mtx",
                            "Ss.mtx", "Se.mtx", "s0.mtx", "e0.mtx", "names.txt" };
    for (size_t q = 0; q < sizeof files / sizeof files[0]; q++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", sub, files[q]);
        char *text = tu_read_file(path);
        cr_assert_not_null(text, "%s missing", files[q]);
        if (!strcmp(files[q], "B.mtx"))
            cr_assert(strstr(text, "\n4 4 6\n1 1 -1\n3 1 1\n2 2 -1\n3 2 1\n1 3 1\n2 4 1\n"), "%s",
                      text);
        if (!strcmp(files[q], "names.txt"))
            cr_assert(strstr(text, "z 1 v(a)\n") && strstr(text, "z 4 i(l1)\n")
                          && strstr(text, "lambda 4 d4\n"),
                      "%s", text);
        if (!strcmp(files[q], "s0.mtx"))
            cr_assert(strstr(text, "array real general") && strstr(text, "\n4 1\n"), "%s", text);
        free(text);
    }
    nsc_report_free(&r);
    /* unwritable place: NSC_EOUT (exit status 4) with a message */
    nsc_report_init(&r);
    cr_assert_eq(nsc_lcs_dump(L, "/proc/nonexistent/x", &r), NSC_EOUT);
    cr_assert(r.error && strstr(r.error, "/proc/nonexistent/x"));
    nsc_report_free(&r);
    tu_rmdir(dir);
    free(dir);
    nsc_lcs_free(L);
    tc_free(c);
}

/* nsc_par_read (device.h): each row the card's last setting, else its default;
 * the mask has the rows the card sets; names case-insensitive. */
Test(devices, parameter_table_reads_the_card_once)
{
    nsc_circuit *c = tc_new();
    const nsc_model *m = tc_model(c, "dm", "IS=1e-15 n=2 is=3e-15");
    typedef struct {
        double is, n, rs;
    } card;
    static const nsc_par t[] = {
        { "is", offsetof(card, is), 1e-14, 0 },
        { "n", offsetof(card, n), 1, 0 },
        { "rs", offsetof(card, rs), 0.5, 1 },
    };
    card k;
    cr_assert_eq(nsc_par_read(m, t, 3, &k), 3u); /* is, n set; rs not */
    cr_assert_eq(k.is, 3e-15);                   /* the last setting wins, as nsc_model_get */
    cr_assert_eq(k.n, 2.0);
    cr_assert_eq(k.rs, 0.5);
    cr_assert_eq(nsc_par_read(NULL, t, 3, &k), 0u);
    cr_assert(k.is == 1e-14 && k.n == 1.0 && k.rs == 0.5);
    cr_assert(nsc_par_known(t, 3, 0, "RS") && !nsc_par_known(t, 3, 1, "rs")
              && nsc_par_known(t, 3, 1, "N"));
    cr_assert(!nsc_par_known(t, 3, 0, "bv"));
    tc_free(c);
}

/* A diode's card is read when it is bound, not at each assembly: a model changed
 * after binding leaves the stamps as bound until the circuit is bound again; a
 * bad card binds to nothing and its assembly says why. */
Test(devices, diode_binds_its_card_once)
{
    nsc_circuit *c = tc_new();
    nsc_element *d = tc_el(c, NSC_EL_D, "d1", "a", "0", NULL, NULL, 0);
    d->model = tc_model(c, "dm", "vf=0.7 ron=0.1");
    tc_el(c, NSC_EL_R, "r1", "a", "0", NULL, NULL, 1.0);
    nsc_devices_bind(c);
    cr_assert_not_null(d->priv);
    c->model[0].pval[0] = 0.5; /* VF = 0.5, not bound yet */
    nsc_report r;
    nsc_report_init(&r);
    nsc_lcs *L = NULL;
    cr_assert_eq(nsc_lcs_assemble(c, NSC_ASM_TRAN, 1e-12, &L, &r), NSC_OK);
    cr_assert_eq(L->e0[0], 0.7);
    nsc_lcs_free(L);
    L = assemble_ok(c, NSC_ASM_TRAN, 1e-12); /* bound again */
    cr_assert_eq(L->e0[0], 0.5);
    nsc_lcs_free(L);
    c->model[0].pval[1] = -1; /* RON = -1 */
    nsc_devices_bind(c);
    cr_assert_null(d->priv);
    cr_assert_eq(nsc_lcs_assemble(c, NSC_ASM_TRAN, 1e-12, &L, &r), NSC_ENETLIST);
    cr_assert_str_eq(r.error, "t.cir:101:1: error: diode model 'dm': RON = -1 must be >= 0");
    nsc_report_free(&r);
    tc_free(c);
}

/* The device table is the one place a device is named: every kind has its
 * device, whose names the messages use (nle_kind_name: "missing model name for
 * diode d1"), and a device whose card names a model says which types it takes
 * (nl_model.c: "is SW model, not a diode (D) model"); the pin signs of .meas
 * are -1, 0, +1 or 2. A device added without them fails here, not in a message. */
Test(devices, table_names_every_kind_and_its_models)
{
    for (int k = 0; k < NSC_EL_NKINDS; k++) {
        const nsc_device *d = nsc_device_of((nsc_elkind)k);
        cr_assert(d && d->kind == (nsc_elkind)k, "kind %d", k);
        cr_assert(d->name && d->what && d->count && d->stamp, "kind %d", k);
        int model = d->parse == nsc_card_model || d->kind == NSC_EL_Q
                    || d->parse == nsc_card_xspice;
        cr_assert_eq(model, d->models[0].name != NULL, "%s", d->name);
        for (int q = 0; q < NSC_MAXMODNAME && d->models[q].name; q++)
            cr_assert(nsc_dev_takes(d, d->models[q].type), "%s", d->name);
        cr_assert_eq(model, d->model_what != NULL, "%s", d->name);
        for (int t = 0; t < 4; t++) cr_assert(d->pin[t] >= -1 && d->pin[t] <= 2, "%s", d->name);
    }
    cr_assert_str_eq(nsc_device_of(NSC_EL_D)->name, "diode");
    const nsc_device *w = nsc_device_of(NSC_EL_W), *m = nsc_device_of(NSC_EL_M);
    cr_assert(nsc_dev_takes(w, NSC_MOD_CSW) && !nsc_dev_takes(w, NSC_MOD_SW));
    cr_assert(nsc_dev_takes(m, NSC_MOD_NMOS) && nsc_dev_takes(m, NSC_MOD_PMOS)
              && !nsc_dev_takes(m, NSC_MOD_D));
}

/* The pairs' check (lcs_pairs.c) on forged solutions of d1 (VF = 0.7, RON =
 * 0.1) between r1 and r2: y = VF + RON i - (v(a) - v(k)) against l = i. A
 * conducting point (v(a) - v(k) = 0.8 V at 1 A: y = 0) passes, as does one
 * whose y is off by 1e-9 of its terms; one off by 3e-6 breaks the operating
 * point's 1e-6 but passes the step's check (NSC_PAIRCHECK_TOL 1e-4 of the
 * terms and of the largest unknown: a pivoting run's rounding); a step that put node a at 7e8 V with
 * d1 off (y = -7e8: the first step of a 741-style op-amp's transient on
 * default fits, taken silently from an inexact pivoting run), or d1 carrying
 * 1 A with y = 0.8 V, is an error naming the pair, its y and the largest
 * unknown, at d1's card. */
Test(assemble, step_pairs_check_names_the_broken_pair)
{
    nsc_circuit *c = tc_new();
    tc_el(c, NSC_EL_D, "d1", "a", "k", NULL, NULL, 0)->model = tc_model(c, "dm", "vf=0.7 ron=0.1");
    tc_el(c, NSC_EL_R, "r1", "a", "0", NULL, NULL, 1.0);
    tc_el(c, NSC_EL_R, "r2", "k", "0", NULL, NULL, 1.0);
    nsc_lcs *L = assemble_ok(c, NSC_ASM_TRAN, 1e-12);
    int ia = find_z(L, "v(a)"), ik = find_z(L, "v(k)");
    double z[2], l[1], y[1], sc[1];
    nsc_report r;
    z[ia] = 1.0, z[ik] = 0.2, l[0] = 1.0; /* on: y = 0.7 + 0.1 - 0.8 = 0 */
    cr_assert_eq(nsc_lcs_worst_pair(L, z, l, NULL, NULL, 1e-6, 1e-12, y, sc), -1);
    cr_assert_float_eq(y[0], 0.0, 1e-15);
    cr_assert_float_eq(sc[0], 0.7 + 0.1 + 1.0 + 0.2, 1e-15); /* |e| + |C| |z| + |D| |l| */
    z[ia] = 1.0 + 1e-9; /* y = -1e-9: within 1e-6 of 2 V of terms */
    cr_assert_eq(nsc_lcs_worst_pair(L, z, l, NULL, NULL, 1e-6, 1e-12, y, sc), -1);
    z[ia] = 1.0 + 3e-6; /* y = -3e-6: beyond it, within the step's 1e-4 */
    cr_assert_eq(nsc_lcs_worst_pair(L, z, l, NULL, NULL, 1e-6, 1e-12, y, sc), 0);
    cr_assert_eq(nsc_lcs_worst_pair(L, z, l, NULL, NULL, NSC_PAIRCHECK_TOL, 1e-12, y, sc), -1);
    nsc_report_init(&r);
    cr_assert_eq(nsc_lcs_check_pairs(L, c, z, l, NULL, 1e-6, &r), NSC_OK);
    nsc_report_free(&r);
    z[ia] = 7e8, z[ik] = 0.0, l[0] = 0.0; /* off at 7e8 V forward: y = -7e8 */
    cr_assert_eq(nsc_lcs_worst_pair(L, z, l, NULL, NULL, 1e-6, 1e-12, y, sc), 0);
    cr_assert_float_eq(y[0], 0.7 - 7e8, 1e-6);
    nsc_report_init(&r);
    cr_assert_eq(nsc_lcs_check_pairs(L, c, z, l, NULL, 9.765625e-09, &r), NSC_ESIM);
    cr_assert(strstr(r.error, "t.cir:") && strstr(r.error, "time 9.765625e-09 s")
                  && strstr(r.error, "pair d1") && strstr(r.error, "y = -7e+08")
                  && strstr(r.error, "v(a) = 7e+08"),
              "%s", r.error);
    nsc_report_free(&r);
    z[ia] = 0.0, l[0] = 1.0; /* 1 A with y = 0.8 V: not complementary */
    cr_assert_eq(nsc_lcs_worst_pair(L, z, l, NULL, NULL, 1e-6, 1e-12, y, sc), 0);
    cr_assert_float_eq(y[0], 0.8, 1e-15);
    nsc_lcs_free(L);
    tc_free(c);
}

/* SPICE's defaults of model parameters are each device's own (model_defs):
 * looked up by the model's type through the device that takes it (ngspice's
 * values: diode IS 1e-14, Gummel-Poon IS 1e-16, MOS KP 2e-5, JFET VTO -2). */
Test(devices, model_defaults_come_from_the_device_taking_the_type)
{
    double v = -1;
    cr_assert(nsc_model_default(NSC_MOD_D, "is", &v) && v == 1e-14);
    cr_assert(nsc_model_default(NSC_MOD_PNP, "is", &v) && v == 1e-16);
    cr_assert(nsc_model_default(NSC_MOD_PMOS, "kp", &v) && v == 2e-5);
    cr_assert(nsc_model_default(NSC_MOD_PJF, "vto", &v) && v == -2);
    cr_assert(nsc_model_default(NSC_MOD_CSW, "roff", &v) && v == 1e12);
    cr_assert(nsc_model_default(NSC_MOD_SW, "vt", &v) && v == 0);
    v = -1;
    cr_assert(!nsc_model_default(NSC_MOD_D, "bf", &v) && v == -1);
    cr_assert(!nsc_model_default(NSC_MOD_NPN, "kp", &v) && v == -1);
    cr_assert(!nsc_model_default(NSC_MOD_DAND, "is", &v) && v == -1);
}
