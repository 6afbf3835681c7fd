/*
 * repograph.c - the import graph of a repository or directory: files
 * parsed in parallel, facts from the cache, imports resolved, header and
 * source linked, the graph's snapshot written and mapped, and updates file
 * by file.
 *
 * Slightly over 1,000 lines: every way in (build, snapshot, update, plain
 * directory) fills the same builder state, private to this file.
 */
#include "lang/repograph.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lang/factcache.h"
#include "lang/graphsnap.h"
#include "lang/lang.h"
#include "lang/resolve.h"
#include "lang/sha1.h"
#include "lang/statcache.h"
#include "util/path.h"
#include "util/file.h"
#include "util/hex.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* What the builder keeps per graph file (indexed by graph id). */
struct rfile {
    uint8_t lang;   /* enum lang_id */
    bool has_key;   /* key is the blob id */
    bool has_facts; /* facts hold imports and definitions */
    uint8_t key[20];
    struct lang_facts facts;    /* refs dropped once handed to the graph */
    struct factcache_entry ent; /* during a load: cached, refs undecoded */
    bool from_cache;
    struct lang_kept *kept; /* updated before and large: its last parse */
};

struct repograph {
    struct graph *g;
    struct repograph_options o;
    struct resolver *res;
    struct rfile *f;
    size_t af;
    char *cache_path;
    char *snapshot_path;
    bool loaded;
    bool from_snapshot;         /* no facts: cannot be updated */
    uint8_t include_digest[20]; /* of the include dirs, for the key */
    size_t read_failures;       /* during the load: no snapshot is written */
    /* between repograph_batch_begin and _end: linking waits */
    bool batch, batch_full;
    uint32_t *batch_ids;
    size_t nbatch, abatch;
    size_t kept_bytes; /* source bytes the files' kept parses hold */
};

static void
ensure_files(struct repograph *rg)
{
    size_t old = rg->af;
    if (rg->g->nfiles <= old)
        return;
    ALLOC_GROW(rg->f, rg->g->nfiles, rg->af);
    memset(rg->f + old, 0, (rg->af - old) * sizeof(*rg->f));
}

struct repograph *
repograph_new(struct graph *g, const struct repograph_options *o)
{
    struct repograph *rg = xcalloc(1, sizeof(*rg));
    rg->g = g;
    if (o)
        rg->o = *o;
    if (!rg->o.threads)
        rg->o.threads = 2;
    if (rg->o.threads > 64)
        rg->o.threads = 64;
    if (!rg->o.max_file_bytes)
        rg->o.max_file_bytes = LANG_MAX_FILE_BYTES;
    rg->res = resolver_new(rg->o.include_dirs, rg->o.ninclude);
    struct sha1 s;
    sha1_init(&s);
    for (size_t i = 0; i < rg->o.ninclude; i++)
        sha1_update(
            &s, rg->o.include_dirs[i], strlen(rg->o.include_dirs[i]) + 1);
    sha1_final(&s, rg->include_digest);
    rg->o.include_dirs = NULL; /* copied by the resolver */
    rg->o.ninclude = 0;
    rg->cache_path = o && o->cache_path ? xstrdup(o->cache_path) : NULL;
    rg->o.cache_path = NULL;
    rg->snapshot_path =
        o && o->snapshot_path ? xstrdup(o->snapshot_path) : NULL;
    rg->o.snapshot_path = NULL;
    return rg;
}

void
repograph_free(struct repograph *rg)
{
    if (!rg)
        return;
    for (size_t i = 0; i < rg->af; i++) {
        lang_facts_release(&rg->f[i].facts);
        lang_kept_free(rg->f[i].kept);
    }
    free(rg->f);
    resolver_free(rg->res);
    free(rg->cache_path);
    free(rg->snapshot_path);
    free(rg->batch_ids);
    free(rg);
}

struct graph *
repograph_graph(struct repograph *rg)
{
    return rg->g;
}

struct resolver *
repograph_take_resolver(struct repograph *rg)
{
    struct resolver *r = rg->res;
    rg->res = NULL;
    return r;
}

static bool
parse_oid(const char *hex, uint8_t out[20])
{
    if (!hex)
        return false;
    for (int i = 0; i < 20; i++) {
        int a = hex_digit(hex[2 * i]),
            b = a < 0 ? -1 : hex_digit(hex[2 * i + 1]);
        if (a < 0 || b < 0)
            return false;
        out[i] = (uint8_t)(a << 4 | b);
    }
    return hex[40] == '\0';
}

struct refsink {
    struct graph *g;
    struct graph_ref *refs;
    size_t n, cap;
};

static void
sink_ref(void *ctx, const char *name, size_t len, uint32_t line)
{
    struct refsink *s = ctx;
    if (s->n >= s->cap)
        return;
    s->refs[s->n].name = graph_intern_name(s->g, name, len);
    s->refs[s->n++].line = line;
}

/* Hand a file's definitions and references to the graph; drop the refs.
 * References of a cached file go straight from the cache bytes. */
static void
publish_symbols(struct repograph *rg, uint32_t id)
{
    struct lang_facts *x = &rg->f[id].facts;
    struct graph_def *defs = xcalloc(x->ndefs + 1, sizeof(*defs));
    if (rg->f[id].from_cache) {
        for (size_t i = 0; i < x->ndefs; i++) {
            defs[i].name = graph_intern_name(
                rg->g, x->defs[i].name, strlen(x->defs[i].name));
            defs[i].start = x->defs[i].start;
            defs[i].end = x->defs[i].end;
            defs[i].kind = x->defs[i].kind;
        }
        struct refsink s = { .g = rg->g };
        s.cap = factcache_nrefs(&rg->f[id].ent);
        s.refs = xcalloc(s.cap + 1, sizeof(*s.refs));
        factcache_each_ref(&rg->f[id].ent, sink_ref, &s);
        graph_set_symbols(rg->g, id, defs, x->ndefs, s.refs, s.n);
        free(s.refs);
        free(defs);
        return;
    }
    struct graph_ref *refs = xcalloc(x->nrefs + 1, sizeof(*refs));
    for (size_t i = 0; i < x->ndefs; i++) {
        defs[i].name =
            graph_intern_name(rg->g, x->defs[i].name, strlen(x->defs[i].name));
        defs[i].start = x->defs[i].start;
        defs[i].end = x->defs[i].end;
        defs[i].kind = x->defs[i].kind; /* same order as graph_sym_kind */
    }
    for (size_t i = 0; i < x->nrefs; i++) {
        refs[i].name =
            graph_intern_name(rg->g, x->refs[i].name, strlen(x->refs[i].name));
        refs[i].line = x->refs[i].line;
    }
    graph_set_symbols(rg->g, id, defs, x->ndefs, refs, x->nrefs);
    free(defs);
    free(refs);
    for (size_t i = 0; i < x->nrefs; i++)
        free(x->refs[i].name);
    free(x->refs);
    x->refs = NULL;
    x->nrefs = x->arefs = 0;
}

/* ---- header -> source links ---- */

struct defmap {
    struct strmap names; /* function name -> bucket */
    uint32_t **v;
    size_t *n, *a;
    size_t nb, ab, ab2, ab3;
};

static bool
is_c_source(const struct rfile *f, const char *path)
{
    return (f->lang == LANG_C || f->lang == LANG_CPP) && !lang_is_header(path);
}

static void
defmap_build(struct repograph *rg, struct defmap *m)
{
    memset(m, 0, sizeof(*m));
    strmap_init(&m->names);
    for (uint32_t id = 0; id < rg->g->nfiles; id++) {
        const struct rfile *f = &rg->f[id];
        if (!f->has_facts || !is_c_source(f, rg->g->files[id].path))
            continue;
        for (size_t i = 0; i < f->facts.ndefs; i++) {
            const struct lang_def *d = &f->facts.defs[i];
            if (d->decl ||
                (d->kind != LANG_DEF_FUNCTION && d->kind != LANG_DEF_METHOD))
                continue;
            bool added;
            uint32_t b = strmap_put(
                &m->names, d->name, strlen(d->name), (uint32_t)m->nb, &added);
            if (added) {
                ALLOC_GROW(m->v, m->nb + 1, m->ab);
                ALLOC_GROW(m->n, m->nb + 1, m->ab2);
                ALLOC_GROW(m->a, m->nb + 1, m->ab3);
                m->v[m->nb] = NULL;
                m->n[m->nb] = m->a[m->nb] = 0;
                m->nb++;
            }
            if (m->n[b] && m->v[b][m->n[b] - 1] == id)
                continue;
            ALLOC_GROW(m->v[b], m->n[b] + 1, m->a[b]);
            m->v[b][m->n[b]++] = id;
        }
    }
}

static void
defmap_release(struct defmap *m)
{
    for (size_t i = 0; i < m->nb; i++)
        free(m->v[i]);
    free(m->v);
    free(m->n);
    free(m->a);
    strmap_release(&m->names);
}

/* A name defined in more source files than this (main, init) links none. */
#define HEADER_LINK_MAX 4

static void
push_target(uint32_t **t, size_t *n, size_t *a, uint32_t id)
{
    ALLOC_GROW(*t, *n + 1, *a);
    (*t)[(*n)++] = id;
}

static void
header_links(struct repograph *rg, const struct defmap *m, uint32_t id,
    uint32_t **t, size_t *n, size_t *a)
{
    const char *path = rg->g->files[id].path;
    const char *dot = strrchr(path, '.');
    static const char *const exts[] = { ".c", ".cc", ".cpp", ".cxx" };
    for (size_t i = 0; dot && i < 4; i++) {
        char *src = xasprintf("%.*s%s", (int)(dot - path), path, exts[i]);
        uint32_t sid = graph_find_file(rg->g, src);
        if (sid != GRAPH_NONE && resolver_has_file(rg->res, src))
            push_target(t, n, a, sid);
        free(src);
    }
    const struct lang_facts *x = &rg->f[id].facts;
    for (size_t i = 0; i < x->ndefs; i++) {
        const struct lang_def *d = &x->defs[i];
        if (!d->decl)
            continue;
        uint32_t b;
        if (!strmap_get(&m->names, d->name, strlen(d->name), &b) ||
            m->n[b] > HEADER_LINK_MAX)
            continue;
        for (size_t k = 0; k < m->n[b]; k++)
            push_target(t, n, a, m->v[b][k]);
    }
}

/* Resolve file id's imports (and header links) into its graph edges. */
static void
link_file(struct repograph *rg, const struct defmap *m, uint32_t id,
    struct resolve_result *res)
{
    const struct rfile *f = &rg->f[id];
    const char *path = rg->g->files[id].path;
    uint32_t *t = NULL;
    size_t n = 0, a = 0;
    if (f->has_facts && resolver_has_file(rg->res, path)) {
        for (size_t i = 0; i < f->facts.nimports; i++) {
            if (f->facts.imports[i].type_only)
                continue; /* no runtime dependency */
            resolve_result_clear(res);
            resolver_resolve(rg->res, path, (enum lang_id)f->lang,
                &f->facts.imports[i], res);
            for (size_t k = 0; k < res->n; k++) {
                uint32_t tid = graph_find_file(rg->g, res->v[k]);
                if (tid != GRAPH_NONE)
                    push_target(&t, &n, &a, tid);
            }
        }
        if ((f->lang == LANG_C || f->lang == LANG_CPP) && lang_is_header(path))
            header_links(rg, m, id, &t, &n, &a);
    }
    graph_set_imports(rg->g, id, t, n);
    free(t);
}

static void
link_all(struct repograph *rg)
{
    struct defmap m;
    struct resolve_result res = { 0 };
    defmap_build(rg, &m);
    for (uint32_t id = 0; id < rg->g->nfiles; id++)
        link_file(rg, &m, id, &res);
    resolve_result_release(&res);
    defmap_release(&m);
}

/* ---- parallel parsing ---- */

struct job {
    uint32_t id;
    const struct repograph_file *file;
    char *buf; /* content when already read (to hash it), else NULL */
    size_t len;
    bool ok;
    struct lang_facts facts;
};

struct pool {
    struct job *jobs;
    size_t njobs, next;
    pthread_mutex_t lock;      /* next, done, stopped, the progress calls */
    pthread_mutex_t read_lock; /* the loader is never called concurrently */
    repograph_read_fn *read;
    void *ctx;
    size_t max;
    repograph_progress_fn *progress;
    void *progress_ctx;
    size_t done, total;   /* for progress: files with facts, source files */
    size_t read_failures; /* (read_lock held) */
    bool stopped;         /* progress said stop: no job is handed out */
};

/* One more file has its facts (p->lock held). */
static void
pool_done(struct pool *p)
{
    p->done++;
    if (p->progress && p->progress(p->progress_ctx, p->done, p->total)) {
        p->stopped = true;
        p->next = p->njobs;
    }
}

static void *
worker(void *arg)
{
    struct pool *p = arg;
    for (bool finished = false;; finished = true) {
        pthread_mutex_lock(&p->lock);
        if (finished)
            pool_done(p);
        size_t i = p->next < p->njobs ? p->next++ : p->njobs;
        pthread_mutex_unlock(&p->lock);
        if (i >= p->njobs)
            return NULL;
        struct job *j = &p->jobs[i];
        if (!j->buf) {
            pthread_mutex_lock(&p->read_lock);
            int rc = p->read(p->ctx, j->file, &j->buf, &j->len);
            if (rc < 0)
                p->read_failures++;
            pthread_mutex_unlock(&p->read_lock);
            if (rc < 0) {
                free(j->buf);
                j->buf = NULL;
                continue;
            }
        }
        struct as_err e;
        enum lang_id lang = lang_detect(j->file->path);
        j->ok = lang_extract_max(lang, j->buf ? j->buf : "", j->len, p->max,
                    &j->facts, &e) == 0;
        free(j->buf);
        j->buf = NULL;
    }
}

static void
run_pool(struct pool *p, unsigned threads)
{
    if (threads > p->njobs)
        threads = (unsigned)(p->njobs ? p->njobs : 1);
    pthread_t *t = xcalloc(threads, sizeof(*t));
    unsigned started = 0;
    for (unsigned i = 1; i < threads; i++)
        if (pthread_create(&t[i], NULL, worker, p) == 0)
            started = i;
        else
            break;
    worker(p); /* this thread works too */
    for (unsigned i = 1; i <= started; i++)
        pthread_join(t[i], NULL);
    free(t);
}

/* ---- load ---- */

static void
fill_stats(struct repograph *rg, struct repograph_stats *st)
{
    size_t src = 0, defs = 0, refs = 0;
    for (uint32_t id = 0; id < rg->g->nfiles; id++) {
        src += rg->f[id].lang != LANG_NONE;
        defs += rg->g->files[id].ndefs;
        refs += rg->g->files[id].nrefs;
    }
    st->files = rg->g->nfiles;
    st->source_files = src;
    st->edges = graph_edge_count(rg->g);
    st->defs = defs;
    st->refs = refs;
}

/* Load config file f into the resolver (content read on this thread). */
static void
load_config(struct repograph *rg, const struct repograph_file *f,
    const char *path, repograph_read_fn *read, void *ctx)
{
    char *buf = NULL;
    size_t len = 0;
    int rc = read(ctx, f, &buf, &len);
    if (rc == 0 && len <= rg->o.max_file_bytes)
        resolver_add_config(rg->res, path, buf ? buf : "", len);
    else if (rc < 0)
        rg->read_failures++;
    free(buf);
}

/* ---- snapshot ---- */

static void
key_add(struct sha1 *s, const void *p, size_t len)
{
    sha1_update(s, p, len);
}

static void
key_u64(struct sha1 *s, uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    key_add(s, b, sizeof(b));
}

static void
key_str(struct sha1 *s, const char *str)
{
    key_add(s, str, strlen(str) + 1);
}

/* The snapshot's key: everything the graph is built from. False when some
 * file has neither blob id nor stat data, or the program is unknown. */
static bool
snapshot_key(const struct repograph *rg, const struct repograph_file *files,
    char *const *norm, size_t n, uint8_t key[GRAPHSNAP_KEY_BYTES])
{
    uint8_t id[64];
    size_t idlen;
    if (!graphsnap_build_id(id, sizeof(id), &idlen))
        return false;
    struct sha1 s;
    sha1_init(&s);
    key_str(&s, "airspace graph snapshot");
    key_u64(&s, GRAPHSNAP_FORMAT);
    key_u64(&s, LANG_EXTRACT_VERSION);
    key_u64(&s, idlen);
    key_add(&s, id, idlen);
    key_u64(&s, rg->o.max_file_bytes);
    key_add(&s, rg->include_digest, sizeof(rg->include_digest));
    key_u64(&s, n);
    for (size_t i = 0; i < n; i++) {
        const struct repograph_file *f = &files[i];
        key_str(&s, norm[i]);
        uint8_t oid[20];
        if (parse_oid(f->oid, oid)) {
            key_add(&s, "o", 1);
            key_add(&s, oid, sizeof(oid));
        } else if (f->has_stat) {
            key_add(&s, "s", 1);
            key_u64(&s, f->size);
            key_u64(&s, f->mtime_ns);
            key_u64(&s, f->ino);
        } else {
            return false;
        }
    }
    uint8_t out[20];
    sha1_final(&s, out);
    memcpy(key, out, GRAPHSNAP_KEY_BYTES);
    return true;
}

/* Take the graph from the snapshot made for key; 0, or it is not there
 * (or refused) and the graph is still empty. */
static int
load_snapshot(struct repograph *rg, const struct repograph_file *files,
    char *const *norm, size_t n, const uint8_t key[GRAPHSNAP_KEY_BYTES],
    repograph_read_fn *read, void *ctx, struct repograph_stats *st)
{
    struct graphsnap_info info;
    struct as_err e;
    if (graphsnap_load(rg->g, key, rg->snapshot_path, &info, &e))
        return -1;
    for (size_t i = 0; i < n; i++)
        resolver_add_file(rg->res, norm[i]);
    for (size_t i = 0; i < n; i++)
        if (resolver_is_config(norm[i]))
            load_config(rg, &files[i], norm[i], read, ctx);
    rg->from_snapshot = true;
    st->files = rg->g->nfiles;
    st->source_files = info.source_files;
    st->cached = info.with_facts;
    st->edges = graph_edge_count(rg->g);
    for (uint32_t id = 0; id < rg->g->nfiles; id++) {
        st->defs += rg->g->files[id].ndefs;
        st->refs += rg->g->files[id].nrefs;
    }
    st->from_snapshot = true;
    return 0;
}

/* Whether a file keyed by its stat data changed within STATCACHE_RACY_NS
 * of since_ns (as the stat cache, lang/statcache.h): a write in that window
 * could change its content and leave its stat data as read, so the
 * snapshot's key would still match a graph of the old content. */
static bool
racy(const struct repograph_file *files, size_t n, int64_t since_ns)
{
    uint8_t oid[20];
    for (size_t i = 0; i < n; i++)
        if (!parse_oid(files[i].oid, oid) && files[i].has_stat &&
            (int64_t)files[i].mtime_ns > since_ns - STATCACHE_RACY_NS)
            return true;
    return false;
}

static int64_t
now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static void
write_snapshot(struct repograph *rg, const uint8_t key[GRAPHSNAP_KEY_BYTES],
    const struct repograph_stats *st)
{
    struct graphsnap_info info = { .source_files = st->source_files };
    for (uint32_t id = 0; id < rg->g->nfiles; id++)
        info.with_facts += rg->f[id].has_facts;
    struct as_err e;
    graphsnap_write(rg->g, key, &info, rg->snapshot_path, &e); /* best effort */
}

int
repograph_load(struct repograph *rg, const struct repograph_file *files,
    size_t n, repograph_read_fn *read, void *ctx, struct repograph_stats *st,
    struct as_err *e)
{
    struct repograph_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof(*st));
    if (rg->loaded)
        return as_errorf(e, AS_EINVAL, "repograph already loaded");
    rg->loaded = true;
    uint32_t *ids = xcalloc(n ? n : 1, sizeof(*ids));
    char **norm = xcalloc(n ? n : 1, sizeof(*norm));
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (!files[i].path ||
            path_normalize(files[i].path, NULL, &norm[i]) < 0) {
            norm[i] = NULL;
            rc = as_errorf(e, AS_EINVAL, "path '%s' escapes the repository",
                files[i].path ? files[i].path : "(null)");
            goto out_ids;
        }
    }
    uint8_t key[GRAPHSNAP_KEY_BYTES];
    int64_t started_ns = now_ns();
    bool keyed = rg->snapshot_path && rg->g->nfiles == 0 &&
                 snapshot_key(rg, files, norm, n, key);
    /* the snapshot stands on the facts cache: without it (deleted to make
     * the next scan parse everything again), it is not used either */
    bool cache_there = !rg->cache_path || access(rg->cache_path, F_OK) == 0;
    if (keyed && cache_there &&
        load_snapshot(rg, files, norm, n, key, read, ctx, st) == 0)
        goto out_ids;
    for (size_t i = 0; i < n; i++) {
        ids[i] = graph_intern_file(rg->g, norm[i]);
        resolver_add_file(rg->res, norm[i]);
    }
    ensure_files(rg);
    for (size_t i = 0; i < n; i++)
        if (resolver_is_config(rg->g->files[ids[i]].path))
            load_config(rg, &files[i], rg->g->files[ids[i]].path, read, ctx);

    struct factcache cache;
    factcache_load(&cache, rg->cache_path);
    struct statcache sc;
    statcache_init(&sc);
    char *sc_path =
        rg->cache_path ? xasprintf("%s.stat", rg->cache_path) : NULL;
    bool sc_dirty = false;
    if (sc_path)
        statcache_load(&sc, sc_path);
    struct pool p = { .read = read,
        .ctx = ctx,
        .max = rg->o.max_file_bytes,
        .progress = rg->o.progress,
        .progress_ctx = rg->o.progress_ctx };
    pthread_mutex_init(&p.lock, NULL);
    pthread_mutex_init(&p.read_lock, NULL);
    size_t ajobs = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t id = ids[i];
        struct rfile *f = &rg->f[id];
        f->lang = (uint8_t)lang_detect(rg->g->files[id].path);
        if (f->lang == LANG_NONE || f->has_facts)
            continue;
        char *buf = NULL;
        size_t len = 0;
        f->has_key = parse_oid(files[i].oid, f->key);
        struct stat_key sk = { files[i].size, files[i].mtime_ns, files[i].ino };
        if (!f->has_key && files[i].has_stat && sc_path)
            f->has_key =
                statcache_lookup(&sc, rg->g->files[id].path, &sk, f->key);
        if (!f->has_key) {
            if (read(ctx, &files[i], &buf, &len) < 0) {
                free(buf);
                rg->read_failures++;
                continue;
            }
            sha1_git_blob(buf ? buf : "", len, f->key);
            f->has_key = true;
            if (files[i].has_stat && sc_path) {
                statcache_put(&sc, rg->g->files[id].path, &sk, f->key);
                sc_dirty = true;
            }
        }
        if (factcache_lookup(&cache, f->key, f->lang, &f->ent) &&
            factcache_decode(&f->ent, &f->facts, false)) {
            f->has_facts = true;
            f->from_cache = true;
            st->cached++;
            free(buf);
            continue;
        }
        ALLOC_GROW(p.jobs, p.njobs + 1, ajobs);
        struct job *j = &p.jobs[p.njobs++];
        memset(j, 0, sizeof(*j));
        j->id = id;
        j->file = &files[i];
        j->buf = buf;
        j->len = len;
        lang_facts_init(&j->facts);
    }
    p.done = st->cached;
    p.total = st->cached + p.njobs;
    if (p.progress && p.progress(p.progress_ctx, p.done, p.total))
        p.stopped = true;
    if (!p.stopped)
        run_pool(&p, rg->o.threads);
    for (size_t k = 0; k < p.njobs; k++) {
        struct job *j = &p.jobs[k];
        if (!j->ok) {
            free(j->buf); /* a job never run, when stopped */
            lang_facts_release(&j->facts);
            continue;
        }
        rg->f[j->id].facts = j->facts;
        rg->f[j->id].has_facts = true;
        st->parsed++;
    }
    free(p.jobs);
    rg->read_failures += p.read_failures;
    pthread_mutex_destroy(&p.lock);
    pthread_mutex_destroy(&p.read_lock);

    /* rewrite the cache when it was missing, stale or incomplete */
    if (rg->cache_path &&
        (!cache.valid || st->parsed > 0 || cache.n != st->cached)) {
        struct factcache_writer w;
        factcache_writer_init(&w);
        for (uint32_t id = 0; id < rg->g->nfiles; id++) {
            const struct rfile *f = &rg->f[id];
            if (f->has_facts && f->from_cache)
                factcache_writer_add_raw(&w, f->key, f->lang, &f->ent);
            else if (f->has_facts && f->has_key)
                factcache_writer_add(&w, f->key, f->lang, &f->facts);
        }
        struct as_err werr;
        factcache_writer_commit(&w, rg->cache_path, &werr); /* best effort */
    }
    if (sc_dirty) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        struct as_err werr;
        statcache_write(&sc, sc_path,
            (int64_t)now.tv_sec * 1000000000 + now.tv_nsec, &werr);
    }
    statcache_release(&sc);
    free(sc_path);
    if (p.stopped) {
        factcache_release(&cache);
        rc = as_errorf(e, AS_ECANCELED, "stopped after %zu of %zu source files",
            p.done, p.total);
        goto out_ids;
    }
    for (uint32_t id = 0; id < rg->g->nfiles; id++)
        if (rg->f[id].has_facts)
            publish_symbols(rg, id);
    for (uint32_t id = 0; id < rg->g->nfiles; id++) {
        rg->f[id].from_cache = false; /* the cache bytes go away now */
        memset(&rg->f[id].ent, 0, sizeof(rg->f[id].ent));
    }
    factcache_release(&cache);
    link_all(rg);
    fill_stats(rg, st);
    if (keyed && !rg->read_failures && !racy(files, n, started_ns))
        write_snapshot(rg, key, st);
out_ids:
    for (size_t i = 0; i < n; i++)
        free(norm[i]);
    free(norm);
    free(ids);
    return rc;
}

void
repograph_batch_begin(struct repograph *rg)
{
    rg->batch = true;
    rg->batch_full = false;
    rg->nbatch = 0;
}

void
repograph_batch_end(struct repograph *rg)
{
    if (!rg->batch || rg->from_snapshot)
        return;
    rg->batch = false;
    if (rg->batch_full) {
        link_all(rg);
    } else if (rg->nbatch) {
        struct defmap m;
        struct resolve_result res = { 0 };
        defmap_build(rg, &m);
        for (size_t k = 0; k < rg->nbatch; k++)
            link_file(rg, &m, rg->batch_ids[k], &res);
        for (uint32_t h = 0; h < rg->g->nfiles; h++)
            if (rg->f[h].has_facts &&
                (rg->f[h].lang == LANG_C || rg->f[h].lang == LANG_CPP) &&
                lang_is_header(rg->g->files[h].path))
                link_file(rg, &m, h, &res);
        resolve_result_release(&res);
        defmap_release(&m);
    }
    rg->nbatch = 0;
    rg->batch_full = false;
}

static void
drop_kept(struct repograph *rg, struct rfile *f)
{
    rg->kept_bytes -= lang_kept_bytes(f->kept);
    lang_kept_free(f->kept);
    f->kept = NULL;
}

/*
 * A file's facts on an update. A file updated before whose source is
 * large parses incrementally from its previous version, kept while the
 * kept sources stay within their budget (a file edited over and over is
 * typically a large one: re-parsing all of it for a few changed lines is
 * where an update's time goes).
 */
static int
extract(struct repograph *rg, struct rfile *f, const char *content, size_t len,
    struct as_err *e)
{
    enum lang_id id = (enum lang_id)f->lang;
    size_t had = lang_kept_bytes(f->kept);
    if (len < REPOGRAPH_KEEP_MIN_BYTES ||
        rg->kept_bytes - had + len > REPOGRAPH_KEEP_BYTES) {
        drop_kept(rg, f);
        return lang_extract_max(
            id, content, len, rg->o.max_file_bytes, &f->facts, e);
    }
    int rc = lang_extract_next(
        id, &f->kept, content, len, rg->o.max_file_bytes, &f->facts, e);
    rg->kept_bytes = rg->kept_bytes - had + lang_kept_bytes(f->kept);
    return rc;
}

int
repograph_update_file(struct repograph *rg, const char *path,
    const char *content, size_t len, struct as_err *e)
{
    if (rg->from_snapshot)
        return as_errorf(
            e, AS_EUNSUP, "a graph loaded from a snapshot cannot be updated");
    char *norm;
    if (!path || path_normalize(path, NULL, &norm) < 0 || !*norm) {
        if (path)
            free(norm);
        return as_errorf(e, AS_EINVAL, "path '%s' escapes the repository",
            path ? path : "(null)");
    }
    bool existed = resolver_has_file(rg->res, norm);
    uint32_t id = graph_intern_file(rg->g, norm);
    ensure_files(rg);
    struct rfile *f = &rg->f[id];
    lang_facts_release(&f->facts);
    f->has_facts = false;
    f->has_key = false;
    f->lang = (uint8_t)lang_detect(norm);
    int rc = 0;
    if (!content || f->lang == LANG_NONE)
        drop_kept(rg, f);
    if (!content) {
        resolver_remove_file(rg->res, norm);
        graph_set_symbols(rg->g, id, NULL, 0, NULL, 0);
        rg->g->files[id].parsed = false;
    } else {
        if (resolver_is_config(norm))
            resolver_add_config(rg->res, norm, content, len);
        else
            resolver_add_file(rg->res, norm);
        if (f->lang != LANG_NONE) {
            sha1_git_blob(content, len, f->key);
            f->has_key = true;
            lang_facts_init(&f->facts);
            rc = extract(rg, f, content, len, e);
            if (rc == 0) {
                f->has_facts = true;
                publish_symbols(rg, id);
            } else {
                lang_facts_release(&f->facts);
                graph_set_symbols(rg->g, id, NULL, 0, NULL, 0);
                rg->g->files[id].parsed = false;
            }
        }
    }
    /* a file appearing or vanishing, or a configuration change, can change
     * how any import resolves; otherwise only this file and C headers */
    if (rg->batch) {
        if (!existed || !content || resolver_is_config(norm))
            rg->batch_full = true;
        else {
            ALLOC_GROW(rg->batch_ids, rg->nbatch + 1, rg->abatch);
            rg->batch_ids[rg->nbatch++] = id;
        }
    } else if (!existed || !content || resolver_is_config(norm)) {
        link_all(rg);
    } else {
        struct defmap m;
        struct resolve_result res = { 0 };
        defmap_build(rg, &m);
        link_file(rg, &m, id, &res);
        for (uint32_t h = 0; h < rg->g->nfiles; h++)
            if (h != id && rg->f[h].has_facts &&
                (rg->f[h].lang == LANG_C || rg->f[h].lang == LANG_CPP) &&
                lang_is_header(rg->g->files[h].path))
                link_file(rg, &m, h, &res);
        resolve_result_release(&res);
        defmap_release(&m);
    }
    free(norm);
    return rc == AS_ETOOBIG || rc == AS_EPARSE ? 0 : rc;
}

int
repograph_build(struct graph *g, const struct repograph_file *files, size_t n,
    repograph_read_fn *read, void *ctx, const struct repograph_options *o,
    struct repograph_stats *st, struct as_err *e)
{
    struct repograph *rg = repograph_new(g, o);
    int rc = repograph_load(rg, files, n, read, ctx, st, e);
    repograph_free(rg);
    return rc;
}

/* ---- plain directories ---- */

struct scan {
    struct repograph_file *v;
    size_t n, a;
};

static int
scan_rec(int dfd, const char *rel, struct scan *s, int depth, struct as_err *e)
{
    if (depth > 64)
        return 0;
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return as_errorf(e, AS_EIO, "cannot read directory '%s': %s",
            *rel ? rel : ".", strerror(errno));
    }
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && (de = readdir(d))) {
        const char *nm = de->d_name;
        if (!strcmp(nm, ".") || !strcmp(nm, "..") || !strcmp(nm, ".git"))
            continue;
        struct stat sb;
        if (fstatat(dirfd(d), nm, &sb, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        char *path = *rel ? xasprintf("%s/%s", rel, nm) : xstrdup(nm);
        if (S_ISDIR(sb.st_mode)) {
            int sub = openat(
                dirfd(d), nm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0)
                rc = scan_rec(sub, path, s, depth + 1, e);
            free(path);
        } else if (S_ISREG(sb.st_mode)) {
            ALLOC_GROW(s->v, s->n + 1, s->a);
            struct repograph_file *f = &s->v[s->n++];
            memset(f, 0, sizeof(*f));
            f->path = path;
            f->has_stat = true;
            f->size = (uint64_t)sb.st_size;
            f->mtime_ns = (uint64_t)sb.st_mtim.tv_sec * 1000000000u +
                          (uint64_t)sb.st_mtim.tv_nsec;
            f->ino = (uint64_t)sb.st_ino;
        } else {
            free(path);
        }
    }
    closedir(d);
    return rc;
}

static int
cmp_file(const void *a, const void *b)
{
    return strcmp(((const struct repograph_file *)a)->path,
        ((const struct repograph_file *)b)->path);
}

int
repograph_scan_dir(
    const char *dir, struct repograph_file **files, size_t *n, struct as_err *e)
{
    *files = NULL;
    *n = 0;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return as_errorf(e, errno == ENOENT ? AS_ENOENT : AS_EIO,
            "cannot open directory '%s': %s", dir, strerror(errno));
    struct scan s = { 0 };
    int rc = scan_rec(fd, "", &s, 0, e);
    if (rc < 0) {
        repograph_scan_dir_free(s.v, s.n);
        return rc;
    }
    if (s.n)
        qsort(s.v, s.n, sizeof(*s.v), cmp_file);
    *files = s.v;
    *n = s.n;
    return 0;
}

void
repograph_scan_dir_free(struct repograph_file *files, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free((char *)files[i].path);
    free(files);
}

/* Files larger than this are not read from a plain directory. */
#define READ_DIR_MAX ((size_t)64 << 20)

int
repograph_read_dir(
    void *ctx, const struct repograph_file *f, char **buf, size_t *len)
{
    const char *dir = ctx;
    char *path = xasprintf("%s/%s", dir, f->path);
    int rc = file_read_max(path, READ_DIR_MAX, true, buf, len);
    free(path);
    return rc == AS_ENOENT ? AS_EIO : rc;
}
