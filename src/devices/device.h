/* device.h -- what the devices share beyond their descriptor (lcs/devif.h,
 * which holds the interface and its worked example): the table of devices
 * (devices.c), the reading of model cards through nsc_par tables (bind;
 * params.c), the threshold switches' parameters (S, W; dev_s.c). The curve fits are in pwl_sq.h (the
 * MOS square law) and pwl_exp.h (junctions). */
#ifndef NSC_DEVICE_H
#define NSC_DEVICE_H

#include "circuit/circuit.h"
#include "lcs/devif.h"
#include "lcs/stamp.h"
#include "base/util.h"

/* ---- 0. binding: a model card read once, at elaboration ---- */
/* Every parameter of t[0..n) (n <= 32) into the doubles of dst, the card's
 * setting (the last one wins, as nsc_model_get) or t[k].def. Returns the mask
 * of those m sets (bit k: t[k]); m NULL: none. */
unsigned nsc_par_read(const nsc_model *m, const nsc_par *t, int n, void *dst);
/* 1 when name is in t[0..n) with none of the flags skip (case-insensitive). */
int nsc_par_known(const nsc_par *t, int n, unsigned skip, const char *name);
/* A device's card parser: element e's card checked and read into out (the
 * device's private data); errors in r. */
typedef nsc_status (*nsc_dev_parse)(const nsc_element *e, nsc_report *r, void *out);
/* bind() from a parser: a block of size bytes parse() filled, NULL when it fails
 * (its messages dropped) or no memory. */
void *nsc_bind_parse(const nsc_element *e, size_t size, nsc_dev_parse parse);
/* count() of an element whose bind() gave NULL: parse()'s error once more, or
 * out of memory. */
nsc_status nsc_bind_failed(const nsc_element *e, size_t size, nsc_dev_parse parse, nsc_report *r);
/* Every element's private data (again) from its device's bind(); the devices
 * without keep what their card's parser made (or NULL): called once at the end
 * of elaboration (and after a card of the circuit is changed, by whoever changes
 * it). */
void nsc_devices_bind(nsc_circuit *c);

/* ---- data a card's parser makes (devices without bind()) ----
 * E TABLE (dev_etable.c): its points (x0, y0), (x1, y1), ..., x non-decreasing,
 * at most two at one x, n >= 2 (the netlist stage checks them), one malloc'd
 * block: the element's priv. (A B source's program: bprog.h.) */
typedef struct nsc_etab {
    int n;
    double xy[]; /* [2 n] */
} nsc_etab;

/* ---- switching energies (--losses; analysis/losses.c) ----
 * A model's EON EOFF (joules per turn-on, turn-off) at VREF IREF: the energy of
 * a transition at v, i is EON (v / VREF) (i / IREF), a factor dropped when its
 * reference is 0 (not given). Any device of the table with .swloss may carry them. */
typedef struct nsc_swloss {
    double eon, eoff, vref, iref; /* 0 unless given */
} nsc_swloss;
/* 1 when name (any case) is one of them (a device's check of its card's names). */
int nsc_swloss_param(const char *name);
/* The switching energies of m (NULL: none) through their parameter table into p,
 * checked when EON or EOFF is given (EON, EOFF finite and >= 0; VREF, IREF, if
 * given, finite and > 0): NSC_ENETLIST at the model otherwise. */
nsc_status nsc_swloss_read(const nsc_model *m, nsc_swloss *p, nsc_report *r);

/* ---- threshold switches (dev_s.c; S and W) ----
 * On above T + H, off below T - H (H >= 0); a model giving ON and OFF (Xyce's
 * VSWITCH/ISWITCH, smooth between them there) has T at their mean. */
typedef struct nsc_sw_par {
    double t, h, ron, roff; /* defaults 0, 0, 1, 1e12 */
    double on, off;         /* ON and OFF as the card gives them (0 unless given) */
} nsc_sw_par;
typedef struct nsc_sw_kind {
    nsc_modeltype type;
    const char *model; /* in "switch s1 has no <model> model" */
    const nsc_par
        *par; /* [6]: T H RON ROFF ON OFF ("vt" "vh" "ron" "roff" "von" "voff") into nsc_sw_par */
    const char *hname;   /* H in messages: "VH" */
    const char *known;   /* the parameters read, for the warning about others */
    nsc_dev_parse parse; /* the kind's nsc_sw_params */
} nsc_sw_kind;
#define NSC_SW_NPAR 6
extern const nsc_sw_kind nsc_sw_voltage; /* S: SW(VT VH RON ROFF), VSWITCH(VON VOFF) */
/* The parameters of e's model (of kind k), checked: RON, ROFF finite and > 0, H >= 0. */
nsc_status nsc_sw_params(const nsc_element *e, const nsc_sw_kind *k, nsc_report *r, nsc_sw_par *p);
/* count() of a switch of kind k (S, W): its bound parameters (or the error), one
 * warning when its model has parameters other than k's, the terminals linked
 * (always a finite conductance). */
nsc_status nsc_sw_count(nsc_dev_ctx *ctx, int ei, const nsc_sw_kind *k);

/* ---- the table ---- */

/* The device of an element kind (never NULL for kind < NSC_EL_NKINDS). */
const nsc_device *nsc_device_of(nsc_elkind kind);
/* 1 and *v = SPICE's default of parameter k (lower case) of a model of type t
 * (the model_defs of the device that takes t), else 0. */
int nsc_model_default(nsc_modeltype t, const char *k, double *v);
/* The device whose cards start with letter c (either case); NULL: none. */
const nsc_device *nsc_device_of_letter(int c);

/* ---- after a run ---- */
/* After a run of L: each device's check of its elements (devices.c) from lpk[m],
 * every pair's largest multiplier over the run; warnings into r. */
void nsc_dev_check(const nsc_lcs *L, const nsc_circuit *c, const double *lpk, nsc_report *r);
/* After a run of L (complete 0: one that failed part way): the fits it left
 * remade (each device's refit, devices.c), notes into r; the number of
 * elements refitted (0: nothing changed). */
int nsc_dev_refit(const nsc_lcs *L, const nsc_circuit *c, const double *lpk, int complete,
                  nsc_report *r);
/* 1 when nsc_dev_refit (complete 0) on lpk would remake some fit, 0 when it
 * would not, -1 when an element whose fit follows the run cannot tell (its
 * device has no refit_due); nothing changes. */
int nsc_dev_refit_due(const nsc_lcs *L, const nsc_circuit *c, const double *lpk);
/* dD[j] (m, zeroed by the caller) += each fitted junction's tangent minus chord
 * slope at the operating point's multipliers l (each device's ac_tangent). */
void nsc_dev_ac_tangent(const nsc_lcs *L, const nsc_circuit *c, const double *l, double *dD);
/* mark[j] = 1 (j < m) for the pairs nsc_dev_check and nsc_dev_refit may read
 * (each device's check_pairs, else every pair of an element whose device has a
 * check), 0 for the others; returns their number.
 * A run need only track the peaks of those. */
int nsc_dev_check_pairs(const nsc_lcs *L, const nsc_circuit *c, char *mark);
/* What a run saw of each pair at one solution (l[m], y[m] its slacks), as the
 * peaks lpk that nsc_dev_check and nsc_dev_refit read: lv[j] = l[j], but -y[j]
 * for a pair of a device that reads junction voltages (devif.h vseen) whose
 * l[j] <= 0 and y[j] > NSC_JFIT_YSEEN (pwl_exp.h nsc_jfit_seen). lv may be y. */
void nsc_dev_seen(const nsc_lcs *L, const nsc_circuit *c, const double *l, const double *y,
                  double *lv);

#endif
