/* opws.c -- the workspace of an operating point, one for the three analyses
 * that solve one (.op: stepper.c nsc_stepper_op; .ac's point: ac.c; each point
 * of .dc: dc.c): the OP LCS of the circuit, its cache of one-step problems and
 * the vectors nsc_op_point reads and writes (stepper_int.h). */
#include "stepper_int.h"

#include <stdlib.h>
#include <string.h>

/* What W holds but its switch states, freed; W then as after a release
 * (releasing twice is harmless: dc.c's dc_release, then nsc_opws_free). */
void nsc_opws_release(nsc_opws *W)
{
    free(W->buf);
    free(W->mode);
    nsc_pcache_free(&W->cache, NULL);
    memset(&W->cache, 0, sizeof W->cache); /* (it read the freed L: a second release, dc.c's) */
    nsc_lcs_free(W->L);
    W->buf = NULL;
    W->mode = NULL;
    W->L = NULL;
}

void nsc_opws_free(nsc_opws *W)
{
    nsc_opws_release(W);
    free(W->sw);
    W->sw = NULL;
}

nsc_status nsc_opws_build(nsc_opws *W, const nsc_circuit *c, double gmin, nsc_report *r)
{
    nsc_opws_release(W);
    nsc_status s = nsc_lcs_assemble(c, NSC_ASM_OP, gmin, &W->L, r);
    if (s) return s;
    const nsc_lcs *L = W->L;
    memset(&W->cache, 0, sizeof W->cache);
    W->cache.L = L;
    W->buf = nsc_calloc((size_t)(2 * L->n + 2 * L->m + L->nsrc) + 1, sizeof *W->buf);
    W->mode = nsc_calloc((size_t)L->m + 1, 1);
    if (!W->sw) W->sw = nsc_calloc((size_t)L->nsw + 1, 1); /* kept across rebuilds */
    if (!W->buf || !W->mode || !W->sw) return nsc_oom(r);
    W->z = W->buf; /* z[n] s[n] l[m] e[m] w[nsrc] */
    W->s = W->z + L->n;
    W->l = W->s + L->n;
    W->e = W->l + L->m;
    W->w = W->e + L->m;
    return NSC_OK;
}

nsc_status nsc_opws_point(nsc_opws *W, const nsc_circuit *c, nsc_solver solver, double gmin,
                          int init, nsc_report *r)
{
    nsc_lcs_sources_dc(W->L, W->w, W->s, W->e); /* the sources at t = 0 */
    return nsc_op_point(c, &W->cache, solver, gmin, init, W->jgmin, W->w, W->s, W->e, W->z, W->l,
                        W->sw, W->mode, r);
}
