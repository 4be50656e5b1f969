/* dev_k.c -- mutual coupling K L1 L2 k: M = k sqrt(L1 L2) between the two inductor
 * rows, E[i1][i2] += M, E[i2][i1] += M (dots on the n+ nodes). Nothing in the
 * static modes (E is dropped there). */
#include <ctype.h>
#include <math.h>

#include "cards.h"
#include "device.h"

static nsc_status k_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_circuit *c = ctx->c;
    const nsc_element *e = &c->el[ei];
    for (int q = 0; q < 2; q++)
        if (e->ref[q] < 0 || e->ref[q] >= c->nel || c->el[e->ref[q]].kind != NSC_EL_L)
            return nsc_err(ctx->r, NSC_ENETLIST, &e->loc, "coupling %s must name two inductors",
                           e->name);
    if (!(e->value > 0 && e->value <= 1))
        return nsc_err(ctx->r, NSC_ENETLIST, &e->loc, "coupling %s: k = %g is not in (0, 1]",
                       e->name, e->value);
    if (e->ref[0] == e->ref[1])
        return nsc_err(ctx->r, NSC_ENETLIST, &e->loc, "coupling %s couples inductor %s with itself",
                       e->name, c->el[e->ref[0]].name);
    return NSC_OK;
}

static nsc_status k_stamp(nsc_builder *b, int ei, const nsc_dev_slots *s)
{
    const nsc_element *e = &b->c->el[ei];
    const nsc_element *l1 = &b->c->el[e->ref[0]], *l2 = &b->c->el[e->ref[1]];
    double M = e->value * sqrt(l1->value * l2->value); /* M = k sqrt(L1 L2) */
    int i1 = b->el_branch[e->ref[0]], i2 = b->el_branch[e->ref[1]];
    nsc_st(b, NSC_ST_E, i1, i2, M);
    nsc_st(b, NSC_ST_E, i2, i1, M);
    return NSC_OK;
}

/* K L1 L2 k: ref[0], ref[1] the inductors (resolved after every card), value k in (0, 1] */
static nsc_status k_parse(const nsc_device *d, const nsc_cardview *v)
{
    const nsc_cfield *f = v->f;
    int el;
    nsc_status st = v->op->element(v, d->kind, &el);
    if (st) return st;
    if (v->nf < 4)
        return nsc_card_err(v, NULL, "coupling %s needs two inductors and a coefficient", f[0].u.s);
    if (v->nf > 4) {
        if (f[3].kind == NSC_CF_WORD && tolower((unsigned char)f[3].u.s[0]) == 'l')
            return nsc_card_err(v, &f[3], "coupling %s: more than two inductors are not supported",
                                f[0].u.s);
        return nsc_card_err(v, &f[4], "unexpected '%s' in coupling %s", nsc_card_text(&f[4]),
                            f[0].u.s);
    }
    double kc;
    if ((st = v->op->ref(v, &f[1], el, 0)) || (st = v->op->ref(v, &f[2], el, 1))
        || (st = v->op->value(v, &f[3], &kc)))
        return st;
    if (!(kc > 0 && kc <= 1))
        return nsc_card_err(v, &f[3], "coupling coefficient %g of %s is not in (0, 1]", kc,
                            f[0].u.s);
    v->c->el[el].value = kc;
    return NSC_OK;
}

const nsc_device nsc_dev_k = {
    .kind = NSC_EL_K,
    .what = "mutual couplings",
    .name = "coupling",
    .letter = 'k',
    .card = NSC_CARD_OWN,
    .parse = k_parse,
    .count = k_count,
    .stamp = k_stamp,
    .pclass = NSC_PC_CONTROLLED,
    .value_unit = "1",
};
