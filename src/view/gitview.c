#include "view/gitview.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "git/files.h"
#include "lang/agentnames.h"
#include "lang/lang.h"
#include "lang/resolve.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/strmap.h"
#include "util/xalloc.h"
#include "util/banned.h"

int
gitview_read_blob(
    void *ctx, const struct repograph_file *f, char **buf, size_t *len)
{
    struct as_err e;
    return repo_read_blob(ctx, f->oid, buf, len, &e);
}

/* Keep what the base needs of a loaded repograph: its resolver and the
 * configuration files' blob ids. */
static void
base_fill(struct gitview_base *base, struct repograph *rg,
    const struct git_file_entry *ents, size_t n)
{
    base->res = repograph_take_resolver(rg);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += resolver_is_config(ents[i].path);
    base->configs = xcalloc(k ? k : 1, sizeof(*base->configs));
    for (size_t i = 0; i < n; i++)
        if (resolver_is_config(ents[i].path)) {
            struct gitview_config *c = &base->configs[base->nconfigs++];
            c->path = xstrdup(ents[i].path);
            memcpy(c->oid, ents[i].oid, sizeof(c->oid));
        }
}

static int
graph_build(struct repo *repo, const char *rev, unsigned threads,
    const char *cache_path, bool snapshot, struct graph *g,
    struct gitview_base *base, repograph_progress_fn *progress,
    void *progress_ctx, struct repograph_stats *st, struct as_err *e)
{
    struct git_file_entry *ents;
    size_t n;
    if (base)
        memset(base, 0, sizeof(*base));
    graph_init(g);
    int rc = repo_tree_files(repo, rev, &ents, &n, e);
    if (rc)
        return rc;
    struct repograph_file *files = xcalloc(n ? n : 1, sizeof(*files));
    for (size_t i = 0; i < n; i++) {
        files[i].path = ents[i].path;
        files[i].oid = ents[i].oid;
    }
    /* Without the directory the graph is still built, just not cached. */
    char *dir = xasprintf("%s/airspace", repo_common_dir(repo));
    char *cache = NULL, *snap = NULL;
    bool have_dir = mkdir(dir, 0700) == 0 || errno == EEXIST;
    if (cache_path)
        cache = xstrdup(cache_path);
    else if (have_dir)
        cache = xasprintf("%s/graph.cache", dir);
    if (snapshot && have_dir)
        snap = xasprintf("%s/graph.snap", dir);
    struct repograph_options ro = { 0 };
    ro.cache_path = cache;
    ro.snapshot_path = snap;
    ro.threads = threads;
    ro.progress = progress;
    ro.progress_ctx = progress_ctx;
    struct repograph *rg = repograph_new(g, &ro);
    rc = repograph_load(rg, files, n, gitview_read_blob, repo, st, e);
    if (rc)
        graph_release(g);
    else if (base)
        base_fill(base, rg, ents, n);
    repograph_free(rg);
    free(cache);
    free(snap);
    free(dir);
    free(files);
    repo_tree_files_free(ents, n);
    return rc;
}

int
gitview_forward(struct repo *repo, const char *rev, struct forward_hist **fhist,
    const struct forward_table **forward, struct as_err *e)
{
    *fhist = forward_hist_new();
    /* without the directory the table is still read, just not cached */
    char *dir = xasprintf("%s/airspace", repo_common_dir(repo));
    char *cache = NULL;
    if (mkdir(dir, 0700) == 0 || errno == EEXIST)
        cache = xasprintf("%s/forward.cache", dir);
    int rc = forward_hist_table_cached(
        *fhist, repo, rev, FORWARD_WINDOW, cache, forward, NULL, e);
    free(cache);
    free(dir);
    if (rc)
        *forward = NULL;
    return rc;
}

int
gitview_graph_base(struct repo *repo, const char *rev, unsigned threads,
    const char *cache_path, struct graph *g, struct gitview_base *base,
    repograph_progress_fn *progress, void *progress_ctx,
    struct repograph_stats *st, struct as_err *e)
{
    return graph_build(repo, rev, threads, cache_path, false, g, base, progress,
        progress_ctx, st, e);
}

int
gitview_graph_snap(struct repo *repo, const char *rev, unsigned threads,
    struct graph *g, struct gitview_base *base, repograph_progress_fn *progress,
    void *progress_ctx, struct repograph_stats *st, struct as_err *e)
{
    return graph_build(
        repo, rev, threads, NULL, true, g, base, progress, progress_ctx, st, e);
}

void
gitview_base_release(struct gitview_base *base)
{
    resolver_free(base->res);
    for (size_t i = 0; i < base->nconfigs; i++)
        free(base->configs[i].path);
    free(base->configs);
    forward_hist_free(base->fhist);
    memset(base, 0, sizeof(*base));
}

void
gitview_recency(const struct risk_config *c, struct agent *a, int64_t now_ms)
{
    for (size_t i = 0; i < a->nfiles; i++) {
        struct ws_file *f = &a->files[i];
        int64_t age = f->changed_at_ms ? now_ms - f->changed_at_ms : 0;
        f->weight = risk_recency_weight(c, age < 0 ? 0 : age);
    }
}

/* Whether f is a changed source file whose agent's version can be read. */
static bool
names_wanted(const struct ws_file *f)
{
    if (f->status != WS_MODIFIED && f->status != WS_ADDED &&
        f->status != WS_RENAMED)
        return false;
    return lang_detect(f->new_path ? f->new_path : f->path) != LANG_NONE;
}

/* Read rel from the worktree wt into *buf; 0 or an error. */
static int
read_worktree_file(const char *wt, const char *rel, char **buf, size_t *len)
{
    char *full = xasprintf("%s/%s", wt, rel);
    int rc = file_read_max(full, LANG_MAX_FILE_BYTES, true, buf, len);
    free(full);
    return rc;
}

/* One file's parse, as kept: the key (its names and content) and the
 * facts lang_extract() gave (rc: 0, or AS_ETOOBIG: not parsed). */
struct names_entry {
    uint64_t key;
    int rc;
    struct lang_facts facts;
};

struct gitview_names_cache {
    struct strmap idx; /* path -> index into v */
    struct names_entry *v;
    size_t n, a;
};

struct gitview_names_cache *
gitview_names_cache_new(void)
{
    struct gitview_names_cache *c = xcalloc(1, sizeof(*c));
    strmap_init(&c->idx);
    return c;
}

/* Empty c (its entries' facts released). */
static void
names_cache_clear(struct gitview_names_cache *c)
{
    for (size_t i = 0; i < c->n; i++)
        lang_facts_release(&c->v[i].facts);
    free(c->v);
    c->v = NULL;
    c->n = c->a = 0;
    strmap_release(&c->idx);
    strmap_init(&c->idx);
}

void
gitview_names_cache_free(struct gitview_names_cache *c)
{
    if (!c)
        return;
    names_cache_clear(c);
    strmap_release(&c->idx);
    free(c);
}

/* The facts of version buf of rel (in language id): cache's when it holds
 * them under key, else parsed; kept in next (*out points there), or, with
 * no next or a failed parse, in *own (*out points there; the caller
 * releases it). Returns lang_extract()'s code. */
static int
facts_of(struct gitview_names_cache *cache, struct gitview_names_cache *next,
    const char *rel, uint64_t key, enum lang_id id, const char *buf, size_t len,
    struct lang_facts *own, const struct lang_facts **out, struct as_err *e)
{
    uint32_t at;
    bool added = false;
    struct names_entry x = { .key = key };
    if (cache && strmap_get(&cache->idx, rel, strlen(rel), &at) &&
        cache->v[at].key == key) {
        x = cache->v[at]; /* moved: cache is emptied after the call */
        lang_facts_init(&cache->v[at].facts);
    } else {
        lang_facts_init(&x.facts);
        x.rc = lang_extract(id, buf, len, &x.facts, e);
    }
    lang_facts_init(own);
    if (next && (!x.rc || x.rc == AS_ETOOBIG))
        strmap_put(&next->idx, rel, strlen(rel), (uint32_t)next->n, &added);
    if (!added) {
        *own = x.facts;
        *out = own;
        return x.rc;
    }
    ALLOC_GROW(next->v, next->n + 1, next->a);
    next->v[next->n] = x;
    *out = &next->v[next->n++].facts;
    return x.rc;
}

/* Parse the agent's version of each changed source file (imports resolved
 * with res, or not at all when NULL). A file whose name and content are
 * those of cache's (NULL: none) is not parsed again: the same content gives
 * the same facts, and the rest (the names beyond the base's, the imports)
 * is worked out from them anew. cache then holds this call's files only.
 * Returns the files that failed. */
static size_t
fill_names(struct graph *g, struct resolver *res, struct agent *a,
    struct gitview_names_cache *cache)
{
    size_t failed = 0;
    struct gitview_names_cache *next = cache ? gitview_names_cache_new() : NULL;
    for (size_t k = 0; k < a->nfiles; k++) {
        struct ws_file *f = &a->files[k];
        if (!names_wanted(f))
            continue;
        const char *rel = f->new_path ? f->new_path : f->path;
        enum lang_id id = lang_detect(rel);
        char *buf;
        size_t len;
        if (read_worktree_file(a->worktree, rel, &buf, &len))
            continue;
        uint64_t key = fnv1a_bytes(
            fnv1a_bytes(FNV1A_INIT, rel, strlen(rel) + 1), buf, len);
        struct lang_facts own;
        const struct lang_facts *facts;
        struct as_err e;
        int rc =
            facts_of(cache, next, rel, key, id, buf, len, &own, &facts, &e);
        if (!rc)
            agentnames_fill_facts(g, res, f, rel, facts);
        else if (rc != AS_ETOOBIG) /* (too big or minified: not parsed) */
            failed++;
        lang_facts_release(&own);
        free(buf);
    }
    if (cache) { /* this call's files only */
        names_cache_clear(cache);
        strmap_release(&cache->idx);
        *cache = *next;
        free(next);
    }
    return failed;
}

/*
 * Parse the agent's own copy (in its worktree) of each changed source file
 * and record the uses and definitions it adds over the base graph
 * (lang/agentnames.h); names are interned into g. Agents without a worktree
 * are left alone. Returns how many files could not be parsed.
 */
static size_t
gitview_agent_names(
    struct graph *g, struct agent *a, struct gitview_names_cache *cache)
{
    return a->worktree ? fill_names(g, NULL, a, cache) : 0;
}

/* Put the base version of configuration file path back into res (as the
 * graph's build left it: no configuration when unreadable or too big). */
static void
restore_config(struct gitview_base *base, struct repo *repo, const char *path)
{
    for (size_t i = 0; i < base->nconfigs; i++) {
        if (strcmp(base->configs[i].path, path))
            continue;
        char *buf;
        size_t len;
        struct as_err e;
        if (!repo_read_blob(repo, base->configs[i].oid, &buf, &len, &e)) {
            if (len <= LANG_MAX_FILE_BYTES) {
                resolver_add_config(base->res, path, buf, len);
                free(buf);
                return;
            }
            free(buf);
        }
        break;
    }
    resolver_remove_file(base->res, path);
    resolver_add_file(base->res, path);
}

size_t
gitview_agent_view(struct graph *g, struct gitview_base *base,
    struct repo *repo, struct agent *a)
{
    return gitview_agent_view_cached(g, base, repo, a, NULL);
}

size_t
gitview_agent_view_cached(struct graph *g, struct gitview_base *base,
    struct repo *repo, struct agent *a, struct gitview_names_cache *cache)
{
    if (!base || !base->res)
        return gitview_agent_names(g, a, cache);
    bool want = false;
    for (size_t k = 0; k < a->nfiles && !want; k++)
        want = names_wanted(&a->files[k]);
    if (!a->worktree || !want)
        return 0;
    /* The agent's paths the base lacks (its added files, the new names of
     * its renames) and the configuration files it changed go into the
     * resolver for this agent only, and come out again below. */
    enum { PUT_NONE = 0, PUT_FILE = 1, PUT_CONFIG = 2 };
    unsigned char *put = xcalloc(a->nfiles ? a->nfiles : 1, 1);
    for (size_t k = 0; k < a->nfiles; k++) {
        const struct ws_file *f = &a->files[k];
        const char *p = f->new_path ? f->new_path : f->path;
        if ((f->status == WS_ADDED || f->new_path) &&
            !resolver_has_file(base->res, p)) {
            resolver_add_file(base->res, p);
            put[k] |= PUT_FILE;
        }
        if ((f->status == WS_MODIFIED || f->status == WS_ADDED ||
                f->status == WS_RENAMED) &&
            resolver_is_config(p)) {
            char *buf;
            size_t len;
            if (!read_worktree_file(a->worktree, p, &buf, &len)) {
                resolver_add_config(base->res, p, buf, len);
                put[k] |= PUT_CONFIG;
                free(buf);
            }
        }
    }
    size_t failed = fill_names(g, base->res, a, cache);
    for (size_t k = 0; k < a->nfiles; k++) {
        const struct ws_file *f = &a->files[k];
        const char *p = f->new_path ? f->new_path : f->path;
        if (put[k] & PUT_FILE)
            resolver_remove_file(base->res, p); /* and its configuration */
        else if (put[k] & PUT_CONFIG)
            restore_config(base, repo, p);
    }
    free(put);
    return failed;
}

char *
gitview_unique_id(const struct agent *v, size_t n, const char *want)
{
    for (unsigned k = 1;; k++) {
        char *id = k == 1 ? xstrdup(want) : xasprintf("%s-%u", want, k);
        bool clash = false;
        for (size_t i = 0; i < n && !clash; i++)
            clash = !strcmp(v[i].id, id);
        if (!clash)
            return id;
        free(id);
    }
}

int
gitview_merge_pair(void *vctx, const struct agent *a, const struct agent *b,
    char ***paths, size_t *npaths)
{
    struct gitview_merge *ctx = vctx;
    *paths = NULL;
    *npaths = 0;
    if (!a->tree_oid || !b->tree_oid || !a->base_oid || !b->base_oid)
        return AS_EINVAL;
    struct merge_result mr;
    struct as_err e;
    int rc = merge_speculative(ctx->repo, ctx->cache, a->base_oid, a->tree_oid,
        b->base_oid, b->tree_oid, &mr, &e);
    if (rc) {
        if (!ctx->failures++)
            ctx->first_error = e;
        return rc;
    }
    int conflicted = mr.conflicted;
    *paths = mr.paths;
    *npaths = mr.npaths;
    mr.paths = NULL;
    mr.npaths = 0;
    merge_result_release(&mr);
    return conflicted ? 1 : 0;
}
