/* xcode.c -- the evaluator of compiled expressions (see xcode.h). */
#include "xcode.h"

#include <math.h>

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
    default: return pow(a, b);                         /* NSC_XOP_POW */
    }
}

double nsc_xrun(const nsc_xinstr *code, int n, const nsc_xload *ld, double *st)
{
    int sp = 0;                                        /* st[0 .. sp) the operands */
    for (int k = 0; k < n; k++) {
        const nsc_xinstr *in = &code[k];
        switch (in->op) {
        case NSC_XOP_NUM: st[sp++] = in->num; break;
        case NSC_XOP_TIME: st[sp++] = ld->t; break;
        case NSC_XOP_PROBE: st[sp++] = ld->probe[in->arg]; break;
        case NSC_XOP_MEAS: st[sp++] = ld->meas[in->arg]; break;
        case NSC_XOP_NEG: st[sp - 1] = -st[sp - 1]; break;
        case NSC_XOP_NOT: st[sp - 1] = st[sp - 1] == 0; break;
        case NSC_XOP_ADD: sp--; st[sp - 1] += st[sp]; break;
        case NSC_XOP_SUB: sp--; st[sp - 1] -= st[sp]; break;
        case NSC_XOP_MUL: sp--; st[sp - 1] *= st[sp]; break;
        case NSC_XOP_DIV: sp--; st[sp - 1] /= st[sp]; break;
        case NSC_XOP_COND: sp -= 2; st[sp - 1] = st[sp - 1] != 0 ? st[sp] : st[sp + 1]; break;
        case NSC_XOP_CALL:
            sp -= in->nargs - 1;
            st[sp - 1] = nsc_xfn_at(in->arg)->f(&st[sp - 1]);
            break;
        default: sp--; st[sp - 1] = nsc_xbinary(in->op, st[sp - 1], st[sp]); break;
        }
    }
    return sp == 1 ? st[0] : NAN;
}

int nsc_xdepth(const nsc_xinstr *code, int n)
{
    int sp = 0, peak = 0;
    for (int k = 0; k < n; k++) {
        switch (code[k].op) {
        case NSC_XOP_NUM: case NSC_XOP_TIME: case NSC_XOP_PROBE: case NSC_XOP_MEAS: sp++; break;
        case NSC_XOP_NEG: case NSC_XOP_NOT: break;
        case NSC_XOP_COND: sp -= 2; break;
        case NSC_XOP_CALL: sp -= code[k].nargs - 1; break;
        default: sp--; break;
        }
        if (sp > peak) peak = sp;
    }
    return peak;
}
