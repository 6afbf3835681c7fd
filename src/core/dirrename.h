/*
 * dirrename.h - directory renames in a three-way merge, as git's merge-ort
 * finds them (merge.directoryRenames=conflict, git's default).
 *
 * Pure: paths in, paths out. libgit2's merge detects file renames but not
 * directory renames, so a merge git reports as conflicted can look clean:
 * one side moves a directory d/ to e/ (d/ is gone on that side), the other
 * adds d/new.c; git moves the new file to e/new.c and stops with
 * "CONFLICT (file location)". This module takes, for one side S:
 *
 *   renames  S's file renames (old path in the base, new path in S)
 *   removed  directories of the base that S no longer has: those O added
 *            a file directly in ("self"), and the ones below them
 *   added    paths the other side O added (or renamed a file to)
 *
 * and says which of O's paths land somewhere else, and whether a
 * directory's files went to several places with no majority (git's
 * "CONFLICT (directory rename split)", which lists no path).
 *
 * The rule, as merge-ort has it. Only removed directories take part:
 * "self" ones, in which O added a file directly, and those below a self
 * one. Each rename old -> new votes "dirname(old) was renamed to
 * dirname(new)"; then, while the two directories' last components are
 * equal and the old one takes part, it votes for their parents too, where
 * the parent is a self directory (so d/x/f -> e/x/f votes d/x -> e/x, and
 * d -> e when d is self). No vote goes to a directory onto itself or to
 * the top level. A directory that takes part is renamed to the target
 * with the most votes; a tie is a split, a conflict whether or not O added
 * anything in it. An added path is moved by its deepest ancestor directory
 * that takes part and is renamed; its new location replaces that prefix.
 * Several added paths sent to the same new location are not moved: a
 * conflict ("implicit dir rename") with no path.
 */
#ifndef AIRSPACE_CORE_DIRRENAME_H
#define AIRSPACE_CORE_DIRRENAME_H

#include <stdbool.h>
#include <stddef.h>

struct dirrename_pair {
    const char *old_path, *new_path;
};

struct dirrename_result {
    char **moved; /* new locations of affected added paths, sorted, unique */
    size_t nmoved;
    char **from; /* the affected added paths themselves, sorted, unique */
    size_t nfrom;
    bool split;     /* a directory that takes part had no majority */
    bool collision; /* several added paths were sent to one location */
};

/*
 * Find the directory renames of one side and apply them to the other
 * side's added paths. self_dirs: S's removed directories in which O added
 * a file directly; below_dirs: the base directories below those; exclude:
 * the directories O renamed (dirrename_renamed() of O), into which nothing
 * is moved. No list need be sorted; none of the inputs is kept. The result is
 * caller storage, released with dirrename_result_release().
 */
void dirrename_apply(const struct dirrename_pair *renames, size_t nrenames,
    const char *const *self_dirs, size_t nself, const char *const *below_dirs,
    size_t nbelow, const char *const *added, size_t nadded,
    const char *const *exclude, size_t nexclude, struct dirrename_result *out);

/*
 * The directories one side renamed (taking part, with a majority target):
 * git's dir_renames of that side, which are the other side's exclude list
 * in dirrename_apply(): git does not move a path into a directory that the
 * path's own side renamed away. Sorted; the caller frees each and *out.
 */
void dirrename_renamed(const struct dirrename_pair *renames, size_t nrenames,
    const char *const *self_dirs, size_t nself, const char *const *below_dirs,
    size_t nbelow, char ***out, size_t *nout);

void dirrename_result_release(struct dirrename_result *r);

/* Whether the result makes the merge conflicted. */
static inline bool
dirrename_conflicted(const struct dirrename_result *r)
{
    return r->nmoved > 0 || r->split || r->collision;
}

#endif
