/* ac.c -- the small-signal AC analysis at the operating point (smallsig.h). */
#include "smallsig.h"
#include "stepper_int.h"
#include "base/la_klu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AC_MAXPOINTS 10000000
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

nsc_status nsc_ac_freqs(const nsc_acsweep *s, double **f, int *nf, nsc_report *r)
{
    *f = NULL;
    *nf = 0;
    double ratio = s->fstop / s->fstart, per = 0;
    long steps;
    if (s->kind == NSC_AC_LIN) steps = s->n - 1;
    else {
        per = s->kind == NSC_AC_DEC ? log10(ratio) : log2(ratio);
        double k = floor(per * s->n * (1 + 1e-12)); /* ngspice: whole steps that fit */
        if (!(k < AC_MAXPOINTS))
            return nsc_err(r, NSC_ENETLIST, &s->loc, ".ac: more than %d points", AC_MAXPOINTS);
        steps = (long)k;
    }
    if (steps + 1 > AC_MAXPOINTS)
        return nsc_err(r, NSC_ENETLIST, &s->loc, ".ac: more than %d points", AC_MAXPOINTS);
    double *v = nsc_calloc((size_t)steps + 1, sizeof *v);
    if (!v) return nsc_oom(r);
    double lin = steps > 0 ? (s->fstop - s->fstart) / (double)steps : 0;
    double fac = s->kind == NSC_AC_OCT ? exp2(1.0 / s->n) /* octaves: 2^(1/n), last <= fstop */
                 : steps > 0           ? exp(log(ratio) / (double)steps)
                                       : 1; /* decades: the last is fstop */
    v[0] = s->fstart;
    for (long k = 1; k <= steps; k++) /* f_k = f_k-1 * fac (ngspice's product) */
        v[k] = s->kind == NSC_AC_LIN ? s->fstart + (double)k * lin : v[k - 1] * fac;
    if (steps > 0 && s->kind != NSC_AC_OCT) v[steps] = s->fstop; /* exactly fstop */
    *f = v;
    *nf = (int)steps + 1;
    return NSC_OK;
}

/* The linearised system of smallsig.h: its pattern (CSC, p/i of K) and the values
 * K = Kr + j omega Ki (Kr, Ki on that same pattern); pos[j] the row/column of
 * active pair j after the n unknowns, -1 for an inactive one. */
typedef struct ac_sys {
    const nsc_lcs *L;
    int n, N;
    int *pos;
    nsc_sparse *Kr, *Ki;
    double *Ax;  /* [2 nnz] interleaved values at one frequency */
    double *w;   /* [2 nsrc] the source phasors */
    double *rhs; /* [2 N] */
    nsc_kluz *F;
} ac_sys;

static void ac_sys_free(ac_sys *S)
{
    free(S->pos);
    nsc_sp_free(S->Kr);
    nsc_sp_free(S->Ki);
    free(S->Ax);
    free(S->w);
    free(S->rhs);
    nsc_kluz_free(S->F);
}

/* Entries of Kr (value) and Ki (imaginary coefficient), both at (i, j), so the
 * two compressed patterns coincide. */
static int put(nsc_sparse *Tr, nsc_sparse *Ti, int i, int j, double re, double im)
{
    return nsc_sp_entry(Tr, i, j, re) | nsc_sp_entry(Ti, i, j, im);
}

/* Kr = [-A_sw  -B_a; C_a  D_aa + diag(dD)_aa], Ki = [E 0; 0 0] into triplets
 * Tr, Ti (dD: each fitted junction's tangent minus chord slope at the
 * operating point, nsc_dev_ac_tangent: its small-signal conductance the SPICE
 * junction's at that current). */
static int ac_stamp(const ac_sys *S, const char *sw, const double *dD, nsc_sparse *Tr,
                    nsc_sparse *Ti)
{
    const nsc_lcs *L = S->L;
    int bad = 0;
    for (int j = 0; j < L->n; j++) {
        for (int k = L->A->p[j]; k < L->A->p[j + 1]; k++)
            bad |= put(Tr, Ti, L->A->i[k], j, -L->A->x[k], 0);
        for (int k = L->E->p[j]; k < L->E->p[j + 1]; k++)
            bad |= put(Tr, Ti, L->E->i[k], j, 0, L->E->x[k]);
        for (int k = L->C->p[j]; k < L->C->p[j + 1]; k++)
            if (S->pos[L->C->i[k]] >= 0) bad |= put(Tr, Ti, S->pos[L->C->i[k]], j, L->C->x[k], 0);
    }
    for (int j = 0; j < L->m; j++) {
        if (S->pos[j] < 0) continue;
        for (int k = L->B->p[j]; k < L->B->p[j + 1]; k++)
            bad |= put(Tr, Ti, L->B->i[k], S->pos[j], -L->B->x[k], 0);
        for (int k = L->D->p[j]; k < L->D->p[j + 1]; k++)
            if (S->pos[L->D->i[k]] >= 0)
                bad |= put(Tr, Ti, S->pos[L->D->i[k]], S->pos[j], L->D->x[k], 0);
        bad |= put(Tr, Ti, S->pos[j], S->pos[j], dD[j], 0); /* (even when D_jj = 0) */
    }
    for (int j = 0; j < L->nsw; j++) {
        if (!sw[j]) continue;
        const nsc_switch *W = &L->sw[j];
        double dg = W->g_on - W->g_off; /* -A: +dg (v_a - v_k) at a */
        if (W->a >= 0) bad |= put(Tr, Ti, W->a, W->a, dg, 0);
        if (W->a >= 0 && W->k >= 0)
            bad |= put(Tr, Ti, W->a, W->k, -dg, 0) | put(Tr, Ti, W->k, W->a, -dg, 0);
        if (W->k >= 0) bad |= put(Tr, Ti, W->k, W->k, dg, 0);
    }
    return bad;
}

/* The system of L in mode mode[m] and switch states sw: pattern, values, the
 * phasors of the AC sources, the symbolic analysis. */
static nsc_status ac_sys_new(ac_sys *S, const nsc_circuit *c, const nsc_lcs *L, const char *mode,
                             const char *sw, const double *lop, nsc_report *r)
{
    memset(S, 0, sizeof *S);
    S->L = L;
    S->n = S->N = L->n;
    if (!(S->pos = nsc_calloc((size_t)L->m + 1, sizeof *S->pos))) return nsc_oom(r);
    for (int j = 0; j < L->m; j++) S->pos[j] = mode[j] ? S->N++ : -1;
    double *dD = nsc_calloc((size_t)L->m + 1, sizeof *dD); /* the junctions' tangents */
    if (dD) nsc_dev_ac_tangent(L, c, lop, dD);
    nsc_sparse *Tr = nsc_sp_new(S->N, S->N, 64, 1), *Ti = nsc_sp_new(S->N, S->N, 64, 1);
    int bad = !dD || !Tr || !Ti || ac_stamp(S, sw, dD, Tr, Ti);
    free(dD);
    if (!bad) {
        S->Kr = nsc_sp_compress(Tr);
        S->Ki = nsc_sp_compress(Ti);
    }
    nsc_sp_free(Tr);
    nsc_sp_free(Ti);
    if (bad || !S->Kr || !S->Ki) return nsc_oom(r);
    int nnz = S->Kr->p[S->N];
    S->Ax = nsc_calloc(2 * (size_t)nnz + 1, sizeof *S->Ax);
    S->w = nsc_calloc(2 * (size_t)L->nsrc + 1, sizeof *S->w);
    S->rhs = nsc_calloc(2 * (size_t)S->N + 1, sizeof *S->rhs);
    if (!S->Ax || !S->w || !S->rhs) return nsc_oom(r);
    for (int j = 0; j < L->nsrc; j++) { /* W_j = mag e^{j phase} */
        const nsc_element *e = &c->el[L->src[j].el];
        if (e->kind != NSC_EL_V && e->kind != NSC_EL_I) continue;
        S->w[2 * j] = e->ac_mag * cos(e->ac_phase * M_PI / 180);
        S->w[2 * j + 1] = e->ac_mag * sin(e->ac_phase * M_PI / 180);
    }
    if (!(S->F = nsc_kluz_analyze(S->N, S->Kr->p, S->Kr->i))) return nsc_oom(r);
    return NSC_OK;
}

/* rhs = [Ss W; -Se_a W] (interleaved complex) */
static void ac_rhs(ac_sys *S)
{
    const nsc_lcs *L = S->L;
    memset(S->rhs, 0, sizeof(double) * 2 * (size_t)S->N);
    for (int j = 0; j < L->nsrc; j++) {
        double wr = S->w[2 * j], wi = S->w[2 * j + 1];
        if (wr == 0 && wi == 0) continue;
        for (int k = L->Ss->p[j]; k < L->Ss->p[j + 1]; k++) {
            S->rhs[2 * L->Ss->i[k]] += L->Ss->x[k] * wr;
            S->rhs[2 * L->Ss->i[k] + 1] += L->Ss->x[k] * wi;
        }
        for (int k = L->Se->p[j]; k < L->Se->p[j + 1]; k++) {
            int q = S->pos[L->Se->i[k]];
            if (q < 0) continue;
            S->rhs[2 * q] -= L->Se->x[k] * wr;
            S->rhs[2 * q + 1] -= L->Se->x[k] * wi;
        }
    }
}

/* One frequency: K(omega) factored, rhs = K^-1 rhs. 0, or -1 when singular. */
static int ac_solve(ac_sys *S, double omega)
{
    int nnz = S->Kr->p[S->N];
    for (int k = 0; k < nnz; k++) {
        S->Ax[2 * k] = S->Kr->x[k]; /* K = Kr + j omega Ki */
        S->Ax[2 * k + 1] = omega * S->Ki->x[k];
    }
    ac_rhs(S);
    if (nsc_kluz_factor(S->F, S->Ax)) return -1;
    return nsc_kluz_solve(S->F, S->rhs);
}

/* A probe's phasor from the solution X (interleaved [Z; L_a]): NSC_T_DZ is
 * j omega Z, NSC_T_W the source's phasor, NSC_T_SW g (Z_a - Z_k) in sw's state. */
static void ac_probe(const ac_sys *S, const nsc_lin *f, const char *sw, double omega, double *re,
                     double *im)
{
    const double *X = S->rhs;
    const nsc_lcs *L = S->L;
    double vr = 0, vi = 0;
    for (int k = 0; k < f->nterm; k++) {
        const nsc_term *t = &f->t[k];
        int q = t->kind == NSC_T_L ? S->pos[t->idx] : t->idx;
        switch (t->kind) {
        case NSC_T_Z:
            vr += t->coef * X[2 * q];
            vi += t->coef * X[2 * q + 1];
            break;
        case NSC_T_L:
            if (q >= 0) {
                vr += t->coef * X[2 * q];
                vi += t->coef * X[2 * q + 1];
            }
            break;
        case NSC_T_DZ:
            vr -= t->coef * omega * X[2 * q + 1];
            vi += t->coef * omega * X[2 * q];
            break;
        case NSC_T_W:
            vr += t->coef * S->w[2 * q];
            vi += t->coef * S->w[2 * q + 1];
            break;
        case NSC_T_SW: {
            const nsc_switch *W = &L->sw[q];
            double g = sw[q] ? W->g_on : W->g_off;
            vr += t->coef * g * ((W->a >= 0 ? X[2 * W->a] : 0) - (W->k >= 0 ? X[2 * W->k] : 0));
            vi += t->coef * g
                  * ((W->a >= 0 ? X[2 * W->a + 1] : 0) - (W->k >= 0 ? X[2 * W->k + 1] : 0));
            break;
        }
        }
    }
    *re = vr;
    *im = vi;
}

typedef struct ac_opx {
    const nsc_circuit *c;
    double gmin;
    nsc_solver solver;
    char **mode, **sw;
    int *m, *nsw;
    double **zop, **lop;
} ac_opx;

/* One pass of ac_op (nsc_fitted): *again, nothing kept, when it remade fits
 * that the point left (the small-signal conductances are the fits' slopes). */
static nsc_status ac_op_pass(void *ctx, nsc_report *notes, int *again, nsc_report *r)
{
    ac_opx *x = ctx;
    nsc_opws O = { 0 };
    nsc_status s = nsc_opws_build(&O, x->c, x->gmin, r);
    if (!s) {
        const nsc_lcs *L = O.L;
        *x->m = L->m;
        *x->nsw = L->nsw;
        s = nsc_opws_point(&O, x->c, x->solver, x->gmin, 1, r);
        double *lv = s ? NULL : nsc_calloc((size_t)L->m + 1, sizeof *lv);
        if (!s && !lv) s = nsc_oom(r);
        if (!s) nsc_op_seen(L, x->c, O.z, O.l, O.e, lv); /* (junctions' voltages too) */
        *again = !s && nsc_op_fits(L, x->c, lv, 1, notes, r);
        free(lv);
        if (!s && !*again && x->zop && !(*x->zop = nsc_calloc((size_t)L->n + 1, sizeof **x->zop)))
            s = nsc_oom(r);
        if (!s && !*again && x->zop) memcpy(*x->zop, O.z, sizeof **x->zop * (size_t)L->n);
        if (!s && !*again && !(*x->lop = nsc_calloc((size_t)L->m + 1, sizeof **x->lop)))
            s = nsc_oom(r);
        if (!s && !*again) memcpy(*x->lop, O.l, sizeof **x->lop * (size_t)L->m);
    }
    if (!s && !*again) { /* the caller's: the point's modes and states */
        *x->mode = O.mode;
        *x->sw = O.sw;
        O.mode = O.sw = NULL;
    }
    nsc_opws_free(&O);
    return s;
}

/* The operating point of c: its mode[m] and switch states sw[nsw] (of the OP
 * LCS, whose pairs and switches are the transient's), its multipliers *lop[m],
 * and when zop is given its unknowns *zop[nop] (the transient's layout first:
 * lcs.h); junction fits it leaves remade first (nsc_op_fits). */
static nsc_status ac_op(const nsc_circuit *c, double gmin, nsc_solver solver, char **mode,
                        char **sw, int *m, int *nsw, double **zop, double **lop, nsc_report *r)
{
    ac_opx x = { c, gmin, solver, mode, sw, m, nsw, zop, lop };
    return nsc_fitted(ac_op_pass, &x, r);
}

nsc_status nsc_ac_result_new(const nsc_circuit *c, const nsc_probe *p, int np, nsc_ac_result **out,
                             nsc_report *r)
{
    nsc_ac_result *R = nsc_calloc(1, sizeof *R);
    if (!R) return nsc_oom(r);
    *out = R;
    nsc_status s = nsc_ac_freqs(&c->job.ac, &R->f, &R->nf, r);
    if (s) return s;
    R->re = nsc_calloc((size_t)R->nf * (size_t)np + 1, sizeof(double));
    R->im = nsc_calloc((size_t)R->nf * (size_t)np + 1, sizeof(double));
    R->name = nsc_calloc((size_t)np + 1, sizeof *R->name);
    R->title = nsc_strdup(c->title ? c->title : "");
    if (!R->re || !R->im || !R->name || !R->title) return nsc_oom(r);
    for (; R->np < np; R->np++)
        if (!(R->name[R->np] = nsc_strdup(p[R->np].name))) return nsc_oom(r);
    return NSC_OK;
}

/* Every frequency of R: solve, evaluate the probes f[0..np). */
static nsc_status ac_sweep(ac_sys *S, const nsc_lin *f, const char *sw, nsc_ac_result *R,
                           nsc_report *r)
{
    for (int k = 0; k < R->nf; k++) {
        double omega = 2 * M_PI * R->f[k];
        if (ac_solve(S, omega))
            return nsc_err(r, NSC_ESIM, NULL,
                           ".ac: the small-signal system at %g Hz is singular (a node or "
                           "loop the operating point's mode leaves undetermined)",
                           R->f[k]);
        for (int q = 0; q < R->np; q++)
            ac_probe(S, &f[q], sw, omega, &R->re[(size_t)k * R->np + q],
                     &R->im[(size_t)k * R->np + q]);
    }
    return NSC_OK;
}

nsc_status nsc_run_ac(const nsc_circuit *c, double gmin, nsc_solver solver, const nsc_probe *p,
                      int np, nsc_ac_result **out, nsc_report *r)
{
    *out = NULL;
    char *mode = NULL, *sw = NULL;
    int m = 0, nsw = 0, nf = 0;
    nsc_lcs *L = NULL;
    nsc_lin *f = NULL;
    nsc_ac_result *R = NULL;
    ac_sys S;
    memset(&S, 0, sizeof S);
    double *zop = NULL, *lop = NULL;
    nsc_status s = ac_op(c, gmin, solver, &mode, &sw, &m, &nsw, &zop, &lop, r);
    if (!s) s = nsc_lcs_assemble(c, NSC_ASM_TRAN, gmin, &L, r);
    if (!s && (L->m != m || L->nsw != nsw))
        s = nsc_err(r, NSC_ESIM, NULL, ".ac: pairs differ between OP and transient");
    if (!s && L->nsm && nsc_lcs_smooth_at(L, zop)) /* smooth functions: their tangent at the OP */
        s = nsc_err(r, NSC_ESIM, NULL,
                    ".ac: a smooth function of a behavioural source is not finite at the "
                    "operating point");
    free(zop);
    if (!s) s = ac_sys_new(&S, c, L, mode, sw, lop, r);
    free(lop);
    if (!s && !(f = nsc_calloc((size_t)np + 1, sizeof *f))) s = nsc_oom(r);
    for (; !s && nf < np; nf++) s = nsc_lcs_probe(L, c, &p[nf], &f[nf], r);
    if (!s) s = nsc_ac_result_new(c, p, np, &R, r);
    if (!s) s = ac_sweep(&S, f, sw, R, r);
    for (int k = 0; k < nf; k++) nsc_lin_free(&f[k]);
    free(f);
    ac_sys_free(&S);
    nsc_lcs_free(L);
    free(mode);
    free(sw);
    if (s) nsc_ac_result_free(R);
    else *out = R;
    return s;
}
