/* nl_util.c -- arena and hash table of the netlist front end (see nl_util.h). */
#include "nl_util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct nl_chunk {
    nl_chunk *next;
    size_t used, cap; /* bytes of data[] in use / available */
    _Alignas(8) unsigned char data[];
};

#define NL_CHUNK 65536

void *nl_alloc(nl_arena *a, size_t n)
{
    n = (n + 7) & ~(size_t)7; /* keep 8-byte alignment */
    nl_chunk *c = a->head;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > NL_CHUNK / 4 ? n : NL_CHUNK; /* big blocks get their own chunk */
        nl_chunk *nc = malloc(sizeof *nc + cap);
        if (!nc) return NULL;
        nc->used = 0;
        nc->cap = cap;
        if (c && cap != NL_CHUNK) { /* keep filling the current chunk */
            nc->next = c->next;
            c->next = nc;
        } else {
            nc->next = c;
            a->head = nc;
        }
        c = nc;
    }
    void *p = c->data + c->used;
    c->used += n;
    memset(p, 0, n);
    return p;
}

char *nl_strndup(nl_arena *a, const char *s, size_t n, int lower)
{
    char *d = nl_alloc(a, n + 1);
    if (!d) return NULL;
    for (size_t k = 0; k < n; k++) d[k] = lower ? (char)tolower((unsigned char)s[k]) : s[k];
    d[n] = 0;
    return d;
}

void nl_arena_free(nl_arena *a)
{
    for (nl_chunk *c = a->head, *nx; c; c = nx) {
        nx = c->next;
        free(c);
    }
    a->head = NULL;
}

static unsigned hash_str(const char *s)
{
    unsigned h = 2166136261u; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* slot of key (hash hk), or the empty slot where it would go (cap > 0) */
static size_t slot(const nl_hash *h, const char *key, unsigned hk)
{
    size_t m = h->cap - 1, i = (hk ^ (hk >> 15)) & m;
    while (h->s[i].key && (h->s[i].hash != hk || strcmp(h->s[i].key, key) != 0)) i = (i + 1) & m;
    return i;
}

int nl_hash_get(const nl_hash *h, const char *key, int *val)
{
    if (!h->cap) return 0;
    size_t i = slot(h, key, hash_str(key));
    if (!h->s[i].key) return 0;
    if (val) *val = h->s[i].val;
    return 1;
}

static int rehash(nl_hash *h, size_t cap)
{
    nl_hash g = { calloc(cap, sizeof *g.s), 0, cap };
    if (!g.s) return -1;
    for (size_t k = 0; k < h->cap; k++)
        if (h->s[k].key) {
            g.s[slot(&g, h->s[k].key, h->s[k].hash)] = h->s[k];
            g.n++;
        }
    nl_hash_free(h);
    *h = g;
    return 0;
}

int nl_hash_put(nl_hash *h, const char *key, int val)
{
    if (2 * (h->n + 1) > h->cap && rehash(h, h->cap ? 2 * h->cap : 16)) return -1; /* load <= 1/2 */
    unsigned hk = hash_str(key);
    size_t i = slot(h, key, hk);
    if (!h->s[i].key) {
        h->s[i].key = key;
        h->s[i].hash = hk;
        h->n++;
    }
    h->s[i].val = val;
    return 0;
}

void nl_hash_free(nl_hash *h)
{
    free(h->s);
    h->s = NULL;
    h->n = h->cap = 0;
}
