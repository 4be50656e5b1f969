/* onestep_map.h -- internal: affine maps of the modes of small problems
 * (onestep.h, "Small problems"). Used by onestep.c only. */
#ifndef NSC_ONESTEP_MAP_H
#define NSC_ONESTEP_MAP_H

#include "onestep_mode.h"

/* P->map for a transient problem (h > 0) whose maps fit NSC_MAP_MAX, else NULL.
 * 0 ok, -1 ENOMEM. */
int nsc_map_setup(nsc_onestep *P);
void nsc_map_free(nsc_map *Q);
/* Solves of a mode before its map is built: max(NSC_MAP_HITS, columns of G). */
int nsc_map_hits(const nsc_map *Q);
/* M->G for mode M (nonsingular, P->map set), right after M solved the step
 * z0, w0, w1 -> z1 by the sparse path (P->st.x holds that solution): ncol solves,
 * then the cancellation test on those inputs (onestep.h); a map that fails it
 * is dropped and M->nomap set. 0 ok (or nothing to do), -1 ENOMEM. */
int nsc_map_build(nsc_onestep *P, nsc_mode *M, const double *z0, const double *w0, const double *w1,
                  const double *z1);
/* Column g[n + m] of M's affine map for the input kind 0 z0_k, 1 w0_k, 2 w1_k,
 * 3 the constant (onestep_map.c; ed: [m] work); P->pat.posn must index M's active N pairs. 0 or
 * -1 (solve failed). */
int nsc_map_column(nsc_onestep *P, nsc_mode *M, int kind, int k, double *g, double *ed);
/* The step in mode M by its map: 1 when the mode check holds (z1[n], l[m], *res
 * as nsc_mode_try), 0 when it does not (l overwritten; nothing else changed). */
int nsc_map_try(nsc_onestep *P, nsc_mode *M, const double *z0, const double *w0, const double *w1,
                double *z1, double *l, double *res);

#endif
