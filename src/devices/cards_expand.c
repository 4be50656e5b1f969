/* cards_expand.c -- the elements a transistor's card expands into, made by
 * its device's parser through the card view (lcs/card.h): the series
 * resistances of a level 1-3 MOS and a JFET (RD RS), of a VDMOS (RD RG RS),
 * its body diode, junction and gate-drain capacitances, and a bipolar
 * transistor's RC RB RE; and the VDMOS's .model card read into the models
 * those use (dev_m.c's model hook).
 *
 * Invariants: internal nodes and elements are named "<element>#<what>"; a
 * user's node of that name is an error; resistances of 0 add nothing. */
#include "cards.h"
#include "depl.h"
#include "device.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The parameters the expansions read, through their typed tables (nsc_par_read;
 * SPICE's and ngspice 39's defaults): r[3] the series resistances of the
 * terminals d g s (c b e: a BJT's), a VDMOS's charges and its body diode's. */
typedef struct xp_par {
    double r[3], cjo, vj, m, fc, cgdmin, cgdmax, a, cgdo, cgs, cgso, is, n, rb, bv;
} xp_par;

#define XP(name, f, def) \
    { \
        name, offsetof(xp_par, f), def, 0 \
    }
enum { XP_CGDMIN = 7, XP_CGDMAX, XP_A, XP_CGDO, XP_CGS, XP_CGSO, XP_IS, XP_N, XP_RB, XP_BV };
static const nsc_par VDMOS_PAR[] = {
    XP("rd", r[0], 0),       XP("rg", r[1], 0),   XP("rs", r[2], 0),   XP("cjo", cjo, 0),
    XP("vj", vj, 0.8),       XP("m", m, 0.5),     XP("fc", fc, 0.5),   XP("cgdmin", cgdmin, 0),
    XP("cgdmax", cgdmax, 0), XP("a", a, 1),       XP("cgdo", cgdo, 0), XP("cgs", cgs, 0),
    XP("cgso", cgso, 0),     XP("is", is, 1e-14), XP("n", n, 1),       XP("rb", rb, 0),
    XP("bv", bv, 0),
};
static const nsc_par MOS_PAR[] = { XP("rd", r[0], 0), XP("rs", r[2], 0) };
static const nsc_par BJT_PAR[] = { XP("rc", r[0], 0), XP("rb", r[1], 0), XP("re", r[2], 0) };
#define XP_N(t) ((int)(sizeof t / sizeof t[0]))

/* model mi's parameters of table t (n entries) into *p, the mask of those given */
static unsigned xp_read(const nsc_cardview *v, int mi, const nsc_par *t, int n, xp_par *p)
{
    memset(p, 0, sizeof *p);
    return nsc_par_read(&v->c->model[mi], t, n, p);
}

/* *nd = a new node "<name of el>#<t>" (t: "d", "c", ...); an error when the
 * netlist has one of that name (what: "MOS", "VDMOS", NULL: the message names
 * the card's head alone) */
static nsc_status inner_node(const nsc_cardview *v, int el, const char *t, const char *what,
                             int *nd)
{
    char *name = nsc_asprintf("%s#%s", v->c->el[el].name, t);
    nsc_status st =
        !name ? v->op->oom(v)
        : v->op->node_exists(v, name)
            ? nsc_card_err(v, NULL,
                           "node '%s' of the netlist clashes with an internal node of %s%s%s", name,
                           what ? what : "", what ? " " : "", v->f[0].u.s)
            : v->op->node_new(v, name, &v->f[0], nd);
    free(name);
    return st;
}

/* The series resistances rs[t] of MOS element el (model mi; for the terminals
 * t < 3: d g s) as resistors NAME#rd ... from the terminals to internal nodes
 * NAME#d ..., which become the element's; the body follows the source when it
 * is the source (VDMOS). what: "VDMOS", "MOS" (messages). */
static nsc_status mos_series(const nsc_cardview *v, int el, int mi, const double *rs,
                             const char *what)
{
    static const char *const in[] = { "d", "g", "s" }, *const rn[] = { "rd", "rg", "rs" };
    int ext[3];
    for (int t = 0; t < 3; t++) ext[t] = v->c->el[el].node[t];
    for (int t = 0; t < 3; t++) {
        double r = rs[t];
        if (r == 0) continue;
        if (!(r > 0))
            return nsc_card_err(v, NULL, "%s model '%s': %s = %g must be >= 0", what,
                                v->c->model[mi].name, rn[t], r);
        int nd;
        nsc_status st = inner_node(v, el, in[t], what, &nd);
        if (st) return st;
        v->c->el[el].node[t] = nd;
        if (t == 2 && v->c->el[el].node[3] == ext[2])
            v->c->el[el].node[3] = nd; /* the body is the source */
        if ((st = v->op->parasitic(v, el, rn[t], NSC_EL_R, r, ext[t], nd))) return st;
    }
    return NSC_OK;
}

nsc_status nsc_card_expand_rdrs(const nsc_cardview *v, int el)
{
    xp_par p;
    int mi = v->op->model_of(v, el);
    xp_read(v, mi, MOS_PAR, XP_N(MOS_PAR), &p);
    return mos_series(v, el, mi, p.r, "MOS");
}

/* The charge of the capacitor just made (the last element: anode node[0],
 * cathode node[1]): code (devices/depl.h) of its nodes, ground left out. */
static nsc_status last_charge(const nsc_cardview *v, int cgd, double p1, double p2, double p3,
                              double p4)
{
    int el = v->c->nel - 1;
    const nsc_element *e = &v->c->el[el];
    int a = e->node[0] ? 0 : -1, k = e->node[1] ? (e->node[0] ? 1 : 0) : -1;
    nsc_xinstr code[NSC_DEPL_MAXCODE];
    int n = cgd ? nsc_cgd_code(code, a, k, p1, p2, p3) : nsc_depl_code(code, a, k, p1, p2, p3, p4);
    return v->op->charge(v, el, code, n);
}

/* A VDMOS card's CJO (its body diode's junction capacitance: most of the
 * output capacitance Coss) as a charge-based capacitor NAME#cjo across the body
 * diode (anode a, cathode k), the depletion charge of VJ (0.8 V), M (0.5), FC
 * (0.5), ngspice 39's defaults; none when CJO is 0. */
static nsc_status vdmos_cjo(const nsc_cardview *v, int el, const xp_par *p, int mi, int a, int k)
{
    const nsc_model *m = &v->c->model[mi];
    double cjo = p->cjo, vj = p->vj, mj = p->m, fc = p->fc;
    if (cjo == 0) return NSC_OK;
    if (!(cjo > 0 && vj > 0 && mj > 0 && mj < 1 && fc >= 0 && fc < 1))
        return nsc_card_err(v, NULL,
                            "VDMOS model '%s': need CJO >= 0, VJ > 0, 0 < M < 1, 0 <= FC < 1",
                            m->name);
    nsc_status st = v->op->parasitic(v, el, "cjo", NSC_EL_CQ, 0, a, k);
    return st ? st : last_charge(v, 0, cjo, vj, mj, fc);
}

/* A VDMOS card's CGDMIN CGDMAX (0) A (1) (when one is given and CGDO is not)
 * as ngspice's voltage-dependent gate-drain capacitance: a charge-based
 * capacitor NAME#cgd between the channel's gate and drain (its internal nodes;
 * from gate to drain, from drain to gate with PCHAN), devices/depl.h's charge. */
static nsc_status vdmos_cgd(const nsc_cardview *v, int el, const xp_par *p, unsigned given, int mi)
{
    const nsc_model *m = &v->c->model[mi];
    double cmin = p->cgdmin, cmax = p->cgdmax, a = p->a;
    if (!(given & (1u << XP_CGDMIN | 1u << XP_CGDMAX)) || given & 1u << XP_CGDO) return NSC_OK;
    if (!(cmin >= 0 && cmax >= 0 && a > 0 && isfinite(cmin + cmax + a)))
        return nsc_card_err(v, NULL, "VDMOS model '%s': need CGDMIN, CGDMAX >= 0 and A > 0",
                            m->name);
    int d = v->c->el[el].node[0], g = v->c->el[el].node[1], pchan = m->type == NSC_MOD_PMOS;
    nsc_status st = v->op->parasitic(v, el, "cgd", NSC_EL_CQ, 0, pchan ? d : g, pchan ? g : d);
    return st ? st : last_charge(v, 1, cmin, cmax, a, 0);
}

nsc_status nsc_card_expand_vdmos(const nsc_cardview *v, int el, int mi)
{
    xp_par p;
    unsigned given = xp_read(v, mi, VDMOS_PAR, XP_CGS, &p); /* (what the element reads) */
    int ext[3];
    for (int t = 0; t < 3; t++) ext[t] = v->c->el[el].node[t];
    nsc_status st0 = mos_series(v, el, mi, p.r, "VDMOS");
    if (st0) return st0;
    char *bm = nsc_asprintf("%s#body", v->c->model[mi].name);
    int dm = -1;
    for (int k = 0; bm && k < v->c->nmodel && dm < 0; k++)
        if (!strcmp(v->c->model[k].name, bm)) dm = k;
    free(bm);
    if (dm < 0) return v->op->oom(v);
    int pchan = v->c->model[mi].type == NSC_MOD_PMOS;
    nsc_status st = v->op->parasitic(v, el, "body", NSC_EL_D, 0, pchan ? ext[0] : ext[2],
                                     pchan ? ext[2] : ext[0]);
    if (st) return st;
    v->op->model_link(v, v->c->nel - 1, dm);
    st = vdmos_cjo(v, el, &p, mi, pchan ? ext[0] : ext[2], pchan ? ext[2] : ext[0]);
    return st ? st : vdmos_cgd(v, el, &p, given, mi);
}

nsc_status nsc_card_expand_bjt(const nsc_cardview *v, int el)
{
    static const char *const rn[] = { "rc", "rb", "re" }, *const in[] = { "c", "b", "e" },
                             *const un[] = { "RC", "RB", "RE" };
    xp_par p;
    int mi = v->op->model_of(v, el);
    xp_read(v, mi, BJT_PAR, XP_N(BJT_PAR), &p);
    const nsc_model *m = &v->c->model[mi];
    for (int t = 0; t < 3; t++) {
        double r = p.r[t];
        if (r == 0) continue;
        if (!(r > 0))
            return nsc_card_err(v, NULL, "bipolar model '%s' of %s: %s = %g must be >= 0", m->name,
                                v->f[0].u.s, un[t], r);
        int nd, ext = v->c->el[el].node[t];
        nsc_status st = inner_node(v, el, in[t], NULL, &nd);
        if (st) return st;
        v->c->el[el].node[t] = nd;
        if ((st = v->op->parasitic(v, el, rn[t], NSC_EL_R, r / v->c->el[el].value, ext, nd)))
            return st;
    }
    return NSC_OK;
}

nsc_status nsc_card_vdmos_model(const nsc_cardview *v, int mi)
{
    double w = 100e-6; /* the element's default width: CGSO = CGS / W */
    xp_par p;
    unsigned given = xp_read(v, mi, VDMOS_PAR, XP_N(VDMOS_PAR), &p);
    nsc_status st = NSC_OK;
    if (given & 1u << XP_CGS && !(given & 1u << XP_CGSO)
        && (st = v->op->model_set(v, mi, "cgso", p.cgs / w)))
        return st;
    int d; /* the body diode's model; its avalanche BV: the diode's Zener branch */
    if ((st = v->op->model_new(v, mi, "#body", NSC_MOD_D, &d))) return st;
    if (!st) st = v->op->model_set(v, d, "is", p.is);
    if (!st) st = v->op->model_set(v, d, "n", p.n);
    if (!st && p.rb > 0) st = v->op->model_set(v, d, "rs", p.rb);
    if (!st && given & 1u << XP_BV) st = v->op->model_set(v, d, "bv", p.bv);
    return st;
}
