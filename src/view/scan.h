/*
 * scan.h - one snapshot of the airspace: agents, the import graph, every
 * pair scored, classified and given right of way.
 *
 * Used by `airspace scan` (cmd_scan.c) and by the benchmarks. The report owns
 * its agents, graph and pairs.
 */
#ifndef AIRSPACE_VIEW_SCAN_H
#define AIRSPACE_VIEW_SCAN_H

#include <stdbool.h>
#include <stdint.h>

#include "core/advisory.h"
#include "core/forward.h"
#include "core/graph.h"
#include "core/pair.h"
#include "core/risk.h"
#include "core/workset.h"
#include "util/error.h"

struct scan_pair {
    uint32_t a, b; /* agent indices, a < b */
    struct risk_result res;
    enum advisory_level level;
    uint32_t hold, steer; /* agent indices */
    bool merge_checked;   /* the merge channel ran for this pair */
    bool merge_clean;     /* ... and found no conflict (overlap capped) */
    char **merge_paths;   /* conflicting paths of the speculative merge */
    size_t nmerge_paths;
};

/* The merge channel, supplied by the caller (the git layer in `scan`): a
 * pair_merge_fn (core/pair.h). */
typedef pair_merge_fn scan_merge_fn;

/* A worktree or branch left out of the report because it could not be read
 * (no commit, no common history with the integration branch, ...). */
struct scan_skipped {
    char *worktree; /* its directory, or NULL for a branch */
    char *branch;   /* its branch, or NULL when detached or unknown */
    char *reason;   /* the error, as on stderr */
};

struct scan_graph_stats {
    size_t files, source_files, parsed, cached, edges;
    double build_ms;
};

struct scan_report {
    struct risk_config cfg;
    int64_t now_ms;
    char *repository;  /* common git dir, or the --repo dir, or NULL */
    char *integration; /* integration branch, or NULL */
    struct agent *agents;
    size_t nagents;
    struct scan_skipped *skipped; /* what could not be read, in order */
    size_t nskipped;
    struct graph graph;
    bool have_graph;
    struct scan_graph_stats gstats;
    struct risk_engine *engine;
    /* the forward channel's table (core/forward.h), borrowed; NULL: the
     * channel is 0 */
    const struct forward_table *forward;
    struct forward_reach *reach; /* each agent's, when forward is scored */
    struct scan_pair *pairs; /* every pair, sorted by level then risk desc */
    size_t npairs;
    size_t ntraffic, nresolution;
    bool merge_channel; /* merge channel computed (git mode) */
    unsigned threads;   /* for scoring (0 or 1: this thread only) */
    /* each agent's lanes for right of way (core/advisory.h), as the
     * daemon has them from `fleet up`; NULL: none. The array is the
     * report's, the strings borrowed. */
    struct advisory_lanes *lanes;
};

/*
 * Score every pair of r->agents over r->graph (if have_graph) with r->cfg
 * through the one pair pipeline (core/pair.h: the daemon's and replay's),
 * classify as a pair with no history, give right of way and sort. Agents and
 * graph must already be filled. merge (may be NULL) runs only for pairs whose
 * working sets share a path, since a textual merge cannot conflict otherwise.
 * The engine's set-up and the scoring use r->threads threads; merge runs on
 * this one.
 */
void scan_score(struct scan_report *r, scan_merge_fn *merge, void *ctx);

/* Record a worktree or branch left out (copies the strings, which may be
 * NULL but for reason). */
void scan_report_skip(struct scan_report *r, const char *worktree,
    const char *branch, const char *reason);

void scan_report_release(struct scan_report *r);

#endif
