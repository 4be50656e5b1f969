/* out_sweep.h -- the table of a parameter study and the writer of its picture
 * (the study, analysis/sweep.h, fills the table and hands it to this stage as
 * plain data). */
#ifndef NSC_OUT_SWEEP_H
#define NSC_OUT_SWEEP_H

#include "base/util.h"

/* One row per point: the npar swept parameters, the nmeas measures, the point's
 * status (nsc_exit_status of its run: 0 ok, 1 netlist error, 3 failure) and its
 * index. File (.dat):
 *     # l1 ripple vavg status point
 *     # nscircuit sweep: points=16 parameters=1 measures=2 [shard=2/4] [study=HEX] netlist=buck.cir
 *     [# interrupted: 5 of the 16 points of this run finished]
 *     5.000000000000e-06 1.187000000000e-01 1.800000000000e+00 0 0
 * values %.12e, a failed measure "nan". CSV: header "l1,ripple,...,point", rows. */
typedef struct nsc_sweep_table {
    int npar, nmeas;
    char **name;          /* [npar + nmeas] */
    char *netlist;        /* base name of the netlist */
    long npoint;          /* points of the whole study */
    int shard_k, shard_n; /* 1/1: the whole study */
    char study[17];       /* the study's identity (nsc_study_id), 16 hex digits; "" unknown */
    long
        partial; /* > 0: the run was interrupted; the points it was to run (rows: those finished) */
    long nrow, caprow;
    double *v;   /* [nrow * (npar + nmeas)] row-major */
    int *status; /* [nrow] */
    long *point; /* [nrow] */
} nsc_sweep_table;

/* gnuplot script of a table (datpath written by nsc_sweep_write): one panel per
 * measure against the first parameter, one curve per combination of the other
 * parameters (blocks of consecutive rows where they are constant), a log axis
 * when the first parameter's values are geometric; renders pngpath.
 * unit[npar + nmeas] (NULL: none known but the steady study's columns
 * "efficiency" "1" and "losses" W) labels the axes: a column of a known unit is
 * scaled to an SI prefix ("lval (µH)"), a dimensionless one named eff... or eta
 * is drawn in %, one of unknown unit far from 1 is scaled by 10^3k ("(×1e-6)").
 * Tick steps are 1, 2, 5 x 10^k with labels precise enough to differ. */
nsc_status nsc_sweep_write_gp(const nsc_sweep_table *T, const char *const *unit,
                              const char *datpath, const char *gppath, const char *pngpath,
                              nsc_report *r);

#endif
