/* lcs_topo.c -- topology check of a circuit before any assembly (netlist.md,
 * Errors; formulation.md §4). With "conducting" elements R, L, V, E/H/E TABLE
 * outputs, diodes, MOS channels (d-s) and switches, every node has a DC path to
 * ground through conducting elements (capacitors and current sources I, G, F do
 * not conduct at DC): a cut-set of current sources alone is such a node.
 *
 * Loops of capacitors with voltage sources and cut-sets of inductors with
 * current sources are allowed (netlist.md, Errors): the theta-scheme gives the
 * capacitor current whose voltage the sources fix as the discrete derivative, as
 * SPICE does (an index-2 quantity: adaptive stepping restarts with implicit Euler
 * steps, so it does not ring). At the operating point such a capacitor is not
 * imposed (dev_c.c) and such an inductor takes its IC= (dev_l.c). Loops of
 * voltage sources alone are reported by the assembler (lcs_asm.c).
 * Union-find over nodes: linear in the size of the circuit. */
#include <stdlib.h>
#include <string.h>

#include "lcs.h"

/* Terminal pair through which element e conducts at DC, or 0 if none. */
static int conducting(const nsc_element *e, int *a, int *b)
{
    switch (e->kind) {
    case NSC_EL_R: case NSC_EL_L: case NSC_EL_V: case NSC_EL_E: case NSC_EL_ETABLE:
    case NSC_EL_H: case NSC_EL_D: case NSC_EL_S:
        *a = e->node[0]; *b = e->node[1]; return 1;
    case NSC_EL_M:
        *a = e->node[0]; *b = e->node[2]; return 1;                /* drain - source */
    default:
        return 0;
    }
}

nsc_status nsc_topology_check(const nsc_circuit *c, nsc_report *r)
{
    int nn = c->nnode, ne = c->nel;
    int *uf = malloc(sizeof(int) * ((size_t)nn + 1));
    if (!uf) return nsc_err(r, NSC_ENOMEM, NULL, "out of memory");
    int *dc = uf;
    for (int k = 0; k < nn; k++) uf[k] = -1;
    nsc_status st = NSC_OK;

    /* DC paths */
    for (int e = 0; e < ne; e++) {
        int a, b;
        if (conducting(&c->el[e], &a, &b)) nsc_uf_union(dc, a, b);
    }
    for (int k = 1; k < nn; k++)
        if (nsc_uf_find(dc, k) != nsc_uf_find(dc, 0)) {
            st = nsc_err(r, NSC_ENETLIST, &c->node_loc[k], "node '%s' has no DC path to ground",
                         c->node_name[k]);
            goto done;
        }

done:
    free(uf);
    return st;
}
