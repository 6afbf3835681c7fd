/*
 * replay.c - score recorded merges at half-way and at the end, with the
 * model and two baselines, and summarise how well each predicts conflicts.
 *
 * Longer than 1,000 lines on purpose: records mode and git mode fill the
 * same per-merge figures (struct rp_merge) that one summary, one table and
 * one JSON writer read; apart, the two modes would each need that struct
 * and its writers in a header of internals.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "view/gitview.h"
#include "eval/replay.h"
#include "core/advisory.h"
#include "core/leadtime.h"
#include "core/metrics.h"
#include "core/pair.h"
#include "git/files.h"
#include "git/forward.h"
#include "git/merge.h"
#include "git/sigcache.h"
#include "lang/repograph.h"
#include "util/strmap.h"
#include "util/xalloc.h"
#include "util/hex.h"
#include "util/banned.h"

enum { PT_HALF = 0, PT_END = 1, NPOINTS = 2 };
enum { LVL_CLEAR = 0, LVL_TRAFFIC = 1, LVL_RESOLUTION = 2 };
enum { SC_AIRSPACE = 0, SC_SHARED, SC_NEAR, NSCORERS };

static const char *const point_names[NPOINTS] = { "half", "end" };
static const char *const level_names[] = { "clear", "traffic", "resolution" };
static const char *const scorer_names[NSCORERS] = { "airspace", "shared",
    "near" };
static const char *const channel_names[REPLAY_NCHANNELS] = { "proximity",
    "hotspot", "exposure", "dirs", "activity" };
/* Channels of DESIGN.md §3 that records cannot feed. */
static const char *const absent_channels[] = { "merge", "dependency", "symbol",
    "intent", "context", "topic" };

/* One shared file at one point: recency product and nearest-hunk gap. */
struct rp_file {
    uint32_t path;
    uint32_t gap;
    double ww;
};

struct rp_point {
    int64_t t;
    uint32_t shared, near;
    uint32_t na, nb, dirs; /* working-set sizes, directories in common */
    uint32_t ca, cb;       /* commits each side had made since the base */
    size_t first, nfiles;  /* into replay.files */
    double r[REPLAY_NCHANNELS];
    double risk;
    int level;
    int top;                   /* channel with the largest weighted value */
    double rc[RISK_NCHANNELS]; /* git mode: the risk engine's channels */
};

/* Git mode: one side's state after ceil(n/2) of its n commits. */
struct rp_side {
    uint32_t ncommits;
    int64_t first_ms, tip_ms, half_ms;
    double half_risk;
    int half_level;
};

struct rp_merge {
    char sha[41];
    bool mainline, conflicted, strict;
    int64_t merge_ct;
    struct rp_point p[NPOINTS];
    int first_level_point; /* -1: never flagged */
    /* First time each scorer flagged the pair (airspace: traffic), ms;
     * -1 never. Records mode: the first point's time. */
    int64_t first_ms[NSCORERS];
    int64_t first_ra_ms;  /* first resolution, ms; -1 never */
    int64_t inflight_ms;  /* both sides in flight before the merge; -1 n/a */
    const char *first_ch; /* channel that first raised the advisory */
    /* records with steps: the pair at each recorded checkpoint before the
     * end (besides half-way), scored only to time the first warnings */
    struct rp_point *steps;
    size_t nsteps;
    /* git mode only */
    char base[41], parent[2][41];
    struct rp_side side[2];
    char **cpaths;
    size_t ncpaths;
};

struct hot_entry {
    uint32_t path;
    int64_t ct;
    size_t merge;
};

struct replay {
    struct replay_config cfg;
    struct strmap paths;
    struct rp_merge *m;
    size_t n, alloc;
    struct rp_file *files;
    size_t nfiles, afiles;
    struct hot_entry *hot;
    size_t nhot, ahot;
    size_t skipped;
    /* git mode */
    bool git;
    size_t merges_seen, hskip[HISTORY_NSKIP];
    size_t graph_builds, graph_updates, parsed, cached, merges_run, merge_hits;
    size_t merge_keys;   /* speculative merges known by merge_key() */
    size_t merges_cut;   /* told by the changed paths (merge_restricted) */
    size_t labels_cut;   /* labels told clean by the changed paths */
    size_t replay_steps; /* replayed trees from the previous commit's */
    size_t refined;      /* conflicted merges walked again (steps) */
    size_t replayed, replay_conflicts; /* side commits replayed onto B */
    char **notes; /* merges skipped during the replay, and why */
    size_t nnotes, anotes;
};

void
replay_config_default(struct replay_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->margin = 1;
    cfg->half_life_s = 0; /* off: see docs/replay.md */
    cfg->floor = 0.15;
    cfg->w[REPLAY_CH_PROXIMITY] = 0.8;
    cfg->w[REPLAY_CH_HOTSPOT] = 0.0;
    cfg->w[REPLAY_CH_EXPOSURE] = 0.25;
    cfg->w[REPLAY_CH_DIRS] = 0.1;
    cfg->w[REPLAY_CH_ACTIVITY] = 0.35;
    cfg->prox_scale = 0.3;
    cfg->prox_agg = PROX_AGG_MAX;
    cfg->hot_k = 1;
    cfg->exposure_k = 300;
    cfg->dirs_k = 10;
    cfg->activity_k = 20;
    cfg->w_overlap = 0.0; /* measured: docs/replay.md */
    cfg->w_tree = 0.0;
    cfg->tau_ta = 0.35;
    cfg->tau_ra = 0.70;
    cfg->near = 3;
    cfg->split = REPLAY_SPLIT_ALL;
    cfg->split_digit = 0;
}

static int
parse_num(const char *v, double lo, double hi, double *out)
{
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || !(d >= lo && d <= hi))
        return -1;
    *out = d;
    return 0;
}

int
replay_config_set(struct replay_config *cfg, const char *key, const char *value,
    struct as_err *err)
{
    double d;
    struct {
        const char *key;
        double *dst;
        double lo, hi;
    } reals[] = {
        { "recency.half_life", &cfg->half_life_s, 0, 1e12 },
        { "recency.floor", &cfg->floor, 0, 1 },
        { "weight.proximity", &cfg->w[REPLAY_CH_PROXIMITY], 0, 1 },
        { "weight.hotspot", &cfg->w[REPLAY_CH_HOTSPOT], 0, 1 },
        { "prox.scale", &cfg->prox_scale, 0, 1e9 },
        { "hot.k", &cfg->hot_k, 0, 1e9 },
        { "exposure.k", &cfg->exposure_k, 0, 1e12 },
        { "dirs.k", &cfg->dirs_k, 0, 1e9 },
        { "weight.exposure", &cfg->w[REPLAY_CH_EXPOSURE], 0, 1 },
        { "weight.dirs", &cfg->w[REPLAY_CH_DIRS], 0, 1 },
        { "weight.activity", &cfg->w[REPLAY_CH_ACTIVITY], 0, 1 },
        { "activity.k", &cfg->activity_k, 0, 1e9 },
        { "weight.overlap", &cfg->w_overlap, 0, 1 },
        { "weight.tree", &cfg->w_tree, 0, 1 },
        { "tau_ta", &cfg->tau_ta, 0, 1 },
        { "tau_ra", &cfg->tau_ra, 0, 1 },
    };
    for (size_t i = 0; i < sizeof(reals) / sizeof(reals[0]); i++) {
        if (strcmp(key, reals[i].key))
            continue;
        if (parse_num(value, reals[i].lo, reals[i].hi, &d))
            return as_errorf(err, AS_EINVAL,
                "bad value '%s' for '%s' (want %g..%g)", value, key,
                reals[i].lo, reals[i].hi);
        *reals[i].dst = d;
        return 0;
    }
    if (!strcmp(key, "margin") || !strcmp(key, "near")) {
        if (parse_num(value, 0, 1e6, &d) || d != floor(d))
            return as_errorf(err, AS_EINVAL,
                "bad value '%s' for '%s' (want a line count)", value, key);
        *(!strcmp(key, "margin") ? &cfg->margin : &cfg->near) = (uint32_t)d;
        return 0;
    }
    if (!strcmp(key, "prox.agg")) {
        if (!strcmp(value, "max"))
            cfg->prox_agg = PROX_AGG_MAX;
        else if (!strcmp(value, "noisy-or"))
            cfg->prox_agg = PROX_AGG_NOISY_OR;
        else
            return as_errorf(err, AS_EINVAL,
                "bad value '%s' for 'prox.agg' (want max or noisy-or)", value);
        return 0;
    }
    return as_errorf(err, AS_EINVAL, "unknown option '%s'", key);
}

struct replay *
replay_new(const struct replay_config *cfg)
{
    struct replay *rp = xcalloc(1, sizeof(*rp));
    rp->cfg = *cfg;
    strmap_init(&rp->paths);
    return rp;
}

void
replay_free(struct replay *rp)
{
    if (!rp)
        return;
    strmap_release(&rp->paths);
    for (size_t i = 0; i < rp->n; i++) {
        for (size_t k = 0; k < rp->m[i].ncpaths; k++)
            free(rp->m[i].cpaths[k]);
        free(rp->m[i].cpaths);
        free(rp->m[i].steps);
    }
    free(rp->m);
    for (size_t i = 0; i < rp->nnotes; i++)
        free(rp->notes[i]);
    free(rp->notes);
    free(rp->files);
    free(rp->hot);
    free(rp);
}

size_t
replay_nnotes(const struct replay *rp)
{
    return rp->nnotes;
}

const char *
replay_note(const struct replay *rp, size_t i)
{
    return i < rp->nnotes ? rp->notes[i] : NULL;
}

void
replay_note_skipped(struct replay *rp)
{
    rp->skipped++;
}

static uint32_t
intern(struct replay *rp, const char *path)
{
    return strmap_put(
        &rp->paths, path, strlen(path), (uint32_t)rp->paths.count, NULL);
}

static double
recency(const struct replay_config *cfg, int64_t t, int64_t changed)
{
    if (cfg->half_life_s <= 0)
        return 1;
    double age = (double)(t - changed);
    if (age < 0)
        age = 0;
    return cfg->floor + (1 - cfg->floor) * exp2(-age / cfg->half_life_s);
}

/*
 * Number of directories (proper path prefixes) that hold changed files of
 * both working sets.
 */
static uint32_t
common_dirs(const struct rec_ws *a, const struct rec_ws *b)
{
    struct strmap da, db;
    strmap_init(&da);
    strmap_init(&db);
    for (size_t i = 0; i < a->n; i++) {
        const char *p = a->files[i].path;
        for (const char *s = strchr(p, '/'); s; s = strchr(s + 1, '/'))
            strmap_put(&da, p, (size_t)(s - p), 0, NULL);
    }
    uint32_t common = 0;
    for (size_t i = 0; i < b->n; i++) {
        const char *p = b->files[i].path;
        for (const char *s = strchr(p, '/'); s; s = strchr(s + 1, '/')) {
            bool added;
            uint32_t v;
            strmap_put(&db, p, (size_t)(s - p), 0, &added);
            if (added && strmap_get(&da, p, (size_t)(s - p), &v))
                common++;
        }
    }
    strmap_release(&da);
    strmap_release(&db);
    return common;
}

/* A recorded working set as the risk engine's agent, recency-weighted. */
static void
agent_from_ws(const struct replay *rp, struct agent *ag, const struct rec_ws *w,
    int64_t side_t, int64_t t)
{
    for (size_t i = 0; i < w->n; i++) {
        const struct rec_file *rf = &w->files[i];
        enum ws_status st = WS_MODIFIED;
        if (rf->whole)
            st = rf->binary          ? WS_BINARY
                 : rf->status == 'D' ? WS_DELETED
                 : rf->status == 'T' ? WS_MODE
                 : rf->status == 'R' ? WS_RENAMED
                                     : WS_ADDED;
        struct ws_file *f = agent_add_file(ag, rf->path, st);
        f->whole = rf->whole;
        for (size_t k = 0; k < rf->nranges; k++)
            range_set_add(&f->ranges, rf->ranges[k].start, rf->ranges[k].end);
        f->weight =
            recency(&rp->cfg, t, rf->changed_ct ? rf->changed_ct : side_t);
    }
    agent_sort(ag);
}

/* The risk engine's channels that records can feed: overlap and tree
 * (no graph, no contents, no session data). */
static void
engine_point(struct replay *rp, struct rp_point *pt, const struct rec_ws *a,
    const struct rec_ws *b, int64_t ta, int64_t tb, int64_t t)
{
    struct risk_config rc;
    struct risk_result res;
    struct agent ag[2];
    risk_config_default(&rc);
    rc.margin = rp->cfg.margin;
    agent_init(&ag[0], "side1");
    agent_init(&ag[1], "side2");
    agent_from_ws(rp, &ag[0], a, ta, t);
    agent_from_ws(rp, &ag[1], b, tb, t);
    struct risk_engine *e = risk_engine_new(&rc, NULL, ag, 2);
    risk_engine_score(e, 0, 1, &res);
    risk_engine_free(e);
    pt->rc[RISK_OVERLAP] = res.r[RISK_OVERLAP];
    pt->rc[RISK_TREE] = res.r[RISK_TREE];
    agent_release(&ag[0]);
    agent_release(&ag[1]);
}

/* When a recorded merge happened (Unix s): its committer time, or a later
 * time it merges (a tip's, a half-way commit's) when a skewed clock dated
 * the merge before it (a merge cannot precede what it merges; no lead comes
 * out negative). Git mode gets the same from history_collect(). */
static int64_t
merge_time(int64_t merge_ct, int64_t later)
{
    return merge_ct > later ? merge_ct : later;
}

/* Shared files of two working sets at time t, side times as fallback. */
static void
add_point(struct replay *rp, struct rp_point *pt, const struct rec_ws *a,
    const struct rec_ws *b, int64_t ta, int64_t tb, int64_t t, uint32_t ca,
    uint32_t cb)
{
    pt->t = t;
    pt->ca = ca;
    pt->cb = cb;
    pt->first = rp->nfiles;
    pt->na = (uint32_t)a->n;
    pt->nb = (uint32_t)b->n;
    if (rp->cfg.w[REPLAY_CH_DIRS] > 0)
        pt->dirs = common_dirs(a, b);
    size_t i = 0, j = 0;
    while (i < a->n && j < b->n) {
        int c = strcmp(a->files[i].path, b->files[j].path);
        if (c < 0) {
            i++;
            continue;
        }
        if (c > 0) {
            j++;
            continue;
        }
        const struct rec_file *fa = &a->files[i++], *fb = &b->files[j++];
        pt->shared++;
        if (prox_near_pairs(fa->ranges, fa->nranges, fa->whole, fb->ranges,
                fb->nranges, fb->whole, rp->cfg.near))
            pt->near++;
        ALLOC_GROW(rp->files, rp->nfiles + 1, rp->afiles);
        struct rp_file *f = &rp->files[rp->nfiles++];
        f->path = intern(rp, fa->path);
        f->gap = prox_gap(fa->ranges, fa->nranges, fa->whole, fb->ranges,
            fb->nranges, fb->whole);
        f->ww = recency(&rp->cfg, t, fa->changed_ct ? fa->changed_ct : ta) *
                recency(&rp->cfg, t, fb->changed_ct ? fb->changed_ct : tb);
    }
    pt->nfiles = rp->nfiles - pt->first;
    engine_point(rp, pt, a, b, ta, tb, t);
}

static bool
in_split(const struct replay_config *cfg, const char *sha)
{
    if (cfg->split == REPLAY_SPLIT_ALL)
        return true;
    size_t len = strlen(sha);
    int v = cfg->split_digit < len ? hex_digit(sha[cfg->split_digit]) : 0;
    if (v < 0)
        v = 0;
    return (v % 2 == 0) == (cfg->split == REPLAY_SPLIT_TUNE);
}

/* Side s's latest checkpoint (a step or half-way) at or before t; NULL
 * when it has none yet. */
static const struct rec_ws *
side_state(const struct rec_side *s, int64_t t, int64_t *ct, uint32_t *n)
{
    const struct rec_ws *ws = NULL;
    for (size_t i = 0; i < s->nsteps; i++)
        if (s->step_ct[i] <= t && (!ws || s->step_ct[i] >= *ct)) {
            ws = &s->steps[i];
            *ct = s->step_ct[i];
            *n = s->step_commits[i];
        }
    if (s->half_ct <= t && (!ws || s->half_ct >= *ct)) {
        ws = &s->half;
        *ct = s->half_ct;
        *n = s->half_commits;
    }
    return ws;
}

/* The pair at every recorded checkpoint of either side before the end, when
 * both sides have one: each side as its latest checkpoint then. */
static void
add_steps(
    struct replay *rp, struct rp_merge *m, const struct record *r, int64_t te)
{
    size_t n = r->side[0].nsteps + r->side[1].nsteps;
    if (!n)
        return;
    m->steps = xcalloc(n + 2, sizeof(*m->steps));
    for (int s = 0; s < 2; s++) {
        const struct rec_side *sd = &r->side[s];
        for (size_t i = 0; i <= sd->nsteps; i++) {
            int64_t t = i < sd->nsteps ? sd->step_ct[i] : sd->half_ct;
            int64_t ct[2] = { 0, 0 };
            uint32_t c[2] = { 0, 0 };
            const struct rec_ws *a = side_state(&r->side[0], t, &ct[0], &c[0]);
            const struct rec_ws *b = side_state(&r->side[1], t, &ct[1], &c[1]);
            if (!a || !b || t >= te)
                continue;
            add_point(
                rp, &m->steps[m->nsteps++], a, b, ct[0], ct[1], t, c[0], c[1]);
        }
    }
}

void
replay_add(struct replay *rp, const struct record *r)
{
    /* Conflicts are history every later merge may learn from, whichever
     * split it falls in. */
    for (size_t k = 0; r->conflicted && k < r->nconflicted; k++) {
        ALLOC_GROW(rp->hot, rp->nhot + 1, rp->ahot);
        rp->hot[rp->nhot++] =
            (struct hot_entry){ intern(rp, r->conflicted_paths[k]), r->merge_ct,
                rp->n };
    }
    ALLOC_GROW(rp->m, rp->n + 1, rp->alloc);
    struct rp_merge *m = &rp->m[rp->n++];
    memset(m, 0, sizeof(*m));
    snprintf(m->sha, sizeof(m->sha), "%s", r->merge);
    m->mainline = r->mainline;
    m->conflicted = r->conflicted;
    m->strict = r->side[0].n_commits >= 2 && r->side[1].n_commits >= 2;
    const struct rec_side *s0 = &r->side[0], *s1 = &r->side[1];
    int64_t start = s0->first_ct > s1->first_ct ? s0->first_ct : s1->first_ct;
    int64_t th = s0->half_ct > s1->half_ct ? s0->half_ct : s1->half_ct;
    int64_t te = s0->tip_ct > s1->tip_ct ? s0->tip_ct : s1->tip_ct;
    /* the merge follows every point scored, however skewed the clocks */
    m->merge_ct = merge_time(merge_time(r->merge_ct, te), th);
    m->inflight_ms = m->merge_ct > start ? (m->merge_ct - start) * 1000 : -1;
    add_point(rp, &m->p[PT_HALF], &s0->half, &s1->half, s0->half_ct,
        s1->half_ct, th, s0->half_commits, s1->half_commits);
    add_point(rp, &m->p[PT_END], &s0->ws, &s1->ws, s0->tip_ct, s1->tip_ct, te,
        s0->n_commits, s1->n_commits);
    add_steps(rp, m, r, te);
}

static int
cmp_hot(const void *pa, const void *pb)
{
    const struct hot_entry *a = pa, *b = pb;
    if (a->path != b->path)
        return a->path < b->path ? -1 : 1;
    return (a->ct > b->ct) - (a->ct < b->ct);
}

/* Conflicts on path in merges committed before t, not counting merge self. */
static uint32_t
hot_count(const struct replay *rp, uint32_t path, int64_t t, size_t self)
{
    size_t lo = 0, hi = rp->nhot;
    while (lo < hi) { /* first entry of path */
        size_t mid = lo + (hi - lo) / 2;
        if (rp->hot[mid].path < path)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t n = 0;
    for (size_t i = lo; i < rp->nhot && rp->hot[i].path == path; i++) {
        if (rp->hot[i].ct >= t)
            break;
        if (rp->hot[i].merge != self)
            n++;
    }
    return n;
}

static void
score_point(struct replay *rp, size_t self, struct rp_point *pt)
{
    const struct replay_config *cfg = &rp->cfg;
    double *prox = xcalloc(pt->nfiles + 1, sizeof(double));
    double hot = 0;
    for (size_t k = 0; k < pt->nfiles; k++) {
        const struct rp_file *f = &rp->files[pt->first + k];
        prox[k] = f->ww * prox_term(f->gap, cfg->margin, cfg->prox_scale);
        if (cfg->w[REPLAY_CH_HOTSPOT] > 0) {
            double h = f->ww * prox_hotspot(hot_count(rp, f->path, pt->t, self),
                                   cfg->hot_k);
            if (h > hot)
                hot = h;
        }
    }
    pt->r[REPLAY_CH_PROXIMITY] = prox_combine(prox, pt->nfiles, cfg->prox_agg);
    pt->r[REPLAY_CH_HOTSPOT] = hot;
    pt->r[REPLAY_CH_EXPOSURE] =
        prox_saturate((double)pt->na * (double)pt->nb, cfg->exposure_k);
    pt->r[REPLAY_CH_DIRS] = prox_saturate(pt->dirs, cfg->dirs_k);
    pt->r[REPLAY_CH_ACTIVITY] =
        prox_saturate(pt->ca < pt->cb ? pt->ca : pt->cb, cfg->activity_k);
    free(prox);
    double keep = 1, best = 0;
    pt->top = -1;
    for (int c = 0; c < REPLAY_NCHANNELS; c++) {
        double v = cfg->w[c] * pt->r[c];
        keep *= 1 - v;
        if (v > best) {
            best = v;
            pt->top = c;
        }
    }
    /* the engine's channels: top >= REPLAY_NCHANNELS names one of them */
    const int ech[] = { RISK_OVERLAP, RISK_TREE };
    const double ew[] = { cfg->w_overlap, cfg->w_tree };
    for (int k = 0; k < 2; k++) {
        double v = ew[k] * pt->rc[ech[k]];
        keep *= 1 - v;
        if (v > best) {
            best = v;
            pt->top = REPLAY_NCHANNELS + ech[k];
        }
    }
    pt->risk = 1 - keep;
    /* the records' own model (docs/risk-model.md §10), classified as the
     * live pipeline classifies a pair with no history */
    struct risk_config rc;
    risk_config_default(&rc);
    rc.tau_ta = cfg->tau_ta;
    rc.tau_ra = cfg->tau_ra;
    pt->level = (int)pair_level(&rc, pt->risk);
}

/* An earlier first time t (ms) for *first; -1 = none yet. */
/* No first warning yet: not raised, no channel, no baseline hit. */
static void
firsts_clear(struct rp_merge *m)
{
    m->first_ra_ms = -1;
    m->first_ch = NULL;
    for (int sc = 0; sc < NSCORERS; sc++)
        m->first_ms[sc] = -1;
}

static void
take_earlier(int64_t *first, int64_t t)
{
    if (*first < 0 || t < *first)
        *first = t;
}

/* Score a checkpoint and move the merge's first warnings earlier by it. */
static void
step_first(struct replay *rp, size_t self, struct rp_point *pt)
{
    struct rp_merge *m = &rp->m[self];
    score_point(rp, self, pt);
    int64_t t = pt->t * 1000;
    if (pt->level > LVL_CLEAR) {
        if (m->first_ms[SC_AIRSPACE] < 0 || t < m->first_ms[SC_AIRSPACE]) {
            if (pt->top >= REPLAY_NCHANNELS)
                m->first_ch = risk_channel_name(pt->top - REPLAY_NCHANNELS);
            else if (pt->top >= 0)
                m->first_ch = channel_names[pt->top];
        }
        take_earlier(&m->first_ms[SC_AIRSPACE], t);
    }
    if (pt->level >= LVL_RESOLUTION)
        take_earlier(&m->first_ra_ms, t);
    if (pt->shared)
        take_earlier(&m->first_ms[SC_SHARED], t);
    if (pt->near)
        take_earlier(&m->first_ms[SC_NEAR], t);
}

void
replay_finish(struct replay *rp)
{
    if (rp->nhot) /* (qsort's array may not be NULL) */
        qsort(rp->hot, rp->nhot, sizeof(*rp->hot), cmp_hot);
    for (size_t i = 0; i < rp->n; i++) {
        struct rp_merge *m = &rp->m[i];
        m->first_level_point = -1;
        firsts_clear(m);
        for (int p = 0; p < NPOINTS; p++) {
            const struct rp_point *pt = &m->p[p];
            score_point(rp, i, &m->p[p]);
            if (m->first_level_point < 0 && pt->level > LVL_CLEAR) {
                m->first_level_point = p;
                m->first_ms[SC_AIRSPACE] = pt->t * 1000;
                if (pt->top >= REPLAY_NCHANNELS)
                    m->first_ch = risk_channel_name(pt->top - REPLAY_NCHANNELS);
                else if (pt->top >= 0)
                    m->first_ch = channel_names[pt->top];
            }
            if (m->first_ra_ms < 0 && pt->level >= LVL_RESOLUTION)
                m->first_ra_ms = pt->t * 1000;
            if (m->first_ms[SC_SHARED] < 0 && pt->shared)
                m->first_ms[SC_SHARED] = pt->t * 1000;
            if (m->first_ms[SC_NEAR] < 0 && pt->near)
                m->first_ms[SC_NEAR] = pt->t * 1000;
        }
        for (size_t k = 0; k < m->nsteps; k++)
            step_first(rp, i, &m->steps[k]);
    }
}

/* ---- summary ---- */

enum {
    GR_ALL = 0,
    GR_MAINLINE,
    GR_BRANCH,
    GR_STRICT,
    GR_STRICT_BRANCH,
    NGROUPS
};
static const char *const group_names[NGROUPS] = { "all", "mainline", "branch",
    "strict", "strict-branch" };

struct scorer_stats {
    double auc;
    struct metrics_confusion traffic, resolution; /* baselines: one rule */
};

/* Lead time of the first correct warning over flagged conflicted merges. */
struct lead_stats {
    size_t n;
    double median_s, median_frac;
};

struct group_stats {
    size_t n, conflicted;
    struct scorer_stats s[NPOINTS][NSCORERS];
    /* airspace's risk held to near's flag budget at each point */
    struct metrics_budget at_near[NPOINTS];
    struct lead_stats lead[NSCORERS];
    /* airspace's first traffic and first resolution over every conflicted
     * merge, as shares of the time in flight (core/leadtime.h) */
    struct lead_quartiles window[2];
};

/* Whether airspace beats the baselines at one point: auc 1/0 when its AUC
 * is above the better baseline's, traffic 1/0 when it catches more
 * conflicts than near with no more merges flagged (-1: undefined, the
 * group has no conflict or no clean merge for AUC, no conflict for
 * traffic). */
struct verdict {
    int auc;
    int traffic;
    double best_auc; /* the better baseline's AUC; NAN when undefined */
};

static struct verdict
point_verdict(const struct scorer_stats s[NSCORERS])
{
    struct verdict v = { -1, -1, NAN };
    for (int sc = SC_SHARED; sc < NSCORERS; sc++)
        if (!isnan(s[sc].auc) && (isnan(v.best_auc) || s[sc].auc > v.best_auc))
            v.best_auc = s[sc].auc;
    if (!isnan(v.best_auc) && !isnan(s[SC_AIRSPACE].auc))
        v.auc = s[SC_AIRSPACE].auc > v.best_auc;
    const struct metrics_confusion *a = &s[SC_AIRSPACE].traffic,
                                   *n = &s[SC_NEAR].traffic;
    if (a->tp + a->fn > 0)
        v.traffic = a->tp > n->tp && a->tp + a->fp <= n->tp + n->fp;
    return v;
}

static const char *
yes_no_na(int v)
{
    return v < 0 ? "n/a" : v ? "yes" : "no";
}

static bool
in_group(const struct rp_merge *m, int g)
{
    switch (g) {
    case GR_MAINLINE:
        return m->mainline;
    case GR_BRANCH:
        return !m->mainline;
    case GR_STRICT:
        return m->strict;
    case GR_STRICT_BRANCH:
        return m->strict && !m->mainline;
    }
    return true;
}

static double
scorer_value(const struct rp_point *pt, int sc)
{
    switch (sc) {
    case SC_SHARED:
        return pt->shared;
    case SC_NEAR:
        return pt->near;
    }
    return pt->risk;
}

static void
lead_window(const struct replay *rp, int g, struct group_stats *gs)
{
    struct lead_merge *lm = xcalloc(rp->n + 1, sizeof(*lm));
    size_t k = 0;
    for (size_t i = 0; i < rp->n; i++) {
        const struct rp_merge *m = &rp->m[i];
        if (!in_split(&rp->cfg, m->sha) || !in_group(m, g) || !m->conflicted)
            continue;
        int64_t end = m->merge_ct * 1000;
        lm[k++] =
            (struct lead_merge){ m->inflight_ms >= 0 ? end - m->inflight_ms
                                                     : end,
                end, m->first_ms[SC_AIRSPACE], m->first_ra_ms };
    }
    gs->window[0] = lead_summary(lm, k, LEAD_TRAFFIC);
    gs->window[1] = lead_summary(lm, k, LEAD_RESOLUTION);
    free(lm);
}

static void
group_compute(const struct replay *rp, int g, struct group_stats *gs)
{
    memset(gs, 0, sizeof(*gs));
    double *score = xcalloc(rp->n + 1, sizeof(double));
    bool *label = xcalloc(rp->n + 1, sizeof(bool));
    double *frac = xcalloc(rp->n + 1, sizeof(double));
    for (int p = 0; p < NPOINTS; p++) {
        for (int sc = 0; sc < NSCORERS; sc++) {
            size_t k = 0;
            struct scorer_stats *st = &gs->s[p][sc];
            for (size_t i = 0; i < rp->n; i++) {
                const struct rp_merge *m = &rp->m[i];
                if (!in_split(&rp->cfg, m->sha) || !in_group(m, g))
                    continue;
                const struct rp_point *pt = &m->p[p];
                score[k] = scorer_value(pt, sc);
                label[k++] = m->conflicted;
                bool ta = sc == SC_AIRSPACE ? pt->level >= LVL_TRAFFIC
                                            : score[k - 1] > 0;
                bool ra = sc == SC_AIRSPACE ? pt->level >= LVL_RESOLUTION
                                            : score[k - 1] > 0;
                metrics_confusion_add(&st->traffic, ta, m->conflicted);
                metrics_confusion_add(&st->resolution, ra, m->conflicted);
            }
            st->auc = metrics_auc(score, label, k);
            if (!p && !sc) {
                gs->n = k;
                for (size_t i = 0; i < k; i++)
                    gs->conflicted += label[i];
            }
        }
        size_t k = 0;
        for (size_t i = 0; i < rp->n; i++) {
            const struct rp_merge *m = &rp->m[i];
            if (!in_split(&rp->cfg, m->sha) || !in_group(m, g))
                continue;
            score[k] = m->p[p].risk;
            label[k++] = m->conflicted;
        }
        const struct metrics_confusion *nt = &gs->s[p][SC_NEAR].traffic;
        gs->at_near[p] = metrics_at_budget(score, label, k, nt->tp + nt->fp);
    }
    for (int sc = 0; sc < NSCORERS; sc++) {
        size_t k = 0, kf = 0;
        for (size_t i = 0; i < rp->n; i++) {
            const struct rp_merge *m = &rp->m[i];
            if (!in_split(&rp->cfg, m->sha) || !in_group(m, g) ||
                !m->conflicted || m->first_ms[sc] < 0)
                continue;
            double lead = (double)(m->merge_ct * 1000 - m->first_ms[sc]);
            if (lead < 0)
                lead = 0;
            score[k++] = lead / 1000;
            if (m->inflight_ms > 0)
                frac[kf++] = lead / (double)m->inflight_ms;
        }
        gs->lead[sc].n = k;
        gs->lead[sc].median_s = metrics_median(score, k);
        gs->lead[sc].median_frac = metrics_median(frac, kf);
    }
    lead_window(rp, g, gs);
    free(frac);
    free(score);
    free(label);
}

static const char *
split_name(enum replay_split s)
{
    return s == REPLAY_SPLIT_TUNE       ? "tune"
           : s == REPLAY_SPLIT_HELD_OUT ? "held-out"
                                        : "all";
}

static void
fmt3(char *buf, size_t len, double v)
{
    if (isnan(v))
        snprintf(buf, len, "%s", "n/a");
    else
        snprintf(buf, len, "%.3f", v);
}

/* Quartiles of airspace's lead over every conflicted merge (never = 0). */
static void
print_lead_window(FILE *out, const struct lead_quartiles w[2])
{
    fprintf(out, "  lead as a share of the time in flight, every conflicted "
                 "merge (never = 0), q1/median/q3:");
    for (int k = 0; k < 2; k++) {
        char q[3][16];
        fmt3(q[0], 16, w[k].q1);
        fmt3(q[1], 16, w[k].median);
        fmt3(q[2], 16, w[k].q3);
        fprintf(out, " %s %s/%s/%s (raised %zu of %zu)%s",
            k ? "resolution" : "traffic", q[0], q[1], q[2], w[k].raised, w[k].n,
            k ? "\n" : ";");
    }
}

void
replay_print_table(const struct replay *rp, FILE *out)
{
    if (rp->git) {
        fprintf(out,
            "airspace replay: %zu merge commits, %zu replayed, skipped:",
            rp->merges_seen, rp->n);
        for (int k = 0; k < HISTORY_NSKIP; k++)
            fprintf(out, " %s %zu%s", history_skip_name(k), rp->hskip[k],
                k + 1 < HISTORY_NSKIP ? "," : "");
        fprintf(out,
            "\ngraph builds %zu (files parsed %zu, cached %zu), files "
            "updated between bases %zu, speculative merges %zu (cache "
            "hits %zu), side commits replayed onto the base %zu (paths "
            "taken from the commit %zu)",
            rp->graph_builds, rp->parsed, rp->cached, rp->graph_updates,
            rp->merges_run, rp->merge_hits, rp->replayed, rp->replay_conflicts);
    } else {
        fprintf(out, "airspace replay: %zu merges read, %zu skipped, split %s",
            rp->n, rp->skipped, split_name(rp->cfg.split));
        if (rp->cfg.split != REPLAY_SPLIT_ALL)
            fprintf(out, " (sha digit %u)", rp->cfg.split_digit);
        fprintf(out, "\nabsent from records:");
        for (size_t i = 0;
             i < sizeof(absent_channels) / sizeof(absent_channels[0]); i++)
            fprintf(out, " %s%s", absent_channels[i],
                i + 1 < sizeof(absent_channels) / sizeof(absent_channels[0])
                    ? ","
                    : "");
    }
    /* Nothing to score: every table below would be n/a, so one line says
     * why instead. */
    struct group_stats all;
    group_compute(rp, GR_ALL, &all);
    if (all.n == 0) {
        if (rp->git && rp->merges_seen == 0)
            fprintf(out, "\nno merge commits in range: nothing to replay\n");
        else if (rp->git)
            fprintf(out,
                "\nnone of the %zu merge commits replayed (all "
                "skipped): nothing to score\n",
                rp->merges_seen);
        else
            fprintf(out, "\nno merges to score%s\n",
                rp->cfg.split != REPLAY_SPLIT_ALL ? " in this split" : "");
        return;
    }
    fprintf(out, "\nflagged: airspace TA = level >= traffic, RA = "
                 "resolution; baselines flag score > 0 (TA = RA)\n");
    for (int g = 0; g < NGROUPS; g++) {
        struct group_stats gs;
        group_compute(rp, g, &gs);
        fprintf(out, "\n%s: %zu merges, %zu conflicted\n", group_names[g], gs.n,
            gs.conflicted);
        fprintf(out, "  %-5s %-9s %6s %7s %7s %7s %7s %7s\n", "point", "score",
            "AUC", "TA-prec", "TA-rec", "TA-flag", "RA-prec", "RA-rec");
        for (int p = 0; p < NPOINTS; p++) {
            for (int sc = 0; sc < NSCORERS; sc++) {
                const struct scorer_stats *st = &gs.s[p][sc];
                char v[6][16];
                fmt3(v[0], 16, st->auc);
                fmt3(v[1], 16, metrics_precision(&st->traffic));
                fmt3(v[2], 16, metrics_recall(&st->traffic));
                fmt3(v[3], 16, metrics_flagged_share(&st->traffic));
                fmt3(v[4], 16, metrics_precision(&st->resolution));
                fmt3(v[5], 16, metrics_recall(&st->resolution));
                fprintf(out, "  %-5s %-9s %6s %7s %7s %7s %7s %7s\n",
                    point_names[p], scorer_names[sc], v[0], v[1], v[2], v[3],
                    v[4], v[5]);
            }
        }
        for (int p = 0; p < NPOINTS; p++) {
            struct verdict v = point_verdict(gs.s[p]);
            const struct metrics_confusion *a = &gs.s[p][SC_AIRSPACE].traffic,
                                           *n = &gs.s[p][SC_NEAR].traffic;
            char x[2][16];
            fmt3(x[0], 16, gs.s[p][SC_AIRSPACE].auc);
            fmt3(x[1], 16, v.best_auc);
            fprintf(out,
                "  %s: AUC above both baselines %s (%s vs %s); traffic "
                "catches more than near at no more flagged %s (%zu/%zu vs "
                "%zu/%zu caught/flagged)\n",
                point_names[p], yes_no_na(v.auc), x[0], x[1],
                yes_no_na(v.traffic), a->tp, a->tp + a->fp, n->tp,
                n->tp + n->fp);
            const struct metrics_budget *b = &gs.at_near[p];
            char cut[16];
            fmt3(cut, 16, b->cut);
            fprintf(out,
                "  %s: at near's budget airspace's highest risks catch %zu "
                "of %zu flagged (risk >= %s)\n",
                point_names[p], b->tp, b->flagged, cut);
        }
        fprintf(out, "  first correct warning, median lead:");
        for (int sc = 0; sc < NSCORERS; sc++) {
            char v[2][16];
            fmt3(v[0], 16, gs.lead[sc].median_s / 3600);
            fmt3(v[1], 16, gs.lead[sc].median_frac);
            fprintf(out, " %s %s h (%s of flight, n %zu)%s", scorer_names[sc],
                v[0], v[1], gs.lead[sc].n, sc + 1 < NSCORERS ? ";" : "\n");
        }
        print_lead_window(out, gs.window);
    }
    if (!rp->cfg.per_merge)
        return;
    fprintf(out, "\n%-12s %-5s %-4s %8s %-10s %8s %-10s %s\n", "merge", "where",
        "conf", "R-half", "level", "R-end", "level", "first");
    for (size_t i = 0; i < rp->n; i++) {
        const struct rp_merge *m = &rp->m[i];
        if (!in_split(&rp->cfg, m->sha))
            continue;
        const struct rp_point *h = &m->p[PT_HALF], *e = &m->p[PT_END];
        const char *first = m->first_ch ? m->first_ch : "-";
        fprintf(out, "%-12.12s %-5s %-4s %8.4f %-10s %8.4f %-10s %s\n", m->sha,
            m->mainline ? "main" : "branch", m->conflicted ? "yes" : "no",
            h->risk, level_names[h->level], e->risk, level_names[e->level],
            first);
    }
}

static json_t *
jnum(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

static json_t *
confusion_json(const struct metrics_confusion *c)
{
    return json_pack("{s:o,s:o,s:o,s:I,s:I,s:I,s:I}", "precision",
        jnum(metrics_precision(c)), "recall", jnum(metrics_recall(c)),
        "flagged_share", jnum(metrics_flagged_share(c)), "tp",
        (json_int_t)c->tp, "fp", (json_int_t)c->fp, "fn", (json_int_t)c->fn,
        "tn", (json_int_t)c->tn);
}

static json_t *
point_json(const struct replay *rp, const struct rp_point *pt)
{
    json_t *ch = json_object();
    if (rp->git)
        for (int c = 0; c < RISK_NCHANNELS; c++)
            json_object_set_new(ch, risk_channel_name(c), json_real(pt->rc[c]));
    else {
        for (int c = 0; c < REPLAY_NCHANNELS; c++)
            json_object_set_new(ch, channel_names[c], json_real(pt->r[c]));
        json_object_set_new(ch, "overlap", json_real(pt->rc[RISK_OVERLAP]));
        json_object_set_new(ch, "tree", json_real(pt->rc[RISK_TREE]));
    }
    return json_pack("{s:f,s:s,s:o,s:I,s:I,s:I,s:[I,I],s:[I,I]}", "risk",
        pt->risk, "level", level_names[pt->level], "channels", ch, "shared",
        (json_int_t)pt->shared, "near", (json_int_t)pt->near, "t",
        (json_int_t)pt->t, "files", (json_int_t)pt->na, (json_int_t)pt->nb,
        "commits", (json_int_t)pt->ca, (json_int_t)pt->cb);
}

static json_t *
jtime(int64_t ms)
{
    return ms < 0 ? json_null() : json_integer((json_int_t)(ms / 1000));
}

/* Per-merge times of both modes (Unix seconds): the merge, the time both
 * sides were in flight, the first warnings and the lead. */
static void
times_json(json_t *o, const struct rp_merge *m)
{
    json_t *lead = json_null(), *frac = json_null();
    if (m->first_ms[SC_AIRSPACE] >= 0) {
        int64_t l = m->merge_ct * 1000 - m->first_ms[SC_AIRSPACE];
        lead = json_integer((json_int_t)(l / 1000));
        if (m->inflight_ms > 0)
            frac = json_real((double)l / (double)m->inflight_ms);
    }
    json_object_update_new(
        o, json_pack("{s:I,s:o,s:o,s:o,s:o,s:o,s:{s:o,s:o}}", "merge_time",
               (json_int_t)m->merge_ct, "in_flight_s", jtime(m->inflight_ms),
               "first_traffic", jtime(m->first_ms[SC_AIRSPACE]),
               "first_resolution", jtime(m->first_ra_ms), "lead_s", lead,
               "lead_fraction", frac, "baseline_first", "shared",
               jtime(m->first_ms[SC_SHARED]), "near",
               jtime(m->first_ms[SC_NEAR])));
}

/* Git mode's per-merge fields. */
static void
git_merge_json(json_t *o, const struct rp_merge *m)
{
    json_t *paths = json_array(), *sides = json_array();
    for (size_t k = 0; k < m->ncpaths; k++)
        json_array_append_new(paths, json_string(m->cpaths[k]));
    for (int s = 0; s < 2; s++) {
        const struct rp_side *sd = &m->side[s];
        json_array_append_new(sides,
            json_pack("{s:I,s:o,s:o,s:{s:o,s:f,s:s}}", "commits",
                (json_int_t)sd->ncommits, "first_time", jtime(sd->first_ms),
                "tip_time", jtime(sd->tip_ms), "half", "t", jtime(sd->half_ms),
                "risk", sd->half_risk, "level", level_names[sd->half_level]));
    }
    json_object_update_new(
        o, json_pack("{s:s,s:[s,s],s:o,s:o}", "base", m->base, "parents",
               m->parent[0], m->parent[1], "conflicted_paths", paths, "sides",
               sides));
}

void
replay_print_json(const struct replay *rp, FILE *out)
{
    json_t *root = json_object();
    json_object_set_new(root, "merges_read", json_integer((json_int_t)rp->n));
    json_object_set_new(root, "skipped", json_integer((json_int_t)rp->skipped));
    json_object_set_new(root, "split", json_string(split_name(rp->cfg.split)));
    json_object_set_new(root, "split_digit", json_integer(rp->cfg.split_digit));
    json_t *absent = json_array();
    for (size_t i = 0;
         !rp->git && i < sizeof(absent_channels) / sizeof(absent_channels[0]);
         i++)
        json_array_append_new(absent, json_string(absent_channels[i]));
    json_object_set_new(root, "absent_channels", absent);
    json_object_set_new(root, "mode", json_string(rp->git ? "git" : "records"));
    if (rp->git) {
        json_t *sk = json_object();
        for (int k = 0; k < HISTORY_NSKIP; k++)
            json_object_set_new(sk, history_skip_name(k),
                json_integer((json_int_t)rp->hskip[k]));
        json_object_set_new(root, "skipped_by_reason", sk);
        json_object_set_new(
            root, "merges_seen", json_integer((json_int_t)rp->merges_seen));
        json_object_set_new(root, "stats",
            json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}",
                "graph_builds", (json_int_t)rp->graph_builds,
                "graph_file_updates", (json_int_t)rp->graph_updates,
                "files_parsed", (json_int_t)rp->parsed, "files_cached",
                (json_int_t)rp->cached, "speculative_merges",
                (json_int_t)rp->merges_run, "merge_cache_hits",
                (json_int_t)rp->merge_hits, "merges_known_by_key",
                (json_int_t)rp->merge_keys, "merges_restricted",
                (json_int_t)rp->merges_cut, "labels_restricted",
                (json_int_t)rp->labels_cut, "replayed_commits",
                (json_int_t)rp->replayed, "replayed_from_previous",
                (json_int_t)rp->replay_steps, "replay_conflicts",
                (json_int_t)rp->replay_conflicts, "merges_refined",
                (json_int_t)rp->refined));
    }
    json_t *groups = json_object();
    for (int g = 0; g < NGROUPS; g++) {
        struct group_stats gs;
        group_compute(rp, g, &gs);
        json_t *jg = json_pack("{s:I,s:I}", "merges", (json_int_t)gs.n,
            "conflicted", (json_int_t)gs.conflicted);
        for (int p = 0; p < NPOINTS; p++) {
            json_t *jp = json_object();
            for (int sc = 0; sc < NSCORERS; sc++) {
                const struct scorer_stats *st = &gs.s[p][sc];
                json_object_set_new(jp, scorer_names[sc],
                    json_pack("{s:o,s:o,s:o}", "auc", jnum(st->auc), "traffic",
                        confusion_json(&st->traffic), "resolution",
                        confusion_json(&st->resolution)));
            }
            struct verdict v = point_verdict(gs.s[p]);
            json_object_set_new(jp, "verdict",
                json_pack("{s:o,s:o}", "auc_beats_baselines",
                    v.auc < 0 ? json_null() : json_boolean(v.auc),
                    "traffic_beats_near",
                    v.traffic < 0 ? json_null() : json_boolean(v.traffic)));
            const struct metrics_budget *b = &gs.at_near[p];
            json_object_set_new(json_object_get(jp, scorer_names[SC_AIRSPACE]),
                "at_near_budget",
                json_pack("{s:I,s:I,s:o}", "flagged", (json_int_t)b->flagged,
                    "tp", (json_int_t)b->tp, "risk_cut", jnum(b->cut)));
            json_object_set_new(jg, point_names[p], jp);
        }
        json_t *jl = json_object();
        for (int sc = 0; sc < NSCORERS; sc++)
            json_object_set_new(jl, scorer_names[sc],
                json_pack("{s:I,s:o,s:o}", "n", (json_int_t)gs.lead[sc].n,
                    "median_s", jnum(gs.lead[sc].median_s), "median_fraction",
                    jnum(gs.lead[sc].median_frac)));
        json_object_set_new(jg, "lead", jl);
        json_t *jw = json_object();
        for (int k = 0; k < 2; k++)
            json_object_set_new(jw, k ? "resolution" : "traffic",
                json_pack("{s:I,s:I,s:o,s:o,s:o}", "n",
                    (json_int_t)gs.window[k].n, "raised",
                    (json_int_t)gs.window[k].raised, "q1",
                    jnum(gs.window[k].q1), "median", jnum(gs.window[k].median),
                    "q3", jnum(gs.window[k].q3)));
        json_object_set_new(jg, "lead_window", jw);
        json_object_set_new(groups, group_names[g], jg);
    }
    json_object_set_new(root, "groups", groups);
    if (rp->cfg.per_merge || rp->git) {
        json_t *arr = json_array();
        for (size_t i = 0; i < rp->n; i++) {
            const struct rp_merge *m = &rp->m[i];
            if (!in_split(&rp->cfg, m->sha))
                continue;
            const char *first = m->first_ch;
            json_array_append_new(
                arr, json_pack("{s:s,s:b,s:b,s:o,s:o,s:o}", "merge", m->sha,
                         "mainline", m->mainline, "conflicted", m->conflicted,
                         "half", point_json(rp, &m->p[PT_HALF]), "end",
                         point_json(rp, &m->p[PT_END]), "first_channel",
                         first ? json_string(first) : json_null()));
            json_t *o = json_array_get(arr, json_array_size(arr) - 1);
            times_json(o, m);
            if (rp->git)
                git_merge_json(o, m);
        }
        json_object_set_new(root, "merges", arr);
    }
    json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
    fputc('\n', out);
    json_decref(root);
}

/* ---- git mode ---- */

void
replay_git_options_init(struct replay_git_options *o)
{
    memset(o, 0, sizeof(*o));
    history_options_init(&o->history);
    risk_config_default(&o->risk);
    o->steps = REPLAY_STEPS_DEFAULT;
}

/*
 * The import graph at a merge's base, kept from one merge to the next: the
 * first base is built (facts cached by blob id), later ones are reached by
 * updating only the files whose blob differs between the two trees, so a
 * long history costs little more than its changed files.
 */
struct base_graph {
    struct graph g;
    struct repograph *rg;
    char tree[41]; /* the tree it is at */
    bool have;
};

static void
base_graph_release(struct base_graph *bg)
{
    if (!bg->have)
        return;
    repograph_free(bg->rg);
    graph_release(&bg->g);
    memset(bg, 0, sizeof(*bg));
}

static int
update_one(struct replay *rp, struct repo *r, struct base_graph *bg,
    const char *path, const char *oid, struct as_err *e)
{
    char *buf = NULL;
    size_t len = 0;
    struct as_err re;
    if (oid && repo_read_blob(r, oid, &buf, &len, &re))
        oid = NULL; /* unreadable: as if gone */
    int rc = repograph_update_file(bg->rg, path, oid ? buf : NULL, len, e);
    free(buf);
    rp->graph_updates++;
    return rc;
}

static int
move_graph(struct replay *rp, struct repo *r, const char *tree,
    const struct replay_git_options *o, struct base_graph *bg, struct as_err *e)
{
    struct git_file_entry *files;
    size_t n;
    int rc;
    if (!bg->have) {
        if ((rc = repo_tree_files(r, tree, &files, &n, e)))
            return rc;
        struct repograph_file *rf = xcalloc(n ? n : 1, sizeof(*rf));
        for (size_t i = 0; i < n; i++) {
            rf[i].path = files[i].path;
            rf[i].oid = files[i].oid;
        }
        char *cache = o->graph_cache ? xstrdup(o->graph_cache)
                                     : xasprintf("%s/airspace/graph.cache",
                                           repo_common_dir(r));
        char *dir = xasprintf("%s/airspace", repo_common_dir(r));
        mkdir(dir, 0700);
        free(dir);
        struct repograph_options ro = { 0 };
        ro.cache_path = cache;
        ro.threads = o->threads;
        graph_init(&bg->g);
        bg->rg = repograph_new(&bg->g, &ro);
        struct repograph_stats st = { 0 };
        rc = repograph_load(bg->rg, rf, n, gitview_read_blob, r, &st, e);
        free(cache);
        free(rf);
        if (rc) {
            repograph_free(bg->rg);
            graph_release(&bg->g);
            repo_tree_files_free(files, n);
            return rc;
        }
        rp->graph_builds++;
        rp->parsed += st.parsed;
        rp->cached += st.cached;
        repo_tree_files_free(files, n);
        snprintf(bg->tree, sizeof(bg->tree), "%s", tree);
        bg->have = true;
        return 0;
    }
    /* the files whose blob differs, each updated; then those removed */
    struct git_file_entry *ch;
    size_t nch;
    if ((rc = repo_tree_changes(r, bg->tree, tree, &ch, &nch, e)))
        return rc;
    repograph_batch_begin(bg->rg);
    for (size_t i = 0; i < nch && !rc; i++)
        rc = update_one(
            rp, r, bg, ch[i].path, ch[i].oid[0] ? ch[i].oid : NULL, e);
    repograph_batch_end(bg->rg);
    repo_tree_files_free(ch, nch);
    snprintf(bg->tree, sizeof(bg->tree), "%s", tree);
    return rc;
}

/* The two baselines on two working sets. */
static void
baselines(const struct agent *a, const struct agent *b, uint32_t within,
    uint32_t *shared, uint32_t *near)
{
    size_t i = 0, j = 0;
    *shared = *near = 0;
    while (i < a->nfiles && j < b->nfiles) {
        int c = strcmp(a->files[i].path, b->files[j].path);
        if (c < 0) {
            i++;
            continue;
        }
        if (c > 0) {
            j++;
            continue;
        }
        const struct ws_file *fa = &a->files[i++], *fb = &b->files[j++];
        (*shared)++;
        if (prox_near_pairs(fa->ranges.v, fa->ranges.n, fa->whole, fb->ranges.v,
                fb->ranges.n, fb->whole, within))
            (*near)++;
    }
}

/* Where a side commit not on the base forked from it, and once
 * replayed onto the base, its replayed tree and conflicts. */
struct walk_fork {
    char id[41];
    bool known, unique;
    char own[41]; /* "": not replayed yet */
    size_t nconf;
};

/* State of one merge's replay while its sides' commits are walked. */
struct git_walk {
    struct replay *rp;
    struct repo *r;
    const struct replay_git_options *o;
    struct merge_cache *mc;
    struct history_cache *hc;     /* deltas already diffed (any merge) */
    struct risk_prep_cache *prep; /* files already prepared, this graph */
    const struct graph *g;
    const struct history_merge *hm;
    struct rp_merge *m;
    struct agent a[2];
    struct history_raw raw[2];    /* each side's diff from the base */
    struct strmap verdicts;       /* merge_key() -> conflicted (0/1) */
    struct merge_verdicts *known; /* each path's, across merges */
    uint32_t k[2];                /* commits replayed per side */
    struct pair_advisory adv;
    struct as_err *e; /* walk_merge's error */
    /* forward channel: the base's past */
    const struct forward_table *fwd;
    struct walk_fork *forks[2]; /* per side commit, once replayed */
};

/*
 * What decides whether the two sides' trees merge with a conflict: the
 * base and each side's deltas from it (raw, before rename detection) but
 * for the modifications of a path the other side left alone. Such a
 * modification merges as it is and takes no part in anything else git's
 * merge looks at (rename detection pairs deleted with added files,
 * directory renames follow those pairs and the other side's additions,
 * file/directory clashes need an addition or a deletion at the path), so
 * two pairs of trees with the same key merge with the same verdict. Along
 * a long side most commits only edit its own files: the key stays, and
 * the merge is not run again.
 */
static char *
merge_key(const struct git_walk *w, size_t *len)
{
    size_t n = 0, alloc = 0;
    char *k = NULL;
    ALLOC_GROW(k, 42, alloc);
    memcpy(k, w->hm->base, 40);
    k[40] = '\n';
    n = 41;
    for (int s = 0; s < 2; s++) {
        const struct history_raw *me = &w->raw[s], *other = &w->raw[1 - s];
        for (size_t i = 0; i < me->n; i++) {
            const struct history_delta *d = &me->v[i];
            uint32_t at;
            if (d->modified &&
                !strmap_get(&other->paths, d->path, strlen(d->path), &at))
                continue;
            size_t l = strlen(d->key);
            ALLOC_GROW(k, n + l + 2, alloc);
            memcpy(k + n, d->key, l);
            n += l;
            k[n++] = '\n';
        }
        ALLOC_GROW(k, n + 2, alloc);
        k[n++] = '\x01'; /* between the sides */
    }
    k[n] = '\0';
    *len = n;
    return k;
}

/* merge_restricted() of the two sides' current deltas from the base. */
static int
walk_restricted(struct git_walk *w, struct as_err *e)
{
    struct merge_cut_delta *cd[2];
    size_t nd[2];
    for (int s = 0; s < 2; s++) {
        const struct history_raw *raw = &w->raw[s];
        cd[s] = xcalloc(raw->n + 1, sizeof(*cd[s]));
        nd[s] = raw->n;
        for (size_t i = 0; i < raw->n; i++) {
            cd[s][i].path = raw->v[i].path;
            memcpy(cd[s][i].id, raw->v[i].id, sizeof(cd[s][i].id));
            memcpy(cd[s][i].mode, raw->v[i].mode, sizeof(cd[s][i].mode));
        }
    }
    int rc = merge_restricted(
        w->r, (const struct merge_cut_delta *const *)cd, nd, w->known, e);
    free(cd[0]);
    free(cd[1]);
    return rc;
}

/* The merge channel of the walk (a pair_merge_fn): the two sides' trees
 * over the merge's base, once both have a commit. */
static int
walk_merge(void *ctx, const struct agent *a, const struct agent *b,
    char ***paths, size_t *npaths)
{
    struct git_walk *w = ctx;
    *paths = NULL;
    *npaths = 0;
    if (!w->k[0] || !w->k[1])
        return 0;
    size_t klen;
    char *key = merge_key(w, &klen);
    uint32_t known;
    if (strmap_get(&w->verdicts, key, klen, &known)) {
        w->rp->merge_keys++;
        free(key);
        return known ? 1 : 0;
    }
    /* The changed paths alone tell, or merge trees cut down to them. */
    int conflicted = walk_restricted(w, w->e);
    if (conflicted < 0) {
        free(key);
        return conflicted;
    }
    if (conflicted < 2) {
        w->rp->merges_cut++;
    } else {
        struct merge_result mr = { 0 };
        int rc = merge_speculative(w->r, w->mc, w->hm->base, a->tree_oid,
            w->hm->base, b->tree_oid, &mr, w->e);
        if (rc) {
            free(key);
            return rc;
        }
        w->rp->merges_run++;
        conflicted = mr.conflicted;
        merge_result_release(&mr);
    }
    strmap_put(&w->verdicts, key, klen, conflicted ? 1 : 0, NULL);
    free(key);
    return conflicted ? 1 : 0;
}

/* Score the pair at now_ms after a commit of one side. */
static int
walk_score(
    struct git_walk *w, int64_t now_ms, struct rp_point *pt, struct as_err *e)
{
    const struct risk_config *cfg = &w->o->risk;
    struct risk_result res;
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < w->a[s].nfiles; i++) {
            struct ws_file *f = &w->a[s].files[i];
            f->weight = risk_recency_weight(cfg, now_ms - f->changed_at_ms);
        }
    struct risk_engine *eng =
        risk_engine_new_cached(cfg, w->g, w->a, 2, 1, w->prep);
    struct pair_input in = { .engine = eng,
        .cfg = cfg,
        .ea = 0,
        .eb = 1,
        .a = &w->a[0],
        .b = &w->a[1],
        .merge = walk_merge,
        .merge_ctx = w,
        .forward = w->fwd };
    struct pair_score ps;
    w->e = e;
    int rc = pair_score(&in, &ps);
    risk_engine_free(eng);
    if (rc)
        return rc;
    res = ps.res;
    memset(pt, 0, sizeof(*pt));
    pt->t = now_ms / 1000;
    pt->risk = res.risk;
    memcpy(pt->rc, res.r, sizeof(pt->rc));
    pair_advisory_step(cfg, &w->adv, res.risk, now_ms, NULL);
    pt->level = (int)w->adv.st.level;
    pt->na = (uint32_t)w->a[0].nfiles;
    pt->nb = (uint32_t)w->a[1].nfiles;
    pt->ca = w->k[0];
    pt->cb = w->k[1];
    baselines(&w->a[0], &w->a[1], w->rp->cfg.near, &pt->shared, &pt->near);
    double best = 0;
    pt->top = -1;
    for (int c = 0; c < RISK_NCHANNELS; c++) {
        double v = cfg->weight[c] * res.r[c];
        if (v > best) {
            best = v;
            pt->top = c;
        }
    }
    return 0;
}

/* Where side s's commit i (not on the base) forked: known when the side
 * was walked, else its one parent's when that one is unique, else asked
 * of the graph (git_merge_base()'s answer, and whether it is the only
 * one). */
static int
walk_fork(struct git_walk *w, int s, size_t i, struct as_err *e)
{
    const struct history_commit *c = &w->hm->side[s][i];
    struct walk_fork *f = &w->forks[s][i];
    if (f->known)
        return 0;
    if (c->fork[0]) { /* unique by history_collect's rules */
        memcpy(f->id, c->fork, sizeof(f->id));
        f->unique = true;
    } else if (c->parent_at >= 0 && w->forks[s][c->parent_at].known &&
               w->forks[s][c->parent_at].unique) {
        const struct walk_fork *pf = &w->forks[s][c->parent_at];
        memcpy(f->id, pf->id, sizeof(f->id));
        f->unique = pf->unique; /* not own: that is the parent's tree */
    } else {
        int rc = history_fork(w->r, w->hm->base, c->oid, f->id, &f->unique, e);
        if (rc)
            return rc;
    }
    f->known = true;
    return 0;
}

/* Side s reaches commit c: new working set, its changes dated now_ms. */
static int
walk_advance(struct git_walk *w, int s, const struct history_commit *c,
    int64_t now_ms, struct as_err *e)
{
    struct agent next;
    char own[41];
    const char *tree = c->tree;
    if (!c->on_base) {
        size_t nconf;
        int rc = walk_fork(w, s, (size_t)(c - w->hm->side[s]), e);
        if (rc)
            return rc;
        struct walk_fork *wf = &w->forks[s][c - w->hm->side[s]];
        const struct walk_fork *pf =
            c->parent_at >= 0 ? &w->forks[s][c->parent_at] : NULL;
        if (wf->own[0]) { /* replayed by an earlier walk of this merge */
            tree = wf->own;
            goto replayed;
        }
        rc = 1;
        /* from its parent's replayed tree when, with the same fork, it
         * only modified files B's line left alone or added files on a
         * side that deleted none (history.h) */
        if (pf && pf->own[0] && wf->id[0] && !strcmp(pf->id, wf->id)) {
            rc = history_own_tree_step(w->r, w->hm->base, wf->id,
                w->hm->side[s][c->parent_at].tree, pf->own, c->oid, own, e);
            if (rc < 0)
                return rc;
            if (rc == 0) {
                nconf = pf->nconf;
                w->rp->replay_steps++;
            }
        }
        if (rc == 1 && (rc = history_own_tree(
                            w->r, w->hm->base, c->oid, wf->id, own, &nconf, e)))
            return rc;
        snprintf(wf->own, sizeof(wf->own), "%s", own);
        wf->nconf = nconf;
        tree = wf->own;
        w->rp->replayed++;
        w->rp->replay_conflicts += nconf;
    }
replayed:
    agent_init(&next, w->a[s].id);
    int rc = history_workset_raw(w->r, w->hm->base_tree, tree, &w->a[s], now_ms,
        w->hc, &next, &w->raw[s], e);
    if (rc) {
        agent_release(&next);
        return rc;
    }
    next.base_oid = xstrdup(w->hm->base);
    w->k[s] = (uint32_t)(c - w->hm->side[s]) + 1;
    next.commits_ahead = w->k[s];
    agent_release(&w->a[s]);
    w->a[s] = next;
    return 0;
}

/* Which of a side's n commits are scored with steps K (o->steps): the
 * j-th (1-based) when j = ceil(n q / K) for some q in 1..K, or j =
 * ceil(n / 2); every one when K is 0. scored[j] for j in 1..n. */
static uint8_t *
scored_commits(size_t n, unsigned k)
{
    uint8_t *v = xcalloc(n + 1, 1);
    if (!k) {
        memset(v + 1, 1, n);
        return v;
    }
    for (size_t q = 1; q <= k; q++)
        v[(n * q + k - 1) / k] = 1;
    v[(n + 1) / 2] = 1;
    return v;
}

/*
 * Walk both sides in commit-time order, scoring the commits
 * scored_commits() picks (every one when steps is 0). With firsts, only
 * the first warnings (traffic, resolution, shared path, nearby hunks) are
 * recorded, and the walk stops once it has all four.
 */
static int
walk_sides(struct git_walk *w, unsigned steps, bool firsts, struct as_err *e)
{
    const struct history_merge *hm = w->hm;
    struct rp_merge *m = w->m;
    size_t i[2] = { 0, 0 };
    uint32_t half[2];
    int64_t t = 0;
    bool have_half = false;
    int rc = 0;

    for (int s = 0; s < 2; s++)
        half[s] = (uint32_t)((hm->nside[s] + 1) / 2);
    pair_advisory_init(&w->adv);
    uint8_t *scored[2] = { scored_commits(hm->nside[0], steps),
        scored_commits(hm->nside[1], steps) };
    /* per side: the time of its newest commit so far, which dates what
     * changed since its last scored commit (a file changed at a commit
     * passed over is dated at the newest one: never earlier than scoring
     * every commit would date it) */
    int64_t last[2] = { 0, 0 };
    while (i[0] < hm->nside[0] || i[1] < hm->nside[1]) {
        int s = i[0] >= hm->nside[0]                                    ? 1
                : i[1] >= hm->nside[1]                                  ? 0
                : hm->side[1][i[1]].time_ms < hm->side[0][i[0]].time_ms ? 1
                                                                        : 0;
        const struct history_commit *c = &hm->side[s][i[s]++];
        if (c->time_ms > t)
            t = c->time_ms; /* a side's clock never runs backwards */
        last[s] = t;
        if (!scored[s][i[s]])
            continue;
        /* the other side as it is now: its newest commit so far, when a
         * commit since its last scored one was passed over */
        int o = 1 - s;
        if (i[o] > w->k[o] &&
            (rc = walk_advance(w, o, &hm->side[o][i[o] - 1], last[o], e)))
            break;
        struct rp_point pt;
        if ((rc = walk_advance(w, s, c, t, e)) ||
            (rc = walk_score(w, t, &pt, e)))
            break;
        if (pt.level >= LVL_TRAFFIC && m->first_ms[SC_AIRSPACE] < 0) {
            m->first_ms[SC_AIRSPACE] = t;
            m->first_ch = pt.top >= 0 ? risk_channel_name(pt.top) : NULL;
        }
        if (pt.level >= LVL_RESOLUTION && m->first_ra_ms < 0)
            m->first_ra_ms = t;
        if (pt.shared && m->first_ms[SC_SHARED] < 0)
            m->first_ms[SC_SHARED] = t;
        if (pt.near && m->first_ms[SC_NEAR] < 0)
            m->first_ms[SC_NEAR] = t;
        if (firsts) {
            if (m->first_ms[SC_AIRSPACE] >= 0 && m->first_ra_ms >= 0 &&
                m->first_ms[SC_SHARED] >= 0 && m->first_ms[SC_NEAR] >= 0)
                break;
            continue;
        }
        if (w->k[s] == half[s]) {
            m->side[s].half_ms = t;
            m->side[s].half_risk = pt.risk;
            m->side[s].half_level = pt.level;
        }
        if (!have_half && w->k[0] >= half[0] && w->k[1] >= half[1]) {
            m->p[PT_HALF] = pt;
            have_half = true;
        }
        m->p[PT_END] = pt;
    }
    free(scored[0]);
    free(scored[1]);
    return rc;
}

/* Both sides back at the base, as before the walk. */
static void
walk_reset(struct git_walk *w)
{
    for (int s = 0; s < 2; s++) {
        char *id = xstrdup(w->a[s].id);
        agent_release(&w->a[s]);
        agent_init(&w->a[s], id);
        free(id);
        history_raw_release(&w->raw[s]);
        history_raw_init(&w->raw[s]);
        w->k[s] = 0;
    }
}

/*
 * The label: git's merge of the two parents over their one merge base
 * (known: no second search, which a shallow clone may not allow). When
 * both sides stand at their tips' own trees (tips on B's line), their
 * deltas from the base tell a clean merge without merging the whole trees
 * (merge.h); a conflict or a case they cannot tell runs the full merge
 * for its paths.
 */
static int
walk_label(struct git_walk *w, struct as_err *e)
{
    const struct history_merge *hm = w->hm;
    struct rp_merge *m = w->m;
    bool at_tips = true;
    for (int s = 0; s < 2; s++)
        at_tips = at_tips && w->a[s].tree_oid &&
                  !strcmp(w->a[s].tree_oid, hm->side[s][hm->nside[s] - 1].tree);
    if (at_tips) {
        int quick = walk_restricted(w, e);
        if (quick < 0)
            return quick;
        if (quick == 0) {
            m->conflicted = false;
            m->cpaths = NULL;
            m->ncpaths = 0;
            w->rp->labels_cut++;
            return 0;
        }
    }
    struct merge_result mr = { 0 };
    int rc = merge_speculative(w->r, w->mc, hm->base,
        hm->side[0][hm->nside[0] - 1].tree, hm->base,
        hm->side[1][hm->nside[1] - 1].tree, &mr, e);
    if (rc)
        return rc;
    m->conflicted = mr.conflicted;
    m->cpaths = mr.paths;
    m->ncpaths = mr.npaths;
    mr.paths = NULL;
    mr.npaths = 0;
    merge_result_release(&mr);
    return 0;
}

/*
 * Replay one merge: walk both sides in commit-time order, then label it.
 * With steps, a merge that conflicted and had commits passed over (a side
 * longer than steps) is then walked again from its base,
 * every commit scored, until it has each first warning (to its end for one
 * it never raises): the lead figures count conflicted merges only, and
 * theirs are then those of scoring every commit. The side commits the
 * first walk replayed onto B are kept for the second.
 */
static int
replay_merge(struct git_walk *w, struct as_err *e)
{
    const struct history_merge *hm = w->hm;
    struct rp_merge *m = w->m;
    int rc;

    for (int s = 0; s < 2; s++) {
        m->side[s].ncommits = (uint32_t)hm->nside[s];
        m->side[s].first_ms = hm->side[s][0].time_ms;
        m->side[s].tip_ms = hm->side[s][hm->nside[s] - 1].time_ms;
        m->side[s].half_ms = -1;
    }
    if ((rc = walk_sides(w, w->o->steps, false, e)))
        return rc;
    if (m->first_level_point < 0)
        m->first_level_point = m->p[PT_HALF].level > LVL_CLEAR  ? PT_HALF
                               : m->p[PT_END].level > LVL_CLEAR ? PT_END
                                                                : -1;
    /* a side of at most steps commits was scored at every one */
    if ((rc = walk_label(w, e)) || !w->o->steps || !m->conflicted ||
        (hm->nside[0] <= w->o->steps && hm->nside[1] <= w->o->steps))
        return rc;
    firsts_clear(m);
    walk_reset(w);
    w->rp->refined++;
    return walk_sides(w, 0, true, e);
}

/*
 * The merges are replayed by o->threads workers (0: 2), each with its own
 * repository handle (in-memory object store), base graph and caches.
 * The merges are taken in the order of their bases (committer time, then
 * id), not of the merges: a branch that forked long before its merge
 * would otherwise take the graph back over all that history and forward
 * again. Worker i owns the i-th of nw consecutive runs of that order and
 * takes them in chunks of neighbouring merges, oldest base first, so that
 * its graph moves by small steps over its part of the history only
 * (interleaved chunks made every worker's graph cross the whole history:
 * each file update was parsed once per worker); a worker done with its
 * run takes chunks from the end of the longest run left. Every merge's figures
 * are its own (the walk shares nothing between merges but caches of exact
 * results), so the output is the same whatever the number of workers; only the
 * counters of work done (graph builds and updates, cache hits) differ.
 */
#define REPLAY_CHUNK 8
/* A worker's caches of deltas' effects and of paths' merge verdicts are
 * cleared past this many entries (about 0.1-1 KiB each). */
#define REPLAY_KEEP_EFFECTS 100000

struct git_run {
    struct replay *rp;
    const struct replay_git_options *o;
    const struct history *h;
    pthread_mutex_t lock;
    size_t *order;    /* the merges (indices into h->m) by base */
    size_t (*seg)[2]; /* per worker: its part of order left, [lo, hi) */
    size_t nseg;
    size_t err_at;       /* the first failed merge's place in order, or h->n */
    size_t done;         /* merges replayed or skipped (o->progress) */
    char (*missing)[41]; /* per merge: the object it lacks (skipped), or "" */
    int err_rc;          /* its error */
    struct as_err err;
};

struct git_worker {
    struct git_run *run;
    size_t id;       /* its run of merges: run->seg[id] */
    struct repo *r;  /* own handle (NULL: open one) */
    struct replay c; /* this worker's counters (a copy of rp's config) */
    struct forward_hist *fwd;     /* forward channel: past merges read */
    struct merge_verdicts *known; /* paths' merge verdicts */
};

/* Replay merge k into its slot rp->m[k]. */
static int
replay_one(struct git_worker *wk, struct base_graph *bg, char graph_tree[41],
    struct merge_cache *mc, struct history_cache *hc,
    struct risk_prep_cache *prep, size_t k, struct as_err *e)
{
    const struct replay_git_options *o = wk->run->o;
    const struct history_merge *hm = &wk->run->h->m[k];
    struct replay *rp = &wk->c;
    struct repo *r = wk->r;
    int rc;
    if (!bg->have || strcmp(graph_tree, hm->base_tree)) {
        /* the engine's preparation reads the graph: drop it as it moves */
        risk_prep_cache_clear(prep);
        if ((rc = move_graph(rp, r, hm->base_tree, o, bg, e)))
            return rc;
        snprintf(graph_tree, 41, "%s", hm->base_tree);
    }
    struct rp_merge *m = &wk->run->rp->m[k];
    memset(m, 0, sizeof(*m));
    snprintf(m->sha, sizeof(m->sha), "%s", hm->oid);
    snprintf(m->base, sizeof(m->base), "%s", hm->base);
    snprintf(m->parent[0], sizeof(m->parent[0]), "%s", hm->parent[0]);
    snprintf(m->parent[1], sizeof(m->parent[1]), "%s", hm->parent[1]);
    m->mainline = hm->mainline;
    m->merge_ct = hm->time_ms / 1000; /* never before its parents */
    m->strict = hm->nside[0] >= 2 && hm->nside[1] >= 2;
    m->first_level_point = -1;
    firsts_clear(m);
    int64_t start = hm->side[0][0].time_ms > hm->side[1][0].time_ms
                        ? hm->side[0][0].time_ms
                        : hm->side[1][0].time_ms;
    m->inflight_ms = hm->time_ms - start;
    struct git_walk w = { .rp = rp,
        .r = r,
        .o = o,
        .mc = mc,
        .hc = hc,
        .prep = prep,
        .g = &bg->g,
        .hm = hm,
        .m = m,
        .known = wk->known };
    /* forward channel: the merges reachable from the base */
    if (o->risk.weight[RISK_FORWARD] > 0) {
        if (!wk->fwd)
            wk->fwd = forward_hist_new();
        if ((rc = forward_hist_table(
                 wk->fwd, r, hm->base, FORWARD_WINDOW, &w.fwd, e)))
            return rc;
    }
    agent_init(&w.a[0], "side1");
    agent_init(&w.a[1], "side2");
    for (int s = 0; s < 2; s++)
        w.forks[s] = xcalloc(hm->nside[s] + 1, sizeof(*w.forks[s]));
    history_raw_init(&w.raw[0]);
    history_raw_init(&w.raw[1]);
    strmap_init(&w.verdicts);
    rc = replay_merge(&w, e);
    free(w.forks[0]);
    free(w.forks[1]);
    agent_release(&w.a[0]);
    agent_release(&w.a[1]);
    history_raw_release(&w.raw[0]);
    history_raw_release(&w.raw[1]);
    strmap_release(&w.verdicts);
    /* The merge's speculative merges and replayed trees are done with;
     * the merge cache keeps only their verdicts. */
    repo_forget_created(r);
    /* The deltas' effects hold for any base: kept for the next merge,
     * which shares most of them, up to a bound on memory. */
    if (history_cache_size(hc) > REPLAY_KEEP_EFFECTS)
        history_cache_clear(hc);
    if (merge_verdicts_size(wk->known) > REPLAY_KEEP_EFFECTS) {
        merge_verdicts_free(wk->known);
        wk->known = merge_verdicts_new();
    }
    return rc;
}

static void *
git_worker_run(void *arg)
{
    struct git_worker *wk = arg;
    struct git_run *run = wk->run;
    struct base_graph bg;
    char graph_tree[41] = "";
    struct as_err e = { "" };
    struct merge_cache *mc = merge_cache_new();
    struct history_cache *hc = history_cache_new();
    struct risk_prep_cache *prep = risk_prep_cache_new();
    struct sigcache *sigs = sigcache_new();
    memset(&bg, 0, sizeof(bg));
    wk->known = merge_verdicts_new();
    sigcache_use(sigs);
    for (;;) {
        size_t lo, hi, stop;
        pthread_mutex_lock(&run->lock);
        size_t *own = run->seg[wk->id];
        if (own[0] < own[1]) { /* the next chunk of its own run */
            lo = own[0];
            hi = lo + REPLAY_CHUNK < own[1] ? lo + REPLAY_CHUNK : own[1];
            own[0] = hi;
        } else { /* the last chunk of the longest run left */
            size_t best = run->nseg;
            for (size_t j = 0; j < run->nseg; j++)
                if (run->seg[j][1] > run->seg[j][0] &&
                    (best == run->nseg ||
                        run->seg[j][1] - run->seg[j][0] >
                            run->seg[best][1] - run->seg[best][0]))
                    best = j;
            if (best == run->nseg) {
                lo = hi = run->h->n; /* nothing left */
            } else {
                hi = run->seg[best][1];
                lo = hi - run->seg[best][0] > REPLAY_CHUNK ? hi - REPLAY_CHUNK
                                                           : run->seg[best][0];
                run->seg[best][1] = lo;
            }
        }
        stop = run->err_at;
        pthread_mutex_unlock(&run->lock);
        if (lo >= hi || lo >= stop)
            break;
        for (size_t at = lo; at < hi; at++) {
            size_t k = run->order[at];
            int rc = replay_one(wk, &bg, graph_tree, mc, hc, prep, k, &e);
            sigcache_clear(sigs);
            if (run->o->progress) {
                pthread_mutex_lock(&run->lock);
                run->o->progress(run->o->progress_ctx, ++run->done, run->h->n);
                pthread_mutex_unlock(&run->lock);
            }
            if (rc) {
                /* A snapshot lacking some of the merge's objects: skip it
                 * (counted, noted), as an error it would stop the replay. */
                struct as_err me = { "" };
                int mrc =
                    history_missing(wk->r, &run->h->m[k], run->missing[k], &me);
                if (mrc == 1)
                    continue;
                run->missing[k][0] = '\0';
            }
            if (rc) {
                pthread_mutex_lock(&run->lock);
                if (at < run->err_at) {
                    run->err_at = at;
                    run->err = e;
                    run->err_rc = rc;
                }
                pthread_mutex_unlock(&run->lock);
                break;
            }
        }
    }
    sigcache_use(NULL);
    sigcache_free(sigs);
    history_cache_free(hc);
    risk_prep_cache_free(prep);
    wk->c.merge_hits = merge_cache_hits(mc);
    merge_cache_free(mc);
    base_graph_release(&bg);
    forward_hist_free(wk->fwd);
    merge_verdicts_free(wk->known);
    wk->known = NULL;
    return NULL;
}

/* qsort's comparison of merge indices by base: committer time, id, then
 * the merge's own place (by_base_of: the history, set around the sort). */
static const struct history *by_base_of;

static int
cmp_by_base(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    const struct history_merge *x = &by_base_of->m[a], *y = &by_base_of->m[b];
    if (x->base_time_ms != y->base_time_ms)
        return x->base_time_ms < y->base_time_ms ? -1 : 1;
    int c = strcmp(x->base, y->base);
    return c ? c : (a > b) - (a < b);
}

int
replay_run_git(struct replay *rp, struct repo *r,
    const struct replay_git_options *o, struct as_err *e)
{
    struct history h;
    int rc = history_collect(r, &o->history, &h, e);
    if (rc)
        return rc;
    rp->git = true;
    rp->merges_seen = h.merges_seen;
    memcpy(rp->hskip, h.skipped, sizeof(rp->hskip));
    history_tune_reads();
    ALLOC_GROW(rp->m, h.n + 1, rp->alloc);
    memset(rp->m, 0, (h.n + 1) * sizeof(*rp->m));
    rp->n = h.n;

    struct git_run run = { .rp = rp,
        .o = o,
        .h = &h,
        .err_at = h.n,
        .missing = xcalloc(h.n + 1, sizeof(*run.missing)) };
    size_t nw = o->threads ? o->threads : 2;
    if (nw > (h.n + REPLAY_CHUNK - 1) / REPLAY_CHUNK)
        nw = (h.n + REPLAY_CHUNK - 1) / REPLAY_CHUNK;
    if (!nw)
        nw = 1;
    struct git_worker *wk = xcalloc(nw, sizeof(*wk));
    pthread_t *tid = xcalloc(nw, sizeof(*tid));
    bool *started = xcalloc(nw, sizeof(*started));
    run.order = xcalloc(h.n + 1, sizeof(*run.order));
    for (size_t k = 0; k < h.n; k++)
        run.order[k] = k;
    by_base_of = &h;
    if (h.n > 1)
        qsort(run.order, h.n, sizeof(*run.order), cmp_by_base);
    by_base_of = NULL;
    size_t *place = xcalloc(h.n + 1, sizeof(*place)); /* order's inverse */
    for (size_t at = 0; at < h.n; at++)
        place[run.order[at]] = at;
    run.seg = xcalloc(nw, sizeof(*run.seg));
    run.nseg = nw;
    for (size_t i = 0; i < nw; i++) {
        run.seg[i][0] = h.n * i / nw;
        run.seg[i][1] = h.n * (i + 1) / nw;
    }
    pthread_mutex_init(&run.lock, NULL);
    if (o->progress)
        o->progress(o->progress_ctx, 0, h.n);
    for (size_t i = 0; i < nw; i++) {
        wk[i].run = &run;
        wk[i].id = i;
        wk[i].c.cfg = rp->cfg;
        wk[i].r = r;
        if (i && repo_open(repo_common_dir(r), &wk[i].r, e)) {
            wk[i].r = NULL; /* fewer workers */
            continue;
        }
        if (i && pthread_create(&tid[i], NULL, git_worker_run, &wk[i]) == 0)
            started[i] = true;
    }
    git_worker_run(&wk[0]);
    for (size_t i = 0; i < nw; i++) {
        if (started[i])
            pthread_join(tid[i], NULL);
        if (i && wk[i].r)
            repo_free(wk[i].r);
        rp->graph_builds += wk[i].c.graph_builds;
        rp->graph_updates += wk[i].c.graph_updates;
        rp->parsed += wk[i].c.parsed;
        rp->cached += wk[i].c.cached;
        rp->merges_run += wk[i].c.merges_run;
        rp->merge_hits += wk[i].c.merge_hits;
        rp->merge_keys += wk[i].c.merge_keys;
        rp->merges_cut += wk[i].c.merges_cut;
        rp->labels_cut += wk[i].c.labels_cut;
        rp->replay_steps += wk[i].c.replay_steps;
        rp->refined += wk[i].c.refined;
        rp->replayed += wk[i].c.replayed;
        rp->replay_conflicts += wk[i].c.replay_conflicts;
    }
    pthread_mutex_destroy(&run.lock);
    if (run.err_at < h.n) {
        *e = run.err;
        rc = run.err_rc;
    }
    /* Drop the merges skipped for a missing object, oldest first. */
    size_t kept = 0;
    for (size_t k = 0; k < rp->n; k++) {
        if (!run.missing[k][0] || place[k] >= run.err_at) {
            rp->m[kept++] = rp->m[k];
            continue;
        }
        for (size_t j = 0; j < rp->m[k].ncpaths; j++)
            free(rp->m[k].cpaths[j]);
        free(rp->m[k].cpaths);
        rp->hskip[HISTORY_SKIP_MISSING]++;
        ALLOC_GROW(rp->notes, rp->nnotes + 1, rp->anotes);
        rp->notes[rp->nnotes++] = xasprintf(
            "merge %s skipped: it needs object %s, which the repository "
            "lacks (missing_object)",
            h.m[k].oid, run.missing[k]);
    }
    rp->n = kept;
    free(place);
    free(run.order);
    free(run.missing);
    free(run.seg);
    free(started);
    free(tid);
    free(wk);
    history_release(&h);
    return rc;
}
