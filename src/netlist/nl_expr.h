/* nl_expr.h -- expression trees of {expr} / 'expr' / bare .param values, and
 * their evaluation against a parameter scope. Internal header. */
#ifndef NSC_NL_EXPR_H
#define NSC_NL_EXPR_H

#include "base/util.h"
#include "base/xcode.h"
#include "nl_util.h"

typedef enum nl_xop {
    NL_X_NUM,   /* num (text: the source token) */
    NL_X_PARAM, /* name (lower case) */
    NL_X_NEG,   /* -a */
    NL_X_ADD,
    NL_X_SUB,
    NL_X_MUL,
    NL_X_DIV,
    NL_X_POW,  /* a op b */
    NL_X_CALL, /* name(a, a->next, ...), nargs arguments */
    NL_X_LT,
    NL_X_GT,
    NL_X_LE,
    NL_X_GE,
    NL_X_EQ,
    NL_X_NE, /* a op b: 1 or 0 */
    NL_X_AND,
    NL_X_OR,  /* a && b, a || b: 1 or 0 (nonzero is true) */
    NL_X_NOT, /* !a */
    NL_X_COND /* a ? b : c */
} nl_xop;

typedef struct nl_expr {
    nl_xop op;
    int line, col;         /* position of the token (operator, name or number) */
    int depth;             /* height of the tree (bounded by NL_EXPR_MAXDEPTH) */
    int nargs;             /* CALL */
    double num;            /* NUM */
    const char *name;      /* PARAM, CALL: lower-case name; NUM: source text */
    struct nl_expr *a, *b; /* operands; CALL: a = first argument */
    struct nl_expr *c;     /* COND: the value when a is false */
    struct nl_expr *next;  /* next argument of a CALL */
} nl_expr;

/* Deeper trees are rejected by the parser (keeps evaluation recursion bounded),
 * and so are deeper trees once their user functions are inlined (eval, expand). */
#define NL_EXPR_MAXDEPTH 2000
/* Nodes of one expression's user functions once inlined (in evaluation: the
 * nodes evaluated; in expansion: the nodes of the result, shared arguments
 * counted at each use), as subcircuit expansion is bounded (NL_MAXELEMENTS). */
#ifndef NL_EXPR_MAXINLINE
#define NL_EXPR_MAXINLINE 1000000
#endif

/* A user function: `.func name(a, b) {body}` or `.param name(a, b) = {body}`. */
typedef struct nl_func {
    const char *name; /* lower case */
    int nformal;
    const char **formal; /* [nformal] lower case */
    const nl_expr *body;
} nl_func;

#define NL_FUNC_MAXDEPTH 64 /* nested calls of user functions (a recursive one is an error) */

/* Evaluation context: parameter lookup, user functions and message decoration. */
typedef struct nl_env {
    int (*lookup)(void *ctx, const char *name, double *v); /* lower-case name; 1 if defined */
    void *ctx;
    const char *file;     /* file of the card (for messages) */
    const char *where;    /* appended to messages, e.g. " (in instance x1)"; may be NULL */
    const nl_func *funcs; /* [nfunc] the netlist's user functions (may be NULL) */
    int nfunc;
} nl_env;

/* The user function of env named name, NULL if none. */
const nl_func *nl_func_find(const nl_env *env, const char *name);

/* *out = e with every call of a user function replaced by its body, its
 * formal names bound to the argument trees (new nodes in ar; e itself when it
 * calls none). Errors: wrong argument count, nesting beyond NL_FUNC_MAXDEPTH. */
nsc_status nl_expr_expand(const nl_expr *e, const nl_env *env, nl_arena *ar, const nl_expr **out,
                          nsc_report *r);

/* New node in arena a (NULL on allocation failure); depth computed from a, b. */
nl_expr *nl_expr_new(nl_arena *ar, nl_xop op, int line, int col, nl_expr *a, nl_expr *b);

/* *v = value of e: its user functions inlined (nl_expr_expand), compiled
 * (nl_expr_compile) and run by the one evaluator (base/xcode.h
 * nsc_xrun_check). Errors (undefined parameter, unknown function, wrong
 * argument count, division by zero, non-finite result; those of the inlining)
 * go to r as NSC_ENETLIST with the position of the offending node; of c ? a : b
 * only the chosen branch's count. */
nsc_status nl_expr_eval(const nl_expr *e, const nl_env *env, double *v, nsc_report *r);

/* The built-in function (base/xfn.h) that call e names, checked against the
 * registry: its id (>= 0); else NL_BUILTIN_UNKNOWN (no such name: each caller
 * says which functions it knows) or NL_BUILTIN_NARGS (e's argument count is
 * not the function's arity; the message "function 'f' takes 2 arguments" into
 * msg[size], 64 bytes hold it). The one arity check of a built-in call for
 * .param values, expressions compiled to code (.meas, derived columns,
 * waveforms of time) and B sources (nl_pwl.c). */
enum { NL_BUILTIN_UNKNOWN = -1, NL_BUILTIN_NARGS = -2 };
int nl_builtin(const nl_expr *e, char *msg, size_t size);

/* e as text (lower case names, no blanks, parentheses where precedence needs
 * them), malloc'd; NULL on allocation failure. */
char *nl_expr_text(const nl_expr *e);

/* ---- compilation to code (base/xcode.h): one compiler for every user ---- */

/* How an expression compiles: the generic rules cover numbers, operators and
 * the built-in functions (base/xfn.h); leaf is asked first at every node and
 * emits the code of what only its user knows (names, probes, time, constant
 * subtrees it folds), setting *done. Its code leaves one value on the stack. */
typedef struct nl_xcomp {
    nsc_status (*emit)(void *ctx, nsc_xinstr in, nsc_report *r); /* append one instruction */
    nsc_status (*leaf)(void *ctx, const nl_expr *e, int *done, nsc_report *r); /* may be NULL */
    /* maxdepth > 0: the stack depth allowed; deep reports the node that exceeds it */
    int maxdepth;
    nsc_status (*deep)(void *ctx, const nl_expr *e, nsc_report *r);
    void *ctx;
    const char *file; /* of messages */
    const char *in;   /* appended to "unknown function 'f'", e.g. " in .meas x" (may be NULL) */
    void (*at)(void *ctx, const nl_expr *e); /* may be NULL: told the node of each instruction the
                                                  generic rules emit, before it is emitted */
} nl_xcomp;

/* Emit the code of e through C (postfix, operands left to right; ?: evaluates
 * both branches). Errors: an unknown function, a wrong argument count, a name
 * the leaf left (undefined parameter), the depth (C->deep). */
nsc_status nl_expr_compile(const nl_expr *e, const nl_xcomp *C, nsc_report *r);

#endif
