/*
 * replay.h - evaluate the risk model on recorded merge histories.
 *
 * For each recorded two-parent merge (records.h) the two sides fly as two
 * agents from the merge base. They are scored twice: at half-way (both
 * sides' half-way working sets, at t_half = the later of the two half-way
 * commit times) and at the end (the full working sets, at t_end = the later
 * of the two tips' commit times). Recency ages are t minus the time the side
 * last changed the file. The label is whether git's merge of the two tips
 * conflicted.
 *
 * Scores compared in the same run:
 *   airspace   the model's risk R (noisy-OR of its channels) and its level
 *   shared     baseline: number of paths both sides changed
 *   near3      baseline: number of shared files whose hunks come within
 *              `near` lines (3) of each other (whole-file changes count)
 *
 * The risk engine (core/risk.h) scores the channels records can feed,
 * overlap and tree (weights w_overlap, w_tree; file weights from the recency
 * settings below). Channels that need file contents or a repository (merge,
 * dependency, symbol) and session data (intent, context, topic) are absent
 * from records; the report lists them. The model's extra terms come from
 * core/proximity.h: a graded proximity of the nearest hunks of shared files
 * and learned hotspots (files that conflicted in merges committed before the
 * time being scored; never the merge itself). All combine by noisy-OR.
 *
 * Git mode (replay_run_git) replays a repository's merges instead, through
 * the full risk engine with the import graph and the merge channel.
 *
 * Ownership: a replay owns its merges; replay_free() releases everything.
 */
#ifndef AIRSPACE_EVAL_REPLAY_H
#define AIRSPACE_EVAL_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "eval/records.h"
#include "core/proximity.h"
#include "core/risk.h"
#include "git/history.h"
#include "git/repo.h"
#include "lang/repograph.h"
#include "util/error.h"

/* Which merges are evaluated (all are still read, for hotspots). */
enum replay_split {
    REPLAY_SPLIT_ALL = 0,
    REPLAY_SPLIT_TUNE,     /* the split digit of the sha is even */
    REPLAY_SPLIT_HELD_OUT, /* the split digit of the sha is odd */
};

enum replay_channel {
    REPLAY_CH_PROXIMITY = 0,
    REPLAY_CH_HOTSPOT,
    REPLAY_CH_EXPOSURE, /* saturating |W_a| * |W_b| */
    REPLAY_CH_DIRS,     /* saturating count of directories both changed */
    REPLAY_CH_ACTIVITY, /* saturating min of the two sides' commit counts */
    REPLAY_NCHANNELS,
};

struct replay_config {
    uint32_t margin;            /* lines; gap <= margin is a collision (1) */
    double half_life_s;         /* recency half-life, seconds */
    double floor;               /* recency floor */
    double w[REPLAY_NCHANNELS]; /* channel weights omega */
    double prox_scale;          /* lines per e-fold of the graded term */
    enum prox_agg prox_agg;     /* per-file combination of the proximity */
    double hot_k;               /* hotspot half-saturation count */
    double exposure_k;          /* files x files per e-fold of exposure */
    double dirs_k;              /* shared directories per e-fold */
    double activity_k;          /* commits (the fewer side's) per e-fold */
    double w_overlap, w_tree;   /* the risk engine's channels' weights */
    double tau_ta, tau_ra;      /* traffic / resolution thresholds */
    uint32_t near;              /* the near-hunks baseline's distance, lines */
    enum replay_split split;
    unsigned split_digit; /* which hex digit of the sha splits (0..39) */
    bool per_merge;       /* keep per-merge rows in the report */
};

/* The defaults (documented in docs/replay.md). */
void replay_config_default(struct replay_config *cfg);

/*
 * Set one option by name ("margin", "recency.half_life", "weight.proximity",
 * "prox.agg", ...). Returns 0, or AS_EINVAL with a message naming the key.
 */
int replay_config_set(struct replay_config *cfg, const char *key,
    const char *value, struct as_err *err);

struct replay;

struct replay *replay_new(const struct replay_config *cfg);
void replay_free(struct replay *rp);

/* Add one record (borrowed; only what scoring needs is kept). */
void replay_add(struct replay *rp, const struct record *r);

/* Note a malformed record that was skipped. */
void replay_note_skipped(struct replay *rp);

/* Score every merge (after the last replay_add). */
void replay_finish(struct replay *rp);

/* Git mode: which merges, the risk model, threads for the graph build. */
struct replay_git_options {
    struct history_options history;
    struct risk_config risk;
    unsigned steps;          /* scored commits per side (and its half-way
                                commit); 0: every commit */
    unsigned threads;        /* graph parsing threads; 0: 2 */
    const char *graph_cache; /* NULL: $GIT_COMMON_DIR/airspace/graph.cache */
    /* Told the merges replayed (or skipped) so far and their number: once
     * with 0 when the merges are known, then after each one, from the
     * replay's threads but never two calls at once (what it returns is not
     * read: a replay is not stopped). NULL: not told. */
    repograph_progress_fn *progress;
    void *progress_ctx;
};

/* Scored commits per side unless told (--steps): a side of at most this
 * many is scored at every commit (docs/replay.md, "Steps"). */
#define REPLAY_STEPS_DEFAULT 8

/* History defaults, risk_config_default(), steps REPLAY_STEPS_DEFAULT,
 * threads 0, cache NULL. */
void replay_git_options_init(struct replay_git_options *o);

/*
 * Replay the merges of repository r (history.h) into rp, which must be new
 * (no replay_add): each merge's two sides are walked commit by commit in
 * commit-time order and scored (at the commits o->steps picks) by the risk
 * engine over the import graph of the merge base, with the merge channel
 * and the advisory state machine; the label is whether merging the two
 * parents conflicts, and with steps a conflicted merge is walked again at
 * every commit for its first warnings. Per-merge rows are kept. Returns 0 or
 * the first error (history, graph, diff or merge).
 */
int replay_run_git(struct replay *rp, struct repo *r,
    const struct replay_git_options *o, struct as_err *e);

/* The notes of replay_run_git() about merges it skipped on the way (a
 * merge needing an object the repository lacks, "missing_object"), one
 * line each, oldest merge first. */
size_t replay_nnotes(const struct replay *rp);
const char *replay_note(const struct replay *rp, size_t i);

/* Print the summary as a table, or as one JSON document. */
void replay_print_table(const struct replay *rp, FILE *out);
void replay_print_json(const struct replay *rp, FILE *out);

#endif
