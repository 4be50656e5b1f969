/* lcs_topo.c -- topology check of a circuit before any assembly (netlist.md,
 * Errors; formulation.md §4). Every node has a DC path to ground through the
 * terminal pairs that conduct at DC (nsc_device dc: R, L, V, E/H/E TABLE/B V=
 * outputs, diodes, MOS channels d-s, bipolar junctions b-e and b-c, switches S
 * and W; capacitors and current sources I, G, F, B I= do not conduct at DC):
 * a cut-set of current sources alone is such a node. The device table
 * (devif.h, as the circuit was bound) says which element is which; this file names no kind.
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
#include "devif.h"

/* Terminal pairs (a[k], b[k]) through which element e conducts at DC (its
 * device's dc pairs): their number (0, 1, or 2 for a bipolar transistor). */
static int conducting(const nsc_circuit *c, const nsc_element *e, int a[2], int b[2])
{
    const nsc_device *d = nsc_devif_of(c, e->kind);
    if (!d) return 0; /* the assembler reports the kind */
    for (int k = 0; k < d->ndc; k++) {
        a[k] = e->node[d->dc[k].a];
        b[k] = e->node[d->dc[k].b];
    }
    return d->ndc;
}

static nsc_topo topo_of(const nsc_circuit *c, nsc_elkind k)
{
    const nsc_device *d = nsc_devif_of(c, k);
    return d ? d->topo : NSC_TOPO_OTHER;
}

nsc_status nsc_topology_check(const nsc_circuit *c, nsc_report *r)
{
    int nn = c->nnode, ne = c->nel;
    int *uf = malloc(sizeof(int) * ((size_t)nn + 1));
    if (!uf) return nsc_oom(r);
    int *dc = uf;
    for (int k = 0; k < nn; k++) uf[k] = -1;
    nsc_status st = NSC_OK;

    /* DC paths */
    for (int e = 0; e < ne; e++) {
        int a[2], b[2];
        for (int k = conducting(c, &c->el[e], a, b) - 1; k >= 0; k--) nsc_uf_union(dc, a[k], b[k]);
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

static int voltage_defining(const nsc_circuit *c, nsc_elkind k)
{
    return topo_of(c, k) == NSC_TOPO_VDEF;
}

static int current_source(const nsc_circuit *c, nsc_elkind k)
{
    return topo_of(c, k) == NSC_TOPO_ISRC;
}

/* Union-find as in the check. A voltage-defining branch whose terminals the
 * capacitors and the earlier such branches join, but not those branches alone
 * (a loop of sources only: the assembler's error), closes a loop through a
 * capacitor. A current source whose terminals the elements other than inductors
 * and current sources do not join is in a cut-set of inductors and current
 * sources; with a DC path at every node, the cut-set holds an inductor. */
nsc_status nsc_topology_index2(const nsc_circuit *c, int *out, nsc_report *r)
{
    int nn = c->nnode, ne = c->nel, found = 0;
    int *uf = malloc(sizeof(int) * 2 * ((size_t)nn + 1));
    *out = 0;
    if (!uf) return nsc_oom(r);
    int *vonly = uf, *vc = uf + nn;
    for (int k = 0; k < 2 * nn; k++) uf[k] = -1;
    for (int e = 0; e < ne; e++)
        if (topo_of(c, c->el[e].kind) == NSC_TOPO_CAP)
            nsc_uf_union(vc, c->el[e].node[0], c->el[e].node[1]);
    for (int e = 0; e < ne && !found; e++) {
        const nsc_element *x = &c->el[e];
        if (!voltage_defining(c, x->kind)) continue;
        int a = x->node[0], b = x->node[1];
        found = nsc_uf_find(vonly, a) != nsc_uf_find(vonly, b)
                && nsc_uf_find(vc, a) == nsc_uf_find(vc, b);
        nsc_uf_union(vonly, a, b);
        nsc_uf_union(vc, a, b);
    }
    int *other = vonly; /* reused */
    for (int k = 0; k < nn; k++) other[k] = -1;
    for (int e = 0; e < ne && !found; e++) {
        const nsc_element *x = &c->el[e];
        int a[2], b[2];
        if (topo_of(c, x->kind) == NSC_TOPO_IND || current_source(c, x->kind)) continue;
        if (topo_of(c, x->kind) == NSC_TOPO_CAP) nsc_uf_union(other, x->node[0], x->node[1]);
        else
            for (int k = conducting(c, x, a, b) - 1; k >= 0; k--) nsc_uf_union(other, a[k], b[k]);
    }
    for (int e = 0; e < ne && !found; e++) {
        const nsc_element *x = &c->el[e];
        found = current_source(c, x->kind)
                && nsc_uf_find(other, x->node[0]) != nsc_uf_find(other, x->node[1]);
    }
    free(uf);
    *out = found;
    return NSC_OK;
}
