/* lcs_topo.c -- topology checks of a circuit before any assembly (netlist.md,
 * Errors; formulation.md §4). With "conducting" elements R, L, V, E/H/E TABLE
 * outputs, diodes, MOS channels (d-s) and switches:
 *   1. every node has a DC path to ground through conducting elements (capacitors
 *      and current sources I, G, F do not conduct at DC);
 *   2. no loop made of voltage-defining branches (V, E, H, E TABLE) and capacitors
 *      that contains a capacitor and a voltage source (its capacitor voltage would
 *      be an algebraic function of the sources: an index-2 DAE);
 *   3. no cut-set made of inductors and current sources that contains a current
 *      source (its inductor current would be imposed by the sources).
 * Loops of voltage sources alone are reported by the assembler (lcs_asm.c).
 * Everything is union-find over nodes: linear in the size of the circuit. */
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

static int voltage_defining(nsc_elkind k)
{
    return k == NSC_EL_V || k == NSC_EL_E || k == NSC_EL_ETABLE || k == NSC_EL_H;
}

static int current_source(nsc_elkind k)
{
    return k == NSC_EL_I || k == NSC_EL_G || k == NSC_EL_F;
}

/* A capacitor on a path from a to b in the graph of capacitors and of the
 * voltage-defining elements before element `upto` (breadth-first); -1 if none. */
static int capacitor_on_path(const nsc_circuit *c, int upto, int a, int b)
{
    int nn = c->nnode, ne = c->nel;
    int *deg = calloc((size_t)nn + 1, sizeof(int)), *adj = NULL, *prev = NULL, *queue = NULL;
    int found = -1;
    if (!deg) return -1;
    int ned = 0;
    for (int e = 0; e < ne; e++) {
        const nsc_element *x = &c->el[e];
        if (x->kind == NSC_EL_C || (voltage_defining(x->kind) && e < upto)) {
            deg[x->node[0] + 1]++;
            deg[x->node[1] + 1]++;
            ned++;
        }
    }
    for (int k = 0; k < nn; k++) deg[k + 1] += deg[k];          /* CSR row starts */
    adj = malloc(sizeof(int) * (2 * (size_t)ned + 1));
    prev = malloc(sizeof(int) * ((size_t)nn + 1));
    queue = malloc(sizeof(int) * ((size_t)nn + 1));
    int *fill = calloc((size_t)nn + 1, sizeof(int));
    if (!adj || !prev || !queue || !fill) goto out;
    for (int e = 0; e < ne; e++) {
        const nsc_element *x = &c->el[e];
        if (x->kind == NSC_EL_C || (voltage_defining(x->kind) && e < upto)) {
            int p = x->node[0], q = x->node[1];
            adj[deg[p] + fill[p]++] = e;
            adj[deg[q] + fill[q]++] = e;
        }
    }
    for (int k = 0; k < nn; k++) prev[k] = -2;
    int head = 0, tail = 0;
    queue[tail++] = a;
    prev[a] = -1;
    while (head < tail && prev[b] == -2) {
        int v = queue[head++];
        for (int k = deg[v]; k < deg[v + 1]; k++) {
            const nsc_element *x = &c->el[adj[k]];
            int w = x->node[0] == v ? x->node[1] : x->node[0];
            if (prev[w] != -2) continue;
            prev[w] = adj[k];
            queue[tail++] = w;
        }
    }
    for (int v = b; prev[v] >= 0;) {                            /* walk back from b */
        const nsc_element *x = &c->el[prev[v]];
        if (x->kind == NSC_EL_C) found = prev[v];
        v = x->node[0] == v ? x->node[1] : x->node[0];
    }
out:
    free(deg);
    free(adj);
    free(prev);
    free(queue);
    free(fill);
    return found;
}

nsc_status nsc_topology_check(const nsc_circuit *c, nsc_report *r)
{
    int nn = c->nnode, ne = c->nel;
    int *uf = malloc(sizeof(int) * 3 * ((size_t)nn + 1));
    if (!uf) return nsc_err(r, NSC_ENOMEM, NULL, "out of memory");
    int *dc = uf, *other = uf + nn, *vc = uf + 2 * nn;
    for (int k = 0; k < 3 * nn; k++) uf[k] = -1;
    nsc_status st = NSC_OK;

    /* 1. DC paths */
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

    /* 2. loops of voltage sources and capacitors: a voltage-defining branch whose
     * terminals are already joined through capacitors (and earlier such branches),
     * but not through voltage-defining branches alone (the assembler's error) */
    for (int e = 0; e < ne; e++)
        if (c->el[e].kind == NSC_EL_C) nsc_uf_union(vc, c->el[e].node[0], c->el[e].node[1]);
    for (int e = 0; e < ne; e++) {
        const nsc_element *x = &c->el[e];
        if (!voltage_defining(x->kind)) continue;
        int a = x->node[0], b = x->node[1];
        int vloop = nsc_uf_find(other, a) == nsc_uf_find(other, b);            /* other: V-only forest here */
        if (!vloop && nsc_uf_find(vc, a) == nsc_uf_find(vc, b)) {
            int cap = capacitor_on_path(c, e, a, b);
            if (cap >= 0) {
                st = nsc_err(r, NSC_ENETLIST, &c->el[cap].loc,
                             "capacitor %s closes a loop of voltage sources and capacitors (with %s)",
                             c->el[cap].name, x->name);
                goto done;
            }
        }
        nsc_uf_union(other, a, b);
        nsc_uf_union(vc, a, b);
    }

    /* 3. cut-sets of inductors and current sources: a current source whose terminals
     * are not joined by the elements other than inductors and current sources; the
     * boundary of its component holds an inductor (every node has a DC path) */
    for (int k = 0; k < nn; k++) other[k] = -1;
    for (int e = 0; e < ne; e++) {
        const nsc_element *x = &c->el[e];
        int a, b;
        if (x->kind == NSC_EL_L || current_source(x->kind)) continue;
        if (x->kind == NSC_EL_C) nsc_uf_union(other, x->node[0], x->node[1]);
        else if (conducting(x, &a, &b)) nsc_uf_union(other, a, b);
    }
    for (int e = 0; e < ne; e++) {
        const nsc_element *x = &c->el[e];
        if (!current_source(x->kind)) continue;
        int X = nsc_uf_find(other, x->node[0]);
        if (X == nsc_uf_find(other, x->node[1])) continue;
        for (int l = 0; l < ne; l++) {
            const nsc_element *y = &c->el[l];
            if (y->kind != NSC_EL_L) continue;
            if ((nsc_uf_find(other, y->node[0]) == X) != (nsc_uf_find(other, y->node[1]) == X)) {
                st = nsc_err(r, NSC_ENETLIST, &y->loc,
                             "inductor %s is in a cut-set of inductors and current sources (with %s)",
                             y->name, x->name);
                goto done;
            }
        }
    }
done:
    free(uf);
    return st;
}
