/*
 * merge.c - speculative merges and their cache.
 *
 * Longer than 1,000 lines on purpose: the whole merge, the merge path by
 * path of what only one side changed, git's directory renames (which
 * libgit2's merge lacks) and the cache keyed by their inputs must agree on
 * one verdict, so they share one set of tree and index helpers here.
 */
#include "git/merge.h"

#include <git2/sys/index.h>
#include <stdlib.h>
#include <string.h>

#include "core/dirrename.h"
#include "git/shallow.h"
#include "git/sigcache.h"
#include "git/treediff.h"
#include "util/strmap.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct merge_cache {
    struct strmap index; /* "base:lo:hi" -> slot in v */
    struct merge_result *v;
    size_t n, alloc;
    size_t hits;
};

struct merge_cache *
merge_cache_new(void)
{
    struct merge_cache *c = xcalloc(1, sizeof(*c));

    strmap_init(&c->index);
    return c;
}

void
merge_cache_free(struct merge_cache *c)
{
    size_t i;

    if (!c)
        return;
    for (i = 0; i < c->n; i++)
        merge_result_release(&c->v[i]);
    free(c->v);
    strmap_release(&c->index);
    free(c);
}

size_t
merge_cache_hits(const struct merge_cache *c)
{
    return c->hits;
}

void
merge_result_release(struct merge_result *m)
{
    size_t i;

    for (i = 0; i < m->npaths; i++)
        free(m->paths[i]);
    free(m->paths);
    m->paths = NULL;
    m->npaths = 0;
    m->conflicted = false;
}

static void
result_copy(struct merge_result *dst, const struct merge_result *src)
{
    size_t i;

    dst->conflicted = src->conflicted;
    dst->npaths = src->npaths;
    dst->paths = src->npaths ? xcalloc(src->npaths, sizeof(char *)) : NULL;
    for (i = 0; i < src->npaths; i++)
        dst->paths[i] = xstrdup(src->paths[i]);
}

static int
parse_oid(git_oid *out, const char *hex, struct as_err *e)
{
    if (!hex || strlen(hex) != GIT_OID_HEXSZ || git_oid_fromstr(out, hex) < 0) {
        git_error_clear();
        return as_errorf(e, AS_EINVAL, "bad object id '%s'", hex ? hex : "");
    }
    return 0;
}

static int
lookup_tree(
    git_repository *g, const git_oid *id, git_tree **out, struct as_err *e)
{
    git_object *obj = NULL;
    char hex[GIT_OID_HEXSZ + 1];

    if (git_object_lookup(&obj, g, id, GIT_OBJECT_ANY) < 0 ||
        git_object_peel((git_object **)out, obj, GIT_OBJECT_TREE) < 0) {
        git_object_free(obj);
        git_error_clear();
        git_oid_tostr(hex, sizeof(hex), id);
        return as_errorf(e, AS_ENOENT, "no tree '%s'", hex);
    }
    git_object_free(obj);
    return 0;
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
add_path(struct merge_result *m, size_t *alloc, const char *p)
{
    ALLOC_GROW(m->paths, m->npaths + 1, *alloc);
    m->paths[m->npaths++] = xstrdup(p);
}

/* Whether side is absent or the ancestor's content unchanged. */
static bool
side_unchanged(const git_index_entry *anc, const git_index_entry *side)
{
    return !side ||
           (side->mode == anc->mode && git_oid_equal(&side->id, &anc->id));
}

/* Sort m's paths and drop repeats. */
static void
sort_unique(struct merge_result *m)
{
    size_t i, k;

    if (m->npaths < 2)
        return;
    qsort(m->paths, m->npaths, sizeof(char *), cmp_str);
    for (i = 1, k = 1; i < m->npaths; i++) {
        if (strcmp(m->paths[i], m->paths[k - 1]))
            m->paths[k++] = m->paths[i];
        else
            free(m->paths[i]);
    }
    m->npaths = k;
}

/* A conflict libgit2 reports where one side changed only the mode and the
 * other only the content (libgit2 tries to merge the content, and fails
 * for a binary file): git takes each side's change, cleanly. */
static bool
one_side_each(const git_index_entry *anc, const git_index_entry *ours,
    const git_index_entry *theirs)
{
    if (!anc || !ours || !theirs || strcmp(ours->path, anc->path) ||
        strcmp(theirs->path, anc->path))
        return false;
    return (git_oid_equal(&ours->id, &anc->id) && theirs->mode == anc->mode) ||
           (git_oid_equal(&theirs->id, &anc->id) && ours->mode == anc->mode);
}

/* Whether the index's rename records (libgit2's NAME entries) say both
 * sides renamed path apart (rename/rename). */
static bool
renamed_apart(git_index *idx, const char *path)
{
    for (size_t i = 0; i < git_index_name_entrycount(idx); i++) {
        const git_index_name_entry *ne = git_index_name_get_byindex(idx, i);
        if (ne && ne->ancestor && ne->ours && ne->theirs &&
            !strcmp(ne->ancestor, path) && strcmp(ne->ours, path) &&
            strcmp(ne->theirs, path) && strcmp(ne->ours, ne->theirs))
            return true;
    }
    return false;
}

/*
 * Conflicting paths of a merged index, sorted and unique, as git lists them.
 * libgit2 records the source of a conflicting rename as its own entry (the
 * ancestor, with each side absent or unchanged); git lists that path only
 * for a rename/rename (both sides renamed it apart), which the index's
 * rename records tell.
 */
static int
collect_conflicts(git_index *idx, struct merge_result *m, struct as_err *e)
{
    git_index_conflict_iterator *it = NULL;
    const git_index_entry *anc, *ours, *theirs;
    char **sources = NULL;
    size_t nsources = 0, asources = 0, alloc = 0, i, total = 0, trivial = 0;
    int err;

    if (git_index_conflict_iterator_new(&it, idx) < 0)
        return repo_git_errorf(e, "cannot read merge conflicts");
    while ((err = git_index_conflict_next(&anc, &ours, &theirs, it)) == 0) {
        total++;
        if (one_side_each(anc, ours, theirs)) {
            trivial++;
            continue;
        }
        if (anc && side_unchanged(anc, ours) && side_unchanged(anc, theirs)) {
            ALLOC_GROW(sources, nsources + 1, asources);
            sources[nsources++] = xstrdup(anc->path);
            continue;
        }
        if (ours)
            add_path(m, &alloc, ours->path);
        if (theirs)
            add_path(m, &alloc, theirs->path);
        if (anc && !ours && !theirs)
            add_path(m, &alloc, anc->path);
    }
    git_index_conflict_iterator_free(it);
    for (i = 0; i < nsources; i++) {
        if (renamed_apart(idx, sources[i]))
            add_path(m, &alloc, sources[i]);
        free(sources[i]);
    }
    free(sources);
    if (err != GIT_ITEROVER)
        return repo_git_errorf(e, "cannot read merge conflicts");
    /* A conflicting rename keeps each stage at its side's own path (so the
     * iterator above saw the old path and the new one apart). Where one
     * side renamed and the other kept the path, git places the conflict at
     * the new name and lists only that: drop the old one. */
    for (i = 0; i < git_index_name_entrycount(idx); i++) {
        const git_index_name_entry *ne = git_index_name_get_byindex(idx, i);
        size_t k = 0;
        if (!ne || !ne->ancestor || !ne->ours || !ne->theirs ||
            !strcmp(ne->ours, ne->ancestor) ==
                !strcmp(ne->theirs, ne->ancestor))
            continue;
        for (size_t j = 0; j < m->npaths; j++) {
            if (strcmp(m->paths[j], ne->ancestor))
                m->paths[k++] = m->paths[j];
            else
                free(m->paths[j]);
        }
        m->npaths = k;
    }
    sort_unique(m);
    m->conflicted = m->npaths > 0 || total > trivial;
    return 0;
}

struct pathlist {
    char **v;
    size_t n, alloc;
};

static void
pathlist_add(struct pathlist *l, const char *p)
{
    ALLOC_GROW(l->v, l->n + 1, l->alloc);
    l->v[l->n++] = xstrdup(p);
}

static void
pathlist_release(struct pathlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof(*l));
}

/* Whether tree t has a directory at path dir. */
static bool
has_dir(git_tree *t, const char *dir)
{
    git_tree_entry *te = NULL;
    bool yes;

    if (git_tree_entry_bypath(&te, t, dir) < 0) {
        git_error_clear();
        return false;
    }
    yes = git_tree_entry_type(te) == GIT_OBJECT_TREE;
    git_tree_entry_free(te);
    return yes;
}

struct subdir_walk {
    const char *root;
    struct pathlist *out;
};

static int
subdir_cb(const char *parent, const git_tree_entry *te, void *payload)
{
    struct subdir_walk *w = payload;
    if (git_tree_entry_type(te) == GIT_OBJECT_TREE) {
        char *p =
            xasprintf("%s/%s%s", w->root, parent, git_tree_entry_name(te));
        pathlist_add(w->out, p);
        free(p);
    }
    return 0;
}

/* Append the directories below dir in tree t (all depths) to out. */
static int
subdirs(git_repository *g, git_tree *t, const char *dir, struct pathlist *out,
    struct as_err *e)
{
    git_tree_entry *te = NULL;
    git_tree *sub = NULL;
    struct subdir_walk w = { dir, out };
    int err = 0;

    if (git_tree_entry_bypath(&te, t, dir) < 0 ||
        git_tree_lookup(&sub, g, git_tree_entry_id(te)) < 0 ||
        git_tree_walk(sub, GIT_TREEWALK_PRE, subdir_cb, &w) < 0)
        err = repo_git_errorf(e, "cannot read directory '%s' of the base", dir);
    git_tree_free(sub);
    git_tree_entry_free(te);
    return err;
}

/* What one side brings to directory renames. */
struct dr_side {
    git_tree *tree;
    struct pathlist added;       /* paths it added (or renamed a file to) */
    struct pathlist self;        /* its removed directories the other side added
                                    a file directly in */
    struct pathlist below;       /* the base's directories below those */
    struct pathlist typechanged; /* files it made symbolic links, or back */
    struct pathlist modified;    /* paths it kept and changed (or retyped) */
    struct pathlist emptied;     /* the base's empty files it removed */
    struct pathlist pairs;       /* its renames: old, new, old, new, ... */
    struct dirrename_pair *rn;   /* NULL until side_pairs() ran */
    char **renamed; /* the directories it renamed (dirrename_renamed) */
    size_t nrenamed;
};

static void
dr_side_release(struct dr_side *x)
{
    pathlist_release(&x->added);
    pathlist_release(&x->self);
    pathlist_release(&x->below);
    pathlist_release(&x->typechanged);
    pathlist_release(&x->modified);
    pathlist_release(&x->emptied);
    pathlist_release(&x->pairs);
    free(x->rn);
    for (size_t i = 0; i < x->nrenamed; i++)
        free(x->renamed[i]);
    free(x->renamed);
}

/* The id of the empty blob (SHA-1). */
#define EMPTY_BLOB_HEX "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"

/* Whether id is the empty blob's. */
static bool
is_empty_blob(const git_oid *id)
{
    return git_oid_streq(id, EMPTY_BLOB_HEX) == 0;
}

/* Sort l (strcmp order) and drop repeats. */
static void
pathlist_sort(struct pathlist *l)
{
    size_t k = 1;

    if (l->n < 2)
        return;
    qsort(l->v, l->n, sizeof(char *), cmp_str);
    for (size_t i = 1; i < l->n; i++) {
        if (strcmp(l->v[i], l->v[k - 1]))
            l->v[k++] = l->v[i];
        else
            free(l->v[i]);
    }
    l->n = k;
}

/* What x added, changed and removed empty, by the paths where its tree
 * differs from the base (no renames; the statuses libgit2's diff with
 * type changes gives them, src/git/treediff.h); the lists sorted. */
static int
side_added(
    git_repository *g, git_tree *anc, struct dr_side *x, struct as_err *e)
{
    struct tree_leaves ll = { NULL, 0, 0 };

    if (tree_changed_leaves(g, anc, x->tree, "", &ll, e) < 0) {
        tree_leaves_release(&ll);
        return repo_git_errorf(e, "cannot diff a side of a merge");
    }
    tree_leaves_fold(&ll);
    for (size_t i = 0; i < ll.n; i++) {
        const struct tree_leaf *l = &ll.v[i];
        switch (tree_leaf_status(l)) {
        case GIT_DELTA_ADDED:
            pathlist_add(&x->added, l->path);
            break;
        case GIT_DELTA_TYPECHANGE:
            pathlist_add(&x->typechanged, l->path);
            pathlist_add(&x->modified, l->path);
            break;
        case GIT_DELTA_MODIFIED:
            pathlist_add(&x->modified, l->path);
            break;
        case GIT_DELTA_DELETED:
            if (is_empty_blob(&l->id[0]))
                pathlist_add(&x->emptied, l->path);
            break;
        default:
            break;
        }
    }
    tree_leaves_release(&ll);
    pathlist_sort(&x->added);
    pathlist_sort(&x->modified);
    return 0;
}

/* In *out, a new tree: t with each path of l (sorted) where t has an empty
 * file holding ids[i] instead, in the same mode; NULL where t has none. */
static int
tree_stand_in(git_repository *g, git_tree *t, const struct pathlist *l,
    const git_oid *ids, git_tree **out, struct as_err *e)
{
    git_tree_update *u = xcalloc(l->n, sizeof(*u));
    git_oid id;
    size_t n = 0;
    int err = 0;

    *out = NULL;
    for (size_t i = 0; i < l->n; i++) {
        git_tree_entry *te = NULL;
        if (git_tree_entry_bypath(&te, t, l->v[i]) < 0) {
            git_error_clear();
            continue;
        }
        if (git_tree_entry_type(te) == GIT_OBJECT_BLOB &&
            is_empty_blob(git_tree_entry_id(te))) {
            u[n].action = GIT_TREE_UPDATE_UPSERT;
            git_oid_cpy(&u[n].id, &ids[i]);
            u[n].filemode = git_tree_entry_filemode(te);
            u[n].path = l->v[i];
            n++;
        }
        git_tree_entry_free(te);
    }
    if (n && (git_tree_create_updated(&id, g, t, n, u) < 0 ||
                 git_tree_lookup(out, g, &id) < 0))
        err = repo_git_errorf(e, "cannot write the trees of a merge");
    free(u);
    return err;
}

/* Empty files of the base given content of their own for a merge. */
struct stand_in {
    struct pathlist paths; /* sorted */
    git_oid *ids;          /* ids[i]: the stand-in blob of paths.v[i] */
    git_tree *tree[3];     /* the base and the two sides, NULL: unchanged */
};

static void
stand_in_release(struct stand_in *s)
{
    pathlist_release(&s->paths);
    free(s->ids);
    for (int k = 0; k < 3; k++)
        git_tree_free(s->tree[k]);
    memset(s, 0, sizeof(*s));
}

/*
 * git never takes an empty file for the source or the target of a rename
 * (merge-ort turns rename_empty off); libgit2 1.5 pairs a removed empty
 * file with an added one by their ids, before and whatever the similarity
 * metric. So for the merge, every empty file of the base that a side
 * removed (emptied[0], emptied[1]) gets content of its own (one line,
 * unique to the path, too short for libgit2's similarity signature), in the
 * base (in[0]) and in each side (in[1], in[2]) that still has it empty: no
 * added file matches it, and the merge sees the same removals, changes and
 * untouched files as before. restore_empty() puts the empty files back in
 * the merged index.
 *
 * s: zeroed here; its trees all NULL when no side removed an empty file.
 */
static int
stand_in_empty(git_repository *g, git_tree *const in[3],
    const struct pathlist *emptied[2], struct stand_in *s, struct as_err *e)
{
    int err = 0;

    memset(s, 0, sizeof(*s));
    if (!emptied[0]->n && !emptied[1]->n)
        return 0;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < emptied[k]->n; i++)
            pathlist_add(&s->paths, emptied[k]->v[i]);
    pathlist_sort(&s->paths);
    s->ids = xcalloc(s->paths.n, sizeof(*s->ids));
    for (size_t i = 0; i < s->paths.n && !err; i++) {
        const char *p = s->paths.v[i];
        char hex[GIT_OID_HEXSZ + 1], *body;
        git_oid h;
        git_odb_hash(&h, p, strlen(p), GIT_OBJECT_BLOB);
        git_oid_tostr(hex, sizeof(hex), &h);
        body = xasprintf("airspace: stand-in for an empty file %s", hex);
        if (git_blob_create_from_buffer(&s->ids[i], g, body, strlen(body)) < 0)
            err = repo_git_errorf(e, "cannot write the trees of a merge");
        free(body);
    }
    for (int k = 0; k < 3 && !err; k++)
        err = tree_stand_in(g, in[k], &s->paths, s->ids, &s->tree[k], e);
    return err;
}

/* Give every entry of idx (each stage) that holds one of s's stand-ins the
 * empty blob again. A stand-in stays at its own path: it matches no other
 * file, so no rename moves it. */
static int
restore_empty(git_index *idx, const struct stand_in *s, struct as_err *e)
{
    git_oid empty;

    if (!s->paths.n)
        return 0;
    git_oid_fromstr(&empty, EMPTY_BLOB_HEX);
    for (size_t i = 0; i < s->paths.n; i++) {
        for (int stage = 0; stage <= 3; stage++) {
            const git_index_entry *ie =
                git_index_get_bypath(idx, s->paths.v[i], stage);
            git_index_entry ne;
            if (!ie || !git_oid_equal(&ie->id, &s->ids[i]))
                continue;
            ne = *ie;
            git_oid_cpy(&ne.id, &empty);
            ne.file_size = 0;
            if (git_index_add(idx, &ne) < 0)
                return repo_git_errorf(
                    e, "cannot restore the empty file '%s'", s->paths.v[i]);
        }
    }
    return 0;
}

/* ---- submodules ---- */

/* Whether the three commits are all in s. */
static bool
has_commits(git_repository *s, const git_oid *const id[3])
{
    for (int k = 0; k < 3; k++) {
        git_object *o = NULL;
        if (git_object_lookup(&o, s, id[k], GIT_OBJECT_COMMIT) < 0) {
            git_error_clear();
            return false;
        }
        git_object_free(o);
    }
    return true;
}

/* The submodule's own repository under dir's "modules/", when it holds
 * the three commits. */
static git_repository *
modules_repo(const char *dir, const char *name, const git_oid *const id[3])
{
    git_repository *s = NULL;
    if (!dir || !name)
        return NULL;
    size_t n = strlen(dir);
    char *p = xasprintf(
        "%s%smodules/%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
    if (git_repository_open_bare(&s, p) < 0) {
        git_error_clear();
        s = NULL;
    } else if (!has_commits(s, id)) {
        git_repository_free(s);
        s = NULL;
    }
    free(p);
    return s;
}

/* A repository that holds a submodule's three commits: the superproject's
 * own or the submodule's under .git/modules (by path, the usual name, or
 * by the name .gitmodules gives). NULL when none does. *own: g itself,
 * not to be freed. */
static git_repository *
submodule_commits(
    git_repository *g, const char *path, const git_oid *const id[3], bool *own)
{
    *own = has_commits(g, id);
    if (*own)
        return g;
    const char *dirs[2] = { git_repository_path(g),
        git_repository_commondir(g) };
    git_repository *s = NULL;
    for (int k = 0; k < 2 && !s; k++)
        s = modules_repo(dirs[k], path, id);
    git_submodule *sm = NULL;
    if (!s && git_submodule_lookup(&sm, g, path) == 0 &&
        strcmp(git_submodule_name(sm), path))
        for (int k = 0; k < 2 && !s; k++)
            s = modules_repo(dirs[k], git_submodule_name(sm), id);
    git_submodule_free(sm);
    git_error_clear();
    return s;
}

/* Whether commit id is anc or descends from it. */
static bool
reaches(git_repository *s, const git_oid *id, const git_oid *anc)
{
    if (git_oid_equal(id, anc))
        return true;
    int rc = git_graph_descendant_of(s, id, anc);
    if (rc < 0)
        git_error_clear();
    return rc == 1;
}

/*
 * Resolve the submodule conflicts of idx as git's merge does: where both
 * sides moved a submodule forward from the base's commit and one side's
 * commit descends from the other's, the merge takes the descendant,
 * cleanly. libgit2 leaves every gitlink both sides changed a conflict.
 * That needs the commits: without them (no submodule repository, a
 * shallow one) the conflict stays, as git's does.
 */
static int
resolve_gitlinks(git_repository *g, git_index *idx, struct as_err *e)
{
    git_index_conflict_iterator *it = NULL;
    const git_index_entry *anc, *ours, *theirs;
    git_index_entry *take = NULL;
    size_t ntake = 0, atake = 0;
    int err = 0;

    if (git_index_conflict_iterator_new(&it, idx) < 0)
        return repo_git_errorf(e, "cannot read merge conflicts");
    while (git_index_conflict_next(&anc, &ours, &theirs, it) == 0) {
        if (!anc || !ours || !theirs || anc->mode != GIT_FILEMODE_COMMIT ||
            ours->mode != GIT_FILEMODE_COMMIT ||
            theirs->mode != GIT_FILEMODE_COMMIT ||
            strcmp(ours->path, anc->path) || strcmp(theirs->path, anc->path))
            continue;
        const git_oid *id[3] = { &anc->id, &ours->id, &theirs->id };
        bool own;
        git_repository *s = submodule_commits(g, anc->path, id, &own);
        if (!s)
            continue;
        const git_index_entry *pick = NULL;
        if (reaches(s, &ours->id, &anc->id) &&
            reaches(s, &theirs->id, &anc->id)) {
            if (reaches(s, &theirs->id, &ours->id))
                pick = theirs;
            else if (reaches(s, &ours->id, &theirs->id))
                pick = ours;
        }
        if (pick) {
            ALLOC_GROW(take, ntake + 1, atake);
            take[ntake] = *pick;
            take[ntake].path = xstrdup(pick->path);
            GIT_INDEX_ENTRY_STAGE_SET(&take[ntake], 0);
            ntake++;
        }
        if (!own)
            git_repository_free(s);
    }
    git_error_clear();
    git_index_conflict_iterator_free(it);
    for (size_t i = 0; i < ntake; i++) {
        if (!err && (git_index_conflict_remove(idx, take[i].path) < 0 ||
                        git_index_add(idx, &take[i]) < 0))
            err = repo_git_errorf(
                e, "cannot resolve the submodule '%s'", take[i].path);
        free((char *)take[i].path);
    }
    free(take);
    return err;
}

/*
 * git_merge_trees() of x[0] and x[1] over anc as git's merge pairs renames
 * (git's rename limit, no empty file taken for a rename; stand_in_empty()),
 * into *out. x: side_added() done (only emptied is read).
 */
static int
merge_sides(git_repository *g, git_tree *anc, const struct dr_side x[2],
    git_index **out, struct as_err *e)
{
    git_tree *in[3] = { anc, x[0].tree, x[1].tree };
    const struct pathlist *emptied[2] = { &x[0].emptied, &x[1].emptied };
    struct stand_in s;
    git_merge_options mo;
    char hex[2][GIT_OID_HEXSZ + 1];
    int err;

    *out = NULL;
    if ((err = stand_in_empty(g, in, emptied, &s, e)) < 0)
        goto out;
    for (int k = 0; k < 3; k++)
        if (s.tree[k])
            in[k] = s.tree[k];
    git_merge_options_init(&mo, GIT_MERGE_OPTIONS_VERSION);
    mo.target_limit = 7000; /* git's merge.renameLimit */
    /* the calling thread's signature cache, or NULL: libgit2's metric */
    mo.metric = sigcache_metric(SIGCACHE_MERGE);
    if (git_merge_trees(out, g, in[0], in[1], in[2], &mo) < 0) {
        for (int k = 0; k < 2; k++)
            git_oid_tostr(hex[k], sizeof(hex[k]), git_tree_id(x[k].tree));
        err = repo_git_errorf(
            e, "cannot merge tree '%s' with '%s'", hex[0], hex[1]);
        goto out;
    }
    if ((err = restore_empty(*out, &s, e)) < 0 ||
        (err = resolve_gitlinks(g, *out, e)) < 0) {
        git_index_free(*out);
        *out = NULL;
    }
out:
    stand_in_release(&s);
    return err;
}

/* x->self: the directories of o's added paths that the base has and x
 * does not. */
static void
side_self(git_tree *anc, struct dr_side *x, const struct dr_side *o)
{
    struct strmap checked;

    strmap_init(&checked);
    for (size_t i = 0; i < o->added.n; i++) {
        const char *p = o->added.v[i], *slash = strrchr(p, '/');
        bool fresh;
        if (!slash)
            continue;
        char *dir = xstrndup(p, (size_t)(slash - p));
        strmap_put(&checked, dir, strlen(dir), 1, &fresh);
        if (fresh && has_dir(anc, dir) && !has_dir(x->tree, dir))
            pathlist_add(&x->self, dir);
        free(dir);
    }
    strmap_release(&checked);
}

/* x->below, x's renames (as git's merge finds them) and the directories x
 * renamed; only for a side with self directories. */
static int
side_pairs(
    git_repository *g, git_tree *anc, struct dr_side *x, struct as_err *e)
{
    git_diff *d = NULL;
    git_diff_find_options fopt;

    if (x->rn)
        return 0;
    git_diff_find_options_init(&fopt, GIT_DIFF_FIND_OPTIONS_VERSION);
    fopt.flags = GIT_DIFF_FIND_RENAMES;
    fopt.rename_limit = 7000; /* git's merge.renameLimit */
    /* the calling thread's signature cache, or NULL: libgit2's metric */
    fopt.metric = sigcache_metric(SIGCACHE_DIFF);
    if (git_diff_tree_to_tree(&d, g, anc, x->tree, NULL) < 0 ||
        git_diff_find_similar(d, &fopt) < 0) {
        git_diff_free(d);
        return repo_git_errorf(e, "cannot find the renames of a side");
    }
    for (size_t i = 0; i < git_diff_num_deltas(d); i++) {
        const git_diff_delta *dd = git_diff_get_delta(d, i);
        /* git does not pair empty files (stand_in_empty()) */
        if (dd->status != GIT_DELTA_RENAMED || is_empty_blob(&dd->old_file.id))
            continue;
        pathlist_add(&x->pairs, dd->old_file.path);
        pathlist_add(&x->pairs, dd->new_file.path);
    }
    git_diff_free(d);
    x->rn = xcalloc(x->pairs.n / 2 + 1, sizeof(*x->rn));
    for (size_t i = 0; i + 1 < x->pairs.n; i += 2) {
        x->rn[i / 2].old_path = x->pairs.v[i];
        x->rn[i / 2].new_path = x->pairs.v[i + 1];
    }
    return 0;
}

static int
side_renames(
    git_repository *g, git_tree *anc, struct dr_side *x, struct as_err *e)
{
    int err = 0;

    for (size_t i = 0; i < x->self.n && !err; i++)
        err = subdirs(g, anc, x->self.v[i], &x->below, e);
    if (err || (err = side_pairs(g, anc, x, e)) < 0)
        return err;
    dirrename_renamed(x->rn, x->pairs.n / 2, (const char *const *)x->self.v,
        x->self.n, (const char *const *)x->below.v, x->below.n, &x->renamed,
        &x->nrenamed);
    return 0;
}

/* Mark m conflicted at path p (taken; m's paths are sorted afterwards). */
static void
add_conflict(struct merge_result *m, char *p)
{
    m->conflicted = true;
    m->paths = xrealloc(m->paths, (m->npaths + 1) * sizeof(char *));
    m->paths[m->npaths++] = p;
}

/* A file x made a symbolic link (or back) that y renamed: git takes the
 * type change for a deletion and reports y's renamed file as modified and
 * deleted; libgit2 merges it. Lists the new name, as git does. */
static int
typechange_renamed(git_repository *g, git_tree *anc, const struct dr_side *x,
    struct dr_side *y, struct merge_result *m, struct as_err *e)
{
    int err;

    if (!x->typechanged.n || (err = side_pairs(g, anc, y, e)) < 0)
        return x->typechanged.n ? err : 0;
    for (size_t i = 0; i + 1 < y->pairs.n; i += 2)
        for (size_t j = 0; j < x->typechanged.n; j++)
            if (!strcmp(y->pairs.v[i], x->typechanged.v[j]))
                add_conflict(m, xstrdup(y->pairs.v[i + 1]));
    return 0;
}

/* Apply s's directory renames to o's added paths, into m. */
static void
apply_side(
    const struct dr_side *s, const struct dr_side *o, struct merge_result *m)
{
    struct dirrename_result r;

    dirrename_apply(s->rn, s->pairs.n / 2, (const char *const *)s->self.v,
        s->self.n, (const char *const *)s->below.v, s->below.n,
        (const char *const *)o->added.v, o->added.n,
        (const char *const *)o->renamed, o->nrenamed, &r);
    if (dirrename_conflicted(&r)) {
        size_t k = 0;
        m->conflicted = true;
        /* git lists an added path it moved only where it moved it */
        for (size_t i = 0; i < m->npaths; i++) {
            if (bsearch(&m->paths[i], r.from, r.nfrom, sizeof(char *), cmp_str))
                free(m->paths[i]);
            else
                m->paths[k++] = m->paths[i];
        }
        m->npaths = k;
        for (size_t i = 0; i < r.nmoved; i++) {
            add_conflict(m, r.moved[i]);
            r.moved[i] = NULL;
        }
    }
    dirrename_result_release(&r);
}

/* Whether path q is under the directory p (of length n). */
static bool
is_under(const char *q, const char *p, size_t n)
{
    return !strncmp(q, p, n) && q[n] == '/';
}

/* The index of the first entry of sorted list l that is >= p + "/" (the
 * first path under the directory p, if l has any). */
static size_t
first_under(const struct pathlist *l, const char *p)
{
    size_t n = strlen(p), lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strncmp(l->v[mid], p, n);
        if (c < 0 || (c == 0 && (unsigned char)l->v[mid][n] < '/'))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether sorted list l holds a path under the directory p. */
static bool
has_under(const struct pathlist *l, const char *p)
{
    size_t lo = first_under(l, p);
    return lo < l->n && is_under(l->v[lo], p, strlen(p));
}

/*
 * A file one side added where the other added a path under a directory of
 * that name: git's "CONFLICT (file/directory)". libgit2 reports it when
 * neither existed in the base, not when the file replaces a directory the
 * base had. Lists the file's path (git lists it moved aside, as
 * "path~side").
 */
static void
file_dir_adds(
    const struct dr_side *x, const struct dr_side *y, struct merge_result *m)
{
    for (size_t i = 0; i < x->added.n; i++)
        if (has_under(&y->added, x->added.v[i]))
            add_conflict(m, xstrdup(x->added.v[i]));
}

/* Whether x renamed the base's path p (as git's merge finds renames). */
static bool
renamed_from(const struct dr_side *x, const char *p)
{
    for (size_t i = 0; i + 1 < x->pairs.n; i += 2)
        if (!strcmp(x->pairs.v[i], p))
            return true;
    return false;
}

/*
 * A file x put where the base had a directory, in which y changed a file
 * that x did not rename away: git keeps y's file (a modify/delete) and so
 * the directory, and moves x's file aside as "path~side". libgit2 reports
 * the file only when the directory's changed entries come right before it
 * (not when an entry neither side changed, or both deleted, sorts in
 * between). Lists the file's path, as file_dir_adds() does.
 */
static int
file_dir_replaced(git_repository *g, git_tree *anc, struct dr_side *x,
    const struct dr_side *y, struct merge_result *m, struct as_err *e)
{
    int err;

    for (size_t i = 0; i < x->added.n; i++) {
        const char *p = x->added.v[i];
        size_t n = strlen(p);
        for (size_t j = first_under(&y->modified, p);
             j < y->modified.n && is_under(y->modified.v[j], p, n); j++) {
            if ((err = side_pairs(g, anc, x, e)) < 0)
                return err;
            if (!renamed_from(x, y->modified.v[j])) {
                add_conflict(m, xstrdup(p));
                break;
            }
        }
    }
    return 0;
}

/* Whether mode is a regular file's (executable or not). */
static bool
is_regular(git_filemode_t mode)
{
    return mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE;
}

/*
 * A path both sides added as regular files, one executable and the other
 * not: git's "CONFLICT (add/add)" whatever the contents (no mode of the
 * base to settle on); libgit2 merges it when the contents are the same or
 * merge cleanly. Lists the path.
 */
static void
add_add_modes(const struct dr_side x[2], struct merge_result *m)
{
    for (size_t i = 0; i < x[0].added.n && x[1].added.n; i++) {
        const char *p = x[0].added.v[i];
        git_tree_entry *a = NULL, *b = NULL;
        if (!bsearch(&p, x[1].added.v, x[1].added.n, sizeof(char *), cmp_str))
            continue;
        if (git_tree_entry_bypath(&a, x[0].tree, p) < 0 ||
            git_tree_entry_bypath(&b, x[1].tree, p) < 0)
            git_error_clear();
        else if (is_regular(git_tree_entry_filemode(a)) &&
                 is_regular(git_tree_entry_filemode(b)) &&
                 git_tree_entry_filemode(a) != git_tree_entry_filemode(b))
            add_conflict(m, xstrdup(p));
        git_tree_entry_free(a);
        git_tree_entry_free(b);
    }
}

/*
 * The conflicts git's merge finds and libgit2's does not, added to m (its
 * paths sorted again): directory renames (core/dirrename.h: one side moved
 * a whole directory, the other added a path in it; git's default
 * merge.directoryRenames=conflict), a file added where the other side
 * added under a directory of that name, or where the base had a directory
 * the other side changed a file in, a file made a symbolic link that the
 * other side renamed, and a file both sides added in different modes.
 * x: the two sides, side_added() done (a tree diff of each); a side's
 * renames are looked for only when a directory the other side added a file
 * in is gone on it, the other side changed a file's type, or a file it
 * added replaces a directory the other side changed a file in.
 */
static int
libgit2_misses(git_repository *g, git_tree *anc, struct dr_side x[2],
    bool dirrenames, struct merge_result *m, struct as_err *e)
{
    int err = 0;

    for (int k = 0; k < 2 && !err; k++)
        file_dir_adds(&x[k], &x[1 - k], m);
    for (int k = 0; k < 2 && !err; k++)
        err = file_dir_replaced(g, anc, &x[k], &x[1 - k], m, e);
    if (!err)
        add_add_modes(x, m);
    for (int k = 0; k < 2 && !err; k++)
        err = typechange_renamed(g, anc, &x[k], &x[1 - k], m, e);
    for (int k = 0; k < 2 && !err && dirrenames; k++)
        side_self(anc, &x[k], &x[1 - k]);
    for (int k = 0; k < 2 && !err; k++)
        if (x[k].self.n)
            err = side_renames(g, anc, &x[k], e);
    for (int k = 0; k < 2 && !err; k++)
        if (x[k].self.n)
            apply_side(&x[k], &x[1 - k], m);
    sort_unique(m);
    return err;
}

int
merge_speculative(struct repo *r, struct merge_cache *cache,
    const char *base_oid_a, const char *tree_a, const char *base_oid_b,
    const char *tree_b, struct merge_result *out, struct as_err *e)
{
    git_repository *g = repo_git(r);
    git_oid ba, bb, base, ta, tb;
    git_commit *bc = NULL;
    git_tree *anc = NULL, *ours = NULL, *theirs = NULL;
    git_index *idx = NULL;
    struct dr_side x[2];
    char bhex[GIT_OID_HEXSZ + 1], *key = NULL;
    const char *lo, *hi;
    uint32_t slot;
    int err;

    memset(out, 0, sizeof(*out));
    memset(x, 0, sizeof(x));
    if ((err = parse_oid(&ba, base_oid_a, e)) < 0 ||
        (err = parse_oid(&bb, base_oid_b, e)) < 0 ||
        (err = parse_oid(&ta, tree_a, e)) < 0 ||
        (err = parse_oid(&tb, tree_b, e)) < 0)
        return err;

    if (git_oid_equal(&ba, &bb)) {
        git_oid_cpy(&base, &ba);
    } else if ((err = shallow_merge_base(&base, g, &ba, &bb, e)) < 0) {
        git_error_clear();
        return as_errorf(e, AS_ENOENT,
            "no common history between '%s' and '%s'", base_oid_a, base_oid_b);
    }
    git_oid_tostr(bhex, sizeof(bhex), &base);
    lo = strcmp(tree_a, tree_b) <= 0 ? tree_a : tree_b;
    hi = lo == tree_a ? tree_b : tree_a;
    key = xasprintf("%s:%s:%s", bhex, lo, hi);
    if (cache && strmap_get(&cache->index, key, strlen(key), &slot)) {
        cache->hits++;
        result_copy(out, &cache->v[slot]);
        free(key);
        return 0;
    }

    if (git_commit_lookup(&bc, g, &base) < 0 || git_commit_tree(&anc, bc) < 0) {
        err = repo_git_errorf(e, "cannot read merge base '%s'", bhex);
        goto out;
    }
    if ((err = lookup_tree(g, &ta, &ours, e)) < 0 ||
        (err = lookup_tree(g, &tb, &theirs, e)) < 0)
        goto out;
    x[0].tree = ours;
    x[1].tree = theirs;
    if ((err = side_added(g, anc, &x[0], e)) < 0 ||
        (err = side_added(g, anc, &x[1], e)) < 0 ||
        (err = merge_sides(g, anc, x, &idx, e)) < 0)
        goto out;
    if ((err = collect_conflicts(idx, out, e)) < 0 ||
        (err = libgit2_misses(g, anc, x, true, out, e)) < 0) {
        merge_result_release(out);
        goto out;
    }
    if (cache) {
        ALLOC_GROW(cache->v, cache->n + 1, cache->alloc);
        result_copy(&cache->v[cache->n], out);
        strmap_put(&cache->index, key, strlen(key), (uint32_t)cache->n, NULL);
        cache->n++;
    }
out:
    dr_side_release(&x[0]);
    dr_side_release(&x[1]);
    git_index_free(idx);
    git_tree_free(ours);
    git_tree_free(theirs);
    git_tree_free(anc);
    git_commit_free(bc);
    free(key);
    return err;
}

int
merge_trees_as_git(git_repository *g, git_tree *anc, git_tree *ours,
    git_tree *theirs, git_index **out, struct as_err *e)
{
    struct dr_side x[2];
    int err;

    *out = NULL;
    memset(x, 0, sizeof(x));
    x[0].tree = ours;
    x[1].tree = theirs;
    if ((err = side_added(g, anc, &x[0], e)) == 0 &&
        (err = side_added(g, anc, &x[1], e)) == 0)
        err = merge_sides(g, anc, x, out, e);
    dr_side_release(&x[0]);
    dr_side_release(&x[1]);
    return err;
}

/* ---- a merge of the changed paths alone ---- */

/* One path of the cut: its entry in the base, ours and theirs (mode 0:
 * none). */
struct merge_cut_entry {
    const char *path;
    git_oid id[3];
    uint32_t mode[3];
};

static int merge_cut_conflicted(struct repo *r, const struct merge_cut_entry *v,
    size_t n, struct as_err *e);

/* Whether an entry of mode m is there and a regular file or link (a type
 * libgit2's diff keeps as MODIFIED when both sides have it). */
static bool
same_type(uint32_t a, uint32_t b)
{
    return a && b && (a & 0170000) == (b & 0170000);
}

/* Put every proper directory of path p (of length n) into dirs. */
static void
put_dirs(struct strmap *dirs, const char *p)
{
    for (const char *s = strchr(p, '/'); s; s = strchr(s + 1, '/'))
        strmap_put(dirs, p, (size_t)(s - p), 0, NULL);
}

/* Whether some proper directory of p is a key of m. */
static bool
has_dir_key(const struct strmap *m, const char *p)
{
    uint32_t v;
    for (const char *s = strchr(p, '/'); s; s = strchr(s + 1, '/'))
        if (strmap_get(m, p, (size_t)(s - p), &v))
            return true;
    return false;
}

/* A tree of the cut: entry k (0 base, 1 ours, 2 theirs) of each path. */
static int
cut_tree(git_repository *g, const struct merge_cut_entry *v, size_t n, int k,
    git_tree **out, struct as_err *e)
{
    git_tree_update *u = xcalloc(n + 1, sizeof(*u));
    size_t nu = 0;
    git_oid id;
    int err = 0;

    for (size_t i = 0; i < n; i++) {
        if (!v[i].mode[k])
            continue;
        u[nu].action = GIT_TREE_UPDATE_UPSERT;
        git_oid_cpy(&u[nu].id, &v[i].id[k]);
        u[nu].filemode = (git_filemode_t)v[i].mode[k];
        u[nu].path = v[i].path;
        nu++;
    }
    if (git_tree_create_updated(&id, g, NULL, nu, u) < 0 ||
        git_tree_lookup(out, g, &id) < 0)
        err = repo_git_errorf(e, "cannot write the trees of a merge");
    free(u);
    return err;
}

struct merge_verdicts {
    struct strmap m; /* a path's key -> 1 conflicted, 0 clean */
    size_t hits;
};

struct merge_verdicts *
merge_verdicts_new(void)
{
    struct merge_verdicts *v = xcalloc(1, sizeof(*v));
    strmap_init(&v->m);
    return v;
}

void
merge_verdicts_free(struct merge_verdicts *v)
{
    if (!v)
        return;
    strmap_release(&v->m);
    free(v);
}

size_t
merge_verdicts_size(const struct merge_verdicts *v)
{
    return v ? v->m.count : 0;
}

size_t
merge_verdicts_hits(const struct merge_verdicts *v)
{
    return v ? v->hits : 0;
}

/* Whether the cut's paths (each modified on both sides) conflict, each
 * path's verdict from known or merged by itself and kept there. */
static int
cut_conflicted_by_path(struct repo *r, const struct merge_cut_entry *v,
    size_t n, struct merge_verdicts *known, struct as_err *e)
{
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char hex[3][GIT_OID_HEXSZ + 1];
        for (int k = 0; k < 3; k++)
            git_oid_tostr(hex[k], sizeof(hex[k]), &v[i].id[k]);
        char *key = xasprintf("%s %s %s %o %o %o %s", hex[0], hex[1], hex[2],
            (unsigned)v[i].mode[0], (unsigned)v[i].mode[1],
            (unsigned)v[i].mode[2], v[i].path);
        uint32_t got;
        if (strmap_get(&known->m, key, strlen(key), &got)) {
            known->hits++;
            rc = (int)got;
        } else if ((rc = merge_cut_conflicted(r, &v[i], 1, e)) >= 0) {
            strmap_put(&known->m, key, strlen(key), (uint32_t)rc, NULL);
        }
        free(key);
    }
    return rc;
}

int
merge_restricted(struct repo *r, const struct merge_cut_delta *const d[2],
    const size_t n[2], struct merge_verdicts *known, struct as_err *e)
{
    struct strmap at[2], all, deldirs[2];
    struct merge_cut_entry *v = NULL;
    size_t nv = 0, av = 0;
    bool common = false;
    int rc = 0;

    strmap_init(&all);
    for (int s = 0; s < 2; s++) {
        strmap_init(&at[s]);
        strmap_init(&deldirs[s]);
        for (size_t i = 0; i < n[s]; i++) {
            const char *p = d[s][i].path;
            bool fresh;
            strmap_put(&at[s], p, strlen(p), (uint32_t)i, NULL);
            strmap_put(&all, p, strlen(p), 0, &fresh);
            common |= !fresh;
            if (!d[s][i].mode[1])
                put_dirs(&deldirs[s], p);
        }
    }
    /* (a) a changed path under another changed path: a file/directory
     * clash, which the trees' other entries take part in */
    for (int s = 0; s < 2 && !rc; s++)
        for (size_t i = 0; i < n[s] && !rc; i++)
            if (has_dir_key(&all, d[s][i].path))
                rc = 2;
    /* (b) a file added in a directory the other side removed files from:
     * that side may have moved the whole directory (directory renames) */
    for (int s = 0; s < 2 && !rc; s++)
        for (size_t i = 0; i < n[s] && !rc; i++) {
            const char *p = d[s][i].path, *slash = strrchr(p, '/');
            uint32_t x;
            if (!d[s][i].mode[0] && slash &&
                strmap_get(&deldirs[1 - s], p, (size_t)(slash - p), &x))
                rc = 2;
        }
    if (rc || !common)
        goto out; /* !common: clean (merge.h) */
    /* Whether every path both sides changed is a modification on both:
     * then no rename takes part in a conflict (merge.h), and the cut needs
     * those paths alone. */
    bool modified_both = true;
    for (size_t i = 0; i < n[0] && modified_both; i++) {
        uint32_t o;
        if (strmap_get(&at[1], d[0][i].path, strlen(d[0][i].path), &o))
            modified_both = same_type(d[0][i].mode[0], d[0][i].mode[1]) &&
                            same_type(d[1][o].mode[0], d[1][o].mode[1]);
    }
    /* The cut: every changed path but the modifications of a path the
     * other side left alone, which merge as they are and take no part in
     * rename detection (neither a source nor a target). */
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < n[s]; i++) {
            const struct merge_cut_delta *x = &d[s][i];
            uint32_t o;
            bool both = strmap_get(&at[1 - s], x->path, strlen(x->path), &o);
            if (both && s == 1)
                continue; /* taken with side 0 */
            if (!both && (modified_both || same_type(x->mode[0], x->mode[1])))
                continue;
            ALLOC_GROW(v, nv + 1, av);
            struct merge_cut_entry *c = &v[nv++];
            c->path = x->path;
            git_oid_cpy(&c->id[0], &x->id[0]);
            c->mode[0] = x->mode[0];
            for (int k = 0; k < 2; k++) {
                const struct merge_cut_delta *y = k == s ? x
                                                  : both ? &d[1 - s][o]
                                                         : NULL;
                git_oid_cpy(&c->id[1 + k], y ? &y->id[1] : &x->id[0]);
                c->mode[1 + k] = y ? y->mode[1] : x->mode[0];
            }
        }
    rc = modified_both && known ? cut_conflicted_by_path(r, v, nv, known, e)
                                : merge_cut_conflicted(r, v, nv, e);
out:
    free(v);
    strmap_release(&all);
    for (int s = 0; s < 2; s++) {
        strmap_release(&at[s]);
        strmap_release(&deldirs[s]);
    }
    return rc;
}

/* Whether the merge of the cut's trees (v: its entries) conflicts, as
 * merge_speculative() finds conflicts but for directory renames: 1, 0, or
 * an error. */
static int
merge_cut_conflicted(
    struct repo *r, const struct merge_cut_entry *v, size_t n, struct as_err *e)
{
    git_repository *g = repo_git(r);
    git_tree *t[3] = { NULL, NULL, NULL };
    git_index *idx = NULL;
    struct dr_side x[2];
    struct merge_result m = { 0 };
    int err = 0;

    memset(x, 0, sizeof(x));
    for (int k = 0; k < 3 && !err; k++)
        err = cut_tree(g, v, n, k, &t[k], e);
    if (err)
        goto out;
    x[0].tree = t[1];
    x[1].tree = t[2];
    if ((err = side_added(g, t[0], &x[0], e)) < 0 ||
        (err = side_added(g, t[0], &x[1], e)) < 0 ||
        (err = merge_sides(g, t[0], x, &idx, e)) < 0 ||
        (err = collect_conflicts(idx, &m, e)) < 0 ||
        (err = libgit2_misses(g, t[0], x, false, &m, e)) < 0)
        goto out;
    err = m.conflicted ? 1 : 0;
out:
    merge_result_release(&m);
    dr_side_release(&x[0]);
    dr_side_release(&x[1]);
    git_index_free(idx);
    for (int k = 0; k < 3; k++)
        git_tree_free(t[k]);
    return err;
}
