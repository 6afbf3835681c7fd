/*
 * history.h - a repository's merges as pairs of agents flying from a base.
 *
 * Feeds `airspace replay` on a git repository. history_collect() walks the
 * commits of a revision range, keeps every two-parent merge M whose parents
 * P1 and P2 have exactly one merge base B and B..P1, B..P2 both non-empty,
 * and lists each side's commits (B..P, oldest first: topological, then
 * commit time). Other merges are skipped and counted by reason.
 * history_workset_raw() turns "side at commit C" into a working set: the
 * zero-context diff from B's tree to C's tree with rename detection, in base
 * coordinates, built exactly as git/workset.h builds one for a branch.
 *
 * A side commit that does not contain B (the side forked before B and took
 * the other line in later by a back-merge, which made B the merge base) is
 * marked: its working set must be its own changes replayed onto B
 * (history_own_tree), not the diff from B, which would count the other
 * line's changes since the fork as undone by this side.
 *
 * In a shallow clone the commits listed in $GIT_COMMON_DIR/shallow are
 * roots, as git treats them there: merge bases and sides are found within
 * the history at hand (libgit2 cannot walk such a clone, so this module
 * walks it itself), and a merge whose base, sides or a side commit's fork
 * point cannot be found there, or whose side reaches the cut, is skipped
 * and counted as "shallow".
 *
 * Reads only; writes nothing to the repository. Ownership: history_collect()
 * fills caller storage released with history_release().
 */
#ifndef AIRSPACE_GIT_HISTORY_H
#define AIRSPACE_GIT_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/workset.h"
#include "git/repo.h"
#include "util/error.h"
#include "util/strmap.h"

struct history_cache;

struct history_options {
    const char *rev; /* "A..B" or one revision; NULL: HEAD */
    bool all;        /* instead of rev: every branch, remote-tracking branch
                        and tag, and HEAD; main line: HEAD's first parents */
    int64_t since_s; /* merges committed at or after (Unix s); 0: all */
    size_t max;      /* the newest max merge commits only; 0: all */
    size_t max_side; /* skip merges with a longer side; 0: no limit */
};

/* Defaults: rev NULL, since_s 0, max 0, max_side 1000. */
void history_options_init(struct history_options *o);

enum history_skip {
    HISTORY_SKIP_OCTOPUS = 0, /* more than two parents */
    HISTORY_SKIP_CRISSCROSS,  /* several merge bases */
    HISTORY_SKIP_NO_BASE,     /* unrelated histories */
    HISTORY_SKIP_EMPTY_SIDE,  /* a parent is the merge base */
    HISTORY_SKIP_LARGE_SIDE,  /* a side longer than max_side */
    HISTORY_SKIP_SHALLOW,     /* reaches past a shallow clone's cut */
    HISTORY_SKIP_MISSING,     /* needs an object the repository lacks
                                 (found by the replay: history_missing()) */
    HISTORY_NSKIP
};

/* "octopus", "criss_cross", "no_base", "empty_side", "large_side",
 * "shallow", "missing_object". */
const char *history_skip_name(enum history_skip s);

struct history_commit {
    char oid[41], tree[41];
    int64_t time_ms;   /* committer time */
    bool on_base;      /* B is in its history (else: replay it onto B) */
    char fork[41];     /* when not on_base: where it forked from B's line
                          (the merge base of B and it), known when its one
                          parent is in B's history, or "": not looked up */
    int32_t parent_at; /* its one parent's place in the side, or -1 (a
                          merge commit, or a parent in B's history) */
};

struct history_merge {
    char oid[41], base[41], base_tree[41];
    int64_t base_time_ms; /* the base's committer time */
    char parent[2][41];   /* first and second parent */
    int64_t time_ms;      /* the merge's committer time, or the latest time
                             of a commit it merges if a skewed clock dated it
                             earlier */
    bool mainline;        /* on the first-parent chain of the walk's start */
    struct history_commit *side[2]; /* B..P, oldest first */
    size_t nside[2];
};

struct history {
    struct history_merge *m; /* oldest merge first */
    size_t n, alloc;
    size_t merges_seen; /* merge commits in range (kept or skipped) */
    size_t skipped[HISTORY_NSKIP];
};

/*
 * Collect the merges of o's range into out (zeroed here). Returns 0,
 * AS_ENOENT when a revision does not resolve (with all: when no ref names
 * a commit), AS_EINVAL for a malformed range or rev with all, or AS_EGIT.
 */
int history_collect(struct repo *r, const struct history_options *o,
    struct history *out, struct as_err *e);
void history_release(struct history *h);

/*
 * The diff base -> tree that history_workset_raw() made a working set from,
 * before rename detection: one delta per path, in the diff's order.
 */
struct history_delta {
    char *path;
    char *key;        /* status, both blobs and modes, path */
    bool modified;    /* GIT_DELTA_MODIFIED (never a rename's source or
                         target, nor a directory rename's evidence) */
    git_oid id[2];    /* the entry in the base tree and in the tree */
    uint32_t mode[2]; /* their modes; 0: no entry (added, deleted) */
};

struct history_raw {
    struct history_delta *v;
    size_t n, alloc;
    struct strmap paths; /* path -> index into v */
    /* the two trees v is the diff of, when it holds every path where they
     * differ ("": not known): the next diff from the same base starts
     * from it and the paths where tree and the next tree differ */
    char base[41], tree[41];
};

void history_raw_init(struct history_raw *r);
void history_raw_release(struct history_raw *r);

/*
 * Fill out (freshly agent_init()ed by the caller, no files) with the
 * working set from tree base_tree to tree tree (hex ids): files sorted, base
 * paths, ranges in base coordinates (a pure insertion after line k is
 * [k, k], 1 at the top). tree_oid becomes tree. A file's changed_at_ms is
 * now_ms unless prev (the same side's previous working set, or NULL) has
 * the file with the same status, line counts and ranges, whose time it
 * keeps. Weights are left for the caller. Returns 0, AS_ENOENT or AS_EGIT.
 *
 * raw, when not NULL, is released here and refilled (when cache is not
 * NULL) with the diff's deltas. When it held the diff from the same base
 * to another tree (the side's previous commit), the paths where the two
 * trees differ are found from it and the diff between that tree and this
 * one, without walking the base's tree again; the result is the same.
 */
int history_workset_raw(struct repo *r, const char *base_tree, const char *tree,
    const struct agent *prev, int64_t now_ms, struct history_cache *cache,
    struct agent *out, struct history_raw *raw, struct as_err *e);

/*
 * What history_workset_raw() computed for each delta (status, blobs, modes and
 * paths on both sides): the walk diffs many trees from one base, and most
 * files' deltas repeat from one commit to the next, so each is diffed once.
 * It also keeps what rename detection made of a diff's deltas other than
 * modifications (with GIT_DIFF_FIND_RENAMES alone only deleted, added and
 * type-changed files are its sources and targets, so the outcome depends
 * on them alone): a later diff with the same such deltas takes it from
 * here instead of comparing every added file with every deleted one again.
 * cache may be NULL (no caching); the result is the same either way. Every
 * entry is keyed by what decides it (blob ids, modes, paths), so it holds
 * for any base: a replay keeps it from one merge to the next (neighbouring
 * merges share most of their deltas) and clears it when it grows large.
 * Not thread-safe: one per thread.
 */
struct history_cache *history_cache_new(void);
void history_cache_clear(struct history_cache *c);
void history_cache_free(struct history_cache *c);
/* Entries held: deltas' effects plus rename detection's outcomes. */
size_t history_cache_size(const struct history_cache *c);

/*
 * Tune libgit2's process-wide object cache for a walk that reads the same
 * trees and blobs many times: blobs and trees up to 1 MiB are cached (384
 * MiB in all), and objects read are not hashed again to check their ids.
 * Results are unchanged.
 */
void history_tune_reads(void);

/*
 * The tree of commit_oid's own changes replayed onto base_oid (hex ids),
 * into out: commit's tree when it contains base (or shares no history with
 * it); otherwise the three-way merge of base and commit over their merge
 * base (git merge-tree --write-tree base commit), with each path the merge
 * could not settle taken from commit, counted in *nconflicts (the merge
 * runs on the trees cut down to the paths where base or commit differ from
 * the merge base, and its outcome updates base's tree: the same tree, as
 * long as no changed path lies under another). fork_oid is
 * that merge base when already known (history_commit.fork), else NULL or
 * "" to look it up. The tree goes to the in-memory object store (repo.h).
 * Returns 0, AS_EINVAL, AS_ENOENT or AS_EGIT.
 */
int history_own_tree(struct repo *r, const char *base_oid,
    const char *commit_oid, const char *fork_oid, char out[41],
    size_t *nconflicts, struct as_err *e);

/*
 * history_own_tree() of commit_oid from that of an earlier commit of the
 * same side with the same fork point fork_oid: prev_tree is the earlier
 * commit's tree, prev_own its replayed tree (hex ids). When the two
 * commits' trees differ only by modifications of files B's line has not
 * changed since the fork (each file there in the fork and in both commits
 * as the same kind of entry), or by files the side adds (in neither the
 * fork nor B, no file of B's where one needs a directory) while it has
 * deleted nothing since the fork, each such file merges as a one-sided
 * change - the commit's version - and takes part in nothing else (a
 * rename pairs a deletion with an addition on one side; the two commits
 * delete the same files), so every other path merges as before: the
 * replayed tree is prev_own with those files updated. 0 with out set, 1
 * when that does not hold (history_own_tree() then), or an error.
 */
int history_own_tree_step(struct repo *r, const char *base_oid,
    const char *fork_oid, const char *prev_tree, const char *prev_own,
    const char *commit_oid, char out[41], struct as_err *e);

/*
 * Where commit_oid forked from base_oid's line: git_merge_base()'s answer
 * into out ("" when they share no history), and in *unique whether it is
 * their only merge base (then a one-parent child of the commit forks
 * there too; with several, which one git_merge_base() names could
 * depend on the walk). Returns 0 or AS_EGIT.
 */
int history_fork(struct repo *r, const char *base_oid, const char *commit_oid,
    char out[41], bool *unique, struct as_err *e);

/*
 * Whether replaying m needs an object the repository lacks (a snapshot
 * without its largest blobs, a partial clone): every tree and blob of the
 * trees of m's base, of each side commit and of each replayed commit's
 * fork point. Returns 1 with the first missing object's id in out, 0 when
 * all are there, or AS_EGIT. Reads every entry of the first tree and then
 * only the subtrees not seen yet: meant for after a replay failed.
 */
int history_missing(struct repo *r, const struct history_merge *m, char out[41],
    struct as_err *e);

#endif
