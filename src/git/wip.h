/*
 * wip.h - work in progress shared through git (docs/team.md): an agent's
 * snapshot of uncommitted work (a tree, workset.h) written as a real
 * commit on its base into the repository's object directory, under
 * refs/airspace/wip/<node>/<agent>, and pushed to a remote; the other
 * daemons of a team fetch that ref to merge with it speculatively.
 *
 * Unlike the rest of the git layer (repo.h), this writes to the
 * repository: objects, and refs under refs/airspace/wip/ only. Each call
 * talks to the remote synchronously (a push or a fetch).
 */
#ifndef AIRSPACE_GIT_WIP_H
#define AIRSPACE_GIT_WIP_H

#include <stdbool.h>
#include <stdint.h>

#include "git/repo.h"
#include "util/error.h"

#define WIP_REF_PREFIX "refs/airspace/wip/"

/* The ref of agent on node: refs/airspace/wip/<node>/<agent>, each name
 * kept to [A-Za-z0-9_-] (others become '_'), the node's followed by a
 * short hash of it. A new string. */
char *wip_ref_name(const char *node, const char *agent);

/* Whether ref is a name wip_ref_name() could give (to fetch). */
bool wip_ref_ok(const char *ref);

/* Whether the object (hex id) is in r's object store. */
bool wip_have(struct repo *r, const char *hex);

/*
 * Write tree_hex (and every object of it the object directory lacks, from
 * r's in-memory store) into the repository's object directory, a commit of
 * it with parent base_hex (time now_ms) too, point ref at that commit and
 * push ref to remote (a remote's name, for its remote.<name>.url, else a
 * URL or path; url.<base>.insteadOf is not applied). The commit's
 * hex id into commit_hex. Returns 0, AS_EINVAL (bad ids or ref), AS_EGIT
 * (a git error, the remote unreachable included: e says which).
 */
int wip_push(struct repo *r, const char *remote, const char *ref,
    const char *base_hex, const char *tree_hex, int64_t now_ms,
    char commit_hex[41], struct as_err *e);

/* Fetch ref from remote into the same ref here (its objects into the
 * object directory). Returns 0, AS_EINVAL (a ref wip_ref_ok() refuses) or
 * AS_EGIT. */
int wip_fetch(
    struct repo *r, const char *remote, const char *ref, struct as_err *e);

/* The work in progress is gone: delete ref on remote (a push of
 * ":ref"), then here. A ref missing on either side is no error. Returns
 * 0, AS_EINVAL or AS_EGIT (the remote unreachable included; ref is then
 * kept here too, to try again). */
int wip_drop(
    struct repo *r, const char *remote, const char *ref, struct as_err *e);

/* Delete ref here only (a copy fetched from another daemon); missing is
 * no error. */
int wip_forget(struct repo *r, const char *ref, struct as_err *e);

#endif
