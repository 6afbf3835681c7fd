/*
 * paths.h - where a repository's daemon lives: the airspace directory in
 * the common git dir, its socket, lock file, log and database.
 *
 * Every worktree of a repository resolves to the same paths, so one daemon
 * serves them all. A socket path too long for sun_path falls back to a short
 * per-user runtime path named by a hash of the airspace directory.
 */
#ifndef AIRSPACE_GIT_PATHS_H
#define AIRSPACE_GIT_PATHS_H

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
 * make the airspace directory (broker_airspace_dir()) and the runtime
 * fallback directory (broker_private_dir()). Returns 0, AS_ENOENT when path is
 * not in a git repository, AS_EIO.
 */
int broker_paths_resolve(
    const char *path, bool create, struct broker_paths *p, struct as_err *e);
void broker_paths_release(struct broker_paths *p);

/*
 * Make the directory d (0700) unless it exists, then check it without
 * following a symbolic link: it must be a directory of this user that no
 * one else can enter (mode 0700). It is never chmod'ed: a directory that
 * is not so is refused, with a message naming it and what is wrong.
 * Returns 0 or AS_EIO (the message says what is wrong).
 */
int broker_private_dir(const char *d, struct as_err *e);

/*
 * broker_private_dir() for the airspace directory d (<common_dir>/airspace,
 * where the local config file goes, so often made by hand: mkdir gives
 * 0755). A directory of this user's that others may read or enter but not
 * write to is first made private (its group and other bits cleared): no
 * one else could have put anything in it. One that others may write to,
 * a symbolic link or another user's is refused as broker_private_dir()
 * refuses it. Returns 0 or AS_EIO.
 */
int broker_airspace_dir(const char *d, struct as_err *e);

/*
 * The agent clients' settings files that `airspace init` writes
 * (repository-relative; NULL-terminated): .claude/settings.json,
 * .claude/settings.local.json, .mcp.json, .codex/hooks.json,
 * .codex/config.toml, .gemini/settings.json. `agent new` copies those not
 * committed into every worktree it makes.
 */
extern const char *const broker_client_config_files[];

/*
 * Whether path (repository-relative) is one of broker_client_config_files:
 * a change there is the tooling's, never anyone's work. It is in no
 * working set, no uncommitted work that `agent rm` or `fleet down` warns
 * of, and no commit that names no path.
 */
bool broker_client_config(const char *path);

#endif
