/* stamp.h -- the stamp builder: what the LCS assembler offers a device
 * (devif.h) while it counts, stamps and probes the elements. count() declares
 * the topology of its terminals (nsc_dev_link, forests owned by the assembler);
 * stamp() adds its entries to E A B C D, Ss Se, s0 e0 through the nsc_st_*
 * helpers (lcs_asm.c); current() and ports() build linear forms of the unknowns
 * (nsc_lin_add, lcs_probe.c). The devices stage includes this header; nothing
 * here knows a device. */
#ifndef NSC_STAMP_H
#define NSC_STAMP_H

#include "circuit/circuit.h"
#include "lcs/lcs.h"
#include "base/sparse.h"
#include "base/util.h"

/* ---- 1. counting and topology ---- */

/* Union-find forests over circuit nodes (0 = ground), owned by the assembler. */
typedef struct nsc_dev_ctx {
    const nsc_circuit *c;
    nsc_asm_mode mode;
    nsc_report *r;
    const unsigned char *has_icv; /* [nnode] 1 if .ic V(node) given */
    const double *icv;            /* [nnode] .ic value (0 where not given; icv[0] = 0) */
    int *uf_ns; /* paths through elements that make the mode's matrix nonsingular */
    int *uf_vd; /* voltage-defining branches (V, E, H, imposed C, shorted L) */
} nsc_dev_ctx;

/* Strength of a terminal pair of a device (each implies the weaker ones). */
enum {
    NSC_LINK_DC = 1, /* a current can flow (diode, current source, open capacitor, ...) but
                        nothing is tied in the mode's matrix: no forest changes (DC paths to
                        ground are checked before assembly, lcs_topo.c) */
    NSC_LINK_NS = 2, /* the pair is tied in the mode's matrix (resistor, capacitor in TRAN, ...) */
    NSC_LINK_VD = 3  /* voltage-defining branch (v_a - v_b fixed by the branch row) */
};

/* Declare nodes a, b (circuit indices) linked with strength how.
 * For NSC_LINK_VD returns 1 (and changes nothing) if a and b are already tied by
 * voltage-defining branches (a loop: singular), else 0. Other strengths return 0. */
int nsc_dev_link(nsc_dev_ctx *ctx, int a, int b, int how);

/* What an element needs in the current mode (count() fills it, zeroed before). */
typedef struct nsc_dev_need {
    int nbranch; /* branch unknowns of the transient layout (same in every mode) */
    int nextra;  /* extra branch unknowns of the static modes (0 in TRAN) */
    int npair;   /* complementarity pairs (same in every mode) */
    int nsrc;    /* independent sources w_j (the element's own wave) */
    int flag;    /* the device's own: set by count, handed to stamp in its slots */
} nsc_dev_need;

/* ---- 2./3. stamping ---- */

/* First index of each kind of slot of one element, -1 when it has none. */
typedef struct nsc_dev_slots {
    int branch; /* z index of the first transient branch */
    int extra;  /* z index of the first static extra branch */
    int pair;   /* lambda index */
    int src;    /* w index */
    int flag;   /* nsc_dev_need.flag of the element */
} nsc_dev_slots;

typedef enum nsc_stmat {
    NSC_ST_E,
    NSC_ST_A,
    NSC_ST_B,
    NSC_ST_C,
    NSC_ST_D,
    NSC_ST_SS,
    NSC_ST_SE
} nsc_stmat;

/* Triplet builder of the LCS being assembled (owned by the assembler). */
typedef struct nsc_builder {
    const nsc_circuit *c;
    nsc_asm_mode mode;
    nsc_report *r;
    nsc_sparse *T[7];     /* triplets, indexed by nsc_stmat */
    double *s0, *e0;      /* [n], [m] */
    unsigned char *exact; /* [n] nsc_lcs z_exact */
    unsigned char *cont;  /* [m] nsc_lcs pair_cont */
    const int *el_branch; /* [nel] first transient branch (z index) or -1 */
    const int *el_extra;  /* [nel] first static extra branch or -1 */
    const unsigned char *has_icv;
    const double *icv;
    int nomem;      /* set by a helper that could not allocate */
    nsc_switch *sw; /* switched conductances registered so far (nsc_st_switch) */
    int nsw, capsw;
    nsc_smooth *sm; /* smooth functions registered so far (nsc_st_smooth) */
    int nsm, capsm;
} nsc_builder;

/* z index of the voltage of circuit node k (-1 for ground, whose stamps are dropped). */
static inline int nsc_zn(int k)
{
    return k - 1;
}

/* Raw entry M(i,j) += x; dropped when i < 0 or j < 0 (ground) or x == 0; E dropped
 * in the static modes. i, j are z / lambda / w indices as M requires. */
void nsc_st(nsc_builder *b, nsc_stmat M, int i, int j, double x);
/* Conductance G between nodes a, b (KCL rows: sum of currents into the node):
 * A[a][a] -= G, A[a][b] += G, A[b][a] += G, A[b][b] -= G. */
void nsc_st_g(nsc_builder *b, int a, int k, double G);
/* Capacitance C between nodes a, b: E[a][a] += C, E[a][b] -= C, E[b][a] -= C, E[b][b] += C. */
void nsc_st_cap(nsc_builder *b, int a, int k, double C);
/* Branch current z[col] flowing a -> k through the element: A[a][col] -= 1, A[k][col] += 1. */
void nsc_st_inc(nsc_builder *b, int a, int k, int col);
/* Branch row: A[row][a] += coef, A[row][k] -= coef (coef*(v_a - v_k)). */
void nsc_st_vrow(nsc_builder *b, int row, int a, int k, double coef);
/* VCCS: current gm*(v_c - v_d) flowing a -> k through the element. */
void nsc_st_vccs(nsc_builder *b, int a, int k, int c, int d, double gm);
/* Ideal-diode pair j, lambda_j flowing a -> k: B[a][j] -= 1, B[k][j] += 1,
 * y_j = v_k - v_a + ...: C[j][k] += 1, C[j][a] -= 1 (so C = B^T on the pair). */
void nsc_st_pair(nsc_builder *b, int a, int k, int j);
/* Constant source terms: s0[i] += x, e0[j] += x (index < 0 dropped). */
void nsc_st_s0(nsc_builder *b, int i, double x);
/* Row i holds at t_k+1 under every theta (lcs.h z_exact): the output row of a
 * static PWL map, y = f(x) with f's pairs, which would ring at theta = 1/2. */
static inline void nsc_st_exact(nsc_builder *b, int i)
{
    if (i >= 0) b->exact[i] = 1;
}
void nsc_st_e0(nsc_builder *b, int j, double x);
/* Pair j's mode change is a continuous kink (lcs.h pair_cont): its l and y are
 * Lipschitz in z and w across it (a PWL segment with D_jj > 0 of its own). */
static inline void nsc_st_cont(nsc_builder *b, int j)
{
    if (j >= 0) b->cont[j] = 1;
}
/* The same for a PWL MOS channel segment (lcs.h pair_cont 3): the current's
 * slope changes by one segment's share of K, not by a junction segment's
 * conductance ratio. */
static inline void nsc_st_cont_ch(nsc_builder *b, int j)
{
    if (j >= 0) b->cont[j] = 3;
}
/* Switched conductance of element el between nodes a, k (circuit indices): stamps
 * g_off into A (nsc_st_g) and registers the switch (lcs.h nsc_switch) with its
 * control v(c) - v(d), thresholds on_above >= off_below and initial state 0 (off).
 * Returns the switch index. */
int nsc_st_switch(nsc_builder *b, int el, int a, int k, double g_off, double g_on, int c, int d,
                  double on_above, double off_below);
/* The same with the control z[zc] - z[zd] given as z indices (-1: none), e.g. a
 * branch current for a current-controlled switch. */
int nsc_st_switch_z(nsc_builder *b, int el, int a, int k, double g_off, double g_on, int zc, int zd,
                    double on_above, double off_below);
/* Smooth function of element el (lcs.h nsc_smooth): u = z[row] = f(z[in[0..nin)))
 * by code[0..ncode) whose PROBE q loads z[in[q]]: stamps A[row][row] = -1 and
 * the pattern (row, in[q]) (zero values, kept: the Newton iteration writes
 * them), marks the row exact, registers the function (in copied). */
void nsc_st_smooth(nsc_builder *b, int el, int row, const int *in, int nin, const nsc_xinstr *code,
                   int ncode);
/* The same with A and s0 holding the linearisation at z = 0 instead of zeros
 * (a node that only the function holds, as a charge-based capacitor's, is not
 * singular before the first Newton iterate: the problem is factored first). */
void nsc_st_smooth_at0(nsc_builder *b, int el, int row, const int *in, int nin,
                       const nsc_xinstr *code, int ncode);
/* nsc_st_smooth_at0 of a function given as C code (lcs.h nsc_smooth_fn): f(x)
 * = fn(par, x, g), par living as long as the circuit. */
void nsc_st_smooth_fn_at0(nsc_builder *b, int el, int row, const int *in, int nin, nsc_smooth_fn fn,
                          const void *par);

/* ---- 4. probes ---- */

/* Append coef*term to f. 0 ok, -1 ENOMEM. Index < 0 (ground) is dropped. */
nsc_status nsc_lin_add(nsc_lin *f, nsc_termkind kind, int idx, double coef);
/* w index of element el's first source in L, -1 if none. */
int nsc_lcs_src_of(const nsc_lcs *L, int el);
/* Index of element el's switch in L->sw, -1 if none. */
int nsc_lcs_sw_of(const nsc_lcs *L, int el);

#endif
