/*
 * align.h - one line coordinate system for agents on different bases.
 *
 * Each agent's working set is read against its own base (workset.h), in
 * that base's line numbers: line 10 of an agent that branched before the
 * integration branch inserted 50 lines at the top is line 60 of an agent
 * that branched after. The risk engine compares ranges as if they shared
 * coordinates, and the merge channel merges two agents over the merge base
 * of their bases, so it would blame a pair for one agent's conflict with
 * what the integration branch did in between.
 *
 * align_agents() moves every agent onto the newest base B*, the one base
 * that descends from every other: it rebases the agent's work in memory (a
 * three-way merge of its base's tree, its work tree as "ours" and B*'s tree
 * as "theirs", every conflict settled for the agent: its side of a
 * conflicting hunk, its version of a file the integration branch deleted or
 * renamed apart, its deletion of a file the integration branch changed),
 * then reads its files and ranges again as the working-set diff from B* to
 * that rebased tree. Its base_oid becomes B*, its tree_oid the rebased
 * tree, and the paths where its work conflicted with what B* changed
 * (found by a plain merge first, before anything is settled) are added to
 * its onto_conflicts: what it will have to resolve when it merges or
 * rebases. Everything else about the agent (commits ahead, committed
 * lines, start, branch, worktree) stays as read. When no base descends from
 * every other (the bases sit on two sides of a merge, none of the agents on the
 * merge), nothing is moved: pairs across those bases stay in mixed
 * coordinates.
 *
 * Writes nothing to the repository: merged blobs and trees go to the repo's
 * in-memory store (repo.h), so a rebased tree_oid is valid for the life of
 * the handle, until repo_forget_created().
 *
 * Ownership: align_cache_new() returns a new cache, free with
 * align_cache_free(). Agents are the caller's; align_agents() replaces the
 * files, base_oid and tree_oid of those it moves.
 */
#ifndef AIRSPACE_GIT_ALIGN_H
#define AIRSPACE_GIT_ALIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/workset.h"
#include "git/repo.h"
#include "util/error.h"

/* Whether base i descends from base j (i != j); ctx is the caller's. */
typedef bool align_descends_fn(void *ctx, size_t i, size_t j);

/*
 * The index of the one of n distinct bases that descends from every other,
 * or -1 when none does (0 when n is 1). Pure: asks descends() at most
 * 2(n - 1) times.
 */
long align_newest(size_t n, align_descends_fn *descends, void *ctx);

/* Rebased trees by (base, work tree, new base); valid with the repo
 * handle whose in-memory store holds them. */
struct align_cache;

struct align_cache *align_cache_new(void);
void align_cache_free(struct align_cache *c);
/* Rebases answered from the cache so far (for tests and stats). */
size_t align_cache_hits(const struct align_cache *c);

/* Told that agent a could not be moved (msg borrowed for the call); it
 * stays on its own base. */
typedef void align_warn_fn(void *ctx, const struct agent *a, const char *msg);

struct align_stats {
    bool linear;     /* a newest base exists (or one base, or none) */
    char newest[41]; /* its hex id; "" when bases differ and none is */
    size_t moved;    /* agents rebased onto it */
    size_t failed;   /* agents that could not be (warn was told) */
};

/*
 * Move every agent of agents[0..n) that has a base_oid and a tree_oid
 * onto the newest of their bases (align_agent()); those already on it and
 * those without both ids are left alone. An agent that cannot be moved is
 * told to warn (may be NULL) and left on its own base. st may be NULL.
 * Returns 0, or AS_EGIT when the bases' history cannot be read (nothing
 * moved).
 *
 * `airspace scan` calls it once the working sets are read, before parsing
 * agents' own copies. The daemon calls it the same way after every
 * refresh of working sets, over all its agents (one already moved has B*
 * as its base and is moved again only when a newer base appears), before
 * scoring: pairs and the merge channel then see one base.
 */
int align_agents(struct repo *r, struct align_cache *cache,
    struct agent *agents, size_t n, align_warn_fn *warn, void *warn_ctx,
    struct align_stats *st, struct as_err *e);

#endif
