/*
 * merge.h - the merge channel: speculative three-way merges of two agents'
 * current work.
 *
 * The merge runs entirely in memory (libgit2's git_merge_trees, rename
 * detection on as in git, with git's rename limit of 7000; empty files of
 * the base that a side removed get a stand-in content first, as git never
 * takes an empty file for a rename); merged blobs and those stand-ins go to
 * the repo's in-memory object store (repo.h). Nothing touches an index, a
 * worktree or a ref. Results are cached by (merge base, {tree_a, tree_b}):
 * the pair is unordered, so merging a with b and b with a is one entry.
 *
 * Ownership: merge_cache_new() returns a new cache, free with
 * merge_cache_free(); merge_speculative() fills caller storage that the
 * caller releases with merge_result_release().
 */
#ifndef AIRSPACE_GIT_MERGE_H
#define AIRSPACE_GIT_MERGE_H

#include <stdbool.h>
#include <stddef.h>

#include "git/repo.h"
#include "util/error.h"

struct merge_result {
    bool conflicted;
    char **paths; /* conflicting paths, sorted, unique */
    size_t npaths;
};

struct merge_cache;

struct merge_cache *merge_cache_new(void);
void merge_cache_free(struct merge_cache *c);
/* Number of merges answered from the cache so far (for tests and stats). */
size_t merge_cache_hits(const struct merge_cache *c);

/*
 * Merge tree_a (work based on commit base_oid_a) with tree_b (based on
 * base_oid_b) over the tree of merge-base(base_oid_a, base_oid_b) and say
 * whether it conflicts and where. All ids are hex. cache may be NULL.
 * Conflicting paths are those `git merge-tree --write-tree --name-only`
 * lists: the paths of the conflicting sides, and the source of a rename only
 * for a rename/rename; but the file of a file/directory conflict at its own
 * path (git lists it moved aside, "path~side"). Returns 0, AS_EINVAL for a
 * malformed id, AS_ENOENT when an object is missing or the bases share no
 * history, or AS_EGIT.
 */
int merge_speculative(struct repo *r, struct merge_cache *cache,
    const char *base_oid_a, const char *tree_a, const char *base_oid_b,
    const char *tree_b, struct merge_result *out, struct as_err *e);

void merge_result_release(struct merge_result *m);

#endif
