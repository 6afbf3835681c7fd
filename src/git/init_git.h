/*
 * init_git.h - ask git about the repository around the current directory
 * (by running `git`, so core.hooksPath, worktrees and GIT_DIR are honoured
 * exactly as git itself sees them).
 */
#ifndef AIRSPACE_GIT_INIT_GIT_H
#define AIRSPACE_GIT_INIT_GIT_H

#include "util/error.h"

struct init_git {
    char *toplevel;   /* the current worktree's top directory */
    char *common_dir; /* the common git directory (absolute) */
    char *hooks_dir;  /* where git runs hooks from (absolute) */
};

/*
 * Run git with argv (argv[0] is "git"; NULL-terminated) and capture its
 * standard output (at most 1 MiB) into *out (new string, free()); stderr is
 * passed through. Returns 0 when git exits 0, AS_EIO otherwise.
 */
int init_git_run(const char *const *argv, char **out, struct as_err *e);

/* Fill g for the repository containing the current directory. Returns 0,
 * or AS_ENOENT when it is not inside a git worktree. */
int init_git_resolve(struct init_git *g, struct as_err *e);
void init_git_release(struct init_git *g);

#endif
