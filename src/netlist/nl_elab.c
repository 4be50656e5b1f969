/* nl_elab.c -- elaboration: deck (cards) -> flat nsc_circuit (see circuit.h).
 *
 * The cards are first sorted into definitions: the top level and each
 * .subckt ... .ends (nested definitions are local to the enclosing one).
 * An instance of a definition is a scope: its hierarchical prefix ("x1.x2."),
 * its port -> node map, its .param values and its .model cards. Names are
 * looked up lexically: a scope, then the scope of the enclosing definition's
 * instance, up to the top level. A scope is elaborated in three passes over its
 * cards: .param (in order, so later ones may use earlier ones), .model, then
 * elements and X instances in card order (X recursing into a new scope).
 * Lookups use hash tables, so the whole is linear in the size of the
 * flattened circuit. References that may point forward (K -> L, F/H -> V,
 * .ic and .save nodes, models of elements) are resolved at the end.
 *
 * This file is the driver: the cards sorted into definitions, the passes of
 * a scope, the final resolution, the entry points. The state the files share
 * and the other files are described in nl_elab.h. */
#include "nl_elab.h"
#include "nl_meas.h"
#include "devices/device.h"
#include "devices/bprog.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Elaborate the cards of scope sc: .param, then .model, then the rest. */
nsc_status nle_scope_run(elab *E, scope *sc)
{
    const def *d = sc->df;
    for (int pass = 0; pass < 3; pass++)
        for (int k = 0; k < d->nbody; k++) {
            const nl_card *cd = &E->d->card[d->body[k]];
            int isparam = nle_head_is(cd, ".param"), ismodel = nle_head_is(cd, ".model");
            nsc_status st = NSC_OK;
            if (pass == 0 && isparam) st = nle_card_param(E, sc, cd);
            else if (pass == 1 && ismodel) st = nle_card_model(E, sc, cd);
            else if (pass == 2 && !isparam && !ismodel)
                st = cd->f[0].u.s[0] == '.' ? nle_card_dot(E, sc, cd) : nle_card_element(E, sc, cd);
            if (st) return st;
        }
    return NSC_OK;
}

/* Sort cards into definitions; check .subckt headers; collect .global names. */
static nsc_status build_defs(elab *E)
{
    def *top = nle_def_new(E, NULL, NULL), *cur = top;
    if (!top) return nle_oom(E);
    top->name = "";
    for (int i = 0; i < E->d->ncard; i++) {
        const nl_card *cd = &E->d->card[i];
        if (nle_head_is(cd, ".subckt")) {
            if (nle_subckt_open(E, cur, cd, &cur)) return E->r->status;
        } else if (nle_head_is(cd, ".ends")) {
            if (cur == top) return nle_err(E, NULL, cd, NULL, ".ends without .subckt");
            if (cd->nf > 1 && cd->f[1].kind == NL_F_WORD && !nsc_strieq(cd->f[1].u.s, cur->name))
                nle_warn(E, NULL, cd, &cd->f[1], ".ends %s closes .subckt %s", cd->f[1].u.s,
                         cur->name);
            cur = cur->parent;
        } else {
            if (nle_head_is(cd, ".global"))
                for (int k = 1; k < cd->nf; k++) {
                    if (cd->f[k].kind != NL_F_WORD)
                        return nle_err(E, NULL, cd, &cd->f[k], "expected a node name in .global");
                    const char *g = nl_strndup(&E->ar, cd->f[k].u.s, strlen(cd->f[k].u.s), 1);
                    if (!g || nl_hash_put(&E->globals, g, 1)) return nle_oom(E);
                }
            if (nsc_grow((void **)&cur->body, &cur->capbody, cur->nbody + 1, sizeof *cur->body))
                return nle_oom(E);
            cur->body[cur->nbody++] = i;
        }
    }
    if (cur != top)
        return nle_err(E, NULL, cur->hdr, NULL, "missing .ends for .subckt %s", cur->hdr->f[1].u.s);
    return NSC_OK;
}

/* 1 when an element of kind k has its current as a branch unknown of every
 * mode, which I(x) and a sense reference read: the voltage-defining sources V,
 * E (gain or VALUE=), H, B V= (Xyce reads I(B2), I(E3), I(H3) in expressions
 * and senses; ngspice only V). */
static int branch_current(nsc_elkind k)
{
    return k == NSC_EL_V || k == NSC_EL_E || k == NSC_EL_H || k == NSC_EL_BV;
}

static nsc_status resolve_refs(elab *E)
{
    nsc_circuit *c = E->c;
    for (int k = 0; k < E->nfix; k++) {
        fixup *x = &E->fix[k];
        nsc_element *e = &c->el[x->el];
        const char *nm = x->cd->f[0].u.s;
        scope s = { 0 };
        s.where = x->where;
        int t;
        if (!nl_hash_get(&E->els, x->name, &t))
            return nle_err(E, &s, x->cd, x->f, "unknown element '%s' in %s %s", x->f->u.s,
                           nle_kind_name(e->kind), nm);
        if (e->kind == NSC_EL_K && c->el[t].kind != NSC_EL_L)
            return nle_err(E, &s, x->cd, x->f, "coupling %s: '%s' is not an inductor", nm,
                           x->f->u.s);
        if (e->kind != NSC_EL_K && !branch_current(c->el[t].kind))
            return nle_err(E, &s, x->cd, x->f, "%s %s: '%s' is not a voltage source",
                           nle_kind_name(e->kind), nm, x->f->u.s);
        if (x->term >= 0) {
            nsc_bprog_of(e)->elref[x->term] = t;
            continue;
        }
        e->ref[x->slot] = t;
        if (e->kind == NSC_EL_K && x->slot == 1 && e->ref[0] == t)
            return nle_err(E, &s, x->cd, x->f, "coupling %s couples '%s' with itself", nm,
                           x->f->u.s);
    }
    for (int k = 0; k < c->nel; k++)
        if (E->elmodel[k] >= 0) c->el[k].model = &c->model[E->elmodel[k]];
    return NSC_OK;
}

/* SPICE defaults of omitted waveform fields; dc = value at t = 0 when no DC given */
/* SPICE's defaults for the omitted fields of each source's waveform, with
 * ngspice's semantics for degenerate ones (netlist.md): PULSE PW = 0 means TSTOP;
 * PER omitted or 0 means TSTOP, and ngspice wraps only when t - TD > PER, so
 * such a pulse never repeats within the run: per = 0 here (no repeat; with
 * per = TSTOP the value at t = TSTOP fell back to V1). TR = TF = 0 stay ideal
 * edges. Negative PULSE durations are errors (they were accepted). The
 * fields given are w->ngiven, w->dc_from_wave (set by the card's parser,
 * devices/cards.c). */
static nsc_status wave_defaults(elab *E)
{
    nsc_circuit *c = E->c;
    for (int k = 0; k < c->nel; k++) {
        nsc_wave *w = &c->el[k].wave;
        if (c->el[k].kind != NSC_EL_V && c->el[k].kind != NSC_EL_I) continue;
        double *p = w->p;
        if (w->kind == NSC_WAVE_PULSE) {
            const char *field[] = { "TR", "TF", "PW", "PER" };
            for (int i = 3; i < 7 && i < w->ngiven; i++)
                if (p[i] < 0)
                    return nsc_err(E->r, NSC_ENETLIST, &c->el[k].loc,
                                   "PULSE of %s: negative %s = %g", c->el[k].name, field[i - 3],
                                   p[i]);
            w->pw_tstop = w->ngiven > 5 && p[5] == 0;
            if (w->ngiven >= 8 && !(p[7] >= 0 && p[7] == floor(p[7]) && p[7] < 1e15))
                return nsc_err(
                    E->r, NSC_ENETLIST, &c->el[k].loc,
                    "PULSE of %s: NP = %g must be a whole number of pulses (0: unlimited)",
                    c->el[k].name, p[7]);
        }
        nsc_wave_defaults(w, c->job.tstep, c->job.tstop, c->job.has_tran);
    }
    return NSC_OK;
}

static nsc_status resolve_ic(elab *E)
{
    nsc_circuit *c = E->c;
    if (!E->nic) return NSC_OK;
    c->ic_node = malloc((size_t)E->nic * sizeof *c->ic_node);
    c->ic_val = malloc((size_t)E->nic * sizeof *c->ic_val);
    c->ic_loc = malloc((size_t)E->nic * sizeof *c->ic_loc);
    if (!c->ic_node || !c->ic_val || !c->ic_loc) return nle_oom(E);
    for (int k = 0; k < E->nic; k++) {
        icfix *x = &E->ic[k];
        int n;
        scope s = { 0 };
        s.where = x->where;
        if (!nl_hash_get(&E->nodes, x->node, &n))
            return nle_err(E, &s, x->cd, x->f, "unknown node '%s' in .ic", x->f->u.s);
        c->ic_node[c->nic] = n;
        c->ic_val[c->nic] = x->v;
        c->ic_loc[c->nic] = nl_field_loc(E->d, x->cd, x->f);
        c->nic++;
    }
    return NSC_OK;
}

/* A capacitor's or an inductor's IC= in a transient without UIC is held while
 * the operating point is solved (netlist.md, as Xyce and PSpice do); ngspice
 * ignores it unless .tran has UIC. One note at the first such element, so a
 * netlist from ngspice says why its start differs (Xyce's CAPACITOR tests:
 * v(1) decays from 1 V here and in Xyce, stays 0 V in ngspice 39). */
static void ic_without_uic_note(elab *E)
{
    const nsc_circuit *c = E->c;
    int n = 0, first = -1;
    for (int e = 0; e < c->nel && c->job.has_tran && !c->job.uic; e++)
        if ((c->el[e].kind == NSC_EL_C || c->el[e].kind == NSC_EL_L) && c->el[e].has_ic)
            if (n++ == 0) first = e;
    if (n == 0) return;
    const nsc_element *x = &c->el[first];
    nsc_note(E->r, &x->loc,
             "%s's IC=%g%s is held while the operating point is solved (.tran without UIC), as "
             "Xyce and PSpice do; ngspice ignores a device IC= unless .tran has UIC",
             x->name, x->ic, n > 1 ? " (and the other IC= values)" : "");
}

static void elab_free(elab *E)
{
    for (int k = 0; k < E->ndef; k++) {
        free(E->defs[k]->body);
        nl_hash_free(&E->defs[k]->subs);
        nl_hash_free(&E->defs[k]->pars);
        free(E->defs[k]);
    }
    free(E->defs);
    nl_hash_free(&E->nodes);
    nl_hash_free(&E->els);
    nl_hash_free(&E->globals);
    nl_hash_free(&E->probes);
    nl_hash_free(&E->inodes);
    nl_hash_free(&E->pins);
    free(E->elmodel);
    for (int k = 0; k < E->nfix; k++) free(E->fix[k].name);
    free(E->fix);
    for (int k = 0; k < E->nic; k++) free(E->ic[k].node);
    free(E->ic);
    free(E->save);
    free(E->ctlcards);
    free(E->small);
    free(E->ovused);
    free(E->buf);
    free(E->model_card);
    for (int k = 0; k < E->nfunc; k++) free(E->funcs[k].formal);
    free(E->funcs);
    free(E->ctl_unrun);
    nl_arena_free(&E->ar);
}

/* circuit->param, param_val: the top scope's parameters in definition order */
static nsc_status top_params(elab *E, const scope *top)
{
    nsc_circuit *c = E->c;
    if (top->npar == 0) return NSC_OK;
    if (!(c->job.param = nsc_calloc((size_t)top->npar, sizeof *c->job.param))
        || !(c->job.param_val = nsc_calloc((size_t)top->npar, sizeof *c->job.param_val)))
        return nle_oom(E);
    c->job.nparam = top->npar;
    for (size_t k = 0; k < top->params.cap; k++) {
        const nl_slot *sl = &top->params.s[k];
        if (sl->key && !(c->job.param[sl->val] = nsc_strdup(sl->key))) return nle_oom(E);
        if (sl->key) c->job.param_val[sl->val] = top->pval[sl->val];
    }
    return NSC_OK;
}

static nsc_status elaborate(elab *E)
{
    nsc_circuit *c = E->c;
    c->job.theta = 0.5;
    c->job.stepsizelimit = 0;  /* no TSTEP cap by default (see run.c) */
    c->job.stepping_exact = 1; /* the exact transient where it applies */
    c->job.gmin = 1e-12;
    strcpy(c->job.solver, "auto");
    int g;
    if (nle_node_new(E, "0", NULL, NULL, &g)) return E->r->status;
    if (E->nov && !(E->ovused = calloc((size_t)E->nov, 1))) return nle_oom(E);
    if (nle_funcs_collect(E) || build_defs(E)) return E->r->status;
    const nl_card *over = NULL;
    nle_def_size(E, E->defs[0], 0, &over);
    if (over)
        return nle_err(
            E, NULL, over, NULL,
            "circuit too large: %.3g elements and %.3g subcircuit instances after expansion "
            "(limit %d each)",
            E->defs[0]->nel, E->defs[0]->ninst, NL_MAXELEMENTS);
    scope top = { 0 };
    top.df = E->defs[0];
    top.prefix = "";
    top.where = "";
    nsc_status st = NSC_OK;
    /* pass 0 of the top scope first, to check --param before anything else */
    for (int k = 0; !st && k < top.df->nbody; k++) {
        const nl_card *cd = &E->d->card[top.df->body[k]];
        if (nle_head_is(cd, ".param")) st = nle_card_param(E, &top, cd);
    }
    for (int j = 0; !st && j < E->nov; j++)
        if (!E->ovused[j])
            st = nsc_err(E->r, NSC_ENETLIST, NULL, "no .param named %s", E->ov[j].name);
    if (!st) st = nle_option_scale(E, &top);
    /* then .model and the rest (re-running .param passes is harmless but skipped) */
    for (int pass = 1; !st && pass < 3; pass++)
        for (int k = 0; !st && k < top.df->nbody; k++) {
            const nl_card *cd = &E->d->card[top.df->body[k]];
            int isparam = nle_head_is(cd, ".param"), ismodel = nle_head_is(cd, ".model");
            if (pass == 1 && ismodel) st = nle_card_model(E, &top, cd);
            else if (pass == 2 && !isparam && !ismodel)
                st = cd->f[0].u.s[0] == '.' ? nle_card_dot(E, &top, cd)
                                            : nle_card_element(E, &top, cd);
        }
    if (!st) st = nle_drop_loose_nodes(E);
    if (!st) st = top_params(E, &top);
    if (!st) st = nle_resolve_small(E, &top);
    if (!st && E->ctl_unrun)
        nle_note(E, &E->d->card[E->ctl_first], NULL, ".control commands not run: %s", E->ctl_unrun);
    nle_scope_free(&top);
    if (st) return st;
    if (c->nel == 0) {
        nsc_loc loc = { E->d->nfiles ? E->d->files[0] : NULL, 1, 1 };
        return nsc_err(E->r, NSC_ENETLIST, &loc, "netlist has no elements");
    }
    if (resolve_refs(E) || resolve_ic(E) || nle_resolve_save(E) || nle_resolve_ctl(E)
        || nl_meas_resolve(c, E->r))
        return E->r->status;
    nle_lonely_nodes(E);
    ic_without_uic_note(E);
    if (wave_defaults(E)) return E->r->status;
    nsc_devices_bind(c); /* the devices read their cards once */
    return NSC_OK;
}

/* deck -> circuit. The circuit gets copies of the deck's file names and is
 * elaborated from a view of the deck holding them, so that its locations
 * (nsc_loc.file) point into c->files; the deck is not changed (elaboration only
 * reads it) and may be elaborated again. */
static nsc_status from_deck(const nl_deck *d, const nsc_param_set *ov, int nov, nsc_circuit **out,
                            nsc_report *r)
{
    nsc_circuit *c = calloc(1, sizeof *c);
    if (!c || !(c->title = nsc_strdup(d->title ? d->title : ""))
        || !(c->files = calloc((size_t)d->nfiles + 1, sizeof *c->files))) {
        if (c) free(c->title);
        free(c);
        return nsc_oom(r);
    }
    for (; c->nfiles < d->nfiles; c->nfiles++)
        if (!(c->files[c->nfiles] = nsc_strdup(d->files[c->nfiles]))) {
            nsc_circuit_free(c);
            return nsc_oom(r);
        }
    nl_deck view = *d;
    view.files = c->files;
    elab E = { 0 };
    E.d = &view;
    E.r = r;
    E.c = c;
    E.ov = ov;
    E.nov = nov;
    nsc_status st = elaborate(&E);
    elab_free(&E);
    if (st) {
        nsc_circuit_free(c); /* messages are already formatted */
        return st;
    }
    *out = c;
    return NSC_OK;
}

nsc_status nsc_netlist_read(const char *path, const nsc_param_set *ov, int nov, nsc_circuit **out,
                            nsc_report *r)
{
    return nsc_netlist_read_in(path, NULL, ov, nov, out, r);
}

nsc_status nsc_netlist_read_in(const char *path, const nsc_search_path *inc,
                               const nsc_param_set *ov, int nov, nsc_circuit **out, nsc_report *r)
{
    nl_deck d = { 0 };
    *out = NULL;
    nsc_status st = nl_deck_read_file(&d, path, inc, r);
    if (!st) st = from_deck(&d, ov, nov, out, r);
    nl_deck_free(&d);
    return st;
}

nsc_status nsc_deck_read(const char *path, const nsc_search_path *inc, nsc_deck **out,
                         nsc_report *r)
{
    nl_deck *d = calloc(1, sizeof *d);
    *out = NULL;
    if (!d) return nsc_oom(r);
    nsc_status st = nl_deck_read_file(d, path, inc, r);
    if (st) nsc_deck_free(d);
    else *out = d;
    return st;
}

nsc_status nsc_deck_elab(const nsc_deck *d, const nsc_param_set *ov, int nov, nsc_circuit **out,
                         nsc_report *r)
{
    *out = NULL;
    return from_deck(d, ov, nov, out, r);
}

int nsc_deck_files(const nsc_deck *d, char *const **files)
{
    *files = d->files;
    return d->nfiles;
}

void nsc_deck_free(nsc_deck *d)
{
    if (d) nl_deck_free(d);
    free(d);
}

nsc_status nsc_netlist_read_string(const char *text, const char *name, const nsc_param_set *ov,
                                   int nov, nsc_circuit **out, nsc_report *r)
{
    nl_deck d = { 0 };
    *out = NULL;
    nsc_status st = nl_deck_read_string(&d, text, name, NULL, r);
    if (!st) st = from_deck(&d, ov, nov, out, r);
    nl_deck_free(&d);
    return st;
}
