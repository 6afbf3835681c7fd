/*
 * pair.h - the one scoring pipeline for a pair of agents: channels, the
 * inputs only the caller has, noisy-OR once, right of way, and the advisory
 * state machine's step.
 *
 * Pure: no I/O, no clock (time comes in as now_ms), no git. `airspace
 * scan`, the daemon and `airspace replay` all score a pair through here, so
 * what replay measures is what the daemon tells agents
 * (docs/decisions/0012-one-pair-pipeline.md). The git work of the merge
 * channel is the caller's, behind a pair_merge_fn. The engine, the config
 * and the agents are borrowed for the call.
 *
 * A pair's evaluation is pair_score() (or pair_channels() then
 * pair_finish(), to score the engine's part on several threads) and then
 * one pair_advisory_step() with the resulting risk.
 */
#ifndef AIRSPACE_CORE_PAIR_H
#define AIRSPACE_CORE_PAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/advisory.h"
#include "core/forward.h"
#include "core/risk.h"
#include "core/workset.h"

/*
 * The merge channel: whether a's and b's current work conflicts. Return 1
 * on conflict with a new array of paths in *paths (free each and the
 * array; may be NULL), 0 when clean, a negative code when it could not be
 * decided (the channel then stays 0).
 */
typedef int pair_merge_fn(void *ctx, const struct agent *a,
    const struct agent *b, char ***paths, size_t *npaths);

/* What one pair is scored from (all borrowed). */
struct pair_input {
    struct risk_engine *engine;
    const struct risk_config *cfg; /* the engine's */
    size_t ea, eb;                 /* a's and b's indices in the engine */
    const struct agent *a, *b;     /* for the merge channel, right of way */
    double context;                /* stale context in [0, 1]; 0: none */
    bool topic;                    /* their prompts converge */
    pair_merge_fn *merge;          /* NULL: no merge channel */
    void *merge_ctx;
    /* the past merges' rates (core/forward.h); NULL: no forward channel */
    const struct forward_table *forward;
    /* a's and b's reaches of forward at cfg's min_rate, worked out once
     * per agent by a caller scoring many pairs; NULL: from forward */
    const struct forward_reach *reach_a, *reach_b;
    /* Merge later (a caller out of time for this round): a merge due is
     * not run, and the last one's outcome stands for it meanwhile:
     * merge_last 1 conflicted, 0 clean, -1 none (no merge channel). */
    bool merge_later;
    int merge_last;
    /* a's and b's lanes, for right of way (advisory_lane_owner() of their
     * contested files, pair_contested()); NULL: none */
    const struct advisory_lanes *lanes_a, *lanes_b;
};

struct pair_score {
    struct risk_result res; /* final: every channel, R combined once */
    bool merge_checked;     /* the merge channel ran */
    bool merge_later;       /* a merge was due and not run (merge_later) */
    char **merge_paths;     /* conflicting paths; the caller owns them */
    size_t nmerge_paths;
    int hold; /* 0: a holds (b steers), 1: b holds */
    /* whose lanes own the contested files (advisory_lane_owner()): 0 a's,
     * 1 b's, -1 neither's (no lanes, no contested file, or shared) */
    int lane_owner;
};

/*
 * The whole pipeline: the engine's channels, context, topic, forward and
 * activity from in, the merge channel (run only with weight.merge > 0 and a
 * shared path, as a textual merge cannot conflict otherwise; a clean one
 * caps the overlap channel at overlap.merged), R = risk_combine() once, and
 * right of way (advisory_right_of_way_owner(), with the lanes' owner of the
 * contested files when either agent has lanes). out is overwritten. Returns 0,
 * or the merge function's negative code (out is still complete, merge channel
 * 0).
 */
int pair_score(const struct pair_input *in, struct pair_score *out);

/* Its first half: the engine's channels with context, topic, forward and
 * activity, no merge and no R yet. Reads the engine only, so pairs may run
 * on several threads at once. */
void pair_channels(const struct pair_input *in, struct pair_score *out);
/* Its second half, on what pair_channels() left in out: merge channel,
 * R, right of way. Returns as pair_score(). */
int pair_finish(const struct pair_input *in, struct pair_score *out);

/*
 * The contested files of a and b (sorted working sets): the paths both
 * change where their changes meet as the overlap channel sees them, a
 * whole-file change on either side or ranges that intersect once widened
 * by c's margin. They are the files risk_engine_explain() gives as
 * contested, which the steer guidance names and the hooks refuse to the
 * agent that steers. A new array of a's paths (borrowed; free() the array)
 * in *paths, NULL when none; returns how many, in path order.
 */
size_t pair_contested(const struct risk_config *c, const struct agent *a,
    const struct agent *b, const char ***paths);

/* A pair's advisory: the state machine and when its level began. */
struct pair_advisory {
    struct advisory_state st; /* st.level is the pair's level */
    int64_t since;            /* when the current level began */
};

void pair_advisory_init(struct pair_advisory *p);

/*
 * The state machine's one step: feed risk at now_ms (advisory_update).
 * Returns true when the level changed, with the level before in *was (may
 * be NULL) and since = now_ms.
 */
bool pair_advisory_step(const struct risk_config *c, struct pair_advisory *p,
    double risk, int64_t now_ms, enum advisory_level *was);

/*
 * pair_advisory_step() for a pair whose level may not pass max: a pair
 * with a parked agent (its session over, its work not landed) is at most
 * traffic, as a resolution needs both agents to act. A pair above max
 * comes down to it at this step.
 */
bool pair_advisory_step_max(const struct risk_config *c,
    struct pair_advisory *p, double risk, int64_t now_ms,
    enum advisory_level max, enum advisory_level *was);

/* The pair is gone (an agent left): back to a fresh state machine at
 * clear; since is kept. Returns the level it had. */
enum advisory_level pair_advisory_leave(struct pair_advisory *p);

/* The level a pair with no history gets: one step of a fresh state machine
 * (the same as advisory_classify()). */
enum advisory_level pair_level(const struct risk_config *c, double risk);

#endif
