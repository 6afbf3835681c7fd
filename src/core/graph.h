/*
 * graph.h - the import graph of a whole repository, with symbols.
 *
 * Pure: no I/O. Files are nodes with dense ids (0..nfiles-1) interned by
 * normalised repository-relative path; a directed edge f -> g means "f imports
 * g" (f depends on g; an edit of g can break f). Symbol names are interned to
 * dense ids too. Each file owns its edge lists, definitions and references, so
 * replacing one file (graph_set_imports / graph_set_symbols) updates the graph
 * incrementally without a rebuild.
 *
 * Filled by the language layer (src/lang); read by the risk engine.
 * A graph may also be loaded from a snapshot (lang/graphsnap.h): its files'
 * arrays and the names known then are borrowed from the snapshot's memory
 * (g->backing, released with the graph), and a file is copied into memory
 * it owns before anything changes it.
 * Not thread-safe: build single-threaded (parsing may run on workers, then
 * the results are handed to the one thread that owns the graph).
 */
#ifndef AIRSPACE_CORE_GRAPH_H
#define AIRSPACE_CORE_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strmap.h"

#define GRAPH_NONE UINT32_MAX

enum graph_sym_kind {
    GRAPH_SYM_FUNCTION = 0,
    GRAPH_SYM_METHOD,
    GRAPH_SYM_TYPE, /* struct, class, interface, enum, typedef, trait */
    GRAPH_SYM_MACRO,
    GRAPH_SYM_CONSTANT, /* const, top-level variable */
};

/* A definition: name, kind and the lines it spans (1-based, inclusive). */
struct graph_def {
    uint32_t name; /* interned name id */
    uint32_t start, end;
    uint8_t kind;
};

/* A reference to a name (a call, a use of a type/macro/constant). */
struct graph_ref {
    uint32_t name; /* interned name id */
    uint32_t line; /* 1-based */
};

struct graph_file {
    const char *path; /* owned by the graph's path map */
    uint32_t *out;    /* files this file imports; sorted, unique */
    uint32_t nout, aout;
    uint32_t *in; /* files importing this file; sorted, unique */
    uint32_t nin, ain;
    struct graph_def *defs; /* sorted by start line */
    uint32_t ndefs;
    struct graph_ref *refs; /* sorted by line */
    uint32_t nrefs;
    uint32_t *names; /* the names refs use: sorted, unique */
    uint32_t nnames;
    uint16_t depth; /* path_depth(path) */
    bool parsed;    /* symbols known (a parsed language) */
    bool borrowed;  /* out, in, defs, refs and names are g->backing's */
};

struct graph {
    struct graph_file *files;
    uint32_t nfiles;
    size_t afiles;
    struct strmap paths;   /* path -> file id */
    struct strmap names;   /* symbol name -> name id */
    const char **name_str; /* name id -> string (borrowed from names) */
    size_t nnames, anames;
    /* Names 0..nindexed-1 came from a snapshot and are not in names: an
     * open-addressed table of their ids by strmap_hash() (GRAPH_NONE when
     * empty; cap a power of two) and their lengths, both borrowed. */
    const uint32_t *name_index;
    const uint32_t *name_len;
    size_t nindexed, index_cap;
    void *backing;                       /* what borrowed arrays point into */
    void (*backing_free)(void *backing); /* called by graph_release() */
};

void graph_init(struct graph *g);
void graph_release(struct graph *g);

/* Return the id of path (normalised), adding a node when absent. */
uint32_t graph_intern_file(struct graph *g, const char *path);
/* Return the id of path, or GRAPH_NONE. */
uint32_t graph_find_file(const struct graph *g, const char *path);
/* Return the id of a symbol name, adding it when absent. */
uint32_t graph_intern_name(struct graph *g, const char *name, size_t len);
/* Return the id of a name, or GRAPH_NONE. */
uint32_t graph_find_name(const struct graph *g, const char *name, size_t len);

/* Replace file's outgoing edges with targets (any order, duplicates and
 * self-edges dropped); reverse edges are kept in step. */
void graph_set_imports(
    struct graph *g, uint32_t file, const uint32_t *targets, size_t n);

/* Replace file's definitions and references (copied, then sorted) and mark
 * it parsed. */
void graph_set_symbols(struct graph *g, uint32_t file,
    const struct graph_def *defs, size_t ndefs, const struct graph_ref *refs,
    size_t nrefs);

/* Total number of import edges. */
size_t graph_edge_count(const struct graph *g);

/*
 * Length of the shortest directed import path from -> ... -> to, at most cap
 * hops; 0 when from == to; -1 when none within cap.
 */
int graph_distance(
    const struct graph *g, uint32_t from, uint32_t to, unsigned cap);

/*
 * Breadth-first search over importers: dist[x] = length of the shortest path
 * x -> ... -> file (x depends on file), for every x within cap hops, and
 * dist[file] = 0. dist must hold g->nfiles bytes; unreached entries are set to
 * 0xff. Returns the number of files reached (excluding file itself).
 */
size_t graph_reach_importers(
    const struct graph *g, uint32_t file, unsigned cap, uint8_t *dist);

#endif
