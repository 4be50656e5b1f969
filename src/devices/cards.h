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

/* The parsers of shared forms (nsc_device.parse). */
/* V I: n+ n- [DC] [v] [AC mag [phase]] [PULSE|SIN|EXP|PWL(...)] [Rser=] */
nsc_status nsc_card_source(const nsc_device *d, const nsc_cardview *v);
/* F H: n+ n- vsense gain */
nsc_status nsc_card_ictrl(const nsc_device *d, const nsc_cardview *v);

#endif
