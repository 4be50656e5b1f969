/* cards.h -- reading element cards through the card view (lcs/card.h): the
 * view's helpers and the parsers of the card forms several devices share
 * (devices/cards.c). A device whose card is its own has its parser in its file
 * (dev_k.c, dev_q.c). Internal header. */
#ifndef NSC_CARDS_H
#define NSC_CARDS_H

#include "lcs/devif.h"

/* v->op->verr / vwarn with a format. */
nsc_status nsc_card_err(const nsc_cardview *v, const nsc_cfield *f, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void nsc_card_warn(const nsc_cardview *v, const nsc_cfield *f, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Text of field f for messages ("{...}" for an expression, "(...)" a group). */
const char *nsc_card_text(const nsc_cfield *f);
/* 1 when f is the word w (case aside). */
int nsc_card_is_word(const nsc_cfield *f, const char *w);
/* The key of PAIR field f in lower case, copied into k[cap]; NULL if f is not a
 * PAIR or its key is not a word. */
const char *nsc_card_key(const nsc_cfield *f, char *k, size_t cap);
/* *x = the value of LTspice's parasitic pair f (key kk: rser, rpar, cpar) of the
 * card: Rser >= 0, Rpar > 0, Cpar >= 0. */
nsc_status nsc_card_parasitic(const nsc_cardview *v, const nsc_cfield *f, const char *kk,
                              double *x);
/* *m = the value of m=x (pair f), the number of devices in parallel: > 0, finite. */
nsc_status nsc_card_mult(const nsc_cardview *v, const nsc_cfield *f, double *m);

/* The index of instance parameter kk (lower case) in d's table (d->inst), -1 if none. */
int nsc_card_inst_par(const nsc_device *d, const char *kk);

/* The parsers of shared forms (nsc_device.parse). The variants of a card the
 * netlist stage builds itself (NSC_CARDOPT_TIMESW, _CHARGE) never reach them. */
/* V I: n+ n- [DC] [v] [AC mag [phase]] [PULSE|SIN|EXP|PWL(...)] [Rser=] */
nsc_status nsc_card_source(const nsc_device *d, const nsc_cardview *v);
/* R C L: n+ n- value [IC=v] [m=x] [name=value ...]; L C also Rser= Rpar= Cpar=
 * (m in parallel: the value and the parasitics scaled; IC= is the total current
 * or the voltage); R's model before or after the value (NSC_CARDOPT_RMODEL) */
nsc_status nsc_card_value(const nsc_device *d, const nsc_cardview *v);
/* D: a k model [area] [off] [m=] [...]; M: d g s b model [W= L= m= ...] (a VDMOS
 * d g s [x] model, bins); J; S: n+ n- nc+ nc- model [on|off]; W: n+ n- vsense
 * model [on|off]: the shape of d's card_nodes, card_sense, card_state, inst */
nsc_status nsc_card_model(const nsc_device *d, const nsc_cardview *v);
/* F H: n+ n- vsense gain */
nsc_status nsc_card_ictrl(const nsc_device *d, const nsc_cardview *v);

/* The forms whose fields are expressions (devices/cards_expr.c). */
/* E G: n+ n- nc+ nc- gain | n+ n- VALUE={expr} (vol= cur=) | n+ n- POLY(n) nodes
 * coefficients | E: n+ n- TABLE {V(a[,b])} = points; VALUE= and POLY make a
 * behavioural source (d->card_expr), TABLE an E TABLE (d->card_table) */
nsc_status nsc_card_vctrl(const nsc_device *d, const nsc_cardview *v);
/* B: n+ n- V=expr (d->kind) | I=expr (d->card_expr) */
nsc_status nsc_card_behav(const nsc_device *d, const nsc_cardview *v);
/* S: Xyce's generic switch n+ n- model [ON|OFF] CONTROL={expr} (field xf; the
 * variant NSC_CARDOPT_CONTROL of nsc_card_model's card) */
nsc_status nsc_card_control(const nsc_device *d, const nsc_cardview *v, const nsc_cfield *xf);
/* Element el's program (its priv, devices/bprog.h): the expression field x
 * compiled (op->compile; a V-type source that reads its own output with gain 1
 * is compiled once more in the mirrored forms, then refused); the card's fields
 * from `from` on are ignored with a warning. */
nsc_status nsc_card_program(const nsc_cardview *v, const nsc_cfield *x, int el, int from);

/* The elements a transistor's card expands into (devices/cards_expand.c):
 * element el's RD RS (model_of(el)'s; a level 1-3 MOS, a JFET) as resistors
 * NAME#rd NAME#rs to internal nodes NAME#d NAME#s, which become its own; */
nsc_status nsc_card_expand_rdrs(const nsc_cardview *v, int el);
/* a VDMOS of model mi: RD RG RS the same way, its body diode NAME#body (model
 * "<mi's name>#body") across the external terminals, with its CJO NAME#cjo,
 * and its gate-drain charge NAME#cgd (CGDMIN CGDMAX A); */
nsc_status nsc_card_expand_vdmos(const nsc_cardview *v, int el, int mi);
/* a bipolar transistor's RC RB RE, divided by its area (el's value). */
nsc_status nsc_card_expand_bjt(const nsc_cardview *v, int el);
/* The models a VDMOS's .model card (v, model mi) derives: CGSO of CGS, the body
 * diode's "<name>#body" of IS N RB BV (dev_m.c's model_read). */
nsc_status nsc_card_vdmos_model(const nsc_cardview *v, int mi);

/* The A card (XSPICE code models, devices/cards_xspice.c): A ports.. model, its
 * parts by the model's type: the gates and bridges of d (dev_a.c), flip-flops
 * and latches (dev_aff.c), aswitch (an S), zener (a D), limit (an E TABLE),
 * lcouple (a winding, dev_lcouple.c), core (an E TABLE and a G, its .model card
 * read from its raw text). */
nsc_status nsc_card_xspice(const nsc_device *d, const nsc_cardview *v);

#endif
