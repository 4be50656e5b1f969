/* nl_pwl.c -- behavioural expressions as exact piecewise-linear programs (see
 * nl_pwl.h and devices/bprog.h nsc_bprog).
 *
 * The compiler evaluates the tree in affine arithmetic: a value is an affine
 * form c + sum coef * (V | I | a_k). Every nonsmooth operation becomes one
 * auxiliary value of an affine argument, in the order it is met, so an
 * argument only uses earlier auxiliaries:
 *   max(0, z)   ramp(z)                        min(a, b) = a - ramp(a - b)
 *   H(z)        step(z) in {0, 1}              max(a, b) = b + ramp(a - b)
 *   a > b       H(a - b)                       abs(z)    = 2 ramp(z) - z
 *   c ? p : q   q + (p - q) H   (p - q const)  sgn(z)    = H(z) - H(-z)
 *   u(z) = (sgn(z) + 1) / 2 (ngspice's B source: u(0) = 1/2, sgn(0) = 0)
 *   c1 && c2    min(c1, c2)     c1 || c2 = max(c1, c2)    !c = 1 - c
 *   limit(x, lo, hi) = max(lo, min(x, hi))
 * Comparison results are "boolean" (0 or 1); && || ! ?: need boolean operands.
 * A subexpression smooth in V() and I() (products, quotients, powers, the smooth
 * functions of base/xfn.h; no time, no nonsmooth part) with no affine form is
 * compiled as a whole to code (nsc_bsmooth), the largest such subtree met from
 * the top: a term s_k of the affine forms, solved by Newton (onestep_nl.c). */
#include "nl_pwl.h"
#include "nl_probe.h"

#include "base/xfn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct aff {
    double c;
    nsc_bterm *t;
    int n, cap;
    int boolean; /* value is 0 or 1 (a comparison or a logic combination) */
} aff;

typedef struct pctx {
    const nl_pwl_env *env;
    nsc_report *r;
    nsc_bprog *p;
    int capterm, capop;
    char **iname; /* names of the I() references, index = elref slot */
    int capiname;
} pctx;

static nsc_status oom(pctx *P)
{
    return nsc_oom(P->r);
}

/* "msg: 'subexpression'" at e's position */
static nsc_status fail(pctx *P, const nl_expr *e, const char *msg)
{
    nsc_loc loc = { P->env->ev->file, e->line, e->col };
    const char *w = P->env->ev->where ? P->env->ev->where : "";
    char *t = nl_expr_text(e);
    if (!t) return oom(P);
    if (strlen(t) > 80) strcpy(t + 72, "..."); /* quote the start of a long one */
    nsc_status st = nsc_err(P->r, NSC_ENETLIST, &loc, "%s: '%s'%s", msg, t, w);
    free(t);
    return st;
}

static void aff_free(aff *a)
{
    free(a->t);
    memset(a, 0, sizeof *a);
}

static int aff_is_const(const aff *a)
{
    return a->n == 0;
}

/* a += s * (kind idx), merging like terms and dropping zeros. 0 ok, -1 ENOMEM. */
static int aff_addterm(aff *a, nsc_btkind kind, int idx, double s)
{
    for (int k = 0; k < a->n; k++)
        if (a->t[k].kind == kind && a->t[k].idx == idx) {
            a->t[k].coef += s;
            if (a->t[k].coef == 0) a->t[k] = a->t[--a->n];
            return 0;
        }
    if (s == 0) return 0;
    if (nsc_grow((void **)&a->t, &a->cap, a->n + 1, sizeof *a->t)) return -1;
    a->t[a->n++] = (nsc_bterm){ kind, idx, s };
    return 0;
}

/* a += s * b */
static int aff_axpy(aff *a, double s, const aff *b)
{
    a->c += s * b->c;
    for (int k = 0; k < b->n; k++)
        if (aff_addterm(a, b->t[k].kind, b->t[k].idx, s * b->t[k].coef)) return -1;
    a->boolean = 0;
    return 0;
}

static void aff_scale(aff *a, double s)
{
    a->c *= s;
    for (int k = 0; k < a->n; k++) a->t[k].coef *= s;
    if (s == 0) a->n = 0;
    a->boolean = 0;
}

/* *dst = s * a + t * b (new form) */
static int aff_comb(aff *dst, double s, const aff *a, double t, const aff *b)
{
    memset(dst, 0, sizeof *dst);
    if (aff_axpy(dst, s, a) || (b && aff_axpy(dst, t, b))) {
        aff_free(dst);
        return -1;
    }
    return 0;
}

/* Copy a's terms into the program: *f = the stored form. */
static int store(pctx *P, const aff *a, nsc_baff *f)
{
    nsc_bprog *p = P->p;
    if (nsc_grow((void **)&p->term, &P->capterm, p->nterm + a->n, sizeof *p->term)) return -1;
    f->c = a->c;
    f->t0 = p->nterm;
    f->nt = a->n;
    if (a->n > 0) memcpy(p->term + p->nterm, a->t, (size_t)a->n * sizeof *a->t);
    p->nterm += a->n;
    return 0;
}

/* *out = new auxiliary ramp(z) or step(z); z is consumed (freed). */
static nsc_status aux(pctx *P, int step, aff *z, aff *out)
{
    memset(out, 0, sizeof *out);
    if (aff_is_const(z)) { /* fold: H strict, H(0) = 0 */
        out->c = step ? (z->c > 0) : fmax(0, z->c);
        out->boolean = step;
        aff_free(z);
        return NSC_OK;
    }
    nsc_bprog *p = P->p;
    if (nsc_grow((void **)&p->op, &P->capop, p->nop + 1, sizeof *p->op)
        || store(P, z, &p->op[p->nop].arg)) {
        aff_free(z);
        return oom(P);
    }
    aff_free(z);
    p->op[p->nop].step = step;
    if (aff_addterm(out, NSC_BT_AUX, p->nop++, 1.0)) return oom(P);
    out->boolean = step;
    return NSC_OK;
}

static nsc_status ramp_of(pctx *P, aff *z, aff *out)
{
    return aux(P, 0, z, out);
}

/* out = b + ramp(a - b) (max) or a - ramp(a - b) (min); a, b consumed */
static nsc_status minmax(pctx *P, int ismax, aff *a, aff *b, aff *out)
{
    if (P->env->mirror) { /* max(a, b) = max(b, a): a + ramp(b - a) */
        aff *t = a;
        a = b;
        b = t;
    }
    int both = a->boolean && b->boolean;
    aff d, r;
    nsc_status st = NSC_OK;
    if (aff_comb(&d, 1, a, -1, b)) st = oom(P);
    else if (!(st = ramp_of(P, &d, &r))) {
        if (aff_comb(out, 1, ismax ? b : a, ismax ? 1 : -1, &r)) st = oom(P);
        else out->boolean = both;
        aff_free(&r);
    }
    aff_free(a);
    aff_free(b);
    return st;
}

/* out = sgn(z) = H(z) - H(-z): 0 at z = 0 as ngspice's sgn(); z consumed */
static nsc_status sign_of(pctx *P, aff *z, aff *out)
{
    aff m, hp, hm;
    if (aff_comb(&m, -1, z, 0, NULL)) {
        aff_free(z);
        return oom(P);
    }
    nsc_status st = aux(P, 1, z, &hp);
    if (st) {
        aff_free(&m);
        return st;
    }
    if ((st = aux(P, 1, &m, &hm))) {
        aff_free(&hp);
        return st;
    }
    st = aff_comb(out, 1, &hp, -1, &hm) ? oom(P) : NSC_OK;
    aff_free(&hp);
    aff_free(&hm);
    return st;
}

/* does e depend on the circuit's unknowns (V(), I(), time)? */
static int has_unknown(const nl_expr *e)
{
    return nl_probe_reads(e, 1);
}

static nsc_status compile(pctx *P, const nl_expr *e, aff *out);

/* does e depend on V() or I() (not only on time and parameters)? */
static int has_vi(const nl_expr *e)
{
    return nl_probe_reads(e, 0);
}

/* the built-in function of call e when it is of class cls with e's arity, else NULL */
static const nsc_xfn *builtin(const nl_expr *e, nsc_xfn_class cls)
{
    int id = nsc_xfn_find(e->name);
    const nsc_xfn *f = id >= 0 ? nsc_xfn_at(id) : NULL;
    return f && f->cls == cls && f->nargs == e->nargs ? f : NULL;
}

/* can e (of time and parameters) be a smooth waveform: numbers, names,
 * + - * / ^ and the smooth functions of base/xfn.h? */
static int smooth(const nl_expr *e)
{
    switch (e->op) {
    case NL_X_NUM:
    case NL_X_PARAM: return 1;
    case NL_X_NEG: return smooth(e->a);
    case NL_X_ADD:
    case NL_X_SUB:
    case NL_X_MUL:
    case NL_X_DIV:
    case NL_X_POW: return smooth(e->a) && smooth(e->b);
    case NL_X_CALL:
        if (!builtin(e, NSC_XFN_SMOOTH)) return 0;
        for (const nl_expr *a = e->a; a; a = a->next)
            if (!smooth(a)) return 0;
        return 1;
    default: return 0;
    }
}

#define NL_WSTACK 64 /* source_wave.c's evaluation stack */

/* The waveform being compiled (nl_expr_compile): its code, grown */
typedef struct wsink {
    pctx *P;
    nsc_wave *w;
    int cap;
} wsink;

static nsc_status wave_emit(void *ctx, nsc_xinstr in, nsc_report *r)
{
    wsink *S = ctx;
    if (nsc_grow((void **)&S->w->code, &S->cap, S->w->ncode + 1, sizeof *S->w->code))
        return nsc_oom(r);
    S->w->code[S->w->ncode++] = in;
    return NSC_OK;
}

/* the leaves of a waveform of time: a subtree without time is a number, the
 * name left (time) the TIME load */
static nsc_status wave_leaf(void *ctx, const nl_expr *e, int *done, nsc_report *r)
{
    wsink *S = ctx;
    nsc_xinstr in = { NSC_XOP_NUM, 0, 0, 0 };
    if (!has_unknown(e)) {
        nsc_status st = nl_expr_eval(e, S->P->env->ev, &in.num, r);
        if (st) return st;
    } else if (e->op == NL_X_PARAM) in.op = NSC_XOP_TIME;
    else return NSC_OK; /* an operator or a smooth function */
    *done = 1;
    return wave_emit(ctx, in, r);
}

static nsc_status wave_deep(void *ctx, const nl_expr *e, nsc_report *r)
{
    return fail(((wsink *)ctx)->P, e, "expression of time too deeply nested for a waveform");
}

/* e, a smooth function of time, as the program's waveform k: out = w_k(t).
 * Its value at t = 0 (the operating point's) must be finite. */
static nsc_status time_wave(pctx *P, const nl_expr *e, aff *out)
{
    nsc_bprog *p = P->p;
    nsc_wave *tw = realloc(p->tw, sizeof *tw * ((size_t)p->ntw + 1));
    if (!tw) return oom(P);
    p->tw = tw;
    nsc_wave *w = &tw[p->ntw++];
    memset(w, 0, sizeof *w);
    w->kind = NSC_WAVE_EXPR;
    wsink S = { P, w, 0 };
    nl_xcomp C = { wave_emit, wave_leaf, NL_WSTACK, wave_deep, &S, P->env->ev->file, NULL, NULL };
    nsc_status st = nl_expr_compile(e, &C, P->r);
    if (st) return st;
    w->dc = nsc_wave_eval(w, 0);
    if (!isfinite(w->dc)) return fail(P, e, "this function of time is not finite at t = 0");
    return aff_addterm(out, NSC_BT_W, p->ntw - 1, 1.0) ? oom(P) : NSC_OK;
}

/* ---- smooth nonlinear functions of unknowns (nsc_bsmooth) ---- */

/* is e smooth in node voltages and currents: numbers and parameters (no
 * time), V() I(), + - * / ^ and the smooth functions of base/xfn.h? */
static int smooth_vi(const nl_expr *e)
{
    if (!has_unknown(e)) return 1; /* a number */
    switch (e->op) {
    case NL_X_NEG: return smooth_vi(e->a);
    case NL_X_ADD:
    case NL_X_SUB:
    case NL_X_MUL:
    case NL_X_DIV:
    case NL_X_POW: return smooth_vi(e->a) && smooth_vi(e->b);
    case NL_X_CALL:
        if (nl_probe_kind(e) >= 0 && e->nargs >= 1) return 1;
        if (!builtin(e, NSC_XFN_SMOOTH)) return 0;
        for (const nl_expr *a = e->a; a; a = a->next)
            if (!smooth_vi(a)) return 0;
        return 1;
    default: return 0; /* time, comparisons, ?: */
    }
}

/* does e (smooth_vi) need the smooth form: a product or quotient of unknowns,
 * a power or a smooth function of one? (else it is affine: the PWL compile) */
static int nonlinear(const nl_expr *e)
{
    if (!has_vi(e)) return 0;
    switch (e->op) {
    case NL_X_NEG: return nonlinear(e->a);
    case NL_X_ADD:
    case NL_X_SUB: return nonlinear(e->a) || nonlinear(e->b);
    case NL_X_MUL: return (has_vi(e->a) && has_vi(e->b)) || nonlinear(e->a) || nonlinear(e->b);
    case NL_X_DIV: return has_vi(e->b) || nonlinear(e->a);
    case NL_X_CALL: return nl_probe_kind(e) < 0;
    default: return 1; /* ^ */
    }
}

/* The smooth function being compiled: its code and inputs, grown */
typedef struct ssink {
    pctx *P;
    nsc_bsmooth *s;
    int cap, capin;
} ssink;

static nsc_status sm_emit(void *ctx, nsc_xinstr in, nsc_report *r)
{
    ssink *S = ctx;
    if (nsc_grow((void **)&S->s->code, &S->cap, S->s->ncode + 1, sizeof *S->s->code))
        return nsc_oom(r);
    S->s->code[S->s->ncode++] = in;
    return NSC_OK;
}

/* PROBE of input (kind, idx), added when new */
static nsc_status sm_input(ssink *S, const nsc_bterm *t, nsc_report *r)
{
    nsc_bsmooth *s = S->s;
    int q = 0;
    while (q < s->nin && (s->in[q].kind != t->kind || s->in[q].idx != t->idx)) q++;
    if (q == s->nin) {
        if (nsc_grow((void **)&s->in, &S->capin, s->nin + 1, sizeof *s->in)) return nsc_oom(r);
        s->in[s->nin++] = (nsc_bterm){ t->kind, t->idx, 1.0 };
    }
    return sm_emit(S, (nsc_xinstr){ NSC_XOP_PROBE, q, 0, 0 }, r);
}

static nsc_status probe(pctx *P, const nl_expr *e, aff *out);

/* the leaves: a subtree without unknowns is a number, V(a[,b]) and I(v) the
 * sum of their terms' PROBEs times their coefficients (+-1) */
static nsc_status sm_leaf(void *ctx, const nl_expr *e, int *done, nsc_report *r)
{
    ssink *S = ctx;
    nsc_status st = NSC_OK;
    if (!has_unknown(e)) {
        nsc_xinstr in = { NSC_XOP_NUM, 0, 0, 0 };
        if ((st = nl_expr_eval(e, S->P->env->ev, &in.num, r))) return st;
        *done = 1;
        return sm_emit(ctx, in, r);
    }
    if (nl_probe_kind(e) < 0) return NSC_OK;
    aff a;
    if ((st = probe(S->P, e, &a))) return st;
    *done = 1;
    if (a.n == 0) st = sm_emit(ctx, (nsc_xinstr){ NSC_XOP_NUM, 0, 0, 0 }, r); /* V(x, x), V(0) */
    for (int k = 0; k < a.n && !st; k++) {
        st = sm_input(S, &a.t[k], r);
        if (!st && a.t[k].coef != 1)
            st = sm_emit(ctx, (nsc_xinstr){ NSC_XOP_NUM, 0, 0, a.t[k].coef }, r);
        if (!st && a.t[k].coef != 1) st = sm_emit(ctx, (nsc_xinstr){ NSC_XOP_MUL, 0, 0, 0 }, r);
        if (!st && k > 0) st = sm_emit(ctx, (nsc_xinstr){ NSC_XOP_ADD, 0, 0, 0 }, r);
    }
    aff_free(&a);
    return st;
}

static nsc_status sm_deep(void *ctx, const nl_expr *e, nsc_report *r)
{
    return fail(((ssink *)ctx)->P, e, "smooth expression too deeply nested");
}

/* e (smooth_vi and nonlinear) as the program's smooth function k: out = s_k */
static nsc_status smooth_fn(pctx *P, const nl_expr *e, aff *out)
{
    nsc_bprog *p = P->p;
    nsc_bsmooth *sm = realloc(p->sm, sizeof *sm * ((size_t)p->nsm + 1));
    if (!sm) return oom(P);
    p->sm = sm;
    nsc_bsmooth *s = &sm[p->nsm++];
    memset(s, 0, sizeof *s);
    ssink S = { P, s, 0, 0 };
    nl_xcomp C = { sm_emit, sm_leaf, NL_WSTACK, sm_deep, &S, P->env->ev->file, NULL, NULL };
    nsc_status st = nl_expr_compile(e, &C, P->r);
    if (st) return st;
    return aff_addterm(out, NSC_BT_S, p->nsm - 1, 1.0) ? oom(P) : NSC_OK;
}

static nsc_status probe(pctx *P, const nl_expr *e, aff *out)
{
    memset(out, 0, sizeof *out);
    int iv = nl_probe_kind(e) == NSC_PROBE_V;
    const char *a, *b;
    if (!nl_probe_args(e, &a, &b))
        return fail(P, e, iv ? "expected V(node) or V(node1,node2)" : "expected I(voltage source)");
    nsc_status st;
    if (iv) {
        int n1 = 0, n2 = 0;
        if ((st = P->env->node(P->env->ctx, a, e->a, &n1, P->r))) return st;
        if (b && (st = P->env->node(P->env->ctx, b, e->a->next, &n2, P->r))) return st;
        if ((n1 && aff_addterm(out, NSC_BT_V, n1, 1.0))
            || (n2 && aff_addterm(out, NSC_BT_V, n2, -1.0)))
            return oom(P);
        return NSC_OK;
    }
    nsc_bprog *p = P->p;
    int k = 0;
    while (k < p->nelref && strcmp(P->iname[k], a)) k++;
    if (k == p->nelref) {
        if (nsc_grow((void **)&P->iname, &P->capiname, k + 1, sizeof *P->iname)
            || !(P->iname[k] = nsc_strdup(a)))
            return oom(P);
        int *er = realloc(p->elref, sizeof *er * ((size_t)k + 1));
        if (!er) {
            free(P->iname[k]);
            return oom(P);
        }
        p->elref = er;
        er[k] = -1;
        p->nelref++;
        if ((st = P->env->branch(P->env->ctx, a, e->a, k, P->r))) return st;
    }
    return aff_addterm(out, NSC_BT_I, k, 1.0) ? oom(P) : NSC_OK;
}

/* compile the n arguments of call e into a[0..n) (freed on error) */
static nsc_status args(pctx *P, const nl_expr *e, aff *a, int n)
{
    int k = 0;
    for (const nl_expr *x = e->a; x && k < n; x = x->next, k++) {
        nsc_status st = compile(P, x, &a[k]);
        if (st) {
            while (k-- > 0) aff_free(&a[k]);
            return st;
        }
    }
    return NSC_OK;
}

static nsc_status need_bool(pctx *P, const nl_expr *at, aff *a, const char *what)
{
    if (aff_is_const(a)) { /* a number: nonzero is true */
        a->c = a->c != 0;
        a->boolean = 1;
        return NSC_OK;
    }
    if (a->boolean) return NSC_OK;
    aff_free(a);
    char msg[160];
    snprintf(msg, sizeof msg,
             "%s needs a comparison (such as V(a) > V(b)) where it has a node voltage or current: "
             "not piecewise-linear",
             what);
    return fail(P, at, msg);
}

/* c ? p : q = q + (p - q) c, with c boolean and p - q constant; all consumed */
static nsc_status select(pctx *P, const nl_expr *at, aff *c, aff *pv, aff *qv, aff *out)
{
    nsc_status st = NSC_OK;
    aff d;
    if (aff_comb(&d, 1, pv, -1, qv)) st = oom(P);
    else if (!aff_is_const(&d))
        st = fail(P, at,
                  "'?:' (or if()) whose two values differ by a node voltage or current is not "
                  "piecewise-linear (a product with the condition)");
    else if (aff_comb(out, 1, qv, d.c, c)) st = oom(P);
    else out->boolean = pv->boolean && qv->boolean;
    aff_free(&d);
    aff_free(c);
    aff_free(pv);
    aff_free(qv);
    return st;
}

/* the messages naming the functions a B source accepts (base/xfn.h) */
static nsc_status call_fail(pctx *P, const nl_expr *e)
{
    char sm[256], pw[128], msg[640];
    nsc_xfn_names(NSC_XFN_SMOOTH, sm, sizeof sm);
    nsc_xfn_names(NSC_XFN_PWL, pw, sizeof pw);
    if (!has_vi(e)) /* floor(time), a user's function ... */
        snprintf(msg, sizeof msg,
                 "a function of time other than %s (smooth) or %s (piecewise-linear) is not "
                 "supported",
                 sm, pw);
    else
        snprintf(
            msg, sizeof msg,
            "a function other than %s (piecewise-linear) or %s (smooth, of node voltages and "
            "currents without nonsmooth parts or time), of a node voltage or current, is not supported",
            pw, sm);
    return fail(P, e, msg);
}

static nsc_status call(pctx *P, const nl_expr *e, aff *out)
{
    const char *f = e->name;
    if (nl_probe_kind(e) >= 0) return probe(P, e, out);
    if (e->nargs == 1 && (!strcmp(f, "min") || !strcmp(f, "max")))
        return compile(P, e->a, out); /* ngspice: x */
    char msg[64];
    int id = nl_builtin(e, msg, sizeof msg), n = e->nargs;
    if (id == NL_BUILTIN_NARGS)
        return fail(P, e, msg); /* (a smooth one too: not smooth, so here) */
    if (id < 0 || nsc_xfn_at(id)->cls != NSC_XFN_PWL) return call_fail(P, e);
    aff a[3], t, u;
    nsc_status st = args(P, e, a, n);
    if (st) return st;
    if (!strcmp(f, "if")) {
        if ((st = need_bool(P, e, &a[0], "if()"))) {
            aff_free(&a[1]);
            aff_free(&a[2]);
            return st;
        }
        return select(P, e, &a[0], &a[1], &a[2], out);
    }
    if (!strcmp(f, "min") || !strcmp(f, "max")) return minmax(P, f[1] == 'a', &a[0], &a[1], out);
    if (!strcmp(f, "limit")) { /* max(lo, min(x, hi)): the median when lo <= hi */
        if (aff_is_const(&a[1]) && aff_is_const(&a[2]) && a[1].c > a[2].c) {
            aff sw = a[1];
            a[1] = a[2];
            a[2] = sw;
        }
        if ((st = minmax(P, 0, &a[0], &a[2], &t))) {
            aff_free(&a[1]);
            return st;
        }
        return minmax(P, 1, &a[1], &t, out);
    }
    if (!strcmp(f, "uramp") && !P->env->mirror) return aux(P, 0, &a[0], out);
    if (!strcmp(f, "sgn") || !strcmp(f, "u")) {
        if ((st = sign_of(P, &a[0], out))) return st;
        if (f[0] == 'u') { /* u = (sgn + 1) / 2 */
            aff_scale(out, 0.5);
            out->c += 0.5;
            out->boolean = 1; /* a relay for && || ?: (1/2 at the tie only) */
        }
        return NSC_OK;
    }
    /* abs(z) = 2 ramp(z) - z, mirrored z + 2 ramp(-z); uramp(z) mirrored z + ramp(-z) */
    int m = P->env->mirror, ab = f[0] == 'a';
    if (aff_comb(&u, 1, &a[0], 0, NULL)) {
        aff_free(&a[0]);
        return oom(P);
    }
    if (m) aff_scale(&a[0], -1);
    if ((st = aux(P, 0, &a[0], &t))) {
        aff_free(&u);
        return st;
    }
    st = aff_comb(out, ab ? 2 : 1, &t, m ? 1 : -1, &u) ? oom(P) : NSC_OK;
    aff_free(&t);
    aff_free(&u);
    return st;
}

/* comparison, as SPICE evaluates it at a tie: a > b is H(a - b) and a < b is
 * H(b - a), H strict (0 at 0, dev_b.c); a >= b is 1 - H(b - a), a <= b is
 * 1 - H(a - b) (1 at the tie) */
static nsc_status compare(pctx *P, const nl_expr *e, aff *a, aff *b, aff *out)
{
    if (e->op == NL_X_EQ || e->op == NL_X_NE) {
        aff_free(a);
        aff_free(b);
        return fail(
            P, e,
            "'==' and '!=' of node voltages or currents are not piecewise-linear (true at one point "
            "only): use < or >");
    }
    int gt = e->op == NL_X_GT || e->op == NL_X_LE, eq = e->op == NL_X_GE || e->op == NL_X_LE;
    aff z, u;
    int bad = aff_comb(&z, gt ? 1 : -1, a, gt ? -1 : 1, b);
    aff_free(a);
    aff_free(b);
    if (bad) return oom(P);
    if (!eq) return aux(P, 1, &z, out);
    nsc_status st = aux(P, 1, &z, &u); /* out = 1 - u */
    if (st) return st;
    bad = aff_comb(out, -1, &u, 0, NULL);
    aff_free(&u);
    if (bad) return oom(P);
    out->c += 1;
    out->boolean = 1;
    return NSC_OK;
}

static nsc_status binary(pctx *P, const nl_expr *e, aff *out)
{
    aff a, b;
    nsc_status st = compile(P, e->a, &a);
    if (st) return st;
    if ((st = compile(P, e->b, &b))) {
        aff_free(&a);
        return st;
    }
    switch (e->op) {
    case NL_X_ADD:
    case NL_X_SUB:
        st = aff_comb(out, 1, &a, e->op == NL_X_ADD ? 1 : -1, &b) ? oom(P) : NSC_OK;
        break;
    case NL_X_MUL:
        if (a.boolean && b.boolean && !aff_is_const(&a) && !aff_is_const(&b))
            return minmax(P, 0, &a, &b, out); /* a product of comparisons is their && */
        if (!aff_is_const(&a) && !aff_is_const(&b))
            st = fail(
                P, e,
                has_vi(e->a) && has_vi(e->b)
                    ? "product of two node voltages or currents with a nonsmooth "
                      "part (a comparison, abs, min, ...) or time is neither piecewise-linear nor smooth"
                    : "product of a node voltage or current and a function of time is not piecewise-linear");
        else
            st = aff_comb(out, aff_is_const(&b) ? b.c : 0, &a, aff_is_const(&a) ? a.c : 0, &b)
                     ? oom(P)
                     : NSC_OK;
        if (!st && aff_is_const(&a) && aff_is_const(&b)) out->c = a.c * b.c;
        break;
    case NL_X_DIV:
        if (!aff_is_const(&b))
            st = fail(
                P, e,
                "division by a node voltage or current with a nonsmooth part (a comparison, abs, min, ...) "
                "or time is neither piecewise-linear nor smooth");
        else if (b.c == 0) st = fail(P, e, "division by zero");
        else st = aff_comb(out, 1 / b.c, &a, 0, NULL) ? oom(P) : NSC_OK;
        break;
    case NL_X_POW:
        st = fail(
            P, e,
            "power of a node voltage or current with a nonsmooth part (a comparison, abs, min, ...) or time "
            "is neither piecewise-linear nor smooth");
        break;
    case NL_X_AND:
    case NL_X_OR:
        if ((st = need_bool(P, e, &a, e->op == NL_X_AND ? "'&&'" : "'||'"))) {
            aff_free(&b);
            return st;
        }
        if ((st = need_bool(P, e, &b, e->op == NL_X_AND ? "'&&'" : "'||'"))) {
            aff_free(&a);
            return st;
        }
        return minmax(P, e->op == NL_X_OR, &a, &b, out);
    default: return compare(P, e, &a, &b, out);
    }
    aff_free(&a);
    aff_free(&b);
    return st;
}

static nsc_status cond(pctx *P, const nl_expr *e, aff *out)
{
    aff c, pv, qv;
    nsc_status st = compile(P, e->a, &c);
    if (st) return st;
    if ((st = need_bool(P, e, &c, "'?:'"))) return st;
    if (aff_is_const(&c)) { /* only the chosen value counts */
        int t = c.c != 0;
        aff_free(&c);
        return compile(P, t ? e->b : e->c, out);
    }
    if ((st = compile(P, e->b, &pv))) {
        aff_free(&c);
        return st;
    }
    if ((st = compile(P, e->c, &qv))) {
        aff_free(&c);
        aff_free(&pv);
        return st;
    }
    return select(P, e, &c, &pv, &qv, out);
}

/* Affine forms merge like terms in O(n) per term: a form is kept below this
 * size so that a hostile expression cannot make compilation quadratic in a
 * megabyte line. */
#define NL_PWL_MAXTERMS 4096

static nsc_status compile1(pctx *P, const nl_expr *e, aff *out);

static nsc_status compile(pctx *P, const nl_expr *e, aff *out)
{
    nsc_status st = compile1(P, e, out);
    if (!st && out->n > NL_PWL_MAXTERMS) {
        aff_free(out);
        return fail(
            P, e, "B source expression too large (more than 4096 distinct voltages and currents)");
    }
    return st;
}

static nsc_status compile1(pctx *P, const nl_expr *e, aff *out)
{
    memset(out, 0, sizeof *out);
    nsc_status st;
    if (!has_unknown(e)) {
        if ((st = nl_expr_eval(e, P->env->ev, &out->c, P->r))) return st;
        out->boolean = out->c == 0 || out->c == 1;
        return NSC_OK;
    }
    if (!has_vi(e) && smooth(e)) return time_wave(P, e, out); /* a smooth function of time */
    if (smooth_vi(e) && nonlinear(e))
        return smooth_fn(P, e, out); /* of unknowns, with no PWL form */
    switch (e->op) {
    case NL_X_PARAM: /* (time is a waveform above) */ return fail(P, e, "unexpected name");
    case NL_X_CALL: return call(P, e, out);
    case NL_X_NEG:
    case NL_X_NOT:
        if ((st = compile(P, e->a, out))) return st;
        if (e->op == NL_X_NEG) {
            aff_scale(out, -1);
            return NSC_OK;
        }
        if ((st = need_bool(P, e, out, "'!'"))) return st;
        aff_scale(out, -1);
        out->c += 1;
        out->boolean = 1;
        return NSC_OK;
    case NL_X_COND: return cond(P, e, out);
    default: return binary(P, e, out);
    }
}

nsc_status nl_pwl_compile(const nl_expr *x, const nl_pwl_env *env, nsc_bprog **out, nsc_report *r)
{
    *out = NULL;
    pctx P = { env, r, calloc(1, sizeof(nsc_bprog)), 0, 0, NULL, 0 };
    if (!P.p) return nsc_oom(r);
    aff v;
    nl_arena ar = { 0 }; /* user functions inlined (nl_expr_expand) */
    const nl_expr *xe;
    nsc_status st = nl_expr_expand(x, env->ev, &ar, &xe, r);
    if (!st) st = compile(&P, xe, &v);
    if (!st) {
        if (store(&P, &v, &P.p->out)) st = oom(&P);
        aff_free(&v);
    }
    for (int k = 0; k < P.p->nelref; k++) free(P.iname[k]);
    free(P.iname);
    nl_arena_free(&ar);
    if (st) nsc_bprog_free(P.p);
    else *out = P.p;
    return st;
}
