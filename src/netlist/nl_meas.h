/* nl_meas.h -- elaboration of .meas cards (ngspice syntax) into circuit->meas.
 * Internal header of the front end (called by nl_dot.c). */
#ifndef NSC_NL_MEAS_H
#define NSC_NL_MEAS_H

#include "nl_deck.h"

/* Card cd (".meas tran name ...", or ".measure") -> a new measure appended to
 * c->meas (c->nmeas grows by one, the entry is freed by nsc_circuit_free even on
 * error). Numbers (FROM=, TO=, VAL=, TD=, AT=, {expr}) are evaluated with env
 * (the .param scope); names in par('...') / PARAM= expressions that are not
 * .params refer to earlier measures. The quantities read are added to
 * c->meas_probe by name, unresolved: call nl_meas_resolve once every node and
 * element exists. Forms:
 *   AVG|RMS|MIN|MAX|PP|INTEG|MIN_AT|MAX_AT sig [FROM=t1] [TO=t2] [TD=t]
 *   WHEN sig=val|sig2 [RISE=n|FALL=n|CROSS=n|LAST] [TD=t] [FROM=t1] [TO=t2]
 *   TRIG sig VAL=v [RISE|FALL|CROSS=n] [TD=t] | TRIG AT=t   TARG (same)
 *   FIND sig AT=t | FIND sig WHEN sig2=val [...]
 *   PARAM='expression of earlier measures' (also LTspice's PARAM expr; with
 *   comparisons, && || ! and ?:, 1 or 0)
 * where sig is V(n), V(a,b), I(x), par('expr') or {expr}; TRIG/TARG take FROM=
 * TO= too (one window for both). A name may be measured twice (each a measure
 * of its own; a PARAM reads the last of the name, nl_meas_resolve). Errors
 * point at the field. */
nsc_status nl_meas_card(nsc_circuit *c, const nl_deck *d, const nl_card *cd, const nl_env *env,
                        nsc_report *r);
/* An option a form does not take (`extra=3`, VAL= on AVG, a FROM without its
 * value) is not an error: the measure is taken back with a warning into r naming
 * the option (ngspice 39 fails that measure and measures the others). */

/* The last measure of c->meas taken back (freed), and the probes it added after
 * index mark of c->meas_probe. */
void nl_meas_pop(nsc_circuit *c, int mark);

/* The quantity V(a), V(a,b) (b may be NULL) or I(a) as a column the run
 * records (c->meas_probe, added if new, resolved by nl_meas_resolve); its
 * index there in *idx. */
nsc_status nl_meas_column(nsc_circuit *c, nsc_probekind kind, const char *a, const char *b,
                          nsc_loc loc, int *idx, nsc_report *r);

/* The power of element el, v(port) i(el) (its device's port: n+ n-, a MOS's
 * d s), as a program over c->meas_probe (the two columns added there, at loc). */
nsc_status nl_power_sig(nsc_circuit *c, int el, nsc_loc loc, nsc_msig *sig, nsc_report *r);

/* A signal of a .print card (V(), I(), {expr}, par('expr')) as a program over
 * c->meas_probe (the quantities it reads added there), its text in out->text. */
nsc_status nl_meas_signal(nsc_circuit *c, const nl_deck *d, const nl_card *cd, const nl_env *env,
                          const nl_field *f, nsc_msig *out, nsc_report *r);

/* Resolve c->meas_probe (nodes, elements) after elaboration; an unknown name is
 * an error at the field that used it. */
nsc_status nl_meas_resolve(nsc_circuit *c, nsc_report *r);

#endif
