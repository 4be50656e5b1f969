/* nl_meas.c -- .meas cards -> circuit->meas (forms in nl_meas.h). A measured
 * quantity is compiled from the card's fields or expression tree into the
 * postfix program of circuit.h (nsc_msig); probes are collected by name and
 * resolved once the whole circuit exists. */
#include "nl_meas.h"
#include "nl_probe.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xfn.h"
#include "devices/device.h"

typedef struct mctx {
    nsc_circuit *c;
    const nl_deck *d;
    const nl_card *cd;
    const nl_env *env;
    nsc_report *r;
    int self;             /* index of the measure being built */
    const char *what;     /* NULL: messages name the measure; else this (".print") */
    const nl_field *skip; /* an option the form does not take: the measure is skipped */
    unsigned skip_want;   /* the options that form takes (O_ bits), for the warning */
    int skip_noval;       /* skip is a known option without its value */
    const char *skip_use; /* else the skipped measure it uses (job.meas_skipped) */
    unsigned ft_seen;     /* O_FROM, O_TO given so far (options: a second is warned) */
} mctx;

/* ".meas NAME" or the other card that compiles a signal, for messages */
static const char *mname(const mctx *M)
{
    static _Thread_local char buf[96];
    if (M->what) return M->what;
    snprintf(buf, sizeof buf, ".meas %s", M->c->job.meas[M->self].name);
    return buf;
}

static nsc_status oom(mctx *M)
{
    return nsc_oom(M->r);
}

static nsc_status at_loc(mctx *M, nsc_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static nsc_status at_loc(mctx *M, nsc_loc loc, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return nsc_err(M->r, NSC_ENETLIST, &loc, "%s", msg);
}

#define FERR(M, f, ...) at_loc(M, nl_field_loc((M)->d, (M)->cd, f), __VA_ARGS__)

static nsc_loc expr_loc(mctx *M, const nl_expr *e)
{
    nsc_loc l = { M->d->files[M->cd->file], e->line, e->col };
    return l;
}

static int is_word(const nl_field *f, const char *w)
{
    return f->kind == NL_F_WORD && nsc_strieq(f->u.s, w);
}

static const char *ftext(const nl_field *f)
{
    switch (f->kind) {
    case NL_F_WORD:
    case NL_F_STRING:
    case NL_F_CALL: return f->u.s;
    case NL_F_EXPR: return "{...}";
    case NL_F_GROUP: return "(...)";
    default: return f->sub[0].kind == NL_F_WORD ? f->sub[0].u.s : "=";
    }
}

/* ---- programs ---- */

static nsc_status emit(mctx *M, nsc_msig *s, nsc_xop op, int arg, int nargs, double num)
{
    nsc_xinstr *code = nsc_realloc_array(s->code, (size_t)s->ncode + 1, sizeof *code);
    if (!code) return oom(M);
    s->code = code;
    code[s->ncode++] = (nsc_xinstr){ op, arg, nargs, num };
    return NSC_OK;
}

/* append program b to a */
static nsc_status append(mctx *M, nsc_msig *a, const nsc_msig *b)
{
    for (int k = 0; k < b->ncode; k++)
        if (emit(M, a, b->code[k].op, b->code[k].arg, b->code[k].nargs, b->code[k].num))
            return M->r->status;
    return NSC_OK;
}

/* index in c->meas_probe of the quantity "v(a)", "v(a,b)" or "i(x)" (added if new) */
static nsc_status probe(mctx *M, nsc_probekind kind, const char *a, const char *b, nsc_loc loc,
                        int *idx)
{
    nsc_circuit *c = M->c;
    if (nsc_strieq(a, "gnd")) a = "0";
    if (b && (nsc_strieq(b, "gnd") || !strcmp(b, "0"))) b = NULL;
    char *name = kind == NSC_PROBE_I ? nsc_asprintf("i(%s)", a)
                 : b                 ? nsc_asprintf("v(%s,%s)", a, b)
                                     : nsc_asprintf("v(%s)", a);
    if (!name) return oom(M);
    nsc_strlower(name);
    for (int k = 0; k < c->job.nmeas_probe; k++)
        if (!strcmp(c->job.meas_probe[k].name, name)) {
            free(name);
            *idx = k;
            return NSC_OK;
        }
    nsc_probe *p = nsc_realloc_array(c->job.meas_probe, (size_t)c->job.nmeas_probe + 1, sizeof *p);
    if (!p) {
        free(name);
        return oom(M);
    }
    c->job.meas_probe = p;
    memset(&p[c->job.nmeas_probe], 0, sizeof *p);
    p[c->job.nmeas_probe].kind = kind;
    p[c->job.nmeas_probe].node[0] = p[c->job.nmeas_probe].node[1] =
        -1; /* resolved by nl_meas_resolve */
    p[c->job.nmeas_probe].el = -1;
    p[c->job.nmeas_probe].name = name;
    p[c->job.nmeas_probe].loc = loc;
    *idx = c->job.nmeas_probe++;
    return NSC_OK;
}

/* P(x) / W(x): the power element x absorbs, v(port) i(x), the port n+ n- (a
 * MOS transistor's d s): the probes v(@x) (its port, nl_meas_resolve) and i(x). */
static nsc_status power(mctx *M, const char *x, nsc_loc loc, nsc_msig *s)
{
    char *at = nsc_asprintf("@%s", x);
    if (!at) return oom(M);
    int kv, ki;
    nsc_status st = probe(M, NSC_PROBE_V, at, NULL, loc, &kv);
    free(at);
    if (st || (st = probe(M, NSC_PROBE_I, x, NULL, loc, &ki))) return st;
    if ((st = emit(M, s, NSC_XOP_PROBE, kv, 0, 0)) || (st = emit(M, s, NSC_XOP_PROBE, ki, 0, 0)))
        return st;
    return emit(M, s, NSC_XOP_MUL, 0, 0, 0);
}

static int is_power(const char *f)
{
    return !strcmp(f, "p") || !strcmp(f, "w");
}

/* The program being compiled (nl_expr_compile) */
typedef struct msink {
    mctx *M;
    nsc_msig *s;
} msink;

static nsc_status sig_emit(void *ctx, nsc_xinstr in, nsc_report *r)
{
    msink *S = ctx;
    return emit(S->M, S->s, in.op, in.arg, in.nargs, in.num);
}

/* a name: a .param, pi, an earlier measure or time (a B source's: the row's) */
static nsc_status name_leaf(mctx *M, const nl_expr *e, nsc_msig *s)
{
    double v;
    if (M->env->lookup && M->env->lookup(M->env->ctx, e->name, &v))
        return emit(M, s, NSC_XOP_NUM, 0, 0, v);
    if (!strcmp(e->name, "pi")) return emit(M, s, NSC_XOP_NUM, 0, 0, 3.14159265358979323846);
    for (int k = M->self - 1; k >= 0; k--) /* the last of the name (nl_meas_resolve: of the deck) */
        if (!strcmp(M->c->job.meas[k].name, e->name)) return emit(M, s, NSC_XOP_MEAS, k, 0, 0);
    if (!strcmp(e->name, "time")) return emit(M, s, NSC_XOP_TIME, 0, 0, 0);
    for (int k = 0; !M->what && k < M->c->job.nmeas_skipped; k++)
        if (!strcmp(M->c->job.meas_skipped[k], e->name)) {
            if (!M->skip_use) M->skip_use = M->c->job.meas_skipped[k]; /* (skipped with it) */
            return emit(M, s, NSC_XOP_NUM, 0, 0, NAN);
        }
    return at_loc(M, expr_loc(M, e),
                  "unknown name '%s' in %s (not a .param, nor an earlier measure)", e->name,
                  mname(M));
}

/* the leaves of a measured quantity: names, v() i() (probes), p() w() (power) */
static nsc_status sig_leaf(void *ctx, const nl_expr *e, int *done, nsc_report *r)
{
    msink *S = ctx;
    mctx *M = S->M;
    *done = 1;
    if (e->op == NL_X_PARAM) return name_leaf(M, e, S->s);
    const char *a, *b;
    if (nl_probe_kind(e) >= 0) {
        int iv = nl_probe_kind(e) == NSC_PROBE_V, idx;
        if (!nl_probe_args(e, &a, &b))
            return at_loc(M, expr_loc(M, e), "expected %s in %s",
                          iv ? "v(node) or v(node1,node2)" : "i(element)", mname(M));
        nsc_status st = probe(M, iv ? NSC_PROBE_V : NSC_PROBE_I, a, b, expr_loc(M, e), &idx);
        return st ? st : emit(M, S->s, NSC_XOP_PROBE, idx, 0, 0);
    }
    if (e->op == NL_X_CALL && is_power(e->name) && e->nargs == 1 && nl_probe_args(e, &a, &b))
        return power(M, a, expr_loc(M, e), S->s);
    *done = 0; /* numbers, operators, functions: the engine's */
    return NSC_OK;
}

/* the code of x into s: the netlist's functions inlined, then nl_expr_compile */
static nsc_status compile(mctx *M, const nl_expr *x, nsc_msig *s)
{
    char in[128];
    snprintf(in, sizeof in, " in %s", mname(M));
    msink S = { M, s };
    nl_xcomp C = { sig_emit, sig_leaf, 0, NULL, &S, M->d->files[M->cd->file], in, NULL };
    nl_arena ar = { 0 };
    const nl_expr *xe;
    nsc_status st = nl_expr_expand(x, M->env, &ar, &xe, M->r);
    if (!st) st = nl_expr_compile(xe, &C, M->r);
    nl_arena_free(&ar);
    return st;
}

/* a measured quantity: V(n), V(a,b), I(x), par('expr') or {expr} */
static nsc_status sig_field(mctx *M, const nl_field *f, nsc_msig *s)
{
    const nl_expr *x = NULL;
    if (f->kind == NL_F_CALL && (!strcmp(f->u.s, "v") || !strcmp(f->u.s, "i"))) {
        int iv = f->u.s[0] == 'v', idx;
        for (int k = 0; k < f->nsub; k++)
            if (f->sub[k].kind != NL_F_WORD)
                return FERR(M, &f->sub[k], "expected a name, found '%s'", ftext(&f->sub[k]));
        if (iv ? f->nsub < 1 || f->nsub > 2 : f->nsub != 1)
            return FERR(M, f, "expected %s", iv ? "V(node) or V(node1,node2)" : "I(element)");
        nsc_status st = probe(M, iv ? NSC_PROBE_V : NSC_PROBE_I, f->sub[0].u.s,
                              f->nsub == 2 ? f->sub[1].u.s : NULL,
                              nl_field_loc(M->d, M->cd, &f->sub[0]), &idx);
        if (st || (st = emit(M, s, NSC_XOP_PROBE, idx, 0, 0))) return st;
        free(s->text);
        return (s->text = nsc_strdup(M->c->job.meas_probe[idx].name)) ? NSC_OK : oom(M);
    }
    if (f->kind == NL_F_CALL && is_power(f->u.s) && f->nsub == 1 && f->sub[0].kind == NL_F_WORD) {
        nsc_status st = power(M, f->sub[0].u.s, nl_field_loc(M->d, M->cd, &f->sub[0]), s);
        free(s->text);
        if (!st && !(s->text = nsc_asprintf("p(%s)", f->sub[0].u.s))) return oom(M);
        if (s->text) nsc_strlower(s->text);
        return st;
    }
    if (f->kind == NL_F_CALL && !strcmp(f->u.s, "par") && f->nsub == 1
        && f->sub[0].kind == NL_F_EXPR)
        x = f->sub[0].u.x;
    else if (f->kind == NL_F_EXPR) x = f->u.x;
    if (!x)
        return FERR(M, f, "expected V(node), V(a,b), I(element) or par('expression'), found '%s'",
                    ftext(f));
    nsc_status st = compile(M, x, s);
    if (st) return st;
    free(s->text);
    return (s->text = nl_expr_text(x)) ? NSC_OK : oom(M);
}

/* a number: 1m, {expr}, a .param name */
static nsc_status num_field(mctx *M, const nl_field *f, double *v)
{
    if (f->kind == NL_F_EXPR) {
        nsc_status st = nl_expr_eval(f->u.x, M->env, v, M->r);
        if (st) return st;
    } else if (f->kind == NL_F_WORD) {
        if (!nsc_parse_number(f->u.s, v)
            && !(M->env->lookup && M->env->lookup(M->env->ctx, f->u.s, v)))
            return FERR(M, f, "bad value '%s' (a number, a .param name or {expression})", f->u.s);
    } else return FERR(M, f, "expected a value, found '%s'", ftext(f));
    if (!isfinite(*v)) return FERR(M, f, "value is not finite");
    return NSC_OK;
}

/* RISE/FALL/CROSS=n or LAST */
static nsc_status count_field(mctx *M, const nl_field *f, int *n)
{
    if (is_word(f, "last")
        || (f->kind == NL_F_EXPR && f->u.x->op == NL_X_PARAM && !strcmp(f->u.x->name, "last"))) {
        *n = -1;
        return NSC_OK;
    }
    double v;
    nsc_status st = num_field(M, f, &v);
    if (st) return st;
    if (!(v >= 1 && v <= 1e9 && v == floor(v)))
        return FERR(M, f, "expected a positive integer or LAST");
    *n = (int)v;
    return NSC_OK;
}

enum { O_FROM = 1, O_TO = 2, O_TD = 4, O_VAL = 8, O_EDGE = 16 };

/* the options of a measure's form, and the O_ bit each needs (options, meas_skipped) */
static const char *const opt_keys[] = { "from", "to", "td", "val", "rise", "fall", "cross" };
static const unsigned opt_bit[] = { O_FROM, O_TO, O_TD, O_VAL, O_EDGE, O_EDGE, O_EDGE };

/* Option k (opt_keys) of field f given a second time in its measure (FROM,
 * TO) or its TRIG/TARG/WHEN part (TD, VAL, one of RISE/FALL/CROSS): a warning
 * naming the value x kept, the last (ngspice 39 keeps the last, silently). */
static void twice_warn(mctx *M, const nl_field *f, int k, double x)
{
    nsc_loc loc = nl_field_loc(M->d, M->cd, f);
    char val[32];
    if (opt_bit[k] == O_EDGE && x < 0) snprintf(val, sizeof val, "LAST");
    else snprintf(val, sizeof val, "%g", x);
    nsc_warn(M->r, &loc, "%s: %s given twice; the last, %s=%s, is used (as ngspice does)", mname(M),
             opt_bit[k] == O_EDGE ? "rise/fall/cross" : opt_keys[k], opt_keys[k], val);
}

/* key=value options from field *i on, up to the end or the word stop */
static nsc_status options(mctx *M, int *i, nsc_meas *m, nsc_mtime *tm, unsigned allowed,
                          const char *stop, int *has_val)
{
    const nl_card *cd = M->cd;
    unsigned seen = 0; /* TD, VAL, RISE/FALL/CROSS of this TRIG, TARG or WHEN part */
    for (; *i < cd->nf; (*i)++) {
        const nl_field *f = &cd->f[*i];
        if (stop && is_word(f, stop)) break;
        int k = -1;
        const nl_field *key = f->kind == NL_F_PAIR ? &f->sub[0] : f,
                       *v = f->kind == NL_F_PAIR ? &f->sub[1] : NULL;
        if (key->kind == NL_F_WORD)
            for (int j = 0; j < 7; j++)
                if (nsc_strieq(key->u.s, opt_keys[j])) k = j;
        if (k >= 0 && !v) { /* LTspice's "FROM 1m": the value is the next field */
            if (*i + 1 >= cd->nf || cd->f[*i + 1].kind == NL_F_PAIR) M->skip_noval = 1, k = -1;
            else v = &cd->f[++*i];
        }
        if (k < 0) { /* ngspice fails this measure, runs the rest */
            M->skip = f;
            M->skip_want = allowed;
            return NSC_OK;
        }
        if (!(allowed
              & opt_bit[k])) { /* a known option this form has no use for: ngspice ignores it */
            nsc_loc loc = nl_field_loc(M->d, cd, f);
            nsc_warn(M->r, &loc, "option '%s' of .meas %s ignored: its form has no use for it",
                     opt_keys[k], m->name);
            continue;
        }
        unsigned *mask = opt_bit[k] & (O_FROM | O_TO) ? &M->ft_seen : &seen;
        int twice = (*mask & opt_bit[k]) != 0;
        *mask |= opt_bit[k];
        nsc_status st;
        switch (k) {
        case 0: st = num_field(M, v, &m->from); break;
        case 1: st = num_field(M, v, &m->to); break;
        case 2: st = num_field(M, v, &tm->td); break;
        case 3:
            st = num_field(M, v, &tm->val);
            if (has_val) *has_val = 1;
            break;
        default: tm->edge = k == 4 ? 1 : k == 5 ? -1 : 0; st = count_field(M, v, &tm->count);
        }
        if (st) return st;
        if (twice) /* ngspice 39 takes the last one without a word */
            twice_warn(M, f, k,
                       k == 0   ? m->from
                       : k == 1 ? m->to
                       : k == 2 ? tm->td
                       : k == 3 ? tm->val
                                : tm->count);
    }
    return NSC_OK;
}

/* sig=value or sig=sig2 of WHEN */
static nsc_status when_pair(mctx *M, const nl_field *f, nsc_mtime *tm)
{
    if (f->kind != NL_F_PAIR || f->sub[0].kind == NL_F_WORD)
        return FERR(M, f, "expected signal=value after WHEN, e.g. V(out)=2.5, found '%s'",
                    ftext(f));
    nsc_status st = sig_field(M, &f->sub[0], &tm->sig);
    if (st) return st;
    const nl_field *v = &f->sub[1];
    if (v->kind == NL_F_EXPR) { /* a number, unless it reads waveforms */
        nsc_report scratch;
        nsc_report_init(&scratch);
        int isnum = nl_expr_eval(v->u.x, M->env, &tm->val, &scratch) == NSC_OK;
        nsc_report_free(&scratch);
        if (isnum) return NSC_OK;
    } else if (v->kind != NL_F_CALL) return num_field(M, v, &tm->val);
    nsc_msig rhs = { 0 }; /* sig = sig2: crossing of sig - sig2 = 0 */
    st = sig_field(M, v, &rhs);
    if (!st) st = append(M, &tm->sig, &rhs);
    if (!st) st = emit(M, &tm->sig, NSC_XOP_SUB, 0, 0, 0);
    char *text = st ? NULL : nsc_asprintf("%s-(%s)", tm->sig.text, rhs.text);
    if (!st && !text) st = oom(M);
    if (!st) {
        free(tm->sig.text);
        tm->sig.text = text;
    }
    tm->val = 0;
    free(rhs.code);
    free(rhs.text);
    return st;
}

/* TRIG/TARG part: "AT=t" or "sig VAL=v [TD=] [RISE|FALL|CROSS=]" */
static nsc_status trig_part(mctx *M, int *i, nsc_meas *m, nsc_mtime *tm, const char *stop)
{
    const nl_card *cd = M->cd;
    if (*i >= cd->nf)
        return FERR(M, &cd->f[cd->nf - 1], "missing signal after %s", stop ? "TRIG" : "TARG");
    const nl_field *f = &cd->f[*i];
    if (f->kind == NL_F_PAIR && is_word(&f->sub[0], "at")) {
        tm->has_at = 1;
        (*i)++;
        return num_field(M, &f->sub[1], &tm->at);
    }
    nsc_status st = sig_field(M, f, &tm->sig);
    if (st) return st;
    (*i)++;
    int has_val = 0;
    if ((st = options(M, i, m, tm, O_VAL | O_TD | O_EDGE | O_FROM | O_TO, stop, &has_val)))
        return st; /* FROM= TO=: */
    if (M->skip) return NSC_OK;
    if (!has_val) return FERR(M, f, "VAL= missing for %s in .meas %s", tm->sig.text, m->name);
    return NSC_OK;
}

/* The analysis and the name of .meas card M->cd into m->name; *ni = the
 * index of the name's field (2 after "tran", 1 in LTspice's ".meas NAME"). */
static nsc_status meas_name(mctx *M, nsc_meas *m, int *ni)
{
    const nl_card *cd = M->cd;
    *ni = 2; /* the name's field */
    if (cd->nf < 2 || cd->f[1].kind != NL_F_WORD || !nsc_strieq(cd->f[1].u.s, "tran")) {
        const nl_field *f = &cd->f[cd->nf > 1 ? 1 : 0];
        if (cd->nf > 1 && f->kind == NL_F_WORD
            && (is_word(f, "ac") || is_word(f, "dc") || is_word(f, "op") || is_word(f, "sp")
                || is_word(f, "noise") || is_word(f, "tf")))
            return FERR(M, f, "only .meas tran is supported, not .meas %s", f->u.s);
        if (cd->nf < 3 || f->kind != NL_F_WORD
            || !((f->u.s[0] >= 'a' && f->u.s[0] <= 'z') || f->u.s[0] == '_'))
            return FERR(M, f, "expected .meas tran name ...");
        *ni = 1; /* LTspice: ".meas NAME ...", the analysis run (tran) */
    }
    int n = *ni;
    if (cd->nf < n + 1 || cd->f[n].kind != NL_F_WORD
        || !((cd->f[n].u.s[0] >= 'a' && cd->f[n].u.s[0] <= 'z') || cd->f[n].u.s[0] == '_'))
        return FERR(M, &cd->f[cd->nf > n ? n : n - 1], "expected a measure name after .meas tran");
    if (!(m->name = nsc_strdup(cd->f[n].u.s))) return oom(M);
    nsc_strlower(m->name);
    return NSC_OK;
}

/* PARAM=value|{expr}, or LTspice's PARAM value, the value v at field i (the
 * last of the card): an expression of parameters and measures only */
static nsc_status meas_param(mctx *M, nsc_meas *m, int i, const nl_field *v)
{
    const nl_card *cd = M->cd;
    nsc_status st;
    m->type = NSC_MEAS_PARAM;
    if (v->kind == NL_F_EXPR) st = compile(M, v->u.x, &m->sig);
    else {
        double x;
        st = num_field(M, v, &x);
        if (!st) st = emit(M, &m->sig, NSC_XOP_NUM, 0, 0, x);
    }
    if (st) return st;
    if (!(m->sig.text = v->kind == NL_F_EXPR ? nl_expr_text(v->u.x) : nsc_strdup(ftext(v))))
        return oom(M);
    for (int k = 0; k < m->sig.ncode; k++)
        if (m->sig.code[k].op == NSC_XOP_PROBE || m->sig.code[k].op == NSC_XOP_TIME)
            return FERR(M, v,
                        "PARAM= of .meas %s reads a waveform; use FIND ... AT= or AVG for that",
                        m->name);
    if (i + 1 < cd->nf)
        return FERR(M, &cd->f[i + 1], "unexpected '%s' after PARAM=", ftext(&cd->f[i + 1]));
    return NSC_OK;
}

/* FIND sig AT=time | FIND sig WHEN sig=value [options], FIND at field i */
static nsc_status meas_find(mctx *M, nsc_meas *m, int i)
{
    const nl_card *cd = M->cd;
    const nl_field *f = &cd->f[i];
    nsc_status st;
    m->type = NSC_MEAS_FIND;
    if (++i >= cd->nf) return FERR(M, f, "missing signal after FIND");
    if ((st = sig_field(M, &cd->f[i], &m->sig))) return st;
    if (++i >= cd->nf) return FERR(M, &cd->f[i - 1], "FIND needs AT=time or WHEN signal=value");
    const nl_field *g = &cd->f[i];
    if (g->kind == NL_F_PAIR && is_word(&g->sub[0], "at")) {
        m->trig.has_at = 1;
        if ((st = num_field(M, &g->sub[1], &m->trig.at))) return st;
        i++;
        return options(M, &i, m, &m->trig, 0, NULL, NULL);
    }
    if (!is_word(g, "when"))
        return FERR(M, g, "FIND needs AT=time or WHEN signal=value, found '%s'", ftext(g));
    if (++i >= cd->nf) return FERR(M, g, "missing signal=value after WHEN");
    if ((st = when_pair(M, &cd->f[i], &m->trig))) return st;
    i++;
    return options(M, &i, m, &m->trig, O_FROM | O_TO | O_TD | O_EDGE, NULL, NULL);
}

/* TRIG ... TARG ..., TRIG at field i */
static nsc_status meas_trig(mctx *M, nsc_meas *m, int i)
{
    const nl_card *cd = M->cd;
    nsc_status st;
    m->type = NSC_MEAS_TRIGTARG;
    i++;
    if ((st = trig_part(M, &i, m, &m->trig, "targ")) || M->skip) return st;
    if (i >= cd->nf || !is_word(&cd->f[i], "targ"))
        return FERR(M, &cd->f[i < cd->nf ? i : cd->nf - 1], "TRIG without TARG in .meas %s",
                    m->name);
    i++;
    if ((st = trig_part(M, &i, m, &m->targ, NULL)) || M->skip) return st;
    if (i < cd->nf)
        return FERR(M, &cd->f[i], "unexpected '%s' in .meas %s", ftext(&cd->f[i]), m->name);
    return NSC_OK;
}

void nl_meas_pop(nsc_circuit *c, int mark)
{
    nsc_meas *m = &c->job.meas[--c->job.nmeas];
    free(m->name);
    nsc_msig *sg[] = { &m->sig, &m->trig.sig, &m->targ.sig };
    for (int k = 0; k < 3; k++) {
        free(sg[k]->code);
        free(sg[k]->text);
    }
    while (c->job.nmeas_probe > mark) free(c->job.meas_probe[--c->job.nmeas_probe].name);
}

/* The measure M->self, whose option M->skip its form does not take, taken back
 * with a warning naming the option and those the form takes (ngspice 39: "no
 * such parameter as 'x'", that measure failed, the others measured). */
static nsc_status meas_skipped(mctx *M, int mark)
{
    char want[80] = "";
    for (int j = 0; j < 7; j++)
        if (M->skip_want & opt_bit[j])
            snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s=", *want ? ", " : "",
                     opt_keys[j]);
    nsc_job *j = &M->c->job;
    const char *name = j->meas[M->self].name;
    const nl_field *f = M->skip ? M->skip : &M->cd->f[0];
    const nl_field *key = f->kind == NL_F_PAIR ? &f->sub[0] : f;
    nsc_loc loc = nl_field_loc(M->d, M->cd, f);
    if (!M->skip)
        nsc_warn(M->r, &loc, ".meas %s not measured: it uses .meas %s, which is not measured", name,
                 M->skip_use);
    else if (M->skip_noval)
        nsc_warn(M->r, &loc, ".meas %s not measured: option '%s' without its value", name,
                 ftext(key));
    else
        nsc_warn(M->r, &loc, ".meas %s not measured: unsupported option '%s'%s%s%s", name,
                 ftext(key), *want ? " (this form takes " : "", want, *want ? ")" : "");
    char **all = nsc_realloc_array(j->meas_skipped, (size_t)j->nmeas_skipped + 1, sizeof *all);
    if (all) j->meas_skipped = all;
    if (!all || !(all[j->nmeas_skipped] = nsc_strdup(name))) return nsc_oom(M->r);
    j->nmeas_skipped++;
    nl_meas_pop(M->c, mark);
    return NSC_OK;
}

static nsc_status meas_form(mctx *M, nsc_meas *m);

nsc_status nl_meas_card(nsc_circuit *c, const nl_deck *d, const nl_card *cd, const nl_env *env,
                        nsc_report *r)
{
    nsc_meas *all = nsc_realloc_array(c->job.meas, (size_t)c->job.nmeas + 1, sizeof *all);
    if (!all) return nsc_oom(r);
    c->job.meas = all;
    nsc_meas *m = &all[c->job.nmeas];
    memset(m, 0, sizeof *m);
    m->loc = nl_field_loc(d, cd, &cd->f[0]);
    if (!c->job.nmeas) c->job.meas_loc = m->loc;
    mctx M = { c, d, cd, env, r, c->job.nmeas, NULL, NULL, 0, 0, NULL, 0 };
    int mark = c->job.nmeas_probe;
    c->job.nmeas++;
    m->from = -INFINITY;
    m->to = INFINITY;
    m->trig.count = m->targ.count = 1;
    nsc_status st = meas_form(&M, m);
    return !st && (M.skip || M.skip_use) ? meas_skipped(&M, mark) : st;
}

/* The fields after ".meas [tran] NAME" into measure m (the forms of nl_meas.h). */
static nsc_status meas_form(mctx *M, nsc_meas *m)
{
    const nl_card *cd = M->cd;
    int ni;
    nsc_status st = meas_name(M, m, &ni);
    if (st) return st;
    if (cd->nf < ni + 2)
        return FERR(
            M, &cd->f[ni],
            "missing measurement after .meas tran %s (AVG, RMS, MIN, MAX, PP, WHEN, FIND, TRIG, PARAM= ...)",
            m->name);
    int i = ni + 1;
    const nl_field *f = &cd->f[i];
    if (f->kind == NL_F_PAIR && is_word(&f->sub[0], "param"))
        return meas_param(M, m, i, &f->sub[1]);
    if (is_word(f, "param") && i + 1 < cd->nf) return meas_param(M, m, i + 1, &cd->f[i + 1]);
    static const char *const stat[] = { "avg",   "rms",    "min",    "max",     "pp",
                                        "integ", "min_at", "max_at", "integral" };
    static const nsc_meastype stype[] = { NSC_MEAS_AVG,    NSC_MEAS_RMS,    NSC_MEAS_MIN,
                                          NSC_MEAS_MAX,    NSC_MEAS_PP,     NSC_MEAS_INTEG,
                                          NSC_MEAS_MIN_AT, NSC_MEAS_MAX_AT, NSC_MEAS_INTEG };
    for (int k = 0; k < 9; k++)
        if (is_word(f, stat[k])) {
            m->type = stype[k];
            if (++i >= cd->nf) return FERR(M, f, "missing signal after %s", f->u.s);
            if ((st = sig_field(M, &cd->f[i], &m->sig))) return st;
            i++;
            return options(M, &i, m, &m->trig, O_FROM | O_TO | O_TD, NULL,
                           NULL); /* TD: start of the window */
        }
    if (is_word(f, "when")) {
        m->type = NSC_MEAS_WHEN;
        if (++i >= cd->nf) return FERR(M, f, "missing signal=value after WHEN");
        if ((st = when_pair(M, &cd->f[i], &m->trig))) return st;
        i++;
        return options(M, &i, m, &m->trig, O_FROM | O_TO | O_TD | O_EDGE, NULL, NULL);
    }
    if (is_word(f, "find")) return meas_find(M, m, i);
    if (is_word(f, "trig")) return meas_trig(M, m, i);
    return FERR(
        M, f,
        "unknown measurement '%s' (AVG, RMS, MIN, MAX, PP, INTEG, MIN_AT, MAX_AT, WHEN, FIND, TRIG/TARG, PARAM=)",
        ftext(f));
}

nsc_status nl_power_sig(nsc_circuit *c, int el, nsc_loc loc, nsc_msig *sig, nsc_report *r)
{
    const nsc_element *e = &c->el[el];
    nsc_tpair port = nsc_dev_port(nsc_device_of(e->kind)); /* n+ n-, or a MOS's d s */
    int kv, ki;
    memset(sig, 0, sizeof *sig);
    nsc_status st = nl_meas_column(c, NSC_PROBE_V, c->node_name[e->node[port.a]],
                                   c->node_name[e->node[port.b]], loc, &kv, r);
    if (!st) st = nl_meas_column(c, NSC_PROBE_I, e->name, NULL, loc, &ki, r);
    if (st) return st;
    sig->code = calloc(3, sizeof *sig->code);
    sig->text = nsc_asprintf("p(%s)", e->name);
    if (!sig->code || !sig->text) {
        free(sig->code);
        free(sig->text);
        return nsc_oom(r);
    }
    sig->code[0] = (nsc_xinstr){ NSC_XOP_PROBE, kv, 0, 0 }; /* v(port) i(x) * */
    sig->code[1] = (nsc_xinstr){ NSC_XOP_PROBE, ki, 0, 0 };
    sig->code[2] = (nsc_xinstr){ NSC_XOP_MUL, 0, 0, 0 };
    sig->ncode = 3;
    return NSC_OK;
}

nsc_status nsc_power_output(nsc_circuit *c, const char *name, int pos, nsc_report *r)
{
    int el = nl_probe_element(c, NULL, name);
    const nsc_device *d = el >= 0 ? nsc_device_of(c->el[el].kind) : NULL;
    if (!d || c->el[el].nnode < 2 || !d->current) /* a coupling K: the one device without */
        return nsc_err(r, NSC_EUSAGE, NULL,
                       "output 'p(%s)': no element with two terminals named %s", name, name);
    if (d->no_power)
        return nsc_err(r, NSC_EUSAGE, NULL, "output 'p(%s)': not available for %s", name,
                       d->no_power);
    struct nsc_xcol *x = nsc_realloc_array(c->job.xcol, (size_t)c->job.nxcol + 1, sizeof *x);
    if (!x) return nsc_oom(r);
    c->job.xcol = x;
    nsc_msig sig;
    nsc_status st = nl_power_sig(c, el, c->el[el].loc, &sig, r);
    if (st) return st;
    st = nl_meas_resolve(c, r); /* the new columns' nodes and element */
    char *col = st ? NULL : nsc_strdup(sig.text);
    if (!col) {
        free(sig.code);
        free(sig.text);
        return st ? st : nsc_oom(r);
    }
    c->job.xcol[c->job.nxcol++] = (struct nsc_xcol){ col, sig, pos };
    return NSC_OK;
}

nsc_status nl_meas_resolve(nsc_circuit *c, nsc_report *r)
{
    for (int k = 0; k < c->job.nmeas; k++) /* a name measured twice: its last measure (ngspice) */
        for (int j = 0; c->job.meas[k].type == NSC_MEAS_PARAM && j < c->job.meas[k].sig.ncode;
             j++) {
            nsc_xinstr *in = &c->job.meas[k].sig.code[j];
            if (in->op != NSC_XOP_MEAS) continue;
            for (int q = c->job.nmeas - 1; q > in->arg; q--) /* (not itself: `dup PARAM='dup*4'`) */
                if (q != k && !strcmp(c->job.meas[q].name, c->job.meas[in->arg].name)) {
                    in->arg = q;
                    break;
                }
        }
    for (int k = 0; k < c->job.nmeas_probe; k++) {
        nsc_probe *p = &c->job.meas_probe[k];
        size_t L = strlen(p->name);
        char *in = nsc_strndup(p->name + 2, L - 3); /* inside "v(...)" / "i(...)" */
        if (!in) return nsc_oom(r);
        const char *bad;
        nsc_status st = NSC_OK;
        switch (nl_probe_resolve(c, p->kind, in, NL_PROBE_FLAT | NL_PROBE_PORT, p, &bad)) {
        case NL_PROBE_OK: break;
        case NL_PROBE_NOPORT: /* P(x)'s port (power) */
            st = nsc_err(r, NSC_ENETLIST, &p->loc, "P(%s): no element with two terminals named %s",
                         bad, bad);
            break;
        case NL_PROBE_NODE:
            st = nsc_err(r, NSC_ENETLIST, &p->loc, "unknown node '%s' in .meas", bad);
            break;
        case NL_PROBE_ELEMENT:
            st = nsc_err(r, NSC_ENETLIST, &p->loc, "unknown element '%s' in .meas", bad);
            break;
        case NL_PROBE_NOCURRENT: /* a coupling K: the one device without */
            st = nsc_err(r, NSC_ENETLIST, &p->loc, "I(%s): a coupling has no current", bad);
            break;
        }
        free(in);
        if (st) return st;
    }
    return NSC_OK;
}

nsc_status nl_meas_column(nsc_circuit *c, nsc_probekind kind, const char *a, const char *b,
                          nsc_loc loc, int *idx, nsc_report *r)
{
    mctx M = { c, NULL, NULL, NULL, r, 0, "", NULL, 0, 0, NULL, 0 };
    return probe(&M, kind, a, b, loc, idx);
}

nsc_status nl_meas_signal(nsc_circuit *c, const nl_deck *d, const nl_card *cd, const nl_env *env,
                          const nl_field *f, nsc_msig *out, nsc_report *r)
{
    mctx M = {
        c, d, cd, env, r, 0, ".print", NULL, 0, 0, NULL, 0
    }; /* self 0: no measure is an operand */
    memset(out, 0, sizeof *out);
    return sig_field(&M, f, out);
}
