/*
 * forward.h - the past the forward channel learns from: the merges
 * reachable from a commit (the history of the integration branch at that
 * moment), each as the paths its two sides changed (core/forward.h has the
 * channel).
 *
 * A side's paths are the tree diff of the merge base of the two parents
 * to that parent, names only, no rename detection, no blob read; a merge
 * with an empty side (a branch merged with nothing concurrent on the
 * other) is left out. Merges are diffed once per handle and kept. One
 * thread at a time per forward_hist.
 */
#ifndef AIRSPACE_GIT_FORWARD_H
#define AIRSPACE_GIT_FORWARD_H

#include <stdbool.h>
#include <stddef.h>

#include "core/forward.h"
#include "git/repo.h"
#include "util/error.h"

/* Past merges read to build a table: the newest this many. */
#define FORWARD_WINDOW 300
/* Commits walked at most, merges or not. */
#define FORWARD_WALK_MAX 20000

struct forward_hist;

struct forward_hist *forward_hist_new(void);
void forward_hist_free(struct forward_hist *h);

/*
 * The table of the window newest two-parent merges with two non-empty
 * sides reachable from rev (rev included; by commit time), into
 * h's own table (rebuilt only when rev changes); *out borrows it until the
 * next call or forward_hist_free(). A history cut short (an object the
 * snapshot lacks) gives the table of what was read; a shallow clone an
 * empty table (libgit2's walks fail at its cut). Returns 0,
 * or AS_ENOENT / AS_EGIT when rev itself cannot be read.
 */
int forward_hist_table(struct forward_hist *h, struct repo *r, const char *rev,
    unsigned window, const struct forward_table **out, struct as_err *e);

/*
 * forward_hist_table() through the on-disk cache at cache_path
 * (git/forwardcache.h; NULL: none): a table kept there for rev's commit
 * and window is taken as it is, without walking; otherwise the past is
 * read and the file written again (a failed write only costs the next
 * reader the walk), unless that past was cut short (a shallow clone, a
 * commit that could not be read: a later fetch may complete it).
 * *from_cache (may be NULL) tells which.
 */
int forward_hist_table_cached(struct forward_hist *h, struct repo *r,
    const char *rev, unsigned window, const char *cache_path,
    const struct forward_table **out, bool *from_cache, struct as_err *e);

#endif
