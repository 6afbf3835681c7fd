/*
 * forwardcache.h - the forward channel's table kept on disk between
 * processes, keyed by the commit it was read at, so that a scan or a
 * daemon's start need not walk the past again (docs/risk-model.md,
 * "Forward").
 *
 * One file, $GIT_COMMON_DIR/airspace/forward.cache, replaced whole by
 * rename. It holds one table and its key: the format, the commit, the
 * window, the walk's cap and the keep floor (git/forward.h,
 * core/forward.h). A file for another key, truncated, with any byte
 * changed (a checksum covers all of it) or otherwise malformed is
 * refused, never trusted; the caller then reads the past and writes the
 * file again.
 */
#ifndef AIRSPACE_GIT_FORWARDCACHE_H
#define AIRSPACE_GIT_FORWARDCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "core/forward.h"
#include "util/error.h"

/* Bumped whenever the encoding or the table's meaning changes. */
#define FORWARD_CACHE_FORMAT 1

/* The bytes of t read at commit (40 hex digits) with window, in a new
 * buffer (free with free()) of *len bytes. */
uint8_t *forward_cache_encode(const struct forward_table *t, const char *commit,
    unsigned window, size_t *len);

/* t (released first) from the len bytes at buf when they are a whole,
 * intact table for commit and window. Returns 0, or AS_EPARSE (t left
 * empty) with the reason in e. */
int forward_cache_decode(const void *buf, size_t len, const char *commit,
    unsigned window, struct forward_table *t, struct as_err *e);

/* forward_cache_decode() of the file at path; AS_ENOENT when there is
 * none. */
int forward_cache_load(const char *path, const char *commit, unsigned window,
    struct forward_table *t, struct as_err *e);

/* Replace the file at path with t's encoding (atomically: another reader
 * sees the old file or the new one). Returns 0 or AS_EIO. */
int forward_cache_store(const char *path, const struct forward_table *t,
    const char *commit, unsigned window, struct as_err *e);

#endif
