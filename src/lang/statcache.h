/*
 * statcache.h - blob ids of plain-directory files by their stat data, so a
 * warm graph build of a directory outside git need not hash every file.
 *
 * The same idea as git's index: a file whose size, modification time and
 * inode are unchanged keeps its blob id. Entries whose mtime is within
 * STATCACHE_RACY_NS of the time the cache is written are not stored (a
 * write in that window could change the content without changing the
 * stat data that was read). The file is text, one entry per line:
 *
 *   airspace-statcache 1
 *   <40-hex blob id> <size> <mtime ns> <inode> <path>
 *
 * It is rewritten atomically; a file that does not parse is ignored.
 */
#ifndef AIRSPACE_LANG_STATCACHE_H
#define AIRSPACE_LANG_STATCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "util/strmap.h"

#define STATCACHE_RACY_NS (2LL * 1000 * 1000 * 1000)

struct stat_key {
    uint64_t size, mtime_ns, ino;
};

struct statcache_entry {
    char *path;
    struct stat_key st;
    uint8_t oid[20];
};

struct statcache {
    struct strmap idx; /* path -> entry */
    struct statcache_entry *v;
    size_t n, a;
};

void statcache_init(struct statcache *c);
void statcache_release(struct statcache *c);

/* Read path (missing or malformed: empty). Never fails. */
void statcache_load(struct statcache *c, const char *path);

/* The blob id of path if its stat data matches the cached entry. */
bool statcache_lookup(const struct statcache *c, const char *path,
    const struct stat_key *st, uint8_t oid[20]);

/* Add or replace an entry (path copied). */
void statcache_put(struct statcache *c, const char *path,
    const struct stat_key *st, const uint8_t oid[20]);

/* Write every entry not racily fresh at now_ns. */
int statcache_write(const struct statcache *c, const char *path, int64_t now_ns,
    struct as_err *e);

#endif
