/* onestep.c -- the one-step problem of the theta-scheme (see onestep.h):
 * building it (W, R, the source matrices; hidden algebraic rows: onestep_alg.c), the right-hand
 * side, and the solution driver (previous mode, active set, dense or block
 * pivoting). The mode systems are in onestep_mode.c. */
#include "onestep_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onestep_alg.h"
#include "onestep_map.h"
#include "onestep_nl.h"

int nsc_solver_parse(const char *name)
{
    if (!name || nsc_strieq(name, "auto")) return NSC_SOLVER_AUTO;
    if (nsc_strieq(name, "lemke")) return NSC_SOLVER_LEMKE;
    if (nsc_strieq(name, "enum")) return NSC_SOLVER_ENUM;
    return -1;
}

static void step_free(nsc_os_step *s)
{
    free(s->th);
    free(s->sw);
    free(s->ts);
    free(s->kap);
    free(s->ez);
    nsc_sp_free(s->Dk);
    nsc_sp_free(s->W);
    nsc_sp_free(s->R);
    nsc_sp_free(s->Et);
    nsc_sp_free(s->TA);
    nsc_sp_free(s->UA);
    nsc_klu_free(s->F);
    free(s->sc);
    free(s->smpos);
    nsc_sp_free(s->Sw1);
    nsc_sp_free(s->Sw0);
    free(s->ebuf);
    free(s->r);
    free(s->q);
    free(s->w);
    free(s->x);
}

static void dense_free(nsc_os_dense *d)
{
    free(d->WiB);
    free(d->M);
    nsc_lcp_ws_free(d->ws);
    free(d->zl);
    free(d->ll);
}

void nsc_onestep_free(nsc_onestep *P)
{
    if (!P) return;
    nsc_mode_teardown(P); /* pat, mc, inc */
    nsc_map_free(P->map);
    nsc_alg_free(&P->alg);
    step_free(&P->st);
    dense_free(&P->dn);
    free(P);
}

/* Theta_ii = theta where row i of E holds a nonzero, theta_alg (1 but in the
 * adaptive transient) on algebraic rows, 1 on the rows marked exact (lcs.h
 * z_exact). At theta_alg = 1/2 an algebraic row holds for the step's mean,
 *   (x_k + x_k+1)/2 = f-part + B lambda_k+1,
 * while a PWL map's pairs hold at t_k+1: the output of V = abs(V(in)) then
 * alternates about the right value by 2 (mu_k+1 - mu_k) every step. */
static void row_theta(const nsc_sparse *E, const unsigned char *exact, double theta,
                      double theta_alg, int n, double *th)
{
    for (int i = 0; i < n; i++) th[i] = exact && exact[i] ? 1.0 : theta_alg;
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

/* Remove the entries of CSC A that are exactly zero (a matrix only multiplied, never factored). */
static void drop_zeros(nsc_sparse *A)
{
    if (!A) return;
    int t = 0;
    for (int j = 0; j < A->n; j++) {
        int k0 = A->p[j];
        A->p[j] = t;
        for (int k = k0; k < A->p[j + 1]; k++)
            if (A->x[k] != 0) {
                A->i[t] = A->i[k];
                A->x[t++] = A->x[k];
            }
    }
    A->p[A->n] = t;
}

void nsc_onestep_take_mode(nsc_onestep *P, const nsc_onestep *from)
{
    if (P == from || !from->mc.have_prev || P->m != from->m) return;
    memcpy(P->mc.prev, from->mc.prev, (size_t)P->m);
    P->mc.prevkey = from->mc.prevkey;       /* (a mask's key is P's too: pkey_j */
    P->mc.prevkey_ok = from->mc.prevkey_ok; /* depends on j only) */
    P->mc.have_prev = 1;
    P->mc.mask_prev = 0;
    P->mc.cur = -1;
    P->inc.ok = 0; /* l was written by another problem */
}

void nsc_onestep_set_mode(nsc_onestep *P, const char *mode)
{
    P->inc.ok = 0; /* l is the caller's, not P's last */
    if (P->m == 0) return;
    if (!mode) {
        P->mc.have_prev = 0;
        P->mc.cur = -1;
        return;
    }
    if (P->mc.have_prev && memcmp(P->mc.prev, mode, (size_t)P->m) == 0)
        return; /* cur stays valid */
    memcpy(P->mc.prev, mode, (size_t)P->m);
    P->mc.prevkey_ok = 0;
    P->mc.have_prev = 1;
    P->mc.mask_prev = 0;
    P->mc.cur = -1;
}

void nsc_onestep_set_mode_key(nsc_onestep *P, const char *mode, uint64_t key)
{
    nsc_onestep_set_mode(P, mode);
    if (!mode || P->m == 0) return;
    P->mc.prevkey = key; /* prev holds mode (copied, or equal) */
    P->mc.prevkey_ok = 1;
}

uint64_t nsc_onestep_mode_key(nsc_onestep *P)
{
    if (P->m == 0 || !P->mc.have_prev) return 0;
    if (!P->mc.prevkey_ok) {
        P->mc.prevkey = nsc_mode_key(P, P->mc.prev);
        P->mc.prevkey_ok = 1;
    }
    return P->mc.prevkey;
}

void nsc_onestep_set_alt(nsc_onestep *P, const char *mode)
{
    P->mc.alt = mode;
}

void nsc_onestep_set_nopivot(nsc_onestep *P, int on)
{
    P->mc.nopivot = on;
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
        if (a >= 0) bad |= nsc_sp_entry(T, a, a, -dg); /* KCL: -dg (v_a - v_k) at a */
        if (a >= 0 && k >= 0) bad |= nsc_sp_entry(T, a, k, dg) | nsc_sp_entry(T, k, a, dg);
        if (k >= 0) bad |= nsc_sp_entry(T, k, k, -dg);
    }
    nsc_sparse *D = bad ? NULL : nsc_sp_compress(T);
    nsc_sp_free(T);
    if (!D) return NULL;
    nsc_sparse *A = nsc_sp_add(L->A, D, 1.0, 1.0); /* A + dA */
    nsc_sp_free(D);
    return A;
}

/* The source matrices of the step: r = R z0 + sc + Sw1 w1 + Sw0 w0 with
 * sc = T s0, Sw1 = Theta T Ss, Sw0 = (I - Theta) T Ss (h = 0: sc = s0, Sw1 = Ss).
 * 0 ok, -1 ENOMEM. */
static int sources_setup(nsc_onestep *P)
{
    const nsc_lcs *L = P->L;
    int n = P->n;
    P->st.sc = nsc_calloc((size_t)n + 1, sizeof(double));
    if (!P->st.sc) return -1;
    if (P->st.h > 0) {
        nsc_alg_vec(P, L->s0, P->st.sc);          /* sc = T s0 */
        nsc_sparse *TS = nsc_alg_times(P, L->Ss); /* T Ss */
        double *one_m = nsc_calloc((size_t)n + 1, sizeof(double));
        if (!TS || !one_m) {
            nsc_sp_free(TS);
            free(one_m);
            return -1;
        }
        for (int i = 0; i < n; i++) one_m[i] = 1.0 - P->st.th[i];
        P->st.Sw1 = scaled_rows(TS, P->st.th); /* Theta T Ss */
        P->st.Sw0 = scaled_rows(TS, one_m);    /* (I - Theta) T Ss */
        nsc_sp_free(TS);
        free(one_m);
        drop_zeros(P->st.Sw1);
        drop_zeros(P->st.Sw0);
        drop_zeros(P->st.R); /* algebraic rows: (1 - 1) A */
        return P->st.Sw1 && P->st.Sw0 ? 0 : -1;
    }
    memcpy(P->st.sc, L->s0, (size_t)n * sizeof(double));
    P->st.Sw1 = nsc_sp_add(L->Ss, L->Ss, 1.0, 0.0);
    return P->st.Sw1 ? 0 : -1;
}

/* P (zeroed) for L, h, theta: its work vectors, no mode yet. 0 ok, -1 ENOMEM. */
static int onestep_init(nsc_onestep *P, const nsc_lcs *L, double h, double theta)
{
    int n = L->n, m = L->m;
    nsc_os_step *s = &P->st;
    P->L = L;
    P->n = n;
    P->m = m;
    s->h = h;
    s->theta = theta;
    s->th = nsc_calloc((size_t)n, sizeof(double));
    s->r = nsc_calloc((size_t)n, sizeof(double));
    s->q = nsc_calloc((size_t)m, sizeof(double));
    s->w = nsc_calloc((size_t)m, sizeof(double));
    s->x = nsc_calloc((size_t)(n + m), sizeof(double));
    s->sw = nsc_calloc((size_t)L->nsw + 1, 1);
    s->ts = nsc_calloc((size_t)n + 1, sizeof(double));
    s->B = L->B;
    s->D = L->D;
    P->dn.zl = nsc_calloc((size_t)n, sizeof(double));
    P->dn.ll = nsc_calloc((size_t)m, sizeof(double));
    P->dn.dense_mmax = NSC_DENSE_MMAX;
    if (!s->th || !s->r || !s->q || !s->w || !s->x || !s->sw || !s->ts || !P->dn.zl || !P->dn.ll)
        return -1;
    return nsc_mode_init(P);
}

/* Transient (h > 0), with A owned by the caller when own (freed here):
 * T the hidden algebraic rows (onestep_alg.c), Theta by row of T E,
 *   W = T E/h - Theta T A,   R = T E/h + (I - Theta) T A.
 * 0 ok, -1 ENOMEM. */
static int build_tran(nsc_onestep *P, const nsc_sparse *A, nsc_sparse *own, double theta,
                      double theta_alg)
{
    int n = P->n;
    double h = P->st.h;
    nsc_sparse *Et, *At;
    if (nsc_alg_setup(P, A, &Et, &At)) {
        nsc_sp_free(own);
        return -1;
    }
    if (At) { /* the DAE premultiplied by T */
        nsc_sp_free(own);
        own = At;
        A = At;
    }
    const nsc_sparse *E = Et ? Et : P->L->E;
    row_theta(E, P->L->z_exact, theta, theta_alg, n, P->st.th); /* representative rows: theta_alg */
    nsc_sparse *TA = scaled_rows(A, P->st.th);                  /* Theta A */
    double *one_m = nsc_calloc((size_t)n, sizeof(double));
    if (!TA || !one_m) {
        nsc_sp_free(TA);
        free(one_m);
        nsc_sp_free(own);
        nsc_sp_free(Et);
        return -1;
    }
    for (int i = 0; i < n; i++) one_m[i] = 1.0 - P->st.th[i];
    nsc_sparse *UA = scaled_rows(A, one_m); /* (I - Theta) A */
    free(one_m);
    nsc_sp_free(own);
    if (!UA) {
        nsc_sp_free(TA);
        nsc_sp_free(Et);
        return -1;
    }
    P->st.W = nsc_sp_add(E, TA, 1.0 / h, -1.0); /* W = E/h - Theta A */
    P->st.R = nsc_sp_add(E, UA, 1.0 / h, 1.0);  /* R = E/h + (I-Theta) A */
    P->st.TA = TA;                              /* kept for nsc_onestep_renew */
    P->st.UA = UA;
    P->st.Et = Et;
    return P->st.W && P->st.R ? 0 : -1;
}

/* W and R of step h from the kept T E, Theta T A, (I - Theta) T A, computed
 * as build_tran and sources_setup compute them (the same sums, so the same
 * values as a new problem's), into P's in place: 0, or -1 when their patterns
 * would differ (an entry of R cancelling to zero at one h only). */
static int renew_wr(nsc_onestep *P, double h)
{
    const nsc_sparse *E = P->st.Et ? P->st.Et : P->L->E;
    return nsc_sp_add_into(E, P->st.TA, 1.0 / h, -1.0, P->st.W, 0)
                   || nsc_sp_add_into(E, P->st.UA, 1.0 / h, 1.0, P->st.R, 1)
               ? -1
               : 0;
}

int nsc_onestep_renew(nsc_onestep *P, double h)
{
    int n = P->n, m = P->m;
    if (!(P->st.h > 0) || !(h > 0) || !P->st.TA || !P->st.UA || !P->st.R || renew_wr(P, h))
        return -1;
    P->st.h = h;
    free(P->dn.WiB);
    P->dn.WiB = NULL; /* the dense path, formed when needed */
    free(P->dn.M);
    P->dn.M = NULL;
    nsc_lcp_ws_free(P->dn.ws);
    P->dn.ws = NULL;
    P->dn.wsmax = 0;
    nsc_mode_renew(P);                     /* (the map's columns do not depend on h) */
    P->mc.have_prev = P->mc.mask_prev = 0; /* the state of a new problem */
    P->inc.ok = 0;
    P->inc.lch = -1;
    P->mc.nfactor = P->mc.ncached = 0;
    memset(P->mc.prev, 0, (size_t)m);
    P->mc.prevkey_ok = 0;
    memset(P->mc.mask, 0, (size_t)m);
    memset(P->mc.mask2, 0, (size_t)m);
    P->st.qset = 0; /* q: no pair marked */
    memset(P->st.r, 0, sizeof(double) * (size_t)n);
    /* not cleared: work that every reader writes first -- st.w (the pivoting's
     * w, its output), dn.ll and dn.zl (dense_solve and the block path fill them),
     * st.x (a mode's solve or map column writes x[0..n+nan) before reading it) */
    P->st.wstale = 0;
    if (P->L->ncharge) { /* W's factors when a solve with W needs them (onestep_nl.c relin) */
        P->st.wstale = n > 0;
        return 0;
    }
    return n > 0 && nsc_klu_refresh(P->st.F, P->st.W, 1, &P->st.wrc) < 0
               ? -1
               : 0; /* old pivots while good */
}

int nsc_onestep_wfactor(nsc_onestep *P)
{
    if (!P->st.wstale) return 0;
    P->st.wstale = 0;
    return nsc_klu_refresh(P->st.F, P->st.W, 1, &P->st.wrc) < 0 ? -1 : 0;
}

/* W = LU factors of W into P->st.F (n > 0); a singular W is the circuit's error. */
static nsc_status factor_w(nsc_onestep *P, nsc_report *rep)
{
    int singular = 0;
    P->st.F = P->n > 0 ? nsc_klu_factor_in(P->L->syms, P->st.W, &singular) : NULL;
    if (P->st.F) P->st.wrc = nsc_klu_rcond(P->st.F);
    if (P->n == 0 || P->st.F) return NSC_OK;
    double h = P->st.h;
    return singular ? nsc_err(
               rep, NSC_ESIM, NULL,
               "the %s matrix is singular (h = %g s): a loop of voltage sources or a cut-set "
               "of current sources/inductors?",
               h > 0 ? "transient" : "operating-point", h)
                    : nsc_err(rep, NSC_ENOMEM, NULL, "KLU factorisation failed (h = %g s)", h);
}

/* W and R of P in the switch state sw (NULL: all off): A + the on switches'
 * conductance changes, then the transient or static (W = -A) matrices. 0 ok,
 * -1 ENOMEM. */
static int build_wr(nsc_onestep *P, const char *sw, double theta, double theta_alg)
{
    const nsc_lcs *L = P->L;
    int anyon = 0;
    for (int j = 0; sw && j < L->nsw; j++) anyon |= (P->st.sw[j] = sw[j] != 0);
    nsc_sparse *Asw = anyon ? switched_a(L, P->st.sw) : NULL; /* A of this switch state */
    if (anyon && !Asw) return -1;
    const nsc_sparse *A = anyon ? Asw : L->A;
    if (P->st.h > 0) return build_tran(P, A, Asw, theta, theta_alg);
    for (int i = 0; i < P->n; i++) P->st.th[i] = 1.0;
    P->st.W = nsc_sp_add(A, A, -1.0, 0.0); /* W = -A */
    nsc_sp_free(Asw);
    return P->st.W ? 0 : -1;
}

/* The pairs held at the theta point (onestep_int.h, nsc_onestep_opts.mean):
 * theta_j is the largest Theta_ii over the rows pair j's multiplier enters
 * (its column of P->st.B; one on an exact row, a comparator's output, keeps
 * theta_j = 1: its l is the value at t_k+1 there), kap_j = (1 - theta_j) /
 * theta_j, Dk = D with row j times 1/theta_j. Nothing when every theta_j is 1
 * (implicit Euler). 0, or -1 on ENOMEM. */
static int pair_weights(nsc_onestep *P)
{
    const nsc_sparse *B = P->st.B;
    int m = P->m, any = 0;
    if (!(P->st.h > 0) || m == 0) return 0;
    double *kap = nsc_calloc((size_t)m, sizeof(double)), *s = nsc_calloc((size_t)m, sizeof(double));
    if (!kap || !s) {
        free(kap);
        free(s);
        return -1;
    }
    for (int j = 0; j < m; j++) {
        double th = 0;
        for (int k = B->p[j]; k < B->p[j + 1]; k++)
            if (B->x[k] != 0 && P->st.th[B->i[k]] > th) th = P->st.th[B->i[k]];
        if (!(th > 0 && th < 1)) th = 1;
        kap[j] = (1 - th) / th;
        s[j] = 1 / th;
        any |= kap[j] > 0;
    }
    if (any && (P->st.Dk = nsc_sp_add(P->L->D, P->L->D, 1.0, 0.0)))
        nsc_sp_scale_rows(P->st.Dk, s); /* Dk = Theta_p^-1 D */
    free(s);
    if (!any) {
        free(kap);
        return 0;
    }
    P->st.kap = kap;
    P->st.ez = nsc_calloc((size_t)m, sizeof(double));
    P->st.D = P->st.Dk;
    return P->st.Dk && P->st.ez ? 0 : -1;
}

/* 1 when P and S hold the same pairs at the theta point with the same
 * weights (kap bit for bit, hence the same Dk and 1/D_jj): then the pairs'
 * pattern structures nsc_mode_setup derives from D are the same too. */
static int same_kap(const nsc_onestep *P, const nsc_onestep *S)
{
    if (!S || !P->st.kap || !S->st.kap) return S && !P->st.kap && !S->st.kap;
    return S->m == P->m && !memcmp(P->st.kap, S->st.kap, sizeof(double) * (size_t)P->m);
}

nsc_status nsc_onestep_new(const nsc_lcs *L, const nsc_onestep_opts *o, nsc_onestep **out,
                           nsc_report *rep)
{
    *out = NULL;
    nsc_onestep *P = calloc(1, sizeof *P);
    if (!P) return nsc_oom(rep);
    double h = o->h, theta = o->theta, theta_alg = o->theta_alg > 0 ? o->theta_alg : 1.0;
    const nsc_onestep *S = o->like; /* (copied only where same_kap: D scaled) */
    if (onestep_init(P, L, h, theta) || build_wr(P, o->sw, theta, theta_alg)
        || (o->mean && pair_weights(P)) || sources_setup(P)
        || (same_kap(P, S) && nsc_mode_like(P, S) ? nsc_mode_setup_like(P, S) : nsc_mode_setup(P))
        || nsc_map_setup(P)) {
        nsc_onestep_free(P);
        return nsc_err(rep, NSC_ENOMEM, NULL, "out of memory building the one-step problem");
    }
    P->inc.track = !P->map && !P->st.kap && L->m >= NSC_INC_MMIN && h > 0;
    nsc_status st = factor_w(P, rep);
    if (st) {
        nsc_onestep_free(P);
        return st;
    }
    *out = P;
    return NSC_OK;
}

/* The dense W^-1 B and M = D + C W^-1 B (m <= dense_mmax), formed when pivoting first needs them.
 * 0 ok, -1 ENOMEM. */
static int dense_form(nsc_onestep *P)
{
    if (P->dn.M) return 0;
    int n = P->n, m = P->m;
    const nsc_lcs *L = P->L;
    P->dn.WiB = nsc_calloc((size_t)n * (size_t)m + 1, sizeof(double));
    P->dn.M = nsc_calloc((size_t)m * (size_t)m + 1, sizeof(double));
    if (!P->dn.WiB || !P->dn.M) goto fail;
    const nsc_sparse *B = P->st.B; /* WiB = W^-1 B, from the CSC B */
    for (int j = 0; j < m; j++)
        for (int k = B->p[j]; k < B->p[j + 1]; k++) P->dn.WiB[(size_t)j * n + B->i[k]] += B->x[k];
    if (m > 0 && n > 0 && (nsc_onestep_wfactor(P) || nsc_klu_solve(P->st.F, P->dn.WiB, m)))
        goto fail;
    const nsc_sparse *D = P->st.D; /* M = D + C W^-1 B */
    for (int j = 0; j < m; j++) {
        double *Mj = P->dn.M + (size_t)j * m;
        for (int k = D->p[j]; k < D->p[j + 1]; k++) Mj[D->i[k]] += D->x[k];
        nsc_sp_gaxpy(L->C, P->dn.WiB + (size_t)j * n, Mj); /* M(:,j) += C WiB(:,j) */
    }
    return 0;
fail:
    free(P->dn.WiB);
    free(P->dn.M);
    P->dn.WiB = P->dn.M = NULL;
    return -1;
}

/* r = (E/h + (I - Theta) A) z0 + Theta T s1 + (I - Theta) T s0, or s1 when h = 0 */
static void rhs(nsc_onestep *P, const double *z0, const double *s0, const double *s1)
{
    int n = P->n;
    double *r = P->st.r;
    if (P->st.h > 0) {
        double *ts = P->st.ts;
        nsc_alg_vec(P, s1, ts); /* T s1 */
        for (int i = 0; i < n; i++) r[i] = P->st.th[i] * ts[i];
        nsc_alg_vec(P, s0, ts); /* T s0 */
        for (int i = 0; i < n; i++) r[i] += (1.0 - P->st.th[i]) * ts[i];
        nsc_sp_gaxpy(P->st.R, z0, r); /* r += R z0 */
    } else {
        memcpy(r, s1, (size_t)n * sizeof(double));
    }
}

/* kap_j (C_j z0 + (e0_j when affine) + Se_j w0): the part of the condition
 * of pair j, held at the theta point, that the step's start gives
 * (onestep_int.h), or its derivative along (z0, w0) when !affine (w0 NULL:
 * 0); 0 for a pair held at t_k+1 or without such pairs. */
static double start_y(const nsc_onestep *P, int j, const double *z0, const double *w0, int affine)
{
    if (!P->st.kap || P->st.kap[j] == 0) return 0.0;
    const nsc_sparse *Ct = P->pat.Ct, *SeT = P->pat.SeT;
    double y = affine ? P->L->e0[j] : 0.0;
    for (int q = Ct->p[j]; q < Ct->p[j + 1]; q++) y += Ct->x[q] * z0[Ct->i[q]];
    for (int q = SeT->p[j]; w0 && q < SeT->p[j + 1]; q++) y += SeT->x[q] * w0[SeT->i[q]];
    return P->st.kap[j] * y;
}

/* start_y (affine) of every pair into ez[m], as two sparse products over C
 * and Se by columns: each pair's terms are added in start_y's order (e0_j,
 * then C_jk z0_k by ascending k, then Se_jk w0_k), so ez is start_y's bit
 * for bit, in O(nnz) instead of a loop per pair. */
static void pair_start(const nsc_onestep *P, const double *z0, const double *w0, double *ez)
{
    const nsc_lcs *L = P->L;
    memcpy(ez, L->e0, sizeof(double) * (size_t)P->m);
    nsc_sp_gaxpy(L->C, z0, ez);
    if (w0) nsc_sp_gaxpy(L->Se, w0, ez);
    for (int j = 0; j < P->m; j++) ez[j] = P->st.kap[j] != 0 ? P->st.kap[j] * ez[j] : 0.0;
}

/* r = R z0 + sc + Sw1 w1 + Sw0 w0 (the same from the source values); with
 * pairs held at the theta point, their ez from (z0, w0) */
static void rhs_w(nsc_onestep *P, const double *z0, const double *w0, const double *w1)
{
    double *r = P->st.r;
    memcpy(r, P->st.sc, (size_t)P->n * sizeof(double));
    nsc_sp_gaxpy(P->st.Sw1, w1, r);
    if (P->st.Sw0) nsc_sp_gaxpy(P->st.Sw0, w0, r);
    if (P->st.R) nsc_sp_gaxpy(P->st.R, z0, r);
    if (P->st.kap) pair_start(P, z0, w0, P->st.ez);
}

int nsc_onestep_open(nsc_onestep *P, const double *z0, const double *s0, const double *s1,
                     double *z1)
{
    rhs(P, z0, s0, s1);
    memcpy(z1, P->st.r, (size_t)P->n * sizeof(double));
    return P->n > 0 && (nsc_onestep_wfactor(P) || nsc_klu_solve(P->st.F, z1, 1))
               ? -1
               : 0; /* z1 = W \ r */
}

/* Lemke's workspace for problems up to size k. 0 ok, -1 ENOMEM. */
static int lemke_ws(nsc_onestep *P, int k)
{
    if (P->dn.ws && P->dn.wsmax >= k) return 0;
    nsc_lcp_ws_free(P->dn.ws);
    P->dn.ws = nsc_lcp_ws_new(k > 0 ? k : 1);
    P->dn.wsmax = P->dn.ws ? k : 0;
    return P->dn.ws ? 0 : -1;
}

/* LCP(Mx, q) of size k by the chosen solver (auto: Lemke, then enumeration for
 * k <= 12 when Lemke fails). */
static nsc_lcp_status lcp_pivot(nsc_onestep *P, nsc_solver solver, int k, double *Mx, double *q,
                                double *l, double *w, nsc_step_info *info)
{
    nsc_lcp lcp = { k, Mx, q };
    nsc_lcp_info li = { 0, 0 };
    nsc_lcp_status st;
    if (solver == NSC_SOLVER_ENUM) {
        st = nsc_lcp_enum(&lcp, l, w, &li);
    } else {
        if (lemke_ws(P, k)) return NSC_LCP_ENOMEM;
        st = nsc_lcp_lemke(&lcp, l, w, &li, P->dn.ws);
        if (st != NSC_LCP_OK && solver == NSC_SOLVER_AUTO
            && k <= 12) { /* enumeration settles small ones */
            int it = li.iter;
            st = nsc_lcp_enum(&lcp, l, w, &li);
            li.iter += it;
        }
    }
    info->lcp_solved = 1;
    info->iter += li.iter;
    info->st = st;
    info->residual = nsc_lcp_residual(&lcp, l);
    return st;
}

/* Mark the pairs violated by the last mode tried (P->mc.mask vs its update P->mc.mask2)
 * with q_i = -1 (others +1), for the failure report. */
static void mark_violated(nsc_onestep *P)
{
    for (int i = 0; i < P->m; i++) P->st.q[i] = P->mc.mask[i] != P->mc.mask2[i] ? -1.0 : 1.0;
    P->st.qset = 1;
}

/* The dense path: LCP(M, C W^-1 r + e1) by pivoting, then its mode re-solved
 * exactly (polish). 0 ok, -1 failure. */
static int dense_solve(nsc_onestep *P, nsc_solver solver, double *z1, double *l,
                       nsc_step_info *info)
{
    int n = P->n, m = P->m;
    double *zf = P->dn.zl, *q = P->st.q, *ll = P->dn.ll, res;
    memcpy(zf, P->st.r, (size_t)n * sizeof(double));
    if (n > 0 && (nsc_onestep_wfactor(P) || nsc_klu_solve(P->st.F, zf, 1))) { /* z_free = W \ r */
        info->st = NSC_LCP_EINVAL;
        return -1;
    }
    for (int i = 0; i < m; i++) {
        q[i] = nsc_pair_e(P, i);
        ll[i] = 0;
    }
    P->st.qset = 1;
    nsc_sp_gaxpy(P->L->C, zf, q); /* q = C z_free + e1 */
    int need = 0;
    for (int i = 0; i < m; i++) need |= q[i] < 0;
    if (need) {
        if (dense_form(P)) {
            info->st = NSC_LCP_ENOMEM;
            return -1;
        }
        if (lcp_pivot(P, solver, m, P->dn.M, q, ll, P->st.w, info) != NSC_LCP_OK) return -1;
        for (int j = 0; j < m; j++) { /* z = z_free + (W^-1 B) l */
            if (ll[j] == 0) continue;
            const double *c = P->dn.WiB + (size_t)j * n;
            for (int i = 0; i < n; i++) zf[i] += c[i] * ll[j];
        }
    }
    /* the pivoting result's mode, re-solved exactly (and corrected by the
     * active-set iteration where pivoting on M, which holds 1/gmin, was not exact
     * enough); kept as the next guess */
    for (int i = 0; i < m; i++) P->mc.mask2[i] = ll[i] > 0;
    int it = nsc_active_set(P, P->mc.mask2, NULL, NSC_AS_MAXIT, z1, l, &res);
    if (it > 0) {
        memcpy(P->mc.prev, P->mc.mask, (size_t)m);
        P->mc.prevkey_ok = 0;
        P->mc.have_prev = 1;
        info->polished = 1;
        info->active_set = it - 1;
        info->residual = res;
        return 0;
    }
    for (int i = 0; i < m; i++) P->mc.prev[i] = ll[i] > 0;
    P->mc.prevkey_ok = 0;
    P->mc.have_prev = 1;
    P->mc.mask_prev = 0;
    P->mc.cur = -1;
    P->inc.ok = 0;
    P->inc.lch = -1;
    memcpy(z1, zf, (size_t)n * sizeof(double));
    memcpy(l, ll, (size_t)m * sizeof(double));
    return 0;
}

/* Add pair i to the block F (inF, blk[0..nf-1]) with the pairs D couples it to
 * (both pairs of a vertical step: one alone can make M_FF not copositive).
 * Returns the new nf. */
static int block_add(const nsc_onestep *P, char *inF, int *blk, int nf, int i)
{
    if (inF[i]) return nf;
    inF[i] = 1;
    blk[nf++] = i;
    const nsc_sparse *D = P->st.D, *Dt = P->pat.Dt;
    for (int k = D->p[i]; k < D->p[i + 1]; k++)
        if (D->x[k] != 0) nf = block_add(P, inF, blk, nf, D->i[k]);
    for (int k = Dt->p[i]; k < Dt->p[i + 1]; k++)
        if (Dt->x[k] != 0) nf = block_add(P, inF, blk, nf, Dt->i[k]);
    return nf;
}

/* Scratch of the block path: F = blk[0..nf-1] (inF its indicator, closed
 * under the couplings of D), the base and trial active sets, the reduced
 * LCP(Mf, qf) of F (nf-by-nf, column-major) and its solution lf, wf. */
typedef struct blk_work {
    char *inF, *base, *trial;
    int *blk, *npos, nf;
    double *col, *Mf, *qf, *lf, *wf;
} blk_work;

static void blk_free(blk_work *W)
{
    free(W->inF);
    free(W->base);
    free(W->trial);
    free(W->blk);
    free(W->npos);
    free(W->col);
    free(W->Mf);
    free(W->qf);
    free(W->lf);
    free(W->wf);
}

/* W's arrays; F = the pairs the iteration changed (start -> mask) or found
 * violated (mask != mask2), or every pair when there are none; base = start.
 * 0 ok, -1 ENOMEM. */
static int blk_init(nsc_onestep *P, const char *start, blk_work *W)
{
    int n = P->n, m = P->m;
    W->inF = nsc_calloc((size_t)m + 1, 1);
    W->base = malloc((size_t)m + 1);
    W->trial = malloc((size_t)m + 1);
    W->blk = nsc_calloc((size_t)m + 1, sizeof(int));
    W->npos = nsc_calloc((size_t)m + 1, sizeof(int));
    W->col = nsc_calloc((size_t)(n + m) + 1, sizeof(double));
    if (!W->inF || !W->base || !W->trial || !W->blk || !W->npos || !W->col) return -1;
    for (int i = 0; i < m; i++)
        if (start[i] != P->mc.mask[i] || P->mc.mask[i] != P->mc.mask2[i])
            W->nf = block_add(P, W->inF, W->blk, W->nf, i);
    if (W->nf == 0)
        for (int i = 0; i < m; i++) W->nf = block_add(P, W->inF, W->blk, W->nf, i);
    memcpy(W->base, start, (size_t)m);
    return 0;
}

/* qf = y_F(x0) and Mf(:, c) = y_F's response to l_blk[c] in mode K0: column
 * c = -1 solves x0 = K0 \ rhs, column c solves K0 x = [B_j; -D_Na,j], j = blk[c];
 * y_i = e_i (c = -1 only) + C_i z + D_i,Na l_Na (+ D_ij for column c).
 * 0 ok, -1 with info->st set. */
static int blk_reduce(nsc_onestep *P, nsc_mode *K0, blk_work *W, nsc_step_info *info)
{
    int n = P->n, m = P->m, nf = W->nf;
    int *npos = W->npos, *blk = W->blk;
    double *col = W->col;
    free(W->Mf);
    free(W->qf);
    free(W->lf);
    free(W->wf);
    W->Mf = nsc_calloc((size_t)nf * (size_t)nf + 1, sizeof(double));
    W->qf = nsc_calloc((size_t)nf + 1, sizeof(double));
    W->lf = nsc_calloc((size_t)nf + 1, sizeof(double));
    W->wf = nsc_calloc((size_t)nf + 1, sizeof(double));
    if (!W->Mf || !W->qf || !W->lf || !W->wf) {
        info->st = NSC_LCP_ENOMEM;
        return -1;
    }
    for (int i = 0; i < m; i++) npos[i] = -1;
    for (int a = 0; a < K0->nan; a++) npos[K0->actn[a]] = a;
    const nsc_sparse *Ct = P->pat.Ct, *Dt = P->pat.Dt, *B = P->st.B, *D = P->st.D;
    for (int c = -1; c < nf; c++) {
        int N0 = n + K0->nan;
        if (c < 0) {
            nsc_mode_rhs(P, K0, col); /* x0 = K0 \ rhs */
        } else {
            int j = blk[c];
            memset(col, 0, sizeof(double) * (size_t)N0);
            for (int k = B->p[j]; k < B->p[j + 1]; k++) col[B->i[k]] = B->x[k]; /* [B_j; */
            for (int k = D->p[j]; k < D->p[j + 1]; k++)
                if (npos[D->i[k]] >= 0) col[n + npos[D->i[k]]] = -D->x[k]; /*  -D_Na,j] */
        }
        if (nsc_klu_solve(K0->F, col, 1)) {
            info->st = NSC_LCP_EINVAL;
            return -1;
        }
        for (int a = 0; a < nf; a++) {
            int i = blk[a];
            double y = c < 0 ? nsc_pair_e(P, i) : 0.0;
            for (int k = Ct->p[i]; k < Ct->p[i + 1]; k++) y += Ct->x[k] * col[Ct->i[k]];
            for (int k = Dt->p[i]; k < Dt->p[i + 1]; k++) {
                int jj = Dt->i[k];
                if (npos[jj] >= 0) y += Dt->x[k] * col[n + npos[jj]]; /* D_i,Na l_Na */
                else if (c >= 0 && jj == blk[c]) y += Dt->x[k];       /* D_ij */
            }
            if (c < 0) W->qf[a] = y;
            else W->Mf[a + (size_t)c * nf] = y;
        }
    }
    return 0;
}

#define BLK_GROW 1 /* a round's outcome besides 0 (solved) and -1 (failed): F grew, again */

/* The mode F's LCP chose (trial = base with F active where lf > 0), checked:
 * 0 when it holds (z1, l); the pairs it violates outside F join F (BLK_GROW);
 * violations inside F only are round-off, polished by the active-set
 * iteration (0, or -1 with info->st). */
static int blk_take(nsc_onestep *P, blk_work *W, double *z1, double *l, nsc_step_info *info)
{
    int m = P->m;
    memcpy(W->trial, W->base, (size_t)m);
    for (int a = 0; a < W->nf; a++) W->trial[W->blk[a]] = W->lf[a] > 0;
    double res;
    nsc_mode *T = nsc_mode_get(P, W->trial);
    if (!T) {
        info->st = NSC_LCP_ENOMEM;
        return -1;
    }
    memcpy(P->mc.mask, W->trial, (size_t)m);
    int st = nsc_mode_try(P, T, z1, l, &res, P->mc.mask2);
    if (st == 1) {
        P->mc.cur = (int)(T - P->mc.modes);
        info->residual = res;
        return 0;
    }
    int nf0 = W->nf;
    for (int i = 0; st == 0 && i < m; i++)
        if (P->mc.mask2[i] != W->trial[i]) W->nf = block_add(P, W->inF, W->blk, W->nf, i);
    if (W->nf > nf0) return BLK_GROW;
    int it = nsc_active_set(P, W->trial, T, NSC_AS_MAXIT, z1, l, &res);
    if (it <= 0) {
        info->st = NSC_LCP_EINVAL;
        return -1;
    }
    info->polished = 1;
    info->active_set = it - 1;
    info->residual = res;
    return 0;
}

/* One round: F inactive in base (mode K0), F's LCP reduced and pivoted, its
 * mode taken. A pivoting failure widens F to every pair (BLK_GROW) unless it
 * already was or m > NSC_BLOCK_MAX. 0 solved, BLK_GROW, -1 with info->st. */
static int blk_round(nsc_onestep *P, nsc_solver solver, blk_work *W, double *z1, double *l,
                     nsc_step_info *info)
{
    int m = P->m;
    if (W->nf > NSC_BLOCK_MAX) {
        info->st = NSC_LCP_MAXITER;
        return -1;
    }
    for (int a = 0; a < W->nf; a++) W->base[W->blk[a]] = 0;
    nsc_mode *K0 = nsc_mode_get(P, W->base);
    if (!K0) {
        info->st = NSC_LCP_ENOMEM;
        return -1;
    }
    if (K0->singular) {
        info->st = NSC_LCP_EINVAL;
        return -1;
    }
    if (blk_reduce(P, K0, W, info)) return -1;
    if (lcp_pivot(P, solver, W->nf, W->Mf, W->qf, W->lf, W->wf, info) != NSC_LCP_OK) {
        if (W->nf == m || m > NSC_BLOCK_MAX) return -1;
        for (int i = 0; i < m; i++)
            W->nf = block_add(P, W->inF, W->blk, W->nf, i); /* the whole LCP */
        info->st = NSC_LCP_OK;
        return BLK_GROW;
    }
    return blk_take(P, W, z1, l, info);
}

/* The block path (no dense m-by-m matrix): the pairs in F (blk[0..nf-1]) are
 * made inactive in base, whose mode K0 gives x0 and the response of the
 * unknowns to each l_j, j in F:  x = x0 + K0^-1 [B_F; -D_NaF] l_F, hence
 *   y_F = q_F + M_FF l_F,  q_F = y_F(x0),  M_FF = D_FF + [C_F  D_FNa] K0^-1 [B_F; -D_NaF];
 * LCP(M_FF, q_F) by pivoting gives F's mode; the violated pairs outside F join
 * F until a mode holds (at most 16 rounds). start: the active set the
 * iteration began from. */
static int block_solve(nsc_onestep *P, nsc_solver solver, const char *start, double *z1, double *l,
                       nsc_step_info *info)
{
    blk_work W;
    memset(&W, 0, sizeof W);
    int ret = -1;
    if (blk_init(P, start, &W)) info->st = NSC_LCP_ENOMEM;
    else {
        int round = 0, o = BLK_GROW;
        while (o == BLK_GROW && round++ < 16) o = blk_round(P, solver, &W, z1, l, info);
        if (o == BLK_GROW) info->st = NSC_LCP_MAXITER;
        else ret = o;
    }
    if (ret == 0) {
        memcpy(P->mc.prev, P->mc.mask, (size_t)P->m);
        P->mc.prevkey_ok = 0;
        P->mc.have_prev = 1;
    }
    blk_free(&W);
    return ret;
}

/* The step for P->st.r and the step's e (P->st.e1 or P->st.w1). */
/* prev = the mode nsc_active_set accepted (P->mc.mask), from prev: only the
 * pairs of its update when listed (a mode change in a 42 000-pair chain flips
 * a few hundred; the copy of all m flags was 0.44 G of its 20 G instructions). */
static void prev_update(nsc_onestep *P)
{
    if (P->mc.aflip < 0) {
        memcpy(P->mc.prev, P->mc.mask, (size_t)P->m);
        return;
    }
    for (int f = 0; f < P->mc.aflip; f++) {
        int i = P->mc.flip[f];
        P->mc.prev[i] = P->mc.mask[i];
    }
}

static int solve_step(nsc_onestep *P, nsc_solver solver, double *z1, double *l, nsc_step_info *info)
{
    int n = P->n, m = P->m;
    memset(info, 0, sizeof *info);
    if (m == 0) {
        memcpy(z1, P->st.r, (size_t)n * sizeof(double));
        if (n > 0 && (nsc_onestep_wfactor(P) || nsc_klu_solve(P->st.F, z1, 1))) { /* z1 = W \ r */
            info->st = NSC_LCP_EINVAL;
            return -1;
        }
        return 0;
    }
    double res;
    const char *start = NULL;
    if (P->mc.have_prev) { /* from the previous mode */
        nsc_mode *first = P->mc.cur >= 0 ? &P->mc.modes[P->mc.cur] : NULL;
        int it = nsc_active_set(P, P->mc.prev, first, NSC_AS_MAXIT, z1, l, &res);
        if (it > 0) {
            info->mode_hit = it == 1;
            info->active_set = it - 1;
            info->residual = res;
            if (it > 1) prev_update(P);
            P->mc.prevkey = P->mc.modes[P->mc.cur].key; /* (the mode accepted: prev's) */
            P->mc.prevkey_ok = 1;
            P->mc.mask_prev = 1; /* (the next step's start, not copied) */
            return 0;
        }
        if (P->mc.alt && (it = nsc_active_set(P, P->mc.alt, NULL, NSC_AS_MAXIT, z1, l, &res)) > 0) {
            info->active_set = it; /* the second guess */
            info->residual = res;
            memcpy(P->mc.prev, P->mc.mask, (size_t)m);
            P->mc.prevkey_ok = 0;
            P->mc.mask_prev = 1;
            return 0;
        }
        start = P->mc.prev;
        if (P->mc.nopivot) { /* the caller retries shorter */
            info->st = NSC_LCP_MAXITER;
            return -1;
        }
    } else if (solver == NSC_SOLVER_AUTO) {
        /* cold start (operating point, first step): from every pair open, a
         * chain of devices settles one link per iteration (a CMOS inverter chain's
         * operating point, whose M holds 1/gmin products that defeat pivoting) */
        memset(P->mc.mask2, 0, (size_t)m);
        int it = nsc_active_set(P, P->mc.mask2, NULL, NSC_AS_MAXIT + m / 4, z1, l, &res);
        if (it > 0) {
            info->active_set = it - 1;
            info->residual = res;
            memcpy(P->mc.prev, P->mc.mask, (size_t)m);
            P->mc.prevkey_ok = 0;
            P->mc.have_prev = 1;
            return 0;
        }
    }
    if (m <= P->dn.dense_mmax) return dense_solve(P, solver, z1, l, info);
    if (!start) {                                        /* no iteration yet: try every pair open */
        memset(P->dn.ll, 0, sizeof(double) * (size_t)m); /* (P->dn.ll: zeros, the start) */
        char *open0 = (char *)P->dn.ll;
        int it = nsc_active_set(P, open0, NULL, 1, z1, l, &res);
        if (it > 0) {
            info->residual = res;
            memcpy(P->mc.prev, P->mc.mask, (size_t)m);
            P->mc.prevkey_ok = 0;
            P->mc.have_prev = 1;
            return 0;
        }
        start = open0;
    }
    char *st0 = malloc((size_t)m + 1);
    if (!st0) {
        info->st = NSC_LCP_ENOMEM;
        return -1;
    }
    memcpy(st0, start, (size_t)m);
    int bad = block_solve(P, solver, st0, z1, l, info);
    free(st0);
    if (bad) mark_violated(P);
    return bad;
}

int nsc_onestep_solve(nsc_onestep *P, nsc_solver solver, const double *z0, const double *s0,
                      const double *s1, const double *e1, double *z1, double *l,
                      nsc_step_info *info)
{
    if (P->L->nsm)
        return nsc_nl_solve(P, solver, z0, s0, s1, e1, z1, l, info); /* Newton, onestep_nl.c */
    return nsc_onestep_solve_lin(P, solver, z0, s0, s1, e1, z1, l, info);
}

int nsc_onestep_solve_lin(nsc_onestep *P, nsc_solver solver, const double *z0, const double *s0,
                          const double *s1, const double *e1, double *z1, double *l,
                          nsc_step_info *info)
{
    rhs(P, z0, s0, s1);
    P->st.e1 = e1;
    P->st.w1 = NULL;
    P->inc.ok = 0; /* l is not known to be the last one */
    int st = solve_step(P, solver, z1, l, info);
    P->st.e1 = NULL;
    P->inc.ok = 0;
    return st;
}

const char *nsc_onestep_mode(const nsc_onestep *P)
{
    return P->mc.have_prev && P->m > 0 ? P->mc.prev : NULL;
}

int nsc_onestep_solve_mode(nsc_onestep *P, const char *mode, const double *s, const double *e,
                           double *z, double *l)
{
    if (P->st.h != 0 || P->m == 0 || P->L->nsm)
        return -1; /* (smooth functions: Newton, not one mode) */
    rhs(P, NULL, NULL, s);
    P->st.e1 = e;
    P->st.w1 = NULL;
    P->inc.ok = 0;
    double res;
    int it = nsc_active_set(P, mode, NULL, 1, z, l, &res); /* that mode only: no pivoting */
    P->st.e1 = NULL;
    P->inc.ok = 0;
    return it == 1 ? 0 : -1;
}

int nsc_onestep_step(nsc_onestep *P, nsc_solver solver, const double *z0, const double *w0,
                     const double *w1, double *z1, double *l, nsc_step_info *info)
{
    if (P->L->nsm)
        return nsc_nl_step(P, solver, z0, w0, w1, z1, l, info); /* Newton, onestep_nl.c */
    return nsc_onestep_step_lin(P, solver, z0, w0, w1, z1, l, info);
}

int nsc_onestep_step_lin(nsc_onestep *P, nsc_solver solver, const double *z0, const double *w0,
                         const double *w1, double *z1, double *l, nsc_step_info *info)
{
    nsc_mode *M = P->map && P->mc.have_prev && P->mc.cur >= 0 ? &P->mc.modes[P->mc.cur] : NULL;
    double res;
    P->inc.lch = -1; /* until an incremental check lists them */
    if (M && M->G
        && nsc_map_try(P, M, z0, w0, w1, z1, l, &res)) { /* the previous mode, by its map */
        memset(info, 0, sizeof *info);
        info->mode_hit = 1;
        info->residual = res;
        return 0;
    }
    rhs_w(P, z0, w0, w1);
    P->st.e1 = NULL;
    P->st.w1 = w1;
    int st = solve_step(P, solver, z1, l, info);
    if (st == 0 && info->mode_hit && P->map && P->mc.cur >= 0) {
        M = &P->mc.modes[P->mc.cur];
        if (!M->G && !M->nomap && ++M->hits >= nsc_map_hits(P->map))
            nsc_map_build(P, M, z0, w0, w1, z1); /* ENOMEM: no map, not an error */
    }
    return st;
}

/* In mode a the step is the linear system K_a [z1; l_Na] = [R z0 + (sources); -e_Na]
 * (onestep.h), so with the mode frozen dz1 = [I 0] K_a^-1 [R dz0; 0]: one solve of
 * the factored mode system per column. The mode is the last accepted one
 * (nsc_onestep_mode), the one whose factorisation P->mc.cur names after a step. */
/* The part of mode M's right-hand side linear in a perturbation of the sources,
 * dw0 = dw(t_k), dw1 = dw(t_k+1) (NULL: none; no constants), and of the start
 * dz0 where pairs are held at the theta point (NULL: none; R dz0 is the
 * caller's): r = Sw1 dw1 + Sw0 dw0 and e = Se dw1 + kap (C dz0 + Se dw0),
 * into x[n + nan]; eb [m] work. P->st.r is overwritten. */
static void rhs_in(nsc_onestep *P, const nsc_mode *M, const double *dz0, const double *dw0,
                   const double *dw1, double *eb, double *x)
{
    memset(P->st.r, 0, (size_t)P->n * sizeof(double));
    if (dw1) nsc_sp_gaxpy(P->st.Sw1, dw1, P->st.r); /* r = Sw1 dw1 + Sw0 dw0 */
    if (dw1 && P->st.Sw0) nsc_sp_gaxpy(P->st.Sw0, dw0, P->st.r);
    for (int j = 0; j < P->m; j++) { /* e_j = Se(j,:) dw1 */
        eb[j] = 0;
        for (int k = P->pat.SeT->p[j]; dw1 && k < P->pat.SeT->p[j + 1]; k++)
            eb[j] += P->pat.SeT->x[k] * dw1[P->pat.SeT->i[k]];
        if (dz0 && P->st.kap)
            eb[j] += start_y(P, j, dz0, dw0, 0); /* + kap_j (C_j dz0 + Se_j dw0) */
    }
    const double *e1 = P->st.e1;
    P->st.e1 = eb;
    nsc_mode_rhs(P, M, x);
    P->st.e1 = e1;
}

/* Column k of a sensitivity: x = R dz0 + (the input part of column k of DW0,
 * DW1, nsrc x ncol each, when DW0 is not NULL) (+ the part of dz0 through the
 * pairs held at the theta point); y [n + m], eb [m] work. */
static void col_rhs(nsc_onestep *P, const nsc_mode *M, const double *dz0, const double *DW0,
                    const double *DW1, int k, double *y, double *eb, double *x)
{
    int n = P->n;
    memset(x, 0, (size_t)(n + M->nan) * sizeof(double));
    if (DW0 || P->st.kap) {
        size_t o = (size_t)k * (size_t)P->L->nsrc;
        rhs_in(P, M, dz0, DW0 ? DW0 + o : NULL, DW0 ? DW1 + o : NULL, eb, y);
        memcpy(x, y, (size_t)(n + M->nan) * sizeof(double));
    }
    nsc_sp_gaxpy(P->st.R, dz0, x); /* x += R dz0 */
}

int nsc_onestep_sens(nsc_onestep *P, double *S, int ncol, const double *DW0, const double *DW1)
{
    int n = P->n;
    if (!P->st.R) return -1;
    nsc_mode *M = P->mc.cur >= 0 ? &P->mc.modes[P->mc.cur] : NULL;
    if (!M) {
        const char *mask = nsc_onestep_mode(P);
        if (!mask && P->m > 0) return -1;
        char *empty = mask ? NULL : nsc_calloc(1, 1);
        M = nsc_mode_get(P, mask ? mask : empty);
        free(empty);
    }
    if (!M || M->singular) return -1;
    int buf = DW0 || P->st.kap; /* col_rhs's work */
    double *x = P->st.x,
           *y = buf ? calloc(2 * ((size_t)n + (size_t)P->m) + 1, sizeof(double)) : NULL;
    if (buf && !y) return -1;
    int st = 0;
    for (int k = 0; k < ncol && !st; k++) {
        double *col = S + (size_t)k * (size_t)n;
        col_rhs(P, M, col, DW0, DW1, k, y, y ? y + n + P->m : NULL, x); /* x = R dz0 (+ input) */
        if (nsc_klu_solve(M->F, x, 1)) st = -1;
        else memcpy(col, x, (size_t)n * sizeof(double));
    }
    free(y);
    return st;
}

/* ---- the saltation of an event step ----
 * A step that took a mode change. In mode M its solution x = [z1; l_Na] solves
 * K_M x = rhs_M(z0, w0, w1) (onestep.h). With t1 = t0 + h and z0, w0 fixed,
 * W = E_T/h - Theta A and R = E_T/h + (I - Theta) A both move by -E_T/h^2 dh
 * (E_T the premultiplied E), so
 *     K_M dx/dh = [E_T (z1 - z0) / h^2; 0] + rhs_M(w1 + w') - rhs_M(w1),
 * w' = (w1 - w0) / h the sources' slope over the step (rhs_M is affine in w1),
 * and E_T / h = Theta R + (I - Theta) W row by row. */

/* The index of N-active pair i among M's unknowns (M->actn ascending). */
static int act_pos(const nsc_mode *M, int i)
{
    int lo = 0, hi = M->nan - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (M->actn[mid] < i) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* phi_j of pair j in mode M at x = [z; l_Na] with the sources' part Se w of e
 * (w NULL: none), plus e0 (and the step's ez) when affine, plus ex (the
 * start's part of a pair held at the theta point, start_y): l_j for an active
 * pair (separable: -(C_j z + e_j) / D_jj), y_j = C_j z + D_j l + e_j for an
 * inactive one. It is >= 0 while the pair keeps M's mode (stepper_adapt.c's
 * phi) and linear in (x, w, ex) when !affine: its derivative along (dx, dw). */
static double mode_phi(const nsc_onestep *P, const nsc_mode *M, int j, const double *x,
                       const double *w, int affine, double ex)
{
    int n = P->n;
    if (M->mask[j] && !P->pat.sep[j]) return x[n + act_pos(M, j)];
    double y = affine ? (P->st.kap ? P->L->e0[j] + P->st.ez[j] : P->L->e0[j]) : 0.0;
    if (ex != 0) y += ex;
    for (int k = P->pat.SeT->p[j]; w && k < P->pat.SeT->p[j + 1]; k++)
        y += P->pat.SeT->x[k] * w[P->pat.SeT->i[k]];
    for (int k = P->pat.Ct->p[j]; k < P->pat.Ct->p[j + 1]; k++)
        y += P->pat.Ct->x[k] * x[P->pat.Ct->i[k]]; /* + C_j z */
    if (P->pat.sep[j])
        return M->mask[j] ? -y * P->pat.dinv[j] : y; /* (D_jj l_j = 0 when inactive) */
    for (int k = P->pat.Dt->p[j]; k < P->pat.Dt->p[j + 1];
         k++) {                  /* + D_j l over the N-active pairs */
        int i = P->pat.Dt->i[k]; /* (separable: D_ji = 0, i != j) */
        if (M->mask[i] && !P->pat.sep[i]) y += P->pat.Dt->x[k] * x[n + act_pos(M, i)];
    }
    return y;
}

/* The last step (z0, w0 -> w1) redone in mode M: x = [z1; l_Na] and dx = dx/dh
 * (above); wd = w1 + w', t, u [n] work. P->st.r and P->st.w1 are overwritten. 0, -1. */
static int mode_dh(nsc_onestep *P, nsc_mode *M, const double *z0, const double *w0,
                   const double *w1, const double *ws, const double *wd, double *x, double *dx,
                   double *t, double *u)
{
    int n = P->n;
    rhs_w(P, z0, w0, w1);
    P->st.e1 = NULL;
    nsc_sp_gaxpy(P->st.Sw1, ws, P->st.r); /* r(w1 + w') */
    P->st.w1 = wd;
    nsc_mode_rhs(P, M, dx); /* dx = rhs_M(w1 + w') */
    rhs_w(P, z0, w0, w1);
    P->st.w1 = w1;
    nsc_mode_rhs(P, M, x); /* x = rhs_M(w1) */
    for (int i = 0; i < n + M->nan; i++) dx[i] -= x[i];
    if (nsc_klu_solve(M->F, x, 1)) return -1; /* x = K_M^-1 rhs_M */
    for (int i = 0; i < n; i++) t[i] = (x[i] - z0[i]) / P->st.h;
    memset(u, 0, 2 * (size_t)n * sizeof(double));
    nsc_sp_gaxpy(P->st.R, t, u);     /* u = R t */
    nsc_sp_gaxpy(P->st.W, t, u + n); /* u + n = W t */
    for (int i = 0; i < n; i++)
        dx[i] += P->st.th[i] * u[i] + (1 - P->st.th[i]) * u[n + i]; /* + E_T t / h */
    return nsc_klu_solve(M->F, dx, 1) ? -1 : 0;
}

/* The guard: among the pairs whose mode differs between Ma and Mb, the one
 * that fell through zero inside the step in the old mode Ma (x, dx: its step
 * and d/dh there), first: phi < 0 at the end, phi' < 0, the crossing h_c = h -
 * phi / phi' earliest and not before the step (h_c >= -1e-3 h: phi >= 0 at
 * the start, where Ma held, up to the linearisation). Pairs that changed as a
 * consequence (the MOS a comparator drives) do not fall in Ma; a pair already
 * violated at the start (a source's jump at a breakpoint) changed at a time
 * the state does not move: no guard, the frozen sensitivity is right.
 * *dphi = phi'. -1 if none. */
static int first_guard(const nsc_onestep *P, const nsc_mode *Ma, const nsc_mode *Mb,
                       const double *x, const double *dx, const double *w1, const double *ws,
                       double *dphi)
{
    int g = -1;
    double best = INFINITY;
    for (int j = 0; j < P->m; j++) {
        if (Ma->mask[j] == Mb->mask[j]) continue;
        double v = mode_phi(P, Ma, j, x, w1, 1, 0), d = mode_phi(P, Ma, j, dx, ws, 0, 0),
               hc = P->st.h - v / d;
        if (!(v < 0 && d < 0 && hc >= -1e-3 * P->st.h && hc < best)) continue;
        best = hc;
        g = j;
        *dphi = d;
    }
    return g;
}

/* Work of a saltation (nsc_onestep_sens_event, _flip): two modes' solutions
 * x1, x2 and vector fields f1, f2 (n + m + 1 each), mode_dh's t, u, and the
 * sources' slope over the step ws = (w1 - w0)/h and wd = w1 + ws. */
typedef struct sens_work {
    double *buf, *x1, *f1, *x2, *f2, *t, *u, *ws, *wd;
    double *y, *eb; /* [n + m], [m]: an input column's right-hand side (col_rhs) */
} sens_work;

static int sens_work_new(const nsc_onestep *P, const double *w0, const double *w1, sens_work *W)
{
    int n = P->n, ns = P->L->nsrc;
    size_t nx = (size_t)n + (size_t)P->m + 1;
    if (!(W->buf = calloc(7 * nx + 2 * (size_t)n + 2 * (size_t)ns + 1, sizeof(double)))) return -1;
    W->x1 = W->buf;
    W->f1 = W->x1 + nx;
    W->x2 = W->f1 + nx;
    W->f2 = W->x2 + nx;
    W->t = W->f2 + nx;
    W->u = W->t + nx;
    W->ws = W->u + 2 * (size_t)n;
    W->wd = W->ws + ns;
    W->y = W->wd + ns;
    W->eb = W->y + nx;
    for (int k = 0; k < ns; k++) {
        W->ws[k] = (w1[k] - w0[k]) / P->st.h; /* w' */
        W->wd[k] = w1[k] + W->ws[k];
    }
    return 0;
}

int nsc_onestep_sens_event(nsc_onestep *P, const char *from, const double *z0, const double *w0,
                           const double *w1, double *S, int ncol, const double *DW0,
                           const double *DW1)
{
    int n = P->n;
    if (!P->st.R || !P->mc.have_prev || P->m == 0) return -1;
    nsc_mode *Ma = nsc_mode_get(P, from), *Mb = Ma ? nsc_mode_get(P, P->mc.prev) : NULL;
    if (!Ma || !Mb || Ma->singular || Mb->singular) return -1;
    if (Ma == Mb) return 1;
    sens_work W;
    if (sens_work_new(P, w0, w1, &W)) return -1;
    double *xa = W.x1, *fa = W.f1, *xb = W.x2, *fb = W.f2, *t = W.t, *u = W.u, *ws = W.ws,
           *wd = W.wd;
    const double *w1keep = P->st.w1;
    double dphi = 0;
    int st = mode_dh(P, Ma, z0, w0, w1, ws, wd, xa, fa, t, u)
                     || mode_dh(P, Mb, z0, w0, w1, ws, wd, xb, fb, t, u)
                 ? -1
                 : 0;
    int g = st ? -1 : first_guard(P, Ma, Mb, xa, fa, w1, ws, &dphi);
    if (!st && g < 0) st = 1; /* no guard crosses: frozen */
    for (int k = 0; !st && k < ncol; k++) {
        double *col = S + (size_t)k * (size_t)n;
        const double *dw1 = DW0 ? DW1 + (size_t)k * (size_t)P->L->nsrc : NULL;
        col_rhs(P, Ma, col, DW0, DW1, k, W.y, W.eb, xa); /* xa = R dz0 (+ input) */
        col_rhs(P, Mb, col, DW0, DW1, k, W.y, W.eb, xb);
        if (nsc_klu_solve(Ma->F, xa, 1) || nsc_klu_solve(Mb->F, xb, 1)) {
            st = -1;
            break;
        }
        const double *dw0 = DW0 ? DW0 + (size_t)k * (size_t)P->L->nsrc : NULL;
        double dh = -mode_phi(P, Ma, g, xa, dw1, 0, start_y(P, g, col, dw0, 0))
                    / dphi; /* dh/dz0: phi_g stays 0 */
        for (int i = 0; i < n; i++)
            col[i] = xb[i] + (fa[i] - fb[i]) / P->st.th[i] * dh; /* S+ = S_b + (f_a - f_b) dh */
    }
    P->st.w1 = w1keep;
    free(W.buf);
    return st;
}

/* The mode of Pn (the new switch states) for the steps after a flip: the
 * active set of Pn's own step from z0, guessed from P's accepted one (a
 * freewheeling diode on where the switch opened: P's set left the inductor to
 * ROFF, and the periodic AC of a buck was 32 dB high); P's when that step fails. */
static nsc_mode *flip_mode(nsc_onestep *P, nsc_onestep *Pn, const double *z0, const double *w0,
                           const double *w1)
{
    char none = 0;
    const char *mask = P->m > 0 ? P->mc.prev : &none, *maskn = mask;
    double *zl = P->m > 0 ? calloc((size_t)P->n + (size_t)P->m, sizeof(double)) : NULL;
    nsc_step_info info;
    nsc_onestep_set_mode(Pn, mask);
    if (zl && !nsc_onestep_step(Pn, NSC_SOLVER_AUTO, z0, w0, w1, zl, zl + P->n, &info))
        maskn = Pn->mc.prev;
    free(zl);
    return nsc_mode_get(Pn, maskn);
}

int nsc_onestep_sens_flip(nsc_onestep *P, nsc_onestep *Pn, int c, int d, const double *z0,
                          const double *w0, const double *w1, double *S, int ncol,
                          const double *DW0, const double *DW1)
{
    int n = P->n;
    if (!P->st.R || !Pn->st.R || Pn->st.theta != 1.0 || (P->m > 0 && !P->mc.have_prev)) return -1;
    char none = 0;
    const char *mask = P->m > 0 ? P->mc.prev : &none;
    nsc_mode *Mn = flip_mode(P, Pn, z0, w0, w1), *Mo = Mn ? nsc_mode_get(P, mask) : NULL;
    if (!Mo || !Mn || Mo->singular || Mn->singular) return -1;
    sens_work W;
    if (sens_work_new(P, w0, w1, &W)) return -1;
    double *xo = W.x1, *fo = W.f1, *xn = W.x2, *fn = W.f2, *t = W.t, *u = W.u, *ws = W.ws,
           *wd = W.wd;
    const double *w1o = P->st.w1, *w1n = Pn->st.w1;
    int st = mode_dh(P, Mo, z0, w0, w1, ws, wd, xo, fo, t, u)
                     || mode_dh(Pn, Mn, z0, w0, w1, ws, wd, xn, fn, t, u)
                 ? -1
                 : 0;
    double dphi = (c >= 0 ? fo[c] : 0.0) - (d >= 0 ? fo[d] : 0.0); /* du/dh in the old state */
    if (!st && !(fabs(dphi) > 0)) st = 1;
    for (int k = 0; !st && k < ncol; k++) {
        double *col = S + (size_t)k * (size_t)n;
        col_rhs(P, Mo, col, DW0, DW1, k, W.y, W.eb, xo); /* xo = R dz0 (+ input) */
        if (nsc_klu_solve(Mo->F, xo, 1)) {
            st = -1;
            break;
        }
        double dh = -((c >= 0 ? xo[c] : 0.0) - (d >= 0 ? xo[d] : 0.0))
                    / dphi; /* u stays on its threshold */
        for (int i = 0; i < n; i++)
            col[i] = xo[i] + (fo[i] - fn[i]) * dh; /* S+ = S_o + (f_o - f_n) dh */
    }
    P->st.w1 = w1o;
    Pn->st.w1 = w1n;
    free(W.buf);
    return st;
}

int nsc_onestep_sens_event_flip(nsc_onestep *P, nsc_onestep *Pn, const char *from, const double *z0,
                                const double *w0, const double *w1, double *S, int ncol,
                                const double *DW0, const double *DW1)
{
    int n = P->n;
    if (!P->st.R || !Pn->st.R || Pn->st.theta != 1.0 || !P->mc.have_prev || P->m == 0) return -1;
    if (P->st.theta != 1.0) return 1; /* (the located event's step is) */
    nsc_mode *Mn = flip_mode(P, Pn, z0, w0, w1);
    nsc_mode *Ma = Mn ? nsc_mode_get(P, from) : NULL, *Mb = Ma ? nsc_mode_get(P, P->mc.prev) : NULL;
    if (!Ma || !Mb || !Mn || Ma->singular || Mb->singular || Mn->singular) return -1;
    if (Ma == Mb) return 1;
    sens_work W;
    double *xb = NULL;
    if (sens_work_new(P, w0, w1, &W)) return -1;
    if (!(xb = calloc((size_t)n + (size_t)P->m + 1, sizeof(double)))) {
        free(W.buf);
        return -1;
    }
    double *xa = W.x1, *fa = W.f1, *xn = W.x2, *fn = W.f2, *t = W.t, *u = W.u, *ws = W.ws,
           *wd = W.wd;
    const double *w1o = P->st.w1, *w1n = Pn->st.w1;
    double dphi = 0;
    int st = mode_dh(P, Ma, z0, w0, w1, ws, wd, xa, fa, t, u)
                     || mode_dh(Pn, Mn, z0, w0, w1, ws, wd, xn, fn, t, u)
                 ? -1
                 : 0;
    int g = st ? -1 : first_guard(P, Ma, Mb, xa, fa, w1, ws, &dphi);
    if (!st && g < 0) st = 1; /* no guard crosses: frozen */
    for (int k = 0; !st && k < ncol; k++) {
        double *col = S + (size_t)k * (size_t)n;
        const double *dw1 = DW0 ? DW1 + (size_t)k * (size_t)P->L->nsrc : NULL;
        col_rhs(P, Ma, col, DW0, DW1, k, W.y, W.eb, xa); /* xa = R dz0 (+ input), old mode */
        col_rhs(P, Mb, col, DW0, DW1, k, W.y, W.eb, xb); /* xb: the step's accepted mode */
        if (nsc_klu_solve(Ma->F, xa, 1) || nsc_klu_solve(Mb->F, xb, 1)) {
            st = -1;
            break;
        }
        const double *dw0 = DW0 ? DW0 + (size_t)k * (size_t)P->L->nsrc : NULL;
        double dh = -mode_phi(P, Ma, g, xa, dw1, 0, start_y(P, g, col, dw0, 0))
                    / dphi; /* dh/dz0: phi_g stays 0 */
        for (int i = 0; i < n; i++)
            col[i] = xb[i] + (fa[i] - fn[i]) * dh; /* S+ = S_b + (f_a - f_n) dh */
    }
    P->st.w1 = w1o;
    Pn->st.w1 = w1n;
    free(xb);
    free(W.buf);
    return st;
}

/* ---- accessors (onestep.h: the problem is opaque outside src/solve) ---- */

double nsc_onestep_h(const nsc_onestep *P)
{
    return P->st.h;
}
double nsc_onestep_theta(const nsc_onestep *P)
{
    return P->st.theta;
}
const double *nsc_onestep_kappa(const nsc_onestep *P)
{
    return P->st.kap;
}
const char *nsc_onestep_sw(const nsc_onestep *P)
{
    return P->st.sw;
}
const double *nsc_onestep_violated(const nsc_onestep *P)
{
    return P->st.qset ? P->st.q : NULL;
}
long nsc_onestep_nfactor(const nsc_onestep *P)
{
    return P->mc.nfactor;
}
long nsc_onestep_ncached(const nsc_onestep *P)
{
    return P->mc.ncached;
}
int nsc_onestep_changed(const nsc_onestep *P, const int **list)
{
    *list = P->inc.lch >= 0 ? P->inc.dlist : NULL;
    return P->inc.lch;
}
