/*
 * risk.h - the channel engine: how close two agents are in code space.
 *
 * Pure: no I/O, no clock. For agents a and b each channel i yields
 * r_i in [0, 1]; they combine by noisy-OR R = 1 - prod(1 - w_i * r_i)
 * (docs/risk-model.md has every definition). The engine borrows the config,
 * the graph and the agents given to risk_engine_new(): they must outlive it
 * and not change while it lives (build a new engine after a change).
 * Evidence strings are borrowed from the agents and the graph too.
 *
 * Config keys for risk_config_set():
 *   weight.overlap weight.merge weight.dependency weight.symbol weight.intent
 *   weight.context weight.topic weight.tree weight.forward weight.activity
 *                       channel weights, [0, 1]
 *   activity.k          commits (a's times b's) per e-fold of the activity
 *                       channel, > 0
 *   forward.min_rate    least history rate of a path the forward channel
 *                       counts, [0, 1]
 *   overlap.merged      the most the overlap channel gives when the pair's
 *                       speculative merge ran and was clean, [0, 1]
 *   margin              lines added around every range, 0..1000000
 *   gamma               decay per extra import hop, (0, 1]
 *   cap                 longest import path followed, 1..32 hops
 *   sigma0              symbol evidence without a matching use, (0, 1]
 *   symbol.enclosing    symbol value for a change inside a user, [0, 1]
 *   symbols             use symbol evidence: true/false (1/0, on/off)
 *   recency.floor       weight of an abandoned edit, [0, 1]
 *   recency.half_life_ms  half-life of the recency weight, > 0
 *   tau.traffic tau.resolution      enter thresholds, [0, 1]
 *   leave.traffic leave.resolution  leave thresholds, [0, 1]
 *   dwell_ms            how long the lower value must hold to leave, >= 0
 *   tau_min_ms          early traffic when time to resolution is below, >= 0
 *   early_min           least risk for early traffic, [0, 1]
 *   closure.window      samples smoothing the closure rate, 2..64
 */
#ifndef AIRSPACE_CORE_RISK_H
#define AIRSPACE_CORE_RISK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/graph.h"
#include "core/intervals.h"
#include "core/workset.h"
#include "util/error.h"

enum risk_channel {
    RISK_OVERLAP,
    RISK_MERGE,
    RISK_DEPENDENCY,
    RISK_SYMBOL,
    RISK_INTENT,
    RISK_CONTEXT,
    RISK_TOPIC,
    RISK_TREE,
    RISK_FORWARD,
    RISK_ACTIVITY,
    RISK_NCHANNELS
};

/* Name of a channel ("overlap", ...), or "unknown". */
const char *risk_channel_name(enum risk_channel c);
/* Parse a channel name; returns 0 or AS_EINVAL. */
int risk_channel_parse(const char *name, enum risk_channel *out);

#define RISK_CLOSURE_WINDOW_MAX 64

struct risk_config {
    double weight[RISK_NCHANNELS];
    uint32_t margin;         /* lines widened on both sides of a range */
    double gamma;            /* per-hop decay of dependency and symbol */
    unsigned cap;            /* max import hops */
    double sigma0;           /* sigma without symbol evidence */
    double symbol_enclosing; /* value of a change inside a user of S */
    bool use_symbols;        /* false: sigma = 1 and no symbol channel */
    double recency_floor;
    int64_t half_life_ms;
    double tau_ta, tau_ra;     /* enter traffic / resolution */
    double leave_ta, leave_ra; /* leave traffic / resolution (hysteresis) */
    int64_t dwell_ms;          /* a lower value must hold this long */
    int64_t tau_min_ms;        /* early traffic below this time-to-RA */
    double early_min;          /* least R for early traffic */
    unsigned closure_window;   /* samples in the closure-rate fit */
    double forward_min_rate;   /* forward channel: paths below are left out */
    double activity_k;     /* activity channel: commits product per e-fold */
    double overlap_merged; /* overlap's cap when the merge is clean */
};

/* airspace defaults (docs/risk-model.md). */
void risk_config_default(struct risk_config *c);
/* The reference model's settings: margin 0, sigma 1 (no symbols), recency
 * floor 1 (no decay), overlap 1, dependency 0.9, tree 0.25, every other
 * weight 0. */
void risk_config_ecc(struct risk_config *c);
/*
 * Set one constant by key (see the list above) from its text value.
 * Returns 0, or AS_EINVAL with a message naming the key and value; c is
 * unchanged on error.
 */
int risk_config_set(struct risk_config *c, const char *key, const char *value,
    struct as_err *e);
/* Check cross-field order (leave <= enter, traffic <= resolution).
 * Returns 0 or AS_EINVAL with a message. */
int risk_config_check(const struct risk_config *c, struct as_err *e);
/* The first ordering risk_config_check() refuses: true, with the key and
 * value of the setting that is too high (*above, static) and of the one it
 * exceeds (*below); false when every ordering holds. */
bool risk_config_misorder(const struct risk_config *c, const char **above,
    double *above_value, const char **below, double *below_value);

/* Recency weight floor + (1 - floor) * 2^(-age / half_life); age < 0 is 0. */
double risk_recency_weight(const struct risk_config *c, int64_t age_ms);

/* ((d_a - L) + (d_b - L)) / (d_a + d_b) over normalised paths, L = number
 * of leading components they share; 0 for two empty paths. */
double risk_tree_distance(const char *a, const char *b);

/* Noisy-OR of the weighted channel values. */
double risk_combine(
    const struct risk_config *c, const double r[RISK_NCHANNELS]);

/*
 * The channels that make up R: those with weight * value > 0, largest
 * share first (ties in channel order), into out; returns how many. What
 * an advisory gives as its "why".
 */
size_t risk_why(const struct risk_config *c, const double r[RISK_NCHANNELS],
    enum risk_channel out[RISK_NCHANNELS]);

struct risk_result {
    double r[RISK_NCHANNELS];
    double risk;
};

struct risk_engine;

/*
 * Precompute per-agent tables (see the header comment for what is
 * borrowed). g may be NULL: no dependency or symbol channel. File weights
 * are read from ws_file.weight as given. An agent's ws_file.new_imports and
 * new_uses give it its own view of g (docs/risk-model.md); names must
 * already be interned in g.
 */
struct risk_engine *risk_engine_new(const struct risk_config *c,
    const struct graph *g, const struct agent *agents, size_t n);
/* The same, preparing agents on up to threads threads (the only part of
 * the engine that runs on more than one; the result is identical). */
struct risk_engine *risk_engine_new_mt(const struct risk_config *c,
    const struct graph *g, const struct agent *agents, size_t n,
    unsigned threads);
void risk_engine_free(struct risk_engine *e);

/*
 * What preparing an agent finds for each of its files (changed definitions
 * and uses, importers within cap) kept by the inputs that decide it, so
 * that engines built one after another over the same graph and
 * configuration (replay: one per commit, most files unchanged) prepare
 * only the files that changed; the engine is the same as without it.
 * Clear it when the graph or the configuration changes. One thread at a
 * time: an engine given a cache prepares its agents on one thread.
 */
struct risk_prep_cache;
struct risk_prep_cache *risk_prep_cache_new(void);
void risk_prep_cache_clear(struct risk_prep_cache *pc);
void risk_prep_cache_free(struct risk_prep_cache *pc);
void risk_prep_cache_stats(
    const struct risk_prep_cache *pc, size_t *hits, size_t *misses);
struct risk_engine *risk_engine_new_cached(const struct risk_config *c,
    const struct graph *g, const struct agent *agents, size_t n,
    unsigned threads, struct risk_prep_cache *pc);

/* The engine's channels of agents a and b (indices into the engine's
 * agents). Merge, context, topic and forward are 0 and out->risk is left
 * 0: a pair is scored whole through pair_score() (core/pair.h), which
 * fills them and combines R, in the one place it is combined. */
void risk_engine_score(
    struct risk_engine *e, size_t a, size_t b, struct risk_result *out);

/* A shared file and the widened line ranges both changed. */
struct risk_contested {
    const char *path;
    bool whole;              /* a whole-file change on either side */
    struct range_set ranges; /* owned; empty when whole */
    double oc, value;        /* overlap coefficient, w_a * w_b * oc */
};

/* The strongest import coupling: downstream imports ... upstream. */
struct risk_dependency {
    bool present;
    size_t up_agent, down_agent; /* engine agent indices */
    const char *upstream, *downstream;
    const char **chain; /* downstream first, upstream last */
    uint32_t *chain_ids;
    size_t nchain;
    double sigma, value;
    const char **symbols; /* changed names giving sigma = 1 */
    size_t nsymbols;
};

/* A changed definition and a change that uses it. */
struct risk_symbol_hit {
    const char *name;
    const char *def_path;
    size_t def_agent;
    const char *use_path;
    uint32_t use_line;
    size_t use_agent;
    bool enclosing; /* the use is inside a changed definition, not on a
                       changed line */
    double value;
};

/* An intent glob of one agent matching the other's file or intent. */
struct risk_intent_hit {
    size_t agent; /* whose intent */
    const char *glob;
    const char *path; /* the other's file, or its overlapping intent */
    bool path_is_intent;
};

struct risk_evidence {
    struct risk_result result;
    struct risk_contested *contested;
    size_t ncontested;
    struct risk_dependency dep;
    struct risk_symbol_hit *symbols; /* by value, highest first */
    size_t nsymbols;
    struct risk_intent_hit *intents;
    size_t nintents;
    const char *tree_a, *tree_b; /* closest pair by directory, or NULL */
    double tree_distance;
};

/* Fill ev with the evidence behind risk_engine_score(e, a, b); release
 * with risk_evidence_release(). */
void risk_engine_explain(
    struct risk_engine *e, size_t a, size_t b, struct risk_evidence *ev);
void risk_evidence_release(struct risk_evidence *ev);

#endif
