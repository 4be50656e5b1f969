/* lcs_asm.c -- modified nodal analysis: circuit -> LCS (lcs.h), through the
 * device interface (devif.h); also the stamp helpers (stamp.h) and nsc_lcs_sources.
 *
 * Layout of z: v(node 1..nnode-1), transient branches (element order), static
 * extra branches of devices (element order), then in OP one branch per node
 * with a .ic value ("i(.ic:node)", the .ic imposed as a voltage source node ->
 * ground; skipped with a warning when the node voltage is already fixed by
 * voltage-defining branches, e.g. a V source or a capacitor with IC=).
 *
 * gmin: two union-find forests over the nodes are built while counting: the
 * mode's nonsingular elements (ns) and the voltage-defining branches (vd, loop
 * detection). A node with no DC path to ground is an error found before
 * (nsc_topology_check); each ns-component not tied to ground gets
 * A[n][n] -= gmin at its lowest-numbered node n. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "devif.h"
#include "base/la_klu.h"

int nsc_dev_link(nsc_dev_ctx *ctx, int a, int b, int how)
{
    if (how >= NSC_LINK_VD) {
        if (nsc_uf_find(ctx->uf_vd, a) == nsc_uf_find(ctx->uf_vd, b)) return 1;
        nsc_uf_union(ctx->uf_vd, a, b);
    }
    if (how >= NSC_LINK_NS) nsc_uf_union(ctx->uf_ns, a, b);
    return 0;
}

/* ---- stamp helpers ---- */

void nsc_st(nsc_builder *b, nsc_stmat M, int i, int j, double x)
{
    if (i < 0 || j < 0 || x == 0) return;
    if (M == NSC_ST_E && b->mode != NSC_ASM_TRAN) return; /* static: 0 = A z + B l + s */
    if (nsc_sp_entry(b->T[M], i, j, x)) b->nomem = 1;
}

void nsc_st_g(nsc_builder *b, int a, int k, double G)
{
    int i = nsc_zn(a), j = nsc_zn(k);
    nsc_st(b, NSC_ST_A, i, i, -G);
    nsc_st(b, NSC_ST_A, i, j, G);
    nsc_st(b, NSC_ST_A, j, i, G);
    nsc_st(b, NSC_ST_A, j, j, -G);
}

void nsc_st_cap(nsc_builder *b, int a, int k, double C)
{
    int i = nsc_zn(a), j = nsc_zn(k);
    nsc_st(b, NSC_ST_E, i, i, C);
    nsc_st(b, NSC_ST_E, i, j, -C);
    nsc_st(b, NSC_ST_E, j, i, -C);
    nsc_st(b, NSC_ST_E, j, j, C);
}

void nsc_st_inc(nsc_builder *b, int a, int k, int col)
{
    nsc_st(b, NSC_ST_A, nsc_zn(a), col, -1.0);
    nsc_st(b, NSC_ST_A, nsc_zn(k), col, 1.0);
}

void nsc_st_vrow(nsc_builder *b, int row, int a, int k, double coef)
{
    nsc_st(b, NSC_ST_A, row, nsc_zn(a), coef);
    nsc_st(b, NSC_ST_A, row, nsc_zn(k), -coef);
}

void nsc_st_vccs(nsc_builder *b, int a, int k, int c, int d, double gm)
{
    nsc_st(b, NSC_ST_A, nsc_zn(a), nsc_zn(c), -gm);
    nsc_st(b, NSC_ST_A, nsc_zn(a), nsc_zn(d), gm);
    nsc_st(b, NSC_ST_A, nsc_zn(k), nsc_zn(c), gm);
    nsc_st(b, NSC_ST_A, nsc_zn(k), nsc_zn(d), -gm);
}

void nsc_st_pair(nsc_builder *b, int a, int k, int j)
{
    nsc_st(b, NSC_ST_B, nsc_zn(a), j, -1.0);
    nsc_st(b, NSC_ST_B, nsc_zn(k), j, 1.0);
    nsc_st(b, NSC_ST_C, j, nsc_zn(k), 1.0);
    nsc_st(b, NSC_ST_C, j, nsc_zn(a), -1.0);
}

void nsc_st_s0(nsc_builder *b, int i, double x)
{
    if (i >= 0) b->s0[i] += x;
}

void nsc_st_e0(nsc_builder *b, int j, double x)
{
    if (j >= 0) b->e0[j] += x;
}

int nsc_st_switch(nsc_builder *b, int el, int a, int k, double g_off, double g_on, int c, int d,
                  double on_above, double off_below)
{
    return nsc_st_switch_z(b, el, a, k, g_off, g_on, nsc_zn(c), nsc_zn(d), on_above, off_below);
}

int nsc_st_switch_z(nsc_builder *b, int el, int a, int k, double g_off, double g_on, int zc, int zd,
                    double on_above, double off_below)
{
    nsc_st_g(b, a, k, g_off); /* A holds the off state */
    if (nsc_grow((void **)&b->sw, &b->capsw, b->nsw + 1, sizeof *b->sw)) {
        b->nomem = 1;
        return -1;
    }
    b->sw[b->nsw] = (nsc_switch){
        el, nsc_zn(a), nsc_zn(k), zc, zd, g_off, g_on, on_above, off_below
    };
    return b->nsw++;
}

/* Register S with the inputs in[S.nin] (copied into S.in; S.apos after them,
 * filled when A is compressed): A[row][row] = -1, the pattern (row, in[q]) of
 * zeros, the row exact. 0, or -1 (b->nomem set). */
static int smooth_add(nsc_builder *b, nsc_smooth S, const int *in)
{
    int *cp = nsc_calloc(2 * (size_t)S.nin + 1, sizeof *cp);
    if (!cp || nsc_grow((void **)&b->sm, &b->capsm, b->nsm + 1, sizeof *b->sm)) {
        free(cp);
        b->nomem = 1;
        return -1;
    }
    nsc_st(b, NSC_ST_A, S.row, S.row, -1.0); /* 0 = -u + f(z) */
    for (int q = 0; q < S.nin; q++) {
        cp[q] = in[q];
        if (nsc_sp_entry(b->T[NSC_ST_A], S.row, in[q], 0.0)) b->nomem = 1; /* the pattern of J */
    }
    nsc_st_exact(b, S.row);
    S.in = cp;
    S.apos = cp + S.nin;
    b->sm[b->nsm++] = S;
    return 0;
}

void nsc_st_smooth(nsc_builder *b, int el, int row, const int *in, int nin, const nsc_xinstr *code,
                   int ncode)
{
    smooth_add(b,
               (nsc_smooth){ el, row, nin, NULL, NULL, code, ncode, nsc_xdepth(code, ncode), NULL,
                             NULL },
               in);
}

/* S registered (smooth_add), A and s0 holding its linearisation at z = 0 */
static void smooth_at0(nsc_builder *b, nsc_smooth S, const int *in)
{
    if (smooth_add(b, S, in)) return;
    int nin = S.nin, d = S.depth;
    double *w = nsc_calloc(2 * (size_t)nin + (size_t)(d + 1) * (size_t)(nin + 1) + 1, sizeof *w), f;
    if (!w) {
        b->nomem = 1;
        return;
    }
    double *x = w, *g = x + nin, *st = g + nin, *dst = st + d + 1; /* x = 0: the probes at zero */
    f = S.fn ? S.fn(S.par, x, g) : nsc_xrun_grad(S.code, S.ncode, x, nin, st, dst, g);
    for (int q = 0; q < nin && isfinite(f); q++)
        if (isfinite(g[q]))
            nsc_st(b, NSC_ST_A, S.row, in[q], g[q]); /* J(0) (the pattern's entry + J) */
    if (isfinite(f)) nsc_st_s0(b, S.row, f);         /* s0 = f(0) - J 0 */
    free(w);
}

void nsc_st_smooth_at0(nsc_builder *b, int el, int row, const int *in, int nin,
                       const nsc_xinstr *code, int ncode)
{
    smooth_at0(b,
               (nsc_smooth){ el, row, nin, NULL, NULL, code, ncode, nsc_xdepth(code, ncode), NULL,
                             NULL },
               in);
}

void nsc_st_smooth_fn_at0(nsc_builder *b, int el, int row, const int *in, int nin, nsc_smooth_fn fn,
                          const void *par)
{
    smooth_at0(b, (nsc_smooth){ el, row, nin, NULL, NULL, NULL, 0, 0, fn, par }, in);
}

int nsc_lcs_switch_update_at(const nsc_lcs *L, const double *z, char *sw, int op)
{
    int changed = 0;
    for (int j = 0; j < L->nsw; j++) {
        const nsc_switch *S = &L->sw[j];
        double u = (S->c >= 0 ? z[S->c] : 0.0) - (S->d >= 0 ? z[S->d] : 0.0); /* u = v_c - v_d */
        char st = u > S->on_above ? 1 : u < S->off_below ? 0 : sw[j];
        if (S->on_above == S->off_below && u == S->on_above)
            st = (char)op; /* VH = 0, u = VT exactly */
        changed += st != sw[j];
        sw[j] = st;
    }
    return changed;
}

int nsc_lcs_switch_update(const nsc_lcs *L, const double *z, char *sw)
{
    return nsc_lcs_switch_update_at(L, z, sw, 0);
}

/* ---- the assembler ---- */

void nsc_lcs_free(nsc_lcs *L)
{
    if (!L) return;
    nsc_sp_free(L->E);
    nsc_sp_free(L->A);
    nsc_sp_free(L->B);
    nsc_sp_free(L->C);
    nsc_sp_free(L->D);
    nsc_sp_free(L->Ss);
    nsc_sp_free(L->Se);
    free(L->s0);
    free(L->e0);
    free(L->src);
    if (L->zname)
        for (int k = 0; k < L->n; k++) free(L->zname[k]);
    if (L->pair_name)
        for (int k = 0; k < L->m; k++) free(L->pair_name[k]);
    free(L->zname);
    free(L->pair_name);
    free(L->z_el);
    free(L->pair_el);
    free(L->el_branch);
    free(L->el_pair);
    free(L->z_exact);
    free(L->pair_cont);
    free(L->stepchk);
    nsc_klu_syms_free(L->syms);
    free(L->gmin_node);
    free(L->sw);
    for (int k = 0; k < L->nsm; k++) free(L->sm[k].in);
    free(L->sm);
    if (L->nls) {
        free(L->nls->z);
        free(L->nls->zs);
    }
    free(L->nls);
    free(L);
}

/* Scratch state of one assembly. */
typedef struct asm_work {
    const nsc_circuit *c;
    nsc_asm_mode mode;
    nsc_report *r;
    nsc_dev_ctx ctx;
    nsc_builder b;          /* step 3 */
    nsc_dev_need *need;     /* [nel] */
    int *uf;                /* 2*nnode: ns, vd */
    unsigned char *has_icv; /* [nnode] */
    double *icv;            /* [nnode] */
    int *icloc;             /* [nnode] index of the .ic entry of the node, -1 */
    int *ic_branch;         /* [nnode] OP: z index of the .ic branch, -1 */
    int nicb;               /* OP: number of .ic branches */
    int *el_extra;          /* [nel] */
    int *el_src;            /* [nel] */
    double gall;            /* gmin stepping: a conductance from every node to ground (0: none) */
    int jgmin;              /* 1: gmin across each junction (nsc_lcs_assemble_jgmin) */
} asm_work;

static void work_free(asm_work *w)
{
    for (int q = 0; q < 7; q++) nsc_sp_free(w->b.T[q]);
    free(w->b.sw);
    for (int k = 0; k < w->b.nsm; k++) free(w->b.sm[k].in);
    free(w->b.sm);
    free(w->need);
    free(w->uf);
    free(w->has_icv);
    free(w->icv);
    free(w->icloc);
    free(w->ic_branch);
    free(w->el_extra);
    free(w->el_src);
}

static nsc_status nomem(nsc_report *r)
{
    return nsc_err(r, NSC_ENOMEM, NULL, "out of memory while assembling the circuit equations");
}

/* Name "i(name)" or "i(name)#q" (q > 0) of the q-th branch of an element. */
static char *branch_name(const char *el, int q, int count)
{
    return count > 1 ? nsc_asprintf("i(%s)#%d", el, q) : nsc_asprintf("i(%s)", el);
}

/* Allocate w's arrays; the forests empty, the .ic values by node (the last
 * .ic of a node wins), no .ic branch yet. */
static nsc_status work_init(asm_work *w)
{
    const nsc_circuit *c = w->c;
    int nnode = c->nnode, nel = c->nel;
    w->need = nsc_calloc((size_t)nel + 1, sizeof *w->need);
    w->uf = malloc(sizeof(int) * 2 * (size_t)nnode);
    w->has_icv = nsc_calloc((size_t)nnode, 1);
    w->icv = nsc_calloc((size_t)nnode, sizeof(double));
    w->icloc = malloc(sizeof(int) * (size_t)nnode);
    w->ic_branch = malloc(sizeof(int) * (size_t)nnode);
    w->el_extra = malloc(sizeof(int) * ((size_t)nel + 1));
    w->el_src = malloc(sizeof(int) * ((size_t)nel + 1));
    if (!w->need || !w->uf || !w->has_icv || !w->icv || !w->icloc || !w->ic_branch || !w->el_extra
        || !w->el_src)
        return nomem(w->r);
    for (int k = 0; k < 2 * nnode; k++) w->uf[k] = -1;
    for (int k = 0; k < nnode; k++) w->icloc[k] = w->ic_branch[k] = -1;
    for (int q = 0; q < c->nic; q++) {
        int nd = c->ic_node[q];
        if (nd <= 0 || nd >= nnode) continue;
        w->has_icv[nd] = 1;
        w->icv[nd] = c->ic_val[q];
        w->icloc[nd] = q;
    }
    w->ctx = (nsc_dev_ctx){ c, w->mode, w->r, w->has_icv, w->icv, w->uf, w->uf + nnode };
    return NSC_OK;
}

/* 1 when node nd is a terminal of a capacitor with IC= (any capacitor the
 * device table classes so: C n+ n- value and the charge-based C='f(V)' /
 * Q='q(V)', whose IC= had lost to .ic) */
static int touches_cap_ic(const nsc_circuit *c, int nd)
{
    for (int ei = 0; ei < c->nel; ei++) {
        const nsc_element *e = &c->el[ei];
        const nsc_device *d = nsc_devif_of(c, e->kind);
        if (d && d->topo == NSC_TOPO_CAP && e->has_ic && (e->node[0] == nd || e->node[1] == nd))
            return 1;
    }
    return 0;
}

/* The OP's .ic nodes tied to ground (voltage-defining), a branch offset
 * (0..nicb-1) for each node kept; a node that is already tied is ignored with a
 * warning. Pass 0 comes after the devices of level 0 (sources, controlled
 * sources, B) and before the inductors: an inductor whose short would tie a
 * held node to sources is then a current source of its IC= (0 A) for the
 * operating point (dev_l.c, warned). Pass 1, after every device, holds the
 * nodes of capacitors with IC=, whose IC= keeps precedence over the .ic. */
static void hold_ic_nodes(asm_work *w, int pass)
{
    const nsc_circuit *c = w->c;
    for (int nd = 1; nd < c->nnode; nd++) {
        if (!w->has_icv[nd] || touches_cap_ic(c, nd) != pass) continue;
        if (nsc_dev_link(&w->ctx, nd, 0, NSC_LINK_VD))
            nsc_warn(w->r, &c->ic_loc[w->icloc[nd]],
                     ".ic V(%s) ignored: the operating point ties the node to "
                     "voltage sources (directly, or through capacitors with IC=)",
                     c->node_name[nd]);
        else w->ic_branch[nd] = w->nicb++; /* offset, made absolute by layout() */
    }
}

/* Step 1: every element's needs (late devices after the others) and topology
 * into the forests; in OP, the .ic nodes held (hold_ic_nodes) after the first
 * level and at the end. */
static nsc_status count_all(asm_work *w)
{
    const nsc_circuit *c = w->c;
    for (int late = 0; late < NSC_DEV_LATE_LEVELS; late++) {
        if (late == 1 && w->mode == NSC_ASM_OP) hold_ic_nodes(w, 0);
        for (int ei = 0; ei < c->nel; ei++) {
            const nsc_device *dev = nsc_devif_of(c, c->el[ei].kind);
            if (!dev)
                return nsc_err(w->r, NSC_ENETLIST, &c->el[ei].loc, "unknown element kind of %s",
                               c->el[ei].name);
            if (dev->late != late) continue;
            memset(&w->need[ei], 0, sizeof w->need[ei]);
            nsc_status st = dev->count(&w->ctx, ei, &w->need[ei]);
            if (st) return st;
            if (w->mode == NSC_ASM_TRAN) w->need[ei].nextra = 0;
        }
    }
    if (w->mode == NSC_ASM_OP) hold_ic_nodes(w, 1);
    return NSC_OK;
}

/* The junctions of element e of c that ngspice puts gmin across (devif.h
 * junctions): their node pairs into a[k], b[k] (at most 3); their number. */
static int junctions(const nsc_circuit *c, const nsc_element *e, int *a, int *b)
{
    const nsc_device *d = nsc_devif_of(c, e->kind);
    return d && d->junctions ? d->junctions(e, a, b) : 0;
}

/* jgmin: each junction's gmin is a DC path (the ns forest joins its nodes). */
static void junction_links(asm_work *w)
{
    for (int ei = 0; w->jgmin && ei < w->c->nel; ei++) {
        int a[3], b[3], n = junctions(w->c, &w->c->el[ei], a, b);
        for (int k = 0; k < n; k++) nsc_uf_union(w->ctx.uf_ns, a[k], b[k]);
    }
}

/* gmin (every node has a DC path to ground: nsc_topology_check). One gmin per
 * floating ns-component, at its lowest-numbered node: that is enough to make
 * the component's block nonsingular (it fixes the common mode). gmin at every
 * node would also load every voltage inside the component (leak ~gmin*V across
 * a capacitor); with one gmin per component a current flows through them only
 * around loops through ground that contain two of them (e.g. none in the diode
 * bridge). Fills L->gmin_node[0..ngmin-1]. */
static nsc_status place_gmin(asm_work *w, nsc_lcs *L)
{
    int nnode = w->c->nnode;
    int root_ns = nsc_uf_find(w->ctx.uf_ns, 0), ngmin = 0;
    for (int nd = 1; nd < nnode; nd++)
        if (nsc_uf_find(w->ctx.uf_ns, nd) != root_ns) ngmin++;
    L->gmin_node = malloc(sizeof(int) * ((size_t)ngmin + 1));
    char *seen = calloc((size_t)nnode + 1, 1);
    if (!L->gmin_node || !seen) {
        free(seen);
        return nomem(w->r);
    }
    for (int nd = 1; nd < nnode; nd++) {
        int root = nsc_uf_find(w->ctx.uf_ns, nd);
        if (root == root_ns || seen[root]) continue;
        seen[root] = 1;
        L->gmin_node[L->ngmin++] = nd;
    }
    free(seen);
    return NSC_OK;
}

/* Step 2: z = [node voltages (nz) | transient branches | static extra branches
 * | OP .ic branches], each block in element (node) order; pairs and sources in
 * element order. Sets L->n, m, nsrc, el_branch, el_pair; w->el_extra, el_src,
 * ic_branch (absolute). */
static nsc_status layout(asm_work *w, nsc_lcs *L)
{
    int nel = w->c->nel;
    L->el_branch = malloc(sizeof(int) * ((size_t)nel + 1));
    L->el_pair = malloc(sizeof(int) * ((size_t)nel + 1));
    L->stepchk = malloc(sizeof(int) * ((size_t)nel + 1));
    if (!L->el_branch || !L->el_pair || !L->stepchk) return nomem(w->r);
    int n = L->nnode_z, m = 0, nsrc = 0;
    for (int ei = 0; ei < nel; ei++) {
        L->el_branch[ei] = w->need[ei].nbranch ? n : -1;
        n += w->need[ei].nbranch;
        L->el_pair[ei] = w->need[ei].npair ? m : -1;
        m += w->need[ei].npair;
        if (w->need[ei].npair && nsc_devif_of(w->c, w->c->el[ei].kind)->step_check)
            L->stepchk[L->nstepchk++] = ei;
        w->el_src[ei] = w->need[ei].nsrc ? nsrc : -1;
        nsrc += w->need[ei].nsrc;
    }
    for (int ei = 0; ei < nel; ei++) {
        w->el_extra[ei] = w->need[ei].nextra ? n : -1;
        n += w->need[ei].nextra;
    }
    for (int nd = 1; nd < w->c->nnode; nd++)
        if (w->ic_branch[nd] >= 0) w->ic_branch[nd] += n;
    L->n = n + w->nicb;
    L->m = m;
    L->nsrc = nsrc;
    return NSC_OK;
}

/* The builder over L's vectors: seven empty triplet matrices sized
 * E, A: n x n; B: n x m; C: m x n; D: m x m; Ss: n x nsrc; Se: m x nsrc. */
static nsc_status builder_init(asm_work *w, nsc_lcs *L)
{
    nsc_builder *b = &w->b;
    int n = L->n, m = L->m, nsrc = L->nsrc;
    b->c = w->c;
    b->mode = w->mode;
    b->r = w->r;
    int dims[7][2] = { { n, n }, { n, n }, { n, m }, { m, n }, { m, m }, { n, nsrc }, { m, nsrc } };
    for (int q = 0; q < 7; q++)
        if (!(b->T[q] = nsc_sp_new(dims[q][0], dims[q][1], 4 * (n + m) + 8, 1))) return nomem(w->r);
    b->s0 = L->s0 = nsc_calloc((size_t)n + 1, sizeof(double));
    b->e0 = L->e0 = nsc_calloc((size_t)m + 1, sizeof(double));
    L->src = nsc_calloc((size_t)nsrc + 1, sizeof *L->src);
    b->exact = L->z_exact = nsc_calloc((size_t)n + 1, 1);
    b->cont = L->pair_cont = nsc_calloc((size_t)m + 1, 1);
    if (!L->s0 || !L->e0 || !L->src || !L->z_exact || !L->pair_cont) return nomem(w->r);
    b->el_branch = L->el_branch;
    b->el_extra = w->el_extra;
    b->has_icv = w->has_icv;
    b->icv = w->icv;
    return NSC_OK;
}

/* Step 3: every element's sources (L->src) and stamps; the OP .ic branches
 * (.ic V(nd) as a voltage source nd -> 0: 0 = v_nd - ic); A[i][i] -= gmin at
 * the gmin nodes; then the triplets compressed into L's matrices, the
 * switches handed to L. */
static nsc_status stamp_all(asm_work *w, nsc_lcs *L, double gmin)
{
    const nsc_circuit *c = w->c;
    nsc_builder *b = &w->b;
    for (int ei = 0; ei < c->nel; ei++) {
        const nsc_device *dev = nsc_devif_of(c, c->el[ei].kind);
        nsc_dev_slots s = { L->el_branch[ei], w->el_extra[ei], L->el_pair[ei], w->el_src[ei],
                            w->need[ei].flag };
        for (int q = 0; q < w->need[ei].nsrc; q++)
            L->src[s.src + q] = (nsc_src){ dev->wave ? dev->wave(c, ei, q) : &c->el[ei].wave, ei };
        nsc_status st = dev->stamp ? dev->stamp(b, ei, &s) : NSC_OK;
        if (st) return st;
    }
    for (int nd = 1; nd < c->nnode; nd++) {
        int br = w->ic_branch[nd];
        if (br < 0) continue;
        nsc_st_inc(b, nd, 0, br);
        nsc_st_vrow(b, br, nd, 0, 1.0); /* 0 = v_nd - ic */
        nsc_st_s0(b, br, -w->icv[nd]);
    }
    for (int q = 0; q < L->ngmin; q++) {
        int i = nsc_zn(L->gmin_node[q]);
        if (nsc_sp_entry(b->T[NSC_ST_A], i, i, -gmin)) return nomem(w->r); /* A[i][i] -= gmin */
    }
    for (int ei = 0; w->jgmin && ei < c->nel; ei++) { /* gmin across each junction */
        int ja[3], jb[3], n = junctions(c, &c->el[ei], ja, jb);
        for (int k = 0; k < n; k++)
            if (ja[k] != jb[k]) nsc_st_g(b, ja[k], jb[k], gmin);
    }
    for (int nd = 1; w->gall > 0 && nd < c->nnode; nd++) /* A[i][i] -= gall at every node */
        if (nsc_sp_entry(b->T[NSC_ST_A], nsc_zn(nd), nsc_zn(nd), -w->gall)) return nomem(w->r);
    if (b->nomem) return nomem(w->r);
    L->sw = b->sw;
    L->nsw = b->nsw;
    b->sw = NULL;
    if (b->nsm > 0
        && (!(L->nls = nsc_calloc(1, sizeof *L->nls))
            || !(L->nls->z = nsc_calloc((size_t)L->n, sizeof(double)))
            || !(L->nls->zs = nsc_calloc((size_t)L->n, sizeof(double)))))
        return nomem(w->r);
    L->sm = b->sm;
    L->nsm = b->nsm;
    b->sm = NULL;
    b->nsm = 0;
    nsc_sparse **dst[7] = { &L->E, &L->A, &L->B, &L->C, &L->D, &L->Ss, &L->Se };
    for (int q = 0; q < 7; q++)
        if (!(*dst[q] = nsc_sp_compress(b->T[q]))) return nomem(w->r);
    for (int k = 0; k < L->nsm; k++) /* J's places in A (the pattern holds them) */
        for (int q = 0; q < L->sm[k].nin; q++)
            L->sm[k].apos[q] = nsc_sp_pos(L->A, L->sm[k].row, L->sm[k].in[q]);
    return NSC_OK;
}

/* "name#q" (q >= 0), the string nsc_asprintf("%s#%d") makes, without its two
 * formatting passes: a 1000-stage CMOS chain names its 40 000 pairs in each of
 * its three assemblies (transient, operating point, its polish). NULL: ENOMEM. */
static char *numbered_name(const char *name, int q)
{
    char num[12];
    int k = (int)sizeof num;
    do num[--k] = (char)('0' + q % 10);
    while ((q /= 10) > 0);
    size_t len = strlen(name), nd = sizeof num - (size_t)k;
    char *s = malloc(len + nd + 2);
    if (!s) return NULL;
    memcpy(s, name, len);
    s[len] = '#';
    memcpy(s + len + 1, num + k, nd);
    s[len + 1 + nd] = 0;
    return s;
}

/* Names and owners of z and lambda: v(node), i(el)[#q], i(.ic:node), el[#q];
 * branches own their element (z_el), .ic branches none (-1). A static extra
 * branch becomes the element's el_branch when it has no transient branch. */
static nsc_status name_all(asm_work *w, nsc_lcs *L)
{
    const nsc_circuit *c = w->c;
    int n = L->n, m = L->m;
    L->zname = nsc_calloc((size_t)n + 1, sizeof(char *));
    L->z_el = malloc(sizeof(int) * ((size_t)n + 1));
    L->pair_name = nsc_calloc((size_t)m + 1, sizeof(char *));
    L->pair_el = malloc(sizeof(int) * ((size_t)m + 1));
    if (!L->zname || !L->z_el || !L->pair_name || !L->pair_el) return nomem(w->r);
    for (int k = 0; k < L->nnode_z; k++) {
        L->z_el[k] = -1;
        if (!(L->zname[k] = nsc_asprintf("v(%s)", c->node_name[k + 1]))) return nomem(w->r);
    }
    for (int ei = 0; ei < c->nel; ei++) {
        const nsc_element *e = &c->el[ei];
        const nsc_dev_need *nd = &w->need[ei];
        for (int q = 0; q < nd->nbranch; q++) {
            int k = L->el_branch[ei] + q;
            L->z_el[k] = ei;
            if (!(L->zname[k] = branch_name(e->name, q, nd->nbranch))) return nomem(w->r);
        }
        for (int q = 0; q < nd->nextra; q++) {
            int k = w->el_extra[ei] + q;
            L->z_el[k] = ei;
            if (!(L->zname[k] = branch_name(e->name, q, nd->nextra))) return nomem(w->r);
        }
        if (nd->nbranch == 0 && nd->nextra > 0) L->el_branch[ei] = w->el_extra[ei];
        for (int q = 0; q < nd->npair; q++) {
            int j = L->el_pair[ei] + q;
            L->pair_el[j] = ei;
            L->pair_name[j] = nd->npair > 1 ? numbered_name(e->name, q) : nsc_strdup(e->name);
            if (!L->pair_name[j]) return nomem(w->r);
        }
    }
    for (int nd = 1; nd < c->nnode; nd++) {
        int br = w->ic_branch[nd];
        if (br < 0) continue;
        L->z_el[br] = -1;
        if (!(L->zname[br] = nsc_asprintf("i(.ic:%s)", c->node_name[nd]))) return nomem(w->r);
    }
    return NSC_OK;
}

/* The smooth functions that define a differential unknown (a column of E: a
 * charge, dev_cq.c, depl.c). Such a column is in coulombs, E/h ~ 1e9 beside
 * the 1 of its own row and the node voltages' siemens, and only a
 * column-scaled rcond tells its mode systems from singular ones (la_klu.h). */
static int charge_rows(const nsc_lcs *L)
{
    int nc = 0;
    for (int k = 0; L->E && k < L->nsm; k++) {
        int u = L->sm[k].row; /* the function's own unknown */
        nc += L->E->p[u + 1] > L->E->p[u];
    }
    return nc;
}

nsc_status nsc_lcs_assemble(const nsc_circuit *c, nsc_asm_mode mode, double gmin, nsc_lcs **out,
                            nsc_report *r)
{
    return nsc_lcs_assemble_gall(c, mode, gmin, 0.0, out, r);
}

static nsc_status assemble(const nsc_circuit *c, nsc_asm_mode mode, double gmin, double gall,
                           int jgmin, nsc_lcs **out, nsc_report *r);

nsc_status nsc_lcs_assemble_gall(const nsc_circuit *c, nsc_asm_mode mode, double gmin, double gall,
                                 nsc_lcs **out, nsc_report *r)
{
    return assemble(c, mode, gmin, gall, 0, out, r);
}

nsc_status nsc_lcs_assemble_jgmin(const nsc_circuit *c, nsc_asm_mode mode, double gmin,
                                  nsc_lcs **out, nsc_report *r)
{
    return assemble(c, mode, gmin, 0.0, 1, out, r);
}

static nsc_status assemble(const nsc_circuit *c, nsc_asm_mode mode, double gmin, double gall,
                           int jgmin, nsc_lcs **out, nsc_report *r)
{
    *out = NULL;
    if (c->nnode < 1) return nsc_err(r, NSC_ENETLIST, NULL, "circuit has no ground node");
    if (nsc_topology_check(c, r)) return r->status;
    asm_work w;
    memset(&w, 0, sizeof w);
    w.c = c;
    w.mode = mode;
    w.r = r;
    w.gall = gall;
    w.jgmin = jgmin;
    nsc_lcs *L = nsc_calloc(1, sizeof *L);
    if (!L) return nomem(r);
    L->mode = mode;
    L->nnode_z = c->nnode - 1;
    nsc_status st = work_init(&w);
    if (!st) st = count_all(&w); /* 1. count, topology */
    if (!st) junction_links(&w);
    if (!st) st = place_gmin(&w, L);
    if (!st) st = layout(&w, L); /* 2. layout */
    if (!st) st = builder_init(&w, L);
    if (!st) st = stamp_all(&w, L, gmin); /* 3. stamp */
    if (!st) st = name_all(&w, L);
    if (!st && !(L->syms = nsc_klu_syms_new())) st = nomem(r);
    if (!st && (L->ncharge = charge_rows(L)) > 0) nsc_klu_syms_cols(L->syms);
    work_free(&w);
    if (st) {
        nsc_lcs_free(L);
        return st;
    }
    *out = L;
    return NSC_OK;
}

/* s = s0 + Ss w, e = e0 + Se w, with w_j = value(j) */
static void sources_at(const nsc_lcs *L, double t, int dc, double *w, double *s, double *e)
{
    memcpy(s, L->s0, sizeof(double) * (size_t)L->n);
    memcpy(e, L->e0, sizeof(double) * (size_t)L->m);
    for (int j = 0; j < L->nsrc; j++) {
        double wj = dc ? L->src[j].wave->dc : nsc_wave_eval(L->src[j].wave, t); /* w_j */
        if (w) w[j] = wj;
        for (int q = L->Ss->p[j]; q < L->Ss->p[j + 1]; q++)
            s[L->Ss->i[q]] += L->Ss->x[q] * wj; /* s += Ss(:,j) w_j */
        for (int q = L->Se->p[j]; q < L->Se->p[j + 1]; q++)
            e[L->Se->i[q]] += L->Se->x[q] * wj; /* e += Se(:,j) w_j */
    }
}

void nsc_lcs_sources(const nsc_lcs *L, double t, double *w, double *s, double *e)
{
    sources_at(L, t, 0, w, s, e);
}

void nsc_lcs_sources_dc(const nsc_lcs *L, double *w, double *s, double *e)
{
    sources_at(L, 0.0, 1, w, s, e);
}

/* 1 when x[0..n) are all finite: 0 x is 0 for each, NaN for NaN and +-inf
 * (four sums: no chain of dependent additions in a check run at every step) */
static inline int all_finite(const double *x, int n)
{
    double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        a0 += 0 * x[i];
        a1 += 0 * x[i + 1];
        a2 += 0 * x[i + 2];
        a3 += 0 * x[i + 3];
    }
    for (; i < n; i++) a0 += 0 * x[i];
    return a0 + a1 + a2 + a3 == 0;
}

/* The checks of nsc_lcs_check_step, each naming what failed (out of line: the
 * caller's common path keeps a small frame). */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static nsc_status
check_step_named(const nsc_lcs *L, const nsc_circuit *c, const double *w, const double *z,
                 const double *l, double t, nsc_report *r)
{
    if (w && !all_finite(w, L->nsrc))
        for (int j = 0; j < L->nsrc; j++)
            if (!isfinite(w[j]))
                return nsc_err(r, NSC_ESIM, NULL, "time %.9g s: the value of %s is %s", t,
                               c->el[L->src[j].el].name,
                               isnan(w[j]) ? "not a number (NaN)" : "infinite");
    if (z && !all_finite(z, L->n))
        for (int i = 0; i < L->n; i++)
            if (!isfinite(z[i]))
                return nsc_err(r, NSC_ESIM, NULL, "time %.9g s: %s is %s", t, L->zname[i],
                               isnan(z[i]) ? "not a number (NaN)" : "infinite");
    for (int k = 0; l && k < L->nstepchk; k++) {
        int ei = L->stepchk[k];
        nsc_status st = nsc_devif_of(c, c->el[ei].kind)->step_check(L, c, ei, l, t, r);
        if (st) return st;
    }
    return NSC_OK;
}

/* Every step calls this twice: the common case (all finite, no step_check) is
 * the two sums alone, without the named checks' frame. */
nsc_status nsc_lcs_check_step(const nsc_lcs *L, const nsc_circuit *c, const double *w,
                              const double *z, const double *l, double t, nsc_report *r)
{
    if ((w && !all_finite(w, L->nsrc)) || (z && !all_finite(z, L->n)) || (l && L->nstepchk > 0))
        return check_step_named(L, c, w, z, l, t, r);
    return NSC_OK;
}
