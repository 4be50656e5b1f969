/* nl_parse.y -- the grammar of one card (logical line) and of expressions.
 *
 * A card is a list of fields (see nl_field in nl_deck.h); what the fields mean
 * is decided later by the card's first letter (nl_elab_el.c, nl_dot.c). Lists inside
 * parentheses are collected on the field stack p->stk: a list's value is the
 * stack mark where it starts, and closing it copies stk[mark..top) into the
 * deck arena. Expressions become nl_expr trees (precedence, loosest first:
 * ?: (right), ||, &&, == !=, < > <= >=, + -, * /, unary - + !, ^; unary minus
 * binds less tightly than ^, so -2^2 = -4; ^ and ** are right-associative). */
%code requires {
#include "netlist/nl_deck.h"
typedef void *yyscan_t;
typedef struct nl_tok {
    const char *s; /* text: WORD, CALLNAME, IDENT in lower case; STRING, NUM as written */
    double v;      /* NUM value */
    int line, col;
} nl_tok;
typedef struct nl_args {
    nl_expr *first, *last;
    int n;
} nl_args;
}

%code {
#include <string.h>
int nl_yylex(NL_YYSTYPE *lval, yyscan_t scanner);
struct nl_parser *nl_yyget_extra(yyscan_t scanner);
static void nl_yyerror(yyscan_t scanner, const char *msg);

#define P (nl_yyget_extra(scanner))
/* a field on the stack / a new node, aborting the parse on failure */
#define PUSH(fld) do { if (push(P, &(fld))) YYABORT; } while (0)
#define NODE(dst, op, t, a, b) do { if (!((dst) = node(P, (op), &(t), (a), (b)))) YYABORT; } while (0)

static int push(nl_parser *p, const nl_field *f);
static int list(nl_parser *p, int mark, nl_field *f);
static nl_expr *node(nl_parser *p, nl_xop op, const nl_tok *t, nl_expr *a, nl_expr *b);
static nl_field word(int kind, const nl_tok *t);
static nl_field pair(nl_parser *p, const nl_field *k, const nl_field *v, int *ok);
static nl_field exprfield(nl_expr *x, int line, int col);
static void leftmost(const nl_expr *x, int *line, int *col);
}

%define api.pure full
%define api.prefix {nl_yy}
%param {yyscan_t scanner}

%union {
    nl_tok tok;
    nl_expr *x;
    nl_field f;
    int mark;
    nl_args args;
}

%token <tok> WORD CALLNAME STRING NUM IDENT XOPEN XCLOSE XLP XRP XCOMMA LEXERR
%token <tok> '(' ')' ',' '=' '!'
%right <tok> '?' ':'
%left <tok> OROR
%left <tok> ANDAND
%left <tok> EQEQ NEQ
%left <tok> '<' '>' LEQ GEQ
%left <tok> '+' '-'
%left <tok> '*' '/'
%precedence NEG '!'
%left <tok> POW                 /* as ngspice: 2^3^2 = (2^3)^2 = 64 */

%type <f> item value
%type <mark> list
%type <x> expr
%type <args> args

%%

card
    : %empty
    | fields                    { nl_field f; if (list(P, 0, &f)) YYABORT; P->out->f = f.sub; P->out->nf = f.nsub; }
    ;

fields
    : field
    | fields field
    ;

field
    : item                      { PUSH($1); }
    | item '=' value            { int ok; nl_field f = pair(P, &$1, &$3, &ok); if (!ok) YYABORT; PUSH(f); }
    ;

value
    : item
    | expr                      { int l, c; leftmost($1, &l, &c); $$ = exprfield($1, l, c); }
    ;

item
    : WORD                      { $$ = word(NL_F_WORD, &$1); }
    | STRING                    { $$ = word(NL_F_STRING, &$1); }
    | XOPEN expr XCLOSE         { $$ = exprfield($2, $1.line, $1.col); }
    | CALLNAME '(' list ')'     { $$ = word(NL_F_CALL, &$1); if (list(P, $3, &$$)) YYABORT; }
    | '(' list ')'              { $$ = word(NL_F_GROUP, &$1); if (list(P, $2, &$$)) YYABORT; }
    ;

list
    : %empty                    { $$ = P->top; }
    | list field                { $$ = $1; }
    | list ','                  { $$ = $1; }
    ;

expr
    : NUM                       { NODE($$, NL_X_NUM, $1, NULL, NULL); $$->num = $1.v; $$->name = $1.s; }
    | IDENT                     { NODE($$, NL_X_PARAM, $1, NULL, NULL); $$->name = $1.s; }
    | IDENT XLP XRP             { NODE($$, NL_X_CALL, $1, NULL, NULL); $$->name = $1.s; }
    | IDENT XLP args XRP        {
                                  NODE($$, NL_X_CALL, $1, $3.first, NULL);
                                  $$->name = $1.s;
                                  $$->nargs = $3.n;
                                  for (nl_expr *a = $3.first; a; a = a->next)
                                      if (a->depth >= $$->depth) $$->depth = a->depth + 1;
                                }
    | XLP expr XRP              { $$ = $2; }
    | expr '+' expr             { NODE($$, NL_X_ADD, $2, $1, $3); }
    | expr '-' expr             { NODE($$, NL_X_SUB, $2, $1, $3); }
    | expr '*' expr             { NODE($$, NL_X_MUL, $2, $1, $3); }
    | expr '/' expr             { NODE($$, NL_X_DIV, $2, $1, $3); }
    | expr POW expr             { NODE($$, NL_X_POW, $2, $1, $3); }
    | '-' expr %prec NEG        { NODE($$, NL_X_NEG, $1, $2, NULL); }
    | '+' expr %prec NEG        { $$ = $2; }
    | '!' expr                  { NODE($$, NL_X_NOT, $1, $2, NULL); }
    | expr '<' expr             { NODE($$, NL_X_LT, $2, $1, $3); }
    | expr '>' expr             { NODE($$, NL_X_GT, $2, $1, $3); }
    | expr LEQ expr             { NODE($$, NL_X_LE, $2, $1, $3); }
    | expr GEQ expr             { NODE($$, NL_X_GE, $2, $1, $3); }
    | expr EQEQ expr            { NODE($$, NL_X_EQ, $2, $1, $3); }
    | expr NEQ expr             { NODE($$, NL_X_NE, $2, $1, $3); }
    | expr ANDAND expr          { NODE($$, NL_X_AND, $2, $1, $3); }
    | expr OROR expr            { NODE($$, NL_X_OR, $2, $1, $3); }
    | expr '?' expr ':' expr    {
                                  NODE($$, NL_X_COND, $2, $1, $3);
                                  $$->c = $5;
                                  if ($5->depth >= $$->depth) $$->depth = $5->depth + 1;
                                }
    ;

args
    : expr                      { $$.first = $$.last = $1; $$.n = 1; }
    | args XCOMMA expr          { $$ = $1; $$.last->next = $3; $$.last = $3; $$.n++; }
    ;

%%

static int push(nl_parser *p, const nl_field *f)
{
    if (nsc_grow((void **)&p->stk, &p->cap, p->top + 1, sizeof *p->stk)) {
        nsc_oom(p->r);
        return -1;
    }
    p->stk[p->top++] = *f;
    return 0;
}

/* f->sub = arena copy of stk[mark..top), which is popped */
static int list(nl_parser *p, int mark, nl_field *f)
{
    int n = p->top - mark;
    f->nsub = n;
    f->sub = NULL;
    if (n > 0) {
        if (!(f->sub = nl_alloc(&p->deck->arena, (size_t)n * sizeof *f->sub))) {
            nsc_oom(p->r);
            return -1;
        }
        memcpy(f->sub, p->stk + mark, (size_t)n * sizeof *f->sub);
    }
    p->top = mark;
    return 0;
}

static nl_expr *node(nl_parser *p, nl_xop op, const nl_tok *t, nl_expr *a, nl_expr *b)
{
    nl_expr *e = nl_expr_new(&p->deck->arena, op, t->line, t->col, a, b);
    if (!e) {
        nsc_oom(p->r);
        return NULL;
    }
    if (e->depth > NL_EXPR_MAXDEPTH) {
        nsc_loc loc = { p->deck->files[p->ln->file], t->line, t->col };
        nsc_err(p->r, NSC_ENETLIST, &loc, "expression too deeply nested");
        return NULL;
    }
    return e;
}

static nl_field word(int kind, const nl_tok *t)
{
    nl_field f = { kind, t->line, t->col, 0, { t->s }, NULL };
    return f;
}

static nl_field pair(nl_parser *p, const nl_field *k, const nl_field *v, int *ok)
{
    nl_field f = { NL_F_PAIR, k->line, k->col, 2, { NULL }, nl_alloc(&p->deck->arena, 2 * sizeof f) };
    *ok = f.sub != NULL;
    if (!*ok) nsc_oom(p->r);
    else {
        f.sub[0] = *k;
        f.sub[1] = *v;
    }
    return f;
}

static nl_field exprfield(nl_expr *x, int line, int col)
{
    nl_field f = { NL_F_EXPR, line, col, 0, { NULL }, NULL };
    f.u.x = x;
    return f;
}

/* position of the leftmost token of x (approximately: its leftmost leaf) */
static void leftmost(const nl_expr *x, int *line, int *col)
{
    while (x->a && x->op != NL_X_NEG && x->op != NL_X_CALL) x = x->a;
    *line = x->line;
    *col = x->col;
}

/* Syntax errors: name the offending token, or say what is unterminated. */
static void nl_yyerror(yyscan_t scanner, const char *msg)
{
    nl_parser *p = P;
    if (p->lexerr || p->r->status != NSC_OK) return;
    nsc_loc loc = { p->deck->files[p->ln->file], 0, 0 };
    if (strstr(msg, "exhausted")) {
        nl_line_pos(p->ln, p->tokoff, &loc.line, &loc.col);
        nsc_err(p->r, NSC_ENETLIST, &loc, "card too deeply nested");
        return;
    }
    if (p->last == 0) { /* at the end of the card */
        if (p->npar > 0) {
            int k = p->npar <= NL_MAXPAREN ? p->npar - 1 : NL_MAXPAREN - 1;
            nl_line_pos(p->ln, p->paren[k], &loc.line, &loc.col);
            nsc_err(p->r, NSC_ENETLIST, &loc, "unterminated parenthesis: missing ')'");
        } else {
            nl_line_pos(p->ln, p->tokoff, &loc.line, &loc.col);
            nsc_err(p->r, NSC_ENETLIST, &loc, "unexpected end of line");
        }
        return;
    }
    if (p->last == XCLOSE && p->npar > 0) { /* '}' or closing quote inside ( */
        int k = p->npar <= NL_MAXPAREN ? p->npar - 1 : NL_MAXPAREN - 1;
        nl_line_pos(p->ln, p->paren[k], &loc.line, &loc.col);
        nsc_err(p->r, NSC_ENETLIST, &loc, "unterminated parenthesis: missing ')'");
        return;
    }
    size_t n = p->off - p->tokoff;
    nl_line_pos(p->ln, p->tokoff, &loc.line, &loc.col);
    nsc_err(p->r, NSC_ENETLIST, &loc, "syntax error at '%.*s'", n > 40 ? 40 : (int)n, p->ln->text + p->tokoff);
}

nsc_status nl_parse_line(nl_parser *p, const nl_line *ln, nl_card *out)
{
    p->ln = ln;
    p->out = out;
    p->top = 0;
    out->f = NULL;
    out->nf = 0;
    out->file = ln->file;
    if (ln->len > NL_MAXBYTES) {                       /* flex takes an int length */
        nsc_loc loc = { p->deck->files[ln->file], ln->seg[0].line, 1 };
        return nsc_err(p->r, NSC_ENETLIST, &loc, "line too long");
    }
    if (setjmp(p->fatal)) {                            /* flex's YY_FATAL_ERROR */
        nl_lex_end(p);
        if (strstr(p->fatalmsg, "memory")) return nsc_oom(p->r);
        nsc_loc loc = { p->deck->files[ln->file], ln->seg[0].line, 1 };
        return nsc_err(p->r, NSC_ENETLIST, &loc, "internal scanner error (%s)", p->fatalmsg);
    }
    nl_lex_begin(p);
    int rc = nl_yyparse(p->scanner);
    nl_lex_end(p);
    if (rc == 0) return NSC_OK;
    if (p->r->status == NSC_OK) {
        if (rc == 2) return nsc_oom(p->r);
        nsc_loc loc = { p->deck->files[ln->file], 0, 0 };
        nl_line_pos(ln, 0, &loc.line, &loc.col);
        nsc_err(p->r, NSC_ENETLIST, &loc, "syntax error");
    }
    return p->r->status;
}
