/*
 * advisory.h - advisory levels: classification, the per-pair state machine,
 * right of way and steer guidance.
 *
 * Pure: no clock (time comes in as now_ms arguments), no I/O. The state
 * machine is caller storage, one per pair of agents (advisory_state_init).
 * Right of way reads only stable facts of the two agents (and whose lanes
 * own their contested files), never the time, so both sides and every
 * evaluation agree.
 */
#ifndef AIRSPACE_CORE_ADVISORY_H
#define AIRSPACE_CORE_ADVISORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/risk.h"
#include "core/workset.h"

enum advisory_level {
    ADVISORY_CLEAR = 0,
    ADVISORY_TRAFFIC,
    ADVISORY_RESOLUTION,
};

/* "clear", "traffic" or "resolution". */
const char *advisory_level_name(enum advisory_level l);

/* The level a pair gets from risk alone: >= tau_ra resolution, >= tau_ta
 * traffic, else clear (no history, no early traffic). */
enum advisory_level advisory_classify(const struct risk_config *c, double risk);

struct advisory_state {
    enum advisory_level level;
    bool closing_fast; /* early traffic: time to resolution below tau_min */
    double closure;    /* smoothed dR/dt per second */
    double tau_s;      /* seconds to the resolution boundary; -1 when not
                          closing */
    int64_t below_ra_since, below_ta_since; /* -1: not below */
    /* recent samples, oldest first */
    double r[RISK_CLOSURE_WINDOW_MAX];
    int64_t t[RISK_CLOSURE_WINDOW_MAX];
    unsigned n;
};

void advisory_state_init(struct advisory_state *s);

/*
 * Feed one risk sample at now_ms and return the new level. Enter traffic at
 * R >= tau_ta (or early, when closing fast with R >= early_min), resolution
 * at R >= tau_ra; leave resolution only after R < leave_ra has held for
 * dwell_ms, traffic after R < leave_ta has held for dwell_ms (and no early
 * traffic). Samples whose time goes backwards are taken at the last time.
 */
enum advisory_level advisory_update(const struct risk_config *c,
    struct advisory_state *s, double risk, int64_t now_ms);

/* (r1 - r0) per second between two samples; 0 when t1 <= t0. */
double advisory_closure_rate(
    double r0, int64_t t0_ms, double r1, int64_t t1_ms);

/*
 * Changed lines an agent has in its working set ("work" for right of way):
 * per file added + deleted lines when known, else the lines of its ranges,
 * else 1 (a whole-file change with no stats).
 */
uint64_t advisory_work(const struct agent *a);

/*
 * Who holds: 0 when a holds (b steers), 1 when b holds. In order: a human
 * over an agent; more commits ahead; more committed lines; when neither has
 * commits, more work (advisory_work), then more files; an earlier known
 * start (0 = unknown, last); the smaller id. advisory_right_of_way(a, b) ==
 * 1 - advisory_right_of_way(b, a) for distinct ids.
 */
int advisory_right_of_way(const struct agent *a, const struct agent *b);

/*
 * An agent's lanes: the paths and globs it owns (docs/fleet.md), borrowed.
 * A lane covers a path as in the ownership conflict (util/glob.h: a
 * directory covers what is inside it, a pattern without '/' a name at any
 * depth); an "@name" lane, a name for the ownership file, covers none.
 */
struct advisory_lanes {
    const char *const *v;
    size_t n;
};

/* The first of l's lanes that covers path, or NULL (l may be NULL). */
const char *advisory_lane_of(const struct advisory_lanes *l, const char *path);

/*
 * Whose lanes own the n contested paths of a pair: 0 when a's lanes cover
 * every one of them and b's none, 1 the other way round, -1 otherwise (no
 * path, or a path in both agents' lanes or in neither's). la and lb may be
 * NULL (no lanes). Swapping a and b swaps 0 and 1.
 */
int advisory_lane_owner(const struct advisory_lanes *la,
    const struct advisory_lanes *lb, const char *const *paths, size_t n);

/*
 * Right of way with the lanes: owner is advisory_lane_owner() of the
 * pair's contested files (-1: no owner). A human holds over an agent; then
 * the owner of the lane holds, whatever the commits; then the order of
 * advisory_right_of_way(), which is this with owner -1. Antisymmetric when
 * owner is swapped with a and b.
 */
int advisory_right_of_way_owner(
    const struct agent *a, const struct agent *b, int owner);

/* A file the steering agent could switch to, with its risk. */
struct advisory_alt {
    const char *path;
    double risk;
};

/*
 * Guidance for the agent that steers (pure text; returns a new string, free
 * with free()): the contested files and ranges or the coupling from ev, who
 * holds them, and the options: switch to the lowest-risk of alts (at most 3
 * are named), wait until the holder commits or lands, or message it. No
 * lanes: advisory_steer_text_lanes() with NULL, NULL.
 */
char *advisory_steer_text(const struct agent *steer, const struct agent *hold,
    double risk, const struct risk_evidence *ev,
    const struct advisory_alt *alts, size_t nalts);

/*
 * advisory_steer_text() with the two agents' lanes (NULL: none): when the
 * contested files of ev are the holder's by its lanes (advisory_lane_owner)
 * the text says so, names those lanes, and tells the steering agent to
 * leave the files rather than wait for the holder, which owns them.
 */
char *advisory_steer_text_lanes(const struct agent *steer,
    const struct agent *hold, double risk, const struct risk_evidence *ev,
    const struct advisory_alt *alts, size_t nalts,
    const struct advisory_lanes *steer_lanes,
    const struct advisory_lanes *hold_lanes);

#endif
