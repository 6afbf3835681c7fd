/*
 * replay.c - score recorded merges at half-way and at the end, with the
 * model and two baselines, and summarise how well each predicts conflicts.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/replay.h"
#include "core/metrics.h"
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
    "hotspot", "exposure", "dirs" };
/* Channels of DESIGN.md §3 that records cannot feed. */
static const char *const absent_channels[] = { "merge", "dependency", "symbol",
    "intent", "context", "topic", "tree" };

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
    size_t first, nfiles;  /* into replay.files */
    double r[REPLAY_NCHANNELS];
    double risk;
    int level;
    int top; /* channel with the largest weighted value */
};

struct rp_merge {
    char sha[41];
    bool mainline, conflicted, strict;
    int64_t merge_ct;
    struct rp_point p[NPOINTS];
    int first_level_point; /* -1: never flagged */
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
    cfg->prox_scale = 10;
    cfg->prox_agg = PROX_AGG_MAX;
    cfg->hot_k = 1;
    cfg->exposure_k = 300;
    cfg->dirs_k = 10;
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
    free(rp->m);
    free(rp->files);
    free(rp->hot);
    free(rp);
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

/* Shared files of two working sets at time t, side times as fallback. */
static void
add_point(struct replay *rp, struct rp_point *pt, const struct rec_ws *a,
    const struct rec_ws *b, int64_t ta, int64_t tb, int64_t t)
{
    pt->t = t;
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
    m->merge_ct = r->merge_ct;
    m->strict = r->side[0].n_commits >= 2 && r->side[1].n_commits >= 2;
    const struct rec_side *s0 = &r->side[0], *s1 = &r->side[1];
    int64_t th = s0->half_ct > s1->half_ct ? s0->half_ct : s1->half_ct;
    int64_t te = s0->tip_ct > s1->tip_ct ? s0->tip_ct : s1->tip_ct;
    add_point(
        rp, &m->p[PT_HALF], &s0->half, &s1->half, s0->half_ct, s1->half_ct, th);
    add_point(rp, &m->p[PT_END], &s0->ws, &s1->ws, s0->tip_ct, s1->tip_ct, te);
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
    pt->risk = 1 - keep;
    pt->level = pt->risk >= cfg->tau_ra   ? LVL_RESOLUTION
                : pt->risk >= cfg->tau_ta ? LVL_TRAFFIC
                                          : LVL_CLEAR;
}

void
replay_finish(struct replay *rp)
{
    qsort(rp->hot, rp->nhot, sizeof(*rp->hot), cmp_hot);
    for (size_t i = 0; i < rp->n; i++) {
        struct rp_merge *m = &rp->m[i];
        m->first_level_point = -1;
        for (int p = 0; p < NPOINTS; p++) {
            score_point(rp, i, &m->p[p]);
            if (m->first_level_point < 0 && m->p[p].level > LVL_CLEAR)
                m->first_level_point = p;
        }
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

struct group_stats {
    size_t n, conflicted;
    struct scorer_stats s[NPOINTS][NSCORERS];
};

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
group_compute(const struct replay *rp, int g, struct group_stats *gs)
{
    memset(gs, 0, sizeof(*gs));
    double *score = xcalloc(rp->n + 1, sizeof(double));
    bool *label = xcalloc(rp->n + 1, sizeof(bool));
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
    }
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

void
replay_print_table(const struct replay *rp, FILE *out)
{
    fprintf(out, "airspace replay: %zu merges read, %zu skipped, split %s",
        rp->n, rp->skipped, split_name(rp->cfg.split));
    if (rp->cfg.split != REPLAY_SPLIT_ALL)
        fprintf(out, " (sha digit %u)", rp->cfg.split_digit);
    fprintf(out, "\nabsent from records:");
    for (size_t i = 0; i < sizeof(absent_channels) / sizeof(absent_channels[0]);
         i++)
        fprintf(out, " %s%s", absent_channels[i],
            i + 1 < sizeof(absent_channels) / sizeof(absent_channels[0]) ? ","
                                                                         : "");
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
        const char *first = "-";
        if (m->first_level_point >= 0 && m->p[m->first_level_point].top >= 0)
            first = channel_names[m->p[m->first_level_point].top];
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
point_json(const struct rp_point *pt)
{
    json_t *ch = json_object();
    for (int c = 0; c < REPLAY_NCHANNELS; c++)
        json_object_set_new(ch, channel_names[c], json_real(pt->r[c]));
    return json_pack("{s:f,s:s,s:o,s:I,s:I,s:I}", "risk", pt->risk, "level",
        level_names[pt->level], "channels", ch, "shared",
        (json_int_t)pt->shared, "near", (json_int_t)pt->near, "t",
        (json_int_t)pt->t);
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
    for (size_t i = 0; i < sizeof(absent_channels) / sizeof(absent_channels[0]);
         i++)
        json_array_append_new(absent, json_string(absent_channels[i]));
    json_object_set_new(root, "absent_channels", absent);
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
            json_object_set_new(jg, point_names[p], jp);
        }
        json_object_set_new(groups, group_names[g], jg);
    }
    json_object_set_new(root, "groups", groups);
    if (rp->cfg.per_merge) {
        json_t *arr = json_array();
        for (size_t i = 0; i < rp->n; i++) {
            const struct rp_merge *m = &rp->m[i];
            if (!in_split(&rp->cfg, m->sha))
                continue;
            const char *first = NULL;
            if (m->first_level_point >= 0 &&
                m->p[m->first_level_point].top >= 0)
                first = channel_names[m->p[m->first_level_point].top];
            json_array_append_new(
                arr, json_pack("{s:s,s:b,s:b,s:o,s:o,s:o}", "merge", m->sha,
                         "mainline", m->mainline, "conflicted", m->conflicted,
                         "half", point_json(&m->p[PT_HALF]), "end",
                         point_json(&m->p[PT_END]), "first_channel",
                         first ? json_string(first) : json_null()));
        }
        json_object_set_new(root, "merges", arr);
    }
    json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
    fputc('\n', out);
    json_decref(root);
}
