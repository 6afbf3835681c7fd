/*
 * repograph.h - the import graph of a whole repository, built from files.
 *
 * Every file becomes a node of a struct graph (core/graph.h), source files
 * or not (tree distance and whole-file overlap need them all). Source files
 * are parsed with lang.h on worker threads, their imports resolved with
 * resolve.h into edges, and their definitions and references handed to the
 * graph. C/C++ headers also get edges header -> source to the files that
 * define what they declare (same stem in the same directory, and any source
 * defining a function the header declares), so page.c -> conn.h -> conn.c.
 *
 * The lang layer never touches git: files come as (path, blob id) pairs and a
 * caller-provided loader returns their content. Facts are cached by blob id
 * (and language) in a binary file (see docs/decisions/0003): an unchanged
 * file is never parsed twice, a corrupt or older cache is ignored and
 * rewritten, and the cache is replaced atomically (temp file + rename).
 *
 * Two ways to use it:
 *   - one-shot: repograph_build() fills a graph and keeps no state;
 *   - incremental: repograph_new() binds a struct repograph to a graph the
 *     caller owns, repograph_load() builds it, and repograph_update_file()
 *     re-parses one changed file and replaces its edges and symbols (and the
 *     header links and resolutions that depend on it) without a rebuild.
 * Not thread-safe: one thread owns a repograph; workers are internal.
 */
#ifndef AIRSPACE_LANG_REPOGRAPH_H
#define AIRSPACE_LANG_REPOGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/graph.h"
#include "lang/resolve.h"
#include "util/error.h"

struct repograph_file {
    const char *path; /* repository-relative; normalised by the builder */
    const char *oid;  /* 40-hex git blob id, or NULL to hash the content */
    /* Stat data of a plain file (repograph_scan_dir fills it): with a cache
     * path, an unchanged file's blob id comes from "<cache>.stat" instead
     * of hashing its content (lang/statcache.h). */
    bool has_stat;
    uint64_t size, mtime_ns, ino;
};

/*
 * Load the content of f into *buf (malloc'd, the caller of the loader frees
 * it) and *len. Returns 0 or a negative AS_E* code (the file is then left
 * unparsed). Called from worker threads, but never concurrently.
 */
typedef int repograph_read_fn(
    void *ctx, const struct repograph_file *f, char **buf, size_t *len);

/*
 * How a load goes: done of total source files have their facts (those
 * from the cache count as done at once). Called once before parsing
 * starts and after each file parsed, from any of the load's threads but
 * never concurrently. A nonzero return stops the load: no further file is
 * parsed, the cache keeps what was parsed, and repograph_load() returns
 * AS_ECANCELED.
 */
typedef int repograph_progress_fn(void *ctx, size_t done, size_t total);

/*
 * repograph_update_file() keeps the last parse of a file of at least
 * REPOGRAPH_KEEP_MIN_BYTES so that its next version parses incrementally,
 * while the kept sources total at most REPOGRAPH_KEEP_BYTES (their syntax
 * trees take 20-25 times as much: about 100 MiB at most).
 */
#define REPOGRAPH_KEEP_MIN_BYTES (16u * 1024)
#define REPOGRAPH_KEEP_BYTES (4u * 1024 * 1024)

struct repograph_options {
    const char *cache_path;          /* NULL: no cache */
    unsigned threads;                /* 0: 2 */
    const char *const *include_dirs; /* C/C++ include search, repo-relative */
    size_t ninclude;
    size_t max_file_bytes; /* 0: LANG_MAX_FILE_BYTES; larger are not parsed */
    repograph_progress_fn *progress; /* NULL: none */
    void *progress_ctx;
    /* A snapshot of the built graph (lang/graphsnap.h), NULL: none. When
     * it was made for the same files (paths with blob ids or stat data),
     * options and program, and the facts cache (cache_path) is there,
     * repograph_load() takes the graph from it instead of building; else
     * it builds and writes one (unless a file
     * could not be read, some file has neither blob id nor stat data, or
     * a file keyed by its stat data changed within STATCACHE_RACY_NS of
     * the load: a second change in the same tick would keep its stat).
     * A repograph loaded from a snapshot has no facts: it cannot be
     * updated (repograph_update_file() returns AS_EUNSUP). */
    const char *snapshot_path;
};

struct repograph_stats {
    size_t files;        /* nodes */
    size_t source_files; /* files in a parsed language */
    size_t parsed;       /* parsed now */
    size_t cached;       /* facts taken from the cache */
    size_t edges;
    size_t defs, refs;
    bool from_snapshot; /* the graph came from the snapshot */
};

struct repograph;

/* A new builder bound to g (borrowed; must outlive it, graph_init'ed).
 * Options are copied. */
struct repograph *repograph_new(
    struct graph *g, const struct repograph_options *o);
void repograph_free(struct repograph *rg);

/* The graph rg fills (the one given to repograph_new). */
struct graph *repograph_graph(struct repograph *rg);

/*
 * Take over the resolver rg resolved imports with (every file of the graph
 * and the configuration files' content, lang/resolve.h), so it can outlive
 * rg: an agent's view of the graph starts from it (docs/risk-model.md).
 * The caller frees it with resolver_free(); rg can then only be freed.
 */
struct resolver *repograph_take_resolver(struct repograph *rg);

/*
 * Add files 0..n-1 to the graph, parse (or take from the cache) every
 * source file, resolve imports into edges and write the cache back.
 * Call once per repograph. st (if not NULL) is filled. Returns 0, or an
 * error for a bad path (escaping the repository) or unusable options;
 * unreadable or oversized files are not errors (they stay unparsed nodes).
 * Stopped by the progress callback: AS_ECANCELED, the graph incomplete.
 */
int repograph_load(struct repograph *rg, const struct repograph_file *files,
    size_t n, repograph_read_fn *read, void *ctx, struct repograph_stats *st,
    struct as_err *e);

/*
 * The file at path changed to content (len bytes), or was deleted (content
 * NULL): re-parse it, replace its symbols and edges, and re-resolve what
 * depends on it. A new path becomes a new node. The cache is not written.
 */
int repograph_update_file(struct repograph *rg, const char *path,
    const char *content, size_t len, struct as_err *e);

/*
 * Many updates at once: between repograph_batch_begin() and
 * repograph_batch_end(), repograph_update_file() re-parses but defers
 * re-resolving imports to the end, where it is done once for all of them
 * (the graph is complete again only after _end).
 */
void repograph_batch_begin(struct repograph *rg);
void repograph_batch_end(struct repograph *rg);

/* One-shot: repograph_new + repograph_load + repograph_free on g. */
int repograph_build(struct graph *g, const struct repograph_file *files,
    size_t n, repograph_read_fn *read, void *ctx,
    const struct repograph_options *o, struct repograph_stats *st,
    struct as_err *e);

/*
 * List the regular files under dir (skipping ".git", following no symlinks)
 * as repository-relative paths with oid NULL, sorted by path. Free with
 * repograph_scan_dir_free().
 */
int repograph_scan_dir(const char *dir, struct repograph_file **files,
    size_t *n, struct as_err *e);
void repograph_scan_dir_free(struct repograph_file *files, size_t n);

/* A repograph_read_fn for repograph_scan_dir(): ctx is the directory. */
int repograph_read_dir(
    void *ctx, const struct repograph_file *f, char **buf, size_t *len);

#endif
