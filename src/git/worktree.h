/*
 * worktree.h - a worktree and a branch per agent: `airspace agent new` and
 * `airspace agent rm`.
 *
 * An agent NAME flies in its own linked worktree on the branch
 * `airspace/NAME`, made from a base commit. Removing it deletes the
 * working tree (refused while it holds uncommitted work, unless forced)
 * and deletes the branch only when the integration branch already
 * contains it: unmerged commits are never thrown away.
 *
 * Writes through its own libgit2 handles (a struct repo, repo.h, writes
 * only to memory). Strings in results are new; release them with
 * worktree_info_release().
 */
#ifndef AIRSPACE_GIT_WORKTREE_H
#define AIRSPACE_GIT_WORKTREE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

#define WORKTREE_BRANCH_PREFIX "airspace/"
#define WORKTREE_NAME_MAX 64

/*
 * Whether name can name an agent, its branch and its directory: 1 to 64
 * letters, digits, '.', '_' and '-', not starting with '.' or '-', no "..",
 * not ending in ".lock" or ".".
 */
bool worktree_name_valid(const char *name);

/*
 * The agent name of a worktree found in the repository (by `airspace scan`
 * and the daemon alike): its branch without WORKTREE_BRANCH_PREFIX (the
 * name `airspace agent new` gave it, which `land` takes), else its branch,
 * else (detached) the worktree's own name. Borrowed from the arguments.
 */
const char *worktree_agent_name(const char *branch, const char *name);

/*
 * The default directory of agent name's worktree: beside the main working
 * tree main_workdir, `<parent>/<its name>.airspace/<name>`. New string.
 */
char *worktree_default_dir(const char *main_workdir, const char *name);

struct worktree_info {
    char *name;          /* the agent */
    char *path;          /* the worktree's directory, absolute */
    char *branch;        /* short branch name; NULL when none */
    char base[41];       /* new: the commit it starts from; rm: its tip */
    bool branch_deleted; /* rm: the branch went with it */
    char *branch_kept;   /* rm: why the branch stays, or NULL */
    bool forced;         /* rm: uncommitted work was discarded */
};

void worktree_info_release(struct worktree_info *w);

/*
 * Make agent name's worktree: branch `airspace/<name>` at base (a revision
 * read in the worktree containing from; NULL: its HEAD) checked out in dir
 * (NULL: worktree_default_dir(); a relative dir is taken from the current
 * directory; its parents are made). Fills out. Returns 0; AS_EINVAL (a
 * name that is not valid, a base that is not a commit, no base given in a
 * bare repository without a dir); AS_ECONFLICT (the branch, the
 * directory or a worktree of that name exists: nothing was made; for the
 * branch, the message says what frees the name: `agent rm` when a linked
 * worktree is on it, `agent prune` when that worktree's directory is gone,
 * else `git branch -D`);
 * AS_ENOENT (from is not in a repository); AS_EGIT. On failure nothing
 * it made is left behind.
 */
int worktree_new(const char *from, const char *name, const char *base,
    const char *dir, struct worktree_info *out, struct as_err *e);

/*
 * Remove agent name's worktree: the linked worktree on branch
 * `airspace/<name>` (one whose directory is gone too, by its HEAD file),
 * else the one named name, else the one at path_hint
 * (may be NULL). Refused while it has uncommitted changes (modified,
 * staged, untracked not ignored) or is locked (`git worktree lock`),
 * unless force. Its branch `airspace/<name>` is deleted when the
 * integration branch contains it, else kept (out->branch_kept says why).
 * Returns 0; AS_ENOENT (no such worktree: the message names its branch
 * when that is left, and how to delete it); AS_EINVAL (it is the main
 * working tree); AS_ECONFLICT (uncommitted changes or locked: the
 * message names up to five paths); AS_EGIT.
 */
int worktree_remove(const char *from, const char *name, const char *path_hint,
    bool force, struct worktree_info *out, struct as_err *e);

/*
 * `airspace agent prune`: every linked worktree whose directory is gone
 * and whose HEAD names a branch `airspace/<name>` is pruned as `git
 * worktree prune` does (its administrative files removed; a locked one
 * is left alone, as git leaves it); its branch is then deleted when the
 * integration branch contains it, else kept (branch_kept says why).
 * Worktrees of other branches are left to `git worktree prune`. New array
 * in *out, one worktree_info per pruned worktree (name, path, branch,
 * base: the branch tip, branch_deleted, branch_kept); free each with
 * worktree_info_release() and the array with free(). With dry_run,
 * nothing is removed and the branches are not judged. Returns 0,
 * AS_ENOENT (from is not in a repository) or AS_EGIT.
 */
int worktree_prune_agents(const char *from, bool dry_run,
    struct worktree_info **out, size_t *n, struct as_err *e);

#endif
