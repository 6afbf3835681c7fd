/*
 * share.h - the rules of a shared worktree's working sets: several
 * registered agents and the person at the keyboard edit one worktree, git
 * sees one change, and each agent's share is what it reported.
 *
 * Pure: working sets (core/workset.h) in, working sets out; no I/O. The
 * daemon reads the worktree's change from git (base coordinates, after
 * alignment) and stores what these functions say changed.
 */
#ifndef AIRSPACE_AIRSPACE_SHARE_H
#define AIRSPACE_AIRSPACE_SHARE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/workset.h"

/*
 * An agent's share of worktree change w, from its reports: for every path
 * it reported, that path's real change in w - the lines its reports meet
 * (d ∩ r, and a pure insertion after base line k when r holds k + 1), or
 * all of them when they meet none (a whole file, or lines reported in
 * other coordinates); a path as in the base is left out. The reports then
 * hold those lines (none for a path as in the base: changed again later,
 * it is still the agent's); changed(ctx, r) is told of each report that
 * changed (the daemon stores it). *share (agent_init'ed by the caller) gets
 * the files, sorted; returns whether they differ from was.
 */
bool share_sync(const struct agent *w, struct agent *reports,
    const struct agent *was, struct agent *share,
    void (*changed)(void *ctx, const struct ws_file *r), void *ctx);

/*
 * The human's share of worktree change w: every line (or whole file) one
 * of the agents' shares v[0..n) holds is taken out, and a file left with
 * no line leaves; so is every file skip(path) says is not anyone's work
 * (skip may be NULL). The agents report lines of the file as it was when
 * they edited it; for the small edits agents make these are close to base
 * lines, and a file an agent reported as a whole drops out entirely.
 */
void share_subtract(struct agent *w, const struct agent *const *v, size_t n,
    bool (*skip)(const char *path));

/* Whether two working sets hold the same files, statuses and lines. */
bool share_same_files(const struct agent *x, const struct agent *y);

#endif
