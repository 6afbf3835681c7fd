/*
 * align.c - agents moved onto the newest base by in-memory rebases.
 */
#include "git/align.h"

#include <stdlib.h>
#include <string.h>

#include "git/shallow.h"
#include "git/workset.h"
#include "util/sort.h"
#include "util/strmap.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* A rebase's outcome: the rebased tree and the paths where the work
 * conflicted with what the new base changed (sorted, unique). */
struct rebased {
    git_oid tree;
    char **paths;
    size_t npaths;
};

struct align_cache {
    struct strmap index; /* "base:tree:onto" -> slot in v */
    struct rebased *v;
    size_t n, alloc;
    size_t hits;
};

long
align_newest(size_t n, align_descends_fn *descends, void *ctx)
{
    size_t cand = 0, i;

    if (n == 0)
        return -1;
    /* the newest, if any, replaces every candidate before it and none
     * after it replaces it (bases are distinct) */
    for (i = 1; i < n; i++)
        if (descends(ctx, i, cand))
            cand = i;
    for (i = 0; i < n; i++)
        if (i != cand && !descends(ctx, cand, i))
            return -1;
    return (long)cand;
}

struct align_cache *
align_cache_new(void)
{
    struct align_cache *c = xcalloc(1, sizeof(*c));

    strmap_init(&c->index);
    return c;
}

void
align_cache_free(struct align_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++)
        strv_free(c->v[i].paths, c->v[i].npaths);
    free(c->v);
    strmap_release(&c->index);
    free(c);
}

size_t
align_cache_hits(const struct align_cache *c)
{
    return c->hits;
}

static int
commit_tree(
    git_repository *g, const git_oid *id, git_tree **out, struct as_err *e)
{
    git_commit *c = NULL;
    char hex[GIT_OID_HEXSZ + 1];
    int err = 0;

    if (git_commit_lookup(&c, g, id) < 0 || git_commit_tree(out, c) < 0) {
        git_error_clear();
        git_oid_tostr(hex, sizeof(hex), id);
        err = as_errorf(e, AS_ENOENT, "no commit '%s'", hex);
    }
    git_commit_free(c);
    return err;
}

/* Settle every conflict left in idx for ours: its entry where it has one,
 * none (its deletion, or its rename away) where it has not. */
static int
take_ours(git_index *idx, struct as_err *e)
{
    git_index_conflict_iterator *it = NULL;
    const git_index_entry *anc, *ours, *theirs;
    git_index_entry *keep = NULL;
    size_t n = 0, alloc = 0, i;
    int err;

    if (git_index_conflict_iterator_new(&it, idx) < 0)
        return repo_git_errorf(e, "cannot read rebase conflicts");
    while ((err = git_index_conflict_next(&anc, &ours, &theirs, it)) == 0) {
        if (!ours)
            continue;
        ALLOC_GROW(keep, n + 1, alloc);
        keep[n] = *ours;
        keep[n].path = xstrdup(ours->path);
        keep[n].flags &= (uint16_t)~GIT_INDEX_ENTRY_STAGEMASK;
        n++;
    }
    git_index_conflict_iterator_free(it);
    if (err != GIT_ITEROVER) {
        err = repo_git_errorf(e, "cannot read rebase conflicts");
    } else if (git_index_conflict_cleanup(idx) < 0) {
        err = repo_git_errorf(e, "cannot settle rebase conflicts");
    } else {
        err = 0;
        for (i = 0; i < n && !err; i++)
            if (git_index_add(idx, &keep[i]) < 0)
                err = repo_git_errorf(e, "cannot keep '%s'", keep[i].path);
    }
    for (i = 0; i < n; i++)
        free((char *)keep[i].path);
    free(keep);
    return err;
}

/* The paths idx holds conflicts on, sorted and unique, appended to out:
 * the work's path where it has one, else the new base's, else the old
 * one's (a file both sides deleted or renamed apart). */
static int
conflict_paths(git_index *idx, struct rebased *out, struct as_err *e)
{
    git_index_conflict_iterator *it = NULL;
    const git_index_entry *anc, *ours, *theirs;
    size_t alloc = 0;
    int err;

    if (git_index_conflict_iterator_new(&it, idx) < 0)
        return repo_git_errorf(e, "cannot read rebase conflicts");
    while ((err = git_index_conflict_next(&anc, &ours, &theirs, it)) == 0) {
        const git_index_entry *x = ours ? ours : theirs ? theirs : anc;
        ALLOC_GROW(out->paths, out->npaths + 1, alloc);
        out->paths[out->npaths++] = xstrdup(x->path);
    }
    git_index_conflict_iterator_free(it);
    if (err != GIT_ITEROVER)
        return repo_git_errorf(e, "cannot read rebase conflicts");
    out->npaths = sort_uniq_strv(out->paths, out->npaths);
    return 0;
}

/*
 * Rebase the work tree tree (based on commit base) onto commit onto, as
 * described in align.h, into *out: the rebased tree and the paths that
 * conflicted (owned by *out, or by the cache when cache is not NULL: valid
 * while it lives). A plain three-way merge first: when it is clean, that
 * is the rebase; when it conflicts, its conflicting paths are kept and the
 * merge is made again with every conflict settled for the work. Returns 0,
 * AS_ENOENT when an object is missing, or AS_EGIT.
 */
static int
align_rebase_tree(struct repo *r, struct align_cache *cache,
    const git_oid *base, const git_oid *tree, const git_oid *onto,
    struct rebased *out, struct as_err *e)
{
    git_repository *g = repo_git(r);
    git_tree *anc = NULL, *ours = NULL, *theirs = NULL;
    git_index *idx = NULL;
    git_merge_options mo;
    char hb[GIT_OID_HEXSZ + 1], ht[GIT_OID_HEXSZ + 1], ho[GIT_OID_HEXSZ + 1];
    char *key;
    uint32_t slot;
    int err;

    git_oid_tostr(hb, sizeof(hb), base);
    git_oid_tostr(ht, sizeof(ht), tree);
    git_oid_tostr(ho, sizeof(ho), onto);
    key = xasprintf("%s:%s:%s", hb, ht, ho);
    memset(out, 0, sizeof(*out));
    if (cache && strmap_get(&cache->index, key, strlen(key), &slot)) {
        cache->hits++;
        *out = cache->v[slot];
        free(key);
        return 0;
    }
    if ((err = commit_tree(g, base, &anc, e)) < 0 ||
        (err = commit_tree(g, onto, &theirs, e)) < 0)
        goto out;
    if (git_tree_lookup(&ours, g, tree) < 0) {
        git_error_clear();
        err = as_errorf(e, AS_ENOENT, "no tree '%s'", ht);
        goto out;
    }
    if (git_oid_equal(git_tree_id(anc), git_tree_id(theirs))) {
        git_oid_cpy(&out->tree, tree); /* nothing happened in between */
    } else if (git_oid_equal(git_tree_id(anc), tree)) {
        git_oid_cpy(&out->tree, git_tree_id(theirs)); /* no work of its own */
    } else {
        git_merge_options_init(&mo, GIT_MERGE_OPTIONS_VERSION);
        if (git_merge_trees(&idx, g, anc, ours, theirs, &mo) < 0) {
            err = repo_git_errorf(e, "cannot rebase '%s' onto '%s'", ht, ho);
            goto out;
        }
        if (git_index_has_conflicts(idx)) {
            if ((err = conflict_paths(idx, out, e)) < 0)
                goto out;
            git_index_free(idx);
            idx = NULL;
            mo.file_favor = GIT_MERGE_FILE_FAVOR_OURS;
            if (git_merge_trees(&idx, g, anc, ours, theirs, &mo) < 0) {
                err =
                    repo_git_errorf(e, "cannot rebase '%s' onto '%s'", ht, ho);
                goto out;
            }
            if ((err = take_ours(idx, e)) < 0)
                goto out;
        }
        if (git_index_write_tree_to(&out->tree, idx, g) < 0) {
            err = repo_git_errorf(e, "cannot write the rebased '%s'", ht);
            goto out;
        }
    }
    if (cache) {
        ALLOC_GROW(cache->v, cache->n + 1, cache->alloc);
        cache->v[cache->n] = *out;
        strmap_put(&cache->index, key, strlen(key), (uint32_t)cache->n, NULL);
        cache->n++;
    }
out:
    if (err) {
        strv_free(out->paths, out->npaths);
        out->paths = NULL;
        out->npaths = 0;
    }
    git_index_free(idx);
    git_tree_free(anc);
    git_tree_free(ours);
    git_tree_free(theirs);
    free(key);
    return err;
}

static const char *
tree_path(const struct ws_file *f)
{
    return f->new_path ? f->new_path : f->path;
}

/* Give the files of to the change times and weights of from's (see
 * align_agent()). */
static void
carry_times(struct agent *to, const struct agent *from)
{
    struct strmap by_tree, by_base;
    const struct ws_file *latest = NULL;
    size_t i;

    strmap_init(&by_tree);
    strmap_init(&by_base);
    for (i = 0; i < from->nfiles; i++) {
        const struct ws_file *f = &from->files[i];
        const char *p = tree_path(f);

        strmap_put(&by_tree, p, strlen(p), (uint32_t)i, NULL);
        strmap_put(&by_base, f->path, strlen(f->path), (uint32_t)i, NULL);
        if (!latest || f->changed_at_ms > latest->changed_at_ms)
            latest = f;
    }
    for (i = 0; i < to->nfiles; i++) {
        struct ws_file *f = &to->files[i];
        const struct ws_file *src = latest;
        const char *p = tree_path(f);
        uint32_t k;

        if (strmap_get(&by_tree, p, strlen(p), &k) ||
            strmap_get(&by_base, f->path, strlen(f->path), &k))
            src = &from->files[k];
        if (src) {
            f->changed_at_ms = src->changed_at_ms;
            f->weight = src->weight;
        }
    }
    strmap_release(&by_tree);
    strmap_release(&by_base);
}

/* Add the paths a rebase of a's work conflicted on to those it has: an
 * agent moved again (onto a newer base, its tree already settled) still
 * conflicts where it did. */
static void
add_conflicts(struct agent *a, const struct rebased *rb)
{
    if (!rb->npaths)
        return;
    size_t n = a->nonto_conflicts + rb->npaths;
    a->onto_conflicts = xrealloc(a->onto_conflicts, n * sizeof(char *));
    for (size_t i = 0; i < rb->npaths; i++)
        a->onto_conflicts[a->nonto_conflicts + i] = xstrdup(rb->paths[i]);
    a->nonto_conflicts = sort_uniq_strv(a->onto_conflicts, n);
}

static int
parse_hex(const char *hex, git_oid *out, struct as_err *e)
{
    if (!hex || strlen(hex) != GIT_OID_HEXSZ || git_oid_fromstr(out, hex) < 0) {
        git_error_clear();
        return as_errorf(e, AS_EINVAL, "bad object id '%s'", hex ? hex : "");
    }
    return 0;
}

/*
 * Move agent a (read by workset.h, files not yet given names by src/lang)
 * onto the commit onto (hex): rebase its work, read its files from the
 * diff onto -> rebased tree, each with the change time and weight of the
 * agent's file of the same path in its tree (or base path), else of its
 * latest-changed file (a file the integration branch renamed or deleted).
 * Fields of its files beyond what workset.h fills are dropped. Returns 0,
 * AS_EINVAL (no base or tree), AS_ENOENT or AS_EGIT; a is unchanged on
 * error.
 */
static int
align_agent(struct repo *r, struct align_cache *cache, struct agent *a,
    const char *onto, struct as_err *e)
{
    git_repository *g = repo_git(r);
    git_oid base, tree, to;
    struct rebased rebased;
    git_tree *from_tree = NULL, *new_tree = NULL;
    git_diff *diff = NULL;
    struct agent fresh;
    char hex[GIT_OID_HEXSZ + 1];
    int err;

    if (!a->base_oid || !a->tree_oid)
        return as_errorf(e, AS_EINVAL, "agent '%s' has no base or tree", a->id);
    if ((err = parse_hex(a->base_oid, &base, e)) < 0 ||
        (err = parse_hex(a->tree_oid, &tree, e)) < 0 ||
        (err = parse_hex(onto, &to, e)) < 0)
        return err;
    if (git_oid_equal(&base, &to))
        return 0;
    if ((err = align_rebase_tree(r, cache, &base, &tree, &to, &rebased, e)) < 0)
        return err;
    agent_init(&fresh, a->id);
    if ((err = commit_tree(g, &to, &from_tree, e)) < 0)
        goto out;
    if (git_tree_lookup(&new_tree, g, &rebased.tree) < 0) {
        err = repo_git_errorf(e, "cannot read the rebased work");
        goto out;
    }
    if ((err = workset_diff_trees(r, from_tree, new_tree, &diff, e)) < 0 ||
        (err = workset_add_diff(diff, &fresh, e)) < 0)
        goto out;
    carry_times(&fresh, a);
    agent_sort(&fresh);
    {
        struct ws_file *files = a->files;
        size_t nfiles = a->nfiles, afiles = a->afiles;

        a->files = fresh.files;
        a->nfiles = fresh.nfiles;
        a->afiles = fresh.afiles;
        fresh.files = files;
        fresh.nfiles = nfiles;
        fresh.afiles = afiles;
    }
    free(a->base_oid);
    a->base_oid = xstrdup(onto);
    git_oid_tostr(hex, sizeof(hex), &rebased.tree);
    free(a->tree_oid);
    a->tree_oid = xstrdup(hex);
    add_conflicts(a, &rebased);
out:
    if (!cache)
        strv_free(rebased.paths, rebased.npaths);
    agent_release(&fresh);
    git_diff_free(diff);
    git_tree_free(from_tree);
    git_tree_free(new_tree);
    return err;
}

struct bases {
    git_repository *g;
    git_oid *v;
    size_t n, alloc;
    int err;
    struct as_err e;
};

static bool
base_descends(void *ctx, size_t i, size_t j)
{
    struct bases *b = ctx;
    git_oid mb;
    int rc;

    if (b->err)
        return false;
    rc = shallow_merge_base(&mb, b->g, &b->v[i], &b->v[j], &b->e);
    if (rc == GIT_ENOTFOUND) {
        git_error_clear();
        return false;
    }
    if (rc < 0) {
        b->err = repo_git_errorf(&b->e, "cannot find the newest base");
        return false;
    }
    return git_oid_equal(&mb, &b->v[j]);
}

int
align_agents(struct repo *r, struct align_cache *cache, struct agent *agents,
    size_t n, align_warn_fn *warn, void *warn_ctx, struct align_stats *st,
    struct as_err *e)
{
    struct align_stats local;
    struct bases b;
    struct strmap seen;
    char newest[GIT_OID_HEXSZ + 1];
    long k;
    size_t i;
    int err = 0;

    if (!st)
        st = &local;
    memset(st, 0, sizeof(*st));
    memset(&b, 0, sizeof(b));
    b.g = repo_git(r);
    strmap_init(&seen);
    for (i = 0; i < n && !err; i++) {
        const char *h = agents[i].base_oid;
        git_oid id;
        bool added;

        if (!h || !agents[i].tree_oid)
            continue;
        if ((err = parse_hex(h, &id, e)) < 0)
            break;
        strmap_put(&seen, h, strlen(h), 0, &added);
        if (!added)
            continue;
        ALLOC_GROW(b.v, b.n + 1, b.alloc);
        git_oid_cpy(&b.v[b.n++], &id);
    }
    strmap_release(&seen);
    st->linear = true;
    if (!err && b.n == 1)
        git_oid_tostr(st->newest, sizeof(st->newest), &b.v[0]);
    if (err || b.n < 2)
        goto out;
    k = align_newest(b.n, base_descends, &b);
    if (b.err) {
        *e = b.e;
        err = b.err;
        goto out;
    }
    if (k < 0) {
        st->linear = false;
        goto out;
    }
    git_oid_tostr(newest, sizeof(newest), &b.v[k]);
    memcpy(st->newest, newest, sizeof(newest));
    for (i = 0; i < n; i++) {
        struct agent *a = &agents[i];
        struct as_err ae;

        if (!a->base_oid || !a->tree_oid || !strcmp(a->base_oid, newest))
            continue;
        if (align_agent(r, cache, a, newest, &ae) == 0) {
            st->moved++;
        } else {
            st->failed++;
            if (warn)
                warn(warn_ctx, a, ae.msg);
        }
    }
out:
    free(b.v);
    return err;
}
