/* nl_expand.c -- devices that expand into primitive elements: the VDMOS
 * model (its capacitances and the model of its body diode) and element
 * (RD RG RS, body diode), a level 1-3 MOS element's RD RS, and the bipolar
 * transistor's RC RB RE.
 *
 * Invariants: internal nodes and elements are named "<element>#<what>"; a
 * user's node of that name is an error; resistances of 0 add nothing. */
#include "nl_elab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The series resistances of MOS element el (model mi) named rn[t] (for the
 * terminals t < nt: d g s) as resistors NAME#rd ... from the terminals to internal
 * nodes NAME#d ..., which become the element's; the body follows the source when
 * it is the source (VDMOS). what: "VDMOS", "MOS" (messages). */
static nsc_status mos_series(elab *E, scope *sc, const nl_card *cd, int el, int mi,
                             const char *const *rn, int nt, const char *what)
{
    static const char *const in[] = { "d", "g", "s" };
    int ext[3];
    for (int t = 0; t < 3; t++) ext[t] = E->c->el[el].node[t];
    for (int t = 0; t < nt; t++) {
        double r = 0;
        if (!rn[t] || !nsc_model_get(&E->c->model[mi], rn[t], &r) || r == 0) continue;
        if (!(r > 0))
            return nle_err(E, sc, cd, NULL, "%s model '%s': %s = %g must be >= 0", what,
                           E->c->model[mi].name, rn[t], r);
        char *name = nsc_asprintf("%s#%s", E->c->el[el].name, in[t]);
        int nd, old;
        nsc_status st =
            !name ? nle_oom(E)
            : nl_hash_get(&E->nodes, name, &old)
                ? nle_err(E, sc, cd, NULL,
                          "node '%s' of the netlist clashes with an internal node of %s %s", name,
                          what, cd->f[0].u.s)
                : nle_node_new(E, name, cd, &cd->f[0], &nd);
        free(name);
        if (st) return st;
        E->c->el[el].node[t] = nd;
        if (t == 2 && E->c->el[el].node[3] == ext[2])
            E->c->el[el].node[3] = nd; /* the body is the source */
        if ((st = nle_parasitic(E, sc, cd, el, rn[t], NSC_EL_R, r, ext[t], nd))) return st;
    }
    return NSC_OK;
}

/* A level 1-3 MOS transistor's (and a JFET's: dev_j.c) RD and RS (SPICE's, ohms) as resistors NAME#rd,
 * NAME#rs to internal nodes NAME#d, NAME#s (the channel's); the body terminal
 * stays where the card puts it. */
nsc_status nle_mos_expand(elab *E, scope *sc, const nl_card *cd, int el)
{
    static const char *const rn[] = { "rd", NULL, "rs" };
    return mos_series(E, sc, cd, el, E->elmodel[el], rn, 3, "MOS");
}

/* A VDMOS card's CJO (its body diode's junction capacitance: most of the
 * output capacitance Coss) as a charge-based capacitor NAME#cjo across the body
 * diode (anode a, cathode k), the depletion charge of VJ (0.8 V), M (0.5), FC
 * (0.5), ngspice 39's defaults; none when CJO is 0. */
static nsc_status vdmos_cjo(elab *E, scope *sc, const nl_card *cd, int el, int mi, int a, int k)
{
    const nsc_model *m = &E->c->model[mi];
    double cjo = 0, vj = 0.8, mj = 0.5, fc = 0.5;
    nsc_model_get(m, "cjo", &cjo);
    nsc_model_get(m, "vj", &vj);
    nsc_model_get(m, "m", &mj);
    nsc_model_get(m, "fc", &fc);
    if (cjo == 0) return NSC_OK;
    if (!(cjo > 0 && vj > 0 && mj > 0 && mj < 1 && fc >= 0 && fc < 1))
        return nle_err(E, sc, cd, NULL,
                       "VDMOS model '%s': need CJO >= 0, VJ > 0, 0 < M < 1, 0 <= FC < 1", m->name);
    nsc_status st = nle_parasitic(E, sc, cd, el, "cjo", NSC_EL_CQ, 0, a, k);
    return st ? st : nle_cq_depletion(E, E->c->nel - 1, cjo, vj, mj, fc);
}

/* A VDMOS card's CGDMIN CGDMAX (0) A (1) (when one is given and CGDO is not)
 * as ngspice's voltage-dependent gate-drain capacitance: a charge-based
 * capacitor NAME#cgd between the channel's gate and drain (its internal nodes;
 * from gate to drain, from drain to gate with PCHAN), devices/depl.h's charge. */
static nsc_status vdmos_cgd(elab *E, scope *sc, const nl_card *cd, int el, int mi)
{
    const nsc_model *m = &E->c->model[mi];
    double cmin = 0, cmax = 0, a = 1, v;
    int given = nsc_model_get(m, "cgdmin", &cmin) | nsc_model_get(m, "cgdmax", &cmax);
    nsc_model_get(m, "a", &a);
    if (!given || nsc_model_get(m, "cgdo", &v)) return NSC_OK;
    if (!(cmin >= 0 && cmax >= 0 && a > 0 && isfinite(cmin + cmax + a)))
        return nle_err(E, sc, cd, NULL, "VDMOS model '%s': need CGDMIN, CGDMAX >= 0 and A > 0",
                       m->name);
    int d = E->c->el[el].node[0], g = E->c->el[el].node[1], pchan = m->type == NSC_MOD_PMOS;
    nsc_status st = nle_parasitic(E, sc, cd, el, "cgd", NSC_EL_CQ, 0, pchan ? d : g, pchan ? g : d);
    return st ? st : nle_cq_vdmos_cgd(E, E->c->nel - 1, cmin, cmax, a);
}

/* A VDMOS transistor (3 terminals, the body at the source): RD, RS, RG of its
 * model as resistors NAME#rd ... to internal nodes NAME#d, NAME#s, NAME#g, and
 * the body diode NAME#body (model MODEL#body) across the external terminals,
 * with its junction capacitance NAME#cjo (vdmos_cjo); its gate-drain
 * capacitance NAME#cgd (vdmos_cgd). */
nsc_status nle_vdmos_expand(elab *E, scope *sc, const nl_card *cd, int el, int mi)
{
    static const char *const rn[] = { "rd", "rg", "rs" };
    int ext[3];
    for (int t = 0; t < 3; t++) ext[t] = E->c->el[el].node[t];
    nsc_status st0 = mos_series(E, sc, cd, el, mi, rn, 3, "VDMOS");
    if (st0) return st0;
    char *bm = nsc_asprintf("%s#body", E->c->model[mi].name);
    int b = -1, dm = -1;
    for (int k = 0; bm && k < E->c->nmodel && dm < 0; k++)
        if (!strcmp(E->c->model[k].name, bm)) dm = k;
    free(bm);
    if (dm < 0) return nle_oom(E);
    int pchan = E->c->model[mi].type == NSC_MOD_PMOS;
    nsc_status st = nle_parasitic(E, sc, cd, el, "body", NSC_EL_D, 0, pchan ? ext[0] : ext[2],
                                  pchan ? ext[2] : ext[0]);
    if (st) return st;
    b = E->c->nel - 1;
    E->elmodel[b] = dm;
    st = vdmos_cjo(E, sc, cd, el, mi, pchan ? ext[0] : ext[2], pchan ? ext[2] : ext[0]);
    return st ? st : vdmos_cgd(E, sc, cd, el, mi);
}

/* A bipolar transistor's RC, RB, RE (divided by AREA, e->value) as resistors
 * NAME#rc ... from the terminals to internal nodes NAME#c ..., which become
 * the element's (dev_q.c's intrinsic transistor). */
nsc_status nle_bjt_expand(elab *E, scope *sc, const nl_card *cd, int el)
{
    static const char *const rn[] = { "rc", "rb", "re" }, *const in[] = { "c", "b", "e" },
                             *const un[] = { "RC", "RB", "RE" };
    const nsc_model *m = &E->c->model[E->elmodel[el]];
    for (int t = 0; t < 3; t++) {
        double r = 0;
        if (!nsc_model_get(m, rn[t], &r) || r == 0) continue;
        if (!(r > 0))
            return nle_err(E, sc, cd, NULL, "bipolar model '%s' of %s: %s = %g must be >= 0",
                           m->name, cd->f[0].u.s, un[t], r);
        char *name = nsc_asprintf("%s#%s", E->c->el[el].name, in[t]);
        int nd, old, ext = E->c->el[el].node[t];
        nsc_status st =
            !name ? nle_oom(E)
            : nl_hash_get(&E->nodes, name, &old)
                ? nle_err(E, sc, cd, NULL,
                          "node '%s' of the netlist clashes with an internal node of %s", name,
                          cd->f[0].u.s)
                : nle_node_new(E, name, cd, &cd->f[0], &nd);
        free(name);
        if (st) return st;
        E->c->el[el].node[t] = nd;
        if ((st = nle_parasitic(E, sc, cd, el, rn[t], NSC_EL_R, r / E->c->el[el].value, ext, nd)))
            return st;
    }
    return NSC_OK;
}

/* A VDMOS card (LTspice's, ngspice's): the channel is the PWL Sah model of VTO
 * and KP (W = L, as the element's default 100 um: K = KP); CGS becomes CGSO per
 * the default width (CGDMIN CGDMAX: the element's NAME#cgd, vdmos_cgd); RD, RS, RG are resistors at the element (vdmos_expand);
 * the body diode is a diode model NAME#body of IS (1e-14), N (1), RS = RB and
 * BV (its avalanche, the diode's Zener branch), source to drain (drain to
 * source with PCHAN). */
nsc_status nle_vdmos_model(elab *E, scope *sc, const nl_card *cd, int mi, const char *local,
                           int *cap)
{
    nsc_circuit *c = E->c;
    double cgs = 0, is = 1e-14, n = 1, rb = 0, w = 100e-6, v;
    nsc_model *m = &c->model[mi];
    if (nsc_model_get(m, "cgs", &cgs) && !nsc_model_get(m, "cgso", &v)
        && nle_model_set(E, m, cap, "cgso", cgs / w))
        return E->r->status;
    nsc_model_get(m, "is", &is);
    nsc_model_get(m, "n", &n);
    nsc_model_get(m, "rb", &rb);
    nsc_model *d = nle_model_new(E, cd);
    if (!d) return nle_oom(E);
    d->name = nsc_asprintf("%s#body", c->model[mi].name);
    d->type = NSC_MOD_D;
    d->loc = c->model[mi].loc;
    c->nmodel++;
    int dcap = 0;
    char *key = nsc_asprintf("%s#body", local);
    nsc_status st = !d->name || !key ? nle_oom(E) : NSC_OK;
    if (!st) st = nle_model_set(E, d, &dcap, "is", is);
    if (!st) st = nle_model_set(E, d, &dcap, "n", n);
    if (!st && rb > 0) st = nle_model_set(E, d, &dcap, "rs", rb);
    double bv; /* the body diode's avalanche: its Zener branch */
    if (!st && nsc_model_get(&c->model[mi], "bv", &bv)) st = nle_model_set(E, d, &dcap, "bv", bv);
    char *lk = key ? nl_strndup(&E->ar, key, strlen(key), 0) : NULL;
    if (!st && (!lk || nl_hash_put(&sc->models, lk, c->nmodel - 1))) st = nle_oom(E);
    free(key);
    return st;
}
