/*
 * fleet.h - the fleet file, the files copied into agents' worktrees, and
 * whether a worktree holds uncommitted work or commits not landed
 * (docs/fleet.md).
 *
 * `.airspace/fleet` in the main worktree, git-config syntax (libgit2's
 * parser, as config.h):
 *
 *   [fleet]
 *       concurrency = 2      # agents running at once (default 4)
 *       restarts = 3         # restarts after a crash before giving up
 *       backoff = 5          # seconds before the first restart; doubles
 *   [agent "alice"]
 *       command = claude     # run by /bin/sh -c in alice's worktree
 *       lane = src/net      # one or more: globs: what alice may land
 *       setup = npm ci       # run until it succeeded once in the worktree
 *
 * An unknown key in [fleet] or [agent "..."], a bad value (a lane among
 * them that glob_compile() refuses, as the daemon would), an agent name
 * that cannot name a worktree (worktree.h), an agent without a command or
 * no agent at all is an error naming the file and the key.
 *
 * `.airspace/worktreeinclude`: one path or glob per line ('#' comments,
 * blank lines), relative to the main worktree, of files git does not
 * carry (an .env, local settings) that a new agent's worktree needs.
 *
 * No clock. Strings are the struct's: fleet_release().
 */
#ifndef AIRSPACE_GIT_FLEET_H
#define AIRSPACE_GIT_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

struct fleet_agent {
    char *name;
    char *command;
    char *setup; /* NULL: none */
    char **lanes;
    size_t nlanes;
};

struct fleet {
    struct fleet_agent *agents; /* in the file's order */
    size_t nagents;
    unsigned concurrency; /* >= 1 */
    unsigned restarts;
    int64_t backoff_ms; /* > 0 */
};

void fleet_release(struct fleet *f);

/*
 * Read the fleet file at path into f. Returns 0, AS_ENOENT (no such file),
 * AS_EPARSE (malformed: libgit2 names the line) or AS_EINVAL (unknown key,
 * bad value, no agent, an agent without a command).
 */
int fleet_read(const char *path, struct fleet *f, struct as_err *e);

/* The agent named name, or NULL. */
const struct fleet_agent *fleet_find(const struct fleet *f, const char *name);

/* Whether one of a's lanes covers path (a glob, or a directory it names). */
bool fleet_in_lane(const struct fleet_agent *a, const char *path);

/*
 * Copy into the worktree dst every regular file that the include file at
 * list names under the main worktree top and dst lacks (symbolic links and
 * paths that climb out are skipped; directories are copied whole). The
 * paths copied, relative, go to *copied (a new array of new strings, *n of
 * them; free each and the array). A missing list copies nothing. Returns
 * 0 or AS_EIO / AS_EINVAL (a line that is absolute or climbs out).
 */
int fleet_include_copy(const char *top, const char *dst, const char *list,
    char ***copied, size_t *n, struct as_err *e);

/*
 * The uncommitted paths of the worktree at dir (modified, staged,
 * untracked not ignored): how many in *n, and up to five of them in
 * *some (a new string "a, b, ..." or NULL when none). Returns 0 or
 * AS_EGIT / AS_ENOENT.
 */
int fleet_worktree_dirty(
    const char *dir, size_t *n, char **some, struct as_err *e);

/*
 * How many commits of the worktree at dir (its HEAD) the branch into (a
 * short name) does not contain, in *n: its work committed but not
 * landed. Returns 0 or AS_ENOENT / AS_EGIT (*n is 0 then).
 */
int fleet_worktree_unlanded(
    const char *dir, const char *into, size_t *n, struct as_err *e);

#endif
