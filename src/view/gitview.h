/*
 * gitview.h - the repository as the risk engine sees it: the import graph of
 * the integration branch, agents' own copies of the files they changed, the
 * recency of their changes, and the speculative merge of two agents' work.
 *
 * Shared by `airspace scan` (one snapshot) and the daemon (kept live). All
 * functions use one repo handle: an agent's tree_oid is only valid in the
 * handle that read its working set (uncommitted work lives in that handle's
 * in-memory object store).
 */
#ifndef AIRSPACE_VIEW_GITVIEW_H
#define AIRSPACE_VIEW_GITVIEW_H

#include <stddef.h>
#include <stdint.h>

#include "core/graph.h"
#include "core/risk.h"
#include "core/workset.h"
#include "git/forward.h"
#include "git/merge.h"
#include "git/repo.h"
#include "lang/repograph.h"
#include "util/error.h"

/*
 * Where every agent's view of the graph starts (docs/risk-model.md, "the
 * agent's view"): a resolver knowing the base graph's files and
 * configuration, and the base blob ids of its configuration files, to put
 * them back after an agent's own versions. Owns everything.
 */
struct gitview_base {
    struct resolver *res;
    struct gitview_config {
        char *path;
        char oid[41];
    } * configs;
    size_t nconfigs;
    /* The forward channel's table (core/forward.h): the past merges
     * reachable from the base revision; NULL when not read. */
    struct forward_hist *fhist;
    const struct forward_table *forward; /* borrowed from fhist */
};

/* gitview_graph_cached() (cache_path NULL: the default), and base filled
 * for gitview_agent_view() (its forward table left NULL: gitview_forward()
 * reads it); progress (NULL: none) is told how parsing goes and may stop
 * it (repograph_progress_fn). On error g is released and base left
 * empty. */
int gitview_graph_base(struct repo *repo, const char *rev, unsigned threads,
    const char *cache_path, struct graph *g, struct gitview_base *base,
    repograph_progress_fn *progress, void *progress_ctx,
    struct repograph_stats *st, struct as_err *e);
void gitview_base_release(struct gitview_base *base);

/*
 * The forward channel's table for a base at rev: the FORWARD_WINDOW newest
 * merges reachable from rev (git/forward.h), in a new *fhist (free with
 * forward_hist_free(), or with the base it is put in) and *forward
 * borrowed from it. On error (rev unreadable) *forward is NULL, *fhist
 * still new, and the channel is 0. Kept in $GIT_COMMON_DIR/airspace/
 * forward.cache for rev's commit (git/forwardcache.h): taken from there
 * when it holds that commit's table, else read and written there. The
 * daemon reads it at start and when its integration branch moves, a scan
 * once per run.
 */
int gitview_forward(struct repo *repo, const char *rev,
    struct forward_hist **fhist, const struct forward_table **forward,
    struct as_err *e);

/*
 * gitview_graph_base() with the default cache, for one scan: the built
 * graph is also kept in the snapshot $GIT_COMMON_DIR/airspace/graph.snap
 * (lang/graphsnap.h), and taken from it while rev's tree and the program
 * stay the same. The graph and base are the same either way; a graph
 * from the snapshot borrows its memory (core/graph.h).
 */
int gitview_graph_snap(struct repo *repo, const char *rev, unsigned threads,
    struct graph *g, struct gitview_base *base, repograph_progress_fn *progress,
    void *progress_ctx, struct repograph_stats *st, struct as_err *e);

/* A repograph_read_fn reading blobs of ctx, a struct repo. */
int gitview_read_blob(
    void *ctx, const struct repograph_file *f, char **buf, size_t *len);

/* Set every file's weight from the time it last changed, as seen at now. */
void gitview_recency(
    const struct risk_config *c, struct agent *a, int64_t now_ms);

/*
 * The same, and the agent's view of the graph: the files each changed
 * source file's version imports beyond its base edges (ws_file.new_imports,
 * lang/agentnames.h), resolved against the base files plus the agent's
 * added (and renamed-to) files, with the configuration files it changed
 * read from its worktree. base->res is borrowed for the call and left as
 * it was (base configuration read back from repo, whose objects it names).
 * Only this agent's files are read: the cost is its working set, not the
 * other agents'. Returns how many files could not be parsed.
 */
size_t gitview_agent_view(struct graph *g, struct gitview_base *base,
    struct repo *repo, struct agent *a);

/*
 * The facts parsing an agent's changed files gave (lang_extract(): its
 * definitions, references and imports), kept from one of its reads to the
 * next (the daemon's, one per agent): a file whose name and content are
 * the same is not parsed again. The same content gives the same facts;
 * what depends on anything else (the names beyond the base file's, the
 * imports as the agent's resolver finds them) is worked out from them at
 * every read. An agent 150 commits ahead on libgit2 spent most of half a
 * second per edit parsing its unchanged files again. Holds the files of
 * the last call only.
 */
struct gitview_names_cache;
struct gitview_names_cache *gitview_names_cache_new(void);
void gitview_names_cache_free(struct gitview_names_cache *c); /* NULL: no */

/* gitview_agent_view() with cache (NULL: none). */
size_t gitview_agent_view_cached(struct graph *g, struct gitview_base *base,
    struct repo *repo, struct agent *a, struct gitview_names_cache *cache);

/* want, or want-2, want-3, ... : the first id no agent of v[0..n) has. */
char *gitview_unique_id(const struct agent *v, size_t n, const char *want);

/* The merge channel's context: one repo handle and its merge cache. */
struct gitview_merge {
    struct repo *repo;
    struct merge_cache *cache;
    unsigned failures;
    struct as_err first_error; /* of the first failure */
};

/*
 * A scan_merge_fn: speculatively merge a's and b's current work. 1 and the
 * conflicting paths (new array; free each and the array) on conflict, 0
 * when clean, a negative code when it could not be decided.
 */
int gitview_merge_pair(void *ctx, const struct agent *a, const struct agent *b,
    char ***paths, size_t *npaths);

#endif
