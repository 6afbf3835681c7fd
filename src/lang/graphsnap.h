/*
 * graphsnap.h - the built import graph of one tree, kept in a file that a
 * later run maps into memory and uses as it is.
 *
 * Rebuilding a warm graph from the facts cache means interning every name
 * of every reference again; a snapshot keeps the result instead: nodes,
 * path strings, edges both ways, definitions and references with their name
 * ids, and the name table with its hash index, as offsets into one flat
 * file (so it can be mapped anywhere). Loading checks the whole file and
 * then only points the graph's arrays into the mapping (core/graph.h,
 * "borrowed"); the paths' map is the one thing rebuilt.
 *
 * A snapshot is made for one key, which the caller derives from everything
 * the graph depends on (lang/repograph.c: the files and their blob ids or
 * stat data, the options, this build of the program): a file made for
 * another key, of another format or byte order, truncated, or with any
 * offset, count or id out of place (or edge lists out of order, or
 * importers that are not the reverse of imports) is refused whole, never
 * half used: every one is checked, which costs about a read of the file
 * (a checksum would cost a second; lines and kinds are not checked, no
 * value of them can make a reader go astray). Writes go to a temporary
 * file, then rename() over the old one, so a file is never seen half
 * written.
 *
 * File layout (native byte order, recorded and checked; every section
 * 8-byte aligned):
 *   header   "ASGSNAP\0" | u32 format | u32 byte-order mark | key[20] |
 *            counts | u64 file size
 *   files    per node: path offset, then (offset, count) of its imports,
 *            importers and used names in the u32 pool, of its definitions
 *            and of its references, and its flags
 *   u32 pool, name offsets and lengths, name index (open addressing by
 *   strmap_hash), definitions (struct graph_def), references
 *   (struct graph_ref), strings (NUL-terminated)
 */
#ifndef AIRSPACE_LANG_GRAPHSNAP_H
#define AIRSPACE_LANG_GRAPHSNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/graph.h"
#include "util/error.h"

#define GRAPHSNAP_FORMAT 1
#define GRAPHSNAP_KEY_BYTES 20

/* What a snapshot records besides the graph, for the build's statistics. */
struct graphsnap_info {
    uint64_t source_files; /* files in a parsed language */
    uint64_t with_facts;   /* of which facts were known */
};

/*
 * Write g as a snapshot for key to path (temporary file + rename). 0, or
 * AS_ETOOBIG when g does not fit the format's 32-bit offsets, or AS_EIO;
 * path is untouched on error.
 */
int graphsnap_write(const struct graph *g,
    const uint8_t key[GRAPHSNAP_KEY_BYTES], const struct graphsnap_info *info,
    const char *path, struct as_err *e);

/*
 * Map the snapshot at path and, when it is well formed and made for key,
 * fill g (graph_init'ed and empty) from it: 0, and g holds the mapping until
 * graph_release(). Otherwise g is left empty: AS_ENOENT when there is no
 * file, AS_EINVAL when it was made for another key or format (stale),
 * AS_EPARSE when it is malformed, AS_EIO when it cannot be read.
 */
int graphsnap_load(struct graph *g, const uint8_t key[GRAPHSNAP_KEY_BYTES],
    const char *path, struct graphsnap_info *info, struct as_err *e);

/*
 * The same from len bytes at data (8-byte aligned), which g borrows: they
 * must outlive it (for tests and fuzzing).
 */
int graphsnap_load_mem(struct graph *g, const uint8_t key[GRAPHSNAP_KEY_BYTES],
    const void *data, size_t len, struct graphsnap_info *info,
    struct as_err *e);

/*
 * This build of the program, as key material: its GNU build id, or else the
 * size, time and inode of /proc/self/exe. False when neither is known (then
 * no snapshot can be trusted across runs).
 */
bool graphsnap_build_id(uint8_t *out, size_t cap, size_t *len);

#endif
