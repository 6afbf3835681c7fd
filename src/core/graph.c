#include "core/graph.h"

#include <stdlib.h>
#include <string.h>

#include "util/path.h"
#include "util/sort.h"
#include "util/xalloc.h"
#include "util/banned.h"

void
graph_init(struct graph *g)
{
    memset(g, 0, sizeof(*g));
    strmap_init(&g->paths);
    strmap_init(&g->names);
}

void
graph_release(struct graph *g)
{
    for (uint32_t i = 0; i < g->nfiles; i++) {
        struct graph_file *f = &g->files[i];
        if (f->borrowed)
            continue;
        free(f->out);
        free(f->in);
        free(f->defs);
        free(f->refs);
        free(f->names);
    }
    free(g->files);
    free(g->name_str);
    strmap_release(&g->paths);
    strmap_release(&g->names);
    if (g->backing_free)
        g->backing_free(g->backing);
    memset(g, 0, sizeof(*g));
}

/* The id of a name the snapshot the graph came from knows, or GRAPH_NONE. */
static uint32_t
find_indexed(const struct graph *g, const char *name, size_t len)
{
    if (!g->index_cap)
        return GRAPH_NONE;
    size_t mask = g->index_cap - 1;
    size_t i = strmap_hash(name, len) & mask;
    for (size_t probes = 0; probes < g->index_cap;
         probes++, i = (i + 1) & mask) {
        uint32_t id = g->name_index[i];
        if (id >= g->nindexed)
            return GRAPH_NONE;
        if (g->name_len[id] == len && !memcmp(g->name_str[id], name, len))
            return id;
    }
    return GRAPH_NONE;
}

static uint32_t *
dup_u32(const uint32_t *v, size_t n)
{
    uint32_t *c = xmalloc((n ? n : 1) * sizeof(*c));
    if (n)
        memcpy(c, v, n * sizeof(*c));
    return c;
}

/* Give f arrays of its own before anything changes them. */
static void
own_file(struct graph_file *f)
{
    if (!f->borrowed)
        return;
    f->out = dup_u32(f->out, f->nout);
    f->aout = f->nout ? f->nout : 1;
    f->in = dup_u32(f->in, f->nin);
    f->ain = f->nin ? f->nin : 1;
    struct graph_def *d = xmalloc((f->ndefs ? f->ndefs : 1) * sizeof(*d));
    if (f->ndefs)
        memcpy(d, f->defs, f->ndefs * sizeof(*d));
    f->defs = d;
    struct graph_ref *r = xmalloc((f->nrefs ? f->nrefs : 1) * sizeof(*r));
    if (f->nrefs)
        memcpy(r, f->refs, f->nrefs * sizeof(*r));
    f->refs = r;
    f->names = dup_u32(f->names, f->nnames);
    f->borrowed = false;
}

uint32_t
graph_intern_file(struct graph *g, const char *path)
{
    size_t len = strlen(path);
    bool added;
    uint32_t id = strmap_put(&g->paths, path, len, g->nfiles, &added);
    if (!added)
        return id;
    ALLOC_GROW(g->files, (size_t)g->nfiles + 1, g->afiles);
    struct graph_file *f = &g->files[g->nfiles++];
    memset(f, 0, sizeof(*f));
    f->path = strmap_key(&g->paths, path, len);
    size_t d = path_depth(path);
    f->depth = d > UINT16_MAX ? UINT16_MAX : (uint16_t)d;
    return id;
}

uint32_t
graph_find_file(const struct graph *g, const char *path)
{
    uint32_t id;
    return strmap_get(&g->paths, path, strlen(path), &id) ? id : GRAPH_NONE;
}

uint32_t
graph_intern_name(struct graph *g, const char *name, size_t len)
{
    uint32_t known = find_indexed(g, name, len);
    if (known != GRAPH_NONE)
        return known;
    bool added;
    uint32_t id = strmap_put(&g->names, name, len, (uint32_t)g->nnames, &added);
    if (!added)
        return id;
    ALLOC_GROW(g->name_str, g->nnames + 1, g->anames);
    g->name_str[g->nnames++] = strmap_key(&g->names, name, len);
    return id;
}

uint32_t
graph_find_name(const struct graph *g, const char *name, size_t len)
{
    uint32_t id = find_indexed(g, name, len);
    if (id != GRAPH_NONE)
        return id;
    return strmap_get(&g->names, name, len, &id) ? id : GRAPH_NONE;
}

/* Sorted-array set helpers for the edge lists. */
static void
u32_insert(uint32_t **v, uint32_t *n, uint32_t *alloc, uint32_t x)
{
    uint32_t lo = 0, hi = *n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((*v)[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < *n && (*v)[lo] == x)
        return;
    size_t a = *alloc;
    ALLOC_GROW(*v, (size_t)*n + 1, a);
    *alloc = (uint32_t)a;
    memmove(*v + lo + 1, *v + lo, (*n - lo) * sizeof(**v));
    (*v)[lo] = x;
    (*n)++;
}

static void
u32_remove(uint32_t *v, uint32_t *n, uint32_t x)
{
    uint32_t lo = 0, hi = *n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < *n && v[lo] == x) {
        memmove(v + lo, v + lo + 1, (*n - lo - 1) * sizeof(*v));
        (*n)--;
    }
}

void
graph_set_imports(
    struct graph *g, uint32_t file, const uint32_t *targets, size_t n)
{
    struct graph_file *f = &g->files[file];
    own_file(f);
    for (uint32_t i = 0; i < f->nout; i++) {
        struct graph_file *t = &g->files[f->out[i]];
        own_file(t);
        u32_remove(t->in, &t->nin, file);
    }
    uint32_t *v = xmalloc((n ? n : 1) * sizeof(*v));
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (targets[i] != file && targets[i] < g->nfiles)
            v[m++] = targets[i];
    size_t k = sort_uniq_u32(v, m);
    free(f->out);
    f->out = v;
    f->nout = (uint32_t)k;
    f->aout = (uint32_t)(n ? n : 1);
    for (size_t i = 0; i < k; i++) {
        struct graph_file *t = &g->files[v[i]];
        own_file(t);
        u32_insert(&t->in, &t->nin, &t->ain, file);
    }
}

static int
cmp_def(const void *a, const void *b)
{
    const struct graph_def *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

static int
cmp_ref(const void *a, const void *b)
{
    const struct graph_ref *x = a, *y = b;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

/* References need only be in line order; the extractor's order within a
 * line (by name text) is kept when the lines are already in order. */
static int
cmp_ref_line(const void *a, const void *b)
{
    const struct graph_ref *x = a, *y = b;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* Whether v (n elements of size sz) is already in cmp order: the cache and
 * the extractor hand facts over sorted, and qsort is not free on them. */
static bool
is_sorted(
    const void *v, size_t n, size_t sz, int (*cmp)(const void *, const void *))
{
    const char *p = v;
    for (size_t i = 1; i < n; i++)
        if (cmp(p + (i - 1) * sz, p + i * sz) > 0)
            return false;
    return true;
}

void
graph_set_symbols(struct graph *g, uint32_t file, const struct graph_def *defs,
    size_t ndefs, const struct graph_ref *refs, size_t nrefs)
{
    struct graph_file *f = &g->files[file];
    own_file(f);
    free(f->defs);
    free(f->refs);
    f->defs = xmalloc((ndefs ? ndefs : 1) * sizeof(*defs));
    if (ndefs)
        memcpy(f->defs, defs, ndefs * sizeof(*defs));
    if (!is_sorted(f->defs, ndefs, sizeof(*defs), cmp_def))
        qsort(f->defs, ndefs, sizeof(*defs), cmp_def);
    f->ndefs = (uint32_t)ndefs;
    f->refs = xmalloc((nrefs ? nrefs : 1) * sizeof(*refs));
    if (nrefs)
        memcpy(f->refs, refs, nrefs * sizeof(*refs));
    if (!is_sorted(f->refs, nrefs, sizeof(*refs), cmp_ref_line))
        qsort(f->refs, nrefs, sizeof(*refs), cmp_ref);
    f->nrefs = (uint32_t)nrefs;
    free(f->names);
    f->names = xmalloc((nrefs ? nrefs : 1) * sizeof(*f->names));
    for (size_t i = 0; i < nrefs; i++)
        f->names[i] = refs[i].name;
    f->nnames = (uint32_t)sort_uniq_u32(f->names, nrefs);
    f->parsed = true;
}

size_t
graph_edge_count(const struct graph *g)
{
    size_t n = 0;
    for (uint32_t i = 0; i < g->nfiles; i++)
        n += g->files[i].nout;
    return n;
}

int
graph_distance(const struct graph *g, uint32_t from, uint32_t to, unsigned cap)
{
    if (from >= g->nfiles || to >= g->nfiles)
        return -1;
    if (from == to)
        return 0;
    /* Breadth-first over imports, bounded by cap; small frontier arrays
     * and a visited bitmap sized to the graph. */
    uint8_t *seen = xcalloc((g->nfiles + 7) / 8, 1);
    uint32_t *cur = xmalloc(sizeof(*cur)), *next = NULL;
    size_t ncur = 1, nnext = 0, anext = 0, acur = 1;
    cur[0] = from;
    seen[from / 8] |= (uint8_t)(1u << (from % 8));
    int found = -1;
    for (unsigned d = 1; d <= cap && ncur && found < 0; d++) {
        nnext = 0;
        for (size_t i = 0; i < ncur && found < 0; i++) {
            const struct graph_file *f = &g->files[cur[i]];
            for (uint32_t j = 0; j < f->nout; j++) {
                uint32_t x = f->out[j];
                if (x == to) {
                    found = (int)d;
                    break;
                }
                if (seen[x / 8] & (1u << (x % 8)))
                    continue;
                seen[x / 8] |= (uint8_t)(1u << (x % 8));
                ALLOC_GROW(next, nnext + 1, anext);
                next[nnext++] = x;
            }
        }
        uint32_t *t = cur;
        size_t ta = acur;
        cur = next;
        acur = anext;
        ncur = nnext;
        next = t;
        anext = ta;
    }
    free(seen);
    free(cur);
    free(next);
    return found;
}

size_t
graph_reach_importers(
    const struct graph *g, uint32_t file, unsigned cap, uint8_t *dist)
{
    memset(dist, 0xff, g->nfiles);
    if (file >= g->nfiles)
        return 0;
    dist[file] = 0;
    uint32_t *queue = xmalloc(sizeof(*queue));
    size_t head = 0, tail = 0, alloc = 1;
    queue[tail++] = file;
    size_t reached = 0;
    while (head < tail) {
        uint32_t x = queue[head++];
        if (dist[x] >= cap)
            continue;
        const struct graph_file *f = &g->files[x];
        for (uint32_t j = 0; j < f->nin; j++) {
            uint32_t y = f->in[j];
            if (dist[y] != 0xff)
                continue;
            dist[y] = (uint8_t)(dist[x] + 1);
            reached++;
            ALLOC_GROW(queue, tail + 1, alloc);
            queue[tail++] = y;
        }
    }
    free(queue);
    return reached;
}
