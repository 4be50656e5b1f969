/* onestep.c -- the one-step problem of the theta-scheme (see onestep.h). */
#include "onestep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int nsc_solver_parse(const char *name)
{
    if (!name || nsc_strieq(name, "auto")) return NSC_SOLVER_AUTO;
    if (nsc_strieq(name, "lemke")) return NSC_SOLVER_LEMKE;
    if (nsc_strieq(name, "enum")) return NSC_SOLVER_ENUM;
    return -1;
}

static void mode_clear(nsc_mode *M)
{
    free(M->mask);
    free(M->act);
    nsc_sp_free(M->K);
    nsc_klu_free(M->F);
    memset(M, 0, sizeof *M);
}

void nsc_onestep_free(nsc_onestep *P)
{
    if (!P) return;
    free(P->th);
    free(P->sw);
    free(P->grp);
    free(P->ts);
    nsc_sp_free(P->Bt);
    nsc_sp_free(P->W);
    nsc_sp_free(P->R);
    nsc_klu_free(P->F);
    free(P->WiB);
    free(P->M);
    nsc_lcp_ws_free(P->ws);
    free(P->r);
    free(P->q);
    free(P->w);
    for (int k = 0; k < P->nmodes; k++) mode_clear(&P->modes[k]);
    free(P->prev);
    free(P->mask);
    free(P->mask2);
    free(P->lt);
    free(P->x);
    free(P->zl);
    free(P->ll);
    free(P);
}

/* Theta_ii = theta where row i of E holds a nonzero, 1 on algebraic rows. */
static void row_theta(const nsc_sparse *E, double theta, int n, double *th)
{
    for (int i = 0; i < n; i++) th[i] = 1.0;
    if (!E) return;
    for (int j = 0; j < E->n; j++)
        for (int k = E->p[j]; k < E->p[j + 1]; k++)
            if (E->x[k] != 0) th[E->i[k]] = theta;
}

/* Copy of CSC A with row i scaled by s[i]. */
static nsc_sparse *scaled_rows(const nsc_sparse *A, const double *s)
{
    nsc_sparse *S = nsc_sp_add(A, A, 1.0, 0.0);
    if (S) nsc_sp_scale_rows(S, s);
    return S;
}

nsc_status nsc_onestep_new(const nsc_lcs *L, double h, double theta, nsc_onestep **out,
                           nsc_report *rep)
{
    return nsc_onestep_new_sw(L, h, theta, NULL, out, rep);
}

void nsc_onestep_take_mode(nsc_onestep *P, const nsc_onestep *from)
{
    if (P == from || !from->have_prev || P->m != from->m) return;
    memcpy(P->prev, from->prev, (size_t)P->m);
    P->have_prev = 1;
}

/* A with the conductance change g_on - g_off of every switch that is on. NULL on ENOMEM. */
static nsc_sparse *switched_a(const nsc_lcs *L, const char *sw)
{
    nsc_sparse *T = nsc_sp_new(L->n, L->n, 4 * L->nsw + 1, 1);
    if (!T) return NULL;
    int bad = 0;
    for (int j = 0; j < L->nsw; j++) {
        if (!sw[j]) continue;
        const nsc_switch *S = &L->sw[j];
        double dg = S->g_on - S->g_off;
        int a = S->a, k = S->k;
        if (a >= 0) bad |= nsc_sp_entry(T, a, a, -dg);           /* KCL: -dg (v_a - v_k) at a */
        if (a >= 0 && k >= 0) bad |= nsc_sp_entry(T, a, k, dg) | nsc_sp_entry(T, k, a, dg);
        if (k >= 0) bad |= nsc_sp_entry(T, k, k, -dg);
    }
    nsc_sparse *D = bad ? NULL : nsc_sp_compress(T);
    nsc_sp_free(T);
    if (!D) return NULL;
    nsc_sparse *A = nsc_sp_add(L->A, D, 1.0, 1.0);              /* A + dA */
    nsc_sp_free(D);
    return A;
}

/* Hidden algebraic rows (formulation.md §2): a connected component S of the
 * graph of E (rows linked by off-diagonal entries, e.g. capacitors) whose
 * columns sum to zero (1_S^T E = 0: capacitors among nodes with no capacitance
 * to ground) carries an algebraic constraint in the sum of its rows. Returns
 * grp[n]: the representative (lowest) row of i's component when the component is
 * such, else -1; *ngrp the number of such components. NULL on ENOMEM. */
static int *algebraic_rows(const nsc_sparse *E, int n, int *ngrp)
{
    int *uf = malloc(sizeof(int) * ((size_t)n + 1));
    int *grp = malloc(sizeof(int) * ((size_t)n + 1));
    double *cs = nsc_calloc((size_t)n + 1, sizeof(double)), *ca = nsc_calloc((size_t)n + 1, sizeof(double));
    char *bad = nsc_calloc((size_t)n + 1, 1), *has = nsc_calloc((size_t)n + 1, 1);
    *ngrp = 0;
    if (!uf || !grp || !cs || !ca || !bad || !has) {
        free(uf); free(grp); free(cs); free(ca); free(bad); free(has);
        return NULL;
    }
    for (int i = 0; i < n; i++) uf[i] = i;
    for (int j = 0; j < n; j++)
        for (int k = E->p[j]; k < E->p[j + 1]; k++) {
            if (E->x[k] == 0) continue;
            int a = E->i[k], b = j;
            has[a] = 1;
            cs[j] += E->x[k];                                     /* column sums */
            ca[j] += fabs(E->x[k]);
            while (uf[a] != a) a = uf[a] = uf[uf[a]];
            while (uf[b] != b) b = uf[b] = uf[uf[b]];
            if (a != b) uf[a > b ? a : b] = a < b ? a : b;        /* the root is the lowest row */
        }
    for (int i = 0; i < n; i++) {
        int a = i;
        while (uf[a] != a) a = uf[a];
        uf[i] = a;
    }
    for (int j = 0; j < n; j++)
        if (fabs(cs[j]) > 1e-12 * ca[j]) bad[uf[j]] = 1;          /* 1_S^T E != 0 */
    for (int i = 0; i < n; i++) {
        grp[i] = has[i] && !bad[uf[i]] ? uf[i] : -1;
        if (grp[i] == i) (*ngrp)++;
    }
    free(uf); free(cs); free(ca); free(bad); free(has);
    return grp;
}

/* T X: the row of each representative replaced by the sum of its component's
 * rows (grp from algebraic_rows); with drop, nothing is summed into the
 * representative rows (T E, whose representative rows vanish exactly). */
static nsc_sparse *rows_summed(const nsc_sparse *X, const int *grp, int drop)
{
    int nz = X->p[X->n];
    nsc_sparse *T = nsc_sp_new(X->m, X->n, 2 * nz + 1, 1);
    if (!T) return NULL;
    for (int j = 0; j < X->n; j++)
        for (int k = X->p[j]; k < X->p[j + 1]; k++) {
            int i = X->i[k], g = grp[i];
            if (g != i && nsc_sp_entry(T, i, j, X->x[k])) goto fail;
            if (g >= 0 && !drop && nsc_sp_entry(T, g, j, X->x[k])) goto fail;
        }
    nsc_sparse *C = nsc_sp_compress(T);
    nsc_sp_free(T);
    return C;
fail:
    nsc_sp_free(T);
    return NULL;
}

/* out = T s (grp NULL: out = s). */
static void sum_rows(const int *grp, int n, const double *s, double *out)
{
    memcpy(out, s, (size_t)n * sizeof(double));
    if (!grp) return;
    for (int i = 0; i < n; i++)
        if (grp[i] >= 0 && grp[i] != i) out[grp[i]] += s[i];      /* (T s)_rep = sum over S */
}

nsc_status nsc_onestep_new_sw(const nsc_lcs *L, double h, double theta, const char *sw,
                              nsc_onestep **out, nsc_report *rep)
{
    *out = NULL;
    int n = L->n, m = L->m;
    nsc_onestep *P = calloc(1, sizeof *P);
    if (!P) return nsc_err(rep, NSC_ENOMEM, NULL, "out of memory");
    P->L = L;
    P->h = h;
    P->theta = theta;
    P->n = n;
    P->m = m;
    P->th = nsc_calloc((size_t)n, sizeof(double));
    P->r = nsc_calloc((size_t)n, sizeof(double));
    P->q = nsc_calloc((size_t)m, sizeof(double));
    P->w = nsc_calloc((size_t)m, sizeof(double));
    P->WiB = nsc_calloc((size_t)n * (size_t)m, sizeof(double));
    P->M = nsc_calloc((size_t)m * (size_t)m, sizeof(double));
    P->ws = nsc_lcp_ws_new(m > 0 ? m : 1);
    P->prev = nsc_calloc((size_t)m, 1);
    P->mask = nsc_calloc((size_t)m, 1);
    P->mask2 = nsc_calloc((size_t)m, 1);
    P->lt = nsc_calloc((size_t)m, sizeof(double));
    P->x = nsc_calloc((size_t)(n + m), sizeof(double));
    P->zl = nsc_calloc((size_t)n, sizeof(double));
    P->ll = nsc_calloc((size_t)m, sizeof(double));
    P->sw = nsc_calloc((size_t)L->nsw + 1, 1);
    P->ts = nsc_calloc((size_t)n + 1, sizeof(double));
    if (!P->th || !P->r || !P->q || !P->w || !P->WiB || !P->M || !P->ws || !P->prev || !P->mask
        || !P->mask2 || !P->lt || !P->x || !P->zl || !P->ll || !P->sw || !P->ts)
        goto nomem;
    P->B = L->B;
    int anyon = 0;
    for (int j = 0; sw && j < L->nsw; j++) anyon |= (P->sw[j] = sw[j] != 0);
    nsc_sparse *Asw = anyon ? switched_a(L, P->sw) : NULL;       /* A of this switch state */
    if (anyon && !Asw) goto nomem;
    const nsc_sparse *A = anyon ? Asw : L->A;

    if (h > 0) {
        int ngrp = 0;
        P->grp = algebraic_rows(L->E, n, &ngrp);
        if (!P->grp) { nsc_sp_free(Asw); goto nomem; }
        nsc_sparse *Et = NULL, *At = NULL;
        if (ngrp > 0) {                                          /* the DAE premultiplied by T */
            Et = rows_summed(L->E, P->grp, 1);
            At = rows_summed(A, P->grp, 0);
            P->Bt = rows_summed(L->B, P->grp, 0);
            if (!Et || !At || !P->Bt) { nsc_sp_free(Et); nsc_sp_free(At); nsc_sp_free(Asw); goto nomem; }
            P->B = P->Bt;
            nsc_sp_free(Asw);
            Asw = At;
            A = At;
        } else {
            free(P->grp);
            P->grp = NULL;
        }
        const nsc_sparse *E = Et ? Et : L->E;
        row_theta(E, theta, n, P->th);                           /* representative rows: 1 */
        nsc_sparse *TA = scaled_rows(A, P->th);                  /* Theta A */
        double *one_m = nsc_calloc((size_t)n, sizeof(double));
        if (!TA || !one_m) { nsc_sp_free(TA); free(one_m); nsc_sp_free(Asw); nsc_sp_free(Et); goto nomem; }
        for (int i = 0; i < n; i++) one_m[i] = 1.0 - P->th[i];
        nsc_sparse *UA = scaled_rows(A, one_m);                  /* (I - Theta) A */
        free(one_m);
        nsc_sp_free(Asw);
        if (!UA) { nsc_sp_free(TA); nsc_sp_free(Et); goto nomem; }
        P->W = nsc_sp_add(E, TA, 1.0 / h, -1.0);                 /* W = E/h - Theta A */
        P->R = nsc_sp_add(E, UA, 1.0 / h, 1.0);                  /* R = E/h + (I-Theta) A */
        nsc_sp_free(TA);
        nsc_sp_free(UA);
        nsc_sp_free(Et);
        if (!P->W || !P->R) goto nomem;
    } else {
        for (int i = 0; i < n; i++) P->th[i] = 1.0;
        P->W = nsc_sp_add(A, A, -1.0, 0.0);                      /* W = -A */
        nsc_sp_free(Asw);
        if (!P->W) goto nomem;
    }

    int singular = 0;
    P->F = n > 0 ? nsc_klu_factor(P->W, &singular) : NULL;
    if (n > 0 && !P->F) {
        nsc_status st = singular
            ? nsc_err(rep, NSC_ESIM, NULL,
                      "the %s matrix is singular (h = %g s): a loop of voltage sources or a cut-set "
                      "of current sources/inductors?", h > 0 ? "transient" : "operating-point", h)
            : nsc_err(rep, NSC_ENOMEM, NULL, "KLU factorisation failed (h = %g s)", h);
        nsc_onestep_free(P);
        return st;
    }

    /* WiB = W^-1 B, column by column from the CSC B */
    const nsc_sparse *B = P->B;
    for (int j = 0; j < m; j++)
        for (int k = B->p[j]; k < B->p[j + 1]; k++) P->WiB[(size_t)j * n + B->i[k]] += B->x[k];
    if (m > 0 && n > 0 && nsc_klu_solve(P->F, P->WiB, m)) goto nomem;

    /* M = D + C W^-1 B */
    const nsc_sparse *D = L->D;
    for (int j = 0; j < m; j++) {
        double *Mj = P->M + (size_t)j * m;
        for (int k = D->p[j]; k < D->p[j + 1]; k++) Mj[D->i[k]] += D->x[k];
        nsc_sp_gaxpy(L->C, P->WiB + (size_t)j * n, Mj);          /* M(:,j) += C WiB(:,j) */
    }
    *out = P;
    return NSC_OK;
nomem:
    nsc_onestep_free(P);
    return nsc_err(rep, NSC_ENOMEM, NULL, "out of memory building the one-step problem");
}

/* The mode with active set mask: from the cache, or built and factored (the
 * least recently used entry is evicted). NULL on allocation failure; a mode
 * whose system is singular is cached with F = NULL. */
static nsc_mode *mode_get(nsc_onestep *P, const char *mask)
{
    int n = P->n, m = P->m;
    P->clock++;
    for (int k = 0; k < P->nmodes; k++)
        if (memcmp(P->modes[k].mask, mask, (size_t)m) == 0) {
            P->modes[k].last_use = P->clock;
            return &P->modes[k];
        }
    int slot = P->nmodes;
    if (slot == NSC_MODE_CACHE) {
        slot = 0;
        for (int k = 1; k < P->nmodes; k++)
            if (P->modes[k].last_use < P->modes[slot].last_use) slot = k;
        mode_clear(&P->modes[slot]);
    } else {
        P->nmodes++;
    }
    nsc_mode *M = &P->modes[slot];
    M->last_use = P->clock;
    M->mask = nsc_calloc((size_t)m, 1);
    M->act = nsc_calloc((size_t)m, sizeof(int));
    int *pos = nsc_calloc((size_t)m, sizeof(int));
    const nsc_lcs *L = P->L;
    const nsc_sparse *W = P->W;
    nsc_sparse *T = NULL;
    if (!M->mask || !M->act || !pos) goto fail;
    memcpy(M->mask, mask, (size_t)m);
    for (int i = 0; i < m; i++) {
        pos[i] = -1;
        if (mask[i]) { pos[i] = M->na; M->act[M->na++] = i; }
    }
    int N = n + M->na;
    const nsc_sparse *B = P->B;
    T = nsc_sp_new(N, N, W->p[n] + B->p[m] + L->C->p[n] + L->D->p[m] + 1, 1);
    if (!T) goto fail;
    for (int j = 0; j < n; j++)                                   /* [W ...] */
        for (int k = W->p[j]; k < W->p[j + 1]; k++)
            if (nsc_sp_entry(T, W->i[k], j, W->x[k])) goto fail;
    for (int j = 0; j < m; j++) {
        if (pos[j] < 0) continue;
        for (int k = B->p[j]; k < B->p[j + 1]; k++)               /* [... -B_a] */
            if (nsc_sp_entry(T, B->i[k], n + pos[j], -B->x[k])) goto fail;
        for (int k = L->D->p[j]; k < L->D->p[j + 1]; k++)         /* [... D_aa] */
            if (pos[L->D->i[k]] >= 0 && nsc_sp_entry(T, n + pos[L->D->i[k]], n + pos[j], L->D->x[k]))
                goto fail;
    }
    for (int j = 0; j < n; j++)                                   /* [C_a ...] */
        for (int k = L->C->p[j]; k < L->C->p[j + 1]; k++)
            if (pos[L->C->i[k]] >= 0 && nsc_sp_entry(T, n + pos[L->C->i[k]], j, L->C->x[k])) goto fail;
    for (int i = 0; i < M->na; i++)                               /* keep the diagonal in the pattern */
        if (nsc_sp_entry(T, n + i, n + i, 0.0)) goto fail;
    M->K = nsc_sp_compress(T);
    if (!M->K) goto fail;
    nsc_sp_free(T);
    free(pos);
    int singular;
    M->F = nsc_klu_factor(M->K, &singular);                       /* NULL: singular mode */
    if (M->F && nsc_klu_rcond(M->F) < 1e-14) { nsc_klu_free(M->F); M->F = NULL; }
    return M;
fail:
    nsc_sp_free(T);
    free(pos);
    mode_clear(M);
    P->nmodes--;
    if (slot != P->nmodes) { P->modes[slot] = P->modes[P->nmodes]; memset(&P->modes[P->nmodes], 0, sizeof(nsc_mode)); }
    return NULL;
}

/* Solve the mode's system for r, e1 and check complementarity: lambda_a >= -tol
 * and y_i = (C z + D l + e)_i >= -tol_i off the mode, tolerances relative to the
 * size of the terms. Returns 1 when accepted (z1, l set, l clamped >= 0, *res =
 * ||min(l, y)||_inf); 0 when rejected, with next (if not NULL) the primal-dual
 * active-set update of mask (drop pairs with lambda < -tol, add pairs with
 * y < -tol); -1 when the mode's system is singular. */
static int mode_try(nsc_onestep *P, const char *mask, const double *e1, double *z1, double *l,
                    double *res, char *next)
{
    int n = P->n, m = P->m;
    nsc_mode *M = mode_get(P, mask);
    if (!M || !M->F) return -1;
    double *x = P->x;
    memcpy(x, P->r, (size_t)n * sizeof(double));
    for (int k = 0; k < M->na; k++) x[n + k] = -e1[M->act[k]];
    if (nsc_klu_solve(M->F, x, 1)) return -1;                    /* [z; l_a] = K \ [r; -e_a] */
    double lmax = 0;
    for (int k = 0; k < M->na; k++) lmax = fmax(lmax, fabs(x[n + k]));
    double *lt = P->lt;                                           /* lambda of the mode */
    for (int i = 0; i < m; i++) lt[i] = 0;
    for (int k = 0; k < M->na; k++) lt[M->act[k]] = x[n + k];
    /* y = C z + D l + e with the size of its terms, per pair */
    double *y = P->w, *ys = P->q;
    for (int i = 0; i < m; i++) { y[i] = e1[i]; ys[i] = fabs(e1[i]); }
    const nsc_sparse *C = P->L->C, *D = P->L->D;
    for (int j = 0; j < n; j++)
        for (int k = C->p[j]; k < C->p[j + 1]; k++) {
            double t = C->x[k] * x[j];
            y[C->i[k]] += t;
            ys[C->i[k]] += fabs(t);
        }
    for (int j = 0; j < m; j++)
        for (int k = D->p[j]; k < D->p[j + 1]; k++) {
            double t = D->x[k] * lt[j];
            y[D->i[k]] += t;
            ys[D->i[k]] += fabs(t);
        }
    int ok = 1;
    for (int i = 0; i < m; i++) {
        int bad = mask[i] ? lt[i] < -1e-11 * lmax : y[i] < -1e-11 * ys[i];
        if (bad) ok = 0;
        if (next) next[i] = (char)(mask[i] ? !bad : bad);
    }
    if (!ok) return 0;
    double r = 0;
    for (int i = 0; i < m; i++) {
        l[i] = fmax(lt[i], 0.0);
        r = fmax(r, fabs(fmin(l[i], y[i])));
    }
    memcpy(z1, x, (size_t)n * sizeof(double));
    *res = r;
    return 1;
}

/* Primal-dual active-set iteration from the active set start (at most
 * NSC_AS_MAXIT modes, each solved on its sparse system): returns the number of
 * modes tried when one was accepted (z1, l, *res set; P->mask holds it), 0 when
 * it met a singular mode, stalled or ran out of iterations. */
static int active_set(nsc_onestep *P, const char *start, const double *e1, double *z1, double *l,
                      double *res)
{
    char *mask = P->mask, *next = P->mask2;
    if (mask != start) memcpy(mask, start, (size_t)P->m);
    for (int it = 1; it <= NSC_AS_MAXIT; it++) {
        int st = mode_try(P, mask, e1, z1, l, res, next);
        if (st == 1) return it;
        if (st < 0 || memcmp(mask, next, (size_t)P->m) == 0) return 0;
        memcpy(mask, next, (size_t)P->m);
    }
    return 0;
}

/* r = (E/h + (I - Theta) A) z0 + Theta s1 + (I - Theta) s0, or s1 when h = 0 */
static void rhs(nsc_onestep *P, const double *z0, const double *s0, const double *s1)
{
    int n = P->n;
    double *r = P->r;
    if (P->h > 0) {
        double *ts = P->ts;
        sum_rows(P->grp, n, s1, ts);                             /* T s1 */
        for (int i = 0; i < n; i++) r[i] = P->th[i] * ts[i];
        sum_rows(P->grp, n, s0, ts);                             /* T s0 */
        for (int i = 0; i < n; i++) r[i] += (1.0 - P->th[i]) * ts[i];
        nsc_sp_gaxpy(P->R, z0, r);                               /* r += R z0 */
    } else {
        memcpy(r, s1, (size_t)n * sizeof(double));
    }
}

int nsc_onestep_open(nsc_onestep *P, const double *z0, const double *s0, const double *s1, double *z1)
{
    rhs(P, z0, s0, s1);
    memcpy(z1, P->r, (size_t)P->n * sizeof(double));
    return P->n > 0 && nsc_klu_solve(P->F, z1, 1) ? -1 : 0;     /* z1 = W \ r */
}

int nsc_onestep_solve(nsc_onestep *P, nsc_solver solver, const double *z0, const double *s0,
                      const double *s1, const double *e1, double *z1, double *l,
                      nsc_step_info *info)
{
    int n = P->n, m = P->m;
    memset(info, 0, sizeof *info);
    double *r = P->r;
    rhs(P, z0, s0, s1);
    double res;
    if (m > 0 && P->have_prev) {
        int it = active_set(P, P->prev, e1, z1, l, &res);        /* from the previous mode */
        if (it > 0) {
            info->mode_hit = it == 1;                            /* the previous mode holds */
            info->active_set = it - 1;
            info->residual = res;
            memcpy(P->prev, P->mask, (size_t)m);
            return 0;
        }
    }

    double *zf = P->zl;
    memcpy(zf, r, (size_t)n * sizeof(double));
    if (n > 0 && nsc_klu_solve(P->F, zf, 1)) {                  /* z_free = W \ r */
        info->st = NSC_LCP_EINVAL;
        return -1;
    }
    if (m == 0) {
        memcpy(z1, zf, (size_t)n * sizeof(double));
        return 0;
    }
    double *q = P->q, *ll = P->ll;
    for (int i = 0; i < m; i++) { q[i] = e1[i]; ll[i] = 0; }
    nsc_sp_gaxpy(P->L->C, zf, q);                                /* q = C z_free + e1 */
    int need = 0;
    for (int i = 0; i < m; i++) need |= q[i] < 0;
    if (need) {
        nsc_lcp lcp = { m, P->M, q };
        nsc_lcp_info li = { 0, 0 };
        nsc_lcp_status st;
        if (solver == NSC_SOLVER_ENUM) {
            st = nsc_lcp_enum(&lcp, ll, P->w, &li);
        } else {
            st = nsc_lcp_lemke(&lcp, ll, P->w, &li, P->ws);
            /* auto: the enumerative solver settles small problems Lemke cannot */
            if (st != NSC_LCP_OK && solver == NSC_SOLVER_AUTO && m <= 12) {
                int it = li.iter;
                st = nsc_lcp_enum(&lcp, ll, P->w, &li);
                li.iter += it;
            }
        }
        info->lcp_solved = 1;
        info->iter = li.iter;
        info->st = st;
        info->residual = nsc_lcp_residual(&lcp, ll);
        if (st != NSC_LCP_OK) return -1;
        for (int j = 0; j < m; j++) {                            /* z = z_free + (W^-1 B) l */
            if (ll[j] == 0) continue;
            const double *c = P->WiB + (size_t)j * n;
            for (int i = 0; i < n; i++) zf[i] += c[i] * ll[j];
        }
    }
    /* the pivoting result's mode, re-solved exactly (and corrected by the
     * active-set iteration where pivoting on M, which holds 1/gmin, was not exact
     * enough); kept as the next guess */
    for (int i = 0; i < m; i++) P->mask2[i] = ll[i] > 0;
    int it = active_set(P, P->mask2, e1, z1, l, &res);
    if (it > 0) {
        memcpy(P->prev, P->mask, (size_t)m);
        P->have_prev = 1;
        info->polished = 1;
        info->active_set = it - 1;
        info->residual = res;
        return 0;
    }
    for (int i = 0; i < m; i++) P->prev[i] = ll[i] > 0;
    P->have_prev = 1;
    memcpy(z1, zf, (size_t)n * sizeof(double));
    memcpy(l, ll, (size_t)m * sizeof(double));
    return 0;
}
