/*
 * cwd_path.h - repository paths and globs given on the command line, as
 * the daemon takes them.
 *
 * On the command line a path is relative to the current directory, as
 * with git: in src, "x.c" is "src/x.c" and the glob "*.c" means the .c
 * files of src (not those at any depth). An absolute path inside the
 * working tree is made relative to its top; a path outside is refused.
 * The daemon takes paths relative to the top of the working tree
 * (docs/protocol.md, "Locks and claims").
 */
#ifndef AIRSPACE_CLI_CWD_PATH_H
#define AIRSPACE_CLI_CWD_PATH_H

#include "util/error.h"

struct cwd_path {
    char *top;    /* the working tree's top (real path), or NULL: none */
    char *prefix; /* the current directory under top ("" at the top) */
};

/*
 * Where the command runs: the working tree of the current directory when
 * it is one of repo_dir's repository, with the current directory as the
 * prefix; else repo_dir's working tree with no prefix (paths are then
 * taken from its top); else no working tree at all (top NULL). Never
 * fails; release with cwd_path_release().
 */
void cwd_path_init(struct cwd_path *c, const char *repo_dir);
void cwd_path_release(struct cwd_path *c);

/*
 * The path or gitignore-style glob given, as the daemon takes it (new
 * string in *out, free()): joined to the prefix and normalised ("..",
 * "." and repeated slashes resolved), or, absolute, made relative to the
 * top. A glob the join leaves without a '/' is anchored with "./" (in
 * src, ".." joined with "*.c" is the top's .c files, not those at any
 * depth); at the top a pattern without '/' is passed as given, so "*.c"
 * keeps matching at any depth. Returns 0, or AS_EINVAL with e naming the
 * path when it lies outside the working tree or names its top itself.
 */
int cwd_path_pattern(
    const struct cwd_path *c, const char *given, char **out, struct as_err *e);

#endif
