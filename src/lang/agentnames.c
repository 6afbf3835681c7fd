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
 * Align the version's references a (nv, in line order; ia their indexes in
 * the facts) with the base file's b (nb, in line order) as two sequences of
 * names: common head and tail, then a longest common subsequence of the
 * rest. A reference of a left unmatched is flagged in ins (by facts index);
 * a middle part too large to align exactly is flagged whole.
 */
static void
align_names(const struct lref *a, const uint32_t *ia, size_t nv,
    const struct lref *b, size_t nb, bool *ins)
{
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
}

/* A change of the base file: the base lines [lo, hi) it replaced (lo ==
 * hi: lines inserted before base line lo), and the fewest lines the version
 * holds in their place (one for each pure insertion). */
struct hunk {
    int64_t lo, hi, minnew;
};

static int
cmp_hunk(const void *x, const void *y)
{
    const struct hunk *a = x, *b = y;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    return a->hi < b->hi ? -1 : a->hi > b->hi;
}

/* The changes of rs (base coordinates, pure insertions marked), in line
 * order, those that touch merged. Returns their number; *out is new. */
static size_t
hunks_of(const struct range_set *rs, struct hunk **out)
{
    struct range_set rep = RANGE_SET_INIT;
    range_set_replaced(&rep, rs);
    size_t n = 0, cap = rep.n + rs->nins;
    struct hunk *h = xmalloc((cap ? cap : 1) * sizeof(*h));
    for (size_t i = 0; i < rep.n; i++)
        h[n++] = (struct hunk){ rep.v[i].start, (int64_t)rep.v[i].end + 1, 0 };
    for (size_t i = 0; i < rs->nins; i++)
        h[n++] = (struct hunk){ (int64_t)rs->ins[i] + 1,
            (int64_t)rs->ins[i] + 1, 1 };
    range_set_release(&rep);
    qsort(h, n, sizeof(*h), cmp_hunk);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && h[i].lo <= h[k - 1].hi) {
            if (h[i].hi > h[k - 1].hi)
                h[k - 1].hi = h[i].hi;
            h[k - 1].minnew += h[i].minnew;
        } else {
            h[k++] = h[i];
        }
    }
    *out = h;
    return k;
}

/* The first of v (n, in line order) at or after line. */
static size_t
first_at(const struct lref *v, size_t n, int64_t line)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((int64_t)v[mid].line < line)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether v (n, sorted by cmp_lref) holds name at line. */
static bool
holds(const struct lref *v, size_t n, int64_t line, uint32_t name)
{
    if (line < 1 || line > UINT32_MAX)
        return false;
    struct lref key = { (uint32_t)line, name };
    return bsearch(&key, v, n, sizeof(*v), cmp_lref) != NULL;
}

static int
cmp_lref_name(const void *x, const void *y)
{
    const struct lref *a = x, *b = y;
    if (a->name != b->name)
        return a->name < b->name ? -1 : 1;
    return a->line < b->line ? -1 : a->line > b->line;
}

/* The first of v (n, sorted by cmp_lref_name) past name at line (after:
 * past name at any line). */
static size_t
first_past(
    const struct lref *v, size_t n, uint32_t name, int64_t line, bool after)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].name < name ||
            (v[mid].name == name && (after || (int64_t)v[mid].line < line)))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Most lookups the offsets of one file may cost before its ranges are
 * given up (a stretch of the same name on every line, matched again and
 * again). */
#define FIT_BUDGET ((size_t)1 << 22)

/* Whether the base lines [lo, hi), holding the references kept (nk), are
 * the version's lines [lo + off, hi + off) unchanged: the same references
 * and no other. */
static bool
segment_fits(const struct lref *a, size_t nv, const struct lref *kept,
    size_t nk, int64_t lo, int64_t hi, int64_t off, size_t *budget)
{
    if (first_at(a, nv, hi + off) - first_at(a, nv, lo + off) != nk)
        return false;
    for (size_t i = 0; i < nk; i++) {
        if (!*budget)
            return false;
        --*budget;
        if (!holds(a, nv, (int64_t)kept[i].line + off, kept[i].name))
            return false;
    }
    return true;
}

/*
 * The offset (version line - base line) of the unchanged base lines [lo,
 * hi), which hold the references kept (nk > 0): want (when given) if
 * segment_fits() there, else the smallest, at least low, at which it does.
 * Each candidate puts the kept reference whose name the version uses least
 * on one of its occurrences. Returns false when none fits.
 */
static bool
segment_offset(const struct lref *a, size_t nv, const struct lref *byname,
    const struct lref *kept, size_t nk, int64_t lo, int64_t hi, int64_t low,
    const int64_t *want, int64_t *off, size_t *budget)
{
    if (want && *want >= low &&
        segment_fits(a, nv, kept, nk, lo, hi, *want, budget)) {
        *off = *want;
        return true;
    }
    size_t pivot = 0, from = 0, to = 0;
    for (size_t i = 0; i < nk; i++) {
        size_t p = first_past(byname, nv, kept[i].name, 0, false);
        size_t q = first_past(byname, nv, kept[i].name, 0, true);
        if (i == 0 || q - p < to - from)
            pivot = i, from = p, to = q;
    }
    /* the occurrences at least low past the pivot, in line order */
    from = first_past(
        byname, nv, kept[pivot].name, (int64_t)kept[pivot].line + low, false);
    for (size_t x = from; x < to; x++) {
        int64_t o = (int64_t)byname[x].line - kept[pivot].line;
        if (segment_fits(a, nv, kept, nk, lo, hi, o, budget)) {
            *off = o;
            return true;
        }
        if (!*budget)
            break;
    }
    return false;
}

#define LINE_INF ((int64_t)1 << 40)

/*
 * Which references of the version are new, from the lines f's diff changed
 * (f->ranges, base coordinates, pure insertions marked): the base lines
 * between two changes are unchanged in the version, shifted by one offset,
 * and so must be the references on them. The offset of each such stretch
 * is found from its references (the base file's there must be exactly the
 * version's at the shifted lines; f's diff stats give the last one's), so
 * each change is located in the version; the references of its version
 * lines are aligned (align_names) with those of its base lines, and the
 * ones left unmatched flagged in ins. A stretch with no reference has no
 * offset to find: the changes around it are taken as one. Returns false,
 * flagging nothing, when the references contradict f's ranges (a diff
 * against other content): no stretch fits.
 */
static bool
align_by_ranges(const struct ws_file *f, const struct lref *a,
    const uint32_t *ia, size_t nv, const struct lref *b, size_t nb, bool *ins)
{
    struct hunk *h;
    size_t k = hunks_of(&f->ranges, &h);
    int64_t *off = xmalloc((k + 1) * sizeof(*off));
    bool *known = xmalloc((k + 1) * sizeof(*known));
    struct lref *byname = xmalloc((nv ? nv : 1) * sizeof(*byname));
    if (nv)
        memcpy(byname, a, nv * sizeof(*a));
    qsort(byname, nv, sizeof(*byname), cmp_lref_name);
    bool ok = true;
    size_t budget = FIT_BUDGET;
    int64_t low = 0; /* the least offset the stretch can have */
    for (size_t j = 0; j <= k && ok; j++) {
        int64_t lo = j ? h[j - 1].hi : 1, hi = j < k ? h[j].lo : LINE_INF;
        if (j)
            low = (known[j - 1] ? off[j - 1] : low) -
                  (h[j - 1].hi - h[j - 1].lo) + h[j - 1].minnew;
        size_t p = first_at(b, nb, lo), q = first_at(b, nb, hi);
        off[j] = 0;
        known[j] = true;
        if (j == 0) {
            ok = segment_fits(a, nv, b + p, q - p, lo, hi, 0, &budget);
        } else if (p == q) {
            known[j] = false;
        } else {
            /* the last stretch: shifted by what the diff added in all */
            int64_t net = (int64_t)f->added_lines - f->deleted_lines;
            bool stats = j == k && (f->added_lines || f->deleted_lines);
            ok = segment_offset(a, nv, byname, b + p, q - p, lo, hi, low,
                stats ? &net : NULL, &off[j], &budget);
        }
    }
    for (size_t i = 0; ok && i < k;) {
        size_t m = i; /* changes i..m, the stretches between unknown */
        while (m + 1 < k && !known[m + 1])
            m++;
        int64_t blo = h[i].lo, bhi = h[m].hi;
        int64_t vlo = blo + off[i];
        int64_t vhi = known[m + 1] ? bhi + off[m + 1] : LINE_INF;
        size_t bp = first_at(b, nb, blo), bq = first_at(b, nb, bhi);
        size_t ap = first_at(a, nv, vlo), aq = first_at(a, nv, vhi);
        align_names(a + ap, ia + ap, aq - ap, b + bp, bq - bp, ins);
        i = m + 1;
    }
    free(h);
    free(off);
    free(known);
    free(byname);
    return ok;
}

/*
 * Which references of the version (facts->refs, by index) are new: those
 * of the lines f's diff wrote that the base lines it replaced do not
 * account for (align_by_ranges); without line ranges (a whole-file change)
 * or when they do not fit the content, the version's and the base file's
 * references are aligned whole (align_names). Returns a new array of
 * facts->nrefs flags.
 */
static bool *
new_use_lines(const struct graph *g, uint32_t gid, const struct ws_file *f,
    const struct lang_facts *facts)
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
    bool ranged = gid != GRAPH_NONE && f->status == WS_MODIFIED && !f->whole;
    if (!ranged || !align_by_ranges(f, a, ia, nv, b, nb, ins))
        align_names(a, ia, nv, b, nb, ins);
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
    bool *ins = new_use_lines(g, gid, f, &facts);
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
