#include "lang/agentnames.h"

#include <stdlib.h>
#include <string.h>

#include "lang/lang.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* A reference of the agent's version, for grouping by name. */
struct nref {
    const char *name;
    uint32_t line;
};

static int
cmp_nref(const void *x, const void *y)
{
    const struct nref *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    return a->line < b->line ? -1 : a->line > b->line;
}

/* How many references to name the base file holds. */
static size_t
base_uses(const struct graph *g, uint32_t gid, const char *name)
{
    if (gid == GRAPH_NONE)
        return 0;
    uint32_t id = graph_find_name(g, name, strlen(name));
    if (id == GRAPH_NONE)
        return 0;
    const struct graph_file *gf = &g->files[gid];
    size_t n = 0;
    for (uint32_t i = 0; i < gf->nrefs; i++)
        n += gf->refs[i].name == id;
    return n;
}

static bool
base_defines(const struct graph *g, uint32_t gid, const char *name)
{
    if (gid == GRAPH_NONE)
        return false;
    uint32_t id = graph_find_name(g, name, strlen(name));
    if (id == GRAPH_NONE)
        return false;
    const struct graph_file *gf = &g->files[gid];
    for (uint32_t i = 0; i < gf->ndefs; i++)
        if (gf->defs[i].name == id)
            return true;
    return false;
}

/* Whether base file gid imports target directly. */
static bool
base_imports(const struct graph *g, uint32_t gid, uint32_t target)
{
    if (gid == GRAPH_NONE || target == GRAPH_NONE)
        return false;
    const struct graph_file *gf = &g->files[gid];
    for (uint32_t i = 0; i < gf->nout; i++)
        if (gf->out[i] == target)
            return true;
    return false;
}

/* Resolve the imports of the agent's version and record those the base
 * file's edges lack. */
static void
add_imports(const struct graph *g, struct resolver *r, struct ws_file *f,
    const char *path, enum lang_id id, const struct lang_facts *facts)
{
    uint32_t self = graph_find_file(g, f->path);
    struct resolve_result res = { 0 };
    for (size_t i = 0; i < facts->nimports; i++) {
        if (facts->imports[i].type_only)
            continue;
        resolve_result_clear(&res);
        resolver_resolve(r, path, id, &facts->imports[i], &res);
        for (size_t k = 0; k < res.n; k++) {
            const char *t = res.v[k];
            if (!strcmp(t, f->path) || !strcmp(t, path))
                continue;
            if (base_imports(g, self, graph_find_file(g, t)))
                continue;
            ws_file_add_import(f, t);
        }
    }
    resolve_result_release(&res);
}

int
agentnames_fill(struct graph *g, struct ws_file *f, const char *path,
    const char *src, size_t len, struct as_err *e)
{
    return agentnames_fill_view(g, NULL, f, path, src, len, e);
}

int
agentnames_fill_view(struct graph *g, struct resolver *r, struct ws_file *f,
    const char *path, const char *src, size_t len, struct as_err *e)
{
    enum lang_id id = lang_detect(path);
    if (id == LANG_NONE)
        return 0;
    struct lang_facts facts;
    lang_facts_init(&facts);
    int rc = lang_extract(id, src, len, &facts, e);
    if (rc) {
        lang_facts_release(&facts);
        return rc;
    }
    uint32_t gid = graph_find_file(g, f->path);
    if (gid != GRAPH_NONE && !g->files[gid].parsed)
        gid = GRAPH_NONE;

    /* Uses: per name, the occurrences beyond the base file's count. Which
     * occurrence is the new one is not known without a line mapping; the
     * later ones are reported, as code is more often added than moved. */
    struct nref *v = xmalloc((facts.nrefs ? facts.nrefs : 1) * sizeof(*v));
    for (size_t i = 0; i < facts.nrefs; i++) {
        v[i].name = facts.refs[i].name;
        v[i].line = facts.refs[i].line;
    }
    qsort(v, facts.nrefs, sizeof(*v), cmp_nref);
    for (size_t i = 0; i < facts.nrefs;) {
        size_t j = i;
        while (j < facts.nrefs && !strcmp(v[j].name, v[i].name))
            j++;
        size_t base = base_uses(g, gid, v[i].name);
        for (size_t k = i + base; k < j; k++) {
            ws_file_add_name(f, false, v[k].name, strlen(v[k].name), v[k].line);
            graph_intern_name(g, v[k].name, strlen(v[k].name));
        }
        i = j;
    }
    free(v);

    /* Definitions the base file does not have. */
    for (size_t i = 0; i < facts.ndefs; i++) {
        const struct lang_def *d = &facts.defs[i];
        if (base_defines(g, gid, d->name))
            continue;
        ws_file_add_name(f, true, d->name, strlen(d->name), d->start);
        graph_intern_name(g, d->name, strlen(d->name));
    }
    if (r)
        add_imports(g, r, f, path, id, &facts);
    f->parsed = true;
    lang_facts_release(&facts);
    return 0;
}
