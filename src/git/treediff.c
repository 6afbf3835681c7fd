#include "git/treediff.h"

#include <stdlib.h>
#include <string.h>

#include "git/repo.h"
#include "util/xalloc.h"
#include "util/banned.h"

static int
cmp_leaf(const void *a, const void *b)
{
    const struct tree_leaf *x = a, *y = b;
    int c = strcmp(x->path, y->path);
    return c ? c : (x->mode[0] ? -1 : 1); /* the old side's first */
}

static char *
join_path(const char *prefix, const char *name)
{
    return *prefix ? xasprintf("%s/%s", prefix, name) : xstrdup(name);
}

/* path as side s (0: old, 1: new) holds it, or every file under it when
 * te is a tree, into ll. */
static int
add_leaves(git_repository *g, const git_tree_entry *te, char *path, int s,
    struct tree_leaves *ll, struct as_err *e)
{
    git_tree *t = NULL;
    int err = 0;

    if (git_tree_entry_type(te) != GIT_OBJECT_TREE) {
        ALLOC_GROW(ll->v, ll->n + 1, ll->alloc);
        struct tree_leaf *l = &ll->v[ll->n++];
        memset(l, 0, sizeof(*l));
        l->path = path;
        git_oid_cpy(&l->id[s], git_tree_entry_id(te));
        l->mode[s] = (uint32_t)git_tree_entry_filemode(te);
        return 0;
    }
    if (git_tree_lookup(&t, g, git_tree_entry_id(te)) < 0) {
        err = repo_git_errorf(e, "cannot read tree '%s'", path);
        free(path);
        return err;
    }
    for (size_t i = 0, n = git_tree_entrycount(t); i < n && !err; i++) {
        const git_tree_entry *c = git_tree_entry_byindex(t, i);
        err =
            add_leaves(g, c, join_path(path, git_tree_entry_name(c)), s, ll, e);
    }
    git_tree_free(t);
    free(path);
    return err;
}

/*
 * Every path at which trees a and b (either may be NULL: empty) hold
 * different entries, files under a directory only one of them has
 * included, into ll (unsorted; a path both hold twice): a subtree both
 * hold unchanged is not read. The diff of a to b has a delta at no other
 * path.
 */
int
tree_changed_leaves(git_repository *g, git_tree *a, git_tree *b,
    const char *prefix, struct tree_leaves *ll, struct as_err *e)
{
    int err = 0;

    for (size_t i = 0, n = a ? git_tree_entrycount(a) : 0; i < n && !err; i++) {
        const git_tree_entry *ea = git_tree_entry_byindex(a, i);
        const char *name = git_tree_entry_name(ea);
        const git_tree_entry *eb = b ? git_tree_entry_byname(b, name) : NULL;
        if (eb && git_tree_entry_filemode(ea) == git_tree_entry_filemode(eb) &&
            git_oid_equal(git_tree_entry_id(ea), git_tree_entry_id(eb)))
            continue;
        char *path = join_path(prefix, name);
        if (eb && git_tree_entry_type(ea) == GIT_OBJECT_TREE &&
            git_tree_entry_type(eb) == GIT_OBJECT_TREE) {
            git_tree *ta = NULL, *tb = NULL;
            if (git_tree_lookup(&ta, g, git_tree_entry_id(ea)) < 0 ||
                git_tree_lookup(&tb, g, git_tree_entry_id(eb)) < 0)
                err = repo_git_errorf(e, "cannot read tree '%s'", path);
            else
                err = tree_changed_leaves(g, ta, tb, path, ll, e);
            git_tree_free(ta);
            git_tree_free(tb);
            free(path);
            continue;
        }
        if (eb && (err = add_leaves(g, eb, xstrdup(path), 1, ll, e)) < 0) {
            free(path);
            break;
        }
        err = add_leaves(g, ea, path, 0, ll, e);
    }
    for (size_t i = 0, n = b ? git_tree_entrycount(b) : 0; i < n && !err; i++) {
        const git_tree_entry *eb = git_tree_entry_byindex(b, i);
        const char *name = git_tree_entry_name(eb);
        if (a && git_tree_entry_byname(a, name))
            continue; /* seen above */
        err = add_leaves(g, eb, join_path(prefix, name), 1, ll, e);
    }
    return err;
}

/* Sort ll by path and fold each path's two entries into one. */
void
tree_leaves_fold(struct tree_leaves *ll)
{
    size_t o = 0;
    if (ll->n > 1)
        qsort(ll->v, ll->n, sizeof(*ll->v), cmp_leaf);
    for (size_t i = 0; i < ll->n; i++) {
        if (o && !strcmp(ll->v[o - 1].path, ll->v[i].path)) {
            struct tree_leaf *l = &ll->v[o - 1];
            l->id[1] = ll->v[i].id[1];
            l->mode[1] = ll->v[i].mode[1];
            free(ll->v[i].path);
            continue;
        }
        ll->v[o++] = ll->v[i];
    }
    ll->n = o;
}

void
tree_leaves_release(struct tree_leaves *ll)
{
    for (size_t i = 0; i < ll->n; i++)
        free(ll->v[i].path);
    free(ll->v);
}

git_delta_t
tree_leaf_status(const struct tree_leaf *l)
{
    if (!l->mode[0])
        return GIT_DELTA_ADDED;
    if (!l->mode[1])
        return GIT_DELTA_DELETED;
    if ((l->mode[0] & 0170000) == (l->mode[1] & 0170000))
        return GIT_DELTA_MODIFIED;
    return GIT_DELTA_TYPECHANGE;
}
