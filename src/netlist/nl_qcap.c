/* nl_qcap.c -- the card of a charge-based (voltage-dependent) capacitor:
 *
 *     C n+ n- C='f(V(n+,n-))' [IC=v0] [m=x]     capacitance f(v), F
 *     C n+ n- Q='q(V(n+,n-))' [IC=v0] [m=x]     charge q(v), C
 *
 * (ngspice 39 reads both; a bare 'expr' reading V() is C=). The expression may
 * read the capacitor's own voltage only: V(n+,n-), V(n-,n+), V(n+) when n- is
 * ground, V(n-) when n+ is; parameters and the smooth functions of base/xfn.h
 * (no time, no current, no other node). It becomes the element's charge, a
 * smooth function (devices/bprog.h nsc_bsmooth, the one of the element's program, its priv) of its inputs
 * V(n+), V(n-) (ground left out), solved as a charge by dev_cq.c:
 *   Q=:  q(v) = m * expr(v);
 *   C=:  q(v) = m * int_0^v f(u) du = m * v * sum_i w_i f(x_i v), Gauss-Legendre
 *        of QCAP_NGL points on [0, 1] (x_i, w_i): exact for a polynomial f of
 *        degree < 2 QCAP_NGL, and dq/dv = f(v) to the rule's error otherwise
 *        (a charge, so the integration conserves it; ngspice integrates
 *        i = f(v) dv/dt instead: the same waveform as the step goes to 0). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_elab.h"
#include "nl_probe.h"
#include "devices/bprog.h"

#define QCAP_NGL 8
static const double GL_T[QCAP_NGL / 2] = { 0.1834346424956498, 0.5255324099163290,
                                           0.7966664774136267,
                                           0.9602898564975363 }; /* nodes on [-1, 1], +- */
static const double GL_W[QCAP_NGL / 2] = { 0.3626837833783620, 0.3137066458778873,
                                           0.2223810344533745,
                                           0.1012285362903763 }; /* their weights */

/* does e read an unknown or the time (V(), I(), time)? */
static int reads_unknown(const nl_expr *e)
{
    return nl_probe_reads(e, 1);
}

const nl_field *nle_cq_field(const nl_card *cd, int *isq)
{
    char key[8];
    for (int i = 3; i < cd->nf; i++) {
        const nl_field *f = &cd->f[i];
        const char *kk = nle_pair_key(f, key, sizeof key);
        const nl_field *v = !kk ? f : &f->sub[1];
        *isq = kk && !strcmp(kk, "q");
        if (*isq || ((!kk || !strcmp(kk, "c")) && v->kind == NL_F_EXPR && reads_unknown(v->u.x)))
            return v;
    }
    return NULL;
}

/* the compilation of f(v): code with PROBE 0 = v = V(n+) - V(n-) */
typedef struct qsink {
    elab *E;
    scope *sc;
    const nl_card *cd;
    const nl_env *env;
    int n[2]; /* the capacitor's nodes */
    nsc_xinstr *code;
    int ncode, cap;
} qsink;

static nsc_status q_emit(void *ctx, nsc_xinstr in, nsc_report *r)
{
    qsink *S = ctx;
    if (nsc_grow((void **)&S->code, &S->cap, S->ncode + 1, sizeof *S->code)) return nsc_oom(r);
    S->code[S->ncode++] = in;
    return NSC_OK;
}

/* V(x[,y]) as +-v: the sign, 0 when it is not the capacitor's own voltage */
static int own_voltage(qsink *S, const nl_expr *e, int *sign)
{
    const char *a, *b;
    int idx[2];
    *sign = 0;
    if (!nl_probe_args(e, &a, &b)) return NSC_OK;
    const char *nm[2] = { a, b ? b : "0" };
    for (int k = 0; k < 2; k++) {
        nl_field f = { NL_F_WORD, e->line, e->col, 0, { nm[k] }, NULL };
        if (k == 1 && e->nargs == 1) idx[1] = 0;
        else if (nle_node(S->E, S->sc, S->cd, &f, &idx[k])) return S->E->r->status;
    }
    *sign = idx[0] == S->n[0] && idx[1] == S->n[1]   ? 1
            : idx[0] == S->n[1] && idx[1] == S->n[0] ? -1
                                                     : 0;
    return NSC_OK;
}

static nsc_status q_leaf(void *ctx, const nl_expr *e, int *done, nsc_report *r)
{
    qsink *S = ctx;
    nsc_status st;
    if (!reads_unknown(e)) {
        nsc_xinstr in = { NSC_XOP_NUM, 0, 0, 0 };
        if ((st = nl_expr_eval(e, S->env, &in.num, r))) return st;
        *done = 1;
        return q_emit(ctx, in, r);
    }
    int sign = 0;
    int kind = nl_probe_kind(e);
    if (kind == NSC_PROBE_V && (st = own_voltage(S, e, &sign))) return st;
    if (e->op == NL_X_PARAM || kind == NSC_PROBE_I || (kind == NSC_PROBE_V && !sign)) {
        char *t = nl_expr_text(e);
        nsc_loc loc = { S->env->file, e->line, e->col };
        st = nsc_err(r, NSC_ENETLIST, &loc,
                     "capacitor %s: its value may read only its own voltage V(%s%s%s), "
                     "not '%s'%s",
                     S->cd->f[0].u.s, S->E->c->node_name[S->n[0]], S->n[1] ? "," : "",
                     S->n[1] ? S->E->c->node_name[S->n[1]] : "", t ? t : "?",
                     S->env->where ? S->env->where : "");
        free(t);
        return st;
    }
    if (kind != NSC_PROBE_V) return NSC_OK;
    *done = 1;
    st = q_emit(ctx, (nsc_xinstr){ NSC_XOP_PROBE, 0, 0, 0 }, r);
    return st || sign > 0 ? st : q_emit(ctx, (nsc_xinstr){ NSC_XOP_NEG, 0, 0, 0 }, r);
}

/* v = V(n+) - V(n-) over the inputs (PROBE 0 the first non-ground node) */
static nsc_status emit_v(qsink *S, nsc_xinstr *out, int *k)
{
    int q = 0;
    if (S->n[0]) out[(*k)++] = (nsc_xinstr){ NSC_XOP_PROBE, q++, 0, 0 };
    else out[(*k)++] = (nsc_xinstr){ NSC_XOP_NUM, 0, 0, 0 };
    if (S->n[1]) {
        out[(*k)++] = (nsc_xinstr){ NSC_XOP_PROBE, q, 0, 0 };
        out[(*k)++] = (nsc_xinstr){ NSC_XOP_SUB, 0, 0, 0 };
    }
    return NSC_OK;
}

/* f's code (PROBE 0 = v) at x v into out from *k: each PROBE 0 becomes v x */
static void emit_at(qsink *S, const nsc_xinstr *f, int nf, double x, nsc_xinstr *out, int *k)
{
    for (int i = 0; i < nf; i++) {
        if (f[i].op != NSC_XOP_PROBE) {
            out[(*k)++] = f[i];
            continue;
        }
        emit_v(S, out, k);
        if (x != 1) {
            out[(*k)++] = (nsc_xinstr){ NSC_XOP_NUM, 0, 0, x };
            out[(*k)++] = (nsc_xinstr){ NSC_XOP_MUL, 0, 0, 0 };
        }
    }
}

/* the charge's code from f's (see the header): Q= q = m f(v); C= q = m v sum w_i f(x_i v) */
static nsc_xinstr *charge_code(qsink *S, int isq, double m, int *n)
{
    int nf = S->ncode, per = nf * 5 + 2, k = 0; /* a PROBE grows to at most 5 */
    nsc_xinstr *out = malloc(sizeof *out * ((size_t)per * QCAP_NGL + 8));
    if (!out) return NULL;
    if (isq) emit_at(S, S->code, nf, 1.0, out, &k);
    for (int i = 0; !isq && i < QCAP_NGL; i++) {
        double t = GL_T[i / 2] * (i % 2 ? -1 : 1);
        emit_at(S, S->code, nf, 0.5 * (1 + t), out, &k); /* f(x_i v), x_i = (1 + t_i)/2 */
        out[k++] = (nsc_xinstr){ NSC_XOP_NUM, 0, 0, 0.5 * GL_W[i / 2] };
        out[k++] = (nsc_xinstr){ NSC_XOP_MUL, 0, 0, 0 };
        if (i) out[k++] = (nsc_xinstr){ NSC_XOP_ADD, 0, 0, 0 };
    }
    if (!isq) {
        emit_v(S, out, &k);
        out[k++] = (nsc_xinstr){ NSC_XOP_MUL, 0, 0, 0 };
    }
    if (m != 1) {
        out[k++] = (nsc_xinstr){ NSC_XOP_NUM, 0, 0, m };
        out[k++] = (nsc_xinstr){ NSC_XOP_MUL, 0, 0, 0 };
    }
    *n = k;
    return out;
}

/* element el's program (its priv, a devices/bprog.h nsc_bprog): one smooth function, the charge (code), inputs its nodes */
static nsc_status store(elab *E, qsink *S, int el, nsc_xinstr *code, int ncode)
{
    nsc_bprog *p = calloc(1, sizeof *p);
    nsc_bsmooth *s = p ? calloc(1, sizeof *s) : NULL;
    nsc_bterm *in = s ? calloc(2, sizeof *in) : NULL;
    if (!in) {
        free(p);
        free(s);
        free(code);
        return nle_oom(E);
    }
    for (int k = 0; k < 2; k++)
        if (S->n[k]) in[s->nin++] = (nsc_bterm){ NSC_BT_V, S->n[k], 1.0 };
    s->in = in;
    s->code = code;
    s->ncode = ncode;
    p->sm = s;
    p->nsm = 1;
    E->c->el[el].priv = p; /* the device's data (dev_cq.c) */
    E->c->el[el].priv_free = nsc_bprog_free;
    return NSC_OK;
}

/* the fields other than the value: IC= and m= read, others warned about */
static nsc_status other_fields(elab *E, scope *sc, const nl_card *cd, const nl_field *vf, int el,
                               double *m)
{
    char key[16];
    for (int i = 3; i < cd->nf; i++) {
        const nl_field *f = &cd->f[i];
        const char *kk = nle_pair_key(f, key, sizeof key);
        if (f == vf || (kk && &f->sub[1] == vf)) continue;
        if (kk && (!strcmp(kk, "ic") || !strcmp(kk, "m"))) {
            double v;
            if (nle_value(E, sc, cd, &f->sub[1], &v)) return E->r->status;
            if (kk[0] == 'm' && !(v > 0))
                return nle_err(E, sc, cd, f, "m of %s must be positive", cd->f[0].u.s);
            if (kk[0] == 'm') *m = v;
            else {
                E->c->el[el].has_ic = 1;
                E->c->el[el].ic = v;
            }
        } else nle_warn(E, sc, cd, f, "'%s' of capacitor %s ignored", nle_ftext(f), cd->f[0].u.s);
    }
    return NSC_OK;
}

nsc_status nle_card_cq(elab *E, scope *sc, const nl_card *cd, const nl_field *vf, int isq)
{
    int el;
    double m = 1;
    if (nle_element_new(E, sc, cd, NSC_EL_CQ, &el) || nle_nodes(E, sc, cd, el, 2))
        return E->r->status;
    if (vf->kind != NL_F_EXPR)
        return nle_err(E, sc, cd, vf, "capacitor %s: Q= needs an expression of V(n+,n-)",
                       cd->f[0].u.s);
    if (other_fields(E, sc, cd, vf, el, &m)) return E->r->status;
    nl_env env = { nle_scope_lookup, sc, E->d->files[cd->file], sc->where, E->funcs, E->nfunc };
    qsink S = { E, sc, cd, &env, { E->c->el[el].node[0], E->c->el[el].node[1] }, NULL, 0, 0 };
    nl_xcomp C = { q_emit, q_leaf, 0, NULL, &S, env.file, NULL, NULL };
    nl_arena ar = { 0 };
    const nl_expr *xe;
    nsc_status st = nl_expr_expand(vf->u.x, &env, &ar, &xe, E->r);
    if (!st) st = nl_expr_compile(xe, &C, E->r);
    nl_arena_free(&ar);
    int n = 0;
    nsc_xinstr *code = st ? NULL : charge_code(&S, isq, m, &n);
    free(S.code);
    if (st) return st;
    if (!code) return nle_oom(E);
    int d = nsc_xdepth(code, n);
    double x[2] = { 0, 0 }, g[2], *w = malloc(sizeof(double) * (size_t)(d + 1) * 3);
    double q0 = w ? nsc_xrun_grad(code, n, x, 2, w, w + d + 1, g) : NAN;
    free(w);
    if (!isfinite(q0) || !isfinite(g[0]) || !isfinite(g[1])) {
        free(code);
        return nle_err(E, sc, cd, vf,
                       "capacitor %s: %s= must be a function of V(n+,n-) with a derivative, "
                       "finite at 0 V (no nonsmooth functions)",
                       cd->f[0].u.s, isq ? "Q" : "C");
    }
    return store(E, &S, el, code, n);
}

/* ---- junction capacitances made by the elaborator (a VDMOS's CJO: devices/cards_expand.c through the view's op->charge) ---- */

/* element el's charge: code[0 .. n) (PROBEs: its nodes not ground, as emit_v's), copied */
nsc_status nle_cq_code(elab *E, int el, const nsc_xinstr *code, int n)
{
    nsc_element *e = &E->c->el[el];
    qsink S = { E, NULL, NULL, NULL, { e->node[0], e->node[1] }, NULL, 0, 0 };
    nsc_xinstr *c = malloc(sizeof *c * (size_t)n);
    if (!c) return nle_oom(E);
    memcpy(c, code, sizeof *c * (size_t)n);
    return store(E, &S, el, c, n);
}

nsc_status nle_cq_scale(elab *E, int el, double m)
{
    nsc_bsmooth *s = ((nsc_bprog *)E->c->el[el].priv)->sm;
    nsc_xinstr *c = realloc(s->code, sizeof *c * ((size_t)s->ncode + 2));
    if (!c) return nle_oom(E);
    c[s->ncode++] = (nsc_xinstr){ NSC_XOP_NUM, 0, 0, m };
    c[s->ncode++] = (nsc_xinstr){ NSC_XOP_MUL, 0, 0, 0 };
    s->code = c;
    return NSC_OK;
}
