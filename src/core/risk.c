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
    c->weight[RISK_TREE] = 0.25;
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
}

enum key_type { KEY_UNIT, KEY_POSUNIT, KEY_UINT, KEY_MS, KEY_BOOL };

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
    if ((k->type == KEY_UINT || k->type == KEY_MS) && v != floor(v))
        ok = false;
    if (!ok) {
        if (k->type == KEY_POSUNIT)
            return as_errorf(e, AS_EINVAL,
                "bad value '%s' for '%s': want a number in (0, 1]", value, key);
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

int
risk_config_check(const struct risk_config *c, struct as_err *e)
{
    if (c->leave_ta > c->tau_ta)
        return as_errorf(e, AS_EINVAL,
            "'leave.traffic' (%g) is above 'tau.traffic' (%g)", c->leave_ta,
            c->tau_ta);
    if (c->leave_ra > c->tau_ra)
        return as_errorf(e, AS_EINVAL,
            "'leave.resolution' (%g) is above 'tau.resolution' (%g)",
            c->leave_ra, c->tau_ra);
    if (c->tau_ta > c->tau_ra)
        return as_errorf(e, AS_EINVAL,
            "'tau.traffic' (%g) is above 'tau.resolution' (%g)", c->tau_ta,
            c->tau_ra);
    if (c->leave_ta > c->leave_ra)
        return as_errorf(e, AS_EINVAL,
            "'leave.traffic' (%g) is above 'leave.resolution' (%g)",
            c->leave_ta, c->leave_ra);
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
};

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
 * some shortest chain's first hop from f does. */
static void
reach_file(struct risk_engine *e, struct scratch *sc, struct efile *f)
{
    const struct graph *g = e->g;
    bool known = sigma_known(e, f);
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

/* Changed definitions and the names the agent's changes use. */
static void
collect_symbols(struct risk_engine *e, struct scratch *sc, struct eagent *ea)
{
    size_t adefs = 0, arefs = 0;
    for (size_t i = 0; i < ea->nfiles; i++) {
        struct efile *f = &ea->files[i];
        if (f->gid == GRAPH_NONE || !e->g->files[f->gid].parsed)
            continue;
        const struct graph_file *gf = &e->g->files[f->gid];
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
        /* The spans of the definitions the agent changed, so that a
         * reference is tested against them in O(log n), not def by def. */
        struct range_set changed;
        range_set_init(&changed);
        /* defs come sorted by start: one walk over the ranges finds, for
         * each, the first range ending at or after its start. */
        size_t k0 = 0;
        for (uint32_t d = 0; d < gf->ndefs; d++) {
            const struct graph_def *def = &gf->defs[d];
            while (k0 < rs->n && rs->v[k0].end < def->start)
                k0++;
            if (!f->whole && !(k0 < rs->n && rs->v[k0].start <= def->end) &&
                !range_set_inserts_within(all, def->start, def->end))
                continue;
            if (!f->whole)
                range_set_add(&changed, def->start, def->end);
            ALLOC_GROW(ea->defs, ea->ndefs + 1, adefs);
            ea->defs[ea->ndefs].name = def->name;
            ea->defs[ea->ndefs].file = (uint32_t)i;
            ea->ndefs++;
        }
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
scratch_init(struct scratch *sc, const struct graph *g)
{
    size_t nf = g->nfiles;
    sc->stamp = xcalloc(nf, sizeof(*sc->stamp));
    sc->dist = xcalloc(nf, 1);
    sc->sure = xcalloc(nf, 1);
    sc->queue = xcalloc(nf, sizeof(*sc->queue));
    sc->name_stamp = xcalloc(g->nnames + 1, sizeof(*sc->name_stamp));
    sc->name_ref = xcalloc(g->nnames + 1, sizeof(*sc->name_ref));
    sc->cur_stamp = sc->cur_name_stamp = 0;
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
    memset(sc, 0, sizeof(*sc));
}

struct prep {
    struct risk_engine *e;
    struct scratch sc;
    size_t first, step;
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
        if (e->cfg->use_symbols)
            collect_symbols(e, &p->sc, ea);
        collect_deps(e, &p->sc, ea);
    }
    return NULL;
}

static void
prepare_agents(struct risk_engine *e, unsigned threads)
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
        if (t == 0)
            p[t].sc = e->sc;
        else
            scratch_init(&p[t].sc, e->g);
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

struct risk_engine *
risk_engine_new_mt(const struct risk_config *c, const struct graph *g,
    const struct agent *agents, size_t n, unsigned threads)
{
    struct risk_engine *e = xcalloc(1, sizeof(*e));
    e->cfg = c;
    e->g = g;
    e->n = n;
    e->agents = xcalloc(n ? n : 1, sizeof(*e->agents));
    strmap_init(&e->paths);
    strmap_init(&e->prefixes);
    if (g && g->nfiles) {
        size_t nf = g->nfiles;
        scratch_init(&e->sc, g);
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
        collect_prefixes(e, ea);
        ea->globs = xcalloc(ag->nintent ? ag->nintent : 1, sizeof(*ea->globs));
        for (size_t k = 0; k < ag->nintent; k++) {
            struct glob *gl;
            if (glob_compile(ag->intent[k], &gl, NULL) == 0)
                ea->globs[ea->nglobs++] = gl;
        }
    }
    if (e->g)
        prepare_agents(e, threads);
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
        }
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

/* Strongest coupling of down's files to up's changes. */
static double
dep_one_way(
    const struct eagent *up, const struct eagent *down, size_t *best_file)
{
    double best = 0;
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
    return best;
}

static double
chan_dependency(const struct eagent *a, const struct eagent *b)
{
    double x = dep_one_way(a, b, NULL);
    double y = dep_one_way(b, a, NULL);
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
                if (uf->gid == df->gid) {
                    hop = 1.0;
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
        out->r[RISK_DEPENDENCY] = chan_dependency(x, y);
        out->r[RISK_SYMBOL] = chan_symbol(e, x, y);
    }
    out->r[RISK_INTENT] = chan_intent(x, y);
    out->r[RISK_TREE] = chan_tree(x, y, NULL, NULL);
    out->risk = risk_combine(e->cfg, out->r);
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

/* Shortest import chain down -> ... -> up within cap, by BFS over imports
 * with predecessors; fills the chain downstream first. */
static void
find_chain(struct risk_engine *e, uint32_t down, uint32_t up,
    struct risk_dependency *d)
{
    const struct graph *g = e->g;
    uint32_t st = ++e->sc.cur_stamp;
    uint32_t *pred = xmalloc(g->nfiles * sizeof(*pred));
    size_t head = 0, tail = 0;
    e->sc.stamp[down] = st;
    e->sc.dist[down] = 0;
    pred[down] = GRAPH_NONE;
    e->sc.queue[tail++] = down;
    bool found = false;
    while (head < tail && !found) {
        uint32_t y = e->sc.queue[head++];
        if (e->sc.dist[y] >= e->cfg->cap)
            continue;
        const struct graph_file *gy = &g->files[y];
        for (uint32_t j = 0; j < gy->nout; j++) {
            uint32_t x = gy->out[j];
            if (e->sc.stamp[x] == st)
                continue;
            e->sc.stamp[x] = st;
            e->sc.dist[x] = (uint8_t)(e->sc.dist[y] + 1);
            pred[x] = y;
            e->sc.queue[tail++] = x;
            if (x == up) {
                found = true;
                break;
            }
        }
    }
    if (found) {
        size_t n = 0;
        for (uint32_t x = up; x != GRAPH_NONE; x = pred[x])
            n++;
        d->nchain = n;
        d->chain_ids = xmalloc(n * sizeof(*d->chain_ids));
        d->chain = xmalloc(n * sizeof(*d->chain));
        size_t k = n;
        for (uint32_t x = up; x != GRAPH_NONE; x = pred[x]) {
            d->chain_ids[--k] = x;
            d->chain[k] = g->files[x].path;
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
    double va = dep_one_way(x, y, &fb);
    double vb = dep_one_way(y, x, &fa);
    const struct eagent *up, *down;
    size_t down_file;
    if (va <= 0 && vb <= 0)
        return;
    if (va >= vb) {
        up = x, down = y, down_file = fb, d->value = va;
    } else {
        up = y, down = x, down_file = fa, d->value = vb;
    }
    /* The upstream file: the one of up's files giving that coupling. */
    const struct efile *uf = NULL;
    uint32_t target = down->files[down_file].gid;
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
    const struct efile *df = &down->files[down_file];
    d->present = true;
    d->up_agent = agent_index(e, up);
    d->down_agent = agent_index(e, down);
    d->upstream = uf->ws->path;
    d->downstream = df->ws->path;
    const struct reach *rc = find_reach(uf, df->gid);
    d->sigma = rc && !rc->sure ? e->cfg->sigma0 : 1.0;
    find_chain(e, df->gid, uf->gid, d);
    if (!uf->nchg)
        return;
    /* The changed names the downstream file or the first hop uses. */
    uint32_t hop = d->nchain >= 2 ? d->chain_ids[d->nchain - 2] : df->gid;
    d->symbols = xmalloc(uf->nchg * sizeof(*d->symbols));
    for (uint32_t k = 0; k < uf->nchg; k++) {
        uint32_t nn, nh;
        const uint32_t *nd = file_names(e, df->gid, &nn);
        bool used = has_u32(nd, nn, uf->chg[k]);
        const uint32_t *hn = file_names(e, hop, &nh);
        used = used || has_u32(hn, nh, uf->chg[k]);
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
