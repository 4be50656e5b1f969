/* out_sweep.h -- writer of the picture of a parameter study (the table is
 * sweep.h's: the analysis stage hands it to this stage as plain data). */
#ifndef NSC_OUT_SWEEP_H
#define NSC_OUT_SWEEP_H

#include "analysis/sweep.h"

/* gnuplot script of a table (datpath written by nsc_sweep_write): one panel per
 * measure against the first parameter, one curve per combination of the other
 * parameters (blocks of consecutive rows where they are constant), a log axis
 * when the first parameter's values are geometric; renders pngpath.
 * unit[npar + nmeas] (NULL: none known but the steady study's columns
 * "efficiency" "1" and "losses" W) labels the axes: a column of a known unit is
 * scaled to an SI prefix ("lval (µH)"), a dimensionless one named eff... or eta
 * is drawn in %, one of unknown unit far from 1 is scaled by 10^3k ("(×1e-6)").
 * Tick steps are 1, 2, 5 x 10^k with labels precise enough to differ. */
nsc_status nsc_sweep_write_gp(const nsc_sweep_table *T, const char *const *unit, const char *datpath,
                              const char *gppath, const char *pngpath, nsc_report *r);

#endif
