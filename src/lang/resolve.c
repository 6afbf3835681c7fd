/*
 * resolve.c - import strings to repository files, per language (C and
 * C++, JavaScript and TypeScript with tsconfig paths and packages, Python,
 * Go modules, Rust crates, Java).
 *
 * Slightly over 1,000 lines: one short section per language over one
 * index of the repository's files and its configuration files.
 */
#include "lang/resolve.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "util/path.h"
#include "util/strmap.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct bucket {
    uint32_t *v;
    size_t n, a;
};

struct index {
    struct strmap map; /* key -> bucket id */
    struct bucket *bk;
    size_t nbk, abk;
};

struct gomod {
    char *cfg, *dir, *module;
};

struct tspath {
    char *pat;
    char **targets;
    size_t nt;
};

struct tsconf {
    char *cfg, *dir, *base; /* base: baseUrl dir, NULL when unset */
    struct tspath *paths;
    size_t np;
};

struct pkg {
    char *cfg, *dir, *name;
    char *entry[4]; /* source, module, main, types (repository paths) */
};

struct resolver {
    struct strmap files; /* path -> id */
    const char **paths;  /* id -> path (borrowed from files) */
    bool *alive;
    size_t npaths, apaths, aalive;
    struct index base; /* basename -> file ids */
    struct index dirs; /* directory -> file ids */
    char **inc;
    size_t ninc;
    struct gomod *go;
    size_t ngo, ago;
    struct tsconf *ts;
    size_t nts, ats;
    struct pkg *pkg;
    size_t npkg, apkg;
};

static void
index_add(struct index *x, const char *key, size_t len, uint32_t id)
{
    bool added;
    uint32_t b = strmap_put(&x->map, key, len, (uint32_t)x->nbk, &added);
    if (added) {
        ALLOC_GROW(x->bk, x->nbk + 1, x->abk);
        memset(&x->bk[x->nbk++], 0, sizeof(struct bucket));
    }
    struct bucket *k = &x->bk[b];
    for (size_t i = 0; i < k->n; i++)
        if (k->v[i] == id)
            return;
    ALLOC_GROW(k->v, k->n + 1, k->a);
    k->v[k->n++] = id;
}

static const struct bucket *
index_get(const struct index *x, const char *key, size_t len)
{
    uint32_t b;
    return strmap_get(&x->map, key, len, &b) ? &x->bk[b] : NULL;
}

static void
index_release(struct index *x)
{
    for (size_t i = 0; i < x->nbk; i++)
        free(x->bk[i].v);
    free(x->bk);
    strmap_release(&x->map);
}

struct resolver *
resolver_new(const char *const *include_dirs, size_t n)
{
    struct resolver *r = xcalloc(1, sizeof(*r));
    strmap_init(&r->files);
    strmap_init(&r->base.map);
    strmap_init(&r->dirs.map);
    r->inc = xcalloc(n ? n : 1, sizeof(*r->inc));
    for (size_t i = 0; i < n; i++) {
        if (path_normalize(include_dirs[i], NULL, &r->inc[r->ninc]) == 0)
            r->ninc++;
    }
    return r;
}

static void
gomod_free(struct gomod *g)
{
    free(g->cfg);
    free(g->dir);
    free(g->module);
}

static void
tsconf_free(struct tsconf *t)
{
    for (size_t i = 0; i < t->np; i++) {
        for (size_t k = 0; k < t->paths[i].nt; k++)
            free(t->paths[i].targets[k]);
        free(t->paths[i].targets);
        free(t->paths[i].pat);
    }
    free(t->paths);
    free(t->cfg);
    free(t->dir);
    free(t->base);
}

static void
pkg_free(struct pkg *p)
{
    free(p->cfg);
    free(p->dir);
    free(p->name);
    for (int i = 0; i < 4; i++)
        free(p->entry[i]);
}

void
resolver_free(struct resolver *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->ninc; i++)
        free(r->inc[i]);
    free(r->inc);
    for (size_t i = 0; i < r->ngo; i++)
        gomod_free(&r->go[i]);
    free(r->go);
    for (size_t i = 0; i < r->nts; i++)
        tsconf_free(&r->ts[i]);
    free(r->ts);
    for (size_t i = 0; i < r->npkg; i++)
        pkg_free(&r->pkg[i]);
    free(r->pkg);
    index_release(&r->base);
    index_release(&r->dirs);
    free(r->paths);
    free(r->alive);
    strmap_release(&r->files);
    free(r);
}

void
resolver_add_file(struct resolver *r, const char *path)
{
    size_t len = strlen(path);
    bool added;
    uint32_t id = strmap_put(&r->files, path, len, (uint32_t)r->npaths, &added);
    if (!added) {
        r->alive[id] = true;
        return;
    }
    ALLOC_GROW(r->paths, r->npaths + 1, r->apaths);
    ALLOC_GROW(r->alive, r->npaths + 1, r->aalive);
    r->paths[r->npaths] = strmap_key(&r->files, path, len);
    r->alive[r->npaths++] = true;
    const char *slash = strrchr(path, '/');
    const char *bn = slash ? slash + 1 : path;
    index_add(&r->base, bn, strlen(bn), id);
    index_add(&r->dirs, path, path_dirlen(path), id);
}

static bool
cfg_match(const char *cfg, const char *path)
{
    return cfg && !strcmp(cfg, path);
}

void
resolver_remove_file(struct resolver *r, const char *path)
{
    uint32_t id;
    if (strmap_get(&r->files, path, strlen(path), &id))
        r->alive[id] = false;
    for (size_t i = 0; i < r->ngo;)
        if (cfg_match(r->go[i].cfg, path)) {
            gomod_free(&r->go[i]);
            r->go[i] = r->go[--r->ngo];
        } else {
            i++;
        }
    for (size_t i = 0; i < r->nts;)
        if (cfg_match(r->ts[i].cfg, path)) {
            tsconf_free(&r->ts[i]);
            r->ts[i] = r->ts[--r->nts];
        } else {
            i++;
        }
    for (size_t i = 0; i < r->npkg;)
        if (cfg_match(r->pkg[i].cfg, path)) {
            pkg_free(&r->pkg[i]);
            r->pkg[i] = r->pkg[--r->npkg];
        } else {
            i++;
        }
}

/* The stored path string for path if it is a live file, else NULL. */
static const char *
live(const struct resolver *r, const char *path)
{
    uint32_t id;
    if (!strmap_get(&r->files, path, strlen(path), &id) || !r->alive[id])
        return NULL;
    return r->paths[id];
}

bool
resolver_has_file(const struct resolver *r, const char *path)
{
    return live(r, path) != NULL;
}

static const char *
basename_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

bool
resolver_is_config(const char *path)
{
    const char *b = basename_of(path);
    if (!strcmp(b, "go.mod") || !strcmp(b, "package.json") ||
        !strcmp(b, "jsconfig.json"))
        return true;
    size_t n = strlen(b);
    return !strncmp(b, "tsconfig", 8) && n > 5 && !strcmp(b + n - 5, ".json");
}

/* ---- configuration ---- */

/* JSON with comments and trailing commas (tsconfig) made strict. */
static char *
json_relax(const char *s, size_t len, size_t *outlen)
{
    char *o = xmalloc(len + 1);
    size_t k = 0;
    bool str = false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (str) {
            o[k++] = c;
            if (c == '\\' && i + 1 < len)
                o[k++] = s[++i];
            else if (c == '"')
                str = false;
            continue;
        }
        if (c == '"') {
            str = true;
            o[k++] = c;
        } else if (c == '/' && i + 1 < len && s[i + 1] == '/') {
            while (i < len && s[i] != '\n')
                i++;
            if (i < len)
                o[k++] = '\n';
        } else if (c == '/' && i + 1 < len && s[i + 1] == '*') {
            i += 2;
            while (i + 1 < len && !(s[i] == '*' && s[i + 1] == '/'))
                i++;
            i++;
            o[k++] = ' ';
        } else if (c == ',') {
            size_t j = i + 1;
            while (j < len && strchr(" \t\r\n", s[j]))
                j++;
            /* a comment between the comma and the bracket is rare; ignore */
            if (j < len && (s[j] == '}' || s[j] == ']'))
                continue;
            o[k++] = c;
        } else {
            o[k++] = c;
        }
    }
    o[k] = '\0';
    *outlen = k;
    return o;
}

static json_t *
json_parse_relaxed(const char *text, size_t len)
{
    size_t n;
    char *s = json_relax(text, len, &n);
    json_error_t err;
    json_t *j = json_loadb(s, n, 0, &err);
    free(s);
    if (j && !json_is_object(j)) {
        json_decref(j);
        j = NULL;
    }
    return j;
}

/* Join dir and rel into a new normalised path, or NULL when it escapes. */
static char *
join(const char *dir, const char *rel)
{
    char *out;
    if (path_join(dir, rel, &out) < 0)
        return NULL;
    return out;
}

static char *
dir_of(const char *path)
{
    return xstrndup(path, path_dirlen(path));
}

static void
add_gomod(struct resolver *r, const char *path, const char *text, size_t len)
{
    /* "module example.com/m" (optionally quoted) on its own line */
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        const char *q = p;
        while (q < eol && (*q == ' ' || *q == '\t'))
            q++;
        if (eol - q > 7 && !memcmp(q, "module", 6) &&
            (q[6] == ' ' || q[6] == '\t')) {
            q += 7;
            while (q < eol && (*q == ' ' || *q == '\t' || *q == '"'))
                q++;
            const char *e = q;
            while (e < eol && !strchr(" \t\r\"/", *e))
                e++;
            while (e < eol && !strchr(" \t\r\"", *e))
                e++;
            if (e > q) {
                ALLOC_GROW(r->go, r->ngo + 1, r->ago);
                struct gomod *g = &r->go[r->ngo++];
                g->cfg = xstrdup(path);
                g->dir = dir_of(path);
                g->module = xstrndup(q, (size_t)(e - q));
            }
            return;
        }
        p = eol + 1;
    }
}

static void
add_tsconfig(struct resolver *r, const char *path, const char *text, size_t len)
{
    json_t *j = json_parse_relaxed(text, len);
    if (!j)
        return;
    json_t *co = json_object_get(j, "compilerOptions");
    json_t *base = json_object_get(co, "baseUrl");
    json_t *paths = json_object_get(co, "paths");
    if (!json_is_string(base) && !json_is_object(paths)) {
        json_decref(j);
        return;
    }
    ALLOC_GROW(r->ts, r->nts + 1, r->ats);
    struct tsconf *t = &r->ts[r->nts++];
    memset(t, 0, sizeof(*t));
    t->cfg = xstrdup(path);
    t->dir = dir_of(path);
    if (json_is_string(base))
        t->base = join(t->dir, json_string_value(base));
    if (json_is_object(paths)) {
        const char *key;
        json_t *val;
        t->paths = xcalloc(json_object_size(paths) + 1, sizeof(*t->paths));
        json_object_foreach(paths, key, val)
        {
            if (!json_is_array(val))
                continue;
            struct tspath *tp = &t->paths[t->np++];
            tp->pat = xstrdup(key);
            tp->targets = xcalloc(json_array_size(val) + 1, sizeof(char *));
            size_t i;
            json_t *v;
            json_array_foreach(val, i, v)
            {
                if (json_is_string(v))
                    tp->targets[tp->nt++] = xstrdup(json_string_value(v));
            }
        }
    }
    json_decref(j);
}

static void
add_package(struct resolver *r, const char *path, const char *text, size_t len)
{
    json_t *j = json_parse_relaxed(text, len);
    if (!j)
        return;
    json_t *name = json_object_get(j, "name");
    if (json_is_string(name) && json_string_length(name) > 0) {
        ALLOC_GROW(r->pkg, r->npkg + 1, r->apkg);
        struct pkg *p = &r->pkg[r->npkg++];
        memset(p, 0, sizeof(*p));
        p->cfg = xstrdup(path);
        p->dir = dir_of(path);
        p->name = xstrdup(json_string_value(name));
        static const char *const fields[4] = { "source", "module", "main",
            "types" };
        for (int i = 0; i < 4; i++) {
            json_t *v = json_object_get(j, fields[i]);
            if (json_is_string(v))
                p->entry[i] = join(p->dir, json_string_value(v));
        }
    }
    json_decref(j);
}

void
resolver_add_config(
    struct resolver *r, const char *path, const char *text, size_t len)
{
    resolver_remove_file(r, path); /* drops the old configuration */
    resolver_add_file(r, path);
    const char *b = basename_of(path);
    if (!strcmp(b, "go.mod"))
        add_gomod(r, path, text, len);
    else if (!strcmp(b, "package.json"))
        add_package(r, path, text, len);
    else if (resolver_is_config(path))
        add_tsconfig(r, path, text, len);
}

/* ---- results ---- */

void
resolve_result_clear(struct resolve_result *res)
{
    res->n = 0;
}

void
resolve_result_release(struct resolve_result *res)
{
    free(res->v);
    memset(res, 0, sizeof(*res));
}

static bool
push(struct resolve_result *res, const char *from, const char *p)
{
    if (!p || !strcmp(p, from))
        return false;
    for (size_t i = 0; i < res->n; i++)
        if (res->v[i] == p)
            return true;
    ALLOC_GROW(res->v, res->n + 1, res->alloc);
    res->v[res->n++] = p;
    return true;
}

/* If dir/rel is a live file, return its stored path. */
static const char *
try_join(const struct resolver *r, const char *dir, const char *rel)
{
    char *p = join(dir, rel);
    if (!p)
        return NULL;
    const char *hit = live(r, p);
    free(p);
    return hit;
}

static size_t
common_prefix(const char *a, const char *b)
{
    size_t n = 0, last = 0;
    while (a[n] && a[n] == b[n]) {
        if (a[n] == '/')
            last = n + 1;
        n++;
    }
    return last;
}

/* The live file whose path ends in "/" suffix (or is suffix), closest to
 * from; NULL if none. */
static const char *
suffix_match(const struct resolver *r, const char *from, const char *suffix)
{
    const char *bn = basename_of(suffix);
    const struct bucket *b = index_get(&r->base, bn, strlen(bn));
    if (!b)
        return NULL;
    size_t sl = strlen(suffix);
    const char *best = NULL;
    size_t best_score = 0;
    for (size_t i = 0; i < b->n; i++) {
        if (!r->alive[b->v[i]])
            continue;
        const char *p = r->paths[b->v[i]];
        size_t pl = strlen(p);
        if (pl < sl || strcmp(p + pl - sl, suffix) ||
            (pl > sl && p[pl - sl - 1] != '/'))
            continue;
        size_t score = common_prefix(p, from) + 1;
        if (!best || score > best_score ||
            (score == best_score && strcmp(p, best) < 0)) {
            best = p;
            best_score = score;
        }
    }
    return best;
}

/* ---- C / C++ ---- */

static size_t
resolve_c(struct resolver *r, const char *from, const struct lang_import *im,
    struct resolve_result *res)
{
    const char *hit = NULL;
    if (im->kind == LANG_IMPORT_INCLUDE_LOCAL) {
        char *d = dir_of(from);
        hit = try_join(r, d, im->spec);
        free(d);
    }
    for (size_t i = 0; !hit && i < r->ninc; i++)
        hit = try_join(r, r->inc[i], im->spec);
    if (!hit && im->spec[0] != '/' && strncmp(im->spec, "../", 3)) {
        char *norm;
        if (path_normalize(im->spec, NULL, &norm) == 0) {
            hit = suffix_match(r, from, norm);
            free(norm);
        }
    }
    return push(res, from, hit) ? 1 : 0;
}

/* ---- JavaScript / TypeScript ---- */

static const char *const js_exts[] = { ".ts", ".tsx", ".d.ts", ".js", ".jsx",
    ".mjs", ".cjs", ".mts", ".cts" };

static const char *
probe_ext(const struct resolver *r, const char *base)
{
    size_t bl = strlen(base);
    char *buf = xmalloc(bl + 16);
    const char *hit = NULL;
    for (size_t i = 0; !hit && i < sizeof(js_exts) / sizeof(js_exts[0]); i++) {
        snprintf(buf, bl + 16, "%s%s", base, js_exts[i]);
        hit = live(r, buf);
    }
    free(buf);
    return hit;
}

/* A file for module path base (already joined and normalised). */
static const char *
js_probe(const struct resolver *r, const char *base)
{
    const char *hit = live(r, base);
    if (hit && lang_detect(hit) != LANG_NONE)
        return hit;
    /* "./x.js" written for a TypeScript source x.ts */
    static const char *const js2ts[][2] = { { ".js", "" }, { ".jsx", "" },
        { ".mjs", ".mts" }, { ".cjs", ".cts" } };
    size_t bl = strlen(base);
    for (size_t i = 0; i < 4; i++) {
        size_t el = strlen(js2ts[i][0]);
        if (bl > el && !strcmp(base + bl - el, js2ts[i][0])) {
            char *stem = xstrndup(base, bl - el);
            if (js2ts[i][1][0]) {
                char *alt = xasprintf("%s%s", stem, js2ts[i][1]);
                hit = live(r, alt);
                free(alt);
            }
            if (!hit) {
                char *a = xasprintf("%s.ts", stem);
                char *b = xasprintf("%s.tsx", stem);
                hit = live(r, a);
                if (!hit)
                    hit = live(r, b);
                free(a);
                free(b);
            }
            free(stem);
            if (hit)
                return hit;
        }
    }
    hit = probe_ext(r, base);
    if (hit)
        return hit;
    char *idx = bl ? xasprintf("%s/index", base) : xstrdup("index");
    hit = probe_ext(r, idx);
    free(idx);
    return hit;
}

static const char *
js_probe_join(const struct resolver *r, const char *dir, const char *rel)
{
    char *p = join(dir, rel);
    if (!p)
        return NULL;
    const char *hit = js_probe(r, p);
    free(p);
    return hit;
}

/* Is dir a prefix directory of path ("" contains everything)? */
static bool
dir_contains(const char *dir, const char *path)
{
    size_t n = strlen(dir);
    return n == 0 || (!strncmp(dir, path, n) && path[n] == '/');
}

static const char *
js_tsconfig(const struct resolver *r, const char *from, const char *spec)
{
    const struct tsconf *best = NULL;
    for (size_t i = 0; i < r->nts; i++)
        if (dir_contains(r->ts[i].dir, from) &&
            (!best || strlen(r->ts[i].dir) > strlen(best->dir)))
            best = &r->ts[i];
    if (!best)
        return NULL;
    const char *root = best->base ? best->base : best->dir;
    size_t sl = strlen(spec);
    for (size_t i = 0; i < best->np; i++) {
        const struct tspath *tp = &best->paths[i];
        const char *star = strchr(tp->pat, '*');
        char *cap;
        if (!star) {
            if (strcmp(tp->pat, spec))
                continue;
            cap = xstrdup("");
        } else {
            size_t pre = (size_t)(star - tp->pat), post = strlen(star + 1);
            if (sl < pre + post || strncmp(spec, tp->pat, pre) ||
                strcmp(spec + sl - post, star + 1))
                continue;
            cap = xstrndup(spec + pre, sl - pre - post);
        }
        for (size_t k = 0; k < tp->nt; k++) {
            const char *t = tp->targets[k];
            const char *ts = strchr(t, '*');
            char *sub =
                ts ? xasprintf("%.*s%s%s", (int)(ts - t), t, cap, ts + 1)
                   : xstrdup(t);
            const char *hit = js_probe_join(r, root, sub);
            free(sub);
            if (hit) {
                free(cap);
                return hit;
            }
        }
        free(cap);
    }
    if (best->base)
        return js_probe_join(r, best->base, spec);
    return NULL;
}

static const char *
js_package(const struct resolver *r, const char *spec)
{
    size_t nl;
    const char *slash = strchr(spec, '/');
    if (spec[0] == '@' && slash)
        slash = strchr(slash + 1, '/');
    nl = slash ? (size_t)(slash - spec) : strlen(spec);
    for (size_t i = 0; i < r->npkg; i++) {
        const struct pkg *p = &r->pkg[i];
        if (strlen(p->name) != nl || strncmp(p->name, spec, nl))
            continue;
        const char *hit = NULL;
        if (slash) {
            hit = js_probe_join(r, p->dir, slash + 1);
            if (!hit) {
                char *src = join(p->dir, "src");
                if (src)
                    hit = js_probe_join(r, src, slash + 1);
                free(src);
            }
            return hit;
        }
        for (int k = 0; !hit && k < 4; k++)
            if (p->entry[k])
                hit = js_probe(r, p->entry[k]);
        if (!hit)
            hit = js_probe_join(r, p->dir, "src/index");
        if (!hit)
            hit = js_probe_join(r, p->dir, "index");
        return hit;
    }
    return NULL;
}

static size_t
resolve_js(struct resolver *r, const char *from, const struct lang_import *im,
    struct resolve_result *res)
{
    const char *spec = im->spec, *hit = NULL;
    if (!strncmp(spec, "./", 2) || !strncmp(spec, "../", 3) ||
        !strcmp(spec, ".") || !strcmp(spec, "..")) {
        char *d = dir_of(from);
        hit = js_probe_join(r, d, spec);
        free(d);
    } else if (spec[0] != '/') {
        hit = js_tsconfig(r, from, spec);
        if (!hit)
            hit = js_package(r, spec);
    }
    return push(res, from, hit) ? 1 : 0;
}

/* ---- Python ---- */

static const char *
py_module(const struct resolver *r, const char *root, const char *dotted)
{
    size_t n = strlen(dotted);
    char *rel = xmalloc(n + 16);
    for (size_t i = 0; i <= n; i++)
        rel[i] = dotted[i] == '.' ? '/' : dotted[i];
    char *a = xasprintf("%s.py", rel), *b = xasprintf("%s/__init__.py", rel);
    const char *hit = n ? try_join(r, root, a) : NULL;
    if (!hit)
        hit = try_join(r, root, n ? b : "__init__.py");
    if (!hit && n) {
        char *c = xasprintf("%s.pyi", rel);
        hit = try_join(r, root, c);
        free(c);
    }
    free(a);
    free(b);
    free(rel);
    return hit;
}

static size_t
resolve_py(struct resolver *r, const char *from, const struct lang_import *im,
    struct resolve_result *res)
{
    const char *hit = NULL;
    char *d = dir_of(from);
    if (im->level > 0) {
        for (int i = 1; i < im->level; i++) {
            size_t dl = path_dirlen(d);
            if (!*d) {
                free(d);
                return 0; /* climbs above the repository */
            }
            d[dl] = '\0';
        }
        hit = py_module(r, d, im->spec);
    } else if (im->spec[0]) {
        hit = py_module(r, "", im->spec);
        if (!hit)
            hit = py_module(r, "src", im->spec);
        if (!hit)
            hit = py_module(r, d, im->spec);
    }
    free(d);
    return push(res, from, hit) ? 1 : 0;
}

/* ---- Go ---- */

static size_t
dir_files(struct resolver *r, const char *from, const char *dir,
    const char *ext, const char *skip_suffix, struct resolve_result *res)
{
    const struct bucket *b = index_get(&r->dirs, dir, strlen(dir));
    size_t n = 0, el = strlen(ext), kl = skip_suffix ? strlen(skip_suffix) : 0;
    for (size_t i = 0; b && i < b->n; i++) {
        if (!r->alive[b->v[i]])
            continue;
        const char *p = r->paths[b->v[i]];
        size_t pl = strlen(p);
        if (pl < el || strcmp(p + pl - el, ext))
            continue;
        if (kl && pl >= kl && !strcmp(p + pl - kl, skip_suffix))
            continue;
        n += push(res, from, p);
    }
    return n;
}

static size_t
resolve_go(struct resolver *r, const char *from, const struct lang_import *im,
    struct resolve_result *res)
{
    const struct gomod *best = NULL;
    size_t sl = strlen(im->spec);
    for (size_t i = 0; i < r->ngo; i++) {
        size_t ml = strlen(r->go[i].module);
        if (sl < ml || strncmp(im->spec, r->go[i].module, ml) ||
            (sl > ml && im->spec[ml] != '/'))
            continue;
        if (!best || ml > strlen(best->module))
            best = &r->go[i];
    }
    if (!best)
        return 0;
    const char *rest = im->spec + strlen(best->module);
    if (*rest == '/')
        rest++;
    char *dir = join(best->dir, rest);
    if (!dir)
        return 0;
    size_t n = dir_files(r, from, dir, ".go", "_test.go", res);
    free(dir);
    return n;
}

/* ---- Rust ---- */

/* The directory where the child modules of file live. */
static char *
rust_moddir(const char *file)
{
    const char *b = basename_of(file);
    if (!strcmp(b, "mod.rs") || !strcmp(b, "lib.rs") || !strcmp(b, "main.rs"))
        return dir_of(file);
    size_t n = strlen(file);
    return xstrndup(file, n >= 3 ? n - 3 : n);
}

static const char *
rust_child(
    const struct resolver *r, const char *dir, const char *name, size_t nl)
{
    char *a = xasprintf("%.*s.rs", (int)nl, name);
    char *b = xasprintf("%.*s/mod.rs", (int)nl, name);
    const char *hit = try_join(r, dir, a);
    if (!hit)
        hit = try_join(r, dir, b);
    free(a);
    free(b);
    return hit;
}

/* The crate root directory: the nearest ancestor holding lib.rs/main.rs. */
static char *
rust_crate_dir(const struct resolver *r, const char *from)
{
    char *d = dir_of(from);
    for (;;) {
        if (try_join(r, d, "lib.rs") || try_join(r, d, "main.rs"))
            return d;
        if (!*d)
            break;
        d[path_dirlen(d)] = '\0';
    }
    free(d);
    return NULL;
}

static size_t
resolve_rust(struct resolver *r, const char *from, const struct lang_import *im,
    struct resolve_result *res)
{
    if (im->kind == LANG_IMPORT_RUST_MOD) {
        char *md = rust_moddir(from);
        const char *hit = rust_child(r, md, im->spec, strlen(im->spec));
        free(md);
        return push(res, from, hit) ? 1 : 0;
    }
    const char *s = im->spec;
    char *dir = NULL;
    if (!strncmp(s, "crate::", 7)) {
        dir = rust_crate_dir(r, from);
        s += 7;
    } else if (!strncmp(s, "self::", 6)) {
        dir = rust_moddir(from);
        s += 6;
    } else if (!strncmp(s, "super::", 7)) {
        dir = rust_moddir(from);
        while (!strncmp(s, "super::", 7)) {
            if (!*dir) {
                free(dir);
                return 0;
            }
            dir[path_dirlen(dir)] = '\0';
            s += 7;
        }
    } else {
        dir = rust_crate_dir(r, from); /* a crate-root module, if any */
    }
    if (!dir)
        return 0;
    const char *best = NULL;
    while (*s) {
        const char *e = strstr(s, "::");
        size_t nl = e ? (size_t)(e - s) : strlen(s);
        const char *hit = rust_child(r, dir, s, nl);
        if (!hit)
            break;
        best = hit;
        char *nd = xasprintf("%s%s%.*s", dir, *dir ? "/" : "", (int)nl, s);
        free(dir);
        dir = nd;
        if (!e)
            break;
        s = e + 2;
    }
    free(dir);
    return push(res, from, best) ? 1 : 0;
}

/* ---- Java ---- */

static size_t
resolve_java(struct resolver *r, const char *from, const struct lang_import *im,
    struct resolve_result *res)
{
    size_t n = strlen(im->spec);
    char *rel = xmalloc(n + 8);
    for (size_t i = 0; i <= n; i++)
        rel[i] = im->spec[i] == '.' ? '/' : im->spec[i];
    size_t got = 0;
    if (im->kind == LANG_IMPORT_JAVA_WILDCARD) {
        /* the package directory closest to from that ends in rel */
        const char *best = NULL;
        size_t best_score = 0;
        for (size_t i = 0; i < r->dirs.map.cap; i++) {
            const struct strmap_slot *sl = &r->dirs.map.slots[i];
            if (!sl->key || sl->len < n)
                continue;
            if (strcmp(sl->key + sl->len - n, rel) ||
                (sl->len > n && sl->key[sl->len - n - 1] != '/'))
                continue;
            size_t score = common_prefix(sl->key, from) + 1;
            if (!best || score > best_score ||
                (score == best_score && strcmp(sl->key, best) < 0)) {
                best = sl->key;
                best_score = score;
            }
        }
        if (best)
            got = dir_files(r, from, best, ".java", NULL, res);
    }
    /* a class, or a member/nested class of one: drop trailing parts */
    for (int drop = 0; !got && drop < 3; drop++) {
        char *file = xasprintf("%s.java", rel);
        got = push(res, from, suffix_match(r, from, file)) ? 1 : 0;
        free(file);
        char *dot = strrchr(rel, '/');
        if (!dot)
            break;
        *dot = '\0';
    }
    free(rel);
    return got;
}

size_t
resolver_resolve(struct resolver *r, const char *from, enum lang_id lang,
    const struct lang_import *im, struct resolve_result *res)
{
    if (!im->spec)
        return 0;
    switch (lang) {
    case LANG_C:
    case LANG_CPP:
        if (im->kind == LANG_IMPORT_INCLUDE_LOCAL ||
            im->kind == LANG_IMPORT_INCLUDE_SYSTEM)
            return resolve_c(r, from, im, res);
        return 0;
    case LANG_JAVASCRIPT:
    case LANG_TYPESCRIPT:
    case LANG_TSX:
        return resolve_js(r, from, im, res);
    case LANG_PYTHON:
        return resolve_py(r, from, im, res);
    case LANG_GO:
        return resolve_go(r, from, im, res);
    case LANG_RUST:
        return resolve_rust(r, from, im, res);
    case LANG_JAVA:
        return resolve_java(r, from, im, res);
    default:
        return 0;
    }
}
