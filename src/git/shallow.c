/*
 * shallow.c - walking the history of a shallow clone (see shallow.h).
 */
#include "git/shallow.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "git/repo.h"
#include "util/xalloc.h"
#include "util/banned.h"

static void
hex_of(char out[41], const git_oid *id)
{
    git_oid_tostr(out, 41, id);
}

/* A shallow clone's cut: the commits listed in $GIT_COMMON_DIR/shallow,
 * whose parents are absent. Left empty for a complete repository. */
int
shallow_cut_load(git_repository *g, struct strmap *cut, struct as_err *e)
{
    char *path, line[256];
    FILE *f;

    if (git_repository_is_shallow(g) <= 0) {
        git_error_clear();
        return 0;
    }
    path = xasprintf("%sshallow", git_repository_commondir(g));
    f = fopen(path, "r");
    if (!f) {
        int err = errno == ENOENT ? 0
                                  : as_errorf(e, AS_EIO, "cannot read '%s': %s",
                                        path, strerror(errno));
        free(path);
        return err;
    }
    while (fgets(line, sizeof(line), f)) {
        size_t n = strcspn(line, "\r\n");
        bool hex = n == 40; /* SHA-1, the only kind libgit2 1.5 reads */
        for (size_t i = 0; i < n && hex; i++)
            hex = isxdigit((unsigned char)line[i]) != 0;
        if (hex)
            strmap_put(cut, line, n, 1, NULL);
    }
    fclose(f);
    free(path);
    return 0;
}

/* Whether map (40-hex keys) holds id. */
static bool
holds(const struct strmap *map, const git_oid *id)
{
    char hex[41];
    uint32_t v;

    if (!map->count)
        return false;
    hex_of(hex, id);
    return strmap_get(map, hex, 40, &v);
}

bool
shallow_in_cut(const struct strmap *cut, const git_oid *id)
{
    return holds(cut, id);
}

/* Newest first; equal times by id, for a stable order. */
int
shallow_commit_cmp(const void *a, const void *b)
{
    const struct shallow_commit *x = a, *y = b;
    if (x->time != y->time)
        return x->time > y->time ? -1 : 1;
    return git_oid_cmp(&x->id, &y->id);
}

/* Every commit reachable from start, not through the cut's parents (which
 * are absent) nor into what seen holds. Marks them in seen; appends them
 * to *out when out is not NULL. */
int
shallow_reach(git_repository *g, const git_oid *start, const struct strmap *cut,
    struct strmap *seen, struct shallow_commit **out, size_t *n, size_t *alloc,
    bool *hit_cut, struct as_err *e)
{
    git_oid *stack = NULL;
    size_t depth = 0, cap = 0;
    char hex[41];
    int err = 0;

    ALLOC_GROW(stack, depth + 1, cap);
    stack[depth++] = *start;
    while (depth) {
        git_oid id = stack[--depth];
        git_commit *c = NULL;
        bool added;

        hex_of(hex, &id);
        strmap_put(seen, hex, 40, 1, &added);
        if (!added)
            continue;
        if (git_commit_lookup(&c, g, &id) < 0) {
            err = repo_git_errorf(e, "cannot read commit %s", hex);
            break;
        }
        if (out) {
            ALLOC_GROW(*out, *n + 1, *alloc);
            (*out)[*n].id = id;
            (*out)[(*n)++].time = (int64_t)git_commit_time(c);
        }
        if (shallow_in_cut(cut, &id)) {
            if (hit_cut)
                *hit_cut = true;
        } else {
            for (unsigned k = 0; k < git_commit_parentcount(c); k++) {
                ALLOC_GROW(stack, depth + 1, cap);
                stack[depth++] = *git_commit_parent_id(c, k);
            }
        }
        git_commit_free(c);
    }
    free(stack);
    return err;
}

/*
 * Merge bases in a shallow clone, as git finds them there (the cut's
 * commits are roots): the common ancestors of p1 and p2 inside the history
 * at hand that no other common ancestor reaches. *hit_cut when a walk
 * reached the cut, where a base beyond it would not be seen.
 */
int
shallow_merge_bases(git_repository *g, const git_oid *p1, const git_oid *p2,
    const struct strmap *cut, git_oid **out, size_t *nout, bool *hit_cut,
    struct as_err *e)
{
    struct strmap a1, a2, stale;
    struct shallow_commit *d = NULL;
    size_t n = 0, alloc = 0, k = 0, dummy = 0, dalloc = 0;
    int err;

    *out = NULL;
    *nout = 0;
    strmap_init(&a1);
    strmap_init(&a2);
    strmap_init(&stale);
    if ((err = shallow_reach(
             g, p1, cut, &a1, NULL, &dummy, &dalloc, hit_cut, e)) < 0 ||
        (err = shallow_reach(g, p2, cut, &a2, &d, &n, &alloc, hit_cut, e)) < 0)
        goto out;
    /* Common ancestors; then everything they reach is stale. */
    for (size_t i = 0; i < n; i++)
        if (holds(&a1, &d[i].id))
            d[k++] = d[i];
    for (size_t i = 0; i < k && !err; i++) {
        git_commit *c = NULL;
        if (shallow_in_cut(cut, &d[i].id))
            continue;
        if (git_commit_lookup(&c, g, &d[i].id) < 0) {
            err = repo_git_errorf(e, "cannot read a commit");
            break;
        }
        for (unsigned j = 0; j < git_commit_parentcount(c) && !err; j++)
            err = shallow_reach(g, git_commit_parent_id(c, j), cut, &stale,
                NULL, &dummy, &dalloc, NULL, e);
        git_commit_free(c);
    }
    if (err)
        goto out;
    for (size_t i = 0; i < k; i++) {
        if (holds(&stale, &d[i].id))
            continue;
        *out = xrealloc(*out, (*nout + 1) * sizeof(**out));
        (*out)[(*nout)++] = d[i].id;
    }
out:
    free(d);
    strmap_release(&a1);
    strmap_release(&a2);
    strmap_release(&stale);
    return err;
}

/* A shallow clone's range, which git_revwalk cannot walk (it reads every
 * parent): the commits the tips reach and hide does not, stopping at the
 * cut, newest first (commit time, then id). */
int
shallow_range(git_repository *g, const git_oid *tips, size_t ntips,
    const git_oid *hide, const struct strmap *cut, git_oid **ids, size_t *nids,
    struct as_err *e)
{
    struct strmap seen;
    struct shallow_commit *d = NULL;
    size_t n = 0, alloc = 0;
    int err = 0;

    strmap_init(&seen);
    if (hide)
        err = shallow_reach(g, hide, cut, &seen, NULL, &n, &alloc, NULL, e);
    for (size_t i = 0; !err && i < ntips; i++)
        err = shallow_reach(g, &tips[i], cut, &seen, &d, &n, &alloc, NULL, e);
    strmap_release(&seen);
    if (err) {
        free(d);
        return err;
    }
    if (n)
        qsort(d, n, sizeof(*d), shallow_commit_cmp);
    *ids = xcalloc(n ? n : 1, sizeof(**ids));
    for (size_t i = 0; i < n; i++)
        (*ids)[i] = d[i].id;
    *nids = n;
    free(d);
    return 0;
}

int
shallow_merge_base(git_oid *out, git_repository *g, const git_oid *a,
    const git_oid *b, struct as_err *e)
{
    struct strmap cut;
    git_oid *bases = NULL;
    size_t n = 0;
    int err;

    if (git_repository_is_shallow(g) != 1) {
        git_error_clear();
        return git_merge_base(out, g, a, b);
    }
    strmap_init(&cut);
    if ((err = shallow_cut_load(g, &cut, e)) == 0) {
        if (!cut.count) {
            err = git_merge_base(out, g, a, b);
        } else if ((err = shallow_merge_bases(
                        g, a, b, &cut, &bases, &n, NULL, e)) == 0) {
            if (n)
                git_oid_cpy(out, &bases[0]);
            else
                err = GIT_ENOTFOUND;
        }
    }
    free(bases);
    strmap_release(&cut);
    return err;
}
