/*
 * history.c - merges of a revision range and the working sets of their
 * sides.
 *
 * Longer than 1,000 lines on purpose: collecting the merges and their
 * sides, replaying a side commit onto the base and turning its tree into
 * a working set all walk the same tree deltas through one cache of their
 * effects (struct history_cache), which stays private to this file.
 */
#include "git/history.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "git/merge.h"
#include "git/shallow.h"
#include "git/sigcache.h"
#include "git/treediff.h"
#include "git/workset.h"
#include "util/strmap.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char *const skip_names[HISTORY_NSKIP] = { "octopus", "criss_cross",
    "no_base", "empty_side", "large_side", "shallow", "missing_object" };

void
history_options_init(struct history_options *o)
{
    memset(o, 0, sizeof(*o));
    o->max_side = 1000;
}

const char *
history_skip_name(enum history_skip s)
{
    return (unsigned)s < HISTORY_NSKIP ? skip_names[s] : "unknown";
}

void
history_release(struct history *h)
{
    for (size_t i = 0; i < h->n; i++) {
        free(h->m[i].side[0]);
        free(h->m[i].side[1]);
    }
    free(h->m);
    memset(h, 0, sizeof(*h));
}

static void
hex_of(char out[41], const git_oid *id)
{
    git_oid_tostr(out, 41, id);
}

/* Append commit c to side s of m. A parent inside the side is an earlier
 * entry (parents come first); one outside is base or reachable from it. */
static void
side_append(git_commit *c, const git_oid *base, struct history_merge *m, int s,
    size_t *alloc)
{
    struct history_commit *hc;

    ALLOC_GROW(m->side[s], m->nside[s] + 1, *alloc);
    hc = &m->side[s][m->nside[s]++];
    hex_of(hc->oid, git_commit_id(c));
    hex_of(hc->tree, git_commit_tree_id(c));
    hc->time_ms = (int64_t)git_commit_time(c) * 1000;
    hc->on_base = false;
    hc->fork[0] = '\0';
    hc->parent_at = -1;
    unsigned np = git_commit_parentcount(c);
    for (unsigned k = 0; k < np && !hc->on_base; k++) {
        const git_oid *p = git_commit_parent_id(c, k);
        if (git_oid_equal(p, base)) {
            hc->on_base = true;
            break;
        }
        char phex[41];
        hex_of(phex, p);
        for (size_t j = m->nside[s] - 1; j-- > 0;) {
            if (!strcmp(m->side[s][j].oid, phex)) {
                hc->on_base = m->side[s][j].on_base;
                if (np == 1)
                    hc->parent_at = (int32_t)j;
                break;
            }
        }
    }
    /* A commit with one parent outside the side: that parent is in B's
     * history (the walk hides B's), so it is the commit's one merge base
     * with B. (A commit whose one parent is in the side forks where the
     * parent does: the replay passes that on.) */
    if (!hc->on_base && np == 1 && hc->parent_at < 0)
        hex_of(hc->fork, git_commit_parent_id(c, 0));
}

/* The commits of base..tip, oldest first (topological, then commit time). */
static int
side_commits(git_repository *g, const git_oid *base, const git_oid *tip,
    size_t max, struct history_merge *m, int s, bool *too_long,
    struct as_err *e)
{
    git_revwalk *w = NULL;
    git_oid id;
    size_t alloc = 0;
    int err;

    *too_long = false;
    if (git_revwalk_new(&w, g) < 0 ||
        git_revwalk_sorting(
            w, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME | GIT_SORT_REVERSE) < 0 ||
        git_revwalk_push(w, tip) < 0 || git_revwalk_hide(w, base) < 0) {
        err = repo_git_errorf(e, "cannot walk a side of a merge");
        goto out;
    }
    while ((err = git_revwalk_next(&id, w)) == 0) {
        git_commit *c = NULL;

        if (max && m->nside[s] >= max) {
            *too_long = true;
            continue; /* keep counting nothing; just drain */
        }
        if (git_commit_lookup(&c, g, &id) < 0) {
            err = repo_git_errorf(e, "cannot read a side commit");
            goto out;
        }
        side_append(c, base, m, s, &alloc);
        git_commit_free(c);
    }
    if (err != GIT_ITEROVER) {
        err = repo_git_errorf(e, "cannot walk a side of a merge");
        goto out;
    }
    git_error_clear();
    err = 0;
out:
    git_revwalk_free(w);
    return err;
}

/*
 * side_commits() in a shallow clone, walked here because git_revwalk must
 * read every parent. *shallow when the side reaches the cut (it may go on
 * beyond it) or has a commit that does not contain base and whose fork
 * point (merge base with base, needed to replay it onto base) is not one
 * commit found here; otherwise such a commit's fork is filled in. The
 * order is the same rule: a commit comes after its parents in the side,
 * the oldest such commit first.
 */
static int
shallow_side(git_repository *g, const git_oid *base, const git_oid *tip,
    size_t max, const struct strmap *cut, struct history_merge *m, int s,
    bool *too_long, bool *shallow, struct as_err *e)
{
    struct strmap seen, index;
    struct shallow_commit *d = NULL;
    size_t n = 0, alloc = 0, mal = 0;
    uint32_t *pending = NULL, (*child)[2] = NULL; /* (parent, child) edges */
    size_t nedge = 0, edge_alloc = 0;
    git_commit **c = NULL;
    bool *out = NULL;
    int err;

    *too_long = *shallow = false;
    strmap_init(&seen);
    strmap_init(&index);
    if ((err = shallow_reach(g, base, cut, &seen, NULL, &n, &alloc, NULL, e)) <
            0 ||
        (err = shallow_reach(g, tip, cut, &seen, &d, &n, &alloc, shallow, e)) <
            0 ||
        *shallow)
        goto out;
    if (max && n > max) {
        *too_long = true;
        goto out;
    }
    if (n)
        qsort(d, n, sizeof(*d), shallow_commit_cmp); /* newest first */
    c = xcalloc(n ? n : 1, sizeof(*c));
    pending = xcalloc(n ? n : 1, sizeof(*pending));
    out = xcalloc(n ? n : 1, sizeof(*out));
    for (size_t i = 0; i < n; i++) {
        char hex[41];
        hex_of(hex, &d[i].id);
        strmap_put(&index, hex, 40, (uint32_t)i, NULL);
    }
    for (size_t i = 0; i < n; i++) {
        if (git_commit_lookup(&c[i], g, &d[i].id) < 0) {
            err = repo_git_errorf(e, "cannot read a side commit");
            goto out;
        }
        for (unsigned k = 0; k < git_commit_parentcount(c[i]); k++) {
            char phex[41];
            uint32_t at;
            hex_of(phex, git_commit_parent_id(c[i], k));
            if (!strmap_get(&index, phex, 40, &at))
                continue;
            ALLOC_GROW(child, nedge + 1, edge_alloc);
            child[nedge][0] = at;
            child[nedge++][1] = (uint32_t)i;
            pending[i]++;
        }
    }
    for (size_t left = n; left; left--) {
        size_t at = n;
        /* The oldest commit whose parents in the side are all out. */
        for (size_t i = n; i-- > 0;)
            if (!out[i] && !pending[i]) {
                at = i;
                break;
            }
        if (at == n) { /* a commit graph has no cycle */
            err = as_errorf(e, AS_EGIT, "cannot order a side of a merge");
            goto out;
        }
        out[at] = true;
        for (size_t j = 0; j < nedge; j++)
            if (child[j][0] == at)
                pending[child[j][1]]--;
        side_append(c[at], base, m, s, &mal);
        struct history_commit *hc = &m->side[s][m->nside[s] - 1];
        if (!hc->on_base) { /* where it forked from B's line */
            git_oid *f = NULL;
            size_t nf = 0;
            bool hit = false;
            if ((err = shallow_merge_bases(
                     g, base, &d[at].id, cut, &f, &nf, &hit, e)) < 0)
                goto out;
            if (nf == 1)
                hex_of(hc->fork, f);
            else
                *shallow = true; /* beyond the cut, or ambiguous */
            free(f);
        }
    }
out:
    for (size_t i = 0; c && i < n; i++)
        git_commit_free(c[i]);
    free(c);
    free(pending);
    free(child);
    free(out);
    free(d);
    strmap_release(&seen);
    strmap_release(&index);
    return err;
}

/* Classify merge commit c; on success with nothing to skip, append it. */
static int
add_merge(git_repository *g, const struct history_options *o, git_commit *c,
    struct strmap *chain, const struct strmap *cut, struct history *h,
    struct as_err *e)
{
    git_oidarray bases = { 0 };
    git_oid *sbases = NULL; /* shallow clone: the bases found here */
    const git_oid *base;
    size_t nbases;
    struct history_merge m;
    bool too_long[2] = { false, false }, shallow[2] = { false, false };
    int rc, err = 0;

    memset(&m, 0, sizeof(m));
    if (git_commit_parentcount(c) > 2) {
        h->skipped[HISTORY_SKIP_OCTOPUS]++;
        return 0;
    }
    if (shallow_in_cut(cut, git_commit_id(c))) { /* its parents are not here */
        h->skipped[HISTORY_SKIP_SHALLOW]++;
        return 0;
    }
    const git_oid *p1 = git_commit_parent_id(c, 0);
    const git_oid *p2 = git_commit_parent_id(c, 1);
    if (cut->count) {
        bool hit = false;
        if ((rc = shallow_merge_bases(
                 g, p1, p2, cut, &sbases, &nbases, &hit, e)) < 0)
            return rc;
        if (!nbases) {
            h->skipped[hit ? HISTORY_SKIP_SHALLOW : HISTORY_SKIP_NO_BASE]++;
            goto out;
        }
        base = sbases;
    } else {
        rc = git_merge_bases(&bases, g, p1, p2);
        if (rc == GIT_ENOTFOUND) {
            git_error_clear();
            h->skipped[HISTORY_SKIP_NO_BASE]++;
            return 0;
        }
        if (rc < 0)
            return repo_git_errorf(e, "cannot find merge bases");
        base = bases.ids;
        nbases = bases.count;
    }
    if (nbases > 1) {
        h->skipped[HISTORY_SKIP_CRISSCROSS]++;
        goto out;
    }
    if (git_oid_equal(base, p1) || git_oid_equal(base, p2)) {
        h->skipped[HISTORY_SKIP_EMPTY_SIDE]++;
        goto out;
    }
    hex_of(m.oid, git_commit_id(c));
    hex_of(m.base, base);
    hex_of(m.parent[0], p1);
    hex_of(m.parent[1], p2);
    m.time_ms = (int64_t)git_commit_time(c) * 1000;
    for (unsigned k = 0; k < 2; k++) {
        /* A merge cannot precede what it merges: a skewed clock that dated
         * it before a parent gives way to that parent's time. */
        git_commit *pc = NULL;
        if (git_commit_parent(&pc, c, k) == 0 &&
            (int64_t)git_commit_time(pc) * 1000 > m.time_ms)
            m.time_ms = (int64_t)git_commit_time(pc) * 1000;
        git_commit_free(pc);
    }
    git_error_clear();
    {
        uint32_t v;
        m.mainline = strmap_get(chain, m.oid, 40, &v);
    }
    {
        git_commit *bc = NULL;
        if (git_commit_lookup(&bc, g, base) < 0) {
            err = repo_git_errorf(e, "cannot read merge base '%s'", m.base);
            goto out;
        }
        hex_of(m.base_tree, git_commit_tree_id(bc));
        m.base_time_ms = (int64_t)git_commit_time(bc) * 1000;
        git_commit_free(bc);
    }
    for (int s = 0; s < 2 && !err; s++)
        err = cut->count ? shallow_side(g, base, s ? p2 : p1, o->max_side, cut,
                               &m, s, &too_long[s], &shallow[s], e)
                         : side_commits(g, base, s ? p2 : p1, o->max_side, &m,
                               s, &too_long[s], e);
    if (err)
        goto out_sides;
    if (shallow[0] || shallow[1]) {
        h->skipped[HISTORY_SKIP_SHALLOW]++;
        goto out_sides;
    }
    if (too_long[0] || too_long[1]) {
        h->skipped[HISTORY_SKIP_LARGE_SIDE]++;
        goto out_sides;
    }
    /* Nor can it precede any commit it merges (a skewed clock on a commit
     * inside a side, not only on a tip). */
    for (int s = 0; s < 2; s++)
        for (size_t k = 0; k < m.nside[s]; k++)
            if (m.side[s][k].time_ms > m.time_ms)
                m.time_ms = m.side[s][k].time_ms;
    ALLOC_GROW(h->m, h->n + 1, h->alloc);
    h->m[h->n++] = m;
    goto out;
out_sides:
    free(m.side[0]);
    free(m.side[1]);
out:
    git_oidarray_dispose(&bases);
    free(sbases);
    return err;
}

/* Mark the first-parent chain from tip (down to, not into, hide). */
static int
first_parent_chain(git_repository *g, const git_oid *tip, const git_oid *hide,
    const struct strmap *cut, struct strmap *chain, struct as_err *e)
{
    git_oid id = *tip;
    char hex[41];

    for (;;) {
        git_commit *c = NULL;

        if (hide && git_oid_equal(&id, hide))
            return 0;
        if (git_commit_lookup(&c, g, &id) < 0)
            return repo_git_errorf(e, "cannot read a first-parent commit");
        hex_of(hex, &id);
        strmap_put(chain, hex, 40, 1, NULL);
        if (git_commit_parentcount(c) == 0 || shallow_in_cut(cut, &id)) {
            git_commit_free(c);
            return 0;
        }
        git_oid_cpy(&id, git_commit_parent_id(c, 0));
        git_commit_free(c);
    }
}

/* The tips of --all: HEAD (when it names a commit) first, then every
 * branch, remote-tracking branch and tag peeled to a commit (a tag of a tree
 * or a blob is passed over; refs/stash and notes are not history). */
static int
all_tips(git_repository *g, git_oid **tips, size_t *ntips, bool *have_head,
    struct as_err *e)
{
    static const char *const kinds[] = { "refs/heads/", "refs/remotes/",
        "refs/tags/" };
    git_reference_iterator *it = NULL;
    git_reference *ref = NULL;
    size_t alloc = 0;
    git_oid head;
    int err;

    *tips = NULL;
    *ntips = 0;
    *have_head = git_reference_name_to_id(&head, g, "HEAD") == 0;
    if (*have_head) {
        git_object *o = NULL;
        *have_head = git_object_lookup(&o, g, &head, GIT_OBJECT_COMMIT) == 0;
        git_object_free(o);
    }
    if (*have_head) {
        ALLOC_GROW(*tips, *ntips + 1, alloc);
        (*tips)[(*ntips)++] = head;
    }
    if (git_reference_iterator_new(&it, g) < 0)
        return repo_git_errorf(e, "cannot list the references");
    while ((err = git_reference_next(&ref, it)) == 0) {
        const char *name = git_reference_name(ref);
        git_object *o = NULL;
        bool take = false;

        for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
            take = take || !strncmp(name, kinds[k], strlen(kinds[k]));
        if (take && git_reference_peel(&o, ref, GIT_OBJECT_COMMIT) == 0) {
            ALLOC_GROW(*tips, *ntips + 1, alloc);
            (*tips)[(*ntips)++] = *git_object_id(o);
        }
        git_object_free(o);
        git_reference_free(ref);
    }
    git_reference_iterator_free(it);
    if (err != GIT_ITEROVER) {
        free(*tips);
        *tips = NULL;
        return repo_git_errorf(e, "cannot list the references");
    }
    git_error_clear();
    if (!*ntips) {
        free(*tips);
        *tips = NULL;
        return as_errorf(e, AS_ENOENT, "no branch, tag or HEAD names a commit");
    }
    return 0;
}

int
history_collect(struct repo *r, const struct history_options *o,
    struct history *out, struct as_err *e)
{
    git_repository *g = repo_git(r);
    git_revwalk *w = NULL;
    git_oid tip, hide, id;
    git_oid *tips = &tip; /* where the walk starts: tip, or all_tips() */
    size_t ntips = 1;
    bool have_hide = false, have_chain = true;
    struct strmap chain, cut;
    git_oid *ids = NULL; /* shallow clone: the commits to visit, newest first */
    size_t nids = 0, next = 0;
    const char *rev = o->all ? "--all" : o->rev ? o->rev : "HEAD";
    const char *dots = o->all ? NULL : strstr(rev, "..");
    int err;

    memset(out, 0, sizeof(*out));
    strmap_init(&chain);
    strmap_init(&cut);
    if ((err = shallow_cut_load(g, &cut, e)) < 0)
        goto out;
    if (o->all) {
        if (o->rev) {
            err = as_errorf(
                e, AS_EINVAL, "--all takes no revision ('%s')", o->rev);
            goto out;
        }
        if ((err = all_tips(g, &tips, &ntips, &have_chain, e)) < 0)
            goto out;
        tip = tips[0]; /* HEAD when have_chain */
    } else if (dots) {
        char *from = xstrndup(rev, (size_t)(dots - rev));
        const char *to = dots + 2;

        if (*to == '.' || !*from || !*to) {
            free(from);
            err = as_errorf(e, AS_EINVAL,
                "bad range '%s' (want A..B or one revision)", rev);
            goto out;
        }
        err = repo_resolve_commit(r, from, &hide, e);
        free(from);
        if (err < 0)
            goto bad_rev;
        have_hide = true;
        if ((err = repo_resolve_commit(r, to, &tip, e)) < 0)
            goto bad_rev;
    } else if ((err = repo_resolve_commit(r, rev, &tip, e)) < 0) {
        goto bad_rev;
    }
    if (have_chain && (err = first_parent_chain(g, &tip,
                           have_hide ? &hide : NULL, &cut, &chain, e)) < 0)
        goto out;
    if (cut.count) {
        if ((err = shallow_range(g, tips, ntips, have_hide ? &hide : NULL, &cut,
                 &ids, &nids, e)) < 0)
            goto out;
    } else {
        bool ok =
            git_revwalk_new(&w, g) == 0 &&
            git_revwalk_sorting(w, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME) == 0 &&
            (!have_hide || git_revwalk_hide(w, &hide) == 0);
        for (size_t i = 0; ok && i < ntips; i++)
            ok = git_revwalk_push(w, &tips[i]) == 0;
        if (!ok) {
            err = repo_git_errorf(e, "cannot walk '%s'", rev);
            goto out;
        }
    }
    /* Newest first: --max keeps the newest merges. */
    for (;;) {
        git_commit *c = NULL;

        if (!ids)
            err = git_revwalk_next(&id, w);
        else if (next < nids)
            id = ids[next++];
        else
            err = GIT_ITEROVER;
        if (err)
            break;

        if (git_commit_lookup(&c, g, &id) < 0) {
            err = repo_git_errorf(e, "cannot read a commit of '%s'", rev);
            goto out;
        }
        if (git_commit_parentcount(c) < 2 ||
            (o->since_s && (int64_t)git_commit_time(c) < o->since_s)) {
            git_commit_free(c);
            continue;
        }
        if (o->max && out->merges_seen >= o->max) {
            git_commit_free(c);
            break;
        }
        out->merges_seen++;
        err = add_merge(g, o, c, &chain, &cut, out, e);
        git_commit_free(c);
        if (err)
            goto out;
    }
    if (err != GIT_ITEROVER && err != 0) {
        err = repo_git_errorf(e, "cannot walk '%s'", rev);
        goto out;
    }
    git_error_clear();
    err = 0;
    /* oldest first */
    for (size_t i = 0; i < out->n / 2; i++) {
        struct history_merge t = out->m[i];
        out->m[i] = out->m[out->n - 1 - i];
        out->m[out->n - 1 - i] = t;
    }
bad_rev:
    /* a revision the user named that names no commit is bad input */
    if (err == AS_ENOENT && o->rev)
        err = AS_EINVAL;
out:
    git_revwalk_free(w);
    free(ids);
    if (tips != &tip)
        free(tips);
    strmap_release(&chain);
    strmap_release(&cut);
    if (err)
        history_release(out);
    return err;
}

/* ---- working sets ---- */

static bool
same_change(const struct ws_file *a, const struct ws_file *b)
{
    if (a->status != b->status || a->added_lines != b->added_lines ||
        a->deleted_lines != b->deleted_lines || a->ranges.n != b->ranges.n ||
        (a->new_path == NULL) != (b->new_path == NULL) ||
        (a->new_path && strcmp(a->new_path, b->new_path)))
        return false;
    for (size_t i = 0; i < a->ranges.n; i++)
        if (a->ranges.v[i].start != b->ranges.v[i].start ||
            a->ranges.v[i].end != b->ranges.v[i].end)
            return false;
    return true;
}

static const struct ws_file *
find_file(const struct agent *a, const char *path)
{
    size_t lo = 0, hi = a->nfiles;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(a->files[mid].path, path);
        if (!c)
            return &a->files[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static int
lookup_tree(
    git_repository *g, const char *hex, git_tree **out, struct as_err *e)
{
    git_oid id;

    if (git_oid_fromstr(&id, hex) < 0) {
        git_error_clear();
        return as_errorf(e, AS_EINVAL, "bad tree id '%s'", hex);
    }
    if (git_tree_lookup(out, g, &id) < 0) {
        git_error_clear();
        return as_errorf(e, AS_ENOENT, "no tree '%s'", hex);
    }
    return 0;
}

/* ---- the walk's caches ---- */

/* The effects (indices into history_cache.v) of the deltas rename
 * detection left of a diff's deltas other than modifications. */
struct history_renamed {
    uint32_t *eff;
    size_t n;
};

struct history_cache {
    struct strmap idx; /* delta key -> index into v */
    struct ws_delta_effect *v;
    size_t n, alloc;
    struct strmap ren; /* the other deltas' keys -> index into rv */
    struct history_renamed *rv;
    size_t nrv, arv;
    size_t ren_hits; /* diffs whose rename detection came from here */
};

struct history_cache *
history_cache_new(void)
{
    struct history_cache *c = xcalloc(1, sizeof(*c));
    strmap_init(&c->idx);
    strmap_init(&c->ren);
    return c;
}

void
history_cache_clear(struct history_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++)
        workset_effect_release(&c->v[i]);
    c->n = 0;
    strmap_release(&c->idx);
    strmap_init(&c->idx);
    for (size_t i = 0; i < c->nrv; i++)
        free(c->rv[i].eff);
    c->nrv = 0;
    strmap_release(&c->ren);
    strmap_init(&c->ren);
}

size_t
history_cache_size(const struct history_cache *c)
{
    return c ? c->n + c->nrv : 0;
}

void
history_cache_free(struct history_cache *c)
{
    if (!c)
        return;
    history_cache_clear(c);
    strmap_release(&c->idx);
    strmap_release(&c->ren);
    free(c->v);
    free(c->rv);
    free(c);
}

void
history_tune_reads(void)
{
    git_libgit2_init();
    /* The walk reads the same blobs at every commit of a side: keep them
     * (libgit2 caches no blob by default), and do not hash every object
     * read again to check its id (the object store's own checksums stay). */
    git_libgit2_opts(
        GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_BLOB, (size_t)(1u << 20));
    /* and trees of any size (libgit2 keeps none over 4 KiB, which made
     * every diff and merge of a large directory parse it again) */
    git_libgit2_opts(
        GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_TREE, (size_t)(1u << 20));
    git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE, (ssize_t)(384u << 20));
    git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
    /* A side commit replayed onto the base is written as a tree; libgit2's
     * strict object creation looks up every entry of it, so a snapshot
     * lacking a blob neither side changes skipped the merge as
     * missing_object (git merge-tree does not look either): 30 of jetty's
     * newest 58 replayable merges, 10 without the check (the rest read the
     * blob). An object a merge really reads is still checked. */
    git_libgit2_opts(GIT_OPT_ENABLE_STRICT_OBJECT_CREATION, 0);
}

/* What makes a delta's effect on a working set: its status, both sides'
 * blobs, modes and paths (attributes go by path). */
static char *
delta_key(const git_diff_delta *d, size_t *len)
{
    char a[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1];
    git_oid_tostr(a, sizeof(a), &d->old_file.id);
    git_oid_tostr(b, sizeof(b), &d->new_file.id);
    const char *op = d->old_file.path ? d->old_file.path : "";
    char *k = xasprintf("%d %s %o %s %o %zu:%s%s", (int)d->status, a,
        (unsigned)d->old_file.mode, b, (unsigned)d->new_file.mode, strlen(op),
        op, d->new_file.path ? d->new_file.path : "");
    *len = strlen(k);
    return k;
}

/* The effect of delta i of diff (an index into c->v), diffed only when no
 * earlier working set had the same delta. */
static int
effect_of(git_diff *diff, size_t i, struct history_cache *c, uint32_t *at,
    struct as_err *e)
{
    size_t len;
    char *key = delta_key(git_diff_get_delta(diff, i), &len);
    if (!strmap_get(&c->idx, key, len, at)) {
        struct ws_delta_effect ef;
        int err = workset_delta_effect(diff, i, &ef, e);
        if (err) {
            free(key);
            return err;
        }
        ALLOC_GROW(c->v, c->n + 1, c->alloc);
        c->v[c->n] = ef;
        *at = (uint32_t)c->n++;
        strmap_put(&c->idx, key, len, *at, NULL);
    }
    free(key);
    return 0;
}

void
history_raw_init(struct history_raw *r)
{
    memset(r, 0, sizeof(*r));
    strmap_init(&r->paths);
}

void
history_raw_release(struct history_raw *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->v[i].path);
        free(r->v[i].key);
    }
    free(r->v);
    strmap_release(&r->paths);
    history_raw_init(r);
}

/* workset_apply_effect(), without looking for a path out cannot hold yet
 * (seen: the paths it holds). */
static void
apply_one(
    struct agent *out, struct strmap *seen, const struct ws_delta_effect *ef)
{
    bool added;
    if (ef->skip)
        return;
    strmap_put(seen, ef->path, strlen(ef->path), 0, &added);
    if (added)
        workset_apply_effect_new(out, ef);
    else
        workset_apply_effect(out, ef);
}

static void
buf_add(char **s, size_t *len, size_t *alloc, const char *p, size_t n)
{
    ALLOC_GROW(*s, *len + n + 1, *alloc);
    memcpy(*s + *len, p, n);
    *len += n;
    (*s)[*len] = '\0';
}

/*
 * The working set of diff (base -> tree, no rename detection yet) into
 * out, as git_diff_find_similar() and workset_add_diff() would make it,
 * each delta's effect from c; raw (may be NULL) gets the deltas. Rename
 * detection runs only when c has not seen the diff's deltas other than
 * modifications: they alone are its sources and targets, and a
 * modification comes out of it as it went in.
 */
static int
add_diff_cached(git_diff *diff, git_repository *repo, git_tree *from,
    git_tree *to, const git_diff_options *opts, const git_diff_find_options *fo,
    struct history_cache *c, struct agent *out, struct history_raw *raw,
    struct as_err *e)
{
    size_t nd = git_diff_num_deltas(diff);
    char *rkey = NULL;
    size_t rlen = 0, ralloc = 0;
    uint32_t at;
    struct strmap seen; /* the paths out holds */
    int err = 0;

    for (size_t i = 0; i < nd; i++) {
        const git_diff_delta *d = git_diff_get_delta(diff, i);
        bool mod = d->status == GIT_DELTA_MODIFIED;
        size_t len;
        char *key = delta_key(d, &len);
        if (raw) {
            ALLOC_GROW(raw->v, raw->n + 1, raw->alloc);
            struct history_delta *hd = &raw->v[raw->n];
            const char *p =
                d->new_file.path ? d->new_file.path : d->old_file.path;
            hd->path = xstrdup(p ? p : "");
            hd->key = xstrdup(key);
            hd->modified = mod;
            git_oid_cpy(&hd->id[0], &d->old_file.id);
            git_oid_cpy(&hd->id[1], &d->new_file.id);
            hd->mode[0] =
                d->status == GIT_DELTA_ADDED ? 0 : (uint32_t)d->old_file.mode;
            hd->mode[1] =
                d->status == GIT_DELTA_DELETED ? 0 : (uint32_t)d->new_file.mode;
            strmap_put(&raw->paths, hd->path, strlen(hd->path),
                (uint32_t)raw->n, NULL);
            raw->n++;
        }
        if (!mod) {
            buf_add(&rkey, &rlen, &ralloc, key, len);
            buf_add(&rkey, &rlen, &ralloc, "\n", 1);
        }
        free(key);
    }
    if (!rkey)
        rkey = xstrdup("");
    strmap_init(&seen);
    if (strmap_get(&c->ren, rkey, rlen, &at)) {
        /* rename detection's outcome is known: apply the modifications'
         * effects, then the others' as it left them (paths apart) */
        c->ren_hits++;
        for (size_t i = 0; i < nd && !err; i++) {
            uint32_t k;
            if (git_diff_get_delta(diff, i)->status != GIT_DELTA_MODIFIED)
                continue;
            if (!(err = effect_of(diff, i, c, &k, e)))
                apply_one(out, &seen, &c->v[k]);
        }
        const struct history_renamed *hr = &c->rv[at];
        for (size_t j = 0; j < hr->n && !err; j++)
            apply_one(out, &seen, &c->v[hr->eff[j]]);
        strmap_release(&seen);
        free(rkey);
        return err;
    }
    /* Rename detection over a diff of those deltas alone (the same
     * deltas in the same order: the same outcome, without walking every
     * modification for every added file). */
    git_diff *ren = NULL;
    if (rlen) {
        git_diff_options o2 = *opts;
        char **paths = xcalloc(nd, sizeof(*paths));
        size_t np = 0;
        for (size_t i = 0; i < nd; i++) {
            const git_diff_delta *d = git_diff_get_delta(diff, i);
            if (d->status != GIT_DELTA_MODIFIED)
                paths[np++] = (char *)(d->new_file.path ? d->new_file.path
                                                        : d->old_file.path);
        }
        o2.pathspec.strings = paths;
        o2.pathspec.count = np;
        o2.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
        if (git_diff_tree_to_tree(&ren, repo, from, to, &o2) < 0 ||
            git_diff_find_similar(ren, fo) < 0)
            err = repo_git_errorf(e, "cannot detect renames");
        free(paths);
        if (err) {
            git_diff_free(ren);
            strmap_release(&seen);
            free(rkey);
            return err;
        }
    }
    struct history_renamed hr = { NULL, 0 };
    size_t halloc = 0;
    for (size_t i = 0; i < nd && !err; i++) {
        uint32_t k;
        if (git_diff_get_delta(diff, i)->status != GIT_DELTA_MODIFIED)
            continue;
        if (!(err = effect_of(diff, i, c, &k, e)))
            apply_one(out, &seen, &c->v[k]);
    }
    size_t nr = ren ? git_diff_num_deltas(ren) : 0;
    for (size_t i = 0; i < nr && !err; i++) {
        uint32_t k;
        if ((err = effect_of(ren, i, c, &k, e)))
            break;
        apply_one(out, &seen, &c->v[k]);
        ALLOC_GROW(hr.eff, hr.n + 1, halloc);
        hr.eff[hr.n++] = k;
    }
    git_diff_free(ren);
    strmap_release(&seen);
    if (err) {
        free(hr.eff);
        free(rkey);
        return err;
    }
    ALLOC_GROW(c->rv, c->nrv + 1, c->arv);
    c->rv[c->nrv] = hr;
    strmap_put(&c->ren, rkey, rlen, (uint32_t)c->nrv++, NULL);
    free(rkey);
    return 0;
}

/* The key delta_key() gives the delta libgit2's diff (type changes
 * included, before rename detection) has at l: a key no delta has when
 * libgit2 would see it otherwise, never another delta's. */
static char *
leaf_key(const struct tree_leaf *l, bool *modified)
{
    int st = (int)tree_leaf_status(l);
    *modified = st == GIT_DELTA_MODIFIED;
    char a[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1];
    git_oid_tostr(a, sizeof(a), &l->id[0]);
    git_oid_tostr(b, sizeof(b), &l->id[1]);
    return xasprintf("%d %s %o %s %o %zu:%s%s", st, a, (unsigned)l->mode[0], b,
        (unsigned)l->mode[1], strlen(l->path), l->path, l->path);
}

/*
 * The working set of the diff from tree `from` to `to`, whose changed
 * paths are ll (folded), into out, as git_diff_find_similar() and
 * workset_add_diff() make it, and its deltas into raw (may be NULL).
 * libgit2 diffs only what c does not know yet: the modifications whose
 * effect it lacks, and the other deltas when rename detection's outcome
 * for them is not in c (it depends on them alone). Returns 1 done, 0 when
 * a delta libgit2 found is not the one expected at its path (out and raw
 * untouched: diff in full), or an error.
 */
static int
from_leaves(git_repository *g, git_tree *from, git_tree *to,
    const git_diff_options *opts, const git_diff_find_options *fo,
    const struct tree_leaves *ll, char **given, struct history_cache *c,
    struct agent *out, struct history_raw *raw, struct as_err *e)
{
    size_t n = ll->n;
    char **keys = given ? given : xcalloc(n + 1, sizeof(*keys));
    bool *mod = xcalloc(n + 1, sizeof(*mod));
    uint32_t *eff = xcalloc(n + 1, sizeof(*eff));
    char **need = xcalloc(n + 1, sizeof(*need));
    size_t nneed = 0;
    char *rkey = NULL;
    size_t rlen = 0, ralloc = 0;
    uint32_t at = 0;
    git_diff *diff = NULL;
    int rc = 1;

    for (size_t i = 0; i < n; i++) {
        if (keys[i]) /* kept from the previous diff */
            mod[i] = tree_leaf_status(&ll->v[i]) == GIT_DELTA_MODIFIED;
        else
            keys[i] = leaf_key(&ll->v[i], &mod[i]);
        if (!mod[i]) {
            buf_add(&rkey, &rlen, &ralloc, keys[i], strlen(keys[i]));
            buf_add(&rkey, &rlen, &ralloc, "\n", 1);
        }
    }
    if (!rkey)
        rkey = xstrdup("");
    bool renamed = strmap_get(&c->ren, rkey, rlen, &at);
    for (size_t i = 0; i < n; i++)
        if ((mod[i] &&
                !strmap_get(&c->idx, keys[i], strlen(keys[i]), &eff[i])) ||
            (!mod[i] && !renamed))
            need[nneed++] = ll->v[i].path;
    if (nneed || !renamed) {
        git_diff_options o2 = *opts;
        o2.pathspec.strings = need;
        o2.pathspec.count = nneed;
        o2.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
        if (nneed &&
            (git_diff_tree_to_tree(&diff, g, from, to, &o2) < 0 ||
                (!renamed && rlen && git_diff_find_similar(diff, fo) < 0))) {
            rc = repo_git_errorf(e, "cannot diff the changed paths");
            goto out;
        }
        struct history_renamed hr = { NULL, 0 };
        size_t halloc = 0;
        size_t nd = diff ? git_diff_num_deltas(diff) : 0;
        for (size_t i = 0; i < nd; i++) {
            uint32_t k;
            int err = effect_of(diff, i, c, &k, e);
            if (err) {
                free(hr.eff);
                rc = err;
                goto out;
            }
            if (!renamed &&
                git_diff_get_delta(diff, i)->status != GIT_DELTA_MODIFIED) {
                ALLOC_GROW(hr.eff, hr.n + 1, halloc);
                hr.eff[hr.n++] = k;
            }
        }
        if (!renamed) {
            ALLOC_GROW(c->rv, c->nrv + 1, c->arv);
            c->rv[c->nrv] = hr;
            at = (uint32_t)c->nrv++;
            strmap_put(&c->ren, rkey, rlen, at, NULL);
        }
        for (size_t i = 0; i < n; i++)
            if (mod[i] &&
                !strmap_get(&c->idx, keys[i], strlen(keys[i]), &eff[i])) {
                rc = 0; /* libgit2 saw this path otherwise */
                goto out;
            }
    } else {
        c->ren_hits++;
    }
    struct strmap seen;
    strmap_init(&seen);
    for (size_t i = 0; i < n; i++)
        if (mod[i])
            apply_one(out, &seen, &c->v[eff[i]]);
    const struct history_renamed *hr = &c->rv[at];
    for (size_t j = 0; j < hr->n; j++)
        apply_one(out, &seen, &c->v[hr->eff[j]]);
    strmap_release(&seen);
    for (size_t i = 0; raw && i < n; i++) {
        ALLOC_GROW(raw->v, raw->n + 1, raw->alloc);
        struct history_delta *hd = &raw->v[raw->n];
        hd->path = xstrdup(ll->v[i].path);
        hd->key = keys[i];
        keys[i] = NULL;
        hd->modified = mod[i];
        for (int k = 0; k < 2; k++) {
            git_oid_cpy(&hd->id[k], &ll->v[i].id[k]);
            hd->mode[k] = ll->v[i].mode[k];
        }
        strmap_put(
            &raw->paths, hd->path, strlen(hd->path), (uint32_t)raw->n, NULL);
        raw->n++;
    }
out:
    git_diff_free(diff);
    for (size_t i = 0; i < n; i++)
        free(keys[i]);
    free(keys);
    free(mod);
    free(eff);
    free(need);
    free(rkey);
    return rc;
}

/*
 * The paths where the base and t differ, each side's entry, from raw (the
 * diff from the base to raw->tree, every path, sorted) and the paths where
 * raw->tree and t differ: a path those two hold the same keeps raw's leaf
 * and its key; at another the base's entry is raw's when raw has the path,
 * else raw->tree's own (which is the base's there), and the leaf goes when
 * t is back to the base's entry. Sorted and folded, as
 * tree_changed_leaves() and tree_leaves_fold() give them; *keys: each
 * leaf's key when kept (taken from raw), else NULL.
 */
static int
leaves_from_previous(git_repository *g, struct history_raw *raw, git_tree *t,
    struct tree_leaves *ll, char ***keys, struct as_err *e)
{
    git_tree *pt = NULL;
    struct tree_leaves d = { NULL, 0, 0 };
    int err = lookup_tree(g, raw->tree, &pt, e);
    if (err < 0)
        return err;
    err = tree_changed_leaves(g, pt, t, "", &d, e);
    git_tree_free(pt);
    if (err < 0) {
        tree_leaves_release(&d);
        return err;
    }
    tree_leaves_fold(&d);
    size_t cap = raw->n + d.n + 1;
    ll->v = xcalloc(cap, sizeof(*ll->v));
    ll->alloc = cap;
    ll->n = 0;
    char **k = xcalloc(cap, sizeof(*k));
    size_t i = 0, j = 0;
    while (i < raw->n || j < d.n) {
        int c = i == raw->n ? 1
                : j == d.n  ? -1
                            : strcmp(raw->v[i].path, d.v[j].path);
        struct tree_leaf l;
        char *key = NULL;
        if (c < 0) { /* the same in both trees: raw's leaf */
            struct history_delta *hd = &raw->v[i++];
            l.path = hd->path;
            hd->path = NULL;
            key = hd->key;
            hd->key = NULL;
            for (int s = 0; s < 2; s++) {
                l.id[s] = hd->id[s];
                l.mode[s] = hd->mode[s];
            }
        } else {
            struct tree_leaf *dl = &d.v[j++];
            l.path = dl->path;
            dl->path = NULL;
            l.id[1] = dl->id[1];
            l.mode[1] = dl->mode[1];
            if (c == 0) { /* the base's entry, as raw has it */
                l.id[0] = raw->v[i].id[0];
                l.mode[0] = raw->v[i].mode[0];
                i++;
            } else { /* raw->tree held the base's entry */
                l.id[0] = dl->id[0];
                l.mode[0] = dl->mode[0];
            }
            if (l.mode[0] == l.mode[1] &&
                (!l.mode[0] || git_oid_equal(&l.id[0], &l.id[1]))) {
                free(l.path); /* back to the base's entry */
                continue;
            }
        }
        ll->v[ll->n] = l;
        k[ll->n++] = key;
    }
    tree_leaves_release(&d);
    *keys = k;
    return 0;
}

int
history_workset_raw(struct repo *r, const char *base_tree, const char *tree,
    const struct agent *prev, int64_t now_ms, struct history_cache *cache,
    struct agent *out, struct history_raw *raw, struct as_err *e)
{
    git_repository *g = repo_git(r);
    git_tree *bt = NULL, *t = NULL;
    git_diff *diff = NULL;
    git_diff_options opts;
    git_diff_find_options fo;
    struct tree_leaves ll = { NULL, 0, 0 };
    char **paths = NULL, **given = NULL;
    int err;

    if (raw && !cache)
        history_raw_release(raw);
    if ((err = lookup_tree(g, base_tree, &bt, e)) < 0 ||
        (err = lookup_tree(g, tree, &t, e)) < 0)
        goto out;
    git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
    opts.context_lines = 0;
    opts.interhunk_lines = 0;
    opts.flags = GIT_DIFF_INCLUDE_TYPECHANGE;
    git_diff_find_options_init(&fo, GIT_DIFF_FIND_OPTIONS_VERSION);
    fo.flags = GIT_DIFF_FIND_RENAMES;
    fo.metric = sigcache_metric(SIGCACHE_DIFF); /* NULL: libgit2's */
    if (cache) {
        /* Only the paths where the trees differ: the diff then reads the
         * directories on the way to them, not the whole tree; from the
         * previous diff's when raw holds one from this base. */
        err = -1;
        if (raw && raw->tree[0] && !strcmp(raw->base, base_tree) &&
            (err = leaves_from_previous(g, raw, t, &ll, &given, e)) < 0) {
            /* the previous tree is gone (an in-memory tree dropped):
             * from the base, as if there were none */
            tree_leaves_release(&ll);
            memset(&ll, 0, sizeof(ll));
            git_error_clear();
        }
        if (err < 0)
            err = tree_changed_leaves(g, bt, t, "", &ll, e);
        if (raw)
            history_raw_release(raw);
        if (err < 0)
            goto out;
        if (!given)
            tree_leaves_fold(&ll);
        if (!ll.n) {
            free(given);
            given = NULL;
            goto leaves_done; /* the same tree: nothing changed */
        }
        /* libgit2 diffs only what the cache lacks */
        err = from_leaves(g, bt, t, &opts, &fo, &ll, given, cache, out, raw, e);
        given = NULL; /* from_leaves() took it */
        if (err < 0)
            goto out;
        if (err == 1) {
            err = 0;
            goto leaves_done;
        }
        paths = xcalloc(ll.n, sizeof(*paths));
        for (size_t i = 0; i < ll.n; i++)
            paths[i] = ll.v[i].path;
        opts.pathspec.strings = paths;
        opts.pathspec.count = ll.n;
        opts.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
    }
    if (git_diff_tree_to_tree(&diff, g, bt, t, &opts) < 0 ||
        (!cache && git_diff_find_similar(diff, &fo) < 0)) {
        err = repo_git_errorf(
            e, "cannot diff tree '%s' to '%s'", base_tree, tree);
        goto out;
    }
    if ((err = cache ? add_diff_cached(
                           diff, g, bt, t, &opts, &fo, cache, out, raw, e)
                     : workset_add_diff(diff, out, e)) < 0)
        goto out;
    goto done;
leaves_done:
    if (raw) { /* raw holds every path where the trees differ */
        snprintf(raw->base, sizeof(raw->base), "%s", base_tree);
        snprintf(raw->tree, sizeof(raw->tree), "%s", tree);
    }
done:
    agent_sort(out);
    for (size_t i = 0; i < out->nfiles; i++) {
        struct ws_file *f = &out->files[i];
        const struct ws_file *p = prev ? find_file(prev, f->path) : NULL;
        f->changed_at_ms = p && same_change(p, f) ? p->changed_at_ms : now_ms;
    }
    free(out->tree_oid);
    out->tree_oid = xstrdup(tree);
out:
    if (err < 0 && raw)
        history_raw_release(raw);
    free(paths);
    tree_leaves_release(&ll);
    git_diff_free(diff);
    git_tree_free(t);
    git_tree_free(bt);
    return err;
}

/* Take every conflicted path of idx from theirs (absent there: removed). */
static int
resolve_theirs(git_index *idx, size_t *nconflicts, struct as_err *e)
{
    git_index_conflict_iterator *it = NULL;
    const git_index_entry *anc, *ours, *theirs;
    struct pick {
        char *path[3];
        git_index_entry entry; /* theirs, path borrowed from path[2] */
        bool has_theirs;
    } *picks = NULL;
    size_t n = 0, alloc = 0;
    int err = 0;

    if (git_index_conflict_iterator_new(&it, idx) < 0)
        return repo_git_errorf(e, "cannot read replay conflicts");
    while ((err = git_index_conflict_next(&anc, &ours, &theirs, it)) == 0) {
        ALLOC_GROW(picks, n + 1, alloc);
        struct pick *p = &picks[n++];
        memset(p, 0, sizeof(*p));
        const git_index_entry *ent[3] = { anc, ours, theirs };
        for (int k = 0; k < 3; k++)
            p->path[k] = ent[k] ? xstrdup(ent[k]->path) : NULL;
        if (theirs) {
            p->entry = *theirs;
            p->entry.path = p->path[2];
            p->entry.flags &= (uint16_t)~GIT_INDEX_ENTRY_STAGEMASK;
            p->has_theirs = true;
        }
    }
    git_index_conflict_iterator_free(it);
    if (err != GIT_ITEROVER) {
        err = repo_git_errorf(e, "cannot read replay conflicts");
        goto out;
    }
    git_error_clear();
    err = 0;
    for (size_t i = 0; i < n && !err; i++) {
        for (int k = 0; k < 3; k++)
            if (picks[i].path[k])
                git_index_conflict_remove(idx, picks[i].path[k]);
        if (picks[i].has_theirs && git_index_add(idx, &picks[i].entry) < 0)
            err = repo_git_errorf(
                e, "cannot settle a replay conflict on '%s'", picks[i].path[2]);
    }
    *nconflicts = n;
out:
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            free(picks[i].path[k]);
    free(picks);
    return err;
}

/* Whether both modes are entries of one type (a modification, not an
 * addition, deletion or type change). */
static bool
same_type(uint32_t a, uint32_t b)
{
    return a && b && (a & 0170000) == (b & 0170000);
}

/* Whether some proper directory of p is a key of m. */
static bool
under_key(const struct strmap *m, const char *p)
{
    uint32_t v;
    for (const char *s = strchr(p, '/'); s; s = strchr(s + 1, '/'))
        if (strmap_get(m, p, (size_t)(s - p), &v))
            return true;
    return false;
}

/* One path of a cut: its entry in the fork, the base and the commit. */
struct cut_entry {
    const char *path;
    const git_oid *id[3];
    uint32_t mode[3];
};

/* A tree of entry k of each of v's paths (those that have one). */
static int
cut_tree(git_repository *g, const struct cut_entry *v, size_t n, int k,
    git_tree **out)
{
    git_tree_update *u = xcalloc(n + 1, sizeof(*u));
    size_t nu = 0;
    git_oid id;
    int rc = 0;

    for (size_t i = 0; i < n; i++) {
        if (!v[i].mode[k])
            continue;
        u[nu].action = GIT_TREE_UPDATE_UPSERT;
        git_oid_cpy(&u[nu].id, v[i].id[k]);
        u[nu].filemode = (git_filemode_t)v[i].mode[k];
        u[nu].path = v[i].path;
        nu++;
    }
    if (git_tree_create_updated(&id, g, NULL, nu, u) < 0 ||
        git_tree_lookup(out, g, &id) < 0)
        rc = -1;
    free(u);
    return rc;
}

/* Whether entries a and b of c are the same (id and mode). */
static bool
cut_same(const struct cut_entry *c, int a, int b)
{
    return c->mode[a] == c->mode[b] && git_oid_equal(c->id[a], c->id[b]);
}

static bool
is_file_mode(uint32_t m)
{
    return m == GIT_FILEMODE_BLOB || m == GIT_FILEMODE_BLOB_EXECUTABLE;
}

/*
 * Path c of the cut merged alone, as git_merge_trees() merges a path with
 * no deletion and only regular files: the side that changed it (an
 * addition too), else (both modified it, differently) libgit2's file
 * merge with the
 * default options, which is what its merge runs for such a path when no
 * attribute names a merge driver (`merge` unspecified or set: the text
 * driver). *conflicted when that merge fails (the commit's entry is taken,
 * as resolve_theirs() takes it). 1 when an attribute names another
 * driver, 0 with *id and *mode set, or an error.
 */
static int
merge_cut_path(git_repository *g, const struct cut_entry *c, git_oid *id,
    uint32_t *mode, bool *conflicted, struct as_err *e)
{
    int take = cut_same(c, 1, 2) || cut_same(c, 0, 2) ? 1
               : cut_same(c, 0, 1)                    ? 2
                                                      : 0;
    *conflicted = false;
    if (take) {
        git_oid_cpy(id, c->id[take]);
        *mode = c->mode[take];
        return 0;
    }
    const char *attr = NULL;
    if (git_attr_get(&attr, g, 0, c->path, "merge") < 0)
        return repo_git_errorf(
            e, "cannot read the attributes of '%s'", c->path);
    if (!GIT_ATTR_IS_UNSPECIFIED(attr) && !GIT_ATTR_IS_TRUE(attr))
        return 1;
    git_index_entry in[3];
    memset(in, 0, sizeof(in));
    for (int k = 0; k < 3; k++) {
        in[k].path = c->path;
        in[k].mode = c->mode[k];
        git_oid_cpy(&in[k].id, c->id[k]);
    }
    git_merge_file_result res = { 0 };
    if (git_merge_file_from_index(&res, g, &in[0], &in[1], &in[2], NULL) < 0)
        return repo_git_errorf(e, "cannot merge '%s'", c->path);
    int err = 0;
    if (res.automergeable) {
        if (git_blob_create_from_buffer(id, g, res.ptr, res.len) < 0)
            err = repo_git_errorf(e, "cannot write the merge of '%s'", c->path);
        *mode = res.mode;
    } else {
        git_oid_cpy(id, c->id[2]);
        *mode = c->mode[2];
        *conflicted = true;
    }
    git_merge_file_result_free(&res);
    return err;
}

/*
 * The cut's outcome path by path into u (one upsert per path) when no
 * path is deleted and every entry is a regular file: a rename pairs a
 * deletion with an addition (libgit2's merge has no directory renames),
 * and the cut has no path under another, so each path merges alone. 1
 * when it cannot tell (a deletion, an entry not a regular file, a path
 * both sides added differently, a path with another merge driver), 0 with
 * *nu and *nconflicts set, or an error.
 */
static int
merge_cut_by_path(git_repository *g, const struct cut_entry *v, size_t nv,
    git_tree_update *u, size_t *nu, size_t *nconflicts, struct as_err *e)
{
    size_t nconf = 0;
    for (size_t i = 0; i < nv; i++) {
        const struct cut_entry *c = &v[i];
        for (int k = 0; k < 3; k++)
            if ((c->mode[k] && !is_file_mode(c->mode[k])) ||
                (k && c->mode[0] && !c->mode[k]))
                return 1; /* not a file, or a deletion: a rename's source */
        if (!c->mode[0] && c->mode[1] && c->mode[2] && !cut_same(c, 1, 2))
            return 1; /* added on both sides, differently */
    }
    for (size_t i = 0; i < nv; i++) {
        bool conflicted = false;
        uint32_t mode = 0;
        int rc = merge_cut_path(g, &v[i], &u[i].id, &mode, &conflicted, e);
        if (rc)
            return rc;
        u[i].action = GIT_TREE_UPDATE_UPSERT;
        u[i].filemode = (git_filemode_t)mode;
        u[i].path = v[i].path;
        nconf += conflicted;
    }
    *nu = nv;
    *nconflicts = nconf;
    return 0;
}

/*
 * history_own_tree()'s merge of ft (the fork), bt (the base) and ct (the
 * commit) without the trees' other files: the merge runs on trees cut
 * down to the paths where the base or the commit differ from the fork but
 * the base's modifications of paths the commit left alone (they merge as
 * they are, the base's, and are neither a source nor a target of rename
 * detection), and its outcome at those paths (conflicts settled as
 * history_own_tree() settles them) updates the base's tree; with no
 * path of the cut deleted, each path merges alone (merge_cut_by_path()),
 * without writing the cut trees or running the tree merge. Every other
 * path holds the same entry in the fork, the base and the commit, or only
 * the base changed it: the full merge keeps the base's entry there. 1
 * when it cannot tell (a changed path under another changed path: a
 * file/directory clash, where the trees' other files take part), 0 with
 * out and *nconflicts set, or an error.
 */
static int
own_tree_cut(git_repository *g, git_tree *ft, git_tree *bt, git_tree *ct,
    git_oid *out, size_t *nconflicts, struct as_err *e)
{
    struct tree_leaves ll[2] = { { NULL, 0, 0 }, { NULL, 0, 0 } };
    struct strmap all, at[2];
    struct cut_entry *v = NULL;
    git_tree *t[3] = { NULL, NULL, NULL };
    git_index *idx = NULL;
    git_tree_update *u = NULL;
    size_t nv = 0, av = 0, nu = 0;
    int err = 0;

    strmap_init(&all);
    for (int s = 0; s < 2; s++)
        strmap_init(&at[s]);
    for (int s = 0; s < 2 && !err; s++)
        if ((err = tree_changed_leaves(g, ft, s ? ct : bt, "", &ll[s], e)) == 0)
            tree_leaves_fold(&ll[s]);
    if (err)
        goto out;
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < ll[s].n; i++) {
            const char *p = ll[s].v[i].path;
            strmap_put(&all, p, strlen(p), 0, NULL);
            strmap_put(&at[s], p, strlen(p), (uint32_t)i, NULL);
        }
    for (int s = 0; s < 2 && !err; s++)
        for (size_t i = 0; i < ll[s].n && !err; i++)
            if (under_key(&all, ll[s].v[i].path))
                err = 1;
    if (err)
        goto out;
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < ll[s].n; i++) {
            const struct tree_leaf *l = &ll[s].v[i];
            uint32_t o;
            bool both = strmap_get(&at[1 - s], l->path, strlen(l->path), &o);
            if (both && s == 1)
                continue; /* taken with the base's */
            if (!both && s == 0 && same_type(l->mode[0], l->mode[1]))
                continue; /* the base's own modification */
            ALLOC_GROW(v, nv + 1, av);
            struct cut_entry *c = &v[nv++];
            c->path = l->path;
            c->id[0] = &l->id[0];
            c->mode[0] = l->mode[0];
            for (int k = 0; k < 2; k++) {
                const struct tree_leaf *y = k == s ? l
                                            : both ? &ll[1 - s].v[o]
                                                   : NULL;
                c->id[1 + k] = y ? &y->id[1] : &l->id[0];
                c->mode[1 + k] = y ? y->mode[1] : l->mode[0];
            }
        }
    /* each path alone when none is added or deleted */
    u = xcalloc(nv + 1, sizeof(*u));
    if ((err = merge_cut_by_path(g, v, nv, u, &nu, nconflicts, e)) <= 0) {
        if (err == 0 && git_tree_create_updated(out, g, bt, nu, u) < 0)
            err = repo_git_errorf(e, "cannot write a replayed tree");
        goto out;
    }
    err = 0;
    nu = 0;
    for (int k = 0; k < 3 && !err; k++)
        if (cut_tree(g, v, nv, k, &t[k]) < 0)
            err = repo_git_errorf(e, "cannot write the trees of a replay");
    if (err || (err = merge_trees_as_git(g, t[0], t[1], t[2], &idx, e)) < 0)
        goto out;
    if (git_index_has_conflicts(idx) &&
        (err = resolve_theirs(idx, nconflicts, e)) < 0)
        goto out;
    /* the outcome at each path of the cut: its entry, or none */
    for (size_t i = 0; i < nv; i++) {
        const git_index_entry *ie = git_index_get_bypath(idx, v[i].path, 0);
        if (ie) {
            u[nu].action = GIT_TREE_UPDATE_UPSERT;
            git_oid_cpy(&u[nu].id, &ie->id);
            u[nu].filemode = (git_filemode_t)ie->mode;
        } else if (v[i].mode[1]) {
            u[nu].action = GIT_TREE_UPDATE_REMOVE;
        } else {
            continue;
        }
        u[nu++].path = v[i].path;
    }
    /* and nothing else: every entry of the merge is at a path of the cut */
    if (git_index_entrycount(idx) > nv)
        err = 1;
    else if (git_tree_create_updated(out, g, bt, nu, u) < 0)
        err = repo_git_errorf(e, "cannot write a replayed tree");
out:
    free(u);
    git_index_free(idx);
    for (int k = 0; k < 3; k++)
        git_tree_free(t[k]);
    free(v);
    strmap_release(&all);
    for (int s = 0; s < 2; s++) {
        strmap_release(&at[s]);
        tree_leaves_release(&ll[s]);
    }
    return err;
}

/* The entry at path in tree t: its mode (0: none; a directory's too) and
 * id. */
static uint32_t
entry_at(git_tree *t, const char *path, git_oid *id)
{
    git_tree_entry *te = NULL;
    uint32_t mode = 0;
    memset(id, 0, sizeof(*id));
    if (git_tree_entry_bypath(&te, t, path) == 0) {
        mode = (uint32_t)git_tree_entry_filemode(te);
        git_oid_cpy(id, git_tree_entry_id(te));
        git_tree_entry_free(te);
    } else {
        git_error_clear();
    }
    return mode;
}

/* Whether tree t holds anything but a directory at a proper prefix of
 * path (a file where path needs a directory). */
static bool
file_above(git_tree *t, const char *path)
{
    char buf[4096];
    git_oid id;
    if (strlen(path) >= sizeof(buf))
        return true; /* cannot tell: as if so */
    for (const char *sl = strchr(path, '/'); sl; sl = strchr(sl + 1, '/')) {
        memcpy(buf, path, (size_t)(sl - path));
        buf[sl - path] = '\0';
        uint32_t m = entry_at(t, buf, &id);
        if (!m)
            return false; /* nothing there, nor below */
        if ((m & 0170000) != (uint32_t)GIT_FILEMODE_TREE)
            return true;
    }
    return false;
}

/* Whether the commit side deleted a file since the fork (ft to ct):
 * 1, 0, or an error. */
static int
deletes_since(git_repository *g, git_tree *ft, git_tree *ct, struct as_err *e)
{
    struct tree_leaves ll = { NULL, 0, 0 };
    int rc = tree_changed_leaves(g, ft, ct, "", &ll, e);
    if (rc == 0)
        tree_leaves_fold(&ll); /* each path's two entries as one */
    for (size_t i = 0; rc == 0 && i < ll.n; i++)
        if (ll.v[i].mode[0] &&
            (!ll.v[i].mode[1] || !same_type(ll.v[i].mode[0], ll.v[i].mode[1])))
            rc = 1; /* deleted, or a type change (a rename source too) */
    tree_leaves_release(&ll);
    return rc;
}

int
history_own_tree_step(struct repo *r, const char *base_oid,
    const char *fork_oid, const char *prev_tree, const char *prev_own,
    const char *commit_oid, char out[41], struct as_err *e)
{
    git_repository *g = repo_git(r);
    git_oid b, f, c, t;
    git_commit *bc = NULL, *fc = NULL, *cc = NULL;
    git_tree *bt = NULL, *ft = NULL, *ct = NULL, *pt = NULL, *po = NULL;
    struct tree_leaves d = { NULL, 0, 0 };
    git_tree_update *u = NULL;
    int err = 0;

    if (git_oid_fromstr(&b, base_oid) < 0 ||
        git_oid_fromstr(&f, fork_oid) < 0 ||
        git_oid_fromstr(&c, commit_oid) < 0)
        return as_errorf(e, AS_EINVAL, "malformed commit id");
    if (git_commit_lookup(&bc, g, &b) < 0 ||
        git_commit_lookup(&fc, g, &f) < 0 ||
        git_commit_lookup(&cc, g, &c) < 0 || git_commit_tree(&bt, bc) < 0 ||
        git_commit_tree(&ft, fc) < 0 || git_commit_tree(&ct, cc) < 0 ||
        lookup_tree(g, prev_tree, &pt, e) < 0 ||
        lookup_tree(g, prev_own, &po, e) < 0) {
        git_error_clear();
        err = 1; /* cannot tell here: the whole way */
        goto out;
    }
    if ((err = tree_changed_leaves(g, pt, ct, "", &d, e)) < 0)
        goto out;
    tree_leaves_fold(&d);
    u = xcalloc(d.n + 1, sizeof(*u));
    int deletes = -1; /* the side's deletions since the fork: not known */
    for (size_t i = 0; i < d.n && !err; i++) {
        const struct tree_leaf *l = &d.v[i];
        git_oid fid, bid;
        uint32_t fm = entry_at(ft, l->path, &fid);
        uint32_t bm = entry_at(bt, l->path, &bid);
        /* in the fork, in both commits, the same kind of entry; B's line
         * left it as the fork had it */
        bool modified = same_type(fm, l->mode[0]) &&
                        same_type(fm, l->mode[1]) && bm == fm &&
                        git_oid_equal(&bid, &fid);
        /* or a file the side adds, now or before (in neither the fork nor
         * B, no file of B's where it needs a directory): a one-sided
         * addition, which only a deletion on the same side could pair as
         * a rename */
        bool added = !modified && !fm && !bm && l->mode[1] &&
                     (!l->mode[0] || same_type(l->mode[0], l->mode[1])) &&
                     !file_above(bt, l->path);
        if (added && deletes < 0 &&
            (deletes = deletes_since(g, ft, ct, e)) < 0) {
            err = deletes;
            break;
        }
        if (!modified && !(added && !deletes)) {
            err = 1;
            break;
        }
        u[i].action = GIT_TREE_UPDATE_UPSERT;
        git_oid_cpy(&u[i].id, &l->id[1]);
        u[i].filemode = (git_filemode_t)l->mode[1];
        u[i].path = l->path;
    }
    if (!err) {
        if (git_tree_create_updated(&t, g, po, d.n, u) < 0)
            err = repo_git_errorf(e, "cannot write a replayed tree");
        else
            hex_of(out, &t);
    }
out:
    free(u);
    tree_leaves_release(&d);
    git_tree_free(po);
    git_tree_free(pt);
    git_tree_free(ct);
    git_tree_free(ft);
    git_tree_free(bt);
    git_commit_free(cc);
    git_commit_free(fc);
    git_commit_free(bc);
    return err;
}

int
history_fork(struct repo *r, const char *base_oid, const char *commit_oid,
    char out[41], bool *unique, struct as_err *e)
{
    git_oid b, c;
    git_oidarray v = { NULL, 0 };

    out[0] = '\0';
    *unique = false;
    if (git_oid_fromstr(&b, base_oid) < 0 ||
        git_oid_fromstr(&c, commit_oid) < 0)
        return as_errorf(e, AS_EINVAL, "malformed commit id");
    int rc = git_merge_bases(&v, repo_git(r), &b, &c);
    if (rc == GIT_ENOTFOUND) {
        git_error_clear();
        return 0;
    }
    if (rc < 0)
        return repo_git_errorf(e, "cannot find where '%s' forked", commit_oid);
    if (v.count) {
        hex_of(out, &v.ids[0]); /* git_merge_base()'s answer */
        *unique = v.count == 1;
    }
    git_oidarray_free(&v);
    return 0;
}

int
history_own_tree(struct repo *r, const char *base_oid, const char *commit_oid,
    const char *fork_oid, char out[41], size_t *nconflicts, struct as_err *e)
{
    git_repository *g = repo_git(r);
    git_oid b, c, f, t;
    git_commit *fc = NULL, *bc = NULL, *cc = NULL;
    git_tree *ft = NULL, *bt = NULL, *ct = NULL;
    git_index *idx = NULL;
    int err = 0;

    *nconflicts = 0;
    if (git_oid_fromstr(&b, base_oid) < 0 ||
        git_oid_fromstr(&c, commit_oid) < 0)
        return as_errorf(e, AS_EINVAL, "malformed commit id");
    if (git_commit_lookup(&bc, g, &b) < 0 ||
        git_commit_lookup(&cc, g, &c) < 0) {
        err = as_errorf(e, AS_ENOENT, "commit '%s' or '%s' not found", base_oid,
            commit_oid);
        goto out;
    }
    int rc = fork_oid && *fork_oid
                 ? (git_oid_fromstr(&f, fork_oid) < 0 ? GIT_ERROR : 0)
                 : git_merge_base(&f, g, &b, &c);
    if (rc == GIT_ENOTFOUND || (rc == 0 && git_oid_equal(&f, &b))) {
        /* unrelated, or commit already contains base: its tree as it is */
        git_error_clear();
        hex_of(out, git_commit_tree_id(cc));
        goto out;
    }
    if (rc < 0 || git_commit_lookup(&fc, g, &f) < 0 ||
        git_commit_tree(&ft, fc) < 0 || git_commit_tree(&bt, bc) < 0 ||
        git_commit_tree(&ct, cc) < 0) {
        err = repo_git_errorf(e, "cannot find where '%s' forked", commit_oid);
        goto out;
    }
    /* the merge of the changed paths alone, else of the whole trees */
    if ((err = own_tree_cut(g, ft, bt, ct, &t, nconflicts, e)) < 0)
        goto out;
    if (err == 0) {
        hex_of(out, &t);
        goto out;
    }
    err = 0;
    *nconflicts = 0;
    if ((err = merge_trees_as_git(g, ft, bt, ct, &idx, e)) < 0)
        goto out;
    if (git_index_has_conflicts(idx) &&
        (err = resolve_theirs(idx, nconflicts, e)) < 0)
        goto out;
    if (git_index_write_tree_to(&t, idx, g) < 0) {
        err = repo_git_errorf(
            e, "cannot write the replayed tree of '%s'", commit_oid);
        goto out;
    }
    hex_of(out, &t);
out:
    git_index_free(idx);
    git_tree_free(ct);
    git_tree_free(bt);
    git_tree_free(ft);
    git_commit_free(cc);
    git_commit_free(bc);
    git_commit_free(fc);
    return err;
}

/* ---- objects a snapshot lacks ---- */

/* 1 with out set when tree id or anything under it is missing; trees
 * already checked are in seen. */
static int
tree_missing(git_repository *g, git_odb *odb, const git_oid *id,
    struct strmap *seen, char out[41], struct as_err *e)
{
    char hex[41];
    git_tree *t = NULL;
    int rc = 0;

    uint32_t v;

    hex_of(hex, id);
    if (strmap_get(seen, hex, 40, &v))
        return 0;
    if (!git_odb_exists(odb, id)) {
        memcpy(out, hex, 41);
        return 1;
    }
    if (git_tree_lookup(&t, g, id) < 0)
        return repo_git_errorf(e, "cannot read tree '%s'", hex);
    for (size_t i = 0, n = git_tree_entrycount(t); i < n && !rc; i++) {
        const git_tree_entry *te = git_tree_entry_byindex(t, i);
        switch (git_tree_entry_type(te)) {
        case GIT_OBJECT_TREE:
            rc = tree_missing(g, odb, git_tree_entry_id(te), seen, out, e);
            break;
        case GIT_OBJECT_BLOB:
            if (!git_odb_exists(odb, git_tree_entry_id(te))) {
                hex_of(out, git_tree_entry_id(te));
                rc = 1;
            }
            break;
        default: /* a submodule's commit is not in this repository */
            break;
        }
    }
    git_tree_free(t);
    if (!rc)
        strmap_put(seen, hex, 40, 1, NULL);
    return rc;
}

/* tree_missing() of commit hex's tree (a missing commit is missing). */
static int
commit_missing(git_repository *g, git_odb *odb, const char *hex,
    struct strmap *seen, char out[41], struct as_err *e)
{
    git_oid id;
    git_commit *c = NULL;

    if (git_oid_fromstr(&id, hex) < 0)
        return as_errorf(e, AS_EINVAL, "bad commit id '%s'", hex);
    if (!git_odb_exists(odb, &id)) {
        memcpy(out, hex, 41);
        return 1;
    }
    if (git_commit_lookup(&c, g, &id) < 0)
        return repo_git_errorf(e, "cannot read commit '%s'", hex);
    int rc = tree_missing(g, odb, git_commit_tree_id(c), seen, out, e);
    git_commit_free(c);
    return rc;
}

int
history_missing(struct repo *r, const struct history_merge *m, char out[41],
    struct as_err *e)
{
    git_repository *g = repo_git(r);
    git_odb *odb = NULL;
    struct strmap seen;
    int rc;

    out[0] = '\0';
    if (git_repository_odb(&odb, g) < 0)
        return repo_git_errorf(e, "cannot open the object database");
    strmap_init(&seen);
    rc = commit_missing(g, odb, m->base, &seen, out, e);
    for (int s = 0; s < 2 && !rc; s++)
        for (size_t k = 0; k < m->nside[s] && !rc; k++) {
            const struct history_commit *c = &m->side[s][k];
            rc = commit_missing(g, odb, c->oid, &seen, out, e);
            if (rc || c->on_base)
                continue;
            char fork[41];
            if (c->fork[0]) {
                memcpy(fork, c->fork, 41);
            } else {
                git_oid b, id, f;
                if (git_oid_fromstr(&b, m->base) < 0 ||
                    git_oid_fromstr(&id, c->oid) < 0 ||
                    git_merge_base(&f, g, &b, &id) < 0) {
                    git_error_clear();
                    continue; /* no fork point: nothing more to read */
                }
                hex_of(fork, &f);
            }
            rc = commit_missing(g, odb, fork, &seen, out, e);
        }
    strmap_release(&seen);
    git_odb_free(odb);
    return rc;
}
