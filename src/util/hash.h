/*
 * hash.h - FNV-1a, 64 bits: a fast, stable hash of short strings for names
 * of records and caches (not for anything an adversary chooses to collide).
 */
#ifndef AIRSPACE_UTIL_HASH_H
#define AIRSPACE_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A_INIT 1469598103934665603ULL

/* h with the bytes of the string s mixed in. */
static inline uint64_t
fnv1a_str(uint64_t h, const char *s)
{
    for (; s && *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ULL;
    return h;
}

/* h with the byte c mixed in. */
static inline uint64_t
fnv1a_byte(uint64_t h, uint8_t c)
{
    return (h ^ c) * 1099511628211ULL;
}

/* h with the n bytes at p mixed in. */
static inline uint64_t
fnv1a_bytes(uint64_t h, const void *p, size_t n)
{
    const uint8_t *c = p;
    for (size_t i = 0; i < n; i++)
        h = fnv1a_byte(h, c[i]);
    return h;
}

#endif
