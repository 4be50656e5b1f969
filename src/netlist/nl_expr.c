/* nl_expr.c -- expression trees and their evaluation (see nl_expr.h). */
#include "nl_expr.h"

#include "base/xfn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the compiled form's operator (base/xcode.h) of each operator node */
static const nsc_xop XOP[] = {
    [NL_X_NEG] = NSC_XOP_NEG,   [NL_X_ADD] = NSC_XOP_ADD, [NL_X_SUB] = NSC_XOP_SUB,
    [NL_X_MUL] = NSC_XOP_MUL,   [NL_X_DIV] = NSC_XOP_DIV, [NL_X_POW] = NSC_XOP_POW,
    [NL_X_LT] = NSC_XOP_LT,     [NL_X_GT] = NSC_XOP_GT,   [NL_X_LE] = NSC_XOP_LE,
    [NL_X_GE] = NSC_XOP_GE,     [NL_X_EQ] = NSC_XOP_EQ,   [NL_X_NE] = NSC_XOP_NE,
    [NL_X_AND] = NSC_XOP_AND,   [NL_X_OR] = NSC_XOP_OR,   [NL_X_NOT] = NSC_XOP_NOT,
    [NL_X_COND] = NSC_XOP_COND,
};

nl_expr *nl_expr_new(nl_arena *ar, nl_xop op, int line, int col, nl_expr *a, nl_expr *b)
{
    nl_expr *e = nl_alloc(ar, sizeof *e);
    if (!e) return NULL;
    e->op = op;
    e->line = line;
    e->col = col;
    e->a = a;
    e->b = b;
    int da = a ? a->depth : 0, db = b ? b->depth : 0;
    e->depth = 1 + (da > db ? da : db);
    return e;
}

static nsc_status fail(const nl_expr *e, const nl_env *env, nsc_report *r, const char *msg,
                       const char *arg)
{
    nsc_loc loc = { env->file, e->line, e->col };
    const char *w = env->where ? env->where : "";
    if (arg) return nsc_err(r, NSC_ENETLIST, &loc, msg, arg, w);
    return nsc_err(r, NSC_ENETLIST, &loc, msg, w);
}

const nl_func *nl_func_find(const nl_env *env, const char *name)
{
    for (int k = 0; env && k < env->nfunc; k++)
        if (!strcmp(env->funcs[k].name, name)) return &env->funcs[k];
    return NULL;
}

static nsc_status nargs_fail(const nl_expr *e, const nl_func *fn, const nl_env *env, nsc_report *r)
{
    nsc_loc loc = { env->file, e->line, e->col };
    return nsc_err(r, NSC_ENETLIST, &loc, "function '%s' takes %d argument%s, not %d%s", e->name,
                   fn->nformal, fn->nformal == 1 ? "" : "s", e->nargs,
                   env->where ? env->where : "");
}

/* the bound of the inlining exceeded: an error at site, the outermost user call */
static nsc_status inline_fail(const nl_expr *site, const nl_env *env, nsc_report *r, int size)
{
    nsc_loc loc = { env->file, site->line, site->col };
    const char *w = env->where ? env->where : "";
    if (site->op != NL_X_CALL && size)
        return nsc_err(r, NSC_ENETLIST, &loc,
                       "expression too large once its functions are inlined (more than %d "
                       "operations)%s",
                       NL_EXPR_MAXINLINE, w);
    if (site->op != NL_X_CALL)
        return nsc_err(r, NSC_ENETLIST, &loc, "expression too deeply nested%s", w);
    if (size)
        return nsc_err(r, NSC_ENETLIST, &loc,
                       "calls of '%s' expand to more than %d operations once inlined (functions "
                       "calling functions several times?)%s",
                       site->name, NL_EXPR_MAXINLINE, w);
    return nsc_err(r, NSC_ENETLIST, &loc,
                   "calls of '%s' nest deeper than %d levels once inlined (the limit of an "
                   "expression's depth)%s",
                   site->name, NL_EXPR_MAXDEPTH, w);
}

int nl_builtin(const nl_expr *e, char *msg, size_t size)
{
    int id = nsc_xfn_find(e->name), n = id >= 0 ? nsc_xfn_at(id)->nargs : 0;
    if (id < 0) return NL_BUILTIN_UNKNOWN;
    if (e->nargs == n) return id;
    snprintf(msg, size, "function '%s' takes %d argument%s", e->name, n,
             n == 1 ? "" : "s"); /* (a registry name) */
    return NL_BUILTIN_NARGS;
}

/* 1 for min(x) or max(x) of one argument, which ngspice takes as x (an
 * ngspice example's `max(icap_calc(1,2,3,4))`; issue 28, public netlists) */
static int minmax_of_one(const nl_expr *e)
{
    return e->nargs == 1 && (!strcmp(e->name, "min") || !strcmp(e->name, "max"));
}

/* ---- compilation to code (base/xcode.h) ---- */

typedef struct xcomp {
    const nl_xcomp *C;
    nsc_report *r;
    int sp, peak; /* stack depth after the code so far, its largest */
} xcomp;

/* the stack after node e's code, which popped pop values and pushed one */
static nsc_status xdepth(xcomp *X, const nl_expr *e, int pop)
{
    X->sp += 1 - pop;
    if (X->sp > X->peak) X->peak = X->sp;
    if (X->C->maxdepth > 0 && X->peak > X->C->maxdepth) return X->C->deep(X->C->ctx, e, X->r);
    return NSC_OK;
}

/* node e's instruction in, its pop operands already emitted */
static nsc_status xemit(xcomp *X, const nl_expr *e, nsc_xinstr in, int pop)
{
    nsc_status st = xdepth(X, e, pop);
    if (!st && X->C->at) X->C->at(X->C->ctx, e);
    return st ? st : X->C->emit(X->C->ctx, in, X->r);
}

static nsc_status xcompile(xcomp *X, const nl_expr *e);

static nsc_status xcall(xcomp *X, const nl_expr *e)
{
    nsc_loc loc = { X->C->file, e->line, e->col };
    const char *in = X->C->in ? X->C->in : "";
    if (minmax_of_one(e)) return xcompile(X, e->a);
    char msg[64];
    int id = nl_builtin(e, msg, sizeof msg), n = e->nargs;
    if (id == NL_BUILTIN_UNKNOWN)
        return nsc_err(X->r, NSC_ENETLIST, &loc, "unknown function '%s'%s", e->name, in);
    if (id < 0) return nsc_err(X->r, NSC_ENETLIST, &loc, "%s%s", msg, in);
    for (const nl_expr *a = e->a; a; a = a->next) {
        nsc_status st = xcompile(X, a);
        if (st) return st;
    }
    return xemit(X, e, (nsc_xinstr){ NSC_XOP_CALL, id, n, 0 }, n);
}

static nsc_status xcompile(xcomp *X, const nl_expr *e)
{
    int done = 0, pop = 0;
    nsc_status st = X->C->leaf ? X->C->leaf(X->C->ctx, e, &done, X->r) : NSC_OK;
    if (st || done) return st ? st : xdepth(X, e, 0);
    switch (e->op) {
    case NL_X_NUM: return xemit(X, e, (nsc_xinstr){ NSC_XOP_NUM, 0, 0, e->num }, 0);
    case NL_X_PARAM: {
        nsc_loc loc = { X->C->file, e->line, e->col };
        return nsc_err(X->r, NSC_ENETLIST, &loc, "undefined parameter '%s'", e->name);
    }
    case NL_X_CALL: return xcall(X, e);
    default: break;
    }
    const nl_expr *arg[3] = { e->a, e->b, e->op == NL_X_COND ? e->c : NULL };
    for (int k = 0; k < 3 && arg[k]; k++, pop++) /* operands left to right */
        if ((st = xcompile(X, arg[k]))) return st;
    return xemit(X, e, (nsc_xinstr){ XOP[e->op], 0, 0, 0 }, pop);
}

nsc_status nl_expr_compile(const nl_expr *e, const nl_xcomp *C, nsc_report *r)
{
    xcomp X = { C, r, 0, 0 };
    return xcompile(&X, e);
}

/* ---- values (.param, element values, folded constants): the expression's
 * user functions inlined (nl_expr_expand, as for a B source), compiled to code
 * (nl_expr_compile) and run once by the one evaluator, its values checked
 * (base/xcode.h nsc_xrun_check). What the compiler would refuse (an undefined
 * parameter, an unknown function, a wrong argument count) is compiled as a
 * failing number instead, so that it is an error only where the value is used
 * (not in the branch ?: does not choose), as every other failure. ---- */

typedef struct pcode {
    const nl_env *env;
    nsc_xinstr *code;
    const nl_expr **node; /* [n] the node of each instruction (messages) */
    char *bad;            /* [n] 1: the node cannot be compiled (its message at the run) */
    int n, cap;
    const nl_expr *cur; /* the node of the next instruction */
} pcode;

static void p_at(void *ctx, const nl_expr *e)
{
    ((pcode *)ctx)->cur = e;
}

static nsc_status p_put(pcode *P, nsc_xinstr in, int bad, nsc_report *r)
{
    if (P->n == P->cap) {
        int cap = P->cap ? 2 * P->cap : 32;
        nsc_xinstr *c = realloc(P->code, sizeof *c * (size_t)cap);
        if (c) P->code = c;
        const nl_expr **nd = c ? realloc(P->node, sizeof *nd * (size_t)cap) : NULL;
        if (nd) P->node = nd;
        char *b = nd ? realloc(P->bad, (size_t)cap) : NULL;
        if (!b) return nsc_oom(r);
        P->bad = b;
        P->cap = cap;
    }
    P->code[P->n] = in;
    P->node[P->n] = P->cur;
    P->bad[P->n++] = (char)bad;
    return NSC_OK;
}

static nsc_status p_emit(void *ctx, nsc_xinstr in, nsc_report *r)
{
    return p_put(ctx, in, 0, r);
}

/* names are the env's parameters (or pi); what cannot compile is a failing number */
static nsc_status p_leaf(void *ctx, const nl_expr *e, int *done, nsc_report *r)
{
    pcode *P = ctx;
    char msg[64];
    double v = NAN;
    if (e->op == NL_X_PARAM) {
        int ok = P->env->lookup && P->env->lookup(P->env->ctx, e->name, &v);
        if (!ok && !strcmp(e->name, "pi")) {
            v = 3.14159265358979323846;
            ok = 1;
        }
        *done = 1;
        P->cur = e;
        return p_put(P, (nsc_xinstr){ NSC_XOP_NUM, 0, 0, v }, !ok, r);
    }
    if (e->op != NL_X_CALL || minmax_of_one(e) || nl_builtin(e, msg, sizeof msg) >= 0)
        return NSC_OK;
    *done = 1;
    P->cur = e;
    return p_put(P, (nsc_xinstr){ NSC_XOP_NUM, 0, 0, NAN }, 1, r);
}

/* the error of instruction k, which failed with kind */
static nsc_status p_fail(const pcode *P, int k, int kind, nsc_report *r)
{
    const nl_expr *e = P->node[k];
    char msg[64];
    if (P->bad[k] && e->op == NL_X_PARAM)
        return fail(e, P->env, r, "undefined parameter '%s'%s", e->name);
    if (P->bad[k] && nl_builtin(e, msg, sizeof msg) == NL_BUILTIN_UNKNOWN)
        return fail(e, P->env, r, "unknown function '%s'%s", e->name);
    if (P->bad[k]) return fail(e, P->env, r, "%s%s", msg);
    if (kind == NSC_XBAD_DIV0) return fail(e, P->env, r, "division by zero%s", NULL);
    if (kind == NSC_XBAD_NAN) return fail(e, P->env, r, "value is not finite (NaN)%s", NULL);
    return fail(e, P->env, r, "value is not finite (overflow)%s", NULL);
}

static nsc_status p_run(const pcode *P, double *v, nsc_report *r)
{
    int depth = nsc_xdepth(P->code, P->n), kind = 0;
    double *st = malloc(sizeof(double) * (size_t)(depth + 1));
    int *tag = malloc(sizeof(int) * (size_t)(depth + 1));
    if (!st || !tag) {
        free(st);
        free(tag);
        return nsc_oom(r);
    }
    nsc_xload ld = { 0, NULL, NULL };
    int k = nsc_xrun_check(P->code, P->n, &ld, st, tag, v, &kind);
    free(st);
    free(tag);
    return k >= 0 ? p_fail(P, k, kind, r) : NSC_OK;
}

nsc_status nl_expr_eval(const nl_expr *e, const nl_env *env, double *v, nsc_report *r)
{
    nl_arena ar = { 0 };
    pcode P = { env, NULL, NULL, NULL, 0, 0, e };
    nl_xcomp C = { p_emit, p_leaf, 0, NULL, &P, env->file, env->where, p_at };
    const nl_expr *x = e;
    nsc_status st = nl_expr_expand(e, env, &ar, &x, r);
    if (!st) st = nl_expr_compile(x, &C, r);
    if (!st) st = p_run(&P, v, r);
    free(P.code);
    free(P.node);
    free(P.bad);
    nl_arena_free(&ar);
    return st;
}

/* ---- the expression as text, parenthesised where precedence needs it ---- */

static int prec(const nl_expr *e)
{
    switch (e->op) {
    case NL_X_COND: return -4;
    case NL_X_OR: return -3;
    case NL_X_AND: return -2;
    case NL_X_EQ:
    case NL_X_NE: return -1;
    case NL_X_LT:
    case NL_X_GT:
    case NL_X_LE:
    case NL_X_GE: return 0;
    case NL_X_ADD:
    case NL_X_SUB: return 1;
    case NL_X_MUL:
    case NL_X_DIV: return 2;
    case NL_X_NEG:
    case NL_X_NOT: return 3;
    case NL_X_POW: return 4;
    default: return 5;
    }
}

static const char *op_text(nl_xop op)
{
    static const char *const t[] = {
        [NL_X_ADD] = "+", [NL_X_SUB] = "-",  [NL_X_MUL] = "*", [NL_X_DIV] = "/", [NL_X_POW] = "^",
        [NL_X_LT] = "<",  [NL_X_GT] = ">",   [NL_X_LE] = "<=", [NL_X_GE] = ">=", [NL_X_EQ] = "==",
        [NL_X_NE] = "!=", [NL_X_AND] = "&&", [NL_X_OR] = "||"
    };
    return (size_t)op < sizeof t / sizeof t[0] && t[op] ? t[op] : "?";
}

static void print_expr(FILE *f, const nl_expr *e);

static void print_sub(FILE *f, const nl_expr *e, int paren)
{
    if (paren) fputc('(', f);
    print_expr(f, e);
    if (paren) fputc(')', f);
}

/* the expression as text, parenthesised where precedence needs it */
static void print_expr(FILE *f, const nl_expr *e)
{
    switch (e->op) {
    case NL_X_NUM:
        if (e->name) fputs(e->name, f);
        else fprintf(f, "%g", e->num);
        break;
    case NL_X_PARAM: fputs(e->name, f); break;
    case NL_X_NEG:
    case NL_X_NOT:
        fputc(e->op == NL_X_NEG ? '-' : '!', f);
        print_sub(f, e->a, prec(e->a) < 3);
        break;
    case NL_X_COND:
        print_sub(f, e->a, prec(e->a) <= -4);
        fputc('?', f);
        print_sub(f, e->b, prec(e->b) <= -4);
        fputc(':', f);
        print_expr(f, e->c);
        break;
    case NL_X_CALL:
        fprintf(f, "%s(", e->name);
        for (const nl_expr *a = e->a; a; a = a->next) {
            print_expr(f, a);
            if (a->next) fputc(',', f);
        }
        fputc(')', f);
        break;
    default: {
        int p = prec(e), lp = prec(e->a) < p,
            rp = prec(e->b) < p || (prec(e->b) == p && e->op != NL_X_ADD && e->op != NL_X_MUL);
        print_sub(f, e->a, lp);
        fputs(op_text(e->op), f);
        print_sub(f, e->b, rp);
    }
    }
}

char *nl_expr_text(const nl_expr *e)
{
    char *t = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&t, &n);
    if (!f) return NULL;
    print_expr(f, e);
    if (fclose(f)) {
        free(t);
        return NULL;
    }
    return t;
}

/* ---- numbers: [+-]digits[.digits][e[+-]digits] then letters (scale + units) ---- */

#include <ctype.h>
#include <stdlib.h>

#include "netlist.h"

static double scale(const char *u)
{
    char a = (char)tolower((unsigned char)u[0]);
    char b = a ? (char)tolower((unsigned char)u[1]) : 0;
    char c = b ? (char)tolower((unsigned char)u[2]) : 0;
    if (a == 'm' && b == 'e' && c == 'g') return 1e6;
    if (a == 'm' && b == 'i' && c == 'l') return 25.4e-6;
    switch (a) {
    case 't': return 1e12;
    case 'g': return 1e9;
    case 'k': return 1e3;
    case 'm': return 1e-3;
    case 'u': return 1e-6;
    case 'n': return 1e-9;
    case 'p': return 1e-12;
    case 'f': return 1e-15;
    case 'a': return 1e-18;
    default: return 1; /* units only ("V", "ohm", "s") */
    }
}

int nsc_parse_number(const char *text, double *v)
{
    const char *p = text;
    int nd = 0;
    if (*p == '+' || *p == '-') p++;
    while (isdigit((unsigned char)*p)) p++, nd++;
    if (*p == '.')
        for (p++; isdigit((unsigned char)*p); p++) nd++;
    if (nd == 0) return 0;
    if (*p == 'e' || *p == 'E') {
        const char *q = p + 1;
        if (*q == '+' || *q == '-') q++;
        if (isdigit((unsigned char)*q)) {
            while (isdigit((unsigned char)*q)) q++;
            p = q;
        }
    }
    /* LTspice and vendors write micro as the micro sign U+00B5 or the Greek mu
     * U+03BC (UTF-8 C2 B5, CE BC): the same scale as 'u' */
    int mu = (p[0] == '\xC2' && p[1] == '\xB5') || (p[0] == '\xCE' && p[1] == '\xBC');
    for (const char *q = p + (mu ? 2 : 0); *q; q++)
        if (!isalpha((unsigned char)*q)) return 0;
    char *num = nsc_strndup(text,
                            (size_t)(p - text)); /* strtod sees digits only (no inf, nan, hex) */
    if (!num) return 0;
    double x = strtod(num, NULL);
    free(num);
    *v = x * (mu ? 1e-6 : scale(p));
    return 1;
}

/* ---- inline expansion of user functions (the PWL compiler's input) ---- */

/* One expansion: the result's depth within NL_EXPR_MAXDEPTH (and so the
 * recursion here and in its users), its size (an argument counted at each use
 * of its formal) and the nodes allocated within NL_EXPR_MAXINLINE. */
typedef struct xpand {
    const nl_env *env;
    nl_arena *ar;
    int level;           /* expand() calls nested */
    long nalloc;         /* nodes allocated */
    const nl_expr *site; /* the outermost user call being expanded, or NULL */
} xpand;

/* the formal names of fn (NULL at the top) bound to expanded arguments */
typedef struct bind {
    const nl_func *fn;
    const nl_expr *const *arg; /* [fn->nformal] */
    const long *size;          /* [fn->nformal] their sizes */
    int depth;                 /* user calls nested */
} bind;

static nsc_status expand(xpand *X, const nl_expr *e, const bind *B, const nl_expr **out, long *size,
                         nsc_report *r);

/* a copy of e whose depth is set from its operands by the caller */
static nl_expr *copy_node(xpand *X, const nl_expr *e)
{
    if (++X->nalloc > NL_EXPR_MAXINLINE) return NULL;
    nl_expr *x = nl_alloc(X->ar, sizeof *x);
    if (x) *x = *e;
    return x;
}

static nsc_status copy_fail(xpand *X, const nl_expr *e, nsc_report *r)
{
    return X->nalloc > NL_EXPR_MAXINLINE ? inline_fail(X->site ? X->site : e, X->env, r, 1)
                                         : nsc_oom(r);
}

/* the arguments of call e expanded into x's list; x->depth, *size grown */
static nsc_status expand_args(xpand *X, const nl_expr *e, const bind *B, nl_expr *x, long *size,
                              nsc_report *r)
{
    nl_expr **tail = &x->a;
    for (const nl_expr *p = e->a; p; p = p->next) {
        const nl_expr *q;
        long n;
        if (expand(X, p, B, &q, &n, r)) return r->status;
        nl_expr *qc = copy_node(X, q);
        if (!qc) return copy_fail(X, p, r);
        qc->next = NULL;
        *tail = qc;
        tail = &qc->next;
        *size += n;
        if (qc->depth + 1 > x->depth) x->depth = qc->depth + 1;
    }
    return NSC_OK;
}

/* e's operands expanded into a copy of e */
static nsc_status expand_ops(xpand *X, const nl_expr *e, const bind *B, const nl_expr **out,
                             long *size, nsc_report *r)
{
    const nl_expr *o[3] = { NULL, NULL, NULL },
                  *in[3] = { e->op != NL_X_CALL ? e->a : NULL, e->b, e->c };
    long n[3] = { 0, 0, 0 };
    for (int k = 0; k < 3; k++)
        if (in[k] && expand(X, in[k], B, &o[k], &n[k], r)) return r->status;
    nl_expr *x = copy_node(X, e);
    if (!x) return copy_fail(X, e, r);
    *size = 1 + n[0] + n[1] + n[2]; /* size = 1 + the operands' */
    x->depth = 1;                   /* depth = 1 + the deepest operand's */
    for (int k = 0; k < 3; k++)
        if (o[k] && o[k]->depth + 1 > x->depth) x->depth = o[k]->depth + 1;
    if (e->op == NL_X_CALL) {
        if (expand_args(X, e, B, x, size, r)) return r->status;
    } else {
        x->a = (nl_expr *)o[0];
        x->b = (nl_expr *)o[1];
        x->c = (nl_expr *)o[2];
    }
    *out = x;
    return NSC_OK;
}

/* call e of user function g inlined: g's body with its formals bound to the
 * arguments expanded in the caller's names */
static nsc_status expand_call(xpand *X, const nl_expr *e, const nl_func *g, const bind *B,
                              const nl_expr **out, long *size, nsc_report *r)
{
    if (e->nargs != g->nformal) return nargs_fail(e, g, X->env, r);
    if (B->depth >= NL_FUNC_MAXDEPTH || g->nformal > 64)
        return fail(e, X->env, r, "calls of '%s' nested too deeply (a recursive function?)%s",
                    e->name);
    const nl_expr *outer = X->site, *ga[64];
    if (!outer) X->site = e; /* the outermost call: where an error points */
    long gs[64];
    int n = 0;
    for (const nl_expr *p = e->a; p; p = p->next, n++)
        if (expand(X, p, B, &ga[n], &gs[n], r)) return r->status;
    bind in = { g, ga, gs, B->depth + 1 };
    nsc_status st = expand(X, g->body, &in, out, size, r);
    X->site = outer;
    return st;
}

/* e with the formal names of B->fn replaced by B's arguments, and calls of
 * user functions inlined; *size its size */
static nsc_status expand1(xpand *X, const nl_expr *e, const bind *B, const nl_expr **out,
                          long *size, nsc_report *r)
{
    if (e->op == NL_X_PARAM && B->fn)
        for (int k = 0; k < B->fn->nformal; k++)
            if (!strcmp(B->fn->formal[k], e->name)) {
                *out = B->arg[k];
                *size = B->size[k];
                return NSC_OK;
            }
    const nl_func *g = e->op == NL_X_CALL ? nl_func_find(X->env, e->name) : NULL;
    if (g) return expand_call(X, e, g, B, out, size, r);
    return expand_ops(X, e, B, out, size, r);
}

static nsc_status expand(xpand *X, const nl_expr *e, const bind *B, const nl_expr **out, long *size,
                         nsc_report *r)
{
    if (X->level >= NL_EXPR_MAXDEPTH) return inline_fail(X->site ? X->site : e, X->env, r, 0);
    X->level++;
    nsc_status st = expand1(X, e, B, out, size, r);
    X->level--;
    if (st) return st;
    if ((*out)->depth > NL_EXPR_MAXDEPTH) return inline_fail(X->site ? X->site : e, X->env, r, 0);
    if (*size > NL_EXPR_MAXINLINE) return inline_fail(X->site ? X->site : e, X->env, r, 1);
    return NSC_OK;
}

nsc_status nl_expr_expand(const nl_expr *e, const nl_env *env, nl_arena *ar, const nl_expr **out,
                          nsc_report *r)
{
    *out = e;
    if (!env || env->nfunc == 0) return NSC_OK;
    xpand X = { env, ar, 0, 0, NULL };
    bind top = { NULL, NULL, NULL, 0 };
    long size;
    return expand(&X, e, &top, out, &size, r);
}
