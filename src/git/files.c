/*
 * files.c - listing the blobs of a tree and reading them.
 */
#include "git/files.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"
#include "util/banned.h"

struct walk {
    struct git_file_entry *v;
    size_t n, alloc;
};

static int
walk_cb(const char *root, const git_tree_entry *te, void *payload)
{
    struct walk *w = payload;
    struct git_file_entry *f;

    if (git_tree_entry_type(te) != GIT_OBJECT_BLOB)
        return 0; /* trees are descended into; submodules skipped */
    ALLOC_GROW(w->v, w->n + 1, w->alloc);
    f = &w->v[w->n++];
    f->path = xasprintf("%s%s", root, git_tree_entry_name(te));
    git_oid_tostr(f->oid, sizeof(f->oid), git_tree_entry_id(te));
    return 0;
}

static int
cmp_entry(const void *a, const void *b)
{
    return strcmp(((const struct git_file_entry *)a)->path,
        ((const struct git_file_entry *)b)->path);
}

int
repo_tree_files(struct repo *r, const char *treeish,
    struct git_file_entry **out, size_t *n, struct as_err *e)
{
    git_object *obj = NULL, *tree = NULL;
    struct walk w = { NULL, 0, 0 };
    int err;

    *out = NULL;
    *n = 0;
    if (git_revparse_single(&obj, repo_git(r), treeish) < 0 ||
        git_object_peel(&tree, obj, GIT_OBJECT_TREE) < 0) {
        git_object_free(obj);
        git_error_clear();
        return as_errorf(
            e, AS_ENOENT, "cannot resolve '%s' to a tree", treeish);
    }
    git_object_free(obj);
    err = git_tree_walk((git_tree *)tree, GIT_TREEWALK_PRE, walk_cb, &w);
    git_object_free(tree);
    if (err < 0) {
        repo_tree_files_free(w.v, w.n);
        return repo_git_errorf(e, "cannot walk tree '%s'", treeish);
    }
    if (w.n)
        qsort(w.v, w.n, sizeof(*w.v), cmp_entry);
    *out = w.v;
    *n = w.n;
    return 0;
}

void
repo_tree_files_free(struct git_file_entry *v, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        free(v[i].path);
    free(v);
}

int
repo_read_blob(struct repo *r, const char *oid_hex, char **buf, size_t *len,
    struct as_err *e)
{
    git_oid oid;
    git_blob *blob = NULL;
    git_object_size_t size;
    char *copy;

    *buf = NULL;
    *len = 0;
    if (strlen(oid_hex) != GIT_OID_HEXSZ ||
        git_oid_fromstr(&oid, oid_hex) < 0) {
        git_error_clear();
        return as_errorf(e, AS_EINVAL, "bad object id '%s'", oid_hex);
    }
    if (git_blob_lookup(&blob, repo_git(r), &oid) < 0) {
        git_error_clear();
        return as_errorf(e, AS_ENOENT, "no blob '%s'", oid_hex);
    }
    size = git_blob_rawsize(blob);
    copy = xmalloc((size_t)size + 1);
    memcpy(copy, git_blob_rawcontent(blob), (size_t)size);
    copy[size] = '\0';
    git_blob_free(blob);
    *buf = copy;
    *len = (size_t)size;
    return 0;
}
