/*
 * risk.c - the risk engine: configuration, per-agent set-up over the
 * graph (reach, symbols, own view), the channels of a pair and their
 * combination (docs/risk-model.md).
 *
 * Longer than 1,000 lines on purpose: the channels read the set-up's
 * private per-agent tables and its cache across engines; a split would
 * put those tables in a header every caller could reach.
 */
#include "core/risk.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/glob.h"
#include "util/path.h"
#include "util/strmap.h"
#include "util/sort.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char *const channel_names[RISK_NCHANNELS] = {
    [RISK_OVERLAP] = "overlap",
    [RISK_MERGE] = "merge",
    [RISK_DEPENDENCY] = "dependency",
    [RISK_SYMBOL] = "symbol",
    [RISK_INTENT] = "intent",
    [RISK_CONTEXT] = "context",
    [RISK_TOPIC] = "topic",
    [RISK_TREE] = "tree",
    [RISK_FORWARD] = "forward",
    [RISK_ACTIVITY] = "activity",
};

const char *
risk_channel_name(enum risk_channel c)
{
    return (unsigned)c < RISK_NCHANNELS ? channel_names[c] : "unknown";
}

int
risk_channel_parse(const char *name, enum risk_channel *out)
{
    for (int i = 0; i < RISK_NCHANNELS; i++)
        if (!strcmp(name, channel_names[i])) {
            *out = (enum risk_channel)i;
            return 0;
        }
    return AS_EINVAL;
}

/* ---- configuration ---- */

void
risk_config_default(struct risk_config *c)
{
    memset(c, 0, sizeof(*c));
    c->weight[RISK_OVERLAP] = 1.0;
    c->weight[RISK_MERGE] = 1.0;
    c->weight[RISK_DEPENDENCY] = 0.9;
    c->weight[RISK_SYMBOL] = 0.6;
    c->weight[RISK_INTENT] = 0.8;
    c->weight[RISK_CONTEXT] = 0.5;
    c->weight[RISK_TOPIC] = 0.4;
    c->weight[RISK_TREE] = 0;
    c->weight[RISK_FORWARD] = 0;
    c->weight[RISK_ACTIVITY] = 0.3;
    c->forward_min_rate = 0.1;
    c->activity_k = 50;
    c->overlap_merged = 0.4;
    c->margin = 1;
    c->gamma = 0.5;
    c->cap = 6;
    c->sigma0 = 0.3;
    c->symbol_enclosing = 0.6;
    c->use_symbols = true;
    c->recency_floor = 0.15;
    c->half_life_ms = 30 * 60 * 1000;
    c->tau_ta = 0.35;
    c->tau_ra = 0.70;
    c->leave_ta = 0.30;
    c->leave_ra = 0.60;
    c->dwell_ms = 30000;
    c->tau_min_ms = 120000;
    c->early_min = 0.2;
    c->closure_window = 5;
}

void
risk_config_ecc(struct risk_config *c)
{
    risk_config_default(c);
    c->margin = 0;
    c->use_symbols = false;
    c->recency_floor = 1.0;
    c->weight[RISK_MERGE] = 0;
    c->weight[RISK_SYMBOL] = 0;
    c->weight[RISK_INTENT] = 0;
    c->weight[RISK_CONTEXT] = 0;
    c->weight[RISK_TOPIC] = 0;
    c->weight[RISK_TREE] = 0.25;
    c->weight[RISK_FORWARD] = 0;
    c->weight[RISK_ACTIVITY] = 0;
}

enum key_type { KEY_UNIT, KEY_POSUNIT, KEY_POSNUM, KEY_UINT, KEY_MS, KEY_BOOL };

struct config_key {
    const char *name;
    enum key_type type;
    size_t off;
    double lo, hi; /* inclusive bounds for numbers */
};

#define OFF(field) offsetof(struct risk_config, field)
#define WKEY(ch, idx)                                                          \
    {                                                                          \
        "weight." ch, KEY_UNIT, OFF(weight) + (idx) * sizeof(double), 0, 1     \
    }

static const struct config_key config_keys[] = {
    WKEY("overlap", RISK_OVERLAP),
    WKEY("merge", RISK_MERGE),
    WKEY("dependency", RISK_DEPENDENCY),
    WKEY("symbol", RISK_SYMBOL),
    WKEY("intent", RISK_INTENT),
    WKEY("context", RISK_CONTEXT),
    WKEY("topic", RISK_TOPIC),
    WKEY("tree", RISK_TREE),
    WKEY("forward", RISK_FORWARD),
    WKEY("activity", RISK_ACTIVITY),
    { "margin", KEY_UINT, OFF(margin), 0, 1000000 },
    { "gamma", KEY_POSUNIT, OFF(gamma), 0, 1 },
    { "cap", KEY_UINT, OFF(cap), 1, 32 },
    { "sigma0", KEY_POSUNIT, OFF(sigma0), 0, 1 },
    { "symbol.enclosing", KEY_UNIT, OFF(symbol_enclosing), 0, 1 },
    { "symbols", KEY_BOOL, OFF(use_symbols), 0, 1 },
    { "recency.floor", KEY_UNIT, OFF(recency_floor), 0, 1 },
    { "recency.half_life_ms", KEY_MS, OFF(half_life_ms), 1, 1e15 },
    { "tau.traffic", KEY_UNIT, OFF(tau_ta), 0, 1 },
    { "tau.resolution", KEY_UNIT, OFF(tau_ra), 0, 1 },
    { "leave.traffic", KEY_UNIT, OFF(leave_ta), 0, 1 },
    { "leave.resolution", KEY_UNIT, OFF(leave_ra), 0, 1 },
    { "dwell_ms", KEY_MS, OFF(dwell_ms), 0, 1e15 },
    { "tau_min_ms", KEY_MS, OFF(tau_min_ms), 0, 1e15 },
    { "early_min", KEY_UNIT, OFF(early_min), 0, 1 },
    { "closure.window", KEY_UINT, OFF(closure_window), 2,
        RISK_CLOSURE_WINDOW_MAX },
    { "forward.min_rate", KEY_UNIT, OFF(forward_min_rate), 0, 1 },
    { "overlap.merged", KEY_UNIT, OFF(overlap_merged), 0, 1 },
    { "activity.k", KEY_POSNUM, OFF(activity_k), 0, 1e12 },
};

int
risk_config_set(
    struct risk_config *c, const char *key, const char *value, struct as_err *e)
{
    const struct config_key *k = NULL;
    for (size_t i = 0; i < sizeof(config_keys) / sizeof(config_keys[0]); i++)
        if (!strcmp(config_keys[i].name, key))
            k = &config_keys[i];
    if (!k)
        return as_errorf(e, AS_EINVAL, "unknown model key '%s'", key);
    char *p = (char *)c + k->off;
    if (k->type == KEY_BOOL) {
        bool v;
        if (!strcmp(value, "true") || !strcmp(value, "1") ||
            !strcmp(value, "on"))
            v = true;
        else if (!strcmp(value, "false") || !strcmp(value, "0") ||
                 !strcmp(value, "off"))
            v = false;
        else
            return as_errorf(e, AS_EINVAL,
                "bad value '%s' for '%s': want true or false", value, key);
        memcpy(p, &v, sizeof(v));
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    if (!*value || *end || errno || !isfinite(v))
        return as_errorf(
            e, AS_EINVAL, "bad value '%s' for '%s': not a number", value, key);
    bool ok = v >= k->lo && v <= k->hi;
    if (k->type == KEY_POSUNIT)
        ok = v > 0 && v <= 1;
    if (k->type == KEY_POSNUM)
        ok = v > 0 && v <= k->hi;
    if ((k->type == KEY_UINT || k->type == KEY_MS) && v != floor(v))
        ok = false;
    if (!ok) {
        if (k->type == KEY_POSUNIT)
            return as_errorf(e, AS_EINVAL,
                "bad value '%s' for '%s': want a number in (0, 1]", value, key);
        if (k->type == KEY_POSNUM)
            return as_errorf(e, AS_EINVAL,
                "bad value '%s' for '%s': want a number in (0, %g]", value, key,
                k->hi);
        return as_errorf(e, AS_EINVAL,
            "bad value '%s' for '%s': want %s in [%g, %g]", value, key,
            k->type == KEY_UINT || k->type == KEY_MS ? "an integer"
                                                     : "a number",
            k->lo, k->hi);
    }
    if (k->type == KEY_UINT) {
        unsigned u = (unsigned)v;
        if (k->off == OFF(margin)) {
            uint32_t m = (uint32_t)v;
            memcpy(p, &m, sizeof(m));
        } else {
            memcpy(p, &u, sizeof(u));
        }
    } else if (k->type == KEY_MS) {
        int64_t ms = (int64_t)v;
        memcpy(p, &ms, sizeof(ms));
    } else {
        memcpy(p, &v, sizeof(v));
    }
    return 0;
}

/* The orderings risk_config_check() holds, in the order it checks them:
 * the value of `lo` may not be above that of `hi`. */
static const struct {
    const char *lo, *hi;
    size_t lo_off, hi_off;
} risk_order[] = {
    { "leave.traffic", "tau.traffic", OFF(leave_ta), OFF(tau_ta) },
    { "leave.resolution", "tau.resolution", OFF(leave_ra), OFF(tau_ra) },
    { "tau.traffic", "tau.resolution", OFF(tau_ta), OFF(tau_ra) },
    { "leave.traffic", "leave.resolution", OFF(leave_ta), OFF(leave_ra) },
};

static double
risk_field(const struct risk_config *c, size_t off)
{
    double v;
    memcpy(&v, (const char *)c + off, sizeof(v));
    return v;
}

bool
risk_config_misorder(const struct risk_config *c, const char **above,
    double *above_value, const char **below, double *below_value)
{
    for (size_t i = 0; i < sizeof(risk_order) / sizeof(risk_order[0]); i++) {
        double lo = risk_field(c, risk_order[i].lo_off);
        double hi = risk_field(c, risk_order[i].hi_off);
        if (lo > hi) {
            *above = risk_order[i].lo;
            *above_value = lo;
            *below = risk_order[i].hi;
            *below_value = hi;
            return true;
        }
    }
    return false;
}

int
risk_config_check(const struct risk_config *c, struct as_err *e)
{
    const char *above, *below;
    double va, vb;
    if (risk_config_misorder(c, &above, &va, &below, &vb))
        return as_errorf(
            e, AS_EINVAL, "'%s' (%g) is above '%s' (%g)", above, va, below, vb);
    return 0;
}

double
risk_recency_weight(const struct risk_config *c, int64_t age_ms)
{
    if (age_ms < 0)
        age_ms = 0;
    double half = c->half_life_ms > 0 ? (double)c->half_life_ms : 1.0;
    return c->recency_floor +
           (1.0 - c->recency_floor) * exp2(-(double)age_ms / half);
}

double
risk_combine(const struct risk_config *c, const double r[RISK_NCHANNELS])
{
    double keep = 1.0;
    for (int i = 0; i < RISK_NCHANNELS; i++)
        keep *= 1.0 - c->weight[i] * r[i];
    return 1.0 - keep;
}

size_t
risk_why(const struct risk_config *c, const double r[RISK_NCHANNELS],
    enum risk_channel out[RISK_NCHANNELS])
{
    size_t n = 0;
    for (int k = 0; k < RISK_NCHANNELS; k++) {
        double v = c->weight[k] * r[k];
        if (!(v > 0))
            continue;
        size_t j = n++; /* insertion: a few channels, stable for ties */
        while (j > 0 && c->weight[out[j - 1]] * r[out[j - 1]] < v) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = (enum risk_channel)k;
    }
    return n;
}

/* Normalise for comparison; a path that escapes is kept as written. */
static char *
norm_copy(const char *p)
{
    char *out;
    if (path_normalize(p, NULL, &out) < 0)
        return xstrdup(p);
    return out;
}

double
risk_tree_distance(const char *a, const char *b)
{
    char *na = norm_copy(a), *nb = norm_copy(b);
    size_t da = path_depth(na), db = path_depth(nb), l = 0;
    const char *x = na, *y = nb;
    while (*x && *y) {
        size_t lx = strcspn(x, "/"), ly = strcspn(y, "/");
        if (lx != ly || memcmp(x, y, lx))
            break;
        l++;
        x += lx;
        y += ly;
        if (*x)
            x++;
        if (*y)
            y++;
    }
    free(na);
    free(nb);
    if (!da && !db)
        return 0.0;
    return (double)((da - l) + (db - l)) / (double)(da + db);
}

/* ---- engine ---- */

struct efile {
    const struct ws_file *ws;
    uint32_t pid; /* engine path id */
    uint32_t gid; /* graph id or GRAPH_NONE */
    uint32_t u;   /* index among the files of all working sets, or NONE */
    bool whole;
    struct range_set widened;
    uint64_t wsize;
    double w;
    /* importers of this file within cap that some working set holds:
     * sorted by x */
    struct reach *reach;
    uint32_t nreach;
    uint32_t *chg; /* sorted names of changed definitions */
    uint32_t nchg;
    /* The agent's own view (docs/risk-model.md): the nodes its version
     * imports beyond the base edges (a graph id, or nfiles + k for its file
     * k outside the graph), sorted; the names its version newly uses,
     * sorted; and, for an agent with a view, the working-set files this
     * file reaches over imports in that view, sorted by x. */
    uint32_t *imp;
    uint32_t nimp;
    uint32_t *uses;
    uint32_t nuses;
    struct fwd *fwd;
    uint32_t nfwd;
};

struct fwd {
    uint32_t x;
    uint8_t dist;
};

/* The strongest coupling of one upstream agent's work to a downstream
 * agent's files, over the downstream agent's view. */
struct vdep {
    uint32_t agent;    /* upstream agent */
    uint32_t up, down; /* upstream agent's file, downstream agent's file */
    uint8_t sure;
    double value; /* w_down * w_up * gamma^(d-1) * sigma */
};

/* An agent file by graph id. */
struct gfile {
    uint32_t gid, file;
};

/* An edge y -> x on a shortest path of a breadth-first walk. */
struct dag_edge {
    uint32_t x, y;
};

/* A working-set file held by an agent. */
struct holder {
    uint32_t agent, file;
};

struct reach {
    uint32_t x;
    uint8_t dist;
    uint8_t sure; /* sigma = 1 for x */
};

struct sdef {
    uint32_t name, file; /* file: agent file index */
};

struct sref {
    uint32_t name, file, line;
    uint8_t direct; /* 1: on a changed line; 0: inside a changed def */
};

struct prefix {
    uint32_t id;
    uint16_t k, mind;
    uint32_t file; /* agent file index reaching mind */
};

struct eagent {
    const struct agent *ag;
    struct efile *files; /* sorted by pid */
    size_t nfiles;
    double *m; /* per working-set file u: coupling to this agent's work */
    struct sdef *defs; /* sorted by name, file; one per (name, file) */
    size_t ndefs;
    struct sref *refs; /* sorted by name, file; one per (name, file) */
    size_t nrefs;
    struct prefix *prefixes; /* sorted by id */
    size_t nprefixes;
    struct glob **globs;
    size_t nglobs;
    /* Its version imports or uses what the base graph does not show: the
     * dependency and symbol channels read its files through its own view. */
    bool view;
    struct gfile *byg; /* its files in the graph, sorted by gid */
    size_t nbyg;
    struct vdep *vdep; /* with a view: per upstream agent, sorted */
    size_t nvdep;
};

/* Working memory of one thread preparing agents (or explaining a pair). */
struct scratch {
    /* BFS over graph files */
    uint32_t *stamp, cur_stamp;
    uint8_t *dist, *sure;
    uint32_t *queue;
    /* per name id: the stamp of the agent file that last used it, and the
     * index of that use in the agent's refs (one use per name and file) */
    uint32_t *name_stamp, *name_ref, cur_name_stamp;
    /* view walks: a second stamp, the shortest-path edges, and per
     * upstream agent the best coupling found so far */
    uint32_t *mark, cur_mark;
    struct dag_edge *dag;
    size_t ndag, adag;
    struct vdep *best;
    uint32_t *best_stamp, cur_best;
};

struct risk_engine {
    const struct risk_config *cfg;
    const struct graph *g;
    struct eagent *agents;
    size_t n;
    struct strmap paths, prefixes;
    uint32_t npaths, nprefix_ids;
    struct scratch sc; /* for the set-up's first worker and for explain */
    /* graph id -> index among the files of all working sets (the only
     * files a pair ever looks up), or GRAPH_NONE */
    uint32_t *uidx;
    uint32_t nu;
    /* nodes of a view walk: the graph's files, then one agent's files */
    size_t nnodes;
    /* per working-set file u, the agents holding it: hold[hold_at[u] ..
     * hold_at[u + 1]) */
    uint32_t *hold_at;
    struct holder *hold;
    struct risk_prep_cache *pc; /* NULL: every file prepared afresh */
};

/* ---- what the set-up found for one file, kept across engines ---- */

/* A file's changed definitions and uses (collect_symbols), or its
 * importers within cap before the engine's filter (reach_file), under the
 * inputs that decide them. */
struct pc_slot {
    uint64_t h; /* 0: empty */
    uint32_t *key;
    size_t klen;
    uint32_t *defs, *chg; /* symbols: def names in order; sorted chg */
    uint32_t ndefs, nchg;
    struct sref *refs; /* symbols: this file's uses, file unset */
    uint32_t nrefs;
    struct reach *reach; /* reach: every importer, sorted by x */
    uint32_t nreach;
};

struct risk_prep_cache {
    struct pc_slot *v;
    size_t n, cap;
    uint32_t *key; /* the key being built */
    size_t klen, kalloc;
    size_t hits, misses;
};

struct risk_prep_cache *
risk_prep_cache_new(void)
{
    return xcalloc(1, sizeof(struct risk_prep_cache));
}

void
risk_prep_cache_clear(struct risk_prep_cache *pc)
{
    if (!pc)
        return;
    for (size_t i = 0; i < pc->cap; i++) {
        struct pc_slot *s = &pc->v[i];
        if (!s->h)
            continue;
        free(s->key);
        free(s->defs);
        free(s->chg);
        free(s->refs);
        free(s->reach);
    }
    free(pc->v);
    pc->v = NULL;
    pc->n = pc->cap = 0;
}

void
risk_prep_cache_free(struct risk_prep_cache *pc)
{
    if (!pc)
        return;
    risk_prep_cache_clear(pc);
    free(pc->key);
    free(pc);
}

void
risk_prep_cache_stats(
    const struct risk_prep_cache *pc, size_t *hits, size_t *misses)
{
    *hits = pc ? pc->hits : 0;
    *misses = pc ? pc->misses : 0;
}

static void
pc_key_reset(struct risk_prep_cache *pc, uint32_t tag)
{
    pc->klen = 0;
    ALLOC_GROW(pc->key, 1, pc->kalloc);
    pc->key[pc->klen++] = tag;
}

static void
pc_key_add(struct risk_prep_cache *pc, uint32_t v)
{
    ALLOC_GROW(pc->key, pc->klen + 1, pc->kalloc);
    pc->key[pc->klen++] = v;
}

static uint64_t
pc_hash(const uint32_t *k, size_t n)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < n; i++) {
        h ^= k[i];
        h *= 1099511628211u;
        h ^= h >> 32;
    }
    return h ? h : 1;
}

/* The slot of the key built in pc: filled (h set) when it was seen. */
static struct pc_slot *
pc_find(struct risk_prep_cache *pc)
{
    if (2 * (pc->n + 1) > pc->cap) {
        struct pc_slot *old = pc->v;
        size_t ocap = pc->cap;
        pc->cap = ocap ? 2 * ocap : 256;
        pc->v = xcalloc(pc->cap, sizeof(*pc->v));
        for (size_t i = 0; i < ocap; i++) {
            if (!old[i].h)
                continue;
            size_t j = (size_t)old[i].h & (pc->cap - 1);
            while (pc->v[j].h)
                j = (j + 1) & (pc->cap - 1);
            pc->v[j] = old[i];
        }
        free(old);
    }
    uint64_t h = pc_hash(pc->key, pc->klen);
    size_t j = (size_t)h & (pc->cap - 1);
    while (pc->v[j].h &&
           (pc->v[j].h != h || pc->v[j].klen != pc->klen ||
               memcmp(pc->v[j].key, pc->key, pc->klen * sizeof(*pc->key))))
        j = (j + 1) & (pc->cap - 1);
    return &pc->v[j];
}

/* Take the empty slot s for the key built in pc. */
static void
pc_take(struct risk_prep_cache *pc, struct pc_slot *s)
{
    memset(s, 0, sizeof(*s));
    s->h = pc_hash(pc->key, pc->klen);
    s->klen = pc->klen;
    s->key = xmalloc(pc->klen * sizeof(*s->key));
    memcpy(s->key, pc->key, pc->klen * sizeof(*s->key));
    pc->n++;
}

static uint32_t *
u32_dup(const uint32_t *v, size_t n)
{
    uint32_t *d = xmalloc((n ? n : 1) * sizeof(*d));
    if (n)
        memcpy(d, v, n * sizeof(*d));
    return d;
}

static bool
has_u32(const uint32_t *v, size_t n, uint32_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] == x;
}

/* The sorted unique names graph file x references. */
static const uint32_t *
file_names(const struct risk_engine *e, uint32_t x, uint32_t *n)
{
    *n = e->g->files[x].nnames;
    return e->g->files[x].names;
}

/* Whether x references one of the sorted names chg (true when x has no
 * symbols: no evidence either way). */
static bool
uses_any(struct risk_engine *e, uint32_t x, const uint32_t *chg, uint32_t n)
{
    if (!e->g->files[x].parsed)
        return true;
    uint32_t nn;
    const uint32_t *names = file_names(e, x, &nn);
    for (uint32_t i = 0; i < n; i++)
        if (has_u32(names, nn, chg[i]))
            return true;
    return false;
}

static int
cmp_reach(const void *x, const void *y)
{
    const struct reach *a = x, *b = y;
    return a->x < b->x ? -1 : a->x > b->x;
}

/* Whether agent file f's symbol evidence is known (parsed, with defs). */
static bool
sigma_known(const struct risk_engine *e, const struct efile *f)
{
    if (!e->cfg->use_symbols || f->gid == GRAPH_NONE)
        return false;
    const struct graph_file *gf = &e->g->files[f->gid];
    return gf->parsed && gf->ndefs > 0;
}

/* Breadth-first over importers of f up to cap hops, recording each reached
 * file's distance and whether sigma = 1 for it: it uses a changed name, or
 * some file on one of its shortest chains to f does. */
static void
reach_file(struct risk_engine *e, struct scratch *sc, struct efile *f)
{
    const struct graph *g = e->g;
    bool known = sigma_known(e, f);
    struct pc_slot *slot = NULL;
    if (e->pc) {
        /* what decides the walk: the file, its changed names, whether
         * its symbols are known (the graph and cap are the cache's) */
        pc_key_reset(e->pc, 'R');
        pc_key_add(e->pc, f->gid);
        pc_key_add(e->pc, known);
        pc_key_add(e->pc, f->nchg);
        for (uint32_t k = 0; k < f->nchg; k++)
            pc_key_add(e->pc, f->chg[k]);
        slot = pc_find(e->pc);
        if (slot->h) {
            e->pc->hits++;
            f->nreach = 0;
            f->reach =
                xmalloc((slot->nreach ? slot->nreach : 1) * sizeof(*f->reach));
            for (uint32_t k = 0; k < slot->nreach; k++)
                if (e->uidx[slot->reach[k].x] != GRAPH_NONE)
                    f->reach[f->nreach++] = slot->reach[k];
            return;
        }
        e->pc->misses++;
        pc_take(e->pc, slot);
    }
    uint32_t st = ++sc->cur_stamp;
    size_t head = 0, tail = 0;
    sc->stamp[f->gid] = st;
    sc->dist[f->gid] = 0;
    sc->sure[f->gid] = 1;
    sc->queue[tail++] = f->gid;
    while (head < tail) {
        uint32_t y = sc->queue[head++];
        if (sc->dist[y] >= e->cfg->cap)
            continue;
        const struct graph_file *gy = &g->files[y];
        for (uint32_t j = 0; j < gy->nin; j++) {
            uint32_t x = gy->in[j];
            if (sc->stamp[x] == st) {
                /* Another shortest chain into x: inherit its first hop. */
                if (sc->dist[x] == sc->dist[y] + 1 && y != f->gid &&
                    sc->sure[y])
                    sc->sure[x] = 1;
                continue;
            }
            sc->stamp[x] = st;
            sc->dist[x] = (uint8_t)(sc->dist[y] + 1);
            bool s = !known;
            if (!s && f->nchg)
                s = (y != f->gid && sc->sure[y]) ||
                    uses_any(e, x, f->chg, f->nchg);
            sc->sure[x] = s;
            sc->queue[tail++] = x;
        }
    }
    f->nreach = 0;
    f->reach = xmalloc((tail ? tail : 1) * sizeof(*f->reach));
    if (slot) { /* every importer kept, sorted; then the engine's filter */
        slot->reach = xmalloc((tail ? tail : 1) * sizeof(*slot->reach));
        for (size_t i = 1; i < tail; i++) {
            uint32_t x = sc->queue[i];
            struct reach *r = &slot->reach[slot->nreach++];
            r->x = x;
            r->dist = sc->dist[x];
            r->sure = sc->sure[x];
        }
        if (slot->nreach)
            qsort(slot->reach, slot->nreach, sizeof(*slot->reach), cmp_reach);
        for (uint32_t k = 0; k < slot->nreach; k++)
            if (e->uidx[slot->reach[k].x] != GRAPH_NONE)
                f->reach[f->nreach++] = slot->reach[k];
        return;
    }
    for (size_t i = 1; i < tail; i++) {
        uint32_t x = sc->queue[i];
        if (e->uidx[x] == GRAPH_NONE)
            continue;
        struct reach *r = &f->reach[f->nreach++];
        r->x = x;
        r->dist = sc->dist[x];
        r->sure = sc->sure[x];
    }
    if (f->nreach)
        qsort(f->reach, f->nreach, sizeof(*f->reach), cmp_reach);
}

static const struct reach *
find_reach(const struct efile *f, uint32_t x)
{
    size_t lo = 0, hi = f->nreach;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->reach[mid].x < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < f->nreach && f->reach[lo].x == x ? &f->reach[lo] : NULL;
}

static double
pow_gamma(const struct risk_config *c, unsigned hops)
{
    double v = 1.0;
    for (unsigned i = 0; i < hops; i++)
        v *= c->gamma;
    return v;
}

static int
cmp_efile(const void *x, const void *y)
{
    const struct efile *a = x, *b = y;
    return a->pid < b->pid ? -1 : a->pid > b->pid;
}

static int
cmp_sdef(const void *x, const void *y)
{
    const struct sdef *a = x, *b = y;
    if (a->name != b->name)
        return a->name < b->name ? -1 : 1;
    return a->file < b->file ? -1 : a->file > b->file;
}

static int
cmp_prefix(const void *x, const void *y)
{
    const struct prefix *a = x, *b = y;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->mind < b->mind ? -1 : a->mind > b->mind;
}

/* Record one use of name by agent file i, keeping a single use per name
 * and file: the first direct one, else the first. */
static void
add_ref(struct scratch *sc, struct eagent *ea, size_t *arefs, uint32_t name,
    uint32_t i, uint32_t line, uint8_t direct)
{
    if (sc->name_stamp[name] == sc->cur_name_stamp) {
        struct sref *old = &ea->refs[sc->name_ref[name]];
        if (direct && !old->direct) {
            old->direct = 1;
            old->line = line;
        }
        return;
    }
    sc->name_stamp[name] = sc->cur_name_stamp;
    sc->name_ref[name] = (uint32_t)ea->nrefs;
    ALLOC_GROW(ea->refs, ea->nrefs + 1, *arefs);
    struct sref *s = &ea->refs[ea->nrefs++];
    s->name = name;
    s->file = i;
    s->line = line;
    s->direct = direct;
}

/* Whether the changed lines rs or a pure insertion of all touch
 * [start, end]: intersect it, or land strictly inside it. */
static bool
span_touched(const struct range_set *rs, const struct range_set *all,
    uint32_t start, uint32_t end)
{
    return range_set_intersects(rs, start, end) ||
           range_set_inserts_within(all, start, end);
}

/* Whether m, a member of class c, builds it: a constructor. */
static bool
is_constructor(
    const struct graph *g, const struct graph_def *c, const struct graph_def *m)
{
    if (m->name == c->name)
        return true; /* Java, C++ */
    const char *s = g->name_str[m->name];
    return !strcmp(s, "__init__") || !strcmp(s, "__new__") ||
           !strcmp(s, "__post_init__") || !strcmp(s, "constructor");
}

/*
 * Whether a change touches definition d of gf. A type with methods inside
 * (a class) is touched only through its shape: its own lines outside every
 * method (header, base classes, fields, decorators) or a constructor. A
 * change inside another method touches that method alone.
 */
static bool
def_touched(const struct graph *g, const struct graph_file *gf, uint32_t d,
    const struct range_set *rs, const struct range_set *all)
{
    const struct graph_def *c = &gf->defs[d];
    if (!span_touched(rs, all, c->start, c->end))
        return false;
    if (c->kind != GRAPH_SYM_TYPE)
        return true;
    struct range_set members, own, span;
    range_set_init(&members);
    bool any = false;
    for (uint32_t j = d + 1; j < gf->ndefs && gf->defs[j].start <= c->end;
         j++) {
        const struct graph_def *m = &gf->defs[j];
        if (m->end > c->end ||
            (m->kind != GRAPH_SYM_FUNCTION && m->kind != GRAPH_SYM_METHOD) ||
            (m->start == c->start && m->end == c->end))
            continue;
        any = true;
        if (!is_constructor(g, c, m))
            range_set_add(&members, m->start, m->end);
    }
    if (!any) {
        range_set_release(&members);
        return true;
    }
    range_set_init(&own);
    range_set_init(&span);
    range_set_add(&span, c->start, c->end);
    range_set_subtract(&own, &span, &members);
    bool touched = false;
    for (size_t k = 0; k < own.n && !touched; k++)
        touched = span_touched(rs, all, own.v[k].start, own.v[k].end);
    range_set_release(&members);
    range_set_release(&own);
    range_set_release(&span);
    return touched;
}

/* out = the lines of gf whose innermost definition is marked in hit:
 * definitions applied outermost first, each adding its span when marked
 * and removing it when not, so a deeper one decides its own lines. */
static void
innermost_changed(
    const struct graph_file *gf, const uint8_t *hit, struct range_set *out)
{
    uint32_t *depth = xcalloc(gf->ndefs + 1, sizeof(*depth));
    uint32_t *stack = xcalloc(gf->ndefs + 1, sizeof(*stack));
    uint32_t top = 0, most = 0;
    for (uint32_t d = 0; d < gf->ndefs; d++) {
        const struct graph_def *x = &gf->defs[d];
        while (top && !(gf->defs[stack[top - 1]].start <= x->start &&
                          x->end <= gf->defs[stack[top - 1]].end))
            top--;
        depth[d] = top;
        if (top > most)
            most = top;
        stack[top++] = d;
    }
    struct range_set tmp, one;
    range_set_init(&tmp);
    range_set_init(&one);
    for (uint32_t level = 0; level <= most; level++)
        for (uint32_t d = 0; d < gf->ndefs; d++) {
            const struct graph_def *x = &gf->defs[d];
            if (depth[d] != level)
                continue;
            if (hit[d]) {
                range_set_add(out, x->start, x->end);
            } else if (level && range_set_intersects(out, x->start, x->end)) {
                range_set_clear(&one);
                range_set_add(&one, x->start, x->end);
                range_set_clear(&tmp);
                range_set_subtract(&tmp, out, &one);
                range_set_clear(out);
                range_set_add_set(out, &tmp);
            }
        }
    range_set_release(&tmp);
    range_set_release(&one);
    free(depth);
    free(stack);
}

/* Changed definitions and the names the agent's changes use. */
static void
collect_symbols(struct risk_engine *e, struct scratch *sc, struct eagent *ea)
{
    size_t adefs = 0, arefs = 0;
    for (size_t i = 0; i < ea->nfiles; i++) {
        struct efile *f = &ea->files[i];
        /* A file the base graph lacks or did not parse has only what the
         * agent's version adds. */
        bool base = f->gid != GRAPH_NONE && e->g->files[f->gid].parsed;
        if (!base && !f->ws->nnew_defs && !f->ws->nnew_uses)
            continue;
        struct pc_slot *slot = NULL;
        size_t first_ref = ea->nrefs;
        if (e->pc && !f->ws->nnew_defs && !f->ws->nnew_uses) {
            /* what decides it: the file, whole or not, its ranges */
            pc_key_reset(e->pc, 'S');
            pc_key_add(e->pc, f->gid);
            pc_key_add(e->pc, f->whole);
            pc_key_add(e->pc, (uint32_t)f->ws->ranges.n);
            for (size_t k = 0; k < f->ws->ranges.n; k++) {
                pc_key_add(e->pc, f->ws->ranges.v[k].start);
                pc_key_add(e->pc, f->ws->ranges.v[k].end);
            }
            slot = pc_find(e->pc);
            if (slot->h) {
                e->pc->hits++;
                for (uint32_t k = 0; k < slot->ndefs; k++) {
                    ALLOC_GROW(ea->defs, ea->ndefs + 1, adefs);
                    ea->defs[ea->ndefs].name = slot->defs[k];
                    ea->defs[ea->ndefs].file = (uint32_t)i;
                    ea->ndefs++;
                }
                f->nchg = slot->nchg;
                f->chg = xmalloc((f->nchg + 1) * sizeof(*f->chg));
                if (f->nchg)
                    memcpy(f->chg, slot->chg, f->nchg * sizeof(*f->chg));
                for (uint32_t k = 0; k < slot->nrefs; k++) {
                    ALLOC_GROW(ea->refs, ea->nrefs + 1, arefs);
                    ea->refs[ea->nrefs] = slot->refs[k];
                    ea->refs[ea->nrefs++].file = (uint32_t)i;
                }
                continue;
            }
            e->pc->misses++;
            pc_take(e->pc, slot);
        }
        static const struct graph_file none;
        const struct graph_file *gf = base ? &e->g->files[f->gid] : &none;
        /* The lines the agent replaced: a pure insertion changed no base
         * line, and touches only a definition it lands inside. */
        const struct range_set *all = &f->ws->ranges;
        struct range_set rep;
        range_set_init(&rep);
        range_set_replaced(&rep, all);
        const struct range_set *rs = &rep;
        size_t first_def = ea->ndefs;
        if (++sc->cur_name_stamp == 0) {
            memset(sc->name_stamp, 0, e->g->nnames * sizeof(*sc->name_stamp));
            sc->cur_name_stamp = 1;
        }
        /* Which definitions the agent changed (a class only through its
         * shape), and the lines whose innermost definition it changed, so
         * that a reference is tested against them in O(log n). */
        uint8_t *hit = xcalloc(gf->ndefs + 1, 1);
        for (uint32_t d = 0; d < gf->ndefs; d++) {
            hit[d] = f->whole || def_touched(e->g, gf, d, rs, all);
            if (!hit[d])
                continue;
            ALLOC_GROW(ea->defs, ea->ndefs + 1, adefs);
            ea->defs[ea->ndefs].name = gf->defs[d].name;
            ea->defs[ea->ndefs].file = (uint32_t)i;
            ea->ndefs++;
        }
        struct range_set changed;
        range_set_init(&changed);
        if (!f->whole)
            innermost_changed(gf, hit, &changed);
        free(hit);
        /* Definitions the agent's version adds. */
        for (size_t k = 0; k < f->ws->nnew_defs; k++) {
            const char *nm = f->ws->new_defs[k].name;
            uint32_t id = graph_find_name(e->g, nm, strlen(nm));
            if (id == GRAPH_NONE)
                continue;
            ALLOC_GROW(ea->defs, ea->ndefs + 1, adefs);
            ea->defs[ea->ndefs].name = id;
            ea->defs[ea->ndefs].file = (uint32_t)i;
            ea->ndefs++;
        }
        f->nchg = (uint32_t)(ea->ndefs - first_def);
        f->chg = xmalloc((f->nchg + 1) * sizeof(*f->chg));
        for (uint32_t k = 0; k < f->nchg; k++)
            f->chg[k] = ea->defs[first_def + k].name;
        f->nchg = (uint32_t)sort_uniq_u32(f->chg, f->nchg);
        /* refs come sorted by line: visit only the lines in rs or in a
         * changed definition, each run found by binary search. */
        if (f->whole) {
            for (uint32_t r = 0; r < gf->nrefs; r++)
                add_ref(sc, ea, &arefs, gf->refs[r].name, (uint32_t)i,
                    gf->refs[r].line, 1);
        } else {
            struct range_set span;
            range_set_init(&span);
            range_set_copy(&span, rs);
            for (size_t k = 0; k < changed.n; k++)
                range_set_add(&span, changed.v[k].start, changed.v[k].end);
            for (size_t k = 0; k < span.n; k++) {
                uint32_t lo = 0, hi = gf->nrefs;
                while (lo < hi) {
                    uint32_t mid = lo + (hi - lo) / 2;
                    if (gf->refs[mid].line < span.v[k].start)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                for (uint32_t r = lo;
                     r < gf->nrefs && gf->refs[r].line <= span.v[k].end; r++) {
                    const struct graph_ref *ref = &gf->refs[r];
                    /* off rs: inside a definition this agent changed */
                    uint8_t direct = range_set_contains(rs, ref->line);
                    add_ref(sc, ea, &arefs, ref->name, (uint32_t)i, ref->line,
                        direct);
                }
            }
            range_set_release(&span);
        }
        /* Uses the agent's version adds: on changed lines by definition. */
        for (size_t k = 0; k < f->ws->nnew_uses; k++) {
            const struct ws_name *u = &f->ws->new_uses[k];
            uint32_t id = graph_find_name(e->g, u->name, strlen(u->name));
            if (id == GRAPH_NONE)
                continue;
            add_ref(sc, ea, &arefs, id, (uint32_t)i, u->line, 1);
        }
        if (slot) {
            slot->ndefs = (uint32_t)(ea->ndefs - first_def);
            slot->defs = xmalloc((slot->ndefs + 1) * sizeof(*slot->defs));
            for (uint32_t k = 0; k < slot->ndefs; k++)
                slot->defs[k] = ea->defs[first_def + k].name;
            slot->nchg = f->nchg;
            slot->chg = u32_dup(f->chg, f->nchg);
            slot->nrefs = (uint32_t)(ea->nrefs - first_ref);
            slot->refs = xmalloc((slot->nrefs + 1) * sizeof(*slot->refs));
            if (slot->nrefs)
                memcpy(slot->refs, ea->refs + first_ref,
                    slot->nrefs * sizeof(*slot->refs));
        }
        range_set_release(&changed);
        range_set_release(&rep);
    }
    if (ea->ndefs)
        qsort(ea->defs, ea->ndefs, sizeof(*ea->defs), cmp_sdef);
    if (ea->nrefs) {
        /* By name, then file: refs were appended file by file, so the
         * index stands in for the file (one ref per name and file). */
        uint64_t *key = xmalloc(ea->nrefs * sizeof(*key));
        for (size_t i = 0; i < ea->nrefs; i++)
            key[i] = (uint64_t)ea->refs[i].name << 32 | i;
        sort_u64(key, ea->nrefs);
        struct sref *v = xmalloc(ea->nrefs * sizeof(*v));
        for (size_t i = 0; i < ea->nrefs; i++)
            v[i] = ea->refs[key[i] & 0xffffffffu];
        free(ea->refs);
        ea->refs = v;
        free(key);
    }
    /* One definition and one use (the strongest, then the first line) per
     * name and file: the channel's value depends on nothing else, and a
     * name used a hundred times in one file would otherwise cost every
     * pair a hundred steps. */
    size_t o = 0;
    for (size_t i = 0; i < ea->ndefs; i++)
        if (!o || ea->defs[o - 1].name != ea->defs[i].name ||
            ea->defs[o - 1].file != ea->defs[i].file)
            ea->defs[o++] = ea->defs[i];
    ea->ndefs = o;
    o = 0;
    for (size_t i = 0; i < ea->nrefs; i++)
        if (!o || ea->refs[o - 1].name != ea->refs[i].name ||
            ea->refs[o - 1].file != ea->refs[i].file)
            ea->refs[o++] = ea->refs[i];
    ea->nrefs = o;
}

/* M_a: for every working-set file reaching one of a's files, the
 * strongest coupling w_a(f) * gamma^(d-1) * sigma. */
static void
collect_deps(struct risk_engine *e, struct scratch *sc, struct eagent *ea)
{
    ea->m = xcalloc(e->nu ? e->nu : 1, sizeof(*ea->m));
    for (size_t i = 0; i < ea->nfiles; i++) {
        struct efile *f = &ea->files[i];
        if (f->gid == GRAPH_NONE)
            continue;
        reach_file(e, sc, f);
        for (uint32_t k = 0; k < f->nreach; k++) {
            const struct reach *r = &f->reach[k];
            double v = f->w * pow_gamma(e->cfg, r->dist - 1u) *
                       (r->sure ? 1.0 : e->cfg->sigma0);
            uint32_t u = e->uidx[r->x];
            if (v > ea->m[u])
                ea->m[u] = v;
        }
    }
}

/* ---- an agent's own view of the graph ---- */

/* The file of ea at node v of its view (a graph id, or nfiles + k), or
 * NULL when v is a graph file ea does not hold. */
static const struct efile *
view_file(const struct risk_engine *e, const struct eagent *ea, uint32_t v)
{
    if (v >= e->g->nfiles)
        return &ea->files[v - e->g->nfiles];
    size_t lo = 0, hi = ea->nbyg;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ea->byg[mid].gid < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ea->nbyg && ea->byg[lo].gid == v ? &ea->files[ea->byg[lo].file]
                                                 : NULL;
}

/* Whether node v as ea's version has it references one of the sorted names
 * c: the base file's names and the ones ea's version adds; unknown when
 * neither version was parsed. ea NULL: the base graph's view. */
static bool
view_uses_any(const struct risk_engine *e, const struct eagent *ea, uint32_t v,
    const uint32_t *c, uint32_t n, bool unknown)
{
    const struct efile *f = ea ? view_file(e, ea, v) : NULL;
    bool base = v < e->g->nfiles && e->g->files[v].parsed;
    if (!base && !(f && f->ws->parsed))
        return unknown;
    uint32_t nn = 0;
    const uint32_t *names = base ? file_names(e, v, &nn) : NULL;
    for (uint32_t i = 0; i < n; i++)
        if (has_u32(names, nn, c[i]) || (f && has_u32(f->uses, f->nuses, c[i])))
            return true;
    return false;
}

/* The path of node v in ea's view. */
static const char *
view_path(const struct risk_engine *e, const struct eagent *ea, uint32_t v)
{
    if (v < e->g->nfiles)
        return e->g->files[v].path;
    return ea->files[v - e->g->nfiles].ws->path;
}

/*
 * Breadth-first over imports from node s in ea's view (ea NULL: the base
 * graph), up to cap hops: the base edges plus, from ea's files, the imports
 * its version adds. Leaves the reached nodes in sc->queue (s first), their
 * distances in sc->dist under the returned stamp, and, when dag is set,
 * every edge on a shortest path from s in sc->dag; pred (nnodes entries, or
 * NULL) gets each node's first predecessor.
 */
static uint32_t
view_bfs(const struct risk_engine *e, struct scratch *sc,
    const struct eagent *ea, uint32_t s, bool dag, uint32_t *pred,
    size_t *nreached)
{
    const struct graph *g = e->g;
    uint32_t st = ++sc->cur_stamp;
    size_t head = 0, tail = 0;
    sc->ndag = 0;
    sc->stamp[s] = st;
    sc->dist[s] = 0;
    if (pred)
        pred[s] = GRAPH_NONE;
    sc->queue[tail++] = s;
    while (head < tail) {
        uint32_t y = sc->queue[head++];
        if (sc->dist[y] >= e->cfg->cap)
            continue;
        const uint32_t *base = NULL, *own = NULL;
        uint32_t nbase = 0, nown = 0;
        if (y < g->nfiles) {
            base = g->files[y].out;
            nbase = g->files[y].nout;
        }
        const struct efile *vf = ea ? view_file(e, ea, y) : NULL;
        if (vf) {
            own = vf->imp;
            nown = vf->nimp;
        }
        for (uint32_t j = 0; j < nbase + nown; j++) {
            uint32_t x = j < nbase ? base[j] : own[j - nbase];
            if (sc->stamp[x] == st) {
                if (dag && sc->dist[x] == sc->dist[y] + 1) {
                    ALLOC_GROW(sc->dag, sc->ndag + 1, sc->adag);
                    sc->dag[sc->ndag++] = (struct dag_edge){ x, y };
                }
                continue;
            }
            sc->stamp[x] = st;
            sc->dist[x] = (uint8_t)(sc->dist[y] + 1);
            if (pred)
                pred[x] = y;
            if (dag) {
                ALLOC_GROW(sc->dag, sc->ndag + 1, sc->adag);
                sc->dag[sc->ndag++] = (struct dag_edge){ x, y };
            }
            sc->queue[tail++] = x;
        }
    }
    *nreached = tail;
    return st;
}

static int
cmp_dag_edge(const void *p, const void *q)
{
    const struct dag_edge *a = p, *b = q;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    return a->y < b->y ? -1 : a->y > b->y;
}

static int
cmp_fwd(const void *p, const void *q)
{
    const struct fwd *a = p, *b = q;
    return a->x < b->x ? -1 : a->x > b->x;
}

static int
cmp_vdep(const void *p, const void *q)
{
    const struct vdep *a = p, *b = q;
    return a->agent < b->agent ? -1 : a->agent > b->agent;
}

/* Whether some shortest chain of the last view walk into x passes a node
 * before x that, in ea's view, references one of the sorted names c (the
 * rule reach_file applies on the base graph). sc->dag is sorted by x. */
static bool
chain_uses(const struct risk_engine *e, struct scratch *sc,
    const struct eagent *ea, uint32_t x, const uint32_t *c, uint32_t n)
{
    uint32_t m = ++sc->cur_mark;
    if (m == 0) {
        memset(sc->mark, 0, e->nnodes * sizeof(*sc->mark));
        m = sc->cur_mark = 1;
    }
    /* The walk's queue is still needed by the caller: keep a stack of
     * our own. */
    size_t top = 0, cap = 16;
    uint32_t *stack = xmalloc(cap * sizeof(*stack));
    stack[top++] = x;
    bool found = false;
    while (top && !found) {
        uint32_t v = stack[--top];
        size_t lo = 0, hi = sc->ndag;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (sc->dag[mid].x < v)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t k = lo; k < sc->ndag && sc->dag[k].x == v; k++) {
            uint32_t y = sc->dag[k].y;
            if (sc->mark[y] == m)
                continue;
            sc->mark[y] = m;
            if (view_uses_any(e, ea, y, c, n, true)) {
                found = true;
                break;
            }
            ALLOC_GROW(stack, top + 1, cap);
            stack[top++] = y;
        }
    }
    free(stack);
    return found;
}

/* For an agent with a view: every file's reach over imports in that view,
 * and per upstream agent the strongest w_b(x) * w_a(f) * gamma^(d-1) *
 * sigma over its files f and this agent's files x (sigma with the names
 * this agent's versions use). Reads the other agents' changed names: run
 * after collect_symbols of every agent. */
static void
collect_view(struct risk_engine *e, struct scratch *sc, size_t bi)
{
    struct eagent *eb = &e->agents[bi];
    const uint32_t nf = e->g->nfiles;
    uint32_t bs = ++sc->cur_best;
    if (bs == 0) {
        memset(sc->best_stamp, 0, e->n * sizeof(*sc->best_stamp));
        bs = sc->cur_best = 1;
    }
    size_t nbest = 0;
    uint32_t *touched = xmalloc((e->n ? e->n : 1) * sizeof(*touched));
    for (size_t i = 0; i < eb->nfiles; i++) {
        struct efile *x = &eb->files[i];
        if (x->gid == GRAPH_NONE && !x->nimp)
            continue;
        uint32_t s = x->gid != GRAPH_NONE ? x->gid : nf + (uint32_t)i;
        size_t nq;
        view_bfs(e, sc, eb, s, true, NULL, &nq);
        if (sc->ndag > 1)
            qsort(sc->dag, sc->ndag, sizeof(*sc->dag), cmp_dag_edge);
        x->fwd = xmalloc((nq ? nq : 1) * sizeof(*x->fwd));
        x->nfwd = 0;
        for (size_t q = 1; q < nq; q++) {
            uint32_t z = sc->queue[q];
            if (z >= nf || e->uidx[z] == GRAPH_NONE)
                continue;
            x->fwd[x->nfwd].x = z;
            x->fwd[x->nfwd].dist = sc->dist[z];
            x->nfwd++;
        }
        for (uint32_t k = 0; k < x->nfwd; k++) {
            uint32_t z = x->fwd[k].x, u = e->uidx[z];
            double hop = pow_gamma(e->cfg, x->fwd[k].dist - 1u);
            for (uint32_t h = e->hold_at[u]; h < e->hold_at[u + 1]; h++) {
                uint32_t a = e->hold[h].agent;
                if (a == bi)
                    continue;
                const struct efile *f = &e->agents[a].files[e->hold[h].file];
                bool sure = !sigma_known(e, f);
                if (!sure && f->nchg)
                    sure = chain_uses(e, sc, eb, z, f->chg, f->nchg);
                double v = x->w * f->w * hop * (sure ? 1.0 : e->cfg->sigma0);
                struct vdep *b = &sc->best[a];
                if (sc->best_stamp[a] != bs) {
                    sc->best_stamp[a] = bs;
                    touched[nbest++] = a;
                    b->value = -1;
                }
                if (v > b->value) {
                    b->agent = a;
                    b->up = e->hold[h].file;
                    b->down = (uint32_t)i;
                    b->sure = sure;
                    b->value = v;
                }
            }
        }
        if (x->nfwd > 1)
            qsort(x->fwd, x->nfwd, sizeof(*x->fwd), cmp_fwd);
    }
    eb->vdep = xmalloc((nbest ? nbest : 1) * sizeof(*eb->vdep));
    for (size_t k = 0; k < nbest; k++)
        eb->vdep[k] = sc->best[touched[k]];
    eb->nvdep = nbest;
    if (nbest > 1)
        qsort(eb->vdep, nbest, sizeof(*eb->vdep), cmp_vdep);
    free(touched);
}

static const struct vdep *
find_vdep(const struct eagent *down, uint32_t up)
{
    size_t lo = 0, hi = down->nvdep;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (down->vdep[mid].agent < up)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < down->nvdep && down->vdep[lo].agent == up ? &down->vdep[lo]
                                                          : NULL;
}

static const struct fwd *
find_fwd(const struct efile *f, uint32_t x)
{
    size_t lo = 0, hi = f->nfwd;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->fwd[mid].x < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < f->nfwd && f->fwd[lo].x == x ? &f->fwd[lo] : NULL;
}

/* Every leading run of components of every file, with the least depth. */
static void
collect_prefixes(struct risk_engine *e, struct eagent *ea)
{
    size_t alloc = 0;
    for (size_t i = 0; i < ea->nfiles; i++) {
        char *p = norm_copy(ea->files[i].ws->path);
        size_t depth = path_depth(p);
        size_t k = 0;
        for (size_t j = 0;; j++) {
            if (p[j] != '/' && p[j] != '\0')
                continue;
            if (j == 0)
                break;
            k++;
            bool added;
            uint32_t id =
                strmap_put(&e->prefixes, p, j, e->nprefix_ids, &added);
            if (added)
                e->nprefix_ids++;
            ALLOC_GROW(ea->prefixes, ea->nprefixes + 1, alloc);
            struct prefix *x = &ea->prefixes[ea->nprefixes++];
            x->id = id;
            x->k = (uint16_t)(k > UINT16_MAX ? UINT16_MAX : k);
            x->mind = (uint16_t)(depth > UINT16_MAX ? UINT16_MAX : depth);
            x->file = (uint32_t)i;
            if (p[j] == '\0')
                break;
        }
        free(p);
    }
    if (!ea->nprefixes)
        return;
    qsort(ea->prefixes, ea->nprefixes, sizeof(*ea->prefixes), cmp_prefix);
    size_t o = 1;
    for (size_t i = 1; i < ea->nprefixes; i++)
        if (ea->prefixes[i].id != ea->prefixes[o - 1].id)
            ea->prefixes[o++] = ea->prefixes[i];
    ea->nprefixes = o;
}

static void
scratch_init(struct scratch *sc, const struct risk_engine *e)
{
    size_t nf = e->nnodes;
    sc->stamp = xcalloc(nf, sizeof(*sc->stamp));
    sc->dist = xcalloc(nf, 1);
    sc->sure = xcalloc(nf, 1);
    sc->queue = xcalloc(nf, sizeof(*sc->queue));
    sc->name_stamp = xcalloc(e->g->nnames + 1, sizeof(*sc->name_stamp));
    sc->name_ref = xcalloc(e->g->nnames + 1, sizeof(*sc->name_ref));
    sc->mark = xcalloc(nf, sizeof(*sc->mark));
    sc->best = xcalloc(e->n ? e->n : 1, sizeof(*sc->best));
    sc->best_stamp = xcalloc(e->n ? e->n : 1, sizeof(*sc->best_stamp));
    sc->dag = NULL;
    sc->ndag = sc->adag = 0;
    sc->cur_stamp = sc->cur_name_stamp = sc->cur_mark = sc->cur_best = 0;
}

static void
scratch_release(struct scratch *sc)
{
    free(sc->stamp);
    free(sc->dist);
    free(sc->sure);
    free(sc->queue);
    free(sc->name_stamp);
    free(sc->name_ref);
    free(sc->mark);
    free(sc->dag);
    free(sc->best);
    free(sc->best_stamp);
    memset(sc, 0, sizeof(*sc));
}

struct prep {
    struct risk_engine *e;
    struct scratch sc;
    size_t first, step;
    bool views; /* second pass: the agents' views */
};

/* Symbols and dependency reach of agents first, first + step, ...: reads
 * the graph and the engine's tables, writes only those agents. */
static void *
prep_run(void *arg)
{
    struct prep *p = arg;
    struct risk_engine *e = p->e;
    for (size_t i = p->first; i < e->n; i += p->step) {
        struct eagent *ea = &e->agents[i];
        if (p->views) {
            if (ea->view)
                collect_view(e, &p->sc, i);
            continue;
        }
        if (e->cfg->use_symbols)
            collect_symbols(e, &p->sc, ea);
        collect_deps(e, &p->sc, ea);
    }
    return NULL;
}

static void
prepare_pass(struct risk_engine *e, unsigned threads, bool views)
{
    if (threads < 1)
        threads = 1;
    if (threads > e->n)
        threads = e->n ? (unsigned)e->n : 1;
    struct prep *p = xcalloc(threads, sizeof(*p));
    pthread_t *tid = xcalloc(threads, sizeof(*tid));
    unsigned started = 1;
    for (unsigned t = 0; t < threads; t++) {
        p[t].e = e;
        p[t].first = t;
        p[t].step = threads;
        p[t].views = views;
        if (t == 0)
            p[t].sc = e->sc;
        else
            scratch_init(&p[t].sc, e);
    }
    for (unsigned t = 1; t < threads; t++) {
        if (pthread_create(&tid[t], NULL, prep_run, &p[t]))
            break; /* the rest run on this thread below */
        started++;
    }
    prep_run(&p[0]);
    e->sc = p[0].sc;
    for (unsigned t = 1; t < started; t++)
        pthread_join(tid[t], NULL);
    for (unsigned t = started; t < threads; t++)
        prep_run(&p[t]);
    for (unsigned t = 1; t < threads; t++)
        scratch_release(&p[t].sc);
    free(tid);
    free(p);
}

/* Every agent's own tables, then (they read the others' changed names) the
 * views of the agents that have one. */
static void
prepare_agents(struct risk_engine *e, unsigned threads)
{
    prepare_pass(e, threads, false);
    bool any = false;
    for (size_t i = 0; i < e->n && !any; i++)
        any = e->agents[i].view;
    if (any)
        prepare_pass(e, threads, true);
}

static int
cmp_gfile(const void *p, const void *q)
{
    const struct gfile *a = p, *b = q;
    return a->gid < b->gid ? -1 : a->gid > b->gid;
}

/* The node of path in ea's view: a graph file, or one of ea's files the
 * graph lacks (nfiles + k); GRAPH_NONE when neither. */
static uint32_t
view_node(const struct risk_engine *e, const struct eagent *ea, const char *p)
{
    uint32_t gid = graph_find_file(e->g, p);
    if (gid != GRAPH_NONE)
        return gid;
    for (size_t k = 0; k < ea->nfiles; k++) {
        const struct ws_file *w = ea->files[k].ws;
        if (ea->files[k].gid == GRAPH_NONE &&
            (!strcmp(w->path, p) || (w->new_path && !strcmp(w->new_path, p))))
            return e->g->nfiles + (uint32_t)k;
    }
    return GRAPH_NONE;
}

/* ea's files by graph id, its new import edges and newly used names, and
 * whether any of them gives it a view of its own. */
static void
prepare_view(struct risk_engine *e, struct eagent *ea)
{
    ea->byg = xmalloc((ea->nfiles ? ea->nfiles : 1) * sizeof(*ea->byg));
    for (size_t k = 0; k < ea->nfiles; k++) {
        struct efile *f = &ea->files[k];
        if (f->gid != GRAPH_NONE) {
            ea->byg[ea->nbyg].gid = f->gid;
            ea->byg[ea->nbyg].file = (uint32_t)k;
            ea->nbyg++;
        }
        const struct ws_file *w = f->ws;
        uint32_t self =
            f->gid != GRAPH_NONE ? f->gid : e->g->nfiles + (uint32_t)k;
        if (w->nnew_imports) {
            f->imp = xmalloc(w->nnew_imports * sizeof(*f->imp));
            for (size_t j = 0; j < w->nnew_imports; j++) {
                uint32_t v = view_node(e, ea, w->new_imports[j]);
                if (v != GRAPH_NONE && v != self)
                    f->imp[f->nimp++] = v;
            }
            f->nimp = (uint32_t)sort_uniq_u32(f->imp, f->nimp);
        }
        if (w->nnew_uses && e->cfg->use_symbols) {
            f->uses = xmalloc(w->nnew_uses * sizeof(*f->uses));
            for (size_t j = 0; j < w->nnew_uses; j++) {
                const char *nm = w->new_uses[j].name;
                uint32_t id = graph_find_name(e->g, nm, strlen(nm));
                if (id != GRAPH_NONE)
                    f->uses[f->nuses++] = id;
            }
            f->nuses = (uint32_t)sort_uniq_u32(f->uses, f->nuses);
        }
        if (f->nimp || f->nuses)
            ea->view = true;
    }
    if (ea->nbyg > 1)
        qsort(ea->byg, ea->nbyg, sizeof(*ea->byg), cmp_gfile);
}

/* For every working-set file, the agents holding it. */
static void
index_holders(struct risk_engine *e)
{
    e->hold_at = xcalloc(e->nu + 2, sizeof(*e->hold_at));
    size_t total = 0;
    for (size_t i = 0; i < e->n; i++)
        for (size_t k = 0; k < e->agents[i].nfiles; k++)
            if (e->agents[i].files[k].u != GRAPH_NONE) {
                e->hold_at[e->agents[i].files[k].u + 2]++;
                total++;
            }
    for (uint32_t u = 0; u < e->nu; u++)
        e->hold_at[u + 2] += e->hold_at[u + 1];
    e->hold = xmalloc((total ? total : 1) * sizeof(*e->hold));
    for (size_t i = 0; i < e->n; i++)
        for (size_t k = 0; k < e->agents[i].nfiles; k++) {
            uint32_t u = e->agents[i].files[k].u;
            if (u == GRAPH_NONE)
                continue;
            struct holder *h = &e->hold[e->hold_at[u + 1]++];
            h->agent = (uint32_t)i;
            h->file = (uint32_t)k;
        }
}

struct risk_engine *
risk_engine_new_mt(const struct risk_config *c, const struct graph *g,
    const struct agent *agents, size_t n, unsigned threads)
{
    return risk_engine_new_cached(c, g, agents, n, threads, NULL);
}

struct risk_engine *
risk_engine_new_cached(const struct risk_config *c, const struct graph *g,
    const struct agent *agents, size_t n, unsigned threads,
    struct risk_prep_cache *pc)
{
    struct risk_engine *e = xcalloc(1, sizeof(*e));
    if (pc)
        threads = 1; /* the cache is not shared between threads */
    e->pc = pc;
    e->cfg = c;
    e->g = g;
    e->n = n;
    e->agents = xcalloc(n ? n : 1, sizeof(*e->agents));
    strmap_init(&e->paths);
    strmap_init(&e->prefixes);
    if (g && g->nfiles) {
        size_t nf = g->nfiles, most = 0;
        for (size_t i = 0; i < n; i++)
            if (agents[i].nfiles > most)
                most = agents[i].nfiles;
        e->nnodes = nf + most;
        scratch_init(&e->sc, e);
        e->uidx = xmalloc(nf * sizeof(*e->uidx));
        memset(e->uidx, 0xff, nf * sizeof(*e->uidx));
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < agents[i].nfiles; k++) {
                uint32_t x = graph_find_file(g, agents[i].files[k].path);
                if (x != GRAPH_NONE && e->uidx[x] == GRAPH_NONE)
                    e->uidx[x] = e->nu++;
            }
    } else {
        e->g = NULL;
    }
    for (size_t i = 0; i < n; i++) {
        struct eagent *ea = &e->agents[i];
        const struct agent *ag = &agents[i];
        ea->ag = ag;
        ea->nfiles = ag->nfiles;
        ea->files = xcalloc(ag->nfiles ? ag->nfiles : 1, sizeof(*ea->files));
        for (size_t k = 0; k < ag->nfiles; k++) {
            struct efile *f = &ea->files[k];
            const struct ws_file *w = &ag->files[k];
            f->ws = w;
            bool added;
            f->pid = strmap_put(
                &e->paths, w->path, strlen(w->path), e->npaths, &added);
            if (added)
                e->npaths++;
            f->gid = e->g ? graph_find_file(e->g, w->path) : GRAPH_NONE;
            f->u = f->gid != GRAPH_NONE ? e->uidx[f->gid] : GRAPH_NONE;
            f->whole = ws_status_whole(w->status) || w->whole || !w->ranges.n;
            f->w = w->weight;
            range_set_init(&f->widened);
            range_set_widen(&f->widened, &w->ranges, c->margin);
            f->wsize = range_set_size(&f->widened);
        }
        qsort(ea->files, ea->nfiles, sizeof(*ea->files), cmp_efile);
        if (e->g)
            prepare_view(e, ea);
        collect_prefixes(e, ea);
        ea->globs = xcalloc(ag->nintent ? ag->nintent : 1, sizeof(*ea->globs));
        for (size_t k = 0; k < ag->nintent; k++) {
            struct glob *gl;
            if (glob_compile_path(ag->intent[k], &gl, NULL) == 0)
                ea->globs[ea->nglobs++] = gl;
        }
    }
    if (e->g) {
        index_holders(e);
        prepare_agents(e, threads);
    }
    return e;
}

struct risk_engine *
risk_engine_new(const struct risk_config *c, const struct graph *g,
    const struct agent *agents, size_t n)
{
    return risk_engine_new_mt(c, g, agents, n, 1);
}

void
risk_engine_free(struct risk_engine *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->n; i++) {
        struct eagent *ea = &e->agents[i];
        for (size_t k = 0; k < ea->nfiles; k++) {
            range_set_release(&ea->files[k].widened);
            free(ea->files[k].reach);
            free(ea->files[k].chg);
            free(ea->files[k].imp);
            free(ea->files[k].uses);
            free(ea->files[k].fwd);
        }
        free(ea->byg);
        free(ea->vdep);
        free(ea->files);
        free(ea->m);
        free(ea->defs);
        free(ea->refs);
        free(ea->prefixes);
        for (size_t k = 0; k < ea->nglobs; k++)
            glob_free(ea->globs[k]);
        free(ea->globs);
    }
    free(e->agents);
    scratch_release(&e->sc);
    free(e->uidx);
    free(e->hold_at);
    free(e->hold);
    strmap_release(&e->paths);
    strmap_release(&e->prefixes);
    free(e);
}

/* ---- channels ---- */

static double
file_oc(const struct efile *x, const struct efile *y)
{
    if (x->whole || y->whole)
        return 1.0;
    return range_set_overlap_widened(
        &x->widened, x->wsize, &y->widened, y->wsize);
}

static double
chan_overlap(const struct eagent *a, const struct eagent *b)
{
    double best = 0;
    size_t i = 0, j = 0;
    while (i < a->nfiles && j < b->nfiles) {
        const struct efile *x = &a->files[i], *y = &b->files[j];
        if (x->pid < y->pid) {
            i++;
        } else if (x->pid > y->pid) {
            j++;
        } else {
            double v = x->w * y->w * file_oc(x, y);
            if (v > best)
                best = v;
            i++;
            j++;
        }
    }
    return best;
}

/* Strongest coupling of down's files to up's changes: over the base graph
 * (M of up), and over down's own view when it has one (then *view, if
 * given, is set when the view's coupling is the stronger). */
static double
dep_one_way(const struct risk_engine *e, const struct eagent *up,
    const struct eagent *down, size_t *best_file, const struct vdep **view)
{
    double best = 0;
    if (view)
        *view = NULL;
    for (size_t j = 0; j < down->nfiles; j++) {
        const struct efile *y = &down->files[j];
        if (y->u == GRAPH_NONE)
            continue;
        double v = up->m[y->u] * y->w;
        if (v > best) {
            best = v;
            if (best_file)
                *best_file = j;
        }
    }
    if (down->view) {
        const struct vdep *v = find_vdep(down, (uint32_t)(up - e->agents));
        if (v && v->value > best) {
            best = v->value;
            if (best_file)
                *best_file = v->down;
            if (view)
                *view = v;
        }
    }
    return best;
}

static double
chan_dependency(
    const struct risk_engine *e, const struct eagent *a, const struct eagent *b)
{
    double x = dep_one_way(e, a, b, NULL, NULL);
    double y = dep_one_way(e, b, a, NULL, NULL);
    return x > y ? x : y;
}

typedef void symbol_hit_fn(void *ctx, const struct eagent *def_agent,
    const struct sdef *d, const struct eagent *use_agent, const struct sref *r,
    double v);

/* Symbol hazard of definitions changed by da used by changes of ua. */
static double
symbol_one_way(const struct risk_engine *e, const struct eagent *da,
    const struct eagent *ua, symbol_hit_fn *fn, void *ctx)
{
    double best = 0;
    size_t i = 0, j = 0;
    while (i < da->ndefs && j < ua->nrefs) {
        uint32_t n = da->defs[i].name, m = ua->refs[j].name;
        if (n < m) {
            i++;
            continue;
        }
        if (n > m) {
            j++;
            continue;
        }
        size_t i2 = i, j2 = j;
        while (i2 < da->ndefs && da->defs[i2].name == n)
            i2++;
        while (j2 < ua->nrefs && ua->refs[j2].name == n)
            j2++;
        for (size_t p = i; p < i2; p++) {
            const struct efile *df = &da->files[da->defs[p].file];
            for (size_t q = j; q < j2; q++) {
                const struct sref *r = &ua->refs[q];
                const struct efile *uf = &ua->files[r->file];
                double hop;
                if (uf->pid == df->pid ||
                    (uf->gid != GRAPH_NONE && uf->gid == df->gid)) {
                    hop = 1.0;
                } else if (df->gid == GRAPH_NONE) {
                    continue;
                } else if (ua->view) {
                    /* the import path as the user's version has it */
                    const struct fwd *fw = find_fwd(uf, df->gid);
                    if (!fw)
                        continue;
                    hop = pow_gamma(e->cfg, fw->dist - 1u);
                } else {
                    const struct reach *rc = find_reach(df, uf->gid);
                    if (!rc)
                        continue;
                    hop = pow_gamma(e->cfg, rc->dist - 1u);
                }
                double v = (r->direct ? 1.0 : e->cfg->symbol_enclosing) * hop *
                           df->w * uf->w;
                if (fn && v > 0)
                    fn(ctx, da, &da->defs[p], ua, r, v);
                if (v > best)
                    best = v;
            }
        }
        i = i2;
        j = j2;
    }
    return best;
}

static double
chan_symbol(
    const struct risk_engine *e, const struct eagent *a, const struct eagent *b)
{
    if (!e->g || !e->cfg->use_symbols)
        return 0;
    double x = symbol_one_way(e, a, b, NULL, NULL);
    double y = symbol_one_way(e, b, a, NULL, NULL);
    return x > y ? x : y;
}

typedef void intent_hit_fn(void *ctx, size_t who, const struct glob *gl,
    const char *path, bool is_intent);

/* Intents of x against y's files and intents; stops at the first hit
 * unless fn collects them all. */
static bool
intent_one_way(const struct eagent *x, size_t xi, const struct eagent *y,
    intent_hit_fn *fn, void *ctx)
{
    bool hit = false;
    for (size_t k = 0; k < x->nglobs; k++) {
        const struct glob *gl = x->globs[k];
        for (size_t j = 0; j < y->nfiles; j++) {
            const struct ws_file *w = y->files[j].ws;
            const char *p = glob_matches(gl, w->path) ? w->path
                            : (w->new_path && glob_matches(gl, w->new_path))
                                ? w->new_path
                                : NULL;
            if (!p)
                continue;
            if (!fn)
                return true;
            fn(ctx, xi, gl, p, false);
            hit = true;
        }
        for (size_t j = 0; j < y->nglobs; j++) {
            if (!glob_overlap_compiled(gl, y->globs[j]))
                continue;
            if (!fn)
                return true;
            fn(ctx, xi, gl, glob_pattern(y->globs[j]), true);
            hit = true;
        }
    }
    return hit;
}

static double
chan_intent(const struct eagent *a, const struct eagent *b)
{
    return intent_one_way(a, 0, b, NULL, NULL) ||
                   intent_one_way(b, 0, a, NULL, NULL)
               ? 1.0
               : 0.0;
}

static double
chan_tree(
    const struct eagent *a, const struct eagent *b, size_t *fa, size_t *fb)
{
    double best = 0;
    size_t i = 0, j = 0;
    while (i < a->nprefixes && j < b->nprefixes) {
        const struct prefix *x = &a->prefixes[i], *y = &b->prefixes[j];
        if (x->id < y->id) {
            i++;
        } else if (x->id > y->id) {
            j++;
        } else {
            double v = 2.0 * x->k / (double)(x->mind + y->mind);
            if (v > best) {
                best = v;
                if (fa) {
                    *fa = x->file;
                    *fb = y->file;
                }
            }
            i++;
            j++;
        }
    }
    return best;
}

void
risk_engine_score(
    struct risk_engine *e, size_t a, size_t b, struct risk_result *out)
{
    memset(out, 0, sizeof(*out));
    if (a >= e->n || b >= e->n)
        return;
    const struct eagent *x = &e->agents[a], *y = &e->agents[b];
    out->r[RISK_OVERLAP] = chan_overlap(x, y);
    if (e->g) {
        out->r[RISK_DEPENDENCY] = chan_dependency(e, x, y);
        out->r[RISK_SYMBOL] = chan_symbol(e, x, y);
    }
    out->r[RISK_INTENT] = chan_intent(x, y);
    out->r[RISK_TREE] = chan_tree(x, y, NULL, NULL);
}

/* ---- evidence ---- */

struct collect {
    struct risk_engine *e;
    struct risk_evidence *ev;
    size_t alloc;
};

static size_t
agent_index(const struct risk_engine *e, const struct eagent *ea)
{
    return (size_t)(ea - e->agents);
}

static void
on_symbol(void *ctx, const struct eagent *def_agent, const struct sdef *d,
    const struct eagent *use_agent, const struct sref *r, double v)
{
    struct collect *c = ctx;
    struct risk_evidence *ev = c->ev;
    ALLOC_GROW(ev->symbols, ev->nsymbols + 1, c->alloc);
    struct risk_symbol_hit *h = &ev->symbols[ev->nsymbols++];
    h->name = c->e->g->name_str[d->name];
    h->def_path = def_agent->files[d->file].ws->path;
    h->def_agent = agent_index(c->e, def_agent);
    h->use_path = use_agent->files[r->file].ws->path;
    h->use_line = r->line;
    h->use_agent = agent_index(c->e, use_agent);
    h->enclosing = !r->direct;
    h->value = v;
}

static void
on_intent(void *ctx, size_t who, const struct glob *gl, const char *path,
    bool is_intent)
{
    struct collect *c = ctx;
    struct risk_evidence *ev = c->ev;
    ALLOC_GROW(ev->intents, ev->nintents + 1, c->alloc);
    struct risk_intent_hit *h = &ev->intents[ev->nintents++];
    h->agent = who;
    h->glob = glob_pattern(gl);
    h->path = path;
    h->path_is_intent = is_intent;
}

static int
cmp_symbol_hit(const void *x, const void *y)
{
    const struct risk_symbol_hit *a = x, *b = y;
    if (a->value != b->value)
        return a->value > b->value ? -1 : 1;
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    c = strcmp(a->use_path, b->use_path);
    if (c)
        return c;
    return a->use_line < b->use_line ? -1 : a->use_line > b->use_line;
}

/* Shortest import chain down -> ... -> up within cap in ea's view (ea
 * NULL: the base graph); fills the chain downstream first. */
static void
find_chain(struct risk_engine *e, const struct eagent *ea, uint32_t down,
    uint32_t up, struct risk_dependency *d)
{
    uint32_t *pred = xmalloc(e->nnodes * sizeof(*pred));
    size_t nq;
    uint32_t st = view_bfs(e, &e->sc, ea, down, false, pred, &nq);
    if (e->sc.stamp[up] == st) {
        size_t n = 0;
        for (uint32_t x = up; x != GRAPH_NONE; x = pred[x])
            n++;
        d->nchain = n;
        d->chain_ids = xmalloc(n * sizeof(*d->chain_ids));
        d->chain = xmalloc(n * sizeof(*d->chain));
        size_t k = n;
        for (uint32_t x = up; x != GRAPH_NONE; x = pred[x]) {
            d->chain_ids[--k] = x;
            d->chain[k] = view_path(e, ea, x);
        }
    }
    free(pred);
}

static void
explain_dependency(
    struct risk_engine *e, size_t a, size_t b, struct risk_dependency *d)
{
    const struct eagent *x = &e->agents[a], *y = &e->agents[b];
    size_t fa = 0, fb = 0;
    const struct vdep *viewa, *viewb;
    double va = dep_one_way(e, x, y, &fb, &viewb);
    double vb = dep_one_way(e, y, x, &fa, &viewa);
    const struct eagent *up, *down;
    const struct vdep *view;
    size_t down_file;
    if (va <= 0 && vb <= 0)
        return;
    if (va >= vb) {
        up = x, down = y, down_file = fb, d->value = va, view = viewb;
    } else {
        up = y, down = x, down_file = fa, d->value = vb, view = viewa;
    }
    const struct efile *uf = NULL, *df = &down->files[down_file];
    /* the downstream agent's view, when the coupling comes from it */
    const struct eagent *dv = view ? down : NULL;
    uint32_t dnode = df->gid;
    if (view) {
        uf = &up->files[view->up];
        if (dnode == GRAPH_NONE)
            dnode = e->g->nfiles + (uint32_t)down_file;
        d->sigma = view->sure ? 1.0 : e->cfg->sigma0;
    } else {
        /* The upstream file: the one of up's files giving that coupling. */
        uint32_t target = df->gid;
        double best = -1;
        for (size_t i = 0; i < up->nfiles; i++) {
            const struct efile *f = &up->files[i];
            const struct reach *r =
                f->gid == GRAPH_NONE ? NULL : find_reach(f, target);
            if (!r)
                continue;
            double v = f->w * pow_gamma(e->cfg, r->dist - 1u) *
                       (r->sure ? 1.0 : e->cfg->sigma0);
            if (v > best) {
                best = v;
                uf = f;
            }
        }
        if (!uf)
            return;
        const struct reach *rc = find_reach(uf, df->gid);
        d->sigma = rc && !rc->sure ? e->cfg->sigma0 : 1.0;
    }
    d->present = true;
    d->up_agent = agent_index(e, up);
    d->down_agent = agent_index(e, down);
    d->upstream = uf->ws->path;
    d->downstream = df->ws->path;
    find_chain(e, dv, dnode, uf->gid, d);
    if (!uf->nchg)
        return;
    /* The changed names the downstream file or the first hop uses. */
    uint32_t hop = d->nchain >= 2 ? d->chain_ids[d->nchain - 2] : dnode;
    d->symbols = xmalloc(uf->nchg * sizeof(*d->symbols));
    for (uint32_t k = 0; k < uf->nchg; k++) {
        bool used = view_uses_any(e, dv, dnode, &uf->chg[k], 1, false) ||
                    view_uses_any(e, dv, hop, &uf->chg[k], 1, false);
        if (used)
            d->symbols[d->nsymbols++] = e->g->name_str[uf->chg[k]];
    }
}

void
risk_engine_explain(
    struct risk_engine *e, size_t a, size_t b, struct risk_evidence *ev)
{
    memset(ev, 0, sizeof(*ev));
    if (a >= e->n || b >= e->n)
        return;
    risk_engine_score(e, a, b, &ev->result);
    const struct eagent *x = &e->agents[a], *y = &e->agents[b];

    size_t alloc = 0, i = 0, j = 0;
    while (i < x->nfiles && j < y->nfiles) {
        const struct efile *fx = &x->files[i], *fy = &y->files[j];
        if (fx->pid < fy->pid) {
            i++;
            continue;
        }
        if (fx->pid > fy->pid) {
            j++;
            continue;
        }
        double oc = file_oc(fx, fy);
        if (oc > 0) {
            ALLOC_GROW(ev->contested, ev->ncontested + 1, alloc);
            struct risk_contested *c = &ev->contested[ev->ncontested++];
            c->path = fx->ws->path;
            c->whole = fx->whole || fy->whole;
            range_set_init(&c->ranges);
            if (!c->whole)
                range_set_intersect(&c->ranges, &fx->widened, &fy->widened);
            c->oc = oc;
            c->value = fx->w * fy->w * oc;
        }
        i++;
        j++;
    }

    if (e->g) {
        explain_dependency(e, a, b, &ev->dep);
        if (e->cfg->use_symbols) {
            struct collect c = { e, ev, 0 };
            symbol_one_way(e, x, y, on_symbol, &c);
            symbol_one_way(e, y, x, on_symbol, &c);
            if (ev->nsymbols)
                qsort(ev->symbols, ev->nsymbols, sizeof(*ev->symbols),
                    cmp_symbol_hit);
        }
    }
    struct collect ci = { e, ev, 0 };
    intent_one_way(x, a, y, on_intent, &ci);
    intent_one_way(y, b, x, on_intent, &ci);

    size_t ta = 0, tb = 0;
    if (x->nfiles && y->nfiles) {
        chan_tree(x, y, &ta, &tb);
        ev->tree_a = x->files[ta].ws->path;
        ev->tree_b = y->files[tb].ws->path;
        ev->tree_distance = risk_tree_distance(ev->tree_a, ev->tree_b);
    }
}

void
risk_evidence_release(struct risk_evidence *ev)
{
    for (size_t i = 0; i < ev->ncontested; i++)
        range_set_release(&ev->contested[i].ranges);
    free(ev->contested);
    free(ev->dep.chain);
    free(ev->dep.chain_ids);
    free(ev->dep.symbols);
    free(ev->symbols);
    free(ev->intents);
    memset(ev, 0, sizeof(*ev));
}
