/* nl_dot.c -- dot cards: .param, .tran, .ic, .options, .pss, .step, .control
 * commands (.ctl), .meas, .op, .save/.print (kept, resolved after every
 * element exists), .func, the cards noted, skipped or refused.
 *
 * Invariants: cards of the run (.tran .op .options .save .print .step .meas
 * .pss) are read at the top level only; .ic nodes and .save/.print outputs
 * are resolved at the end (E->ic, E->save). */
#include "nl_elab.h"
#include "nl_meas.h"
#include "nl_probe.h"
#include "devices/device.h"
#include "devices/bprog.h"
#include "base/xfn.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* .param name=value ... */
nsc_status nle_card_param(elab *E, scope *sc, const nl_card *cd)
{
    char kb[256];
    for (int i = 1; i < cd->nf; i++) {
        const nl_field *f = &cd->f[i];
        const char *k = nle_pair_key(f, kb, sizeof kb);
        if (!k) {
            if (f->kind == NL_F_PAIR && f->sub[0].kind == NL_F_CALL)
                continue; /* a function (funcs_collect) */
            return nle_err(E, sc, cd, f, "expected name=value in .param, found '%s'", nle_ftext(f));
        }
        double v;
        int o = -1;
        if (!sc->up) /* --param overrides a top-level .param */
            for (int j = 0; j < E->nov; j++)
                if (nsc_strieq(E->ov[j].name, k)) o = j;
        if (o >= 0) {
            v = E->ov[o].value;
            E->ovused[o] = 1;
        } else if (nle_value(E, sc, cd, &f->sub[1], &v)) return E->r->status;
        if (nle_param_set(E, sc, k, v)) return E->r->status;
    }
    return NSC_OK;
}

/* .tran tstep tstop [tstart [tmax]] [UIC] */
#define NL_TRAN_ROWS 1000 /* output rows of a .tran without a print step */

static nsc_status card_tran(elab *E, scope *sc, const nl_card *cd)
{
    nsc_circuit *c = E->c;
    double v[4] = { 0, 0, 0, 0 };
    int n = 0, uic = 0;
    for (int i = 1; i < cd->nf; i++) {
        if (nle_is_word(&cd->f[i], "uic")) uic = 1;
        else if (nle_is_word(&cd->f[i], "startup") || nle_is_word(&cd->f[i], "steady")
                 || nle_is_word(&cd->f[i], "nodiscard"))
            nle_note(E, cd, &cd->f[i], "LTspice's .tran keyword '%s' ignored",
                     nle_ftext(&cd->f[i]));
        else if (n == 4)
            return nle_err(E, sc, cd, &cd->f[i], "unexpected '%s' in .tran", nle_ftext(&cd->f[i]));
        else if (nle_value(E, sc, cd, &cd->f[i], &v[n++])) return E->r->status;
    }
    if (n < 1) return nle_err(E, sc, cd, NULL, ".tran needs tstep and tstop (or tstop alone)");
    /* LTspice's ".tran TSTOP" and Xyce's ".tran 0 TSTOP": no print step; rows
     * every (tstop - tstart) / NL_TRAN_ROWS (README, man page) */
    int auto_step = n == 1 || v[0] == 0;
    if (n == 1) v[1] = v[0], v[0] = 0;
    if (!(v[0] >= 0)) return nle_err(E, sc, cd, &cd->f[1], "tstep of .tran must be positive");
    if (!(v[1] > 0))
        return nle_err(E, sc, cd, &cd->f[n == 1 ? 1 : 2], "tstop of .tran must be positive");
    if (n > 2 && !(v[2] >= 0 && v[2] < v[1]))
        return nle_err(E, sc, cd, &cd->f[3], "tstart of .tran must be in [0, tstop)");
    if (n > 3 && !(v[3] >= 0))
        return nle_err(E, sc, cd, &cd->f[4], "tmax of .tran must not be negative");
    if (auto_step) {
        v[0] = (v[1] - v[2]) / NL_TRAN_ROWS;
        char msg[120];
        snprintf(msg, sizeof msg,
                 ".tran without a print step: rows every (tstop - tstart) / %d = %g s",
                 NL_TRAN_ROWS, v[0]);
        nle_note(E, cd, NULL, "%s", msg);
    }
    if (c->job.has_tran) nle_warn(E, sc, cd, NULL, "second .tran replaces the first");
    c->job.has_tran = 1;
    c->job.tstep = v[0];
    c->job.tstop = v[1];
    c->job.tstart = v[2];
    c->job.tmax = v[3];
    c->job.uic = uic;
    c->job.tran_loc = nl_field_loc(E->d, cd, &cd->f[0]);
    return NSC_OK;
}

/* .ic V(node)=value ... */
static nsc_status card_ic(elab *E, scope *sc, const nl_card *cd)
{
    for (int i = 1; i < cd->nf; i++) {
        const nl_field *f = &cd->f[i];
        const nl_field *k = f->kind == NL_F_PAIR ? &f->sub[0] : NULL;
        if (!k || k->kind != NL_F_CALL || !nsc_strieq(k->u.s, "v") || k->nsub != 1
            || k->sub[0].kind != NL_F_WORD)
            return nle_err(E, sc, cd, f, "expected V(node)=value in .ic, found '%s'", nle_ftext(f));
        double v;
        if (nle_value(E, sc, cd, &f->sub[1], &v)) return E->r->status;
        const char *full = nle_node_fullname(E, sc, k->sub[0].u.s);
        if (!full || nsc_grow((void **)&E->ic, &E->capic2, E->nic + 1, sizeof *E->ic))
            return nle_oom(E);
        icfix *x = &E->ic[E->nic];
        if (!(x->node = nsc_strdup(full))) return nle_oom(E);
        x->v = v;
        x->cd = cd;
        x->f = &k->sub[0];
        x->where = sc->where;
        E->nic++;
    }
    return NSC_OK;
}

/* The field of a SPICE tolerance option (reltol abstol vntol chgtol trtol), NULL otherwise. */
static double *tolerance_option(nsc_circuit *c, const char *k)
{
    return !strcmp(k, "reltol")   ? &c->job.reltol
           : !strcmp(k, "abstol") ? &c->job.abstol
           : !strcmp(k, "vntol")  ? &c->job.vntol
           : !strcmp(k, "chgtol") ? &c->job.chgtol
           : !strcmp(k, "trtol")  ? &c->job.trtol
                                  : NULL;
}

/* E->scale from the top level's `.option scale=` cards (the last one given; 1
 * without): read before the elements, which it scales wherever it stands. */
nsc_status nle_option_scale(elab *E, scope *top)
{
    E->scale = 1;
    char kb[64];
    for (int k = 0; k < top->df->nbody; k++) {
        const nl_card *cd = &E->d->card[top->df->body[k]];
        if (!nle_head_is(cd, ".options") && !nle_head_is(cd, ".option") && !nle_head_is(cd, ".opt"))
            continue;
        for (int i = 1; i < cd->nf; i++) {
            const char *key = nle_pair_key(&cd->f[i], kb, sizeof kb);
            double v;
            if (!key || strcmp(key, "scale")) continue;
            if (nle_value(E, top, cd, &cd->f[i].sub[1], &v)) return E->r->status;
            if (!(v > 0) || !isfinite(v))
                return nle_err(E, top, cd, &cd->f[i], "scale must be positive");
            E->scale = v;
        }
    }
    return NSC_OK;
}

/* .options name=value ... */
static nsc_status card_options(elab *E, scope *sc, const nl_card *cd)
{
    nsc_circuit *c = E->c;
    char kb[64];
    for (int i = 1; i < cd->nf; i++) {
        const nl_field *f = &cd->f[i];
        const char *k = nle_pair_key(f, kb, sizeof kb);
        double v;
        if (k && !strcmp(k, "theta")) {
            if (nle_value(E, sc, cd, &f->sub[1], &v)) return E->r->status;
            if (!(v >= 0.5 && v <= 1))
                return nle_err(E, sc, cd, f, "theta = %g is not in [0.5, 1]", v);
            c->job.theta = v;
            c->job.theta_given = 1; /* asks for the theta-scheme (run.c) */
        } else if (k && !strcmp(k, "gmin")) {
            if (nle_value(E, sc, cd, &f->sub[1], &v)) return E->r->status;
            if (!(v >= 0)) return nle_err(E, sc, cd, f, "gmin must not be negative");
            c->job.gmin = v;
        } else if (k && !strcmp(k, "solver")) {
            const nl_field *vf = &f->sub[1];
            const char *s = vf->kind == NL_F_WORD || vf->kind == NL_F_STRING     ? vf->u.s
                            : vf->kind == NL_F_EXPR && vf->u.x->op == NL_X_PARAM ? vf->u.x->name
                                                                                 : NULL;
            if (!s || !*s || strlen(s) >= sizeof c->job.solver)
                return nle_err(E, sc, cd, vf, "bad solver name in .options");
            snprintf(c->job.solver, sizeof c->job.solver, "%s", s);
            nsc_strlower(c->job.solver);
        } else if (k && !strcmp(k, "stepping")) {
            const nl_field *vf = &f->sub[1];
            const char *s = vf->kind == NL_F_WORD || vf->kind == NL_F_STRING     ? vf->u.s
                            : vf->kind == NL_F_EXPR && vf->u.x->op == NL_X_PARAM ? vf->u.x->name
                                                                                 : NULL;
            if (s && !strcmp(s, "fixed")) c->job.stepping_fixed = 1, c->job.stepping_exact = 0;
            else if (s && !strcmp(s, "adaptive"))
                c->job.stepping_fixed = 0, c->job.stepping_exact = 0;
            else if (s && !strcmp(s, "exact")) c->job.stepping_fixed = 0, c->job.stepping_exact = 2;
            else return nle_err(E, sc, cd, vf, "stepping must be 'adaptive', 'exact' or 'fixed'");
        } else if (!k && f->kind == NL_F_WORD && nsc_strieq(f->u.s, "nostepsizelimit")) {
            c->job.stepsizelimit = 0; /* ngspice's 'set nostepsizelimit': the default */
        } else if (!k && f->kind == NL_F_WORD && nsc_strieq(f->u.s, "stepsizelimit")) {
            c->job.stepsizelimit = 1; /* ngspice's cap min(tstep, span / 50) */
        } else if (!k && f->kind == NL_F_WORD && nsc_strieq(f->u.s, "interp")) {
            c->job.interp = 1; /* rows on the tstep grid (ngspice's interp) */
        } else if (k && !strcmp(k, "scale")) {
            /* read before the elements (nle_option_scale) */
        } else if (k && tolerance_option(c, k)) {
            if (nle_value(E, sc, cd, &f->sub[1], &v)) return E->r->status;
            if (!(v > 0) || !isfinite(v)) return nle_err(E, sc, cd, f, "%s must be positive", k);
            if (!strcmp(k, "trtol") && v < 1)
                return nle_err(E, sc, cd, f, "trtol = %g must be at least 1", v);
            if (!strcmp(k, "reltol") && v >= 1)
                return nle_err(E, sc, cd, f, "reltol = %g must be below 1", v);
            *tolerance_option(c, k) = v;
        } else nle_note(E, cd, f, "option '%s' ignored", k ? k : nle_ftext(f));
    }
    return NSC_OK;
}

/* .pss [period=T] [periods=N] [warmup=N] [maxit=N] [tol=X]: the periodic
 * steady state (stepper_pss.c) instead of the transient. ngspice's positional
 * form (an oscillator's guessed frequency, ...) is not that analysis. */
static nsc_status card_pss(elab *E, scope *sc, const nl_card *cd)
{
    nsc_circuit *c = E->c;
    char kb[64];
    c->job.has_pss = 1;
    c->job.pss_loc = nl_field_loc(E->d, cd, &cd->f[0]);
    for (int i = 1; i < cd->nf; i++) {
        const nl_field *f = &cd->f[i];
        const char *k = nle_pair_key(f, kb, sizeof kb);
        double v;
        if (!k) {
            nle_warn(
                E, sc, cd, f,
                "positional .pss arguments (ngspice's oscillator analysis) ignored: the steady state "
                "is the driven one, over the sources' period");
            break;
        }
        if (nle_value(E, sc, cd, &f->sub[1], &v)) return E->r->status;
        int whole = v >= 1 && v <= 10000 && v == floor(v);
        if (!strcmp(k, "period")) {
            if (!(v > 0) || !isfinite(v))
                return nle_err(E, sc, cd, f, ".pss period must be a positive time");
            c->job.pss_period = v;
        } else if (!strcmp(k, "periods") || !strcmp(k, "warmup") || !strcmp(k, "maxit")) {
            if (!whole)
                return nle_err(E, sc, cd, f, ".pss %s must be a whole number from 1 to 10000", k);
            *(!strcmp(k, "periods")  ? &c->job.pss_periods
              : !strcmp(k, "warmup") ? &c->job.pss_warmup
                                     : &c->job.pss_maxit) = (int)v;
        } else if (!strcmp(k, "tol")) {
            if (!(v > 0 && v < 1)) return nle_err(E, sc, cd, f, ".pss tol must be in (0, 1)");
            c->job.pss_tol = v;
        } else
            return nle_err(E, sc, cd, f,
                           "unknown .pss parameter '%s' (period, periods, warmup, maxit, tol)", k);
    }
    return NSC_OK;
}

#define NL_MAXSTEP 10000000 /* values of one .step card */

/* .step [lin|dec|oct] param NAME start stop incr|n  /  .step param NAME list v1 v2 ...
 * (circuit.h nsc_step); values are evaluated in the top scope */
static nsc_status card_step(elab *E, scope *sc, const nl_card *cd)
{
    nsc_circuit *c = E->c;
    const nl_field *f = cd->f;
    int i = 1, scale = 0; /* 0 lin, 10 dec, 2 oct */
    if (i < cd->nf
        && (nle_is_word(&f[i], "lin") || nle_is_word(&f[i], "dec") || nle_is_word(&f[i], "oct")))
        scale = nle_is_word(&f[i], "lin") ? 0 : nle_is_word(&f[i], "dec") ? 10 : 2, i++;
    if (i >= cd->nf || !nle_is_word(&f[i], "param"))
        return nle_err(E, sc, cd, i < cd->nf ? &f[i] : NULL,
                       "only '.step [lin|dec|oct] param NAME ...' is supported");
    if (++i >= cd->nf || f[i].kind != NL_F_WORD || !nle_is_ident(f[i].u.s))
        return nle_err(E, sc, cd, i < cd->nf ? &f[i] : NULL, ".step param needs a parameter name");
    const nl_field *nf = &f[i++];
    for (int k = 0; k < c->job.nstep; k++)
        if (nsc_strieq(c->job.step[k].param, nf->u.s))
            return nle_err(E, sc, cd, nf, "second .step for parameter '%s' (first at line %d)",
                           nf->u.s, c->job.step[k].loc.line);
    int list = i < cd->nf && nle_is_word(&f[i], "list");
    if (list && scale)
        return nle_err(E, sc, cd, &f[i], ".step %s cannot take a list",
                       scale == 10 ? "dec" : "oct");
    int nv = cd->nf - i - list;
    if (list ? nv < 1 : nv != 3)
        return nle_err(E, sc, cd, NULL,
                       list ? ".step param %s list needs values"
                            : ".step param %s needs start, stop and %s",
                       nf->u.s, scale ? "points per interval" : "increment");
    if (list && nv > NL_MAXSTEP)
        return nle_err(E, sc, cd, NULL, "more than %d values in .step", NL_MAXSTEP);
    double a[3];
    if (!list)
        for (int k = 0; k < 3; k++)
            if (nle_value(E, sc, cd, &f[i + k], &a[k])) return E->r->status;
    double n = 0; /* number of values */
    if (list) n = nv;
    else if (!scale) {
        if (!(a[2] != 0) || (a[1] - a[0]) / a[2] < 0)
            return nle_err(E, sc, cd, &f[i + 2],
                           "increment %g of .step does not lead from %g to %g", a[2], a[0], a[1]);
        n = floor((a[1] - a[0]) / a[2] + 1e-9) + 1;
    } else {
        if (!(a[0] > 0 && a[1] >= a[0]))
            return nle_err(E, sc, cd, &f[i], ".step %s needs 0 < start <= stop",
                           scale == 10 ? "dec" : "oct");
        if (!(a[2] >= 1 && a[2] == floor(a[2])))
            return nle_err(E, sc, cd, &f[i + 2], "points per interval must be a positive integer");
        n = floor(a[2] * log(a[1] / a[0]) / log(scale) + 1e-9) + 1;
    }
    if (!(n <= NL_MAXSTEP))
        return nle_err(E, sc, cd, NULL, "more than %d values in .step", NL_MAXSTEP);
    if (nsc_grow((void **)&c->job.step, &E->capstep, c->job.nstep + 1, sizeof *c->job.step))
        return nle_oom(E);
    nsc_step *s = &c->job.step[c->job.nstep];
    memset(s, 0, sizeof *s);
    if (!c->job.nstep++) c->job.step_loc = nl_field_loc(E->d, cd, &f[0]);
    s->loc = nl_field_loc(E->d, cd, &f[0]);
    if (!(s->param = nsc_strdup(nf->u.s)) || !(s->val = nsc_calloc((size_t)n, sizeof *s->val)))
        return nle_oom(E);
    nsc_strlower(s->param);
    for (int k = 0; k < (int)n; k++) {
        if (list) {
            if (nle_value(E, sc, cd, &f[i + 1 + k], &s->val[k])) return E->r->status;
        } else
            s->val[k] = !scale ? a[0] + k * a[2]
                               : a[0] * pow(scale, k / a[2]); /* never accumulated */
        s->nval++;
    }
    return NSC_OK;
}

/* A .control command not run: its name joins the one note. */
static nsc_status ctl_unrun(elab *E, const nl_card *cd, const char *cmd)
{
    if (E->ctl_unrun && strstr(E->ctl_unrun, cmd)) return NSC_OK;
    char *t = E->ctl_unrun ? nsc_asprintf("%s, %s", E->ctl_unrun, cmd) : nsc_strdup(cmd);
    if (!t) return nle_oom(E);
    if (!E->ctl_unrun) E->ctl_first = (int)(cd - E->d->card);
    free(E->ctl_unrun);
    E->ctl_unrun = t;
    return NSC_OK;
}

/* The value field of the last `let NAME = value` of the .control block before
 * its command kc (an index into E->ctlcards), NULL when none; its command's
 * index into *at (may be NULL). */
static const nl_field *let_find(elab *E, int kc, const char *name, int *at)
{
    for (int j = kc - 1; j >= 0; j--) {
        const nl_card *lc = &E->d->card[E->ctlcards[j]];
        if (nsc_strieq(lc->f[1].u.s, "let") && lc->nf == 3 && lc->f[2].kind == NL_F_PAIR
            && lc->f[2].sub[0].kind == NL_F_WORD && nsc_strieq(lc->f[2].sub[0].u.s, name)) {
            if (at) *at = j;
            return &lc->f[2].sub[1];
        }
    }
    return NULL;
}

static const nl_field *let_field(elab *E, int kc, const char *name)
{
    return let_find(E, kc, name, NULL);
}

#define LET_DEPTH 32 /* lets reading lets, at most this deep (a longer chain is not expanded) */
static nl_expr *let_expr(elab *E, int kc, const nl_field *lv, int depth);

/* A copy of x (arena) whose names that are `let` vectors of the block before
 * command kc are their lets' expressions (let_expr): ngspice evaluates lets in
 * order, so a let reads the ones before it. NULL: no memory. */
static nl_expr *let_subst(elab *E, int kc, const nl_expr *x, int depth)
{
    if (!x) return NULL;
    int at;
    const nl_field *lv = x->op == NL_X_PARAM && depth < LET_DEPTH ? let_find(E, kc, x->name, &at)
                                                                  : NULL;
    nl_expr *y = lv ? let_expr(E, at, lv, depth + 1) : NULL;
    if (y) return y;
    if (!(y = nl_alloc(&E->ar, sizeof *y))) return NULL;
    *y = *x;
    if ((x->a && !(y->a = let_subst(E, kc, x->a, depth)))
        || (x->b && !(y->b = let_subst(E, kc, x->b, depth)))
        || (x->c && !(y->c = let_subst(E, kc, x->c, depth)))
        || (x->next && !(y->next = let_subst(E, kc, x->next, depth))))
        return NULL;
    y->depth = 1; /* the height of the expanded tree */
    for (const nl_expr *s = y->op == NL_X_CALL ? y->a : NULL; s; s = s->next)
        y->depth = s->depth + 1 > y->depth ? s->depth + 1 : y->depth;
    if (y->op != NL_X_CALL) {
        const nl_expr *ch[3] = { y->a, y->b, y->c };
        for (int k = 0; k < 3; k++)
            if (ch[k] && ch[k]->depth + 1 > y->depth) y->depth = ch[k]->depth + 1;
    }
    return y;
}

/* The expression of let value lv (of command kc's block, read before kc) with
 * the lets it reads expanded: an expression, a name (a let's or a node's) or
 * V()/I() of names; NULL for anything else (or no memory). */
static nl_expr *let_expr(elab *E, int kc, const nl_field *lv, int depth)
{
    if (lv->kind == NL_F_EXPR) return let_subst(E, kc, lv->u.x, depth);
    nl_expr leaf = { .op = NL_X_PARAM, .line = lv->line, .col = lv->col, .depth = 1 };
    if (lv->kind == NL_F_WORD) {
        leaf.name = lv->u.s;
        return let_subst(E, kc, &leaf, depth);
    }
    if (lv->kind != NL_F_CALL || !(nsc_strieq(lv->u.s, "v") || nsc_strieq(lv->u.s, "i"))
        || lv->nsub < 1 || lv->nsub > 2)
        return NULL;
    nl_expr *call = nl_alloc(&E->ar, sizeof *call), *arg[2] = { NULL, NULL };
    for (int k = 0; k < lv->nsub; k++)
        if (lv->sub[k].kind != NL_F_WORD || !(arg[k] = nl_alloc(&E->ar, sizeof *arg[k])))
            return NULL;
        else
            *arg[k] = (nl_expr){ .op = NL_X_PARAM,
                                 .line = lv->sub[k].line,
                                 .col = lv->sub[k].col,
                                 .depth = 1,
                                 .name = lv->sub[k].u.s,
                                 .next = NULL };
    if (!call) return NULL;
    if (arg[1]) arg[0]->next = arg[1];
    *call = (nl_expr){ .op = NL_X_CALL,
                       .line = lv->line,
                       .col = lv->col,
                       .depth = 2,
                       .nargs = lv->nsub,
                       .name = nsc_strieq(lv->u.s, "v") ? "v" : "i",
                       .a = arg[0] };
    return call;
}

static int probe_exists(elab *E, const nsc_probe *p);
static int top_lookup(void *ctx, const char *name, double *v);

/* The `let` vector v (value field lv) of output command cd as a column the
 * run computes after it (a derived column that is not an output, circuit.h
 * xcol pos = -1), named as the let; its name into *out. A let that cannot be
 * computed (a vector of nothing, a function of the .control language) is a
 * warning and is dropped (*out = NULL), as ngspice carries on. */
static nsc_status ctl_let(elab *E, const nl_card *cd, const nl_field *v, const nl_field *lv,
                          const char *cmd, char **out)
{
    nsc_circuit *c = E->c;
    *out = NULL;
    char *name = nsc_strdup(v->u.s);
    if (!name) return nle_oom(E);
    nsc_strlower(name);
    for (int k = 0; k < c->job.nxcol; k++)
        if (c->job.xcol[k].pos < 0 && !strcmp(c->job.xcol[k].name, name)) {
            *out = name; /* computed already */
            return NSC_OK;
        }
    nl_env env = { top_lookup, c, E->d->files[cd->file], "", E->funcs, E->nfunc };
    nsc_report scratch;
    nsc_report_init(&scratch);
    int mark = c->job.nmeas_probe;
    nsc_msig sig;
    memset(&sig, 0, sizeof sig);
    nsc_status st = lv->kind == NL_F_EXPR || lv->kind == NL_F_CALL
                        ? nl_meas_signal(c, E->d, cd, &env, lv, &sig, &scratch)
                        : nsc_err(&scratch, NSC_ENETLIST, NULL, "not an expression of vectors");
    for (int q = mark; !st && q < c->job.nmeas_probe; q++)
        if (!probe_exists(E, &c->job.meas_probe[q]))
            st = nsc_err(&scratch, NSC_ENETLIST, &c->job.meas_probe[q].loc, "no such vector %s",
                         c->job.meas_probe[q].name);
    if (st == NSC_ENOMEM) {
        nsc_report_free(&scratch);
        free(name);
        return nle_oom(E);
    }
    if (st) {
        const char *m = scratch.error ? strstr(scratch.error, ": error: ") : NULL;
        nle_warn(E, NULL, cd, v, "%s: let vector %s dropped: %s", cmd, name, m ? m + 9 : "error");
        while (c->job.nmeas_probe > mark) free(c->job.meas_probe[--c->job.nmeas_probe].name);
        free(sig.code);
        free(sig.text);
        nsc_report_free(&scratch);
        free(name);
        return NSC_OK;
    }
    nsc_report_free(&scratch);
    struct nsc_xcol *x = nsc_realloc_array(c->job.xcol, (size_t)c->job.nxcol + 1, sizeof *x);
    char *copy = nsc_strdup(name);
    if (!x || !copy) {
        free(copy);
        free(name);
        free(sig.code);
        free(sig.text);
        return nle_oom(E);
    }
    c->job.xcol = x;
    c->job.xcol[c->job.nxcol++] = (struct nsc_xcol){ copy, sig, -1 };
    *out = name;
    return NSC_OK;
}

/* One vector of a .control output command (card kc of E->ctlcards): a `let`
 * vector of the block before it (ctl_let), V(a), V(a,b), I(x) or a node name
 * (its voltage, a column of the run), or for print a .meas name; its name into
 * *out. A vector that names nothing of the circuit is a warning, as ngspice's
 * "no such vector", and *out = NULL (dropped); so is `time`, the scale, which
 * every output writes anyway (issue 28 item 2). */
static nsc_status ctl_vector(elab *E, int kc, const nl_card *cd, const nl_field *v, const char *cmd,
                             char **out)
{
    nsc_circuit *c = E->c;
    int at;
    const nl_field *lv = v->kind == NL_F_WORD ? let_find(E, kc, v->u.s, &at) : NULL;
    if (lv && (lv->kind == NL_F_EXPR || lv->kind == NL_F_WORD)) { /* the lets it reads, expanded */
        nl_field *x = nl_alloc(&E->ar, sizeof *x);
        if (!x) return nle_oom(E);
        *x = *lv;
        x->kind = NL_F_EXPR;
        if (!(x->u.x = let_expr(E, at, lv, 0))) return nle_oom(E);
        lv = x;
    }
    if (lv) return ctl_let(E, cd, v, lv, cmd, out);
    const char *a = NULL, *b = NULL;
    nsc_probekind kind = NSC_PROBE_V;
    *out = NULL;
    if (v->kind == NL_F_WORD) a = v->u.s;
    else if (v->kind == NL_F_CALL && (nsc_strieq(v->u.s, "v") || nsc_strieq(v->u.s, "i"))
             && v->nsub >= 1 && v->nsub <= 2 && v->sub[0].kind == NL_F_WORD
             && (v->nsub == 1 || v->sub[1].kind == NL_F_WORD)) {
        kind = nsc_strieq(v->u.s, "i") ? NSC_PROBE_I : NSC_PROBE_V;
        a = v->sub[0].u.s;
        b = v->nsub == 2 ? v->sub[1].u.s : NULL;
    }
    if (!a) {
        nle_warn(E, NULL, cd, v, "%s: '%s' dropped: expected V(node), I(source) or a node name%s",
                 cmd, nle_ftext(v), strcmp(cmd, "print") ? "" : " or a .meas name");
        return NSC_OK;
    }
    if (v->kind == NL_F_WORD && !strcmp(a, "time")) return NSC_OK;
    if (!strcmp(cmd, "print") && v->kind == NL_F_WORD && nsc_circuit_meas(c, a) >= 0)
        return (*out = nsc_strdup(a)) ? NSC_OK : nle_oom(E);
    char *in = b ? nsc_asprintf("%s,%s", a, b) : nsc_strdup(a);
    nsc_probe p;
    if (!in) return nle_oom(E);
    nl_probe_fail why = nle_probe(E, kind, in, NL_PROBE_FLAT, &p, NULL);
    free(in);
    if (why == NL_PROBE_NODE
        || why == NL_PROBE_ELEMENT) { /* (a coupling's I(): nl_meas_resolve's error) */
        nle_warn(E, NULL, cd, v, "%s: no such vector %s(%s%s%s) (dropped)", cmd,
                 kind == NSC_PROBE_I ? "i" : "v", a, b ? "," : "", b ? b : "");
        return NSC_OK;
    }
    int k;
    if (nl_meas_column(c, kind, a, b, nl_field_loc(E->d, cd, v), &k, E->r)) return E->r->status;
    return (*out = nsc_strdup(c->job.meas_probe[k].name)) ? NSC_OK : nle_oom(E);
}

/* print's redirection (eSim's `print allv > plot_data_v.txt`): the first field
 * from 2 on that starts with '>' (`> F`, `>> F`, `>F`, `>>F`); its index into
 * *at (cd->nf: none), the index after the file into *next (vectors after it
 * are printed too, as ngspice's `print v(a) > f v(b)`), the file into o->path
 * (a copy) and `>>` into o->append. A '>' without a file: *at set, o->path NULL. */
static nsc_status print_redirect(elab *E, const nl_card *cd, nsc_ctlout *o, int *at, int *next)
{
    const nl_field *f = cd->f;
    *at = *next = cd->nf;
    for (int i = 2; i < cd->nf; i++) {
        if (f[i].kind != NL_F_WORD || f[i].u.s[0] != '>') continue;
        const char *s = f[i].u.s + 1;
        o->append = *s == '>';
        s += o->append;
        *at = i;
        *next = i + 1;
        if (!*s && i + 1 < cd->nf && (f[i + 1].kind == NL_F_WORD || f[i + 1].kind == NL_F_STRING))
            s = f[++*next - 1].u.s;
        if (*s && !(o->path = nsc_strdup(s))) return nle_oom(E);
        return NSC_OK;
    }
    return NSC_OK;
}

/* wrdata FILE VEC... / write FILE [VEC...] / print VEC... [> FILE] (card kc
 * of E->ctlcards): an output of the run (nsc_ctlout); `all` or no vector: the
 * run's outputs (print > FILE: all, allv, alli as ngspice, o->all). */
static nsc_status ctl_output(elab *E, int kc, const nl_card *cd, const char *cmd)
{
    const nl_field *f = cd->f;
    int print = !strcmp(cmd, "print"), first = print ? 2 : 3, end = cd->nf, next = cd->nf;
    if (!print && (cd->nf < 3 || (f[2].kind != NL_F_WORD && f[2].kind != NL_F_STRING)))
        return ctl_unrun(E, cd, cmd);
    nsc_circuit *c = E->c;
    nsc_ctlout *o = nsc_realloc_array(c->job.ctlout, (size_t)c->job.nctlout + 1, sizeof *o);
    if (!o) return nle_oom(E);
    c->job.ctlout = o;
    o = &c->job.ctlout[c->job.nctlout++];
    memset(o, 0, sizeof *o);
    o->raw = !strcmp(cmd, "write");
    o->print = print;
    o->loc = nl_field_loc(E->d, cd, &f[1]);
    if ((!print && !(o->path = nsc_strdup(f[2].u.s)))
        || !(o->vec = calloc((size_t)cd->nf + 1, sizeof *o->vec)))
        return nle_oom(E);
    if (print && print_redirect(E, cd, o, &end, &next)) return E->r->status;
    if (end < cd->nf && !o->path) { /* `print v(a) >`: nowhere to write */
        nle_warn(E, NULL, cd, &f[end], "print: '>' without a file name (not run)");
        free(o->vec);
        c->job.nctlout--;
        return NSC_OK;
    }
    int all = 0; /* all, allv, alli: every output (no vector listed) */
    for (int i = first; i < cd->nf && !all; i++) {
        if (i >= end && i < next) continue; /* the redirection `> FILE` */
        all = f[i].kind == NL_F_WORD
              && (nsc_strieq(f[i].u.s, "all") || nsc_strieq(f[i].u.s, "allv")
                  || nsc_strieq(f[i].u.s, "alli"));
        if (all) {
            for (; o->nvec > 0; o->nvec--) free(o->vec[o->nvec - 1]);
            o->all = o->path ? (char)(f[i].u.s[3] ? tolower((unsigned char)f[i].u.s[3]) : 'a') : 0;
            break;
        }
        nsc_status st = ctl_vector(E, kc, cd, &f[i], cmd, &o->vec[o->nvec]);
        if (st) return st;
        if (o->vec[o->nvec]) o->nvec++;
    }
    if (o->nvec == 0 && (end > first || next < cd->nf) && !all) { /* every vector dropped: */
        free(o->path);                                            /* nothing to write */
        free(o->vec);
        c->job.nctlout--;
    }
    return NSC_OK;
}

/* A .control command (nl_deck.c control_line: ".ctl COMMAND ARGS"): tran, op
 * and meas as their dot cards; wrdata, write and print as outputs; set wr_singlescale
 * / wr_vecnames; plot draws the outputs' PNG; run, quit, exit need nothing;
 * anything else is named in one nle_note (not run). */
static nsc_status card_ctl(elab *E, scope *sc, const nl_card *cd)
{
    if (cd->nf < 2 || cd->f[1].kind != NL_F_WORD) return NSC_OK;
    const char *cmd = cd->f[1].u.s;
    if (!strcmp(cmd, "?")) return ctl_unrun(E, cd, cd->nf > 2 ? cd->f[2].u.s : "?");
    nl_card sub = { cd->f + 1, cd->nf - 1, cd->file }; /* COMMAND ARGS as a card */
    nsc_circuit *c = E->c;
    if (nsc_strieq(cmd, "tran")) return card_tran(E, sc, &sub);
    if (nsc_strieq(cmd, "op")) {
        c->job.has_op = 1;
        c->job.op_loc = nl_field_loc(E->d, cd, &cd->f[1]);
        return NSC_OK;
    }
    if (nsc_strieq(cmd, "let") && ctl_unrun(E, cd, "let"))
        return E->r->status; /* (its vector serves meas: ctl_meas) */
    if (nsc_strieq(cmd, "meas") || nsc_strieq(cmd, "measure") || nsc_strieq(cmd, "wrdata")
        || nsc_strieq(cmd, "write") || nsc_strieq(cmd, "print")
        || nsc_strieq(cmd, "let")) { /* nle_resolve_ctl, once everything exists */
        if (nsc_grow((void **)&E->ctlcards, &E->capctl, E->nctl + 1, sizeof *E->ctlcards))
            return nle_oom(E);
        E->ctlcards[E->nctl++] = (int)(cd - E->d->card);
        return NSC_OK;
    }
    if (nsc_strieq(cmd, "set") || nsc_strieq(cmd, "unset")) {
        for (int i = 2; i < cd->nf; i++) {
            int on = nsc_strieq(cmd, "set");
            if (nle_is_word(&cd->f[i], "wr_singlescale")) c->job.ctl_singlescale = on;
            else if (nle_is_word(&cd->f[i], "wr_vecnames")) c->job.ctl_vecnames = on;
        }
        return NSC_OK;
    }
    if (nsc_strieq(cmd, "plot")) {
        c->job.ctl_plot = 1;
        return NSC_OK;
    }
    if (nsc_strieq(cmd, "run") || nsc_strieq(cmd, "quit") || nsc_strieq(cmd, "exit")) return NSC_OK;
    return ctl_unrun(E, cd, cmd);
}

/* .probe's arguments (ignored: the outputs are every node voltage and device
 * current unless .save names them): one warning for each that no output could
 * give either (vdb(out), d(x), a misspelt word), so that nothing it asks for
 * is dropped without a word; V() I() P() IX() and all/allv/alli are quiet. */
static void probe_warn(elab *E, scope *sc, const nl_card *cd)
{
    static const char *const fn[] = { "v", "i", "p", "ix", "w" }, *const words[] = { "all", "allv",
                                                                                     "alli" };
    for (int i = 1; i < cd->nf; i++) {
        const nl_field *f = &cd->f[i];
        int ok = 0;
        for (size_t k = 0; f->kind == NL_F_CALL && k < sizeof fn / sizeof fn[0]; k++)
            ok |= nsc_strieq(f->u.s, fn[k]);
        for (size_t k = 0; f->kind == NL_F_WORD && k < sizeof words / sizeof words[0]; k++)
            ok |= nsc_strieq(f->u.s, words[k]);
        if (!ok)
            nle_warn(E, sc, cd, f,
                     ".probe %s: not an output nscircuit can give (V(), I(), P(), all), ignored",
                     nle_ftext(f));
    }
}

/* The run's cards without a handler of their own above: .op, .save/.print
 * (resolved once every element exists: nle_resolve_save), .meas (nl_meas.c),
 * an unparsed instance (nl_deck.c deferred_card: its instance is elaborated). */
static nsc_status card_op(elab *E, scope *sc, const nl_card *cd)
{
    (void)sc;
    E->c->job.has_op = 1;
    E->c->job.op_loc = nl_field_loc(E->d, cd, &cd->f[0]);
    return NSC_OK;
}

static nsc_status card_save(elab *E, scope *sc, const nl_card *cd)
{
    (void)sc;
    if (nsc_grow((void **)&E->save, &E->capsavecard, E->nsavecard + 1, sizeof *E->save))
        return nle_oom(E);
    E->save[E->nsavecard++] = (int)(cd - E->d->card);
    return NSC_OK;
}

/* A .meas of an analysis other than tran (and ac, nl_dot_ac.c) is not made: a
 * warning, and the run goes on (a measure is an output; issue 28). */
static nsc_status card_meas(elab *E, scope *sc, const nl_card *cd)
{
    static const char *const other[] = { "dc", "op", "sp", "noise", "tf" };
    for (size_t k = 0; cd->nf > 2 && k < sizeof other / sizeof other[0]; k++)
        if (nle_is_word(&cd->f[1], other[k])) {
            nle_warn(E, NULL, cd, &cd->f[1],
                     ".meas %s %s not measured: only .meas tran and .meas ac are", other[k],
                     nle_ftext(&cd->f[2]));
            return NSC_OK;
        }
    nl_env env = { nle_scope_lookup, sc, E->d->files[cd->file], sc->where, E->funcs, E->nfunc };
    return nl_meas_card(E->c, E->d, cd, &env, E->r);
}

static nsc_status card_unparsed(elab *E, scope *sc, const nl_card *cd)
{
    return nle_err(E, sc, cd, &cd->f[1], "%s", cd->f[1].u.s);
}

/* How a dot card is taken (dot_cards[].how). */
typedef enum dot_how {
    DOT_ANY, /* its handler, at any level; no handler: read by another pass (.param .model .subckt) */
    DOT_TOP,     /* a card of the run: its handler at the top level, a warning inside a .subckt */
    DOT_NOTED,   /* no effect on the transient: a note (and its handler, when it has one) */
    DOT_SKIPPED, /* another analysis or dialect: a warning saying why (the entry's why) */
    DOT_UNSUP    /* refused: an error */
} dot_how;

typedef nsc_status (*dot_fn)(elab *E, scope *sc, const nl_card *cd);
static void probe_warn(elab *E, scope *sc, const nl_card *cd);
static nsc_status card_probe(elab *E, scope *sc, const nl_card *cd)
{
    probe_warn(E, sc, cd);
    return NSC_OK;
}

#define NOT_RUN "not simulated (the analyses: .tran, .op, .pss, .ac, .dc)"
/* The dot cards: a new card is a handler (elab *, scope *, card) and a line
 * here. .ac, .dc, .four, .print ac|dc and .meas ac are taken before this table
 * (nle_small_card, nl_dot_ac.c); names are matched case-insensitively. */
static const struct dot_card {
    const char *name;
    dot_how how;
    dot_fn fn;
    const char *why; /* DOT_SKIPPED: the warning's reason */
} dot_cards[] = {
    { ".ctl", DOT_ANY, card_ctl, NULL }, /* a .control command (nl_deck.c) */
    { ".(unparsed)", DOT_ANY, card_unparsed, NULL },
    { ".param", DOT_ANY, NULL, NULL },
    { ".model", DOT_ANY, NULL, NULL },
    { ".subckt", DOT_ANY, NULL, NULL },
    { ".ends", DOT_ANY, NULL, NULL },
    { ".global", DOT_ANY, NULL, NULL },
    { ".func", DOT_ANY, NULL, NULL },
    { ".ic", DOT_ANY, card_ic, NULL },
    { ".tran", DOT_TOP, card_tran, NULL },
    { ".op", DOT_TOP, card_op, NULL },
    { ".options", DOT_TOP, card_options, NULL },
    { ".option", DOT_TOP, card_options, NULL },
    { ".opt", DOT_TOP, card_options, NULL },
    { ".save", DOT_TOP, card_save, NULL },
    { ".print", DOT_TOP, card_save, NULL },
    { ".step", DOT_TOP, card_step, NULL },
    { ".meas", DOT_TOP, card_meas, NULL },
    { ".measure", DOT_TOP, card_meas, NULL },
    { ".pss", DOT_TOP, card_pss, NULL },
    { ".nodeset", DOT_NOTED, NULL, NULL },
    { ".temp", DOT_NOTED, NULL, NULL },
    { ".width", DOT_NOTED, NULL, NULL },
    { ".plot", DOT_NOTED, NULL, NULL },
    { ".probe", DOT_NOTED, card_probe, NULL },
    { ".tf", DOT_SKIPPED, NULL, NOT_RUN },
    { ".noise", DOT_SKIPPED, NULL, NOT_RUN },
    { ".disto", DOT_SKIPPED, NULL, NOT_RUN },
    { ".pz", DOT_SKIPPED, NULL, NOT_RUN },
    { ".sens", DOT_SKIPPED, NULL, NOT_RUN },
    { ".sp", DOT_SKIPPED, NULL, NOT_RUN },
    { ".hb", DOT_SKIPPED, NULL, NOT_RUN },
    { ".backanno", DOT_SKIPPED, NULL, "LTspice's annotation has no effect here" },
    { ".if", DOT_UNSUP, NULL, NULL },
    { ".elseif", DOT_UNSUP, NULL, NULL },
    { ".else", DOT_UNSUP, NULL, NULL },
    { ".endif", DOT_UNSUP, NULL, NULL },
    { ".csparam", DOT_UNSUP, NULL, NULL },
    { ".data", DOT_UNSUP, NULL, NULL },
    { ".endd", DOT_UNSUP, NULL, NULL },
    { ".connect", DOT_UNSUP, NULL, NULL },
    { ".alter", DOT_UNSUP, NULL, NULL },
    { ".spiceinit", DOT_UNSUP, NULL, NULL },
};
#undef NOT_RUN

/* A dot card, by its line in dot_cards (other analyses and other dialects'
 * cards that do not change the transient are skipped with a warning naming the
 * card: a netlist written for ngspice, LTspice or Xyce runs its .tran; without
 * .tran/.op the run fails). */
nsc_status nle_card_dot(elab *E, scope *sc, const nl_card *cd)
{
    int small; /* .ac .dc .print ac|dc .meas ac .four: nl_dot_ac.c */
    if (nle_small_card(E, sc, cd, &small) || small) return E->r->status;
    const struct dot_card *t = NULL;
    for (size_t k = 0; !t && k < sizeof dot_cards / sizeof dot_cards[0]; k++)
        if (nle_head_is(cd, dot_cards[k].name)) t = &dot_cards[k];
    if (!t) return nle_err(E, sc, cd, NULL, "unknown card '%s'", cd->f[0].u.s);
    switch (t->how) {
    case DOT_ANY: return t->fn ? t->fn(E, sc, cd) : NSC_OK;
    case DOT_TOP:
        if (!sc->up) return t->fn(E, sc, cd);
        nle_warn(E, sc, cd, NULL, "%s inside .subckt ignored", t->name);
        return NSC_OK;
    case DOT_NOTED:
        nle_note(E, cd, NULL, "%s ignored", t->name);
        return t->fn ? t->fn(E, sc, cd) : NSC_OK;
    case DOT_SKIPPED:
        nle_warn(E, sc, cd, NULL, "%s card skipped: %s", t->name, t->why);
        return NSC_OK;
    case DOT_UNSUP: break;
    }
    return nle_err(E, sc, cd, NULL, "unsupported card '%s'", cd->f[0].u.s);
}

static nsc_status probe_add(elab *E, nsc_probekind kind, int n0, int n1, int el, const char *name,
                            nsc_loc loc)
{
    nsc_circuit *c = E->c;
    if (nl_hash_get(&E->probes, name, NULL)) return NSC_OK; /* already saved */
    if (nsc_grow((void **)&c->job.save, &E->capsave, c->job.nsave + 1, sizeof *c->job.save))
        return nle_oom(E);
    nsc_probe *p = &c->job.save[c->job.nsave];
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->node[0] = n0;
    p->node[1] = n1;
    p->el = el;
    p->loc = loc;
    if (!(p->name = nsc_strdup(name))) return nle_oom(E);
    if (nl_hash_put(&E->probes, p->name, c->job.nsave)) return nle_oom(E);
    c->job.nsave++;
    return NSC_OK;
}

static nsc_status save_node(elab *E, const nl_card *cd, const nl_field *f, int *n)
{
    if (f->kind != NL_F_WORD)
        return nle_err(E, NULL, cd, f, "expected a node name, found '%s'", nle_ftext(f));
    char *in = nsc_strdup(f->u.s);
    nsc_probe p;
    if (!in) return nle_oom(E);
    nl_probe_fail why = nle_probe(E, NSC_PROBE_V, in, NL_PROBE_FLAT, &p, NULL);
    free(in);
    if (why) return nle_err(E, NULL, cd, f, "unknown node '%s' in %s", f->u.s, cd->f[0].u.s);
    *n = p.node[0];
    return NSC_OK;
}

/* The top-level .params of the circuit (c->param), after elaboration. */
static int top_lookup(void *ctx, const char *name, double *v)
{
    const nsc_circuit *c = ctx;
    for (int k = 0; k < c->job.nparam; k++)
        if (!strcmp(c->job.param[k], name)) {
            *v = c->job.param_val[k];
            return 1;
        }
    return 0;
}

/* A derived output column (circuit.h xcol) of program sig, named name (taken). */
static nsc_status xcol_add(elab *E, char *name, nsc_msig *sig)
{
    nsc_circuit *c = E->c;
    struct nsc_xcol *x = nsc_realloc_array(c->job.xcol, (size_t)c->job.nxcol + 1, sizeof *x);
    if (!x || !name) {
        free(name);
        free(sig->code);
        free(sig->text);
        return nle_oom(E);
    }
    c->job.xcol = x;
    c->job.xcol[c->job.nxcol].name = name;
    c->job.xcol[c->job.nxcol].pos = c->job.nsave; /* after the outputs listed before it */
    c->job.xcol[c->job.nxcol++].sig = *sig;
    return NSC_OK;
}

/* Xyce's .print fields: FORMAT= PRECISION= WIDTH= FILE= DELIMITER= (noted,
 * ignored), {expr} and P(x) / W(x) (the power v(n+,n-) i(x); a MOS
 * transistor's v(d,s) i(d)) as derived columns. 1 when f was one of them, 0
 * when not, -1 on error. */
static int xyce_print(elab *E, const nl_card *cd, const nl_field *f)
{
    static const char *const opts[] = { "format",    "precision", "width",           "file",
                                        "delimiter", "timewidth", "timescalefactor", "filter" };
    char kb[64];
    const char *k = nle_pair_key(f, kb, sizeof kb);
    for (size_t q = 0; k && q < sizeof opts / sizeof opts[0]; q++)
        if (!strcmp(k, opts[q])) {
            nle_note(E, cd, f, "Xyce .print option %s= ignored (the outputs are -o's)", k);
            return 1;
        }
    nsc_circuit *c = E->c;
    nsc_msig sig;
    if (f->kind == NL_F_EXPR) {
        nl_env env = { top_lookup, c, E->d->files[cd->file], "", E->funcs, E->nfunc };
        if (nl_meas_signal(c, E->d, cd, &env, f, &sig, E->r)) return -1;
        return xcol_add(E, nsc_asprintf("{%s}", sig.text), &sig) ? -1 : 1;
    }
    if (f->kind != NL_F_CALL || !(nsc_strieq(f->u.s, "p") || nsc_strieq(f->u.s, "w"))
        || f->nsub != 1 || f->sub[0].kind != NL_F_WORD)
        return 0;
    const char *en = nle_cat(E, "", f->sub[0].u.s);
    int el;
    if (!en) {
        nle_oom(E);
        return -1;
    }
    const nsc_device *d = nl_hash_get(&E->els, en, &el) ? nsc_device_of(c->el[el].kind) : NULL;
    if (!d || c->el[el].nnode < 2 || !d->current) { /* a coupling K: the one device without */
        nle_err(E, NULL, cd, &f->sub[0], "%s(%s): no element with two terminals named %s", f->u.s,
                f->sub[0].u.s, f->sub[0].u.s);
        return -1;
    }
    const nsc_element *e = &c->el[el];
    if (d->no_power) {
        nle_err(E, NULL, cd, &f->sub[0], "%s(%s): not available for %s", f->u.s, f->sub[0].u.s,
                d->no_power);
        return -1;
    }
    nsc_status st = nl_power_sig(c, el, nl_field_loc(E->d, cd, f), &sig, E->r);
    if (st == NSC_ENOMEM) nle_oom(E);
    if (st) return -1;
    return xcol_add(E, nsc_asprintf("p(%s)", e->name), &sig) ? -1 : 1;
}

/* ngspice's device internals in .save, @name[param]: the currents the models
 * have (@m1[id] the drain current, @d1[id], @q1[ic] the collector's, @r1[i]
 * and the like of every element with a current), as a column of that name;
 * any other parameter (gm, gds, vth, ...: the PWL models have none) is skipped
 * with a warning naming it. */
static nsc_status save_internal(elab *E, const nl_card *cd, const nl_field *f, nsc_loc loc)
{
    nsc_circuit *c = E->c;
    const char *s = f->u.s + 1, *lb = strchr(s, '['), *rb = lb ? strchr(lb, ']') : NULL;
    if (!lb || !rb || rb[1] || lb == s || rb == lb + 1)
        return nle_err(E, NULL, cd, f,
                       "unsupported output '%s' in %s (ngspice's form: @device[parameter])", f->u.s,
                       cd->f[0].u.s);
    char dev[256], par[32];
    snprintf(dev, sizeof dev, "%.*s", (int)(lb - s), s);
    snprintf(par, sizeof par, "%.*s", (int)(rb - lb - 1), lb + 1);
    nsc_strlower(par);
    const char *k = nle_cat(E, "", dev);
    int el;
    if (!k) return nle_oom(E);
    if (!nl_hash_get(&E->els, k, &el) && !nl_hash_get(&E->els, nl_flat_name(dev), &el))
        return nle_err(E, NULL, cd, f, "unknown element '%s' in %s", dev, cd->f[0].u.s);
    const nsc_device *d = nsc_device_of(c->el[el].kind);
    const char *want = d->current_param ? d->current_param : "i";
    if (!d->current || strcmp(par, want)) {
        nle_warn(E, NULL, cd, f, "'%s' in %s skipped: %s has no parameter '%s' here (%s%s%s%s%s)",
                 f->u.s, cd->f[0].u.s, c->el[el].name, par,
                 d->current ? "its current is @" : "no current", d->current ? dev : "",
                 d->current ? "[" : "", d->current ? want : "", d->current ? "]" : "");
        return NSC_OK;
    }
    char *name = nsc_asprintf("@%s[%s]", c->el[el].name, par);
    nsc_status st = name ? probe_add(E, NSC_PROBE_I, 0, 0, el, name, loc) : nle_oom(E);
    free(name);
    return st;
}

/* The sign of element e's current I(e) (n+ -> n- through it) in the current
 * leaving node nd into e: +1 at n+, -1 at n-, 0 at terminals that carry none
 * (control inputs); 2 when e's current at nd is not I(e) (a MOS gate or body,
 * a bipolar transistor). */
static int pin_sign(const nsc_element *e, int nd)
{
    const nsc_device *d = nsc_device_of(e->kind);
    int s = 0, set = d->pin[0] || d->pin[1] || d->pin[2] || d->pin[3]; /* (devif.h pin) */
    for (int t = 0; t < e->nnode && t < 4; t++) {
        if (e->node[t] != nd) continue;
        int p = set ? d->pin[t] : t == 0 ? 1 : t == 1 ? -1 : 0;
        if (p == 2) return 2;
        s += p;
    }
    return s;
}

/* PSpice's pin current I(x1:d) / IX(x1:d) (or x1:1, by number) in .save: the
 * current flowing from the outside node of pin d into instance x1, the sum of
 * the currents into its elements at that node (a derived column). */
static nsc_status save_pin(elab *E, const nl_card *cd, const nl_field *f)
{
    nsc_circuit *c = E->c;
    const char *pin = f->sub[0].u.s;
    const char *k = nle_cat(E, "", pin);
    int nd;
    if (!k) return nle_oom(E);
    if (!nl_hash_get(&E->pins, k, &nd))
        return nle_err(E, NULL, cd, &f->sub[0], "%s(%s): no subcircuit instance with that pin",
                       f->u.s, pin);
    const char *colon = strchr(k, ':');
    size_t np = (size_t)(colon - k);
    nsc_msig sig;
    memset(&sig, 0, sizeof sig);
    sig.code = calloc(3 * (size_t)c->nel + 2, sizeof *sig.code);
    if (!sig.code) return nle_oom(E);
    nsc_loc loc = nl_field_loc(E->d, cd, f);
    for (int el = 0; el < c->nel; el++) {
        const nsc_element *e = &c->el[el];
        int sg = strncmp(e->name, k, np) || e->name[np] != '.' ? 0 : pin_sign(e, nd), ki;
        if (sg == 2) {
            free(sig.code);
            return nle_err(E, NULL, cd, &f->sub[0],
                           "%s(%s): the current of %s at that pin is not available", f->u.s, pin,
                           e->name);
        }
        if (!sg || !nsc_device_of(e->kind)->current) continue;
        if (nl_meas_column(c, NSC_PROBE_I, e->name, NULL, loc, &ki, E->r)) {
            free(sig.code);
            return E->r->status;
        }
        int first = sig.ncode == 0;
        sig.code[sig.ncode++] = (nsc_xinstr){ .op = NSC_XOP_PROBE, .arg = ki };
        if (sg < 0) sig.code[sig.ncode++] = (nsc_xinstr){ .op = NSC_XOP_NEG }; /* -I(e) */
        if (!first)
            sig.code[sig.ncode++] = (nsc_xinstr){ .op = NSC_XOP_ADD }; /* (sum so far) + it */
    }
    if (!sig.ncode)
        sig.code[sig.ncode++] = (nsc_xinstr){ .op = NSC_XOP_NUM }; /* nothing inside there */
    char *name = nsc_asprintf("%s(%s)", f->u.s, k);
    if (name) nsc_strlower(name);
    sig.text = name ? nsc_strdup(name) : NULL;
    return xcol_add(E, name, &sig);
}

/* 1 when word field f is not a node (kind V) or element (kind I) of the circuit. */
static int name_missing(elab *E, nsc_probekind kind, const nl_field *f, int opts)
{
    char *in = nsc_strdup(f->u.s);
    nsc_probe p;
    if (!in) return 0; /* out of memory: the caller's own probe reports it */
    nl_probe_fail why = nle_probe(E, kind, in, opts, &p, NULL);
    free(in);
    return kind == NSC_PROBE_V ? why != NL_PROBE_OK : why == NL_PROBE_ELEMENT;
}

int nle_output_missing(elab *E, const nl_card *cd, const nl_field *f, int opts)
{
    const nl_field *miss = NULL;
    if (f->kind == NL_F_WORD && f->u.s[0] != '@') {
        if (name_missing(E, NSC_PROBE_V, f, opts)) miss = f;
    } else if (f->kind == NL_F_CALL && (f->u.s[0] | 0x20) == 'v') {
        for (int k = 0; k < f->nsub && !miss; k++)
            if (f->sub[k].kind == NL_F_WORD && name_missing(E, NSC_PROBE_V, &f->sub[k], opts))
                miss = &f->sub[k];
    } else if (f->kind == NL_F_CALL && (f->u.s[0] | 0x20) == 'i' && f->nsub == 1
               && f->sub[0].kind == NL_F_WORD && !strchr(f->sub[0].u.s, ':')
               && name_missing(E, NSC_PROBE_I, &f->sub[0], opts))
        miss = &f->sub[0];
    if (!miss) return 0;
    nle_warn(E, NULL, cd, miss, "unknown %s '%s' in %s: that output is not written",
             miss == f || (f->u.s[0] | 0x20) == 'v' ? "node" : "element", miss->u.s, cd->f[0].u.s);
    return 1;
}

/* .save / .print [tran] V(a) V(a,b) I(x) node ... */
nsc_status nle_resolve_save(elab *E)
{
    nsc_circuit *c = E->c;
    for (int s = 0; s < E->nsavecard; s++) {
        const nl_card *cd = &E->d->card[E->save[s]];
        int i = 1;
        if (nle_head_is(cd, ".print") && cd->nf > 1 && cd->f[1].kind == NL_F_WORD) {
            if (nsc_strieq(cd->f[1].u.s, "tran")) i = 2;
            else if (nsc_strieq(cd->f[1].u.s, "op")
                     || nsc_strieq(cd->f[1].u.s, "noise")) { /* (ac, dc: nl_dot_ac.c) */
                nle_note(E, cd, &cd->f[1], ".print %s ignored", cd->f[1].u.s);
                continue;
            }
        }
        for (; i < cd->nf; i++) {
            const nl_field *f = &cd->f[i];
            nsc_loc loc = nl_field_loc(E->d, cd, f);
            int n0, n1 = 0;
            char *name = NULL;
            nsc_status st;
            int xk = xyce_print(E, cd, f); /* Xyce's options and derived columns */
            if (xk < 0) return E->r->status;
            if (xk > 0) continue;
            if (f->kind == NL_F_WORD
                && (nsc_strieq(f->u.s, "all") || nsc_strieq(f->u.s, "allv")
                    || nsc_strieq(f->u.s, "alli"))) {
                nle_note(E, cd, f, "'%s' in .save ignored (default outputs)", f->u.s);
                continue;
            }
            if (nle_output_missing(E, cd, f, NL_PROBE_FLAT)) continue;
            if (f->kind == NL_F_WORD && f->u.s[0] != '@') { /* a bare node name */
                if (save_node(E, cd, f, &n0)) return E->r->status;
                name = nsc_asprintf("v(%s)", c->node_name[n0]);
                st = name ? probe_add(E, NSC_PROBE_V, n0, 0, -1, name, loc) : nle_oom(E);
            } else if (f->kind == NL_F_CALL && nsc_strieq(f->u.s, "v")
                       && (f->nsub == 1 || f->nsub == 2)) {
                if (save_node(E, cd, &f->sub[0], &n0)
                    || (f->nsub == 2 && save_node(E, cd, &f->sub[1], &n1)))
                    return E->r->status;
                name = f->nsub == 1 ? nsc_asprintf("v(%s)", c->node_name[n0])
                                    : nsc_asprintf("v(%s,%s)", c->node_name[n0], c->node_name[n1]);
                st = name ? probe_add(E, NSC_PROBE_V, n0, n1, -1, name, loc) : nle_oom(E);
            } else if (f->kind == NL_F_CALL && (nsc_strieq(f->u.s, "i") || nsc_strieq(f->u.s, "ix"))
                       && f->nsub == 1 && f->sub[0].kind == NL_F_WORD
                       && strchr(f->sub[0].u.s, ':')) {
                st = save_pin(E, cd, f);
            } else if (f->kind == NL_F_WORD && f->u.s[0] == '@') {
                st = save_internal(E, cd, f, loc);
            } else if (f->kind == NL_F_CALL && nsc_strieq(f->u.s, "i") && f->nsub == 1
                       && f->sub[0].kind == NL_F_WORD) {
                char *in = nsc_strdup(f->sub[0].u.s);
                nsc_probe p;
                if (!in) return nle_oom(E);
                nl_probe_fail why = nle_probe(E, NSC_PROBE_I, in, NL_PROBE_FLAT, &p, NULL);
                free(in);
                if (why == NL_PROBE_ELEMENT)
                    return nle_err(E, NULL, cd, &f->sub[0], "unknown element '%s' in %s",
                                   f->sub[0].u.s, cd->f[0].u.s);
                if (why) /* a coupling K: the one device without */
                    return nle_err(E, NULL, cd, &f->sub[0], "I(%s): a coupling has no current",
                                   f->sub[0].u.s);
                int direct = nl_hash_get(&E->els, f->sub[0].u.s,
                                         NULL); /* else ngspice's name as written */
                name = nsc_asprintf("i(%s)", direct ? c->el[p.el].name : f->sub[0].u.s);
                st = name ? probe_add(E, NSC_PROBE_I, 0, 0, p.el, name, loc) : nle_oom(E);
            } else
                return nle_err(E, NULL, cd, f,
                               "unsupported output '%s' in %s (use V(n), V(a,b), I(element))",
                               nle_ftext(f), cd->f[0].u.s);
            free(name);
            if (st) return st;
        }
    }
    return NSC_OK;
}

/* One user function: head is the CALL field name(a, b, ...), body its EXPR. */
static nsc_status func_add(elab *E, const nl_card *cd, const nl_field *head, const nl_field *body)
{
    const nl_expr *bx = body && body->kind == NL_F_EXPR ? body->u.x : NULL;
    double num;
    if (body && body->kind == NL_F_WORD
        && (nle_is_ident(body->u.s) || nsc_parse_number(body->u.s, &num))) {
        nl_expr *x = nl_expr_new(&E->ar, nle_is_ident(body->u.s) ? NL_X_PARAM : NL_X_NUM,
                                 body->line, body->col, NULL, NULL);
        if (!x
            || !(x->name = nl_strndup(&E->ar, body->u.s, strlen(body->u.s), x->op == NL_X_PARAM)))
            return nle_oom(E);
        x->num = num;
        bx = x; /* a bare name or number: f(x)=x */
    }
    if (!bx)
        return nle_err(E, NULL, cd, body ? body : head,
                       "the body of function '%s' must be an expression in braces: "
                       "%s(...) {expr}",
                       head->u.s, head->u.s);
    char *name = nl_strndup(&E->ar, head->u.s, strlen(head->u.s), 1);
    if (!name) return nle_oom(E);
    for (int k = 0; k < E->nfunc; k++)
        if (!strcmp(E->funcs[k].name, name))
            return nle_err(E, NULL, cd, head, "function '%s' defined twice", head->u.s);
    if (!strcmp(name, "v")
        || !strcmp(name, "i")) /* ngspice replaces the probe everywhere, without a word */
        return nle_err(E, NULL, cd, head,
                       "function '%s' would hide the probe %s(): choose another name", head->u.s,
                       name[0] == 'v' ? "V" : "I");
    if (nsc_xfn_find(name) >= 0)
        nle_warn(E, NULL, cd, head, "function '%s' replaces the built-in %s() in every expression",
                 head->u.s, name);
    if (nsc_grow((void **)&E->funcs, &E->capfunc, E->nfunc + 1, sizeof *E->funcs))
        return nle_oom(E);
    nl_func *fn = &E->funcs[E->nfunc];
    *fn = (nl_func){ name, 0, calloc((size_t)head->nsub + 1, sizeof(char *)), bx };
    if (!fn->formal) return nle_oom(E);
    E->nfunc++;
    for (int k = 0; k < head->nsub; k++) {
        const nl_field *a = &head->sub[k];
        const char *an = a->kind == NL_F_WORD                               ? a->u.s
                         : a->kind == NL_F_EXPR && a->u.x->op == NL_X_PARAM ? a->u.x->name
                                                                            : NULL;
        if (!an || !nle_is_ident(an))
            return nle_err(E, NULL, cd, a, "expected an argument name in function '%s'", head->u.s);
        if (!(fn->formal[fn->nformal++] = nl_strndup(&E->ar, an, strlen(an), 1))) return nle_oom(E);
    }
    return NSC_OK;
}

/* Every .func name(a, b) {body} (also `= {body}`) and .param name(a, b) = {body}
 * of the deck, before any expression is evaluated. */
nsc_status nle_funcs_collect(elab *E)
{
    for (int c = 0; c < E->d->ncard; c++) {
        const nl_card *cd = &E->d->card[c];
        if (nle_head_is(cd, ".func")) {
            const nl_field *f = cd->nf > 1 ? &cd->f[1] : NULL;
            if (f && f->kind == NL_F_PAIR && f->sub[0].kind == NL_F_CALL) {
                if (func_add(E, cd, &f->sub[0], &f->sub[1])) return E->r->status;
            } else if (f && f->kind == NL_F_CALL) {
                if (func_add(E, cd, f, cd->nf > 2 ? &cd->f[2] : NULL)) return E->r->status;
            } else return nle_err(E, NULL, cd, f, "expected .func name(arguments) {expression}");
        } else if (nle_head_is(cd, ".param")) {
            for (int i = 1; i < cd->nf; i++)
                if (cd->f[i].kind == NL_F_PAIR && cd->f[i].sub[0].kind == NL_F_CALL
                    && func_add(E, cd, &cd->f[i].sub[0], &cd->f[i].sub[1]))
                    return E->r->status;
        }
    }
    return NSC_OK;
}

/* Nodes other than ground that one element terminal alone touches and no B
 * source reads: warned, a misspelt node name being the usual cause (issue 28
 * item 12). Warnings only: out of memory skips the check. */
void nle_lonely_nodes(elab *E)
{
    nsc_circuit *c = E->c;
    int *cnt = calloc((size_t)c->nnode + 1, sizeof *cnt),
        *who = calloc((size_t)c->nnode + 1, sizeof *who);
    for (int k = 0; cnt && who && k < c->nel; k++) {
        const nsc_element *e = &c->el[k];
        for (int j = 0; j < e->nnode; j++) {
            cnt[e->node[j]]++;
            who[e->node[j]] = k;
        }
        const nsc_bprog *p = nsc_bprog_of(e);
        for (int t = 0; p && t < p->nterm; t++)
            if (p->term[t].kind == NSC_BT_V) cnt[p->term[t].idx] += 2; /* read: not lonely */
        for (int q = 0; p && q < p->nsm; q++)
            for (int t = 0; t < p->sm[q].nin; t++)
                if (p->sm[q].in[t].kind == NSC_BT_V) cnt[p->sm[q].in[t].idx] += 2;
    }
    for (int n = 1; cnt && who && n < c->nnode; n++)
        if (cnt[n] == 1) {
            const nsc_element *e = &c->el[who[n]];
            nsc_warn(
                E->r, c->node_loc[n].line > 0 ? &c->node_loc[n] : &e->loc,
                "node '%s' connects to %s only (no other element uses it): a misspelt node name?",
                c->node_name[n], e->name);
        }
    free(cnt);
    free(who);
}

/* 1 when probe p of a .control meas names an existing node or element (P(x)'s
 * "v(@x)" is checked by nl_meas_resolve). */
static int probe_exists(elab *E, const nsc_probe *p)
{
    char in[512];
    nsc_probe q;
    size_t n = strlen(p->name);
    if (n < 4 || n - 3 >= sizeof in) return 0;
    memcpy(in, p->name + 2, n - 3);
    in[n - 3] = 0;
    if (p->kind == NSC_PROBE_V && in[0] == '@') return 1;
    nl_probe_fail why = nle_probe(E, p->kind, in, NL_PROBE_FLAT, &q, NULL);
    return why != NL_PROBE_NODE
           && why != NL_PROBE_ELEMENT; /* (a coupling's I(): nl_meas_resolve's error) */
}

/* `meas ...` of a .control block: as a .meas card, its WORD fields naming a
 * `let` vector of the block (before it) replaced by the let's expression; one
 * that cannot be measured is a warning and is not run, as ngspice carries on
 * (issue 28 item 2). k: its index in E->ctlcards. */
static nsc_status ctl_meas(elab *E, int k)
{
    const nl_card *cd = &E->d->card[E->ctlcards[k]];
    nsc_circuit *c = E->c;
    nl_field *f = nl_alloc(&E->ar, (size_t)(cd->nf - 1) * sizeof *f);
    if (!f) return nle_oom(E);
    for (int i = 1; i < cd->nf; i++) {
        f[i - 1] = cd->f[i];
        const nl_field *lv = cd->f[i].kind == NL_F_WORD ? let_field(E, k, cd->f[i].u.s) : NULL;
        if (lv && (lv->kind == NL_F_EXPR || lv->kind == NL_F_CALL)) f[i - 1] = *lv;
    }
    nl_card sub = { f, cd->nf - 1, cd->file };
    nl_env env = { top_lookup, c, E->d->files[cd->file], "", E->funcs, E->nfunc };
    nsc_report scratch;
    nsc_report_init(&scratch);
    int mark = c->job.nmeas_probe, n0 = c->job.nmeas;
    nsc_status st = nl_meas_card(c, E->d, &sub, &env, &scratch);
    for (int q = mark; !st && q < c->job.nmeas_probe; q++)
        if (!probe_exists(E, &c->job.meas_probe[q]))
            st = nsc_err(&scratch, NSC_ENETLIST, &c->job.meas_probe[q].loc, "no such vector %s",
                         c->job.meas_probe[q].name);
    if (st == NSC_ENOMEM) {
        nsc_report_free(&scratch);
        return nle_oom(E);
    }
    if (st) {
        const char *m = scratch.error ? strstr(scratch.error, ": error: ") : NULL;
        nle_warn(E, NULL, cd, &cd->f[1], "meas not run: %s", m ? m + 9 : "error");
        if (c->job.nmeas > n0) nl_meas_pop(c, mark);
    } else nsc_report_take(E->r, &scratch); /* (an option skipped: its warning) */
    nsc_report_free(&scratch);
    return NSC_OK;
}

/* The .control commands kept by card_ctl (meas, let, wrdata, write, print), in
 * card order, once every node, element and .meas card exists. */
nsc_status nle_resolve_ctl(elab *E)
{
    for (int k = 0; k < E->nctl; k++) {
        const nl_card *cd = &E->d->card[E->ctlcards[k]];
        const char *cmd = cd->f[1].u.s;
        nsc_status st = NSC_OK;
        if (nsc_strieq(cmd, "let")) continue;
        if (nsc_strieq(cmd, "meas") || nsc_strieq(cmd, "measure")) st = ctl_meas(E, k);
        else
            st = ctl_output(E, k, cd,
                            nsc_strieq(cmd, "wrdata")  ? "wrdata"
                            : nsc_strieq(cmd, "write") ? "write"
                                                       : "print");
        if (st) return st;
    }
    return NSC_OK;
}
