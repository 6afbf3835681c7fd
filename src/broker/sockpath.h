/*
 * sockpath.h - the daemon's socket path from the common git dir, without
 * libgit2 (the hook finds it on its own, in well under a millisecond).
 */
#ifndef AIRSPACE_BROKER_SOCKPATH_H
#define AIRSPACE_BROKER_SOCKPATH_H

/*
 * <airspace_dir>/sock, or, when that is too long for a Unix socket,
 * $XDG_RUNTIME_DIR/airspace/<hash>.sock or /tmp/airspace-<uid>/<hash>.sock
 * (hash: FNV-1a of airspace_dir). *fallback_dir (if not NULL) gets the
 * directory of the fallback, or NULL. New strings.
 */
char *broker_socket_path(const char *airspace_dir, char **fallback_dir);

/*
 * The common git dir of the worktree rooted at root (root/.git is the git
 * dir, or a file "gitdir: X" whose X/commondir names it), resolved with
 * realpath; NULL when it cannot be found.
 */
char *broker_common_dir_of(const char *root);

#endif
