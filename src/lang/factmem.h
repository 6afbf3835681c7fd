/*
 * factmem.h - extracted facts kept in memory by blob id, for a graph that
 * moves between trees (replay: the same blob comes back at a later base or
 * in the other worker's graph; repograph_update_file() then decodes its
 * facts instead of parsing it again).
 *
 * Keyed by (blob id, language, size cap): only successful extractions are
 * kept, in factcache.h's entry encoding (the same bytes the on-disk cache
 * round-trips, so a graph fed from here equals one fed by the parser).
 * Bounded: at most max_bytes of encoded facts, the least recently used
 * entries evicted first; an entry larger than the bound is not kept.
 * Thread-safe (one mutex): one factmem may be shared by several
 * repographs on different threads; lookups copy the bytes out.
 */
#ifndef AIRSPACE_LANG_FACTMEM_H
#define AIRSPACE_LANG_FACTMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lang/lang.h"

struct factmem;

struct factmem_stats {
    uint64_t hits, misses, evicted;
    size_t entries, bytes;
};

struct factmem *factmem_new(size_t max_bytes);
void factmem_free(struct factmem *m);

/* A copy of the encoded facts of (oid, lang, cap) into *bytes (malloc'd,
 * the caller frees it) and *len; false on a miss. */
bool factmem_get(struct factmem *m, const uint8_t oid[20], uint8_t lang,
    size_t cap, uint8_t **bytes, size_t *len);

/* Keep f (a successful extraction, references included) for (oid, lang,
 * cap); an existing entry is left as it is. */
void factmem_put(struct factmem *m, const uint8_t oid[20], uint8_t lang,
    size_t cap, const struct lang_facts *f);

void factmem_get_stats(struct factmem *m, struct factmem_stats *st);

#endif
