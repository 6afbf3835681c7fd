/*
 * commit.h - scoped commits: commit chosen files of one working tree
 * without ever taking its index lock.
 *
 * Several agents sharing one working tree each commit only their own files.
 * git commit would take `.git/index.lock` (and fail when another process
 * holds it), stage through the shared index, and commit whatever else is
 * staged there. Here the commit is built apart from all of that:
 *
 *   1. the chosen files are read once from the working tree (content as
 *      `git add` would store it, through the filters; mode from lstat:
 *      executable bit, symbolic link) and written as blobs;
 *   2. HEAD's tree is read into an in-memory index (git_index_new), the
 *      chosen files are put in or taken out, the tree is written and
 *      checked against HEAD's (exactly the chosen paths differ, with the
 *      intended blob and mode), and a commit is made on HEAD;
 *   3. the branch (or a detached HEAD) moves to it by compare-and-swap
 *      against the commit the tree was built on. When another commit got
 *      there first, the tree is rebuilt on it and the swap retried
 *      (bounded) — unless that commit changed one of the chosen paths, in
 *      which case nothing is committed (AS_ECONFLICT);
 *   4. the result is read back through a fresh handle (the commit, its
 *      parent and each chosen path's blob and mode);
 *   5. the worktree's own index is brought in line for the committed
 *      paths only — those HEAD still holds as committed (a later commit
 *      of the same path keeps its own entry) — best-effort, under git's
 *      lock protocol: it is left alone when the lock stays held (the
 *      commit stands; res->index_note says so).
 *
 * Objects go to the repository's object directory, so this module opens
 * its own libgit2 handle: a struct repo (repo.h) writes only to memory.
 *
 * Ownership: commit_open() returns a new handle, free with commit_close().
 * The file lists and results are the caller's (commit_files_free(),
 * commit_result_release()). Not thread-safe.
 */
#ifndef AIRSPACE_GIT_COMMIT_H
#define AIRSPACE_GIT_COMMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <git2.h>

#include "util/error.h"

struct commit_tree; /* one working tree, opened for committing */

enum commit_status {
    COMMIT_ADDED,
    COMMIT_MODIFIED,
    COMMIT_DELETED,
    COMMIT_MODE,      /* only the executable bit changed */
    COMMIT_TYPECHANGE /* file <-> symbolic link */
};

/* "added", "modified", "deleted", "mode", "typechange". */
const char *commit_status_name(enum commit_status s);

struct commit_file {
    char *path; /* repository-relative, normalised */
    enum commit_status status;
    uint32_t mode;  /* the new mode; 0 when deleted */
    git_oid blob;   /* the new blob; zero when deleted */
    struct stat st; /* lstat of the working file when it was read */
};

void commit_files_free(struct commit_file *v, size_t n);

/*
 * Open the working tree containing dir (any directory in it). Reads HEAD
 * once: every later comparison is against that commit ("the start").
 * Returns 0, AS_ENOENT (not in a working tree), AS_EINVAL (a bare
 * repository, or HEAD names something other than a branch), AS_ECONFLICT
 * (a merge, rebase, cherry-pick or revert in progress: finish it with git
 * first), AS_EGIT.
 */
int commit_open(const char *dir, struct commit_tree **out, struct as_err *e);
void commit_close(struct commit_tree *t);

/* The working tree's top directory (absolute, real path, no trailing
 * slash); borrowed. */
const char *commit_toplevel(const struct commit_tree *t);
/* Whether it is the main working tree (not a linked `git worktree`). */
bool commit_is_main(const struct commit_tree *t);

/*
 * Every path whose working-tree state differs from the start: modified,
 * deleted, type or mode changed, and untracked files not ignored. Staged
 * entries count only through their working file. Paths outside a sparse
 * checkout and submodules are left out. New sorted array of new strings in
 * *paths (free each and the array). Returns 0 or AS_EGIT.
 */
int commit_changed_paths(
    struct commit_tree *t, char ***paths, size_t *n, struct as_err *e);

enum {
    /* Each spec must name a change: a file that differs from the start, or
     * a directory with such files under it (expanded); anything else is
     * AS_EINVAL naming it. Without it, specs are files and those without
     * a change are dropped silently. */
    COMMIT_SELECT_STRICT = 1 << 0,
};

/*
 * Read the files named by specs (normalised repository-relative paths,
 * see util/path.h) from the working tree and write their blobs. Result:
 * one commit_file per changed file, sorted by path, without duplicates, in
 * *files (free with commit_files_free()). A path whose type switched (a
 * file where HEAD has a directory, or the reverse) brings both sides: the
 * path itself and the changes under it. A path under the git directory,
 * beyond a symbolic link, inside a submodule, ignored and untracked,
 * outside the sparse checkout, a submodule or a nested repository, or
 * neither a regular file nor a symbolic link is refused (AS_EINVAL) in
 * strict mode and dropped otherwise. A file `git add` would pass through
 * a filter driver or a working-tree-encoding (which libgit2 cannot run)
 * is refused in either mode. Returns 0, AS_EINVAL (message names the
 * path), AS_EIO, AS_EGIT.
 */
int commit_select(struct commit_tree *t, char *const *specs, size_t nspecs,
    unsigned flags, struct commit_file **files, size_t *nfiles,
    struct as_err *e);

enum commit_filter {
    COMMIT_FILTER_NONE = 0,
    COMMIT_FILTER_DRIVER,   /* a filter driver (*value: its name) */
    COMMIT_FILTER_ENCODING, /* a working-tree-encoding (*value: it) */
};

/*
 * Whether git would pass path through what libgit2 cannot run: a filter
 * driver configured in cfg for its `filter` attribute (Git LFS, for one:
 * its clean or process command going in, checkout false; its smudge or
 * process command going out to the working tree, checkout true) or a
 * `working-tree-encoding` other than UTF-8. Attributes read in g with
 * opts (NULL: the working tree's .gitattributes, then the index's).
 * Returns an enum commit_filter with *value (new string, or NULL for
 * none), or AS_EGIT. commit_select() refuses the files it names.
 */
int commit_filter_of(git_repository *g, git_config *cfg, git_attr_options *opts,
    const char *path, bool checkout, char **value, struct as_err *e);

/* Called just before each ref update (tests move the branch in it), and
 * once before the index update. */
typedef void commit_hook_fn(void *ctx, unsigned attempt);

struct commit_options {
    const char *message;    /* required; cleaned up as `git commit -m` does */
    unsigned max_attempts;  /* ref updates to try (0: 64) */
    unsigned index_tries;   /* tries for the index lock (0: 5) */
    unsigned index_wait_ms; /* between them (0: 40) */
    commit_hook_fn *before_update; /* may be NULL */
    commit_hook_fn *before_index;  /* before the index update; may be NULL */
    void *hook_ctx;
};

struct commit_result {
    char commit[41];
    char parent[41];    /* "" for a root commit */
    char *branch;       /* short name; NULL when detached */
    char *subject;      /* the message's first line */
    bool root;          /* the first commit of its branch */
    unsigned retries;   /* ref updates lost to another commit */
    bool index_updated; /* the worktree's index matches for these paths */
    char *index_note;   /* why not, when not (NULL otherwise) */
};

void commit_result_release(struct commit_result *r);

/*
 * Commit files (from commit_select(), n > 0) on the branch HEAD names, as
 * described at the top. Author and committer are git's: GIT_AUTHOR_NAME /
 * GIT_AUTHOR_EMAIL / GIT_AUTHOR_DATE (and GIT_COMMITTER_*), else
 * author.* / committer.* and user.name / user.email from the repository's
 * configuration, at the current time. The reflog entry reads
 * "commit (airspace): <subject>". Fills res (release it either way).
 * Returns 0; AS_EINVAL (empty message, no identity, a date that does not
 * parse); AS_ECONFLICT (nothing committed: a chosen path was changed by a
 * commit made since the start, the branch was rewound or deleted, HEAD
 * moved to another branch, or the tree would change a path not chosen —
 * the message names the path and the commit); AS_EIO (the branch kept
 * moving); AS_EGIT (also when the commit was made but does not read back
 * as intended: the message says so).
 */
int commit_create(struct commit_tree *t, const struct commit_file *files,
    size_t n, const struct commit_options *o, struct commit_result *res,
    struct as_err *e);

/*
 * The author or committer identity git would use in this repository
 * (which is "author" or "committer"): new signature in *out (free with
 * git_signature_free()). Returns 0 or AS_EINVAL with a message saying
 * what to set.
 */
int commit_identity(struct commit_tree *t, const char *which,
    git_signature **out, struct as_err *e);

/* commit_identity() for any repository handle g; where names it in the
 * message (its directory). */
int commit_identity_in(git_repository *g, const char *where, const char *which,
    git_signature **out, struct as_err *e);

#endif
