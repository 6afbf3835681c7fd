/*
 * sockpath.h - the daemon's socket path from the common git dir, without
 * libgit2 (the hook finds it on its own, in well under a millisecond).
 */
#ifndef AIRSPACE_UTIL_SOCKPATH_H
#define AIRSPACE_UTIL_SOCKPATH_H

#include <stdbool.h>

/*
 * <airspace_dir>/sock, or, when that is too long for a Unix socket,
 * $XDG_RUNTIME_DIR/airspace/<hash>.sock or /tmp/airspace-<uid>/<hash>.sock
 * (hash: FNV-1a of airspace_dir). *fallback_dir (if not NULL) gets the
 * directory of the fallback, or NULL. New strings.
 */
char *broker_socket_path(const char *airspace_dir, char **fallback_dir);

/* In <airspace_dir>: why the last start refused its configuration (one
 * line), until a daemon serves; read by a hook that found none serving. */
#define BROKER_START_ERROR "start.error"

/*
 * Whether the server at the other end of the connected Unix socket fd
 * runs as this process's effective user (SO_PEERCRED). *uid gets its uid,
 * or (unsigned)-1 when it cannot be told (which is not us). Every client
 * asks before it sends anything: a socket served by another local user is
 * an impostor's.
 */
bool broker_socket_peer_is_us(int fd, unsigned *uid);

/*
 * The git dir of the worktree rooted at root (root/.git, or the X of a
 * file "gitdir: X" there), not resolved; NULL when there is none, or when
 * it holds no HEAD (no repository). A new string.
 */
char *broker_git_dir_of(const char *root);

/*
 * The common git dir of the worktree rooted at root (root/.git is the git
 * dir, or a file "gitdir: X" whose X/commondir names it), resolved with
 * realpath; NULL when it cannot be found.
 */
char *broker_common_dir_of(const char *root);

#endif
