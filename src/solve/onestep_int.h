/* onestep_int.h -- internal to the solve stage: the fields of the one-step
 * problem (onestep.h explains the formulation and is what other stages use:
 * nsc_onestep is opaque there, read through its functions and accessors). Only
 * src/solve/ and its white-box tests (tests/solve/) include this header, as Lua's
 * lstate.h behind lua.h. */
#ifndef NSC_ONESTEP_INT_H
#define NSC_ONESTEP_INT_H

#include <stdint.h>

#include "onestep.h"

#define NSC_MODE_CACHE 128    /* mode systems cached for a small problem (npos <= NSC_MODE_SMALL) */
#define NSC_MODE_CACHE_BIG 16 /* ... for the others (their factors and maps are large) */
#define NSC_MODE_SMALL 1024
#define NSC_AS_MAXIT \
    16                     /* modes tried by the active-set iteration before pivoting (a PWL MOS
                                turning on through its segments, its junction and a body diode
                                beside it takes 9-10 on the buck) */
#define NSC_AS_SEEN 8      /* the iteration stops at a mode among the last NSC_AS_SEEN tried */
#define NSC_DENSE_MMAX 400 /* largest m for the dense LCP (M is m-by-m, W^-1 B n-by-m) */
#define NSC_BLOCK_MAX 400  /* largest block of the sparse pivoting fallback */
#define NSC_INC_MMIN 256   /* incremental mode check from this many pairs */
#define NSC_PRE_NONE \
    255 /* nsc_mode.pre: the run's active pairs are not a prefix (or it is longer) */

/* A sorted run of separable pairs (nsc_os_pat.srun): pairs i0..end-1, its row
 * of C r = 1 or 2 terms c0 z_k0 (+ c1 z_k1). */
typedef struct nsc_srun {
    int i0, end, r, k0, k1;
    double c0, c1;
} nsc_srun;

#define NSC_STALE_H 1      /* nsc_mode.stale: W's h-dependent entries (pat.hw) changed */
#define NSC_STALE_SMOOTH 2 /* nsc_mode.stale: only the smooth rows' entries (pat.hs) changed */

/* One cached mode (see above). */
typedef struct nsc_mode {
    char *mask;         /* [m] 1 = active; NULL: empty slot */
    unsigned char *pre; /* [m] at the head of each sorted run (pat.rsort): the number of its
                          leading active pairs when they are its only active ones, else
                          NSC_PRE_NONE (onestep_mode.c mode_prefixes, run_sorted) */
    uint64_t key;       /* hash of mask (xor of per-pair keys) */
    int nan;            /* active N pairs (unknowns of the system) */
    int *actn;          /* [nan] their indices, ascending */
    nsc_sparse *K;      /* the (n + nan) system; column j < n begins with column j of Wb */
    double *c;          /* [n] sum over active S pairs of B_j e0_j / D_jj */
    nsc_klu *F;         /* LU of K */
    int singular;       /* 1: K singular (or rcond < 1e-14): the mode cannot be used */
    double rc;          /* rcond of the last pivoting factorisation */
    long last_use;
    int hits;  /* steps this mode solved as the previous mode (builds its affine map) */
    int nomap; /* 1: the map would lose accuracy (cancellation, onestep_map.c) */
    int stale; /* 1: K holds the values of a renewed step size, F the factors of the old
                          one: refactored (old pivots, rcond checked) when next used; 2: the
                          same after a relinearisation only (NSC_STALE_SMOOTH: the positions
                          of the smooth rows, pat.hs, are the ones to recompute) */
    double *G; /* the mode's affine map (onestep_map.c), NULL until built */
} nsc_mode;

/* Small problems (onestep_map.c): a mode that keeps solving the steps gets its
 * affine map G, (n + m) x ncol dense, on the inputs u = [z0 (the columns R
 * reads); w0; w1 (the sources the step reads); 1]: G u is z1, then per pair
 * g_i = C_i z1 + D_i l + e_i (separable, inactive N) or l_i (active N), the
 * quantities the mode check needs. A step in that mode is then one dense
 * product and the sign checks (a mode that fails them falls back to the sparse
 * path). Only when (n + m) * ncol <= NSC_MAP_MAX, and for modes whose map does
 * not cancel: a row of G whose terms exceed its value's scale by NSC_MAP_CANCEL
 * (entries of order 1/gmin that cancel, e.g. a node held by gmin while every
 * diode around it is off) would lose digits that the sparse solve keeps; such
 * modes stay on the sparse path. */
#define NSC_MAP_CANCEL 1e6
#define NSC_MAP_MAX 8192
#define NSC_MAP_HITS \
    4 /* solves of a mode before its map is built: max(NSC_MAP_HITS, ncol), so
                               that a map is built for modes that repay its ncol solves */
typedef struct nsc_map nsc_map;

/* The problem: its identity (set by the constructor, nsc_onestep_new, and read
 * everywhere) and one sub-struct per owner, the file that allocates, resets
 * and frees it (others read it, and write only where the comment says). */

/* onestep.c: the step's matrices and sources. */
typedef struct nsc_os_step {
    double h, theta;
    char *sw;                 /* [L->nsw] switch states this problem is built for (1 = on) */
    const nsc_sparse *B;      /* T B (alg.Bt) or L->B */
    double *ts;               /* [n] work: T s */
    double *th;               /* [n] Theta_ii */
    nsc_sparse *W;            /* E/h - Theta A */
    nsc_sparse *R;            /* E/h + (I - Theta) A (NULL when h = 0) */
    nsc_sparse *Et, *TA, *UA; /* h > 0: T E (NULL: L->E), Theta T A, (I - Theta) T A, kept
                                  to make W and R of another h (nsc_onestep_renew) */
    nsc_klu *F;               /* LU of W */
    double
        wrc; /* rcond of W's last factorisation with pivoting (renewals refactor on its pivots) */
    int wstale; /* 1: F does not factor W yet (a Newton relinearisation of a problem
                          with charges, onestep_nl.c relin; nsc_onestep_wfactor) */
    int *smpos; /* [2 sum nin] where W, TA hold (row, in[q]) of L's smooth functions,
                          in their order (-1: absent); onestep_nl.c's, made at its first relin */
    /* sources (nsc_onestep_step): r = R z0 + sc + Sw1 w1 + Sw0 w0 */
    double *sc;      /* [n] T s0 (constant part of s) */
    nsc_sparse *Sw1; /* n x nsrc: Theta T Ss (h = 0: Ss) */
    nsc_sparse *Sw0; /* n x nsrc: (I - Theta) T Ss (NULL when h = 0) */
    /* pairs held at the theta point (nsc_onestep_new with mean): a pair whose
     * multiplier enters theta rows only (its l the step's mean) holds
     * theta y(t_k+1) + (1 - theta) y(t_k) >= 0, y with the same l, i.e. after
     * division by theta_j: C_j z1 + D_j l / theta_j + e_j(t_k+1) + kap_j
     * (C_j z0 + e_j(t_k)) >= 0, kap_j = (1 - theta_j) / theta_j */
    double *kap;         /* [m] kap_j (0: the pair holds at t_k+1), or NULL: every pair does */
    nsc_sparse *Dk;      /* D with row j divided by theta_j (NULL without kap) */
    const nsc_sparse *D; /* Dk or L->D: the D of the step's conditions */
    double *ez; /* [m] kap_j (C_j z0 + e_j(t_k)) of the step (rhs_w), added to e on the w1 path */
    const double *e1;  /* e(t_k+1) of the step being solved, or NULL: e0 + Se w1 (+ ez) */
    const double *w1;  /* w(t_k+1) when e1 is NULL */
    double *ebuf;      /* [m] e1 when the dense path needs it */
    double *r, *q, *w; /* work [n], [m], [m]; after a failure q < 0 marks the violated pairs
                          (onestep_nl.c clears q) */
    int qset;          /* 1: q was written since the problem was made or renewed; 0: it reads
                          as zeros (nsc_onestep_violated returns NULL; renewals do not clear it) */
    double *x;         /* [n + m] work: mode solution (onestep_mode.c, onestep_map.c write it) */
} nsc_os_step;

/* onestep_alg.c: the hidden algebraic rows; combination c replaces row rep[c]
 * by sum_e v[e] row row[e], e in cp[c] .. cp[c+1]-1. */
typedef struct nsc_os_alg {
    int nalg;
    int *rep, *cp, *row;
    double *v;
    nsc_sparse *Bt; /* T B (NULL without combinations); also written to step.B */
} nsc_os_alg;

/* onestep_mode.c: pair kinds and the fixed pattern. */
typedef struct nsc_os_pat {
    nsc_sparse *Ct;  /* C^T: column i = row i of C */
    nsc_sparse *Dt;  /* D^T */
    nsc_sparse *SeT; /* Se^T */
    char *sep;       /* [m] 1: separable pair */
    double *dinv;    /* [m] 1 / D_jj of separable pairs, else 0 */
    int nsep_e;      /* separable pairs whose e depends on w (row of Se not empty) */
    int *sep_e;      /* [nsep_e] */
    nsc_sparse *Wb;  /* W plus the pattern of every separable stamp (values: W) */
    int npos;        /* value positions: nnz(Wb) entries of Wb, then n entries of c */
    int *wpos;       /* [nnz(W)] the position of each entry of W in Wb */
    int nhw;         /* entries of W where E (T E) has one (the only values a new h changes:
                          W = E/h - Theta A) or on a smooth function's row (Newton's tangent), */
    int *hw;         /*   their indices in W, ascending: what nsc_mode_renew refreshes */
    int nhs;         /* those on a smooth function's row (Newton's tangent: all that a */
    int *hs;         /*   relinearisation changes), ascending: nsc_mode_renew_smooth's */
    int *poscol;     /* [nnz(Wb)] column of each entry */
    int *pc;         /* [npos + 1] contributors of position k: pc[k] .. pc[k+1]-1 */
    int *cpair;      /*   the pair, */
    double *ccoef;   /*   the value it adds when active */
    int *pp;         /* [m + 1] positions of pair j: ppos[pp[j] .. pp[j+1]-1] */
    int *ppos;
    uint64_t *pkey;    /* [m] hash key of each pair */
    int nn;            /* pairs of kind N */
    int *nlist;        /* [nn] their indices, ascending */
    int *posn;         /* [m] work: index of an N pair among the active ones, else -1
                          (onestep_map.c writes it) */
    char *samerow;     /* [m] 1: separable pair whose row of C (pattern and values) is pair i-1's,
                          also separable (the segments of one PWL device share a row) */
    int *runend;       /* [m] at the first pair i of a run of separable pairs (samerow[i] = 0):
                          the run's end; -1 when a pair of the run has a source term in e */
    char *rsort;       /* [m] 1 at the head of a run (runend > 0) of one or two terms in its row
                          whose e0 is nondecreasing along it: its g_i = e0_i + C_i z is then too
                          (onestep_mode.c run_sorted) */
    nsc_srun *srun;    /* [nsrun] the sorted runs (rsort), ascending, and the other heads (not */
    int nsrun, nother; /*   samerow: pairs not separable, runs not sorted), other[nother]: */
    int *other;        /*   the full check's units (check_all) */
    int *share;        /* how many problems hold the arrays above that setup writes and
                          nothing changes after (all but Wb, posn and the work arrays):
                          nsc_mode_setup_like shares them, the last teardown frees them */
    int rmax;          /* most entries in a row of C */
    double *rt;        /* [rmax] work: a row's terms C_ik z_k */
    char *touched;     /* [npos] work: 0 between calls */
    int *tlist;        /* [npos] work */
} nsc_os_pat;

/* onestep_mode.c: the mode cache and the active-set iteration's state (the
 * driver in onestep.c sets prev, mask and cur when a pivoting solve is taken). */
typedef struct nsc_os_modes {
    nsc_mode modes[NSC_MODE_CACHE];
    int nmodes;
    int cur;          /* cache slot of the last accepted mode, -1 */
    int lastget;      /* cache slot nsc_mode_get returned last, -1 (onestep_mode.c nearest) */
    long clock;       /* use counter for least-recently-used eviction */
    char *prev;       /* [m] active set of the last solved step */
    uint64_t prevkey; /* prev's key (nsc_mode_key) when prevkey_ok; each write of prev clears */
    int prevkey_ok;   /*   prevkey_ok where it does not set the key (onestep.c) */
    const char *alt;  /* [m] the caller's second guess (nsc_onestep_set_alt), or NULL */
    int nopivot;      /* 1: no pivoting after the active-set iteration (nsc_onestep_set_nopivot) */
    int have_prev;
    char *mask, *mask2; /* [m] work (nsc_active_set rotates mask0, mask, mask2: read them
                           through P after a call) */
    char *mask0;        /* [m] work: the active-set iteration's last mode tried */
    int mask_prev;      /* 1: mask holds prev (a step's active-set iteration that started from
                          prev and was accepted; any other write of mask or prev clears it) */
    uint64_t nkey;      /* the key of the update (next) the last rejecting nsc_mode_try wrote */
    int nflip;          /* the pairs that update flipped, flip[0..nflip-1], from the mask of slot
                           flipslot (an incremental check lists them), or -1: not listed */
    int *flip;          /* [m] */
    int flipslot;
    int aflip; /* after nsc_active_set accepted a mode: the mode differs from the start in the
                  pairs flip[0..aflip-1] (the one update of a two-try step), or -1: not listed */
    const char *flipfor; /* nsc_active_set: the update about to be looked up (mode_refill may use
                            flip[] for it), NULL otherwise */
    double *lt;          /* [m] work: N-active lambda (zero elsewhere between calls) */
    double gfloor;       /* added to the size of a violated pair's terms: 0, but for the retry of a
                      mode before a singular one (onestep_mode.c singular_out) */
    long nfactor;        /* mode systems factored (new pattern, refactor or pivoting refactor) */
    long ncached;        /* mode systems found in the cache */
} nsc_os_modes;

/* onestep.c: the dense path (m <= dense_mmax), formed when pivoting first needs it, and Lemke's
 * work. */
typedef struct nsc_os_dense {
    double *WiB;    /* [n*m] W^-1 B, column-major */
    double *M;      /* [m*m] D + C W^-1 B */
    nsc_lcp_ws *ws; /* Lemke's workspace (dense path or block), allocated when needed */
    int wsmax;      /* its size */
    int dense_mmax; /* the dense path for m <= dense_mmax (NSC_DENSE_MMAX; tests lower it) */
    double *zl;     /* [n] work: Lemke's z */
    double *ll;     /* [m] work: Lemke's lambda */
} nsc_os_dense;

/* onestep_mode.c: the incremental check (large problems): the last accepted check. */
typedef struct nsc_os_inc {
    int track;      /* 1: keep the reference (m >= NSC_INC_MMIN and no maps) */
    int ok;         /* 1: zref, mref and the caller's l are that reference */
    double *zref;   /* [n] z of the last accepted check */
    int *zlist, nz; /* [n] work: the k with z_k != zref_k (changed_z) */
    char *mref;     /* [m] its active set */
    int mref_slot;  /* the cache slot whose mask mref is (its last accepted check), -1:
                          none; reset when that slot's mask is rewritten */
    int nepair;     /* pairs whose e depends on w (evaluated every time) */
    int *epair;     /* [nepair] */
    int *cup, *cui; /* C's columns restricted to the pairs that head a row (not samerow):
                          cui[cup[k] .. cup[k+1]-1] the heads of the runs reading z_k */
    char *dmark;    /* [m] work: 0 between calls (set at marked heads) */
    int *ulist, nu; /* [m] work: the marked heads (a run of separable pairs, or one pair) */
    int *dlist, nd; /* [m] work: the pairs evaluated (the marked heads' runs) */
    double *dval;   /* [m] work: their l */
    int lch;        /* the pairs whose l the last step may have changed: dlist[0..lch-1]
                          (an incremental check accepted it), or -1: any of the m */
} nsc_os_inc;

struct nsc_onestep {
    const nsc_lcs *L; /* identity */
    int n, m;
    nsc_os_step st;  /* onestep.c */
    nsc_os_alg alg;  /* onestep_alg.c */
    nsc_os_pat pat;  /* onestep_mode.c */
    nsc_os_modes mc; /* onestep_mode.c */
    nsc_os_dense dn; /* onestep.c */
    nsc_os_inc inc;  /* onestep_mode.c */
    nsc_map *map;    /* onestep_map.c: affine maps of small problems (NULL: none) */
};

/* F made the factors of W where a relinearisation left them stale (the solves
 * with W call it first; the mode systems, refilled from W, do not need it).
 * 0, or -1 (singular). */
int nsc_onestep_wfactor(nsc_onestep *P);

#endif
