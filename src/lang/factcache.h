/*
 * factcache.h - the on-disk cache of extracted facts, keyed by blob id.
 *
 * File layout (all integers little-endian):
 *   header  "ASFACTS\0" | u32 format | u32 LANG_EXTRACT_VERSION |
 *           u32 entries | u64 payload bytes | u64 FNV-1a-64 of the payload
 *   payload entries, each: 20-byte blob id | u8 language | u32 bytes | facts
 *   facts   u32 n imports {u32 line, u8 kind, u8 level, u8 type_only,
 *                          u16 len, bytes}
 *           u32 n defs    {u32 start, u32 end, u8 kind, u8 decl, u16 len,
 *                          bytes}
 *           u32 n refs    {u32 line, u16 len, bytes}
 * A file with a wrong magic, format, extractor version, length or checksum
 * is ignored as a whole; an entry that does not decode is a miss. Writes go
 * to a temporary file in the same directory, then rename() over the old one.
 */
#ifndef AIRSPACE_LANG_FACTCACHE_H
#define AIRSPACE_LANG_FACTCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lang/lang.h"
#include "util/strmap.h"

#define FACTCACHE_FORMAT 2

struct factcache {
    uint8_t *data; /* the whole file, or NULL */
    size_t len;
    struct strmap idx; /* key -> entry number */
    size_t *off, *size;
    size_t n, a1, a2;
    bool valid; /* a well-formed current cache was read */
};

/* Read path (missing or invalid: an empty cache). Never fails. */
void factcache_load(struct factcache *c, const char *path);
void factcache_release(struct factcache *c);

/* An entry's encoded facts, borrowed from the cache. */
struct factcache_entry {
    const uint8_t *p;
    size_t len;
    size_t refs_off; /* where the references start, set by decode */
};

/* Find the entry for (oid, lang); false on miss. */
bool factcache_lookup(const struct factcache *c, const uint8_t oid[20],
    uint8_t lang, struct factcache_entry *ent);

/* Decode an entry into out (initialised): imports and definitions, and the
 * references too when with_refs. False (out untouched) if it does not
 * decode. */
bool factcache_decode(
    struct factcache_entry *ent, struct lang_facts *out, bool with_refs);

/* Call fn for every reference of a decoded entry, without copying. */
typedef void factcache_ref_fn(
    void *ctx, const char *name, size_t len, uint32_t line);
void factcache_each_ref(
    const struct factcache_entry *ent, factcache_ref_fn *fn, void *ctx);
/* Number of references of a decoded entry. */
uint32_t factcache_nrefs(const struct factcache_entry *ent);

/* A cache being written: append entries, then commit atomically. */
struct factcache_writer {
    uint8_t *p;
    size_t n, a;
    uint32_t entries;
};

void factcache_writer_init(struct factcache_writer *w);
void factcache_writer_add(struct factcache_writer *w, const uint8_t oid[20],
    uint8_t lang, const struct lang_facts *f);
/* Copy an entry of a loaded cache unchanged. */
void factcache_writer_add_raw(struct factcache_writer *w, const uint8_t oid[20],
    uint8_t lang, const struct factcache_entry *ent);
/* Write to path via a temporary file + rename; 0 or AS_EIO. Releases w. */
int factcache_writer_commit(
    struct factcache_writer *w, const char *path, struct as_err *e);

#endif
