/* xcode.c -- the evaluator of compiled expressions (see xcode.h). */
#include "xcode.h"

#include <math.h>
#include <string.h>

#include "xfn.h"

double nsc_xbinary(nsc_xop op, double a, double b)
{
    switch (op) {
    case NSC_XOP_ADD: return a + b;
    case NSC_XOP_SUB: return a - b;
    case NSC_XOP_MUL: return a * b;
    case NSC_XOP_DIV: return a / b;
    case NSC_XOP_LT: return a < b;
    case NSC_XOP_GT: return a > b;
    case NSC_XOP_LE: return a <= b;
    case NSC_XOP_GE: return a >= b;
    case NSC_XOP_EQ: return a == b;
    case NSC_XOP_NE: return a != b;
    case NSC_XOP_AND: return a != 0 && b != 0;
    case NSC_XOP_OR: return a != 0 || b != 0;
    default: return pow(a, b); /* NSC_XOP_POW */
    }
}

/* One instruction on the stack st[0 .. sp): the new sp (the one definition of
 * what each instruction does, for nsc_xrun and nsc_xrun_check). */
static inline int xstep(const nsc_xinstr *in, const nsc_xload *ld, double *st, int sp)
{
    switch (in->op) {
    case NSC_XOP_NUM: st[sp++] = in->num; break;
    case NSC_XOP_TIME: st[sp++] = ld->t; break;
    case NSC_XOP_PROBE: st[sp++] = ld->probe[in->arg]; break;
    case NSC_XOP_MEAS: st[sp++] = ld->meas[in->arg]; break;
    case NSC_XOP_NEG: st[sp - 1] = -st[sp - 1]; break;
    case NSC_XOP_NOT: st[sp - 1] = st[sp - 1] == 0; break;
    case NSC_XOP_ADD:
        sp--;
        st[sp - 1] += st[sp];
        break;
    case NSC_XOP_SUB:
        sp--;
        st[sp - 1] -= st[sp];
        break;
    case NSC_XOP_MUL:
        sp--;
        st[sp - 1] *= st[sp];
        break;
    case NSC_XOP_DIV:
        sp--;
        st[sp - 1] /= st[sp];
        break;
    case NSC_XOP_COND:
        sp -= 2;
        st[sp - 1] = st[sp - 1] != 0 ? st[sp] : st[sp + 1];
        break;
    case NSC_XOP_CALL:
        sp -= in->nargs - 1;
        st[sp - 1] = nsc_xfn_at(in->arg)->f(&st[sp - 1]);
        break;
    default:
        sp--;
        st[sp - 1] = nsc_xbinary(in->op, st[sp - 1], st[sp]);
        break;
    }
    return sp;
}

double nsc_xrun(const nsc_xinstr *code, int n, const nsc_xload *ld, double *st)
{
    int sp = 0; /* st[0 .. sp) the operands */
    for (int k = 0; k < n; k++) sp = xstep(&code[k], ld, st, sp);
    return sp == 1 ? st[0] : NAN;
}

/* Each slot q carries tag[q] = 4 k + kind of the first failure among the
 * instructions its value came from (-1: none), the failure a tree evaluation
 * stopping at its first error meets: an operand's own (left to right) before
 * the instruction's; ?: the condition's, else the chosen branch's only. */
int nsc_xrun_check(const nsc_xinstr *code, int n, const nsc_xload *ld, double *st, int *tag,
                   double *v, int *kind)
{
    int sp = 0;
    for (int k = 0; k < n; k++) {
        const nsc_xinstr *in = &code[k];
        int b = sp - nsc_xpops(in), t = -1;
        if (in->op == NSC_XOP_COND) t = tag[b] >= 0 ? tag[b] : st[b] != 0 ? tag[b + 1] : tag[b + 2];
        for (int q = b; q < sp && t < 0 && in->op != NSC_XOP_COND; q++) t = tag[q];
        int div0 = in->op == NSC_XOP_DIV && st[sp - 1] == 0;
        sp = xstep(in, ld, st, sp);
        double x = st[sp - 1];
        if (t < 0 && in->op != NSC_XOP_COND)
            t = div0       ? 4 * k + NSC_XBAD_DIV0
                : isnan(x) ? 4 * k + NSC_XBAD_NAN
                : isinf(x) ? 4 * k + NSC_XBAD_INF
                           : -1;
        tag[sp - 1] = t;
    }
    *v = sp == 1 ? st[0] : NAN;
    *kind = sp != 1 ? NSC_XBAD_NAN : tag[0] >= 0 ? tag[0] % 4 : 0;
    return sp != 1 ? n - 1 : tag[0] >= 0 ? tag[0] / 4 : -1;
}

int nsc_xpops(const nsc_xinstr *in)
{
    switch (in->op) {
    case NSC_XOP_NUM:
    case NSC_XOP_TIME:
    case NSC_XOP_PROBE:
    case NSC_XOP_MEAS: return 0;
    case NSC_XOP_NEG:
    case NSC_XOP_NOT: return 1;
    case NSC_XOP_COND: return 3;
    case NSC_XOP_CALL: return in->nargs;
    default: return 2;
    }
}

int nsc_xdepth(const nsc_xinstr *code, int n)
{
    int sp = 0, peak = 0;
    for (int k = 0; k < n; k++) {
        sp += 1 - nsc_xpops(&code[k]);
        if (sp > peak) peak = sp;
    }
    return peak;
}

/* the chain rule of one operator on the slots a = st[sp-2], b = st[sp-1]
 * (binary) or a = st[sp-1] (NEG, CALL of one argument) with their gradients
 * da, db (np each): da becomes the gradient of the result. 0, or -1 when the
 * operator has no derivative here. */
static int grad_binary(nsc_xop op, double a, double b, double *da, const double *db, int np)
{
    switch (op) {
    case NSC_XOP_ADD:
        for (int k = 0; k < np; k++) da[k] += db[k];
        return 0;
    case NSC_XOP_SUB:
        for (int k = 0; k < np; k++) da[k] -= db[k];
        return 0;
    case NSC_XOP_MUL:
        for (int k = 0; k < np; k++) da[k] = b * da[k] + a * db[k];
        return 0; /* (ab)' */
    case NSC_XOP_DIV:
        for (int k = 0; k < np; k++) da[k] = (da[k] - a / b * db[k]) / b;
        return 0;       /* (a/b)' */
    case NSC_XOP_POW: { /* (a^b)' = b a^(b-1) a' + a^b ln a b' */
        int varb = 0;
        for (int k = 0; k < np; k++) varb |= db[k] != 0;
        double x[2] = { a, b }, d[2];
        if (varb) nsc_xfn_at(nsc_xfn_find("pow"))->df(x, d);
        else
            d[0] =
                b == 0
                    ? 0
                    : b * pow(a, b - 1); /* xfn.c d_pow's d[0]; its d[1] (a pow and a log) unread */
        for (int k = 0; k < np; k++) da[k] = d[0] * da[k] + (db[k] != 0 ? d[1] * db[k] : 0);
        return 0;
    }
    case NSC_XOP_LT:
    case NSC_XOP_GT:
    case NSC_XOP_LE:
    case NSC_XOP_GE:
    case NSC_XOP_EQ:
    case NSC_XOP_NE:
    case NSC_XOP_AND:
    case NSC_XOP_OR:
        for (int k = 0; k < np; k++) da[k] = 0; /* 0 or 1: flat on either side */
        return 0;
    default: return -1;
    }
}

/* CALL of f on the nargs slots x[0 ..) with gradients dx (np each): x[0], dx[0 .. np) the result */
static int grad_call(const nsc_xfn *f, double *x, double *dx, int np)
{
    double d[NSC_XFN_MAXARGS], v;
    if (!f->df) return -1;
    f->df(x, d);
    v = f->f(x);
    for (int k = 0; k < np; k++) {
        double s = 0;
        for (int a = 0; a < f->nargs; a++)
            if (dx[a * np + k] != 0)
                s += d[a] * dx[a * np + k]; /* (a zero partial adds nothing, even at d = inf) */
        dx[k] = s;
    }
    x[0] = v;
    return 0;
}

double nsc_xrun_grad(const nsc_xinstr *code, int n, const double *probe, int np, double *st,
                     double *dst, double *g)
{
    int sp = 0, bad = 0; /* st[0 .. sp) values, dst[q np ..] their gradients */
    for (int k = 0; k < n && !bad; k++) {
        const nsc_xinstr *in = &code[k];
        double *d = dst + (size_t)sp * np;
        switch (in->op) {
        case NSC_XOP_NUM:
        case NSC_XOP_PROBE:
            st[sp] = in->op == NSC_XOP_NUM ? in->num : probe[in->arg];
            for (int q = 0; q < np; q++) d[q] = in->op == NSC_XOP_PROBE && q == in->arg;
            sp++;
            break;
        case NSC_XOP_NEG:
            st[sp - 1] = -st[sp - 1];
            for (int q = 0; q < np; q++) d[q - np] = -d[q - np];
            break;
        case NSC_XOP_CALL:
            sp -= in->nargs - 1;
            bad = grad_call(nsc_xfn_at(in->arg), &st[sp - 1], dst + (size_t)(sp - 1) * np, np);
            break;
        case NSC_XOP_NOT: /* a 0/1 value: no gradient */
            st[sp - 1] = st[sp - 1] == 0;
            for (int q = 0; q < np; q++) d[q - np] = 0;
            break;
        case NSC_XOP_COND: /* c a b: the chosen one's value and gradient */
            if (sp < 3) {
                bad = 1;
                break;
            }
            if (st[sp - 3] == 0) memcpy(d - 2 * np, d - np, sizeof(double) * (size_t)np);
            memmove(d - 3 * np, d - 2 * np, sizeof(double) * (size_t)np);
            st[sp - 3] = st[sp - 3] != 0 ? st[sp - 2] : st[sp - 1];
            sp -= 2;
            break;
        default:
            if (sp < 2) {
                bad = 1;
                break;
            }
            bad = grad_binary(in->op, st[sp - 2], st[sp - 1], d - 2 * np, d - np, np);
            if (!bad) st[sp - 2] = nsc_xbinary(in->op, st[sp - 2], st[sp - 1]);
            sp--;
            break;
        }
    }
    if (bad || sp != 1) {
        for (int q = 0; q < np; q++) g[q] = NAN;
        return NAN;
    }
    for (int q = 0; q < np; q++) g[q] = dst[q];
    return st[0];
}
