/* lcp_lemke_dd.h -- Lemke's method in double-double arithmetic (lcp_lemke.c's
 * fallback; internal to src/solve). */
#ifndef NSC_LCP_LEMKE_DD_H
#define NSC_LCP_LEMKE_DD_H

#include "lcp.h"

/* Lemke's method on LCP(p->M, p->q) with the rules of lcp_lemke.c (covering
 * vector e, z0 entering at the last row of min q, candidates and ties on the
 * tableau's own scales, lexicographic tie-break), the tableau kept in
 * double-double (about 32 digits). On return basis[i] is the basic variable of
 * row i (numbered as in lcp_lemke.c: w_v v < m, z_{v-m}, z0 = 2m) and x[i] its
 * value rounded to double; *iter counts pivots. The caller has checked that
 * min q < 0. Allocates its tableau (2 m (2m+2) doubles): NSC_LCP_ENOMEM. */
nsc_lcp_status nsc_lcp_lemke_dd(const nsc_lcp *p, int *basis, double *x, int *iter);

#endif
