/*
 * indexlock.h - changing a worktree's index the way git does, beside git.
 *
 * git's protocol: `<index>.lock` is created exclusively (whoever holds it
 * may write the index), the new index is written, then renamed over the
 * index. Here the new index is a copy of the current one that libgit2
 * edits (index_lock_take gives it open), written to a temporary file that
 * is renamed into the lock and the lock over the index
 * (index_lock_commit), so a reader sees the old index or the new one and
 * a concurrent `git add` waits or fails instead of being lost.
 *
 * Racy git: an entry whose file changed in the same second the index was
 * written, to the same size, looks clean by its stat data; git reads such
 * entries' contents because their time is not older than the index's.
 * Rewritten with a newer time, the index would hide that change from `git
 * status` for good. libgit2 guards against it (it compares those entries
 * with the files and marks the changed ones) only for an index that a
 * repository owns and judged against the index file's time: so the copy
 * keeps the index's modification time, to the second as git judges (its
 * nanoseconds zero, or libgit2 would pass over an entry written earlier in
 * that second), and is owned by a handle of the worktree.
 *
 * Ownership: the struct is the caller's; index_lock_commit() and
 * index_lock_abort() release what it holds (the lock file included).
 */
#ifndef AIRSPACE_GIT_INDEXLOCK_H
#define AIRSPACE_GIT_INDEXLOCK_H

#include <stdbool.h>

#include <git2.h>

#include "util/error.h"

struct index_lock {
    git_repository *owner; /* the worktree, owning idx (racy-git checks
                              read its files) */
    git_index *idx;   /* the copy, to edit; NULL before index_lock_take() */
    char *index_path; /* the index */
    char *lock;       /* <index_path>.lock, held while locked */
    char *tmp;        /* the copy's file, beside the index */
    bool locked;
};

/*
 * Take the lock of index_path, the index of the worktree at workdir (NULL:
 * that worktree's own index) (up to `tries` attempts, wait_ms apart), and
 * open a copy of it (an empty one when there is none) in l->idx, owned by
 * a handle of that worktree of its own. Returns 0; AS_ECONFLICT when the
 * lock stayed held (e names the file); AS_EIO or AS_EGIT otherwise. On
 * failure nothing is held.
 */
int index_lock_take(struct index_lock *l, const char *workdir,
    const char *index_path, unsigned tries, unsigned wait_ms, struct as_err *e);

/* Write l->idx and put it in place of the index; the lock is released
 * either way. Returns 0, or AS_EIO / AS_EGIT (the index is as it was). */
int index_lock_commit(struct index_lock *l, struct as_err *e);

/* Give up: the copy is removed and the lock released; the index is as it
 * was. Safe on a zeroed or released struct. */
void index_lock_abort(struct index_lock *l);

#endif
