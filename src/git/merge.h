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
 * A submodule both sides moved is resolved as git resolves it: to the
 * descendant when one side's commit descends from the other's (both from
 * the base's), read from the repository or the submodule's own under
 * .git/modules; without those commits it stays a conflict.
 *
 * merge_trees_as_git() is that merge's core for other callers (the replay
 * of a side's own changes, history.h): libgit2's merge with git's rename
 * rules, empty files included, and nothing else of git's added.
 *
 * Ownership: merge_cache_new() returns a new cache, free with
 * merge_cache_free(); merge_speculative() fills caller storage that the
 * caller releases with merge_result_release(); merge_trees_as_git()
 * returns a new index, free with git_index_free().
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

/* One side's change at a path, from the base's tree to its tree: what a
 * tree diff without rename detection (type changes included) lists. */
struct merge_cut_delta {
    const char *path;
    git_oid id[2];    /* the entry in the base and in the side's tree */
    uint32_t mode[2]; /* 0: no entry (added, deleted) */
};

/*
 * Whether merging two sides over their base conflicts, told from each
 * side's changed paths d[s] (n[s] deltas, one per path) without the
 * trees: 1 conflicted, 0 clean, 2 when it cannot tell (run
 * merge_speculative()), or an error (AS_EGIT).
 *
 * Cannot tell when a changed path lies under another changed path (a
 * file/directory clash, where entries neither side changed take part)
 * or a side added a file in a directory the other side removed files
 * from (a directory rename may move it). Otherwise clean when no path
 * changed on both sides: a content, modify/delete or add/add conflict
 * needs a path both changed, and so do a rename's conflicts
 * (rename/delete and rename/rename share the source, a rename onto an
 * added file or two renames onto one path share the target). Otherwise
 * merge_speculative()'s
 * merge runs on trees cut down to the changed paths but the modifications
 * of a path the other side left alone: those merge as they are and are
 * neither a source nor a target of rename detection, so every conflict
 * and every rename of the full merge is there, at the same paths. When
 * every path both sides changed is a modification on both (same type of
 * entry before and after), no rename takes part in a conflict (a rename's
 * source is deleted and its target added on its side), and the trees are
 * cut down to those paths alone.
 *
 * known (may be NULL) keeps, in that last case, each such path's own
 * verdict by its path, entries and modes: with modifications alone each
 * path merges by itself (no rename, directory rename or file/directory
 * clash can join two), so the merge conflicts when one of its paths does,
 * and a later merge that shares a path's three entries takes its verdict
 * from there instead of merging the file again. A cache holds for any
 * base and any repository state (what decides a verdict is in its key)
 * but one repository's attributes; not thread-safe.
 */
struct merge_verdicts;
struct merge_verdicts *merge_verdicts_new(void);
void merge_verdicts_free(struct merge_verdicts *v);
/* Paths held, and verdicts answered from the cache. */
size_t merge_verdicts_size(const struct merge_verdicts *v);
size_t merge_verdicts_hits(const struct merge_verdicts *v);

int merge_restricted(struct repo *r, const struct merge_cut_delta *const d[2],
    const size_t n[2], struct merge_verdicts *known, struct as_err *e);

/*
 * git_merge_trees() of ours and theirs over anc, pairing renames as git's
 * merge does: git's rename limit (7000), and no empty file taken for a
 * rename's source or target (an empty file of anc that a side removed is
 * deleted, not renamed, even where the side added another empty file). The
 * merged index holds the trees' own contents; conflicts are left in it as
 * libgit2 records them (git's directory renames and the other conflicts
 * merge_speculative() adds are not). Objects it writes go to the in-memory
 * store. *out: a new index. Returns 0 or AS_EGIT.
 */
int merge_trees_as_git(git_repository *g, git_tree *anc, git_tree *ours,
    git_tree *theirs, git_index **out, struct as_err *e);

#endif
