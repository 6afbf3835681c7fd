/*
 * land.h - land a branch (an agent's `airspace/NAME`) on another (the
 * integration branch) without touching any index or working tree that
 * is not the target's own.
 *
 *   1. land_prepare() reads both tips, their merge base, the paths the
 *      source changed since that base (what the scope check judges), and
 *      merges the tips in memory with git's rename rules (merge.h): the
 *      conflicting paths, if any. It writes nothing.
 *   2. land_apply() does it: a fast-forward when the target is an
 *      ancestor of the source, else a two-parent merge commit (target tip
 *      first, source tip second) whose tree is git's merge of the two. The
 *      commit is created without a ref update; the target branch moves to
 *      it by compare-and-swap against the tip it was built on. A lost swap
 *      (the target moved) is redone on the new tip when the merge is still
 *      clean, and refused (AS_ECONFLICT) when it no longer is.
 *
 * The target checked out in a worktree (typically the main working tree
 * on `main`): moving its ref alone would leave that tree's index and
 * files behind, and a later `git commit -a` there would undo the land.
 * So, as `git merge` does, the land is refused when that worktree has
 * uncommitted changes (staged, unstaged or untracked in the way) to any
 * path the land changes in the target, or an operation in progress; and
 * otherwise its index lock (`index.lock`, git's protocol) is held across
 * the swap, the changed paths are checked out in its files and index
 * (libgit2's safe checkout from the old tip's tree) and the index is
 * renamed into place. A lock that stays held refuses the land with
 * nothing changed. Its other changes are left alone. libgit2's checkout
 * runs no filter driver and no working-tree-encoding, so a land that
 * would check out a path with one there (a smudge or process driver
 * configured for its `filter` attribute, such as Git LFS, by the
 * attributes of that worktree or of the source; commit_filter_of()) is
 * refused before anything moves: `git merge` lands it.
 *
 * Either branch in the hands of an operation in progress in any
 * worktree refuses the land (AS_ECONFLICT, nothing changed, checked by
 * land_prepare() and again before each swap): a rebase of it
 * (`rebase-merge/head-name`, `rebase-apply/head-name`) or a bisect
 * started from it (`BISECT_START`), whose worktree has a detached HEAD
 * meanwhile, or a merge, cherry-pick, revert, rebase or bisect where it
 * is checked out. A rebase ends by setting its branch to what it rebuilt
 * from the tip it started on, which would drop the land; git counts such
 * a branch as checked out too.
 *
 * Objects of a real land go to the repository's object directory;
 * a dry run merges in memory (repo.h) and writes nothing.
 *
 * Ownership: land_prepare() fills a plan, release it with
 * land_plan_release(); land_apply() fills a result, release it with
 * land_result_release(), either way. Not thread-safe.
 */
#ifndef AIRSPACE_GIT_LAND_H
#define AIRSPACE_GIT_LAND_H

#include <stdbool.h>
#include <stddef.h>

#include "git/commit.h"
#include "util/error.h"

struct land_plan {
    char *source; /* short branch names */
    char *target;
    char source_tip[41]; /* commit ids at prepare time */
    char target_tip[41];
    char base[41];     /* their merge base */
    bool up_to_date;   /* the target already contains the source */
    bool fast_forward; /* the source contains the target */
    char **files;      /* paths the source changed since the base
                          (both sides of a rename), sorted */
    size_t nfiles;
    char **conflicts; /* conflicting paths of the merge, sorted */
    size_t nconflicts;
    char *worktree; /* the worktree with the target checked out, or
                       NULL */
};

void land_plan_release(struct land_plan *p);

/*
 * Plan landing branch source on branch target, in the repository
 * containing directory from. Returns 0 (conflicts are a result, not an
 * error); AS_ENOENT (from is not in a repository, or a branch does not
 * exist); AS_EINVAL (source and target are one branch, or share no
 * history); AS_ECONFLICT (either branch is in an operation in progress
 * in some worktree, see above; the message names the worktree and the
 * operation); AS_EGIT.
 */
int land_prepare(const char *from, const char *source, const char *target,
    struct land_plan *p, struct as_err *e);

/*
 * The working tree containing directory from: its top directory (*top,
 * no trailing slash) and the branch its HEAD names (*branch, short name);
 * new strings. Returns 0, AS_ENOENT (not in a working tree: a bare
 * repository or none), AS_EINVAL (HEAD is detached or unborn; *top is
 * set), AS_EGIT.
 */
int land_here(const char *from, char **top, char **branch, struct as_err *e);

/* Called just before each ref update (tests move the target in it). */
typedef void land_hook_fn(void *ctx, unsigned attempt);

struct land_options {
    const char *message;         /* NULL: "Land SOURCE into TARGET" */
    bool dry_run;                /* every check, nothing written */
    unsigned max_attempts;       /* ref updates to try (0: 64) */
    unsigned index_tries;        /* tries for a worktree's index lock (0: 5) */
    unsigned index_wait_ms;      /* between them (0: 40) */
    land_hook_fn *before_update; /* may be NULL */
    void *hook_ctx;
};

struct land_file {
    char *path;
    enum commit_status status; /* its change in the target */
};

struct land_result {
    char commit[41]; /* the target's new tip (dry run: "" for a merge
                        not made) */
    char parent[41]; /* the tip it replaced */
    bool up_to_date; /* nothing to land (the target contains it) */
    bool fast_forward;
    unsigned retries;        /* swaps lost to another update of the target */
    struct land_file *files; /* what changed in the target, sorted */
    size_t nfiles;
    char *worktree;        /* the checked-out target's worktree, or NULL */
    bool worktree_updated; /* its files and index follow the land */
    char *note;            /* a warning, or NULL */
};

void land_result_release(struct land_result *r);

/*
 * Land p->source on p->target as described at the top; the tips are read
 * again (p gives the branches, and the worktree to keep in step). Author
 * and committer as commit_identity(). The reflog entry reads
 * "land (airspace): <subject>" or "land (airspace): fast-forward".
 * Fills res (release it either way). Returns 0 (res->up_to_date when the
 * target meanwhile contains the source: nothing done); AS_ECONFLICT
 * (nothing landed: the merge conflicts, or uncommitted changes in the
 * target's worktree, or a path to check out there through a filter
 * driver or working-tree-encoding, or its index stayed locked, or the
 * branch was deleted — the message names the paths); AS_EINVAL (no identity, an
 * empty message); AS_EIO (the target kept moving); AS_EGIT (also when the
 * land is made but does not read back as intended: the message says so).
 * When the ref moved but the worktree could not be brought in line, 0
 * with res->note saying how to repair it.
 */
int land_apply(const char *from, const struct land_plan *p,
    const struct land_options *o, struct land_result *res, struct as_err *e);

#endif
