/* onestep_mode.c -- the mode systems of the one-step problem (onestep.h):
 * separable pairs eliminated into W with a fixed pattern, the cache of
 * factorisations, the check of a mode and the active-set iteration.
 *
 * Values. Wb has the pattern of W and of every separable stamp B_j C_j^T; its
 * x holds W (zeros elsewhere). A position k is an entry of Wb (k < nnz(Wb)) or
 * an entry of the vector c (k = nnz(Wb) + i); its value in mode a is
 *     base_k + sum over contributors (j, v) of position k with j in a: v
 * summed in the fixed contributor order, so a value depends on the mode only,
 * never on the modes visited before (a refilled slot equals a fresh build). */
#include "onestep_mode.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define NSC_SING_FLIPS 8 /* singular_out tries the single flips of an update of at most this many */

#define RCOND_MIN \
    NSC_KLU_RCOND_MIN /* below: the mode is singular (a refactorisation: nsc_klu_refresh) */

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* Position of (i, j) in the CSC A (rows sorted), -1 if not stored. */
static int sp_find(const nsc_sparse *A, int i, int j)
{
    int lo = A->p[j], hi = A->p[j + 1] - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (A->i[mid] == i) return mid;
        if (A->i[mid] < i) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

static void pos_set(const nsc_onestep *P, nsc_mode *M, const char *mask, int k);
static void pos_set_all(const nsc_onestep *P, nsc_mode *M, const char *mask);
static void mode_factor(nsc_onestep *P, nsc_mode *M, int refactor);
static const nsc_mode *nearest(const nsc_onestep *P, const nsc_mode *M, const char *mask, int lim);
static void mode_values(nsc_onestep *P, nsc_mode *M, const char *mask, const nsc_mode *src,
                        int flips);

static void mode_clear(nsc_mode *M)
{
    free(M->mask);
    free(M->pre);
    free(M->actn);
    nsc_sp_free(M->K);
    free(M->c);
    free(M->G);
    nsc_klu_free(M->F);
    memset(M, 0, sizeof *M);
}

int nsc_mode_init(nsc_onestep *P)
{
    size_t m = (size_t)P->m;
    nsc_os_modes *c = &P->mc;
    c->prev = nsc_calloc(m, 1);
    c->mask = nsc_calloc(m, 1);
    c->mask2 = nsc_calloc(m, 1);
    c->mask0 = nsc_calloc(m + 1, 1);
    c->lt = nsc_calloc(m, sizeof(double));
    c->flip = nsc_calloc(m + 1, sizeof(int));
    c->cur = -1;
    c->nflip = -1;
    c->aflip = -1;
    P->inc.lch = -1;
    return c->prev && c->mask && c->mask2 && c->mask0 && c->lt && c->flip ? 0 : -1;
}

/* The arrays nsc_mode_setup writes once and nothing changes after (shared by
 * the problems nsc_mode_setup_like made from it: nsc_os_pat.share). */
static void pat_free_shared(nsc_onestep *P)
{
    free(P->pat.share);
    free(P->pat.sep);
    free(P->pat.dinv);
    free(P->pat.sep_e);
    free(P->pat.nlist);
    nsc_sp_free(P->pat.Ct);
    nsc_sp_free(P->pat.Dt);
    nsc_sp_free(P->pat.SeT);
    free(P->pat.poscol);
    free(P->pat.pc);
    free(P->pat.cpair);
    free(P->pat.ccoef);
    free(P->pat.pp);
    free(P->pat.ppos);
    free(P->pat.pkey);
    free(P->inc.epair);
    free(P->inc.cup);
    free(P->inc.cui);
    free(P->pat.samerow);
    free(P->pat.runend);
    free(P->pat.rsort);
    free(P->pat.srun);
    free(P->pat.other);
    free(P->pat.wpos);
    free(P->pat.hw);
    free(P->pat.hs);
}

/* 1 when slot M holds nothing to free (never built: most of a problem's
 * NSC_MODE_CACHE slots; a slot that held a mode keeps its mask). */
static int mode_empty(const nsc_mode *M)
{
    return !M->mask && !M->pre && !M->actn && !M->K && !M->c && !M->G && !M->F;
}

void nsc_mode_teardown(nsc_onestep *P)
{
    for (int k = 0; k < NSC_MODE_CACHE; k++) /* (75 problems x 128 slots on the cascade) */
        if (!mode_empty(&P->mc.modes[k])) mode_clear(&P->mc.modes[k]);
    P->mc.nmodes = 0;
    P->mc.cur = P->inc.mref_slot = -1;
    if (!P->pat.share || --*P->pat.share <= 0) /* the last holder of the shared arrays */
        pat_free_shared(P);
    P->pat.share = NULL;
    nsc_sp_free(P->pat.Wb);
    free(P->pat.posn);
    free(P->pat.touched);
    free(P->pat.tlist);
    free(P->inc.zref);
    free(P->inc.zlist);
    free(P->inc.mref);
    free(P->inc.dmark);
    free(P->inc.dlist);
    free(P->inc.dval);
    free(P->inc.ulist);
    free(P->pat.rt);
    free(P->mc.prev);
    free(P->mc.mask);
    free(P->mc.mask2);
    free(P->mc.mask0);
    free(P->mc.lt);
    free(P->mc.flip);
}

/* After nsc_onestep_renew gave W its values for a new h (or Newton its tangent,
 * onestep_nl.c): Wb takes them at the entries that can change (hw; the
 * separable stamps' positions at W's value + 0.0, as build_wb makes them),
 * and every cached mode keeps its pattern, its factorisation object and its
 * place in the cache, marked stale: K's values are recomputed for the new Wb
 * and refactored with the old pivots when the mode is next used
 * (nsc_mode_get, mode_refill). The affine maps depend on h: dropped. */
/* Wb's values at the entries list[0..nl-1] of W, then every cached mode
 * marked stale (at least as stale as level) */
static void renew_entries(nsc_onestep *P, const int *list, int nl, int level)
{
    const double *wx = P->st.W->x;
    for (int q = 0; q < nl; q++) { /* the others kept their values */
        int k = list[q], pos = P->pat.wpos[k];
        P->pat.Wb->x[pos] = P->pat.pc[pos + 1] > P->pat.pc[pos] ? wx[k] + 0.0
                                                                : wx[k]; /* stamped: W + 0.0 */
    }
    P->mc.cur = -1;
    for (int k = 0; k < NSC_MODE_CACHE; k++) {
        nsc_mode *M = &P->mc.modes[k];
        if (!M->mask) continue;
        free(M->G);
        M->G = NULL;
        M->hits = 0;
        M->nomap = 0;
        if (!M->stale || level == NSC_STALE_H) M->stale = level;
    }
}

void nsc_mode_renew(nsc_onestep *P)
{
    renew_entries(P, P->pat.hw, P->pat.nhw, NSC_STALE_H);
}

void nsc_mode_renew_smooth(nsc_onestep *P)
{
    renew_entries(P, P->pat.hs, P->pat.nhs, NSC_STALE_SMOOTH);
}

/* The per-pair arrays of P and the transposes Ct, Dt, SeT; epair lists the
 * pairs with a source term in e (a row of Se). 0, or -1 on ENOMEM. */
static int setup_alloc(nsc_onestep *P)
{
    nsc_os_pat *t = &P->pat;
    nsc_os_inc *d = &P->inc;
    const nsc_lcs *L = P->L;
    int n = P->n, m = P->m;
    t->sep = nsc_calloc((size_t)m + 1, 1);
    t->dinv = nsc_calloc((size_t)m + 1, sizeof(double));
    t->sep_e = nsc_calloc((size_t)m + 1, sizeof(int));
    t->nlist = nsc_calloc((size_t)m + 1, sizeof(int));
    t->pkey = nsc_calloc((size_t)m + 1, sizeof(uint64_t));
    t->posn = nsc_calloc((size_t)m + 1, sizeof(int));
    t->pp = nsc_calloc((size_t)m + 2, sizeof(int));
    t->Ct = nsc_sp_transpose(L->C);
    t->Dt = nsc_sp_transpose(P->st.D);
    t->SeT = nsc_sp_transpose(L->Se);
    d->zref = nsc_calloc((size_t)n + 1, sizeof(double));
    d->zlist = nsc_calloc((size_t)n + 1, sizeof(int));
    d->mref = nsc_calloc((size_t)m + 1, 1);
    d->epair = nsc_calloc((size_t)m + 1, sizeof(int));
    d->dmark = nsc_calloc((size_t)m + 1, 1);
    d->ulist = nsc_calloc((size_t)m + 1, sizeof(int));
    d->dlist = nsc_calloc((size_t)m + 1, sizeof(int));
    d->dval = nsc_calloc((size_t)m + 1, sizeof(double));
    if (!t->sep || !t->dinv || !t->sep_e || !t->nlist || !t->pkey || !t->posn || !t->pp || !t->Ct
        || !t->Dt || !t->SeT || !d->zref || !d->zlist || !d->mref || !d->epair || !d->dmark
        || !d->ulist || !d->dlist || !d->dval)
        return -1;
    for (int j = 0; j < m; j++)
        if (t->SeT->p[j + 1] > t->SeT->p[j]) d->epair[d->nepair++] = j;
    return 0;
}

/* Pair kinds: j is separable (sep[j] = 1, dinv[j] = 1/D_jj) when D_jj > 0 is
 * the only nonzero of row j and of column j of D, else listed in nlist; each
 * pair gets its random key (nsc_mode_key). 0, or -1 on ENOMEM. */
static int classify_pairs(nsc_onestep *P)
{
    const nsc_sparse *D = P->st.D;
    int m = P->m;
    int *rowcnt = nsc_calloc((size_t)m + 1, sizeof(int));
    if (!rowcnt) return -1;
    for (int j = 0; j < m; j++)
        for (int k = D->p[j]; k < D->p[j + 1]; k++)
            if (D->x[k] != 0) rowcnt[D->i[k]]++;
    for (int j = 0; j < m; j++) {
        int cnt = 0;
        double d = 0;
        for (int k = D->p[j]; k < D->p[j + 1]; k++) {
            if (D->x[k] == 0) continue;
            cnt++;
            if (D->i[k] == j) d = D->x[k];
        }
        P->pat.pkey[j] = splitmix64((uint64_t)j + 1);
        P->pat.posn[j] = -1;
        if (cnt == 1 && rowcnt[j] == 1 && d > 0) {
            P->pat.sep[j] = 1;
            P->pat.dinv[j] = 1.0 / d;
            if (P->pat.SeT->p[j + 1] > P->pat.SeT->p[j] || (P->st.kap && P->st.kap[j] != 0))
                P->pat.sep_e[P->pat.nsep_e++] = j;
        } else {
            P->pat.nlist[P->pat.nn++] = j;
        }
    }
    free(rowcnt);
    return 0;
}

/* Wb = W + 0 * (every separable stamp B_j C_j^T): W's values on the union of
 * the patterns; npos = nnz(Wb) + n positions, poscol[k] the column of entry k.
 * 0, or -1 on ENOMEM. */
static int build_wb(nsc_onestep *P)
{
    const nsc_sparse *B = P->st.B, *W = P->st.W;
    int n = P->n, m = P->m, nst = 0;
    for (int j = 0; j < m; j++)
        if (P->pat.sep[j]) nst += (B->p[j + 1] - B->p[j]) * (P->pat.Ct->p[j + 1] - P->pat.Ct->p[j]);
    nsc_sparse *T = nsc_sp_new(n, n, W->p[n] + nst + 1, 1);
    int ret = -1;
    if (!T) return -1;
    for (int j = 0; j < n; j++)
        for (int k = W->p[j]; k < W->p[j + 1]; k++)
            if (nsc_sp_entry(T, W->i[k], j, W->x[k])) goto done;
    for (int j = 0; j < m; j++) {
        if (!P->pat.sep[j]) continue;
        for (int kb = B->p[j]; kb < B->p[j + 1]; kb++)
            for (int kc = P->pat.Ct->p[j]; kc < P->pat.Ct->p[j + 1]; kc++)
                if (nsc_sp_entry(T, B->i[kb], P->pat.Ct->i[kc], 0.0)) goto done;
    }
    P->pat.Wb = nsc_sp_compress(T); /* duplicates: W + 0 = W exactly */
    if (!P->pat.Wb) goto done;
    int nnzb = P->pat.Wb->p[n];
    P->pat.npos = nnzb + n;
    P->pat.poscol = nsc_calloc((size_t)nnzb + 1, sizeof(int));
    P->pat.pc = nsc_calloc((size_t)P->pat.npos + 2, sizeof(int));
    P->pat.touched = nsc_calloc((size_t)P->pat.npos + 1, 1);
    P->pat.tlist = nsc_calloc((size_t)P->pat.npos + 1, sizeof(int));
    if (!P->pat.poscol || !P->pat.pc || !P->pat.touched || !P->pat.tlist) goto done;
    for (int j = 0; j < n; j++)
        for (int k = P->pat.Wb->p[j]; k < P->pat.Wb->p[j + 1]; k++) P->pat.poscol[k] = j;
    ret = 0;
done:
    nsc_sp_free(T);
    return ret;
}

/* One walk over the separable pairs' contributions in pair order (the
 * summation order): B_aj C_jc / D_jj to Wb(a, c) and B_aj e0_j / D_jj to c_a
 * (position nnz(Wb) + a). fill NULL: count them into pc[pos + 1] and pp[j + 1];
 * else store them at fill[pos]++ (cpair, ccoef) and their positions in ppos. */
static void contrib_walk(nsc_onestep *P, int *fill)
{
    const nsc_sparse *B = P->st.B;
    const double *e0 = P->L->e0;
    int nnzb = P->pat.Wb->p[P->n], np = 0;
    for (int j = 0; j < P->m; j++) {
        if (!P->pat.sep[j]) continue;
        for (int kb = B->p[j]; kb < B->p[j + 1]; kb++) {
            int a = B->i[kb];
            for (int kc = P->pat.Ct->p[j]; kc < P->pat.Ct->p[j + 1]; kc++) {
                int pos = sp_find(P->pat.Wb, a, P->pat.Ct->i[kc]);
                if (!fill) {
                    P->pat.pc[pos + 1]++;
                    P->pat.pp[j + 1]++;
                    continue;
                }
                int q = fill[pos]++;
                P->pat.cpair[q] = j;
                P->pat.ccoef[q] = B->x[kb] * P->pat.Ct->x[kc]
                                  * P->pat.dinv[j]; /* B_aj C_jc / D_jj */
                P->pat.ppos[np++] = pos;
            }
            if (e0[j] == 0) continue;
            int pos = nnzb + a; /* c_a += B_aj e0_j / D_jj */
            if (!fill) {
                P->pat.pc[pos + 1]++;
                P->pat.pp[j + 1]++;
                continue;
            }
            int q = fill[pos]++;
            P->pat.cpair[q] = j;
            P->pat.ccoef[q] = B->x[kb] * e0[j] * P->pat.dinv[j];
            P->pat.ppos[np++] = pos;
        }
    }
}

/* The contributors of every position (pc: CSR-like starts; cpair, ccoef) and
 * the positions of every pair (pp starts; ppos): counted, prefix-summed, filled.
 * 0, or -1 on ENOMEM. */
static int contributors(nsc_onestep *P)
{
    contrib_walk(P, NULL);
    for (int k = 0; k < P->pat.npos; k++) P->pat.pc[k + 1] += P->pat.pc[k];
    for (int j = 0; j < P->m; j++) P->pat.pp[j + 1] += P->pat.pp[j];
    int nc = P->pat.pc[P->pat.npos], np = P->pat.pp[P->m];
    P->pat.cpair = nsc_calloc((size_t)nc + 1, sizeof(int));
    P->pat.ccoef = nsc_calloc((size_t)nc + 1, sizeof(double));
    P->pat.ppos = nsc_calloc((size_t)np + 1, sizeof(int));
    int *fill = nsc_calloc((size_t)P->pat.npos + 1, sizeof(int));
    if (!P->pat.cpair || !P->pat.ccoef || !P->pat.ppos || !fill) {
        free(fill);
        return -1;
    }
    memcpy(fill, P->pat.pc, sizeof(int) * (size_t)P->pat.npos);
    contrib_walk(P, fill);
    free(fill);
    return 0;
}

/* The full check's units: the sorted runs' table (srun, their rows' terms
 * from Ct) and the other heads (other). 0, or -1 on ENOMEM. */
static int unit_lists(nsc_onestep *P)
{
    nsc_os_pat *t = &P->pat;
    const nsc_sparse *Ct = t->Ct;
    t->srun = nsc_calloc((size_t)P->m + 1, sizeof(nsc_srun));
    t->other = nsc_calloc((size_t)P->m + 1, sizeof(int));
    if (!t->srun || !t->other) return -1;
    for (int i = 0; i < P->m; i++) {
        if (t->samerow[i]) continue;
        if (!t->rsort[i]) {
            t->other[t->nother++] = i;
            continue;
        }
        int k = Ct->p[i], r = Ct->p[i + 1] - k;
        t->srun[t->nsrun++] = (nsc_srun){ .i0 = i,
                                          .end = t->runend[i],
                                          .r = r,
                                          .k0 = Ct->i[k],
                                          .c0 = Ct->x[k],
                                          .k1 = r == 2 ? Ct->i[k + 1] : Ct->i[k],
                                          .c1 = r == 2 ? Ct->x[k + 1] : 0.0 };
    }
    return 0;
}

/* The runs of separable pairs sharing a row of C (samerow) and the work for
 * one row's terms (rt). 0, or -1 on ENOMEM. */
static int row_runs(nsc_onestep *P)
{
    const nsc_sparse *Ct = P->pat.Ct;
    P->pat.samerow = nsc_calloc((size_t)P->m + 1, 1);
    if (!P->pat.samerow) return -1;
    for (int i = 0; i < P->m; i++) {
        int len = Ct->p[i + 1] - Ct->p[i];
        if (len > P->pat.rmax) P->pat.rmax = len;
        if (i == 0 || !P->pat.sep[i] || !P->pat.sep[i - 1] || len != Ct->p[i] - Ct->p[i - 1])
            continue;
        size_t a = (size_t)Ct->p[i - 1], b = (size_t)Ct->p[i], k = (size_t)len;
        P->pat.samerow[i] = memcmp(Ct->i + a, Ct->i + b, k * sizeof(int)) == 0
                            && memcmp(Ct->x + a, Ct->x + b, k * sizeof(double)) == 0;
    }
    P->pat.rt = nsc_calloc((size_t)P->pat.rmax + 1, sizeof(double));
    P->pat.runend = nsc_calloc((size_t)P->m + 1, sizeof(int));
    if (!P->pat.rt || !P->pat.runend) return -1;
    const int *sp = P->pat.SeT->p;
    for (int i = P->m - 1, end = P->m, pure = 1; i >= 0;
         i--) { /* backwards: each run's end known */
        pure = (i + 1 < P->m && P->pat.samerow[i + 1] ? pure : 1) && sp[i + 1] == sp[i];
        if (i + 1 < P->m && !P->pat.samerow[i + 1]) end = i + 1;
        P->pat.runend[i] = P->pat.samerow[i] || !P->pat.sep[i] ? 0 : pure ? end : -1;
    }
    P->pat.rsort = nsc_calloc((size_t)P->m + 1, 1);
    if (!P->pat.rsort) return -1;
    const double *e0 = P->L->e0;
    for (int i = 0; i < P->m; i++) { /* e0 nondecreasing along the run; one or two terms */
        int end = P->pat.runend[i], r = Ct->p[i + 1] - Ct->p[i], up = end > 0 && (r == 1 || r == 2);
        for (int j = i + 1; up && j < end; j++) up = e0[j - 1] <= e0[j];
        P->pat.rsort[i] = (char)up;
    }
    return unit_lists(P);
}

/* The incremental check's columns of C by heads (cup, cui): the entries of
 * C whose pair is not samerow. A samerow pair's row of C is its
 * predecessor's, so the pairs reading z_k are the runs of the heads listed
 * for column k, whole. 0, or -1 on ENOMEM. */
static int head_cols(nsc_onestep *P)
{
    const nsc_sparse *C = P->L->C;
    int n = P->n, t = 0;
    P->inc.cup = nsc_calloc((size_t)n + 1, sizeof(int));
    P->inc.cui = nsc_calloc((size_t)C->p[n] + 1, sizeof(int));
    if (!P->inc.cup || !P->inc.cui) return -1;
    for (int k = 0; k < n; k++) {
        P->inc.cup[k] = t;
        for (int q = C->p[k]; q < C->p[k + 1]; q++)
            if (!P->pat.samerow[C->i[q]]) P->inc.cui[t++] = C->i[q];
    }
    P->inc.cup[n] = t;
    return 0;
}

/* wpos (each entry of W in Wb) and hw (the entries of W that nsc_mode_renew
 * refreshes: on E's pattern, which a new h changes, and on the rows of smooth
 * functions, whose tangent Newton writes, onestep_nl.c). 0, or -1 on ENOMEM. */
static int h_entries(nsc_onestep *P)
{
    const nsc_lcs *L = P->L;
    const nsc_sparse *W = P->st.W, *E = P->st.Et ? P->st.Et : L->E;
    int nnz = W->p[P->n];
    char *smrow = nsc_calloc((size_t)P->n + 1, 1);
    P->pat.wpos = nsc_calloc((size_t)nnz + 1, sizeof(int));
    P->pat.hw = nsc_calloc((size_t)nnz + 1, sizeof(int));
    P->pat.hs = nsc_calloc((size_t)nnz + 1, sizeof(int));
    if (!smrow || !P->pat.wpos || !P->pat.hw || !P->pat.hs) {
        free(smrow);
        return -1;
    }
    for (int k = 0; k < L->nsm; k++) smrow[L->sm[k].row] = 1;
    for (int j = 0; j < P->n; j++)
        for (int k = W->p[j]; k < W->p[j + 1]; k++) {
            P->pat.wpos[k] = sp_find(P->pat.Wb, W->i[k], j);
            if (smrow[W->i[k]] || (P->st.h > 0 && sp_find(E, W->i[k], j) >= 0))
                P->pat.hw[P->pat.nhw++] = k;
            if (smrow[W->i[k]]) P->pat.hs[P->pat.nhs++] = k;
        }
    free(smrow);
    return 0;
}

int nsc_mode_setup(nsc_onestep *P)
{
    P->mc.cur = P->mc.lastget = P->inc.mref_slot = -1;
    if (setup_alloc(P) || classify_pairs(P) || row_runs(P) || head_cols(P) || build_wb(P)
        || h_entries(P) || contributors(P) || !(P->pat.share = malloc(sizeof(int))))
        return -1;
    *P->pat.share = 1;
    return 0;
}

/* A copy of n bytes of p (NULL when p is; at least one byte allocated). */
static void *dup_mem(const void *p, size_t n)
{
    void *q = p ? malloc(n ? n : 1) : NULL;
    if (q && n) memcpy(q, p, n);
    return q;
}

/* A copy of the CSC matrix A, or NULL (ENOMEM). */
static nsc_sparse *sp_dup(const nsc_sparse *A)
{
    nsc_sparse *C = malloc(sizeof *C); /* (copies, not zeroed then copied) */
    if (!C) return NULL;
    *C = *A;
    C->p = dup_mem(A->p, sizeof(int) * ((size_t)A->n + 1));
    C->i = dup_mem(A->i, sizeof(int) * (size_t)A->nzmax);
    C->x = dup_mem(A->x, sizeof(double) * (size_t)A->nzmax);
    if (!C->p || !C->i || !C->x) {
        nsc_sp_free(C);
        return NULL;
    }
    return C;
}

int nsc_mode_like(const nsc_onestep *P, const nsc_onestep *S)
{
    const nsc_sparse *W = P->st.W, *V = S ? S->st.W : NULL;
    if (!S || !S->pat.Wb || S->L != P->L || S->n != P->n || S->st.Et || P->st.Et
        || S->st.B != S->L->B || P->st.B != P->L->B || (S->st.h > 0) != (P->st.h > 0) || !W || !V
        || W->p[P->n] != V->p[P->n])
        return 0;
    return !memcmp(W->p, V->p, sizeof(int) * ((size_t)P->n + 1))
           && !memcmp(W->i, V->i, sizeof(int) * (size_t)W->p[P->n]);
}

/* setup_alloc, classify_pairs, row_runs, head_cols, build_wb's pattern, h_entries and
 * contributors of nsc_mode_setup taken from S (nsc_mode_like: they depend on L
 * and W's pattern only): its arrays shared (nsc_os_pat.share), Wb copied (its
 * values are P's), the work arrays fresh. Shared, not copied: the 15-inverter
 * cascade's 80 problems held ~117 kB of copies each (peak heap 20.5 MB ->
 * 11.2 MB, page faults 5 550 -> 3 180, instructions 190.3 M -> 182.9 M). 0, or
 * -1 on ENOMEM. */
static int setup_copy(nsc_onestep *P, const nsc_onestep *S)
{
    nsc_os_pat *t = &P->pat;
    nsc_os_inc *d = &P->inc;
    size_t n = (size_t)P->n, m = (size_t)P->m, npos = (size_t)S->pat.npos;
    *t = S->pat; /* the shared arrays and the counts; the others below */
    d->epair = S->inc.epair;
    d->nepair = S->inc.nepair;
    d->cup = S->inc.cup; /* (head_cols: C's pattern and samerow only) */
    d->cui = S->inc.cui;
    ++*t->share;
    t->Wb = sp_dup(S->pat.Wb);
    t->posn = malloc(sizeof(int) * (m + 1));
    d->zref = nsc_calloc(n + 1, sizeof(double));
    d->zlist = nsc_calloc(n + 1, sizeof(int));
    d->mref = nsc_calloc(m + 1, 1);
    d->dmark = nsc_calloc(m + 1, 1);
    d->ulist = nsc_calloc(m + 1, sizeof(int));
    d->dlist = nsc_calloc(m + 1, sizeof(int));
    d->dval = nsc_calloc(m + 1, sizeof(double));
    t->rt = nsc_calloc((size_t)S->pat.rmax + 1, sizeof(double));
    t->touched = nsc_calloc(npos + 1, 1);
    t->tlist = nsc_calloc(npos + 1, sizeof(int));
    if (!t->Wb || !t->posn || !d->zref || !d->zlist || !d->mref || !d->dmark || !d->ulist
        || !d->dlist || !d->dval || !t->rt || !t->touched || !t->tlist)
        return -1;
    for (size_t j = 0; j <= m; j++) t->posn[j] = -1;
    return 0;
}

int nsc_mode_setup_like(nsc_onestep *P, const nsc_onestep *S)
{
    P->mc.cur = P->mc.lastget = P->inc.mref_slot = -1;
    if (setup_copy(P, S)) return -1;
    const double *wx = P->st.W->x;               /* Wb's values as build_wb sums them: */
    for (int k = 0; k < P->st.W->p[P->n]; k++) { /* W's entry, + 0.0 where stamped */
        int pos = P->pat.wpos[k];
        P->pat.Wb->x[pos] = P->pat.pc[pos + 1] > P->pat.pc[pos] ? wx[k] + 0.0 : wx[k];
    }
    return 0;
}

uint64_t nsc_mode_key(const nsc_onestep *P, const char *mask)
{
    uint64_t key = 0; /* (without a branch per pair) */
    int j = 0, m = P->m;
    for (; j + 8 <= m; j += 8) { /* eight flags at a time: a word of */
        uint64_t u;              /* inactive pairs adds nothing (xor: */
        memcpy(&u, mask + j, 8); /* the same key in any order) */
        if (!u) continue;
        for (int b = j; b < j + 8; b++) key ^= P->pat.pkey[b] & (0 - (uint64_t)(mask[b] != 0));
    }
    for (; j < m; j++) key ^= P->pat.pkey[j] & (0 - (uint64_t)(mask[j] != 0));
    return key;
}

/* Value of position k in the mode of mask, stored into M. */
static void pos_set(const nsc_onestep *P, nsc_mode *M, const char *mask, int k)
{
    int nnzb = P->pat.Wb->p[P->n];
    double v = k < nnzb ? P->pat.Wb->x[k] : 0.0;
    for (int q = P->pat.pc[k]; q < P->pat.pc[k + 1]; q++)
        if (mask[P->pat.cpair[q]]) v += P->pat.ccoef[q];
    if (k < nnzb) {
        int j = P->pat.poscol[k];
        M->K->x[M->K->p[j] + (k - P->pat.Wb->p[j])] = v;
    } else {
        M->c[k - nnzb] = v;
    }
}

/* Every value position of the mode of mask into M. */
static void pos_set_all(const nsc_onestep *P, nsc_mode *M, const char *mask)
{
    for (int k = 0; k < P->pat.npos; k++) pos_set(P, M, mask, k);
}

/* Factor M->K: refactor in place when allowed and good enough, else with pivoting. */
static void mode_factor(nsc_onestep *P, nsc_mode *M, int refactor)
{
    P->mc.nfactor++;
    M->singular = 0;
    M->stale = 0;
    if (M->F) {                                                         /* same symbolic analysis */
        if (nsc_klu_refresh(M->F, M->K, refactor, &M->rc) == 1) return; /* the old pivots hold */
    } else {
        int singular;
        M->F = nsc_klu_factor_in(P->L->syms, M->K, &singular);
        M->rc = M->F ? nsc_klu_rcond(M->F) : 0.0;
    }
    M->singular = !M->F || (!(M->rc >= RCOND_MIN) && !(nsc_klu_rcondest(M->F, M->K) >= RCOND_MIN));
}

/* The sorted run headed by i in mask: the length k of its active prefix when
 * its pairs k.. are all inactive, else NSC_PRE_NONE. */
static unsigned char run_prefix(const nsc_onestep *P, const char *mask, int i)
{
    int end = P->pat.runend[i], j = i, k;
    while (j < end && mask[j]) j++;
    k = j - i;
    while (j < end && !mask[j]) j++;
    return (unsigned char)(j == end && k < NSC_PRE_NONE ? k : NSC_PRE_NONE);
}

/* M->pre for mask (nsc_mode.pre): from base's (a mode whose pre is its mask's,
 * M itself before its mask is rewritten), the runs holding a pair where mask
 * and base's mask differ recomputed; from scratch when base is NULL. flips:
 * those pairs are P->mc.flip's (mode_values' flips), so no scan of the m
 * flags (42 000 on the 1000-stage chain, each refill: 0.44 G of its 20 G);
 * a run listed twice is recomputed twice, to the same prefix. */
static void mode_prefixes(const nsc_onestep *P, nsc_mode *M, const char *mask, const nsc_mode *base,
                          int flips)
{
    int m = P->m;
    if (!base) {
        for (int i = 0; i < m; i++)
            if (P->pat.rsort[i]) {
                M->pre[i] = run_prefix(P, mask, i);
                i = P->pat.runend[i] - 1;
            }
        return;
    }
    if (base != M) memcpy(M->pre, base->pre, (size_t)m);
    for (int f = 0; flips && f < P->mc.nflip; f++) {
        int h = P->mc.flip[f];
        while (P->pat.samerow[h]) h--; /* the run's head */
        if (P->pat.rsort[h]) M->pre[h] = run_prefix(P, mask, h);
    }
    for (int j = flips ? m : nsc_flags_next_diff(mask, base->mask, 0, m); j < m;
         j = nsc_flags_next_diff(mask, base->mask, j + 1, m)) {
        int h = j;
        while (P->pat.samerow[h]) h--; /* the run's head */
        if (!P->pat.rsort[h]) continue;
        M->pre[h] = run_prefix(P, mask, h);
        j = P->pat.runend[h] - 1; /* (the run done) */
    }
}

/* M->K, the pattern of M's system [Wb -B_Na; C_Na D_NaNa] (K's values of Wb's
 * positions 0, to be set), for M's N-active pairs M->actn, whose positions
 * P->pat.posn holds. 0 ok, -1 ENOMEM. */
static int mode_pattern(nsc_onestep *P, nsc_mode *M)
{
    int n = P->n;
    const nsc_sparse *Wb = P->pat.Wb, *B = P->st.B, *C = P->L->C, *D = P->st.D;
    int N = n + M->nan, nnz = Wb->p[n];
    for (int j = 0; j < n && M->nan > 0; j++) /* (no N-active pair: C_Na is empty) */
        for (int k = C->p[j]; k < C->p[j + 1]; k++) nnz += P->pat.posn[C->i[k]] >= 0;
    for (int a = 0; a < M->nan; a++) {
        int j = M->actn[a];
        nnz += B->p[j + 1] - B->p[j] + 1;
        for (int k = D->p[j]; k < D->p[j + 1]; k++) nnz += P->pat.posn[D->i[k]] >= 0;
    }
    M->K = nsc_sp_new(N, N, nnz, 0);
    if (!M->K) return -1;
    int *Kp = M->K->p, *Ki = M->K->i, t = 0;
    double *Kx = M->K->x;
    for (int j = 0; j < n; j++) { /* [Wb; C_Na] */
        Kp[j] = t;
        for (int k = Wb->p[j]; k < Wb->p[j + 1]; k++) {
            Ki[t] = Wb->i[k];
            Kx[t++] = 0;
        }
        for (int k = C->p[j]; k < C->p[j + 1] && M->nan > 0; k++)
            if (P->pat.posn[C->i[k]] >= 0) {
                Ki[t] = n + P->pat.posn[C->i[k]];
                Kx[t++] = C->x[k];
            }
    }
    for (int a = 0; a < M->nan; a++) { /* [-B_Na; D_NaNa] */
        int j = M->actn[a], diag = 0;
        Kp[n + a] = t;
        for (int k = B->p[j]; k < B->p[j + 1]; k++) {
            Ki[t] = B->i[k];
            Kx[t++] = -B->x[k];
        }
        for (int k = D->p[j]; k < D->p[j + 1]; k++) {
            int r = P->pat.posn[D->i[k]];
            if (r < 0) continue;
            if (!diag && r >= a) {
                diag = 1;
                if (r > a) {
                    Ki[t] = n + a;
                    Kx[t++] = 0;
                } /* keep the diagonal in the pattern */
            }
            Ki[t] = n + r;
            Kx[t++] = D->x[k];
        }
        if (!diag) {
            Ki[t] = n + a;
            Kx[t++] = 0;
        }
    }
    Kp[N] = t;
    return 0;
}

/* Build slot M for mask from scratch. 0 ok, -1 ENOMEM (M cleared). */
static int mode_build(nsc_onestep *P, nsc_mode *M, const char *mask, uint64_t key)
{
    int n = P->n, m = P->m;
    if (P->inc.mref_slot == (int)(M - P->mc.modes))
        P->inc.mref_slot = -1; /* (its mask is rewritten) */
    mode_clear(M);
    M->mask = malloc((size_t)m + 1);
    M->pre = malloc((size_t)m + 1);
    M->actn = nsc_calloc((size_t)P->pat.nn + 1, sizeof(int));
    M->c = nsc_calloc((size_t)n + 1, sizeof(double));
    if (!M->mask || !M->pre || !M->actn || !M->c) goto fail;
    memcpy(M->mask, mask, (size_t)m);
    M->key = key;
    for (int q = 0; q < P->pat.nn; q++) {
        int j = P->pat.nlist[q];
        if (mask[j]) {
            P->pat.posn[j] = M->nan;
            M->actn[M->nan++] = j;
        }
    }
    if (mode_pattern(P, M)) goto fail;
    for (int a = 0; a < M->nan; a++) P->pat.posn[M->actn[a]] = -1;
    const nsc_mode *src = nearest(P, M, mask, m);
    if (src) mode_values(P, M, mask, src, 0); /* K's pattern is src's */
    else pos_set_all(P, M, mask);
    mode_prefixes(P, M, mask, src, 0);
    mode_factor(P, M, 0);
    return 0;
fail:
    for (int a = 0; M->actn && a < M->nan; a++) P->pat.posn[M->actn[a]] = -1;
    mode_clear(M);
    return -1;
}

/* 1 when the N-active set of mask is M's (same pattern). */
static int same_n(const nsc_onestep *P, const nsc_mode *M, const char *mask)
{
    if (!M->K) return 0;
    int a = 0;
    for (int q = 0; q < P->pat.nn; q++) {
        int j = P->pat.nlist[q];
        if (!mask[j]) continue;
        if (a >= M->nan || M->actn[a] != j) return 0;
        a++;
    }
    return a == M->nan;
}

/* Positions of stale mode M (renewed since it was filled) into tlist: those
 * of the entries of W a new h changes, or after a relinearisation only
 * (NSC_STALE_SMOOTH) those of the smooth rows. Returns their count nt. */
static int stale_positions(nsc_onestep *P, const nsc_mode *M, int nt)
{
    const int *list = M->stale == NSC_STALE_SMOOTH ? P->pat.hs : P->pat.hw;
    int nl = M->stale == NSC_STALE_SMOOTH ? P->pat.nhs : P->pat.nhw;
    for (int q = 0; q < nl; q++) {
        int k = P->pat.wpos[list[q]];
        if (!P->pat.touched[k]) {
            P->pat.touched[k] = 1;
            P->pat.tlist[nt++] = k;
        }
    }
    return nt;
}

/* The bits set in x (SWAR: libgcc's __popcountdi2 is a call without -mpopcnt). */
static inline int popcount64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555u);
    x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
    return (int)((x * 0x0101010101010101u) >> 56);
}

/* The number of pairs where the 0/1 flags a and b differ, counted eight at a
 * time (the bits of a ^ b) until it reaches lim: exact when below lim. */
static int ndiff(const char *a, const char *b, int m, int lim)
{
    int d = 0, j = 0;
    for (; j + 8 <= m && d < lim; j += 8) {
        uint64_t u, v;
        memcpy(&u, a + j, 8);
        memcpy(&v, b + j, 8);
        if (u != v) d += popcount64(u ^ v); /* (most words are equal) */
    }
    for (; j < m && d < lim; j++) d += a[j] != b[j];
    return d;
}

/* The mode nsc_mode_get returned last (the active-set iteration's last mode
 * tried: its update differs from it in the flipped pairs only), when it is not
 * M, has fresh values (not stale) and mask's N-active set (so K's pattern is
 * M's); NULL otherwise. */
static const nsc_mode *near_cand(const nsc_onestep *P, const nsc_mode *M, const char *mask)
{
    const nsc_mode *S = P->mc.lastget >= 0 ? &P->mc.modes[P->mc.lastget] : NULL;
    return !S || !S->mask || S == M || S->stale || !same_n(P, S, mask) ? NULL : S;
}

/* near_cand when it differs from mask in fewer than lim pairs, else NULL. */
static const nsc_mode *nearest(const nsc_onestep *P, const nsc_mode *M, const char *mask, int lim)
{
    const nsc_mode *S = near_cand(P, M, mask);
    return S && ndiff(mask, S->mask, P->m, lim) < lim ? S : NULL;
}

/* M's values for mask from those of base (a mode of the same pattern: M itself,
 * or src whose values are copied first): the positions of the pairs where mask
 * and base differ are recomputed (and of W's refreshed entries when M is stale
 * and base is its own). A position's value is a function of Wb and the mask
 * (pos_set), so this gives a fresh build's values bit for bit. */
static int pair_positions(nsc_onestep *P, int j, int nt)
{
    for (int q = P->pat.pp[j]; q < P->pat.pp[j + 1]; q++) {
        int k = P->pat.ppos[q];
        if (!P->pat.touched[k]) {
            P->pat.touched[k] = 1;
            P->pat.tlist[nt++] = k;
        }
    }
    return nt;
}

/* (flips: src's mask and mask differ exactly in the pairs P->mc.flip lists,
 * mode_refill's test; no scan of the m flags) */
static void mode_values(nsc_onestep *P, nsc_mode *M, const char *mask, const nsc_mode *src,
                        int flips)
{
    int m = P->m, nt = 0;
    const char *base = M->mask;
    if (src) {
        memcpy(M->K->x, src->K->x, sizeof(double) * (size_t)M->K->p[M->K->n]);
        memcpy(M->c, src->c, sizeof(double) * (size_t)P->n);
        base = src->mask;
    } else if (M->stale) {
        nt = stale_positions(P, M, 0);
    }
    if (src && flips)
        for (int f = 0; f < P->mc.nflip; f++) nt = pair_positions(P, P->mc.flip[f], nt);
    else
        for (int j = nsc_flags_next_diff(mask, base, 0, m); j < m;
             j = nsc_flags_next_diff(mask, base, j + 1, m))
            nt = pair_positions(P, j, nt);
    for (int q = 0; q < nt; q++) {
        pos_set(P, M, mask, P->pat.tlist[q]);
        P->pat.touched[P->pat.tlist[q]] = 0;
    }
}

/* Slot M (same N-active set) refilled for mask: the positions of the pairs that
 * changed are recomputed (and of W's h-dependent entries when M is stale), then
 * refactored in place. A position's value is a function of Wb and the mask
 * (pos_set), so recomputing those whose inputs changed gives a fresh build's. */
static void mode_refill(nsc_onestep *P, nsc_mode *M, const char *mask, uint64_t key)
{
    /* from near_cand S when it differs from mask in fewer pairs than M (stale: m);
     * S's distance first (usually a few flips: its scan skips equal words), then
     * M's counted only up to it */
    int m = P->m;
    const nsc_mode *S = near_cand(P, M, mask);
    int flips = S && mask == P->mc.flipfor && P->mc.nflip >= 0 && S == &P->mc.modes[P->mc.flipslot];
    int ds = flips ? P->mc.nflip : S ? ndiff(mask, S->mask, m, m) : m; /* (flips: ndiff's count) */
    if (ds >= m || (!M->stale && ndiff(mask, M->mask, m, ds + 1) <= ds)) S = NULL;
    mode_values(P, M, mask, S, flips);
    if (P->inc.mref_slot == (int)(M - P->mc.modes)) P->inc.mref_slot = -1;
    mode_prefixes(P, M, mask, S ? S : M, S && flips); /* (before M's mask is rewritten) */
    memcpy(M->mask, mask, (size_t)m);
    M->key = key;
    free(M->G);
    M->G = NULL;
    M->hits = 0;
    M->nomap = 0;
    mode_factor(P, M, 1);
}

/* The cache slots in use: NSC_MODE_CACHE for a small pattern, else NSC_MODE_CACHE_BIG. */
static int mode_cap(const nsc_onestep *P)
{
    return P->pat.npos <= NSC_MODE_SMALL ? NSC_MODE_CACHE : NSC_MODE_CACHE_BIG;
}

/* (a cached mode's key without the O(m) hash: the step's guess, the mode at t,
 * is usually cached; memcmp stops at the first differing word; a cache of
 * NSC_MODE_CACHE slots is a small problem's, whose hash is cheaper than as many
 * comparisons) */
nsc_mode *nsc_mode_get(nsc_onestep *P, const char *mask)
{
    int cap = mode_cap(P);
    for (int k = 0; cap <= NSC_MODE_CACHE_BIG && k < cap; k++) {
        const nsc_mode *M = &P->mc.modes[k];
        if (M->mask && memcmp(M->mask, mask, (size_t)P->m) == 0)
            return nsc_mode_get_key(P, mask, M->key);
    }
    return nsc_mode_get_key(P, mask, nsc_mode_key(P, mask));
}

/* A problem with smooth functions: the least recently used stale slot of
 * mask's N-active set (-1: none), to be refilled rather than a mode built in
 * an empty slot. Each relinearisation makes every cached mode stale, so a
 * slot is refactored before its next use anyway; a refill recomputes the
 * positions that changed and refactors on the slot's pivots (KLU's refactor),
 * a build forms every position and factors with pivoting (the chain of
 * tests/data/meyer: 0.12 M instructions a build, 0.04 M a refill). */
static int stale_slot(const nsc_onestep *P, const char *mask, int cap)
{
    int slot = -1;
    for (int k = 0; k < cap; k++) {
        const nsc_mode *M = &P->mc.modes[k];
        if (M->mask && M->stale && (slot < 0 || M->last_use < P->mc.modes[slot].last_use)
            && same_n(P, M, mask))
            slot = k;
    }
    return slot;
}

nsc_mode *nsc_mode_get_key(nsc_onestep *P, const char *mask, uint64_t key)
{
    int m = P->m;
    P->mc.clock++;
    int cap = mode_cap(P);
    for (int k = 0; k < cap; k++) {
        nsc_mode *M = &P->mc.modes[k];
        if (M->mask && M->key == key && memcmp(M->mask, mask, (size_t)m) == 0) {
            M->last_use = P->mc.clock;
            P->mc.lastget = k;
            if (M->stale) { /* renewed: the new h's values */
                int nt = stale_positions(P, M, 0);
                for (int q = 0; q < nt; q++) {
                    pos_set(P, M, mask, P->pat.tlist[q]);
                    P->pat.touched[P->pat.tlist[q]] = 0;
                }
                mode_factor(P, M, 1);
            } else P->mc.ncached++;
            return M;
        }
    }
    int slot = P->L->nsm > 0 ? stale_slot(P, mask, cap) : -1;
    for (int k = 0; k < cap && slot < 0; k++)
        if (!P->mc.modes[k].mask) slot = k;
    if (slot < 0) {
        slot = 0;
        for (int k = 1; k < cap; k++)
            if (P->mc.modes[k].last_use < P->mc.modes[slot].last_use) slot = k;
    }
    nsc_mode *M = &P->mc.modes[slot];
    if (P->mc.cur == slot) P->mc.cur = -1;
    if (M->mask && same_n(P, M, mask)) {
        mode_refill(P, M, mask, key);
    } else {
        if (!M->mask) P->mc.nmodes++;
        if (mode_build(P, M, mask, key)) {
            P->mc.nmodes--;
            P->mc.lastget = -1;
            return NULL;
        }
    }
    M->last_use = P->mc.clock;
    P->mc.lastget = slot;
    return M;
}

void nsc_mode_rhs(const nsc_onestep *P, const nsc_mode *M, double *x)
{
    int n = P->n;
    const nsc_sparse *B = P->st.B;
    memcpy(x, P->st.r, (size_t)n * sizeof(double));
    if (P->st.e1) { /* e given: sum over the active S pairs */
        for (int j = 0; j < P->m; j++) {
            if (!M->mask[j] || !P->pat.sep[j]) continue;
            double t = P->st.e1[j] * P->pat.dinv[j];
            for (int k = B->p[j]; k < B->p[j + 1]; k++)
                x[B->i[k]] -= B->x[k] * t; /* x -= B_j e_j / D_jj */
        }
    } else {
        for (int i = 0; i < n; i++) x[i] -= M->c[i]; /* x = r - sum B_j e0_j / D_jj */
        for (int q = 0; q < P->pat.nsep_e; q++) {    /* the source part of e_j (and ez_j) */
            int j = P->pat.sep_e[q];
            if (!M->mask[j]) continue;
            double t = (nsc_pair_e(P, j) - P->L->e0[j]) * P->pat.dinv[j];
            for (int k = B->p[j]; k < B->p[j + 1]; k++) x[B->i[k]] -= B->x[k] * t;
        }
    }
    for (int a = 0; a < M->nan; a++) x[n + a] = -nsc_pair_e(P, M->actn[a]);
}

/* Check pair i of mode M (mask) at the solution x (lt: l of the N-active pairs,
 * ltol their tolerance): returns 1 when violated; *li = l_i, *vi = its violation
 * (inactive: max(0, -y_i)). */
static inline int pair_check(const nsc_onestep *P, const char *mask, int i, const double *x,
                             const double *lt, double ltol, double *li, double *vi)
{
    *vi = 0;
    if (mask[i] && !P->pat.sep[i]) { /* N active: l_i >= 0 */
        *li = lt[i] > 0 ? lt[i] : 0.0;
        return lt[i] < -ltol;
    }
    const nsc_sparse *Ct = P->pat.Ct;
    double g = nsc_pair_e(P, i), gs = fabs(g); /* g = C_i z + e_i (+ D_i l_Na) */
    for (int k = Ct->p[i]; k < Ct->p[i + 1]; k++) {
        double t = Ct->x[k] * x[Ct->i[k]];
        g += t;
        gs += fabs(t);
    }
    if (!P->pat.sep[i]) {
        const nsc_sparse *Dt = P->pat.Dt;
        for (int k = Dt->p[i]; k < Dt->p[i + 1]; k++) {
            double t = Dt->x[k] * lt[Dt->i[k]];
            g += t;
            gs += fabs(t);
        }
    }
    if (mask[i]) { /* S active: l_i = -g / D_ii >= 0 */
        double v = -g * P->pat.dinv[i];
        *li = v > 0 ? v : 0.0;
        return g > NSC_MODE_TOL * (gs + P->mc.gfloor);
    }
    *li = 0; /* inactive: y_i = g >= 0 */
    if (g < 0) *vi = -g;
    return g < -NSC_MODE_TOL * (gs + P->mc.gfloor);
}

/* The tolerance test of a separable pair whose g = e + sum t_k has a
 * violation's sign: |e| + sum |t_k| (t_k = rt[k]) as pair_check sums gs. */
static int sep_violated(const nsc_onestep *P, int active, double e, double g, int r)
{
    const double *t = P->pat.rt;
    double gs = fabs(e) + P->mc.gfloor;
    for (int k = 0; k < r; k++) gs += fabs(t[k]);
    return active ? g > NSC_MODE_TOL * gs : g < -NSC_MODE_TOL * gs;
}

/* pair_check for a separable pair i (e = e_i) whose row's terms t_k = C_ik z_k are
 * rt[0..r-1]: the same sums in the same order (bit for
 * bit pair_check's g, gs, verdict and l_i), |terms| summed only when g has a
 * violation's sign (no violation is possible otherwise: gs >= 0). *vi is
 * set when positive only (the caller's 0 otherwise). */
__attribute__((always_inline)) static inline int sep_check(const nsc_onestep *P, int active, int i,
                                                           double e, int r, double *li, double *vi)
{
    const double *t = P->pat.rt;
    double g = e;
    if (r == 2) g = e + t[0] + t[1]; /* g = e_i + C_i z, left to right */
    else
        for (int k = 0; k < r; k++) g += t[k];
    if (active) { /* l_i = -g / D_ii >= 0 */
        double v = -g * P->pat.dinv[i];
        *li = v > 0 ? v : 0.0;
        return g > 0 && sep_violated(P, 1, e, g, r);
    }
    *li = 0; /* y_i = g >= 0 */
    if (!(g < 0)) return 0;
    *vi = -g;
    return sep_violated(P, 0, e, g, r);
}

/* A sorted run (rsort: e0 nondecreasing along it, so g_i = (e0_i + t0) + t1 is
 * too: each rounding is monotone) from i0 to end with r = 1 or 2 terms, e_i =
 * e0_i, whose active pairs are its first k (M->pre), checked at its boundary:
 * when g_{k-1} <= 0 <= g_k every active g is <= 0 and every inactive g >= 0,
 * so no pair has a violation's sign: no violation (*viol, the key and ok
 * unchanged), next = mask (check_all copied it). 1 when so (run_l then writes
 * its l), 0 otherwise. */
__attribute__((always_inline)) static inline int run_sorted(const nsc_onestep *P, int i0, int end,
                                                            int k, int r, double t0, double t1)
{
    const double *e0 = P->L->e0;
    int ik = i0 + k;
    if (k > 0 && (r == 2 ? e0[ik - 1] + t0 + t1 : e0[ik - 1] + t0) > 0)
        return 0; /* the prefix's largest g */
    if (ik < end && (r == 2 ? e0[ik] + t0 + t1 : e0[ik] + t0) < 0)
        return 0; /* the suffix's smallest g */
    return 1;
}

/* The l of a sorted run that run_sorted passed: l_i = max(0, -g_i / D_ii) on
 * the whole run -- what check_run_r's pair-by-pair loop writes, bit for bit:
 * on the prefix its active l_i; after it g_i >= 0 (or NaN) and D_ii > 0
 * (separable), so -g_i / D_ii is <= 0, -0 or NaN and l_i = +0, its inactive
 * l_i (one loop, no call to memset for a few pairs). With SSE2 two pairs at
 * a time: the same roundings lane by lane ((e0_i + t0) + t1, (-g_i) dinv_i),
 * and MAXPD(v, 0) is v > 0 ? v : 0 (its second operand when v is NaN or 0). */
__attribute__((always_inline)) static inline void run_l(const nsc_onestep *P, int i0, int end,
                                                        int r, double t0, double t1, double *l)
{
    const double *e0 = P->L->e0, *dinv = P->pat.dinv;
    int i = i0;
#ifdef __SSE2__
    const __m128d v0 = _mm_set1_pd(t0), v1 = _mm_set1_pd(t1), zero = _mm_setzero_pd();
    const __m128d sign = _mm_set1_pd(-0.0);
    for (; i + 2 <= end; i += 2) {
        __m128d g = _mm_add_pd(_mm_loadu_pd(e0 + i), v0);
        if (r == 2) g = _mm_add_pd(g, v1);
        __m128d v = _mm_mul_pd(_mm_xor_pd(g, sign), _mm_loadu_pd(dinv + i));
        _mm_storeu_pd(l + i, _mm_max_pd(v, zero));
    }
#endif
    for (; i < end; i++) {
        double g = r == 2 ? e0[i] + t0 + t1 : e0[i] + t0;
        double v = -g * dinv[i];
        l[i] = v > 0 ? v : 0.0;
    }
}

/* check_run for the common run (a PWL MOS's segments): r = 1 or 2 terms in its
 * row (rt[0], rt[1]), e_i = e0_i (no source term; + ez_i when ez, pairs held
 * at the theta point, as nsc_pair_e sums it), next wanted; sep_check's sums,
 * verdicts and l_i bit for bit, without its per-pair tests of the case. */
__attribute__((always_inline)) static inline int check_run_r(const nsc_onestep *P, const char *mask,
                                                             int i0, int r, const double *ez,
                                                             double *l, char *next, double *viol,
                                                             uint64_t *kx, int *ok)
{
    const double *e0 = P->L->e0, *dinv = P->pat.dinv;
    const double t0 = P->pat.rt[0], t1 = r == 2 ? P->pat.rt[1] : 0.0;
    int end = P->pat.runend[i0];
    for (int i = i0; i < end; i++) {
        double e = ez ? e0[i] + ez[i] : e0[i];
        double g = r == 2 ? e + t0 + t1 : e + t0; /* g = e_i + C_i z, left to right */
        int act = mask[i] != 0, bad;
        if (act) { /* l_i = -g / D_ii >= 0 */
            double v = -g * dinv[i];
            l[i] = v > 0 ? v : 0.0;
            bad = g > 0 && sep_violated(P, 1, e, g, r);
        } else { /* y_i = g >= 0 */
            l[i] = 0;
            bad = 0;
            if (g < 0) {
                if (-g > *viol) *viol = -g;
                bad = sep_violated(P, 0, e, g, r);
            }
        }
        next[i] = (char)(act ^ bad);
        if (bad) {
            *ok = 0;
            *kx ^= P->pat.pkey[i];
        }
    }
    return end;
}

static int check_run2(const nsc_onestep *P, const char *mask, int i0, double *l, char *next,
                      double *viol, uint64_t *kx, int *ok)
{
    return check_run_r(P, mask, i0, 2, NULL, l, next, viol, kx, ok);
}

static int check_run1(const nsc_onestep *P, const char *mask, int i0, double *l, char *next,
                      double *viol, uint64_t *kx, int *ok)
{
    return check_run_r(P, mask, i0, 1, NULL, l, next, viol, kx, ok);
}

/* The same with the pairs held at the theta point (e_i = e0_i + ez_i). */
static int check_run_k(const nsc_onestep *P, const char *mask, int i0, int r, double *l, char *next,
                       double *viol, uint64_t *kx, int *ok)
{
    return r == 2 ? check_run_r(P, mask, i0, 2, P->st.ez, l, next, viol, kx, ok)
                  : check_run_r(P, mask, i0, 1, P->st.ez, l, next, viol, kx, ok);
}

/* The full check of the run of separable pairs from i0 (one row of C, its
 * terms in rt, r of them) to its end: sep_check pair by pair in a tight loop,
 * l, next, *viol and the key flips *kx as check_all writes them; *ok = 0
 * when a pair is violated. Returns the run's end. */
static int check_run(const nsc_onestep *P, const char *mask, int i0, int r, double *l, char *next,
                     double *viol, uint64_t *kx, int *ok)
{
    const double *e1 = P->st.e1, *e0 = P->L->e0;
    const int *sp = P->pat.SeT->p;
    if (!e1 && next && (r == 1 || r == 2)
        && P->pat.runend[i0] > 0) /* (kap: e_i has a z0 term, ez_i) */
        return P->st.kap ? check_run_k(P, mask, i0, r, l, next, viol, kx, ok)
               : r == 2  ? check_run2(P, mask, i0, l, next, viol, kx, ok)
                         : check_run1(P, mask, i0, l, next, viol, kx, ok);
    int i = i0;
    do {
        double vi = 0, e = e1 ? e1[i] : sp[i + 1] == sp[i] && !P->st.kap ? e0[i] : nsc_pair_e(P, i);
        int bad = sep_check(P, mask[i], i, e, r, &l[i], &vi);
        if (vi > *viol) *viol = vi;
        if (next) next[i] = (char)((mask[i] != 0) ^ bad);
        if (bad) {
            *ok = 0;
            *kx ^= P->pat.pkey[i];
        }
    } while (++i < P->m && P->pat.samerow[i]);
    return i;
}

/* Row i's terms t_k = C_ik z_k into rt; returns their number. */
static int row_terms(nsc_onestep *P, int i, const double *x)
{
    const nsc_sparse *Ct = P->pat.Ct;
    double *t = P->pat.rt;
    int r = 0;
    for (int k = Ct->p[i]; k < Ct->p[i + 1]; k++, r++) t[r] = Ct->x[k] * x[Ct->i[k]];
    return r;
}

/* The unit of the full check headed by i (a run of separable pairs, or one
 * pair): its pairs' l, next (if not NULL), violation and key flips. Returns
 * the unit's end. */
static int check_unit(nsc_onestep *P, const char *mask, int i, const double *x, double ltol,
                      double *l, char *next, double *viol, uint64_t *kx, int *ok)
{
    if (P->pat.sep[i])
        return check_run(P, mask, i, row_terms(P, i, x), l, next, viol, kx, ok); /* the whole run */
    double vi;
    int bad = pair_check(P, mask, i, x, P->mc.lt, ltol, &l[i], &vi);
    if (vi > *viol) *viol = vi;
    *ok &= !bad;
    if (next) next[i] = (char)((mask[i] != 0) ^ bad);
    if (bad) *kx ^= P->pat.pkey[i];
    return i + 1;
}

/* The full check of mode mask at x, pair by pair as pair_check, a run of
 * separable pairs sharing a row of C (samerow: a PWL device's segments)
 * forming that row's terms once: l[m], next[m] (if not NULL), P->mc.nkey made
 * next's key, *viol the largest violation. 1 when none is violated. With e =
 * e0 (no e1, no pairs held at the theta point) the units are taken from the
 * lists (each pair's results are its own, the violation a maximum, the key a
 * xor: any order gives the same): a sorted run first at the boundary of its
 * active prefix (run_sorted, when M->pre has one), its terms from srun; the
 * runs it passes (listed in P->inc.ulist, free outside check_inc) get their l
 * (run_l) only when no pair of the mode is violated: a rejected mode's l is
 * not read (the next try writes it, or the step is retried), and the first
 * try of a step is rejected for ~40 % of the cascade's steps. */
static int check_all(nsc_onestep *P, const nsc_mode *M, const double *x, double ltol, double *l,
                     char *next, double *viol)
{
    const char *mask = M->mask;
    int ok = 1;
    uint64_t kx = 0; /* next's key = mask's ^ the flipped pairs' */
    if (P->st.e1 || P->st.kap || !next) {
        for (int i = 0; i < P->m;) i = check_unit(P, mask, i, x, ltol, l, next, viol, &kx, &ok);
        P->mc.nkey ^= kx;
        return ok;
    }
    memcpy(next, mask, (size_t)P->m); /* (every other path writes its pairs') */
    int *pass = P->inc.ulist, np = 0;
    for (int u = 0; u < P->pat.nsrun; u++) {
        const nsc_srun *s = &P->pat.srun[u];
        int pk = M->pre[s->i0]; /* (every srun is rsort: unit_lists) */
        if (pk != NSC_PRE_NONE) {
            double t0 = s->c0 * x[s->k0]; /* row_terms' products */
            if (s->r == 1 ? run_sorted(P, s->i0, s->end, pk, 1, t0, 0.0)
                          : run_sorted(P, s->i0, s->end, pk, 2, t0, s->c1 * x[s->k1])) {
                pass[np++] = u;
                continue;
            }
        }
        check_unit(P, mask, s->i0, x, ltol, l, next, viol, &kx, &ok);
    }
    for (int u = 0; u < P->pat.nother; u++)
        check_unit(P, mask, P->pat.other[u], x, ltol, l, next, viol, &kx, &ok);
    P->mc.nkey ^= kx;
    for (int q = 0; ok && q < np; q++) {
        const nsc_srun *s = &P->pat.srun[pass[q]];
        double t0 = s->c0 * x[s->k0];
        if (s->r == 1) run_l(P, s->i0, s->end, 1, t0, 0.0, l);
        else run_l(P, s->i0, s->end, 2, t0, s->c1 * x[s->k1], l);
    }
    return ok;
}

/* One evaluated pair of the incremental check into dlist/dval: l_i, or -1
 * when violated (then *ok = 0). */
static inline void inc_put(nsc_onestep *P, int i, int bad, double li, int *ok)
{
    P->inc.dlist[P->inc.nd] = i;
    P->inc.dval[P->inc.nd++] = bad ? -1 : li;
    if (bad) *ok = 0;
}

/* The incremental check of the run of separable pairs headed by i0 (one row
 * of C, its terms r = row_terms): each pair as check_list evaluates it
 * (sep_check at e_i = nsc_pair_e), in check_run_r's tight loop when e_i = e0_i
 * (+ ez_i) (its sums and verdicts bit for bit sep_check's). There a pair
 * inactive in mask and in mref and not violated is left out of dlist: its l_i
 * is 0 and was 0 (check_inc's premise: l holds the last accepted l, and an
 * accepted inactive pair's is 0), so the accepted check writes nothing for it
 * and the callers' changed list (peak multipliers) is shorter: most of a PWL
 * MOS's 21 segments are off (the 1000-stage chain: ~6 000 pairs listed a step). */
static void inc_run(nsc_onestep *P, const char *mask, int i0, int r, double *viol, int *ok)
{
    const double *e0 = P->L->e0, *dinv = P->pat.dinv, *ez = P->st.kap ? P->st.ez : NULL;
    int end = P->pat.runend[i0], i = i0;
    if (P->st.e1 || end <= 0 || (r != 1 && r != 2)) {
        do {
            double li, vi = 0;
            int bad = sep_check(P, mask[i], i, nsc_pair_e(P, i), r, &li, &vi);
            if (vi > *viol) *viol = vi;
            inc_put(P, i, bad, li, ok);
        } while (++i < P->m && P->pat.samerow[i]);
        return;
    }
    const double t0 = P->pat.rt[0], t1 = r == 2 ? P->pat.rt[1] : 0.0;
    const char *mref = P->inc.mref;
    for (; i < end; i++) {
        double e = ez ? e0[i] + ez[i] : e0[i], li = 0;
        double g = r == 2 ? e + t0 + t1 : e + t0; /* g = e_i + C_i z, left to right */
        int bad = 0;
        if (mask[i]) { /* l_i = -g / D_ii >= 0 */
            double v = -g * dinv[i];
            li = v > 0 ? v : 0.0;
            bad = g > 0 && sep_violated(P, 1, e, g, r);
        } else if (g < 0) { /* y_i = g >= 0 */
            if (-g > *viol) *viol = -g;
            bad = sep_violated(P, 0, e, g, r);
        }
        if (!bad && !mask[i] && !mref[i]) continue; /* l_i = 0 before and after, mref_i kept */
        inc_put(P, i, bad, li, ok);
    }
}

/* The incremental check's marked heads ulist[0..nu-1] evaluated, each a
 * whole run of separable pairs (inc_run, its row's terms formed once) or one
 * pair (pair_check), into dlist[0..nd-1] (the pairs) and dval[] (l_i, or -1
 * when violated); *viol the largest violation. 1 when none is violated. */
static int check_list(nsc_onestep *P, const char *mask, const double *x, double ltol, double *viol)
{
    int ok = 1;
    P->inc.nd = 0;
    for (int u = 0; u < P->inc.nu; u++) {
        int i = P->inc.ulist[u];
        if (P->pat.sep[i]) {
            inc_run(P, mask, i, row_terms(P, i, x), viol, &ok);
            continue;
        }
        double li, vi = 0;
        int bad = pair_check(P, mask, i, x, P->mc.lt, ltol, &li, &vi);
        if (vi > *viol) *viol = vi;
        inc_put(P, i, bad, li, &ok);
    }
    return ok;
}

/* The cache slot of M, -1 when M is not one of P's. */
static int mode_slot(const nsc_onestep *P, const nsc_mode *M)
{
    for (int k = 0; k < NSC_MODE_CACHE; k++)
        if (M == &P->mc.modes[k]) return k;
    return -1;
}

/* Mark the head of pair i (i itself, or the first pair of its run of
 * separable pairs sharing a row) for the incremental check. */
static inline void dirty(nsc_onestep *P, int i)
{
    while (P->pat.samerow[i]) i--;
    if (!P->inc.dmark[i]) {
        P->inc.dmark[i] = 1;
        P->inc.ulist[P->inc.nu++] = i;
    }
}

/* The incremental check (P->inc.ok): a pair whose status, e and entries of z
 * (the columns of its row of C) are bitwise those of the last accepted check
 * has the same verdict and l_i, so only the others are evaluated; l holds the
 * last accepted l. N pairs and pairs with source-dependent e are always evaluated.
 * The unit marked is a run of separable pairs sharing a row (a PWL device's
 * segments: they read the same z), evaluated whole (evaluating a pair whose
 * inputs did not change gives its last verdict and l_i again).
 * mref is the mask of the mode last accepted (its pairs that changed status
 * were marked, and take mask's): when M is that slot, unchanged since
 * (mref_slot), no pair changed status and the O(m) comparison is skipped (a
 * step solved in the previous mode costs what its solution changed). */
static int check_inc(nsc_onestep *P, const nsc_mode *M, const double *x, double ltol, double *l,
                     double *res, char *next)
{
    int m = P->m, slot = mode_slot(P, M);
    const char *mask = M->mask;
    const int *cup = P->inc.cup, *cui = P->inc.cui;
    P->inc.nu = 0;
    for (int i = slot >= 0 && slot == P->inc.mref_slot
                     ? m
                     : nsc_flags_next_diff(mask, P->inc.mref, 0, m);
         i < m; i = nsc_flags_next_diff(mask, P->inc.mref, i + 1, m))
        dirty(P, i);                      /* the pairs whose status changed */
    for (int c = 0; c < P->inc.nz; c++) { /* z_k changed: the runs reading it */
        int k = P->inc.zlist[c];
        for (int q = cup[k]; q < cup[k + 1]; q++) dirty(P, cui[q]);
    }
    for (int q = 0; q < P->pat.nn; q++) dirty(P, P->pat.nlist[q]);
    for (int q = 0; q < P->inc.nepair; q++) dirty(P, P->inc.epair[q]);
    double viol = 0;
    int ok = check_list(P, mask, x, ltol, &viol);
    for (int u = 0; u < P->inc.nu; u++) P->inc.dmark[P->inc.ulist[u]] = 0;
    if (!ok) {
        if (next) {
            memcpy(next, mask, (size_t)m);
            P->mc.nflip = 0; /* (each pair listed once) */
            P->mc.flipslot = slot;
            for (int d = 0; d < P->inc.nd; d++)
                if (P->inc.dval[d] < 0) {
                    int i = P->inc.dlist[d];
                    next[i] = (char)!mask[i];
                    P->mc.nkey ^= P->pat.pkey[i];
                    P->mc.flip[P->mc.nflip++] = i;
                }
            if (slot < 0) P->mc.nflip = -1;
        }
        return 0;
    }
    for (int d = 0; d < P->inc.nd; d++) {
        int i = P->inc.dlist[d];
        l[i] = P->inc.dval[d];
        P->inc.mref[i] = mask[i];
    }
    P->inc.mref_slot = slot;
    for (int c = 0; c < P->inc.nz; c++) { /* zref = x: they differ at zlist only (changed_z) */
        int k = P->inc.zlist[c];
        P->inc.zref[k] = x[k];
    }
    *res = viol;
    return 1;
}

/* The k with z_k != zref_k into zlist[0..nz-1] for the incremental check;
 * 0 (the list left unfinished) as soon as the entries of C in their columns
 * (each marks the pairs reading z_k) number m/2: the incremental check would
 * evaluate about half the pairs or more, and the full check, whose sorted
 * runs of a device's segments cost ~12 instructions an active pair and ~3 an
 * inactive one (run_sorted), is the cheaper. On the 15-inverter cascade every
 * node moves each step, and check_inc marked 394 of its 630 pairs at ~60
 * instructions each; the threshold m/2 instead of m: 240.0 M -> 233.5 M for
 * the run, the 1000-stage chain at 1 ps unchanged (1 541.8 M -> 1 540.1 M to
 * 4 ns). Both give every l_i, verdict and next bit for bit (check_inc's
 * premise: an unmarked pair's are those of the last accepted check). */
static int changed_z(nsc_onestep *P, const double *x)
{
    const int *cp = P->L->C->p;
    int cnt = 0, nz = 0;
    for (int k = 0; k < P->n; k++)
        if (x[k] != P->inc.zref[k]) {
            if ((cnt += cp[k + 1] - cp[k]) >= P->m / 2) return 0;
            P->inc.zlist[nz++] = k;
        }
    P->inc.nz = nz;
    return 1;
}

int nsc_mode_try(nsc_onestep *P, nsc_mode *M, double *z1, double *l, double *res, char *next)
{
    P->mc.nflip = -1;
    if (M->singular) return -1;
    int n = P->n, m = P->m;
    double *x = P->st.x, *lt = P->mc.lt;
    nsc_mode_rhs(P, M, x);
    if (nsc_klu_solve(M->F, x, 1)) return -1; /* [z; l_Na] = K \ rhs */
    double lmax = 0;
    for (int a = 0; a < M->nan; a++) {
        lt[M->actn[a]] = x[n + a];
        double v = fabs(x[n + a]);
        if (v > lmax) lmax = v;
    }
    const char *mask = M->mask;
    double ltol = NSC_MODE_TOL * lmax;
    int ok;
    P->mc.nkey = M->key; /* (the checks flip it into next's) */
    if (P->inc.ok && changed_z(P, x)) {
        ok = check_inc(P, M, x, ltol, l, res, next);
        if (ok) P->inc.lch = P->inc.nd; /* l changed in dlist only */
    } else {
        *res = 0;
        ok = check_all(P, M, x, ltol, l, next, res);
        P->inc.lch = -1;          /* every l written */
        if (ok && P->inc.track) { /* the reference of the incremental check */
            memcpy(P->inc.zref, x, (size_t)n * sizeof(double));
            memcpy(P->inc.mref, mask, (size_t)m);
            P->inc.mref_slot = mode_slot(P, M);
            P->inc.ok = 1;
        }
    }
    for (int a = 0; a < M->nan; a++) lt[M->actn[a]] = 0;
    if (!ok) return 0;
    memcpy(z1, x, (size_t)n * sizeof(double));
    return 1;
}

/* A mode singular because it flips one pair of a D-coupled group (a relay's two
 * pairs: its output on the vertical step with nothing to fix it) is completed:
 * next = mask with every D-partner of a pair that changed from prev changed
 * too. 1 when that gives another mode to try. */
/* Flips, in next, the pairs coupled to pair i in column i of S (D or D^T)
 * that kept their state from prev to mask; 1 when one was flipped. */
static int flip_coupled(const nsc_sparse *S, int i, const char *prev, const char *mask, char *next)
{
    int more = 0;
    for (int k = S->p[i]; k < S->p[i + 1]; k++) {
        int j = S->i[k];
        if (j != i && S->x[k] != 0 && mask[j] == prev[j] && next[j] == mask[j]) {
            next[j] = !mask[j];
            more = 1;
        }
    }
    return more;
}

static int flip_partners(const nsc_onestep *P, const char *prev, const char *mask, char *next)
{
    int m = P->m, more = 0;
    memcpy(next, mask, (size_t)m);
    for (int i = 0; i < m; i++)
        if (mask[i] != prev[i])
            more |= flip_coupled(P->st.D, i, prev, mask, next)
                    | flip_coupled(P->pat.Dt, i, prev, mask, next);
    return more;
}

/* The iteration's buffers move on by one: the mode tried becomes prev, its
 * update the mode to try, and prev's buffer receives the next update (every
 * rejecting check writes next whole). Pointers, not m bytes, are moved. */
static void masks_rotate(nsc_onestep *P)
{
    char *old = P->mc.mask0;
    P->mc.mask0 = P->mc.mask;
    P->mc.mask = P->mc.mask2;
    P->mc.mask2 = old;
}

/* The way out of a singular mode (mask) that the check of the mode before
 * it (mask0) asked for: a loop of active ideal diodes, whose current no
 * equation fixes (the bridge of netlists/prc.cir with all four on while the
 * resonant capacitor's voltage slides at 0). Tried, each with the floor
 * gfloor = max_k |z_k| of the mode before's solution added to every violated
 * pair's terms (NSC_MODE_TOL of it, as their sizes are): that mode again,
 * then that mode with one of the flips alone. A pair whose y is 0 in exact
 * arithmetic has terms as small as its rounding (an ideal diode from ground,
 * y = v(p) = -1.2e-21 V beside a 1 V source): its own terms give no scale,
 * and its flip closed the loop. Without this the pivoting on the dense M
 * (whose node tied by gmin puts 1/gmin in it) returned y 6.5e-7 V off: v(a)
 * wrong by that, every diode chattering, a multiplier taking the error back
 * as an impulse (i(d1) -0.59 mA, or 58.7 mA beside i(lf) 39.2 mA). The
 * single flips are tried for an update of at most NSC_SING_FLIPS flips (each
 * try may build a mode system). Called when mask0 was solved (P->st.x holds
 * its solution: a singular mode is not solved). 1 when a mode is accepted
 * (in mask, as the caller expects), else 0. */
static int singular_out(nsc_onestep *P, double *z1, double *l, double *res)
{
    int m = P->m, ok = 0;
    double zs = 0;
    for (int k = 0; k < P->n; k++) zs = fmax(zs, fabs(P->st.x[k]));
    char *sing = P->mc.mask, *before = P->mc.mask0, *trial = P->mc.mask2;
    if (!(zs > 0)) return 0;
    int fend = ndiff(sing, before, m, NSC_SING_FLIPS + 1) <= NSC_SING_FLIPS ? m : 0;
    P->mc.gfloor = zs;
    for (int f = -1; !ok && f < fend; f++) { /* f = -1: mask0 itself; else its flip f alone */
        if (f >= 0 && sing[f] == before[f]) continue;
        memcpy(trial, before, (size_t)m);
        if (f >= 0) trial[f] = sing[f];
        nsc_mode *M = nsc_mode_get(P, trial);
        if (!M) break;
        if (nsc_mode_try(P, M, z1, l, res, NULL) == 1) {
            P->mc.cur = (int)(M - P->mc.modes);
            memcpy(sing, trial, (size_t)m); /* mask: the mode accepted */
            ok = 1;
        }
    }
    P->mc.gfloor = 0;
    return ok;
}

int nsc_active_set(nsc_onestep *P, const char *start, nsc_mode *first, int maxit, double *z1,
                   double *l, double *res)
{
    uint64_t seen[NSC_AS_SEEN]; /* keys of the last nseen modes tried */
    int nseen = 0, pst = 1;     /* pst: the last try's outcome (0: solved, rejected) */
    int flips1 = -1;            /* the first update's flips listed: flip[0..flips1-1] */
    P->mc.aflip = -1;           /* (singular_out's mode: not listed) */
    if (P->mc.mask != start && !(start == P->mc.prev && P->mc.mask_prev))
        memcpy(P->mc.mask, start, (size_t)P->m);
    P->mc.mask_prev = 0; /* (the caller sets it again) */
    for (int it = 1; it <= maxit; it++) {
        if (it > 1) masks_rotate(P); /* prev = mask, mask = next */
        char *mask = P->mc.mask, *next = P->mc.mask2, *prev = P->mc.mask0;
        P->mc.flipfor = it > 1 ? mask : NULL; /* (mode_refill: next's flips listed) */
        nsc_mode *M = it > 1  ? nsc_mode_get_key(P, mask,
                                                 P->mc.nkey) /* next's key, formed by the check */
                      : first ? first
                      : start == P->mc.prev && P->mc.prevkey_ok
                          ? nsc_mode_get_key(P, mask, P->mc.prevkey)
                          : nsc_mode_get(P, mask);
        P->mc.flipfor = NULL;
        if (!M) return 0;
        int st = nsc_mode_try(P, M, z1, l, res, next), solved_before = pst == 0;
        pst = st;
        if (st < 0 && it > 1
            && flip_partners(P, prev, mask, next)) { /* the group's other pairs too */
            P->mc.nkey = nsc_mode_key(P, next);
            continue;
        }
        if (st < 0 && solved_before && M->singular && singular_out(P, z1, l, res)) return it;
        if (st == 1) {
            P->mc.cur = (int)(M - P->mc.modes);
            P->mc.aflip = it == 1 ? 0 : it == 2 ? flips1 : -1; /* (flip[] kept since) */
            return it;
        }
        /* (different keys: different masks; equal ones are compared) */
        if (st < 0 || (P->mc.nkey == M->key && memcmp(mask, next, (size_t)P->m) == 0)) return 0;
        if (it == 1) flips1 = P->mc.nflip; /* (st = 0: a rejecting check's update) */
        seen[nseen++ % NSC_AS_SEEN] = M->key;
        for (int q = 0; q < nseen && q < NSC_AS_SEEN; q++)
            if (seen[q] == P->mc.nkey) return 0; /* a cycle: pivoting settles it */
    }
    return 0;
}
