/*
 * treediff.h - the paths at which two trees hold different entries,
 * found without reading a subtree both hold unchanged.
 *
 * libgit2's tree-to-tree diff reads every directory of both trees; on a
 * large tree whose two versions differ in a few files that is most of
 * its cost. This walk descends only into directories whose ids differ,
 * so it reads the directories on the way to the changes and no others.
 * The set of paths is the set at which git_diff_tree_to_tree() reports a
 * delta (a file under a directory only one tree has counts, a file that
 * becomes a directory gives both).
 */
#ifndef AIRSPACE_GIT_TREEDIFF_H
#define AIRSPACE_GIT_TREEDIFF_H

#include <git2.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* A path where two trees differ: each side's entry (mode 0: none). */
struct tree_leaf {
    char *path;
    git_oid id[2];
    uint32_t mode[2];
};

struct tree_leaves {
    struct tree_leaf *v;
    size_t n, alloc;
};

/*
 * Every path at which trees a and b (either may be NULL: empty) hold
 * different entries, files under a directory only one of them has
 * included, appended to ll under prefix ("" at the root); unsorted, and a
 * path both hold as different kinds (a file and a directory's file) comes
 * twice until tree_leaves_fold(). 0 or an error (ll keeps what was found).
 */
int tree_changed_leaves(git_repository *g, git_tree *a, git_tree *b,
    const char *prefix, struct tree_leaves *ll, struct as_err *e);

/* Sort ll by path and fold each path's two entries into one. */
void tree_leaves_fold(struct tree_leaves *ll);

void tree_leaves_release(struct tree_leaves *ll);

/* The status libgit2's tree diff with GIT_DIFF_INCLUDE_TYPECHANGE gives
 * the delta at a folded leaf: added, deleted, modified (same kind of
 * entry), or type change (a file made a symbolic link, and the like). */
git_delta_t tree_leaf_status(const struct tree_leaf *l);

#endif
