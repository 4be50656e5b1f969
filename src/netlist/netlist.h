/* netlist.h -- the netlist front end: text -> nsc_circuit.
 *
 * Pipeline inside: nl_lex.l (tokens) -> nl_parse.y (cards, expressions)
 * -> nl_deck.c (files, .include/.lib, cards as plain data)
 * -> nl_elab.c (.param, .subckt/X expansion, .model, values) -> circuit.h;
 * the elaboration's files and what they share: nl_elab.h. */
#ifndef NSC_NETLIST_H
#define NSC_NETLIST_H

#include "circuit/circuit.h"

/* --param NAME=VALUE overrides: replace the value of a top-level .param. */
typedef struct nsc_param_set {
    const char *name;
    double value;
} nsc_param_set;

/* Read, parse and elaborate the netlist file at path. On success *out is a new
 * circuit (free with nsc_circuit_free) and NSC_OK is returned; on failure
 * *out = NULL, r holds "file:line:col: error: ..." and NSC_ENETLIST (or NSC_EIO
 * when the file cannot be read, NSC_ENOMEM) is returned. Warnings go to r. */
nsc_status nsc_netlist_read(const char *path, const nsc_param_set *ov, int nov, nsc_circuit **out,
                            nsc_report *r);

/* Directories searched for a .include/.lib file not found relative to the
 * including file, in order (plain data built by the caller: -I, the
 * environment, the installed models directory). */
typedef struct nsc_search_path {
    const char *const *dir;
    int ndir;
} nsc_search_path;

/* nsc_netlist_read with a search path for includes (inc may be NULL). */
nsc_status nsc_netlist_read_in(const char *path, const nsc_search_path *inc,
                               const nsc_param_set *ov, int nov, nsc_circuit **out, nsc_report *r);

/* A netlist read but not elaborated (nl_deck.h: its files, .include/.lib
 * followed, and cards), so that one read serves several elaborations: the
 * points of a parameter study elaborate the deck the study read, whatever
 * becomes of the files afterwards. */
typedef struct nl_deck nsc_deck;

/* *out = the deck of the netlist file at path (new: nsc_deck_free), includes
 * looked for as nsc_netlist_read_in does; errors as nsc_netlist_read_in's. */
nsc_status nsc_deck_read(const char *path, const nsc_search_path *inc, nsc_deck **out,
                         nsc_report *r);
/* Elaborate d with the overrides (d is left as it was, so it can be elaborated
 * again): as nsc_netlist_read_in after the reading. */
nsc_status nsc_deck_elab(const nsc_deck *d, const nsc_param_set *ov, int nov, nsc_circuit **out,
                         nsc_report *r);
void nsc_deck_free(nsc_deck *d);
/* --save's P(name) on an elaborated circuit (what `.save p(name)` makes): the
 * power v(port) i(name) as a derived output column (circuit.h xcol) after the
 * first pos outputs, its two quantities recorded (c->meas_probe). NSC_EUSAGE
 * when no two-terminal element is so named or its device has no P(). */
nsc_status nsc_power_output(nsc_circuit *c, const char *name, int pos, nsc_report *r);
/* The files d was read from, the netlist first, then each .include/.lib as
 * opened (paths as found, e.g. through -I): *files = [count], owned by d. */
int nsc_deck_files(const nsc_deck *d, char *const **files);

/* Same, from a string (tests, tools); name is used in messages, and relative
 * .include paths resolve against the current directory. */
nsc_status nsc_netlist_read_string(const char *text, const char *name, const nsc_param_set *ov,
                                   int nov, nsc_circuit **out, nsc_report *r);

/* Parse a SPICE number with scale suffix and trailing units ("10uF", "1k", "2.5meg",
 * "1e-3", "3mil"). Returns 1 and sets *v on success, 0 if text is not a number. */
int nsc_parse_number(const char *text, double *v);

#endif
