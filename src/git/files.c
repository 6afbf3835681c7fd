/*
 * files.c - listing the blobs of a tree and reading them.
 */
#include "git/files.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "git/treediff.h"
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

/* A file repo_tree_files() lists: a blob (a submodule is not). */
static bool
is_listed(uint32_t mode)
{
    return mode && (mode & 0170000) != (uint32_t)GIT_FILEMODE_COMMIT &&
           (mode & 0170000) != (uint32_t)GIT_FILEMODE_TREE;
}

int
repo_tree_changes(struct repo *r, const char *from, const char *to,
    struct git_file_entry **out, size_t *n, struct as_err *e)
{
    git_oid id[2];
    git_tree *t[2] = { NULL, NULL };
    struct tree_leaves ll = { NULL, 0, 0 };
    int err = 0;

    *out = NULL;
    *n = 0;
    for (int k = 0; k < 2 && !err; k++)
        if (git_oid_fromstr(&id[k], k ? to : from) < 0 ||
            git_tree_lookup(&t[k], repo_git(r), &id[k]) < 0) {
            git_error_clear();
            err = as_errorf(e, AS_ENOENT, "no tree '%s'", k ? to : from);
        }
    if (!err &&
        (err = tree_changed_leaves(repo_git(r), t[0], t[1], "", &ll, e)) == 0) {
        tree_leaves_fold(&ll);
        struct git_file_entry *v = xcalloc(ll.n + 1, sizeof(*v));
        size_t m = 0;
        for (int pass = 0; pass < 2; pass++)
            for (size_t i = 0; i < ll.n; i++) {
                const struct tree_leaf *l = &ll.v[i];
                bool had = is_listed(l->mode[0]), has = is_listed(l->mode[1]);
                if (pass == 0 && has &&
                    !(had && git_oid_equal(&l->id[0], &l->id[1]))) {
                    v[m].path = xstrdup(l->path);
                    git_oid_tostr(v[m++].oid, sizeof(v->oid), &l->id[1]);
                } else if (pass == 1 && had && !has) {
                    v[m].path = xstrdup(l->path);
                    v[m++].oid[0] = '\0';
                }
            }
        *out = v;
        *n = m;
    }
    tree_leaves_release(&ll);
    git_tree_free(t[0]);
    git_tree_free(t[1]);
    return err;
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
