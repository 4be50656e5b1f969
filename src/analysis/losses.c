/* losses.c -- energy per element over a window (losses.h: the quadrature, the
 * switching energies). The accumulator knows no device: each element's ports
 * come from the device table (lcs/devif.h ports, or V(n+, n-) and current()). */
#include "losses.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "devices/device.h"
#include "solve/la_dense.h"

typedef struct acc_el {
    int el;
    int np; /* ports */
    nsc_lin v[NSC_MAXPORT], i[NSC_MAXPORT];
    int swk, pair;          /* switching energies: its switch, else its first pair; -1 */
    nsc_swloss sw;          /* its model's EON EOFF VREF IREF (device.h; 0: none) */
    int on;                 /* state of the last step, -1 before the first */
    double vend, imean;     /* |v| of port 0 at the last step's end, |i| over it */
    int hard;               /* a controlled switch (lcs/devif.h swcap): its turn-ons and
                                          turn-offs capture */
    double damp;            /* the step's damping of its capacitive and inductive currents
                                          (step_damp) */
    int lk[NSC_MAXPORT];    /* port q's current c z_k of an inductive branch k (its own E
                                          column, nothing else: ind_ports), else -1 */
    double lc[NSC_MAXPORT]; /* that c */
} acc_el;

struct nsc_loss_acc {
    const nsc_lcs *L;
    double gmin, from, to;
    int ne;
    acc_el *e;
    int nrow;
    nsc_loss_row *row;    /* [nrow]: row k is element e[k], then gmin */
    double *zt, *zq, *wt; /* [n] z_theta, z_theta - (z1 - z0); [nsrc] w_theta */
    int capt, capn;       /* the capture (nsc_loss_acc_step): row k of its switch (-1:
                                          none), the steps since it opened */
    int capon;            /* the switch's state the capture is for (1: a turn-on) */
};

void nsc_losses_free(nsc_losses *Ls)
{
    if (!Ls) return;
    free(Ls->row);
    Ls->row = NULL;
    Ls->nrow = 0;
}

void nsc_loss_acc_free(nsc_loss_acc *a)
{
    if (!a) return;
    for (int k = 0; k < a->ne; k++)
        for (int p = 0; p < NSC_MAXPORT; p++) {
            nsc_lin_free(&a->e[k].v[p]);
            nsc_lin_free(&a->e[k].i[p]);
        }
    free(a->e);
    free(a->row);
    free(a->zt);
    free(a->zq);
    free(a->wt);
    free(a);
}

/* The ports of element ei into x; 0 when it has none (a coupling K), -1 ENOMEM. */
static int el_ports(const nsc_lcs *L, const nsc_circuit *c, int ei, acc_el *x)
{
    const nsc_device *d = nsc_device_of(c->el[ei].kind);
    if (!d) return 0;
    int np = 0;
    if (d->ports) return d->ports(L, c, ei, x->v, x->i, &np) ? -1 : np;
    if (!d->current) return 0;
    const nsc_element *e = &c->el[ei];
    if (d->current(L, c, ei, &x->i[0])) return -1;
    if (nsc_lin_add(&x->v[0], NSC_T_Z, nsc_zn(e->node[0]), 1.0)
        || nsc_lin_add(&x->v[0], NSC_T_Z, nsc_zn(e->node[1]), -1.0))
        return -1;
    return 1;
}

/* Which of x's ports carry an inductive branch's current: a single z term
 * c z_k of a branch unknown k (not a node voltage) whose E column holds only
 * E_kk (an inductor's own row; coupled inductors have their mutual terms
 * there and are left out: their damping stays in their storage rows). */
static void ind_ports(const nsc_lcs *L, acc_el *x)
{
    const nsc_sparse *E = L->E;
    for (int q = 0; q < NSC_MAXPORT; q++) x->lk[q] = -1;
    for (int q = 0; q < x->np && E->nz < 0; q++) { /* (E compressed: columns) */
        const nsc_lin *f = &x->i[q];
        if (f->nterm != 1 || f->t[0].kind != NSC_T_Z) continue;
        int k = f->t[0].idx;
        if (k < L->nnode_z || k >= L->n || E->p[k + 1] - E->p[k] != 1 || E->i[E->p[k]] != k)
            continue;
        x->lk[q] = k;
        x->lc[q] = f->t[0].coef;
    }
}

/* Where the state of a diode or an S/W switch is read (x->swk its switch, else
 * x->pair its first pair: its turn-ons and turn-offs are counted), and the EON
 * EOFF VREF IREF of its model into x (0: none). */
static nsc_status el_swloss(const nsc_lcs *L, const nsc_element *e, int ei, acc_el *x,
                            nsc_report *r)
{
    x->swk = x->pair = -1;
    x->hard = nsc_device_of(e->kind)->swcap;
    if (!nsc_device_of(e->kind)->swloss) return NSC_OK;
    x->swk = nsc_lcs_sw_of(L, ei);
    if (x->swk < 0) x->pair = L->el_pair[ei];
    return nsc_swloss_read(e->model, &x->sw, r); /* (devices/params.c: their table) */
}

nsc_status nsc_loss_acc_new(const nsc_lcs *L, const nsc_circuit *c, double gmin, double from,
                            double to, nsc_loss_acc **out, nsc_report *r)
{
    *out = NULL;
    nsc_loss_acc *a = nsc_calloc(1, sizeof *a);
    if (!a) return nsc_oom(r);
    a->L = L;
    a->capt = -1;
    a->gmin = gmin;
    a->from = from;
    a->to = to;
    a->e = nsc_calloc((size_t)c->nel + 1, sizeof *a->e);
    a->row = nsc_calloc((size_t)c->nel + 2, sizeof *a->row);
    a->zt = nsc_calloc((size_t)L->n + 1, sizeof(double));
    a->zq = nsc_calloc((size_t)L->n + 1, sizeof(double));
    a->wt = nsc_calloc((size_t)L->nsrc + 1, sizeof(double));
    if (!a->e || !a->row || !a->zt || !a->zq || !a->wt) goto oom;
    for (int ei = 0; ei < c->nel; ei++) {
        acc_el *x = &a->e[a->ne];
        x->el = ei;
        x->on = -1;
        if ((x->np = el_ports(L, c, ei, x)) < 0) {
            a->ne++;
            goto oom;
        }
        ind_ports(L, x);
        nsc_status s = el_swloss(L, &c->el[ei], ei, x, r);
        a->ne++; /* (its lins are freed with a) */
        if (s) {
            nsc_loss_acc_free(a);
            return s;
        }
        if (x->np == 0) {
            a->ne--;
            memset(x, 0, sizeof *x);
            continue;
        }
        a->row[a->nrow++] = (nsc_loss_row){
            c->el[ei].name, ei, nsc_device_of(c->el[ei].kind)->pclass, 0, 0, 0, 0, 0
        };
    }
    if (L->ngmin > 0) a->row[a->nrow++] = (nsc_loss_row){ "gmin", -1, NSC_PC_GMIN, 0, 0, 0, 0, 0 };
    *out = a;
    return NSC_OK;
oom:
    nsc_loss_acc_free(a);
    return nsc_oom(r);
}

static double scaled(double E0, double vref, double iref, double v, double i)
{
    return E0 * (vref > 0 ? v / vref : 1.0) * (iref > 0 ? i / iref : 1.0);
}

/* EON/EOFF of x at a step whose state is on, |v| at its end vend, |i| over it imean. */
static void charge(acc_el *x, nsc_loss_row *row, int on, double vend, double imean, int inside)
{
    if (inside && x->on >= 0 && on != x->on) {
        if (on) {
            row->esw += scaled(x->sw.eon, x->sw.vref, x->sw.iref, x->vend, imean);
            row->non++;
        } else {
            row->esw += scaled(x->sw.eoff, x->sw.vref, x->sw.iref, vend, x->imean);
            row->noff++;
        }
    }
    x->on = on;
    x->vend = vend;
    x->imean = imean;
}

/* The damping of x's capacitive and inductive currents over a step of theta
 * (h long; vt[q] port q's voltage at the theta point): each port's
 * (theta - 1/2)(v1 - v0) sum c (z1 - z0) over the NSC_T_DZ terms c of its
 * current: what the step's energy v_theta i h holds beyond the trapezoidal
 * v_mid i h (C (theta - 1/2)(v1 - v0)^2 for a capacitor C); and for a port
 * whose current is an inductive branch's c z_k (ind_ports), whose row makes
 * v_theta h = L (i1 - i0) up to sign: (theta - 1/2) v_theta h (i1 - i0), which
 * is L (theta - 1/2)(i1 - i0)^2, of either sign convention. */
static double step_damp(const acc_el *x, double theta, double h, const double *vt, const double *z0,
                        const double *z1, const double *l, const double *w0, const double *w1)
{
    double d = 0;
    for (int q = 0; q < x->np && theta != 0.5; q++) {
        double dq = 0;
        for (int k = 0; k < x->i[q].nterm; k++)
            if (x->i[q].t[k].kind == NSC_T_DZ)
                dq += x->i[q].t[k].coef * (z1[x->i[q].t[k].idx] - z0[x->i[q].t[k].idx]);
        if (dq != 0)
            d += (theta - 0.5)
                 * (nsc_lin_eval(&x->v[q], z1, l, NULL, 0, w1)
                    - nsc_lin_eval(&x->v[q], z0, l, NULL, 0, w0))
                 * dq;
        if (x->lk[q] >= 0)
            d += (theta - 0.5) * vt[q] * h * x->lc[q] * (z1[x->lk[q]] - z0[x->lk[q]]);
    }
    return d;
}


/* The capture of a hard turn-on or turn-off: from the step in which a
 * controlled switch (swcap) changes state until the first step below theta 1
 * after it (the restart's implicit-Euler steps after its events are over; with
 * theta = 1 throughout, NSC_LOSS_CAPN steps) or until it changes back, the
 * damping of every element's capacitive and inductive currents (step_damp:
 * the energy the capacitors' voltage jumps and the inductors' current jumps
 * lose, 1/2 C dv^2 and 1/2 L di^2 each at theta 1, in whichever element holds
 * them) is moved to the switch's row. At a turn-on it is counted in its ecap:
 * the charge of its own output capacitance and of those it charges, dissipated
 * in its channel. At a turn-off it is the inductive current the switch cuts,
 * whose energy the opened switch (its ROFF, the fast mode the step damps)
 * dissipates: fixed steps longer than L/ROFF booked it in the inductor's
 * storage row (an inductor cut into 1 kOhm at 1 us steps: the switch 22 %
 * short, hostile review, session 16). The sum of the rows is unchanged. */
#define NSC_LOSS_CAPN 100
static void capture(nsc_loss_acc *a, double theta, double frac)
{
    if (a->capt < 0) return;
    double sum = 0;
    for (int k = 0; k < a->ne; k++) {
        a->row[k].energy -= frac * a->e[k].damp;
        sum += frac * a->e[k].damp;
    }
    a->row[a->capt].energy += sum;
    if (a->capon) a->row[a->capt].ecap += sum;
    if ((a->capn++ > 0 && theta < 1) || a->capn >= NSC_LOSS_CAPN || a->e[a->capt].on != a->capon)
        a->capt = -1;
}

void nsc_loss_acc_step(nsc_loss_acc *a, double theta, double t0, double t1, const double *z0,
                       const double *z1, const double *l, const double *w0, const double *w1,
                       const char *sw, const char *mode1)
{
    const nsc_lcs *L = a->L;
    double h = t1 - t0, lo = t0 > a->from ? t0 : a->from, hi = t1 < a->to ? t1 : a->to;
    double frac = h > 0 && hi > lo ? (hi - lo) / h : 0; /* the part of the step in the window */
    for (int i = 0; i < L->n; i++) {
        a->zt[i] = theta * z1[i] + (1 - theta) * z0[i];
        a->zq[i] = a->zt[i] - (z1[i] - z0[i]); /* (zt - zq) / h = (z1 - z0) / h */
    }
    for (int j = 0; j < L->nsrc; j++) a->wt[j] = theta * w1[j] + (1 - theta) * w0[j];
    for (int k = 0; k < a->ne; k++) {
        acc_el *x = &a->e[k];
        double p = 0, i0 = 0, vt[NSC_MAXPORT];
        for (int q = 0; q < x->np; q++) {
            double iq = nsc_lin_eval_sw(&x->i[q], L, sw, a->zt, l, a->zq, h, a->wt);
            vt[q] = nsc_lin_eval(&x->v[q], a->zt, l, NULL, 0, a->wt);
            p += vt[q] * iq;
            if (q == 0) i0 = iq;
        }
        a->row[k].energy += frac * h * p;
        x->damp = step_damp(x, theta, h, vt, z0, z1, l, w0, w1);
        if (x->swk >= 0 || x->pair >= 0) {
            int on = x->swk >= 0 ? sw[x->swk] != 0 : mode1 ? mode1[x->pair] != 0 : l[x->pair] > 0;
            if (x->hard && x->on >= 0
                && on != x->on) { /* a turn-on or turn-off: capture from this step */
                a->capt = k;
                a->capn = 0;
                a->capon = on;
            }
            charge(x, &a->row[k], on, fabs(nsc_lin_eval(&x->v[0], z1, l, NULL, 0, w1)), fabs(i0),
                   t1 > a->from && t1 <= a->to * (1 + 1e-12));
        }
    }
    capture(a, theta, frac);
    if (L->ngmin > 0 && frac > 0) { /* gmin from each such node to ground */
        double p = 0;
        for (int g = 0; g < L->ngmin; g++) {
            int zi = nsc_zn(L->gmin_node[g]);
            if (zi >= 0) p += a->gmin * a->zt[zi] * a->zt[zi];
        }
        a->row[a->nrow - 1].energy += frac * h * p;
    }
}

int nsc_loss_acc_ptlen(const nsc_loss_acc *a)
{
    return a->nrow + 2 * a->ne;
}

int nsc_loss_acc_nrow(const nsc_loss_acc *a)
{
    return a->nrow;
}

struct nsc_loss_map {
    int nc, nr, nu; /* columns of x read, rows, distinct nonzero rows */
    int *col;       /* [nc] those columns */
    int *ix; /* [nr] row r's in U (nu: a zero row): per element its ports', then gmin's, rows v i */
    double
        *U; /* [nu nc] column-major (a node's voltage is read by every element at it: once here) */
    double *y, *xg; /* [nu + 1] (y[nu] = 0), [nc] */
};

void nsc_loss_map_free(nsc_loss_map *M)
{
    if (!M) return;
    free(M->col);
    free(M->ix);
    free(M->U);
    free(M->y);
    free(M->xg);
    free(M);
}

/* row[0..N) += c times the row over x of quantity (kind, idx) after step b (nsc_loss_basis). */
static void basis_row(const nsc_loss_basis *B, int b, nsc_termkind kind, int idx, double c,
                      double *row)
{
    int n = B->n, nr = B->n + B->m, ns = B->nsrc;
    const double *Y = B->ie[b];
    if (kind == NSC_T_W) {
        const double *S = B->S[b] + 4 * idx;
        row[n + idx] += c, row[n + ns + idx] += c * S[0], row[n + 2 * ns + idx] += c * S[2];
        return;
    }
    if (kind == NSC_T_L) {
        if (!B->mask[idx]) return;
        c *= B->dinv[idx] > 0 ? -B->dinv[idx] : 1.0;
        idx += n;
    }
    double d = kind == NSC_T_DZ ? 1 / B->h[b] : 1.0;
    for (int j = 0; j < B->na; j++) row[B->act[j]] += c * d * Y[(size_t)j * nr + idx];
    if (kind == NSC_T_DZ) row[idx] -= c * d;
}

/* row += w times the row of the lin f after step b: the voltages' DZ and SW terms count 0 (volt: nsc_lin_eval). */
static void lin_row(const nsc_loss_basis *B, int b, const nsc_lcs *L, const char *sw,
                    const nsc_lin *f, int volt, double w, double *row)
{
    for (int k = 0; k < f->nterm; k++) {
        const nsc_term *t = &f->t[k];
        if (t->kind == NSC_T_SW) {
            if (volt || t->idx >= L->nsw) continue;
            const nsc_switch *S = &L->sw[t->idx];
            double g = w * t->coef * (sw[t->idx] ? S->g_on : S->g_off);
            if (S->a >= 0) basis_row(B, b, NSC_T_Z, S->a, g, row);
            if (S->k >= 0) basis_row(B, b, NSC_T_Z, S->k, -g, row);
        } else if (!(volt && t->kind == NSC_T_DZ)) {
            basis_row(B, b, t->kind, t->idx, w * t->coef, row);
        }
    }
}

/* row (N) = Richardson's 2 f(step 1) - f(step 0) of the lin f: O(h0^2) off its
 * value at the state; a combination of the two steps' currents satisfies KCL
 * as each does, and of their node voltages KVL, so Tellegen holds for the
 * products of the combined voltages and currents (the header's balance). */
static void rich_row(const nsc_loss_basis *B, const nsc_lcs *L, const char *sw, const nsc_lin *f,
                     int volt, double *row)
{
    memset(row, 0, sizeof(double) * (size_t)B->N);
    lin_row(B, 1, L, sw, f, volt, 2.0, row);
    lin_row(B, 0, L, sw, f, volt, -1.0, row);
}

/* The rows (N each) of the map into R: per element port and per gmin node, its v and i (rich_row). */
static void map_rows(const nsc_loss_acc *a, const nsc_loss_basis *B, const char *sw, double *R)
{
    const nsc_lcs *L = a->L;
    size_t N = (size_t)B->N, r = 0;
    for (int k = 0; k < a->ne; k++)
        for (int q = 0; q < a->e[k].np; q++, r += 2) {
            rich_row(B, L, sw, &a->e[k].v[q], 1, R + r * N);
            rich_row(B, L, sw, &a->e[k].i[q], 0, R + (r + 1) * N);
        }
    for (int g = 0; g < L->ngmin; g++, r += 2) {
        int zi = nsc_zn(L->gmin_node[g]);
        memset(R + r * N, 0, 2 * N * sizeof(double));
        for (int b = 0; b < 2 && zi >= 0; b++) {
            basis_row(B, b, NSC_T_Z, zi, b ? 2.0 : -1.0, R + r * N);
            basis_row(B, b, NSC_T_Z, zi, b ? 2.0 * a->gmin : -a->gmin, R + (r + 1) * N);
        }
    }
}

/* Row r of R (N columns) read at the columns col[0..nc). */
static double rget(const double *R, int N, const int *col, int r, int c)
{
    return R[(size_t)r * N + col[c]];
}

/* ix, U from the rows of R at M's columns: each distinct nonzero row once,
 * found by a hash of its bits (open addressing on 2^k >= 2 nr slots). 0, or -1 on ENOMEM. */
static int distinct_rows(nsc_loss_map *M, const double *R, int N)
{
    int nr = M->nr, nc = M->nc, size = 2;
    while (size < 2 * nr) size *= 2;
    int *slot = malloc(sizeof(int) * (size_t)size);
    if (!slot || !(M->ix = malloc(sizeof(int) * ((size_t)nr + 1)))
        || !(M->U = malloc(sizeof(double) * ((size_t)nr * (size_t)nc + 1)))) {
        free(slot);
        return -1;
    }
    for (int k = 0; k < size; k++) slot[k] = -1;
    int *first = M->ix; /* (first row of each distinct one: ix until set) */
    M->nu = 0;
    for (int r = 0; r < nr; r++) {
        unsigned long long h = 1469598103934665603ULL;
        int zero = 1;
        for (int c = 0; c < nc; c++) {
            double v = rget(R, N, M->col, r, c);
            unsigned long long b;
            memcpy(&b, &v, sizeof b);
            h = (h ^ b) * 1099511628211ULL;
            zero &= v == 0;
        }
        if (zero) {
            first[r] = -1;
            continue;
        }
        int k = (int)(h & (unsigned long long)(size - 1)), u = -1;
        for (; slot[k] >= 0 && u < 0; k = (k + 1) & (size - 1)) {
            int same = 1;
            for (int c = 0; c < nc && same; c++)
                same = rget(R, N, M->col, r, c) == M->U[(size_t)c * nr + slot[k]];
            if (same) u = slot[k];
        }
        if (u < 0) {
            u = slot[k] = M->nu++;
            for (int c = 0; c < nc; c++) M->U[(size_t)c * nr + u] = rget(R, N, M->col, r, c);
        }
        first[r] = u;
    }
    for (int r = 0; r < nr; r++) M->ix[r] = first[r] < 0 ? M->nu : first[r];
    for (int c = 1; c < nc; c++) /* U to nu x nc (its leading dimension nr so far) */
        memmove(M->U + (size_t)c * M->nu, M->U + (size_t)c * nr, sizeof(double) * (size_t)M->nu);
    free(slot);
    return 0;
}

nsc_loss_map *nsc_loss_map_new(const nsc_loss_acc *a, const nsc_loss_basis *B, const char *sw)
{
    int nr = 2 * a->L->ngmin, N = B->N;
    for (int k = 0; k < a->ne; k++) nr += 2 * a->e[k].np;
    nsc_loss_map *M = calloc(1, sizeof *M);
    double *R = malloc(sizeof(double) * ((size_t)nr * (size_t)N + 1));
    if (!M || !R || !(M->col = malloc(sizeof(int) * ((size_t)N + 1)))
        || !(M->y = malloc(sizeof(double) * ((size_t)nr + 1)))
        || !(M->xg = malloc(sizeof(double) * ((size_t)N + 1)))) {
        free(R);
        nsc_loss_map_free(M);
        return NULL;
    }
    M->nr = nr;
    map_rows(a, B, sw, R);
    for (int c = 0; c < N; c++) { /* the columns read */
        int nz = 0;
        for (int r = 0; r < nr && !nz; r++) nz = R[(size_t)r * N + c] != 0;
        if (nz) M->col[M->nc++] = c;
    }
    int bad = distinct_rows(M, R, N);
    free(R);
    if (bad) {
        nsc_loss_map_free(M);
        return NULL;
    }
    return M;
}

void nsc_loss_map_point(const nsc_loss_acc *a, const nsc_loss_map *M, const double *x, double *pt)
{
    for (int j = 0; j < M->nc; j++) M->xg[j] = x[M->col[j]];
    nsc_dense_gemv_small(M->nu, M->nc, M->U, M->xg, M->y);
    M->y[M->nu] = 0;
    const double *y = M->y;
    const int *ix = M->ix;
    for (int k = 0; k < a->ne; k++) { /* (every element kept has a port) */
        double p = 0;
        for (int q = 0; q < a->e[k].np; q++) p += y[ix[2 * q]] * y[ix[2 * q + 1]];
        pt[k] = p;
        pt[a->nrow + k] = y[ix[0]];
        pt[a->nrow + a->ne + k] = y[ix[1]];
        ix += 2 * a->e[k].np;
    }
    if (a->L->ngmin > 0) {
        double p = 0;
        for (int g = 0; g < a->L->ngmin; g++, ix += 2) p += y[ix[0]] * y[ix[1]];
        pt[a->nrow - 1] = p;
    }
}

void nsc_loss_acc_segment(nsc_loss_acc *a, double t0, double tm, double t1, const double *p0,
                          const double *pm, const double *p1)
{
    double h = t1 - t0, lo = t0 > a->from ? t0 : a->from, hi = t1 < a->to ? t1 : a->to;
    double frac = h > 0 && hi > lo ? (hi - lo) / h : 0; /* the part of the segment in the window */
    double c0 = h / 2, cm = 0, c1 = h / 2;              /* the trapezoid, without a midpoint */
    if (pm && tm >= t0 + 0.2 * h
        && tm <= t1 - 0.2 * h) { /* the quadratic through the three points */
        double sm = (tm - t0) / h;
        c0 = h * (0.5 - 1 / (6 * sm));
        cm = h / (6 * sm * (1 - sm));
        c1 = h * (2 - 3 * sm) / (6 * (1 - sm));
    }
    for (int k = 0; k < a->nrow && frac > 0; k++)
        a->row[k].energy += frac * (c0 * p0[k] + (cm != 0 ? cm * pm[k] : 0) + c1 * p1[k]);
    a->capt = -1;                     /* (no damping on a segment: capture()'s end) */
    for (int k = 0; k < a->ne; k++) { /* the state before the next event (charge()) */
        acc_el *x = &a->e[k];
        if (x->swk < 0 && x->pair < 0) continue;
        x->vend = fabs(p1[a->nrow + k]);
        x->imean = fabs(p1[a->nrow + a->ne + k]);
    }
}

nsc_status nsc_loss_acc_finish(nsc_loss_acc *a, double t_end, nsc_losses *out, nsc_report *r)
{
    nsc_losses_free(out);
    out->from = a->from;
    out->to = t_end < a->to ? t_end : a->to;
    out->row = a->row;
    out->nrow = a->nrow;
    a->row = NULL;
    nsc_loss_acc_free(a);
    return NSC_OK;
}

void nsc_loss_sum_free(nsc_loss_sum *s)
{
    free(s->load);
    s->load = NULL;
    s->nload = 0;
}

static int in_list(const int *v, int n, int x)
{
    for (int k = 0; k < n; k++)
        if (v[k] == x) return 1;
    return 0;
}

/* The load rows into s->load: the elements named load[0..nload), else the
 * resistor absorbing the most and every independent source absorbing more than
 * 1e-9 of the energies' magnitudes (a current sink, a battery charged). 0, or
 * k + 1 when load[k] names no row. */
static int pick_loads(const nsc_losses *Ls, char *const *load, int nload, double scale,
                      nsc_loss_sum *s)
{
    for (int j = 0; j < nload; j++) {
        int found = -1;
        for (int k = 0; k < Ls->nrow && found < 0; k++)
            if (Ls->row[k].el >= 0 && nsc_strieq(Ls->row[k].name, load[j])) found = k;
        if (found < 0) return j + 1;
        if (!in_list(s->load, s->nload, found)) s->load[s->nload++] = found;
    }
    if (nload > 0) return 0;
    int big = -1;
    for (int k = 0; k < Ls->nrow; k++)
        if (Ls->row[k].cls == NSC_PC_RESISTOR
            && (big < 0 || Ls->row[k].energy > Ls->row[big].energy))
            big = k;
    if (big >= 0) s->load[s->nload++] = big;
    for (int k = 0; k < Ls->nrow; k++)
        if (Ls->row[k].cls == NSC_PC_SOURCE && Ls->row[k].energy > 1e-9 * scale)
            s->load[s->nload++] = k;
    return 0;
}

int nsc_losses_sum(const nsc_losses *Ls, char *const *load, int nload, nsc_loss_sum *s)
{
    memset(s, 0, sizeof *s);
    if (!(s->load = nsc_calloc((size_t)Ls->nrow + (size_t)nload + 1, sizeof *s->load))) return -1;
    double scale = 0;
    for (int k = 0; k < Ls->nrow; k++) scale += fabs(Ls->row[k].energy);
    int bad = pick_loads(Ls, load, nload, scale, s);
    if (bad) return bad;
    for (int k = 0; k < Ls->nrow; k++) {
        const nsc_loss_row *w = &Ls->row[k];
        double E = w->energy;
        int isload = in_list(s->load, s->nload, k);
        s->residual += E;
        s->switching += w->esw;
        if (isload) s->loads += E;
        switch (w->cls) {
        case NSC_PC_SOURCE: /* delivered: input; absorbed: a sink */
            if (!isload && E < 0) s->input -= E;
            else if (!isload) s->sinks += E;
            break;
        case NSC_PC_RESISTOR: s->resistors += E; break;
        case NSC_PC_SEMI: s->semis += E; break;
        case NSC_PC_STORE: s->stored += E; break;
        case NSC_PC_GMIN: s->gmin += E; break;
        default: s->controlled += E; break;
        }
    }
    s->rel = scale > 0 ? fabs(s->residual) / scale : 0;
    s->efficiency = s->nload > 0 && s->input > 0 ? s->loads / (s->input + s->switching) : NAN;
    s->unsteady = s->input > 0 && fabs(s->stored) > NSC_LOSS_STORE_FRAC * (s->input + s->switching);
    return 0;
}

static const char *const cls_name[] = { "controlled",    "source",  "resistor",
                                        "semiconductor", "storage", "gmin" };

/* A name as data: control characters shown as '?', blanks up to width. */
static void put_name(FILE *f, const char *name, int width)
{
    int n = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++, n++)
        fputc(*p < 32 || *p == 127 ? '?' : *p, f);
    for (; n < width; n++) fputc(' ', f);
}

int nsc_losses_print(FILE *f, const nsc_losses *Ls, const nsc_loss_sum *s, const char *what)
{
    double dt = Ls->to - Ls->from;
    double per = dt > 0 ? 1 / dt : 0;
    fprintf(f, "# losses of %s over %.9g .. %.9g s (%.6g s); average powers in W, energies in J\n",
            what, Ls->from, Ls->to, dt);
    fprintf(f, "# %-14s %-13s %16s %16s %16s %6s %6s\n", "element", "class", "power", "switching",
            "energy", "on", "off");
    for (int k = 0; k < Ls->nrow; k++) {
        const nsc_loss_row *w = &Ls->row[k];
        fputs("  ", f);
        put_name(f, w->name, 16);
        fprintf(f, "%-13s % 16.9e % 16.9e % 16.9e %6ld %6ld\n", cls_name[w->cls], w->energy * per,
                w->esw * per, w->energy + w->esw, w->non, w->noff);
    }
    fprintf(f, "# input (independent sources) % .9e W\n", s->input * per);
    fprintf(
        f,
        "# resistors % .9e W, semiconductors % .9e W (conduction) + % .9e W (switching), storage % .9e W, "
        "controlled sources % .9e W, gmin % .9e W",
        s->resistors * per, s->semis * per, s->switching * per, s->stored * per,
        s->controlled * per, s->gmin * per);
    if (s->sinks != 0) fprintf(f, ", sources absorbing % .9e W", s->sinks * per);
    fputc('\n', f);
    double ecap = 0;
    for (int k = 0; k < Ls->nrow; k++) ecap += Ls->row[k].ecap;
    if (fabs(ecap) > 1e-9 * (s->input + s->switching)) /* (not the restarts' round-off elsewhere) */
        fprintf(
            f,
            "# of which capacitive turn-on losses (the capacitors' charge dissipated in the controlled "
            "switches at their turn-ons, in their powers above) % .9e W\n",
            ecap * per);
    if (s->nload > 0) {
        fputs(s->nload > 1 ? "# loads " : "# load ", f);
        for (int j = 0; j < s->nload; j++) {
            if (j) fputs(", ", f);
            put_name(f, Ls->row[s->load[j]].name, j == s->nload - 1 ? 16 : 0);
        }
        if (isnan(s->efficiency))
            fprintf(f, "% .9e W, efficiency - (the independent sources deliver no energy)\n",
                    s->loads * per);
        else
            fprintf(f, "% .9e W, efficiency %.9f (load / (input + switching))\n", s->loads * per,
                    s->efficiency);
    }
    if (s->unsteady)
        fprintf(
            f,
            "# warning: the stored energy changes by % .3e J over the window, %.3g of the input: not a steady "
            "window (the efficiency counts it)\n",
            s->stored, s->stored / (s->input + s->switching));
    fprintf(f, "# balance: the elements' energies sum to % .3e J, %.3e of their magnitudes\n",
            s->residual, s->rel);
    return ferror(f) ? -1 : 0;
}
