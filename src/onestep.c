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
    P->x = nsc_calloc((size_t)(n + m), sizeof(double));
    P->zl = nsc_calloc((size_t)n, sizeof(double));
    P->ll = nsc_calloc((size_t)m, sizeof(double));
    P->sw = nsc_calloc((size_t)L->nsw + 1, 1);
    if (!P->th || !P->r || !P->q || !P->w || !P->WiB || !P->M || !P->ws || !P->prev || !P->mask
        || !P->x || !P->zl || !P->ll || !P->sw)
        goto nomem;
    int anyon = 0;
    for (int j = 0; sw && j < L->nsw; j++) anyon |= (P->sw[j] = sw[j] != 0);
    nsc_sparse *Asw = anyon ? switched_a(L, P->sw) : NULL;       /* A of this switch state */
    if (anyon && !Asw) goto nomem;
    const nsc_sparse *A = anyon ? Asw : L->A;

    if (h > 0) {
        row_theta(L->E, theta, n, P->th);
        nsc_sparse *TA = scaled_rows(A, P->th);                  /* Theta A */
        double *one_m = nsc_calloc((size_t)n, sizeof(double));
        if (!TA || !one_m) { nsc_sp_free(TA); free(one_m); nsc_sp_free(Asw); goto nomem; }
        for (int i = 0; i < n; i++) one_m[i] = 1.0 - P->th[i];
        nsc_sparse *UA = scaled_rows(A, one_m);                  /* (I - Theta) A */
        free(one_m);
        nsc_sp_free(Asw);
        if (!UA) { nsc_sp_free(TA); goto nomem; }
        P->W = nsc_sp_add(L->E, TA, 1.0 / h, -1.0);              /* W = E/h - Theta A */
        P->R = nsc_sp_add(L->E, UA, 1.0 / h, 1.0);               /* R = E/h + (I-Theta) A */
        nsc_sp_free(TA);
        nsc_sp_free(UA);
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
    const nsc_sparse *B = L->B;
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
    T = nsc_sp_new(N, N, W->p[n] + L->B->p[m] + L->C->p[n] + L->D->p[m] + 1, 1);
    if (!T) goto fail;
    for (int j = 0; j < n; j++)                                   /* [W ...] */
        for (int k = W->p[j]; k < W->p[j + 1]; k++)
            if (nsc_sp_entry(T, W->i[k], j, W->x[k])) goto fail;
    for (int j = 0; j < m; j++) {
        if (pos[j] < 0) continue;
        for (int k = L->B->p[j]; k < L->B->p[j + 1]; k++)         /* [... -B_a] */
            if (nsc_sp_entry(T, L->B->i[k], n + pos[j], -L->B->x[k])) goto fail;
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

/* Solve the mode's system for r, e1 into z1, l and check complementarity:
 * lambda_a >= -tol and y_i = (C z + D l + e)_i >= -tol_i off the mode, tolerances
 * relative to the size of the terms. Returns 1 when accepted (l clamped >= 0),
 * 0 otherwise; *res is ||min(l, y)||_inf. */
static int mode_solve(nsc_onestep *P, const char *mask, const double *e1, double *z1, double *l,
                      double *res)
{
    int n = P->n, m = P->m;
    nsc_mode *M = mode_get(P, mask);
    if (!M || !M->F) return 0;
    double *x = P->x;
    memcpy(x, P->r, (size_t)n * sizeof(double));
    for (int k = 0; k < M->na; k++) x[n + k] = -e1[M->act[k]];
    if (nsc_klu_solve(M->F, x, 1)) return 0;                     /* [z; l_a] = K \ [r; -e_a] */
    double lmax = 0;
    for (int k = 0; k < M->na; k++) lmax = fmax(lmax, fabs(x[n + k]));
    for (int k = 0; k < M->na; k++)
        if (x[n + k] < -1e-11 * lmax) return 0;
    for (int i = 0; i < m; i++) l[i] = 0;
    for (int k = 0; k < M->na; k++) l[M->act[k]] = fmax(x[n + k], 0.0);
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
            double t = D->x[k] * l[j];
            y[D->i[k]] += t;
            ys[D->i[k]] += fabs(t);
        }
    double r = 0;
    for (int i = 0; i < m; i++) {
        if (!mask[i] && y[i] < -1e-11 * ys[i]) return 0;
        r = fmax(r, fabs(fmin(l[i], y[i])));
    }
    memcpy(z1, x, (size_t)n * sizeof(double));
    *res = r;
    return 1;
}

int nsc_onestep_solve(nsc_onestep *P, nsc_solver solver, const double *z0, const double *s0,
                      const double *s1, const double *e1, double *z1, double *l,
                      nsc_step_info *info)
{
    int n = P->n, m = P->m;
    memset(info, 0, sizeof *info);
    double *r = P->r;
    if (P->h > 0) {
        for (int i = 0; i < n; i++) r[i] = P->th[i] * s1[i] + (1.0 - P->th[i]) * s0[i];
        nsc_sp_gaxpy(P->R, z0, r);                               /* r += R z0 */
    } else {
        memcpy(r, s1, (size_t)n * sizeof(double));
    }
    double res;
    if (m > 0 && P->have_prev && mode_solve(P, P->prev, e1, z1, l, &res)) {
        info->mode_hit = 1;                                      /* the previous mode holds */
        info->residual = res;
        return 0;
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
    /* the pivoting result's mode, re-solved exactly; kept as the next guess */
    for (int i = 0; i < m; i++) P->mask[i] = ll[i] > 0;
    memcpy(P->prev, P->mask, (size_t)m);
    P->have_prev = 1;
    if (mode_solve(P, P->mask, e1, z1, l, &res)) {
        info->polished = 1;
        info->residual = res;
        return 0;
    }
    memcpy(z1, zf, (size_t)n * sizeof(double));
    memcpy(l, ll, (size_t)m * sizeof(double));
    return 0;
}
