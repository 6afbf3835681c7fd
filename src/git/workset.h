/*
 * workset.h - an agent's working set, read from git.
 *
 * Fills a struct agent (core/workset.h) from a worktree or a branch: the
 * merge base with the integration branch, the commits ahead of it, and every
 * changed file with its changed line ranges in base coordinates, taken from
 * a zero-context diff from the base tree to the working tree (index,
 * unstaged and untracked-not-ignored files) with rename detection.
 *
 * Never touches an index file, the working tree or the refs: the tree that
 * captures the agent's current work (tree_oid) is the base tree updated
 * along the changed paths, and its blobs and trees go to the repo's
 * in-memory object store (see repo.h), so tree_oid is valid only for the
 * life of that struct repo.
 */
#ifndef AIRSPACE_GIT_WORKSET_H
#define AIRSPACE_GIT_WORKSET_H

#include <stdbool.h>
#include <stdint.h>

#include "core/workset.h"
#include "git/repo.h"
#include "util/error.h"

/* Told about a file kept in the working set without its content; msg is
 * borrowed for the call. */
typedef void workset_warn_fn(void *ctx, const char *msg);

/*
 * A worktree read limited to some paths. Reading every file costs a walk
 * of the whole worktree (two, with the diff from HEAD): half a second on a
 * repository of 15,000 files. Whoever watches the worktree knows which
 * paths changed since its last read; with those and the paths that read
 * found changed, a read of just them is the whole read, as long as the
 * git state (workset_worktree_state()) is the same: any other path is as
 * it was then, as in the base.
 *
 * When limit is set, only paths (worktree-relative, no trailing slash; a
 * directory stands for everything under it; any order) are read; none is
 * a read of nothing. changed receives (malloc'd, sorted, unique; the
 * caller frees it with workset_scope_release()) every path, old and new
 * name, the diff from the base named: the paths to give the next limited
 * read besides the newly changed ones.
 */
struct workset_scope {
    bool limit;
    char *const *paths;
    size_t npaths;
    char **changed; /* out */
    size_t nchanged;
    /* Optional, the caller's, kept from read to read of one worktree:
     * what the commits between the base and HEAD say (how many, their
     * changed lines, the first one's time, when each path was last
     * committed). Walking and diffing them each read costs ~0.8 s for 150
     * commits ahead on libgit2; they change only with HEAD or the base. */
    struct workset_commits *commits;
};

struct workset_commits;
struct workset_commits *workset_commits_new(void);
void workset_commits_free(struct workset_commits *c); /* NULL: nothing */

/* Free what changed holds (paths are the caller's). */
void workset_scope_release(struct workset_scope *s);

struct workset_options {
    const char *integration; /* branch name; NULL: repo_integration_branch() */
    int64_t now_ms;          /* "now": change time of uncommitted deletions */
    bool untracked; /* include untracked-not-ignored files (default true) */
    workset_warn_fn *warn; /* may be NULL */
    void *warn_ctx;
    struct workset_scope *scope; /* worktree reads only; NULL: every path */
};

/* Defaults: integration NULL, now_ms 0, untracked true, warn NULL,
 * scope NULL. */
void workset_options_init(struct workset_options *o);

/*
 * Read the working set of the worktree at worktree_path into out, which the
 * caller has agent_init()ed (its id and kind are kept; worktree, branch,
 * base_oid, tree_oid, commits_ahead, committed_lines, started_at_ms and files
 * are filled; file weights are left for the caller). Files are sorted.
 * started_at_ms is the earliest of the author time of the oldest commit
 * ahead of the base and the worktree's making (a linked worktree's
 * commondir file, the main one's oldest HEAD reflog entry): never a working
 * file's time, so a re-save cannot move it. A pure insertion is recorded
 * with range_set_add_insertion().
 * o may be NULL for the defaults. Returns 0, AS_ENOENT (no such worktree,
 * no commit, no integration branch or no common history), AS_EIO or AS_EGIT.
 *
 * What git status would not call a change is none here either: an
 * untracked nested repository is left out, and so is a path outside a
 * sparse checkout (skip-worktree: its index entry stands for it). A path
 * left conflicted by a merge in progress is captured as its working file
 * (conflict markers and all), else HEAD's entry, else as deleted. A file
 * bigger than 256 MiB is not read: it is a whole-file (binary) change, its
 * captured content is a placeholder naming it, and o->warn is told.
 */
int workset_from_worktree(struct repo *r, const char *worktree_path,
    const struct workset_options *o, struct agent *out, struct as_err *e);

/*
 * A fingerprint of what, besides the contents of its files, decides the
 * working set workset_from_worktree() reads there: the commit its HEAD
 * names and the branch it names, the stat data of its index (staging,
 * checkout, reset) and where HEAD meets the integration branch (o as
 * there): the base, which a branch landed may move (the integration
 * branch's own commit, when they share no history). Equal fingerprints
 * with no change to a file of the worktree between them mean the working
 * set read at the first is still the one to read: the daemon skips such a
 * worktree in its periodic rescan. Costs opening the worktree's
 * repository, a few reference reads and a merge base, no walk of its
 * files. Returns 0, AS_ENOENT (no such worktree) or AS_EGIT.
 */
int workset_worktree_state(struct repo *r, const char *worktree_path,
    const struct workset_options *o, uint64_t *out, struct as_err *e);

/*
 * The same for committed work only: the diff from the merge base to the tip
 * of branch. worktree stays NULL, tree_oid is the tip's tree and
 * started_at_ms the author time of the oldest commit ahead (0: none).
 */
int workset_from_branch(struct repo *r, const char *branch,
    const struct workset_options *o, struct agent *out, struct as_err *e);

/*
 * Add one file per delta of diff (base tree to a side, after rename
 * detection) to out: its status, its base path (a rename's new path in
 * new_path), its diff stats and, for a modification, its changed line
 * ranges in base coordinates (a pure insertion after line k is [k, k], one
 * at the top [1, 1], marked with range_set_add_insertion()). Deltas git would
 * not show (no hunk, same mode) are left out. changed_at_ms and the order of
 * out's files are the caller's. Returns 0 or AS_EGIT.
 */
int workset_add_diff(git_diff *diff, struct agent *out, struct as_err *e);

/*
 * What one delta of such a diff adds to a working set, as
 * workset_add_diff() adds it, kept apart so that a caller diffing many
 * trees from one base (replay) computes each (blob, blob) delta once and
 * applies it to many working sets. The hunks are the patch's old-side
 * ranges in order (old_lines 0: a pure insertion after old_start).
 */
struct ws_hunk {
    uint32_t old_start, old_lines;
};

struct ws_delta_effect {
    bool skip; /* nothing git would show: no file */
    enum ws_status status;
    char *path, *new_path;
    uint32_t added_lines, deleted_lines;
    struct ws_hunk *hunks;
    size_t nhunks;
};

/* Delta i of diff's effect; release with workset_effect_release(). Returns
 * 0 or AS_EGIT. */
int workset_delta_effect(
    git_diff *diff, size_t i, struct ws_delta_effect *out, struct as_err *e);

/* Add ef's file to out exactly as workset_add_diff() would. */
void workset_apply_effect(struct agent *out, const struct ws_delta_effect *ef);

/* The same for an ef whose path out does not hold yet (not looked for). */
void workset_apply_effect_new(
    struct agent *out, const struct ws_delta_effect *ef);

void workset_effect_release(struct ws_delta_effect *ef);

/*
 * The diff of working sets between two trees of the main repository: zero
 * context, type changes, files over 256 MiB taken as binary, renames found
 * as for a worktree. For workset_add_diff(); free *out with git_diff_free().
 * Returns 0 or AS_EGIT.
 */
int workset_diff_trees(struct repo *r, git_tree *from, git_tree *to,
    git_diff **out, struct as_err *e);

#endif
