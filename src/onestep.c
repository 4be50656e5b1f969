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

void nsc_onestep_free(nsc_onestep *P)
{
    if (!P) return;
    free(P->th);
    nsc_sp_free(P->W);
    nsc_sp_free(P->R);
    nsc_klu_free(P->F);
    free(P->WiB);
    free(P->M);
    nsc_lcp_ws_free(P->ws);
    free(P->r);
    free(P->q);
    free(P->w);
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
    if (!P->th || !P->r || !P->q || !P->w || !P->WiB || !P->M || !P->ws) goto nomem;

    if (h > 0) {
        row_theta(L->E, theta, n, P->th);
        nsc_sparse *TA = scaled_rows(L->A, P->th);               /* Theta A */
        double *one_m = nsc_calloc((size_t)n, sizeof(double));
        if (!TA || !one_m) { nsc_sp_free(TA); free(one_m); goto nomem; }
        for (int i = 0; i < n; i++) one_m[i] = 1.0 - P->th[i];
        nsc_sparse *UA = scaled_rows(L->A, one_m);               /* (I - Theta) A */
        free(one_m);
        if (!UA) { nsc_sp_free(TA); goto nomem; }
        P->W = nsc_sp_add(L->E, TA, 1.0 / h, -1.0);              /* W = E/h - Theta A */
        P->R = nsc_sp_add(L->E, UA, 1.0 / h, 1.0);               /* R = E/h + (I-Theta) A */
        nsc_sp_free(TA);
        nsc_sp_free(UA);
        if (!P->W || !P->R) goto nomem;
    } else {
        for (int i = 0; i < n; i++) P->th[i] = 1.0;
        P->W = nsc_sp_add(L->A, L->A, -1.0, 0.0);                /* W = -A */
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
    memcpy(z1, r, (size_t)n * sizeof(double));
    if (n > 0 && nsc_klu_solve(P->F, z1, 1)) {                  /* z1 = z_free = W \ r */
        info->st = NSC_LCP_EINVAL;
        return -1;
    }
    if (m == 0) return 0;

    double *q = P->q;
    int need = 0;
    for (int i = 0; i < m; i++) q[i] = e1[i];
    nsc_sp_gaxpy(P->L->C, z1, q);                                /* q = C z_free + e1 */
    for (int i = 0; i < m; i++) {
        if (q[i] < 0) need = 1;
        l[i] = 0;
    }
    if (need) {
        nsc_lcp lcp = { m, P->M, q };
        nsc_lcp_info li = { 0, 0 };
        nsc_lcp_status st;
        if (solver == NSC_SOLVER_ENUM) {
            st = nsc_lcp_enum(&lcp, l, P->w, &li);
        } else {
            st = nsc_lcp_lemke(&lcp, l, P->w, &li, P->ws);
            /* auto: the enumerative solver settles small problems Lemke cannot */
            if (st != NSC_LCP_OK && solver == NSC_SOLVER_AUTO && m <= 12) {
                int it = li.iter;
                st = nsc_lcp_enum(&lcp, l, P->w, &li);
                li.iter += it;
            }
        }
        info->lcp_solved = 1;
        info->iter = li.iter;
        info->st = st;
        info->residual = nsc_lcp_residual(&lcp, l);
        if (st != NSC_LCP_OK) return -1;
        for (int j = 0; j < m; j++) {                            /* z1 += (W^-1 B) l */
            if (l[j] == 0) continue;
            const double *c = P->WiB + (size_t)j * n;
            for (int i = 0; i < n; i++) z1[i] += c[i] * l[j];
        }
    }
    return 0;
}
