/* test_parser.c -- cards as plain data (fields, calls, groups, pairs,
 * expressions) and the deck reader: .include, .lib sections, .control, .end. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "netlist/netlist.h"
#include "netlist/nl_deck.h"
#include "testutil.h"

static nl_deck D;
static nsc_report R;
static nsc_status rd(const char *text)
{
    memset(&D, 0, sizeof D);
    nsc_report_init(&R);
    return nl_deck_read_string(&D, text, "t.cir", NULL, &R);
}
static nsc_status rdfile(const char *path)
{
    memset(&D, 0, sizeof D);
    nsc_report_init(&R);
    return nl_deck_read_file(&D, path, NULL, &R);
}
static void done(void)
{
    nl_deck_free(&D);
    nsc_report_free(&R);
}

Test(parser, call_group_pair_expr)
{
    cr_assert_eq(rd("t\n"
                    ".save V(a) v(a,b) I(L1)\n"
                    ".ic V(n1)=2.5\n"
                    "E1 o 0 TABLE {V(c)} = (-1, -2) (1,2)\n"
                    ".model sw1 SW (vt=1 vh=0.5)\n"),
                 NSC_OK);
    cr_assert_eq(D.ncard, 4);
    const nl_card *c = &D.card[0];
    cr_assert_eq(c->nf, 4);
    cr_assert_eq(c->f[1].kind, NL_F_CALL);
    cr_assert_str_eq(c->f[1].u.s, "v");
    cr_assert_eq(c->f[1].nsub, 1);
    cr_assert_str_eq(c->f[1].sub[0].u.s, "a");
    cr_assert_eq(c->f[2].nsub, 2); /* the comma is a separator */
    cr_assert_str_eq(c->f[2].sub[1].u.s, "b");
    c = &D.card[1];
    cr_assert_eq(c->f[1].kind, NL_F_PAIR);
    cr_assert_eq(c->f[1].sub[0].kind, NL_F_CALL);
    cr_assert_eq(c->f[1].sub[1].kind, NL_F_WORD); /* after ')' a word, not an expression */
    cr_assert_str_eq(c->f[1].sub[1].u.s, "2.5");
    c = &D.card[2];
    cr_assert_eq(c->nf, 6);
    cr_assert_eq(c->f[4].kind, NL_F_PAIR);
    cr_assert_eq(c->f[4].sub[0].kind, NL_F_EXPR);
    const nl_expr *x = c->f[4].sub[0].u.x;
    cr_assert_eq(x->op, NL_X_CALL);
    cr_assert_str_eq(x->name, "v");
    cr_assert_eq(x->nargs, 1);
    cr_assert_eq(c->f[4].sub[1].kind, NL_F_GROUP);
    cr_assert_eq(c->f[4].sub[1].nsub, 2);
    cr_assert_str_eq(c->f[4].sub[1].sub[0].u.s, "-1");
    cr_assert_eq(c->f[5].kind, NL_F_GROUP);
    c = &D.card[3];
    cr_assert_eq(c->f[2].kind, NL_F_WORD); /* "SW (" with a blank: word then group */
    cr_assert_eq(c->f[3].kind, NL_F_GROUP);
    cr_assert_eq(c->f[3].nsub, 2);
    done();
}

Test(parser, expression_tree_shape)
{
    /* -2^2 = -(2^2); 2^3^2 = (2^3)^2 (ngspice 39); a-b-c = (a-b)-c */
    cr_assert_eq(rd("t\nR1 a 0 {-2^2 + 2**3^2 - a - b/c*d}\n"), NSC_OK);
    const nl_expr *e = D.card[0].f[3].u.x;
    cr_assert_eq(e->op, NL_X_SUB); /* (... - a) - (b/c*d) */
    cr_assert_eq(e->b->op, NL_X_MUL);
    cr_assert_eq(e->b->a->op, NL_X_DIV);
    const nl_expr *l = e->a; /* (-2^2 + 2^3^2) - a */
    cr_assert_eq(l->op, NL_X_SUB);
    cr_assert_eq(l->a->op, NL_X_ADD);
    cr_assert_eq(l->a->a->op, NL_X_NEG);
    cr_assert_eq(l->a->a->a->op, NL_X_POW);
    cr_assert_eq(l->a->b->op, NL_X_POW);
    cr_assert_eq(l->a->b->a->op, NL_X_POW); /* left-associative */
    cr_assert_eq(l->a->b->b->op, NL_X_NUM);
    done();
}

static void bad(const char *text, const char *msg)
{
    cr_assert_neq(rd(text), NSC_OK, "accepted: %s", text);
    cr_assert_str_eq(R.error, msg);
    done();
}

Test(parser, syntax_errors)
{
    bad("t\nR1 a 0 {(1+2}\n", "t.cir:2:9: error: unterminated parenthesis: missing ')'");
    bad("t\nR1 a 0 {1+}\n", "t.cir:2:11: error: syntax error at '}'");
    bad("t\nR1 a 0 {}\n", "t.cir:2:9: error: syntax error at '}'");
    bad("t\nR1 a 0 {2 3}\n", "t.cir:2:11: error: syntax error at '3'");
    bad("t\nR1 a 0 )\n", "t.cir:2:8: error: syntax error at ')'");
    bad("t\n= a b\n", "t.cir:2:1: error: syntax error at '='");
    bad("t\n(a) b\n",
        "t.cir:2:1: error: expected an element or dot card name at the start of the line");
}

Test(parser, control_blocks_and_end)
{
    /* the block's lines are ".ctl" cards (nl_dot.c runs them); a line the card
     * syntax cannot read is ".ctl ? word", never an error */
    cr_assert_eq(
        rd("t\nR1 a 0 1\n.control\nrun\nwrdata x v(a)\nif $x > {\n.endc\nR2 a 0 2\n.end\nR3 a 0 garbage {\n"),
        NSC_OK);
    cr_assert_eq(D.ncard, 5);
    cr_assert(!strcmp(D.card[1].f[0].u.s, ".ctl") && !strcmp(D.card[1].f[1].u.s, "run"));
    cr_assert(D.card[2].nf == 4 && !strcmp(D.card[2].f[1].u.s, "wrdata")
              && D.card[2].f[3].kind == NL_F_CALL);
    cr_assert(D.card[3].nf == 3 && !strcmp(D.card[3].f[1].u.s, "?")
              && !strcmp(D.card[3].f[2].u.s, "if"));
    cr_assert(D.card[2].f[2].line == 5 && D.card[2].f[2].col == 8, "x at %d:%d",
              D.card[2].f[2].line, D.card[2].f[2].col);
    cr_assert_str_eq(D.card[4].f[0].u.s, "r2");
    done();
}

Test(parser, include_relative_to_including_file)
{
    char *dir = tu_tmpdir();
    char p[512], q[512];
    snprintf(p, sizeof p, "%s/sub", dir);
    cr_assert_eq(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/sub/a.inc", dir);
    cr_assert_eq(tu_write_file(p, "* a\nR2 x 0 2\n.include 'b.inc'\n"), 0);
    snprintf(p, sizeof p, "%s/sub/b.inc", dir);
    cr_assert_eq(tu_write_file(p, "R3 y 0 3\n+ ; continued\n"), 0);
    snprintf(p, sizeof p, "%s/main.cir", dir);
    cr_assert_eq(tu_write_file(p, "title\nR1 a 0 1\n.INCLUDE \"sub/a.inc\"\nR4 z 0 4\n"), 0);
    cr_assert_eq(rdfile(p), NSC_OK, "%s", R.error);
    cr_assert_eq(D.ncard, 4);
    const char *names[] = { "r1", "r2", "r3", "r4" };
    for (int k = 0; k < 4; k++) cr_assert_str_eq(D.card[k].f[0].u.s, names[k]);
    snprintf(q, sizeof q, "%s/sub/b.inc", dir);
    cr_assert_str_eq(D.files[D.card[2].file], q);
    cr_assert_eq(D.card[2].f[0].line, 1);
    done();
    tu_rmdir(dir);
    free(dir);
}

Test(parser, include_errors)
{
    char *dir = tu_tmpdir();
    char p[512], m[2048];
    snprintf(p, sizeof p, "%s/a.inc", dir);
    cr_assert_eq(tu_write_file(p, "R1 a 0 1\n.include a.inc\n"), 0);
    cr_assert_neq(rdfile(p), NSC_OK);
    snprintf(m, sizeof m, "%s:2:10: error: recursive include of '%s'", p, p);
    cr_assert_str_eq(R.error, m);
    done();
    snprintf(p, sizeof p, "%s/b.inc", dir);
    cr_assert_eq(tu_write_file(p, "t\n  .inc   nothere.lib\n"), 0);
    cr_assert_neq(rdfile(p), NSC_OK);
    snprintf(m, sizeof m, "%s:2:10: error: cannot open include file 'nothere.lib': not found in %s",
             p, dir);
    cr_assert_str_eq(R.error, m);
    done();
    snprintf(p, sizeof p, "%s/c.inc", dir);
    cr_assert_eq(tu_write_file(p, "t\n.include\n"), 0);
    cr_assert_neq(rdfile(p), NSC_OK);
    snprintf(m, sizeof m, "%s:2:9: error: missing file name after .include", p);
    cr_assert_str_eq(R.error, m);
    done();
    snprintf(p, sizeof p, "%s/missing.cir", dir);
    cr_assert_eq(rdfile(p), NSC_EIO);
    snprintf(m, sizeof m, "nscircuit: error: cannot read '%s': No such file or directory", p);
    cr_assert_str_eq(R.error, m);
    done();
    tu_rmdir(dir);
    free(dir);
}

Test(parser, lib_sections)
{
    char *dir = tu_tmpdir();
    char p[512], m[2048];
    snprintf(p, sizeof p, "%s/m.lib", dir);
    cr_assert_eq(tu_write_file(p, "* library\n"
                                  ".lib fast\n.model df D(vf=0.3)\n.endl fast\n"
                                  ".lib slow\n.model ds D(vf=0.9)\nR9 q 0 9\n.endl\n"),
                 0);
    snprintf(p, sizeof p, "%s/main.cir", dir);
    cr_assert_eq(tu_write_file(p, "t\n.lib 'm.lib' slow\nR1 a 0 1\n"), 0);
    cr_assert_eq(rdfile(p), NSC_OK, "%s", R.error);
    cr_assert_eq(D.ncard, 3);
    cr_assert_str_eq(D.card[0].f[1].u.s, "ds");
    cr_assert_str_eq(D.card[1].f[0].u.s, "r9");
    done();
    cr_assert_eq(tu_write_file(p, "t\n.lib m.lib FAST\n"), 0);
    cr_assert_eq(rdfile(p), NSC_OK, "%s", R.error);
    cr_assert_eq(D.ncard, 1);
    cr_assert_str_eq(D.card[0].f[1].u.s, "df");
    done();
    cr_assert_eq(tu_write_file(p, "t\n.lib m.lib typical\n"), 0);
    cr_assert_neq(rdfile(p), NSC_OK);
    snprintf(m, sizeof m, "%s:2:6: error: no section 'typical' in library '%s/m.lib'", p, dir);
    cr_assert_str_eq(R.error, m);
    done();
    /* sections of a library may include other sections of the same file, not themselves */
    snprintf(p, sizeof p, "%s/corner.lib", dir);
    cr_assert_eq(tu_write_file(p, ".lib tt\n.lib 'corner.lib' mos\n.param vt=0.5\n.endl tt\n"
                                  ".lib mos\n.model nm nmos vto={vt}\n.endl mos\n"
                                  ".lib loop\n.lib 'corner.lib' loop\n.endl\n"),
                 0);
    snprintf(p, sizeof p, "%s/main.cir", dir);
    cr_assert_eq(tu_write_file(p, "t\n.lib corner.lib tt\n"), 0);
    cr_assert_eq(rdfile(p), NSC_OK, "%s", R.error);
    cr_assert_eq(D.ncard, 2);
    cr_assert_str_eq(D.card[0].f[0].u.s, ".model");
    cr_assert_str_eq(D.card[1].f[0].u.s, ".param");
    done();
    cr_assert_eq(tu_write_file(p, "t\n.lib corner.lib loop\n"), 0);
    cr_assert_neq(rdfile(p), NSC_OK);
    snprintf(m, sizeof m, "%s/corner.lib:9:6: error: recursive include of '%s/corner.lib'", dir,
             dir);
    cr_assert_str_eq(R.error, m);
    done();
    /* a section definition in the main file is skipped */
    cr_assert_eq(tu_write_file(p, "t\n.lib local\nR8 a 0 8\n.endl\nR1 a 0 1\n"), 0);
    cr_assert_eq(rdfile(p), NSC_OK, "%s", R.error);
    cr_assert_eq(D.ncard, 1);
    cr_assert_str_eq(D.card[0].f[0].u.s, "r1");
    done();
    tu_rmdir(dir);
    free(dir);
}

/* LTspice's `.lib FILE` (one argument) includes the whole file, as .include
 * (issue 12 item 6). A FILE not found was taken for a section definition: the
 * rest of the netlist was skipped to the end of the file, and the error was
 * "netlist has no elements" (or nothing at all). Now a name that can only be a
 * file (quoted, with '.' or '/') or a "section" that no .endl closes is a file
 * not found, at the .lib card; `.lib FILE SECTION` is unchanged (lib_sections). */
Test(parser, lib_with_one_argument_is_an_include)
{
    char *dir = tu_tmpdir();
    char p[512], m[2048];
    snprintf(p, sizeof p, "%s/parts.lib", dir);
    cr_assert_eq(
        tu_write_file(p, "* parts\n.model dx D(vf=0.7)\n.subckt half a b\nR1 a b 1k\n.ends\n"), 0);
    snprintf(p, sizeof p, "%s/plain", dir); /* a file without extension */
    cr_assert_eq(tu_write_file(p, "R7 a 0 7\n"), 0);
    snprintf(p, sizeof p, "%s/main.cir", dir);
    cr_assert_eq(tu_write_file(p, "t\n.lib parts.lib\n.lib \"plain\"\n.lib plain\nR1 a 0 1\n"), 0);
    cr_assert_eq(rdfile(p), NSC_OK, "%s", R.error);
    cr_assert_eq(D.ncard, 7);
    cr_assert_str_eq(D.card[0].f[0].u.s, ".model");
    cr_assert_str_eq(D.card[1].f[0].u.s, ".subckt");
    cr_assert_str_eq(D.card[3].f[0].u.s, ".ends");
    cr_assert_str_eq(D.card[4].f[0].u.s, "r7");
    cr_assert_str_eq(D.card[5].f[0].u.s, "r7");
    cr_assert_str_eq(D.card[6].f[0].u.s, "r1");
    done();
    const char *missing[] = { "t\nR1 a 0 1\n.lib nothere.lib\nR2 a 0 2\n",
                              "t\nR1 a 0 1\n.lib 'nothere'\nR2 a 0 2\n",
                              "t\nR1 a 0 1\n.lib sub/nothere\nR2 a 0 2\n",
                              "t\nR1 a 0 1\n.lib nothere\nR2 a 0 2\n.end\n" };
    const char *name[] = { "nothere.lib", "nothere", "sub/nothere", "nothere" };
    const int col[] = { 6, 6, 6, 6 };
    for (int k = 0; k < 4; k++) {
        cr_assert_eq(tu_write_file(p, missing[k]), 0);
        cr_assert_eq(rdfile(p), NSC_ENETLIST, "%d", k);
        snprintf(m, sizeof m, "%s:3:%d: error: cannot open include file '%s': not found in %s", p,
                 col[k], name[k], dir);
        cr_assert_str_eq(R.error, m);
        done();
    }
    tu_rmdir(dir);
    free(dir);
}

/* A .model card that does not parse (XSPICE's vectors, an unclosed
 * parenthesis) is kept as ".model NAME MESSAGE", the message at the error's
 * position: an error only for an element that uses the model (issue 28 item
 * 5; test elab/unparsed_model_is_an_error_where_used). It was an error at once. */
Test(parser, model_that_does_not_parse_waits_for_its_use)
{
    cr_assert_eq(rd("t\n.model d1 d(is=1\n.model adc1 adc_bridge(in_low=[0.1 0.2])\nR1 a 0 1\n"),
                 NSC_OK, "%s", R.error);
    cr_assert_eq(D.ncard, 3);
    const nl_card *c = &D.card[0];
    cr_assert_eq(c->nf, 4);
    cr_assert_str_eq(c->f[0].u.s, ".model");
    cr_assert_str_eq(c->f[1].u.s, "d1");
    cr_assert(c->f[1].line == 2 && c->f[1].col == 8);
    cr_assert_eq(c->f[2].kind, NL_F_STRING);
    cr_assert_str_eq(c->f[2].u.s, "unterminated parenthesis: missing ')'");
    cr_assert(c->f[2].line == 2 && c->f[2].col == 12);
    cr_assert_eq(c->f[3].kind, NL_F_STRING); /* its text, kept (cards_xspice.c reads a core's) */
    cr_assert_str_eq(c->f[3].u.s, ".model d1 d(is=1");
    cr_assert_str_eq(D.card[1].f[1].u.s, "adc1");
    cr_assert_str_eq(D.card[1].f[3].u.s, ".model adc1 adc_bridge(in_low=[0.1 0.2])");
    done();
    bad("t\nR1 a 0 {(1+2}\n",
        "t.cir:2:9: error: unterminated parenthesis: missing ')'"); /* other cards: at once */
}
