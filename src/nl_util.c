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
    n = (n + 7) & ~(size_t)7;                          /* keep 8-byte alignment */
    nl_chunk *c = a->head;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > NL_CHUNK / 4 ? n : NL_CHUNK;  /* big blocks get their own chunk */
        nl_chunk *nc = malloc(sizeof *nc + cap);
        if (!nc) return NULL;
        nc->used = 0;
        nc->cap = cap;
        if (c && cap != NL_CHUNK) {                    /* keep filling the current chunk */
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

static size_t hash_str(const char *s)
{
    size_t h = 2166136261u;                            /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* slot of key, or of the empty slot where it would go (cap > 0) */
static size_t slot(const nl_hash *h, const char *key)
{
    size_t m = h->cap - 1, i = hash_str(key) & m;
    while (h->key[i] && strcmp(h->key[i], key) != 0) i = (i + 1) & m;
    return i;
}

int nl_hash_get(const nl_hash *h, const char *key, int *val)
{
    if (!h->cap) return 0;
    size_t i = slot(h, key);
    if (!h->key[i]) return 0;
    if (val) *val = h->val[i];
    return 1;
}

static int rehash(nl_hash *h, size_t cap)
{
    nl_hash g = { calloc(cap, sizeof *g.key), calloc(cap, sizeof *g.val), 0, cap };
    if (!g.key || !g.val) {
        free(g.key);
        free(g.val);
        return -1;
    }
    for (size_t k = 0; k < h->cap; k++)
        if (h->key[k]) {
            size_t i = slot(&g, h->key[k]);
            g.key[i] = h->key[k];
            g.val[i] = h->val[k];
            g.n++;
        }
    nl_hash_free(h);
    *h = g;
    return 0;
}

int nl_hash_put(nl_hash *h, const char *key, int val)
{
    if (2 * (h->n + 1) > h->cap && rehash(h, h->cap ? 2 * h->cap : 16)) return -1; /* load <= 1/2 */
    size_t i = slot(h, key);
    if (!h->key[i]) {
        h->key[i] = key;
        h->n++;
    }
    h->val[i] = val;
    return 0;
}

void nl_hash_free(nl_hash *h)
{
    free(h->key);
    free(h->val);
    h->key = NULL;
    h->val = NULL;
    h->n = h->cap = 0;
}
