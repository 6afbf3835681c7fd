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
    bool inserted; /* not matched to a reference of the base version */
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

/* A reference as a (line, name id) pair, for aligning two versions. */
struct lref {
    uint32_t line, name;
};

static int
cmp_lref(const void *x, const void *y)
{
    const struct lref *a = x, *b = y;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    return a->name < b->name ? -1 : a->name > b->name;
}

/* Largest middle part aligned exactly (cells of the table below). */
#define ALIGN_MAX_CELLS ((size_t)1 << 22)

/*
 * Which references of the version (facts->refs, by index) are new: the
 * version's and the base file's references, each in line order, are
 * aligned as two sequences of names (common head and tail, then a longest
 * common subsequence of the rest); a reference of the version left
 * unmatched is one its edit wrote. A middle part too large to align
 * exactly counts as inserted whole. Returns a new array of facts->nrefs
 * flags.
 */
static bool *
new_use_lines(
    const struct graph *g, uint32_t gid, const struct lang_facts *facts)
{
    size_t nv = facts->nrefs, nb = 0;
    bool *ins = xcalloc(nv ? nv : 1, sizeof(*ins));
    struct lref *a = xmalloc((nv ? nv : 1) * sizeof(*a)), *b = NULL;
    uint32_t *ia = xmalloc((nv ? nv : 1) * sizeof(*ia));
    for (size_t i = 0; i < nv; i++) {
        const struct lang_ref *r = &facts->refs[i];
        a[i].line = r->line;
        a[i].name = graph_find_name(g, r->name, strlen(r->name));
    }
    /* keep each version ref's index through the sort */
    for (size_t i = 0; i < nv; i++)
        ia[i] = (uint32_t)i;
    for (size_t i = 1; i < nv; i++) /* insertion sort: nearly sorted */
        for (size_t k = i; k > 0 && cmp_lref(&a[k - 1], &a[k]) > 0; k--) {
            struct lref t = a[k];
            a[k] = a[k - 1];
            a[k - 1] = t;
            uint32_t u = ia[k];
            ia[k] = ia[k - 1];
            ia[k - 1] = u;
        }
    if (gid != GRAPH_NONE) {
        const struct graph_file *gf = &g->files[gid];
        nb = gf->nrefs;
        b = xmalloc((nb ? nb : 1) * sizeof(*b));
        for (size_t i = 0; i < nb; i++) {
            b[i].line = gf->refs[i].line;
            b[i].name = gf->refs[i].name;
        }
        qsort(b, nb, sizeof(*b), cmp_lref);
    }
    size_t head = 0, tail = 0;
    while (head < nv && head < nb && a[head].name != GRAPH_NONE &&
           a[head].name == b[head].name)
        head++;
    while (tail < nv - head && tail < nb - head &&
           a[nv - 1 - tail].name != GRAPH_NONE &&
           a[nv - 1 - tail].name == b[nb - 1 - tail].name)
        tail++;
    size_t m = nv - head - tail, n = nb - head - tail;
    if (m && n && (m + 1) * (n + 1) <= ALIGN_MAX_CELLS) {
        /* L[i][j]: LCS of a[head + i ..] and b[head + j ..] */
        uint32_t *L = xcalloc((m + 1) * (n + 1), sizeof(*L));
        for (size_t i = m; i-- > 0;)
            for (size_t j = n; j-- > 0;) {
                uint32_t x = a[head + i].name;
                uint32_t *c = &L[i * (n + 1) + j];
                if (x != GRAPH_NONE && x == b[head + j].name)
                    *c = L[(i + 1) * (n + 1) + j + 1] + 1;
                else
                    *c = L[(i + 1) * (n + 1) + j] > L[i * (n + 1) + j + 1]
                             ? L[(i + 1) * (n + 1) + j]
                             : L[i * (n + 1) + j + 1];
            }
        size_t i = 0, j = 0;
        while (i < m) {
            uint32_t x = a[head + i].name;
            if (j < n && x != GRAPH_NONE && x == b[head + j].name) {
                i++, j++;
            } else if (j < n &&
                       L[(i + 1) * (n + 1) + j] < L[i * (n + 1) + j + 1]) {
                j++;
            } else {
                ins[ia[head + i]] = true;
                i++;
            }
        }
        free(L);
    } else {
        for (size_t i = 0; i < m; i++)
            ins[ia[head + i]] = true;
    }
    free(a);
    free(b);
    free(ia);
    return ins;
}

static void
add_use(struct graph *g, struct ws_file *f, const struct nref *r)
{
    ws_file_add_name(f, false, r->name, strlen(r->name), r->line);
    graph_intern_name(g, r->name, strlen(r->name));
}

int
agentnames_fill(struct graph *g, struct ws_file *f, const char *path,
    const char *src, size_t len, struct as_err *e)
{
    enum lang_id id = lang_detect(path);
    if (id == LANG_NONE)
        return 0;
    struct lang_facts facts;
    lang_facts_init(&facts);
    int rc = lang_extract(id, src, len, &facts, e);
    if (!rc)
        agentnames_fill_facts(g, NULL, f, path, &facts);
    lang_facts_release(&facts);
    /* over the size cap or minified: not parsed, as in the graph */
    return rc == AS_ETOOBIG ? 0 : rc;
}

void
agentnames_fill_facts(struct graph *g, struct resolver *r, struct ws_file *f,
    const char *path, const struct lang_facts *fp)
{
    enum lang_id id = lang_detect(path);
    const struct lang_facts facts = *fp; /* read only */
    uint32_t gid = graph_find_file(g, f->path);
    if (gid != GRAPH_NONE && !g->files[gid].parsed)
        gid = GRAPH_NONE;

    /* Uses: per name, the occurrences beyond the base file's count, at the
     * lines the version inserted them (see new_use_lines). */
    struct nref *v = xmalloc((facts.nrefs ? facts.nrefs : 1) * sizeof(*v));
    bool *ins = new_use_lines(g, gid, &facts);
    for (size_t i = 0; i < facts.nrefs; i++) {
        v[i].name = facts.refs[i].name;
        v[i].line = facts.refs[i].line;
        v[i].inserted = ins[i];
    }
    free(ins);
    qsort(v, facts.nrefs, sizeof(*v), cmp_nref);
    for (size_t i = 0; i < facts.nrefs;) {
        size_t j = i;
        while (j < facts.nrefs && !strcmp(v[j].name, v[i].name))
            j++;
        size_t base = base_uses(g, gid, v[i].name);
        size_t need = j - i > base ? j - i - base : 0;
        /* the inserted occurrences first, in line order; then, should the
         * alignment have found fewer, the last ones */
        for (size_t k = i; k < j && need; k++)
            if (v[k].inserted) {
                add_use(g, f, &v[k]);
                need--;
            }
        for (size_t k = j; k-- > i && need;)
            if (!v[k].inserted) {
                add_use(g, f, &v[k]);
                need--;
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
}
