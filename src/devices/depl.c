/* depl.c -- a junction's depletion charge, a VDMOS's gate-drain charge (depl.h). */
#include <math.h>

#include "depl.h"
#include "base/xfn.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct dq {
    nsc_xinstr *c;
    int n, pa, pk;
} dq;

static void put(dq *B, nsc_xop op, double x)
{
    if (B->n < NSC_DEPL_MAXCODE) B->c[B->n++] = (nsc_xinstr){ op, 0, 0, x };
}

/* v = PROBE pa - PROBE pk */
static void v(dq *B)
{
    if (B->n + 3 > NSC_DEPL_MAXCODE) return;
    B->c[B->n++] = B->pa >= 0 ? (nsc_xinstr){ NSC_XOP_PROBE, B->pa, 0, 0 }
                              : (nsc_xinstr){ NSC_XOP_NUM, 0, 0, 0 };
    if (B->pk < 0) return;
    B->c[B->n++] = (nsc_xinstr){ NSC_XOP_PROBE, B->pk, 0, 0 };
    B->c[B->n++] = (nsc_xinstr){ NSC_XOP_SUB, 0, 0, 0 };
}

int nsc_depl_code(nsc_xinstr *out, int pa, int pk, double cjo, double vj, double m, double fc)
{
    double f1 = vj / (1 - m) * (1 - pow(1 - fc, 1 - m)), f2 = pow(1 - fc, 1 + m),
           f3 = 1 - fc * (1 + m);
    dq B = { out, 0, pa, pk };
    v(&B);
    put(&B, NSC_XOP_NUM, fc * vj);
    put(&B, NSC_XOP_LT, 0);  /* v < FC VJ */
    put(&B, NSC_XOP_NUM, 1); /* 1 - (1 - v/VJ)^(1-M) */
    put(&B, NSC_XOP_NUM, 1);
    v(&B);
    put(&B, NSC_XOP_NUM, vj);
    put(&B, NSC_XOP_DIV, 0);
    put(&B, NSC_XOP_SUB, 0);
    put(&B, NSC_XOP_NUM, 1 - m);
    put(&B, NSC_XOP_POW, 0);
    put(&B, NSC_XOP_SUB, 0);
    put(&B, NSC_XOP_NUM, cjo * vj / (1 - m));
    put(&B, NSC_XOP_MUL, 0);
    v(&B);
    put(&B, NSC_XOP_NUM, fc * vj);
    put(&B, NSC_XOP_SUB, 0);
    put(&B, NSC_XOP_NUM, f3);
    put(&B, NSC_XOP_MUL, 0);
    v(&B);
    v(&B);
    put(&B, NSC_XOP_MUL, 0);
    put(&B, NSC_XOP_NUM, fc * vj * fc * vj);
    put(&B, NSC_XOP_SUB, 0);
    put(&B, NSC_XOP_NUM, m / (2 * vj));
    put(&B, NSC_XOP_MUL, 0);
    put(&B, NSC_XOP_ADD, 0);
    put(&B, NSC_XOP_NUM, f2);
    put(&B, NSC_XOP_DIV, 0);
    put(&B, NSC_XOP_NUM, f1);
    put(&B, NSC_XOP_ADD, 0);
    put(&B, NSC_XOP_NUM, cjo);
    put(&B, NSC_XOP_MUL, 0);
    put(&B, NSC_XOP_COND, 0);
    return B.n;
}

static void call(dq *B, const char *f)
{
    if (B->n < NSC_DEPL_MAXCODE) B->c[B->n++] = (nsc_xinstr){ NSC_XOP_CALL, nsc_xfn_find(f), 1, 0 };
}

int nsc_cgd_code(nsc_xinstr *out, int pa, int pk, double cmin, double cmax, double a)
{
    double s = (cmax - cmin) / (1 + M_PI / 2), y = cmax - s;
    dq B = { out, 0, pa, pk };
    v(&B);
    put(&B, NSC_XOP_NUM, 0);
    put(&B, NSC_XOP_GT, 0); /* v > 0 */
    v(&B);
    put(&B, NSC_XOP_NUM, a);
    put(&B, NSC_XOP_MUL, 0); /* x */
    v(&B);
    put(&B, NSC_XOP_NUM, -2 * a);
    put(&B, NSC_XOP_MUL, 0);
    call(&B, "exp");
    put(&B, NSC_XOP_NUM, 1);
    put(&B, NSC_XOP_ADD, 0);
    call(&B, "ln");
    put(&B, NSC_XOP_ADD, 0);
    put(&B, NSC_XOP_NUM, log(2.0));
    put(&B, NSC_XOP_SUB, 0); /* ln(cosh(x)) */
    put(&B, NSC_XOP_NUM, s / a);
    put(&B, NSC_XOP_MUL, 0);
    v(&B);
    put(&B, NSC_XOP_NUM, a);
    put(&B, NSC_XOP_MUL, 0);
    call(&B, "atan");
    v(&B);
    put(&B, NSC_XOP_MUL, 0);
    put(&B, NSC_XOP_NUM, 1);
    v(&B);
    v(&B);
    put(&B, NSC_XOP_MUL, 0);
    put(&B, NSC_XOP_NUM, a * a);
    put(&B, NSC_XOP_MUL, 0);
    put(&B, NSC_XOP_ADD, 0);
    call(&B, "ln");
    put(&B, NSC_XOP_NUM, 0.5 / a);
    put(&B, NSC_XOP_MUL, 0);
    put(&B, NSC_XOP_SUB, 0); /* v atan(x) - ln(1 + x^2)/(2A) */
    put(&B, NSC_XOP_NUM, s);
    put(&B, NSC_XOP_MUL, 0);
    put(&B, NSC_XOP_COND, 0);
    v(&B);
    put(&B, NSC_XOP_NUM, y);
    put(&B, NSC_XOP_MUL, 0);
    put(&B, NSC_XOP_ADD, 0); /* + Y v */
    return B.n;
}
