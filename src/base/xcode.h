/* xcode.h -- the compiled form of every expression and its one evaluator.
 *
 * An expression compiles (netlist/nl_expr.h nl_expr_compile) to postfix code
 * over a stack of doubles: loads push a number, the time, a probe's value or
 * an earlier measure's result; operators pop their operands and push their
 * value. A B source's waveform of time (NSC_WAVE_EXPR), a .meas quantity and
 * a derived .print column are such code; parameters are numbers in it (each
 * elaboration knows their values). A .param value is such code too, run once
 * with its values checked (nsc_xrun_check). */
#ifndef NSC_XCODE_H
#define NSC_XCODE_H

typedef enum nsc_xop {
    NSC_XOP_NUM,   /* push num */
    NSC_XOP_TIME,  /* push the time */
    NSC_XOP_PROBE, /* push probe[arg] */
    NSC_XOP_MEAS,  /* push meas[arg] (a failed measure: NaN) */
    NSC_XOP_NEG,   /* a -> -a */
    NSC_XOP_ADD,
    NSC_XOP_SUB,
    NSC_XOP_MUL,
    NSC_XOP_DIV,
    NSC_XOP_POW,  /* a b -> a op b */
    NSC_XOP_CALL, /* nargs operands -> built-in function arg (base/xfn.h) */
    NSC_XOP_LT,
    NSC_XOP_GT,
    NSC_XOP_LE,
    NSC_XOP_GE,
    NSC_XOP_EQ,
    NSC_XOP_NE, /* a b -> 1 or 0 (strict < >) */
    NSC_XOP_AND,
    NSC_XOP_OR,  /* a b -> 1 or 0 (nonzero is true) */
    NSC_XOP_NOT, /* a -> 1 if a == 0 else 0 */
    NSC_XOP_COND /* c a b -> a if c != 0 else b (both evaluated) */
} nsc_xop;

typedef struct nsc_xinstr {
    nsc_xop op;
    int arg, nargs; /* PROBE, MEAS: the index; CALL: the function's id and its nargs */
    double num;     /* NUM */
} nsc_xinstr;

/* What the loads read: TIME t, PROBE probe[arg], MEAS meas[arg] (NULL when
 * the code has no such load). */
typedef struct nsc_xload {
    double t;
    const double *probe;
    const double *meas;
} nsc_xload;

/* The value of code[0 .. n) with the loads of ld (NaN when the code does not
 * leave exactly one value; no check of the arithmetic: NaN and inf pass).
 * stack has at least nsc_xdepth(code, n) slots. */
double nsc_xrun(const nsc_xinstr *code, int n, const nsc_xload *ld, double *stack);

/* nsc_xrun for code whose every value must be a finite number (.param values,
 * netlist/nl_expr.c): *v the value, and the instruction of the first failure,
 * or -1 when none, with *kind what failed (NSC_XBAD_*). The first failure is
 * the one an evaluation of the tree that stops at its first error meets:
 * operands left to right, then the instruction itself; of c ? a : b only c and
 * the branch c chooses count (the other is evaluated but its failures are not
 * looked at). tag has the slots of stack (nsc_xdepth). */
enum { NSC_XBAD_DIV0 = 1, NSC_XBAD_NAN = 2, NSC_XBAD_INF = 3 }; /* a division by zero, NaN, inf */
int nsc_xrun_check(const nsc_xinstr *code, int n, const nsc_xload *ld, double *stack, int *tag,
                   double *v, int *kind);

/* The value of code[0 .. n) at probe[0 .. np) (loads NUM and PROBE only) and
 * its gradient g[k] = d value / d probe[k], k < np, in forward mode: each
 * stack slot carries its value and its np partial derivatives, the operators
 * apply the chain rule (a^b: b a^(b-1) a' + a^b ln(a) b', the second term only
 * where b' != 0), a function its registry derivative (base/xfn.h df);
 * comparisons, && || ! have gradient 0 (their 0/1 values are flat), c ? a : b
 * the value and gradient of the branch c chooses (a piecewise function, as a
 * device's regions: C^1 where its pieces meet smoothly). NaN
 * (value and g) for code with other loads, operators or functions without
 * a derivative. st has nsc_xdepth slots, dst nsc_xdepth * np. */
double nsc_xrun_grad(const nsc_xinstr *code, int n, const double *probe, int np, double *st,
                     double *dst, double *g);

/* a op b for the binary operators ADD .. POW, LT .. OR (comparisons 1 or 0):
 * the one definition of their values. */
double nsc_xbinary(nsc_xop op, double a, double b);

/* The operands instruction in pops (0 for the loads, 1 for NEG and NOT, 2 for
 * the binary operators, 3 for COND, nargs for CALL); it pushes one value. */
int nsc_xpops(const nsc_xinstr *in);

/* The largest stack depth of code[0 .. n) (0 for no code). */
int nsc_xdepth(const nsc_xinstr *code, int n);

#endif
