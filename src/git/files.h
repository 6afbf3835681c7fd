/*
 * files.h - the files of a committed tree and their contents.
 *
 * Feeds the whole-repository import graph: every blob of a tree with its id
 * (the graph caches per blob id) and the blob's bytes on demand. Reads only.
 */
#ifndef AIRSPACE_GIT_FILES_H
#define AIRSPACE_GIT_FILES_H

#include <stddef.h>

#include "git/repo.h"
#include "util/error.h"

struct git_file_entry {
    char *path;   /* repository-relative, '/'-separated */
    char oid[41]; /* blob id, hex */
};

/*
 * List every blob (regular, executable or symlink) of treeish (a commit,
 * branch or tree id) recursively, sorted by path (strcmp); submodules are
 * skipped. Free with repo_tree_files_free(). AS_ENOENT when treeish does not
 * name a tree.
 */
int repo_tree_files(struct repo *r, const char *treeish,
    struct git_file_entry **out, size_t *n, struct as_err *e);
void repo_tree_files_free(struct git_file_entry *v, size_t n);

/*
 * What changes from repo_tree_files(from) to repo_tree_files(to) (tree
 * ids, hex), found without reading a subtree the two hold unchanged
 * (src/git/treediff.h): into *out, first every path to holds with a blob
 * id from has not (added or changed), sorted by path, with to's id in
 * oid; then every path from holds and to does not, sorted, with oid "".
 * Free with repo_tree_files_free(). AS_ENOENT when an id names no tree.
 */
int repo_tree_changes(struct repo *r, const char *from, const char *to,
    struct git_file_entry **out, size_t *n, struct as_err *e);

/*
 * Read the blob oid_hex into a new buffer (*buf, NUL-terminated for
 * convenience, free with free()) of *len bytes. AS_ENOENT when missing,
 * AS_EINVAL when oid_hex is malformed.
 */
int repo_read_blob(struct repo *r, const char *oid_hex, char **buf, size_t *len,
    struct as_err *e);

#endif
