/* test_lexer.c -- lexical level of the netlist: numbers with scale suffixes,
 * comments, continuation lines, positions, bare expressions, scanner errors. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "netlist/netlist.h"
#include "netlist/nl_deck.h"

static double num(const char *s)
{
    double v = NAN;
    cr_assert(nsc_parse_number(s, &v), "'%s' should be a number", s);
    return v;
}

static void near(double a, double b)
{
    cr_assert(fabs(a - b) <= 1e-12 * fabs(b), "%.17g != %.17g", a, b);
}

Test(lexer, number_suffixes)
{
    near(num("1meg"), 1e6);
    near(num("1MEG"), 1e6);
    near(num("1m"), 1e-3);
    near(num("1M"), 1e-3); /* SPICE: M is milli */
    near(num("10uF"), 10e-6);
    near(num("1kohm"), 1e3);
    near(num("5ns"), 5e-9);
    near(num("3mil"), 3 * 25.4e-6);
    near(num("2.5e-3"), 2.5e-3);
    near(num(".5"), 0.5);
    near(num("4."), 4);
    near(num("-2p"), -2e-12);
    near(num("+7"), 7);
    near(num("1t"), 1e12);
    near(num("1g"), 1e9);
    near(num("1f"), 1e-15);
    near(num("1a"), 1e-18);
    near(num("1e3k"), 1e6);
    near(num("12V"), 12);
    near(num("1Hz"), 1);
    near(num("100Meghz"), 100e6);
}

Test(lexer, not_numbers)
{
    const char *bad[] = { "",     "abc", "1.2.3", "inf", "nan", "-inf", "1x2",
                          "0x10", "e5",  ".",     "-",   "1k5", "1e-3%" };
    double v;
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        cr_assert(!nsc_parse_number(bad[k], &v), "'%s' is not a number", bad[k]);
}

/* read text into D; returns the status */
static nl_deck D;
static nsc_report R;
static nsc_status rd(const char *text)
{
    memset(&D, 0, sizeof D);
    nsc_report_init(&R);
    return nl_deck_read_string(&D, text, "t.cir", NULL, &R);
}
static void done(void)
{
    nl_deck_free(&D);
    nsc_report_free(&R);
}

static void field(const nl_field *f, int kind, const char *s, int line, int col)
{
    cr_assert_eq(f->kind, kind);
    if (s) cr_assert_str_eq(f->u.s, s);
    cr_assert_eq(f->line, line, "line %d != %d", f->line, line);
    cr_assert_eq(f->col, col, "col %d != %d", f->col, col);
}

Test(lexer, comments_title_and_positions)
{
    cr_assert_eq(rd("My title * not a comment\n"
                    "* a comment line\n"
                    "R1 a b 10k ; inline comment\n"
                    "  C2 a 0 1u $ another comment\n"
                    "\n"
                    "L$x n$1 0 1m\n"),
                 NSC_OK);
    cr_assert_str_eq(D.title, "My title * not a comment");
    cr_assert_eq(D.ncard, 3);
    cr_assert_eq(D.card[0].nf, 4);
    field(&D.card[0].f[0], NL_F_WORD, "r1", 3, 1);
    field(&D.card[0].f[3], NL_F_WORD, "10k", 3, 8);
    cr_assert_eq(D.card[1].nf, 4);
    field(&D.card[1].f[0], NL_F_WORD, "c2", 4, 3);
    field(&D.card[2].f[0], NL_F_WORD, "l$x", 6, 1); /* '$' inside a word is no comment */
    field(&D.card[2].f[1], NL_F_WORD, "n$1", 6, 5);
    done();
}

Test(lexer, continuation_lines_keep_positions)
{
    cr_assert_eq(rd("t\n"
                    "V1 a 0 PULSE(0 5\n"
                    "* comment between\n"
                    "+ 1u 1n ; comment ends at the line end\n"
                    "+1n 10u)\n"
                    "R1 a 0 1k\r\n"),
                 NSC_OK);
    cr_assert_eq(D.ncard, 2);
    const nl_field *p = &D.card[0].f[3];
    field(p, NL_F_CALL, "pulse", 2, 8);
    cr_assert_eq(p->nsub, 6);
    field(&p->sub[2], NL_F_WORD, "1u", 4, 3);
    field(&p->sub[4], NL_F_WORD, "1n", 5, 2);
    field(&p->sub[5], NL_F_WORD, "10u", 5, 5);
    field(&D.card[1].f[3], NL_F_WORD, "1k", 6, 8); /* CR stripped */
    done();
}

Test(lexer, bare_expressions_after_word_equals)
{
    cr_assert_eq(rd("t\n.param a=1 b = 2*a c=-3 d=max(a, 2) e=1 +2 f='a' g={a}\n"), NSC_OK);
    const nl_card *c = &D.card[0];
    cr_assert_eq(c->nf, 8);
    for (int k = 1; k < 8; k++) cr_assert_eq(c->f[k].kind, NL_F_PAIR);
    field(&c->f[2], NL_F_PAIR, NULL, 2, 12);
    const nl_expr *b = c->f[2].sub[1].u.x;
    cr_assert_eq(b->op, NL_X_MUL);
    cr_assert_eq(b->a->op, NL_X_NUM);
    cr_assert_eq(b->b->op, NL_X_PARAM);
    cr_assert_str_eq(b->b->name, "a");
    cr_assert_eq(c->f[3].sub[1].u.x->op, NL_X_NEG);
    cr_assert_eq(c->f[4].sub[1].u.x->op, NL_X_CALL);
    cr_assert_eq(c->f[4].sub[1].u.x->nargs, 2);
    cr_assert_eq(c->f[5].sub[1].u.x->op, NL_X_ADD); /* blank before a binary operator continues */
    cr_assert_eq(c->f[6].sub[1].kind, NL_F_EXPR);
    cr_assert_eq(c->f[7].sub[1].kind, NL_F_EXPR);
    done();
}

Test(lexer, bare_expression_ends_at_paren_and_comma)
{
    cr_assert_eq(rd("t\n.model d1 d(is=1e-14,n=1.5 rs=0.1)\n"), NSC_OK);
    const nl_field *m = &D.card[0].f[2];
    field(m, NL_F_CALL, "d", 2, 11);
    cr_assert_eq(m->nsub, 3);
    for (int k = 0; k < 3; k++) cr_assert_eq(m->sub[k].kind, NL_F_PAIR);
    cr_assert_eq(m->sub[0].sub[1].u.x->num, 1e-14);
    near(m->sub[2].sub[1].u.x->num, 0.1);
    done();
}

Test(lexer, words_and_identifiers_lowered_strings_kept)
{
    cr_assert_eq(rd("t\nR1 OUT In {RVal*2} \"File.TXT\"\n"), NSC_OK);
    cr_assert_str_eq(D.card[0].f[0].u.s, "r1");
    cr_assert_str_eq(D.card[0].f[1].u.s, "out");
    cr_assert_str_eq(D.card[0].f[4].u.s, "File.TXT");
    cr_assert_str_eq(D.card[0].f[3].u.x->a->name, "rval");
    done();
}

Test(lexer, strings)
{
    cr_assert_eq(rd("t\n.options solver=\"klu\"\n"), NSC_OK);
    cr_assert_eq(D.card[0].f[1].sub[1].kind, NL_F_STRING);
    cr_assert_str_eq(D.card[0].f[1].sub[1].u.s, "klu");
    done();
}

static void bad(const char *text, const char *msg)
{
    cr_assert_neq(rd(text), NSC_OK, "accepted: %s", text);
    cr_assert_str_eq(R.error, msg);
    done();
}

Test(lexer, errors)
{
    bad("t\nR1 a 0 1 \x01\n", "t.cir:2:10: error: invalid character (byte 0x01)");
    bad("t\nR1 a 0 }\n", "t.cir:2:8: error: unexpected '}'");
    bad("t\nR1 a 0 \"abc\n", "t.cir:2:8: error: unterminated string");
    bad("t\nR1 a 0 {1+2\n", "t.cir:2:8: error: unterminated expression: missing '}'");
    bad("t\nR1 a 0 'x+1\n", "t.cir:2:8: error: unterminated quote: missing closing '");
    bad("t\nR1 a 0 {1 # 2}\n", "t.cir:2:11: error: unexpected '#' in expression");
    bad("t\nR1 a 0 {1 ' 2}\n", "t.cir:2:11: error: unexpected ''' in expression");
    bad("t\n+ R1 a 0 1\n", "t.cir:2:1: error: continuation line '+' without a card before it");
    bad("t\n.param a=1 *\n", "t.cir:2:13: error: unexpected end of line");
}

Test(lexer, binary_junk_and_nul)
{
    char junk[4096];
    unsigned x = 12345;
    for (size_t k = 0; k < sizeof junk - 1; k++) {
        x = x * 1103515245u + 12345u;
        junk[k] = (char)(1 + (x >> 16) % 255);
    }
    junk[sizeof junk - 1] = 0;
    cr_assert_neq(rd(junk), NSC_OK);
    cr_assert_not_null(R.error);
    done();
}

Test(lexer, long_lines_and_deep_nesting)
{
    size_t n = 100000;
    char *s = malloc(3 * n + 64);
    strcpy(s, "t\nR1 a 0 ");
    memset(s + 9, 'x', n);
    strcpy(s + 9 + n, "\n");
    cr_assert_eq(rd(s), NSC_OK);
    cr_assert_eq(strlen(D.card[0].f[3].u.s), n);
    done();
    strcpy(s, "t\nR1 a 0 {");
    memset(s + 10, '(', n);
    strcpy(s + 10 + n, "1");
    memset(s + 11 + n, ')', n);
    strcpy(s + 11 + 2 * n, "}\n");
    cr_assert_neq(rd(s), NSC_OK);
    cr_assert(strstr(R.error, "too deeply nested"), "%s", R.error);
    done();
    free(s);
}
