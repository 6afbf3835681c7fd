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
 *   removed  directories of the base that S no longer has (only those that
 *            hold a path the other side added need be listed)
 *   added    paths the other side O added (or renamed a file to)
 *
 * and says which of O's paths land somewhere else, and whether a
 * directory's files went to several places with no majority (git's
 * "CONFLICT (directory rename split)", which lists no path).
 *
 * The rule, as merge-ort has it: each rename old -> new counts one vote for
 * "dirname(old) was renamed to dirname(new)", then, while the two
 * directories' last components are equal, for their parents too (so
 * d/x/f -> e/x/f votes d/x -> e/x and d -> e); votes count only for removed
 * directories and never for a directory onto itself or the top level. A
 * removed directory with votes is renamed to the target with the most; a
 * tie is a split. An added path is affected by its deepest ancestor
 * directory that is renamed (a split one is passed over, upward); its new
 * location replaces that prefix.
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
    bool split; /* some removed directory that O added to had no majority */
};

/*
 * Find the directory renames of one side and apply them to the other
 * side's added paths. removed need not be sorted; none of the inputs is
 * kept. The result is caller storage, released with
 * dirrename_result_release().
 */
void dirrename_apply(const struct dirrename_pair *renames, size_t nrenames,
    const char *const *removed, size_t nremoved, const char *const *added,
    size_t nadded, struct dirrename_result *out);

void dirrename_result_release(struct dirrename_result *r);

/* Whether the result makes the merge conflicted. */
static inline bool
dirrename_conflicted(const struct dirrename_result *r)
{
    return r->nmoved > 0 || r->split;
}

#endif
