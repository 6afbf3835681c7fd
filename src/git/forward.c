#include "git/forward.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "git/forwardcache.h"
#include "git/shallow.h"
#include "git/treediff.h"
#include "util/strmap.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* A past merge's sides, as read once. */
struct fh_merge {
    char **paths[2];
    uint32_t *ids[2]; /* each path's number in forward_hist.pathids */
    size_t n[2];
};

/* A commit as the walk needs it, read once: its time and parents. */
struct fh_commit {
    git_oid id;
    int64_t t;
    uint32_t parents, nparents; /* into forward_hist.par */
    uint32_t seen;              /* the last walk that reached it */
    int32_t merge;              /* index into m once its sides are read */
    bool missing;               /* it could not be read */
};

struct forward_hist {
    struct fh_merge *m; /* each merge's sides, read once */
    size_t n, alloc;
    struct strmap pathids;         /* every path of m, numbered from 0 */
    struct forward_counts *counts; /* the table's builds by those numbers */
    /* every commit a walk reached, by hex id; walks after the first read
     * a commit from here instead of looking it up again */
    struct strmap cids;
    struct fh_commit *c;
    size_t nc, ac;
    git_oid *par;
    size_t npar, apar;
    uint32_t walk;               /* walks made */
    char rev[GIT_OID_HEXSZ + 1]; /* the table's rev, or "" */
    /* the table's past was cut short (a shallow clone, a commit that could
     * not be read): not cached, as a later fetch may complete it */
    bool cut;
    struct forward_table table;
    /* its own handle on the repository, its lookups out of the caller's
     * caches (on the caller's handle ASan reported a commit of replay's
     * own revision walk leaked, libgit2 1.5) */
    git_repository *g;
};

struct forward_hist *
forward_hist_new(void)
{
    struct forward_hist *h = xcalloc(1, sizeof(*h));
    strmap_init(&h->cids);
    strmap_init(&h->pathids);
    h->counts = forward_counts_new();
    forward_table_init(&h->table);
    return h;
}

void
forward_hist_free(struct forward_hist *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->n; i++)
        for (int s = 0; s < 2; s++) {
            for (size_t j = 0; j < h->m[i].n[s]; j++)
                free(h->m[i].paths[s][j]);
            free(h->m[i].paths[s]);
            free(h->m[i].ids[s]);
        }
    free(h->m);
    strmap_release(&h->pathids);
    forward_counts_free(h->counts);
    strmap_release(&h->cids);
    free(h->c);
    free(h->par);
    forward_table_release(&h->table);
    git_repository_free(h->g);
    free(h);
}

/* The paths that differ between trees a and b: those libgit2's diff of
 * them has a delta at, without reading the subtrees both hold. */
static int
changed_paths(
    git_repository *g, git_tree *a, git_tree *b, char ***out, size_t *n)
{
    struct tree_leaves ll = { NULL, 0, 0 };
    struct as_err e;
    *out = NULL;
    *n = 0;
    if (tree_changed_leaves(g, a, b, "", &ll, &e) < 0) {
        tree_leaves_release(&ll);
        return -1;
    }
    tree_leaves_fold(&ll);
    *out = xcalloc(ll.n ? ll.n : 1, sizeof(**out));
    for (size_t i = 0; i < ll.n; i++) {
        (*out)[i] = ll.v[i].path; /* taken */
        ll.v[i].path = NULL;
    }
    *n = ll.n;
    ll.n = 0;
    tree_leaves_release(&ll);
    return 0;
}

/* Merge id's sides (each parent's diff from their merge base), read once
 * per merge (the walk keeps the index in the merge's fh_commit); a merge
 * whose sides cannot be read is kept with none. */
static size_t
merge_sides(struct forward_hist *h, git_repository *g, const git_oid *id)
{
    struct fh_merge fm = { { NULL, NULL }, { NULL, NULL }, { 0, 0 } };
    git_commit *c = NULL;
    if (git_commit_lookup(&c, g, id) < 0) {
        git_error_clear(); /* read a moment ago: kept with no sides */
        ALLOC_GROW(h->m, h->n + 1, h->alloc);
        h->m[h->n] = fm;
        return h->n++;
    }
    git_oidarray bases = { NULL, 0 };
    git_commit *bc = NULL, *p = NULL;
    git_tree *bt = NULL, *pt = NULL;
    /* one merge base, as replay takes (a criss-cross merge is left out) */
    int mb = git_merge_bases(
        &bases, g, git_commit_parent_id(c, 0), git_commit_parent_id(c, 1));
    if (mb == GIT_ENOTFOUND)
        git_error_clear(); /* unrelated histories: no base, no sides */
    if (mb == 0 && bases.count == 1 &&
        git_commit_lookup(&bc, g, &bases.ids[0]) == 0 &&
        git_commit_tree(&bt, bc) == 0)
        for (unsigned s = 0; s < 2; s++) {
            if (git_commit_parent(&p, c, s) < 0 ||
                git_commit_tree(&pt, p) < 0 ||
                changed_paths(g, bt, pt, &fm.paths[s], &fm.n[s]) < 0 ||
                !fm.n[s]) {
                /* unreadable, or an empty side: nothing was concurrent */
                for (int k = 0; k < 2; k++) {
                    for (size_t j = 0; j < fm.n[k]; j++)
                        free(fm.paths[k][j]);
                    free(fm.paths[k]);
                    fm.paths[k] = NULL;
                    fm.n[k] = 0;
                }
                git_tree_free(pt);
                git_commit_free(p);
                pt = NULL;
                p = NULL;
                break;
            }
            git_tree_free(pt);
            git_commit_free(p);
            pt = NULL;
            p = NULL;
        }
    git_tree_free(bt);
    git_commit_free(bc);
    git_commit_free(c);
    git_oidarray_free(&bases);
    for (int s = 0; s < 2; s++) {
        fm.ids[s] = xcalloc(fm.n[s] + 1, sizeof(*fm.ids[s]));
        for (size_t j = 0; j < fm.n[s]; j++)
            fm.ids[s][j] = strmap_put(&h->pathids, fm.paths[s][j],
                strlen(fm.paths[s][j]), (uint32_t)h->pathids.count, NULL);
    }
    ALLOC_GROW(h->m, h->n + 1, h->alloc);
    h->m[h->n] = fm;
    return h->n++;
}

/* The commit id names, read now or before (NULL: it cannot be read,
 * which is remembered). */
static const struct fh_commit *
commit_of(
    struct forward_hist *h, git_repository *g, const git_oid *id, uint32_t *at)
{
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof(hex), id);
    bool added;
    *at = strmap_put(&h->cids, hex, strlen(hex), (uint32_t)h->nc, &added);
    if (added) {
        ALLOC_GROW(h->c, h->nc + 1, h->ac);
        struct fh_commit *fc = &h->c[h->nc++];
        memset(fc, 0, sizeof(*fc));
        git_oid_cpy(&fc->id, id);
        fc->merge = -1;
        git_commit *c = NULL;
        if (git_commit_lookup(&c, g, id) < 0) {
            git_error_clear();
            fc->missing = true;
        } else {
            fc->t = (int64_t)git_commit_time(c);
            fc->nparents = git_commit_parentcount(c);
            fc->parents = (uint32_t)h->npar;
            ALLOC_GROW(h->par, h->npar + fc->nparents, h->apar);
            for (unsigned k = 0; k < fc->nparents; k++)
                git_oid_cpy(&h->par[h->npar++], git_commit_parent_id(c, k));
            git_commit_free(c);
        }
    }
    return h->c[*at].missing ? NULL : &h->c[*at];
}

/* The walk's heap: commits (indices into h->c) by committer time, newest
 * on top. */
struct fh_item {
    uint32_t c;
    int64_t t;
};

static void
heap_push(struct forward_hist *h, struct fh_item **v, size_t *n, size_t *alloc,
    git_repository *g, const git_oid *id, bool *cut)
{
    uint32_t at;
    const struct fh_commit *fc = commit_of(h, g, id, &at);
    if (h->c[at].seen == h->walk)
        return; /* reached before in this walk */
    h->c[at].seen = h->walk;
    if (!fc) {
        *cut = true;
        return;
    }
    ALLOC_GROW(*v, *n + 1, *alloc);
    size_t i = (*n)++;
    struct fh_item it = { at, fc->t };
    while (i > 0 && (*v)[(i - 1) / 2].t < it.t) {
        (*v)[i] = (*v)[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    (*v)[i] = it;
}

static uint32_t
heap_pop(struct fh_item *v, size_t *n)
{
    uint32_t top = v[0].c;
    struct fh_item last = v[--*n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        int64_t mt = last.t;
        if (l < *n && v[l].t > mt) {
            m = l;
            mt = v[l].t;
        }
        if (r < *n && v[r].t > mt)
            m = r;
        if (m == i)
            break;
        v[i] = v[m];
        i = m;
    }
    if (*n)
        v[i] = last;
    return top;
}

/* rev as a commit id and its hex (a full hex id is taken as written,
 * anything else resolved to the commit it names): 1 when h already holds
 * that commit's table, 0 when not, < 0 on an error. */
static int
resolve_rev(struct forward_hist *h, struct repo *r, const char *rev,
    git_oid *id, char hex[GIT_OID_HEXSZ + 1], struct as_err *e)
{
    if (strlen(rev) != GIT_OID_HEXSZ || git_oid_fromstr(id, rev) < 0) {
        int rc = repo_resolve_commit(r, rev, id, e);
        if (rc)
            return rc;
    }
    git_oid_tostr(hex, GIT_OID_HEXSZ + 1, id);
    return !strcmp(hex, h->rev);
}

int
forward_hist_table(struct forward_hist *h, struct repo *r, const char *rev,
    unsigned window, const struct forward_table **out, struct as_err *e)
{
    *out = &h->table;
    git_oid id;
    char hex[GIT_OID_HEXSZ + 1];
    int rc = resolve_rev(h, r, rev, &id, hex, e);
    if (rc)
        return rc < 0 ? rc : 0; /* 1: h holds that commit's table */
    if (!h->g &&
        git_repository_open(&h->g, git_repository_path(repo_git(r))) < 0)
        return repo_git_errorf(e, "cannot open the repository again");
    git_repository *g = h->g;
    struct strmap cut;
    strmap_init(&cut);
    struct as_err ce;
    bool shallow = shallow_cut_load(g, &cut, &ce) || cut.count;
    strmap_release(&cut);
    if (shallow) {
        /* libgit2's walks fail at a shallow clone's cut: no past here */
        forward_table_build(&h->table, NULL, 0, NULL);
        snprintf(h->rev, sizeof(h->rev), "%s", hex);
        h->cut = true;
        return 0;
    }
    /* newest first by committer time, as git log: a heap of the commits
     * seen and not yet taken */
    struct fh_item *heap = NULL;
    size_t nheap = 0, aheap = 0;
    h->cut = false;
    h->walk++;
    heap_push(h, &heap, &nheap, &aheap, g, &id, &h->cut);
    size_t *pick = xcalloc(window ? window : 1, sizeof(*pick));
    size_t npick = 0;
    /* a commit that cannot be read is left out with what only it reaches */
    for (size_t walked = 0;
         npick < window && walked < FORWARD_WALK_MAX && nheap; walked++) {
        uint32_t at = heap_pop(heap, &nheap);
        if (h->c[at].nparents == 2) {
            if (h->c[at].merge < 0)
                h->c[at].merge = (int32_t)merge_sides(h, g, &h->c[at].id);
            size_t idx = (size_t)h->c[at].merge;
            if (h->m[idx].n[0] && h->m[idx].n[1])
                pick[npick++] = idx;
        }
        /* (h->c and h->par may move as the pushes add commits) */
        for (uint32_t k = 0; k < h->c[at].nparents; k++) {
            git_oid p = h->par[h->c[at].parents + k];
            heap_push(h, &heap, &nheap, &aheap, g, &p, &h->cut);
        }
    }
    free(heap);
    struct forward_merge *fm = xcalloc(npick ? npick : 1, sizeof(*fm));
    for (size_t i = 0; i < npick; i++)
        for (int s = 0; s < 2; s++) {
            fm[i].side[s].paths = (const char *const *)h->m[pick[i]].paths[s];
            fm[i].side[s].ids = h->m[pick[i]].ids[s];
            fm[i].side[s].n = h->m[pick[i]].n[s];
        }
    forward_table_build(&h->table, fm, npick, h->counts);
    free(fm);
    free(pick);
    snprintf(h->rev, sizeof(h->rev), "%s", hex);
    return 0;
}

int
forward_hist_table_cached(struct forward_hist *h, struct repo *r,
    const char *rev, unsigned window, const char *cache_path,
    const struct forward_table **out, bool *from_cache, struct as_err *e)
{
    *out = &h->table;
    if (from_cache)
        *from_cache = false;
    git_oid id;
    char hex[GIT_OID_HEXSZ + 1];
    int rc = resolve_rev(h, r, rev, &id, hex, e);
    if (rc)
        return rc < 0 ? rc : 0; /* 1: h holds that commit's table */
    struct as_err ce;
    if (cache_path &&
        !forward_cache_load(cache_path, hex, window, &h->table, &ce)) {
        snprintf(h->rev, sizeof(h->rev), "%s", hex);
        if (from_cache)
            *from_cache = true;
        return 0;
    }
    rc = forward_hist_table(h, r, hex, window, out, e);
    if (!rc && cache_path && !h->cut)
        forward_cache_store(cache_path, &h->table, hex, window, &ce);
    return rc;
}
