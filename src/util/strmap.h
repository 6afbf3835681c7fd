/*
 * strmap.h - a hash map from byte strings to uint32_t values.
 *
 * Open addressing with linear probing; the map copies keys into its own arena
 * and owns them. Used to intern paths and symbol names into dense ids.
 * Not thread-safe.
 */
#ifndef AIRSPACE_UTIL_STRMAP_H
#define AIRSPACE_UTIL_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strmap_slot {
    const char *key; /* NULL when empty; NUL-terminated copy owned by map */
    uint32_t len;
    uint32_t hash;
    uint32_t value;
};

struct strmap {
    struct strmap_slot *slots;
    size_t cap; /* power of two, or 0 */
    size_t count;
};

void strmap_init(struct strmap *m);
void strmap_release(struct strmap *m);

/* 32-bit FNV-1a of len bytes. */
uint32_t strmap_hash(const char *s, size_t len);

/* Look key up; on hit store its value in *value and return true. */
bool strmap_get(
    const struct strmap *m, const char *key, size_t len, uint32_t *value);

/*
 * Insert key -> value unless present. Returns the value now stored (the old
 * one when the key existed). *added (if not NULL) tells which.
 */
uint32_t strmap_put(
    struct strmap *m, const char *key, size_t len, uint32_t value, bool *added);

/* Return the stored key copy for key, or NULL. Borrowed, lives with m. */
const char *strmap_key(const struct strmap *m, const char *key, size_t len);

#endif
