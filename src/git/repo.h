/*
 * repo.h - one repository ("the airspace") as libgit2 sees it.
 *
 * A struct repo is opened from any directory inside any worktree and always
 * answers for the whole airspace: the common git directory all worktrees
 * share, the main worktree, its linked worktrees and local branches.
 *
 * Writes nothing to the repository. Objects that airspace has to create to
 * capture uncommitted work or to merge speculatively (see workset.h and
 * merge.h) go to an in-memory object store attached to the handle, at the
 * highest priority, and vanish with repo_free(); they are never written to
 * the repository's object directory (except by wip.h, which shares
 * snapshots with other daemons when configured to).
 *
 * Ownership: repo_open() returns a new handle, free with repo_free(). Strings
 * returned by accessors are borrowed for the life of the handle.
 * Not thread-safe: one handle per thread.
 */
#ifndef AIRSPACE_GIT_REPO_H
#define AIRSPACE_GIT_REPO_H

#include <stdbool.h>
#include <stddef.h>

#include <git2.h>

#include "util/error.h"

struct repo;

/*
 * Discover the repository containing path (any directory of any worktree)
 * and open the airspace. Returns 0, AS_ENOENT when path is not inside a
 * repository, or AS_EGIT.
 */
int repo_open(const char *path, struct repo **out, struct as_err *e);
void repo_free(struct repo *r);

/* The common git directory, absolute, no trailing slash. */
const char *repo_common_dir(const struct repo *r);
/* The main worktree's directory, absolute, no trailing slash; NULL if bare. */
const char *repo_main_workdir(const struct repo *r);
/* The main repository handle (borrowed; its object store includes the
 * in-memory store described above). */
git_repository *repo_git(struct repo *r);

/*
 * Drop every object created in memory so far (speculative merges, replayed
 * trees, snapshots of uncommitted work): ids handed out before may no longer
 * resolve. For long runs that are done with what they created, such as one
 * merge of a replay.
 */
void repo_forget_created(struct repo *r);

/*
 * The integration branch (short name, new string in *out): `airspace.
 * integration` from the configuration layers (config.h: the airspace files
 * and the repository's git config) if set, else the main worktree's current
 * branch. A detached main worktree without the setting is AS_ENOENT; a bad
 * configuration file is config_read()'s error.
 */
int repo_integration_branch(struct repo *r, char **out, struct as_err *e);
/* The same, and where the name came from in *from (a new string, for
 * messages: "config file '...'", "git config 'airspace.integration'" or
 * "the main worktree's branch"); from may be NULL. */
int repo_integration_branch_from(
    struct repo *r, char **out, char **from, struct as_err *e);

struct repo_worktree {
    char *name;    /* worktree name (the main one: its directory's name) */
    char *path;    /* absolute, no trailing slash */
    char *branch;  /* short branch name; NULL when detached or prunable */
    char head[41]; /* HEAD commit hex; "" when unborn or prunable */
    bool is_main;  /* the main worktree (always first) */
    bool prunable; /* its directory is gone; nothing else was read */
};

/*
 * List the worktrees: the main one first (unless the repository is bare),
 * then the linked ones sorted by name. Free with repo_worktrees_free().
 */
int repo_worktrees(
    struct repo *r, struct repo_worktree **out, size_t *n, struct as_err *e);
void repo_worktrees_free(struct repo_worktree *v, size_t n);

/* Local branch short names, sorted; free with repo_branches_free(). */
int repo_branches(struct repo *r, char ***names, size_t *n, struct as_err *e);
void repo_branches_free(char **names, size_t n);

/*
 * Resolve a revision (branch, oid, "HEAD", ...) in the main repository to a
 * commit id. Returns AS_ENOENT when it does not name a commit.
 */
int repo_resolve_commit(
    struct repo *r, const char *rev, git_oid *out, struct as_err *e);

/*
 * Open the worktree at path as its own libgit2 handle (for reading its index
 * and working files). New handle in *out, free with git_repository_free().
 */
int repo_open_worktree(
    struct repo *r, const char *path, git_repository **out, struct as_err *e);

/*
 * The working tree holding directory path (searching upwards, as git
 * does): its top directory in *top and the repository's common git
 * directory in *common_dir, both absolute real paths without a trailing
 * slash (new strings, free()). AS_ENOENT when path is in no working tree
 * (outside any repository, or in a bare one). Needs no repo_open().
 */
int repo_locate(
    const char *path, char **top, char **common_dir, struct as_err *e);

/*
 * Fill e with the formatted text, ": ", and libgit2's last error message;
 * returns AS_EGIT. For this layer's own adapters.
 */
int repo_git_errorf(struct as_err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
