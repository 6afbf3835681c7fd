#include "git/forward.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strmap.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* A past merge's sides, as read once. */
struct fh_merge {
    char **paths[2];
    size_t n[2];
};

struct forward_hist {
    struct strmap ids; /* merge oid -> index into m */
    struct fh_merge *m;
    size_t n, alloc;
    char rev[GIT_OID_HEXSZ + 1]; /* the table's rev, or "" */
    struct forward_table table;
};

struct forward_hist *
forward_hist_new(void)
{
    struct forward_hist *h = xcalloc(1, sizeof(*h));
    strmap_init(&h->ids);
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
        }
    free(h->m);
    strmap_release(&h->ids);
    forward_table_release(&h->table);
    free(h);
}

/* The paths that differ between trees a and b. */
static int
changed_paths(
    git_repository *g, git_tree *a, git_tree *b, char ***out, size_t *n)
{
    git_diff *d = NULL;
    git_diff_options o = GIT_DIFF_OPTIONS_INIT;
    o.flags |= GIT_DIFF_SKIP_BINARY_CHECK;
    *out = NULL;
    *n = 0;
    if (git_diff_tree_to_tree(&d, g, a, b, &o) < 0)
        return -1;
    size_t nd = git_diff_num_deltas(d);
    *out = xcalloc(nd ? nd : 1, sizeof(**out));
    for (size_t i = 0; i < nd; i++) {
        const git_diff_delta *dd = git_diff_get_delta(d, i);
        (*out)[(*n)++] =
            xstrdup(dd->new_file.path ? dd->new_file.path : dd->old_file.path);
    }
    git_diff_free(d);
    return 0;
}

/* Merge c's sides (each parent's diff from their merge base), read now or
 * before; a merge whose sides cannot be read is kept with none. */
static size_t
merge_sides(struct forward_hist *h, git_repository *g, const git_commit *c)
{
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof(hex), git_commit_id(c));
    uint32_t at;
    if (strmap_get(&h->ids, hex, strlen(hex), &at))
        return at;
    struct fh_merge fm = { { NULL, NULL }, { 0, 0 } };
    git_oid base;
    git_commit *bc = NULL, *p = NULL;
    git_tree *bt = NULL, *pt = NULL;
    if (git_merge_base(&base, g, git_commit_parent_id(c, 0),
            git_commit_parent_id(c, 1)) == 0 &&
        git_commit_lookup(&bc, g, &base) == 0 && git_commit_tree(&bt, bc) == 0)
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
    ALLOC_GROW(h->m, h->n + 1, h->alloc);
    h->m[h->n] = fm;
    strmap_put(&h->ids, hex, strlen(hex), (uint32_t)h->n, NULL);
    return h->n++;
}

int
forward_hist_table(struct forward_hist *h, struct repo *r, const char *rev,
    unsigned window, const struct forward_table **out, struct as_err *e)
{
    *out = &h->table;
    git_oid id;
    int rc = repo_resolve_commit(r, rev, &id, e);
    if (rc)
        return rc;
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof(hex), &id);
    if (!strcmp(hex, h->rev))
        return 0;
    git_repository *g = repo_git(r);
    git_revwalk *walk = NULL;
    if (git_revwalk_new(&walk, g) < 0 ||
        git_revwalk_sorting(walk, GIT_SORT_TIME) < 0 ||
        git_revwalk_push(walk, &id) < 0) {
        git_revwalk_free(walk);
        return repo_git_errorf(e, "cannot walk the history of '%s'", rev);
    }
    size_t *pick = xcalloc(window ? window : 1, sizeof(*pick));
    size_t npick = 0;
    git_oid at;
    /* a commit the walk cannot read ends it: the table of what was read */
    for (size_t walked = 0; npick < window && walked < FORWARD_WALK_MAX &&
                            git_revwalk_next(&at, walk) == 0;
         walked++) {
        git_commit *c = NULL;
        if (git_commit_lookup(&c, g, &at) < 0)
            break;
        if (git_commit_parentcount(c) == 2) {
            size_t idx = merge_sides(h, g, c);
            if (h->m[idx].n[0] && h->m[idx].n[1])
                pick[npick++] = idx;
        }
        git_commit_free(c);
    }
    git_revwalk_free(walk);
    struct forward_merge *fm = xcalloc(npick ? npick : 1, sizeof(*fm));
    for (size_t i = 0; i < npick; i++)
        for (int s = 0; s < 2; s++) {
            fm[i].side[s].paths = (const char *const *)h->m[pick[i]].paths[s];
            fm[i].side[s].n = h->m[pick[i]].n[s];
        }
    forward_table_build(&h->table, fm, npick);
    free(fm);
    free(pick);
    snprintf(h->rev, sizeof(h->rev), "%s", hex);
    return 0;
}
