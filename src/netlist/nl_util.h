/* nl_util.h -- arena allocation and string-keyed hash tables for the netlist
 * front end (nl_*.c). Internal header. */
#ifndef NSC_NL_UTIL_H
#define NSC_NL_UTIL_H

#include <stddef.h>

/* Bump allocator: every block lives until nl_arena_free. Zero-initialise with {0}. */
typedef struct nl_chunk nl_chunk;
typedef struct nl_arena {
    nl_chunk *head; /* newest chunk first */
} nl_arena;

/* n zeroed bytes, 8-byte aligned; NULL on allocation failure. */
void *nl_alloc(nl_arena *a, size_t n);
/* Copy of s[0..n) plus a terminating 0 (lower case when lower != 0); NULL on failure. */
char *nl_strndup(nl_arena *a, const char *s, size_t n, int lower);
void nl_arena_free(nl_arena *a);

/* Open-addressing hash table: key (a 0-terminated string NOT owned by the table,
 * it must outlive it) -> int. Zero-initialise with {0}. */
typedef struct nl_slot {
    const char *key; /* NULL = empty slot */
    unsigned hash;   /* hash of key (compared before the strings) */
    int val;
} nl_slot;
typedef struct nl_hash {
    nl_slot *s;    /* [cap] */
    size_t n, cap; /* used slots, capacity (power of 2 or 0) */
} nl_hash;

/* 1 and *val set when key is present, else 0. */
int nl_hash_get(const nl_hash *h, const char *key, int *val);
/* Insert or replace key -> val. 0 on success, -1 on allocation failure. */
int nl_hash_put(nl_hash *h, const char *key, int val);
void nl_hash_free(nl_hash *h);

#endif
