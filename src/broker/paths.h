/*
 * paths.h - where a repository's daemon lives: the airspace directory in
 * the common git dir, its socket, lock file, log and database.
 *
 * Every worktree of a repository resolves to the same paths, so one daemon
 * serves them all. A socket path too long for sun_path falls back to a short
 * per-user runtime path named by a hash of the airspace directory.
 */
#ifndef AIRSPACE_BROKER_PATHS_H
#define AIRSPACE_BROKER_PATHS_H

#include <stdbool.h>

#include "util/error.h"

struct broker_paths {
    char *common_dir; /* the repository's common git dir */
    char *dir;        /* <common_dir>/airspace (0700) */
    char *socket;     /* <dir>/sock, or the runtime fallback */
    char *lock;       /* <dir>/daemon.lock (holds the pid) */
    char *log;        /* <dir>/daemon.log */
    char *db;         /* <dir>/airspace.db */
};

/*
 * Fill p for the repository containing path (any worktree). With create,
 * make the airspace directory (0700) and the runtime fallback directory.
 * Returns 0, AS_ENOENT when path is not in a git repository, AS_EIO.
 */
int broker_paths_resolve(
    const char *path, bool create, struct broker_paths *p, struct as_err *e);
void broker_paths_release(struct broker_paths *p);

/*
 * Whether path (repository-relative) is an agent client's settings file
 * that `airspace init` writes (.claude/settings.json, .mcp.json, ...): a
 * change there is the tooling's, never the work of the person at the
 * keyboard of a shared worktree.
 */
bool broker_client_config(const char *path);

#endif
