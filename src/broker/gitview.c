#include "broker/gitview.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "git/files.h"
#include "lang/agentnames.h"
#include "lang/lang.h"
#include "util/file.h"
#include "util/xalloc.h"
#include "util/banned.h"

int
gitview_read_blob(
    void *ctx, const struct repograph_file *f, char **buf, size_t *len)
{
    struct as_err e;
    return repo_read_blob(ctx, f->oid, buf, len, &e);
}

int
gitview_graph(struct repo *repo, const char *rev, unsigned threads,
    struct graph *g, struct repograph_stats *st, struct as_err *e)
{
    return gitview_graph_cached(repo, rev, threads, NULL, g, st, e);
}

int
gitview_graph_cached(struct repo *repo, const char *rev, unsigned threads,
    const char *cache_path, struct graph *g, struct repograph_stats *st,
    struct as_err *e)
{
    struct git_file_entry *ents;
    size_t n;
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
    char *cache = NULL;
    if (cache_path)
        cache = xstrdup(cache_path);
    else if (mkdir(dir, 0700) == 0 || errno == EEXIST)
        cache = xasprintf("%s/graph.cache", dir);
    struct repograph_options ro = { 0 };
    ro.cache_path = cache;
    ro.threads = threads;
    rc = repograph_build(g, files, n, gitview_read_blob, repo, &ro, st, e);
    if (rc)
        graph_release(g);
    free(cache);
    free(dir);
    free(files);
    repo_tree_files_free(ents, n);
    return rc;
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

size_t
gitview_agent_names(struct graph *g, struct agent *a)
{
    size_t failed = 0;
    if (!a->worktree)
        return 0;
    for (size_t k = 0; k < a->nfiles; k++) {
        struct ws_file *f = &a->files[k];
        if (f->status != WS_MODIFIED && f->status != WS_ADDED &&
            f->status != WS_RENAMED)
            continue;
        const char *rel = f->new_path ? f->new_path : f->path;
        if (lang_detect(rel) == LANG_NONE)
            continue;
        char *full = xasprintf("%s/%s", a->worktree, rel);
        char *buf;
        size_t len;
        if (!file_read_max(full, LANG_MAX_FILE_BYTES, true, &buf, &len)) {
            struct as_err e;
            if (agentnames_fill(g, f, rel, buf, len, &e))
                failed++;
            free(buf);
        }
        free(full);
    }
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
