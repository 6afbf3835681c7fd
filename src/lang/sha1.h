/*
 * sha1.h - SHA-1, for git blob ids ("blob <len>\0" + content) of files that
 * come without one (plain directories), so the facts cache is keyed the same
 * way whether a file came from git or from disk. Not for security.
 */
#ifndef AIRSPACE_LANG_SHA1_H
#define AIRSPACE_LANG_SHA1_H

#include <stddef.h>
#include <stdint.h>

struct sha1 {
    uint32_t h[5];
    uint64_t len;
    uint8_t buf[64];
    size_t nbuf;
};

void sha1_init(struct sha1 *s);
void sha1_update(struct sha1 *s, const void *data, size_t len);
void sha1_final(struct sha1 *s, uint8_t out[20]);

/* The git blob id of content (binary, 20 bytes). */
void sha1_git_blob(const void *content, size_t len, uint8_t out[20]);

#endif
