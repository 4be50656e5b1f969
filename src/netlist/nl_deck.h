/* nl_deck.h -- a netlist as plain data: the title and a flat list of cards
 * (logical lines), each a list of parsed fields, with .include/.lib resolved
 * and .control blocks dropped. Built by nl_deck.c with the flex scanner
 * (nl_lex.l) and the bison parser (nl_parse.y); read by nl_elab.c.
 * Internal header. */
#ifndef NSC_NL_DECK_H
#define NSC_NL_DECK_H

#include <setjmp.h>
#include <stddef.h>

#include "lcs/card.h"
#include "netlist.h"
#include "nl_expr.h"
#include "nl_util.h"

/* A field of a card: the card view's field (lcs/card.h: its kinds, sub-fields
 * and locations), so that a device's parser reads the card's own fields. */
typedef enum nl_fkind {
    NL_F_WORD = NSC_CF_WORD,
    NL_F_STRING = NSC_CF_STRING,
    NL_F_EXPR = NSC_CF_EXPR,
    NL_F_CALL = NSC_CF_CALL,
    NL_F_GROUP = NSC_CF_GROUP,
    NL_F_PAIR = NSC_CF_PAIR
} nl_fkind;
typedef nsc_cfield nl_field;

/* A card: f[0] is the head (a WORD: element name or dot keyword). Cards kept
 * unparsed (nl_deck.c): an analysis other than the transient is its head
 * alone; ".model NAME MESSAGE" and ".(unparsed) MESSAGE" (MESSAGE a STRING at
 * the position of the syntax error) a card that did not parse, an error where
 * used. */
typedef struct nl_card {
    nl_field *f;
    int nf;
    int file; /* index into nl_deck.files */
} nl_card;

typedef struct nl_deck {
    nl_arena arena; /* fields, strings, expressions */
    char *title;    /* first line of the main file (malloc'd) */
    char **files;   /* file names as opened (malloc'd) */
    int nfiles, capfiles;
    nl_card *card;
    int ncard, capcard;
} nl_deck;

/* Read the netlist file at path (title = its first line), following .include
 * and .lib; an include not found relative to the including file is looked
 * for in inc->dir[0..ndir) in order (inc may be NULL). NSC_EIO if path cannot be read, NSC_ENETLIST on a syntax error,
 * a missing / recursive include, NSC_ENOMEM. d must be zeroed before. */
nsc_status nl_deck_read_file(nl_deck *d, const char *path, const nsc_search_path *inc,
                             nsc_report *r);
/* Same from text; name appears in messages; includes resolve against the
 * current directory. */
nsc_status nl_deck_read_string(nl_deck *d, const char *text, const char *name,
                               const nsc_search_path *inc, nsc_report *r);
void nl_deck_free(nl_deck *d);

/* Position of field f of card c. */
nsc_loc nl_field_loc(const nl_deck *d, const nl_card *c, const nl_field *f);

/* Size limits (hostile netlists: a few lines of nested .include or .subckt
 * expand exponentially). Text: all files read, includes counted each time they
 * are read (keeps every line, column and offset within an int); reads: files
 * opened, the main file and every .include/.lib read; cards: in the
 * deck; elements and subcircuit instances: after expansion (nl_elab.c). */
#ifndef NL_MAXBYTES
#define NL_MAXBYTES ((size_t)1 << 30)
#endif
#ifndef NL_MAXREADS
#define NL_MAXREADS 10000
#endif
#ifndef NL_MAXCARDS
#define NL_MAXCARDS 10000000
#endif
#ifndef NL_MAXELEMENTS
#define NL_MAXELEMENTS 10000000
#endif

/* ---- between nl_deck.c, nl_lex.l and nl_parse.y ---- */

/* A logical line: physical lines joined by '\n' ('+' of continuations removed);
 * seg[k] maps text offsets >= seg[k].off to a physical line and column. */
typedef struct nl_seg {
    size_t off;
    int line, col;
} nl_seg;
typedef struct nl_line {
    const char *text;
    size_t len;
    int file;
    const nl_seg *seg;
    int nseg;
} nl_line;

/* Scanner + parser state for one deck (the flex "extra" data). */
#define NL_MAXPAREN 64
typedef struct nl_parser {
    nl_deck *deck;
    nsc_report *r;
    const nl_line *ln;
    void *scanner; /* yyscan_t */
    /* scanner */
    size_t off, tokoff;        /* offset after / of the current token */
    int last;                  /* last token returned (for key=value) */
    int lastfile;              /* it was the word FILE (.print FILE=name) */
    int expect;                /* bare expression: an operand is expected next */
    int bdepth;                /* bare expression: open parentheses */
    int brace;                 /* braces open inside an expression ({x} as (x): 'V(a) > {vth}') */
    char close;                /* '}' or '\'': the end of the current {expr} */
    size_t xopen;              /* offset of the '{' or quote */
    size_t paren[NL_MAXPAREN]; /* offsets of the innermost open parentheses */
    int npar;
    int lexerr;           /* 1 when the scanner already reported an error */
    jmp_buf fatal;        /* flex's YY_FATAL_ERROR (out of memory) jumps here, */
    const char *fatalmsg; /* set by nl_parse_line, with flex's message */
    /* parser: fields of the lists being built */
    nl_field *stk;
    int top, cap;
    nl_card *out;
} nl_parser;

/* Parse one logical line into *out (fields in the deck arena). Errors go to p->r. */
nsc_status nl_parse_line(nl_parser *p, const nl_line *ln, nl_card *out);
/* 1-based line and column of text offset off of ln. */
void nl_line_pos(const nl_line *ln, size_t off, int *line, int *col);

/* scanner entry points (nl_lex.l) */
int nl_lex_init(nl_parser *p); /* 0 ok */
void nl_lex_destroy(nl_parser *p);
void nl_lex_begin(nl_parser *p); /* start scanning p->ln */
void nl_lex_end(nl_parser *p);

#endif
