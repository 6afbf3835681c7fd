#include "core/forward.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"
#include "util/banned.h"

void
forward_table_init(struct forward_table *t)
{
    memset(t, 0, sizeof(*t));
    strmap_init(&t->ids);
    t->median_side = 1;
}

void
forward_table_release(struct forward_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->paths[i]);
    free(t->paths);
    free(t->rate);
    strmap_release(&t->ids);
    forward_table_init(t);
}

/* Per path while counting: sides that changed it, and the last merge
 * and sides that counted it (a side listing a path twice counts once). */
struct fw_count {
    uint32_t sides;
    uint32_t stamp; /* 1 + the merge that last set seen */
    uint8_t seen;
};

struct fw_entry {
    const char *path;
    double rate;
};

static int
cmp_entry(const void *x, const void *y)
{
    const struct fw_entry *a = x, *b = y;
    if (a->rate != b->rate)
        return a->rate > b->rate ? -1 : 1;
    return strcmp(a->path, b->path);
}

static int
cmp_size(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return a < b ? -1 : a > b;
}

struct forward_counts {
    struct fw_count *cnt; /* by id, zero but during a build */
    const char **name;    /* by id, NULL but during a build */
    size_t cap;
    uint32_t *at; /* the ids a build counted, in the order first seen */
    size_t nat, aat;
};

struct forward_counts *
forward_counts_new(void)
{
    return xcalloc(1, sizeof(struct forward_counts));
}

void
forward_counts_free(struct forward_counts *c)
{
    if (!c)
        return;
    free(c->cnt);
    free(c->name);
    free(c->at);
    free(c);
}

/* Room for id in c, the new part zero. */
static void
counts_reserve(struct forward_counts *c, uint32_t id)
{
    if (id < c->cap)
        return;
    size_t cap = c->cap ? c->cap : 256;
    while (cap <= id)
        cap *= 2;
    c->cnt = xrealloc(c->cnt, cap * sizeof(*c->cnt));
    c->name = xrealloc(c->name, cap * sizeof(*c->name));
    memset(c->cnt + c->cap, 0, (cap - c->cap) * sizeof(*c->cnt));
    memset(c->name + c->cap, 0, (cap - c->cap) * sizeof(*c->name));
    c->cap = cap;
}

void
forward_table_build(struct forward_table *t, const struct forward_merge *m,
    size_t n, struct forward_counts *counts)
{
    forward_table_release(t);
    struct strmap all; /* without counts: path -> index into cnt */
    strmap_init(&all);
    struct fw_count *cnt = NULL;
    const char **name = NULL;
    size_t ncnt = 0, acnt = 0, aname = 0;
    if (counts)
        counts->nat = 0;
    size_t *sizes = xcalloc(2 * n + 1, sizeof(*sizes));
    for (size_t k = 0; k < n; k++) {
        uint32_t stamp = (uint32_t)k + 1;
        for (int s = 0; s < 2; s++) {
            const struct forward_side *sd = &m[k].side[s];
            size_t distinct = 0;
            for (size_t i = 0; i < sd->n; i++) {
                const char *p = sd->paths[i];
                uint32_t id;
                if (counts) {
                    id = sd->ids[i];
                    counts_reserve(counts, id);
                    cnt = counts->cnt;
                    name = counts->name;
                    if (!name[id]) {
                        name[id] = p;
                        ALLOC_GROW(counts->at, counts->nat + 1, counts->aat);
                        counts->at[counts->nat++] = id;
                    }
                } else {
                    bool added;
                    id = strmap_put(&all, p, strlen(p), (uint32_t)ncnt, &added);
                    if (added) {
                        ALLOC_GROW(cnt, ncnt + 1, acnt);
                        ALLOC_GROW(name, ncnt + 1, aname);
                        memset(&cnt[ncnt], 0, sizeof(*cnt));
                        name[ncnt++] = p;
                    }
                }
                struct fw_count *c = &cnt[id];
                if (c->stamp != stamp) {
                    c->stamp = stamp;
                    c->seen = 0;
                }
                uint8_t bit = (uint8_t)(1u << s);
                if (!(c->seen & bit)) {
                    c->seen |= bit;
                    c->sides++;
                    distinct++;
                }
            }
            sizes[2 * k + (size_t)s] = distinct;
        }
    }
    size_t nseen = counts ? counts->nat : ncnt;
    struct fw_entry *ent = xcalloc(nseen ? nseen : 1, sizeof(*ent));
    size_t ne = 0;
    for (size_t i = 0; i < nseen; i++) {
        uint32_t id = counts ? counts->at[i] : (uint32_t)i;
        double r = cnt[id].sides / (2.0 * (double)n + 2.0);
        if (r >= FORWARD_KEEP_MIN)
            ent[ne++] = (struct fw_entry){ name[id], r };
    }
    qsort(ent, ne, sizeof(*ent), cmp_entry);
    t->paths = xcalloc(ne ? ne : 1, sizeof(*t->paths));
    t->rate = xcalloc(ne ? ne : 1, sizeof(*t->rate));
    for (size_t i = 0; i < ne; i++) {
        t->paths[i] = xstrdup(ent[i].path);
        t->rate[i] = ent[i].rate;
        strmap_put(
            &t->ids, ent[i].path, strlen(ent[i].path), (uint32_t)i, NULL);
    }
    t->n = ne;
    t->merges = (uint32_t)n;
    if (n) {
        qsort(sizes, 2 * n, sizeof(*sizes), cmp_size);
        t->median_side = (double)sizes[n]; /* the upper median of 2n */
    }
    if (t->median_side < 1)
        t->median_side = 1;
    free(ent);
    free(sizes);
    if (counts) { /* back to zero for the next build */
        for (size_t i = 0; i < counts->nat; i++) {
            memset(&counts->cnt[counts->at[i]], 0, sizeof(*counts->cnt));
            counts->name[counts->at[i]] = NULL;
        }
    } else {
        free(cnt);
        free(name);
    }
    strmap_release(&all);
}

double
forward_rate(const struct forward_table *t, const char *path)
{
    uint32_t id;
    if (!t || !t->n || !strmap_get(&t->ids, path, strlen(path), &id))
        return 0;
    return t->rate[id];
}

/* Whether agent a changed path (its files are sorted by path). */
static bool
changed(const struct agent *a, const char *path)
{
    size_t lo = 0, hi = a->nfiles;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(a->files[mid].path, path);
        if (!c)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

void
forward_reach_init(struct forward_reach *fr, const struct forward_table *t,
    const struct agent *a, double min_rate)
{
    memset(fr, 0, sizeof(*fr));
    if (!t || !t->n)
        return;
    size_t n = 0;
    while (n < t->n && t->rate[n] >= min_rate)
        n++;
    fr->p = xcalloc(n ? n : 1, sizeof(*fr->p));
    fr->had = xcalloc(n ? n : 1, sizeof(*fr->had));
    fr->n = n;
    double ex = (double)a->nfiles / t->median_side;
    for (size_t i = 0; i < n; i++) {
        fr->had[i] = changed(a, t->paths[i]);
        fr->p[i] = fr->had[i] ? 1.0 : 1.0 - pow(1.0 - t->rate[i], ex);
    }
}

void
forward_reach_release(struct forward_reach *fr)
{
    free(fr->p);
    free(fr->had);
    memset(fr, 0, sizeof(*fr));
}

double
forward_reach_meet(const struct forward_reach *a, const struct forward_reach *b)
{
    size_t n = a->n < b->n ? a->n : b->n; /* equal for one table */
    double keep = 1.0;
    for (size_t i = 0; i < n; i++) {
        if (a->had[i] && b->had[i])
            continue; /* shared: overlap's and merge's */
        keep *= 1.0 - a->p[i] * b->p[i];
    }
    return 1.0 - keep;
}

double
forward_meet(const struct forward_table *t, const struct agent *a,
    const struct agent *b, double min_rate)
{
    if (!t || !t->n)
        return 0;
    struct forward_reach ra, rb;
    forward_reach_init(&ra, t, a, min_rate);
    forward_reach_init(&rb, t, b, min_rate);
    double r = forward_reach_meet(&ra, &rb);
    forward_reach_release(&ra);
    forward_reach_release(&rb);
    return r;
}
