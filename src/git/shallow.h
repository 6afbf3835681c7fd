/*
 * shallow.h - walking the history of a shallow clone.
 *
 * A clone made with `git clone --depth N` (the default of many CI
 * checkouts) lacks the parents of the commits listed in
 * $GIT_COMMON_DIR/shallow, "the cut". git treats those commits as roots;
 * libgit2 1.5 does not: its revision walk and merge-base search read every
 * parent and fail with "object not found" at the cut. The functions here
 * walk such a clone themselves, with the cut's commits as roots, so merge
 * bases and ranges are what git finds in that clone. Each walk reads the
 * history at hand, which the clone's depth bounds; callers use them only
 * when the cut is not empty and keep libgit2's walks otherwise.
 *
 * Reads only. Ownership: arrays returned through out-parameters are the
 * caller's to free(); a cut is a strmap the caller inits and releases.
 */
#ifndef AIRSPACE_GIT_SHALLOW_H
#define AIRSPACE_GIT_SHALLOW_H

#include <git2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "util/strmap.h"

/* Fill cut (initialised by the caller) with the commits of g's shallow
 * list, as 40-hex keys; left empty for a complete repository. Returns 0 or
 * AS_EIO. */
int shallow_cut_load(git_repository *g, struct strmap *cut, struct as_err *e);

/* Whether id is in the cut (its parents are not here). */
bool shallow_in_cut(const struct strmap *cut, const git_oid *id);

struct shallow_commit {
    git_oid id;
    int64_t time; /* committer time, Unix seconds */
};

/* qsort order: newest first, equal times by id. */
int shallow_commit_cmp(const void *a, const void *b);

/*
 * Every commit reachable from start, not through the cut's parents and not
 * into a commit already in seen; marks them in seen, and appends them to
 * *out (grown with *n, *alloc) when out is not NULL. *hit_cut (if not
 * NULL) is set when the walk reached a commit of the cut. Returns 0 or
 * AS_EGIT.
 */
int shallow_reach(git_repository *g, const git_oid *start,
    const struct strmap *cut, struct strmap *seen, struct shallow_commit **out,
    size_t *n, size_t *alloc, bool *hit_cut, struct as_err *e);

/*
 * Merge bases of p1 and p2 as git finds them in the clone: the common
 * ancestors inside the history at hand that no other common ancestor
 * reaches, into *out (*nout of them, 0 when none is here). *hit_cut as in
 * shallow_reach. Returns 0 or AS_EGIT.
 */
int shallow_merge_bases(git_repository *g, const git_oid *p1, const git_oid *p2,
    const struct strmap *cut, git_oid **out, size_t *nout, bool *hit_cut,
    struct as_err *e);

/*
 * The commits any of the ntips tips reaches and hide (NULL: nothing) does
 * not, each once, newest first (commit time, then id), into *ids (*nids).
 * Returns 0 or AS_EGIT.
 */
int shallow_range(git_repository *g, const git_oid *tips, size_t ntips,
    const git_oid *hide, const struct strmap *cut, git_oid **ids, size_t *nids,
    struct as_err *e);

/*
 * git_merge_base() for any repository: libgit2's when g is complete, else
 * the first of shallow_merge_bases(). Returns 0, GIT_ENOTFOUND when there
 * is no merge base (here), or another negative libgit2 error (e set).
 */
int shallow_merge_base(git_oid *out, git_repository *g, const git_oid *a,
    const git_oid *b, struct as_err *e);

#endif
